"""Two negations around a narrowing that LLVM cancelled (issue 10; held-out seed 82591, silent at first contact in
52 of 64 elements: ``(s.to(bf16) * -1.0)`` of ``s = tl.max(-(a / b))``; custom ``(-(x / y)).to(bf16) * -1.0`` of
halves, 74/128). IEEE negation commutes with the narrowing (PTX ISA §9.7.9.21 cvt), so LLVM drops both and narrows
the value itself; Triton's FPSan negates in the wide ring, narrows with its hash fold, and negates in the narrow
ring (docs/fpsan.md §2), and the fold does not commute with the negation: −narrow(−v) is not narrow(v)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext
from ptxkit.fpsan.fold_flow import MOVES, Flow, FoldResult, float_cast
from ptxkit.fpsan.irview import regs
from ptxkit.fpsan.ops import as_reg, sign_xor_width
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _PTX_DTYPE,
    Decision,
    SourceFile,
    _cast_to,
    _negated,
    _receiver,
    _resolve,
    _without_double_negation,
)


def negated_around_narrowing(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """A narrowing float ``cvt`` with no sign op on either side, where the source at its location negates the cast
    (``x.to(T) * -1.0``, ``-x.to(T)``) of a negated value (``-e``, or a max/min reduction of one); else None."""
    types = float_cast(instr)
    ops = instr.operands
    if types is None or R.ring(types[0]).w >= R.ring(types[1]).w or instr.guard is not None \
            or not isinstance(ops[0], ir.Reg) or not isinstance(ops[1], ir.Reg):
        return None
    if any(sign_op(d) for d in flow.defs.get(ops[1].name, [])) or _negated_after(flow, ops[0].name):
        return None
    want = _PTX_DTYPE.get(types[0])

    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        up = f.parent.get(id(n))
        if _cast_to(n) != want or not isinstance(up, ast.expr) or _negated(up) is not n:
            return None
        r = _without_double_negation(f, _resolve(f, _receiver(n), _DEPTH))
        if r is not None and _negated(r) is None and isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute) \
                and r.func.attr in ("max", "min") and r.args:  # tl.max(e, axis): LLVM's min of the un-negated
            r = _without_double_negation(f, _resolve(f, r.args[0], _DEPTH))
        # (-(-x) is x, in the ring too: held-out seed 133127, tl.max(-(-x)).to(bf16) * -1.0, silent when taken for one)
        return ("both", up) if r is not None and _negated(r) is not None else None
    return flow.hints.decide(instr, classify)


def _negated_after(flow: Flow, reg: str) -> bool:
    """A sign op reads ``reg``, also through the moves that pack it (held-out seed 70246: ``neg.bf16x2`` of two
    narrowed lanes, the negation LLVM kept)."""
    todo, seen = [reg], set[str]()
    while todo and len(seen) < 16:
        r = todo.pop()
        seen.add(r)
        for u in flow.uses.get(r, []):
            if sign_op(u):
                return True
            if u.opcode in MOVES:
                todo += [d for d in regs(u.operands[0]) if d not in seen]
    return False


def sign_op(i: ir.Instruction) -> bool:
    """A ``neg`` or a sign-bit ``xor``."""
    return i.opcode == "neg" or (i.opcode == "xor" and bool(sign_xor_width(i)))


def rewrite_negated_narrowing(instr: ir.Instruction, ctx: RewriteContext, decided: Decision) -> FoldResult:
    """−narrow(−φ(v)): the wide ring's negation, Triton's narrowing, the narrow ring's negation."""
    types = float_cast(instr)
    assert types is not None
    dt, st = types
    wd = R.ring(dt).w
    m = ctx.fresh(BITS_KIND[wd])
    ctx.emit(f"neg.s{wd} {m}, {narrowed_negation(ctx, instr.operands[1], st, dt)}")
    ctx.define(instr.operands[0], m, dt, None)
    return FoldResult(True, Verdict(f"narrowing where the source at {decided.where} negates a narrowed negation: LLVM "
                                    "cancelled the two (IEEE negation commutes with the cvt); sanitized as Triton's "
                                    "wide negation, ring narrowing and narrow negation", NOTE, native=False))


def narrowed_negation(ctx: RewriteContext, x: ir.Operand, st: str, dt: str) -> str:
    """The ``dt`` payload register of Triton's ``(-x).to(dt)``: the ``st`` ring's negation, then its narrowing."""
    ws = R.ring(st).w
    n = ctx.fresh(BITS_KIND[ws])
    ctx.emit(f"neg.s{ws} {n}, {as_reg(ctx, ctx.embed(x, st), ws)}")
    return as_reg(ctx, cast_payload(ctx, n, st, dt), R.ring(dt).w)
