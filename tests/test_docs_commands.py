"""Every shell command in the READMEs and docs/ still runs as written.

The commands are read from fenced code blocks (```bash, ```sh, ```shell, ```console, and a
block with no language whose first line looks like a command) of README.md, README.zh-CN.md
and docs/**/*.md. Each simple command (after `&&`, `||`, `;`, `|`, prompts, comments, line
continuations and `VAR=value` prefixes are taken apart) must name a program that exists, and
where it is practical to ask the program, its subcommands and options must exist too:

- `python -m autograder SUB ...`: SUB, nested words with fixed choices (`translate update`)
  and every option are the real parser's (autograder/cli.py, introspected, not listed here);
- `python -m MODULE`: the module imports from this environment;
- `python path/script.py --opt`: the file exists and defines `"--opt"`;
- `bash scripts/X.sh`: the file exists and every `VAR=value` before it is a variable the
  script, or a script it runs, reads;
- `nbgrader SUB --opt`: SUB is one of nbgrader's subcommands and --opt one of the options
  `nbgrader SUB --help-all` lists (the same text, taken from the app in this process: one
  import instead of a process per subcommand), or a `--Class.trait` of a configurable class;
- `dask SUB --opt`: --opt is in `dask SUB --help`; `jupyter SUB`: `jupyter-SUB` exists;
- anything else: on PATH (or in .venv/bin), a shell builtin, or in ALLOWED below.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import io
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = sorted([REPO / "README.md", REPO / "README.zh-CN.md", *(REPO / "docs").rglob("*.md")])
SHELL_LANGUAGES = {"bash", "sh", "shell", "console", "zsh"}
BUILTINS = {"cd", "export", "source", ".", "set", "unset", "echo", "exit", "alias", "read",
            "eval", "exec", "pushd", "popd", "test", "[", "true", "false", "ulimit", "umask",
            "wait", "type", "command", "printf", "time"}
# Programs a reader may have that this machine need not: each with why it is not checked.
ALLOWED = {
    "apt": "Debian/Ubuntu's package manager; which one a reader has depends on their system",
    "apt-get": "Debian/Ubuntu's package manager, as above",
    "brew": "macOS's package manager (Homebrew), as above",
}
PREFIXES = {"sudo", "env", "nohup"}  # run the command that follows them
# words that make a block with no language a shell block
COMMAND_WORDS = {"bash", "sh", "python", "python3", "nbgrader", "jupyter", "git", "pip", "cd",
                 "export", "source", "sudo", "apt", "apt-get", "dask"}
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
PYTHON = re.compile(r"(.*/)?python(3(\.\d+)?)?$")


@dataclass(frozen=True)
class Command:
    """One simple command of a page: its words, where it starts, and its env prefixes."""

    where: str  # "README.md:42"
    env: tuple[str, ...]
    words: tuple[str, ...]

    def __str__(self) -> str:
        return " ".join(self.env + self.words)


# --- reading the commands --------------------------------------------------------------------

def _blocks(markdown: str) -> Iterator[tuple[str, int, list[str]]]:
    """(language, line number of the block's first line, its lines) for each fenced block."""
    lines = markdown.split("\n")
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, language = opening.group(2), opening.group(3).lower()
        body, i = [], i + 1
        start = i + 1
        while i < len(lines) and not lines[i].strip().startswith(fence[0] * len(fence)):
            body.append(lines[i])
            i += 1
        i += 1
        yield language, start, body


def _strip_comment(line: str) -> str:
    """The line without a `#` comment (a `#` at the start of a word, outside quotes)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def _first_word(line: str) -> str:
    words = line.strip().removeprefix("$ ").split()
    while words and ASSIGNMENT.match(words[0]):
        words = words[1:]
    return words[0] if words else ""


def _is_shell(language: str, body: list[str]) -> bool:
    if language in SHELL_LANGUAGES:
        return True
    if language:
        return False
    first = next((line for line in body if line.strip()), "")
    word = _first_word(first)
    return first.lstrip().startswith("$ ") or word in COMMAND_WORDS or (
        "/" in word and (REPO / word).exists())


def _logical_lines(language: str, start: int, body: list[str]) -> Iterator[tuple[int, str]]:
    """(line number, command line) with continuations joined and prompts and output dropped."""
    prompted = language == "console" and any(line.lstrip().startswith("$ ") for line in body)
    pending, pending_at = "", 0
    for offset, raw in enumerate(body):
        line = raw.strip()
        if pending:
            line = line.removeprefix("> ")
        elif prompted:
            if not line.startswith("$ "):
                continue  # a console block's output
            line = line[2:]
        else:
            line = line.removeprefix("$ ")
        if not pending:
            pending_at = start + offset
        line = _strip_comment(line).rstrip()
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        pending += line
        if pending.strip():
            yield pending_at, pending
        pending = ""
    if pending.strip():
        yield pending_at, pending


def _simple_commands(line: str) -> Iterator[list[str]]:
    """The words of each command of a line, split at &&, ||, ;, | and &, redirections gone."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""  # comments are gone already; a `#` inside a word stays
    words: list[str] = []
    tokens = list(lexer)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in {"&&", "||", ";", "|", "&", "(", ")"}:
            if words:
                yield words
            words = []
        elif set(token) <= set("<>&"):
            if words and words[-1].isdigit():  # 2>/dev/null: the 2 was no argument
                words.pop()
            i += 1  # the file it redirects to
        else:
            words.append(token)
        i += 1
    if words:
        yield words


def commands_in(markdown: str, name: str) -> list[Command]:
    """Every simple command in the shell blocks of a markdown text called `name`."""
    found = []
    for language, start, body in _blocks(markdown):
        if not _is_shell(language, body):
            continue
        for number, line in _logical_lines(language, start, body):
            for words in _simple_commands(line):
                env = []
                while words and ASSIGNMENT.match(words[0]):
                    env.append(words.pop(0))
                if words:
                    found.append(Command(f"{name}:{number}", tuple(env), tuple(words)))
    return found


# --- what the programs accept ----------------------------------------------------------------

def _which(program: str) -> str | None:
    path = os.pathsep.join([str(REPO / ".venv" / "bin"), os.environ.get("PATH", "")])
    return shutil.which(program, path=path)


@functools.cache
def autograder_parser() -> argparse.ArgumentParser:
    """The parser autograder/cli.py builds, caught as main() asks it to parse."""
    from autograder import cli

    class Built(Exception):
        pass

    def caught(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        raise Built(self)

    with mock.patch.object(argparse.ArgumentParser, "parse_args", caught):
        try:
            cli.main([])
        except Built as built:
            return built.args[0]
    raise AssertionError("autograder.cli.main returned without parsing its arguments")


def _argparse_problems(parser: argparse.ArgumentParser, words: list[str], prog: str) -> list[str]:
    """What in `words` the parser has no subcommand, option or choice for."""
    actions = parser._actions  # argparse keeps no public list of a parser's arguments
    subcommands = next((a for a in actions if isinstance(a, argparse._SubParsersAction)), None)
    options = {flag: action for action in actions for flag in action.option_strings}
    positionals = [a for a in actions if not a.option_strings and a is not subcommands]
    problems, i, at = [], 0, 0
    while i < len(words):
        word = words[i]
        if word == "--":
            break
        if word.startswith("-") and word != "-":
            name, equals, value = word.partition("=")
            action = options.get(name)
            if action is None:
                problems.append(f"`{prog}` has no option {name}")
            elif action.nargs != 0:  # it takes a value
                if not equals and i + 1 < len(words):
                    i += 1
                    value = words[i]
                if action.choices and value not in action.choices:
                    problems.append(f"`{prog} {name}` takes one of {sorted(action.choices)}, "
                                    f"not {value!r}")
        elif subcommands is not None:
            if word not in subcommands.choices:
                return problems + [f"`{prog}` has no subcommand {word!r} (it has "
                                   f"{', '.join(subcommands.choices)})"]
            return problems + _argparse_problems(subcommands.choices[word], words[i + 1:],
                                                 f"{prog} {word}")
        elif at < len(positionals):
            action = positionals[at]
            if action.choices and word not in action.choices:
                problems.append(f"`{prog}` takes one of {sorted(action.choices)} here, not "
                                f"{word!r}")
            if action.nargs in (None, 1):
                at += 1  # one word; "*" and "+" take the rest
        i += 1
    return problems


def _subcommands(app: type) -> dict:
    """An app class's subcommands: a plain dict on nbgrader's apps, else the trait's default."""
    value = getattr(app, "subcommands", None)
    if not isinstance(value, dict):  # traitlets' own Dict trait, seen from the class
        value = getattr(value, "default_value", None)
    return value if isinstance(value, dict) else {}


@functools.cache
def _nbgrader_app(path: tuple[str, ...]) -> type | None:
    """The nbgrader app class for `nbgrader PATH...`, or None if there is no such command."""
    from nbgrader.apps import NbGraderApp
    from traitlets.utils.importstring import import_item

    app: type = NbGraderApp
    for name in path:
        entry = _subcommands(app).get(name)
        if entry is None:
            return None
        app = import_item(entry[0]) if isinstance(entry[0], str) else entry[0]
    return app


@functools.cache
def _nbgrader_options(path: tuple[str, ...]) -> frozenset[str]:
    """The options `nbgrader PATH... --help-all` lists."""
    app = _nbgrader_app(path)
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        app().print_help(classes=True)
    return frozenset(re.findall(r"(?m)^(--?[A-Za-z][\w.-]*)", text.getvalue()))


@functools.cache
def _configurable_traits() -> dict[str, frozenset[str]]:
    """Each configurable class nbgrader loads -> its config traits (`--Exchange.root=DIR`)."""
    import nbgrader.apps  # noqa: F401  (loads every app and the classes they configure)
    from traitlets.config import Configurable

    found: dict[str, frozenset[str]] = {}
    stack = [Configurable]
    while stack:
        cls = stack.pop()
        found[cls.__name__] = found.get(cls.__name__, frozenset()) | frozenset(
            cls.class_trait_names(config=True))
        stack.extend(cls.__subclasses__())
    return found


def _nbgrader_problems(words: list[str]) -> list[str]:
    path: list[str] = []
    for word in words:
        if word.startswith("-"):
            break
        if not _subcommands(_nbgrader_app(tuple(path))):
            break
        if _nbgrader_app((*path, word)) is None:
            return [f"nbgrader {' '.join(path)} has no subcommand {word!r}".replace("  ", " ")]
        path.append(word)
    known = _nbgrader_options(tuple(path))
    problems = []
    for word in words:
        name = word.partition("=")[0]
        if not word.startswith("-") or name in known:
            continue
        owner, _, trait = name.lstrip("-").partition(".")
        if trait and trait in _configurable_traits().get(owner, ()):
            continue
        problems.append(f"`nbgrader {' '.join(path)}` has no option {name}")
    return problems


@functools.cache
def _help_text(program: str, subcommand: str) -> str:
    done = subprocess.run([program, subcommand, "--help"], capture_output=True, text=True,
                          timeout=60)
    return done.stdout + done.stderr


@functools.cache
def _variables_read(script: Path) -> frozenset[str]:
    """Environment variables a shell script reads, or the scripts of this repository it runs."""
    text = script.read_text()
    names = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", text))
    for called in set(re.findall(r"\bscripts/[\w.-]+\.sh\b", text)):
        if (REPO / called).resolve() != script.resolve() and (REPO / called).is_file():
            names |= _variables_read((REPO / called).resolve())
    return frozenset(names)


def _script_problems(path: str, args: list[str]) -> list[str]:
    script = REPO / path
    if not script.is_file():
        return [f"{path} does not exist"]
    source = script.read_text()
    return [f"{path} defines no option {name}" for name in
            (word.partition("=")[0] for word in args if word.startswith("--"))
            if f'"{name}"' not in source and f"'{name}'" not in source]


def _python_problems(program: str, args: list[str]) -> list[str]:
    if not args or args[0] == "-c":
        return []
    if args[0] == "-m":
        module = args[1] if len(args) > 1 else ""
        if module == "autograder":
            return _argparse_problems(autograder_parser(), args[2:], "python -m autograder")
        if importlib.util.find_spec(module) is None:
            return [f"no module {module!r} in this environment"]
        return []
    if args[0].endswith(".py"):
        return _script_problems(args[0], args[1:])
    return []


def problems_of(command: Command) -> list[str]:
    """What is wrong with one command, as sentences; empty when it runs as written."""
    words = list(command.words)
    while words and words[0] in PREFIXES:
        words = words[1:]
        while words and (words[0].startswith("-") or ASSIGNMENT.match(words[0])):
            words = words[1:]
    if not words:
        return []
    program, args = words[0], words[1:]
    if "/" in program:
        if not (REPO / program).exists() and not Path(program).exists():
            return [f"{program} does not exist"]
    elif program not in BUILTINS and program not in ALLOWED and _which(program) is None:
        return [f"no program {program!r} (not on PATH, not a builtin, not in ALLOWED)"]
    name = Path(program).name
    if PYTHON.match(program):
        return _python_problems(program, args)
    if name in {"bash", "sh"} and args and not args[0].startswith("-"):
        script = REPO / args[0]
        if not script.is_file():
            return [f"{args[0]} does not exist"]
        unread = [v.partition("=")[0] for v in command.env
                  if v.partition("=")[0] not in _variables_read(script.resolve())]
        return [f"{args[0]} reads no variable {v}" for v in unread]
    if name in {"source", "."} and args and not (REPO / args[0]).exists():
        return [f"{args[0]} does not exist"]
    if name == "nbgrader":
        return _nbgrader_problems(args)
    if name == "jupyter" and args and not args[0].startswith("-"):
        return [] if _which(f"jupyter-{args[0]}") else [f"no `jupyter {args[0]}` here"]
    if name == "dask" and args:
        text = _help_text(_which(program) or str(REPO / program), args[0])
        return [f"`dask {args[0]}` has no option {flag}" for flag in
                (word.partition("=")[0] for word in args[1:] if word.startswith("--"))
                if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text)]
    return []


def _problems_in(markdown: str, name: str) -> list[str]:
    return [f"{command.where}: `{command}`: {problem}"
            for command in commands_in(markdown, name) for problem in problems_of(command)]


# --- the tests -------------------------------------------------------------------------------

def _name(page: Path) -> str:
    return str(page.relative_to(REPO))


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_command_in_the_page_runs_as_written(page):
    problems = _problems_in(page.read_text("utf-8"), _name(page))
    assert not problems, "commands that would not run as written:\n" + "\n".join(problems)


def _has_shell_block(page: Path) -> bool:
    return any(_is_shell(language, body) and any(_strip_comment(line).strip() for line in body)
               for language, _, body in _blocks(page.read_text("utf-8")))


@pytest.mark.parametrize("page", [page for page in PAGES if _has_shell_block(page)], ids=_name)
def test_the_checker_finds_the_commands_of_each_page_with_shell_blocks(page):
    assert commands_in(page.read_text("utf-8"), _name(page)), (
        f"{_name(page)}: shell code blocks, but no command found in them")


def test_the_readme_and_docs_have_commands():
    assert len(commands_in((REPO / "README.md").read_text(), "README.md")) >= 3
    assert sum(len(commands_in(page.read_text("utf-8"), _name(page))) for page in PAGES) >= 40


BAD = """\
Some text.

```bash
python -m autograder grade 01_tensors_and_memory --jobs 2 --made-up-option 3
python -m autograder frobnicate 01
.venv/bin/python -m autograder translate upgrade    # not a translate action
python -m autograder export 01 --format excel
nbgrader frobnicate_assignment 01 --course=x
nbgrader release_assignment 01 --made-up-flag
bash scripts/no_such_script.sh
NOT_A_SETTING=1 bash scripts/lab.sh
no-such-program-here --help
.venv/bin/python scripts/demo_class.py --no-such-option
```

```
09_training_loop_and_checkpoints / cosine_lr:
  survived: this is output, not a command
```

```console
$ git status && nbgrader collect 01 \\
>     --not-an-option
On branch main
```
"""


def test_the_checker_catches_made_up_options_subcommands_programs_and_variables():
    problems = _problems_in(BAD, "bad.md")
    expected = [
        ("bad.md:4:", "has no option --made-up-option"),
        ("bad.md:5:", "has no subcommand 'frobnicate'"),
        ("bad.md:6:", "not 'upgrade'"),
        ("bad.md:7:", "not 'excel'"),
        ("bad.md:8:", "has no subcommand 'frobnicate_assignment'"),
        ("bad.md:9:", "has no option --made-up-flag"),
        ("bad.md:10:", "scripts/no_such_script.sh does not exist"),
        ("bad.md:11:", "reads no variable NOT_A_SETTING"),
        ("bad.md:12:", "no program 'no-such-program-here'"),
        ("bad.md:13:", "defines no option --no-such-option"),
        ("bad.md:22:", "has no option --not-an-option"),
    ]
    for where, what in expected:
        assert any(p.startswith(where) and what in p for p in problems), (where, what, problems)
    assert len(problems) == len(expected), problems  # the output lines are not commands


GOOD = """\
```bash
# a comment line
PYTHON=python3.11 bash scripts/lab.sh --lang zh-CN    # setup.sh reads PYTHON
python -m autograder translate update && python -m autograder audit --json - \\
    --exercise clip_grad_norm
nbgrader release_assignment 01 --Exchange.root=/tmp/exchange --course=cs336 --force
TEST_WORKERS=0 bash scripts/test.sh -m "not browser" 2>/dev/null | tail -n 3; cd /tmp
```
"""


def test_the_checker_accepts_what_runs():
    assert _problems_in(GOOD, "good.md") == []
    words = [c.words[:2] for c in commands_in(GOOD, "good.md")]
    assert words == [("bash", "scripts/lab.sh"), ("python", "-m"), ("python", "-m"),
                     ("nbgrader", "release_assignment"), ("bash", "scripts/test.sh"),
                     ("tail", "-n"), ("cd", "/tmp")]
    assert commands_in(GOOD, "good.md")[2].where == "good.md:4"
