"""``python -m autograder gradescope ASSIGNMENT -o autograder.zip``: the zip Gradescope builds
its autograder image from.

Gradescope wants ``setup.sh`` and ``run_autograder`` at the zip's root and unpacks it to
``/autograder/source`` (https://gradescope-autograders.readthedocs.io/en/latest/specs/). The
zip holds:

- ``setup.sh``: installs Python (``PYTHON``) beside the system one, CPU-only torch and the
  grader's requirements, each pinned to what this grader runs with (``requirements.txt``);
- ``run_autograder``: runs ``autograder.gradescope.run``;
- ``grader/``: this grader's packages, ``autograder`` and ``lecture_utils``, as they are;
- ``key/key.json`` (the checks as data, ``autograder.gradescope.key``: no solutions) and
  ``key/config.json`` (the assignment, when hidden checks' verdicts are shown, the grader's
  version).

Byte-for-byte the same zip for the same sources (fixed timestamps and order). Trusts the
repository; imports ``autograder.course`` and ``autograder.gradescope.key``.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

from autograder.course import REPO, instructor_notebook
from autograder.gradescope import key, report
from autograder.limits import Limits

PYTHON = "3.11"  # apt's python3.11 on Ubuntu 22.04; the grader supports 3.11-3.13
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"  # PyTorch's CPU-only wheels
# What the grader and the notebooks import, besides torch (pinned to the versions here)
REQUIREMENTS = ("numpy", "nbformat", "ipython", "matplotlib", "ipywidgets", "einops",
                "jaxtyping", "beartype", "pylopdf-fonts-zh-cn")
PACKAGES = ("autograder", "lecture_utils")
TEMPLATES = Path(__file__).parent / "templates"
_EPOCH = (2020, 1, 1, 0, 0, 0)  # every entry's timestamp, so that a rebuild is identical


@dataclass
class Built:
    path: Path
    files: int
    bytes: int
    exercises: int
    hidden_exercises: int
    max_score: float


def grader_version() -> str:
    """The project's version and, in a git checkout, its commit (``+dirty`` if changed)."""
    version = importlib.metadata.version("cs336-lecture2-notebooks")
    try:
        commit = subprocess.run(["git", "describe", "--always", "--dirty=+dirty"], cwd=REPO,
                                capture_output=True, text=True, timeout=30,
                                check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return version
    return f"{version} ({commit})" if commit else version


def torch_requirement() -> str:
    """``torch==X.Y.Z``, the release this grader runs with, without its local tag (+cpu):
    the CPU index serves that release for every platform."""
    return "torch==" + importlib.metadata.version("torch").split("+")[0]


def requirements() -> list[str]:
    return [f"{name}=={importlib.metadata.version(name)}" for name in REQUIREMENTS]


def budget_seconds(limits: Limits) -> int:
    """How long run_autograder lets the grader run: the fast and the full run at their limit,
    plus three minutes to start the sandbox and judge. Gradescope's timeout must be above it
    (its default, 10 minutes, is above the default 540 s)."""
    return int(2 * limits.submission_seconds + 180)


def _grader_files() -> list[tuple[str, Path]]:
    files = []
    for package in PACKAGES:
        folder = REPO / package
        for path in sorted(folder.rglob("*")):
            parts = path.relative_to(REPO).parts
            if path.is_file() and "__pycache__" not in parts and path.suffix != ".pyc":
                files.append(("grader/" + "/".join(parts), path))
    return files


def _fill(template: str, values: dict[str, str]) -> str:
    text = (TEMPLATES / template).read_text(encoding="utf-8")
    for name, value in values.items():
        text = text.replace(f"@@{name}@@", value)
    if "@@" in text:
        raise ValueError(f"{template}: a placeholder was left unfilled")
    return text


def _add(archive: zipfile.ZipFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.external_attr = (0o100000 | mode) << 16  # a regular file with these permissions
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def build_zip(assignment: str, out: Path,
              hidden_visibility: str = report.DEFAULT_HIDDEN_VISIBILITY,
              limits: Limits | None = None) -> Built:
    """Write the autograder zip of ``assignment`` to ``out``; ``limits`` are ``check``'s
    unless given."""
    if hidden_visibility not in report.VISIBILITIES:
        raise ValueError(f"hidden_visibility must be one of {', '.join(report.VISIBILITIES)}")
    answer_key = key.dump(instructor_notebook(assignment))
    spec = key.load(answer_key)
    version = grader_version()
    pins = requirements()
    limits = limits or Limits()
    values = {"SECONDS": str(budget_seconds(limits)), "ASSIGNMENT": assignment,
              "GRADER_VERSION": version, "PYTHON": PYTHON,
              "TORCH": torch_requirement(), "TORCH_INDEX": TORCH_INDEX,
              "REQUIREMENTS": ", ".join(pins),
              "FALLBACK_JSON": json.dumps(report.grader_error(spec.max_score, 0), indent=2)}
    config = {"assignment": assignment, "hidden_visibility": hidden_visibility,
              "grader_version": version, "python": PYTHON, "torch": torch_requirement(),
              "worker": "auto", "limits": asdict(limits)}
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    count = 0
    with zipfile.ZipFile(partial, "w") as archive:
        _add(archive, "setup.sh", _fill("setup.sh", values).encode(), 0o755)
        _add(archive, "run_autograder", _fill("run_autograder", values).encode(), 0o755)
        _add(archive, "requirements.txt", ("\n".join(pins) + "\n").encode())
        _add(archive, "key/key.json", json.dumps(answer_key, indent=1).encode())
        _add(archive, "key/config.json", json.dumps(config, indent=2).encode())
        count = 5
        for name, path in _grader_files():
            _add(archive, name, path.read_bytes())
            count += 1
    partial.replace(out)
    hidden = sum(any(c.hidden) for c in spec.checks.values())
    return Built(out, count, out.stat().st_size, len(spec.checks), hidden, spec.max_score)
