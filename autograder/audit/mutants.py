"""Mutants of a solution cell: one small change each, of the kind a student makes.

The operators are mutmut's (``mutmut.mutation.mutators.mutation_operators``: a number plus
one, an operator or comparison swapped, an argument dropped or made None, True and False
swapped, a value assigned as None, ``is`` and ``in`` negated, ...) and, for the mistakes
students make that mutmut has no operator for, the ones in ``STUDENT_OPERATORS``: a number
minus one, doubled or halved; a term, factor, call, method call, keyword argument or
statement dropped; arguments swapped; a comparison turned round; a loop run zero times or
once, or its ``range`` bound moved; a ``return`` indented into the loop above it; a dtype or
a device changed. Both kinds have the same shape, ``operator(node) -> replacement nodes``,
on libcst's concrete syntax tree, so comments and layout survive in the mutated cell.

Only code between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` is mutated: the rest of
the cell is handed to students as it is. Trusts the solution (instructor code); imports
``libcst`` and mutmut's operators.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider
from mutmut.mutation.mutators import mutation_operators

BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
Operator = Callable[[cst.CSTNode], Iterable[cst.CSTNode]]


@dataclass(frozen=True)
class Mutant:
    key: str  # "operator: old line -> new line": stable while the line is; marks name it
    operator: str
    line: int  # the first changed line, counted from 1 in the cell
    source: str  # the whole cell, mutated
    diff: str  # the changed lines, "- old" and "+ new"
    removed: tuple[str, ...] = ()  # the solution's lines it changes


# -- the student's mistakes mutmut has no operator for

_ATOMS = (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.BaseNumber, cst.BaseString,
          cst.List, cst.Tuple, cst.Dict, cst.Set)


def _grouped(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` safe to put where an atom was: parenthesised unless it is one already."""
    if isinstance(node, _ATOMS) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def number_other_way(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A constant off by one downwards, or by a factor of two either way."""
    if not isinstance(node, cst.Integer | cst.Float):
        return
    value = node.evaluated_value
    if isinstance(value, int):
        candidates = [value - 1, value * 2] + ([value // 2] if value >= 2 else [])
    else:
        candidates = [value * 2, value / 2]
    for new in candidates:
        if new != value and new >= 0:
            yield node.with_changes(value=repr(new))


def drop_operand(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A term or factor left out: ``a + b`` becomes ``a`` (or ``b``), ``a * b`` too."""
    if not isinstance(node, cst.BinaryOperation):
        return
    operator = node.operator
    keeps_left = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide,
                  cst.Power, cst.Modulo)
    if isinstance(operator, keeps_left):
        yield _grouped(node.left).with_changes(lpar=node.lpar or node.left.lpar,
                                               rpar=node.rpar or node.left.rpar)
    if isinstance(operator, cst.Add | cst.Multiply):
        yield _grouped(node.right).with_changes(lpar=node.lpar or node.right.lpar,
                                                rpar=node.rpar or node.right.rpar)


def turn_comparison(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A comparison the wrong way round: ``<`` for ``>``."""
    flips = {cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan,
             cst.LessThanEqual: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.LessThanEqual}
    if isinstance(node, cst.ComparisonTarget) and type(node.operator) in flips:
        yield node.with_changes(operator=flips[type(node.operator)]())


def swap_arguments(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Two neighbouring positional arguments in the wrong order."""
    if not isinstance(node, cst.Call):
        return
    args = list(node.args)
    for i in range(len(args) - 1):
        a, b = args[i], args[i + 1]
        if a.keyword or b.keyword or a.star or b.star:
            continue
        swapped = [*args[:i], a.with_changes(value=b.value), b.with_changes(value=a.value),
                   *args[i + 2:]]
        yield node.with_changes(args=swapped)


def drop_keyword(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A keyword argument left out (``dtype=``, ``device=``, ``keepdim=``, ...)."""
    if not isinstance(node, cst.Call):
        return
    args = list(node.args)
    for i, arg in enumerate(args):
        if arg.keyword is not None:
            kept = [*args[:i], *args[i + 1:]]
            if kept and i == len(args) - 1:  # no dangling comma after the new last argument
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            yield node.with_changes(args=kept)


_DTYPES = {"float32": "float64", "float64": "float32", "float16": "bfloat16",
           "bfloat16": "float16", "float": "double", "double": "float", "half": "bfloat16",
           "int64": "int32", "int32": "int64", "long": "int", "int": "long",
           "int8": "uint8", "uint8": "int8", "int16": "int32"}


def change_dtype(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Another dtype: ``torch.float16`` for ``torch.bfloat16``, ``int32`` for ``int64``."""
    if (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
            and node.value.value == "torch" and node.attr.value in _DTYPES):
        yield node.with_changes(attr=cst.Name(_DTYPES[node.attr.value]))


def change_device(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The other device: ``"cpu"`` for ``"cuda"`` and back."""
    if isinstance(node, cst.SimpleString) and node.value[1:-1] in ("cpu", "cuda"):
        other = "cuda" if node.value[1:-1] == "cpu" else "cpu"
        yield node.with_changes(value=f"{node.value[0]}{other}{node.value[-1]}")


def change_range(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A loop bound moved: ``range(n)`` as ``range(n - 1)`` or ``range(n + 1)``, and a
    start one later."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)
            and node.func.value == "range" and 1 <= len(node.args) <= 3
            and not any(a.keyword or a.star for a in node.args)):
        return
    args = list(node.args)
    stop = 0 if len(args) == 1 else 1

    def moved(i: int, operator: cst.BaseBinaryOp) -> cst.Call:
        value = cst.BinaryOperation(_grouped(args[i].value), operator, cst.Integer("1"))
        return node.with_changes(args=[*args[:i], args[i].with_changes(value=value),
                                       *args[i + 1:]])

    yield moved(stop, cst.Subtract())
    yield moved(stop, cst.Add())
    if stop == 1:
        yield moved(0, cst.Add())


_MODULES = {"math", "torch", "np", "numpy", "F", "nn", "operator", "statistics"}


def drop_call(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A call left out: ``abs(x)`` or ``math.sqrt(x)`` as ``x``, ``x.float()`` as ``x``."""
    if not isinstance(node, cst.Call):
        return
    func = node.func
    on_module = isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
        and func.value.value in _MODULES
    if ((isinstance(func, cst.Name) or on_module) and len(node.args) == 1
            and not node.args[0].keyword and not node.args[0].star):
        yield _grouped(node.args[0].value)
    elif isinstance(func, cst.Attribute) and not on_module:
        yield func.value


def _is_return_line(statement: cst.CSTNode) -> bool:
    return (isinstance(statement, cst.SimpleStatementLine)
            and any(isinstance(s, cst.Return) for s in statement.body))


def return_in_loop(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A ``return`` indented one level too far: into the loop just above it, so the loop
    stops after its first pass."""
    if not isinstance(node, cst.IndentedBlock):
        return
    body = list(node.body)
    for i in range(len(body) - 1):
        loop, after = body[i], body[i + 1]
        if isinstance(loop, cst.For | cst.While) and _is_return_line(after):
            inner = loop.body.with_changes(body=[*loop.body.body, after])
            yield node.with_changes(body=[*body[:i], loop.with_changes(body=inner),
                                          *body[i + 2:]])


def loop_times(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A loop that runs zero times, or only once."""
    if not isinstance(node, cst.For):
        return
    yield node.with_changes(iter=cst.List([]))
    once = cst.SimpleStatementLine([cst.Break()])
    yield node.with_changes(body=node.body.with_changes(body=[*node.body.body, once]))


def drop_statement(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A statement forgotten: a call made for its effect (``p.add_(...)``,
    ``opt.zero_grad()``), or an update in place (``total += x``)."""
    if isinstance(node, cst.SimpleStatementLine) and all(
            isinstance(s, cst.Expr | cst.AugAssign) for s in node.body) and not (
            isinstance(node.body[0], cst.Expr)
            and isinstance(node.body[0].value, cst.BaseString)):  # a docstring
        yield node.with_changes(body=[cst.Pass()])


STUDENT_OPERATORS: tuple[tuple[type, Operator], ...] = (
    (cst.BaseNumber, number_other_way),
    (cst.BinaryOperation, drop_operand),
    (cst.ComparisonTarget, turn_comparison),
    (cst.Call, swap_arguments),
    (cst.Call, drop_keyword),
    (cst.Attribute, change_dtype),
    (cst.SimpleString, change_device),
    (cst.Call, change_range),
    (cst.Call, drop_call),
    (cst.IndentedBlock, return_in_loop),
    (cst.For, loop_times),
    (cst.SimpleStatementLine, drop_statement),
)


def _name(operator: Operator) -> str:
    return operator.__name__.removeprefix("operator_").replace("_", "-")


OPERATORS: tuple[tuple[type, Operator], ...] = (*mutation_operators, *STUDENT_OPERATORS)


# -- where to mutate

def solution_lines(source: str) -> set[int]:
    """Line numbers (from 1) strictly between the solution markers; all lines if there are
    none (nbgrader then replaces the whole cell)."""
    lines = source.splitlines()
    if not any(line.strip() == BEGIN_SOLUTION for line in lines):
        return set(range(1, len(lines) + 1))
    inside, region = False, set()
    for number, line in enumerate(lines, start=1):
        if line.strip() == BEGIN_SOLUTION:
            inside = True
        elif line.strip() == END_SOLUTION:
            inside = False
        elif inside:
            region.add(number)
    return region


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider)

    def __init__(self, region: set[int]) -> None:
        self.region = region
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Annotation | cst.Decorator | cst.Import | cst.ImportFrom):
            return False  # types, decorators and imports are not where students slip
        position = self.get_metadata(PositionProvider, node, None)
        if position is not None and self.region & set(range(position.start.line,
                                                            position.end.line + 1)):
            self.nodes.append(node)  # mutants_of keeps only changes inside the region
        return True


def _is_statement_call(wrapper: MetadataWrapper, node: cst.CSTNode) -> bool:
    """A call whose value is thrown away (``p.add_(...)``): dropping it is drop-statement."""
    parent = wrapper.resolve(ParentNodeProvider).get(node)
    return isinstance(parent, cst.Expr)


def squash(text: str) -> str:
    """Whitespace folded, as keys and marks are compared."""
    return re.sub(r"\s+", " ", text.strip())


def joined(lines: list[str] | tuple[str, ...]) -> str:
    """Lines of code as one key part: each squashed, then joined with " / "."""
    return " / ".join(squash(line) for line in lines)


def _key(operator: str, removed: list[str], added: list[str]) -> str:
    old, new = joined(removed), joined(added)
    if old == new:  # only the indentation changed
        return f"{operator}: {old} -> {new} (indented differently)"
    return f"{operator}: {old} -> {new}"


def _changes(old: list[str], new: list[str]) -> tuple[list[int], list[str], list[str]]:
    """The old cell's changed line numbers (from 1), the lines removed and the lines added;
    a pure insertion shows the line before it on both sides, for context."""
    touched, removed, added = [], [], []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i1 == i2 and i1 > 0:  # inserted after line i1
            touched.append(i1)
            removed.append(old[i1 - 1])
            added += [old[i1 - 1], *new[j1:j2]]
            continue
        touched += range(i1 + 1, i2 + 1)
        removed += old[i1:i2]
        added += new[j1:j2]
    return touched, removed, added


def _syntax(source: str) -> str | None:
    try:
        return ast.dump(ast.parse(source))
    except SyntaxError:
        return None


def mutants_of(source: str) -> list[Mutant]:
    """Every distinct mutant of the solution code in ``source`` (a notebook code cell), in
    the order of the cell; changes that compile to the same code as another, or as the
    solution itself, are left out."""
    region = solution_lines(source)
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError:
        return []  # IPython magics: nothing this audit can mutate
    collector = _Collector(region)
    wrapper.visit(collector)
    seen = {_syntax(source)}
    mutants: list[Mutant] = []
    keys: dict[str, int] = {}
    old_lines = source.splitlines()
    for node in collector.nodes:
        for node_type, operator in OPERATORS:
            if not isinstance(node, node_type):
                continue
            if operator is drop_call and _is_statement_call(wrapper, node):
                continue
            for replacement in operator(node):
                mutated = wrapper.module.deep_replace(node, replacement).code
                syntax = _syntax(mutated)
                if syntax is None or syntax in seen:
                    continue
                touched, removed, added = _changes(old_lines, mutated.splitlines())
                if not touched or not set(touched) <= region:
                    continue  # a change outside the solution: students never see that code
                first = touched[0]
                seen.add(syntax)
                name = _name(operator)
                key = _key(name, removed, added)
                keys[key] = keys.get(key, 0) + 1
                if keys[key] > 1:
                    key = f"{key} #{keys[key]}"
                diff = "\n".join([*(f"- {line}" for line in removed),
                                  *(f"+ {line}" for line in added)])
                mutants.append(Mutant(key, name, first, mutated, diff, tuple(removed)))
    return mutants
