"""−|x| that LLVM moved below a float conversion (issue 10; held-out seed 67953, reported at first contact:
``(-tl.abs(x * y)).to(f32)`` of f64 values as ``mul.f64; cvt.rn.f32.f64; or.b32 r, c, 0x80000000``). The sign-bit
``or`` commutes with the IEEE narrowing, not with Triton's ring cast (sign extension up, its hash fold down), so the
source's order decides: ``(-abs(x)).to(T)`` is the ring negation of |x| at x's own width, then the ring cast
(PTX ISA §9.7.9.21 cvt; docs/fpsan.md §2 negation and casts); ``-abs(x.to(T))`` is the PTX's own order."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, guard_text
from ptxkit.fpsan.fold_flow import Flow, cast_source, float_cast, float_cast_reader
from ptxkit.fpsan.ops import as_reg, lane_nonzero_signs
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _PTX_DTYPE,
    OWN,
    Decision,
    SourceFile,
    _abs_call,
    _cast_to,
    _one_value,
    _receiver,
    _resolve,
    _width,
)
from ptxkit.fpsan.source_types import _no_casts


def neg_abs_order(flow: Flow, cvt: ir.Instruction) -> Decision | None:
    """The source's order of −|·| and the scalar float ``cvt`` at the cvt's ``.to(T)`` call: ``outside`` for
    ``(-abs(x)).to(T)`` of an x of the cvt's source type (a load, or arithmetic on loads without casts),
    ``inside`` for ``-abs(x.to(T))``; else None."""
    types = float_cast(cvt)
    if types is None:
        return None
    dest, sw = _PTX_DTYPE.get(types[0]), _DTYPE_WIDTH.get(_PTX_DTYPE.get(types[1], ""))

    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if _cast_to(n) != dest or sw is None:
            return None
        ab = f.parent.get(id(n))
        if _abs_call(ab) and isinstance(neg := f.parent.get(id(ab)), ast.UnaryOp) and isinstance(neg.op, ast.USub):
            return "inside", neg
        recv = _one_value(f, _receiver(n))
        if not (isinstance(recv, ast.UnaryOp) and isinstance(recv.op, ast.USub)):
            return None
        ab = _one_value(f, recv.operand)
        if not _abs_call(ab):
            return None
        assert isinstance(ab, ast.Call)
        x = _resolve(f, ab.args[0], _DEPTH)
        w = _width(f, x, _DEPTH) if x is not None else None
        return ("outside", n) if w in (OWN, sw) or (w is None and x is not None and _no_casts(f, x)) else None
    return flow.hints.decide(cvt, classify)


def neg_abs_before_cast(instr: ir.Instruction, cvt: ir.Instruction, ctx: RewriteContext, flow: Flow) -> bool:
    """``d = or(cvt.T.S(x), sign)`` as Triton's FPSan of ``(-abs(x)).to(T)``: |x| on S's bits, the ring negation
    (the sign set where the magnitude is not zero), then the ring cast of that payload to T."""
    if (src := cast_source(flow, cvt, instr)) is None:
        return False
    dt, st, x = src
    ws = R.ring(st).w
    bits = ctx.unembed_to_fresh(as_reg(ctx, ctx.embed(x, st), ws), st)
    m, t = lane_nonzero_signs(ctx, bits, ws, ws)
    n = ctx.fresh(BITS_KIND[ws])
    ctx.emit(f"or.b{ws} {n}, {m}, {t}")
    ctx.define(instr.operands[0], cast_payload(ctx, ctx.embed_value(n, st), st, dt), dt, instr.guard)
    return True


def cast_below(flow: Flow, d: ir.Instruction | None) -> bool:
    """``d`` (what a sign-bit ``or`` reads) is a float cast's result, or a select with such an arm: LLVM sank −|x| past
    a cast, also of a promoted select's arm (``-abs(where(c, h, y)).to(bf16)`` of a bf16 h and an f32 y, silent
    before: the select of h and the narrowed y, then the or), where the source's −|x| is at the wider type."""
    if d is None:
        return False
    arms = [o for o in d.operands[1:3] if isinstance(o, ir.Reg)] if d.opcode == "selp" else []
    return float_cast_reader(d) or any((a := flow.only_def(o.name)) is not None and float_cast_reader(a) for o in arms)


def ring_max_of_negation(instr: ir.Instruction, ctx: RewriteContext, src: str, dst: str,
                          lanes: tuple[int, int]) -> None:
    """``maximum(x, -x)`` as Triton's ring max of φ(x) and −φ(x): |x| except at ±0, which stay themselves
    (φ(−0) = −2^(w−1) is its own negation; held-out seed 4957: silent before): x with the sign cleared
    where the magnitude is not zero, lane by lane."""
    w, lane = lanes
    _, t = lane_nonzero_signs(ctx, src, w, lane)
    u = ctx.fresh(BITS_KIND[w])
    ctx.invalidate(dst)
    ctx.emit(f"and.b{w} {u}, {src}, {t}")
    ctx.emit(f"{guard_text(instr.guard)}xor.b{w} {dst}, {src}, {u}")
