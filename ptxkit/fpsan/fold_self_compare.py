"""``setp.num/nan.fT p, x, x``: LLVM's fold of ``c(x) <= c(x)`` (``==``, ``!=``, …) of a cast or a negation ``c``
into x's own NaN test, which Triton's ring does not keep (issue 10; docs/fpsan.md §3, ``self-compare``)."""

from __future__ import annotations

import dataclasses

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, guard_text, hexc
from ptxkit.fpsan.fold_flow import FoldResult, fold_verdict
from ptxkit.fpsan.ops import as_reg
from ptxkit.fpsan.options import Options
from ptxkit.fpsan.report import NOTE
from ptxkit.fpsan.source_ast import Decision

_SELF_COMPARE = ("setp.num/nan x, x: LLVM folds c(x) <= c(x) (==, !=, ...) of a narrowing cast c into an ordered "
                 "test of x itself (fptrunc keeps NaN-ness, Triton's ring cast does not), so the source compared "
                 "x (native), a narrowing cast of it, or a negation (of a cast) of it")
_NAN_ABOVE = {"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000, "f64": 0x7FF0000000000000}


def self_compare(instr: ir.Instruction, ctx: RewriteContext, opts: Options, ft: str,
                 decided: Decision | None) -> FoldResult | None:
    """``setp.num/nan.fT p, x, x``: native (x's own NaN-ness, what Triton compares for ``x == x``), or,
    for ``x.to(T) <= x.to(T)``, the NaN-ness of the float bits of Triton's ring cast of φ(x) to T
    (issue 10 seed 154): ``(b & ~sign) > inf`` on b = φ⁻¹(the cast's payload), the bits Triton compares; for
    ``-x.to(T) == -x.to(T)`` (``neg-T``) and ``-x == -x`` (``neg``) those of the ring negation of it."""
    form = opts.fold("self-compare") or (decided.form if decided else "native")
    verdict = fold_verdict(opts, "self-compare", _SELF_COMPARE, "native", decided)
    if form == "native":
        if verdict.severity == NOTE:
            return None  # the ordinary comparison (its own note)
        return FoldResult(False, dataclasses.replace(verdict, native=True))
    d, x = instr.operands[0], instr.operands[1]
    to = ft if form == "neg" else form.removeprefix("neg-")
    w = R.ring(to).w
    v = as_reg(ctx, ctx.embed(x, ft) if to == ft else cast_payload(ctx, ctx.embed(x, ft), ft, to), w)
    if form.startswith("neg"):  # -x == -x: the ring's −φ, whose NaN-ness is not x's (held-out seed 202460)
        v, neg = ctx.fresh(BITS_KIND[w]), v
        ctx.emit(f"neg.s{w} {v}, {neg}")
    c = ctx.unembed_to_fresh(v, to)
    m = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"and.b{w} {m}, {c}, {hexc((1 << (w - 1)) - 1, w)}")
    cmp = "gt" if "nan" in instr.mods else "le"
    ctx.emit(f"{guard_text(instr.guard)}setp.{cmp}.u{w} {ctx.text(d)}, {m}, {hexc(_NAN_ABOVE[to], w)}")
    return FoldResult(True, verdict)
