"""``-tl.where(c, x, 0.0)`` (issue 10; docs/fpsan.md §2 neg, §3 "Folds"): LLVM pushes the negation into the select's
arms, ``selp d, -x, -0.0, p``. For a nonzero constant K the arm −K is Triton's ring negation too (φ(−K) = −φ(K)), but
not for a zero: the ring's −φ(+0.0) is 0, +0.0, and −φ(−0.0) is φ(−0.0), −0.0 — each the sign LLVM did not write. A
user-style probe was silent wherever c is false (241/512 elements, every float type). Where the source at the select
negates a where with a zero literal arm (through products with numbers: ``-r * 2.0``), the zero arm is the ring's."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.ctx import RewriteContext, guard_text
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.fold_select_const import _imm_bits
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import _DEPTH, Decision, SourceFile, _method_call, _number, _resolve

_WIDTHS = {"b16": 16, "b32": 32, "b64": 64, "f32": 32, "f64": 64}


def negated_zero_arm(instr: ir.Instruction, flow: Flow) -> tuple[int, Decision] | None:
    """(the operand index of the zero arm, the source's decision: ``+0``/``-0``, the ring's zero there) of
    ``selp.bW d, a, b, p`` with one arm ±0.0, where the source at the select negates (or scales by numbers) a
    ``tl.where`` with a zero literal arm; else None."""
    ops = instr.operands
    w = next((_WIDTHS[m] for m in instr.mods if m in _WIDTHS), 0)
    if instr.opcode != "selp" or len(ops) != 4 or not w:
        return None
    zeros = [i for i in (1, 2) if _zero(ops[i], w)]
    if len(zeros) != 1:
        return None
    decided = flow.hints.decide(instr, _scaled_where_of_zero)
    return (zeros[0], decided) if decided is not None else None


def _zero(o: ir.Operand, w: int) -> bool:
    return _imm_bits(o, w) in (0, 1 << (w - 1))


def _scaled_where_of_zero(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    """``-where(c, a, 0.0)``, ``-r * 2.0`` of ``r = where(..)`` and the like: negations and products with numbers
    of a where with a zero literal arm, at least one negation. The ring's zero there: φ(+0.0) = 0 stays 0 (+0.0);
    φ(−0.0) = −2^(w−1) is its own negation (−0.0), and a product changes it by the number's parity (undecided)."""
    e, negations, scaled = _resolve(f, n, _DEPTH), 0, False
    for _ in range(_DEPTH):
        if e is None:
            return None
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            e, negations = _resolve(f, e.operand, _DEPTH), negations + 1
        elif isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mult) and (
                (k := _number(e.right)) is not None or _number(e.left) is not None):
            k = k if k is not None else _number(e.left)
            negations += k is not None and k < 0
            scaled = scaled or k not in (1.0, -1.0)
            e = _resolve(f, e.left if _number(e.right) is not None else e.right, _DEPTH)
        else:
            break
    if not negations or not _method_call(e, "where", 3):
        return None
    lits = [a for a in e.args[1:3] if _number(a) == 0.0]
    if len(lits) != 1:
        return None
    negative = isinstance(lits[0], ast.UnaryOp) or (isinstance(lits[0], ast.Constant) and str(lits[0].value)[0] == "-")
    if negative and scaled:
        return None
    return ("-0" if negative else "+0"), n


def rewrite_negated_zero_arm(instr: ir.Instruction, ctx: RewriteContext, arm: int, decided: Decision) -> FoldResult:
    """The select with its zero arm set to the ring's zero (the decision's sign)."""
    ops = instr.operands
    w = next(_WIDTHS[m] for m in instr.mods if m in _WIDTHS)
    for o in ops[1:3]:
        if isinstance(o, ir.Reg):
            ctx.read_bits(o.name)  # (an arm a ring op wrote: its float bits, φ⁻¹, before the select reads them)
    texts = [ctx.text(o) for o in ops[1:]]
    texts[arm - 1] = f"0x{(1 << (w - 1)) if decided.form == '-0' else 0:0{w // 4}x}"
    d = name_of(ops[0])
    ctx.invalidate(d)
    ctx.emit(f"{guard_text(instr.guard)}selp.b{w} {d}, {', '.join(texts)}")
    return FoldResult(True, Verdict(f"select of a zero where the source at {decided.where} negates a where of a zero "
                                    "literal: LLVM moved the negation into the arms, where −0.0 (+0.0) is not the ring "
                                    f"negation of the source's zero; the arm is the ring's {decided.form}.0", NOTE,
                                    native=False))
