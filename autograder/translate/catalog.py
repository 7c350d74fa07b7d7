"""Translation catalogs: one gettext ``.po`` file per notebook, kept in step with the English.

``translations/<language>/<assignment>.po`` holds a notebook's cells (``msgctxt "cell <id>"``,
``msgid`` the English markdown) and its messages (``msgctxt "message"``, see
``autograder.translate.units``); ``lecture_utils.po`` holds the messages of the library itself.
The ``msgid`` is the English *as it was translated*: when the English cell changes, its entry
no longer matches and the translation is *stale*. ``update`` brings a catalog in step: new
cells and messages get an empty entry, a changed cell keeps its old translation marked
``fuzzy`` with the old English as ``#| msgid`` (so a translator sees what changed), and
entries whose cell or message is gone become obsolete (``#~``).

Trusts the repository. Imports ``autograder.course`` and ``lecture_utils.i18n``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polib

from autograder.course import REPO, assignments, instructor_notebook
from autograder.translate.units import Message, cell_units, library_messages, notebook_messages
from lecture_utils.i18n import MESSAGE_CONTEXT, TRANSLATIONS

LIBRARY = "lecture_utils"  # the catalog of the library's own messages
WRAP = 0  # polib: never re-wrap, so an entry's diff is the change a translator made


def cell_context(cell_id: str) -> str:
    return f"cell {cell_id}"


def catalog_path(language: str, name: str) -> Path:
    return TRANSLATIONS / language / f"{name}.po"


def catalog_names() -> list[str]:
    return [*assignments(), LIBRARY]


@dataclass(frozen=True)
class Unit:
    """One thing to translate: its context (cell or message), the current English, and where
    a translator finds it."""

    context: str
    english: str
    where: str


def units_of(name: str) -> list[Unit]:
    """What catalog ``name`` must translate, in reading order."""
    if name == LIBRARY:
        roots = [REPO / "lecture_utils", REPO / "autograder"]
        return [Unit(MESSAGE_CONTEXT, m.text, m.where) for m in library_messages(roots)]
    notebook = instructor_notebook(name)
    cells = [Unit(cell_context(cell_id), source, f"{name}.ipynb, cell {cell_id}")
             for cell_id, source in cell_units(notebook).items()]
    messages: list[Message] = notebook_messages(notebook)
    return cells + [Unit(MESSAGE_CONTEXT, m.text, f"{name}.ipynb, {m.where}") for m in messages]


def entry_key(context: str | None, english: str) -> tuple[str | None, str]:
    """What a unit's entry is found by: a cell by its id (its English may have changed since
    it was translated), a message by its English."""
    return (context, "") if context and context.startswith("cell ") else (context, english)


def state(entry: polib.POEntry | None, english: str) -> str:
    """``"missing"`` (no translation), ``"stale"`` (translated from other English, or marked
    fuzzy) or ``"current"``: whether ``entry`` translates ``english`` as it is now."""
    if entry is None or not entry.msgstr:
        return "missing"
    if "fuzzy" in entry.flags or entry.msgid != english:
        return "stale"
    return "current"


def live_entries(catalog: polib.POFile) -> dict[tuple[str | None, str], polib.POEntry]:
    """The catalog's entries that are not obsolete, by ``entry_key``."""
    return {entry_key(e.msgctxt, e.msgid): e for e in catalog if not e.obsolete}


def load(language: str, name: str) -> polib.POFile:
    path = catalog_path(language, name)
    return polib.pofile(str(path), wrapwidth=WRAP) if path.exists() else _new_catalog(language)


def _new_catalog(language: str) -> polib.POFile:
    catalog = polib.POFile(wrapwidth=WRAP)
    catalog.metadata = {"Language": language, "MIME-Version": "1.0",
                        "Content-Type": "text/plain; charset=UTF-8",
                        "Content-Transfer-Encoding": "8bit"}
    return catalog


def update(language: str, name: str) -> dict[str, int]:
    """Bring catalog ``name`` in step with the English; return counts of what changed."""
    old = load(language, name)
    by_key = live_entries(old)
    fresh = _new_catalog(language)
    fresh.metadata = old.metadata or fresh.metadata
    counts = {"added": 0, "stale": 0, "obsolete": 0}
    for unit in units_of(name):
        entry = by_key.pop(entry_key(unit.context, unit.english), None)
        if entry is None:
            entry = polib.POEntry(msgctxt=unit.context, msgid=unit.english, msgstr="")
            counts["added"] += 1
        elif entry.msgid != unit.english:  # the English cell changed since it was translated
            entry.previous_msgid = entry.msgid
            entry.msgid = unit.english
            if "fuzzy" not in entry.flags:
                entry.flags.append("fuzzy")
            counts["stale"] += 1
        entry.occurrences = []
        entry.comment = unit.where
        fresh.append(entry)  # (units_of lists each cell and message once)
    for entry in by_key.values():
        entry.obsolete = True
        fresh.append(entry)
        counts["obsolete"] += 1
    path = catalog_path(language, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh.save(str(path))
    return counts

