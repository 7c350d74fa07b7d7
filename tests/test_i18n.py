"""What a Chinese reader sees from the code: check messages, the grader's feedback and table,
plots and widgets, in the notebook's language; English stays exactly as it was."""

from __future__ import annotations

import json

import matplotlib
import pytest

from autograder.course import RELEASE, instructor_notebook
from autograder.judge import judge_exercise
from autograder.plan import plan_submission
from autograder.protocol import CaseOutcome, Report, Status
from autograder.results import NotebookResult
from autograder.results import TestResult as ExerciseResult
from autograder.spec import load_spec
from autograder.translate.build import release_dir
from lecture_utils import plotting
from lecture_utils.checks import Case, CheckFailed, check
from lecture_utils.i18n import (
    ENVIRONMENT_VARIABLE,
    current_language,
    messages,
    notebook_language,
    tr,
    use_language,
)
from lecture_utils.widgets import calculator, choice

matplotlib.use("Agg")
ZH = "zh-CN"
NAPKIN = "00_napkin_math"


@pytest.fixture(autouse=True)
def _english_by_default(monkeypatch):
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)


def test_the_language_comes_from_the_grader_the_notebook_or_the_environment(
        monkeypatch, tmp_path):
    assert current_language() == "en"
    notebook = tmp_path / "mine.ipynb"
    notebook.write_text(json.dumps({"metadata": {"lecture": {"language": "zh-CN"}}}))
    monkeypatch.setenv("JPY_SESSION_NAME", str(notebook))
    assert current_language() == ZH
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "en")
    assert current_language() == ZH  # the notebook's own language wins over the variable
    with use_language("en"):
        assert current_language() == "en"
    monkeypatch.delenv("JPY_SESSION_NAME")
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, ZH)
    assert current_language() == ZH  # no notebook to ask: the variable


@pytest.mark.parametrize("metadata", [
    None, [], "zh-CN", {"lecture": "zh-CN"}, {"lecture": {"language": ["zh-CN"]}},
    {"lecture": {"language": "zh-CN" * 10_000}}, {"lecture": {"language": "klingon"}},
    {"lecture": {"language": {"$ne": 1}}},
])
def test_a_submitted_notebook_can_only_choose_a_known_language(metadata):
    assert notebook_language(metadata) == "en"


def test_spellings_of_a_known_language_are_accepted():
    assert notebook_language({"lecture": {"language": "zh_cn"}}) == ZH


def test_a_message_has_its_translation_and_an_unknown_one_stays_english():
    assert tr("All {total} checks passed.", ZH) == "全部 {total} 项检查通过。"
    assert tr("no such message", ZH) == "no such message"
    assert tr("All {total} checks passed.") == "All {total} checks passed."


def _a_translated_why() -> tuple[Case, str]:
    """A case of notebook 00 whose reason has a translation."""
    spec = load_spec(instructor_notebook(NAPKIN))
    chinese = messages(ZH)
    case = next(c for check_ in spec.checks.values() for c in check_.cases
                if c.why in chinese)
    return case, chinese[case.why]


def test_a_failed_check_reads_in_chinese_with_the_call_and_numbers_unchanged():
    case = Case("double(2)", 4, "twice two")
    with pytest.raises(CheckFailed) as english:
        check([case], {"double": lambda x: x * 3})
    with use_language(ZH), pytest.raises(CheckFailed) as chinese:
        check([case], {"double": lambda x: x * 3})
    assert str(english.value).splitlines()[1] == "- double(2) returned 6; expected 4  [twice two]"
    assert str(chinese.value).splitlines() == ["1 项检查中有 1 项未通过：",
                                               "- double(2) 返回了 6；应为 4  [twice two]"]


def test_the_grader_judges_a_chinese_submission_in_chinese():
    case, why = _a_translated_why()
    spec = load_spec(instructor_notebook(NAPKIN))
    grade_id = next(g for g, c in spec.checks.items() if case in c.cases)
    cases = spec.checks[grade_id].cases
    outcomes = [CaseOutcome(value="wrong") for _ in cases]
    with use_language(ZH):
        result = judge_exercise(spec, grade_id, outcomes, Report(status=Status.OK))
    assert result.message.startswith(f"{len(cases)} 项检查中有 {len(cases)} 项未通过：")
    assert f"[{why}]" in result.message
    assert "隐藏检查" in result.message or not any(spec.checks[grade_id].hidden)


def test_a_submission_declares_its_language_to_the_plan():
    spec = load_spec(instructor_notebook(NAPKIN))
    chinese = release_dir(ZH) / NAPKIN / f"{NAPKIN}.ipynb"
    assert plan_submission(chinese, spec).language == ZH
    assert plan_submission(RELEASE / NAPKIN / f"{NAPKIN}.ipynb", spec).language == "en"


def test_the_check_table_lines_up_in_chinese():
    result = NotebookResult(notebook="n.ipynb", assignment=NAPKIN, student="", tests=[
        ExerciseResult("test_training_flops", 2.0, 2.0, Status.PASSED, "All 3 checks passed.")])
    with use_language(ZH):
        table = result.table().splitlines()
    assert table[0].split() == ["练习", "得分", "状态", "信息"]
    assert table[2].split()[:3] == ["test_training_flops", "2/2", "通过"]


def test_a_plot_shows_its_title_labels_and_alt_text_translated():
    chinese = messages(ZH)
    # (a text its translation leaves as it is, "FLOPs", would pass with nothing translated)
    text = next(t for t, z in chinese.items() if z != t and len(t) < 40 and "{" not in t)
    fig, ax = plotting.subplots()
    ax.plot([1, 2], [1, 2], label=text)
    ax.set_title(text)
    ax.set_xlabel("an axis with no translation")
    ax.legend()
    with use_language(ZH):
        bundle = plotting.figure_bundle(fig, text)
    assert ax.get_title() == chinese[text]
    assert ax.get_legend().get_texts()[0].get_text() == chinese[text]
    assert ax.get_xlabel() == "an axis with no translation"
    assert bundle["text/plain"] == f"[plot] {' '.join(chinese[text].split())}"


def test_widgets_show_translated_labels_and_keep_their_values():
    with use_language(ZH):
        dropdown = choice("status", {"passed": 1, "failed": 0}, value=0)
        box = calculator(lambda n: {"points": n}, {"n": dropdown}, title="exercise")
    assert dropdown.description == "状态" and dropdown.value == 0
    assert dict(dropdown.options) == {"通过": 1, "未通过": 0}
    assert "练习" in box.children[0].value and "得分" in box.children[-1].value


@pytest.fixture
def toy_catalog(monkeypatch, tmp_path):
    """A zh-CN catalog of a few f-string templates, in place of the course's."""
    import polib

    from lecture_utils import i18n

    catalog = polib.POFile()
    for english, chinese in [
        ("Forward vs backward FLOPs per layer (batch {0})", "每层前向与反向 FLOPs（批量 {0}）"),
        ("{0} tokens in {1} seconds", "{1} 秒内处理 {0} 个 token"),
        ("{0} of {1}", "{1} 中的 {0}"),
        ("plain title", "普通标题"),
    ]:
        catalog.append(polib.POEntry(msgctxt="message", msgid=english, msgstr=chinese))
    (tmp_path / ZH).mkdir()
    catalog.save(str(tmp_path / ZH / "toy.po"))
    monkeypatch.setattr(i18n, "TRANSLATIONS", tmp_path)
    i18n.messages.cache_clear()
    i18n._templates.cache_clear()
    yield
    i18n.messages.cache_clear()
    i18n._templates.cache_clear()


def test_a_text_made_by_an_f_string_is_translated_with_its_values(toy_catalog):
    assert tr("Forward vs backward FLOPs per layer (batch 64)", ZH) == \
        "每层前向与反向 FLOPs（批量 64）"
    assert tr("2,048 tokens in 0.5 seconds", ZH) == "0.5 秒内处理 2,048 个 token"
    assert tr("plain title", ZH) == "普通标题"


def test_a_text_a_template_only_happens_to_fit_stays_english(toy_catalog):
    # "{0} of {1}" says too little to be matched: it would cut up any text with an "of"
    assert tr("Bar chart of memory per GPU", ZH) == "Bar chart of memory per GPU"
    # a value is a number or a name, not a sentence
    sentence = "Forward vs backward FLOPs per layer (batch " + "x " * 40 + ")"
    assert tr(sentence, ZH) == sentence


def test_an_f_string_becomes_a_template_and_a_bare_value_no_message():
    from autograder.translate.units import code_messages

    source = ('ax.set_title(f"Loss at step {step} ({lr:.1e})")\n'
              'plotting.show(fig, f"{alt}")\n'
              'table.add(f"copy_ {size} MiB {{raw}}", 1, 2)\n'
              'plotting.show(fig, f"Loss of {n} runs; " + "the first " + f"ends at {end}")\n')
    assert code_messages(source) == ["Loss at step {0} ({1})", "copy_ {0} MiB {{raw}}",
                                     "Loss of {0} runs; the first ends at {1}"]
