"""The Chinese edition stays in step with the English source.

Every catalog is complete and current (nothing missing or stale, formulas, code and link
targets copied, glossary followed); every released Chinese notebook is its English one with
only markdown text changed; and the checks that say so catch a planted stale cell, a changed
formula, a changed code cell and an off-glossary term.
"""

from __future__ import annotations

import copy
import re

import polib
import pytest

from autograder.cli import main
from autograder.colab import is_colab_cell
from autograder.course import RELEASE, assignments
from autograder.notebook import read_notebook
from autograder.translate import translated_languages
from autograder.translate.build import release_dir, translate_notebook
from autograder.translate.catalog import (
    LIBRARY,
    Unit,
    catalog_names,
    cell_context,
    load,
    units_of,
)
from autograder.translate.sync import (
    differences_from_english,
    glossary,
    problems,
    verbatim_spans,
)
from lecture_utils.i18n import MESSAGE_CONTEXT, TRANSLATIONS, messages

ZH = "zh-CN"


def test_chinese_is_a_translated_language():
    assert translated_languages() == [ZH]


@pytest.mark.parametrize("name", catalog_names())
def test_catalog_is_complete_and_current(name):
    found = problems(ZH, name)
    assert not found, f"{len(found)} problems, first ones:\n" + "\n".join(map(str, found[:15]))


@pytest.mark.parametrize("assignment", assignments())
def test_released_chinese_notebook_is_the_english_one_translated(assignment):
    english = read_notebook(RELEASE / assignment / f"{assignment}.ipynb")
    chinese = read_notebook(release_dir(ZH) / assignment / f"{assignment}.ipynb")
    assert differences_from_english(english, chinese) == []
    assert chinese.metadata["lecture"] == {"language": ZH}
    built, untranslated = translate_notebook(english, ZH, assignment)
    assert untranslated == []
    assert [c.source for c in chinese.cells] == [c.source for c in built.cells], (
        f"notebooks-{ZH}/{assignment} is not what its catalog builds: run "
        "`python -m autograder release` (never edit the Chinese notebooks by hand)")
    changed = sum(a.source != b.source for a, b in zip(english.cells, chinese.cells)
                  if a.cell_type == "markdown")
    assert changed == sum(c.cell_type == "markdown" for c in english.cells)


# --- the checks themselves, on planted faults ---------------------------------------------

def _translated(name: str) -> polib.POFile:
    return copy.deepcopy(load(ZH, name))


def _first_cell_entry(catalog: polib.POFile, having: str) -> polib.POEntry:
    return next(e for e in catalog if e.msgctxt.startswith("cell ") and having in e.msgstr)


def test_a_changed_english_cell_is_stale():
    name = "03_data_types"
    units = units_of(name)
    first_cell = next(u for u in units if u.context.startswith("cell "))
    edited = [Unit(u.context, u.english + "\nOne more sentence.", u.where)
              if u is first_cell else u for u in units]
    found = problems(ZH, name, catalog=_translated(name), units=edited)
    assert [(p.entry, p.kind) for p in found] == [(first_cell.context, "stale")]


def test_a_fuzzy_entry_is_stale_and_an_empty_one_missing():
    name = "03_data_types"
    catalog = _translated(name)
    cells = [e for e in catalog if e.msgctxt.startswith("cell ")]
    cells[0].flags.append("fuzzy")
    cells[1].msgstr = ""
    found = {(p.entry, p.kind) for p in problems(ZH, name, catalog=catalog)}
    assert found == {(cells[0].msgctxt, "stale"), (cells[1].msgctxt, "missing")}


def test_a_changed_formula_in_a_real_catalog_is_caught():
    name = "03_data_types"
    catalog = _translated(name)
    entry = _first_cell_entry(catalog, "$")
    formula = next(s for s in verbatim_spans(entry.msgstr) if s.startswith("$"))
    entry.msgstr = entry.msgstr.replace(formula, formula[:-1] + " + 1$", 1)
    found = [p for p in problems(ZH, name, catalog=catalog) if p.entry == entry.msgctxt]
    assert [p.kind for p in found] == ["altered"]
    assert repr(formula) in found[0].detail


@pytest.mark.parametrize("english, translated", [
    ("Cost $6ND$ in total.", "总共 $6 N D$。"),
    ("Call `x.view(2, 3)` here.", "在这里调用 `x.view(3, 2)`。"),
    ("Read [the notes](https://a.org/notes).", "读[笔记](https://a.org/other)。"),
    ("Took {seconds} s", "用了 {secs} 秒"),
    ("Run `check workspace/00/00.ipynb`.", "运行 `check workspace/00/00.ipynb`。"),
])
def test_an_altered_span_is_caught(english, translated):
    entry = polib.POEntry(msgctxt="cell c1", msgid=english, msgstr=translated)
    found = problems(ZH, "toy", catalog=[entry], units=[Unit("cell c1", english, "toy")])
    assert [p.kind for p in found] == ["altered"]


def test_a_copied_span_passes_and_the_workspace_is_the_readers():
    english = "Run `check workspace/00/00.ipynb` on $6ND$ with {n} [docs](https://a.org)."
    translated = "对 $6ND$ 运行 `check workspace-zh-CN/00/00.ipynb`，{n} 个[文档](https://a.org)。"
    entry = polib.POEntry(msgctxt="cell c1", msgid=english, msgstr=translated)
    assert problems(ZH, "toy", catalog=[entry], units=[Unit("cell c1", english, "toy")]) == []


def test_verbatim_spans_are_formulas_code_links_tags_and_placeholders():
    text = ("Cost $6ND$, see `torch.mm` and [the docs](https://x.org/a), "
            "$$a = b$$ <br> {count} costs $5 and $10.")
    assert set(verbatim_spans(text)) == {"$6ND$", "`torch.mm`", "](https://x.org/a)",
                                         "$$a = b$$", "<br>", "{count}"}


def test_an_off_glossary_term_is_caught():
    name = "02_strides_and_views"
    catalog = _translated(name)
    entry = _first_cell_entry(catalog, "步幅")
    entry.msgstr = entry.msgstr.replace("步幅", "步长")
    kinds = {p.kind for p in problems(ZH, name, catalog=catalog) if p.entry == entry.msgctxt}
    assert kinds == {"off-glossary"}


@pytest.mark.parametrize("english, translated, kinds", [
    # a required term left out (no avoided word in its place) is caught on its own
    ("The gradient flows back.", "它向后流动。", ["off-glossary"]),
    ("The gradient flows back.", "梯度向后流动。", []),
    # a term the glossary does not require may be left out
    ("A view shares storage.", "它共享存储。", []),
])
def test_a_required_glossary_term_must_be_rendered(english, translated, kinds):
    entry = polib.POEntry(msgctxt="cell c1", msgid=english, msgstr=translated)
    found = problems(ZH, "toy", catalog=[entry], units=[Unit("cell c1", english, "toy")])
    assert [p.kind for p in found] == kinds
    if kinds:
        assert "'梯度'" in found[0].detail


def test_inline_maths_next_to_chinese_prose_is_still_maths():
    english = "Element $i$ sits at offset $i \\cdot s$."
    translated = "元素$i$位于偏移$i \\cdot s$处。"
    assert verbatim_spans(translated) == verbatim_spans(english) == \
        {"$i$": 1, "$i \\cdot s$": 1}
    entry = polib.POEntry(msgctxt="cell c1", msgid=english, msgstr=translated)
    assert problems(ZH, "toy", catalog=[entry], units=[Unit("cell c1", english, "toy")]) == []


def test_translate_accepts_only_a_language_the_course_has(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["translate", "check", "--language", "zh_CN", "toy"])
    assert stopped.value.code == 2
    assert "invalid choice: 'zh_CN'" in capsys.readouterr().err
    assert not (TRANSLATIONS / "zh_CN").exists()


def test_the_glossary_has_the_issue_terms():
    chinese = {term.chinese for term in glossary(ZH)}
    assert {"张量", "步幅", "视图", "FLOPs", "MFU"} <= chinese


def test_a_changed_code_cell_or_grade_id_is_caught():
    name = "01_tensors_and_memory"
    english = read_notebook(RELEASE / name / f"{name}.ipynb")
    chinese, _ = translate_notebook(english, ZH, name)
    # (the Colab setup cell is each language's own: tests/test_colab_cells.py)
    code = next(i for i, c in enumerate(chinese.cells)
                if c.cell_type == "code" and not is_colab_cell(c))
    graded = next(i for i, c in enumerate(chinese.cells) if "nbgrader" in c.metadata)
    chinese.cells[code].source += "\nx = 1"
    chinese.cells[graded].metadata["nbgrader"]["grade_id"] = "renamed"
    found = differences_from_english(english, chinese)
    assert len(found) == 2 and "code" in found[0] and "metadata" in found[1]


def test_an_untranslated_cell_keeps_its_english():
    name = "03_data_types"
    english = read_notebook(RELEASE / name / f"{name}.ipynb")
    index = next(i for i, c in enumerate(english.cells)
                 if c.cell_type == "markdown" and not is_colab_cell(c))
    edited = english.cells[index].source + " (changed)"
    english.cells[index].source = edited
    chinese, untranslated = translate_notebook(english, ZH, name)
    assert untranslated == [
        f"cell {english.cells[index].id}: the English changed since it was translated"]
    assert chinese.cells[index].source == edited


def test_every_message_a_notebook_shows_has_one_translation():
    by_english: dict[str, set[str]] = {}
    for name in catalog_names():
        for entry in load(ZH, name):
            if entry.msgctxt == MESSAGE_CONTEXT and entry.msgstr and not entry.obsolete:
                by_english.setdefault(entry.msgid, set()).add(entry.msgstr)
    differing = {k: v for k, v in by_english.items() if len(v) > 1}
    assert not differing, f"one English message, several translations: {differing}"
    assert set(messages(ZH)) == set(by_english)


def test_cells_are_keyed_by_id_and_the_library_by_its_tr_calls():
    units = units_of(LIBRARY)
    assert {"All {total} checks passed.", "hidden check {number} failed"} <= \
        {u.english for u in units}
    name = "00_napkin_math"
    ids = [c.id for c in read_notebook(RELEASE / name / f"{name}.ipynb").cells
           if c.cell_type == "markdown" and not is_colab_cell(c)]  # the badge is in no catalog
    assert [u.context for u in units_of(name) if u.context != MESSAGE_CONTEXT] == \
        [cell_context(i) for i in ids]


# CommonMark closes "**" only where it is right-flanking: after punctuation it must be
# followed by a space or punctuation. "**说明：**这份" therefore shows its asterisks (in
# JupyterLab, markdown-it and nbconvert's mistune alike); "**说明**：这份" is bold.
_FULL_WIDTH_PUNCTUATION = ("\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
                           "\u2018-\u201f\u2026")
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"


def unclosed_bold(text: str) -> list[str]:
    """Where ``text`` closes bold (``**``) right after full-width punctuation and directly
    before a CJK character, which CommonMark does not read as closing; code spans and
    formulas are left out, and the ``**`` of a paragraph pair up in order."""
    import re

    found = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = re.sub(r"`[^`\n]*`", "C", paragraph)
        paragraph = re.sub(r"\$[^$\n]*\$", "M", paragraph)
        marks = [m.start() for m in re.finditer(r"\*\*", paragraph)]
        for closing in marks[1::2]:
            before, after = paragraph[closing - 1:closing], paragraph[closing + 2:closing + 3]
            if (re.fullmatch(f"[{_FULL_WIDTH_PUNCTUATION}]", before)
                    and re.fullmatch(f"[{_CJK}]", after)):
                found.append(paragraph[max(0, closing - 12):closing + 6])
    return found


@pytest.mark.parametrize(("text", "bad"), [
    ("**评分程序的说明：**这份提交", True),
    ("**评分程序的说明**：这份提交", False),
    ("**问题：** 一次", False),
    ("做的事：**先估算，再测量**，并", False),         # an opening "**" after "："
    ("`a：**b` 和 **粗体**。", False),                  # inside a code span
])
def test_unclosed_bold_finds_only_a_closing_mark_before_han(text, bad):
    assert bool(unclosed_bold(text)) is bad


def test_no_translation_closes_bold_where_commonmark_cannot():
    found = [f"{name}: {entry.msgctxt}: …{where}…"
             for name in catalog_names() for entry in load(ZH, name)
             if not entry.obsolete for where in unclosed_bold(entry.msgstr)]
    repo = TRANSLATIONS.parent
    for page in [repo / "README.zh-CN.md", *sorted((repo / "docs").rglob("*.zh-CN.md"))]:
        found += [f"{page.relative_to(repo)}: …{where}…"
                  for where in unclosed_bold(page.read_text("utf-8"))]
    assert not found, ("bold closed after full-width punctuation, before a Han character "
                       "(write **粗体**：, punctuation outside): " + "; ".join(found))


def _message_pattern(template: str) -> re.Pattern[str]:
    """A library message as a reader may quote it: each ``{value}`` any short word (N, 3)."""
    pieces = re.split(r"\{\w*\}", template)
    return re.compile(r"\S{1,12}".join(re.escape(piece) for piece in pieces))


@pytest.mark.parametrize("assignment", assignments())
def test_no_notebook_quotes_a_library_message_its_translation_changes(assignment):
    """Kills: prose that quotes a message the code prints (```All N checks passed.```) in a
    code span: the translation must keep a code span as it is, so a Chinese reader is told to
    look for an English line that their notebook prints in Chinese."""
    # sentences of their own (not "{label}: {summary}", nor a name such as "optimizer")
    translated = {english: chinese for english, chinese in messages(ZH).items()
                  if chinese != english and len(re.findall(r"[A-Za-z]{2,}", re.sub(
                      r"\{\w*\}", "", english))) >= 3}
    patterns = [(english, _message_pattern(english)) for english in translated]
    quoted = []
    for cell in read_notebook(RELEASE / assignment / f"{assignment}.ipynb").cells:
        if cell.cell_type != "markdown":
            continue
        for span in re.findall(r"`([^`\n]+)`", cell.source):
            quoted += [(span, english) for english, pattern in patterns
                       if pattern.fullmatch(span)]
    assert not quoted, f"{assignment} quotes translated messages in code spans: {quoted}"
