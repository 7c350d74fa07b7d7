"""Unit tests of ``autograder.sanitize``: no kernel, no browser, no nbgrader course.

Every hostile input is checked the way it would reach an instructor: rendered by nbconvert's
markdown renderer (what formgrader and the feedback page use) and parsed twice, by a WHATWG
parser (as a browser parses it) and by Python's lenient ``html.parser`` (a second opinion
with a different tokeniser). :func:`active_content` lists what in the parsed page could run
script or change the page; the expectations are derived from that, not from the module's
current output. Each hostile case is first shown to be live when rendered as written, so
that no test passes because its payload was harmless to begin with.
"""

from __future__ import annotations

import base64
import copy
import json
import re
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import nbformat
import pytest

# its vendored html5lib: a WHATWG (browser) parser, independent of the sanitiser's html5ever
from bleach import html5lib_shim
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.sanitize import (
    ALLOWED_CLASSES,
    ID_PREFIX,
    UNKNOWN_CELLS,
    check_html,
    clean_html,
    inert_markdown,
    note_cell,
    numbered_notes,
    plain_text,
    render_markdown,
    sanitize_attachments,
    sanitize_cell_metadata,
    sanitize_markdown,
    sanitize_notebook,
    sanitize_notebook_metadata,
    sanitize_outputs,
    sanitize_raw,
)
from autograder.sanitize.allow import filter_classes, filter_style
from autograder.sanitize.markup import MARKDOWN_CHARS, TOO_BIG, as_text
from autograder.sanitize.urls import image_problem, public_host

# ------------------------------------------------------------------ what counts as active

# Elements that run script, load or embed another document, change how the page's URLs
# resolve or what it looks like, submit data, or parse their content differently from their
# surroundings (the raw material of mutation XSS).
ACTIVE_ELEMENTS = frozenset({
    "script", "iframe", "frame", "frameset", "object", "embed", "applet", "param", "base",
    "meta", "link", "style", "form", "svg", "math", "noscript", "template", "noembed",
    "noframes", "xmp", "plaintext", "portal",
})
URL_ATTRIBUTES = frozenset({
    "href", "src", "action", "formaction", "data", "poster", "background", "srcset",
    "codebase", "dynsrc", "lowsrc", "ping",
})
RASTER_DATA = re.compile(r"^data:image/(png|jpeg|gif|webp)[;,]")
_C0_AND_SPACE = "".join(chr(i) for i in range(0x21))


def _url_as_browser_reads(value: str) -> str:
    """URL parsing drops tabs and newlines anywhere and C0 controls/spaces at either end."""
    return re.sub(r"[\t\n\r]", "", value).strip(_C0_AND_SPACE).lower()


def _judge(tag: str, attrs: list[tuple[str, str]], found: list[str]) -> None:
    tag = tag.rsplit("}", 1)[-1].lower()  # html5lib names foreign elements {namespace}tag
    if tag in ACTIVE_ELEMENTS:
        found.append(f"<{tag}>")
    for name, value in attrs:
        name = name.rsplit("}", 1)[-1].lower()  # {xlink namespace}href is an href too
        if name.startswith("on") or name in ("srcdoc", "http-equiv"):
            found.append(f"{name}= on <{tag}>")
        elif name == "class" and "mermaid" in value.lower():  # mermaid.js renders these
            found.append(f"mermaid class on <{tag}>")
        elif name in URL_ATTRIBUTES:
            url = _url_as_browser_reads(value)
            scheme = url.split(":", 1)[0] if ":" in url else ""
            if scheme in ("javascript", "vbscript", "livescript"):
                found.append(f"{scheme}: URL in <{tag} {name}>")
            elif scheme == "data" and not (tag == "img" and name == "src"
                                           and RASTER_DATA.match(url)):
                found.append(f"data: URL in <{tag} {name}>")


class _Lenient(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        _judge(tag, [(n, v or "") for n, v in attrs], self.found)


def findings(html: str) -> tuple[Counter[str], Counter[str]]:
    """Every active thing in ``html``, once per occurrence, as each of the two parsers
    sees it: a WHATWG parser (as browsers parse) and the lenient ``html.parser``."""
    strict: list[str] = []
    tree = html5lib_shim.HTMLParser(namespaceHTMLElements=False).parseFragment(html)
    for element in tree.iter():
        if isinstance(element.tag, str):  # comments have a function as their tag
            _judge(element.tag, [(str(n), v) for n, v in element.attrib.items()], strict)
    lenient = _Lenient()
    lenient.feed(html)
    lenient.close()
    return Counter(strict), Counter(lenient.found)


def active_content(html: str) -> list[str]:
    """What in ``html`` could run script or act on the page, as either parser reads it."""
    strict, lenient = findings(html)
    return sorted(set(strict) | set(lenient))


def page_text(html: str) -> str:
    """The text a reader sees in ``html`` (markup gone, character references decoded)."""
    tree = html5lib_shim.HTMLParser(namespaceHTMLElements=False).parseFragment(html)
    return "".join(tree.itertext())


def assert_safe_markdown(source: str, attachments: dict[str, Any] | None = None) -> None:
    html = render_markdown(source, attachments)
    assert active_content(html) == [], html


def assert_mentions(removed: list[str], fragments: list[str]) -> None:
    text = " | ".join(removed)
    for fragment in fragments:
        assert fragment.lower() in text.lower(), f"{fragment!r} not named in {removed}"


def _cases(table: dict[str, tuple[str, list[str]]]) -> list[Any]:
    return [pytest.param(source, notes, id=name) for name, (source, notes) in table.items()]


PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a1d1a3e6"
    "0000000049454e44ae426082")).decode()
SVG_SCRIPT = base64.b64encode(
    b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'><script>alert(2)</script>"
    b"</svg>").decode()
HTML_SCRIPT = base64.b64encode(b"<script>alert(1)</script>").decode()

# ------------------------------------------------------------------------------- markdown

# source -> words the "removed" notes must contain. Each is live when rendered as written.
HOSTILE_MARKDOWN: dict[str, tuple[str, list[str]]] = {
    # plain vectors
    "img-onerror": ("Hello <img src=x onerror=alert(1)>", ["onerror"]),
    "script-block": ("<script>alert(1)</script>", ["<script>"]),
    "script-inline": ("Some text <script>alert(1)</script> more text.", ["<script>"]),
    "svg-onload": ("<svg onload=alert(1)><circle r=5 /></svg>", ["<svg>"]),
    "svg-xlink-href": ('<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
                       ["<svg>"]),
    "iframe-srcdoc": ('<iframe srcdoc="<script>alert(1)</script>"></iframe>', ["<iframe>"]),
    "iframe-src-javascript": ('<iframe src="javascript:alert(1)"></iframe>', ["<iframe>"]),
    "object-embed": ('<object data="https://evil.example/x.swf"></object>'
                     '<embed src="data:text/html,<script>alert(1)</script>">',
                     ["<object>", "<embed>"]),
    "base-href": ("<base href='https://evil.example/'>", ["<base>"]),
    "meta-refresh": ("<meta http-equiv='refresh' content='0;url=javascript:alert(1)'>",
                     ["<meta>"]),
    "style-element": ("<style>body { background: url(https://evil.example/x.png) }</style>",
                      ["<style>"]),
    "link-stylesheet": ("<link rel=stylesheet href='https://evil.example/x.css'>", ["<link>"]),
    "form": ("<form action='https://evil.example/'><input name=q><button>go</button></form>",
             ["<form>"]),
    "form-formaction": ("<form><button formaction=javascript:alert(1)>x</button></form>",
                        ["<form>"]),
    "template": ("<template><img src=x onerror=alert(1)></template>", ["<template>"]),
    "details-ontoggle": ("<details open ontoggle=alert(1)><summary>x</summary></details>",
                         ["ontoggle"]),
    "input-onfocus": ("<input type=checkbox autofocus onfocus=alert(1)>", ["onfocus"]),
    "a-onclick": ('<a href="#top" onclick="alert(1)">x</a>', ["onclick"]),
    "p-onmouseover": ('<p title="hi" onmouseover="alert(1)">x</p>', ["onmouseover"]),
    # script-bearing links
    "md-link-javascript": ("[click](javascript:alert(1))", ["javascript:"]),
    "md-reference-link-javascript": ("[click][1]\n\n[1]: javascript:alert(1)", ["javascript:"]),
    "md-angle-link-javascript": ("[click](<javascript:alert(1)>)", ["javascript:"]),
    "md-autolink-javascript": ("<javascript:alert(1)>", ["javascript:"]),
    "md-image-javascript": ("![x](javascript:alert(1))", ["javascript:"]),
    "a-href-javascript": ('<a href="javascript:alert(1)">me</a>', ["javascript:"]),
    "a-href-data-html": ("<a href='data:text/html,<script>alert(1)</script>'>data</a>",
                         ["data:"]),
    "md-link-data-html": ("[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
                          ["data:"]),
    "md-image-data-html": ("![x](data:text/html,<script>alert(1)</script>)", ["data:"]),
    "img-data-svg": (f'<img src="data:image/svg+xml;base64,{SVG_SCRIPT}">', ["data:"]),
    "md-link-vbscript": ("[v](vbscript:msgbox(1))", ["vbscript:"]),
    "a-href-vbscript": ("<a href=vbscript:msgbox(1)>v</a>", ["vbscript:"]),
    # odd case
    "odd-case-script": ("<ScRiPt>alert(1)</sCrIpT>", ["<script>"]),
    "odd-case-onerror": ("<IMG SRC=x OnErRoR=alert(1)>", ["onerror"]),
    "odd-case-iframe": ('<IFRAME SRCDOC="<script>alert(1)</script>"></IFRAME>', ["<iframe>"]),
    "odd-case-javascript-href": ('<a href="JaVaScRiPt:alert(1)">x</a>', ["javascript:"]),
    "odd-case-md-link": ("[x](JAVASCRIPT:alert(1))", ["javascript:"]),
    "odd-case-svg-onload": ("<SVG ONLOAD=alert(1)></SVG>", ["<svg>"]),
    # character references
    "entity-decimal-href": ('<a href="&#106;avascript:alert(1)">x</a>', ["javascript:"]),
    "entity-hex-href": ('<a href="&#x6A;avascript:alert(1)">x</a>', ["javascript:"]),
    "entity-padded-no-semicolons": (
        '<a href="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105'
        '&#0000112&#0000116&#0000058alert(1)">x</a>', ["javascript:"]),
    "entity-hex-no-semicolons": (
        '<a href="&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A;alert(1)">x</a>',
        ["javascript:"]),
    "entity-tab-in-scheme": ('<a href="jav&#x09;ascript:alert(1)">x</a>', ["javascript:"]),
    "entity-newline-in-scheme": ('<a href="ja&NewLine;vascript:alert(1)">x</a>',
                                 ["javascript:"]),
    "entity-leading-tab": ('<a href="&Tab;javascript:alert(1)">x</a>', ["javascript:"]),
    "entity-leading-control": ('<a href="&#x01;javascript:alert(1)">x</a>', ["javascript:"]),
    "entity-named-colon": ('<a href="javascript&colon;alert(1)">x</a>', ["javascript:"]),
    "entity-md-link": ("[x](&#106;avascript:alert(1))", ["javascript:"]),
    "entity-handler-body": (
        '<img src=x onerror="&#97;&#108;&#101;&#114;&#116;&#40;&#49;&#41;">', ["onerror"]),
    "entity-handler-body-unquoted": (
        "<img src=x onerror=&#x61;&#x6C;&#x65;&#x72;&#x74;&#x28;&#x31;&#x29;>", ["onerror"]),
    "leading-space-href": ('<a href="  javascript:alert(1)">x</a>', ["javascript:"]),
    # split across lines
    "split-attributes-in-block": ("<div>\n<img\nsrc=x\nonerror='alert(1)'\n>\n</div>",
                                  ["onerror"]),
    "split-attributes-inline": ("and <img src=x\nonerror='alert(1)'>", ["onerror"]),
    "split-scheme": ('<a href="java\nscript:alert(1)">x</a>', ["javascript:"]),
    "split-iframe": ('<iframe\nsrcdoc="<script>alert(1)</script>">\n</iframe>', ["<iframe>"]),
    "split-script-body": ("<script>\nalert(1)\n</script>", ["<script>"]),
    # mutation XSS: markup that parses differently in another context
    "mxss-noscript-title": ('<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
                            ["<noscript>"]),
    "mxss-math-mglyph-style": ("<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
                               ["<math>", "<style>"]),
    "mxss-svg-style": ('<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">',
                       ["<svg>", "<style>"]),
    # comments that hide, or seem to hide, markup
    "comment-abrupt-close": ("text <!--> <img src=x onerror=alert(1)> -->",
                             ["comment", "onerror"]),
    "comment-bang-close": ("<!-- --!> <img src=x onerror=alert(1)> -->", ["comment", "onerror"]),
    "comment-in-attribute": ('<img src="<!--" onerror=alert(1)//-->', ["onerror"]),
    # renderers that act on a class name
    "mermaid-code-block": ("```mermaid\ngraph TD\n  A-->B\n  click A call alert(1)\n```",
                           ["class"]),
    "mermaid-class": ('<div class="mermaid">graph TD; A-->B</div>', ["class"]),
    "mermaid-class-odd-case": ('<pre class="x MerMaid">graph TD; A-->B</pre>', ["class"]),
}


@pytest.mark.parametrize("source, notes", _cases(HOSTILE_MARKDOWN))
def test_hostile_markdown_is_defused(source: str, notes: list[str]) -> None:
    assert active_content(render_markdown(source)), "the payload should be live as written"
    clean, removed = sanitize_markdown(source)
    assert_safe_markdown(clean)
    assert_mentions(removed, notes)
    assert sanitize_markdown(clean) == (clean, [])  # a second pass finds nothing


# Written to look hostile, but nbconvert's renderer already shows them as text (or drops
# them); whatever the sanitiser does, the result must stay inert.
INERT_AS_RENDERED: dict[str, tuple[str, list[str]]] = {
    # the line holding only ">" starts a block quote, so no tag is ever completed
    "split-tag-closing-line": ("<img\nsrc=x\nonerror=alert(1)\n>", []),
    "split-tag-name": ("<scr\nipt>alert(1)</script>", ["<scr>"]),
    # markdown percent-encodes the decoded tab: a relative URL, which is dropped anyway
    "md-link-entity-tab": ("[x](jav&#x09;ascript:alert(1))", ["<a href>"]),
    "comment-hiding-markup": ("<!-- <img src=x onerror=alert(1)> -->", ["comment"]),
    "conditional-comment": ("<!--[if IE]><script>alert(1)</script><![endif]-->", ["comment"]),
    "backslash-escaped-tags": ("\\<script>alert(1)\\</script>", []),
    "markup-in-maths": ("$<img src=x onerror=alert(1)>$ and $$<script>alert(1)</script>$$",
                        []),
}


@pytest.mark.parametrize("source, notes", _cases(INERT_AS_RENDERED))
def test_markup_the_renderer_defuses_stays_inert(source: str, notes: list[str]) -> None:
    assert_safe_markdown(source)
    clean, removed = sanitize_markdown(source)
    assert_safe_markdown(clean)
    assert_mentions(removed, notes)
    if not removed:
        assert clean == source
    assert sanitize_markdown(clean) == (clean, [])


HARMLESS_MARKDOWN: dict[str, str] = {
    "bold-italic": "**bold**, *italic*, __strong__, _em_, ***both*** and ~~struck~~",
    "lists": "- a\n- b\n  - nested\n\n1. one\n2. two\n\n5. five\n6. six",
    "task-list": "- [ ] todo\n- [x] done",
    "table": "| dtype | bytes |\n| --- | ---: |\n| float32 | 4 |\n| bfloat16 | 2 |",
    "table-alignment": "| l | c | r |\n|:--|:-:|--:|\n| 1 | 2 | 3 |",
    "inline-maths": "$E = mc^2$, $a<b$, $c > d$ and $0 < n \\le N$",
    "display-maths": "$$\n\\sum_{i<n} x_i > 0, \\quad a<b>c\n$$",
    "maths-environment": "\\begin{align} a &< b \\\\ c &> d \\end{align}",
    "maths-cases": "$$\n\\begin{cases} x<y & a \\\\ y>z \\end{cases}\n$$",
    "fenced-code-script": "```html\n<script>alert(1)</script>\n```",
    "fenced-code-no-language": "```\n<img src=x onerror=alert(1)>\n\n\n<b>\n```",
    "fenced-code-python": "~~~python\nif a < b and c > d:\n    print('<p>')\n~~~",
    "indented-code": "    <script>alert(1)</script>",
    "inline-code": "use `<script>` and `<img onerror=...>` tags",
    "links": "[web](https://example.com/a_b?c=d&e=f#g), [mail](mailto:a@example.com), "
             "<https://example.com>, http://example.org and [port](https://a.example.org:8443/x)",
    "top-of-page-link": "[top](#)",
    "md-image-data-png": f"![a dot](data:image/png;base64,{PNG})",
    "html-image-data-png": f'<img src="data:image/png;base64,{PNG}" alt="dot" width="20">',
    "sub-sup": "H<sub>2</sub>O and x<sup>2</sup>",
    "details": "<details><summary>More</summary>\n\nhidden *text*\n\n</details>",
    "simple-inline-html": "<b>b</b> <i>i</i> <u>u</u> <kbd>Ctrl</kbd> <mark>m</mark> "
                          "<abbr title='x'>y</abbr> a<br>b",
    "coloured-span": '<span style="color: red">red</span>',
    "centred-paragraph": '<p align="center">centred</p>',
    "centred-image": f'<div align="center">\n<img src="data:image/png;base64,{PNG}" '
                     'width="400">\n</div>',
    "highlighted-code": "```python\n@dec\ndef f(*a, **k):\n    return f'{a}' + 0x1f  # c\n```\n\n"
                        "```yaml\na: [1, 'x']\n```\n\n```bash\n$ ls -l | grep x\n```",
    "quote-rule": "> a quote\n\n---\n\nafter",
    "escaped-text": "a &lt;script&gt; b &amp; c, R&D, 1 < 2 > 0",
    "definition-list": "Term\n: definition",
    "empty": "",
}


@pytest.mark.parametrize("source", [pytest.param(s, id=k) for k, s in HARMLESS_MARKDOWN.items()])
def test_harmless_markdown_is_kept_as_written(source: str) -> None:
    assert sanitize_markdown(source) == (source, [])
    assert_safe_markdown(source)  # and the checker does not cry wolf


@pytest.mark.parametrize("source, shown", [
    pytest.param("```html\n<script>alert(1)</script>\n```", "<script>alert(1)</script>",
                 id="fenced"),
    pytest.param("    <img src=x onerror=alert(1)>", "<img src=x onerror=alert(1)>",
                 id="indented"),
    pytest.param("use `<iframe srcdoc=x>` here", "<iframe srcdoc=x>", id="inline"),
    pytest.param("$a<b$ and $$c>d$$", "$a<b$ and $$c>d$$", id="maths"),
])
def test_code_and_maths_show_markup_as_text(source: str, shown: str) -> None:
    """What a student writes as code (or maths, which MathJax reads) is shown literally."""
    clean, removed = sanitize_markdown(source)
    assert (clean, removed) == (source, [])
    html = render_markdown(clean)
    assert shown in page_text(html)
    assert active_content(html) == []


def _structure(html: str) -> tuple[list[tuple[str, list[tuple[Any, str]]]], str]:
    """Elements (with attributes) and the words of the text, as a browser parses ``html``."""
    tree = html5lib_shim.HTMLParser(namespaceHTMLElements=False).parseFragment(html)
    elements = [(e.tag, sorted(e.attrib.items())) for e in tree.iter() if isinstance(e.tag, str)]
    return elements, " ".join(page_text(html).split())


@pytest.mark.parametrize("source, notes", _cases(HOSTILE_MARKDOWN))
def test_rewritten_cell_renders_as_the_sanitised_html(source: str, notes: list[str]) -> None:
    """The rewritten cell is one HTML block that the renderer passes through unread: what
    the reader gets is exactly what the sanitiser let through, with no markdown read into it."""
    clean, _ = check_html(render_markdown(source))
    rewritten = render_markdown(inert_markdown(clean))
    assert _structure(rewritten) == _structure(f"<div>{clean}</div>")


MIXED = ("# Title\n\nSome *text* and [a link](https://example.com).\n\n"
         "```python\nx = 1\n\n\ny = [2]\n```\n\n<img src=x onerror=alert(1)>\n\n"
         "| a | b |\n|---|--:|\n| 1 | 2 |\n\n    indented [x](y)")


def test_formatting_around_a_removed_payload_survives() -> None:
    clean, removed = sanitize_markdown(MIXED)
    assert_mentions(removed, ["onerror"])
    html = render_markdown(clean)
    assert active_content(html) == []
    elements = [tag for tag, _ in _structure(html)[0]]
    for tag in ("h1", "em", "a", "pre", "table", "td", "img", "code"):
        assert tag in elements, tag
    assert '<a href="https://example.com">a link</a>' in html
    assert re.search(r'<td style="text-align: ?right;?">2</td>', html)  # column alignment
    text = page_text(html)
    assert "x = 1" in text and "y = [2]" in text and "indented [x](y)" in text


def test_removed_elements_go_and_the_notes_name_them() -> None:
    """A script goes with its text; an unknown element leaves its text behind."""
    clean, removed = sanitize_markdown("Look: <script>alert(1)</script> <blink>on</blink> "
                                       "<b>kept</b>")
    html = render_markdown(clean)
    assert "alert" not in page_text(html) and "on" in page_text(html).split()
    assert "<b>kept</b>" in html
    assert_mentions(removed, ["<script>", "<blink>"])


def test_relative_and_unknown_links_are_dropped() -> None:
    """A relative URL in formgrader would reach the Jupyter server's API with the
    instructor's session; unknown schemes may be handled by some application."""
    clean, removed = sanitize_markdown("[key](/api/contents/source/a.ipynb) [x](ms-x:1)")
    assert not re.search(r"href=", render_markdown(clean))
    assert_mentions(removed, ["relative URL", "ms-x:"])


def _attribute_values(html: str, names: tuple[str, ...]) -> list[str]:
    """Every value of the attributes ``names`` in ``html``, as a browser parses it."""
    tree = html5lib_shim.HTMLParser(namespaceHTMLElements=False).parseFragment(html)
    return [value for element in tree.iter() if isinstance(element.tag, str)
            for name, value in element.attrib.items() if str(name) in names]


# ------------------------------------------------------------ the instructor's own machine

# URLs of the machine formgrader runs on (where the instructor is logged in: an image of
# /logout would log them out as the page loads) or of its network, in the forms browsers
# accept: numeric, hex and octal IPv4, IPv6, trailing dots, user info, full-width letters,
# no slashes, back slashes, percent-encoding, a new line the URL parser drops.
LOCAL_URLS = [
    "http://localhost:8888/logout", "http://LOCALHOST:8888/logout", "http://localhost./",
    "http://127.0.0.1:8888/logout", "http://127.0.0.1.:8888/logout", "http://127.1/",
    "http://[::1]:8888/logout", "http://[::ffff:127.0.0.1]/", "http://[0:0:0:0:0:0:0:1]/",
    "http://0.0.0.0:8888/logout", "http://0/", "http://10.0.0.1/", "http://192.168.1.1/",
    "http://172.16.0.1/", "http://169.254.169.254/latest/meta-data/", "http://2130706433/",
    "http://0x7f.1/", "http://0x7f000001/", "http://0177.0.0.1/", "https://017700000001/",
    "http://x@localhost/", "http://user:pass@127.0.0.1:8888/", "http://example.com@localhost/",
    "http://localhost\\@example.com/", "http://example.com:80@localhost/",
    "http://jupyter.localhost:8888/", "http://printer.local/", "http://db.internal/",
    "http://router.home.arpa/", "http://jupyter:8888/logout", "http://ｌｏｃａｌｈｏｓｔ/",
    "http://①②⑦.0.0.1/", "http://127。0。0。1/", "http://%6c%6f%63alhost/",
    "http://localhost%2e/", "http:localhost:8888/logout", "http:/\\localhost/",
    "//localhost:8888/logout", "/logout", "logout",
]


def _local_url_markup(url: str, form: str) -> str:
    return {"img": f'<img src="{url}">', "link": f'<a href="{url}">x</a>',
            "md-image": f"![x]({url})", "md-link": f"[x]({url})",
            "img-newline": f'<img src="{url.replace("/", "/&#10;", 3)}">'}[form]


@pytest.mark.parametrize("url", LOCAL_URLS)
@pytest.mark.parametrize("form", ["img", "link", "md-image", "md-link", "img-newline"])
def test_nothing_points_at_the_instructors_machine(url: str, form: str) -> None:
    """Not even when the instructor lists such a host for images by mistake."""
    source = _local_url_markup(url, form)
    live = _attribute_values(render_markdown(source), ("src", "href"))
    for hosts in [(), ("localhost", "127.0.0.1", "[::1]", "0.0.0.0", "jupyter", "0x7f.1")]:
        clean, removed = sanitize_markdown(source, image_hosts=hosts)
        assert _attribute_values(render_markdown(clean), ("src", "href")) == [], clean
        assert bool(removed) == bool(live), (live, removed)
        raw, removed = sanitize_raw(source, image_hosts=hosts)
        assert _attribute_values(raw, ("src", "href")) == [], raw


@pytest.mark.parametrize("source", [
    pytest.param("![plot](https://example.com/plot.png \"a plot\")", id="markdown"),
    pytest.param('<div align="center">\n<img src="https://example.com/x.png" width="400">'
                 "\n</div>", id="html"),
])
def test_web_images_only_from_the_hosts_the_instructor_lists(source: str) -> None:
    """An image loads as the page opens, so it may come from the web only from a host the
    instructor allows; the default is none (embedded images only)."""
    clean, removed = sanitize_markdown(source)
    assert removed == ["an image from the web (example.com)"]
    assert _attribute_values(render_markdown(clean), ("src",)) == []
    for hosts in (["example.com"], ["EXAMPLE.com."], {"other.org", "example.com"}):
        assert sanitize_markdown(source, image_hosts=hosts) == (source, [])
    for hosts in (["other.org"], ["www.example.com"], ["com"]):
        assert sanitize_markdown(source, image_hosts=hosts) == (clean, removed)
    assert sanitize_markdown(source) == (clean, removed)  # remembered per list of hosts
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(source),
        nbformat.v4.new_raw_cell('<img src="https://example.com/x.png">',
                                 metadata={"raw_mimetype": "text/html"})])
    kept = copy.deepcopy(notebook)
    assert sanitize_notebook(kept, image_hosts=["example.com"]) == {}
    assert [c.source for c in kept.cells] == [c.source for c in notebook.cells]
    assert len(sanitize_notebook(notebook)) == 2


def test_links_to_the_public_web_stay() -> None:
    source = ("[a](https://example.com/x?y=1#z) [b](http://sub.example.org:8080/) "
              "<a href=\"HTTPS://Example.COM/\">c</a> [d](mailto:me@example.com)")
    assert sanitize_markdown(source) == (source, [])


# ----------------------------------------------------------------- the page's own elements

@pytest.mark.parametrize("source, kept", [
    pytest.param('<div class="modal-backdrop in">x</div>', [], id="modal-backdrop"),
    pytest.param('<div class="modal fade in" style="display: block">x</div>', [], id="modal"),
    pytest.param('<span class="navbar-fixed-bottom">x</span>', [], id="navbar"),
    pytest.param('<p class="hidden">x</p>', [], id="hidden"),
    pytest.param('<span class="k modal">x</span>', ["k"], id="pygments-and-modal"),
    pytest.param('<div class="highlight container">x</div>', ["highlight"],
                 id="highlight-and-container"),
    pytest.param('<span class="highlight">x</span>', [], id="another-elements-class"),
    pytest.param('<li class="task-list-item jp-Notebook">x</li>', ["task-list-item"],
                 id="task-list-and-lab"),
    pytest.param('<a href="#x" class="anchor-link btn btn-primary">x</a>', ["anchor-link"],
                 id="anchor-and-buttons"),
])
def test_only_the_renderers_own_class_names_stay(source: str, kept: list[str]) -> None:
    """Any other class takes the page's own styles: Bootstrap's "modal-backdrop in" covers
    formgrader's page, "navbar-fixed-bottom" pins a bar over its score boxes."""
    clean, removed = sanitize_markdown(source)
    assert_mentions(removed, ["class"])
    classes = " ".join(_attribute_values(render_markdown(clean), ("class",))).split()
    assert classes == kept
    assert sanitize_markdown(clean) == (clean, [])


def test_class_names_the_renderer_writes_stay() -> None:
    """Highlighted code in several languages, heading anchors and task lists."""
    source = HARMLESS_MARKDOWN["highlighted-code"] + "\n\n" + HARMLESS_MARKDOWN["task-list"]
    classes = set(" ".join(_attribute_values(render_markdown(source), ("class",))).split())
    assert {"highlight", "k", "p", "p-Indicator", "task-list-item"} <= classes
    assert sanitize_markdown(source) == (source, [])


# ids that are formgrader's own: its status line, a score box (the grade id), a comment box
ID_TAKEOVERS: dict[str, str] = {
    "heading-statusmessage": "# statusmessage",
    "heading-grade-id": "## test_training_flops",
    "html-heading-comment-box": '<h2 id="test_training_flops-comment">x</h2>',
    "div-container": '<div id="notebook-container">x</div>',
    "span-id": '<span id="statusmessage">x</span>',
    "anchor-name": '<a name="statusmessage">x</a>',
    "link-to-the-page": '[score](#test_training_flops) <a href="#statusmessage">s</a>',
}


@pytest.mark.parametrize("source", [pytest.param(s, id=k) for k, s in ID_TAKEOVERS.items()])
def test_student_ids_and_names_are_prefixed_without_a_note(source: str) -> None:
    clean, removed = sanitize_markdown(source)
    assert removed == []  # renaming removes nothing
    html = render_markdown(clean)
    names = _attribute_values(html, ("id", "name"))
    targets = [h[1:] for h in _attribute_values(html, ("href",)) if h.startswith("#")]
    assert names or targets
    assert all(n.startswith(ID_PREFIX) for n in names + targets), html
    assert sanitize_markdown(clean) == (clean, [])
    raw, removed = sanitize_raw(html)
    assert removed == [] and all(n.startswith(ID_PREFIX) for n in
                                 _attribute_values(raw, ("id", "name")))


# The instructor's released markdown: its heading ids and anchors may stay as written.
RELEASED_MARKDOWN: dict[str, str] = {
    "headings": "# Title\n\n## Part *one*\n\n### `code` in a heading\n\nSetext\n------",
    "heading-apostrophe-ampersand": "## What's the answer?\n\n### Q1: a < b & c",
    "heading-unicode": "# Résumé — ünïcode ✓",
    "in-page-link": "See [the title](#Title).\n\n# Title",
}


@pytest.mark.parametrize("source", [pytest.param(s, id=k) for k, s in RELEASED_MARKDOWN.items()])
def test_released_headings_keep_their_ids_and_copies_get_prefixed_ones(source: str) -> None:
    assert sanitize_markdown(source, own_ids=True) == (source, [])
    assert_safe_markdown(source)
    clean, removed = sanitize_markdown(source)  # the same text in a student's own cell
    assert removed == []
    html = render_markdown(clean)
    ids = _attribute_values(html, ("id",))
    targets = [h[1:] for h in _attribute_values(html, ("href",)) if h.startswith("#")]
    assert ids and all(i.startswith(ID_PREFIX) for i in ids)
    assert set(targets) <= set(ids)  # every anchor still leads to its heading
    assert page_text(html).split() == page_text(render_markdown(source)).split()


SOLUTIONS = sorted((Path(__file__).resolve().parent.parent / "solutions").glob("*/*.ipynb"))


@pytest.mark.parametrize("path", [pytest.param(p, id=p.parent.name) for p in SOLUTIONS])
def test_released_notebooks_markdown_is_kept_as_written(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    sources = [c.source for c in notebook.cells if c.cell_type == "markdown"]
    assert sources
    released = copy.deepcopy(notebook)
    assert sanitize_notebook(released, released=sources) == {}
    assert [c.source for c in released.cells if c.cell_type == "markdown"] == sources
    student = copy.deepcopy(notebook)  # the same cells without the release: only renamed
    assert sanitize_notebook(student) == {}


# ------------------------------------------------------------------------- linear time

@pytest.mark.parametrize("source", [
    # too deep for html5ever (each paragraph is short: mistune renders them quickly)
    pytest.param(("<ul><li>" * 500 + "\n\n") * 8, id="nested-lists"),
    pytest.param(("<div>" * 500 + "\n\n") * 8, id="nested-divs"),
    pytest.param(("<b><div>" * 500 + "\n\n") * 8, id="misnested-formatting"),
    pytest.param("<svg><style>" + ("<div>" * 500 + "\n\n") * 8, id="foreign-content"),
    pytest.param("<table>" + ("<td><table>" * 100 + "\n\n") * 20, id="nested-tables"),
    # too long a paragraph for mistune
    pytest.param("[a](" * 5_000, id="open-links"),
    pytest.param("**a" * 6_000, id="emphasis"),
    pytest.param("x" * (MARKDOWN_CHARS + 1), id="too-long"),
])
def test_markup_too_slow_to_check_is_shown_as_text(source: str) -> None:
    """Such markup takes quadratic time in the parser or the renderer (at 16 KiB, 7 s)."""
    start = time.perf_counter()
    clean, removed = sanitize_markdown(source)
    assert time.perf_counter() - start < 10
    assert removed == [TOO_BIG]
    html = render_markdown(clean)
    assert active_content(html) == []
    assert "".join(page_text(html).split()) == "".join(source.split())
    assert sanitize_markdown(clean) == (clean, [])


def test_a_long_embedded_image_still_renders() -> None:
    """A paragraph much longer than BLOCK_CHARS, but with few markdown marks."""
    data = base64.b64encode(bytes(range(256)) * 400).decode()
    source = f"A plot:\n![plot](data:image/png;base64,{data})\n\nand *after*."
    assert len(source) > 100_000
    assert sanitize_markdown(source) == (source, [])


def test_deep_raw_html_is_shown_as_text() -> None:
    source = "<div>" * 4_000
    clean, removed = sanitize_raw(source)
    assert removed == [TOO_BIG] and page_text(clean) == source
    assert sanitize_raw(clean) == (clean, [])


# ----------------------------------------------------------------- properties, at random

_FRAGMENTS = st.sampled_from([
    "<", ">", "</", "/>", "<!--", "-->", "--!>", "<!", "<?", "&", "&amp;", "&#106;", "&lt",
    "&colon;", "\"", "'", "=", " ", "\n", "\t", "\x00", "`", "a", "b", "p", "div", "img",
    "script", "svg", "math", "style", "noscript", "textarea", "title", "table", "template",
    "src", "href", "id", "class", "style=", "onerror", "javascript:", "data:text/html,",
    "http://localhost/", "http://0x7f.1/", "https://example.com/", "#x", "modal",
    "anchor-link", "statusmessage", "color:red", "url(", "[", "](", ")", "*", "_", "$",
])
_MARKUP = st.lists(_FRAGMENTS, max_size=40).map("".join)
# well-formed tags, so that the "keep as written" path is taken often
_VALUES = st.sampled_from([
    "x", "#x", "javascript:alert(1)", "&#106;avascript:alert(1)", "jav&#x09;ascript:1",
    "http://localhost/", "http://0x7f.1/", "http://127.0.0.1:8888/logout",
    "https://example.com/", "data:image/png;base64,AA", "data:text/html,x",
    "modal-backdrop in", "anchor-link", "highlight", "k", "color: red", "position: fixed",
    "statusmessage", "user-content-x", "checkbox", "center", '" onerror="alert(1)',
    "&quot; onerror=&quot;x", "a&amp;b", "<script>", "&lt;img src=x onerror=1&gt;"])
_TAG = st.tuples(
    st.sampled_from(["a", "img", "div", "span", "h2", "p", "b", "li", "input", "details",
                     "td", "script", "svg", "iframe", "style", "select"]),
    st.lists(st.tuples(st.sampled_from(["href", "src", "id", "name", "class", "style",
                                        "title", "onerror", "align", "type", "open",
                                        "xlink:href", "formaction", "srcdoc"]),
                       _VALUES, st.sampled_from(['"', "'", ""])), max_size=3),
    st.sampled_from(["", "text", "<b>x</b>", "\n\n"]),
    st.booleans())
_TAGS = st.lists(_TAG, max_size=6).map(lambda tags: "".join(
    f"<{t}" + "".join(f" {n}={q}{v}{q}" for n, v, q in attrs) + f">{body}" +
    (f"</{t}>" if close else "") for t, attrs, body, close in tags))


def _classes_by_element(html: str) -> list[tuple[str, str]]:
    tree = html5lib_shim.HTMLParser(namespaceHTMLElements=False).parseFragment(html)
    return [(e.tag, name) for e in tree.iter() if isinstance(e.tag, str)
            for name in e.attrib.get("class", "").split()]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_MARKUP, _TAGS))
def test_any_markup_comes_out_inert_and_stable(source: str) -> None:
    """Whatever mixture of markup: nothing active, no URL but the public web's and data
    images, no id without the prefix, no class but the renderer's own; and a second pass
    keeps what the first made."""
    pages = [sanitize_raw(source)[0], render_markdown(sanitize_markdown(source)[0])]
    for html in pages:
        assert active_content(html) == [], (source, html)
        for url in _attribute_values(html, ("src", "href")):
            assert url.startswith(("https://example.com/", "#user-content-", "data:image/")) \
                or url == "#", (source, url)
        assert all(n.startswith(ID_PREFIX) for n in _attribute_values(html, ("id", "name")))
        for tag, name in _classes_by_element(html):
            assert name in ALLOWED_CLASSES.get(tag, ()), (source, tag, name)
    clean, _ = sanitize_markdown(source)
    assert sanitize_markdown(clean) == (clean, [])
    raw, _ = sanitize_raw(source)
    assert sanitize_raw(raw) == (raw, [])


# ------------------------------------------------------------------------------ raw cells

HOSTILE_RAW: dict[str, tuple[str, list[str]]] = {
    "script": ("<script>alert(1)</script>", ["<script>"]),
    "img-onerror": ("<img src=x onerror='alert(1)'>", ["onerror"]),
    "odd-case": ("<ScRiPt>alert(1)</ScRiPt><IMG SRC=x OnErRoR=alert(1)>",
                 ["<script>", "onerror"]),
    "entities": ('<a href="&#106;avascript:alert(1)">x</a>', ["javascript:"]),
    "split": ("<img\nsrc=x\nonerror=alert(1)\n>", ["onerror"]),
    "iframe": ('<iframe srcdoc="<script>alert(1)</script>"></iframe>', ["<iframe>"]),
    "svg": ("<svg><script>alert(1)</script></svg>", ["<svg>"]),
    "base-meta": ("<base href=https://evil.example/><meta http-equiv=refresh content=0>",
                  ["<base>", "<meta>"]),
    "mxss": ("<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
             ["<math>"]),
}


@pytest.mark.parametrize("source, notes", _cases(HOSTILE_RAW))
def test_hostile_raw_cell_is_defused(source: str, notes: list[str]) -> None:
    assert active_content(source)  # nbconvert emits a raw cell into the page as is
    clean, removed = sanitize_raw(source)
    assert active_content(clean) == [], clean
    assert_mentions(removed, notes)
    assert sanitize_raw(clean) == (clean, [])


@pytest.mark.parametrize("source", [
    pytest.param("<b>bold</b> and <em>em</em>", id="html"),
    pytest.param("plain text, no markup", id="text"),
    pytest.param("", id="empty"),
    pytest.param("<table><tr><td>1</td></tr></table>", id="table"),
])
def test_harmless_raw_cell_is_kept(source: str) -> None:
    assert sanitize_raw(source) == (source, [])


# Properties that can fetch a URL (background, list-style, border-image, cursor, mask,
# content), cover or move things on the page (position, z-index, margin, transform), or
# hide them (display, opacity): none may stay, whatever the value.
FORBIDDEN_CSS = ["background", "background-image", "list-style", "list-style-image",
                 "border-image", "cursor", "mask", "content", "position", "z-index", "margin",
                 "transform", "display", "opacity", "width", "font-family"]


@pytest.mark.parametrize("prop", FORBIDDEN_CSS)
def test_css_outside_the_allow_list_is_removed_whatever_its_value(prop: str) -> None:
    """Kills: a property added to the allow-list (``ALLOWED_CSS``), e.g. ``background``,
    which a browser would then apply to the page the instructor opens. The allowed ones
    around it stay, and a URL never does, even in an allowed property."""
    for value in ["red", "0", "none", "url(https://evil.example/x.png)"]:
        source = f'<p style="color: blue; {prop}: {value}; text-align: center">x</p>'
        clean, removed = sanitize_raw(source)
        assert clean == '<p style="color: blue; text-align: center">x</p>', (prop, value)
        assert removed == ["CSS in the style attribute of <p>"]
        assert sanitize_raw(f'<span style="{prop}: {value}">x</span>')[0] == "<span>x</span>"
    for allowed in ["color", "background-color"]:
        clean, _ = sanitize_raw(f'<p style="{allowed}: url(https://evil.example/x.png)">x</p>')
        assert clean == "<p>x</p>"


def test_every_allowed_css_property_stays_with_a_plain_value() -> None:
    """Kills: an allowed property dropped from the allow-list or misread (the instructor's own
    markdown uses them: coloured text, aligned table cells)."""
    styles = {"text-align": "right", "color": "rgb(1, 2, 3)", "background-color": "#ff0",
              "font-weight": "bold", "font-style": "italic", "text-decoration": "underline",
              "vertical-align": "top"}
    for prop, value in styles.items():
        source = f'<td style="{prop}: {value}">x</td>'
        table = f"<table><tr>{source}</tr></table>"
        assert sanitize_raw(table) == (table, []), prop


def test_raw_cell_metadata_keeps_only_plain_mime_names() -> None:
    notebook = _notebook([{"cell_type": "raw", "source": "<b>x</b>", "metadata": meta}
                          for meta in [
        {"raw_mimetype": "text/html", "format": "text/html"},
        {"raw_mimetype": 'text/html"><script>', "format": "<img src=x onerror=alert(1)>"},
        {"raw_mimetype": ["text/html"], "format": 3},
    ]])
    assert sanitize_notebook(notebook) == {}
    first, second, third = (c.metadata for c in notebook.cells)
    assert first == {"raw_mimetype": "text/html", "format": "text/html"}
    assert second == {} and third == {}


# ---------------------------------------------------------------------------- attachments

def test_attachments_keep_only_raster_images() -> None:
    kept, removed = sanitize_attachments({
        "dot.png": {"image/png": PNG},
        "evil.svg": {"image/svg+xml": SVG_SCRIPT},
        "page.html": {"text/html": HTML_SCRIPT},
        "both.png": {"image/png": PNG, "image/svg+xml": SVG_SCRIPT},
        "broken.png": {"image/png": "not base64 at all!"},
        "number.png": {"image/png": 12},
        "not-a-bundle": "x",
    })
    assert kept == {"dot.png": {"image/png": PNG}, "both.png": {"image/png": PNG}}
    assert_mentions(removed, ["image/svg+xml", "text/html", "image/png", "an attachment"])


@pytest.mark.parametrize("attachments", [None, {}, "junk", ["x"], 3])
def test_attachments_of_the_wrong_shape(attachments: Any) -> None:
    kept, removed = sanitize_attachments(attachments)
    assert kept == {}
    assert bool(removed) == bool(attachments)  # only something that was there is reported


def _markdown_notebook(source: str, attachments: dict[str, Any]) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(source)
    cell.attachments = attachments
    return nbformat.v4.new_notebook(cells=[cell])


def test_svg_and_html_attachments_are_removed_and_their_reference_defused() -> None:
    notebook = _markdown_notebook(
        "![x](attachment:evil.svg) ![y](attachment:dot.png)",
        {"evil.svg": {"image/svg+xml": SVG_SCRIPT}, "page.html": {"text/html": HTML_SCRIPT},
         "dot.png": {"image/png": PNG}})
    assert "image/svg+xml" in render_markdown(notebook.cells[0].source,
                                              notebook.cells[0].attachments)
    removed = sanitize_notebook(notebook)
    cell = notebook.cells[0]
    assert cell.attachments == {"dot.png": {"image/png": PNG}}
    assert_mentions([removed[cell.id]], ["image/svg+xml", "text/html", "missing attachment"])
    html = render_markdown(cell.source, cell.attachments)
    assert active_content(html) == [] and "image/svg+xml" not in html


def test_reference_to_a_missing_attachment_does_not_raise() -> None:
    notebook = _markdown_notebook("![x](attachment:nowhere.png) <b>text</b>", {})
    removed = sanitize_notebook(notebook)
    cell = notebook.cells[0]
    assert_mentions([removed[cell.id]], ["missing attachment"])
    assert "<b>text</b>" in render_markdown(cell.source)
    assert sanitize_notebook(copy.deepcopy(notebook)) == {}


def test_png_attachment_is_kept_with_its_cell_as_written() -> None:
    source = "A plot: ![dot](attachment:dot.png)"
    notebook = _markdown_notebook(source, {"dot.png": {"image/png": PNG}})
    assert sanitize_notebook(notebook) == {}
    cell = notebook.cells[0]
    assert cell.source == source and cell.attachments == {"dot.png": {"image/png": PNG}}
    assert f"data:image/png;base64,{PNG}" in render_markdown(cell.source, cell.attachments)


# -------------------------------------------------------------------------------- outputs

PLACEHOLDER = {"text/plain": "[output removed by the grader: not text or an image]"}
RICH = {
    "text/html": "<img src=x onerror=alert(1)>",
    "application/javascript": "alert(1)",
    "image/svg+xml": base64.b64decode(SVG_SCRIPT).decode(),
    "text/markdown": "[x](javascript:alert(1))",
    "text/latex": "$\\href{javascript:alert(1)}{x}$",
    "text/vnd.mermaid": "graph TD\n  A-->B\n  click A call alert(1)",
    "application/vnd.jupyter.widget-view+json": {"model_id": "m", "version_major": 2,
                                                 "version_minor": 0},
}


@pytest.mark.parametrize("mime", list(RICH))
@pytest.mark.parametrize("kind", ["display_data", "execute_result"])
def test_rich_outputs_are_dropped(kind: str, mime: str) -> None:
    output = {"output_type": kind, "data": {mime: RICH[mime]}, "metadata": {"x": 1}}
    if kind == "execute_result":
        output["execution_count"] = 1
    [kept] = sanitize_outputs([output])
    assert kept["data"] == PLACEHOLDER and kept["metadata"] == {}


def test_text_and_png_outputs_are_kept_beside_dropped_rich_ones() -> None:
    [kept] = sanitize_outputs([{"output_type": "display_data", "metadata": {},
                                "data": {**RICH, "text/plain": "<Figure>", "image/png": PNG}}])
    assert kept["data"] == {"text/plain": "<Figure>", "image/png": PNG}


def test_malformed_outputs() -> None:
    outputs = [
        "not a dict",
        {"output_type": "unknown"},
        {"output_type": "display_data", "data": {"image/png": "not base64!"}},
        {"output_type": "display_data", "data": "not a dict"},
        {"output_type": "stream", "name": "<script>", "text": ["a", "b"]},
    ]
    kept = sanitize_outputs(outputs)
    assert [o["output_type"] for o in kept] == ["display_data", "display_data", "stream"]
    assert kept[0]["data"] == kept[1]["data"] == PLACEHOLDER
    assert (kept[2]["name"], kept[2]["text"]) == ("stdout", "ab")
    assert sanitize_outputs("not a list") == []
    for output in kept:
        nbformat.validate(nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell(outputs=[output])]))


@pytest.mark.parametrize("text, shown", [
    pytest.param("\x1b]8;;javascript:alert(1)\x07click\x1b]8;;\x07", "click", id="osc8-link-bel"),
    pytest.param("\x1b]8;;javascript:alert(1)\x1b\\click\x1b]8;;\x1b\\", "click",
                 id="osc8-link-st"),
    pytest.param("\x1b[31mred\x1b[0m \x1b[1;4mbold\x1b[m", "red bold", id="sgr-colours"),
    pytest.param("\x1b]0;window title\x07text", "text", id="osc-title"),
    pytest.param("a\x00b\x07c\x08d\x7fe\x9bf", "abcdef", id="control-characters"),
    pytest.param("keep\ttabs\nand newlines", "keep\ttabs\nand newlines", id="tab-newline"),
    pytest.param(["\x1b[3", "1mred"], "red", id="escape-split-over-list"),
])
def test_plain_text_strips_terminal_escapes(text: Any, shown: str) -> None:
    assert plain_text(text) == shown


def test_streams_errors_and_tracebacks_lose_terminal_escapes() -> None:
    osc = "\x1b]8;;javascript:alert(1)\x07"
    stream, error = sanitize_outputs([
        {"output_type": "stream", "name": "stderr", "text": f"{osc}x\x1b[31my\x1b[0m"},
        {"output_type": "error", "ename": "\x1b[31mValueError\x1b[0m", "evalue": f"{osc}bad",
         "traceback": [f"\x1b[0;31m{osc}line 1\x1b[0m", 42]},
    ])
    assert (stream["name"], stream["text"]) == ("stderr", "xy")
    assert (error["ename"], error["evalue"]) == ("ValueError", "bad")
    assert error["traceback"] == ["line 1", "42"]
    assert "\x1b" not in json.dumps([stream, error])


# ------------------------------------------------------------------------------- metadata

def test_notebook_metadata_keeps_only_kernel_and_language() -> None:
    kernelspec = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                  "language": "python"}
    language_info = {"name": "python", "version": "3.11.9", "mimetype": "text/x-python",
                     "file_extension": ".py", "pygments_lexer": "ipython3",
                     "nbconvert_exporter": "python",
                     "codemirror_mode": {"name": "ipython", "version": 3}}
    meta = {
        "kernelspec": {**kernelspec, "env": {"X": "<script>"}},
        "language_info": language_info,
        "widgets": {"application/vnd.jupyter.widget-state+json": {
            "state": {"m": {"state": {"value": "<img src=x onerror=alert(1)>"}}}}},
        "title": "</title><script>alert(1)</script>",
        "signature": "sha256:0",
        "anything": {"else": 1},
    }
    assert sanitize_notebook_metadata(meta) == {"kernelspec": kernelspec,
                                                "language_info": language_info}


@pytest.mark.parametrize("meta", [
    pytest.param({"kernelspec": {"name": "python3",
                                 "display_name": "<img src=x onerror=alert(1)>"}},
                 id="kernelspec-markup"),
    pytest.param({"kernelspec": {"name": "x\"><script>", "display_name": "Python"}},
                 id="kernelspec-name-markup"),
    pytest.param({"kernelspec": "python3"}, id="kernelspec-string"),
    pytest.param({"language_info": {"name": 3}}, id="language-not-string"),
    pytest.param({"language_info": {"name": "<script>"}}, id="language-markup"),
    pytest.param("not a dict", id="not-a-dict"),
])
def test_ill_formed_notebook_metadata_is_dropped(meta: Any) -> None:
    assert sanitize_notebook_metadata(meta) == {}


def test_cell_metadata_keeps_only_standard_keys() -> None:
    meta = {"collapsed": True, "scrolled": "auto", "editable": False, "deletable": True,
            "jupyter": {"source_hidden": True, "outputs_hidden": "yes", "other": 1},
            "tags": ["ok-tag", "\"><img src=x onerror=alert(1)>", 3],
            "ExecuteTime": {"end_time": "<script>"}, "onload": "alert(1)",
            "widgets": {"x": 1}}
    assert sanitize_cell_metadata(meta) == {
        "collapsed": True, "scrolled": "auto", "editable": False, "deletable": True,
        "jupyter": {"source_hidden": True}, "tags": ["ok-tag"]}
    assert sanitize_cell_metadata({"collapsed": "yes", "scrolled": "<b>"}) == {}
    assert sanitize_cell_metadata(None) == {}


GOOD_NBGRADER = {"grade": True, "solution": False, "locked": True, "task": False,
                 "grade_id": "q1", "points": 2, "schema_version": 3,
                 "checksum": "0a1b2c", "cell_type": "code"}


@pytest.mark.parametrize("change, kept", [
    pytest.param({}, GOOD_NBGRADER, id="well-formed"),
    pytest.param({"points": 0.5}, {**GOOD_NBGRADER, "points": 0.5}, id="fractional-points"),
    pytest.param({"grade_id": "other"}, None, id="unknown-grade-id"),
    pytest.param({"grade_id": 'q1"><img src=x onerror=alert(1)>'}, None,
                 id="grade-id-markup"),
    pytest.param({"grade_id": "x\"></textarea><svg onload=alert(1)><b x=\""}, None,
                 id="grade-id-textarea-breakout"),
    pytest.param({"grade_id": 1}, None, id="grade-id-not-string"),
    *[pytest.param({"points": p}, {k: v for k, v in GOOD_NBGRADER.items() if k != "points"},
                   id=f"points-{name}")
      for name, p in [("nan", float("nan")), ("inf", float("inf")), ("negative", -1),
                      ("string", "2"), ("bool", True), ("markup", "<b>2</b>")]],
    pytest.param({"solution": "<script>", "checksum": "<script>", "cell_type": "<b>",
                  "schema_version": "3"},
                 {k: v for k, v in GOOD_NBGRADER.items()
                  if k not in ("solution", "checksum", "cell_type", "schema_version")},
                 id="values-of-wrong-type"),
    pytest.param({"extra": "<script>"}, GOOD_NBGRADER, id="unknown-key"),
])
def test_nbgrader_metadata_only_for_known_grade_ids_and_well_formed(
        change: dict[str, Any], kept: dict[str, Any] | None) -> None:
    meta = sanitize_cell_metadata({"nbgrader": {**GOOD_NBGRADER, **change}},
                                  grade_ids={"q1", "q2"})
    assert meta.get("nbgrader") == kept


def test_nbgrader_metadata_without_a_list_of_grade_ids() -> None:
    """With no ids given any well-formed one is kept; an ill-formed one never is."""
    assert sanitize_cell_metadata({"nbgrader": GOOD_NBGRADER})["nbgrader"] == GOOD_NBGRADER
    hostile = {**GOOD_NBGRADER, "grade_id": "a\"><img src=x onerror=alert(1)>"}
    assert "nbgrader" not in sanitize_cell_metadata({"nbgrader": hostile})
    assert "nbgrader" not in sanitize_cell_metadata({"nbgrader": "q1"})


# ---------------------------------------------------------------------- malformed notebooks

def _notebook(cells: Any, **fields: Any) -> nbformat.NotebookNode:
    return nbformat.NotebookNode({"cells": cells, "metadata": {}, "nbformat": 4,
                                  "nbformat_minor": 4, **fields})


def test_cells_of_unknown_kinds_are_dropped_and_reported() -> None:
    notebook = _notebook([
        {"cell_type": "markdown", "id": "ok", "source": "fine", "metadata": {}},
        "not a dict", 42, None,
        {"cell_type": "heading", "source": "<script>alert(1)</script>", "level": 1},
        {"source": "no type"},
    ])
    removed = sanitize_notebook(notebook)
    assert [c.source for c in notebook.cells] == ["fine"]
    assert set(removed) == {UNKNOWN_CELLS}
    assert removed[UNKNOWN_CELLS].startswith("5 ")
    nbformat.validate(notebook)


def test_cell_ids_become_unique_and_well_formed() -> None:
    bad_ids = ["same", "same", "has space", "", "<script>", 7, None, "x" * 65, "same"]
    notebook = _notebook([{"cell_type": "markdown", "source": str(i), "metadata": {},
                           **({"id": cell_id} if cell_id is not None else {})}
                          for i, cell_id in enumerate(bad_ids)])
    assert sanitize_notebook(notebook) == {}
    ids = [c.id for c in notebook.cells]
    assert ids[0] == "same" and len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i) for i in ids)
    assert (notebook.nbformat, notebook.nbformat_minor) == (4, 5)
    nbformat.validate(notebook)


@pytest.mark.parametrize("source, text", [
    pytest.param(["line 1\n", "line 2"], "line 1\nline 2", id="list-of-strings"),
    pytest.param(["a", 3, None, "b"], "ab", id="list-with-non-strings"),
    pytest.param(42, "", id="number"),
    pytest.param(None, "", id="none"),
    pytest.param({"x": "<script>"}, "", id="dict"),
])
@pytest.mark.parametrize("kind", ["markdown", "code", "raw"])
def test_non_string_sources(kind: str, source: Any, text: str) -> None:
    notebook = _notebook([{"cell_type": kind, "source": source, "metadata": {},
                           "outputs": [], "execution_count": None}])
    assert sanitize_notebook(notebook) == {}
    assert notebook.cells[0].source == text
    nbformat.validate(notebook)


def test_wrong_shapes_at_the_top_level() -> None:
    notebook = _notebook("not a list", metadata="not a dict")
    assert sanitize_notebook(notebook) == {}
    assert notebook.cells == [] and notebook.metadata == {}
    code = _notebook([{"cell_type": "code", "source": "x", "metadata": [],
                       "outputs": {"a": 1}, "execution_count": True}])
    sanitize_notebook(code)
    cell = code.cells[0]
    assert (cell.outputs, cell.execution_count, cell.metadata) == ([], None, {})


# ---------------------------------------------------------------------------- the report

def test_numbered_notes_name_cells_by_place_and_note_cell_shows_them_as_text() -> None:
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("harmless"),
        nbformat.v4.new_markdown_cell("<script>alert(1)</script>"),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_markdown_cell("<img src=x onerror=alert(1)>"),
    ])
    notebook.cells.append({"cell_type": "unknown"})
    removed = sanitize_notebook(notebook)
    # the grader puts a note cell first, so the submission's cells are numbered from 2
    notes = numbered_notes(removed, notebook.cells, number_from=2)
    assert [n.split(":")[0] for n in notes[:2]] == ["cell 3", "cell 5"]
    assert "<script>" in notes[0] and "onerror" in notes[1]
    assert notes[2] == removed[UNKNOWN_CELLS]

    cell = note_cell(notes)
    html = render_markdown(cell.source)
    assert active_content(html) == []
    assert "a <script> element" in page_text(html)
    assert sanitize_markdown(cell.source) == (cell.source, [])  # the grader's own note


@pytest.mark.parametrize("note", [
    "cell 2: a <script> element",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<a href='javascript:alert(1)'>x</a> &lt;script&gt;",
])
def test_note_cell_shows_markup_in_notes_as_text(note: str) -> None:
    html = render_markdown(note_cell([note]).source)
    assert active_content(html) == []
    assert note in page_text(html)


# --------------------------------------------------------------- whole notebooks, twice

def _hostile_notebook() -> nbformat.NotebookNode:
    """One notebook carrying every kind of hostile content above, and some honest cells."""
    cells: list[Any] = [nbformat.v4.new_markdown_cell(source)
                        for source, _ in HOSTILE_MARKDOWN.values()]
    cells += [nbformat.v4.new_markdown_cell(source) for source in HARMLESS_MARKDOWN.values()]
    cells += [nbformat.v4.new_raw_cell(source, metadata={"raw_mimetype": "text/html"})
              for source, _ in HOSTILE_RAW.values()]
    attached = nbformat.v4.new_markdown_cell("![x](attachment:evil.svg)")
    attached.attachments = {"evil.svg": {"image/svg+xml": SVG_SCRIPT},
                            "page.html": {"text/html": HTML_SCRIPT}}
    cells.append(attached)
    cells.append(nbformat.v4.new_code_cell("plot()", outputs=[
        nbformat.v4.new_output("display_data", data={**RICH, "text/plain": "<plot>"}),
        nbformat.v4.new_output("stream", text="\x1b]8;;javascript:alert(1)\x07x\x1b]8;;\x07"),
    ], metadata={"nbgrader": {"grade_id": 'q"><img src=x onerror=alert(1)>',
                              "grade": True, "solution": False, "locked": False,
                              "schema_version": 3, "points": 1}}))
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "version_major": 2, "version_minor": 0, "state": {"m": {
            "model_name": "HTMLModel", "model_module": "@jupyter-widgets/controls",
            "model_module_version": "2.0.0",
            "state": {"value": "<img src=x onerror=alert(1)>"}}}}}
    notebook.metadata["title"] = "</title><script>alert(1)</script>"
    return notebook


def test_sanitising_twice_changes_nothing_more() -> None:
    notebook = _hostile_notebook()
    removed = sanitize_notebook(notebook)
    assert len(removed) == len(HOSTILE_MARKDOWN) + len(HOSTILE_RAW) + 1  # + the attachment
    once = copy.deepcopy(notebook)
    assert sanitize_notebook(notebook) == {}
    assert notebook == once
    nbformat.validate(notebook)


def _exported(notebook: nbformat.NotebookNode) -> tuple[Counter[str], Counter[str]]:
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter(template_name="lab").from_notebook_node(notebook)
    return findings(body)


def test_exported_page_has_nothing_active_but_the_templates_own() -> None:
    """The page nbconvert makes (as generate_feedback does) holds, after sanitising, only
    the scripts and styles its template adds to every page (counted one by one)."""
    baseline = _exported(nbformat.v4.new_notebook())
    notebook = _hostile_notebook()
    submitted = _exported(notebook)
    assert all(seen - base for seen, base in zip(submitted, baseline))  # live as submitted
    sanitize_notebook(notebook)
    sanitized = _exported(notebook)
    assert [seen - base for seen, base in zip(sanitized, baseline)] == [Counter(), Counter()]


# ------------------------------------------------------------------------- the primitives

def test_check_html_accepts_its_own_output() -> None:
    for source, _ in [*HOSTILE_MARKDOWN.values(), *HOSTILE_RAW.values()]:
        clean, removed = check_html(render_markdown(source))
        assert check_html(clean) == (clean, [])
        assert clean_html(clean) == clean


@pytest.mark.parametrize("style, result", [
    ("color: red", ("color: red", False)),
    (" ; color: red ; ; ", (" ; color: red ; ; ", False)),  # empty declarations are fine
    ("COLOR : Red", ("COLOR : Red", False)),
    ("color: \tred\n", ("color: \tred\n", False)),
    ("color: RGB(1, 2, 3); font-weight: bold", ("color: RGB(1, 2, 3); font-weight: bold", False)),
    ("color: red; width: 1px", ("color: red", True)),
    ("width: 1px; COLOR:\tBlue ;", ("color: Blue", True)),
    ("width: 1px", (None, True)),
    ("color:", (None, True)),
    (": red", (None, True)),
    ("color red", (None, True)),
    ("color: a:b", (None, True)),
    ("color: url(x)", (None, True)),
    ("color: calc(1)", (None, True)),
    ("color: notrgb(1)", (None, True)),
    ("color: rgb(1)x(2)", (None, True)),
    ("color: red\\9", (None, True)),
    ("color: expression(alert(1))", (None, True)),
    ("color: rgb(1, 2, 3) url(x)", (None, True)),
])
def test_style_keeps_only_allowed_properties_with_plain_values(
        style: str, result: tuple[str | None, bool]) -> None:
    """Kills (``allow.filter_style``): declarations split or read wrongly (case, spacing,
    empty ones), a forbidden property or a value with a function other than the colour ones
    kept, an all-allowed style rewritten or reported as changed, or a dropped declaration not
    reported."""
    assert filter_style(style) == result


def test_a_harmless_notebook_keeps_its_cells_metadata_outputs_and_counts() -> None:
    """Kills (``sanitize_notebook``): a cell's harmless metadata, nbgrader metadata of a
    known grade id, outputs or execution count (0 included) dropped; a raw cell's format
    lost; the notebook's kernel dropped; the released markdown's own heading ids prefixed;
    or a removal reported with its parts run together."""
    grade = {"grade": True, "grade_id": "q1", "locked": True, "points": 1,
             "schema_version": 3, "solution": False, "task": False}
    cells = [
        nbformat.v4.new_markdown_cell("# Title\n\nsome *text*",
                                      metadata={"tags": ["intro"], "editable": False}),
        nbformat.v4.new_code_cell("x = 1", execution_count=0, metadata={"nbgrader": grade},
                                  outputs=[nbformat.v4.new_output("stream", text="hi\n")]),
        nbformat.v4.new_code_cell("y", execution_count=7,
                                  metadata={"jupyter": {"source_hidden": True}}),
        nbformat.v4.new_raw_cell("plain", metadata={"raw_mimetype": "text/plain"}),
        nbformat.v4.new_markdown_cell("<script>x</script><img src=x onerror=alert(1)>"),
    ]
    notebook = nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    expected = copy.deepcopy(notebook)
    removed = sanitize_notebook(notebook, grade_ids={"q1"},
                                released=["# Title\n\nsome *text*"])
    assert notebook.metadata == expected.metadata
    for got, want in zip(notebook.cells[:4], expected.cells):
        assert (got.cell_type, got.source, got.metadata) == (want.cell_type, want.source,
                                                             want.metadata)
        assert (got.get("outputs"), got.get("execution_count")) == (
            want.get("outputs"), want.get("execution_count"))
    assert removed == {notebook.cells[4].id: "a <script> element, a relative URL in <img src>, "
                                             "the onerror attribute of <img>"}
    assert (notebook.nbformat, notebook.nbformat_minor) == (4, 5)
    nbformat.validate(notebook)


def test_outputs_keep_their_kind_and_get_empty_fields_where_they_had_none() -> None:
    """Kills (``sanitize_outputs``): stderr turned into stdout (or an odd stream name kept),
    a missing text or error field becoming something other than empty, a traceback that is
    not a list kept, or execute_result losing its execution_count (then not a valid
    output); and something that is not a list of outputs read as one."""
    outputs = sanitize_outputs([
        {"output_type": "stream", "name": "stderr", "text": "e"},
        {"output_type": "stream", "name": "stdin"},
        {"output_type": "error"},
        {"output_type": "error", "traceback": "tb", "ename": "E", "evalue": "v"},
        {"output_type": "execute_result", "data": {"text/plain": "1"}},
        {"output_type": "display_data", "data": {"text/plain": "2"}},
    ])
    assert outputs == [
        {"output_type": "stream", "name": "stderr", "text": "e"},
        {"output_type": "stream", "name": "stdout", "text": ""},
        {"output_type": "error", "ename": "", "evalue": "", "traceback": []},
        {"output_type": "error", "ename": "E", "evalue": "v", "traceback": []},
        {"output_type": "execute_result", "metadata": {}, "data": {"text/plain": "1"},
         "execution_count": None},
        {"output_type": "display_data", "metadata": {}, "data": {"text/plain": "2"}},
    ]
    cell = nbformat.v4.new_code_cell("x", outputs=outputs)
    nbformat.validate(nbformat.v4.new_notebook(cells=[cell]))
    assert sanitize_outputs({"output_type": "stream", "text": "x"}) == []


def test_the_note_cell_says_what_was_removed_one_item_a_line() -> None:
    """Kills: the note's wording, its items run together, or quotes escaped (they show as
    ``&quot;`` in markdown) while markup is not."""
    assert note_cell(['cell 1: an "odd" <b> & it', "two"]).source == (
        "**Note from the grader:** it removed content that could run in a browser from this "
        "copy of the submission (this does not change the score):\n\n"
        '- cell 1: an "odd" &lt;b&gt; &amp; it\n- two')


@pytest.mark.parametrize("url, host", [
    ("https://Example.ORG./x", "example.org"),  # case and the final dot do not matter
    ("https://a.b.c.museum.", "a.b.c.museum"),
    ("https://123.example.com", "123.example.com"),
    ("https://123.x", "123.x"),  # only a number at the end makes an IPv4 address
    ("https://x.123", None), ("https://x.0x1f", None), ("https://a.b.127", None),
])
def test_public_host_reads_the_host_as_a_browser_does(url: str, host: str | None) -> None:
    """Kills: a final dot cut wrongly or kept, and another label than the last taken for
    the one that makes a host an IPv4 address."""
    assert public_host(url) == host


@pytest.mark.parametrize("url, problem", [
    ("http://img.example.org/x.png", None), ("HTTPS://img.example.org/x.png", None),
    ("http://other.org/x.png", "an image from the web (other.org)"),
    ("HTTP://10.0.0.1/x", "an image from a local or private address"),
    ("https://localhost/x", "an image from a local or private address"),
    ("javascript:x", "a javascript: URL in <img src>"),
    ("x.png", "a relative URL in <img src>"),
])
def test_image_problem_names_what_is_wrong_with_an_image(url: str, problem: str | None) -> None:
    """Kills: http images treated as another scheme, and the reasons (shown to the
    instructor in the note) changed."""
    assert image_problem(url, {"img.example.org"}) == problem


SUBTYPE_80 = "p" + ("-A" + "b" * 30) * 2 + "-A" + "b" * 13  # a pygments sub-type, 80 chars


@pytest.mark.parametrize("tag, value, result", [
    ("span", "k", ("k", False)),
    ("span", " k  n\t", (" k  n\t", False)),  # kept as written
    ("span", "", ("", False)),
    ("span", "p p-Indicator", ("p p-Indicator", False)),
    ("span", SUBTYPE_80, (SUBTYPE_80, False)),
    ("span", SUBTYPE_80 + "b", (None, True)),  # 81 characters: too long
    ("span", "k evil", ("k", True)),
    ("span", "evil", (None, True)),
    ("div", "highlight", ("highlight", False)),
    ("div", "k", (None, True)),
    ("div", "p-Indicator", (None, True)),  # sub-types only on <span>
    ("p", "x", (None, True)),
    ("a", "anchor-link", ("anchor-link", False)),
])
def test_class_names_are_those_the_renderer_writes_on_that_element(
        tag: str, value: str, result: tuple[str | None, bool]) -> None:
    """Kills (``allow.filter_classes``): a class kept on an element the renderer does not
    put it on, a pygments sub-type allowed off <span> or past 80 characters, names split
    or rejoined wrongly, or a removal not reported (or a kept list reported as changed)."""
    assert filter_classes(tag, value) == result


def test_markup_too_big_to_check_is_shown_as_exactly_its_text() -> None:
    """Kills: the plain-text fallback escaping quotes (they would show as ``&quot;``) or
    not escaping markup, and an own-ids policy used for a student's cell."""
    deep = "<div>" * 300 + "x \"q\" & 'a'"
    clean, removed = check_html(deep)
    assert clean == "<pre>" + "&lt;div&gt;" * 300 + "x \"q\" &amp; 'a'</pre>"
    assert removed == [TOO_BIG]
    assert clean_html(deep) == clean
    assert clean_html('<h2 id="a">x</h2>') == '<h2 id="user-content-a">x</h2>'
    assert check_html('<h2 id="a">x</h2>') == ('<h2 id="user-content-a">x</h2>', [])
    assert check_html('<h2 id="a">x</h2>', own_ids=True) == ('<h2 id="a">x</h2>', [])


def test_markup_a_browser_would_repair_is_reported_as_malformed_and_as_text_keeps_quotes(
        ) -> None:
    """Kills: malformed markup (which a browser repairs in its own way) not reported, or
    reported for well-formed markup; and the plain-text view escaping quotes."""
    assert check_html("<b>x") == ("<b>x</b>", ["malformed HTML"])
    assert check_html("</b>x") == ("x", ["malformed HTML"])
    assert check_html("<b>x</b> a < b") == ("<b>x</b> a < b", [])
    assert check_html("<!-- c --><b>x") == ("<b>x</b>", ["an HTML comment"])
    assert as_text('a "q" <b>') == '<div>\n<pre>a "q" &lt;b&gt;</pre>\n</div>'


def test_attachments_and_metadata_keep_exactly_the_plain_parts() -> None:
    """Kills: attachments' removals misnamed or stopping at the first bad one, base64 not
    validated (or whitespace in it refused); a codemirror mode or hidden-output flag
    dropped, or an odd one kept; a 0-point or markdown nbgrader cell losing its fields."""
    kept, removed = sanitize_attachments({
        "a.png": {"image/png": "iVBO Rw0K\nGgo="}, 1: {}, "b": "x",
        "c": {"text/html": "x", 3: "y", "image/png": "not base64!"},
        "d": {"image/gif": "R0lG"}})
    assert kept == {"a.png": {"image/png": "iVBO Rw0K\nGgo="}, "d": {"image/gif": "R0lG"}}
    assert removed == ["an attachment", "an attachment of type image/png",
                       "an attachment of type text/html", "an attachment of type unknown"]
    assert sanitize_attachments(["x"]) == ({}, ["attachments"])
    assert sanitize_attachments(None) == sanitize_attachments({}) == ({}, [])

    def mode(value: Any) -> Any:
        meta = {"language_info": {"name": "python", "codemirror_mode": value}}
        return sanitize_notebook_metadata(meta)["language_info"].get("codemirror_mode")

    assert mode("ipython") == "ipython"
    assert mode("<b>") is None
    assert mode({"name": "ipython", "version": 3, "x": 1, "y": "a"}) == {"name": "ipython",
                                                                        "version": 3}
    assert mode({"name": "<b>", "version": "<i>"}) == {}
    meta = sanitize_cell_metadata({
        "jupyter": {"source_hidden": True, "outputs_hidden": False, "x": True},
        "nbgrader": {"grade_id": "q", "points": 0, "cell_type": "markdown"}})
    assert meta == {"jupyter": {"source_hidden": True, "outputs_hidden": False},
                    "nbgrader": {"grade_id": "q", "points": 0, "cell_type": "markdown"}}


def test_notes_stop_at_twelve_kinds_and_links_say_why_they_went() -> None:
    """Kills: the note list not capped at 12 kinds then "more of the like" (or a kind
    repeated), a mailto link or an upper-case HTTP scheme judged as something else, a
    relative link's reason, and notes numbered from other than 1 by default."""
    tags = ["script", "style", "iframe", "object", "embed", "form", "svg", "math", "template",
            "noscript", "textarea", "select", "button", "video", "audio", "canvas"]
    _, removed = sanitize_raw("".join(f"<{t}>x</{t}><{t}>y</{t}>" for t in tags))
    assert removed == [f"a <{t}> element" for t in tags[:12]] + ["more of the like"]
    clean, removed = sanitize_raw('<a href="mailto:a@b.org">m</a><a href="HTTP://localhost/">'
                                  'l</a><a href="x.html">r</a><a href="HTTPS://example.com/">'
                                  'w</a>')
    assert clean == ('<a href="mailto:a@b.org">m</a><a>l</a><a>r</a>'
                     '<a href="HTTPS://example.com/">w</a>')
    assert removed == ["a link to a local or private address", "a relative URL in <a href>"]
    cells = [nbformat.v4.new_markdown_cell("a"), nbformat.v4.new_markdown_cell("b")]
    assert numbered_notes({cells[1].id: "x"}, cells) == ["cell 2: x"]


def test_new_cell_ids_are_eight_hex_digits() -> None:
    """Kills: made-up cell ids of another form (nbformat's own are 8 hex digits)."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x")] * 3)
    for cell in notebook.cells:
        cell.id = "same"
    sanitize_notebook(notebook)
    ids = [cell.id for cell in notebook.cells]
    assert ids[0] == "same" and len(set(ids)) == 3
    assert all(re.fullmatch(r"[0-9a-f]{8}", i) for i in ids[1:])


def test_open_formatting_elements_are_counted_exactly() -> None:
    """Kills (``_Review._count``): open formatting elements (whose copies make the parser
    quadratic) miscounted: 16 open ``<b>`` or 2048 characters of them may be checked, one
    more may not; closed ones no longer count, and closing other elements counts nothing."""

    def too_big(html: str) -> bool:
        return check_html(html)[1] == [TOO_BIG]

    assert not too_big("<b>" * 16 + "x") and too_big("<b>" * 17 + "x")
    assert not too_big("<b>x</b>" * 40)
    assert not too_big("<b>" * 15 + "<i>x</i>" * 3 + "<i>x")
    assert not too_big("<b>" * 16 + "<div>x</div>" * 3)
    # weight of <b title="..."> = 1 + len("title") + len(value) + 4
    assert not too_big('<b title="' + "x" * 2038 + '">y</b>')
    assert too_big('<b title="' + "x" * 2039 + '">y</b>')
    assert not too_big('<b title="' + "x" * 1000 + '">y</b>' * 3)


@pytest.mark.parametrize("value, written", [
    ("R&#38;D", "R&#38;D"), ("R&#x26;D", "R&#x26;D"), ("R&amp;D", "R&amp;D"),
    ("R&nosuch;D", "R&amp;nosuch;D"), ("R&amp D", "R&amp; D"), ("R & D", "R &amp; D"),
])
def test_an_attribute_stays_as_written_only_if_every_decoder_reads_it_alike(
        value: str, written: str) -> None:
    """Kills (``tokens._plain_value``): numeric or known named references taken for
    ambiguous ones (a harmless cell rewritten), or an unknown name or a reference without
    its semicolon kept as written (decoders differ on those)."""
    assert sanitize_raw(f'<abbr title="{value}">x</abbr>') == (
        f'<abbr title="{written}">x</abbr>', [])


def test_inert_markdown_keeps_lines_and_spaces_and_fills_blank_lines() -> None:
    """Kills: lines split on spaces too, or leading and trailing spaces stripped (inside
    <pre> they are the text), and line endings not made newlines."""
    assert inert_markdown("<p>a b</p>\n\n<p>[c]</p>") == (
        "<div>\n<p>a b</p>\n&#32;\n<p>&#91;c&#93;</p>\n</div>")
    assert inert_markdown("\n<p>x\r\ny\rz</p>\n") == "<div>\n<p>x\ny\nz</p>\n</div>"
    assert inert_markdown(" <pre> x </pre> ") == "<div>\n <pre> x </pre> \n</div>"
