"""A zero test of a widened value that LLVM made a test of the narrow value's magnitude bits (user-style probes, silent
at x = −0.0: ``tl.where(h.to(f32) == 0.0, 1.0, h)`` of an f16 h, ``x.to(f64) != 0.0`` of an f32 x, ``h == z`` of a name
``z = 0.0``, an fp32 scalar): ``fcmp oeq (fpext x), 0.0`` is ``(bits(x) & 0x7FFF…) == 0``, exact natively.

Triton's FPSan compares the float bits of the ring widening, sext φ_T(x), with 0.0 (docs/fpsan.md §2 casts;
comparisons native): zero only for φ_T(x) = 0, x = +0.0, since φ_T(−0.0) = −2^(T−1) widens to no φ_W(±0.0). Where
the source's comparison at the op's location is such a widened test, the magnitude ``and`` keeps the sign bits, so the
native test is ``bits(x) == 0`` (PTX ISA §9.7.8.3 ``and``, §9.7.8.6 ``setp``)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.ctx import RewriteContext, guard_text
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.ops import sign_mask_lanes
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import _DEPTH, SourceFile, _number, _resolve, _width


def widened_zero_test(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``and.bN d, x, ~signs`` read only by ``setp.eq/ne`` with 0 (directly, or lane by lane after an unpacking
    ``mov``) at the source's ``E == 0.0``/``!=`` of an E wider than the lanes: ``d = x``; None otherwise."""
    lanes = sign_mask_lanes(instr)
    ops = instr.operands
    if instr.opcode != "and" or lanes is None or instr.guard is not None or not isinstance(ops[0], ir.Reg):
        return None
    if not _zero_tests_only(flow, ops[0].name):
        return None
    lane = lanes[1]
    decided = flow.hints.decide(instr, lambda f, n: _classify(f, n, lane))
    if decided is None or decided.form != "wider":
        return None
    x = next(o for o in ops[1:] if isinstance(o, ir.Reg))
    ctx.emit(f"{guard_text(instr.guard)}mov.b{lanes[0]} {ctx.text(ops[0])}, {ctx.text(x)}")
    return FoldResult(True, Verdict(
        f"magnitude test of a value the source at {decided.where} compares with zero at a wider type: LLVM tests "
        "|x| == 0 at the narrow type, Triton's FPSan compares the ring widening, zero for +0.0 only; tested so",
        NOTE, native=False))


def _zero_tests_only(flow: Flow, reg: str) -> bool:
    """Every reader of ``reg`` is ``setp.eq/ne`` of it and 0, or a ``mov`` unpacking it into lanes read so."""
    uses = flow.uses.get(reg, [])
    if not uses:
        return False
    for u in uses:
        if u.opcode == "mov" and len(u.operands) == 2 and isinstance(u.operands[0], ir.Vec):
            if not all(isinstance(e, ir.Reg) and all(_zero_test(v, e.name) for v in flow.uses.get(e.name, []))
                       and flow.uses.get(e.name) for e in u.operands[0].items):
                return False
        elif not _zero_test(u, reg):
            return False
    return True


def _zero_test(u: ir.Instruction, reg: str) -> bool:
    ops = u.operands
    return (u.opcode == "setp" and u.guard is None and len(ops) == 3 and any(m in ("eq", "ne") for m in u.mods)
            and any(m.startswith("b") or m.startswith("s") or m.startswith("u") for m in u.mods)
            and {type(o) for o in ops[1:]} == {ir.Reg, ir.Imm}
            and any(isinstance(o, ir.Reg) and o.name == reg for o in ops[1:])
            and any(isinstance(o, ir.Imm) and o.value == 0 for o in ops[1:]))


def _classify(f: SourceFile, n: ast.expr, lane: int) -> tuple[str, ast.expr] | None:
    """``wider`` of ``E == 0.0``/``E != 0.0`` (either side) whose comparison is at a type wider than ``lane`` bits
    (a cast of E, or a name assigned the zero, an fp32 scalar, beside a half), ``same`` of one at the lane's type."""
    if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.NotEq))):
        return None
    sides = (n.left, n.comparators[0])
    widths = [_width(f, s, _DEPTH) for s in sides]
    if not any(_number(s) == 0.0 or (isinstance(s, ast.Name) and (r := _resolve(f, s, _DEPTH)) is not None
                                      and _number(r) == 0.0) for s in sides):
        return None
    if any(w is None for w in widths):
        return None
    return ("wider" if max(w for w in widths if w is not None) > lane else "same"), n
