"""Letting another Unix user reach this Python and this checkout, for tests that run code as
one (``nobody``, a hub's students, Gradescope's ``student``).

Where a path lies under a folder other users cannot enter (pyenv's Python under ``/root``,
say), a private mount namespace (``unshare --mount``) replaces that folder with an open tmpfs
holding binds of just the needed subtrees. Nothing outside the namespace changes.
"""

from __future__ import annotations

import stat
from pathlib import Path


class ClosedPath(RuntimeError):
    """A needed path is itself closed to other users: no bind can open only what is needed."""


def closed_ancestor(path: Path) -> Path | None:
    """The outermost of ``path`` and its ancestors that other users cannot enter, if any."""
    for parent in [*reversed(path.parents), path]:
        if not parent.stat().st_mode & stat.S_IXOTH:
            return parent
    return None


def expose_script(paths: list[Path], hold: Path) -> str:
    """Shell lines, run as root in a private mount namespace, after which every user can
    reach ``paths`` (empty where they already can). ``hold`` keeps the closed originals."""
    closed: dict[Path, set[str]] = {}
    for path in paths:
        blocker = closed_ancestor(path)
        if blocker == path:
            raise ClosedPath(f"{path} itself is closed to other users")
        if blocker is not None:
            closed.setdefault(blocker, set()).add(path.relative_to(blocker).parts[0])
    lines = []
    for i, (blocker, entries) in enumerate(closed.items()):
        keep = hold / str(i)
        lines += [f"mkdir -p {keep}", f"mount --bind {blocker} {keep}",
                  f"mount -t tmpfs -o mode=755 tmpfs {blocker}"]
        for entry in sorted(entries):
            lines += [f"mkdir -p {blocker / entry}",
                      f"mount --bind {keep / entry} {blocker / entry}"]
    return "\n".join(lines)
