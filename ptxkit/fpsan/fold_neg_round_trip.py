"""The negation of a narrowed value widened back, narrowed again (user-style probes, silent in 187/200:
``(-(x * 3.0).to(bf16).to(f32)).to(bf16)`` of an f32 x): LLVM drops the inner ``fpext(fptrunc(p))`` (the result is
narrowed to the same type anyway) and moves the negation below the cvt, so the PTX is ``cvt.rn.T.W c, p; neg c``
(or the sign ``xor``). Triton's FPSan keeps the round trip: narrow_W→T(−sext_T→W(narrow(φ(p)))) (docs/fpsan.md §2
casts), which is neither the ring cast of −φ(p) (``neg-cast=before``) nor, where the narrowed payload is φ_T(−0)
= −2^(T−1) (its own negation, whose sign extension is not), the ring negation after the cast: so it is computed so
from the cvt's ring result (PTX ISA §9.7.9.21 ``cvt``, §9.7.3 ``neg``)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import _DEPTH, _PTX_DTYPE, SourceFile, _cast_to, _negated, _one_value, _receiver, _resolve

ROUND_TRIP_NEGATED = "negated round trip at"  # (folded_negations: its unlocated narrowing is this fold's)


def neg_of_round_trip(instr: ir.Instruction, cvt: ir.Instruction, ctx: RewriteContext, flow: Flow, dest: str,
                      source: str) -> FoldResult | None:
    """``neg``/sign ``xor`` ``d`` of ``c = cvt.T.W`` where the source at the cvt narrows ``-E`` and E is a value
    narrowed to T and widened to W: ``d`` = φ⁻¹_T(narrow(0 − sext(φ_T(c)))); None otherwise."""
    t, w = _PTX_DTYPE.get(dest), _PTX_DTYPE.get(source)
    if t is None or w is None or R.ring(dest).w >= R.ring(source).w or not isinstance(instr.operands[0], ir.Reg):
        return None

    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if _cast_to(n) != t:
            return None
        if (outer := _negated_round_trip(f, n, t, w)) is not None:
            return "round-trip", outer  # (the cvt at the inner narrowing, the one LLVM kept)
        neg = _one_value(f, _receiver(n))
        inner = _negated(neg) if neg is not None else None
        e = _resolve(f, inner, _DEPTH) if inner is not None else None
        if e is None or _cast_to(e) != w:
            return None
        back = _resolve(f, _receiver(e), _DEPTH)
        return ("round-trip", neg) if neg is not None and back is not None and _cast_to(back) == t else None

    decided = flow.hints.decide(cvt, classify)
    if decided is None:
        return None
    c = cvt.operands[0]
    wide = cast_payload(ctx, ctx.embed(c, dest), dest, source)
    neg = ctx.fresh(BITS_KIND[R.ring(source).w])
    ctx.emit(f"neg.s{R.ring(source).w} {neg}, {wide}")
    ctx.define(instr.operands[0], cast_payload(ctx, neg, source, dest), dest, instr.guard)
    return FoldResult(True, Verdict(
        f"{ROUND_TRIP_NEGATED} {decided.where}: a value narrowed to {dest} and widened to {source}, negated and "
        f"narrowed to {dest} again; LLVM dropped the round trip; Triton's FPSan narrows the negation of the widened "
        "payload, computed so", NOTE, native=False))


def _negated_round_trip(f: SourceFile, n: ast.expr, t: str, w: str) -> ast.expr | None:
    """The negation (``-E``, ``E * -1.0``; names followed) of ``n.to(w)`` around the narrowing ``n`` (= ``Z.to(t)``),
    in ``n``'s function, where one is (its narrowing to t may be elsewhere, ``r = -(..)``, ``r.to(t)``: the PTX's cvt
    to t and sign op after it say the value is narrowed to t), else None."""
    fn = f.function_of(n)
    if fn is None:
        return None
    for m in (e for e in ast.walk(fn) if isinstance(e, ast.expr)):
        inner = _negated(m)
        wide = _resolve(f, inner, _DEPTH) if inner is not None else None
        if wide is not None and _cast_to(wide) == w and _resolve(f, _receiver(wide), _DEPTH) is n:
            return m
    return None
