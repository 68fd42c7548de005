"""A libdevice function called directly that LLVM lowers to one PTX instruction (``libdevice.sqrt(x)`` as
``sqrt.rn.f32``): Triton's FPSan hashes the call (docs/fpsan.md §2, "other pure math call") where the same
instruction from ``tl.sqrt_rn`` is its tagged op. The source's call at the instruction decides (issue 10)."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.libdevice_emit import emit_call
from ptxkit.fpsan.ops import emit_libcall
from ptxkit.fpsan.report import NOTE, Verdict

# the (function, type)s Triton 3.9 hashes as calls, checked with custom kernels; its f32 rsqrt is the math op
_HASHED = {("sqrt", "f32"): "__nv_sqrtf", ("sqrt", "f64"): "__nv_sqrt", ("rsqrt", "f64"): "__nv_rsqrt",
           ("copysign", "f32"): "__nv_copysignf", ("copysign", "f64"): "__nv_copysign"}


def direct_libcall(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str) -> FoldResult | None:
    """``sqrt``/``rsqrt``/``copysign`` at a ``libdevice.sqrt(x)`` (…) call: the call hash of its symbol (custom
    kernels, ``libdevice.sqrt(x0) + x1``, ``libdevice.copysign(x0, x1) + x1``, were silent); else None.
    ``copysign.fT d, a, b`` is ``libdevice.copysign(b, a)``: the magnitude's operand comes last in PTX."""
    symbol = _HASHED.get((instr.opcode, ft))
    ops = instr.operands
    if (symbol is None or len(ops) != (3 if instr.opcode == "copysign" else 2)
            or not flow.hints.libdevice_call(instr, instr.opcode)):
        return None
    if instr.opcode == "copysign":
        w = R.ring(ft).w
        o = emit_call(ctx, [ctx.embed(ops[2], ft), ctx.embed(ops[1], ft)], symbol, w)
    else:
        o = emit_libcall(ctx, ctx.embed(ops[1], ft), instr.opcode, ft, symbol)
    ctx.define(ops[0], o, ft, instr.guard)
    return FoldResult(True, Verdict(f"{instr.opcode}.{ft} at a libdevice.{instr.opcode} call: Triton's FPSan hashes "
                                    f"the call ({symbol}), not its math op", NOTE, native=False))
