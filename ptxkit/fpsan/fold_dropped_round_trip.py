"""A narrowing-widening round trip LLVM dropped from an integer's conversion (issue 10; held-out seed 94098, silent at
first contact in 38 of 1,024 elements: ``s * s - s.to(f32).to(f64)`` of ``s = cumsum(i.to(f64))``, whose first row is
the conversion itself, ``i`` an f32's truncation; custom ``i.to(f64).to(f32).to(f64) - i.to(f64)``, 50 of 128).

``fpext(fptrunc(sitofp i))`` is ``sitofp i`` where every value of ``i`` is exact in the narrow type (LLVM's known-exact
integer-to-float cast: ``i`` an ``fptosi`` of that type, or a narrow integer), so the PTX reads the conversion itself
(PTX ISA §9.7.9.21 cvt); Triton's FPSan narrows φ(x) with its hash fold and sign-extends it back (docs/fpsan.md §2),
which is not φ(x) for a value that was never a widened narrow one. Reported, sanitized as written."""

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
)
from ptxkit.ptx.types import SIGNED_TYPES, UNSIGNED_TYPES

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
    if any(d is not None and d.opcode == "cvt" and float_cast(d) is not None for d in defs):
        return None  # a round trip LLVM kept ends in such a widening: the source's may be that one
    want = _PTX_DTYPE[ft]

    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if _cast_to(n) != want:
            return None
        inner = _resolve(f, _receiver(n), _DEPTH)
        mid = _cast_to(inner)
        if inner is None or mid is None or _DTYPE_WIDTH[mid] >= _DTYPE_WIDTH[want]:
            return None
        return ("round-trip", n) if _integer_valued(f, _receiver(inner), _DEPTH) else None
    return flow.hints.decide_within(instr, classify)


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
