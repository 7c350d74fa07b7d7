"""The student's working copy: workspace/, a git-ignored copy of the released notebooks.

`notebooks/` is the pristine release that `git pull` updates; students run and edit their
notebooks in `workspace/`, so their work never changes tracked files. Each start of
`scripts/lab.sh` copies in what the release has and the workspace lacks (new notebooks after
a pull), and never overwrites anything already there.

    python -m autograder.workspace [RELEASE] [WORKSPACE]   # default: notebooks workspace

Trusts nothing already in the workspace (it is the student's); imports only the standard
library.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path


class WorkspaceError(Exception):
    """The working copy cannot be set up; the message names the path and what to do."""


def sync_workspace(release: Path, workspace: Path) -> list[Path]:
    """Copy every file of `release` that `workspace` lacks; return the copies, sorted.

    Anything already at a destination path (a file, a folder, a symbolic link, even a broken
    one) is the student's and is left alone, as is everything beneath it: nothing is
    overwritten and no link inside the workspace is written through. Hidden files and folders
    of the release (.ipynb_checkpoints, say) are not copied.
    """
    if not release.is_dir():
        raise WorkspaceError(f"{release}: the released notebooks are not there; run this from "
                             "the repository root")
    if workspace.is_symlink() and not workspace.exists():
        raise WorkspaceError(f"{workspace}: is a symbolic link to nothing "
                             f"({os.readlink(workspace)}); remove it or point it at a folder")
    if workspace.exists() and not workspace.is_dir():
        raise WorkspaceError(f"{workspace}: is a file, not a folder; your working copy of the "
                             "notebooks goes there: rename or move that file, then start again")
    workspace.mkdir(parents=True, exist_ok=True)

    copied = []
    for folder, dirs, files in os.walk(release):
        rel = Path(folder).relative_to(release)
        dirs[:] = sorted(d for d in dirs
                         if not d.startswith(".") and not Path(folder, d).is_symlink())
        target = workspace / rel
        if target.is_symlink() or not target.is_dir():
            dirs.clear()  # the student put something else here (or a link): leave it be
            continue
        for d in dirs:
            if not os.path.lexists(target / d):
                (target / d).mkdir()
        for name in sorted(files):
            source, dest = Path(folder) / name, target / name
            if name.startswith(".") or source.is_symlink() or os.path.lexists(dest):
                continue
            try:
                # "x": create only; fails rather than follow a link or clobber a file that
                # appeared since the check above.
                dst = dest.open("xb")
            except FileExistsError:
                continue
            with source.open("rb") as src, dst:
                try:
                    shutil.copyfileobj(src, dst)
                except BaseException:  # no half copy that the next start would take as theirs
                    dest.unlink()
                    raise
            copied.append(dest)
    return sorted(copied)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.workspace", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("release", nargs="?", default="notebooks", type=Path)
    parser.add_argument("workspace", nargs="?", default="workspace", type=Path)
    args = parser.parse_args(argv)
    release, workspace = args.release, args.workspace
    try:
        copied = sync_workspace(release, workspace)
    except (WorkspaceError, OSError) as error:
        print(f"lab: {error}", file=sys.stderr)
        return 2
    added = ", ".join(str(p.relative_to(workspace)) for p in copied)
    print(f"lab: your notebooks are in {workspace}/, yours to edit ({release}/ is the pristine "
          f"release that git pull updates); {'new: ' + added if added else 'nothing new'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
