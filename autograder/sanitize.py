"""Make a submitted notebook safe to open in a browser before the grader writes it out.

``autograded/<student>/<assignment>/<notebook>.ipynb`` is what people open: formgrader shows
it (rendered to HTML by nbconvert, inside the instructor's Jupyter session, where a script
could read the answer key through the contents API), ``nbgrader generate_feedback`` turns it
into the feedback page, and an instructor may open it in JupyterLab. Everything in it came
from a student, so :func:`sanitize_notebook` rewrites it, in place, into a notebook that
carries nothing active:

- markdown: rendered exactly as formgrader and the feedback render it (nbconvert's own
  markdown renderer, attachments included); if the HTML that comes out holds only what the
  allow-list below permits, the cell is kept as written (formatting, maths, tables, images
  and links show as before). Otherwise the cell is replaced by that HTML after the
  allow-list sanitiser (bleach, the library nbconvert's own sanitiser uses) has escaped
  every other element and dropped every other attribute and link, written as one HTML block
  that markdown renderers pass through without reading it as markdown;
- raw cells: the same check, their text treated as HTML (nbconvert emits ``text/html`` raw
  cells into the page); ``raw_mimetype`` and ``format`` only if they are plain MIME names;
- attachments: only PNG, JPEG, GIF and WebP images (an SVG image can hold script);
- outputs: text and PNG/JPEG/GIF images only; HTML, markdown, SVG, JavaScript, LaTeX and
  widget views are dropped, and control characters (terminal escapes) are removed from text;
- metadata: the notebook keeps only ``kernelspec`` and ``language_info`` (no widget state,
  which the feedback page would load and render, and no signature), each cell only the
  standard keys, with values of the expected types; nbgrader's metadata only where its
  ``grade_id`` is one of the assignment's (its values are written into formgrader's pages
  unescaped).

It returns notes on what it removed from what the student wrote, in plain words, so the
grader can say so in the record and on the page; it never changes a score.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import uuid
from collections.abc import Collection
from html import escape as escape_html
from typing import Any

import bleach
import nbformat
from bleach import html5lib_shim
from bleach.css_sanitizer import CSSSanitizer

# What students may keep: text formatting, headings, lists, quotes, code, tables, images,
# links, and the markup nbconvert's markdown renderer itself produces (heading anchors,
# highlighted code, task lists).
ALLOWED_TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd",
    "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "i", "img", "input", "ins", "kbd", "li", "mark", "ol", "p", "pre",
    "q", "s", "samp", "small", "span", "strike", "strong", "sub", "summary", "sup", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "tt", "u", "ul", "var",
})
ALLOWED_CSS = ("text-align", "color", "background-color", "font-weight", "font-style",
               "text-decoration", "vertical-align")
_STYLED = frozenset({"td", "th", "span", "div", "p"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_ALIGNED = frozenset({"p", "div", "td", "th", *_HEADINGS})
_NUMBER = re.compile(r"^\d{1,4}%?$")
_CLASS = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")
# nbconvert builds heading ids from the heading's text: it percent-encodes quotes and angle
# brackets but keeps apostrophes and ampersands ("What's-next?"), plain text in a quoted value
_ANCHOR_ID = re.compile(r"^[^\s\"<>`]{1,200}$")
# Links may go to the web, to a mail address, or within the page; images may come from the
# web or be embedded as PNG, JPEG, GIF or WebP (not SVG: it can hold script). Relative URLs
# are dropped: in formgrader they would reach the Jupyter server's own API with the
# instructor's session.
_LINK = re.compile(r"^(https?://|mailto:|#)")
_IMAGE = re.compile(r"^(https?://|data:image/(png|jpeg|gif|webp)[;,])")


def _normalised_url(value: str) -> str:
    """The URL as a browser will read it: entities decoded, and the characters it ignores
    (whitespace, controls, backticks, non-ASCII) dropped, lower case; bleach's own rule."""
    value = html5lib_shim.convert_entities(value)
    value = re.sub(r"[`\000-\040\177-\240\s]+", "", value)
    return re.sub(r"[^\x00-\x7f]", "", value).lower()


def _classes_ok(value: str) -> bool:
    tokens = value.split()
    return all(_CLASS.match(t) and "mermaid" not in t.lower() for t in tokens)


def allowed_attribute(tag: str, name: str, value: str) -> bool:
    """The attribute allow-list (bleach calls it for every attribute of an allowed tag)."""
    if name == "title":
        return True
    if name == "class":  # highlighted code, heading anchors; never mermaid (a renderer)
        return tag in {"a", "code", "div", "input", "li", "pre", "span", "ul", "ol"} and \
            _classes_ok(value)
    if name == "style":  # declarations are then filtered by the CSS allow-list
        return tag in _STYLED
    if name == "align":  # markdown's table columns, and the common <p align="center">
        return tag in _ALIGNED and value.lower() in ("left", "right", "center")
    if tag == "a":
        return name == "href" and bool(_LINK.match(_normalised_url(value)))
    if tag == "img":
        if name == "src":
            return bool(_IMAGE.match(_normalised_url(value)))
        return name == "alt" or (name in ("width", "height") and bool(_NUMBER.match(value)))
    if tag in _HEADINGS:
        return name == "id" and bool(_ANCHOR_ID.match(value))
    if tag in ("td", "th"):
        return name in ("colspan", "rowspan") and bool(_NUMBER.match(value))
    if tag in ("col", "colgroup"):
        return name == "span" and bool(_NUMBER.match(value))
    if tag == "ol":
        return name == "start" and bool(re.match(r"^-?\d{1,6}$", value))
    if tag == "input":  # task-list check boxes
        return (name == "type" and value.lower() == "checkbox") or name in ("checked",
                                                                           "disabled")
    if tag == "details":
        return name == "open"
    return False


_CSS = CSSSanitizer(allowed_css_properties=ALLOWED_CSS)
_CLEANER = bleach.Cleaner(
    tags=ALLOWED_TAGS, attributes=allowed_attribute,
    # bleach checks the scheme of every URL attribute against this list as well; the
    # callable above then narrows data: to raster images and drops relative URLs
    protocols={"http", "https", "mailto", "data"},
    strip=False,  # a forbidden element is shown as inert text, so one sees what was there
    strip_comments=True,
    css_sanitizer=_CSS,
)


def clean_html(html: str) -> str:
    """``html`` with every element and attribute outside the allow-list escaped or dropped."""
    return _CLEANER.clean(html)


def _css_form(style: str) -> str:
    """A style attribute with its insignificant spacing and final semicolon dropped (the
    CSS sanitiser rewrites ``text-align:left`` as ``text-align:left;``)."""
    return re.sub(r"\s+", "", style).rstrip(";")


def _parse(html: str) -> tuple[list[tuple], int]:
    """The document ``html`` stands for, as browsers parse it (WHATWG HTML, as a fragment
    in a ``<div>``): a flat list of tokens, and the number of parse errors."""
    parser = html5lib_shim.BleachHTMLParser(tags=None, strip=False, consume_entities=True,
                                            namespaceHTMLElements=False)
    tree = parser.parseFragment(html)
    tokens: list[tuple] = []
    for token in html5lib_shim.getTreeWalker("etree")(tree):
        kind = token["type"]
        if kind in ("StartTag", "EmptyTag"):
            attrs = tuple(sorted(
                (name, _css_form(value) if name == "style" else value)
                for (_, name), value in token["data"].items()))
            tokens.append(("start", token["name"], attrs))
            if kind == "EmptyTag":
                tokens.append(("end", token["name"]))
        elif kind == "EndTag":
            tokens.append(("end", token["name"]))
        elif kind in ("Characters", "SpaceCharacters"):
            if tokens and tokens[-1][0] == "text":
                tokens[-1] = ("text", tokens[-1][1] + token["data"])
            else:
                tokens.append(("text", token["data"]))
        else:  # Comment, Doctype, anything else
            tokens.append((kind.lower(), str(token.get("data", ""))))
    return tokens, len(parser.errors)


_NAME = re.compile(r"^[a-z][a-z0-9-]{0,30}$")


def _describe(tokens: list[tuple], errors: int) -> list[str]:
    """What the allow-list removes from ``tokens``, in words (plain text, no markup)."""
    found: list[str] = []

    def add(what: str) -> None:
        if what not in found:
            found.append(what)

    for token in tokens:
        if token[0] == "comment":
            add("an HTML comment")
        elif token[0] == "doctype":
            add("a doctype")
        elif token[0] == "start":
            tag = token[1] if _NAME.match(token[1]) else "unknown"
            if token[1] not in ALLOWED_TAGS:
                add(f"a <{tag}> element")
                continue
            for name, value in token[2]:
                if name == "style" and tag in _STYLED:
                    if _css_form(_CSS.sanitize_css(value)) != _css_form(value):
                        add(f"CSS in the style attribute of <{tag}>")
                    continue
                if allowed_attribute(token[1], name, value):
                    continue
                label = name if _NAME.match(name) else "unknown"
                scheme = re.match(r"^([a-z][a-z0-9+.-]{0,20}):", _normalised_url(value))
                if name in ("href", "src") and scheme:
                    add(f"a {scheme.group(1)}: URL in <{tag} {label}>")
                elif name in ("href", "src"):
                    add(f"a relative URL in <{tag} {label}>")
                else:
                    add(f"the {label} attribute of <{tag}>")
    if errors and not found:
        add("malformed HTML")
    return found


def check_html(html: str) -> tuple[str, list[str]]:
    """``(clean, removed)``: the sanitised HTML, and what sanitising removed from ``html``
    (empty when ``html`` already holds nothing but allowed, well-formed markup: then
    ``html`` itself is as safe as ``clean``)."""
    clean = clean_html(html)
    before, errors = _parse(html)
    after, _ = _parse(clean)
    if before == after and not errors:
        return clean, []
    return clean, _describe(before, errors) or ["markup that did not survive sanitising"]


def inert_markdown(clean: str) -> str:
    """Sanitised HTML as a markdown cell that every markdown renderer passes through as is:
    one HTML block (it starts with ``<div>`` and holds no blank line, which would end it),
    with ``[`` and ``]`` written as character references so that no renderer can build a
    link out of the text even if it did read it as markdown."""
    lines = clean.replace("\r\n", "\n").replace("\r", "\n").strip("\n").split("\n")
    # a blank line inside <pre> must stay a line: a character reference is not blank
    lines = [line if line.strip() else line + "&#32;" for line in lines]
    body = "\n".join(lines).replace("[", "&#91;").replace("]", "&#93;")
    return f"<div>\n{body}\n</div>"


def render_markdown(source: str, attachments: dict[str, Any] | None = None) -> str:
    """The HTML formgrader and ``generate_feedback`` make of a markdown cell: nbconvert's
    ``HTMLExporter.markdown2html`` with its default settings."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    renderer = IPythonRenderer(escape=False, attachments=attachments or {},
                               anchor_link_text="¶")
    return MarkdownWithMath(renderer=renderer).render(source)


def sanitize_markdown(source: str, attachments: dict[str, Any] | None = None
                      ) -> tuple[str, list[str]]:
    """``(source, removed)``: the cell as written when it renders to allowed HTML only,
    else its sanitised rendering as an inert HTML block."""
    try:
        html = render_markdown(source, attachments)
    except Exception:  # e.g. an image of a missing attachment: nbconvert gives up
        html = render_markdown(re.sub(r"attachment:", "missing-attachment:", source,
                                      flags=re.I), attachments)
        clean, removed = check_html(html)
        return inert_markdown(clean), ["a reference to a missing attachment", *removed]
    clean, removed = check_html(html)
    return (source, []) if not removed else (inert_markdown(clean), removed)


def sanitize_raw(source: str) -> tuple[str, list[str]]:
    """A raw cell's text, treated as the HTML nbconvert may emit it as."""
    clean, removed = check_html(source)
    return (source, []) if not removed else (clean, removed)


# ---------------------------------------------------------------------------------- parts

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
                removed.append(f"a {label} attachment")
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
                      grade_ids: Collection[str] | None = None) -> dict[str, str]:
    """Rewrite ``notebook`` in place so that nothing in it is active in a browser (see the
    module's docstring). ``grade_ids``: the assignment's nbgrader ids, the only ones whose
    nbgrader metadata is kept (any well-formed one when None). Every cell comes out with a
    unique, well-formed id. Returns, in plain text, what was removed from the cells'
    content, by cell id ("a <script> element, ..."; cells of unknown types under
    ``UNKNOWN_CELLS``); dropped outputs and metadata are not reported (the grader replaces
    every output with its verdicts anyway)."""
    removed_by_id: dict[str, str] = {}
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
            source, more = sanitize_markdown(source, attachments)
            removed += more
            new = nbformat.v4.new_markdown_cell(source, metadata=metadata)
            if attachments:
                new.attachments = attachments
        elif kind == "raw":
            source, removed = sanitize_raw(source)
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
                not isinstance(count, bool) else None)
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
