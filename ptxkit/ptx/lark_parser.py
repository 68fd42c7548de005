"""The Lark reference parser: ``ptxkit/grammar.lark`` → IR. It is the authority the fast path is
checked against (same IR on the whole corpus), and the fast path's fallback for statement shapes it
does not recognise (it parses such fragments with the ``statement``/``func_header``/``toplevel``
start symbols)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from lark import Lark, Token, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.tree import Meta
from lark.visitors import Transformer_NonRecursive

from ptxkit import ir
from ptxkit.errors import Diagnostic, PtxkitError
from ptxkit.io import memory_budget
from ptxkit.ptx import build
from ptxkit.ptx.build import (
    BuildError,
    EBinary,
    ECall,
    ECond,
    EFloat,
    EParen,
    EUnary,
    ExprNode,
)

GRAMMAR = Path(__file__).resolve().parent.parent / "grammar.lark"
STARTS = ["module", "statement", "func_header", "toplevel"]
# the attributes a .callprototype may carry (ISA §10.5.1; .abi_preserve* since PTX 9.0)
_PROTO_ATTRS = frozenset({".noreturn", ".abi_preserve", ".abi_preserve_control"})
_VARDECL_BYTES = 512  # generous memory per VarDecl (the object, its name and its list slot)


@lru_cache(maxsize=1)
def lark() -> Lark:
    return Lark(GRAMMAR.read_text(), parser="lalr", lexer="contextual", start=STARTS,
                propagate_positions=True, maybe_placeholders=False, cache=False)


class _Frag:
    """Where a parsed fragment sits in the whole source (so spans are absolute)."""

    __slots__ = ("base", "col", "line", "source")

    def __init__(self, source: str, base: int, line: int, col: int):
        self.source, self.base, self.line, self.col = source, base, line, col

    def span(self, start: int, end: int, line: int, col: int) -> ir.Span:
        return ir.Span(self.base + start, self.base + end, self.line + line - 1,
                       col + self.col - 1 if line == 1 else col)


# ----------------------------------------------------------------------- intermediate tree values

@dataclass(frozen=True, slots=True)
class _Built:
    """An operand already in IR form (an address or a vector)."""

    operand: ir.Operand


@dataclass(frozen=True, slots=True)
class _Mod:
    """A declaration modifier: kind ∈ linkage align vector type ptr space attr."""

    kind: str
    text: str = ""
    number: int = 0


@dataclass(frozen=True, slots=True)
class _Count:
    value: int


@dataclass(frozen=True, slots=True)
class _Dim:
    value: int | None


@dataclass(frozen=True, slots=True)
class _Init:
    value: ir.Init


@dataclass(frozen=True, slots=True)
class _InitList:
    items: tuple[ExprNode | _InitList, ...]


@dataclass(slots=True)
class _DeclItem:
    name: str
    count: int | None = None
    dims: list[int | None] = field(default_factory=list)
    init: ir.Init | None = None


@dataclass(frozen=True, slots=True)
class _Params:
    ret: bool
    decls: list[ir.VarDecl]


@dataclass(frozen=True, slots=True)
class _Body:
    statements: list[ir.Statement]


_Node = ir.Instruction | ir.Label | ir.RegDecl | ir.VarDecl | ir.Directive | ir.Block | ir.Function
_Value = (Token | ExprNode | _Built | _Mod | _Count | _Dim | _Init | _InitList | _DeclItem | _Params
          | _Body | ir.Guard | _Node | list[_Node] | None)
_V = TypeVar("_V")
_Ch = list[_Value]  # a tree node's transformed children (their kinds follow from the grammar rule)


def _tok(v: _Value) -> Token:
    assert isinstance(v, Token), v
    return v


def _expr(v: _Value) -> ExprNode:
    assert isinstance(v, ExprNode), v
    return v


def _pos(tok: Token) -> int:
    assert tok.start_pos is not None
    return tok.start_pos


def _end(tok: Token) -> int:
    assert tok.end_pos is not None
    return tok.end_pos


def _unary(op: str) -> Callable[[ToIR, Meta, _Ch], ExprNode]:
    def f(self: ToIR, meta: Meta, ch: _Ch) -> ExprNode:
        return EUnary(op, _expr(ch[-1]))
    return f


def _binary(op: str) -> Callable[[ToIR, Meta, _Ch], ExprNode]:
    def f(self: ToIR, meta: Meta, ch: _Ch) -> ExprNode:
        return EBinary(op, _expr(ch[0]), _expr(ch[1]))
    return f


@v_args(meta=True)
class ToIR(Transformer_NonRecursive[Token, _Value]):
    """Tree → IR. Expression subtrees become build's expression nodes, then operands via
    build.to_operand. (Non-recursive: blocks nest as deep as ptxas allows, 1,000 and more.)"""

    def __init__(self, frag: _Frag):
        super().__init__(visit_tokens=False)
        self.f = frag

    def _span(self, meta: Meta) -> ir.Span:
        return self.f.span(meta.start_pos, meta.end_pos, meta.line, meta.column)

    def _raw(self, start: int, end: int) -> str:
        """Source text between two fragment offsets."""
        return self.f.source[self.f.base + start:self.f.base + end]

    # -- module level
    def module(self, meta: Meta, ch: _Ch) -> list[_Node]:
        return _module_items(_flatten(ch))

    def toplevel(self, meta: Meta, ch: _Ch) -> list[_Node]:
        return _module_items(_flatten(ch))

    def statement(self, meta: Meta, ch: _Ch) -> _Value:
        return ch[0]

    def directive(self, meta: Meta, ch: _Ch) -> ir.Directive:
        kw = _tok(ch[0])
        if kw.type == "ADDRESS_SIZE":
            return self._address_size(meta, _tok(ch[1]))
        raw = self._raw(_end(kw), meta.end_pos)
        if raw.endswith(";"):
            raw = raw[:-1]
        return ir.Directive(kw[1:], build.normalize_args(raw), span=self._span(meta))

    def _read_at(self, read: Callable[[str], _V], tok: Token) -> _V:
        """``read(tok)``: a token's literal, a BuildError located at the token."""
        try:
            return read(tok)
        except BuildError as e:
            e.pos = self.f.base + _pos(tok)
            raise

    def _address_size(self, meta: Meta, tok: Token) -> ir.Directive:
        """``.address_size 64`` (ISA §11.1.3): any integer spelling (``0x40``, ``64U``); the value
        must be 32 or 64 (ptxas: "Illegal value"). The argument is kept as the decimal value."""
        pos = self.f.base + _pos(tok)
        value = self._read_at(build.int_literal, tok)
        if value not in (32, 64):
            raise BuildError(f"illegal .address_size {tok} (must be 32 or 64)", pos)
        return ir.Directive("address_size", str(value), span=self._span(meta))

    def section(self, meta: Meta, ch: _Ch) -> ir.Directive:
        raw = self._raw(_end(_tok(ch[0])), meta.end_pos)
        return ir.Directive("section", raw.strip(), span=self._span(meta))

    def callproto(self, meta: Meta, ch: _Ch) -> ir.Directive:
        for tok in ch:
            if isinstance(tok, Token) and tok.type in ("PERF_FLAG", "PERF_INTS") and tok not in _PROTO_ATTRS:
                raise BuildError(f"{tok} is not allowed in a .callprototype (only "
                                 + ", ".join(sorted(_PROTO_ATTRS)) + ")", self.f.base + _pos(tok))
        return self._labelled(meta, ch)

    def targets(self, meta: Meta, ch: _Ch) -> ir.Directive:
        return self._labelled(meta, ch)

    def _labelled(self, meta: Meta, ch: _Ch) -> ir.Directive:
        """``label: .callprototype …;`` / ``.branchtargets …;`` / ``.calltargets …;``"""
        label, kw = _tok(ch[0]), _tok(ch[1])
        raw = self._raw(_end(kw), meta.end_pos)
        return ir.Directive(kw[1:], build.normalize_args(raw[:-1]), label=label.rstrip(": \t"),
                            span=self._span(meta))

    def loc_attr(self, meta: Meta, ch: _Ch) -> None:
        return None

    # -- declarations
    def linkage(self, meta: Meta, ch: _Ch) -> _Mod:
        return _Mod("linkage", _tok(ch[0])[1:])

    def mod_align(self, meta: Meta, ch: _Ch) -> _Mod:
        return _Mod("align", number=build.int_literal(_tok(ch[1])))

    def mod_vector(self, meta: Meta, ch: _Ch) -> _Mod:
        return _Mod("vector", number=int(_tok(ch[0])[2:]))

    def mod_type(self, meta: Meta, ch: _Ch) -> _Mod:
        return _Mod("type", _tok(ch[0])[1:])

    def mod_ptr(self, meta: Meta, ch: _Ch) -> _Mod:
        return _Mod("ptr", "ptr")

    def mod_attr(self, meta: Meta, ch: _Ch) -> _Mod:
        raw = self._raw(meta.start_pos, meta.end_pos)
        return _Mod("attr", re.sub(r"\s+", "", raw)[1:])  # 'attribute(.managed)'

    def attr_spec(self, meta: Meta, ch: _Ch) -> None:
        return None

    def mod_space(self, meta: Meta, ch: _Ch) -> _Mod:
        return _Mod("space", _tok(ch[0])[1:])

    def reg_count(self, meta: Meta, ch: _Ch) -> _Count:
        return _Count(self._read_at(build.reg_count, _tok(ch[0])))

    def dim(self, meta: Meta, ch: _Ch) -> _Dim:
        if not ch:
            return _Dim(None)
        v = build.fold(_expr(ch[0]))
        if v is None:
            raise BuildError("array dimension must be a constant", self.f.base + meta.start_pos)
        return _Dim(v)

    def initializer(self, meta: Meta, ch: _Ch) -> _Init:
        v = ch[0]
        return _Init(_init_value(v if isinstance(v, _InitList) else _expr(v)))

    def init_list(self, meta: Meta, ch: _Ch) -> _InitList:
        return _InitList(tuple(c if isinstance(c, _InitList) else _expr(c) for c in ch))

    def decl_item(self, meta: Meta, ch: _Ch) -> _DeclItem:
        item = _DeclItem(str(_tok(ch[0])))
        for c in ch[1:]:
            if isinstance(c, _Count):
                item.count = c.value
            elif isinstance(c, _Dim):
                item.dims.append(c.value)
            elif isinstance(c, _Init):
                item.init = c.value
        return item

    def decl_stmt(self, meta: Meta, ch: _Ch) -> list[_Node]:
        return list(_make_decl(ch, self._span(meta), self.f.base + meta.start_pos))

    def param_decl(self, meta: Meta, ch: _Ch) -> ir.VarDecl:
        out = _make_decl(ch, self._span(meta), self.f.base + meta.start_pos)[0]
        if isinstance(out, ir.RegDecl):
            # `.func (.reg .u32 a) f(.reg .u32 x)` (ISA §11.1.2): a parameter in the .reg space
            (name, _count), = out.names
            return ir.VarDecl("reg", out.type, name, out.align, out.vector, span=out.span)
        return out

    # -- functions
    def ret_params(self, meta: Meta, ch: _Ch) -> _Params:
        return _Params(True, [p for p in ch if isinstance(p, ir.VarDecl)])

    def params(self, meta: Meta, ch: _Ch) -> _Params:
        return _Params(False, [p for p in ch if isinstance(p, ir.VarDecl)])

    def func_header(self, meta: Meta, ch: _Ch) -> ir.Function:
        linkage: list[str] = []
        kind = name = ""
        params: list[ir.VarDecl] = []
        rets: list[ir.VarDecl] = []
        directives: list[ir.Directive] = []
        for c in ch:
            if isinstance(c, Token):
                if c.type == "FUNC_KIND":
                    kind = c[1:]
                else:
                    name = str(c)
            elif isinstance(c, ir.Directive):
                directives.append(c)
            elif isinstance(c, _Mod):
                linkage.append(c.text)
            elif isinstance(c, _Params):
                if c.ret:
                    rets = c.decls
                else:
                    params = c.decls
        return ir.Function(kind, name, params, rets, tuple(linkage), directives, None,
                           span=self._span(meta))

    def body(self, meta: Meta, ch: _Ch) -> _Body:
        return _Body(_statements(_flatten(ch)))

    def function(self, meta: Meta, ch: _Ch) -> ir.Function:
        fn = ch[0]
        assert isinstance(fn, ir.Function)
        if isinstance(ch[1], _Body):
            fn.body = ch[1].statements
        fn.span = self._span(meta)
        build.resolve_function(fn)
        return fn

    # -- statements
    def label(self, meta: Meta, ch: _Ch) -> ir.Label:
        return ir.Label(_tok(ch[0]).rstrip(": \t"), span=self._span(meta))

    def block(self, meta: Meta, ch: _Ch) -> ir.Block:
        return ir.Block(_statements(_flatten(ch)), span=self._span(meta))

    def guard(self, meta: Meta, ch: _Ch) -> ir.Guard:
        return ir.Guard(str(_tok(ch[-1])), len(ch) == 2)

    def instruction(self, meta: Meta, ch: _Ch) -> ir.Instruction:
        guard = None
        i = 0
        if isinstance(ch[0], ir.Guard):
            guard = ch[0]
            i = 1
        parts = _tok(ch[i]).split(".")
        operands = tuple(_operand(c) for c in ch[i + 1:] if not isinstance(c, Token))
        return ir.Instruction(parts[0], tuple(parts[1:]), operands, guard, span=self._span(meta))

    # -- operands: expression nodes (build.py) until the instruction maps them
    def address(self, meta: Meta, ch: _Ch) -> _Built:
        try:
            return _Built(build.to_address(_expr(ch[0]), [_operand(c) for c in ch[1:]]))
        except BuildError as e:
            if e.pos is None:
                e.pos = self.f.base + meta.start_pos
            raise

    def vector(self, meta: Meta, ch: _Ch) -> _Built:
        return _Built(ir.Vec(tuple(_operand(c) for c in ch)))

    def int(self, meta: Meta, ch: _Ch) -> ExprNode:
        return ir.Imm(self._read_at(build.int_literal, _tok(ch[0])))

    def float_hex(self, meta: Meta, ch: _Ch) -> ExprNode:
        return EFloat(build.float_hex(_tok(ch[0])), hex=True)

    def float_dec(self, meta: Meta, ch: _Ch) -> ExprNode:
        return EFloat(build.float_dec(_tok(ch[0])))

    def reg(self, meta: Meta, ch: _Ch) -> ExprNode:
        return ir.Reg(str(_tok(ch[0])))

    def name(self, meta: Meta, ch: _Ch) -> ExprNode:
        return ir.Sym(str(_tok(ch[0])))

    def sink(self, meta: Meta, ch: _Ch) -> ExprNode:
        return ir.Sink()

    def fcall(self, meta: Meta, ch: _Ch) -> ExprNode:
        return ECall(str(_tok(ch[0])), _expr(ch[1]))

    def paren(self, meta: Meta, ch: _Ch) -> ExprNode:
        return EParen(tuple(_expr(c) for c in ch))

    def cond(self, meta: Meta, ch: _Ch) -> ExprNode:
        return ECond(_expr(ch[0]), _expr(ch[1]), _expr(ch[2]))

    pos, lnot, bnot = _unary("+"), _unary("!"), _unary("~")

    def neg(self, meta: Meta, ch: _Ch) -> ExprNode:
        x = _expr(ch[-1])
        if isinstance(x, EFloat) and x.hex:  # ptxas: "syntax error" on -0f3F800000
            raise BuildError("a hexadecimal float constant cannot be negated",
                             self.f.base + meta.start_pos)
        return EUnary("-", x)

    lor, land, bor, bxor, band = _binary("||"), _binary("&&"), _binary("|"), _binary("^"), _binary("&")
    eq, ne, lt, gt = _binary("=="), _binary("!="), _binary("<"), _binary(">")
    le, ge, shl, shr = _binary("<="), _binary(">="), _binary("<<"), _binary(">>")
    plus, minus, times, div = _binary("+"), _binary("-"), _binary("*"), _binary("/")

    def mod(self, meta: Meta, ch: _Ch) -> ExprNode:
        return EBinary("%", _expr(ch[0]), _expr(ch[2]))


def _flatten(items: _Ch) -> list[_Node]:
    out: list[_Node] = []
    for i in items:
        if isinstance(i, list):
            out.extend(i)
        elif isinstance(i, _Node):
            out.append(i)
    return out


def _module_items(nodes: list[_Node]) -> list[_Node]:
    for n in nodes:
        if isinstance(n, ir.RegDecl):  # ptxas: "Module-scoped variables in .reg state space are not allowed"
            raise BuildError(".reg variables are not allowed at module scope",
                             n.span.start if n.span is not None else None)
    return nodes


def _statements(nodes: list[_Node]) -> list[ir.Statement]:
    out: list[ir.Statement] = []
    for n in nodes:
        assert not isinstance(n, ir.Function), n  # the grammar has no functions in bodies
        out.append(n)
    return out


def _operand(node: _Value) -> ir.Operand:
    if isinstance(node, _Built):
        return node.operand
    return build.to_operand(_expr(node))


def _init_value(node: ExprNode | _InitList) -> ir.Init:
    if isinstance(node, _InitList):
        return [_init_value(c) for c in node.items]
    return build.to_operand(node, top=False)


def _make_decl(ch: _Ch, span: ir.Span, pos: int) -> list[ir.VarDecl] | list[ir.RegDecl]:
    linkage: list[str] = []
    space = ""
    typ = ""
    align = vector = None
    attrs: list[str] = []
    items: list[_DeclItem] = []
    after_ptr = False
    for c in ch:
        if isinstance(c, _DeclItem):
            items.append(c)
        elif isinstance(c, Token):
            if c.type == "SPACE":
                space = c[1:]
        elif not isinstance(c, _Mod):
            continue
        elif c.kind == "linkage":
            linkage.append(c.text)
        elif c.kind == "ptr":
            after_ptr = True
            attrs.append("ptr")
        elif c.kind in ("space", "attr"):
            attrs.append(c.text)
        elif c.kind == "align":
            if after_ptr or align is not None:
                attrs.append(f"align {c.number}")
            else:
                align = c.number
        elif c.kind == "vector":
            vector = c.number
        elif c.kind == "type":
            if typ:
                raise BuildError("more than one type in a declaration", pos)
            typ = c.text
    if not typ:
        raise BuildError("declaration without a type", pos)
    if space == "reg":
        for it in items:
            if it.dims or it.init is not None:
                raise BuildError("register declarations take no array or initialiser", pos)
        return [ir.RegDecl(typ, tuple((it.name, it.count) for it in items), vector, align, span=span)]
    out: list[ir.VarDecl] = []
    for it in items:
        # ptxas accepts the parameterised form `%q<3>` in every state space: %q0 %q1 %q2 (ISA §5.4.6);
        # each becomes a VarDecl, so their number is bounded by the memory budget
        if it.count is not None and it.count > memory_budget() // _VARDECL_BYTES:
            raise BuildError(f"{it.name}<{it.count}> declares more variables than the memory budget "
                             "allows (set PTXKIT_MEMORY_BUDGET to raise it)", pos)
        names = [it.name] if it.count is None else [f"{it.name}{i}" for i in range(it.count)]
        for name in names:
            out.append(ir.VarDecl(space, typ, name, align, vector, tuple(it.dims), it.init,
                                  tuple(linkage), tuple(attrs), span=span))
    return out


# --------------------------------------------------------------------------- entry points

def line_col(source: str, pos: int) -> tuple[int, int]:
    line = source.count("\n", 0, pos) + 1
    col = pos - (source.rfind("\n", 0, pos) + 1) + 1
    return line, col


def diagnostic(source: str, filename: str, pos: int, message: str) -> Diagnostic:
    pos = max(0, min(pos, len(source)))
    line, col = line_col(source, pos)
    lines = source.split("\n", line)  # cheap enough for diagnostics only
    text = lines[line - 1] if line - 1 < len(lines) else ""
    return Diagnostic(filename, line, col, message, text)


def _describe(e: UnexpectedInput, text: str) -> str:
    if isinstance(e, UnexpectedCharacters):
        at = e.pos_in_stream
        ch = text[at] if at is not None and at < len(text) else "end of input"
        return f"unexpected character {ch!r}"
    if isinstance(e, UnexpectedEOF):
        return "unexpected end of input"
    if isinstance(e, UnexpectedToken):
        tok = e.token
        if tok.type == "$END":
            return "unexpected end of statement" + (" (missing ';'?)" if "SEMI" in e.expected else "")
        want = sorted(e.expected)
        hint = " (missing ';'?)" if "SEMI" in want and len(want) <= 6 else ""
        value = str(tok.value).split("\n", 1)[0]
        value = value if len(value) <= 40 else value[:37] + "..."
        return f"unexpected {value!r}{hint}"
    return str(e)


Diag = Callable[[int, str], Diagnostic]


def _transform(source: str, start: int, end: int, line: int, col: int, rule: str,
               filename: str, diag: Diag | None) -> _Value:
    """Parse ``source[start:end]`` with start symbol ``rule``; raise PtxkitError with an absolute
    position on failure (``diag(pos, message)`` builds the diagnostic if given)."""
    text = source[start:end]
    frag = _Frag(source, start, line, col)

    def default_diag(pos: int, message: str) -> Diagnostic:
        return diagnostic(source, filename, pos, message)

    make = diag or default_diag
    try:
        tree = lark().parse(text, start=rule)
        return ToIR(frag).transform(tree)
    except UnexpectedInput as e:
        pos = start + _err_pos(e, text)
        raise PtxkitError(make(pos, _describe(e, text))) from None
    except VisitError as e:
        inner = e.orig_exc
        if isinstance(inner, BuildError):
            pos = inner.pos if inner.pos is not None else start + _meta_pos(e)
            raise PtxkitError(make(pos, inner.message)) from None
        if isinstance(inner, RecursionError):  # an expression nested ~1,000 deep (fold recurses)
            raise PtxkitError(make(start, "expression nested too deeply")) from None
        raise


def parse_statement(source: str, start: int, end: int, line: int, col: int, filename: str,
                    diag: Diag | None = None) -> list[ir.Statement]:
    """One function-body statement (a declaration may give several nodes)."""
    got = _transform(source, start, end, line, col, "statement", filename, diag)
    return _statements(got if isinstance(got, list) else [_node(got)])


def parse_toplevel(source: str, start: int, end: int, line: int, col: int, filename: str,
                   diag: Diag | None = None) -> list[ir.TopLevel]:
    """One module-level item (a declaration may give several nodes)."""
    got = _transform(source, start, end, line, col, "toplevel", filename, diag)
    assert isinstance(got, list)
    return _toplevel(got)


def parse_header(source: str, start: int, end: int, line: int, col: int, filename: str,
                 diag: Diag | None = None) -> ir.Function:
    """A function header (``linkage .entry name (params) directives``), body not included."""
    got = _transform(source, start, end, line, col, "func_header", filename, diag)
    assert isinstance(got, ir.Function)
    return got


def _node(v: _Value) -> _Node:
    assert isinstance(v, _Node), v
    return v


def _toplevel(nodes: list[_Node]) -> list[ir.TopLevel]:
    out: list[ir.TopLevel] = []
    for n in nodes:
        assert isinstance(n, (ir.Directive, ir.VarDecl, ir.Function)), n  # the grammar's _item
        out.append(n)
    return out


def _err_pos(e: UnexpectedInput, text: str) -> int:
    if isinstance(e, UnexpectedToken) and e.token.type == "$END":
        return len(text.rstrip())
    p = e.pos_in_stream
    if p is None and isinstance(e, UnexpectedToken):
        p = e.token.start_pos
    return p if p is not None else len(text)


def _meta_pos(e: VisitError) -> int:
    meta = getattr(e.obj, "meta", None)
    return meta.start_pos if isinstance(meta, Meta) and not meta.empty else 0


def parse(source: str, filename: str = "<input>") -> ir.Module:
    """Parse a whole module with the grammar alone (the reference; first error raises)."""
    got = _transform(source, 0, len(source), 1, 1, "module", filename, None)
    assert isinstance(got, list)
    return ir.Module(source, filename, _toplevel(got))
