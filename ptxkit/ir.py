"""The PTX intermediate representation shared by every stage (PTX ISA 9.0, chapters 4–11).

Design rules (the contract other modules rely on):

* Every parsed node carries a :class:`Span` — character offsets into :attr:`Module.source` and the
  1-based line/column of its first character. ``module.source[span.start:span.end]`` is the node's
  exact original text; the printer re-emits untouched nodes from that slice, which is what makes the
  round trip byte-faithful (comments and whitespace between statements are kept verbatim).
* A pass never mutates a parsed statement in place. It calls :meth:`Module.replace` (or
  :meth:`Module.insert_before` / :meth:`Module.insert_after`) with new nodes (``span=None``), and
  ``ptxkit.ptx.emit.emit(module)`` prints those in the canonical style.
* Operands are small frozen dataclasses (hashable, comparable) so the fast parser and the Lark
  reference parser can be checked to build *identical* IR with ``==``.
* Instruction knowledge (which operand is a destination, types, modifiers) lives in the table
  ``ptxkit.ptx.isa``, not in these classes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeAlias


@dataclass(frozen=True, slots=True)
class Span:
    """Where a node came from: ``source[start:end]``; ``line``/``col`` are 1-based."""

    start: int
    end: int
    line: int
    col: int


# --------------------------------------------------------------------------- operands (ISA §4.6, §6)

@dataclass(frozen=True, slots=True)
class _Named:
    """An operand that is a name (a Reg or a Sym; they differ in kind, not in shape)."""

    name: str


class Reg(_Named):
    """A register or special register, spelled as written: ``%r1``, ``%tid.x``, ``%envreg3``, ``r1``."""

    __slots__ = ()


class Sym(_Named):
    """A name used as an operand: variable, label, function, parameter, prototype."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Imm:
    """An integer constant (evaluated; Python int, may be negative)."""

    value: int


@dataclass(frozen=True, slots=True)
class FloatImm:
    """A floating-point constant as IEEE bits: ``0f3F800000`` → (0x3F800000, 32), ``0d…`` → width 64.
    A decimal literal such as ``1.5`` is an f64 (ISA §4.5.1) → width 64."""

    bits: int
    width: int


@dataclass(frozen=True, slots=True)
class Addr:
    """A memory operand ``[base+offset]`` (ISA §6.4.1). ``base`` is a Reg or Sym, or None for ``[imm]``."""

    base: Reg | Sym | None
    offset: int = 0


@dataclass(frozen=True, slots=True)
class _Items:
    """An operand that is a sequence of operands (Vec, ParamList, AddrList: one shape, three spellings)."""

    items: tuple[Operand, ...]


class Vec(_Items):
    """A vector operand ``{a, b, _}`` (ISA §6.4.2)."""

    __slots__ = ()


class ParamList(_Items):
    """A parenthesised list, as in ``call (%r1), f, (%r2, %r3);``."""

    __slots__ = ()


class AddrList(_Items):
    """A bracketed operand list of texture/surface instructions (ISA §9.7.10):
    ``[%rd1, {%f2, %f3}]`` → ``AddrList((Reg('%rd1'), Vec(...)))``."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Sink:
    """The sink symbol ``_``."""


@dataclass(frozen=True, slots=True)
class Pipe:
    """Two predicate destinations ``%p|%q`` (setp, ISA §9.7.7): ``a`` receives the comparison,
    ``b`` its complement."""

    a: Operand
    b: Operand


@dataclass(frozen=True, slots=True)
class Not:
    """A negated predicate source ``!%p``."""

    operand: Operand


@dataclass(frozen=True, slots=True)
class Expr:
    """A constant expression that could not be reduced to an Imm (e.g. ``sym+4`` outside brackets,
    or ``generic(sym)`` in initialisers); ``text`` is the normalised spelling."""

    text: str


Operand = Reg | Imm | FloatImm | Sym | Addr | Vec | Sink | Pipe | Not | ParamList | Expr | AddrList


# --------------------------------------------------------------------------- statements

@dataclass(frozen=True, slots=True)
class Guard:
    """A guard predicate (ISA §9.3): ``@%p`` runs the instruction where ``pred`` is true, ``@!%p``
    (``negated``) where it is false."""

    pred: str
    negated: bool = False


@dataclass(eq=True, slots=True)
class Instruction:
    """``[@p] opcode{.mod} operands;`` — mods without their dots, in written order
    (``ld.global.v4.b32`` → opcode ``ld``, mods ``('global', 'v4', 'b32')``; ``::`` stays inside a mod)."""

    opcode: str
    mods: tuple[str, ...]
    operands: tuple[Operand, ...]
    guard: Guard | None = None
    span: Span | None = field(default=None, compare=False)


@dataclass(eq=True, slots=True)
class Label:
    """``name:`` (ISA §4.4)."""

    name: str
    span: Span | None = field(default=None, compare=False)


@dataclass(eq=True, slots=True)
class RegDecl:
    """``.reg .b32 %r<35>, %x;`` — ``names`` holds (name, count) with count None for a plain name
    and N for the parameterised form ``%r<N>`` (which declares %r0 … %r{N-1})."""

    type: str
    names: tuple[tuple[str, int | None], ...]
    vector: int | None = None
    align: int | None = None
    span: Span | None = field(default=None, compare=False)

    def expand(self) -> Iterator[str]:
        """Every register name this declaration introduces."""
        for name, count in self.names:
            if count is None:
                yield name
            else:
                for i in range(count):
                    yield f"{name}{i}"


Init: TypeAlias = "Operand | list[Init]"  # nested lists for array/aggregate initialisers (ISA §5.4.4)


@dataclass(eq=True, slots=True)
class VarDecl:
    """A variable or parameter in any state space (ISA §5.4): ``[linkage] .space [.align N] [.vN]
    .type name[dims] [= init];``. ``attrs`` keeps other attributes in order (e.g. ``('ptr', 'global')``
    from ``.param .u64 .ptr .global .align 1 x``, or ``ptr_align`` values as ``'align 1'``).
    ``dims`` holds one entry per ``[N]`` (None for ``[]``)."""

    space: str
    type: str
    name: str
    align: int | None = None
    vector: int | None = None
    dims: tuple[int | None, ...] = ()
    init: Init | None = None
    linkage: tuple[str, ...] = ()
    attrs: tuple[str, ...] = ()
    span: Span | None = field(default=None, compare=False)

    @property
    def count(self) -> int:
        n = 1
        for d in self.dims:
            n *= d if d is not None else 0
        return n


@dataclass(eq=True, slots=True)
class Directive:
    """Any other directive, kept as name + normalised argument text: ``.loc``, ``.file``,
    ``.pragma``, ``.maxntid``, ``.reqntid``, ``.version``, ``.target``, ``.address_size``,
    ``.section`` (``args`` = its whole body text), ``.callprototype`` declarations (``label`` set), …
    ``name`` is without the leading dot."""

    name: str
    args: str = ""
    label: str | None = None
    span: Span | None = field(default=None, compare=False)


@dataclass(eq=True, slots=True)
class Block:
    """A nested scope ``{ … }`` inside a function body (ISA §10.1)."""

    body: list[Statement]
    span: Span | None = field(default=None, compare=False)


Statement = Instruction | Label | RegDecl | VarDecl | Directive | Block


@dataclass(eq=True, slots=True)
class Function:
    """``.entry`` / ``.func`` (ISA §11.1). ``body`` is None for a declaration without a body.
    ``directives`` are the performance-tuning directives between the signature and the body
    (``.maxntid``, ``.reqntid``, ``.noreturn``, ``.pragma`` …)."""

    kind: str  # 'entry' | 'func'
    name: str
    params: list[VarDecl]
    ret_params: list[VarDecl] = field(default_factory=list)
    linkage: tuple[str, ...] = ()
    directives: list[Directive] = field(default_factory=list)
    body: list[Statement] | None = None
    span: Span | None = field(default=None, compare=False)

    def instructions(self) -> Iterator[Instruction]:
        """All instructions in textual order, nested blocks flattened."""
        yield from iter_instructions(self.body or [])

    def statements(self) -> Iterator[Statement]:
        """All statements in textual order, nested blocks flattened (the Block itself not yielded)."""
        yield from iter_statements(self.body or [])


TopLevel = Directive | VarDecl | Function


def iter_statements(body: list[Statement]) -> Iterator[Statement]:
    """Every statement in textual order, nested blocks flattened (iterative: blocks may nest
    thousands deep, ptxas accepts that)."""
    stack = [iter(body)]
    while stack:
        for s in stack[-1]:
            if isinstance(s, Block):
                stack.append(iter(s.body))
                break
            yield s
        else:
            stack.pop()


def iter_instructions(body: list[Statement]) -> Iterator[Instruction]:
    for s in iter_statements(body):
        if isinstance(s, Instruction):
            yield s


@dataclass(eq=False)
class Edit:
    """Replace ``source[start:end]`` by ``new`` (nodes printed canonically, or raw strings)."""

    start: int
    end: int
    new: list[Statement | TopLevel | str]


_NEWLINE = re.compile("\n")


@dataclass(eq=False)
class Module:
    """A parsed PTX file. ``items`` are the top-level nodes in order; ``source`` is the exact text
    (decoded as UTF-8 with ``surrogateescape`` so any byte survives the round trip)."""

    source: str
    filename: str
    items: list[TopLevel]
    edits: list[Edit] = field(default_factory=list)
    _newlines: list[int] | None = field(default=None, repr=False)

    # -- queries
    def functions(self) -> list[Function]:
        return [i for i in self.items if isinstance(i, Function)]

    def entries(self) -> list[Function]:
        return [f for f in self.functions() if f.kind == "entry" and f.body is not None]

    def function(self, name: str) -> Function | None:
        found = None
        for f in self.functions():
            if f.name == name and (found is None or f.body is not None):
                found = f
        return found

    def directive(self, name: str) -> Directive | None:
        for i in self.items:
            if isinstance(i, Directive) and i.name == name:
                return i
        return None

    @property
    def version(self) -> str | None:
        d = self.directive("version")
        return d.args.strip() if d else None

    @property
    def target(self) -> list[str]:
        d = self.directive("target")
        return [t.strip() for t in d.args.split(",")] if d else []

    @property
    def address_size(self) -> int:
        """32 or 64 (the parser checks the value and normalises the directive's argument to decimal)."""
        d = self.directive("address_size")
        return int(d.args.strip()) if d else 64

    def globals(self) -> list[VarDecl]:
        return [i for i in self.items if isinstance(i, VarDecl)]

    # -- edits (applied by ptxkit.ptx.emit.emit)
    def replace(self, node: Statement | TopLevel, new: list[Statement | TopLevel | str]) -> None:
        """Replace a parsed node by ``new`` (an empty list deletes it)."""
        assert node.span is not None, "only parsed nodes can be replaced"
        self.edits.append(Edit(node.span.start, node.span.end, list(new)))

    def insert_before(self, node: Statement | TopLevel, new: list[Statement | TopLevel | str]) -> None:
        assert node.span is not None
        self.edits.append(Edit(node.span.start, node.span.start, list(new)))

    def insert_after(self, node: Statement | TopLevel, new: list[Statement | TopLevel | str]) -> None:
        assert node.span is not None
        self.edits.append(Edit(node.span.end, node.span.end, list(new)))

    def line_text(self, line: int) -> str:
        """The text of a 1-based source line (for diagnostics)."""
        # only "\n" ends a PTX line (str.splitlines also splits on \f, \x1c, U+2028 …); the newline
        # offsets are computed once, so many diagnostics cost no rescan of the file each
        if self._newlines is None:
            self._newlines = [m.start() for m in _NEWLINE.finditer(self.source)]
        nls = self._newlines
        if not 0 < line <= len(nls) + 1:
            return ""
        start = nls[line - 2] + 1 if line >= 2 else 0
        end = nls[line - 1] if line - 1 < len(nls) else len(self.source)
        return self.source[start:end].rstrip("\r")
