"""What a notebook's setup cell finishes on Google Colab, once it has fetched the repository.

The cell (written by ``autograder.colab``) downloads the repository at the notebook's revision,
puts it on ``sys.path`` and calls ``finish``, which:

1. installs, with pip and quietly, the requirements in ``colab/requirements.txt`` (and
   ``colab/requirements-<language>.txt``) that are missing or older than their bound, holding
   every package the runtime has at its installed version (a constraint on each, torch, numpy,
   matplotlib, IPython, ipykernel and ipywidgets among them): pip adds packages, and where a
   new one would need a newer numpy it takes an older release of it, or fails, rather than
   change Colab's;
2. tells ``lecture_utils`` the notebook's language (``LECTURE_LANGUAGE``: Colab does not name
   the open notebook to its kernel as Jupyter does);
3. sends the kernel's temporary files (notebooks 08 and 09 write checkpoints and token files
   through ``tempfile``) to ``/content/cs336-files``, where Colab keeps a session's files and
   its file browser shows them;
4. loads ``%check_my_work``;
5. prints one line: what it did and how long the cell took.

Runs only on Colab (the cell checks); ``tests/test_colab_cells.py`` runs it with stand-ins.
Nothing is needed for plots or widgets: Colab shows matplotlib figures inline by default, and
its core widgets need no custom widget manager. Imports only the standard library, packaging
(a dependency of matplotlib, so on every Colab) and IPython.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tempfile
import time
from importlib.metadata import PackageNotFoundError, distributions, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from lecture_utils.i18n import ENVIRONMENT_VARIABLE

# Colab's own, which a notebook's pip install must never replace (upgrading IPython, ipykernel
# or ipywidgets breaks the runtime; torch, numpy and matplotlib are built for it). Every
# installed package is held (``installed_pins``); these are the ones that matter most.
# where the notebooks' temporary files go on Colab: beside the course, under /content
FILES_FOLDER = "cs336-files"
KEEP = ("torch", "numpy", "matplotlib", "ipython", "ipykernel", "ipywidgets")


def requirement_files(home: Path, language: str) -> list[Path]:
    """``colab/requirements.txt``, and the language's own list where there is one."""
    files = [home / "colab" / "requirements.txt", home / "colab" / f"requirements-{language}.txt"]
    return [path for path in files if path.is_file()]


def requirements(paths: list[Path]) -> list[str]:
    """The requirement lines of pip requirements files (comments and blank lines dropped)."""
    lines = (line.split("#", 1)[0].strip() for path in paths
             for line in path.read_text("utf-8").splitlines())
    return [line for line in lines if line]


def missing(wanted: list[str]) -> list[str]:
    """The requirements that no installed distribution satisfies."""
    found = []
    for line in wanted:
        requirement = Requirement(line)
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            found.append(line)
            continue
        if not requirement.specifier.contains(installed, prereleases=True):
            found.append(line)
    return found


def installed_pins(leave: frozenset[str] = frozenset()) -> list[str]:
    """``name==version`` of every installed distribution but those named in ``leave`` (the
    ones being installed, which may be there at a version outside their range): pip's
    constraints, so that an install changes nothing else. Where two share a name (Colab has
    Debian's packages beneath its own) the first on ``sys.path`` counts, as for Python's
    imports and pip; a version that is not PEP 440 (which pip would refuse as a constraint,
    failing the install) is left out."""
    pins, seen = [], set()
    for distribution in distributions():  # in sys.path order
        name = distribution.metadata["Name"]
        key = canonicalize_name(name) if name else None
        if key is None or key in seen or key in leave:
            continue
        seen.add(key)
        try:
            Version(distribution.version)
        except InvalidVersion:
            continue
        pins.append(f"{key}=={distribution.version}")
    return pins


def pip_install(wanted: list[str], keep: list[str], language: str = "en",
                options: tuple[str, ...] = ()) -> None:
    """``pip install`` ``wanted``, quietly, with ``keep`` as constraints and pip's ``options``
    (a test's ``--dry-run``); RuntimeError saying what to do, with pip's words, if it fails."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", prefix="colab-keep-") as constraints:
        constraints.write("".join(f"{pin}\n" for pin in keep))
        constraints.flush()
        run = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                              "--disable-pip-version-check", "--constraint", constraints.name,
                              *options, *wanted], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{pip_failed(wanted, language)}\n\n{run.stderr[-3000:]}")
    importlib.invalidate_caches()  # so this kernel finds what was just installed


def pip_failed(wanted: list[str], language: str) -> str:
    """What to do when pip could not install ``wanted`` (no network, or no release of one
    that fits Colab's packages as they are)."""
    names = " ".join(wanted)
    if language == "zh-CN":
        return (f"pip 无法安装 {names}（Colab 已有的包都固定在现有版本，pip 不得改动）。"
                "请确认运行时已联网，然后重新运行本单元；若仍然失败，请把下面 pip 的输出告知"
                "课程维护者。")
    return (f"pip could not install {names} (every package Colab has is held at its version, "
            "and pip may change none). Check that the runtime is online, then run this cell "
            "again; if it fails again, tell the course's maintainers what pip said below.")


def load_check_my_work() -> bool:
    """Load the ``%check_my_work`` extension into the running IPython; False outside one."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        return False
    shell.extension_manager.load_extension("lecture_utils.self_check")  # again: a no-op
    return True


def summary(language: str, revision: str, fetched: bool, installed: list[str],
            loaded: bool, seconds: float) -> str:
    """The cell's one line, in the notebook's language (English where there is none)."""
    names = [Requirement(line).name for line in installed]
    if language == "zh-CN":
        return "Colab 设置：" + "；".join([
            f"已获取课程代码 {revision}" if fetched else f"课程代码 {revision} 已就绪",
            f"已安装 {'、'.join(names)}" if names else "无需安装",
            *(["已加载 %check_my_work"] if loaded else []),
        ]) + f"（用时 {seconds:.1f} 秒）"
    return "Colab setup: " + "; ".join([
        f"fetched the course at {revision}" if fetched else f"the course at {revision} is here",
        f"installed {', '.join(names)}" if names else "nothing to install",
        *(["%check_my_work loaded"] if loaded else []),
    ]) + f" ({seconds:.1f} s)"


def finish(home: Path, *, language: str, revision: str, started: float,
           fetched: bool) -> None:
    """Everything the setup cell does after fetching (see the module docstring)."""
    to_install = missing(requirements(requirement_files(home, language)))
    if to_install:
        asked = frozenset(canonicalize_name(Requirement(line).name) for line in to_install)
        pip_install(to_install, installed_pins(asked), language)
    os.environ[ENVIRONMENT_VARIABLE] = language
    keep_files_in(home.parent / FILES_FOLDER)
    loaded = load_check_my_work()
    print(summary(language, revision, fetched, to_install, loaded, time.monotonic() - started))


def keep_files_in(folder: Path) -> None:
    """Make this kernel's temporary files (the checkpoints and token files notebooks 08 and
    09 write through ``tempfile``) land in ``folder``, beside the course under ``/content``,
    where Colab's file browser shows them, rather than in ``/tmp``."""
    if not folder.is_dir():
        folder.mkdir(parents=True)
    tempfile.tempdir = str(folder)
