from lecture_utils.compare import EstimateTable


def test_table_shows_estimate_measurement_and_ratio():
    table = EstimateTable(unit="bytes").add("4x8 fp32", 128, 128).add("view", 16, 64)
    lines = str(table).splitlines()
    assert lines[0].split() == ["quantity", "estimate", "(bytes)", "measured", "(bytes)",
                                "measured/estimate"]
    assert lines[2].split() == ["4x8", "fp32", "128", "128", "1.000"]
    assert lines[3].split() == ["view", "16", "64", "4.000"]
    assert table.ratios() == [1.0, 4.0]


def test_zero_estimate_has_no_ratio_and_custom_format():
    table = EstimateTable(fmt=lambda x: f"{x:.1e}").add("flops", 0, 5.0)
    assert table.ratios() == [None]
    assert str(table).splitlines()[2].split() == ["flops", "0.0e+00", "5.0e+00", "n/a"]


def test_figures_from_papers_are_labelled_reported_not_measured():
    table = EstimateTable("FLOPs", measured_label="reported").add("GPT-3", 3.15e23, 3.14e23)
    header = str(table).splitlines()[0].split()
    assert "reported" in header and "reported/estimate" in header and "measured" not in header


def test_a_chinese_table_puts_its_unit_in_full_width_brackets():
    """Kills: the unit written as " (FLOPs)" in a Chinese header beside full-width text."""
    from lecture_utils.i18n import use_language

    with use_language("zh-CN"):
        text = str(EstimateTable("FLOPs").add("x", 6.0, 6.0))
    assert "（FLOPs）" in text and " (FLOPs)" not in text
    assert " (FLOPs)" in str(EstimateTable("FLOPs").add("x", 6.0, 6.0))
