"""What a translator translates: a notebook's prose cells and the messages its code shows.

A *cell unit* is one markdown cell, keyed by its cell id. A *message* is a string literal in
a code cell that reaches a reader: a check's reason and hints (``Case``), a plot's title,
labels and alt text, a widget's label, a table's quantities, a calculator's result keys. The
code stays English; ``lecture_utils.i18n.tr`` finds the translation when the text is shown.
An f-string's message is its template, its values numbered: ``f"{n} GPUs at {mfu:.0%}"`` is
``"{0} GPUs at {1}"``; ``tr`` matches the shown text against it and puts the values into
the translation. A text that is only values (``f"{name}"``) is no message.

``library_messages`` finds the ``tr("...")`` and ``tr_format("...")`` texts of
``lecture_utils`` and ``autograder`` themselves. Trusts the repository; reads notebooks with
``autograder.notebook``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from autograder.notebook import read_notebook
from lecture_utils.i18n import matchable

# Calls whose first string argument is shown (methods of matplotlib's Axes and Figure, and
# the widgets and tables of lecture_utils).
_SHOWN_FIRST_ARGUMENT = {
    "set_title", "set_xlabel", "set_ylabel", "suptitle", "supxlabel", "supylabel",
    "log_slider", "slider", "choice", "EstimateTable", "add", "Button", "HTML",
}
_SHOWN_KEYWORDS = {
    "title", "xlabel", "ylabel", "label", "description", "alt", "measured_label", "unit",
    "why", "placeholder", "text",
}


@dataclass(frozen=True)
class Message:
    text: str
    where: str  # "cell <id>" or "<file>:<line>", for the translator's reference


def cell_units(notebook_path: Path) -> dict[str, str]:
    """Cell id → markdown source, in notebook order."""
    notebook = read_notebook(notebook_path)
    return {cell.id: cell.source for cell in notebook.cells if cell.cell_type == "markdown"}


def _python_only(source: str) -> str:
    """A code cell without its IPython magic lines (``%%gpu_only``, ``%timeit``, ``!ls``)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())


def _text(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip():
        return node.value
    if isinstance(node, ast.JoinedStr):
        return _template(node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # f"..." + f"..."
        joined = _joined(node)
        return _template(joined) if joined is not None else None
    return None


def _joined(node: ast.AST) -> ast.JoinedStr | None:
    """``"a" + f"b{x}" + ...`` as one f-string, or None if a part is not a string."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _joined(node.left), _joined(node.right)
        return ast.JoinedStr([*left.values, *right.values]) if left and right else None
    if isinstance(node, ast.JoinedStr):
        return node
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return ast.JoinedStr([node])
    return None


def _template(node: ast.JoinedStr) -> str | None:
    """An f-string as a message template, its literal text with each value as ``{i}``; None
    if ``tr`` would never match it (``lecture_utils.i18n.matchable``). An f-string with no
    values is a plain message."""
    if all(isinstance(v, ast.Constant) for v in node.values):
        return _text(ast.Constant("".join(v.value for v in node.values)))
    parts, count = [], 0
    for value in node.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append(value.value.replace("{", "{{").replace("}", "}}"))
        else:
            parts.append(f"{{{count}}}")
            count += 1
    template = "".join(parts)
    return template if matchable(template) else None


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _messages_of_call(call: ast.Call) -> list[str]:
    name = _call_name(call)
    found = []
    if name == "Case":
        if len(call.args) >= 3:
            found.append(_text(call.args[2]))
        for keyword in call.keywords:
            if keyword.arg == "hints" and isinstance(keyword.value, (ast.Tuple, ast.List)):
                for pair in keyword.value.elts:
                    if isinstance(pair, (ast.Tuple, ast.List)) and len(pair.elts) == 2:
                        found.append(_text(pair.elts[1]))
    elif name in _SHOWN_FIRST_ARGUMENT and call.args:
        found.append(_text(call.args[0]))
    if name == "show" and len(call.args) >= 2:  # plotting.show(fig, alt)
        found.append(_text(call.args[1]))
    if name == "calculator" and len(call.args) >= 3:
        found.append(_text(call.args[2]))
    if name == "text" and len(call.args) >= 3:  # ax.text(x, y, s)
        found.append(_text(call.args[2]))
    if name == "choice" and len(call.args) >= 2 and isinstance(call.args[1], ast.Dict):
        found += [_text(key) for key in call.args[1].keys]
    found += [_text(k.value) for k in call.keywords if k.arg in _SHOWN_KEYWORDS]
    return [text for text in found if text]


def code_messages(source: str) -> list[str]:
    """The messages in one code cell, in source order, each once."""
    try:
        tree = ast.parse(_python_only(source))
    except SyntaxError:
        return []
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            found += _messages_of_call(node)
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            # a calculator's result rows: their names and values
            found += [t for item in (*node.value.keys, *node.value.values) if (t := _text(item))]
    return list(dict.fromkeys(found))


def notebook_messages(notebook_path: Path) -> list[Message]:
    """Every message of a notebook's code cells (hidden tests included), each once."""
    seen: dict[str, Message] = {}
    for cell in read_notebook(notebook_path).cells:
        if cell.cell_type == "code":
            for text in code_messages(cell.source):
                seen.setdefault(text, Message(text, f"cell {cell.id}"))
    return list(seen.values())


def library_messages(roots: list[Path]) -> list[Message]:
    """The texts passed to ``tr``/``tr_format``/``N_`` as literals in the Python files under
    ``roots``, each once."""
    seen: dict[str, Message] = {}
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            tree = ast.parse(path.read_text("utf-8"))
            for node in ast.walk(tree):
                if (isinstance(node, ast.Call) and _call_name(node) in {"tr", "tr_format", "N_"}
                        and node.args and (text := _text(node.args[0]))):
                    where = f"{path.relative_to(root.parent)}:{node.lineno}"
                    seen.setdefault(text, Message(text, where))
    return list(seen.values())
