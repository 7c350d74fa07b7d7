"""Is a translation in step with the English, and does it keep what must not change?

``problems`` lists, for one catalog, every unit that is:

- **missing**: no translation yet;
- **stale**: translated from an English text that has since changed (``fuzzy``, or a
  ``msgid`` that is no longer the English);
- **altered**: its formulas (``$...$``), code spans, link or image targets, HTML tags or
  ``{placeholders}`` differ from the English ones: those are code and maths, not prose;
- **off-glossary**: where the English uses a glossary term (``glossary.csv``), it leaves out
  the glossary's rendering (for a required term) or uses one the glossary rules out.

Each problem names the catalog, the entry (cell id or message) and what to do. Trusts the
repository.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polib

from autograder.colab import is_colab_cell
from autograder.translate.catalog import (
    Unit,
    catalog_path,
    entry_key,
    live_entries,
    load,
    state,
    units_of,
)
from lecture_utils.i18n import MESSAGE_CONTEXT, TRANSLATIONS

# Spans copied verbatim from the English. Order matters: $$ before $, fences before `.
_VERBATIM = re.compile(
    r"```.*?```"                     # fenced code
    r"|\$\$.+?\$\$"                  # display maths
    # inline maths (not a lone "$5") and code spans may break over a line, not a paragraph;
    # only an ASCII word character next to a $ rules out maths: Chinese prose runs up to it
    r"|(?<![\\0-9A-Za-z_$])\$(?!\s)(?:[^$\n]|\n(?!\s*\n))+?(?<![\s\\])\$(?![0-9A-Za-z_])"
    r"|`(?:[^`\n]|\n(?!\s*\n))+`"
    r"|\]\([^)\s]+(?:\s+\"[^\"]*\")?\)"  # link or image target
    r"|<[a-zA-Z/][^>\n]*>"           # HTML tag
    r"|\{[a-z_][a-z0-9_]*(?:[:!][^{}]*)?\}"  # a tr_format placeholder
    r"|\{\d+\}",  # a value of an f-string's template
    re.DOTALL,
)


def verbatim_spans(text: str) -> Counter[str]:
    """The formulas, code, link targets, tags and placeholders of ``text``, counted."""
    return Counter(match.group(0) for match in _VERBATIM.finditer(text))


def prose(text: str) -> str:
    """``text`` without its verbatim spans: what the glossary rules apply to."""
    return _VERBATIM.sub(" ", text)


@dataclass(frozen=True)
class Term:
    name: str  # the English term, as the glossary writes it
    english: re.Pattern[str]  # where the English uses the term
    chinese: str  # the one rendering
    avoid: tuple[str, ...]  # renderings that are not used
    required: bool  # the English term, outside code, must come out as ``chinese``


def glossary(language: str) -> list[Term]:
    path = TRANSLATIONS / language / "glossary.csv"
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        return [Term(row["english"], re.compile(rf"\b(?:{row['english']})\b", re.IGNORECASE),
                     row["chinese"], tuple(v for v in row["avoid"].split("|") if v),
                     row["required"].strip().lower() == "yes")
                for row in csv.DictReader(handle)]


@dataclass(frozen=True)
class Problem:
    catalog: Path
    entry: str  # "cell <id>" or the message's first words
    kind: str  # missing, stale, altered, off-glossary
    detail: str

    def __str__(self) -> str:
        return f"{self.catalog.name}: {self.entry}: {self.kind}: {self.detail}"


def _label(context: str, english: str) -> str:
    if context != MESSAGE_CONTEXT:
        return context
    first = " ".join(english.split())
    return f"message {first[:50]!r}" + ("…" if len(first) > 50 else "")


def localized(english: str, language: str) -> str:
    """The English with the paths a reader of ``language`` has instead: their copy of the
    notebooks is ``workspace-<language>/`` (``scripts/lab.sh --lang``), not ``workspace/``."""
    return re.sub(r"(?<![\w-])workspace/", f"workspace-{language}/", english)


def _altered(english: str, translated: str) -> str | None:
    want, got = verbatim_spans(english), verbatim_spans(translated)
    if want == got:
        return None
    lost, added = list((want - got).elements()), list((got - want).elements())
    parts = ([f"missing {', '.join(map(repr, lost[:3]))}"] if lost else []) + \
            ([f"not in the English {', '.join(map(repr, added[:3]))}"] if added else [])
    return ("formulas, code, link targets, tags and {placeholders} must be copied unchanged: "
            + "; ".join(parts))


def _off_glossary(english: str, translated: str, terms: list[Term]) -> list[str]:
    found = []
    # whitespace as one space: a term may break over a line ("the\nlecture")
    english_prose = " ".join(prose(english).split())
    chinese_prose = " ".join(prose(translated).split())
    for term in terms:
        said = term.english.search(english_prose)
        used = [v for v in term.avoid if v in chinese_prose] if said else []
        if used:
            found.append(f"{used[0]!r} for {term.name!r}: the glossary "
                         f"says {term.chinese!r}")
        elif (term.required and said
              and term.chinese not in chinese_prose and not term.english.search(chinese_prose)):
            found.append(f"the English says {said.group(0)!r} "
                         f"and the translation has neither {term.chinese!r} nor the English")
    return found


def problems(language: str, name: str, *, catalog: polib.POFile | None = None,
             units: list[Unit] | None = None) -> list[Problem]:
    """Everything wrong with catalog ``name`` of ``language`` (see the module docstring);
    ``catalog`` and ``units`` default to the repository's catalog and English."""
    path = catalog_path(language, name)
    entries = live_entries(catalog if catalog is not None else load(language, name))
    terms = glossary(language)
    update = f"run `python -m autograder translate update {name}` and translate it"
    found = []
    for unit in units if units is not None else units_of(name):
        entry = entries.get(entry_key(unit.context, unit.english))
        label = _label(unit.context, unit.english)
        current = state(entry, unit.english)
        if current == "missing":
            found.append(Problem(path, label, "missing", f"no translation; {update}"))
        elif current == "stale":
            found.append(Problem(path, label, "stale",
                                 "the English changed since it was translated; " + update
                                 + ", then remove the fuzzy flag"))
        elif detail := _altered(localized(unit.english, language), entry.msgstr):
            found.append(Problem(path, label, "altered", detail))
        else:
            found += [Problem(path, label, "off-glossary", detail)
                      for detail in _off_glossary(unit.english, entry.msgstr, terms)]
    return found


def differences_from_english(english: Any, translated: Any) -> list[str]:
    """What a translated notebook changed besides the text of its markdown cells: the cells
    (number, order, type, id), a code cell's source or outputs, any cell's metadata (nbgrader's
    grade ids, points, locks), and the notebook's metadata beyond ``lecture``. Empty when the
    two differ only where a translation may. The Colab setup cell's code is each language's
    own (``autograder.colab``; tests/test_colab_cells.py checks it)."""
    found = []
    if len(english.cells) != len(translated.cells):
        found.append(f"{len(translated.cells)} cells where the English has {len(english.cells)}")
    for number, (ours, theirs) in enumerate(zip(english.cells, translated.cells), 1):
        where = f"cell {number} ({ours.get('id')})"
        if (ours.cell_type, ours.get("id")) != (theirs.cell_type, theirs.get("id")):
            found.append(f"{where}: is a {theirs.cell_type} cell with id {theirs.get('id')!r}")
        elif ours.metadata != theirs.metadata:
            found.append(f"{where}: its metadata differs from the English cell's")
        elif ours.cell_type == "code" and not is_colab_cell(ours) and \
                (ours.source, ours.get("outputs")) != (theirs.source, theirs.get("outputs")):
            found.append(f"{where}: its code differs from the English cell's")
    extra = {k: v for k, v in translated.metadata.items() if k != "lecture"}
    if extra != {k: v for k, v in english.metadata.items() if k != "lecture"}:
        found.append("the notebook's metadata differs from the English beyond 'lecture'")
    return found
