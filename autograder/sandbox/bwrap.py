"""The bubblewrap command a worker runs in: namespaces, binds, environment, dropped root.

Trusted side (the grader). Imports only the standard library and ``autograder.limits``. What
the sandbox holds and why is told in ``autograder.sandbox``'s docstring.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.limits import Limits

SANDBOX_UID = 61000  # slot n runs as uid/gid SANDBOX_UID + n when the grader runs as root
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/fonts")  # fonts: matplotlib's fc-list
SCRATCH_DIRS = ("/tmp", "/dev/shm", "/dev/mqueue")
# Drops root for good (no supplementary groups), then runs a command: argv = uid gid command...
# (the inner bubblewrap here; autograder.gradescope.student's worker where there is none)
DROP_ROOT = ("import os, sys\n"
             "uid, gid = int(sys.argv[1]), int(sys.argv[2])\n"
             "os.setgroups([])\n"
             "os.setresgid(gid, gid, gid)\n"
             "os.setresuid(uid, uid, uid)\n"
             "os.execv(sys.argv[3], sys.argv[3:])\n")


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create the sandbox on this machine."""


def _package_dirs() -> list[Path]:
    """Where ``lecture_utils`` and ``autograder`` are imported from (without importing them)."""
    found = []
    for name in ("lecture_utils", "autograder"):
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SandboxUnavailable(f"cannot find the {name} package to put in the sandbox")
        found.append(Path(next(iter(spec.submodule_search_locations))).absolute())
    return found


def _python_dirs() -> list[str]:
    """What the sandbox needs of Python: the installation, the venv and the two packages.

    Each at the path Python uses and, if different, at its real path (the venv's ``python`` is
    a symlink into the installation). Never the repository itself: refused if a bound folder
    holds the course's ``solutions/``.
    """
    wanted: list[Path] = []
    for path in (Path(sys.base_prefix), Path(sys.prefix), *_package_dirs()):
        wanted += [path.absolute(), Path(os.path.realpath(path))]
    chosen: list[Path] = []
    for path in wanted:
        if any(path == kept or kept in path.parents for kept in chosen):
            continue
        chosen = [kept for kept in chosen if path not in kept.parents] + [path]
    for path in chosen:
        if (path / "solutions").is_dir() or (path / "gradebook.db").exists():
            raise SandboxUnavailable(
                f"{path} would be visible in the sandbox but holds the course's solutions or "
                "gradebook; use a virtual environment outside the course directory")
    return [str(path) for path in chosen]


def _system_binds() -> list[str]:
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in ETC_FILES:
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def environment(home: str) -> dict[str, str]:
    """The whole environment of the sandboxed runner (nothing of the grader's is passed)."""
    parents = dict.fromkeys(str(path.parent) for path in _package_dirs())
    return {
        "PATH": f"{sys.prefix}/bin:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "USER": "student",
        "LOGNAME": "student",
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": os.pathsep.join(parents),
    }


def gpu_devices(dev: Path = Path("/dev")) -> list[Path]:
    """The NVIDIA device files a sandbox needs to use the GPUs (nvidia0.., nvidiactl,
    nvidia-uvm...); none on a machine without the driver."""
    return sorted(dev.glob("nvidia*"))


def _inner_bwrap(bwrap: str, limits: Limits, gpu: bool = False) -> list[str]:
    args = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
            "--new-session", "--cap-drop", "ALL", "--hostname", "sandbox", "--clearenv"]
    for key, value in environment("/tmp").items():
        args += ["--setenv", key, value]
    args += _system_binds()
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(limits.scratch_bytes), "--tmpfs", "/tmp",
             "--size", str(limits.scratch_bytes), "--tmpfs", "/dev/shm",
             "--mqueue", "/dev/mqueue"]
    if gpu:  # a task that needs the GPU (``grade --gpu``): its device files, nothing else
        for path in gpu_devices():
            args += ["--dev-bind", str(path), str(path)]
    # After the private /tmp, so a repository (and its venv) cloned under /tmp stays visible.
    for path in _python_dirs():
        args += ["--ro-bind", path, path]
    args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp"]
    return args


def _outer_bwrap(bwrap: str) -> list[str]:
    """Root's mount namespace for the inner bubblewrap: the same paths, parents mode 0755."""
    args = [bwrap, "--die-with-parent"]
    made: set[str] = set()

    def parents(path: str) -> None:
        for parent in reversed(Path(path).parents):
            name = str(parent)
            if name != "/" and name not in made:
                made.add(name)
                args.extend(["--perms", "0755", "--dir", name])

    files = [path for path in ETC_FILES if os.path.exists(path)]
    for path in [*files, *_python_dirs()]:
        parents(path)
    args += ["--perms", "0755", "--dir", "/tmp"]  # where the inner bwrap builds its root
    args += _system_binds()
    for path in _python_dirs():
        args += ["--ro-bind", path, path]
    args += ["--bind", "/proc", "/proc", "--dev", "/dev"]
    return args


def sandbox_command(limits: Limits, slot: int, command: list[str],
                    gpu: bool = False) -> list[str]:
    """``command`` inside bubblewrap (inside two, dropping to a slot's uid, when root); with
    ``gpu``, the sandbox also sees the NVIDIA device files."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable(
            "bubblewrap (`bwrap`) is not installed or not on PATH: install it (Debian/Ubuntu: "
            "`apt install bubblewrap`), or grade without a sandbox only if you trust the code")
    inner = [*_inner_bwrap(bwrap, limits, gpu), "--", *command]
    if os.geteuid() != 0:
        return inner
    uid = SANDBOX_UID + slot
    return [*_outer_bwrap(bwrap), "--", sys.executable, "-I", "-S", "-c", DROP_ROOT,
            str(uid), str(uid), *inner]


def sandbox_available() -> tuple[bool, str]:
    """(True, "") if bubblewrap can create the sandbox here, else (False, reason naming what
    is missing). Starts a throw-away sandbox with the workers' exact setup (some 25 ms)."""
    try:
        command = sandbox_command(Limits(), 0, [sys.executable, "-I", "-S", "-c", "pass"])
    except SandboxUnavailable as missing:
        return False, str(missing)
    try:
        probe = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=60, cwd="/",
                               env={"PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.TimeoutExpired) as problem:
        return False, f"bubblewrap could not be run: {problem}"
    if probe.returncode != 0:
        why = probe.stderr.decode(errors="replace").strip() or f"exit status {probe.returncode}"
        return False, (f"bubblewrap cannot create the sandbox here ({why}); it needs "
                       "unprivileged user namespaces (kernel.unprivileged_userns_clone=1, "
                       "user.max_user_namespaces > 0)")
    return True, ""
