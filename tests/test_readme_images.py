"""The screenshots of the READMEs and docs/: committed, small, with alt text, and each made by
a script of this repository (scripts/readme_screenshots.py for the notebook ones, which needs
a browser and is not run here)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PIL import Image

REPO = Path(__file__).resolve().parent.parent
MAX_BYTES = 150_000
IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
PAGES = sorted([REPO / "README.md", REPO / "README.zh-CN.md", *(REPO / "docs").rglob("*.md")])
MAKERS = [path for folder in ("scripts", "tests", "benchmarks")
          for path in (REPO / folder).rglob("*.py")]


def _local_images(page: Path) -> list[tuple[str, Path]]:
    """(alt text, file) of each image a page shows from this repository."""
    return [(alt, (page.parent / src).resolve())
            for alt, src in IMAGE.findall(page.read_text("utf-8"))
            if not re.match(r"[a-z]+:", src)]


def _name(page: Path) -> str:
    return str(page.relative_to(REPO))


def test_the_readme_shows_screenshots():
    assert len(_local_images(REPO / "README.md")) >= 2


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_images_have_alt_text_exist_and_are_small(page):
    for alt, path in _local_images(page):
        shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
        assert len(alt.split()) >= 5, f"{_name(page)}: {shown}: alt text should say what it shows"
        assert path.is_file(), f"{_name(page)} shows {shown}, which is not in the repository"
        assert path.stat().st_size <= MAX_BYTES, (
            f"{shown}: {path.stat().st_size:,} bytes, over {MAX_BYTES:,}; regenerate it smaller")
        with Image.open(path) as image:
            image.verify()


def test_every_screenshot_is_made_by_a_script_of_the_repository():
    shown = {path for page in PAGES for _, path in _local_images(page)}
    sources = {maker: maker.read_text("utf-8") for maker in MAKERS}
    for path in sorted(shown):
        makers = [maker for maker, text in sources.items() if path.name in text]
        assert makers, f"{path.relative_to(REPO)}: no script in scripts/, tests/ or benchmarks/ " \
            "names it, so nothing can regenerate it"


def test_the_docs_name_the_screenshot_command():
    pages = "\n".join(page.read_text("utf-8") for page in PAGES)
    assert ".venv/bin/python scripts/readme_screenshots.py" in pages
    script = (REPO / "scripts" / "readme_screenshots.py").read_text()
    assert f"MAX_BYTES = {MAX_BYTES:_}" in script
    for _, path in _local_images(REPO / "README.md"):
        if path.name.startswith("napkin-math-"):
            assert path.name in script, f"{path.name} is not made by readme_screenshots.py"
