"""FPSan for ``mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64`` (PTX ISA §9.7.14.5.14; fragments
§9.7.14.5.7 "Matrix Fragments for mma.m8n8k4 with .f64"): D = Σ_k E(A)·E(B) + E(C) mod 2^64 on the
64-bit payloads (docs/fpsan.md §2; sext to the accumulator width is the identity).

Lane (g, t) (g = laneid >> 2, t = laneid & 3) holds A[g][t], B[t][g] and C/D elements (g, 2t), (g, 2t+1).
Its row g of A is held by lanes 4g..4g+3, its columns 2t, 2t+1 of B by lanes 4(2t+e) + k: eight
64-bit payloads in 24 ``shfl.sync.idx`` (two halves each; a gathered A row is memoised, so an A
shared by the n-tiles of a Triton f64 dot moves once), then 8 ``mad.lo.u64``.
"""

from __future__ import annotations

from typing import Any

from ptxkit.fpsan.mma_plan import MmaForm, MmaNotModelled, operand_regs, source_lanes
from ptxkit.ir import Instruction, Reg

F64_FORM = MmaForm("m8n8k4", "f64", "f64", "f64", "f64")


def plan_f64(instr: Instruction, form: MmaForm) -> list[list[str]]:
    """[D, A, B, C] registers of a modelled f64 mma (else :class:`MmaNotModelled`)."""
    if form != F64_FORM:
        raise MmaNotModelled(f"mma.{form.shape} with .{form.atype} inputs is not modelled")
    if len(instr.operands) != 4:
        raise MmaNotModelled("mma expects four operands")
    return [operand_regs(o, n, w) for o, n, w in zip(instr.operands, (2, 1, 1, 2), ("D", "A", "B", "C"))]


def _shfl64(ctx: Any, pay: str, src: str) -> str:
    lo, hi, glo, ghi, out = (ctx.fresh("b32"), ctx.fresh("b32"), ctx.fresh("b32"), ctx.fresh("b32"),
                             ctx.fresh("b64"))
    ctx.emit(f"mov.b64 {{{lo}, {hi}}}, {pay}")
    ctx.emit(f"shfl.sync.idx.b32 {glo}, {lo}, {src}, 0x1f, 0xffffffff")
    ctx.emit(f"shfl.sync.idx.b32 {ghi}, {hi}, {src}, 0x1f, 0xffffffff")
    ctx.emit(f"mov.b64 {out}, {{{glo}, {ghi}}}")
    return str(out)


def _sources(ctx: Any) -> tuple[list[str], list[list[str]]]:
    """Source lanes: A row g from lanes 4g + k; B column 2t + e from lanes 4(2t + e) + k (memoised)."""
    if "f64_lanes" not in ctx.memo:
        a_src, b_src = source_lanes(lambda: ctx.fresh("b32"), ctx.emit)
        ctx.memo["f64_lanes"] = (a_src, [b_src[:4], b_src[4:]])  # B column 2t + e: lanes 8t + 4e + k
    a_src, b_src = ctx.memo["f64_lanes"]
    return list(a_src), [list(r) for r in b_src]


def rewrite_mma_f64(instr: Instruction, form: MmaForm, ctx: Any) -> None:
    """Emit the f64 ring dot through the sanitizer's context (the plan is checked first)."""
    d_regs, (a,), (b,), c_regs = plan_f64(instr, form)
    a_pay, b_pay = ctx.embed(Reg(a), "f64"), ctx.embed(Reg(b), "f64")
    a_src, b_src = _sources(ctx)
    key = ("f64_a", a_pay)
    if key not in ctx.memo:
        ctx.memo[key] = [_shfl64(ctx, a_pay, s) for s in a_src]
    a_row = ctx.memo[key]
    keyb = ("f64_b", b_pay)
    if keyb not in ctx.memo:
        ctx.memo[keyb] = [[_shfl64(ctx, b_pay, s) for s in row] for row in b_src]
    b_cols = ctx.memo[keyb]
    outs = []
    for e, c in enumerate(c_regs):
        acc = ctx.fresh("b64")
        c_pay = ctx.embed(Reg(c), "f64")
        for k in range(4):
            ctx.emit(f"mad.lo.u64 {acc}, {a_row[k]}, {b_cols[e][k]}, {c_pay if k == 0 else acc}")
        outs.append(acc)
    for d, v in zip(d_regs, outs):  # after every sum: D may alias C
        ctx.define(Reg(d), v, "f64", None)
