import subprocess
import sys

from lecture_utils import widgets


def test_calculator_recomputes_when_a_control_changes():
    gpus = widgets.slider("GPUs", 1024, 1, 4096, 1)
    mfu = widgets.slider("MFU", 0.5, 0.05, 1.0, 0.05)

    def days(n_gpus, mfu):
        return {"days": f"{6.3e24 / (n_gpus * 989.5e12 * mfu) / 86400:.1f}"}

    box = widgets.calculator(days, {"n_gpus": gpus, "mfu": mfu}, title="Training time")
    output = box.children[-1]
    assert "<b>143.9</b>" in output.value
    gpus.value = 2048
    assert "<b>72.0</b>" in output.value
    assert "Training time" in box.children[0].value


def test_calculator_shows_errors_in_place():
    box = widgets.calculator(lambda x: str(1 / x), {"x": widgets.slider("x", 1, 0, 2, 1)})
    assert box.children[-1].value == "1.0"
    box.children[0].value = 0
    assert "ZeroDivisionError" in box.children[-1].value


def test_calculator_names_the_unfinished_exercises():
    def unfinished(x):
        raise NotImplementedError()

    box = widgets.calculator(unfinished, {"x": widgets.slider("x", 1, 0, 2, 1)},
                             uses_exercises=(1, 2))
    assert box.children[-1].value == "Finish exercises 1 and 2 above to see this."
    plain = widgets.calculator(unfinished, {"x": widgets.slider("x", 1, 0, 2, 1)})
    assert "Finish the exercises above" in plain.children[-1].value


def test_log_slider_spans_orders_of_magnitude_and_choice_maps_labels():
    s = widgets.log_slider("params", 70e9, 1e6, 1e13)
    assert s.value == 70e9 and s.min == 6 and s.max == 13
    d = widgets.choice("GPU", {"H100": 989.5e12, "A100": 312e12}, value=312e12)
    assert d.label == "A100"


def test_int_slider_for_integers_float_otherwise():
    assert type(widgets.slider("n", 8, 1, 64, 1)).__name__ == "IntSlider"
    assert type(widgets.slider("mfu", 0.5, 0.0, 1.0, 0.1)).__name__ == "FloatSlider"


def test_subplots_use_the_course_style():
    import matplotlib

    matplotlib.use("Agg")
    from lecture_utils import plotting

    fig, axes = plotting.subplots(1, 2)
    assert len(axes) == 2
    assert tuple(fig.get_size_inches()) == (12.8, 3.6)
    assert matplotlib.rcParams["axes.spines.top"] is False
    assert matplotlib.rcParams["axes.prop_cycle"].by_key()["color"][0] == plotting.COLORS[0]


def test_heavy_libraries_load_only_when_used():
    code = (
        "import sys, lecture_utils, lecture_utils.plotting, lecture_utils.widgets, "
        "lecture_utils.flops, lecture_utils.memory, lecture_utils.hardware\n"
        "print(sorted(m for m in ('matplotlib', 'ipywidgets') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_calculator_tags_its_parts_for_the_accessibility_script():
    box = widgets.calculator(lambda x: str(x), {"x": widgets.slider("x", 1, 0, 2, 1)},
                             title="Doubler")
    title, control, result = box.children
    assert widgets.CALCULATOR_CLASS in box._dom_classes
    assert widgets.TITLE_CLASS in title._dom_classes
    assert widgets.RESULT_CLASS in result._dom_classes
    assert control.description == "x"
    for name in (widgets.CALCULATOR_CLASS, widgets.TITLE_CLASS, widgets.RESULT_CLASS):
        assert f'".{name}' in widgets.A11Y_SCRIPT
    for attribute in ('"aria-label"', '"aria-labelledby"', '"aria-live", "polite"',
                      '"role", "group"'):
        assert attribute in widgets.A11Y_SCRIPT


def test_calculator_sends_its_script_only_inside_ipython(monkeypatch):
    import IPython
    import IPython.display

    sent = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, **kw: sent.append((obj, kw)))
    # no shell (another test in this process may have started one): a script would only
    # print its repr
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    widgets.calculator(lambda x: str(x), {"x": widgets.slider("x", 1, 0, 2, 1)})
    assert sent == []
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    widgets.calculator(lambda x: str(x), {"x": widgets.slider("x", 1, 0, 2, 1)})
    assert sent == [({"application/javascript": widgets.A11Y_SCRIPT, "text/plain": ""},
                     {"raw": True})]


def test_dropdown_options_reach_ipywidgets_as_pairs_both_versions_take():
    from lecture_utils import widget_compat

    # ipywidgets 7.7 warns that a mapping is deprecated; pairs mean the same to 7 and 8
    assert widget_compat.options({"H100": 1, "A100": 2}) == [("H100", 1), ("A100", 2)]
    assert widget_compat.options(["bf16", "fp32"]) == ["bf16", "fp32"]
    dropdown = widgets.choice("GPU", {"H100": 989.5e12, "A100": 312e12}, value=312e12)
    assert dropdown.label == "A100" and dropdown.options == (("H100", 989.5e12),
                                                             ("A100", 312e12))


def test_descriptions_are_escaped_only_where_ipywidgets_renders_them_as_html(monkeypatch):
    from lecture_utils import widget_compat

    assert widget_compat.major_version() == 8  # the project's environment
    assert widgets.slider("a < b & c", 1, 0, 2, 1).description == "a < b & c"
    monkeypatch.setattr(widget_compat, "major_version", lambda: 7)  # Colab's 7.7.1
    assert widgets.slider("a < b & c", 1, 0, 2, 1).description == "a &lt; b &amp; c"
    assert widgets.choice("x > y", ["a"]).description == "x &gt; y"
    assert widgets.log_slider("p < q", 10, 1, 100).description == "p &lt; q"


def test_the_accessibility_script_finds_the_slider_handle_of_both_versions():
    from lecture_utils import widget_compat

    # noUiSlider (ipywidgets 8) and jQuery UI (7, whose handle has no role of its own)
    assert widget_compat.SLIDER_HANDLE == ".noUi-handle, .ui-slider-handle"
    assert f'querySelector("{widget_compat.SLIDER_HANDLE}")' in widgets.A11Y_SCRIPT
    assert 'setAttribute("role", "slider")' in widgets.A11Y_SCRIPT
