"""``python -m autograder stats ASSIGNMENT``: what a graded class got right and wrong.

Reads the records ``grade`` wrote (``grades/<assignment>/*.json``) and the assignment's
instructor notebook (for each check's ``why`` and hints), and writes ``stats/<assignment>/``:
``questions.csv``, ``checks.csv``, ``wrong_values.csv`` (``summary`` computes them; no
student id in any), the plots as PNG files (``plots``) and ``report.html`` (``page``), which
holds everything in one file.

Trusts the course directory and its answer key; the records' student values are hostile text,
counted and escaped, never evaluated. CSV cells are guarded against spreadsheet formulas
(``autograder.spreadsheet``).
"""

from __future__ import annotations

import csv
import io
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from autograder.spec import AssignmentSpec
from autograder.spreadsheet import safe_row
from autograder.stats.summary import (
    CheckStats,
    QuestionStats,
    WrongValue,
    check_stats,
    instructor_todo,
    question_stats,
    read_records,
    record_files,
    wrong_values,
)

PROGRESS_FROM = 200  # records: fewer are read before a bar would show


class StatsError(ValueError):
    """Statistics cannot be made (no course, no such assignment, no records)."""


@dataclass
class StatsRun:
    folder: Path
    records: int
    unusable: int
    seconds: float
    todo: list[WrongValue] = field(default_factory=list)  # common wrong values, no hint yet
    files: list[Path] = field(default_factory=list)


def _cell(x: float | None, digits: int = 4) -> float | str:
    return "" if x is None else round(x, digits)


def _percent(x: float | None) -> float | str:
    return "" if x is None else round(100 * x, 2)


def to_csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(safe_row(header))
    writer.writerows(safe_row(row) for row in rows)  # student values: never formulas
    return text.getvalue()


def questions_csv(questions: list[QuestionStats]) -> str:
    return to_csv(["exercise", "max_points", "n", "mean", "median", "sd", "pct_full",
                   "pct_zero", "discrimination"],
                  ([q.grade_id, q.max_points, q.n, _cell(q.mean), _cell(q.median), _cell(q.sd),
                    _percent(q.full), _percent(q.zero), _cell(q.discrimination)]
                   for q in questions))


def checks_csv(checks: list[CheckStats]) -> str:
    return to_csv(["exercise", "case", "hidden", "check", "why", "n", "passed",
                   "pass_rate_pct"],
                  ([c.grade_id, c.index, "yes" if c.hidden else "no", c.label, c.why, c.n,
                    c.passed, _percent(c.pass_rate)] for c in checks))


def _covered(w: WrongValue) -> str:
    return "yes" if w.hint is not None else ("no" if w.checkable else "unknown")


def wrong_values_csv(wrong: list[WrongValue]) -> str:
    return to_csv(["exercise", "case", "hidden", "check", "value", "count",
                   "pct_of_failures", "hint_covers", "hint"],
                  ([w.grade_id, w.index, "yes" if w.hidden else "no", w.label, w.value,
                    w.count, _percent(w.share), _covered(w), w.hint or ""] for w in wrong))


def _counting(paths: list[Path], enabled: bool) -> Iterator[Path]:
    """``paths``, with a progress bar on stderr while they are read (tqdm when installed,
    else a plain counter)."""
    if not enabled:
        yield from paths
        return
    try:
        from tqdm import tqdm
    except ImportError:
        for number, path in enumerate(paths, start=1):
            if number % 100 == 0 or number == len(paths):
                print(f"\rread {number}/{len(paths)} records", end="", file=sys.stderr)
            yield path
        print(file=sys.stderr)
        return
    yield from tqdm(paths, unit="record", desc="reading records", dynamic_ncols=True)


def write_stats(course_root: Path, assignment: str, spec: AssignmentSpec, *, top: int = 10,
                progress: bool = True, plots: bool = True) -> StatsRun:
    """Write ``stats/<assignment>/`` from the records and the assignment's answer key."""
    started = time.perf_counter()
    paths = record_files(course_root, assignment)
    if not paths:
        raise StatsError(f"no records in {course_root / 'grades' / assignment}/; grade the "
                         f"assignment first (python -m autograder grade {assignment})")
    records, unusable = read_records(course_root, assignment,
                                     _counting(paths, progress and len(paths) >= PROGRESS_FROM))
    if not records:
        raise StatsError(f"none of the {len(paths)} records in "
                         f"{course_root / 'grades' / assignment}/ could be read")
    questions = question_stats(spec, records)
    checks = check_stats(spec, records)
    wrong = wrong_values(spec, records, top=top)
    folder = course_root / "stats" / assignment
    folder.mkdir(parents=True, exist_ok=True)
    run = StatsRun(folder, len(records), unusable, 0.0)
    for name, text in (("questions.csv", questions_csv(questions)),
                       ("checks.csv", checks_csv(checks)),
                       ("wrong_values.csv", wrong_values_csv(wrong))):
        (folder / name).write_text(text, encoding="utf-8")
        run.files.append(folder / name)
    drawn = []
    if plots:
        from autograder.stats.plots import all_plots

        drawn = all_plots(questions, records, checks, wrong)
        for plot in drawn:
            (folder / f"{plot.name}.png").write_bytes(plot.png)
            run.files.append(folder / f"{plot.name}.png")
    from autograder.stats.page import render

    page = render(assignment, len(records), unusable, questions, checks, wrong, drawn)
    (folder / "report.html").write_text(page, encoding="utf-8")
    run.files.append(folder / "report.html")
    run.todo = instructor_todo(wrong)
    run.seconds = time.perf_counter() - started
    return run
