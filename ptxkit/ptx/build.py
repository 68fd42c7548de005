"""IR-building helpers shared by the fast parser and the Lark reference parser, so both produce the
*same* IR by construction: literal conversion (ISA §4.5), constant-expression folding (ISA §4.6),
expression → operand mapping, directive-argument normalisation and register-name resolution."""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass

from ptxkit import ir
from ptxkit.ir import Addr, AddrList, Expr, FloatImm, Imm, Not, Operand, ParamList, Pipe, Reg, Sink, Sym, Vec


class BuildError(Exception):
    """A semantic problem found while building IR; ``pos`` is an absolute source offset if known."""

    def __init__(self, message: str, pos: int | None = None):
        super().__init__(message)
        self.message = message
        self.pos = pos


# --------------------------------------------------------------------------- literals (ISA §4.5)

U64 = 1 << 64
"""PTX integer constants are 64 bits (ISA §4.5.1); constant expressions are evaluated in 64 bits
(ISA §4.6.2)."""


def int_literal(text: str) -> int:
    """``0x1F``, ``0b101``, ``017`` (octal), ``42``, each with an optional ``U`` suffix. A literal
    that does not fit in 64 bits is an error (ptxas: "Constant overflow")."""
    t = text[:-1] if text.endswith("U") else text
    base = 10
    digits = t
    if len(t) > 1 and t[0] == "0":
        c = t[1]
        if c in "xX":
            base, digits = 16, t[2:]
        elif c in "bB":
            base, digits = 2, t[2:]
        elif all(ch in "01234567" for ch in t):
            base = 8
        else:
            raise BuildError(f"invalid octal constant '{_clip(text)}'")
    # any 64-bit value has at most 64 significant digits in every base: longer is out of range
    # without converting (Python refuses str → int beyond 4,300 decimal digits)
    if len(digits.lstrip("0")) > 64 or (v := int(digits, base)) >= U64:
        raise BuildError(f"integer constant '{_clip(text)}' out of range (PTX constants are 64 bits)")
    return v


def reg_count(text: str) -> int:
    """The N of a parameterised register declaration ``%r<N>`` (ptxas: at most 32 bits)."""
    v = int_literal(text)
    if v >= 1 << 32:
        raise BuildError(f"register count '{_clip(text)}' out of range")
    return v


def _clip(text: str) -> str:
    return text if len(text) <= 24 else text[:20] + "..."


def float_hex(text: str) -> FloatImm:
    """``0f3F800000`` → single, ``0d3FF0000000000000`` → double (exact IEEE bits)."""
    return FloatImm(int(text[2:], 16), 32 if text[1] in "fF" else 64)


def float_dec(text: str) -> FloatImm:
    """A decimal literal such as ``1.5`` is an f64 (ISA §4.5.1)."""
    try:
        value = float(text)
    except ValueError as e:  # pragma: no cover - the token regex only admits valid literals
        raise BuildError(f"invalid floating-point constant '{text}'") from e
    return FloatImm(struct.unpack("<Q", struct.pack("<d", value))[0], 64)


# --------------------------------------------------------------------------- expressions (ISA §4.6)
# The grammar's expression trees, before they become IR operands (only the Lark path builds them).
# Their leaves are the IR's own operands (Imm, Reg, Sym, Sink) as the literal or name was written;
# a float literal is an EFloat, which remembers how it was spelled.

@dataclass(frozen=True, slots=True)
class EFloat:
    """A float literal; ``hex``: written ``0f…``/``0d…`` (ptxas refuses to negate those)."""

    value: FloatImm
    hex: bool = False


@dataclass(frozen=True, slots=True)
class EUnary:
    op: str  # - + ! ~
    x: ExprNode


@dataclass(frozen=True, slots=True)
class EBinary:
    op: str  # C operators, ISA Table 4.4
    a: ExprNode
    b: ExprNode


@dataclass(frozen=True, slots=True)
class ECond:
    c: ExprNode
    a: ExprNode
    b: ExprNode


@dataclass(frozen=True, slots=True)
class ECall:
    """``generic(sym)`` and the like (initialisers)."""

    fname: str
    x: ExprNode


@dataclass(frozen=True, slots=True)
class EParen:
    """``( … )`` with one or more comma-separated items."""

    items: tuple[ExprNode, ...]


ExprNode = Imm | EFloat | Reg | Sym | Sink | EUnary | EBinary | ECond | ECall | EParen

_BINOPS: dict[str, Callable[[int, int], int]] = {
    "*": lambda a, b: a * b,
    "/": lambda a, b: _cdiv(a, b),
    "%": lambda a, b: a - b * _cdiv(a, b),
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "<<": lambda a, b: a << b if b < 64 else 0,
    ">>": lambda a, b: a >> b,
    "<": lambda a, b: int(a < b),
    ">": lambda a, b: int(a > b),
    "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b),
    "==": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b),
    "&": lambda a, b: a & b,
    "^": lambda a, b: a ^ b,
    "|": lambda a, b: a | b,
    "&&": lambda a, b: int(bool(a) and bool(b)),
    "||": lambda a, b: int(bool(a) or bool(b)),
}


def _cdiv(a: int, b: int) -> int:
    """C division truncates toward zero."""
    if b == 0:
        raise BuildError("division by zero in constant expression")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _wrap(v: int) -> int:
    """A result kept in the 64-bit range (ISA §4.6.2): values that already fit as .s64 or .u64
    stay as they are (so the IR's values do not change), the rest wrap modulo 2**64."""
    return v if -(U64 >> 1) <= v < U64 else v & (U64 - 1)


def fold(node: ExprNode) -> int | None:
    """The integer value of a constant expression, or None if it has names/registers/floats."""
    if isinstance(node, Imm):
        return node.value
    if isinstance(node, EUnary):
        v = fold(node.x)
        if v is None:
            return None
        op = node.op
        return _wrap(-v if op == "-" else v if op == "+" else int(not v) if op == "!" else ~v)
    if isinstance(node, EBinary):
        a = fold(node.a)
        if a is None:
            return None
        b = fold(node.b)
        if b is None:
            return None
        if node.op in ("<<", ">>") and b < 0:
            raise BuildError("negative shift count in constant expression")
        return _wrap(_BINOPS[node.op](a, b))
    if isinstance(node, ECond):
        c = fold(node.c)
        if c is None:
            return None
        a, b = fold(node.a), fold(node.b)
        if a is None or b is None:
            return None
        return a if c else b
    if isinstance(node, EParen) and len(node.items) == 1:
        return fold(node.items[0])
    return None


def expr_text(node: ExprNode) -> str:
    """The normalised spelling of an expression (used for :class:`ir.Expr`): no spaces, every
    nested operator expression parenthesised, so re-parsing the text gives the same text."""
    if isinstance(node, Imm):
        return str(node.value)
    if isinstance(node, EFloat):
        return format_float(node.value)
    if isinstance(node, (Reg, Sym)):
        return node.name
    if isinstance(node, Sink):
        return "_"
    if isinstance(node, EUnary):
        return node.op + _sub(node.x)
    if isinstance(node, EBinary):
        return _sub(node.a) + node.op + _sub(node.b)
    if isinstance(node, ECond):
        return _sub(node.c) + "?" + _sub(node.a) + ":" + _sub(node.b)
    if isinstance(node, ECall):
        return f"{node.fname}({expr_text(node.x)})"
    return "(" + ",".join(expr_text(i) for i in node.items) + ")"


def _sub(node: ExprNode) -> str:
    t = expr_text(node)
    return f"({t})" if isinstance(node, (EBinary, ECond, EUnary)) else t


def format_float(f: FloatImm) -> str:
    return f"0f{f.bits:08X}" if f.width == 32 else f"0d{f.bits:016X}"


def _is_name(node: ExprNode) -> bool:
    return isinstance(node, (Reg, Sym, Sink))


def to_operand(node: ExprNode, top: bool = True) -> Operand:
    """Map an expression tree to the IR operand classes (ir.py): constants fold to Imm, a lone
    float literal is a FloatImm, ``%p|%q`` is a Pipe, ``!%p`` a Not, a top-level ``( … )`` a
    ParamList (call arguments, ISA §9.7.13.4), anything else an Expr."""
    if isinstance(node, (Reg, Sym, Sink)):
        return node
    if isinstance(node, EFloat):
        return node.value
    if isinstance(node, EParen) and top:
        return ParamList(tuple(to_operand(i, False) for i in node.items))
    v = fold(node)
    if v is not None:
        return Imm(v)
    if isinstance(node, EUnary):
        inner = node.x
        if node.op == "!" and isinstance(inner, (Reg, Sym)):
            return Not(to_operand(inner, False))
        if node.op == "-" and isinstance(inner, EFloat):
            f = inner.value
            return FloatImm(f.bits ^ (1 << (f.width - 1)), f.width)
    if isinstance(node, EBinary) and node.op == "|" and _is_name(node.a) and _is_name(node.b):
        return Pipe(to_operand(node.a, False), to_operand(node.b, False))
    if isinstance(node, EParen):
        if len(node.items) == 1:
            return to_operand(node.items[0], False)
        raise BuildError("a parenthesised list is only allowed as a whole operand")
    # note: ``%r1+1`` (a register with an offset) is syntactically valid outside brackets
    # (ptxas accepts it in add/setp operands); it stays an Expr
    return Expr(expr_text(node))


def to_address(node: ExprNode, rest: list[Operand]) -> Operand:
    """``[reg]``, ``[reg+imm]``, ``[reg+-imm]``, ``[var+imm]``, ``[imm]`` → Addr with the offset
    evaluated (ISA §6.4.1); ``[tex, {x, y}]`` (texture/surface, ISA §9.7.10) → AddrList."""
    if rest:
        return AddrList((to_operand(node, False), *rest))
    base, off = _split_address(node)
    return Addr(base, off)


def _split_address(node: ExprNode) -> tuple[Reg | Sym | None, int]:
    if isinstance(node, (Reg, Sym)):
        return node, 0
    v = fold(node)
    if v is not None:
        return None, v
    if isinstance(node, EParen) and len(node.items) == 1:
        return _split_address(node.items[0])
    if isinstance(node, EBinary) and node.op in ("+", "-"):
        v = fold(node.b)
        if v is not None:
            base, off = _split_address(node.a)
            return base, off + v if node.op == "+" else off - v
        if node.op == "+":
            v = fold(node.a)
            if v is not None:
                base, off = _split_address(node.b)
                return base, off + v
    raise BuildError(f"unsupported address expression '{expr_text(node)}'")


# --------------------------------------------------------------------------- directives

_ARG_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|,|[^\s,"]+|"')


def normalize_args(raw: str) -> str:
    """Directive arguments as one canonical string: tokens separated by one space, ``, `` after
    commas (strings kept verbatim). ``.maxntid 256,1,  1`` → ``256, 1, 1``."""
    out: list[str] = []
    for t in _ARG_TOKEN.findall(raw):
        if t == ",":
            out.append(", ")
        else:
            if out and out[-1] != ", ":
                out.append(" ")
            out.append(t)
    return "".join(out).strip()


# --------------------------------------------------------------------------- name resolution

def resolve_function(fn: ir.Function) -> None:
    """Registers declared without ``%`` (``.reg .u64 tmp;``, as ZLUDA's tests write them) are Regs,
    not Syms: rewrite the operands of this function's instructions accordingly (ISA §5.1)."""
    if fn.body is None:
        return
    names = {n for d in ir.iter_statements(fn.body) if isinstance(d, ir.RegDecl)
             for n, _ in d.names if not n.startswith("%")}
    names |= {p.name for p in (*fn.params, *fn.ret_params) if p.space == "reg" and not p.name.startswith("%")}
    if names:
        _resolve_body(fn.body, frozenset(names))


def _resolve_body(body: list[ir.Statement], names: frozenset[str]) -> None:
    stack = [body]  # iterative: blocks may nest thousands deep
    while stack:
        for s in stack.pop():
            if type(s) is ir.Instruction:
                for o in s.operands:
                    # registers, immediates and [reg+off] never change: skip the rebuild
                    if type(o) is Reg or type(o) is Imm or (type(o) is Addr and type(o.base) is Reg):
                        continue
                    ops = tuple(_resolve_op(o, names) for o in s.operands)
                    if ops != s.operands:
                        s.operands = ops  # freshly built node, not yet handed out: safe to set
                    break
            elif type(s) is ir.Block:
                stack.append(s.body)


def _resolve_op(o: Operand, names: frozenset[str]) -> Operand:
    if isinstance(o, Sym):
        return Reg(o.name) if o.name.split(".")[0] in names else o
    if isinstance(o, Addr):
        if isinstance(o.base, Sym) and o.base.name.split(".")[0] in names:
            return Addr(Reg(o.base.name), o.offset)
        return o
    if isinstance(o, Vec):
        return Vec(tuple(_resolve_op(i, names) for i in o.items))
    if isinstance(o, AddrList):
        return AddrList(tuple(_resolve_op(i, names) for i in o.items))
    if isinstance(o, ParamList):
        return ParamList(tuple(_resolve_op(i, names) for i in o.items))
    if isinstance(o, Pipe):
        return Pipe(_resolve_op(o.a, names), _resolve_op(o.b, names))
    if isinstance(o, Not):
        return Not(_resolve_op(o.operand, names))
    return o


__all__ = [
    "BuildError",
    "EBinary",
    "ECall",
    "ECond",
    "EFloat",
    "EParen",
    "EUnary",
    "ExprNode",
    "expr_text",
    "float_dec",
    "float_hex",
    "fold",
    "format_float",
    "int_literal",
    "normalize_args",
    "reg_count",
    "resolve_function",
    "to_address",
    "to_operand",
]
