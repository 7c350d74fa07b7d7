"""Mutation score of the grader's trusted core: do its fast tests notice a broken grader?

Runs mutmut 3 (``mutmut run``) over the modules in ``MODULES`` with the fast tests in
``TESTS`` and prints, per module: mutants, killed, survived, equivalent, timeouts, other (no
covering test, suspicious, segfault), not run (see --skip-unchecked) and score = killed /
(mutants - equivalent - not run).
Equivalent mutants (a change no behaviour can tell apart) are listed, each with its mutated
line and a one-line reason, in ``grader_mutation_equivalent.toml`` next to this file; one
counts only while it still survives and its mutated line still matches (mutmut numbers
mutants per function, so an edited function renumbers them: the run then names the stale
entries).

Nothing in the checkout changes: the working tree (tracked and untracked files git does not
ignore) is copied to a temporary directory, a ``setup.cfg`` with the ``[mutmut]`` settings is
written there (pyproject.toml, which ``scripts/setup.sh`` hashes, is left alone), and mutmut
runs in that copy, niced. mutmut records which test touches which function, then runs only
those tests against each mutant. Slow tests are left out (see ``DESELECT``): the Dask
cluster tests that kill or start real worker processes (30-60 s each), the 27 s comparison
with ``torch.utils.benchmark``, a wall-clock test, and one test that cannot pass under
mutmut's trampolines (``check`` reading its caller's globals); ``tests/test_grade.py``,
test_sandbox.py and the hostile-submission tests (real grading runs) are not used at all.
So code only those exercise (``cluster.run_on_dask``, for one) counts as not killed.

    .venv/bin/python benchmarks/grader_mutation.py [--jobs 2] [--only autograder/judge.py]
        [--survivors FILE] [--keep] [--tests-at REF] [--reuse DIR [--skip-unchecked]]
    .venv/bin/python benchmarks/grader_mutation.py --report DIR

``--survivors FILE`` writes the diff of every surviving mutant to FILE; ``--keep`` keeps the
temporary copy (``mutmut show NAME`` / ``mutmut results`` work there); ``--tests-at REF``
runs the tests committed at REF instead of the working tree's (a baseline); ``--reuse DIR``
takes a kept copy, the working tree's tests, and tests again only what they had not killed
(``--only`` with it retests only those modules; ``--skip-unchecked`` leaves what the earlier
run never reached unrun); ``--report DIR`` prints the table of a kept copy, an interrupted
one too (stop ``mutmut run`` with Ctrl-C: results so far are kept).

How long: about 3,640 mutants. On a 2-core machine, niced, with 2 jobs, the modules other
than the sanitiser's take about 15 minutes; the sanitiser's take an hour or more, since each
of their mutants runs up to ~440 tests and some mutants of the tokenizer and of
``markup._Review`` loop until mutmut's timeout (minutes each). The baseline recorded in
benchmarks/results/grader_mutation.md ran 47 minutes and was stopped with 335 mutants (all
in tokens.py, markup.py and urls.py) not run; a ``--reuse`` rerun after new tests took 36
minutes. Not part of CI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EQUIVALENT_FILE = Path(__file__).with_name("grader_mutation_equivalent.toml")

MODULES = [
    "autograder/judge.py",
    "autograder/protocol.py",
    "lecture_utils/checks.py",
    "autograder/record.py",
    "autograder/results.py",
    "autograder/sanitize/allow.py",
    "autograder/sanitize/markup.py",
    "autograder/sanitize/notebook.py",
    "autograder/sanitize/tokens.py",
    "autograder/sanitize/urls.py",
    "autograder/plan.py",
    "autograder/cluster.py",
    "autograder/sandbox/slots.py",
    "lecture_utils/timing.py",
    "lecture_utils/hardware.py",
    "lecture_utils/flops.py",
]
# The fast tests of those modules (files that do not exist yet are skipped).
TESTS = [
    "tests/test_judge.py",
    "tests/test_protocol.py",
    "tests/test_results.py",
    "tests/test_checks.py",
    "tests/test_record.py",
    "tests/test_record_names.py",
    "tests/test_sanitize.py",
    "tests/test_plan.py",
    "tests/test_cluster.py",
    "tests/test_slots.py",
    "tests/test_timing.py",
    "tests/test_hardware.py",
    "tests/test_flops.py",
]
DESELECT = [
    "tests/test_cluster.py::test_a_submission_that_kills_every_worker_ends_crashed_and_a_rerun_"
    "retries_it",
    "tests/test_cluster.py::test_a_tls_cluster_of_two_workers_grades_like_the_local_pool",
    "tests/test_cluster.py::test_gpu_tasks_run_only_on_workers_with_the_gpu_resource",
    "tests/test_cluster.py::test_a_worker_killed_mid_batch_loses_nothing",
    "tests/test_cluster.py::test_the_command_explains_a_refused_scheduler",
    "tests/test_timing.py::test_median_matches_torch_utils_benchmark",
    # wall-clock bounds that the trampolines' overhead and a niced, busy machine break
    "tests/test_timing.py::test_sleep_is_timed_at_least_its_duration",
    # check() reads its caller's globals (sys._getframe(1)); under mutmut that caller is the
    # trampoline, so this test cannot pass there
    "tests/test_checks.py::test_check_defaults_to_the_callers_globals",
]
# Copied into mutmut's own copy (``mutants/``) besides the packages and tests/.
ALSO_COPY = ["conftest.py", "nbgrader_config.py", "solutions", "notebooks", "scripts"]
SKIP_DIRS = {".git", ".venv", "mutants", "__pycache__", "test-artifacts", "node_modules"}


@dataclass
class ModuleScore:
    """One module's mutants by outcome."""

    module: str
    mutants: int = 0
    killed: int = 0
    survived: int = 0
    equivalent: int = 0
    timeouts: int = 0
    other: int = 0
    not_run: int = 0
    survivors: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        """killed / (mutants - equivalent - not run); 1.0 for a module without scored
        mutants."""
        scored = self.mutants - self.equivalent - self.not_run
        return self.killed / scored if scored else 1.0


def copy_checkout(target: Path) -> None:
    """The working tree as git sees it (tracked files and untracked, unignored ones)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if not source.is_file() or SKIP_DIRS & set(Path(name).parts):
            continue
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination)


def tests_at(root: Path, ref: str) -> None:
    """Replace the copy's tests/ with the one committed at ``ref``."""
    shutil.rmtree(root / "tests")
    archive = subprocess.run(["git", "archive", ref, "tests"], cwd=REPO, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)


def reuse(root: Path, modules: list[str], skip_unchecked: bool = False) -> None:
    """Ready a kept copy for a second run with the working tree's tests: the mutants they
    had not killed are forgotten (killed ones stay killed, as tests were only added; timeouts
    stay timeouts, each costs minutes), and mutmut's record of which test covers what is
    dropped, so it is made again. A module of ``MODULES`` changed since (a fix) is copied
    again and all its mutants are made and tested again. ``skip_unchecked``: mutants the
    earlier run never got to are marked skipped, not run. Only ``modules`` are retested."""
    from mutmut.stats import status_by_exit_code

    for module in modules:  # a module fixed since: all its mutants made and tested again
        if (root / module).read_bytes() != (REPO / module).read_bytes():
            print(f"--reuse: {module} changed; all its mutants are tested again")
            shutil.copy2(REPO / module, root / module)
            for made in (module, f"{module}.meta", f"{module}.spans"):
                (root / "mutants" / made).unlink(missing_ok=True)
    shutil.rmtree(root / "tests")
    fresh = Path(tempfile.mkdtemp(prefix="grader-mutation-tests-"))
    try:
        copy_checkout(fresh)
        shutil.copytree(fresh / "tests", root / "tests")
    finally:
        shutil.rmtree(fresh)
    shutil.rmtree(root / "mutants" / "tests", ignore_errors=True)
    (root / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    for meta in (root / "mutants" / f"{module}.meta" for module in modules):
        if not meta.exists():
            continue
        data = json.loads(meta.read_text())
        skipped = 34 if skip_unchecked else None  # mutmut's exit code for "skipped"
        data["exit_code_by_key"] = {
            name: code if status_by_exit_code[code] in ("killed", "timeout", "skipped")
            else skipped if code is None else None
            for name, code in data["exit_code_by_key"].items()}
        meta.write_text(json.dumps(data, indent=4))


def write_config(root: Path, modules: list[str]) -> None:
    """mutmut's settings, as a setup.cfg of the copy (read when pyproject has no
    ``[tool.mutmut]``)."""
    tests = [t for t in TESTS if (root / t).exists()]
    selection = tests + [f"--deselect={node}" for node in DESELECT]

    def lines(values: list[str]) -> str:
        return "".join(f"\n    {v}" for v in values)

    (root / "setup.cfg").write_text(
        "[mutmut]\n"
        f"source_paths ={lines(['autograder', 'lecture_utils'])}\n"
        f"only_mutate ={lines(modules)}\n"
        f"also_copy ={lines(ALSO_COPY)}\n"
        f"pytest_add_cli_args_test_selection ={lines(selection)}\n"
        f"pytest_add_cli_args ={lines(['-p', 'no:xdist', '-p', 'no:randomly'])}\n")


def load_equivalent() -> dict[str, dict[str, str]]:
    """Mutant name -> {"mutated": the line as mutated, "reason": why it is equivalent}."""
    if not EQUIVALENT_FILE.exists():
        return {}
    entries = tomllib.loads(EQUIVALENT_FILE.read_text())["equivalent"]
    return {e["name"]: e for e in entries}


def mutated_lines(diff: str) -> list[str]:
    """The lines a mutant's diff adds, stripped."""
    return [line[1:].strip() for line in diff.splitlines()
            if line.startswith("+") and not line.startswith("+++")]


def diffs_of(root: Path, names: dict[str, str]) -> dict[str, str]:
    """Each mutant's diff (``names``: mutant -> its module's path), asked of mutmut in the
    copy (one process for all of them)."""
    if not names:
        return {}
    code = ("import json, sys\n"
            "from mutmut.mutation.diff_apply import get_diff_for_mutant\n"
            "names = json.load(sys.stdin)\n"
            "def diff(n, p):\n"
            "    try:\n"
            "        return get_diff_for_mutant(n, path=p)\n"
            "    except Exception:  # its mutated file was since rewritten\n"
            "        return ''\n"
            "json.dump({n: diff(n, p) for n, p in names.items()}, sys.stdout)\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=root, input=json.dumps(names),
                         capture_output=True, text=True, check=True)
    return json.loads(run.stdout)


def score(root: Path, modules: list[str]) -> tuple[list[ModuleScore], dict[str, str], list[str]]:
    """Per-module scores from mutmut's meta files, the survivors' diffs, and the entries of
    the equivalent list that no longer match a surviving mutant."""
    sys.path.insert(0, str(root))  # not needed for mutmut itself, harmless
    from mutmut.stats import status_by_exit_code

    equivalent = load_equivalent()
    scores: list[ModuleScore] = []
    survivors: dict[str, str] = {}
    for module in modules:
        meta = root / "mutants" / f"{module}.meta"
        codes = json.loads(meta.read_text())["exit_code_by_key"] if meta.exists() else {}
        row = ModuleScore(module, mutants=len(codes))
        for name, code in codes.items():
            status = status_by_exit_code[code]
            if status == "killed":
                row.killed += 1
            elif status == "survived":
                row.survivors.append(name)
            elif status == "timeout":
                row.timeouts += 1
            elif status in ("not checked", "skipped"):  # a run cut short, see --skip-unchecked
                row.not_run += 1
            else:
                row.other += 1
        survivors.update(dict.fromkeys(row.survivors, module))
        scores.append(row)
    diffs = diffs_of(root, survivors)
    dotted = tuple(m.removesuffix(".py").replace("/", ".") + "." for m in modules)
    stale = [name for name in equivalent if name not in diffs and name.startswith(dotted)]
    for row in scores:
        for name in list(row.survivors):
            entry = equivalent.get(name)
            if entry and entry["mutated"].strip() in mutated_lines(diffs[name]):
                row.equivalent += 1
                row.survivors.remove(name)
            elif entry:
                stale.append(name)
        row.survived = len(row.survivors)
    return scores, diffs, stale


def table(scores: list[ModuleScore]) -> str:
    """A markdown table, one row per module and a total."""
    head = ("| module | mutants | killed | survived | equivalent | timeouts | other | not run "
            "| score |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    total = ModuleScore("**all**")
    rows = []
    for r in [*scores, total]:
        if r is not total:
            for name in ("mutants", "killed", "survived", "equivalent", "timeouts", "other",
                         "not_run"):
                setattr(total, name, getattr(total, name) + getattr(r, name))
        rows.append(f"| {r.module} | {r.mutants} | {r.killed} | {r.survived} | {r.equivalent} "
                    f"| {r.timeouts} | {r.other} | {r.not_run} | {100 * r.score:.1f}% |")
    return head + "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="mutants tested side by side")
    parser.add_argument("--only", action="append", choices=MODULES, help="mutate only these")
    parser.add_argument("--survivors", type=Path, help="write the surviving mutants' diffs here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy")
    parser.add_argument("--reuse", type=Path, metavar="DIR",
                        help="a copy kept by an earlier run (--keep) of the same sources: "
                             "take the working tree's tests and test again only the mutants "
                             "they had not killed")
    parser.add_argument("--skip-unchecked", action="store_true",
                        help="with --reuse: leave the mutants the earlier run did not get to "
                             "unrun (counted as 'not run', outside the score)")
    parser.add_argument("--report", type=Path, metavar="DIR",
                        help="only print the table of a kept copy (an interrupted run too)")
    parser.add_argument("--tests-at", metavar="REF",
                        help="use tests/ as committed at this git ref (a baseline before new "
                             "tests), with the working tree's sources")
    args = parser.parse_args(argv)
    modules = args.only or MODULES

    started = time.monotonic()
    if args.report:
        scores, _, stale = score(args.report.resolve(), modules)
        print(table(scores))
        for name in stale:
            print(f"equivalent entry not counted (its mutant did not survive, or its line "
                  f"changed): {name}")
        return 0
    if args.reuse:
        root = args.reuse.resolve()
        args.keep = True
        reuse(root, modules, skip_unchecked=args.skip_unchecked)
    else:
        root = Path(tempfile.mkdtemp(prefix="grader-mutation-"))
    try:
        if not args.reuse:
            copy_checkout(root)
        if args.tests_at:
            tests_at(root, args.tests_at)
        write_config(root, modules)
        env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
                   PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONPATH", None)
        log = root / "mutmut.log"
        with log.open("w") as out:
            run = subprocess.run(["nice", "-n", "10", sys.executable, "-m", "mutmut", "run",
                                  f"--max-children={args.jobs}"],
                                 cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
        if run.returncode != 0:
            print(log.read_text()[-5000:], file=sys.stderr)
            print(f"mutmut run failed (exit {run.returncode}); copy kept at {root}",
                  file=sys.stderr)
            args.keep = True
            return 1
        scores, diffs, stale = score(root, modules)
        from importlib.metadata import version

        minutes = (time.monotonic() - started) / 60
        print(f"mutmut {version('mutmut')}, {args.jobs} jobs, {minutes:.1f} min\n")
        print(table(scores))
        for name in stale:
            print(f"equivalent entry not counted (its mutant did not survive, or its line "
                  f"changed): {name}")
        survivors = [n for r in scores for n in r.survivors]
        if args.survivors:
            args.survivors.write_text("\n\n".join(f"# {n}\n{diffs[n]}" for n in survivors) + "\n")
            print(f"{len(survivors)} survivors' diffs written to {args.survivors}")
        else:
            for name in survivors:
                print(f"survived: {name}")
        if args.keep:
            print(f"copy kept at {root}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
