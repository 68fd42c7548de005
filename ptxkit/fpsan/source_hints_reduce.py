"""Source hints for a reduction's combine that LLVM rewrote (issue 10 H; docs/fpsan.md §3 "Folds"): ``tl.sum(-h)`` of
halves as ``sub.f16`` at the library's combine, whose ``a + b`` the H fold reads as the op. :class:`ReduceHints` is a
part of :class:`~ptxkit.fpsan.source_hints.SourceHints`."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.source_ast import _DEPTH, _HALF, OWN, Decision, SourceFile, _cast_to, _negated, _resolve, _width
from ptxkit.fpsan.source_locations import HintsBase

_REDUCTIONS = frozenset({"sum", "cumsum"})


class ReduceHints(HintsBase):
    """Reductions of negations."""

    def negated_reduction(self, instr: ir.Instruction) -> Decision | None:
        """H for a 16-bit ``sub`` inlined from the user's ``tl.sum(E)``/``tl.cumsum(E)`` of a negation in the half
        type (``-h`` of a loaded half, ``-x.to(f16)``): LLVM moved the elements' negation into the combine's add
        (held-out seed 61108, a false alarm before); the ring's a + (−b) is a − b where −b is the half's own
        negation, so half arithmetic (``native``). A negation narrowed from a wider value (``(-x).to(f16)``) is no
        such negation: undecided."""
        if instr.opcode != "sub" or not any(t.removesuffix("x2") in _HALF.values() for t in instr.mods):
            return None

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _REDUCTIONS
                    and n.args):
                return None
            y = _negated(_resolve(f, n.args[0], _DEPTH))
            r = _resolve(f, y, _DEPTH) if y is not None else None
            if r is None:
                return None
            half = _cast_to(r) in ("float16", "bfloat16") or (_cast_to(r) is None and _width(f, r, _DEPTH) == OWN)
            return ("native", n) if half else None
        with self.at_call_site(instr) as inlined:
            return self.decide(instr, classify) if inlined else None
