"""Two negations LLVM cancelled in a product where the source casts one of them (issue 10; held-out seed 36961,
silent at first contact): ``(-x.to(f64)).to(bf16) * (-y).to(bf16)`` is ``mul.bf16 x, y`` in the plain PTX, while
Triton's FPSan narrows each ring negation — the 64-bit negation of φ(−0) = −2^15 sign-extended is no 16-bit one,
and a narrowing's hash does not commute with negation. The PTX has no trace of either, so the product is left as
written and reported. So is ``-((-a) * q)`` of a narrower a that the product promotes (held-out seed 58851): LLVM
cancels the two negations, Triton negates a in its own ring before widening it."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.fold_flow import Flow, widening_def
from ptxkit.fpsan.report import ERROR


def report_cancelled_negations(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> None:
    """Report a ``mul`` (an ``fma``'s product) at a source product of two negations (one under a cast) that reads
    neither negation."""
    if (instr.opcode, len(instr.operands)) not in (("mul", 3), ("fma", 4)):
        return
    for o in instr.operands[1:3]:
        d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
        if d is not None and d.opcode in ("neg", "xor"):
            return
    decided = flow.hints.cancelled_negations(instr, any(widening_def(flow, o) for o in instr.operands[1:3]))
    if decided is not None:
        ctx.report(instr, f"product where the source at {decided.where} multiplies two negations, one under a float "
                   "cast: LLVM cancelled them, while Triton's FPSan casts each ring negation (which does not commute "
                   "with narrowing, nor with widening at φ(−0)); not modelled, sanitized as the product of the "
                   "values", ERROR, False)
