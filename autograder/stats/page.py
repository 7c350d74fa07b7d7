"""The class report as one self-contained HTML page (``stats/<assignment>/report.html``).

The instructor opens it in a browser, perhaps offline, so everything is in the file: the
plots are ``data:`` images, the style is inline, there is no script and no external URL.
Student values are hostile text: every piece of text goes through ``html.escape`` (quotes
included), and the page's Content-Security-Policy (``default-src 'none'; img-src data:;
style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'``) forbids script, frames,
fonts and any request even if markup got through (it cannot stop a ``<meta>`` refresh: the
escaping is what keeps that out). Trusts nothing it prints; imports
``autograder.stats.plots`` and ``summary``.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from html import escape

from autograder.stats.plots import Plot
from autograder.stats.summary import (
    TODO_FROM,
    CheckStats,
    QuestionStats,
    WrongValue,
    instructor_todo,
)

# (base-uri and form-action do not fall back to default-src: a <base> would move relative URLs)
CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
       "form-action 'none'")
STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px;
       padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, monospace; white-space: nowrap; }
td.wrap code { white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 1em 0 2em; } img { max-width: 100%; height: auto; }
figcaption { font-size: 13px; color: #444; }
.todo { background: #fdecea; }
"""


def _text(value: object) -> str:
    return escape(str(value), quote=True)


def _num(x: float | None, digits: int = 2) -> str:
    return "" if x is None else f"{x:.{digits}f}"


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.1f}%"


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], classes: str,
           row_class: Sequence[str] = ()) -> str:
    """A table of already-escaped cells. ``classes`` has one letter per column: ``n`` a
    number (right-aligned), ``w`` long text that may wrap anywhere (values), ``.`` plain."""
    names = {"n": ' class="n"', "w": ' class="wrap"', ".": ""}
    head = "".join(f"<th scope=col>{_text(h)}</th>" for h in headers)
    body = []
    for number, row in enumerate(rows):
        cls = f' class="{row_class[number]}"' if number < len(row_class) and \
            row_class[number] else ""
        cells = "".join(f"<td{names[kind]}>{cell}</td>" for kind, cell in zip(classes, row))
        body.append(f"<tr{cls}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _figure(plot: Plot) -> str:
    data = base64.b64encode(plot.png).decode("ascii")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{_text(plot.alt)}">'
            f"<figcaption>{_text(plot.title)}. {_text(plot.alt)}</figcaption></figure>")


def _hint_cell(w: WrongValue) -> str:
    if w.hint is not None:
        return f"yes: {_text(w.hint)}"
    return "no" if w.checkable else "cannot tell (value shortened or not kept)"


def render(assignment: str, n: int, unusable: int, questions: list[QuestionStats],
           checks: list[CheckStats], wrong: list[WrongValue], plots: list[Plot]) -> str:
    """The whole page as text."""
    by_name = {p.name: p for p in plots}
    question_rows = [[f"<code>{_text(q.grade_id)}</code>", _text(f"{q.max_points:g}"),
                      str(q.n), _num(q.mean), _num(q.median), _num(q.sd), _pct(q.full),
                      _pct(q.zero), _num(q.discrimination)] for q in questions]
    check_rows = [[f"<code>{_text(c.grade_id)}</code>", str(c.index),
                   "hidden" if c.hidden else "visible", f"<code>{_text(c.label)}</code>",
                   _text(c.why), str(c.n), _pct(c.pass_rate)] for c in checks]
    todo = instructor_todo(wrong)

    def wrong_rows(items: list[WrongValue]) -> list[list[str]]:
        return [[f"<code>{_text(w.grade_id)}</code>", f"<code>{_text(w.label)}</code>",
                 f"<code>{_text(w.value)}</code>", str(w.count), _pct(w.share), _hint_cell(w)]
                for w in items]

    wrong_headers = ["exercise", "check", "wrong value", "submissions", "of its failures",
                     "hint covers it"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>Class report: {_text(assignment)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>Class report: <code>{_text(assignment)}</code></h1>",
        f"<p>{n} graded submission(s)"
        + (f"; {unusable} record(s) left out (unreadable, or the grader's own failure)"
           if unusable else "") + ". Student values are shown as the grader recorded them "
        "(at most 80 characters); no student is named.</p>",
        "<h2>Exercises</h2>",
        "<p>Discrimination is the correlation of the exercise's score with the total of the "
        "other exercises (item-rest); blank where a score does not vary. SD is this class's "
        "(population) standard deviation.</p>",
        _table(["exercise", "points", "n", "mean", "median", "SD", "full marks", "zero",
                "discrimination"], question_rows, ".nnnnnnnn"),
    ]
    if "score_distribution" in by_name:
        parts.append(_figure(by_name["score_distribution"]))
    parts += [f"<h2>Wrong values no hint covers yet ({len(todo)})</h2>",
              f"<p>Given by at least {TODO_FROM} submissions: each is a candidate for a hint "
              "(<code>Case(..., hints=((value, message),))</code> in the test cell), which "
              "the next student who gives it will see.</p>",
              _table(wrong_headers, wrong_rows(todo), ".wwnn.") if todo
              else "<p>None.</p>"]
    if "top_wrong_values" in by_name:
        parts.append(_figure(by_name["top_wrong_values"]))
    if "difficulty_discrimination" in by_name:
        parts += ["<h2>Difficulty and discrimination</h2>",
                  _figure(by_name["difficulty_discrimination"])]
    parts += ["<h2>Checks</h2>",
              "<p>n counts the submissions whose check was judged (an exercise that never "
              "ran, or whose test cell was edited, has no per-check verdicts).</p>",
              _table(["exercise", "case", "kind", "check", "why", "n", "pass rate"], check_rows,
                     ".n.w.nn")]
    if "pass_rates" in by_name:
        parts.append(_figure(by_name["pass_rates"]))
    parts += ["<h2>All common wrong values</h2>",
              _table(wrong_headers, wrong_rows(wrong), ".wwnn.",
                     ["todo" if w in todo else "" for w in wrong]),
              "</body></html>"]
    return "\n".join(parts) + "\n"
