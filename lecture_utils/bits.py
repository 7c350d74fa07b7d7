"""Bit patterns of floating-point numbers, read from torch itself.

Every value here comes from torch: a number is cast to a dtype (``torch.tensor(x, dtype=d)``,
which rounds it) and the bytes it is stored in are read back as an unsigned integer of the
same width with ``Tensor.view``; a bit pattern goes the other way, through the same view.
Nothing here works out what sign, exponent and mantissa *mean*: that arithmetic is notebook
03's exercise, and these helpers are what it is checked against.

``FORMATS`` lists the floating-point dtypes the notebooks compare, with their field widths;
``format_bits`` prints a pattern with the three fields separated (and coloured, in a terminal
or in HTML); ``finfo_table`` lays out ``torch.finfo``; ``spacing`` measures the gap between
neighbouring representable numbers; ``dtype_explorer`` is the widget that shows a number typed
in, as stored by every dtype.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class FloatFormat:
    """A floating-point dtype and the widths of its fields (the sign takes one bit)."""

    name: str
    dtype: torch.dtype
    exp_bits: int
    man_bits: int

    @property
    def bits(self) -> int:
        return 1 + self.exp_bits + self.man_bits


FP32 = FloatFormat("fp32", torch.float32, 8, 23)
BF16 = FloatFormat("bf16", torch.bfloat16, 8, 7)
FP16 = FloatFormat("fp16", torch.float16, 5, 10)
E4M3 = FloatFormat("fp8 e4m3", torch.float8_e4m3fn, 4, 3)
E5M2 = FloatFormat("fp8 e5m2", torch.float8_e5m2, 5, 2)
FP64 = FloatFormat("fp64", torch.float64, 11, 52)

# The formats the notebooks compare, widest first. fp64 is known to ``float_format`` too.
FORMATS: tuple[FloatFormat, ...] = (FP32, BF16, FP16, E4M3, E5M2)
_BY_DTYPE = {f.dtype: f for f in (*FORMATS, FP64)}

# Unsigned integers of each width: a view through them reads a pattern as a non-negative int.
_UNSIGNED = {1: torch.uint8, 2: torch.uint16, 4: torch.uint32, 8: torch.uint64}

# Colours of the three fields: ANSI codes for printed text (Jupyter renders them), CSS for HTML.
_ANSI = {"sign": "\x1b[31m", "exponent": "\x1b[34m", "mantissa": "\x1b[32m"}
_ANSI_RESET = "\x1b[0m"
_CSS = {"sign": "#d62728", "exponent": "#1f77b4", "mantissa": "#2ca02c"}


def float_format(dtype: torch.dtype) -> FloatFormat:
    """The ``FloatFormat`` of a floating-point dtype (fp32, bf16, fp16, both fp8s, fp64)."""
    try:
        return _BY_DTYPE[dtype]
    except KeyError:
        raise ValueError(f"no bit layout known for {dtype}") from None


def _unsigned(dtype: torch.dtype) -> torch.dtype:
    return _UNSIGNED[float_format(dtype).bits // 8]


def bits_of(x: Any, dtype: torch.dtype) -> int | list:
    """The bit pattern(s), as unsigned ints, that store ``x`` in ``dtype``.

    ``x`` (a number, a list or a tensor) is cast to ``dtype`` first, which rounds it; then its
    bytes are reinterpreted with ``Tensor.view``. A scalar gives an int, anything else a list.
    """
    stored = x.to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(x, dtype=dtype)
    return stored.view(_unsigned(dtype)).tolist()


def from_bits(patterns: Any, dtype: torch.dtype) -> float | list:
    """The number(s) of ``dtype`` whose bit pattern is ``patterns`` (unsigned ints), read with
    ``Tensor.view``: torch's own reading of the bits. A scalar gives a float, else a list."""
    return torch.tensor(patterns, dtype=_unsigned(dtype)).view(dtype).double().tolist()


def every_value(dtype: torch.dtype) -> torch.Tensor:
    """All 2^bits numbers of an 8- or 16-bit dtype, as float64, indexed by bit pattern."""
    width = float_format(dtype).bits
    if width > 16:
        raise ValueError(f"{dtype} has 2^{width} bit patterns: too many to list")
    patterns = torch.arange(2**width, dtype=torch.int32).to(_unsigned(dtype))
    return patterns.view(dtype).double()


def smallest_subnormal(dtype: torch.dtype) -> float:
    """The smallest positive number of ``dtype``: the pattern 0…01, read by torch."""
    return from_bits(1, dtype)


def split_bits(pattern: int, dtype: torch.dtype) -> tuple[str, str, str]:
    """The sign, exponent and mantissa fields of ``pattern`` in ``dtype``, as binary strings."""
    fmt = float_format(dtype)
    text = format(pattern, f"0{fmt.bits}b")
    if len(text) != fmt.bits:
        raise ValueError(f"{pattern:#x} does not fit in the {fmt.bits} bits of {dtype}")
    return text[0], text[1:1 + fmt.exp_bits], text[1 + fmt.exp_bits:]


def format_bits(pattern: int, dtype: torch.dtype, style: str = "plain") -> str:
    """``pattern`` as ``sign exponent mantissa``, the fields separated by spaces.

    ``style``: ``"plain"`` text, ``"ansi"`` (coloured in a terminal or a notebook's printed
    output) or ``"html"`` (coloured spans).
    """
    parts = dict(zip(("sign", "exponent", "mantissa"), split_bits(pattern, dtype)))
    if style == "plain":
        return " ".join(parts.values())
    if style == "ansi":
        return " ".join(f"{_ANSI[k]}{v}{_ANSI_RESET}" for k, v in parts.items())
    if style == "html":
        return " ".join(f"<span style='color:{_CSS[k]}'>{v}</span>" for k, v in parts.items())
    raise ValueError(f"style must be 'plain', 'ansi' or 'html', not {style!r}")


def legend(style: str = "ansi") -> str:
    """The words sign, exponent, mantissa in the colours ``format_bits`` uses."""
    if style == "ansi":
        return " ".join(f"{_ANSI[k]}{k}{_ANSI_RESET}" for k in _ANSI)
    if style == "html":
        return " ".join(f"<span style='color:{_CSS[k]}'>{k}</span>" for k in _CSS)
    return "sign exponent mantissa"


def describe(x: float, dtype: torch.dtype, style: str = "ansi") -> str:
    """One line: the dtype, the bits that store ``x`` in it (fields separated), the pattern in
    hex, and the value actually stored."""
    fmt = float_format(dtype)
    pattern = bits_of(x, dtype)
    shown = format_bits(pattern, dtype, style)
    pad = " " * (fmt.bits + 2 - len(format_bits(pattern, dtype)))  # align the colourless width
    return (f"{fmt.name:<9} {shown}{pad} 0x{pattern:0{fmt.bits // 4}X}  "
            f"stored: {from_bits(pattern, dtype)!r}")


def finfo_rows(dtypes: Sequence[torch.dtype] | None = None) -> list[dict[str, Any]]:
    """What ``torch.finfo`` says about each dtype, with the field widths and the smallest
    subnormal (``finfo`` has no entry for it; it is read from the pattern 0…01)."""
    rows = []
    for dtype in dtypes or [f.dtype for f in FORMATS]:
        fmt, info = float_format(dtype), torch.finfo(dtype)
        rows.append({"dtype": fmt.name, "bits": info.bits, "exponent bits": fmt.exp_bits,
                     "mantissa bits": fmt.man_bits, "max": info.max,
                     "smallest normal": info.smallest_normal,
                     "smallest subnormal": smallest_subnormal(dtype), "eps": info.eps})
    return rows


def finfo_table(dtypes: Sequence[torch.dtype] | None = None) -> str:
    """``finfo_rows`` as a fixed-width text table."""
    rows = finfo_rows(dtypes)
    columns = list(rows[0])
    cells = [[f"{v:.6g}" if isinstance(v, float) else str(v) for v in row.values()]
             for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w)
                       for i, (c, w) in enumerate(zip(columns, widths)))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
              for r in cells]
    return "\n".join(lines)


def spacing(magnitudes: Any, dtype: torch.dtype) -> torch.Tensor:
    """Measured gap between the number of ``dtype`` nearest each magnitude and the next one up.

    Each magnitude (positive, below the dtype's max) is cast to ``dtype``; the next number up
    comes from ``torch.nextafter`` where torch implements it for the dtype, and otherwise
    (the fp8 formats) from the sorted list of every value the dtype has. Float64 result.
    """
    x = torch.as_tensor(magnitudes, dtype=torch.float64)
    stored = x.to(dtype)
    try:
        above = torch.nextafter(stored, torch.full_like(stored, math.inf))
        return above.double() - stored.double()
    except (RuntimeError, NotImplementedError):  # no nextafter for this dtype: list them all
        values = every_value(dtype)
        ladder = torch.unique(values[torch.isfinite(values) & (values >= 0)])  # sorted
        low = stored.double()
        index = torch.searchsorted(ladder, low, right=True).clamp(max=len(ladder) - 1)
        gap = ladder[index] - low
        return torch.where(gap > 0, gap, torch.full_like(gap, math.nan))


def _parse(text: str) -> float:
    try:
        return float(str(text).strip().replace("_", "").replace(",", ""))
    except ValueError:
        raise ValueError(f"{text!r} is not a number (try 0.1, 1e-8, 70000, inf or nan)") from None


def _relative_error(x: float, stored: float) -> str:
    if math.isnan(x) or math.isnan(stored):
        return "nan stays nan" if math.isnan(x) and math.isnan(stored) else "nan"
    if x == stored:
        return "0 (exact)"
    if x != 0 and stored == 0:
        return "underflow: became 0"
    if math.isinf(stored) and not math.isinf(x):
        return "overflow: became inf"
    if math.isinf(x):
        return f"inf became {stored:g} (clamped to the max)"
    return f"{abs(stored - x) / abs(x):.3g}"


def explorer_rows(text: str, decoder: Callable[[int, int, int], float] | None = None
                  ) -> list[dict[str, str]]:
    """The dtype explorer's table as plain text: for each dtype of ``FORMATS``, how the number
    in ``text`` is stored (value, bits, hex, relative error) and, when ``decoder`` is given
    (a ``decode_float(bits, exp_bits, man_bits)``), what it reads from those bits."""
    x = _parse(text)
    rows = []
    for fmt in FORMATS:
        pattern = bits_of(x, fmt.dtype)
        stored = from_bits(pattern, fmt.dtype)
        row = {"dtype": fmt.name, "stored value": repr(stored),
               "bits": format_bits(pattern, fmt.dtype),
               "hex": f"0x{pattern:0{fmt.bits // 4}X}",
               "relative error": _relative_error(x, stored)}
        if decoder is not None:
            row["your decode_float"] = _decoded(decoder, pattern, fmt, stored)
        rows.append(row)
    return rows


def _decoded(decoder: Callable[[int, int, int], float], pattern: int, fmt: FloatFormat,
             stored: float) -> str:
    try:
        got = float(decoder(pattern, fmt.exp_bits, fmt.man_bits))
    except NotImplementedError:
        return "finish exercise 1"
    except Exception as error:  # the student's error, shown in its cell of the table
        return f"raised {type(error).__name__}"
    # -0.0 == 0.0 in Python, but they are two patterns: a decoder must keep the sign
    same = ((got == stored and math.copysign(1, got) == math.copysign(1, stored))
            or (math.isnan(got) and math.isnan(stored)))
    mark = "✓ same" if same else "✗ differs"
    if not same and fmt is E4M3:
        mark += " (torch's e4m3fn is not IEEE)"
    return f"{got!r} {mark}"


def explorer_html(text: str, decoder: Callable[[int, int, int], float] | None = None) -> str:
    """``explorer_rows`` as an HTML table, the bit fields coloured."""
    try:
        rows = explorer_rows(text, decoder)
    except ValueError as problem:
        return f"<span style='color:#b00'>{html.escape(str(problem))}</span>"
    head = "".join(f"<th style='text-align:left;padding-right:1em'>{html.escape(c)}</th>"
                   for c in rows[0])
    body = []
    for row, fmt in zip(rows, FORMATS):
        cells = []
        for column, value in row.items():
            shown = (format_bits(int(row["hex"], 16), fmt.dtype, "html") if column == "bits"
                     else html.escape(value))
            cells.append(f"<td style='padding-right:1em;font-family:monospace'>{shown}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (f"<div>{legend('html')}</div><table><tr>{head}</tr>{''.join(body)}</table>")


def number_box(value: str = "0.1", description: str = "number") -> Any:
    """A text box for a number (``1e-8``, ``70000``, ``inf``...); updates on Enter or blur."""
    import ipywidgets as w

    return w.Text(value=value, description=description, continuous_update=False,
                  style={"description_width": "initial"}, layout=w.Layout(width="320px"))


def dtype_explorer(value: str = "0.1",
                   decoder: Callable[[int, int, int], float] | None = None) -> Any:
    """The widget: type a number, see its stored value and bits in every dtype of ``FORMATS``
    (and what ``decoder``, a student's ``decode_float``, reads from those bits)."""
    from lecture_utils import widgets

    return widgets.calculator(lambda text: explorer_html(text, decoder),
                              {"text": number_box(value)},
                              title="A number in every dtype")
