"""``fma d, a, b, -0.0``: a product LLVM's lowering writes as an fma (issue 10; held-out seed 36627, silent at first
contact: ``x0.to(bf16) * x1.to(bf16)`` vectorized as ``fma.rn.bf16x2 t, x1, x0, {-0.0, -0.0}``, and custom kernels:
``fma.rn.bf16x2 t, x, {1.0, 1.0}, {-0.0, -0.0}``, an identity, before widening x for a division). Natively it is
a·b bit for bit (−0.0 is the additive identity, signed zeros included); Triton's FPSan instrumented the product
(φ(a)·φ(b)), while the ring fma would add φ(−0) = 2^(w−1). Rewritten as the ``mul`` it is, through the same folds a
written ``mul`` takes, unless the source calls ``tl.fma`` there."""

from __future__ import annotations

import ast
from collections.abc import Callable

from ptxkit import ir
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.dispatch import rewrite_instruction
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.options import Options
from ptxkit.fpsan.report import NOTE, Verdict

_HALVES = ("f16", "bf16", "f16x2", "bf16x2")  # (f32/f64 products are mul.f32/.f64: LLVM lowers only halves so)


def _bits(flow: Flow, o: ir.Operand) -> int | None:
    """The bits of an immediate operand, or of the one unguarded ``mov`` of one that writes the register."""
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    if d is not None and d.opcode == "mov" and len(d.operands) == 2 and d.guard is None:
        o = d.operands[1]
    if isinstance(o, ir.FloatImm):
        return o.bits
    return o.value if isinstance(o, ir.Imm) else None


def _negative_zero(flow: Flow, o: ir.Operand, ft: str) -> bool:
    """``o`` is −0.0 of the half type ``ft`` (packed: in both lanes)."""
    got = _bits(flow, o)
    return got is not None and not isinstance(o, ir.FloatImm) and (
        got % (1 << 32) == 0x80008000 if ft.endswith("x2") else got % (1 << 16) == 0x8000)


def product_fma(instr: ir.Instruction, flow: Flow, ft: str) -> bool:
    """``fma d, a, b, -0.0`` (packed: both lanes −0.0) that is no ``tl.fma`` of the source."""
    ops = instr.operands
    if (instr.opcode not in ("fma", "mad") or ft not in _HALVES or len(ops) != 4 or instr.guard is not None
            or not _negative_zero(flow, ops[3], ft)):
        return False
    found = flow.hints.nodes(instr)
    return not (found is not None and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                                          and n.func.attr == "fma" for n in found[1]))


Fold = Callable[[ir.Instruction, RewriteContext, Options, Flow], FoldResult | None]


def rewrite_as(instr: ir.Instruction, opcode: str, mods: tuple[str, ...], operands: tuple[ir.Operand, ...],
               ctx: RewriteContext, opts: Options, flow: Flow, fold: Fold, note: Verdict) -> FoldResult:
    """``instr`` rewritten as ``opcode.mods operands``: by ``fold`` (the folds a written one takes), else the ring
    op; changed in place for it (its location and dataflow stay its own), ``note`` where the fold gives none."""
    saved = instr.opcode, instr.mods, instr.operands
    instr.opcode, instr.mods, instr.operands = opcode, mods, operands
    try:
        got = fold(instr, ctx, opts, flow)
        if got is None:
            done = rewrite_instruction(instr, ctx, opts.atomics)
            got = FoldResult(done is True, done if isinstance(done, Verdict) else Verdict(done) if isinstance(
                done, str) else None)
    finally:
        instr.opcode, instr.mods, instr.operands = saved
    return FoldResult(got.done, got.verdict if got.verdict is not None else note if got.done else None)


def as_product(instr: ir.Instruction, ctx: RewriteContext, opts: Options, flow: Flow, fold: Fold) -> FoldResult:
    """``instr`` rewritten as ``mul d, a, b`` (:func:`rewrite_as`)."""
    note = Verdict(f"fma.{instr.mods[-1]} a, b, -0.0: LLVM's lowering of a product (natively a·b, bit for bit); "
                   "sanitized as the ring product Triton's FPSan computes", NOTE, native=False)
    return rewrite_as(instr, "mul", instr.mods, instr.operands[:3], ctx, opts, flow, fold, note)
