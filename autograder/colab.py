"""Google Colab: where the course's repository lives, and the two cells the release puts at
the top of every student notebook for Colab.

``course.toml`` says where the repository lives (``[repository] github`` and ``revision``);
a fork changes those two lines. From them the release writes, in each notebook's language:

- an "Open in Colab" badge (markdown) that opens the notebook at that revision on GitHub;
- the setup cell (code), which does nothing outside Colab and, on Colab, fetches the
  repository at the same revision, then hands over to ``autograder.colab_setup``.

Both are marked in their metadata (``{"lecture": {"colab": "badge" | "setup"}}``) so that the
translation leaves them out of its catalogs and writes each language's own, and the grader can
tell them from a student's cells. ``autograder.preprocessors.colab_cells`` inserts them into
the English release; ``autograder.translate.build`` replaces them in a translated one.
Trusts the repository; imports nbformat only to make cells.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from lecture_utils.gpu_cells import is_gpu_only

REPO = Path(__file__).resolve().parent.parent
COURSE_FILE = REPO / "course.toml"
BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
COLAB_HOME = "/content/cs336-lecture2"  # /content is where Colab keeps a session's files
BADGE, SETUP = "badge", "setup"
# Notebook metadata with which Colab opens a notebook on a GPU runtime, the free T4 (the keys
# Colab writes when a notebook is saved on one); the reader can still choose another.
GPU_RUNTIME = {"accelerator": "GPU", "colab": {"gpuType": "T4"}}
CELL_IDS = {BADGE: "colab-badge", SETUP: "colab-setup"}

# Written into Python source and URLs: GitHub's own character sets, nothing that could quote.
_GITHUB = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")
_REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


@dataclass(frozen=True)
class Repository:
    github: str  # owner/name
    revision: str  # a tag or commit

    def archive_url(self) -> str:
        """GitHub's tarball of the repository at ``revision`` (a tag or a commit alike)."""
        return f"https://github.com/{self.github}/archive/{self.revision}.tar.gz"

    def badge_url(self, path: str) -> str:
        """Where the badge of the notebook at ``path`` (from the repository root) opens it:
        Colab's GitHub loader, at ``revision``."""
        return f"https://colab.research.google.com/github/{self.github}/blob/{self.revision}/{path}"


def repository(course_file: Path = COURSE_FILE) -> Repository:
    """The ``[repository]`` table of ``course_file``; ValueError if a value is malformed."""
    with course_file.open("rb") as handle:
        table = tomllib.load(handle).get("repository", {})
    github, revision = table.get("github"), table.get("revision")
    if not isinstance(github, str) or not _GITHUB.fullmatch(github):
        raise ValueError(f"{course_file}: [repository] github must be OWNER/NAME, not {github!r}")
    if not isinstance(revision, str) or not _REVISION.fullmatch(revision):
        raise ValueError(f"{course_file}: [repository] revision must be a tag or commit, "
                         f"not {revision}")
    return Repository(github, revision)


def badge_url(path: str, course_file: Path = COURSE_FILE) -> str:
    """The Colab address of the notebook at ``path`` (``notebooks/00_x/00_x.ipynb``)."""
    return repository(course_file).badge_url(path)


# What differs between languages: the badge's alt text and the setup cell's comments (its
# code, and so what it does, is the same; the line it prints is autograder.colab_setup's).
_WORDS = {
    "en": {
        "alt": "Open In Colab",
        "about": ("# Google Colab only: fetch the course's helpers (lecture_utils,\n"
                  "# %check_my_work) at the revision this notebook was released with, and\n"
                  "# install what Colab lacks. Anywhere else (your own Jupyter, the grader)\n"
                  "# this cell does nothing. Safe to run again."),
        "colab": "# Colab's kernel imports it at start",
        "tests": "# (tests set CS336_COURSE_SOURCE to a checkout or a .tar.gz in place of GitHub)",
        "archive": "# one folder: NAME-REVISION/",
        "swap": "# made whole here first",
        "not_ours": ("{home} is not a copy this cell made: rename it, then run this cell again",),
        "failed": ("could not fetch the course at {revision} ({error}). Check that the runtime ",
                   "is online, then run this cell again. HTTP Error 404: GitHub has no ",
                   "{revision}; tell the course's maintainers"),
    },
    "zh-CN": {
        "alt": "在 Colab 中打开",
        "about": ("# 仅在 Google Colab 上运行：按本 notebook 发布时的版本获取课程的辅助代码\n"
                  "# （lecture_utils、%check_my_work），并安装 Colab 缺少的包。在别处（你自己的\n"
                  "# Jupyter、评分程序）这个单元什么也不做。可以重复运行。"),
        "colab": "# Colab 的内核启动时就导入了它",
        "tests": "# （测试时 CS336_COURSE_SOURCE 指向本地副本或 .tar.gz，代替 GitHub）",
        "archive": "# 只有一个文件夹：仓库名-版本/",
        "swap": "# 先在这里完整解压",
        "not_ours": ("{home} 不是本单元创建的副本：请将它改名，然后重新运行本单元",),
        "failed": ("无法获取 {revision} 版的课程代码（{error}）。请确认运行时已联网，",
                   "然后重新运行本单元。若是 HTTP Error 404：GitHub 上没有 {revision}，",
                   "请告知课程维护者"),
    },
}
_SETUP = '''{about}
import sys

if "google.colab" in sys.modules:  {colab}
    import os, pathlib, shutil, tarfile, time, urllib.request

    started, revision = time.monotonic(), {revision}
    {tests}
    source = os.environ.get("CS336_COURSE_SOURCE") or (
        {archive_url})
    home = pathlib.Path(source if os.path.isdir(source)
                        else os.environ.get("CS336_COURSE_HOME", {home}))
    stamp = home / ".revision"
    fetch = not os.path.isdir(source) and not (stamp.is_file() and stamp.read_text() == revision)
    if fetch and home.exists() and not stamp.is_file():
        raise RuntimeError(
            {not_ours})
    if fetch:
        unpacked = home.with_name(home.name + ".unpacked")  {swap}
        shutil.rmtree(unpacked, ignore_errors=True)
        try:
            archive = urllib.request.urlretrieve(source)[0] if "://" in source else source
            with tarfile.open(archive) as tar:  {archive}
                tar.extractall(unpacked, filter="data")
            [folder] = unpacked.iterdir()
        except Exception as error:
            shutil.rmtree(unpacked, ignore_errors=True)
            raise RuntimeError(
                {failed}) from None
        finally:
            urllib.request.urlcleanup()
        (folder / ".revision").write_text(revision)
        shutil.rmtree(home, ignore_errors=True)
        folder.rename(home)
        unpacked.rmdir()
    if str(home) not in sys.path:
        sys.path.insert(0, str(home))
    from autograder.colab_setup import finish

    finish(home, language={language}, revision=revision, started=started, fetched=fetch)'''


def _words(language: str) -> dict[str, Any]:
    return _WORDS.get(language, _WORDS["en"])


def _message(pieces: tuple[str, ...], indent: int) -> str:
    """The source of an f-string message, one piece a line (each piece is ours, without
    quotes or backslashes, so it needs no escaping)."""
    return f"\n{' ' * indent}".join(f'f"{piece}"' for piece in pieces)


def badge_source(path: str, language: str = "en", course_file: Path = COURSE_FILE) -> str:
    """The badge cell's markdown: Colab's badge image, linking to the notebook at ``path``."""
    return f"[![{_words(language)['alt']}]({BADGE_IMAGE})]({badge_url(path, course_file)})"


def setup_cell_source(language: str = "en", course_file: Path = COURSE_FILE) -> str:
    """The setup cell's code, its comments in ``language`` (English where there are none)."""
    where = repository(course_file)
    quoted = json.dumps  # a Python string literal of each value (validated, ASCII)
    words = _words(language)
    return _SETUP.format(**{**words, "not_ours": _message(words["not_ours"], 12),
                            "failed": _message(words["failed"], 16)},
                         revision=quoted(where.revision),
                         archive_url=quoted(where.archive_url()), home=quoted(COLAB_HOME),
                         language=quoted(language))


def colab_cells(path: str, language: str = "en",
                course_file: Path = COURSE_FILE) -> list[nbformat.NotebookNode]:
    """The badge and setup cells of the notebook published at ``path`` in ``language``."""
    badge = nbformat.v4.new_markdown_cell(badge_source(path, language, course_file),
                                          metadata={"lecture": {"colab": BADGE}})
    setup = nbformat.v4.new_code_cell(setup_cell_source(language, course_file),
                                      metadata={"lecture": {"colab": SETUP}})
    badge.id, setup.id = CELL_IDS[BADGE], CELL_IDS[SETUP]  # fixed: a release is reproducible
    return [badge, setup]


def colab_role(cell: Any) -> str | None:
    """``"badge"`` or ``"setup"`` for a cell the release added for Colab, else None. Safe on
    any JSON a student could submit."""
    metadata = cell.get("metadata") if isinstance(cell, dict) else None
    lecture = metadata.get("lecture") if isinstance(metadata, dict) else None
    role = lecture.get("colab") if isinstance(lecture, dict) else None
    return role if role in CELL_IDS else None


def is_colab_cell(cell: Any) -> bool:
    return colab_role(cell) is not None


def with_colab_cells(notebook: nbformat.NotebookNode, path: str, language: str = "en",
                     course_file: Path = COURSE_FILE) -> nbformat.NotebookNode:
    """``notebook`` (changed in place) with its Colab cells, for ``path`` and ``language``, at
    the top, in place of any it had; one with ``%%gpu_only`` cells also asks Colab for a GPU
    runtime (``GPU_RUNTIME``)."""
    notebook.cells = [*colab_cells(path, language, course_file),
                      *(cell for cell in notebook.cells if not is_colab_cell(cell))]
    if any(cell.cell_type == "code" and is_gpu_only(cell.source) for cell in notebook.cells):
        notebook.metadata.update(GPU_RUNTIME)
    return notebook
