"""A constant LLVM folded from a source expression of constants that Triton's FPSan computes in part in the ring
(issue 10; statement seed 2147, silent: ``tl.minimum(c.to(tl.float16), c.to(tl.float32))`` of ``c = 0.79788`` is
``mov.b32 r, 0f3F4C4000``). MLIR folds constant arithmetic and exact casts, but not an inexact cast: from there on
Triton's FPSan computes the rest per element in the ring (the min of the sign-extended ring narrowing and φ(c)), which
the IEEE constant is not. The largest constant parts of the source at the mov's readers whose native value is the
immediate give the ring's bits (:mod:`source_ring_eval`; docs/fpsan.md §2)."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import RewriteContext, float_to_bits, guard_text, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.fold_named_literal import _positions
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import _method_call
from ptxkit.fpsan.source_ring_eval import Value, constant_parts


def constant_expression(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``mov.bN r, imm`` whose every reader sits at source (a store: its value) with a largest constant part of
    width N, computed in part by the ring, whose native value is ``imm``, all of one ring value: the mov of those bits;
    None otherwise."""
    ops = instr.operands
    width = next((int(m[1:]) for m in instr.mods if m[0] == "b" and m[1:].isdigit()), 0)
    if (instr.opcode != "mov" or len(ops) != 2 or not isinstance(ops[0], ir.Reg) or instr.guard is not None
            or not isinstance(ops[1], (ir.Imm, ir.FloatImm)) or width not in (16, 32, 64)
            or flow.only_def(ops[0].name) is not instr):
        return None
    imm = ops[1].bits if isinstance(ops[1], ir.FloatImm) else ops[1].value % (1 << width)
    readers = flow.uses.get(ops[0].name, [])
    if any(r.span is not None and r.span.line in flow.ranges for r in [instr, *readers]):
        return None  # (a recognised libdevice body's own constant)
    found: set[int] = set()
    where = ""
    covers: set[tuple[str, int, int]] = set()
    memo: dict[int, Value | None] = {}  # (a lane's copies of one source expression: evaluated once)
    for reader in readers:
        at = flow.hints.nodes(reader) if reader.opcode == "st" else flow.hints.nodes_or_line(reader)
        if at is None:
            return None
        f, nodes = at
        roots = [n.args[1] for n in nodes if _method_call(n, "store", 2)] if reader.opcode == "st" else nodes
        parts = [(e, v) for r in roots for e, v in constant_parts(f, r, memo=memo)
                 if v.ring and R.ring(v.t).w == width and float_to_bits(v.native, v.t) == imm]
        if not parts:
            return None  # (a reader of no such part: the constant may be another value's too)
        found |= {v.bits for _, v in parts}
        where = where or f.where(parts[0][0])
        covers |= _positions(f, [e for e, _ in parts])
    if len(found) != 1 or (bits := found.pop()) == imm:
        return None
    if (ft := ctx.resident.get(ops[0].name)) is not None:  # (a register that holds its payload: φ of the bits)
        if ft not in ("f16", "bf16", "f32", "f64") or R.ring(ft).w != width:
            return None
        bits = R.embed_int(bits, ft)
    ctx.emit(f"{guard_text(instr.guard)}mov.b{width} {ctx.text(ops[0])}, {hexc(bits, width)}")
    return FoldResult(True, Verdict(
        f"constant LLVM folded from the constant expression at {where}, which Triton's FPSan computes in the ring from "
        "its first inexact cast on (or from a where of literals); sanitized with the ring's bits", NOTE, native=False,
        covers=frozenset(covers)), moves=True)
