"""``-x.to(T) < x.to(T)`` compared as ``x > c`` (issue 10; held-out seeds 110741, 109988, 110115, reported before):
LLVM folds a comparison of a value with its own negation into a comparison of x with the constant where the
narrowed value changes sign, exact natively. Triton's FPSan narrows φ(x) in the ring, negates there and compares the
two floats φ⁻¹ gives: the comparison is rebuilt so, its sense taken from the source (LLVM may have inverted it for
the select that reads it; PTX ISA "Comparison and Selection Instructions: setp")."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.fold_narrowed_compare import emit_compare
from ptxkit.fpsan.ops import as_reg
from ptxkit.fpsan.report import NOTE, Verdict

_ABOVE = frozenset({"gt", "ge", "gtu", "geu"})
_BELOW = frozenset({"lt", "le", "ltu", "leu"})
_INVERSE = {"lt": "geu", "le": "gtu", "gt": "leu", "ge": "ltu"}  # not (a op b), NaN included


def negation_compared(instr: ir.Instruction, flow: Flow, ft: str) -> tuple[str, int, str, str] | None:
    """(the comparison to emit, the negated side, the type T compared, where) for ``setp.CMP.ft p, x, imm`` (one
    register, one float immediate, an ordered or unordered ``<``/``>`` kind) at a source ``-E OP E``; else None."""
    ops = instr.operands
    if (instr.opcode != "setp" or len(ops) != 3 or ft not in ("f16", "bf16", "f32", "f64") or instr.guard is not None
            or not isinstance(ops[1], ir.Reg) or not isinstance(ops[2], ir.FloatImm)):
        return None
    ptx = next((m for m in instr.mods if m in _ABOVE | _BELOW), None)
    decided = flow.hints.compared_with_negation(instr, R.ring(ft).w) if ptx is not None else None
    if decided is None:
        return None
    op, k, t = decided.form.split(":")
    # true for the larger x (-a < a: a > 0) or the smaller: LLVM's x CMP c keeps that sense or inverts it
    above = (op in ("lt", "le")) == (k == "0")
    return (op if above == (ptx in _ABOVE) else _INVERSE[op]), int(k), t or ft, decided.where


def rewrite_negation_compare(instr: ir.Instruction, ctx: RewriteContext, ft: str, cmp: str, k: int, t: str,
                             where: str) -> FoldResult:
    """``setp`` of the ring narrowing a of φ(x) to ``t`` and its ring negation −a (their float bits), in the source's
    order."""
    w = R.ring(t).w
    a = as_reg(ctx, cast_payload(ctx, ctx.embed(instr.operands[1], ft), ft, t), w)
    n = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"neg.s{w} {n}, {a}")
    sides = [ctx.unembed_to_fresh(n, t), ctx.unembed_to_fresh(a, t)]
    left, right = sides if k == 0 else sides[::-1]
    emit_compare(instr, ctx, cmp, t, left, right)
    return FoldResult(True, Verdict(f"setp.{ft} of a value and a constant where the source at {where} compares a "
                                    f"{'narrowing' if t != ft else 'value'} with its negation: LLVM folds the two "
                                    "into x against the constant where the sign changes; sanitized as Triton's "
                                    "comparison of the ring value with its ring negation", NOTE, native=False))
