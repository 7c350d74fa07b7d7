"""The Colab twin for tests: Colab's Jupyter stack in a cached virtual environment.

`twin_python` builds the twin (scripts/colab_twin.sh; minutes once, then cached outside the
repository) and returns its python. `scratch_twin` gives a test its own copy of it (hard
links, a second; deleted afterwards) where a notebook's setup cell may pip install, so the
cached twin always stays as Colab's pins say. `twin_env` is the environment a twin process
runs in: nothing of the project's .venv, Jupyter's and IPython's user folders in a scratch
folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "colab_twin.sh"
PINS = REPO / "tests" / "colab" / "colab-pins.txt"
BUILD_SECONDS = 1200  # a first build on a busy 2-core machine


def twin_python() -> Path:
    """The twin's python, built (or found in the cache) by scripts/colab_twin.sh."""
    run = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True,
                         timeout=BUILD_SECONDS)
    assert run.returncode == 0, f"scripts/colab_twin.sh failed:\n{run.stderr[-5000:]}"
    return Path(run.stdout.strip().splitlines()[-1])


def pins() -> dict[str, str]:
    """{canonical name: version} of every package the twin pins (Colab's versions)."""
    found = {}
    for line in PINS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            requirement = Requirement(line)
            found[canonicalize_name(requirement.name)] = str(requirement.specifier)[2:]
    return found


@contextmanager
def scratch_twin(python: Path) -> Iterator[Path]:
    """A copy of the twin (hard links, in the cache folder beside it, so on the same file
    system) for a test that installs into it; yields its python, removed at the end.
    pip and Python replace files rather than write into them, so the original is untouched."""
    twin = python.parent.parent
    scratch = Path(tempfile.mkdtemp(prefix="scratch-", dir=twin.parent))
    try:
        subprocess.run(["cp", "-al", str(twin), str(scratch / "twin")], check=True)
        yield scratch / "twin" / "bin" / "python"
    finally:
        # 40,000 links take seconds to 20 s to remove on a busy disk: removed in the
        # background, the test does not wait for it
        subprocess.Popen(["rm", "-rf", str(scratch)], start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def twin_env(python: Path, scratch: Path, **extra: str) -> dict[str, str]:
    """The environment of a process of the twin: its bin first on PATH, no trace of the
    project's virtual environment, and Jupyter's and IPython's per-user folders in
    ``scratch`` (so nothing a person installed for themselves, like a kernelspec, is used)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "JUPYTER_PATH",
                        "JUPYTER_CONFIG_PATH", "MPLBACKEND")}
    venv_bin = str(Path(sys.executable).parent)
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != venv_bin]
    scratch.mkdir(parents=True, exist_ok=True)
    env.update(
        PATH=os.pathsep.join([str(python.parent), *path]),
        JUPYTER_DATA_DIR=str(scratch / "jupyter-data"),
        JUPYTER_CONFIG_DIR=str(scratch / "jupyter-config"),
        JUPYTER_RUNTIME_DIR=str(scratch / "jupyter-runtime"),
        IPYTHONDIR=str(scratch / "ipython"),
        # ipykernel 6.17's debugger otherwise warns on every start about frozen modules
        PYDEVD_DISABLE_FILE_VALIDATION="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    env.update(extra)
    return env


def course_tarball(into: Path) -> Path:
    """The repository's files (tracked, and new ones not ignored) as one .tar.gz with one top
    folder, the shape of GitHub's archive that the setup cell downloads on Colab."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=REPO, capture_output=True, check=True)
    tarball = into / "course.tar.gz"
    with tarfile.open(tarball, "w:gz", compresslevel=1) as archive:
        for name in sorted(set(listed.stdout.decode().split("\0")) - {""}):
            if (REPO / name).is_file():
                archive.add(REPO / name, arcname=f"cs336-lecture2-twin/{name}")
    return tarball
