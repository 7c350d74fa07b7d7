"""lecture_utils.bits: bit patterns read through torch, their formatting, the finfo table, the
measured spacing, and the dtype explorer widget's values."""

from __future__ import annotations

import math
import re

import pytest
import torch

from lecture_utils import bits

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_formats_know_their_field_widths():
    assert [(f.name, f.bits) for f in bits.FORMATS] == [
        ("fp32", 32), ("bf16", 16), ("fp16", 16), ("fp8 e4m3", 8), ("fp8 e5m2", 8)]
    for fmt in bits.FORMATS:
        assert fmt.bits == 8 * fmt.dtype.itemsize
        assert bits.float_format(fmt.dtype) is fmt
    assert bits.float_format(torch.float64).bits == 64
    with pytest.raises(ValueError, match="no bit layout"):
        bits.float_format(torch.int32)


@pytest.mark.parametrize(("x", "dtype", "pattern"), [
    (1.0, torch.float16, 0x3C00),
    (-2.5, torch.float16, 0xC100),
    (0.1, torch.float32, 0x3DCCCCCD),
    (0.1, torch.bfloat16, 0x3DCD),
    (-0.0, torch.float16, 0x8000),
    (math.inf, torch.float32, 0x7F800000),
    (-math.inf, torch.bfloat16, 0xFF80),
    (448.0, torch.float8_e4m3fn, 0x7E),
    (-57344.0, torch.float8_e5m2, 0xFB),
    (1.0, torch.float64, 0x3FF0000000000000),
    (-1.0, torch.float64, 0xBFF0000000000000),   # above 2**63: still unsigned
])
def test_bits_of_and_from_bits_are_torchs_own_reading(x, dtype, pattern):
    assert bits.bits_of(x, dtype) == pattern
    back, stored = bits.from_bits(pattern, dtype), torch.tensor(x, dtype=dtype).item()
    assert back == stored and math.copysign(1, back) == math.copysign(1, x)


def test_bits_of_rounds_first_and_handles_lists_and_tensors():
    assert bits.bits_of(1e-8, torch.float16) == 0                   # underflows to +0
    assert bits.bits_of([1.0, 2.0], torch.float16) == [0x3C00, 0x4000]
    assert bits.bits_of(torch.tensor([1.0, -1.0], dtype=torch.float64), torch.bfloat16) == \
        [0x3F80, 0xBF80]
    assert bits.from_bits([0x3C00, 0x7C00], torch.float16) == [1.0, math.inf]
    assert math.isnan(bits.from_bits(0x7E00, torch.float16))


def test_every_value_lists_all_patterns_in_order():
    e4m3 = bits.every_value(torch.float8_e4m3fn)
    assert e4m3.shape == (256,) and e4m3.dtype == torch.float64
    assert e4m3[0x38] == 1.0 and e4m3[0x7E] == 448 and math.isnan(e4m3[0x7F])
    fp16 = bits.every_value(torch.float16)
    assert fp16.shape == (65536,) and fp16[0x3C00] == 1.0 and fp16[0xFBFF] == -65504
    with pytest.raises(ValueError, match="too many"):
        bits.every_value(torch.float32)


def test_smallest_subnormals():
    assert bits.smallest_subnormal(torch.float16) == 2.0**-24
    assert bits.smallest_subnormal(torch.bfloat16) == 2.0**-133
    assert bits.smallest_subnormal(torch.float32) == 2.0**-149
    assert bits.smallest_subnormal(torch.float8_e4m3fn) == 2.0**-9
    assert bits.smallest_subnormal(torch.float8_e5m2) == 2.0**-16


def test_format_bits_separates_and_colours_the_fields():
    assert bits.split_bits(0x3C00, torch.float16) == ("0", "01111", "0000000000")
    assert bits.format_bits(0x3DCD, torch.bfloat16) == "0 01111011 1001101"
    assert bits.format_bits(0x7E, torch.float8_e4m3fn) == "0 1111 110"
    ansi = bits.format_bits(0xC100, torch.float16, "ansi")
    assert ANSI.sub("", ansi) == "1 10000 0100000000" and ansi.count("\x1b[0m") == 3
    html = bits.format_bits(0xC100, torch.float16, "html")
    assert html.count("<span") == 3 and ">10000</span>" in html
    with pytest.raises(ValueError, match="style"):
        bits.format_bits(0, torch.float16, "latex")
    with pytest.raises(ValueError, match="does not fit"):
        bits.split_bits(0x1FF, torch.float8_e5m2)


def test_describe_shows_bits_hex_and_stored_value():
    line = ANSI.sub("", bits.describe(0.1, torch.float16))
    assert line.startswith("fp16") and "0 01011 1001100110" in line
    assert "0x2E66" in line and line.endswith("stored: 0.0999755859375")
    widths = {len(ANSI.sub("", bits.describe(x, torch.float16)).split("0x")[0])
              for x in (1.0, -2.5, 65504.0)}
    assert len(widths) == 1      # colour codes do not upset the alignment


def test_finfo_rows_hold_the_lecture_numbers():
    rows = {r["dtype"]: r for r in bits.finfo_rows()}
    assert rows["fp16"]["max"] == 65504
    assert rows["fp8 e4m3"]["max"] == 448
    assert rows["fp8 e5m2"]["max"] == 57344
    assert rows["bf16"]["smallest normal"] == rows["fp32"]["smallest normal"] == 2.0**-126
    assert rows["fp16"]["smallest subnormal"] == 2.0**-24
    assert (rows["fp32"]["eps"], rows["bf16"]["eps"]) == (2.0**-23, 2.0**-7)
    table = bits.finfo_table()
    assert len(table.splitlines()) == 2 + len(bits.FORMATS) and "65504" in table


def test_spacing_is_measured_by_nextafter_or_by_listing_every_value():
    gaps = bits.spacing([1.0, 1000.0, 1e-6], torch.float16).tolist()
    assert gaps == [2.0**-10, 0.5, 2.0**-24]
    assert bits.spacing([1.0], torch.float32).item() == 2.0**-23
    assert bits.spacing([1000.0], torch.bfloat16).item() == 4.0
    # fp8: torch has no nextafter, so the gaps come from the sorted list of values
    assert bits.spacing([1.0, 100.0, 0.005], torch.float8_e4m3fn).tolist() == [0.125, 8.0, 2.0**-9]
    assert bits.spacing([1.0, 100.0], torch.float8_e5m2).tolist() == [0.25, 16.0]
    assert math.isnan(bits.spacing([448.0], torch.float8_e4m3fn).item())   # nothing above max


def _row(rows, name):
    return next(r for r in rows if r["dtype"] == name)


def test_explorer_rows_show_the_stored_value_in_every_dtype():
    rows = bits.explorer_rows("1e-8")
    assert [r["dtype"] for r in rows] == [f.name for f in bits.FORMATS]
    assert _row(rows, "fp16")["stored value"] == "0.0"
    assert _row(rows, "fp16")["relative error"] == "underflow: became 0"
    assert _row(rows, "bf16")["stored value"] == "1.0011717677116394e-08"
    assert _row(rows, "bf16")["relative error"] == "0.00117"
    big = bits.explorer_rows("70000")
    assert _row(big, "fp16")["stored value"] == "inf"
    assert _row(big, "fp16")["relative error"] == "overflow: became inf"
    assert _row(big, "fp16")["bits"] == "0 11111 0000000000"
    assert _row(big, "fp16")["hex"] == "0x7C00"
    assert _row(big, "fp8 e4m3")["stored value"] == "448.0"
    assert _row(bits.explorer_rows("1"), "fp32")["relative error"] == "0 (exact)"
    assert _row(bits.explorer_rows(" 1_000 "), "fp16")["stored value"] == "1000.0"
    assert _row(bits.explorer_rows("nan"), "fp32")["relative error"] == "nan stays nan"
    assert _row(bits.explorer_rows("-0"), "bf16")["hex"] == "0x8000"
    with pytest.raises(ValueError, match="not a number"):
        bits.explorer_rows("ten")


def test_explorer_compares_a_decoder_with_torch():
    def exact(pattern, exp_bits, man_bits):            # reads the bits the way torch does
        dtype = {(8, 23): torch.float32, (8, 7): torch.bfloat16, (5, 10): torch.float16,
                 (4, 3): torch.float8_e4m3fn, (5, 2): torch.float8_e5m2}[(exp_bits, man_bits)]
        return bits.from_bits(pattern, dtype)

    rows = bits.explorer_rows("300", exact)
    assert all(r["your decode_float"].endswith("✓ same") for r in rows)

    def ieee_only(pattern, exp_bits, man_bits):         # reads E4M3's 288 as nan
        return math.nan if (exp_bits, man_bits) == (4, 3) else exact(pattern, exp_bits, man_bits)

    e4m3 = _row(bits.explorer_rows("300", ieee_only), "fp8 e4m3")["your decode_float"]
    assert e4m3 == "nan ✗ differs (torch's e4m3fn is not IEEE)"

    def unfinished(*_):
        raise NotImplementedError()

    assert _row(bits.explorer_rows("1", unfinished), "fp16")["your decode_float"] == \
        "finish exercise 1"
    broken = bits.explorer_rows("1", lambda *_: 1 / 0)
    assert _row(broken, "fp16")["your decode_float"] == "raised ZeroDivisionError"
    # -0.0 compares equal to 0.0, yet a decoder that loses the sign reads the pattern wrong
    assert all(r["your decode_float"].endswith("✓ same")
               for r in bits.explorer_rows("-0", exact))
    unsigned_zero = _row(bits.explorer_rows("-0", lambda *_: 0.0), "fp16")["your decode_float"]
    assert unsigned_zero == "0.0 ✗ differs"


def test_explorer_html_colours_the_bits_and_reports_bad_input():
    page = bits.explorer_html("0.1")
    assert page.count("<tr>") == 1 + len(bits.FORMATS)
    assert ">0x2E66<" in page and "<span style='color:#d62728'>0</span>" in page
    assert "not a number" in bits.explorer_html("0.1.2")
    assert "&lt;b&gt;" in bits.explorer_html("<b>")           # typed text is escaped


def test_dtype_explorer_widget_updates_when_a_number_is_typed():
    box = bits.dtype_explorer("0.1")
    title, text, output = box.children
    assert "A number in every dtype" in title.value
    assert ">0x2E66<" in output.value                          # fp16 of 0.1
    text.value = "1e-8"
    assert "underflow: became 0" in output.value
    assert "1.0011717677116394e-08" in output.value            # bf16 keeps it
    text.value = "70000"
    assert "overflow: became inf" in output.value and ">448.0<" in output.value
    with_decoder = bits.dtype_explorer("1", decoder=lambda *_: (_ for _ in ()).throw(
        NotImplementedError()))
    assert "finish exercise 1" in with_decoder.children[-1].value
