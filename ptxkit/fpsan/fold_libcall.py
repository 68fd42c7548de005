"""A libdevice function called directly that LLVM lowers to one PTX instruction (``libdevice.sqrt(x)`` as
``sqrt.rn.f32``): Triton's FPSan hashes the call (docs/fpsan.md §2, "other pure math call") where the same
instruction from ``tl.sqrt_rn`` is its tagged op. The source's call at the instruction decides (issue 10)."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.ops import emit_libcall
from ptxkit.fpsan.report import NOTE, Verdict

# the (function, type)s Triton 3.9 hashes as calls, checked with custom kernels; its f32 rsqrt is the math op
_HASHED = {("sqrt", "f32"): "__nv_sqrtf", ("sqrt", "f64"): "__nv_sqrt", ("rsqrt", "f64"): "__nv_rsqrt"}


def direct_libcall(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str) -> FoldResult | None:
    """``sqrt``/``rsqrt`` at a ``libdevice.sqrt(x)``/``libdevice.rsqrt(x)`` call: the call hash of its symbol (a
    custom kernel, ``libdevice.sqrt(x0) + x1``, was silent); else None."""
    symbol = _HASHED.get((instr.opcode, ft))
    ops = instr.operands
    if symbol is None or len(ops) != 2 or not flow.hints.libdevice_call(instr, instr.opcode):
        return None
    o = emit_libcall(ctx, ctx.embed(ops[1], ft), instr.opcode, ft, symbol)
    ctx.define(ops[0], o, ft, instr.guard)
    return FoldResult(True, Verdict(f"{instr.opcode}.{ft} at a libdevice.{instr.opcode} call: Triton's FPSan hashes "
                                    f"the call ({symbol}), not its math op", NOTE, native=False))
