"""The student's working copy (workspace/): filled from notebooks/ by scripts/lab.sh, never
overwritten, and git-ignored, so running cells changes no tracked file and `git pull` works."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course import RELEASE, REPO
from autograder.notebook import read_notebook
from autograder.workspace import WorkspaceError, main, sync_workspace

RELEASED = sorted(p.relative_to(RELEASE) for p in RELEASE.glob("*/*.ipynb"))


def _run_cells(path: Path) -> None:
    """What running a notebook and JupyterLab's autosave do to the file: outputs, counts."""
    notebook = nbformat.read(path, as_version=4)
    for n, cell in enumerate(c for c in notebook.cells if c.cell_type == "code"):
        cell.execution_count = n + 1
        cell.outputs = [nbformat.v4.new_output("stream", text=f"output {n}\n")]
    notebook.cells[0].source += "\n\nmy notes"
    nbformat.write(notebook, path)


@pytest.fixture
def release(tmp_path: Path) -> Path:
    shutil.copytree(RELEASE, tmp_path / "release")
    return tmp_path / "release"


def test_first_sync_copies_every_released_notebook(tmp_path):
    workspace = tmp_path / "workspace"

    copied = sync_workspace(RELEASE, workspace)

    assert len(RELEASED) >= 2
    assert copied == [workspace / p for p in RELEASED]
    for p in RELEASED:
        assert (workspace / p).read_bytes() == (RELEASE / p).read_bytes()


def test_a_students_work_survives_the_next_sync(release, tmp_path):
    workspace = tmp_path / "workspace"
    sync_workspace(release, workspace)
    mine = workspace / RELEASED[0]
    _run_cells(mine)
    edited = mine.read_bytes()
    (workspace / RELEASED[1]).unlink()  # deleted to get a fresh copy
    (release / RELEASED[0]).write_text("{}")  # a release that changed an existing notebook

    copied = sync_workspace(release, workspace)

    assert copied == [workspace / RELEASED[1]]
    assert mine.read_bytes() == edited


def test_notebooks_added_to_the_release_appear(release, tmp_path):
    workspace = tmp_path / "workspace"
    sync_workspace(release, workspace)
    new = release / "99_new_lecture" / "99_new_lecture.ipynb"  # what a later git pull brings
    new.parent.mkdir()
    shutil.copy(release / RELEASED[0], new)
    (release / RELEASED[0].parent / "data.csv").write_text("a,b\n")
    (release / RELEASED[0].parent / ".ipynb_checkpoints").mkdir()  # hidden: not copied
    (release / RELEASED[0].parent / ".ipynb_checkpoints" / "x-checkpoint.ipynb").write_text("{}")

    copied = sync_workspace(release, workspace)

    assert copied == [workspace / RELEASED[0].parent / "data.csv",
                      workspace / "99_new_lecture" / "99_new_lecture.ipynb"]
    assert (workspace / "99_new_lecture" / "99_new_lecture.ipynb").read_bytes() == new.read_bytes()
    assert not (workspace / RELEASED[0].parent / ".ipynb_checkpoints").exists()


def test_a_file_in_the_workspaces_place_is_a_clear_error(tmp_path, capsys):
    workspace = tmp_path / "workspace"
    workspace.write_text("my notes")

    with pytest.raises(WorkspaceError, match=f"{workspace}: is a file, not a folder.*rename"):
        sync_workspace(RELEASE, workspace)
    assert main([str(RELEASE), str(workspace)]) == 2
    assert capsys.readouterr().err.startswith(f"lab: {workspace}: is a file, not a folder")
    assert workspace.read_text() == "my notes"

    workspace.unlink()
    workspace.symlink_to(tmp_path / "gone")
    with pytest.raises(WorkspaceError, match="symbolic link to nothing"):
        sync_workspace(RELEASE, workspace)
    assert not (tmp_path / "gone").exists()


def test_links_inside_the_workspace_are_never_written_through(tmp_path):
    workspace, elsewhere = tmp_path / "workspace", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (workspace / RELEASED[1].parent).mkdir(parents=True)
    (workspace / RELEASED[0].parent).symlink_to(elsewhere, target_is_directory=True)
    (workspace / RELEASED[1]).symlink_to(tmp_path / "nothing.ipynb")  # a broken link

    copied = sync_workspace(RELEASE, workspace)

    assert copied == [workspace / p for p in RELEASED[2:]]  # only the notebooks not linked
    assert list(elsewhere.iterdir()) == []
    assert not (tmp_path / "nothing.ipynb").exists()
    assert (workspace / RELEASED[1]).is_symlink()


def test_main_says_where_the_working_copy_is_and_what_it_added(tmp_path, capsys):
    workspace = tmp_path / "workspace"

    assert main([str(RELEASE), str(workspace)]) == 0
    first = capsys.readouterr().out
    assert main([str(RELEASE), str(workspace)]) == 0
    second = capsys.readouterr().out

    assert first.count("\n") == 1 and f"{workspace}/" in first
    assert all(str(p) in first for p in RELEASED)
    assert second.rstrip().endswith("nothing new")


def _checkout(root: Path) -> Path:
    """This working tree's files in a fresh git repository, with stand-ins for the environment:
    setup is not the subject here, and `jupyter` only writes down how lab.sh started it."""
    clone = root / "clone"
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=REPO, capture_output=True, text=True, check=True).stdout
    for name in filter(None, files.split("\0")):
        if (REPO / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, clone / name)
    (clone / "scripts" / "setup.sh").write_text("")
    bin_ = clone / ".venv" / "bin"
    bin_.mkdir(parents=True)
    (bin_ / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bin_ / "jupyter").write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$PWD" "$JUPYTER_CONFIG_PATH" "$@" > "{root}/jupyter-args"\n')
    for script in bin_.iterdir():
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    _git(clone, "init", "-q")
    _git(clone, "add", "-A")
    _git(clone, "commit", "-q", "-m", "release")
    return clone


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t",
                           "-c", "commit.gpgsign=false", *args],
                          cwd=repo, capture_output=True, text=True, check=True).stdout


def _lab(clone: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "scripts/lab.sh", "--no-browser"], cwd=clone,
                          capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in os.environ.items() if k != "LAB_WORKSPACE"})


def test_lab_sh_works_in_workspace_and_leaves_the_checkout_clean(tmp_path):
    clone = _checkout(tmp_path)
    released = {p: (clone / "notebooks" / p).read_bytes() for p in RELEASED}

    first = _lab(clone)

    assert first.returncode == 0, first.stderr
    assert "your notebooks are in workspace/" in first.stdout
    assert all(str(p) in first.stdout for p in RELEASED)
    cwd, config_path, *args = (tmp_path / "jupyter-args").read_text().splitlines()
    assert Path(cwd) == clone
    assert config_path.split(":")[0] == str(clone / "scripts" / "lab-config")
    assert args[:2] == ["lab", "--ServerApp.root_dir=workspace"] and args[-1] == "--no-browser"

    # The student runs every notebook; JupyterLab autosaves and keeps checkpoints.
    for p in RELEASED:
        _run_cells(clone / "workspace" / p)
        checkpoints = clone / "workspace" / p.parent / ".ipynb_checkpoints"
        checkpoints.mkdir()
        shutil.copy(clone / "workspace" / p, checkpoints / f"{p.stem}-checkpoint.ipynb")
    worked = {p: (clone / "workspace" / p).read_bytes() for p in RELEASED}
    assert _git(clone, "status", "--porcelain") == ""

    # A later `git pull` brings a new notebook: the next start adds it and keeps their work.
    new = Path("99_new_lecture") / "99_new_lecture.ipynb"
    (clone / "notebooks" / new).parent.mkdir()
    shutil.copy(clone / "notebooks" / RELEASED[0], clone / "notebooks" / new)
    _git(clone, "add", "-A")
    _git(clone, "commit", "-q", "-m", "next lecture")

    second = _lab(clone)

    assert second.returncode == 0, second.stderr
    assert second.stdout.rstrip().endswith(f"new: {new}")
    assert (clone / "workspace" / new).exists()
    assert {p: (clone / "workspace" / p).read_bytes() for p in RELEASED} == worked
    assert _git(clone, "status", "--porcelain") == ""
    # notebooks/ is still the release the tests check (test_release.py): same bytes, no outputs
    assert {p: (clone / "notebooks" / p).read_bytes() for p in RELEASED} == released
    for p in RELEASED:
        notebook = read_notebook(clone / "notebooks" / p)
        assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code")


def test_a_file_named_workspace_stops_lab_sh_before_jupyter(tmp_path):
    clone = _checkout(tmp_path)
    (clone / "workspace").write_text("not a folder")

    run = _lab(clone)

    assert run.returncode == 2
    assert "lab: workspace: is a file, not a folder" in run.stderr
    assert not (tmp_path / "jupyter-args").exists()
    assert (clone / "workspace").read_text() == "not a folder"
