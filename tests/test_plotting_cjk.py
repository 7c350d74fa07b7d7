"""Chinese text in course plots is drawn with real glyphs, not tofu boxes: the course style
falls back from DejaVu Sans to a Simplified Chinese font. Also writes
test-artifacts/plot-zh-CN.png, a Chinese-labelled plot for a person to look at."""

from __future__ import annotations

import base64
import io
import warnings
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from lecture_utils import plotting  # noqa: E402
from lecture_utils.i18n import use_language  # noqa: E402

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
# two titles of the same length and no character in common: drawn with glyphs they differ,
# drawn as tofu (one identical box per missing character) they do not
TITLE = "张量的步幅"
OTHER_TITLE = "内存与视图"
DEJAVU_ONLY = ["DejaVu Sans"]


def _missing_glyph_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


def _title_pixels(title: str, families: list[str] | None = None
                  ) -> tuple[np.ndarray, list[str]]:
    """A course figure with ``title`` drawn in a fixed box (in ``families`` if given, else in
    the course style's fonts): its title region's pixels (grey) and the missing-glyph warnings
    drawing it raised."""
    fig, ax = plotting.subplots()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ax.set_title(title, **({"family": families} if families else {}))
            fig.canvas.draw()
            box = ax.title.get_window_extent()
            pixels = np.asarray(fig.canvas.buffer_rgba())[..., :3].mean(axis=2)
    finally:
        plt.close(fig)
    top = pixels.shape[0] - int(box.y1) - 2
    return pixels[top:top + int(box.height) + 4, int(box.x0) - 2:int(box.x1) + 2], \
        _missing_glyph_warnings(caught)


def test_course_style_names_a_chinese_font_after_the_default():
    plotting.use_style()
    families = matplotlib.rcParams["font.family"]
    assert families[0] == "sans-serif", "English text keeps the default font"
    assert len(families) == 2 and plotting.cjk_family() == families[1]
    from matplotlib import font_manager

    chosen = font_manager.findfont(font_manager.FontProperties(family=families[1]),
                                   fallback_to_default=False)
    assert "DejaVu" not in chosen


def test_a_bold_title_logs_no_missing_bold_weight_of_the_chinese_font(caplog):
    # the font has one weight; matplotlib would log that on the first bold title of a notebook
    # (an unusual size, so matplotlib's cache of earlier lookups does not answer)
    from matplotlib import font_manager

    family = plotting.cjk_family()
    with caplog.at_level("WARNING", logger="matplotlib.font_manager"):
        font_manager.findfont(font_manager.FontProperties(family=family, weight="bold",
                                                          size=13.37))
    assert not [r for r in caplog.records if "font weight" in r.getMessage()]


def test_english_text_is_still_drawn_in_dejavu_sans():
    english = "Strides of a tensor"
    course, course_warnings = _title_pixels(english)
    dejavu, _ = _title_pixels(english, DEJAVU_ONLY)
    assert not course_warnings
    assert np.array_equal(course, dejavu)


def test_chinese_title_renders_real_glyphs():
    first, first_warnings = _title_pixels(TITLE)
    second, second_warnings = _title_pixels(OTHER_TITLE)
    assert first_warnings == [] and second_warnings == []
    assert (first < 128).sum() > 50, "the title left ink"
    assert first.shape == second.shape, "two five-character titles fill the same box"
    assert not np.array_equal(first, second), "different characters must look different"


def test_without_the_chinese_font_the_same_check_sees_tofu():
    # the check above is real: with DejaVu Sans alone both titles are five identical boxes
    first, first_warnings = _title_pixels(TITLE, DEJAVU_ONLY)
    second, _ = _title_pixels(OTHER_TITLE, DEJAVU_ONLY)
    assert any("missing from font" in w for w in first_warnings)
    assert first.shape == second.shape and np.array_equal(first, second)


def test_chinese_plot_through_figure_bundle_warns_of_no_missing_glyph():
    x = np.arange(1, 9)
    fig, ax = plotting.subplots()
    ax.plot(x, x * 4, label="连续张量")
    ax.plot(x, x * 4 * x, label="转置后的视图")
    ax.set_title(TITLE)
    ax.set_xlabel("维度大小")
    ax.set_ylabel("步幅（元素个数）")
    ax.legend(title="布局")
    try:
        with use_language("zh-CN"), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            bundle = plotting.figure_bundle(fig, "步幅随维度大小增长；转置后的视图增长更快。")
    finally:
        plt.close(fig)
    assert _missing_glyph_warnings(caught) == []
    png = base64.b64decode(bundle["image/png"])
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "plot-zh-CN.png").write_bytes(png)
    with Image.open(io.BytesIO(png)) as image:
        assert image.width > 300 and image.height > 150


@pytest.fixture(autouse=True)
def _restore_style():
    # use_style changes matplotlib's global settings; other tests in this process keep theirs
    with matplotlib.rc_context():
        yield
