"""The max/min tree under LLVM's ``min(−a, −b)`` → ``−max(a, b)`` (issue 10; docs/fpsan.md §3 "Folds"; held-out
seeds 883, 14282, 14470: ``tl.min(-x)`` reduced as a max tree whose result is negated once, at each shuffle step).

Triton's FPSan takes the ring min of the ring negations. The ring's negation is exact (0 − p), but the ring max of
the un-negated payloads is not the negation of that min where a payload is φ(−0) = −2^(w−1), its own negation. So
where the source negates the operands (the hint's ``moved``), each max (min) of the tree is computed as
``−min(−a, −b)`` (``−max(−a, −b)``): then the negation LLVM left at the tree's root, −(−min(−a, −b)), is Triton's min
of the negations at every node, −0 included. Nodes are followed through bit moves and shuffles."""

from __future__ import annotations

import ast
from collections.abc import Callable

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext
from ptxkit.fpsan.fold_flow import MOVES, Flow, FoldResult
from ptxkit.fpsan.irview import regs
from ptxkit.fpsan.ops import LANE_TYPE, TABLE, OpInfo, as_reg, elementwise, float_type_of, sign_xor_width
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import _DEPTH as _AST_DEPTH
from ptxkit.fpsan.source_ast import Decision, SourceFile, _negated, _resolve

OTHER = {"max": "min", "min": "max"}
_DEPTH = 64


def tree_uses(instr: ir.Instruction, flow: Flow) -> list[ir.Instruction] | None:
    """The instructions outside ``instr``'s tree that read it: the tree is ``instr`` and the nodes of its own kind
    and bit moves (shuffles) its values reach; None where the walk's bound cut it."""
    todo, seen, out = list(regs(instr.operands[0])), set[str](), list[ir.Instruction]()
    while todo and len(seen) < _DEPTH:
        r = todo.pop()
        if r in seen:
            continue
        seen.add(r)
        for u in flow.uses.get(r, []):
            if (u.opcode == instr.opcode and u.mods == instr.mods) or u.opcode in MOVES:
                todo += regs(u.operands[0])  # (a mov's destination may be a vector: {_, hi})
            else:
                out.append(u)
    return None if todo else out


def plain_extremum(instr: ir.Instruction) -> bool:
    """A ``max``/``min`` without ``.xorsign.abs`` or a guard: a node such trees are made of."""
    return instr.opcode in OTHER and not any(m in ("xorsign", "abs") for m in instr.mods) and instr.guard is None


def native_reader(u: ir.Instruction, flow: Flow) -> bool:
    """A recognised body's own native line (or its test of the value: held-out seed 14282)."""
    return u.span is not None and (u.span.line in flow.native or (u.opcode == "setp" and u.span.line in flow.ranges))


def negated_tree(instr: ir.Instruction, flow: Flow, is_root: Callable[[ir.Instruction], bool]) -> bool:
    """``instr`` (a plain ``max``/``min``) reaches, through nodes of its own kind and bit moves only, negations that
    ``is_root`` accepts (a ``neg`` of a node, the fold site whose source negates the operands; a widening ``cvt``
    a sub reads: held-out seed 36975), and nothing else but recognised bodies' native lines."""
    uses = tree_uses(instr, flow) if plain_extremum(instr) else None
    if uses is None:
        return False
    roots = [u for u in uses if u.opcode in ("neg", "xor", "cvt") and is_root(u)]
    return bool(roots) and all(any(u is r for r in roots) or native_reader(u, flow) for u in uses)


def max_of_negations(instr: ir.Instruction, ctx: RewriteContext) -> FoldResult:
    """``max d, a, b`` as ``−min(−a, −b)`` in the ring (``min`` as ``−max(−a, −b)``)."""
    ft = float_type_of(instr) or ""
    info = OpInfo(LANE_TYPE.get(ft, ft), ft if ft in LANE_TYPE else None)
    other, _ = TABLE[OTHER[instr.opcode]]

    def compute(c: RewriteContext, ps: list[str], w: int, i: ir.Instruction) -> str:
        negs = []
        for p in ps:
            n = c.fresh(BITS_KIND[w])
            c.emit(f"neg.s{w} {n}, {as_reg(c, p, w)}")
            negs.append(n)
        o = c.fresh(BITS_KIND[w])
        c.emit(f"neg.s{w} {o}, {other(c, negs, w, i)}")
        return o
    if R.ring(info.ftype).w not in BITS_KIND or not elementwise(instr, ctx, info, compute, 2):
        return FoldResult(False, Verdict(f"{instr.opcode}: operand form not modelled"))
    return FoldResult(True, Verdict(
        f"{instr.opcode} of a tree whose result LLVM negates for the source's {OTHER[instr.opcode]} of negations "
        f"(min(−a, −b) as −max(a, b)): computed as −{OTHER[instr.opcode]}(−a, −b), so that the negation at its root "
        "is Triton's ring min of the negations, −0 included", NOTE, native=False))


def negated_select_of_extremum(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """The source's ``maximum(-a, -where(c, x, a))`` (or ``minimum``) at a ``neg``/sign ``xor`` of ``selp(c, m, a)``
    whose arm m is a plain min/max: LLVM's ``−select(c, min(a, x), a)`` (held-out seed 56870, silent at φ(−0)), which
    the ring computes otherwise where a payload is its own negation; None where the source has no such call."""
    ops = instr.operands
    if not ((instr.opcode == "neg" or (instr.opcode == "xor" and sign_xor_width(instr))) and len(ops) >= 2
            and isinstance(ops[1], ir.Reg) and instr.guard is None):
        return None
    sel = flow.only_def(ops[1].name)
    arms = [a for o in sel.operands[1:3] if isinstance(o, ir.Reg) and (a := flow.only_def(o.name)) is not None
            and plain_extremum(a)] if sel is not None and sel.opcode == "selp" else []
    return next((d for i in (instr, sel, *arms) if i is not None and (d := flow.hints.decide_within(
        i, _of_negations)) is not None), None) if arms else None


def _of_negations(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("maximum", "minimum")
            and len(n.args) >= 2 and all(_negated(_resolve(f, a, _AST_DEPTH)) is not None for a in n.args[:2])):
        return "negated", n
    return None
