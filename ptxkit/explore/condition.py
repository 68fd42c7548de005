"""Conditions of ``ptxkit explore`` (Dat3M / herd syntax) as a typed formula.

A formula is built from

* :class:`Atom` — ``true`` / ``false``;
* :class:`Cmp` — ``lhs OP rhs`` with OP in ``== != < > <= >=`` over operands :class:`Int` (a
  constant), :class:`Reg` (``Pn:reg``: thread n's final register) and :class:`Loc` (a location's
  final value: ``x``, or element ``NAME[INDEX]`` of a kernel buffer);
* :class:`Not`, and n-ary :class:`And` / :class:`Or` (a chain ``a /\\ b /\\ c`` is one node).

Everything here walks formulas with an explicit stack, never by recursion, so a condition with
thousands of terms or nested a thousand deep is evaluated, printed and checked like a small one.
An outcome is a mapping from :func:`key` (``P1:r0``, ``x``, ``buf[3]``) to a final value; ``'?'``
marks a value the explorer could not fix (ordering comparisons with it are false).

:func:`resolve` checks a condition against the program it speaks about — threads, registers and
locations must exist (a name that does not is bad input, not a silent 0) — and spells kernel
registers as the kernel does (``P1:r1`` names ``%r1`` of a ``.ptx`` kernel).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass

from ptxkit.errors import Diagnostic, PtxkitError, UsageError
from ptxkit.ir import Instruction, RegDecl, Span
from ptxkit.ir import Reg as IrReg

CMP_OPS = ("==", "!=", "<", ">", "<=", ">=")
QUANTIFIERS = ("exists", "not exists", "forall")

Value = int | str  # a final value; '?' when the explorer could not fix it


# ---------------------------------------------------------------------------- operands

@dataclass(frozen=True)
class Int:
    """An integer constant."""

    value: int

    @property
    def text(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Reg:
    """``Pn:name``: the final value of register ``name`` of thread ``n``."""

    thread: int
    name: str

    @property
    def key(self) -> str:
        """The outcome column: ``P1:r0``."""
        return f"P{self.thread}:{self.name}"

    text = key


@dataclass(frozen=True)
class Loc:
    """A location's final value: ``name`` (a litmus location) or ``name[index]`` (a buffer element)."""

    name: str
    index: int | None = None

    @property
    def key(self) -> str:
        """The outcome column: ``x``, ``buf[3]``."""
        return self.name if self.index is None else f"{self.name}[{self.index}]"

    text = key


Operand = Int | Reg | Loc


# ---------------------------------------------------------------------------- formulas

@dataclass(frozen=True)
class Atom:
    """``true`` or ``false``."""

    value: bool


@dataclass(frozen=True)
class Cmp:
    """``lhs op rhs``; ``span`` locates it in its source when the parser knows where it is."""

    op: str
    lhs: Operand
    rhs: Operand
    span: Span | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.op not in CMP_OPS:
            raise ValueError(f"comparison operator {self.op!r} not in {CMP_OPS}")


@dataclass(frozen=True)
class Not:
    arg: Formula


@dataclass(frozen=True)
class And:
    args: tuple[Formula, ...]


@dataclass(frozen=True)
class Or:
    args: tuple[Formula, ...]


Formula = Atom | Cmp | Not | And | Or
TRUE = Atom(True)


def children(f: Formula) -> Sequence[Formula]:
    if isinstance(f, Not):
        return (f.arg,)
    if isinstance(f, (And, Or)):
        return f.args
    return ()


def walk(f: Formula) -> Iterator[Formula]:
    """Every node of ``f``, parents before children, left to right (no recursion)."""
    stack = [f]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def comparisons(f: Formula) -> Iterator[Cmp]:
    return (n for n in walk(f) if isinstance(n, Cmp))


def operands(f: Formula | None) -> list[Reg | Loc]:
    """The registers and locations ``f`` reads, in reading order (repeats included)."""
    out: list[Reg | Loc] = []
    if f is None:
        return out
    for c in comparisons(f):
        out.extend(o for o in (c.lhs, c.rhs) if not isinstance(o, Int))
    return out


def _compare(op: str, x: Value, y: Value) -> bool:
    if op == "==":
        return x == y
    if op == "!=":
        return x != y
    if isinstance(x, str) or isinstance(y, str):
        return False  # an unknown final value ('?') is not ordered
    if op == "<":
        return x < y
    if op == ">":
        return x > y
    if op == "<=":
        return x <= y
    return x >= y


def evaluate(f: Formula, env: Mapping[str, Value]) -> bool:
    """The truth of ``f`` on the outcome ``env`` (column key → final value). Every operand must have
    a column (:func:`resolve` guarantees it for the explorer's outcomes; KeyError otherwise)."""
    def value(o: Operand) -> Value:
        return o.value if isinstance(o, Int) else env[o.key]

    # post-order over an explicit stack: (node, visited?) frames, results on a value stack
    results: list[bool] = []
    stack: list[tuple[Formula, bool]] = [(f, False)]
    while stack:
        node, done = stack.pop()
        if isinstance(node, Atom):
            results.append(node.value)
        elif isinstance(node, Cmp):
            results.append(_compare(node.op, value(node.lhs), value(node.rhs)))
        elif not done:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(children(node)))
        elif isinstance(node, Not):
            results.append(not results.pop())
        else:
            n = len(node.args)
            vals = results[len(results) - n:]
            del results[len(results) - n:]
            results.append(all(vals) if isinstance(node, And) else any(vals))
    return results[0]


def render(f: Formula) -> str:
    """herd syntax: ``(P1:r0 == 1 /\\ ~x == 2)``; parses back to the same formula."""
    parts: list[str] = []
    stack: list[Formula | str] = [f]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            parts.append(node)
        elif isinstance(node, Atom):
            parts.append("true" if node.value else "false")
        elif isinstance(node, Cmp):
            parts.append(f"{node.lhs.text} {node.op} {node.rhs.text}")
        elif isinstance(node, Not):  # ~(a /\ b) or ~(x == 1): one pair of parentheses
            stack.extend((node.arg, "~") if isinstance(node.arg, (And, Or)) else (")", node.arg, "~("))
        else:
            sep = " /\\ " if isinstance(node, And) else " \\/ "
            seq: list[Formula | str] = ["("]
            for i, a in enumerate(node.args):
                if i:
                    seq.append(sep)
                seq.append(a)
            seq.append(")")
            stack.extend(reversed(seq))
    return "".join(parts)


def map_formula(f: Formula, fn: Callable[[Cmp], Formula]) -> Formula:
    """``f`` with every comparison replaced by ``fn(comparison)`` (rebuilt bottom-up, no recursion)."""
    results: list[Formula] = []
    stack: list[tuple[Formula, bool]] = [(f, False)]
    while stack:
        node, done = stack.pop()
        if isinstance(node, Atom):
            results.append(node)
        elif isinstance(node, Cmp):
            results.append(fn(node))
        elif not done:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(children(node)))
        elif isinstance(node, Not):
            results.append(Not(results.pop()))
        else:
            n = len(node.args)
            args = tuple(results[len(results) - n:])
            del results[len(results) - n:]
            results.append(And(args) if isinstance(node, And) else Or(args))
    return results[0]


def map_operands(f: Formula, fn: Callable[[Operand], Operand]) -> Formula:
    return map_formula(f, lambda c: Cmp(c.op, fn(c.lhs), fn(c.rhs), c.span))


# ---------------------------------------------------------------------------- the legacy tuple form

def from_tuple(t: object) -> Formula:
    """Convert the tuple encoding (``('and', a, b)``, ``('or', a, b)``, ``('not', a)``, ``('true',)``,
    ``('cmp', op, lhs, rhs)`` over ``('reg', n, r)`` / ``('loc', x)`` / ``('elem', b, i)`` /
    ``('int', v)``) to a typed formula; chains of and/or become one n-ary node."""
    if isinstance(t, (Atom, Cmp, Not, And, Or)):
        return t
    results: list[Formula] = []
    stack: list[tuple[object, bool]] = [(t, False)]
    while stack:
        node, done = stack.pop()
        if isinstance(node, (Atom, Cmp, Not, And, Or)):  # typed already (the parser's comparisons)
            results.append(node)
            continue
        if not isinstance(node, tuple) or not node:
            raise ValueError(f"not a condition formula: {node!r}")
        tag = node[0]
        if tag == "true":
            results.append(TRUE)
        elif tag == "cmp":
            results.append(Cmp(node[1], _operand(node[2]), _operand(node[3])))
        elif tag in ("and", "or", "not"):
            if not done:
                stack.append((node, True))
                stack.extend((c, False) for c in reversed(node[1:]))
                continue
            if tag == "not":
                results.append(Not(results.pop()))
                continue
            b, a = results.pop(), results.pop()
            cls = And if tag == "and" else Or
            flat = (a.args if isinstance(a, cls) else (a,)) + (b.args if isinstance(b, cls) else (b,))
            results.append(cls(flat))
        else:
            raise ValueError(f"not a condition formula: {node!r}")
    return results[0]


def _operand(t: object) -> Operand:
    if isinstance(t, (Int, Reg, Loc)):
        return t
    if isinstance(t, tuple) and t:
        if t[0] == "int":
            return Int(int(t[1]))
        if t[0] == "reg":
            return Reg(int(t[1]), str(t[2]))
        if t[0] == "loc":
            return Loc(str(t[1]))
        if t[0] == "elem":
            return Loc(str(t[1]), int(t[2]))
    raise ValueError(f"not a condition operand: {t!r}")


# ---------------------------------------------------------------------------- postfix (pickling)

def to_postfix(f: Formula) -> list[tuple[str, object]]:
    """A flat encoding (pickled with conditions: a deep formula would exhaust pickle's recursion)."""
    out: list[tuple[str, object]] = []
    stack: list[tuple[Formula, bool]] = [(f, False)]
    while stack:
        node, done = stack.pop()
        if isinstance(node, (Atom, Cmp)):
            out.append(("leaf", node))
        elif not done:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(children(node)))
        elif isinstance(node, Not):
            out.append(("not", 1))
        else:
            out.append(("and" if isinstance(node, And) else "or", len(node.args)))
    return out


def from_postfix(items: list[tuple[str, object]]) -> Formula:
    results: list[Formula] = []
    for tag, x in items:
        if tag == "leaf":
            assert isinstance(x, (Atom, Cmp))
            results.append(x)
        elif tag == "not":
            results.append(Not(results.pop()))
        else:
            assert isinstance(x, int)
            args = tuple(results[len(results) - x:])
            del results[len(results) - x:]
            results.append(And(args) if tag == "and" else Or(args))
    return results[0]


# ---------------------------------------------------------------------------- names against a program

def thread_registers(body: Sequence[object], init_regs: Mapping[str, object]) -> set[str]:
    """Every register a thread has: its initial (special) registers, the ``.reg`` declarations of a
    kernel, and every register its instructions name (a litmus thread declares none)."""
    regs = set(init_regs)
    for s in body:
        if isinstance(s, RegDecl):
            regs.update(s.expand())
        elif isinstance(s, Instruction):
            stack: list[object] = list(s.operands)
            if s.guard is not None:
                regs.add(s.guard.pred)
            while stack:  # operands nest (addresses, vectors, a|b pairs): walk their fields
                o = stack.pop()
                if isinstance(o, IrReg):
                    regs.add(o.name)
                elif isinstance(o, (list, tuple)):
                    stack.extend(o)
                elif is_dataclass(o):
                    stack.extend(getattr(o, fl.name) for fl in fields(o))
    return regs


@dataclass(frozen=True)
class Names:
    """What a condition may name in one program: per thread its registers; the locations (litmus
    names, buffer elements ``NAME[i]``); the buffers with their element counts (for messages)."""

    registers: Sequence[set[str]]
    locations: frozenset[str]
    buffers: Mapping[str, int] = field(default_factory=dict)
    kernel: bool = False  # a .ptx kernel: ``r1`` may name ``%r1``


def resolve(f: Formula, names: Names, fail: Callable[[Cmp | None, str], Exception]) -> Formula:
    """``f`` with every operand checked against ``names`` and spelled canonically: a thread, register
    or location that does not exist raises ``fail(comparison, message)`` (the caller locates it).
    In a kernel, ``Pn:r1`` names ``%r1`` when the kernel has no register ``r1``."""
    def fix(c: Cmp, o: Operand) -> Operand:
        if isinstance(o, Int):
            return o
        if isinstance(o, Reg):
            if not 0 <= o.thread < len(names.registers):
                raise fail(c, f"condition names P{o.thread}, but the test has {len(names.registers)} threads")
            regs = names.registers[o.thread]
            if o.name in regs:
                return o
            if names.kernel and not o.name.startswith("%") and f"%{o.name}" in regs:
                return Reg(o.thread, f"%{o.name}")
            raise fail(c, f"condition names register {o.name!r} of P{o.thread}, which has no such register")
        k = o.key
        if k in names.locations:
            return o
        if o.index is not None and o.name in names.buffers:
            raise fail(c, f"condition names {k}, but buffer {o.name!r} has {names.buffers[o.name]} elements")
        hint = f" (buffers: {', '.join(names.buffers)})" if names.buffers else ""
        raise fail(c, f"condition names unknown location {k!r}{hint}")

    return map_formula(f, lambda c: Cmp(c.op, fix(c, c.lhs), fix(c, c.rhs), c.span))


def failure(filename: str, source: str | None, span: Span | None) -> Callable[[Cmp | None, str], Exception]:
    """The error for a bad name: ``FILE:LINE:COL`` (the comparison's place, else the condition's) when
    the condition has a place in the file (``span``), else a usage error (a condition on the command
    line, whose comparisons' spans point into the option's text, not into FILE)."""
    lines = (source or "").split("\n")

    def make(c: Cmp | None, msg: str) -> Exception:
        if span is None:
            return UsageError(msg)
        sp = c.span if c is not None and c.span is not None else span
        src = lines[sp.line - 1] if 0 < sp.line <= len(lines) else None
        return PtxkitError(Diagnostic(filename, sp.line, sp.col, msg, src))

    return make


__all__ = ["CMP_OPS", "QUANTIFIERS", "TRUE", "And", "Atom", "Cmp", "Formula", "Int", "Loc", "Names", "Not",
           "Operand", "Or", "Reg", "children", "comparisons", "evaluate", "failure", "from_postfix",
           "from_tuple", "map_formula", "map_operands", "operands", "render",
           "resolve", "thread_registers", "to_postfix", "walk"]
