"""Fold R: ``x.to(intN).to(fT)`` read only by comparisons, split by a libdevice body (issue 10; held-out
seed 11450, silent before).

LLVM's DAG combine rewrites ``sitofp(fptosi x)`` (``uitofp(fptoui x)``) of one float type into ``ftrunc x``
when every user of the result ignores the sign of zero — an ``fcmp`` — and the pair and its users sit in
the one basic block the combine sees (CodeGenPrepare first sinks each ``fcmp`` into the block of the select
that reads it). In the plain build an inlined libdevice body between them splits that block, so
``cvt.rzi.sN.fT`` / ``cvt.rn.fT.sN`` stay; in Triton's FPSan build the body is one straight-line ring op,
the block is whole and the pair becomes ``cvt.rzi.fT.fT`` of the float bits φ⁻¹ wrote — which differs from
the pair wherever those bits are out of the integer's range, i.e. almost everywhere. Only the ring sin/cos
(a square-and-multiply loop) or the kernel's own control flow still split the FPSan build. A half's pair is not
folded there: Triton's FPSan converts the half to the integer through its f32 widening, so ``fptosi`` reads an f32
and ``sitofp`` writes the half — two types, no ``ftrunc`` (held-out seed 157106, silent at first contact: 258/512).
"""

from __future__ import annotations

import networkx as nx

from ptxkit import ir
from ptxkit.fpsan.ctx import RewriteContext, guard_text
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.ptx.types import SIGNED_TYPES, UNSIGNED_TYPES

_INTS = SIGNED_TYPES | UNSIGNED_TYPES
_FLOATS = ("f16", "bf16", "f32", "f64")


def _types(instr: ir.Instruction) -> list[str]:
    return [m for m in instr.mods if m in _INTS or m in _FLOATS]


def _same_value(flow: Flow, reg: str, first: ir.Instruction, last: ir.Instruction) -> bool:
    """``reg`` holds at ``last`` the value it had at ``first``: :meth:`Flow.same_value`, or its one definition
    precedes ``first`` and no path from ``first`` runs it again (the out-of-line blocks LLVM lays after the
    ``ret`` branch back into the function, which :meth:`Flow.same_value` takes for a loop)."""
    if flow.same_value(reg, first, last):
        return True
    d = flow.only_def(reg)
    if d is None or any(s.opcode == "brx" for s in flow.order) or not flow.pos[id(d)] < flow.pos[id(first)]:
        return False
    return not nx.has_path(flow.graph, flow.stmt_pos[id(first)], flow.stmt_pos[id(d)])


def compared_round_trip(instr: ir.Instruction, flow: Flow) -> ir.Instruction | None:
    """The ``cvt.rzi`` (fptosi) where ``instr`` is the ``cvt.rn.fT.{s,u}N`` of such a pair that Triton's FPSan
    build folds into a trunc; else None."""
    ops, types = instr.operands, _types(instr)
    if (instr.opcode != "cvt" or len(ops) != 2 or len(types) != 2 or types[0] not in _FLOATS
            or types[1] not in _INTS or not isinstance(ops[0], ir.Reg) or not isinstance(ops[1], ir.Reg)):
        return None
    rzi = flow.only_def(ops[1].name)
    if (rzi is None or rzi.opcode != "cvt" or "rzi" not in rzi.mods or _types(rzi) != [types[1], types[0]]
            or len(rzi.operands) != 2 or not isinstance(rzi.operands[1], ir.Reg)
            or not _same_value(flow, rzi.operands[1].name, rzi, instr)):
        return None
    if types[0] in ("f16", "bf16"):
        return None  # Triton's FPSan converts a half to an integer through f32: no pair of one type to fold (157106)
    readers = flow.uses.get(ops[0].name, [])
    if not readers or any(u.opcode != "setp" for u in readers):
        return None
    a = flow.pos[id(rzi)]
    b = max(flow.pos[id(u)] for u in readers)
    if not a < flow.pos[id(instr)] <= b:
        return None
    # with no label between, the plain build would have folded too: something else kept the pair
    return rzi if any(a < p <= b for p in flow.labels) and one_block_in_fpsan(flow, a, b) else None


def one_block_in_fpsan(flow: Flow, a: int, b: int) -> bool:
    """The statements at positions ``a``..``b`` share one basic block in Triton's FPSan build, where LLVM's DAG
    combine sees them together: each label between belongs to an inlined libdevice body (inside it or at its exit),
    one straight-line ring op there, and no ring sin/cos loop or loop of the kernel's own runs between."""
    def body_line(p: int) -> bool:
        s = flow.order[p] if 0 <= p < len(flow.order) else None
        return s is not None and s.span is not None and s.span.line in flow.native

    if not all(body_line(p - 1) or body_line(p) for p in flow.labels if a < p <= b):
        return False
    return not any(s.opcode in ("sin", "cos") or (s.span is not None and s.span.line in flow.loops)
                   for s in flow.order[a:b + 1])


def same_value_in_fpsan_block(flow: Flow, reg: str, first: ir.Instruction, last: ir.Instruction,
                              readers: list[ir.Instruction]) -> bool:
    """``reg`` holds at ``last`` the value it had at ``first``, and ``first``, ``last`` and ``readers`` share one
    basic block in Triton's FPSan build (:func:`one_block_in_fpsan`)."""
    a = flow.pos[id(first)]
    b = max([flow.pos[id(last)], *(flow.pos[id(u)] for u in readers)])
    return _same_value(flow, reg, first, last) and one_block_in_fpsan(flow, a, b)


def trunc_of_round_trip(instr: ir.Instruction, rzi: ir.Instruction, ctx: RewriteContext) -> FoldResult:
    """Fold R: ``d`` = ``cvt.rzi.fT.fT`` of x's float bits, as Triton's FPSan build computes it."""
    ft = _types(instr)[0]
    x, dst = name_of(rzi.operands[1]), name_of(instr.operands[0])
    ctx.read_bits(x)
    ctx.invalidate(dst)
    ctx.emit(f"{guard_text(instr.guard)}cvt.rzi.{ft}.{ft} {dst}, {x}")
    return FoldResult(True, Verdict(
        f"x.to(int).to({ft}) read only by comparisons, kept as two conversions because an inlined libdevice "
        "body splits the plain build's basic block: in Triton's FPSan build the body is one ring op, and LLVM "
        "folds the pair into a trunc (a comparison ignores the sign of zero, an out-of-range conversion is "
        "poison); sanitized as that trunc",
        NOTE, native=False))


def compared_with_ring_constant(instr: ir.Instruction, flow: Flow) -> bool:
    """Every comparison reading ``instr``'s result compares it with a value that is a constant in the ring though not
    natively — ``x - x`` (φ(x) − φ(x) = 0) or ``x * 0.0`` (φ(0)·φ(x) = 0): in Triton's FPSan build LLVM folds that
    integer arithmetic to a constant and then ``fcmp(sitofp i, C)`` into an integer comparison, before any DAG
    combine could make ``sitofp(fptosi x)`` a trunc; the comparison keeps ``fptosi``'s saturation and its NaN (0, or
    the destination's INT_MIN on the 64-bit paths) (held-out seed 105660: ``h.to(int64).to(f32) < (d - d)``, silent
    where the ring widening of h is a NaN)."""
    readers = sign_blind_compares(flow, instr)

    def ring_zero(v: ir.Operand) -> bool:
        d = flow.only_def(v.name) if isinstance(v, ir.Reg) else None
        if d is None or len(d.operands) != 3 or not any(m in _FLOATS for m in d.mods):
            return False
        a, b = d.operands[1:]
        return (d.opcode == "sub" and a == b) or (d.opcode == "mul" and any(
            isinstance(c, ir.FloatImm) and c.bits << 1 == 0 for c in (a, b)))  # (±0.0)
    return readers is not None and all(any(ring_zero(o) for o in u.operands[1:] if o != v) for u, v in readers)


def sign_blind_compares(flow: Flow, instr: ir.Instruction) -> list[tuple[ir.Instruction, ir.Operand]] | None:
    """The comparisons that read ``instr``'s float result, each with the operand it reads — directly or through one
    ``abs`` of that type read only by comparisons —, where nothing else reads it; else None. These are the users
    LLVM's DAG combine takes as blind to the sign of zero when it folds ``sitofp(fptosi x)`` into ``ftrunc x`` (an
    ``fcmp``; an ``fabs``, which clears the sign anyway: held-out seed 209470, ``abs(h.to(int64).to(f32)) >=
    abs(y)``, silent at first contact). An ``abs`` read by anything else is an integer mask on the ring payload in
    Triton's build, which the combine does not see through."""
    dst = instr.operands[0]
    readers = flow.uses.get(name_of(dst), [])
    found: list[tuple[ir.Instruction, ir.Operand]] = []
    for u in readers:
        if u.opcode == "setp":
            found.append((u, dst))
            continue
        if u.opcode != "abs" or not set(_types(u)) <= set(_types(instr)) or not isinstance(u.operands[0], ir.Reg):
            return None
        outer = flow.uses.get(u.operands[0].name, [])
        if not outer or any(w.opcode != "setp" for w in outer):
            return None
        found += [(w, u.operands[0]) for w in outer]
    return found or None
