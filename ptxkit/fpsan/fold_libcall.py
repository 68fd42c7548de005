"""A libdevice function called directly that LLVM lowers to one PTX instruction (``libdevice.sqrt(x)`` as
``sqrt.rn.f32``): Triton's FPSan hashes the call (docs/fpsan.md §2, "other pure math call") where the same
instruction from ``tl.sqrt_rn`` is its tagged op. The source's call at the instruction decides (issue 10)."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.libdevice_emit import emit_call
from ptxkit.fpsan.libdevice_match import LIBDEVICE_OPS
from ptxkit.fpsan.ops import emit_libcall, float_type_of
from ptxkit.fpsan.report import ERROR, NOTE, Verdict

# the (function, type)s Triton 3.9 hashes as calls, checked with custom kernels; its f32 rsqrt is the math op
HASHED_CALLS = {("sqrt", "f32"): "__nv_sqrtf", ("sqrt", "f64"): "__nv_sqrt", ("rsqrt", "f64"): "__nv_rsqrt",
           ("copysign", "f32"): "__nv_copysignf", ("copysign", "f64"): "__nv_copysign"}


def direct_libcall(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str) -> FoldResult | None:
    """``sqrt``/``rsqrt``/``copysign`` at a ``libdevice.sqrt(x)`` (…) call: the call hash of its symbol (custom
    kernels, ``libdevice.sqrt(x0) + x1``, ``libdevice.copysign(x0, x1) + x1``, were silent); else None.
    ``copysign.fT d, a, b`` is ``libdevice.copysign(b, a)``: the magnitude's operand comes last in PTX."""
    ops = instr.operands
    call = flow.hints.libdevice_call(instr, instr.opcode) if (instr.opcode, ft) in HASHED_CALLS else None
    if call is None or len(ops) != (3 if instr.opcode == "copysign" else 2):
        return None
    # (of arguments widened to W, the call at W, narrowed: LLVM's copysign(x.to(f64), y.to(f64)).to(f32) is the f32
    # op; hand kernel, silent in 100/128)
    wt = call.form.partition(":")[2] if instr.opcode == "copysign" else ""
    at = wt if wt and R.ring(wt).w > R.ring(ft).w else ft
    symbol, w = HASHED_CALLS[(instr.opcode, at)], R.ring(at).w
    args = [cast_payload(ctx, ctx.embed(o, ft), ft, at) if at != ft else ctx.embed(o, ft) for o in ops[1:][::-1]]
    if instr.opcode == "copysign":
        o = emit_call(ctx, args, symbol, w)
    else:
        o = emit_libcall(ctx, args[0], instr.opcode, ft, symbol)
    ctx.define(ops[0], cast_payload(ctx, o, at, ft) if at != ft else o, ft, instr.guard)
    how = f" of arguments widened to {at}, narrowed back" if at != ft else ""
    return FoldResult(True, Verdict(f"{instr.opcode}.{ft} at a libdevice.{instr.opcode} call{how}: Triton's FPSan "
                                    f"hashes the call ({symbol}), not its math op", NOTE, native=False))


# libdevice functions whose lowering this package checked against Triton 3.9 (recognised bodies, the instructions
# above, and the f32 calls Triton makes its math ops); another one called directly is hashed by Triton's FPSan as a
# call, which its lowered instructions sanitized one by one are not (custom kernels: add_rn, mul_rn, rcp_rn,
# saturatef, nearbyint, fdim, abs were silent)
_BODIES = frozenset(k.removesuffix("f") for k in LIBDEVICE_OPS) | frozenset(LIBDEVICE_OPS)
_CHECKED = frozenset({"floor", "ceil", "trunc", "rint", "round", "sqrt", "rsqrt", "copysign", "fma", "div_rn",
                      "sqrt_rn", "fast_expf", "isnan", "isinf", "exp", "exp2", "log", "log2", "sin", "cos", "erf"})
# checked for f32 only: libdevice.sqrt_rn / div_rn of f64 (sqrt.rn.f64, div.rn.f64) are hashed by Triton too, which the
# f64 op rules are not (model-kernel probes, silent in 480/512)
_CHECKED_F32 = frozenset({"div_rn", "sqrt_rn"})


def unmodelled_libcall(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> None:
    """Report a float instruction at a direct ``libdevice.NAME(...)`` call this package has not checked (nor
    recognises the inlined body of): Triton hashes that call."""
    name = flow.hints.libdevice_call_name(instr)
    f32_only = name in _CHECKED_F32 and float_type_of(instr) != "f32"
    if name is not None and (name not in _CHECKED or f32_only) and name not in _BODIES:
        ctx.report(instr, f"{instr.opcode} lowered from a direct libdevice.{name} call: Triton's FPSan hashes the "
                   f"call (__nv_{name}), which these instructions sanitized one by one are not; not modelled", ERROR,
                   False)
