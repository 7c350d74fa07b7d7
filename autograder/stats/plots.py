"""The class report's four plots, as PNG bytes with alt text.

Score distribution per exercise, pass rate per check case, difficulty against discrimination
(each point labelled with its exercise) and the most common wrong values. Colour is never
the only cue: hidden cases and wrong values no hint covers are hatched as well as coloured,
and every bar carries its number as text.

Student values reach the plots as labels (already bounded, escaped text): they are drawn
with ``parse_math=False`` so that a ``$`` is a dollar sign, not mathtext. Uses matplotlib's
Agg backend (no display). Trusts nothing it draws; imports ``autograder.stats.summary``.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after choosing the backend
from matplotlib.patches import Patch  # noqa: E402

from autograder.stats.summary import (  # noqa: E402
    CheckStats,
    ClassRecord,
    QuestionStats,
    WrongValue,
)

LABEL_CHARS = 48  # the longest label drawn; the tables hold the whole text
PLAIN, HIDDEN_HATCH = "#4c72b0", "//"
COVERED, UNCOVERED, UNCOVERED_HATCH = "#55a868", "#c44e52", "xx"


@dataclass(frozen=True)
class Plot:
    name: str  # file name, without .png
    title: str
    alt: str  # what the image shows, for a reader who cannot see it
    png: bytes


def _short(text: str, chars: int = LABEL_CHARS) -> str:
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _png(figure: plt.Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()


def _percent(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.0f}%"


def score_distribution(questions: list[QuestionStats],
                       records: list[ClassRecord]) -> Plot:
    """One histogram per exercise: how many submissions got each score."""
    columns = max(1, min(3, len(questions)))
    rows = (len(questions) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 2.8 * rows),
                                squeeze=False)
    for ax, q in zip(axes.flat, questions):
        counts = Counter(r.points.get(q.grade_id, 0.0) for r in records)
        scores = sorted(counts)
        bars = ax.bar([f"{s:g}" for s in scores], [counts[s] for s in scores], color=PLAIN)
        ax.bar_label(bars, [str(counts[s]) for s in scores], fontsize=8)
        ax.set_title(_short(q.grade_id, 36), fontsize=10, parse_math=False)
        ax.set_xlabel(f"points (of {q.max_points:g})", fontsize=8)
        ax.set_ylabel("submissions", fontsize=8)
        ax.margins(y=0.2)
    for ax in list(axes.flat)[len(questions):]:
        ax.set_visible(False)
    figure.tight_layout()
    alt = "Histograms of the points per exercise. " + " ".join(
        f"{q.grade_id}: mean {q.mean:.2g} of {q.max_points:g}, {_percent(q.full)} full marks, "
        f"{_percent(q.zero)} zero." for q in questions if q.mean is not None)
    return Plot("score_distribution", "Score distribution per exercise", alt, _png(figure))


def pass_rates(checks: list[CheckStats]) -> Plot:
    """A horizontal bar per check case, hidden cases hatched."""
    shown = [c for c in checks if c.n]
    height = max(2.0, 0.28 * len(shown) + 1.0)
    figure, ax = plt.subplots(figsize=(9, height))
    labels = [_short(f"{c.grade_id} · {c.label}") for c in shown]
    rates = [100 * (c.pass_rate or 0.0) for c in shown]
    bars = ax.barh(range(len(shown)), rates, color=PLAIN,
                   hatch=[HIDDEN_HATCH if c.hidden else "" for c in shown], edgecolor="white")
    ax.bar_label(bars, [f"{r:.0f}%" for r in rates], padding=2, fontsize=8)
    ax.set_yticks(range(len(shown)), labels, fontsize=8, parse_math=False)
    ax.invert_yaxis()
    ax.set_xlim(0, 112)
    ax.set_xlabel("submissions passing this check (%)")
    ax.legend(handles=[Patch(facecolor=PLAIN, label="visible check"),
                       Patch(facecolor=PLAIN, hatch=HIDDEN_HATCH, edgecolor="white",
                             label="hidden check (hatched)")],
              loc="lower right", fontsize=8)
    hardest = sorted(shown, key=lambda c: c.pass_rate or 0.0)[:3]
    alt = (f"Bar chart of the pass rate of each of {len(shown)} checks. Lowest: " + "; ".join(
        f"{c.grade_id} {c.label} {_percent(c.pass_rate)}" for c in hardest) + ".")
    return Plot("pass_rates", "Pass rate per check", alt, _png(figure))


def difficulty_discrimination(questions: list[QuestionStats]) -> Plot:
    """Each exercise as a labelled point: mean share of points against item-rest r."""
    figure, ax = plt.subplots(figsize=(7, 4.5))
    placed = [q for q in questions if q.difficulty is not None and q.discrimination is not None]
    ax.scatter([100 * q.difficulty for q in placed], [q.discrimination for q in placed],
               marker="D", color=PLAIN, zorder=3)
    # labels fanned out vertically, each with a line to its point: exercises of a notebook
    # often sit close together
    for number, q in enumerate(sorted(placed, key=lambda q: (q.discrimination, q.difficulty))):
        ax.annotate(_short(q.grade_id, 30), (100 * q.difficulty, q.discrimination),
                    textcoords="offset points", xytext=(14, -18 + 16 * (number % 4)),
                    fontsize=8, parse_math=False, va="center",
                    arrowprops={"arrowstyle": "-", "color": "grey", "linewidth": 0.6})
    ax.axhline(0.2, linestyle="--", color="grey", linewidth=1,
               label="r = 0.2: below it, an exercise barely separates strong from weak "
               "submissions")
    ax.legend(loc="lower left", fontsize=7)
    ax.set_xlim(0, 105)
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel("mean score (% of the exercise's points): right is easier")
    ax.set_ylabel("item-rest discrimination (Pearson r)")
    ax.grid(True, linewidth=0.3)
    missing = [q.grade_id for q in questions if q not in placed]
    alt = ("Scatter plot of difficulty against discrimination, one labelled point per "
           "exercise. " + " ".join(f"{q.grade_id}: mean {100 * q.difficulty:.0f}%, "
                                   f"r {q.discrimination:.2f}." for q in placed)
           + (f" Not placed (a score that does not vary): {', '.join(missing)}."
              if missing else ""))
    return Plot("difficulty_discrimination", "Difficulty against discrimination", alt,
                _png(figure))


def top_wrong_values(wrong: list[WrongValue], top: int = 15) -> Plot:
    """The most common wrong values of the whole assignment; those no hint covers hatched."""
    common = sorted(wrong, key=lambda w: -w.count)[:top]
    figure, ax = plt.subplots(figsize=(9, max(2.0, 0.32 * len(common) + 1.0)))
    labels = [_short(f"{w.grade_id} · {w.label}: {w.value}", 60) for w in common]
    covered = [w.hint is not None for w in common]
    bars = ax.barh(range(len(common)), [w.count for w in common],
                   color=[COVERED if c else UNCOVERED for c in covered],
                   hatch=["" if c else UNCOVERED_HATCH for c in covered], edgecolor="white")
    ax.bar_label(bars, [f"{w.count} ({'hint' if c else 'no hint'})"
                        for w, c in zip(common, covered)], padding=2, fontsize=8)
    ax.set_yticks(range(len(common)), labels, fontsize=8, parse_math=False)
    ax.invert_yaxis()
    ax.margins(x=0.25)
    ax.set_xlabel("submissions giving this wrong value")
    ax.legend(handles=[Patch(facecolor=COVERED, label="a hint covers it"),
                       Patch(facecolor=UNCOVERED, hatch=UNCOVERED_HATCH, edgecolor="white",
                             label="no hint yet (hatched)")], loc="lower right", fontsize=8)
    alt = (f"Bar chart of the {len(common)} most common wrong values. " + "; ".join(
        f"{w.grade_id} {w.label}: {_short(w.value, 30)} given by {w.count}, "
        f"{'covered by a hint' if w.hint else 'no hint'}" for w in common[:5]) + ".")
    return Plot("top_wrong_values", "Most common wrong values", alt, _png(figure))


def all_plots(questions: list[QuestionStats], records: list[ClassRecord],
              checks: list[CheckStats], wrong: list[WrongValue]) -> list[Plot]:
    return [score_distribution(questions, records), pass_rates(checks),
            difficulty_discrimination(questions), top_wrong_values(wrong)]
