"""The language a notebook speaks, and the translation of what the code shows its reader.

The course is written in English; ``translations/<language>/*.po`` holds the other
languages (gettext catalogs, one per notebook plus ``lecture_utils.po``). Their
``msgctxt "message"`` entries translate the text the code shows: a check's reason and
hints, plot titles, axis labels and alt text, widget labels, table headers. ``tr`` looks a
text up; a text with no translation is shown in English. Code cells are the same in every
language, so the language is not written in them. It comes from, in order:

1. ``use_language(...)``: the grader judging one submission;
2. the metadata (``lecture.language``) of the notebook, as ``check`` and ``grade`` read it;
   in a kernel, the notebook Jupyter names in ``JPY_SESSION_NAME`` (``open_notebook``);
3. the ``LECTURE_LANGUAGE`` environment variable, for a notebook that declares no language
   (the English release) or a kernel that cannot tell which notebook it runs (VS Code, a
   script); ``notebook_language`` applies it too, so a kernel and ``check`` agree;
4. English.

Trusts the repository's catalogs; a notebook's metadata only selects among ``LANGUAGES``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Any

ENGLISH = "en"
LANGUAGES = {ENGLISH: "English", "zh-CN": "简体中文"}
ENVIRONMENT_VARIABLE = "LECTURE_LANGUAGE"
MESSAGE_CONTEXT = "message"  # msgctxt of a message entry; a cell's is "cell <id>"
TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"

_chosen: ContextVar[str | None] = ContextVar("lecture_language", default=None)


def known(language: Any) -> str | None:
    """``language`` if it is one of ``LANGUAGES`` (any case, ``_`` or ``-``), else None."""
    if not isinstance(language, str) or len(language) > 16:
        return None
    wanted = language.replace("_", "-").lower()
    return next((code for code in LANGUAGES if code.lower() == wanted), None)


def declared_language(metadata: Any) -> str | None:
    """The language a notebook's metadata declares (``{"lecture": {"language": ...}}``), or
    None when it declares none we know. Safe on any JSON a student could submit."""
    lecture = metadata.get("lecture") if isinstance(metadata, Mapping) else None
    declared = lecture.get("language") if isinstance(lecture, Mapping) else None
    return known(declared)


def default_language() -> str:
    """The language of a notebook that declares none: ``LECTURE_LANGUAGE``, else English."""
    return known(os.environ.get(ENVIRONMENT_VARIABLE)) or ENGLISH


def notebook_language(metadata: Any) -> str:
    """The language to show a notebook's messages in: the one its metadata declares, else
    ``default_language()``. Safe on any JSON a student could submit."""
    return declared_language(metadata) or default_language()


def open_notebook(session: Any = None) -> Path | None:
    """The notebook file a kernel runs, as Jupyter names it (``session``: IPython's
    ``__session__``, else ``JPY_SESSION_NAME``), if it names one that exists."""
    session = session or os.environ.get("JPY_SESSION_NAME")
    if not isinstance(session, str) or not session.endswith(".ipynb"):
        return None
    path = Path(session)
    if not path.is_file():  # a path relative to the server's root; the kernel runs beside it
        path = Path.cwd() / path.name
    return path if path.is_file() else None


@lru_cache(maxsize=8)
def _declared_by_file(path: str, mtime: float) -> str | None:
    try:
        return declared_language(json.loads(Path(path).read_text("utf-8")).get("metadata"))
    except (OSError, ValueError, AttributeError):
        return None


# session name → the language its notebook declared when last read: Jupyter names the
# notebook once, when the kernel starts, so after a rename the name is stale and no file has it
_declared_by_session: dict[str, str | None] = {}


def _session_language() -> str | None:
    """The language the notebook Jupyter started this kernel for declares, if it does."""
    session = os.environ.get("JPY_SESSION_NAME", "")
    path = open_notebook()
    if path is not None:
        try:
            _declared_by_session[session] = _declared_by_file(str(path), path.stat().st_mtime)
        except OSError:  # removed since open_notebook looked
            pass
    return _declared_by_session.get(session)


def current_language() -> str:
    """The language to show messages in now (see the module docstring for the order)."""
    return _chosen.get() or _session_language() or default_language()


@contextmanager
def use_language(language: str) -> Iterator[None]:
    """Show messages in ``language`` inside the block (an unknown one means English)."""
    token = _chosen.set(known(language) or ENGLISH)
    try:
        yield
    finally:
        _chosen.reset(token)


@lru_cache(maxsize=4)
def messages(language: str) -> dict[str, str]:
    """English message → its translation, from every catalog of ``language``.

    Untranslated, fuzzy (English changed since) and obsolete entries are left out, so their
    English shows.
    """
    import polib

    table: dict[str, str] = {}
    for catalog in sorted((TRANSLATIONS / language).glob("*.po")):
        for entry in polib.pofile(str(catalog)):
            if (entry.msgctxt == MESSAGE_CONTEXT and entry.msgstr and not entry.obsolete
                    and "fuzzy" not in entry.flags):
                table.setdefault(entry.msgid, entry.msgstr)
    return table


_PLACEHOLDER = re.compile(r"(\{\d+\})")
# A template's own text must say something (not just "{0} of {1}"), and a value it takes is
# a number or a name, not a sentence: an untranslated text is shown in English rather than
# cut up by a template it only happens to fit.
TEMPLATE_LETTERS = 4
VALUE = r"([^\n]{1,60}?)"


def literal_text(template: str) -> list[str]:
    """A template's fixed text between its values (``{0}``, ...), braces unescaped."""
    pieces = _PLACEHOLDER.split(template)
    return [p.replace("{{", "{").replace("}}", "}") for p in pieces[::2]]


def matchable(template: str) -> bool:
    """Whether ``tr`` matches shown text against ``template``: it has values, and fixed
    text that says something (``TEMPLATE_LETTERS``)."""
    literal = literal_text(template)
    return len(literal) > 1 and sum(c.isalpha() for c in "".join(literal)) >= TEMPLATE_LETTERS


@lru_cache(maxsize=4)
def _templates(language: str) -> list[tuple[re.Pattern[str], str]]:
    """(what a filled-in template looks like, its translation) for every message made from
    an f-string (``{0}``, ``{1}``, ... stand for its values), longest literal text first so
    that the most specific template wins."""
    found = []
    for english, translated in messages(language).items():
        if not matchable(english):
            continue
        literal = literal_text(english)
        pattern = VALUE.join(re.escape(p) for p in literal)
        found.append((sum(map(len, literal)), re.compile(pattern, re.DOTALL), translated))
    return [(pattern, translated) for _, pattern, translated in
            sorted(found, key=lambda item: -item[0])]


def tr(text: str, language: str | None = None) -> str:
    """``text`` in ``language`` (default: the current one); English where none is known.
    A text made by an f-string is matched against the templates (``units``) and its values
    are put into the translation."""
    language = language or current_language()
    if language == ENGLISH or not isinstance(text, str) or not text:
        return text
    exact = messages(language).get(text)
    if exact is not None:
        return exact
    for pattern, translated in _templates(language):
        match = pattern.fullmatch(text)
        if match:
            try:
                return translated.format(*match.groups())
            except (IndexError, KeyError, ValueError):  # a catalog's slip shows the English
                return text
    return text


def N_(text: str) -> str:
    """Mark ``text`` as a message where it is made and kept in English (a record, a plan);
    it is translated with ``tr`` where it is shown. ``python -m autograder translate``
    finds it in the source like a ``tr`` text."""
    return text


def tr_format(template: str, **values: Any) -> str:
    """``tr(template).format(**values)``: a message with numbers or names filled in."""
    return tr(template).format(**values)
