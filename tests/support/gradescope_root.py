"""A directory laid out as Gradescope's /autograder, to run an autograder zip without
Gradescope. Test support, not product.

Gradescope unpacks the zip to ``source/``, puts the submission in ``submission/`` and its
metadata in ``submission_metadata.json``, and reads ``results/results.json``
(https://gradescope-autograders.readthedocs.io/en/latest/specs/).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import nbformat

METADATA = {"id": 1, "created_at": "2026-12-06T12:00:00.000000-08:00",
            "assignment": {"title": "test", "total_points": "0.0", "id": 1, "course_id": 1,
                           "due_date": "2026-12-13T23:00:00.000000-08:00",
                           "release_date": "2026-12-01T00:00:00.000000-08:00",
                           "late_due_date": None, "group_size": None,
                           "group_submission": False},
            "submission_method": "upload",
            "users": [{"email": "student@example.com", "id": 1, "name": "A Student"}],
            "previous_submissions": []}


def unpack(archive: Path, parent: Path | None = None) -> Path:
    """A fresh root (mode 0755, so that an unprivileged user can reach the grader) holding
    the zip in ``source/`` with its files' modes, an empty submission and the metadata."""
    root = Path(tempfile.mkdtemp(prefix="gradescope-", dir=parent))
    root.chmod(0o755)
    with zipfile.ZipFile(archive) as opened:
        for info in opened.infolist():
            target = root / "source" / info.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(opened.read(info))
            target.chmod((info.external_attr >> 16) & 0o777 or 0o644)
    for folder in (root / "source").rglob("*"):
        if folder.is_dir():
            folder.chmod(0o755)
    (root / "source").chmod(0o755)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    (root / "submission_metadata.json").write_text(json.dumps(METADATA), encoding="utf-8")
    return root


def submit(root: Path, files: dict[str, nbformat.NotebookNode | str | bytes]) -> None:
    """Replace the submission with ``files`` (name → notebook, text or bytes)."""
    folder = root / "submission"
    shutil.rmtree(folder)
    folder.mkdir()
    for name, content in files.items():
        path = folder / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            nbformat.write(content, path)
    results = root / "results" / "results.json"
    if results.exists():
        results.unlink()


def run_autograder(root: Path, timeout: float = 600, **env: str
                   ) -> tuple[subprocess.CompletedProcess[str], dict]:
    """Run ``source/run_autograder`` on ``root`` with this Python as the grader's; its
    process and the results.json it left."""
    environ = {**os.environ, "CS336_GRADER_PYTHON": sys.executable, **env}
    done = subprocess.run(["bash", str(root / "source" / "run_autograder"), str(root)],
                          env=environ, cwd=root, capture_output=True, text=True,
                          timeout=timeout)
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    return done, results
