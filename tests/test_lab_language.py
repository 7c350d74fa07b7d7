"""scripts/lab.sh --lang: each edition (notebooks/, notebooks-zh-CN/) has its own working copy
(workspace/, workspace-zh-CN/), filled by the same never-overwrite copy; an unknown language
stops before JupyterLab and names the languages there are."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK = Path("02_strides_and_views") / "02_strides_and_views.ipynb"


def _repository(root: Path) -> Path:
    """A stand-in repository: the real lab.sh with both editions' folders (one small notebook
    each), an empty setup.sh, and a `jupyter` that only writes down how it was started."""
    repo = root / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "lab.sh", repo / "scripts" / "lab.sh")
    shutil.copytree(REPO / "scripts" / "lab-config", repo / "scripts" / "lab-config")
    (repo / "scripts" / "setup.sh").write_text("")
    for release, text in (("notebooks", "english"), ("notebooks-zh-CN", "中文")):
        (repo / release / NOTEBOOK).parent.mkdir(parents=True)
        (repo / release / NOTEBOOK).write_text(f'{{"edition": "{text}"}}', "utf-8")
    bin_ = repo / ".venv" / "bin"
    bin_.mkdir(parents=True)
    (bin_ / "python").write_text(
        f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" "$@"\n')
    (bin_ / "jupyter").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{root}/jupyter-args"\n')
    for script in bin_.iterdir():
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return repo


def _lab(repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("LAB_WORKSPACE", "LAB_LANGUAGE")}
    return subprocess.run(["bash", "scripts/lab.sh", *args], cwd=repo, capture_output=True,
                          text=True, timeout=60, env={**environment, **env})


def _jupyter_args(root: Path) -> list[str]:
    # less --allow-root, which lab.sh adds when run as root (as CI is)
    return [a for a in (root / "jupyter-args").read_text().splitlines() if a != "--allow-root"]


def test_lang_zh_cn_opens_a_chinese_working_copy(tmp_path):
    repo = _repository(tmp_path)

    run = _lab(repo, "--lang", "zh-CN", "--no-browser", "--port", "8899")

    assert run.returncode == 0, run.stderr
    assert (repo / "workspace-zh-CN" / NOTEBOOK).read_text("utf-8") == '{"edition": "中文"}'
    assert not (repo / "workspace").exists()
    assert _jupyter_args(tmp_path) == ["lab", "--ServerApp.root_dir=workspace-zh-CN",
                                       "--no-browser", "--port", "8899"]


def test_the_chinese_copy_keeps_the_students_work(tmp_path):
    repo = _repository(tmp_path)
    theirs = repo / "workspace-zh-CN" / NOTEBOOK
    theirs.parent.mkdir(parents=True)
    theirs.write_text("my answers")

    run = _lab(repo, "--lang=zh-CN", LAB_WORKSPACE="")

    assert run.returncode == 0, run.stderr
    assert theirs.read_text() == "my answers"


def test_environment_variables_choose_language_and_folder(tmp_path):
    repo = _repository(tmp_path)

    assert _lab(repo, LAB_LANGUAGE="zh-CN", LAB_WORKSPACE="mine").returncode == 0
    assert (repo / "mine" / NOTEBOOK).read_text("utf-8") == '{"edition": "中文"}'
    assert _jupyter_args(tmp_path)[1] == "--ServerApp.root_dir=mine"

    # --lang wins over LAB_LANGUAGE; English is today's workspace/
    assert _lab(repo, "--lang", "en", LAB_LANGUAGE="zh-CN").returncode == 0
    assert (repo / "workspace" / NOTEBOOK).read_text() == '{"edition": "english"}'
    assert _jupyter_args(tmp_path)[1] == "--ServerApp.root_dir=workspace"


def test_unknown_language_names_the_available_ones_and_stops(tmp_path):
    repo = _repository(tmp_path)
    for language in ("fr", "../notebooks", "zh-CN/../..", ""):
        run = _lab(repo, "--lang", language)

        assert run.returncode == 2, language
        assert f"no notebooks in language '{language}'" in run.stderr
        assert "available: en, zh-CN" in run.stderr
    assert not (tmp_path / "jupyter-args").exists()
    assert sorted(p.name for p in repo.iterdir()) == [".venv", "notebooks", "notebooks-zh-CN",
                                                      "scripts"]

    missing = _lab(repo, "--lang")
    assert missing.returncode == 2 and "--lang needs a language" in missing.stderr


def test_git_ignores_every_working_copy():
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", "workspace/a.ipynb", "workspace-zh-CN/a.ipynb"],
        cwd=REPO, capture_output=True, text=True)
    assert ignored.stdout.split() == ["workspace/a.ipynb", "workspace-zh-CN/a.ipynb"]
