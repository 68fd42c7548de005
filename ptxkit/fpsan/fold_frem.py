"""``x % y`` of floats (Triton's ``arith.remf``, LLVM's ``frem``), which NVPTX expands: ``div.rn q, x, y``, ``cvt.rzi
t, q``, then ``fma.rn r, −t, y, x`` (a constant y: ``fma.rn r, t, −y, x``; a variable one: ``neg`` of t, and a
``testp.infinite y`` select of x after). Triton's FPSan computes the remainder in the ring, E(x) srem (E(y) | 1)
(docs/fpsan.md §2), where the expansion sanitized op by op is a ring division, a trunc hash and a ring fma (issue 10; a
model kernel's ``(..).to(int32).to(f32) % 7.0`` was silent in 190/512, its trunc taken for the int round trip). The
fma becomes the ring remainder where the source's ``%`` is at its location; the infinite-divisor select keeps it."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.ops import TABLE
from ptxkit.fpsan.report import NOTE, Verdict

_TYPES = ("f32", "f64")


def frem_fold(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str) -> FoldResult | None:
    """The ``fma`` that ends an frem expansion at a source ``%``: the ring remainder of the division's operands."""
    found = _expansion(instr, flow, ft)
    if found is None:
        return None
    x, y = found
    compute, _ = TABLE["rem"]
    o = compute(ctx, [ctx.embed(x, ft), ctx.embed(y, ft)], R.ring(ft).w, instr)
    d = instr.operands[0]
    assert isinstance(d, ir.Reg)
    ctx.define(d, o, ft, instr.guard)
    return FoldResult(True, Verdict(f"fma.{ft} ending LLVM's expansion of frem (x % y: div, trunc, x − t·y) at the "
                                    "source's %: Triton's ring remainder E(x) srem (E(y) | 1)", NOTE, native=False))


def _expansion(instr: ir.Instruction, flow: Flow, ft: str) -> tuple[ir.Operand, ir.Operand] | None:
    """(x, y) of ``fma d, m, k, x`` whose product is −trunc(x / y)·y, at a source ``%``; else None."""
    ops = instr.operands
    if instr.opcode != "fma" or ft not in _TYPES or len(ops) != 4 or not isinstance(ops[3], ir.Reg):
        return None
    x = ops[3]
    for m, k in ((ops[1], ops[2]), (ops[2], ops[1])):
        t, neg = _trunc_of(flow, m)
        if t is None:
            continue
        q = flow.only_def(t.operands[1].name) if isinstance(t.operands[1], ir.Reg) else None
        if q is None or q.opcode != "div" or len(q.operands) != 3 or q.guard is not None \
                or not _same(q.operands[1], x):
            continue
        y = q.operands[2]
        if (neg and _same(k, y)) or (not neg and _negated_imm(k, y)):
            return (x, y) if _source_mod(flow, instr) else None
    return None


def _trunc_of(flow: Flow, m: ir.Operand) -> tuple[ir.Instruction | None, bool]:
    """(the ``cvt.rzi.fT.fT`` that ``m`` is, or whose ``neg`` it is; whether negated)."""
    d = flow.only_def(m.name) if isinstance(m, ir.Reg) else None
    neg = d is not None and d.opcode == "neg" and d.guard is None and isinstance(d.operands[1], ir.Reg)
    if neg:
        assert d is not None
        d = flow.only_def(d.operands[1].name)  # type: ignore[union-attr]
    ok = (d is not None and d.opcode == "cvt" and "rzi" in d.mods and d.guard is None and len(d.operands) == 2
          and isinstance(d.operands[1], ir.Reg))
    return (d if ok else None), neg


def _same(a: ir.Operand, b: ir.Operand) -> bool:
    return isinstance(a, ir.Reg) and isinstance(b, ir.Reg) and a.name == b.name


def _negated_imm(k: ir.Operand, y: ir.Operand) -> bool:
    """``k`` is the immediate −y of an immediate y."""
    return (isinstance(k, ir.FloatImm) and isinstance(y, ir.FloatImm) and k.width == y.width
            and k.bits == y.bits ^ (1 << (y.width - 1)))


def _source_mod(flow: Flow, instr: ir.Instruction) -> bool:
    """The source at the fma's location is a ``%`` (a BinOp Mod)."""
    found = flow.hints.nodes(instr)
    return found is not None and any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in found[1])


def frem_select(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str) -> FoldResult | None:
    """``selp d, x, r, p`` of ``p = testp.infinite y`` and an frem expansion's ``r`` of x and y: d = r (the ring
    remainder has no special case; the infinite test reads the float bits φ⁻¹ wrote)."""
    ops = instr.operands
    if instr.opcode != "selp" or len(ops) != 4 or instr.guard is not None or not isinstance(ops[3], ir.Reg) \
            or not isinstance(ops[0], ir.Reg) or not isinstance(ops[2], ir.Reg):
        return None
    p, r = flow.only_def(ops[3].name), flow.only_def(ops[2].name)
    if p is None or p.opcode != "testp" or "infinite" not in p.mods or r is None:
        return None
    found = _expansion(r, flow, ft)
    if found is None or not _same(found[0], ops[1]) or not _same(found[1], p.operands[1]):
        return None
    ctx.emit(f"mov.b{R.ring(ft).w} {ops[0].name}, {ops[2].name}")
    return FoldResult(True, Verdict(f"selp.{ft} of x at an infinite y after an frem expansion: Triton's ring "
                                    "remainder has no such case; the remainder kept", NOTE, native=False), moves=True)
