"""Does sanitising take time linear in the size of what a student wrote, however hostile?

Times ``sanitize_markdown`` (a markdown cell: nbconvert's renderer, then the checks and
ammonia) and ``sanitize_raw`` (a raw HTML cell) on markup built to be slow: deep nesting,
many attributes, unclosed tags, long runs of ``<`` or ``&``, markdown nesting, emphasis and
link delimiters, and, for comparison, an honest cell repeated. Each is timed at sizes from
16 KiB to 4 MiB in the same run, and printed as microseconds per KiB with the ratio of each
size's per-KiB time to the 16 KiB one: a flat (or falling) row is linear, a row that
doubles with each doubling of size would be quadratic. (Before nh3, 16, 32 and 64 KiB of
nested ``<ul><li>`` took 7, 25 and 97 s.)

    .venv/bin/python benchmarks/sanitize_scaling.py [--sizes 16,64,256,1024,4096] [--only ul]

Cells that would take longer than linear time to check (``markup.MARKDOWN_CHARS``,
``BLOCK_CHARS``, ``NESTING``, ``CHUNK_CHARS`` and the like) are shown as plain text instead, marked
``*``: most hostile rows fall once past 16 KiB. About a minute on a 2-core machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO)]

from autograder.sanitize import markup  # noqa: E402

HONEST = (
    "## Memory\n\nA tensor takes **bytes per element** times *elements*: $4 \\times 10^6$ "
    "bytes, see [the notes](https://example.com/notes) and H<sub>2</sub>O.\n\n"
    "| dtype | bytes |\n| --- | ---: |\n| float32 | 4 |\n| bfloat16 | 2 |\n\n"
    "```python\nx = torch.zeros(4, 8)  # 128 bytes\n```\n\n- one\n- two\n  - nested\n\n")


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _lines(make_line: Callable[[int], str], size: int) -> str:
    out, total, i = [], 0, 0
    while total < size:
        line = make_line(i)
        out.append(line)
        total += len(line)
        i += 1
    return "".join(out)[:size]


# name -> (kind, builder of a cell of about `size` characters)
CASES: dict[str, tuple[str, Callable[[int], str]]] = {
    "honest markdown": ("markdown", lambda n: _repeat(HONEST, n)),
    "nested <ul><li>": ("markdown", lambda n: _repeat("<ul><li>", n)),
    "nested <div><blockquote>": ("markdown", lambda n: _repeat("<div><blockquote>", n)),
    "many attributes": ("markdown", lambda n: "<b " + _repeat('a="1" ', n - 10) + ">x</b>"),
    "unclosed tags": ("markdown", lambda n: _repeat("<a b=c <p ", n)),
    "run of <": ("markdown", lambda n: "<" * n),
    "run of &": ("markdown", lambda n: "&" * n),
    "> > > quotes": ("markdown", lambda n: _lines(lambda i: "> " * (i % 40) + "x\n", n)),
    "* * * lists": ("markdown", lambda n: _lines(lambda i: "  " * (i % 40) + "* x\n", n)),
    "emphasis *a_": ("markdown", lambda n: _repeat("*a_", n)),
    "open links [a](": ("markdown", lambda n: _repeat("[a](", n)),
    "short paragraphs of [a](": ("markdown", lambda n: _repeat("[a](" * 200 + "\n\n", n)),
    "raw: nested <div>": ("raw", lambda n: _repeat("<div>", n)),
    "raw: many attributes": ("raw", lambda n: "<b " + _repeat('a="1" ', n - 10) + ">x</b>"),
    "raw: unclosed tags": ("raw", lambda n: _repeat("<a b=c <p ", n)),
    "raw: distinct attributes": ("raw", lambda n: "<b " + "".join(
        f"a{i}=1 " for i in range(n // 8)) + ">x</b>"),
    "raw: out of a table": ("raw", lambda n: "<table>" + _repeat("<b>x</b>", n)),
    "raw: reopened formatting": ("raw", lambda n: "<p>" + "".join(
        f"<b title={i}>" for i in range(15)) + "</p>" + _repeat("<p>x</p>", n)),
    "raw: honest table": ("raw", lambda n: _repeat(
        "<table><tr><td><b>1</b></td><td style=\"color: red\">2</td></tr></table>\n", n)),
    "raw: script and comments": ("raw", lambda n: _repeat(
        "<script>x</script><!-- c --><img src=x onerror=alert(1)>", n)),
}


def _seconds(kind: str, source: str) -> tuple[float, bool]:
    """The best of a few runs (one for large inputs), with the markdown cache cleared, and
    whether the cell came out as plain text (too large or deep to check)."""
    run = markup.sanitize_markdown if kind == "markdown" else markup.sanitize_raw
    best, spent, as_text = float("inf"), 0.0, False
    while spent < 0.3 and (best == float("inf") or len(source) < 2**20):
        markup._sanitize_markdown_text.cache_clear()
        start = time.perf_counter()
        _, removed = run(source)
        elapsed = time.perf_counter() - start
        best, spent, as_text = min(best, elapsed), spent + elapsed, markup.TOO_BIG in removed
    return best, as_text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="16,64,256,1024,4096", help="in KiB")
    parser.add_argument("--only", default="", help="only the cases whose name has this")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    markup.render_markdown("warm up: import nbconvert")
    width = max(len(name) for name in CASES)
    print(f"{'µs per KiB (ratio to ' + str(sizes[0]) + ' KiB)':{width}}  " +
          "  ".join(f"{str(s) + ' KiB':>16}" for s in sizes))
    started = time.perf_counter()
    for name, (kind, build) in CASES.items():
        if args.only not in name:
            continue
        row, marks = [], []
        for size in sizes:
            seconds, as_text = _seconds(kind, build(size * 1024))
            row.append(seconds * 1e6 / size)
            marks.append("*" if as_text else " ")
        cells = [f"{t:8.0f} ({t / row[0]:4.2f}){m}" for t, m in zip(row, marks)]
        print(f"{name:{width}}  " + "  ".join(f"{c:>16}" for c in cells), flush=True)
    print(f"* shown as plain text (too large or too deeply nested to check); "
          f"{time.perf_counter() - started:.0f} s in all")


if __name__ == "__main__":
    main()
