"""Build a translated student notebook from the English release and its catalog.

The translated notebook is the English one with each markdown cell's source replaced by its
translation and ``metadata.lecture.language`` set; code cells, cell ids, nbgrader metadata
and everything else are the English notebook's, so ``check``, ``grade`` and nbgrader treat
both alike. A cell with no current translation (missing or stale) keeps its English text
and is listed in the returned problems; ``autograder.translate.sync`` fails the tests on it.
The Colab badge and setup cell (``autograder.colab``) are in no catalog: where the English
has them, the language's own take their place, the badge opening ``notebooks-<language>/``.

Trusts the repository. Imports ``autograder.colab``, ``autograder.course``,
``autograder.notebook`` and ``autograder.translate.catalog``.
"""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat

from autograder.colab import is_colab_cell, with_colab_cells
from autograder.course import RELEASE, REPO
from autograder.notebook import read_notebook
from autograder.translate.catalog import cell_context, entry_key, live_entries, load, state


def release_dir(language: str) -> Path:
    """Where the notebooks in ``language`` are released: ``notebooks-<language>/``."""
    return REPO / f"notebooks-{language}"


def translate_notebook(english: nbformat.NotebookNode, language: str,
                       name: str) -> tuple[nbformat.NotebookNode, list[str]]:
    """``english`` with its prose in ``language``; and the cells left in English, and why."""
    entries = live_entries(load(language, name))
    translated = copy.deepcopy(english)
    untranslated = []
    for cell in translated.cells:
        if cell.cell_type != "markdown" or is_colab_cell(cell):
            continue
        entry = entries.get(entry_key(cell_context(cell.id), cell.source))
        found = state(entry, cell.source)
        if found == "missing":
            untranslated.append(f"cell {cell.id}: not translated")
        elif found == "stale":
            untranslated.append(f"cell {cell.id}: the English changed since it was translated")
        else:
            cell.source = entry.msgstr
    if any(is_colab_cell(cell) for cell in english.cells):
        path = f"{release_dir(language).name}/{name}/{name}.ipynb"
        with_colab_cells(translated, path, language)
    translated.metadata["lecture"] = {"language": language}
    return translated, untranslated


def build(names: list[str], language: str, source: Path = RELEASE,
          target: Path | None = None) -> dict[Path, list[str]]:
    """Write ``<target>/<name>/<name>.ipynb`` in ``language`` for each released notebook;
    return each written path with the cells it left in English."""
    target = target or release_dir(language)
    written = {}
    for name in names:
        english = read_notebook(source / name / f"{name}.ipynb")
        translated, untranslated = translate_notebook(english, language, name)
        path = target / name / f"{name}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(translated, path)
        written[path] = untranslated
    return written
