"""HTML and markdown a student wrote, checked against an allow-list (trusts nothing in its
input; imports bleach and nbconvert only)."""


from __future__ import annotations

import functools
import re
from typing import Any

import bleach
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
    if not attachments:  # most cells of a class's submissions are the released text
        clean, removed = _sanitize_markdown_text(source)
        return clean, list(removed)
    return _sanitize_markdown(source, attachments)


@functools.lru_cache(maxsize=4096)
def _sanitize_markdown_text(source: str) -> tuple[str, tuple[str, ...]]:
    """``sanitize_markdown`` of a cell without attachments, remembered: rendering and
    checking a cell costs milliseconds, and a batch repeats the same cells in every
    submission (this was 85% of the grading process's time for notebook 01)."""
    clean, removed = _sanitize_markdown(source, None)
    return clean, tuple(removed)


def _sanitize_markdown(source: str, attachments: dict[str, Any] | None
                       ) -> tuple[str, list[str]]:
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


