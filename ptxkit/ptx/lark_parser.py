"""The Lark reference parser: ``ptxkit/grammar.lark`` → IR. It is the authority the fast path is
checked against (same IR on the whole corpus), and the fast path's fallback for statement shapes it
does not recognise (it parses such fragments with the ``statement``/``func_header``/``toplevel``
start symbols)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.visitors import Transformer_NonRecursive

from ptxkit import ir
from ptxkit.errors import Diagnostic, PtxkitError
from ptxkit.ptx import build
from ptxkit.ptx.build import BuildError

GRAMMAR = Path(__file__).resolve().parent.parent / "grammar.lark"
STARTS = ["module", "statement", "func_header", "toplevel"]
# the attributes a .callprototype may carry (ISA §10.5.1; .abi_preserve* since PTX 9.0)
_PROTO_ATTRS = frozenset({".noreturn", ".abi_preserve", ".abi_preserve_control"})


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


@v_args(meta=True)
class ToIR(Transformer_NonRecursive):
    """Tree → IR. Expression subtrees become build's tuples, then operands via build.to_operand.
    (Non-recursive: blocks nest as deep as ptxas allows, 1,000 and more.)"""

    def __init__(self, frag: _Frag):
        super().__init__(visit_tokens=False)
        self.f = frag

    def _span(self, meta) -> ir.Span:
        return self.f.span(meta.start_pos, meta.end_pos, meta.line, meta.column)

    # -- module level
    def module(self, meta, items):
        return _flatten(items)

    def toplevel(self, meta, items):
        return _flatten(items)

    def statement(self, meta, items):
        return items[0]

    def directive(self, meta, ch):
        kw: Token = ch[0]
        if kw.type == "ADDRESS_SIZE":
            return self._address_size(meta, ch[1])
        end = meta.end_pos
        raw = self.f.source[self.f.base + kw.end_pos:self.f.base + end]
        if raw.endswith(";"):
            raw = raw[:-1]
        return ir.Directive(kw.value[1:], build.normalize_args(raw), span=self._span(meta))

    def _address_size(self, meta, tok: Token) -> ir.Directive:
        """``.address_size 64`` (ISA §11.1.3): any integer spelling (``0x40``, ``64U``); the value
        must be 32 or 64 (ptxas: "Illegal value"). The argument is kept as the decimal value."""
        pos = self.f.base + tok.start_pos
        try:
            value = build.int_literal(tok.value)
        except BuildError as e:
            e.pos = pos
            raise
        if value not in (32, 64):
            raise BuildError(f"illegal .address_size {tok.value} (must be 32 or 64)", pos)
        return ir.Directive("address_size", str(value), span=self._span(meta))

    def section(self, meta, ch):
        raw = self.f.source[self.f.base + ch[0].end_pos:self.f.base + meta.end_pos]
        return ir.Directive("section", raw.strip(), span=self._span(meta))

    def callproto(self, meta, ch):
        for tok in ch:
            if isinstance(tok, Token) and tok.type in ("PERF_FLAG", "PERF_INTS") \
                    and tok.value not in _PROTO_ATTRS:
                raise BuildError(f"{tok.value} is not allowed in a .callprototype (only "
                                 + ", ".join(sorted(_PROTO_ATTRS)) + ")", self.f.base + tok.start_pos)
        return self._labelled(meta, ch)

    def targets(self, meta, ch):
        return self._labelled(meta, ch)

    def _labelled(self, meta, ch):
        """``label: .callprototype …;`` / ``.branchtargets …;`` / ``.calltargets …;``"""
        label = ch[0].value.rstrip(": \t")
        raw = self.f.source[self.f.base + ch[1].end_pos:self.f.base + meta.end_pos]
        return ir.Directive(ch[1].value[1:], build.normalize_args(raw[:-1]), label=label,
                            span=self._span(meta))

    def loc_attr(self, meta, ch):
        return None

    # -- declarations
    def linkage(self, meta, ch):
        return ("linkage", ch[0].value[1:])

    def mod_align(self, meta, ch):
        return ("align", build.int_literal(ch[1].value))

    def mod_vector(self, meta, ch):
        return ("vector", int(ch[0].value[2:]))

    def mod_type(self, meta, ch):
        return ("type", ch[0].value[1:])

    def mod_ptr(self, meta, ch):
        return ("ptr",)

    def mod_attr(self, meta, ch):
        raw = self.f.source[self.f.base + meta.start_pos:self.f.base + meta.end_pos]
        return ("attr", re.sub(r"\s+", "", raw)[1:])  # 'attribute(.managed)'

    def attr_spec(self, meta, ch):
        return None

    def mod_space(self, meta, ch):
        return ("space", ch[0].value[1:])

    def reg_count(self, meta, ch):
        try:
            return ("count", build.reg_count(ch[0].value))
        except BuildError as e:
            e.pos = self.f.base + ch[0].start_pos
            raise

    def dim(self, meta, ch):
        if not ch:
            return ("dim", None)
        v = build.fold(ch[0])
        if v is None:
            raise BuildError("array dimension must be a constant", self.f.base + meta.start_pos)
        return ("dim", v)

    def initializer(self, meta, ch):
        return ("init", _init_value(ch[0]))

    def init_list(self, meta, ch):
        return ("initlist", ch)

    def decl_item(self, meta, ch):
        item = {"name": ch[0].value, "count": None, "dims": [], "init": None}
        for c in ch[1:]:
            if c[0] == "count":
                item["count"] = c[1]
            elif c[0] == "dim":
                item["dims"].append(c[1])
            else:
                item["init"] = c[1]
        return item

    def decl_stmt(self, meta, ch):
        return _make_decl(ch, self._span(meta), self.f.base + meta.start_pos)

    def param_decl(self, meta, ch):
        out = _make_decl(ch, self._span(meta), self.f.base + meta.start_pos)[0]
        if isinstance(out, ir.RegDecl):
            # `.func (.reg .u32 a) f(.reg .u32 x)` (ISA §11.1.2): a parameter in the .reg space
            (name, _count), = out.names
            out = ir.VarDecl("reg", out.type, name, out.align, out.vector, span=out.span)
        return out

    # -- functions
    def ret_params(self, meta, ch):
        return ("ret", [p for p in ch if isinstance(p, ir.VarDecl)])

    def params(self, meta, ch):
        return ("params", [p for p in ch if isinstance(p, ir.VarDecl)])

    def func_header(self, meta, ch):
        linkage: list[str] = []
        kind = name = ""
        params: list[ir.VarDecl] = []
        rets: list[ir.VarDecl] = []
        directives: list[ir.Directive] = []
        for c in ch:
            if isinstance(c, Token):
                if c.type == "FUNC_KIND":
                    kind = c.value[1:]
                else:
                    name = c.value
            elif isinstance(c, ir.Directive):
                directives.append(c)
            elif c[0] == "linkage":
                linkage.append(c[1])
            elif c[0] == "ret":
                rets = c[1]
            elif c[0] == "params":
                params = c[1]
        return ir.Function(kind, name, params, rets, tuple(linkage), directives, None,
                           span=self._span(meta))

    def body(self, meta, ch):
        return ("body", _flatten(ch))

    def function(self, meta, ch):
        fn: ir.Function = ch[0]
        if isinstance(ch[1], tuple):
            fn.body = ch[1][1]
        fn.span = self._span(meta)
        build.resolve_function(fn)
        return fn

    # -- statements
    def label(self, meta, ch):
        return ir.Label(ch[0].value.rstrip(": \t"), span=self._span(meta))

    def block(self, meta, ch):
        return ir.Block(_flatten(ch), span=self._span(meta))

    def guard(self, meta, ch):
        return ir.Guard(ch[-1].value, len(ch) == 2)

    def instruction(self, meta, ch):
        guard = None
        i = 0
        if isinstance(ch[0], ir.Guard):
            guard = ch[0]
            i = 1
        op: str = ch[i].value
        parts = op.split(".")
        operands = tuple(_operand(c) for c in ch[i + 1:] if not isinstance(c, Token))
        return ir.Instruction(parts[0], tuple(parts[1:]), operands, guard, span=self._span(meta))

    # -- operands: expression tuples (build.py) until the instruction maps them
    def address(self, meta, ch):
        try:
            return ("operand", build.to_address(ch[0], [_operand(c) for c in ch[1:]]))
        except BuildError as e:
            if e.pos is None:
                e.pos = self.f.base + meta.start_pos
            raise

    def vector(self, meta, ch):
        return ("vec", [_operand(c) for c in ch])

    def int(self, meta, ch):
        try:
            return ("int", build.int_literal(ch[0].value))
        except BuildError as e:
            e.pos = self.f.base + ch[0].start_pos
            raise

    def float_hex(self, meta, ch):
        return ("float", build.float_hex(ch[0].value), True)

    def float_dec(self, meta, ch):
        return ("float", build.float_dec(ch[0].value))

    def reg(self, meta, ch):
        return ("reg", ch[0].value)

    def name(self, meta, ch):
        return ("name", ch[0].value)

    def sink(self, meta, ch):
        return ("sink",)

    def fcall(self, meta, ch):
        return ("call", ch[0].value, ch[1])

    def paren(self, meta, ch):
        return ("paren", tuple(ch))

    def cond(self, meta, ch):
        return ("cond", ch[0], ch[1], ch[2])

    def _un(op):
        def f(self, meta, ch):
            return ("un", op, ch[-1])
        return f

    pos, lnot, bnot = _un("+"), _un("!"), _un("~")

    def neg(self, meta, ch):
        x = ch[-1]
        if x[0] == "float" and len(x) > 2:  # ptxas: "syntax error" on -0f3F800000
            raise BuildError("a hexadecimal float constant cannot be negated",
                             self.f.base + meta.start_pos)
        return ("un", "-", x)

    def _bin(op):
        def f(self, meta, ch):
            return ("bin", op, ch[0], ch[1])
        return f

    lor, land, bor, bxor, band = _bin("||"), _bin("&&"), _bin("|"), _bin("^"), _bin("&")
    eq, ne, lt, gt, le, ge = _bin("=="), _bin("!="), _bin("<"), _bin(">"), _bin("<="), _bin(">=")
    shl, shr, plus, minus = _bin("<<"), _bin(">>"), _bin("+"), _bin("-")
    times, div = _bin("*"), _bin("/")

    def mod(self, meta, ch):
        return ("bin", "%", ch[0], ch[2])


def _flatten(items) -> list:
    out = []
    for i in items:
        if i is None or isinstance(i, Token):
            continue
        if isinstance(i, list):
            out.extend(i)
        else:
            out.append(i)
    return out


def _operand(node) -> ir.Operand:
    kind = node[0]
    if kind == "operand":
        return node[1]
    if kind == "vec":
        return ir.Vec(tuple(node[1]))
    return build.to_operand(node)


def _init_value(node):
    if node[0] == "initlist":
        return [_init_value(c) for c in node[1]]
    return build.to_operand(node, top=False)


def _make_decl(ch, span: ir.Span, pos: int) -> list:
    linkage: list[str] = []
    space = ""
    typ = ""
    align = vector = None
    attrs: list[str] = []
    items = []
    after_ptr = False
    for c in ch:
        if isinstance(c, dict):
            items.append(c)
        elif isinstance(c, Token):
            if c.type == "SPACE":
                space = c.value[1:]
        elif c[0] == "linkage":
            linkage.append(c[1])
        elif c[0] == "ptr":
            after_ptr = True
            attrs.append("ptr")
        elif c[0] == "space" or c[0] == "attr":
            attrs.append(c[1])
        elif c[0] == "align":
            if after_ptr or align is not None:
                attrs.append(f"align {c[1]}")
            else:
                align = c[1]
        elif c[0] == "vector":
            vector = c[1]
        elif c[0] == "type":
            if typ:
                raise BuildError("more than one type in a declaration", pos)
            typ = c[1]
    if not typ:
        raise BuildError("declaration without a type", pos)
    if space == "reg":
        for it in items:
            if it["dims"] or it["init"] is not None:
                raise BuildError("register declarations take no array or initialiser", pos)
        return [ir.RegDecl(typ, tuple((it["name"], it["count"]) for it in items), vector, align,
                           span=span)]
    out = []
    for it in items:
        # ptxas accepts the parameterised form `%q<3>` in every state space: %q0 %q1 %q2 (ISA §5.4.6)
        names = [it["name"]] if it["count"] is None else [f"{it['name']}{i}" for i in range(it["count"])]
        for name in names:
            out.append(ir.VarDecl(space, typ, name, align, vector, tuple(it["dims"]), it["init"],
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
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else "end of input"
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


def parse_fragment(source: str, start: int, end: int, line: int, col: int, rule: str,
                   filename: str, diag: Callable[[int, str], Diagnostic] | None = None):
    """Parse ``source[start:end]`` with start symbol ``rule``; raise PtxkitError with an absolute
    position on failure (``diag(pos, message)`` builds the diagnostic if given)."""
    text = source[start:end]
    frag = _Frag(source, start, line, col)
    if diag is None:
        def diag(pos: int, message: str) -> Diagnostic:
            return diagnostic(source, filename, pos, message)
    try:
        tree = lark().parse(text, start=rule)
        return ToIR(frag).transform(tree)
    except UnexpectedInput as e:
        pos = start + _err_pos(e, text)
        raise PtxkitError(diag(pos, _describe(e, text))) from None
    except VisitError as e:
        inner = e.orig_exc
        if isinstance(inner, BuildError):
            pos = inner.pos if inner.pos is not None else start + _meta_pos(e)
            raise PtxkitError(diag(pos, inner.message)) from None
        if isinstance(inner, RecursionError):
            raise PtxkitError(diag(start, "expression nested too deeply")) from None
        raise
    except RecursionError:
        raise PtxkitError(diag(start, "statement nested too deeply")) from None


def _err_pos(e: UnexpectedInput, text: str) -> int:
    if isinstance(e, UnexpectedToken) and e.token.type == "$END":
        return len(text.rstrip())
    p = getattr(e, "pos_in_stream", None)
    if p is None:
        tok = getattr(e, "token", None)
        p = getattr(tok, "start_pos", None) if tok is not None else None
    return p if p is not None else len(text)


def _meta_pos(e: VisitError) -> int:
    meta = getattr(e.obj, "meta", None)
    return getattr(meta, "start_pos", 0) if meta is not None and not meta.empty else 0


def parse(source: str, filename: str = "<input>") -> ir.Module:
    """Parse a whole module with the grammar alone (the reference; first error raises)."""
    items = parse_fragment(source, 0, len(source), 1, 1, "module", filename)
    return ir.Module(source, filename, items)
