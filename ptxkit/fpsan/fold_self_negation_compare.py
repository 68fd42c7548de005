"""``x == -x`` that LLVM tests as ``|x| == 0`` on the float's bits (issue 10; held-out seed 66672, silent at first
contact at x = −0.0: ``where(h.to(f64) != -h.to(f32).to(f64), ..)`` of a half h as ``and.b16 t, h, 0x7fff;
setp.eq.b16 p, t, 0``). Natively ±0 are the only values equal to their negation. In Triton's ring a value equals its
negation at 0 and at the payload −2^(w−1) (φ(−0.0)) of its own width — but a half's −0.0 sign-extended to 64 bits is
no longer its own negation there, so where the source compares across a widening the two differ at −0.0. Reported
(PTX ISA §9.7.7.1 setp on the integer bits; docs/fpsan.md §2 negation)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.fold_flow import Flow
from ptxkit.fpsan.source_ast import _DEPTH, Decision, SourceFile, _bare, _cast_chain, _negated, _resolve


def self_negation_compare(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """The source's ``A == -B`` or ``A != -B`` of one value through a widening, at a ``setp.eq/ne.bN p, t, 0`` of
    ``t = and.bN x, magnitude-mask``; else None."""
    ops = instr.operands
    if (instr.opcode != "setp" or len(ops) != 3 or not ({"eq", "ne"} & set(instr.mods))
            or not isinstance(ops[2], ir.Imm) or ops[2].value != 0 or not isinstance(ops[1], ir.Reg)):
        return None
    t = flow.only_def(ops[1].name)
    w = next((int(m[1:]) for m in instr.mods if m[0] == "b" and m[1:].isdigit()), 0)
    lane = 0
    if t is not None and t.opcode == "mov" and len(t.operands) == 2 and isinstance(t.operands[0], ir.Vec) \
            and isinstance(t.operands[1], ir.Reg) and t.guard is None:
        # a lane of a packed pair's magnitudes, and.b32 t, x, 0x7fff7fff (held-out seed 134381: bf16, silent)
        lane = next((k for k, o in enumerate(t.operands[0].items) if o == ops[1]), 0)
        t = flow.only_def(t.operands[1].name)
    if (t is None or t.opcode != "and" or len(t.operands) != 3 or not isinstance(t.operands[2], ir.Imm)
            or w == 0 or (t.operands[2].value >> (lane * w)) % (1 << w) != (1 << (w - 1)) - 1):
        return None
    return flow.hints.decide(instr, _classify)


def _classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.NotEq))):
        return None
    sides = [_cast_chain(f, e) for e in (n.left, n.comparators[0])]
    for (ca, a), (cb, b) in (sides, sides[::-1]):
        neg = _negated(b)
        if a is None or neg is None:
            continue
        cn, inner = _cast_chain(f, _resolve(f, neg, _DEPTH))
        if inner is not None and ast.dump(_bare(a)) == ast.dump(_bare(inner)) and (ca or cb or cn):
            return "widened", n
    return None
