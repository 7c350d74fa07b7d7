"""``run_autograder``'s grader: one submission in /autograder, one ``results.json``.

Gradescope puts the submission's files in ``/autograder/submission`` and its metadata in
``/autograder/submission_metadata.json``, and reads ``/autograder/results/results.json``
(https://gradescope-autograders.readthedocs.io/en/latest/specs/). This grades the one notebook
there with ``check``'s engine (``autograder.pipeline``: plan, run in a worker, judge) and
``check``'s limits (``autograder.limits.Limits()``, unless the zip was built with others: per
cell and per check 30 s, so an infinite loop costs its exercise and the rest are graded),
then writes ``results.json`` once, atomically, whatever happened: a missing or malformed file
shows students only "Autograder failed to execute correctly". A failure of the grader itself
becomes a visible "grader error" test; its details go to stdout, which only instructors see.

Student code runs in bubblewrap where the container allows it, else as the unprivileged user
``student`` (``autograder.gradescope.student``). Trusts ``source/key`` (the zip's); imports
``autograder.gradescope.key``, ``report``, ``measure`` and ``student``, ``autograder.pipeline``
and ``autograder.sandbox``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autograder.gradescope import report
from autograder.gradescope.measure import Meter
from autograder.gradescope.student import StudentWorker, lock_down, student_account
from autograder.limits import Limits
from autograder.protocol import Status
from autograder.results import NotebookResult, TestResult
from autograder.sandbox.worker import Worker
from lecture_utils.i18n import use_language

if TYPE_CHECKING:
    from autograder.spec import AssignmentSpec

DEFAULT_ROOT = Path("/autograder")
CONFIG = Path("source/key/config.json")
KEY = Path("source/key/key.json")
IGNORED = ("__MACOSX",)  # folders some zip tools add to an upload


def notebooks_in(folder: Path) -> tuple[list[Path], list[str]]:
    """The ``.ipynb`` files submitted (hidden files and Jupyter's checkpoints left out), and
    the names of everything submitted, for the message when there is not exactly one."""
    found, names = [], []
    if not folder.is_dir():
        return found, names
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") or part in IGNORED for part in relative.parts):
            continue
        if path.is_dir() and not path.is_symlink():
            continue
        names.append(str(relative))
        if path.suffix == ".ipynb":
            found.append(path)
    return found, names


def make_worker(mode: str, limits: Limits) -> Worker:
    """bubblewrap's sandbox if it works here (``mode`` auto or bwrap), else, as root, a
    worker running as the unprivileged student user, else (an instructor trying the zip as
    themself) a plain worker, as ``check`` uses without bubblewrap. ``mode`` comes from the
    zip's config, or CS336_GRADER_WORKER: auto, bwrap or student."""
    from autograder.sandbox.bwrap import SandboxUnavailable, sandbox_available

    if mode in ("auto", "bwrap"):
        ok, why = sandbox_available()
        if ok:
            worker = Worker(limits, sandbox=True)
            try:
                worker.start()  # the probe passed; the real sandbox may still not start
                print("student code runs in the bubblewrap sandbox")
                return worker
            except SandboxUnavailable as problem:
                worker.close()
                ok, why = False, str(problem)
        if mode == "bwrap":
            raise RuntimeError(f"bubblewrap was asked for but cannot run here: {why}")
        print(f"bubblewrap cannot run here ({why})")
    if os.geteuid() == 0:
        account = student_account()
        print(f"student code runs as the unprivileged user {account.pw_name}")
        return StudentWorker(limits, account)
    print("student code runs as this user, without a sandbox (not root: cannot drop to "
          "another user)")
    return Worker(limits, sandbox=False)


def visible_checks(spec: AssignmentSpec) -> AssignmentSpec:
    """The spec cut to the visible checks of each exercise that also has hidden ones."""
    checks = {}
    for gid, check in spec.checks.items():
        keep = [case for case, hidden in zip(check.cases, check.hidden) if not hidden]
        if any(check.hidden) and keep:
            checks[gid] = replace(check, cases=tuple(keep), hidden=(False,) * len(keep))
    return replace(spec, checks=checks)


def grade(root: Path, answer_key: dict[str, Any], config: dict[str, Any],
          started: float) -> tuple[dict[str, Any], NotebookResult | None]:
    """results.json for the submission in ``root``, and the judged result (None: not graded).
    The judge (and torch with it) is imported only once there is one notebook to grade."""
    notebooks, names = notebooks_in(root / "submission")
    expected = f"{answer_key['assignment']}.ipynb"
    max_score = sum(float(check["points"]) for check in answer_key["checks"])
    if len(notebooks) != 1:
        what = (f"{len(notebooks)} notebooks ({', '.join(n.name for n in notebooks)})"
                if notebooks else
                "no notebook" + (f" (only {', '.join(names[:10])})" if names else ""))
        message = (f"Not graded: the submission holds {what}; submit exactly one notebook, "
                   f"your {expected}.")
        return report.submission_problem(message, max_score,
                                         time.monotonic() - started), None
    from autograder.gradescope import key
    from autograder.pipeline import Submission, judged, planned, run_plan

    spec = key.load(answer_key)
    path = notebooks[0]
    note = "" if path.name == expected else f"graded {path.name} as {expected}"
    submission = Submission("", path.parent, path, note)
    limits = Limits(**config.get("limits", {}))
    plan = planned(spec, submission, spec.name, limits)
    if isinstance(plan, NotebookResult):  # not a notebook of this assignment, or broken
        if plan.status == Status.GRADER_ERROR:
            raise RuntimeError(plan.message)
        message = f"Not graded: {path.name}: {plan.message}"
        return report.submission_problem(message, spec.max_score,
                                         time.monotonic() - started), plan
    mode = os.environ.get("CS336_GRADER_WORKER") or config.get("worker", "auto")
    with make_worker(mode, limits) as worker:
        run = run_plan(worker, plan)
    result = judged(spec, submission, spec.name, plan, run)
    result.notebook = str(path.relative_to(root / "submission"))
    if result.status == Status.GRADER_ERROR:
        raise RuntimeError(result.message)
    public = visible_checks(spec)
    cases = {gid: [o for o, hidden in zip(outcomes, spec.checks[gid].hidden) if not hidden]
             for gid, outcomes in run.cases.items() if gid in public.checks}
    shown = judged(public, submission, spec.name, plan, replace(run, cases=cases))
    visible_only: dict[str, TestResult] = {t.grade_id: t for t in shown.tests}
    hidden = {gid: check.hidden for gid, check in spec.checks.items()}
    payload = report.results_json(result, hidden, visible_only,
                                  config.get("hidden_visibility",
                                             report.DEFAULT_HIDDEN_VISIBILITY),
                                  time.monotonic() - started)
    return payload, result


def write_once(path: Path, payload: dict[str, Any]) -> None:
    """Write ``path`` whole or not at all: a temporary file beside it, then a rename. Student
    text in it is made safe for Gradescope first (``report.clean``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "w", encoding="utf-8") as out:
        json.dump(report.clean(payload), out, indent=2, allow_nan=False)
        out.write("\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.gradescope.run",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.environ.get("GRADESCOPE_ROOT", str(DEFAULT_ROOT)),
                        help="the directory laid out as Gradescope's /autograder")
    args = parser.parse_args(argv)
    # the log quotes student text (a file name that is not UTF-8, a lone surrogate in an
    # exception): escape what cannot be encoded rather than fail after results.json
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    root = Path(args.root)
    started = time.monotonic()
    max_score, result = 0.0, None
    try:
        with Meter() as meter:
            if os.geteuid() == 0:
                lock_down(root)
            config = json.loads((root / CONFIG).read_text(encoding="utf-8"))
            answer_key = json.loads((root / KEY).read_text(encoding="utf-8"))
            max_score = sum(float(check["points"]) for check in answer_key["checks"])
            payload, result = grade(root, answer_key, config, started)
        print(meter.cost.line())
    except BaseException:  # noqa: BLE001 - whatever happens, results.json is written
        print("grader error (students see only that the grader failed):", flush=True)
        traceback.print_exc(file=sys.stdout)
        payload = report.grader_error(max_score, time.monotonic() - started)
    write_once(root / "results" / "results.json", payload)
    if result is not None:
        with use_language("en"):
            print(result.table())
            details = result.details()
            if details:
                print(f"\nWhat went wrong, in full:\n\n{details}")
    score = sum(t.get("score", 0.0) for t in payload["tests"])
    print(f"score {score:g}/{max_score:g}; wrote {root / 'results' / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
