"""The "Open in Colab" badge and the Colab setup cell at the top of every student notebook.

They agree with course.toml (the same repository and revision in every English and Chinese
notebook's badge and setup cell, and in any Colab link of the README and docs); they are made
by the release (``ColabCells``, and the translation for the Chinese edition), never in
``solutions/``; the setup cell does nothing outside Colab; and on a stand-in Colab (a
``google.colab`` module already imported, the repository from a local tarball, pip replaced by
a recorder) it fetches, installs only what is missing, loads ``%check_my_work``, prints one
line, and a second run installs and fetches nothing.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from importlib import metadata
from io import BytesIO
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement

from autograder.colab import (
    BADGE,
    GPU_RUNTIME,
    SETUP,
    badge_source,
    colab_role,
    repository,
    setup_cell_source,
    with_colab_cells,
)
from autograder.colab_setup import KEEP, installed_pins, pip_install, requirements
from autograder.course import REPO, assignments, instructor_notebook
from autograder.notebook import read_notebook
from autograder.preprocessors.colab_cells import ColabCells
from lecture_utils.gpu_cells import is_gpu_only

COURSE = repository()
EDITIONS = [("notebooks", "en"), ("notebooks-zh-CN", "zh-CN")]
ENGLISH_REQUIREMENTS = REPO / "colab" / "requirements.txt"
REQUIREMENTS = sorted((REPO / "colab").glob("requirements*.txt"))  # and each language's
# Colab's runtime lacks these of colab/requirements.txt (googlecolab/backend-info, Aug. 2026)
COLAB_LACKS = {"jaxtyping", "polib"}
# any Colab address of a notebook on GitHub, and GitHub's archive of a revision
_COLAB_LINK = re.compile(r"colab\.research\.google\.com/github/([\w.-]+/[\w.-]+)/blob/([\w.-]+)/")
_ARCHIVE = re.compile(r"github\.com/([\w.-]+/[\w.-]+)/archive/([\w.-]+)\.tar\.gz")


def _published(folder: str, assignment: str) -> str:
    return f"{folder}/{assignment}/{assignment}.ipynb"


# --- what the release wrote ---------------------------------------------------------------


@pytest.mark.parametrize(("folder", "language"), EDITIONS)
@pytest.mark.parametrize("assignment", assignments())
def test_each_notebook_opens_with_its_badge_then_its_setup_cell(assignment, folder, language):
    path = _published(folder, assignment)
    notebook = read_notebook(REPO / path)
    assert [colab_role(c) for c in notebook.cells[:3]] == [BADGE, SETUP, None]
    assert sum(colab_role(c) is not None for c in notebook.cells) == 2
    badge, setup = notebook.cells[:2]
    assert badge.cell_type == "markdown" and setup.cell_type == "code"
    assert badge.source == badge_source(path, language)
    assert f"]({COURSE.badge_url(path)})" in badge.source  # opens this very notebook
    assert setup.source == setup_cell_source(language)
    assert f'finish(home, language="{language}",' in setup.source
    # Colab opens a notebook with GPU cells on a GPU runtime, and no other on one
    gpu_cells = any(c.cell_type == "code" and is_gpu_only(c.source) for c in notebook.cells)
    asks = {key: notebook.metadata.get(key) for key in GPU_RUNTIME}
    assert asks == (GPU_RUNTIME if gpu_cells else dict.fromkeys(GPU_RUNTIME))


def test_every_badge_setup_cell_readme_and_doc_names_one_repository_and_revision():
    """Kills: a notebook, README or doc left pointing at another fork or revision."""
    expected = {(COURSE.github, COURSE.revision)}
    texts = {path: path.read_text("utf-8") for folder, _ in EDITIONS
             for path in sorted((REPO / folder).glob("*/*.ipynb"))}
    links = {path: set(_COLAB_LINK.findall(text)) for path, text in texts.items()}
    archives = {path: set(_ARCHIVE.findall(text)) for path, text in texts.items()}
    assert len(links) == 2 * len(assignments())
    assert all(found == expected for found in links.values()), links
    assert all(found == expected for found in archives.values()), archives
    for page in [REPO / "README.md", REPO / "README.zh-CN.md", *sorted(REPO.glob("docs/*.md"))]:
        text = page.read_text("utf-8")
        named = set(_COLAB_LINK.findall(text)) | set(_ARCHIVE.findall(text))
        assert named <= expected, f"{page.name} names {named - expected}; course.toml: {expected}"
        assert named or not page.name.startswith("README"), f"{page.name} has no Colab badge"


@pytest.mark.parametrize("assignment", assignments())
def test_instructor_notebooks_have_no_colab_cells(assignment):
    notebook = read_notebook(instructor_notebook(assignment))
    assert not any(colab_role(c) for c in notebook.cells)
    assert "colab.research.google.com" not in json.dumps(notebook)


# --- how they are made ----------------------------------------------------------------------


def _toy() -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Toy"),
                                           nbformat.v4.new_code_cell("x = 1")])


def test_the_preprocessor_puts_the_cells_on_top_once_from_the_course_file(tmp_path):
    fork = tmp_path / "course.toml"
    fork.write_text('[repository]\ngithub = "someone/fork"\nrevision = "v2.0"\n')
    resources = {"nbgrader": {"assignment": "00_toy", "notebook": "00_toy"}}
    released, _ = ColabCells(course_file=str(fork), folder="release").preprocess(
        _toy(), resources)
    again, _ = ColabCells(course_file=str(fork), folder="release").preprocess(
        released, resources)  # releasing a release replaces its cells
    assert [c.source for c in again.cells[2:]] == ["# Toy", "x = 1"]
    assert again.cells[0].source == (
        "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
        "(https://colab.research.google.com/github/someone/fork/blob/v2.0/"
        "release/00_toy/00_toy.ipynb)")
    assert '"https://github.com/someone/fork/archive/v2.0.tar.gz"' in again.cells[1].source
    assert 'revision = time.monotonic(), "v2.0"' in again.cells[1].source
    nbformat.validate(again)


@pytest.mark.parametrize("line", ['github = "a\\"b/c"', 'github = "no-slash"',
                                  'revision = "v1\\" + x"', 'revision = ""'])
def test_a_malformed_course_file_is_refused(tmp_path, line):
    values = {"github": '"someone/fork"', "revision": '"v1"'}
    key = line.split(" = ")[0]
    values[key] = line.split(" = ", 1)[1]
    course = tmp_path / "course.toml"
    course.write_text("[repository]\n" + "".join(f"{k} = {v}\n" for k, v in values.items()))
    with pytest.raises(ValueError, match=key):
        repository(course)


def test_the_chinese_setup_cell_differs_only_in_its_words():
    def code(source: str) -> list[str]:  # its lines without comments, blank ones left out
        return [kept for line in source.splitlines() if (kept := line.split("#")[0].rstrip())]

    def unworded(source: str) -> list[str]:  # and its messages' words left out
        return [re.sub(r'f"[^"]*"', 'f"..."', line) for line in code(source)]

    english, chinese = setup_cell_source("en"), setup_cell_source("zh-CN")
    assert unworded(chinese) == [line.replace('language="en"', 'language="zh-CN"')
                                 for line in unworded(english)]
    assert len(code(chinese)) == len(code(english))  # each message as many lines
    assert "仅在 Google Colab 上运行" in chinese
    assert with_colab_cells(_toy(), "x.ipynb", "zh-CN").cells[0].source.startswith(
        "[![在 Colab 中打开]")


def test_requirements_leave_colabs_own_packages_alone():
    """Kills: a requirement naming a package Colab pins (IPython, torch...), or a bound that
    Colab's own version (tests/colab/colab-pins.txt) does not meet, which pip would change."""
    wanted = [Requirement(line) for line in requirements(REQUIREMENTS)]
    assert {r.name for r in wanted} >= {"einops", "jaxtyping", "beartype", "polib"}
    assert not {r.name.lower() for r in wanted} & set(KEEP)
    pins = dict(line.split("==") for line in requirements([REPO / "tests/colab/colab-pins.txt"])
                if "==" in line)
    colab = {name.lower().replace("_", "-"): version for name, version in pins.items()}
    for requirement in wanted:
        if requirement.name in colab:
            assert requirement.specifier.contains(colab[requirement.name]), requirement


def test_the_install_holds_every_installed_package_at_its_version():
    """Kills: a constraint list of a few names only (pip could then move any other package
    Colab has), one name twice (pip refuses conflicting pins), or a version pip cannot read."""
    held = dict(pin.split("==") for pin in installed_pins())
    assert len(held) == len(installed_pins()) > len(KEEP)
    for name in (*KEEP, "packaging", "traitlets"):
        assert held[name] == metadata.version(name)
    # what is being installed is not held: Colab may have it at a version outside its range
    assert set(dict(pin.split("==") for pin in installed_pins(frozenset({"polib", "einops"})))) \
        == set(held) - {"polib", "einops"}


# --- running the setup cell ------------------------------------------------------------------

# Runs a setup cell's source (argv[1]) in IPython as a Colab kernel would, and reports in JSON
# what it printed, what it asked pip for and which side effects Python's audit hooks saw.
# With COLAB=1 a stand-in google.colab is imported first and the distributions in LACKS are
# absent until the pip stand-in "installs" them.
HARNESS = r'''
import contextlib, importlib.metadata as metadata, io, json, os, subprocess, sys, types

events = []
WATCHED = ("subprocess.Popen", "urllib.Request", "socket.connect", "shutil.rmtree", "os.rename",
           "os.mkdir", "shutil.copytree")
sys.addaudithook(lambda event, args: events.append(event) if event in WATCHED else None)
lacks = set(json.loads(os.environ.get("LACKS", "[]")))
pip_calls = []
if os.environ.get("COLAB") == "1":
    sys.modules["google.colab"] = types.ModuleType("google.colab")
    real_version = metadata.version

    def version(name):
        if name.lower() in lacks:
            raise metadata.PackageNotFoundError(name)
        return real_version(name)

    real_distributions = metadata.distributions

    def distributions(**kwargs):
        return (found for found in real_distributions(**kwargs)
                if found.metadata["Name"].lower() not in lacks)

    def pip(args, **kwargs):
        assert args[1:4] == ["-m", "pip", "install"], args
        constraint = args[args.index("--constraint") + 1]
        with open(constraint) as handle:
            pip_calls.append({"args": args[4:], "constraints": handle.read().split()})
        for line in args[4:]:
            lacks.discard(line.split(">")[0].split("=")[0].split("<")[0])
        return subprocess.CompletedProcess(args, 0, "", "")

    metadata.version, metadata.distributions, subprocess.run = version, distributions, pip
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
runs = []
for number in range(int(os.environ.get("RUNS", "1"))):
    events.clear()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        result = shell.run_cell(sys.argv[1])
    runs.append({"out": out.getvalue(), "ok": result.success, "events": sorted(set(events)),
                 "pip": pip_calls[:]})
    pip_calls.clear()
    if number == 0 and os.environ.get("REMOVE_AFTER_FIRST"):
        os.remove(os.environ["REMOVE_AFTER_FIRST"])
loaded = {name: getattr(sys.modules.get(name), "__file__", None)
          for name in ("lecture_utils", "autograder.colab_setup")}
print(json.dumps({"runs": runs, "loaded": loaded, "google": "google.colab" in sys.modules,
                  "check_my_work": "check_my_work" in shell.magics_manager.magics["line"],
                  "language": os.environ.get("LECTURE_LANGUAGE"),
                  "tempdir": __import__("tempfile").tempdir}))
'''


def _run_cell(source: str, tmp_path: Path, **env: str) -> dict:
    script = tmp_path / "harness.py"
    script.write_text(HARNESS)
    # a fresh interpreter, in an empty folder, without the repository's test settings; no
    # bytecode written, so every file event the audit hooks see is the cell's
    clean = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1",
             **env}
    run = subprocess.run([sys.executable, str(script), source], cwd=tmp_path, env=clean,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_outside_colab_the_setup_cell_does_nothing(tmp_path):
    home = tmp_path / "home"
    report = _run_cell(setup_cell_source("en"), tmp_path, CS336_COURSE_HOME=str(home))
    assert report["google"] is False
    [run] = report["runs"]
    assert run == {"out": "", "ok": True, "events": [], "pip": []}
    assert report["loaded"] == {"lecture_utils": None, "autograder.colab_setup": None}
    assert not report["check_my_work"] and not home.exists()
    assert report["tempdir"] is None  # temporary files stay where the system puts them


def _course_tarball(tmp_path: Path) -> Path:
    """The repository's parts the setup cell needs, packed as GitHub packs a revision."""
    tarball = tmp_path / "course.tar.gz"
    skip = {"__pycache__"}
    with tarfile.open(tarball, "w:gz") as archive:
        for part in ("lecture_utils", "autograder", "solutions", "colab"):
            archive.add(REPO / part, f"notebooks-0.1.0/{part}",
                        filter=lambda info: None if Path(info.name).name in skip else info)
    return tarball


def _one_line(run: dict) -> str:
    lines = run["out"].splitlines()
    assert len(lines) == 1, run["out"]
    return lines[0]


@pytest.mark.slow
def test_on_colab_it_fetches_installs_what_is_missing_and_a_second_run_does_neither(tmp_path):
    home = tmp_path / "content" / "cs336-lecture2"
    tarball = _course_tarball(tmp_path)
    report = _run_cell(setup_cell_source("en"), tmp_path, COLAB="1", RUNS="2",
                       CS336_COURSE_SOURCE=str(tarball), CS336_COURSE_HOME=str(home),
                       LACKS=json.dumps(sorted(COLAB_LACKS)),
                       REMOVE_AFTER_FIRST=str(tarball))  # a second fetch would fail
    first, second = report["runs"]
    assert first["ok"] and second["ok"], report
    revision = COURSE.revision
    assert re.fullmatch(rf"Colab setup: fetched the course at {revision}; installed jaxtyping, "
                        r"polib; %check_my_work loaded \(\d+\.\d s\)", _one_line(first))
    [pip] = first["pip"]
    assert pip["args"][:3] == ["--quiet", "--disable-pip-version-check", "--constraint"]
    assert pip["args"][4:] == [line for line in requirements([ENGLISH_REQUIREMENTS])
                               if Requirement(line).name in COLAB_LACKS]
    held = dict(pin.split("==") for pin in pip["constraints"])  # every package, as installed
    assert set(KEEP) <= set(held) and not COLAB_LACKS & set(held)
    assert all(held[name] == metadata.version(name) for name in KEEP)
    assert {"shutil.rmtree", "os.rename"} <= set(first["events"])

    assert re.fullmatch(rf"Colab setup: the course at {revision} is here; nothing to install; "
                        r"%check_my_work loaded \(0\.\d s\)", _one_line(second))
    assert second["pip"] == [] and second["events"] == []
    assert (home / ".revision").read_text() == revision
    assert all(Path(f).is_relative_to(home) for f in report["loaded"].values()), report
    assert report["check_my_work"] and report["language"] == "en"
    # the notebooks' temporary files (08's token files, 09's checkpoints) land beside the
    # course under /content, where Colab's file browser shows them
    assert report["tempdir"] == str(home.parent / "cs336-files")


@pytest.mark.slow
def test_on_colab_a_checkout_is_used_where_it_is_in_chinese(tmp_path):
    checkout = tmp_path / "checkout"
    with tarfile.open(_course_tarball(tmp_path)) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (tmp_path / "unpacked" / "notebooks-0.1.0").rename(checkout)
    before = sorted(p.relative_to(checkout) for p in checkout.rglob("*"))
    report = _run_cell(setup_cell_source("zh-CN"), tmp_path, COLAB="1",
                       CS336_COURSE_SOURCE=str(checkout), LACKS=json.dumps(["polib"]))
    [run] = report["runs"]
    assert re.fullmatch(rf"Colab 设置：课程代码 {COURSE.revision} 已就绪；已安装 polib；"
                        r"已加载 %check_my_work（用时 \d+\.\d 秒）", _one_line(run)), run
    # nothing fetched, moved or removed: the checkout is used as is; the one folder made is
    # the one for the notebooks' temporary files, beside it
    assert run["events"] == ["os.mkdir"] and report["tempdir"] == str(tmp_path / "cs336-files")
    assert sorted(p.relative_to(checkout) for p in checkout.rglob("*")) == before
    assert all(Path(f).is_relative_to(checkout) for f in report["loaded"].values())
    assert report["language"] == "zh-CN"


# --- when the fetch fails: one message that says what to do, and nothing lost ------------------


def _last_line(run: dict) -> str:
    """The last line the cell printed, IPython's colours taken out."""
    return re.sub(r"\x1b\[[0-9;]*m", "", run["out"]).strip().splitlines()[-1]


def _old_copy(home: Path) -> None:
    """A copy the cell made for an older revision, with a file that must survive."""
    home.mkdir(parents=True)
    (home / ".revision").write_text("v0.0.1")
    (home / "kept.txt").write_text("the old copy")


def _tarball(path: Path, members: list[tarfile.TarInfo]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for member in members:
            archive.addfile(member, BytesIO(b"x" * member.size) if member.isfile() else None)
    return path


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.type, member.linkname, member.size = kind, link, 1 if kind == tarfile.REGTYPE else 0
    return member


@pytest.fixture
def not_found_url(tmp_path):
    """An address on a local web server that answers 404, as GitHub does for an unpushed tag."""
    empty = tmp_path / "served"
    empty.mkdir()
    handler = partial(SimpleHTTPRequestHandler, directory=str(empty))
    handler.log_message = lambda *args: None
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{server.server_address[1]}/archive/v0.1.0.tar.gz"
        server.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("case", ["404", "offline", "corrupt", "escapes", "absolute link"])
def test_a_failed_fetch_says_what_to_do_and_keeps_the_old_copy(tmp_path, case, request):
    """Kills: removing the old copy before the new one is whole, a bare traceback with no
    advice, an archive member written outside its folder, a half-unpacked folder left behind."""
    home = tmp_path / "content" / "cs336-lecture2"
    _old_copy(home)
    source = {
        "404": lambda: request.getfixturevalue("not_found_url"),
        "offline": lambda: "http://127.0.0.1:9/archive/v0.1.0.tar.gz",  # discard: refused
        "corrupt": lambda: str(_course_tarball(tmp_path).rename(tmp_path / "cut.tar.gz")),
        "escapes": lambda: str(_tarball(tmp_path / "bad.tar.gz", [
            _member("notebooks-0.1.0/a.txt"), _member("../escaped.txt")])),
        "absolute link": lambda: str(_tarball(tmp_path / "bad.tar.gz", [
            _member("notebooks-0.1.0/link", tarfile.SYMTYPE, "/etc/passwd")])),
    }[case]()
    if case == "corrupt":
        data = Path(source).read_bytes()
        Path(source).write_bytes(data[: len(data) // 2])  # a download cut off half-way
    report = _run_cell(setup_cell_source("en"), tmp_path, COLAB="1",
                       CS336_COURSE_SOURCE=source, CS336_COURSE_HOME=str(home))
    [run] = report["runs"]
    assert not run["ok"] and run["pip"] == []
    last = _last_line(run)
    assert last.startswith(f"RuntimeError: could not fetch the course at {COURSE.revision} ("), last
    assert last.endswith("then run this cell again. HTTP Error 404: GitHub has no "
                         f"{COURSE.revision}; tell the course's maintainers"), last
    assert ("HTTP Error 404" in last.split(")")[0]) == (case == "404")
    assert sorted(p.name for p in home.parent.iterdir()) == ["cs336-lecture2"]  # nothing else
    assert sorted(p.name for p in home.iterdir()) == [".revision", "kept.txt"]
    assert (home / ".revision").read_text() == "v0.0.1"
    assert not (home.parent / "escaped.txt").exists()  # where ../escaped.txt would land
    assert report["loaded"] == {"lecture_utils": None, "autograder.colab_setup": None}


@pytest.mark.slow
def test_a_folder_the_cell_did_not_make_is_left_alone(tmp_path):
    home = tmp_path / "content" / "cs336-lecture2"
    home.mkdir(parents=True)
    (home / "my_work.py").write_text("x = 1")
    report = _run_cell(setup_cell_source("zh-CN"), tmp_path, COLAB="1",
                       CS336_COURSE_SOURCE=str(_course_tarball(tmp_path)),
                       CS336_COURSE_HOME=str(home))
    [run] = report["runs"]
    assert not run["ok"] and "shutil.rmtree" not in run["events"]
    assert _last_line(run) == (
        f"RuntimeError: {home} 不是本单元创建的副本：请将它改名，然后重新运行本单元")
    assert [p.name for p in home.iterdir()] == ["my_work.py"]


# --- real pip, offline: what the install's constraints let it do ------------------------------


def _wheel(folder: Path, name: str, version: str, requires: list[str]) -> None:
    """A minimal wheel of ``name`` (no code) that requires ``requires``."""
    import zipfile

    info = f"{name}-{version}.dist-info"
    files = {f"{info}/METADATA": "Metadata-Version: 2.1\nName: {}\nVersion: {}\n{}".format(
                 name, version, "".join(f"Requires-Dist: {r}\n" for r in requires)),
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                              "Tag: py3-none-any\n"}
    files[f"{info}/RECORD"] = "".join(f"{path},,\n" for path in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)


@pytest.mark.parametrize(("releases", "chosen"), [
    ({"2.0": ["numpy>=99"], "1.0": ["numpy>=1"]}, "1.0"),  # the newest wants a newer numpy
    ({"2.0": ["numpy<1"]}, None),  # only an older numpy would do: no install at all
])
def test_a_new_package_never_moves_numpy_pip_takes_an_older_release_or_fails(
        tmp_path, releases, chosen):
    """Real pip (a dry run from a local folder of wheels) under the constraints the setup cell
    passes: a package Colab lacks whose newest release wants another numpy."""
    for version, requires in releases.items():
        _wheel(tmp_path, "colab_probe", version, requires)
    for numpy in ("0.9", "99.0"):  # what pip would move numpy to, were it free to
        _wheel(tmp_path, "numpy", numpy, [])
    report = tmp_path / "report.json"
    options = ("--dry-run", "--no-index", "--find-links", str(tmp_path), "--report", str(report))
    if chosen is None:
        with pytest.raises(RuntimeError, match="pip could not install colab-probe"):
            pip_install(["colab-probe"], installed_pins(), "en", options)
        return
    pip_install(["colab-probe"], installed_pins(), "en", options)
    install = {item["metadata"]["name"]: item["metadata"]["version"]
               for item in json.loads(report.read_text())["install"]}
    assert install == {"colab_probe": chosen}


# --- %check_my_work's grader on Colab: nothing beyond Colab's packages and the setup cell's ----

# The course environment's packages that Colab's runtime lacks (or that check has no business
# needing there) and the setup cell does not install: nbgrader, mutmut and nh3 are not in Colab's
# pip-freeze.txt (googlecolab/backend-info); dask/distributed and bleach are the grader's own.
NOT_ON_COLAB = ("nbgrader", "mutmut", "nh3", "distributed", "dask", "bleach")
REFUSING = r'''
import runpy, sys

REFUSED = set(sys.argv[2].split(","))


class Refuse:  # as if these were not installed
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in REFUSED:
            raise ModuleNotFoundError(f"{name} is not on Colab", name=name)

sys.meta_path.insert(0, Refuse())
sys.argv = ["autograder", "check", sys.argv[1]]
runpy.run_module("autograder", run_name="__main__", alter_sys=True)
'''


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["notebooks", "notebooks-zh-CN"])
def test_check_runs_without_the_packages_colab_lacks(tmp_path, folder):
    """Kills: ``python -m autograder check`` (what %check_my_work runs on Colab) importing
    nbgrader, mutmut, nh3, Dask or bleach on its way, which would fail there."""
    name = "00_napkin_math"
    notebook = tmp_path / f"{name}.ipynb"
    notebook.write_bytes((REPO / folder / name / f"{name}.ipynb").read_bytes())
    run = subprocess.run([sys.executable, "-c", REFUSING, str(notebook), ",".join(NOT_ON_COLAB)],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert run.returncode in (0, 1) and "is not on Colab" not in run.stderr, run.stderr[-3000:]
    # graded to the end: every exercise in the table, none solved (the released stubs)
    assert re.search(r"^(score: |总分：)0/4$", run.stdout, re.MULTILINE), run.stdout[-2000:]
    assert run.stdout.count("test_training_") == 4  # two rows, two sections of details
