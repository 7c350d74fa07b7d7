"""A student's notebook must not run script in the instructor's browser.

A throw-away nbgrader course receives one hostile submission per way a notebook can carry
active content (HTML in markdown, in odd case, with entities, split across lines, mutation
XSS, SVG, iframes, links, attachments, raw cells, outputs, metadata, text the grader quotes
back), plus honest ones. `python -m autograder grade` grades them and `nbgrader
generate_feedback` writes the feedback; then a Jupyter server with formgrader is started,
and headless Chromium opens each submission in formgrader (in the instructor's session) and
each feedback page as a file:// page.

Every payload, if it ran, would set ``window.pwned``, change the title, and fetch the answer
key through the contents API; the test listens for all three, for dialogs, and looks for
what should not be in the page (script-bearing links, iframes, a ``<base>``, widget state).
The honest submissions must still show their bold text, table, maths, image and link.

One more submission goes after the grading page itself rather than running script: images
of the server's /logout (the instructor's session would end as the page loads), Bootstrap
classes that cover the page, and ids of formgrader's own score and comment boxes and status
line. After opening it the instructor must still be logged in and able to grade: the boxes
are the real ones, take clicks, and what is typed in them is saved.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

import nbformat
import pytest
from support.lab import CHROMIUM, TOKEN, chromium, free_port, running_server, server_options
from support.nbgrader_course import Course, nbgrader_env
from support.submissions import perfect_submission, with_answer

from autograder.notebook import grade_id as grade_id_of
from autograder.sandbox import sandbox_available
from autograder.sanitize import render_markdown

AVAILABLE, WHY = sandbox_available()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt install "
                       "chromium); scripts/test.sh installs it where apt-get is available"),
    pytest.mark.skipif(not AVAILABLE, reason=f"no grading sandbox here: {WHY}"),
]
A = "01_tensors_and_memory"
KEY = f"/api/contents/source/{A}/{A}.ipynb"
# What each payload runs: mark the page, change its title, fetch the answer key. Written
# without quotes so that it fits in any attribute; a fetch of a path needs one kind of
# quote, so `Q` stands for the quote character of the context.
JS = "window.pwned=1;document.title=String(1234567);fetch(Q" + KEY + "Q)"


def js(quote: str = '"') -> str:
    return JS.replace("Q", quote)


PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a1d1a3e6"
    "0000000049454e44ae426082")).decode()
SVG_SCRIPT = base64.b64encode(
    f"<svg xmlns='http://www.w3.org/2000/svg' onload='{js()}'>"
    f"<script>{js()}</script></svg>".encode()).decode()

HONEST_MARKDOWN = (
    "## My notes\n\n"
    "Memory is **bytes per element** times *elements*, and $E = m c^2$ holds; a view "
    "costs $0 < n$ bytes.\n\n"
    "| dtype | bytes |\n| --- | ---: |\n| float32 | 4 |\n| bfloat16 | 2 |\n\n"
    f"![a dot](data:image/png;base64,{PNG}) see [the course](https://stanford-cs336.github.io/)"
    " and H<sub>2</sub>O.\n\n"
    "```python\nx = torch.zeros(4, 8)  # 128 bytes\n```\n"
)


# the submission that goes after the page, and the boxes it aims at: the comment box of a
# solution cell and the score box of a test cell
TAKEOVER = "page-takeover"
SOLUTION_ID, TEST_ID = "tensor_bytes", "test_tensor_bytes"


def _page_takeover(port: int) -> nbformat.NotebookNode:
    """/logout of this server as images (127.0.0.1 in four spellings: the browser sends the
    session cookie to each), a link; page-covering classes; the page's own ids."""
    logout = [f"http://{host}:{port}/logout" for host in
              ("127.0.0.1", "2130706433", "0x7f.1", "127.1", "localhost")]
    return _with_markdown(
        "".join(f'<img src="{url}">' for url in logout) + f"\n\n![x]({logout[0]}) "
        f"[log out]({logout[0]})\n\n"
        '<div class="modal-backdrop in">covered</div>\n\n'
        '<div class="modal in" style="display: block">a dialog</div>\n\n'
        '<div class="navbar navbar-fixed-bottom">a bar</div>\n\n'
        f"# statusmessage\n\n## {TEST_ID}\n\n"
        f'<h2 id="{SOLUTION_ID}-comment">the comment box</h2>\n\n'
        f'<a name="{TEST_ID}_extra_credit">the extra credit box</a>')


def _with_markdown(text: str, **cell_fields) -> nbformat.NotebookNode:
    """The perfect submission with one more markdown cell at the top."""
    notebook = perfect_submission(A)
    cell = nbformat.v4.new_markdown_cell(text)
    cell.update(cell_fields)
    notebook.cells.insert(0, cell)
    return notebook


def _raw_html() -> nbformat.NotebookNode:
    notebook = perfect_submission(A)
    notebook.cells.insert(0, nbformat.v4.new_raw_cell(
        f"<script>{js()}</script><img src=x onerror='{js(chr(34))}'>",
        metadata={"raw_mimetype": "text/html", "format": "text/html"}))
    return notebook


def _html_outputs() -> nbformat.NotebookNode:
    notebook = perfect_submission(A)
    code = next(c for c in notebook.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("display_data", data={
        "text/html": f"<img src=x onerror='{js()}'>",
        "application/javascript": js(),
        "image/svg+xml": base64.b64decode(SVG_SCRIPT).decode(),
        "text/markdown": f"<img src=x onerror='{js()}'>",
        "text/plain": "plot"})]
    return notebook


def _solution_cell_metadata() -> nbformat.NotebookNode:
    """nbgrader metadata is written into formgrader's page unescaped."""
    notebook = perfect_submission(A)
    cell = next(c for c in notebook.cells
                if grade_id_of(c) == "tensor_bytes")
    cell.metadata.nbgrader["grade_id"] = f"x\"></textarea><img src=x onerror='{js()}'><b x=\""
    cell.metadata["tags"] = [f"\"><img src=x onerror='{js()}'>"]
    markdown = nbformat.v4.new_markdown_cell("A written answer.")
    markdown.metadata["nbgrader"] = {"solution": True, "grade": False, "locked": False,
                                     "schema_version": 3,
                                     "grade_id": f"y\"></textarea><svg onload='{js()}'><b x=\""}
    notebook.cells.insert(0, markdown)
    return notebook


def _widget_state() -> nbformat.NotebookNode:
    notebook = perfect_submission(A)
    notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "version_major": 2, "version_minor": 0, "state": {"m": {
            "model_name": "HTMLModel", "model_module": "@jupyter-widgets/controls",
            "model_module_version": "2.0.0",
            "state": {"value": f"<img src=x onerror='{js()}'>"}}}}}
    notebook.metadata["title"] = f"</title><script>{js()}</script>"
    return notebook


def _quoted_value() -> nbformat.NotebookNode:
    """A wrong answer whose value the grader quotes back in its message."""
    return with_answer(perfect_submission(A), "tensor_bytes",
                       "def tensor_bytes(x):\n"
                       f"    return \"<img src=x onerror='{js(chr(92) + chr(34))}'>\"\n")


HOSTILE = {
    "img-onerror": lambda: _with_markdown(f"Hello <img src=x onerror='{js()}'>"),
    "script": lambda: _with_markdown(f"<script>{js()}</script>"),
    "svg-onload": lambda: _with_markdown(f"<svg onload='{js()}'><circle r=5 /></svg>"),
    "iframe-srcdoc": lambda: _with_markdown(
        f"<iframe srcdoc=\"<script>parent.{js('&quot;')}</script>\"></iframe>"),
    # the same payload in odd case, with character references, and split across lines
    "evasions": lambda: _with_markdown(
        f"<IMG SRC=x OnErRoR='{js()}'>\n\n"
        "<img src=x onerror='&#119;indow.pwned=1;document.title=&#34;1234567&#34;;"
        f"fetch(&quot;{KEY}&quot;)'>\n\n"
        f"<div>\n<img\nsrc=x\nonerror='{js()}'\n>\n</div>\n\nand <img src=x\nonerror='{js()}'>"),
    "javascript-link": lambda: _with_markdown(
        f"[click](javascript:{js(chr(39))}) <a href=\"&#106;avascript:{js(chr(39))}\">me</a>"
        " <a href='data:text/html,<script>alert(1)</script>'>data</a>"),
    # markup that parses differently in another context (mutation XSS)
    "parser-tricks": lambda: _with_markdown(
        f"<noscript><p title=\"</noscript><img src=x onerror='{js()}'>\">\n\n"
        f"<math><mtext><table><mglyph><style><img src=x onerror='{js()}'>"),
    "head-tags": lambda: _with_markdown(
        "<base href='https://evil.example/'>"
        "<meta http-equiv='refresh' content='1;url=https://evil.example/'>"
        "<style>body { background: url(https://evil.example/x.png) }</style>"
        "<form action='https://evil.example/'><input name=q><button>go</button></form>"
        "<object data='https://evil.example/x.swf'></object>"),
    "svg-attachment": lambda: _with_markdown(
        "![x](attachment:evil.svg)",
        attachments={"evil.svg": {"image/svg+xml": SVG_SCRIPT},
                     "page.html": {"text/html": base64.b64encode(
                         f"<script>{js()}</script>".encode()).decode()}}),
    "raw-html": _raw_html,
    "html-outputs": _html_outputs,
    "nbgrader-metadata": _solution_cell_metadata,
    "widget-state": _widget_state,
    "quoted-value": _quoted_value,
}
HONEST = {
    "honest": lambda: _with_markdown(HONEST_MARKDOWN),
}


@pytest.fixture(scope="module")
def port() -> int:
    """formgrader's port, known before the submissions are written (one aims at it)."""
    return free_port()


@pytest.fixture(scope="module")
def course(tmp_path_factory, port) -> Course:
    root = tmp_path_factory.mktemp("xss-course")
    course = Course(root)
    course.add_assignment(A)
    for student, make in {**HOSTILE, **HONEST}.items():
        course.submit(student, A, make())
    course.submit(TAKEOVER, A, _page_takeover(port))
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", A, f"--course={root}", "--jobs=2",
         "--no-progress"], capture_output=True, text=True, timeout=600, env=nbgrader_env())
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    # not course.nbgrader(): one submission nbgrader cannot render must not hide the others
    course.feedback_log = subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_feedback", A], cwd=root,
        env=nbgrader_env(), capture_output=True, text=True, timeout=600).stderr
    return course


@pytest.fixture(scope="module")
def formgrader(course, tmp_path_factory, port):
    """A Jupyter server with formgrader, run from the course directory (as an instructor
    does), with fresh runtime and settings folders."""
    command = [sys.executable, "-m", "jupyter_server", *server_options(port),
               f"--ServerApp.root_dir={course.root}",
               *(["--allow-root"] if os.geteuid() == 0 else [])]
    with running_server(command, course.root, nbgrader_env(),
                        tmp_path_factory.mktemp("jupyter"), port) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium("--allow-file-access-from-files") as browser:
        yield browser


def _logged_in(browser, formgrader: str):
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{formgrader}/formgrader?token={TOKEN}")
    page.close()
    return context


def _session_open(context, formgrader: str) -> bool:
    """Whether the context's session cookie still opens the server's API."""
    return context.request.get(f"{formgrader}/api/status", max_redirects=0).status == 200


@pytest.fixture(scope="module")
def instructor(browser, formgrader):
    """A browser context logged in to the Jupyter server (its session cookie set), as an
    instructor's browser is; requests that leave the machine are refused."""
    context = _logged_in(browser, formgrader)
    yield context
    context.close()


def _submission_ids(course: Course) -> dict[str, str]:
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gradebook:
        return {s: gradebook.find_submission_notebook(A, A, s).id
                for s in [*HOSTILE, *HONEST, TAKEOVER]}


@pytest.fixture(scope="module")
def submission_ids(course) -> dict[str, str]:
    return _submission_ids(course)


class Visit:
    """One page load with every way a payload could show itself recorded."""

    def __init__(self, context, url: str) -> None:
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        page = context.new_page()
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message),
                                          dialog.dismiss()))
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
            ("http://127.0.0.1", "file:", "data:", "blob:", "about:")) else route.abort())
        page.goto(url, wait_until="load", timeout=60_000)
        page.wait_for_timeout(300)  # onerror and onload handlers, srcdoc frames
        self.page = page
        self.url = url
        self.title = page.title()
        self.pwned = [frame.evaluate("() => typeof window.pwned !== 'undefined'")
                      for frame in page.frames if not frame.is_detached()]
        self.hits = [u for u in self.requests if "/api/contents" in u or "evil.example" in u]
        self.active = page.evaluate("""() => {
            const found = [];
            const root = '#notebook-container ';
            for (const a of document.querySelectorAll(root + 'a[href], ' + root + 'area[href]')) {
                const href = a.getAttribute('href');
                const p = new URL(href, location.href).protocol;
                if (!['http:', 'https:', 'mailto:', 'file:'].includes(p) ||
                    href.trim().toLowerCase().startsWith('data:')) {
                    found.push('link ' + href.slice(0, 40));
                }
            }
            for (const sel of ['iframe', 'frame', 'object', 'embed', 'form', 'svg', 'script',
                               'style', 'math', 'link']) {
                if (document.querySelector(root + sel)) found.push(sel);
            }
            for (const sel of ['base', 'meta[http-equiv="refresh" i]',
                               'script[type="application/vnd.jupyter.widget-state+json"]']) {
                if (document.querySelector(sel)) found.push(sel);
            }
            for (const el of document.querySelectorAll(root + '*')) {
                for (const attr of el.getAttributeNames()) {
                    if (attr.toLowerCase().startsWith('on')) found.push(el.tagName + ' ' + attr);
                }
            }
            return found;
        }""")

    def problems(self) -> list[str]:
        found = []
        if any(self.pwned):
            found.append("a payload ran (window.pwned is set)")
        if "1234567" in self.title:
            found.append("a payload changed the title")
        if self.dialogs:
            found.append(f"dialogs: {self.dialogs}")
        if self.hits:
            found.append(f"requests to the contents API or elsewhere: {self.hits}")
        if self.active:
            found.append(f"active content in the page: {self.active}")
        return found


def _url(where: str, student: str, course: Course, formgrader: str,
         submission_ids: dict[str, str]) -> str:
    if where == "formgrader":  # the instructor's manual-grading view of the submission
        return f"{formgrader}/formgrader/submissions/{submission_ids[student]}/"
    feedback = course.root / "feedback" / student / A / f"{A}.html"
    assert feedback.exists(), f"no feedback page for {student}:\n{course.feedback_log[-3000:]}"
    return feedback.as_uri()  # opened as a file, as a student or instructor does


@pytest.mark.parametrize("student", sorted(HOSTILE))
@pytest.mark.parametrize("where", ["formgrader", "feedback"])
def test_no_planted_script_runs(course, formgrader, instructor, submission_ids, where, student):
    visit = Visit(instructor, _url(where, student, course, formgrader, submission_ids))
    try:
        assert visit.page.locator("#notebook-container .cell").count() > 10, \
            f"{where} did not show the submission"
        assert not visit.problems(), f"{where}, {student}: {visit.problems()}"
    finally:
        visit.page.close()


def test_removing_content_costs_no_points_and_is_noted(course):
    for student in HOSTILE:  # each is the full solution, but one wrong answer
        record = json.loads((course.root / "grades" / A / f"{student}.json").read_text())
        lost = 1 if student == "quoted-value" else 0
        assert record["score"] == record["max_score"] - lost, (student, record["message"])
    record = json.loads((course.root / "grades" / A / "img-onerror.json").read_text())
    assert "onerror" in record["message"]
    autograded = nbformat.read(course.autograded("img-onerror", A), as_version=4)
    assert "onerror" in autograded.cells[0].source and "removed" in autograded.cells[0].source
    honest = json.loads((course.root / "grades" / A / "honest.json").read_text())
    assert honest["message"] == "" and honest["score"] == honest["max_score"]
    # harmless markdown loses nothing: only the id of the student's own heading is renamed
    honest_cell = nbformat.read(course.autograded("honest", A), as_version=4).cells[0].source
    assert 'id="user-content-My-notes"' in honest_cell and "**" not in honest_cell
    record = json.loads((course.root / "grades" / A / f"{TAKEOVER}.json").read_text())
    assert record["score"] == record["max_score"]
    for removed in ("an image from a local or private address", "a link to a local or "
                    "private address", "a class name on <div>"):
        assert removed in record["message"], record["message"]


@pytest.mark.parametrize("where", ["formgrader", "feedback"])
def test_honest_formatting_still_shows(course, formgrader, instructor, submission_ids, where):
    url = _url(where, "honest", course, formgrader, submission_ids)
    visit = Visit(instructor, url)
    page = visit.page
    try:
        assert not visit.problems()
        cell = page.locator(".text_cell_render").filter(has_text="My notes").first
        assert cell.locator("h2").first.inner_text().startswith("My notes")
        assert cell.locator("strong").first.inner_text() == "bytes per element"
        assert cell.locator("em").first.inner_text() == "elements"
        assert cell.locator("table td").count() == 4
        assert cell.locator("sub").first.inner_text() == "2"
        text = cell.inner_text()
        # MathJax comes from a CDN, which this machine cannot reach: the TeX must be intact
        assert "E = m c^2" in text and "0 < n" in text, text
        assert cell.locator("img[src^='data:image/png;base64,']").count() == 1
        assert cell.locator("a[href='https://stanford-cs336.github.io/']").count() == 1
        assert "128 bytes" in cell.locator("pre").first.inner_text()
    finally:
        page.close()


def _boxes(page) -> list:
    """What the ids of formgrader's own boxes and status line lead to in ``page``."""
    return page.evaluate("""([test, solution]) => [
        document.getElementById(test)?.className,
        document.getElementById(test + '_extra_credit')?.className,
        document.getElementById(solution + '-comment')?.tagName,
        document.getElementById('statusmessage')?.parentElement?.tagName]""",
                         [TEST_ID, SOLUTION_ID])


REAL_BOXES = ["score tabbable", "extra-credit tabbable", "TEXTAREA", "BODY"]


def test_the_takeover_is_live_unsanitised(browser, formgrader, course, submission_ids, port):
    """The same payloads put into a graded page as they are (in a throw-away session): the
    ids lead elsewhere, the backdrop takes the comment box's clicks, the session ends."""
    context = _logged_in(browser, formgrader)
    try:
        page = context.new_page()
        page.goto(_url("formgrader", "honest", course, formgrader, submission_ids))
        assert _boxes(page) == REAL_BOXES
        html = render_markdown(_page_takeover(port).cells[0].source)
        page.evaluate("""html => {
            const div = document.createElement('div');
            div.innerHTML = html;
            document.body.prepend(div);
            return Promise.all([...div.querySelectorAll('img')].map(img => img.decode()
                .catch(() => null)));
        }""", html)
        assert _boxes(page)[:3] != REAL_BOXES[:3]
        covered = page.evaluate("""id => {
            const box = document.getElementById(id + '-comment').getBoundingClientRect();
            const hit = document.elementFromPoint(box.x + box.width / 2, box.y + 5);
            return hit === null || !hit.classList.contains('comment');
        }""", SOLUTION_ID)
        assert covered
        assert not _session_open(context, formgrader)
    finally:
        context.close()


def test_a_submission_cannot_take_over_the_grading_page(course, formgrader, instructor,
                                                        submission_ids):
    from nbgrader.api import Gradebook

    visit = Visit(instructor, _url("formgrader", TAKEOVER, course, formgrader,
                                   submission_ids))
    page = visit.page
    comment = "Graded after opening a hostile page."
    try:
        assert not visit.problems()
        assert not [u for u in visit.requests if "/logout" in u]
        assert page.locator("#notebook-container .cell").count() > 10
        text = page.locator("body").inner_text()
        assert "covered" in text and "statusmessage" in text  # shown, as inert text
        assert _boxes(page) == REAL_BOXES
        box = page.locator(f"#{SOLUTION_ID}-comment")
        box.click(timeout=5_000)  # fails if anything covers it
        box.fill(comment)
        page.locator(f"#{TEST_ID}").click(timeout=5_000)  # leaving the box saves it
        page.locator(f"#{TEST_ID}").fill("1")
        box.click(timeout=5_000)
        page.wait_for_timeout(1_000)
    finally:
        page.close()
    assert _session_open(instructor, formgrader)
    with Gradebook(course.db_url) as gradebook:
        saved = gradebook.find_comment(SOLUTION_ID, A, A, TAKEOVER).manual_comment
        score = gradebook.find_grade(TEST_ID, A, A, TAKEOVER).manual_score
    assert (saved, score) == (comment, 1)
