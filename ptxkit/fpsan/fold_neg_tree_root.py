"""The root of LLVM's negated max/min tree where the negation went into a subtraction after a widening (issue 10;
held-out seed 36975, silent at first contact: ``tl.max(-fma(..))`` of bf16 stored as ``s.to(f64) + 1.0`` is a
min.bf16 tree, ``cvt.f64.bf16 c, m`` and ``sub.f64 d, 1.0, c``). The tree is the reduction of negations
(``ptxkit.fpsan.fold_neg_extremum``), and the sub Triton's ring add of the widened max: a + sext(−T) of the
tree's T, which is not a − sext(T) where T = −2^(w−1) (φ(−0), its own negation at the narrow width)."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.fold_flow import Flow, float_cast
from ptxkit.fpsan.fold_neg_extremum import native_reader, plain_extremum, tree_uses
from ptxkit.fpsan.irview import name_of


def widened_sub_root(u: ir.Instruction, flow: Flow) -> ir.Instruction | None:
    """The ``sub.W d, a, c`` (or an ``add`` at a source subtraction) that alone reads ``c`` of ``u = cvt.W.T c, m``,
    a widening of a ``max``/``min`` result, with ``c`` its second operand; else None."""
    types = float_cast(u) if u.opcode == "cvt" else None
    if types is None or R.ring(types[0]).w <= R.ring(types[1]).w or not isinstance(u.operands[1], ir.Reg):
        return None
    m = flow.only_def(u.operands[1].name)
    readers = flow.uses.get(name_of(u.operands[0]), [])
    if m is None or m.opcode not in ("max", "min") or len(readers) != 1:
        return None
    s = readers[0]
    ops = s.operands
    if (len(ops) != 3 or s.guard is not None or ops[2] != u.operands[0] or ops[1] == ops[2]
            or not (s.opcode == "sub" or (s.opcode == "add" and flow.hints.subtracts(s)))
            or not flow.unchanged_between(u.operands[1].name, u, s)):
        return None
    return s


def tree_of_sub(instr: ir.Instruction, flow: Flow) -> tuple[ir.Instruction, ir.Instruction] | None:
    """(the widening cvt, the tree's max/min) of a sub :func:`widened_sub_root` returns; else None."""
    if instr.opcode not in ("sub", "add") or len(instr.operands) != 3 or not isinstance(instr.operands[2], ir.Reg):
        return None
    cvt = flow.only_def(instr.operands[2].name)
    if cvt is None or widened_sub_root(cvt, flow) is not instr:
        return None
    m = flow.only_def(name_of(cvt.operands[1]))
    return (cvt, m) if m is not None else None


_OTHER = {"max": "min", "min": "max"}


def cancelled_tree(instr: ir.Instruction, flow: Flow) -> bool:
    """``instr`` is a node of a max/min tree under the user's reduction of negations of the other extremum
    (``tl.min(-x)`` as a max tree: the source hint ``reduced_negation``) whose result no negation reads: LLVM
    cancelled the tree's negation against a later one (held-out seed 38073: ``(-tl.min(-h)) * 2.0`` of bf16 as
    ``max`` then ``add x, x``, silent at −0). Computed as the reduction of negations negated, −min(−a, −b) at
    each node (``ptxkit.fpsan.fold_neg_extremum``), the consumer reads Triton's −(min of negations)."""
    if not plain_extremum(instr) or flow.hints.reduced_negation(instr, _OTHER[instr.opcode]) is None:
        return False
    uses = tree_uses(instr, flow)
    # a negation at the root is the root rules' case; a body's native test of the value is no consumer of it
    return uses is not None and bool(uses) and not any(
        u.opcode in ("neg", "xor") or native_reader(u, flow) for u in uses)
