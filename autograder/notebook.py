"""Reading notebook files, the one place it is done, and the cell helpers everyone uses.

Trusts nothing in the file: every way a notebook can be broken becomes an exception with a
message for the person concerned. Imports only the standard library, ``nbformat`` and
``autograder.limits``. Two entry points share the file reading: ``read_notebook`` for a
reader's own ``check`` (a friendly message naming the file; nbformat's objects) and
``read_submission`` for grading: the submitted file is hostile, so it is opened without
following links or blocking, read only up to ``Limits.notebook_bytes``, its JSON values
counted before parsing and its nesting and text checked after, and every field the grader
uses is checked for its type; what fails becomes ``InvalidSubmission`` naming the cell and
what to do, the message the record keeps.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import nbformat

from autograder.limits import Limits
from lecture_utils.i18n import notebook_language


class NotebookError(ValueError):
    """A file that cannot be graded; the message names the file and what to do."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


class InvalidSubmission(ValueError):
    """The file cannot be graded as this assignment's notebook."""


def nbgrader_meta(cell: Any) -> dict[str, Any]:
    """A cell's nbgrader metadata, ``{}`` when it has none (or a broken one)."""
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    nbgrader = meta.get("nbgrader") if isinstance(meta, dict) else None
    return nbgrader if isinstance(nbgrader, dict) else {}


def grade_id(cell: Any) -> str | None:
    """A cell's nbgrader grade_id, or None."""
    return nbgrader_meta(cell).get("grade_id")


def grade_ids(notebook: Any) -> list[str]:
    """The nbgrader grade_ids of a notebook's cells, in order."""
    return [g for g in map(grade_id, notebook["cells"]) if g]


def cell_source(cell: dict[str, Any]) -> str:
    """A cell's source as one string (the JSON may hold a list of lines)."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Read a notebook, turning every way it can be broken into a NotebookError."""
    if not path.exists():
        raise NotebookError(path, "no such file")
    if not path.is_file():
        raise NotebookError(path, "is not a file; give the path of an .ipynb notebook")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise NotebookError(path, "is not a text file, so not a Jupyter notebook") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        if path.suffix != ".ipynb":
            raise NotebookError(path, "is not a Jupyter notebook (those are .ipynb files); "
                                "give the path of your saved notebook") from None
        raise NotebookError(
            path,
            f"is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}); "
            "the file is damaged - restore it from a checkpoint or re-download it",
        ) from None
    if isinstance(data, dict) and isinstance(data.get("nbformat"), int) and data["nbformat"] < 4:
        raise NotebookError(path, f"is an old (version {data['nbformat']}) notebook; open it in "
                            "JupyterLab and save it, which converts it to version 4")
    if not isinstance(data, dict) or "cells" not in data or "nbformat" not in data:
        raise NotebookError(path, "is JSON but not a Jupyter notebook (no 'cells'/'nbformat')")
    try:
        return nbformat.reads(text, as_version=4)
    except Exception as error:
        raise NotebookError(path, f"is not a readable notebook: {error}") from None


@contextmanager
def open_regular(path: Path) -> Iterator[tuple[BinaryIO, os.stat_result]]:
    """``path`` open for reading, with its status, if it is a regular file; OSError, or
    InvalidSubmission for anything else. Opened without following a link or waiting on a
    FIFO or device."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InvalidSubmission(f"{path.name} is not a regular file; submit the notebook")
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as file:
        yield file, info


def read_capped(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes (``open_regular``),
    or OSError or InvalidSubmission. Read by size, never to the end of whatever it is."""
    with open_regular(path) as (file, info):
        if info.st_size > limit:
            raise InvalidSubmission(_too_big(info.st_size, limit))
        data = file.read(limit + 1)  # the file may grow while it is read
    if len(data) > limit:
        raise InvalidSubmission(_too_big(len(data), limit))
    return data


def _too_big(size: int, limit: int) -> str:
    return (f"the file is {size / 2**20:.1f} MiB, over the {limit / 2**20:.0f} MiB a notebook "
            "may be (its outputs, most likely); clear them (Edit > Clear Outputs of All "
            "Cells), save, and submit again")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _walk(data: Any, limits: Limits) -> None:
    """Nesting and text of parsed JSON, checked without recursion: at most
    ``limits.json_depth`` deep, and text that is Unicode (JSON may spell lone surrogates,
    which no file can hold)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            strings = (value,)
        elif isinstance(value, dict):
            strings, children = value.keys(), value.values()
        elif isinstance(value, list):
            strings, children = (), value
        else:
            continue
        for text in strings:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                raise InvalidSubmission("the file holds text that is not Unicode (a lone "
                                        "surrogate escape such as \\ud800)") from None
        if isinstance(value, str):
            continue
        if depth >= limits.json_depth:
            raise InvalidSubmission(f"its JSON is nested more than {limits.json_depth} deep; "
                                    "no notebook is: submit the notebook JupyterLab saved")
        stack.extend((child, depth + 1) for child in children)


def parse_json(data: bytes, limits: Limits) -> Any:
    """``data`` as JSON, or InvalidSubmission. Its objects, arrays and items are counted
    first by their ``{``, ``[`` and ``,`` bytes (an upper bound, since strings hold some), so
    that a file of a million empty lists is refused before Python builds them."""
    values = data.count(b"{") + data.count(b"[") + data.count(b",")
    if values > limits.json_values:
        raise InvalidSubmission(
            f"the file holds about {values:,} JSON values, over the {limits.json_values:,} "
            "a notebook may have (its outputs, most likely); clear them (Edit > Clear "
            "Outputs of All Cells), save, and submit again")
    try:
        parsed = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise InvalidSubmission("not a text file, so not a Jupyter notebook") from None
    except RecursionError:
        raise InvalidSubmission(f"its JSON is nested more than {limits.json_depth} deep; no "
                                "notebook is: submit the notebook JupyterLab saved") from None
    except ValueError as error:  # bad JSON, NaN, an integer too long to read
        raise InvalidSubmission(f"not valid notebook JSON ({str(error)[:200]})") from None
    _walk(parsed, limits)
    return parsed


def _check_cell(number: int, cell: Any, limits: Limits) -> None:
    """The fields of one cell that the grader reads have the types it reads them as."""
    where = f"cell {number}"
    if not isinstance(cell, dict):
        raise InvalidSubmission(f"{where} is not a cell (a JSON object)")
    if cell.get("cell_type") not in ("code", "markdown", "raw"):
        raise InvalidSubmission(f"{where} has no valid cell_type (code, markdown or raw)")
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        length = sum(map(len, source))
    elif isinstance(source, str):
        length = len(source)
    else:
        raise InvalidSubmission(f"{where}'s source is not text")
    if length > limits.source_chars:
        raise InvalidSubmission(f"{where}'s source is {length:,} characters, over the "
                                f"{limits.source_chars:,} a cell may have")
    if not isinstance(cell.get("id", ""), str):
        raise InvalidSubmission(f"{where}'s id is not text")
    meta = cell.get("metadata", {})
    if not isinstance(meta, dict):
        raise InvalidSubmission(f"{where}'s metadata is not a JSON object")
    nbgrader = meta.get("nbgrader", {})
    if not isinstance(nbgrader, dict):
        raise InvalidSubmission(f"{where}'s nbgrader metadata is not a JSON object; restore "
                                "the cell from the released notebook")
    if not isinstance(nbgrader.get("grade_id", ""), str):
        raise InvalidSubmission(f"{where}'s grade_id is not text; restore the cell from the "
                                "released notebook")
    if any(len(text) > limits.source_chars for text in (cell.get("id", ""),
                                                         nbgrader.get("grade_id", ""))):
        raise InvalidSubmission(f"{where}'s id or grade_id is longer than a cell's source "
                                "may be")


def read_submission(path: Path, limits: Limits | None = None) -> list[dict[str, Any]]:
    """The cells of a submitted notebook, every field the grader reads checked for its type
    and size, or InvalidSubmission saying what is wrong, with the cell (numbered from 1, as
    a reader counts them) and what to do."""
    return read_submission_and_language(path, limits)[0]


def read_submission_and_language(path: Path, limits: Limits | None = None
                                 ) -> tuple[list[dict[str, Any]], str]:
    """``read_submission``'s cells, and the language the notebook declares (``en`` unless
    its metadata names one the course has: ``lecture_utils.i18n.notebook_language``)."""
    limits = limits or Limits()
    try:
        data = read_capped(path, limits.notebook_bytes)
    except OSError as error:
        raise InvalidSubmission(f"{path.name} cannot be read ({error.strerror or error}); "
                                "submit the notebook file itself") from None
    notebook = parse_json(data, limits)
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        version = notebook.get("nbformat") if isinstance(notebook, dict) else None
        if isinstance(version, int) and version < 4:
            raise InvalidSubmission(f"an old (version {version}) notebook; open it in "
                                    "JupyterLab and save it, which converts it to version 4")
        raise InvalidSubmission("not a Jupyter notebook (no list of cells)")
    cells = notebook["cells"]
    if not cells:
        raise InvalidSubmission("the notebook is empty (it has no cells)")
    if len(cells) > limits.notebook_cells:
        raise InvalidSubmission(f"the notebook has {len(cells):,} cells, over the "
                                f"{limits.notebook_cells:,} it may have")
    for number, cell in enumerate(cells, 1):
        _check_cell(number, cell, limits)
    return cells, notebook_language(notebook.get("metadata"))
