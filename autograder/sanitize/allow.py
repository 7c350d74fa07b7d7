"""The allow-list: which elements, attributes, classes and styles a student's markup may keep,
and how ids and in-page links are renamed (pure functions; imports only the standard
library, pygments' token names and :mod:`autograder.sanitize.urls`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from dataclasses import dataclass

from pygments.token import STANDARD_TYPES

from autograder.sanitize.urls import as_browser_reads, image_problem, link_problem

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
VOID_TAGS = frozenset({"br", "col", "hr", "img", "input"})  # the allowed ones with no end tag
ALLOWED_CSS = ("text-align", "color", "background-color", "font-weight", "font-style",
               "text-decoration", "vertical-align")
# Class names only where nbconvert's renderer writes them, and only those names: any other
# class would take the page's own styles (Bootstrap's "modal-backdrop in" covers the whole
# page, "navbar-fixed-bottom" pins a bar over formgrader's score boxes). Highlighted code is
# <div class="highlight"> around <span>s of pygments' short token names; for a token type
# of its own a lexer adds the type's path to its parent's name ("p p-Indicator" in YAML),
# which _PYGMENTS_SUBTYPE allows on <span> too (no page style has a capital after a hyphen).
ALLOWED_CLASSES: dict[str, frozenset[str]] = {
    "a": frozenset({"anchor-link"}),
    "div": frozenset({"highlight"}),
    "li": frozenset({"task-list-item"}),
    "input": frozenset({"task-list-item-checkbox"}),
    "span": frozenset(name for name in STANDARD_TYPES.values() if name),
}
# Every id and name a student writes gets this prefix (as GitHub does), so none can equal
# one of the page's own (formgrader's score box has the grade id as its id, its status line
# is #statusmessage); in-page links are renamed to match.
ID_PREFIX = "user-content-"

_TOKEN_NAMES = "|".join(sorted(ALLOWED_CLASSES["span"]))
_PYGMENTS_SUBTYPE = re.compile(rf"^(?:{_TOKEN_NAMES})(?:-[A-Z][A-Za-z0-9]{{0,30}}){{1,4}}$")
_STYLED = frozenset({"td", "th", "span", "div", "p"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_ALIGNED = frozenset({"p", "div", "td", "th", *_HEADINGS})
_NUMBER = re.compile(r"^\d{1,4}%?$")
_NAME = re.compile(r"^[a-z][a-z0-9-]{0,30}$")
_SPACE = "\t\n\f\r "  # HTML's and CSS's white space (not Unicode's)
_PROPERTY = re.compile(r"^[a-z-]{1,40}$")
# A CSS value of plain words, numbers, colours and at most colour functions: no quotes,
# back slashes, slashes (comments), colons or semicolons, and balanced, unnested brackets
_CSS_VALUE = re.compile(r"^[A-Za-z0-9#.,% -]*(?:\([A-Za-z0-9#.,% -]*\)[A-Za-z0-9#.,% -]*)*$")
_CSS_FUNCTIONS = frozenset({"rgb", "rgba", "hsl", "hsla"})


@dataclass(frozen=True)
class Policy:
    """What the markup of one cell may keep beyond the fixed allow-list.

    ``image_hosts``: the web hosts images may come from (as ``urls.normalised_hosts``
    makes them); ``own_ids``: the cell is the instructor's released text, whose heading ids
    and in-page links stay as written (they are on the page anyway)."""

    image_hosts: frozenset[str] = frozenset()
    own_ids: bool = False


DEFAULT = Policy()


def label(name: str) -> str:
    """An element or attribute name as it may appear in a note (plain, short)."""
    return name if _NAME.match(name) else "unknown"


@functools.lru_cache(maxsize=128)
def attribute_names(tag: str) -> frozenset[str]:
    """Every attribute that may appear on ``tag`` at all (its value is then judged by
    :func:`judge_attribute`)."""
    names = {"title", "id"}
    if tag in ALLOWED_CLASSES:
        names.add("class")
    if tag in _STYLED:
        names.add("style")
    if tag in _ALIGNED:
        names.add("align")
    names |= {
        "a": {"href", "name"}, "img": {"src", "alt", "width", "height"},
        "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan"}, "col": {"span"},
        "colgroup": {"span"}, "ol": {"start"}, "input": {"type", "checked", "disabled"},
        "details": {"open"},
    }.get(tag, set())
    return frozenset(names)


def _prefixed(value: str, policy: Policy) -> str:
    if policy.own_ids or value.startswith(ID_PREFIX):
        return value
    return ID_PREFIX + value


def filter_classes(tag: str, value: str) -> tuple[str | None, bool]:
    """``(kept, dropped_any)``: the class names of ``value`` allowed on ``tag``."""
    allowed = ALLOWED_CLASSES.get(tag, frozenset())
    names = re.split(r"[\t\n\f\r ]+", value.strip(_SPACE)) if value.strip(_SPACE) else []
    kept = [n for n in names if n in allowed or
            (tag == "span" and len(n) <= 80 and _PYGMENTS_SUBTYPE.match(n))]
    if len(kept) == len(names):
        return value, False
    return (" ".join(kept) or None), True


def filter_style(value: str) -> tuple[str | None, bool]:
    """``(kept, dropped_any)``: the declarations of a style attribute that set one of
    ``ALLOWED_CSS`` to a plain value; ``value`` itself when all of them do."""
    kept, dropped = [], False
    for part in value.split(";"):
        if not part.strip(_SPACE):
            continue
        prop, colon, css = part.partition(":")
        prop, css = prop.strip(_SPACE).lower(), css.strip(_SPACE)
        # (the look-behind keeps this linear: a match starts only where a word does)
        functions = set(re.findall(r"(?<![A-Za-z-])([A-Za-z-]+)\(", css.lower()))
        if colon and _PROPERTY.match(prop) and prop in ALLOWED_CSS and css and \
                _CSS_VALUE.match(css) and functions <= _CSS_FUNCTIONS:
            kept.append(f"{prop}: {css}")
        else:
            dropped = True
    if not dropped:
        return value, False
    return ("; ".join(kept) or None), True


def judge_attribute(tag: str, name: str, value: str, policy: Policy = DEFAULT
                    ) -> tuple[str | None, str | None]:
    """``(kept, removed)`` for one attribute of an allowed element, its value with character
    references decoded: the value to write (None: drop the attribute), and what was removed
    from it in plain words (None: nothing; renaming an id is not removing anything)."""
    what = f"the {label(name)} attribute of <{tag}>"
    if name not in attribute_names(tag):
        return None, what
    if name == "title":
        return value, None
    if name in ("id", "name"):
        return _prefixed(value, policy), None
    if name == "class":
        kept, dropped = filter_classes(tag, value)
        return kept, (f"a class name on <{tag}>" if dropped else None)
    if name == "style":
        kept, dropped = filter_style(value)
        return kept, (f"CSS in the style attribute of <{tag}>" if dropped else None)
    if name == "href":
        url = as_browser_reads(value)
        problem = link_problem(url)
        if problem:
            return None, problem
        if url.startswith("#") and len(url) > 1:
            return "#" + _prefixed(url[1:], policy), None
        return url, None
    if name == "src":
        url = as_browser_reads(value)
        problem = image_problem(url, policy.image_hosts)
        return (None, problem) if problem else (url, None)
    allowed = {
        "align": value.lower() in ("left", "right", "center"),
        "alt": True,
        "width": bool(_NUMBER.match(value)), "height": bool(_NUMBER.match(value)),
        "colspan": bool(_NUMBER.match(value)), "rowspan": bool(_NUMBER.match(value)),
        "span": bool(_NUMBER.match(value)),
        "start": bool(re.match(r"^-?\d{1,6}$", value)),
        "type": value.lower() == "checkbox",
        "checked": True, "disabled": True, "open": True,
    }.get(name, False)
    return (value, None) if allowed else (None, what)


def allowed_attribute(tag: str, name: str, value: str,
                      image_hosts: Collection[str] = ()) -> bool:
    """Whether the attribute may stay in some form (renamed, or with some of its class
    names or declarations dropped)."""
    kept, _ = judge_attribute(tag, name, value, Policy(frozenset(image_hosts)))
    return kept is not None
