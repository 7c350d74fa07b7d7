"""The class report page in Chromium: student values that are markup (the payloads the
formgrader test plants, and the values of tests/hostile/'s ``returns_*`` submissions) show as
text; nothing runs, nothing is fetched. And if markup ever got through the escaping, the
page's Content-Security-Policy still blocks it."""

from __future__ import annotations

import html
import math
from html.parser import HTMLParser
from pathlib import Path

import pytest
from support.lab import CHROMIUM, chromium

from autograder.record import record_path, write_record
from autograder.results import CaseResult, NotebookResult, TestResult, short_value
from autograder.spec import AssignmentSpec, GradedCheck, parse_cases, strip_hidden
from autograder.stats import write_stats
from autograder.stats.page import CSP

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt install "
                       "chromium); scripts/test.sh installs it where apt-get is available"),
]
A = "hostile"
RUN = "window.pwned=1"
# each at most 80 characters, so that a record keeps it whole
MARKUP = [
    f"<script>{RUN}</script>",
    f"<img src=x onerror={RUN}>",
    f"<svg onload={RUN}><circle r=5 /></svg>",
    '<iframe srcdoc="<script>parent.pwned=1</script>"></iframe>',
    f'"><img src=x onerror={RUN}>',  # out of an attribute (the images' alt text)
    f"'><script>{RUN}</script>",
    f"</title><script>{RUN}</script>",
    f"</code></td></tr></table><script>{RUN}</script>",
    f'<a href="javascript:{RUN}">click</a>',
    '<meta http-equiv="refresh" content="0;url=http://evil.example/">',
    '<base href="http://evil.example/">',
    "<style>body{background:url(http://evil.example/x.png)}</style>",
    '<img src="http://evil.example/beacon.png">',
    "<link rel=stylesheet href=http://evil.example/x.css>",
    "<noscript><p title=\"</noscript><img src=x onerror=window.pwned=1>\">",
    "$\\mathrm{x}$ \u202eevil\x1b[31m",  # mathtext in a plot label, bidi, a terminal escape
]
DEEP: list = []
for _ in range(10_000):
    DEEP = [DEEP]
# what tests/hostile/returns_*.py return, as the grader records it
RETURNED = [short_value(v) for v in (10**100_000, 10**400, "x" * 1_000_000, math.nan,
                                      math.inf, DEEP, -1)]
SOURCE = 'check([Case("tensor_bytes(x)", 128, "a float32 of 32 elements")])'


class _Links(HTMLParser):
    """Every URL an element of the page would load or follow."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [value or "" for name, value in attrs
                      if name in ("src", "href", "action", "srcset", "data", "content")
                      and not (tag == "meta" and name == "content")]


def _course(root: Path) -> Path:
    cases, hidden = parse_cases(SOURCE, "t")
    spec = AssignmentSpec(A, checks={"test_tensor_bytes": GradedCheck(
        "test_tensor_bytes", 1.0, cases, hidden, strip_hidden(SOURCE), {})})
    values = MARKUP + RETURNED
    for number, value in enumerate(values * 2):  # twice: each is a common wrong value
        test = TestResult("test_tensor_bytes", 0.0, 1.0, "failed", "",
                          [CaseResult(0, False, False, "failed", value)])
        student = f"s{number}"
        write_record(record_path(root, A, student), NotebookResult("n", A, [test],
                                                                   student=student), "fp")
    write_stats(root, A, spec, top=len(values), progress=False)
    return root / "stats" / A / "report.html"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    return _course(tmp_path_factory.mktemp("stats"))


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


def _visit(browser, path: Path) -> dict:
    """Open ``path`` as a file, as the instructor does; record every sign of a payload."""
    page = browser.new_page()
    requests, dialogs, refused = [], [], []

    def network(route) -> None:  # what reaches the network: the page itself, nothing else
        if route.request.url == path.as_uri():
            route.continue_()
        else:
            requests.append(route.request.url)
            route.abort()

    page.route("**/*", network)
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    # (Chromium reports a load its Content-Security-Policy refused as a failed request)
    page.on("requestfailed", lambda request: refused.append(request.failure)
            if request.url != path.as_uri() else None)
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_timeout(300)  # onerror and onload handlers, srcdoc frames, a refresh
    found = {
        "ran": [frame.evaluate("() => typeof window.pwned !== 'undefined'")
                for frame in page.frames if not frame.is_detached()],
        "requests": [u for u in requests if u != path.as_uri() and not u.startswith("data:")],
        "dialogs": dialogs,
        "refused": refused,
        "url": page.url,
        "text": page.inner_text("body"),
        "active": page.evaluate("""() => {
            const found = [];
            for (const sel of ['script', 'iframe', 'svg', 'a', 'base', 'link', 'noscript',
                               'meta[http-equiv="refresh" i]', 'body style']) {
                if (document.querySelector(sel)) found.push(sel);
            }
            for (const img of document.images) {
                if (!img.src.startsWith('data:image/png;base64,')) found.push('img ' + img.src);
            }
            for (const el of document.querySelectorAll('*')) {
                for (const attr of el.getAttributeNames()) {
                    if (attr.toLowerCase().startsWith('on')) found.push(el.tagName + ' ' + attr);
                }
            }
            return found;
        }"""),
        "images": page.evaluate("() => [...document.images].map(i => i.alt)"),
    }
    page.close()
    return found


def test_hostile_values_show_as_text_and_nothing_runs_or_loads(browser, report):
    seen = _visit(browser, report)
    assert seen["ran"] == [False] and seen["dialogs"] == []
    assert seen["requests"] == [] and seen["url"] == report.as_uri()
    assert seen["active"] == []
    for value in MARKUP:  # shown as the grader recorded it: as text
        assert value.split("\x1b")[0] in seen["text"], value
    assert "an integer of about 100001 digits…" in seen["text"]
    # four plots, each with its alt text
    assert len(seen["images"]) == 4 and all(len(alt) > 40 for alt in seen["images"])


def test_the_page_is_self_contained_and_declares_its_policy(report):
    page = report.read_text(encoding="utf-8")
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in page
    assert CSP == ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
                   "base-uri 'none'; form-action 'none'")
    links = _Links()
    links.feed(page)
    assert [url[:22] for url in links.urls] == ["data:image/png;base64,"] * 4
    assert "http://" not in page.replace("http://evil.example", "") \
        and "https://" not in page
    assert "<script" not in page and html.escape(MARKUP[0]) in page


def test_the_policy_blocks_markup_that_got_through(browser, report, tmp_path):
    """Defence in depth: the same page with live payloads pasted in unescaped."""
    live = "".join(MARKUP[:4] + MARKUP[10:14])  # (no policy stops a meta refresh)
    broken = tmp_path / "report.html"
    broken.write_text(report.read_text(encoding="utf-8").replace("<body>", "<body>" + live, 1),
                      encoding="utf-8")
    seen = _visit(browser, broken)
    assert seen["ran"] == [False] * len(seen["ran"]) and seen["dialogs"] == []
    assert seen["requests"] == [] and seen["url"] == broken.as_uri(), seen["requests"]
    assert len(seen["refused"]) == 4 and set(seen["refused"]) == {"csp"}
