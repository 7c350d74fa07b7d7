"""HTML split into tags the way a browser's tokenizer splits it, in one linear pass (imports
only the standard library).

The sanitiser itself is ammonia's (through nh3): it parses with html5ever, a WHATWG parser,
and writes out what its allow-list keeps. This module serves the two questions ammonia does
not answer, and neither needs a tree:

- may the cell stay exactly as the student wrote it? Only if its HTML is *plain*: every
  tag written in the simplest syntax (ASCII names; quoted or simple values; every ``&`` in
  a value a complete, known character reference; white space between attributes), no
  comments, doctypes or other markup declarations, nothing cut off, no NUL. For such text
  the WHATWG tokenizer has no choices to make, so the tags listed here are exactly the ones
  a browser sees; anything else is rewritten as ammonia's output;
- what did sanitising remove, in words, for the notes; and is the markup nested so deeply
  that parsing it would take quadratic time (html5ever's scope checks walk the stack of
  open elements on each tag)? For these the tokenizer follows WHATWG's closely (comments,
  bogus comments, raw text elements, foreign content) but needs not be exact.
"""

from __future__ import annotations

import html
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.entities import html5 as _ENTITIES

_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
# Text: anything up to a "<" that can start markup (a "<" before anything else is text).
_TEXT = re.compile(r"(?:[^<]|<(?![A-Za-z/!?]))+")
_TAG_NAME = re.compile(r"[^\t\n\f\r />]*")
_ATTRIBUTE = re.compile(
    r"([\t\n\f\r /]*)"  # 1: what separates it from the previous one
    r"(?:([^\t\n\f\r />][^\t\n\f\r />=]*)"  # 2: the name (WHATWG lets it start with "=")
    r"([\t\n\f\r ]*=[\t\n\f\r ]*"  # 3: "=" and ...
    r"(\"[^\"]*\"?|'[^']*'?|[^\t\n\f\r >]*))?)?")  # 4: ... the value
_PLAIN_TAG = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")
_PLAIN_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9-]*$")
_PLAIN_END = re.compile(r"[\t\n\f\r ]*/?")
_PLAIN_UNQUOTED = re.compile(r"^[A-Za-z0-9_.:/%#?+,;=-]+$")
_REFERENCE = re.compile(r"&(#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)?")
_COMMENT_END = re.compile(r"--!?>")
# Elements whose content the tree builder has the tokenizer read as text (in HTML content)
RAW_TEXT = frozenset({"script", "style", "xmp", "iframe", "noembed", "noframes", "noscript",
                      "textarea", "title"})
_RAW_END = {name: re.compile(rf"</{name}[\t\n\f\r />]", re.IGNORECASE) for name in RAW_TEXT}
FOREIGN = frozenset({"svg", "math"})
# HTML elements that end foreign content when they start inside it
_BREAKOUT = frozenset({
    "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em",
    "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing",
    "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span", "strong",
    "strike", "sub", "sup", "table", "tt", "u", "ul", "var"})
COMMENT, DOCTYPE, BROKEN = "comment", "doctype", "broken"


@dataclass
class Tag:
    name: str  # ASCII lower case, as the tokenizer makes it
    end: bool = False
    attributes: list[tuple[str, str]] = field(default_factory=list)  # values decoded
    self_closing: bool = False
    plain: bool = True


def _lower(name: str) -> str:
    return name.translate(_LOWER)  # ASCII only: "\u212a" (Kelvin) must not become "k"


def _plain_value(quoted: str) -> bool:
    """A quoted value whose every "&" starts a complete reference that every decoder reads
    alike (numeric, or a known name with its semicolon)."""
    for match in _REFERENCE.finditer(quoted):
        ref = match.group(1)
        if ref is None or (ref[0] != "#" and ref not in _ENTITIES):
            return False
    return True


def _tag(source: str, start: int, end: bool) -> tuple[Tag | None, int]:
    """The tag whose name starts at ``start``, and where it ends; None when the text ends
    inside it (a browser then drops it)."""
    match = _TAG_NAME.match(source, start)
    raw_name, pos = match.group(), match.end()
    tag = Tag(_lower(raw_name), end=end, plain=bool(_PLAIN_TAG.match(raw_name)))
    seen: set[str] = set()
    while True:
        match = _ATTRIBUTE.match(source, pos)
        pos = match.end()
        separator, name, value = match.group(1), match.group(2), match.group(4)
        if name is None:  # at ">" or at the end of the text
            tag.self_closing = separator.endswith("/")
            if not _PLAIN_END.fullmatch(separator) or \
                    (end and tag.self_closing):
                tag.plain = False
            break
        quoted = bool(value) and value[0] in "\"'"
        if quoted and (len(value) == 1 or value[-1] != value[0]):
            return None, len(source)  # a quoted value the text ends in
        plain = bool(_PLAIN_NAME.match(name)) and bool(separator) and "/" not in separator
        if value is None:
            decoded = ""
        elif quoted:
            decoded = html.unescape(value[1:-1])
            plain = plain and _plain_value(value[1:-1])
        else:
            decoded = html.unescape(value)
            plain = plain and bool(_PLAIN_UNQUOTED.match(value))
        name = _lower(name)
        if name in seen:  # a browser keeps the first
            tag.plain = False
            continue
        seen.add(name)
        tag.attributes.append((name, decoded))
        tag.plain = tag.plain and plain
    if pos >= len(source):
        return None, pos
    if end and tag.attributes:
        tag.plain = False
    return tag, pos + 1  # past ">"


def tokens(source: str) -> Iterator[tuple[Tag | str, int]]:
    """The tags of ``source`` (text is skipped), and ``COMMENT``, ``DOCTYPE`` or ``BROKEN``
    (a tag the text ends in, ``</>``) where those occur; each with where it ends."""
    pos, length, foreign = 0, len(source), 0
    while pos < length:
        text = _TEXT.match(source, pos)
        if text:
            pos = text.end()
            continue
        after = source[pos + 1:pos + 10]  # source[pos] == "<"
        if after.startswith("!--"):
            body = pos + 4
            if source.startswith(">", body) or source.startswith("->", body):  # <!--> <!--->
                pos = source.index(">", body) + 1
            else:
                close = _COMMENT_END.search(source, body)
                pos = close.end() if close else length
            yield COMMENT, pos
            continue
        if after.startswith("!"):
            if foreign and after.startswith("![CDATA["):
                close = source.find("]]>", pos)
                pos = close + 3 if close >= 0 else length
                continue
            close = source.find(">", pos)
            pos, start = (close + 1 if close >= 0 else length), pos
            yield (DOCTYPE if _lower(source[start + 2:start + 9]) == "doctype" else COMMENT), pos
            continue
        end = after.startswith("/")
        if end and after[1:2] == "":
            pos = length  # "</" at the very end is text
            continue
        if end and after[1:2] == ">":
            pos += 3
            yield BROKEN, pos  # "</>" is dropped
            continue
        if after.startswith("?") or (end and after[1:2] not in string.ascii_letters):
            close = source.find(">", pos)
            pos = close + 1 if close >= 0 else length
            yield COMMENT, pos  # a bogus comment, up to the next ">"
            continue
        tag, pos = _tag(source, pos + (2 if end else 1), end)
        if tag is None:
            yield BROKEN, pos
            continue
        yield tag, pos
        if tag.name in FOREIGN:
            if not tag.end and not tag.self_closing:
                foreign += 1
            elif tag.end:
                foreign = max(foreign - 1, 0)
        elif foreign and not tag.end and tag.name in _BREAKOUT:
            foreign = 0
        elif not foreign and not tag.end and tag.name in RAW_TEXT:
            close = _RAW_END[tag.name].search(source, pos)
            pos = close.start() if close else length
        elif not foreign and not tag.end and tag.name == "plaintext":
            pos = length
