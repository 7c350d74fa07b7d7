"""The other parts of a submitted notebook: attachments, outputs, metadata, cells (trusts
nothing in the notebook; imports only nbformat and ``autograder.sanitize.markup``)."""

from __future__ import annotations

import base64
import binascii
import math
import re
import uuid
from collections.abc import Collection
from html import escape as escape_html
from typing import Any

import nbformat

from autograder.sanitize.markup import sanitize_markdown, sanitize_raw

_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_OUTPUT_TYPES = ("text/plain", "image/png", "image/jpeg", "image/gif")
_MIME = re.compile(r"^[a-z]+/[a-z0-9.+-]{1,60}$")
_CELL_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_GRADE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")
_PLAIN = re.compile(r"^[\w .+/:()-]{0,100}$")
_CONTROL = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|.?)"
                      r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _base64_ok(data: Any) -> bool:
    if not isinstance(data, str):
        return False
    try:
        base64.b64decode("".join(data.split()), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def sanitize_attachments(attachments: Any) -> tuple[dict[str, dict[str, str]], list[str]]:
    """Only raster images, as valid base64, under plain names."""
    kept: dict[str, dict[str, str]] = {}
    removed: list[str] = []
    if not isinstance(attachments, dict):
        return kept, (["attachments"] if attachments else [])
    for name, bundle in attachments.items():
        if not isinstance(name, str) or not isinstance(bundle, dict):
            removed.append("an attachment")
            continue
        images = {mime: data for mime, data in bundle.items()
                  if mime in _IMAGE_TYPES and _base64_ok(data)}
        for mime in bundle:
            if mime not in images:
                label = mime if isinstance(mime, str) and _MIME.match(mime) else "unknown"
                removed.append(f"an attachment of type {label}")
        if images:
            kept[name] = images
    return kept, sorted(set(removed))


def plain_text(text: Any) -> str:
    """Text with terminal escapes and control characters (but tabs and newlines) removed."""
    if isinstance(text, list):
        text = "".join(str(t) for t in text)
    return _CONTROL.sub("", str(text))


def sanitize_outputs(outputs: Any) -> list[Any]:
    """Text and raster images only; every active or rich MIME type is dropped."""
    kept = []
    for output in outputs if isinstance(outputs, list) else []:
        kind = output.get("output_type") if isinstance(output, dict) else None
        if kind == "stream":
            name = output.get("name") if output.get("name") in ("stdout", "stderr") else "stdout"
            kept.append(nbformat.v4.new_output("stream", name=name,
                                               text=plain_text(output.get("text", ""))))
        elif kind == "error":
            traceback = output.get("traceback")
            kept.append(nbformat.v4.new_output(
                "error", ename=plain_text(output.get("ename", "")),
                evalue=plain_text(output.get("evalue", "")),
                traceback=[plain_text(line) for line in
                           (traceback if isinstance(traceback, list) else [])]))
        elif kind in ("display_data", "execute_result"):
            data = output.get("data") if isinstance(output.get("data"), dict) else {}
            safe = {}
            for mime in _OUTPUT_TYPES:
                value = data.get(mime)
                if mime == "text/plain" and value is not None:
                    safe[mime] = plain_text(value)
                elif value is not None and _base64_ok(value):
                    safe[mime] = value
            if not safe:
                safe = {"text/plain": "[output removed by the grader: not text or an image]"}
            extra = {"execution_count": None} if kind == "execute_result" else {}
            kept.append(nbformat.v4.new_output(kind, data=safe, **extra))
    return kept


def _nbgrader_metadata(meta: Any, grade_ids: Collection[str] | None) -> dict[str, Any] | None:
    if not isinstance(meta, dict):
        return None
    grade_id = meta.get("grade_id")
    if not isinstance(grade_id, str) or not _GRADE_ID.match(grade_id):
        return None
    if grade_ids is not None and grade_id not in grade_ids:
        return None
    kept: dict[str, Any] = {"grade_id": grade_id}
    for key in ("grade", "solution", "locked", "task"):
        if isinstance(meta.get(key), bool):
            kept[key] = meta[key]
    points = meta.get("points")
    if isinstance(points, (int, float)) and not isinstance(points, bool) and \
            math.isfinite(points) and points >= 0:
        kept["points"] = points
    if isinstance(meta.get("schema_version"), int):
        kept["schema_version"] = meta["schema_version"]
    if isinstance(meta.get("checksum"), str) and re.match(r"^[0-9a-f]{1,128}$",
                                                         meta["checksum"]):
        kept["checksum"] = meta["checksum"]
    if meta.get("cell_type") in ("code", "markdown"):
        kept["cell_type"] = meta["cell_type"]
    return kept


def sanitize_cell_metadata(meta: Any, grade_ids: Collection[str] | None = None
                           ) -> dict[str, Any]:
    """The standard cell metadata keys, with values of the standard types; nothing else."""
    meta = meta if isinstance(meta, dict) else {}
    kept: dict[str, Any] = {}
    for key in ("collapsed", "editable", "deletable"):
        if isinstance(meta.get(key), bool):
            kept[key] = meta[key]
    if isinstance(meta.get("scrolled"), bool) or meta.get("scrolled") == "auto":
        kept["scrolled"] = meta["scrolled"]
    jupyter = meta.get("jupyter")
    if isinstance(jupyter, dict):
        hidden = {k: v for k, v in jupyter.items()
                  if k in ("source_hidden", "outputs_hidden") and isinstance(v, bool)}
        if hidden:
            kept["jupyter"] = hidden
    tags = meta.get("tags")
    if isinstance(tags, list):
        good = [t for t in tags if isinstance(t, str) and re.match(r"^[\w-]{1,100}$", t)]
        if good:
            kept["tags"] = good
    nbgrader = _nbgrader_metadata(meta.get("nbgrader"), grade_ids)
    if nbgrader is not None:
        kept["nbgrader"] = nbgrader
    return kept


def sanitize_notebook_metadata(meta: Any) -> dict[str, Any]:
    """Only the kernel and language, as plain strings."""
    meta = meta if isinstance(meta, dict) else {}
    kept: dict[str, Any] = {}
    spec = meta.get("kernelspec")
    if isinstance(spec, dict):
        plain = {k: v for k, v in spec.items() if k in ("name", "display_name", "language")
                 and isinstance(v, str) and _PLAIN.match(v)}
        if "name" in plain and "display_name" in plain:
            kept["kernelspec"] = plain
    info = meta.get("language_info")
    if isinstance(info, dict):
        plain = {k: v for k, v in info.items()
                 if k in ("name", "version", "mimetype", "file_extension", "pygments_lexer",
                          "nbconvert_exporter") and isinstance(v, str) and _PLAIN.match(v)}
        mode = info.get("codemirror_mode")
        if isinstance(mode, str) and _PLAIN.match(mode):
            plain["codemirror_mode"] = mode
        elif isinstance(mode, dict):
            plain["codemirror_mode"] = {
                k: v for k, v in mode.items() if k in ("name", "version") and
                (isinstance(v, int) or (isinstance(v, str) and _PLAIN.match(v)))}
        if "name" in plain:
            kept["language_info"] = plain
    return kept


def _text(source: Any) -> str:
    if isinstance(source, list):
        return "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


def _cell_id(cell: dict[str, Any], seen: set[str]) -> str:
    cell_id = cell.get("id")
    if not isinstance(cell_id, str) or not _CELL_ID.match(cell_id) or cell_id in seen:
        cell_id = uuid.uuid4().hex[:8]
    seen.add(cell_id)
    return cell_id


UNKNOWN_CELLS = ""  # the key under which sanitize_notebook reports dropped cells


def sanitize_notebook(notebook: nbformat.NotebookNode,
                      grade_ids: Collection[str] | None = None, *,
                      image_hosts: Collection[str] = (),
                      released: Collection[str] = ()) -> dict[str, str]:
    """Rewrite ``notebook`` in place so that nothing in it is active in a browser (see the
    package's docstring). ``grade_ids``: the assignment's nbgrader ids, the only ones whose
    nbgrader metadata is kept (any well-formed one when None). ``image_hosts``: the web
    hosts images may come from (none by default: embedded images only). ``released``: the
    markdown the instructor released (sources); a cell identical to one of them keeps its
    heading ids and in-page links as written (they are the instructor's own, and on the
    page anyway), where a student's own are prefixed. Every cell comes out with a
    unique, well-formed id. Returns, in plain text, what was removed from the cells'
    content, by cell id ("a <script> element, ..."; cells of unknown types under
    ``UNKNOWN_CELLS``); dropped outputs and metadata are not reported (the grader replaces
    every output with its verdicts anyway)."""
    removed_by_id: dict[str, str] = {}
    released = released if isinstance(released, (set, frozenset)) else set(released)
    cells: list[nbformat.NotebookNode] = []
    seen: set[str] = set()
    unknown = 0
    raw_cells = notebook.get("cells")
    for cell in raw_cells if isinstance(raw_cells, list) else []:
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("markdown", "raw",
                                                                         "code"):
            unknown += 1
            continue
        kind, source = cell["cell_type"], _text(cell.get("source"))
        metadata = sanitize_cell_metadata(cell.get("metadata"), grade_ids)
        removed: list[str] = []
        if kind == "markdown":
            attachments, removed = sanitize_attachments(cell.get("attachments"))
            source, more = sanitize_markdown(source, attachments, image_hosts=image_hosts,
                                             own_ids=source in released)
            removed += more
            new = nbformat.v4.new_markdown_cell(source, metadata=metadata)
            if attachments:
                new.attachments = attachments
        elif kind == "raw":
            source, removed = sanitize_raw(source, image_hosts=image_hosts)
            old = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
            for key in ("raw_mimetype", "format"):
                if isinstance(old.get(key), str) and _MIME.match(old[key]):
                    metadata[key] = old[key]
            new = nbformat.v4.new_raw_cell(source, metadata=metadata)
        else:
            count = cell.get("execution_count")
            new = nbformat.v4.new_code_cell(
                source, metadata=metadata, outputs=sanitize_outputs(cell.get("outputs")),
                execution_count=count if isinstance(count, int) and
                not isinstance(count, bool) and count >= 0 else None)
        new.id = _cell_id(cell, seen)
        cells.append(new)
        if removed:
            removed_by_id[new.id] = ", ".join(removed)
    if unknown:
        removed_by_id[UNKNOWN_CELLS] = f"{unknown} cell(s) of an unknown type"
    notebook.cells = cells
    notebook.metadata = nbformat.NotebookNode(sanitize_notebook_metadata(notebook.get(
        "metadata")))
    notebook.nbformat, notebook.nbformat_minor = 4, 5  # 4.5: every cell has an id
    return removed_by_id


def numbered_notes(removed_by_id: dict[str, str], cells: list[Any],
                   number_from: int = 1) -> list[str]:
    """``sanitize_notebook``'s report as lines naming cells by their place in ``cells``."""
    notes = [f"cell {number}: {removed_by_id[cell.id]}"
             for number, cell in enumerate(cells, start=number_from)
             if cell.get("id") in removed_by_id]
    if UNKNOWN_CELLS in removed_by_id:
        notes.append(removed_by_id[UNKNOWN_CELLS])
    return notes


def note_cell(notes: list[str]) -> nbformat.NotebookNode:
    """A markdown cell telling whoever reads the notebook what the grader removed (the
    notes are escaped: they name elements such as <script>, which must show as text)."""
    items = "\n".join(f"- {escape_html(note, quote=False)}" for note in notes)
    return nbformat.v4.new_markdown_cell(
        "**Note from the grader:** it removed content that could run in a browser from this "
        "copy of the submission (this does not change the score):\n\n" + items)
