"""HTML and markdown a student wrote, checked against the allow-list (trusts nothing in its
input; imports nh3, nbconvert and the other modules of this package).

Every step takes time linear in the size of the cell: nh3 (ammonia, parsing with html5ever)
is linear but for deep nesting, and nbconvert's markdown renderer (mistune) is linear but
for long paragraphs full of brackets or emphasis marks; cells that would hit either are
shown as their plain text instead (see :data:`MARKDOWN_CHARS` and below), and say so.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from html import escape
from typing import Any

import nh3

from autograder.sanitize.allow import (
    ALLOWED_CSS,
    ALLOWED_TAGS,
    VOID_TAGS,
    Policy,
    allowed_attribute,
    attribute_names,
    judge_attribute,
    label,
)
from autograder.sanitize.tokens import BROKEN, COMMENT, DOCTYPE, FOREIGN, RAW_TEXT, Tag, tokens
from autograder.sanitize.urls import normalised_hosts

__all__ = ["ALLOWED_CSS", "ALLOWED_TAGS", "allowed_attribute", "check_html", "clean_html",
           "inert_markdown", "render_markdown", "sanitize_markdown", "sanitize_raw"]

# The limits that keep rendering and parsing linear. A markdown cell is rendered only up to
# MARKDOWN_CHARS; within it, a block (text between blank lines, which mistune reads as one
# paragraph) longer than BLOCK_CHARS only if it holds at most BLOCK_MARKS of the characters
# mistune's inline parser acts on (a long embedded image passes; a page of "[a](" does not:
# mistune copies the rest of the paragraph at each, which is quadratic).
MARKDOWN_CHARS = 256 * 1024
BLOCK_CHARS = 16 * 1024
BLOCK_MARKS = 256
_MARKS = "*_[]()<>!`~$&\\|\"'="
_BLANK_LINE = re.compile(r"\n[ \t]*\n")  # blank for mistune too (it also allows \v, \f)
# html5ever is quadratic in places: the depth of nesting (scope checks walk the stack of
# open elements), the attributes of one element (each is checked against the others), and
# content moved out of tables. So HTML may nest at most NESTING deep (as estimated below),
# an element may have at most ATTRIBUTES attributes, and at most FORMATTING formatting
# elements (of FORMATTING_CHARS in all) may be open at once: the parser copies each of
# them again after every paragraph they were not closed in (output more than OUTPUT_GROWTH
# times larger than the input means such copying happened all the same). HTML longer than
# SMALL_HTML may hold nothing that changes how the rest is read (raw text, SVG, MathML),
# for which the estimate would not hold; HTML longer than CHUNK_CHARS is cleaned in pieces
# of at most that size, cut where no element is open (mistune's output has such a place
# after every block), which bounds whatever else is quadratic.
SMALL_HTML = 16 * 1024
CHUNK_CHARS = 64 * 1024
NESTING = 256
ATTRIBUTES = 64
FORMATTING = 16
FORMATTING_CHARS = 2048
OUTPUT_GROWTH = 4
NOTES = 12  # kinds of removed markup named, at most (the rest is "more of the like")
TOO_BIG = "markup too large or too deeply nested to check (the cell is shown as plain text)"

# Elements whose content goes with them (script, style, and anything another parser reads)
_DROP_CONTENT = frozenset({"script", "style", "template", "svg", "math", "noscript",
                           "noembed", "noframes", "iframe", "object", "xmp", "title",
                           "textarea", "plaintext", "select"})
_FORMATTING = frozenset({"a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small",
                         "strike", "strong", "tt", "u"})
_SCOPE = frozenset({"applet", "caption", "html", "table", "td", "th", "marquee", "object",
                    "template"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                   "meta", "param", "source", "track", "wbr", "keygen"})
# what a start tag certainly closes when it is right before it
_CLOSES = {"li": ("li",), "dd": ("dd", "dt"), "dt": ("dd", "dt"), "p": ("p",),
           "td": ("td", "th"), "th": ("td", "th"), "tr": ("td", "th", "tr"),
           "tbody": ("td", "th", "tr"), "thead": ("td", "th", "tr"),
           "tfoot": ("td", "th", "tr")}
# the form of inert_markdown's output for a cell shown as text: no tag but the two
_INERT_TEXT = re.compile(r"<div>\n<pre>[^<]*</pre>\n</div>")


@functools.lru_cache(maxsize=64)
def _cleaner(policy: Policy) -> nh3.Cleaner:
    def keep(tag: str, name: str, value: str) -> str | None:
        return judge_attribute(tag, name, value, policy)[0]

    return nh3.Cleaner(
        tags=set(ALLOWED_TAGS), clean_content_tags=set(_DROP_CONTENT),
        attributes={tag: set(attribute_names(tag)) for tag in ALLOWED_TAGS},
        attribute_filter=keep, strip_comments=True, link_rel=None,
        # ammonia checks URL schemes as well; judge_attribute then narrows them
        url_schemes={"http", "https", "mailto", "data"})


def _policy(image_hosts: Collection[str], own_ids: bool) -> Policy:
    return Policy(normalised_hosts(image_hosts), own_ids)


class _Review:
    """One pass over the tags of some HTML: what the allow-list removes from it (in words),
    whether it may stay as written, whether ammonia can clean it in linear time, and where
    it may be cut into pieces for that."""

    def __init__(self, html: str, policy: Policy) -> None:
        self.removed: list[str] = []
        self._seen: set[str] = set()
        self.plain = "\x00" not in html
        self.malformed = False
        self.slow = False
        self.cuts: list[int] = []  # where no element is open
        self._open: list[str] = []  # allowed elements, for the plain form's balance
        self._nesting: list[tuple[str, int]] = []  # an estimate of the parser's open elements
        self._formatting = [0, 0]  # of them, formatting elements: how many, how long
        self._policy = policy
        self._large = len(html) > SMALL_HTML
        cut = len(html) > CHUNK_CHARS
        for token, stop in tokens(html):
            self._take(token)
            if cut and not self._nesting:
                self.cuts.append(stop)
        if self._open:
            self.plain, self.malformed = False, True

    def _add(self, what: str) -> None:
        if what in self._seen or len(self.removed) > NOTES:
            return
        self._seen.add(what)
        self.removed.append(what if len(self.removed) < NOTES else "more of the like")

    def _take(self, token: Tag | str) -> None:
        if isinstance(token, str):
            self.plain = False
            if token == COMMENT:
                self._add("an HTML comment")
            elif token == DOCTYPE:
                self._add("a doctype")
            elif token == BROKEN:
                self.malformed = True
            return
        self.plain = self.plain and token.plain
        self._estimate(token)
        if token.end:
            if token.name in VOID_TAGS or not self._open or self._open[-1] != token.name:
                self.plain, self.malformed = False, True
            else:
                self._open.pop()
            return
        if token.name not in ALLOWED_TAGS:
            self.plain = False
            self._add(f"a <{label(token.name)}> element")
            return
        if token.self_closing and token.name not in VOID_TAGS:
            self.plain, self.malformed = False, True
        if token.name not in VOID_TAGS:
            self._open.append(token.name)
        for name, value in token.attributes:
            kept, removed = judge_attribute(token.name, name, value, self._policy)
            if removed:
                self._add(removed)
            if kept != value:  # dropped, or renamed: ammonia's output it is
                self.plain = False

    def _estimate(self, tag: Tag) -> None:
        """Keep an upper bound (within a small factor) of the elements a WHATWG parser has
        open: an end tag closes only what it certainly closes, never through formatting
        elements (which the parser would open again) or scope boundaries (where it stops);
        a start tag closes only the list item, cell or paragraph right before it."""
        if self.slow:
            return
        stack, name = self._nesting, tag.name
        if len(tag.attributes) > ATTRIBUTES:
            self.slow = True
        elif name in FOREIGN or name in RAW_TEXT or name == "plaintext":
            self.slow = self._large  # the estimate no longer holds
        elif tag.end:
            names = [n for n, _ in stack]
            if name in names:
                at = len(names) - 1 - names[::-1].index(name)
                if not any(n in _FORMATTING or n in _SCOPE for n in names[at + 1:]):
                    for _, weight in stack[at:]:
                        self._count(-weight)
                    del stack[at:]
        elif name not in _VOID:
            closes = _CLOSES.get(name, ())
            while stack and stack[-1][0] in closes:
                stack.pop()  # (never a formatting element)
            weight = 0
            if name in _FORMATTING:
                weight = len(name) + sum(len(n) + len(v) + 4 for n, v in tag.attributes)
                self._count(weight)
            stack.append((name, weight))
            self.slow = self.slow or len(stack) > NESTING

    def _count(self, weight: int) -> None:
        self._formatting[0] += 1 if weight > 0 else -1 if weight < 0 else 0
        self._formatting[1] += weight
        if self._formatting[0] > FORMATTING or self._formatting[1] > FORMATTING_CHARS:
            self.slow = True


def _pieces(html: str, cuts: list[int]) -> list[str] | None:
    """``html`` cut at some of ``cuts`` into pieces of at most CHUNK_CHARS; None if an
    element is larger than that."""
    pieces, start, last = [], 0, 0
    for cut in [*cuts, len(html)]:
        if cut - start > CHUNK_CHARS:
            if last <= start:
                return None
            pieces.append(html[start:last])
            start = last
            if cut - start > CHUNK_CHARS:
                return None
        last = cut
    pieces.append(html[start:])
    return pieces


def _cleaned(html: str, review: _Review, policy: Policy) -> str | None:
    """Ammonia's output for ``html``, piece by piece when it is long (each piece comes out
    closed, so the pieces' outputs join up as the whole's would); None when that cannot be
    done in linear time and space."""
    if review.slow:
        return None
    pieces = _pieces(html, review.cuts) if len(html) > CHUNK_CHARS else [html]
    if pieces is None:
        return None
    clean = "".join(_cleaner(policy).clean(piece) for piece in pieces)
    return clean if len(clean) <= OUTPUT_GROWTH * len(html) + 4096 else None


def clean_html(html: str, *, image_hosts: Collection[str] = (), own_ids: bool = False) -> str:
    """``html`` with every element and attribute outside the allow-list removed (the
    content of a removed element stays as text, but for script, style, SVG, MathML and the
    like), ids renamed, as ammonia writes it out; escaped text if that would be slow."""
    policy = _policy(image_hosts, own_ids)
    clean = _cleaned(html, _Review(html, policy), policy)
    return f"<pre>{escape(html, quote=False)}</pre>" if clean is None else clean


def check_html(html: str, *, image_hosts: Collection[str] = (), own_ids: bool = False
               ) -> tuple[str, list[str]]:
    """``(clean, removed)``: the sanitised HTML, and what sanitising removed from ``html``
    in words. ``clean`` is ``html`` itself when that is plain, allowed markup, safe as
    written; else ammonia's output (which renames ids without calling it a removal).
    HTML ammonia could not clean in linear time comes back as escaped text."""
    policy = _policy(image_hosts, own_ids)
    review = _Review(html, policy)
    if review.plain and not review.slow:
        return html, []
    clean = _cleaned(html, review, policy)
    if clean is None:
        return f"<pre>{escape(html, quote=False)}</pre>", [TOO_BIG]
    return clean, review.removed or (["malformed HTML"] if review.malformed else [])


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


def renders_in_linear_time(source: str) -> bool:
    """Whether mistune renders ``source`` in time linear in its length (see the limits)."""
    if len(source) > MARKDOWN_CHARS:
        return False
    text = source.replace("\r\n", "\n").replace("\r", "\n")  # as mistune reads it
    for block in _BLANK_LINE.split(text):
        if len(block) > BLOCK_CHARS and sum(map(block.count, _MARKS)) > BLOCK_MARKS:
            return False
    return True


def as_text(source: str) -> str:
    """A cell's text as an inert HTML block that shows it literally."""
    return inert_markdown(f"<pre>{escape(source, quote=False)}</pre>")


def sanitize_markdown(source: str, attachments: dict[str, Any] | None = None, *,
                      image_hosts: Collection[str] = (), own_ids: bool = False
                      ) -> tuple[str, list[str]]:
    """``(source, removed)``: the cell as written when it renders to plain, allowed HTML
    only, else its sanitised rendering as an inert HTML block. ``image_hosts``: the web
    hosts images may come from (none by default: only embedded images); ``own_ids``: the
    cell is the instructor's released text, whose heading ids may stay unprefixed."""
    policy = _policy(image_hosts, own_ids)
    if not attachments:  # most cells of a class's submissions are the released text
        clean, removed = _sanitize_markdown_text(source, policy)
        return clean, list(removed)
    return _sanitize_markdown(source, attachments, policy)


@functools.lru_cache(maxsize=4096)
def _sanitize_markdown_text(source: str, policy: Policy) -> tuple[str, tuple[str, ...]]:
    """``sanitize_markdown`` of a cell without attachments, remembered (by its text and
    policy): a batch repeats the same cells in every submission."""
    clean, removed = _sanitize_markdown(source, None, policy)
    return clean, tuple(removed)


def _sanitize_markdown(source: str, attachments: dict[str, Any] | None, policy: Policy
                       ) -> tuple[str, list[str]]:
    if _INERT_TEXT.fullmatch(source):  # already shown as text (by an earlier pass)
        return source, []
    if not renders_in_linear_time(source):
        return as_text(source), [TOO_BIG]
    notes: list[str] = []
    try:
        html = render_markdown(source, attachments)
    except Exception:  # e.g. an image of a missing attachment: nbconvert gives up
        html = render_markdown(re.sub(r"attachment:", "missing-attachment:", source,
                                      flags=re.I), attachments)
        notes = ["a reference to a missing attachment"]
    review = _Review(html, policy)
    if review.plain and not review.slow and not notes:
        return source, []
    clean = _cleaned(html, review, policy)
    if clean is None:
        return as_text(source), [TOO_BIG]
    removed = review.removed or (["malformed HTML"] if review.malformed else [])
    return inert_markdown(clean), notes + removed


def sanitize_raw(source: str, *, image_hosts: Collection[str] = ()) -> tuple[str, list[str]]:
    """A raw cell's text, treated as the HTML nbconvert may emit it as."""
    return check_html(source, image_hosts=image_hosts)
