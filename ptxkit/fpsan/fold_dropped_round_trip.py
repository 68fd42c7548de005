"""A narrowing-widening round trip LLVM dropped from an integer's conversion (issue 10; held-out seed 94098, silent at
first contact in 38 of 1,024 elements: ``s * s - s.to(f32).to(f64)`` of ``s = cumsum(i.to(f64))``, whose first row is
the conversion itself, ``i`` an f32's truncation; custom ``i.to(f64).to(f32).to(f64) - i.to(f64)``, 50 of 128).

``fpext(fptrunc(sitofp i))`` is ``sitofp i`` where every value of ``i`` is exact in the narrow type (LLVM's known-exact
integer-to-float cast: ``i`` an ``fptosi`` of that type, or a narrow integer), so the PTX reads the conversion itself
(PTX ISA §9.7.9.21 cvt); Triton's FPSan narrows φ(x) with its hash fold and sign-extends it back (docs/fpsan.md §2),
which is not φ(x) for a value that was never a widened narrow one. Reported, sanitized as written. The widening
back may be an operator's promotion of the half rather than a written ``.to`` (held-out seed 150105)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.fold_flow import Flow, float_cast
from ptxkit.fpsan.ops import float_type_of
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _INT_DTYPES,
    _PTX_DTYPE,
    Decision,
    SourceFile,
    _cast_to,
    _module_call,
    _receiver,
    _resolve,
    _to_dtype,
    _width,
)
from ptxkit.ptx.types import SIGNED_TYPES, UNSIGNED_TYPES

_PROMOTING = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_NARROWER = {"f32": ("f16", "bf16"), "f64": ("f16", "bf16", "f32")}
READERS = ("neg", "abs", "add", "sub", "mul", "fma", "mad", "div", "max", "min", "setp")


def dropped_round_trip(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """A float op of f32/f64 that reads an integer's conversion to its type and no float widening, where the source
    at its location (or an expression inside it) narrows a value and widens it back to that type; else None."""
    ft = float_type_of(instr)
    if instr.opcode not in READERS or ft not in ("f32", "f64"):
        return None
    defs = [flow.only_def(o.name) for o in instr.operands[1:] if isinstance(o, ir.Reg)]
    if not any(d is not None and _int_conversion(d, ft) for d in defs):
        return None
    if any(d is not None and _kept_round_trip(flow, d) for d in defs):
        return None  # a round trip LLVM kept ends in such a widening: the source's may be that one
    if any(d is not None and _int_conversion(d, ft) and (w := flow.hints.int_wide(d)) is not None
           and w.form in _NARROWER[ft] for d in defs):
        return None  # the conversion is the int-wide fold's: its native narrow conversion widened, the round trip
    want = _PTX_DTYPE[ft]

    def narrowed_integer(f: SourceFile, e: ast.expr | None) -> bool:
        inner = _resolve(f, e, _DEPTH) if e is not None else None
        mid = _cast_to(inner)
        return (inner is not None and mid is not None and _DTYPE_WIDTH[mid] < _DTYPE_WIDTH[want]
                and _integer_valued(f, _receiver(inner), _DEPTH))

    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if _cast_to(n) == want and narrowed_integer(f, _receiver(n)):
            return ("round-trip", n)
        # an operator's promotion widens it back (Triton promotes a half operand, and a half division, to f32;
        # held-out seed 150105: ``h / i.to(f32).to(f16)``, ``i`` an f16's truncation). The instruction computes at
        # ``want`` and reads the conversion itself, so an operator whose width the source leaves open (a load's) is it
        if isinstance(n, ast.BinOp) and isinstance(n.op, _PROMOTING) \
                and (_width(f, n, _DEPTH) or 0) <= _DTYPE_WIDTH[want] \
                and (narrowed_integer(f, n.left) or narrowed_integer(f, n.right)):
            return ("round-trip", n)
        return None
    return flow.hints.decide_within(instr, classify)


def _kept_round_trip(flow: Flow, d: ir.Instruction) -> bool:
    """``d`` widens a narrowing of an integer's conversion (or an integer's conversion to the narrow type)."""
    types = float_cast(d) if d.opcode == "cvt" else None
    if types is None or not isinstance(d.operands[1], ir.Reg):
        return False
    narrow = flow.only_def(d.operands[1].name)
    if narrow is None or narrow.opcode != "cvt":
        return False
    if _int_conversion(narrow, types[1]):
        return True
    inner = float_cast(narrow)
    src = flow.only_def(narrow.operands[1].name) if inner and isinstance(narrow.operands[1], ir.Reg) else None
    return inner is not None and src is not None and _int_conversion(src, inner[1])


def _integer_valued(f: SourceFile, e: ast.expr, depth: int) -> bool:
    """``e`` is an integer's float conversion (``i.to(tl.intN).to(tl.fT)``), or a cumsum or select of such values."""
    r = _resolve(f, e, depth)
    if r is None or depth <= 0:
        return False
    if _cast_to(r) is not None:
        return _to_dtype(_receiver(r)) in _INT_DTYPES
    if _module_call(r, "tl") in ("cumsum", "where") and isinstance(r, ast.Call) and r.args:
        values = r.args[1:3] if _module_call(r, "tl") == "where" else r.args[:1]
        return len(values) > 0 and all(_integer_valued(f, a, depth - 1) for a in values)
    return False


def _int_conversion(d: ir.Instruction, ft: str) -> bool:
    """``cvt.rn.FT.{s,u}N``: an integer's conversion to ``ft``."""
    types = [m for m in d.mods if m in SIGNED_TYPES or m in UNSIGNED_TYPES or m == ft]
    return d.opcode == "cvt" and len(types) == 2 and types[0] == ft and types[1] != ft
