"""``tl.clamp(x, -c, c)`` as LLVM writes it: ``min.xorsign.abs.T d, x, c`` — |x| clamped to c, x's sign kept — where
Triton's FPSan clamps in the ring, smin(smax(φ(x), φ(−c)), φ(c)) (issue 10; a model kernel's ``tl.clamp(x, -0.5,
0.5)``, silent at x = −0.0: φ(−0.0) is the ring's least value, clamped to −c, where the bit model keeps −0.0). Decided
by the source's ``tl.clamp`` call at the op's location (PTX ISA §9.7.3.10 ``min``)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, float_to_bits, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult, as_written_reported
from ptxkit.fpsan.folds_narrowed import half_constant
from ptxkit.fpsan.ops import as_reg, float_type_of
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import SourceFile
from ptxkit.fpsan.source_numbers import arm_number, constexpr_param

_TYPES = ("f16", "bf16", "f32", "f64")


def symmetric_clamp(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``min.xorsign.abs.T d, x, c`` at the source's ``tl.clamp(x, -c, c)``: the ring clamp; else None."""
    ft = float_type_of(instr) or ""
    ops = instr.operands
    if (instr.opcode != "min" or "xorsign" not in instr.mods or ft not in _TYPES or len(ops) != 3
            or instr.guard is not None or not isinstance(ops[0], ir.Reg)):
        return None
    consts = [(i, c) for i in (1, 2) if (c := half_constant(flow, ops[i], ft)) is not None]
    if len(consts) != 1 or not isinstance(x := ops[3 - consts[0][0]], ir.Reg) or not consts[0][1] > 0:
        return None
    c = consts[0][1]
    found = flow.hints.nodes(instr)
    calls = [n for n in (found[1] if found else [])
             if _clamp_of(found[0], n, c, ft, flow.hints.call_arguments(instr, found[0], n)[0])] if found else []
    if not calls:
        if found is None:
            return None
        # (Triton lowers tl.clamp(x, -c, c) to this op: a source form not read here is no other ring computation to
        # assume; the bit model of ops.py stands, reported)
        return as_written_reported(instr, ctx, ft, (
            f"min.xorsign.abs.{ft} (Triton's lowering of tl.clamp(x, -c, c)) where the source at its location has no "
            f"tl.clamp of ±{c!r} that this reads: Triton's FPSan clamps in the ring, the bits here are the xorsign "
            "model's"))
    w = R.ring(ft).w
    lo, hi = (hexc(R.embed_int(float_to_bits(v, ft), ft), w) for v in (-c, c))
    t, d = ctx.fresh(BITS_KIND[w]), ctx.fresh(BITS_KIND[w])
    ctx.emit(f"max.s{w} {t}, {as_reg(ctx, ctx.embed(x, ft), w)}, {lo}")
    ctx.emit(f"min.s{w} {d}, {t}, {hi}")
    ctx.define(ops[0], d, ft, None)
    assert found is not None
    return FoldResult(True, Verdict(
        f"min.xorsign.abs.{ft} at the source's tl.clamp at {found[0].where(calls[0])}: LLVM's |x| clamped to {c!r} "
        "with x's sign; Triton's FPSan clamps in the ring, smin(smax(φ(x), φ(−c)), φ(c))", NOTE, native=False))


def _clamp_of(f: SourceFile, n: ast.expr, c: float, ft: str, args: dict[str, ast.expr]) -> bool:
    """``n`` is ``tl.clamp(x, -c, c)`` (the literals as ``ft`` rounds them; names assigned numbers, fp32 scalars, of
    an f32/f64 clamp, and a helper's parameters given literals too: user-style probe, silent at x = −0.0 with ``lo =
    -0.5; hi = 0.5``), or ``tl.clamp(x, -S, S)`` of a ``tl.constexpr`` parameter S (the launch's value, the PTX's)."""
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "clamp"
            and len(n.args) == 3):
        return False
    neg = n.args[1].operand if isinstance(n.args[1], ast.UnaryOp) and isinstance(n.args[1].op, ast.USub) else None
    if neg is not None and constexpr_param(f, n.args[2], args) and ast.dump(neg) == ast.dump(n.args[2]):
        return True
    names = ft in ("f32", "f64")
    lo, hi = arm_number(f, n.args[1], args, names), arm_number(f, n.args[2], args, names)
    return (lo is not None and hi is not None and float_to_bits(hi, ft) == float_to_bits(c, ft)
            and float_to_bits(-lo, ft) == float_to_bits(c, ft))
