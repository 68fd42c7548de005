"""The negation of a promoted select, narrowed (issue 10 J; docs/fpsan.md §3 "Folds").

``(-tl.where(c, h, y)).to(bf16)`` of a bf16 h and an f32 y: Triton promotes the select to f32 (h widened), negates
in the f32 ring and narrows. LLVM selects between h and the narrowed y, then sets the sign with a ``xor.b16``
(hand kernels after held-out seed 187573, silent before: the xor taken for the ring negation at 16 bits). Ring
negation and narrowing do not commute, and select commutes with both, so each arm is Triton's own: the narrowing of
−φ(y) for an arm LLVM narrowed from y, the narrowing of −sext(φ(h)) for a narrow one.
"""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult, narrowing_def
from ptxkit.fpsan.ops import as_reg, sign_xor_lanes
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import Decision

_NARROW = {16: ("f16", "bf16"), 32: ("f32",)}


def negated_promoted_select(xor: ir.Instruction, ctx: RewriteContext, flow: Flow, src: str) -> FoldResult | None:
    """The sign ``xor`` of ``selp d, a, b, p`` with an arm a narrowing ``cvt.T.W`` reads, where the source narrows
    the negation of a ``tl.where``: Triton's value per arm (module docstring); None for any other shape."""
    lanes = sign_xor_lanes(xor)
    if lanes is None or not _promoted(flow, xor, src, lanes):
        return None
    decided = flow.hints.negated_where_narrowed(xor, lanes[0])
    return per_arm(xor, ctx, flow, src, "neg", decided) if decided is not None else None


def _promoted(flow: Flow, instr: ir.Instruction, src: str, lanes: tuple[int, int]) -> bool:
    """``src`` is a select with an arm a narrowing cvt to ``lanes``' float type wrote."""
    sel = flow.only_def(src)
    return (sel is not None and sel.opcode == "selp" and instr.guard is None and lanes[0] == lanes[1]
            and any(narrowing_def(flow, a, t) is not None for a in sel.operands[1:3]
                    for t in _NARROW.get(lanes[0], ())))


def per_arm(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, src: str, op: str,
            decided: Decision) -> FoldResult | None:
    """``instr`` (a sign-bit op on ``src = selp a, b, p``, a promoted select LLVM narrowed) as Triton's ``op`` at the
    wide type W on each arm — ``neg``: −q; ``max``/``min``: the ring max/min of q and −q (``maximum(v, -v)``) —, then
    the ring narrowing, selected; q is φ_W of the value a narrowing arm's cvt reads, the sign extension of a narrow
    arm's payload. None where the select is not such (one W, operands unchanged up to ``instr``)."""
    sel = flow.only_def(src)
    if sel is None or sel.opcode != "selp" or len(sel.operands) != 4 \
            or not all(isinstance(o, ir.Reg) for o in sel.operands[1:4]):
        return None
    arms = [o for o in sel.operands[1:3] if isinstance(o, ir.Reg)]
    pred = sel.operands[3]
    types = {t for ts in _NARROW.values() for t in ts for a in arms if narrowing_def(flow, a, t) is not None}
    casts = {a.name: c for a in arms for t in types if (c := narrowing_def(flow, a, t)) is not None}
    wides = {c[2] for c in casts.values()}
    if len(types) != 1 or len(wides) != 1 or not isinstance(pred, ir.Reg) \
            or not all(flow.unchanged_between(r.name, sel, instr) for r in (*arms, pred)) \
            or not all(isinstance(x := c[0].operands[1], ir.Reg) and flow.unchanged_between(x.name, c[0], instr)
                       for c in casts.values()):
        return None
    (narrow,), (wide,) = types, wides
    w, n = R.ring(wide).w, R.ring(narrow).w
    payloads = []
    for a in arms:
        c = casts.get(a.name)
        q = as_reg(ctx, ctx.embed(c[0].operands[1], wide) if c is not None else
                   cast_payload(ctx, ctx.embed(a, narrow), narrow, wide), w)
        neg = ctx.fresh(BITS_KIND[w])
        ctx.emit(f"neg.s{w} {neg}, {q}")
        if op != "neg":
            ctx.emit(f"{op}.s{w} {neg}, {q}, {neg}")
        payloads.append(as_reg(ctx, cast_payload(ctx, neg, wide, narrow), n))
    out = ctx.fresh(BITS_KIND[n])
    ctx.emit(f"selp.b{n} {out}, {payloads[0]}, {payloads[1]}, {pred.name}")
    ctx.define(instr.operands[0], out, narrow, None)
    what = "negation" if op == "neg" else f"ring {op} of x and -x"
    return FoldResult(True, Verdict(f"sign-bit {instr.opcode} of a select LLVM narrowed, where the source at "
                                    f"{decided.where} computes the {what} of a select promoted to {wide}: sanitized "
                                    f"as Triton's {wide} ring op on each arm (a narrow arm widened first), then the "
                                    "ring narrowing", NOTE, native=False))
