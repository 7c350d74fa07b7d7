"""Build a made-up class, grade it, and write its class report: the instructor's view of
``python -m autograder stats`` on something that looks like a real course.

Each student hands in the released notebook with every exercise answered from
``tests/answers/<assignment>.py``: the instructor's solution or one of the RIGHT variants,
one of the WRONG ones (each exercise has its own error rate; the first wrong answer listed is
the most common), a slip nobody listed (one of three mutants ``autograder.audit`` makes of
the solution: a changed operator, a dropped factor), or nothing (the stub left as released).
The listed mistakes are the ones the course's hints were seeded from; the slips are what a
hint does not cover yet, as in a real class. Students differ in ability, so a
student who misses one exercise is likelier to miss the others, as in a real class. All of it
is drawn from ``--seed``.

    .venv/bin/python scripts/demo_class.py                         # 300 students, notebook 00
    .venv/bin/python scripts/demo_class.py --students 40 --course /tmp/demo \\
        --screenshot docs/images/class-report.png

The course directory is an ordinary nbgrader course (``nbgrader_config.py``, ``source/``,
``submitted/``, ``gradebook.db``); the script runs ``nbgrader generate_assignment``, then
``python -m autograder grade`` and ``python -m autograder stats`` on it, and prints how long
each took. ``--screenshot`` saves the report as a PNG with headless Chromium. It writes
student code of its own making only, and grades it sandboxed where bubblewrap is available.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.audit.mutants import mutants_of  # noqa: E402
from autograder.course import NBGRADER_CONFIG, instructor_notebook  # noqa: E402
from autograder.course_dirs import nbgrader_env  # noqa: E402
from autograder.notebook import grade_id, nbgrader_meta, read_notebook  # noqa: E402
from autograder.sandbox.bwrap import sandbox_available  # noqa: E402

SCREENSHOT_BYTES = 150_000  # what the docs' images may weigh (tests/test_readme_images.py)
BLANK_RATE = 0.04  # students who leave an exercise as released
SLIP_SHARE = 0.25  # of the wrong answers: slips (mutants) rather than listed mistakes
SLIPS = 3  # different slips per exercise, so that each is made by several students


def answers(assignment: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """RIGHT and WRONG of ``tests/answers/<assignment>.py``: solution grade_id -> sources."""
    path = REPO / "tests" / "answers" / f"{assignment}.py"
    spec = importlib.util.spec_from_file_location(f"answers_{assignment}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.RIGHT, module.WRONG


def make_course(root: Path, assignment: str) -> None:
    """An nbgrader course holding ``assignment``, registered in its gradebook."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "nbgrader_config.py").write_text(
        f"c = get_config()\nload_subconfig({str(NBGRADER_CONFIG)!r})\n"
        f"c.CourseDirectory.root = {str(root)!r}\n"
        "c.CourseDirectory.source_directory = 'source'\n"
        "c.CourseDirectory.release_directory = 'release'\n", encoding="utf-8")
    source = root / "source" / assignment
    source.mkdir(parents=True, exist_ok=True)
    shutil.copy(instructor_notebook(assignment), source / f"{assignment}.ipynb")
    subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", assignment,
                    "--force"], cwd=root, env=nbgrader_env(), check=True,
                   capture_output=True, text=True)


def make_class(root: Path, assignment: str, students: int, seed: int) -> dict[str, int]:
    """Write ``students`` submissions into the course at ``root`` (made by ``make_course``);
    returns how many answers of each kind were handed in."""
    rng = random.Random(seed)
    right, wrong = answers(assignment)
    # the course's own copies: its answer key, and the release nbgrader made from it
    source = read_notebook(root / "source" / assignment / f"{assignment}.ipynb")
    solutions = {grade_id(c): c.source for c in source.cells if nbgrader_meta(c).get("solution")}
    released = read_notebook(root / "release" / assignment / f"{assignment}.ipynb")
    # each exercise its own share of wrong answers, from easy to hard
    error_rate = {gid: rng.uniform(0.1, 0.5) for gid in solutions}
    slips = {}
    for gid in sorted(solutions):
        mutants = mutants_of(solutions[gid])
        slips[gid] = [m.source for m in rng.sample(mutants, min(SLIPS, len(mutants)))]
    kinds = {"right": 0, "wrong": 0, "slip": 0, "blank": 0}
    for number in range(1, students + 1):
        ability = rng.random()
        notebook = json.loads(json.dumps(released))  # a deep copy, as plain JSON
        for cell in notebook["cells"]:
            gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if gid not in solutions or not cell["metadata"]["nbgrader"].get("solution"):
                continue
            draw = rng.random()
            weakness = 2 * (1 - ability)  # 0 for the strongest student, 2 for the weakest
            if draw < BLANK_RATE * weakness:
                kinds["blank"] += 1
                continue  # the released stub: raises NotImplementedError
            if draw < error_rate[gid] * weakness and slips[gid] \
                    and rng.random() < SLIP_SHARE:
                cell["source"] = rng.choice(slips[gid])
                kinds["slip"] += 1
            elif draw < error_rate[gid] * weakness and wrong.get(gid):
                options = wrong[gid]  # the first listed is the most common mistake
                weights = [3] + [1] * (len(options) - 1)
                cell["source"] = rng.choices(options, weights)[0]
                kinds["wrong"] += 1
            else:
                cell["source"] = rng.choice([solutions[gid], *right.get(gid, [])])
                kinds["right"] += 1
        folder = root / "submitted" / f"student-{number:03d}" / assignment
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{assignment}.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    return kinds


def screenshot(report: Path, target: Path, width: int = 1100, height: int = 1700) -> None:
    """The top of the report as a PNG under SCREENSHOT_BYTES (a palette image if needed)."""
    from PIL import Image

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("no Chromium on PATH (apt install chromium) for --screenshot")
    raw = target.with_suffix(".raw.png")
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", f"--window-size={width},{height}",
                    f"--screenshot={raw}", report.as_uri()], check=True, capture_output=True,
                   timeout=120)
    with Image.open(raw) as image:
        image = image.convert("RGB")
        for colours in (256, 128, 64, 32):
            image.quantize(colours).save(target, optimize=True)
            if target.stat().st_size <= SCREENSHOT_BYTES:
                break
    raw.unlink()


def _run(label: str, command: list[str]) -> float:
    started = time.perf_counter()
    run = subprocess.run(command, env=nbgrader_env())
    seconds = time.perf_counter() - started
    if run.returncode not in (0, 3):  # 3: some submissions have no final grade
        raise SystemExit(f"{label} failed (exit {run.returncode})")
    print(f"{label}: {seconds:.1f} s", flush=True)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--assignment", default="00_napkin_math")
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--course", type=Path,
                        help="course directory to make (default: a new temporary folder)")
    parser.add_argument("--screenshot", type=Path, help="save the report's top as this PNG")
    args = parser.parse_args(argv)
    root = (args.course or Path(tempfile.mkdtemp(prefix="demo-class-"))).resolve()
    if root.exists() and any(root.iterdir()):
        raise SystemExit(f"{root} is not empty: give a new or empty folder")
    started = time.perf_counter()
    make_course(root, args.assignment)
    kinds = make_class(root, args.assignment, args.students, args.seed)
    print(f"course {root}: {args.students} students; answers {kinds} "
          f"(built in {time.perf_counter() - started:.1f} s)", flush=True)
    sandboxed, _ = sandbox_available()
    grade = [sys.executable, "-m", "autograder", "grade", args.assignment, "--course", str(root),
             "--jobs", str(args.jobs), "--no-progress",
             *([] if sandboxed else ["--unsandboxed"])]  # (the script's own code only)
    _run("grade", grade)
    _run("stats", [sys.executable, "-m", "autograder", "stats", args.assignment, "--course",
                   str(root), "--no-progress"])
    report = root / "stats" / args.assignment / "report.html"
    print(f"report: {report}")
    if args.screenshot:
        screenshot(report, args.screenshot.resolve())
        print(f"screenshot: {args.screenshot} ({args.screenshot.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
