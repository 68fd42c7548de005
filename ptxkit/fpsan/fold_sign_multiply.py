"""``h * tl.where(c, 1.0, -1.0)`` of a half h (issue 10; docs/fpsan.md §2 widening/narrowing casts, neg): the where of
two Python floats is an f32 tensor, so Triton multiplies h widened to f32 and narrows the product at the store. LLVM
turns the product by ±1 into ``select(c, h, -h)`` with a ``neg.f16`` (``neg.bf16``): the 16-bit ring's negation,
which differs from the 32-bit ring's negation of the sign-extended payload, narrowed, at h = −0.0 (φ(−0.0) = −2^15,
whose 32-bit negation 2^15 the narrowing hashes). User-style probe: silent in 2/512 elements (the −0.0 inputs)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.ops import as_reg, float_type_of
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    Decision,
    SourceFile,
    _cast_to,
    _method_call,
    _number,
    _receiver,
    _resolve,
)


def sign_multiplied_half(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """The source's ``h * where(c, ±1.0, ∓1.0)`` at a ``neg.f16``/``neg.bf16``'s location, else None."""
    if instr.opcode != "neg" or float_type_of(instr) not in ("f16", "bf16") or len(instr.operands) != 2 \
            or not isinstance(instr.operands[1], ir.Reg):
        return None
    return flow.hints.decide(instr, _times_sign_where)


def _times_sign_where(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    """The product at the node, or at the value a half cast there narrows (LLVM gives the neg the store's
    ``y.to(f16)`` location)."""
    if _cast_to(n) in ("float16", "bfloat16"):
        r = _resolve(f, _receiver(n), _DEPTH)
        n = r if r is not None else n
    if not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult)):
        return None
    for side in (n.left, n.right):
        w = _resolve(f, side, _DEPTH)
        if _method_call(w, "where", 3) and sorted(_number(a) or 0.0 for a in w.args[1:3]) == [-1.0, 1.0] \
                and all(_number(a) is not None for a in w.args[1:3]):
            return "f32", n
    return None


def rewrite_sign_multiplied_half(instr: ir.Instruction, ctx: RewriteContext, decided: Decision) -> FoldResult:
    """The negation in the 32-bit ring of the half's sign-extended payload, narrowed (Triton's product by φ(−1))."""
    ft = float_type_of(instr) or "f16"
    wide = as_reg(ctx, cast_payload(ctx, ctx.embed(instr.operands[1], ft), ft, "f32"), 32)
    t = ctx.fresh("b32")
    ctx.emit(f"sub.s32 {t}, 0, {wide}")
    ctx.define(instr.operands[0], cast_payload(ctx, t, "f32", ft), ft, instr.guard)
    return FoldResult(True, Verdict(f"neg.{ft} of LLVM's select(c, h, -h) for the source's product with a where of "
                                    f"±1.0 at {decided.where}, an f32 tensor: Triton negates the widened payload in "
                                    "the 32-bit ring and narrows", NOTE, native=False))
