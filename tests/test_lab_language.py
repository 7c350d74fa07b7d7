"""scripts/lab.sh --lang: each edition (notebooks/, notebooks-zh-CN/) has its own working copy
(workspace/, workspace-zh-CN/), filled by the same never-overwrite copy; an unknown language
stops before JupyterLab and names the languages there are. The lab's configuration serves the
course's Chinese font to the student's browser (read as configuration; no server started)."""

from __future__ import annotations

import os
import re
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


LAB_CONFIG = REPO / "scripts" / "lab-config"
FONT_FAMILY_VARIABLES = ("--jp-ui-font-family", "--jp-content-font-family",
                         "--jp-code-font-family-default")


def _font_lists(css: str) -> dict[str, list[str]]:
    return {name: [f.strip() for f in value.split(",")]
            for name, value in re.findall(r"(--jp-[\w-]+-font-family(?:-default)?):([^;]*);", css)}


def test_the_lab_serves_the_course_font_to_chinese_text_only():
    from jupyter_core.paths import jupyter_config_dir
    from traitlets.config.loader import PyFileConfigLoader

    from lecture_utils.plotting import packaged_cjk_font

    config = PyFileConfigLoader("jupyter_server_config.py", path=str(LAB_CONFIG)).load_config()
    assert config.LabApp.custom_css is True
    served = [Path(p) for p in
              config.ServerApp.tornado_settings.get_value({})["static_custom_path"]]
    # the user's own custom.css, if any, is found first
    assert served[0] == Path(jupyter_config_dir()) / "custom"
    css = next(p / "custom.css" for p in served if (p / "custom.css").is_file())
    assert css == LAB_CONFIG / "custom" / "custom.css"
    text = css.read_text("utf-8")

    font = packaged_cjk_font()
    assert font is not None, "setup installs pylopdf-fonts-zh-cn"
    urls = re.findall(r'url\("([^"]+)"\)', text)
    assert urls == [Path(font).name]  # the file the browser fetches is the installed font
    assert any((p / urls[0]).is_file() for p in served)

    face = re.search(r"@font-face\s*\{([^}]*)\}", text).group(1)
    family = re.search(r'font-family:\s*("[^"]+")', face).group(1)
    ranges = re.findall(r"U\+([0-9A-F]+)-([0-9A-F]+)", face)
    assert ("4E00", "9FFF") in ranges  # the CJK ideographs
    assert all(int(low, 16) >= 0x2E80 for low, _ in ranges)  # no Latin, digits or symbols

    # each list is JupyterLab's own, unchanged, with the course font added last
    theme = (Path(sys.prefix) / "share" / "jupyter" / "lab" / "themes" / "@jupyterlab" /
             "theme-light-extension" / "index.css").read_text("utf-8")
    ours, lab = _font_lists(text), _font_lists(theme)
    assert set(ours) == set(FONT_FAMILY_VARIABLES)
    for name, fonts in ours.items():
        assert fonts[-1] == family
        assert " ".join(fonts[:-1]) == " ".join(lab[name]), f"JupyterLab changed {name}"
