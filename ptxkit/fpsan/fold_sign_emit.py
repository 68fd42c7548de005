"""Ring code of the sign folds (``ptxkit.fpsan.folds_sign``; docs/fpsan.md §2 negation, abs and casts): −|x| lane by
lane, abs of a widened value narrowed back (negated too), and the ring cast of a negation LLVM moved below the cvt
(PTX ISA §9.7.9.21 cvt)."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, guard_text, hexc
from ptxkit.fpsan.fold_flow import Flow, cast_source, float_cast
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.ops import as_reg, lane_nonzero_signs


def abs_of_widened(instr: ir.Instruction, ctx: RewriteContext, src: str, dst: str, half: str, wide: str,
                   negated: bool = False) -> None:
    """``abs(h.to(wide)).to(half)`` in Triton's ring: φ(h) sign-extended, φ⁻¹ to the wide float's bits, their sign
    cleared (abs stays native in Triton's FPSan), φ of those (``negated``: then the wide ring's negation), narrowed
    back (docs/fpsan.md §2 casts)."""
    ww = R.ring(wide).w
    bits = ctx.unembed_to_fresh(cast_payload(ctx, ctx.embed(src, half), half, wide), wide)
    m = ctx.fresh(BITS_KIND[ww])
    ctx.emit(f"and.b{ww} {m}, {bits}, {hexc((1 << (ww - 1)) - 1, ww)}")
    p = ctx.embed(m, wide)
    if negated:
        n = ctx.fresh(BITS_KIND[ww])
        ctx.emit(f"neg.s{ww} {n}, {as_reg(ctx, p, ww)}")
        p = n
    ctx.define(dst, cast_payload(ctx, p, wide, half), half, instr.guard)


def neg_abs(instr: ir.Instruction, ctx: RewriteContext, a: str, d: str, lanes: tuple[int, int]) -> None:
    """d = the ring negation of |a|, lane by lane: |a| with the sign set exactly where the magnitude is not zero."""
    w, lane = lanes
    m, t = lane_nonzero_signs(ctx, a, w, lane)
    ctx.invalidate(d)
    ctx.emit(f"{guard_text(instr.guard)}or.b{w} {d}, {m}, {t}")


def neg_before_cast(instr: ir.Instruction, cvt: ir.Instruction, ctx: RewriteContext, flow: Flow) -> bool:
    """``d = xor(cvt.T.S(x))`` as Triton's FPSan of ``(-x).to(T)``: the ring cast of −φ_S(x)."""
    if (src := cast_source(flow, cvt, instr)) is None:
        return False
    dt, st, x = src
    ws = R.ring(st).w
    n = ctx.fresh(BITS_KIND[ws])
    ctx.emit(f"neg.s{ws} {n}, {as_reg(ctx, ctx.embed(x, st), ws)}")
    ctx.define(instr.operands[0], cast_payload(ctx, n, st, dt), dt, instr.guard)
    return True


def neg_before_packed_cast(instr: ir.Instruction, cvt: ir.Instruction, ctx: RewriteContext, flow: Flow) -> bool:
    """``d = neg.{f16,bf16}x2(cvt.rn.{f16,bf16}x2.f32(a, b))`` as Triton's FPSan of ``(-x).to(T)`` on both lanes
    (held-out seed 8875: ``(-(a / a)).to(bf16)`` before a dot): the ring cast of −φ(a) to the high lane, of −φ(b) to
    the low one (ISA §9.7.9.21: a → upper half)."""
    types = float_cast(cvt, packed=True)
    srcs = cvt.operands[1:]
    if types is None or types[1] != "f32" or not all(
            isinstance(x, ir.Reg) and flow.unchanged_between(x.name, cvt, instr) for x in srcs):
        return False
    lt = types[0].removesuffix("x2")
    lanes = []
    for x in (srcs[1], srcs[0]):  # b → low lane, a → high
        n = ctx.fresh(BITS_KIND[32])
        ctx.emit(f"neg.s32 {n}, {as_reg(ctx, ctx.embed(x, 'f32'), 32)}")
        lanes.append(ctx.unembed_to_fresh(cast_payload(ctx, n, "f32", lt), lt))
    ctx.invalidate(name_of(instr.operands[0]))
    ctx.emit(f"{guard_text(instr.guard)}mov.b32 {name_of(instr.operands[0])}, {{{lanes[0]}, {lanes[1]}}}")
    return True
