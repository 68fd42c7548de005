"""Source hints for comparisons LLVM rewrote (issue 10): ``(x - y) < 0.0`` compared as ``x < y``.
:class:`CompareHints` is a part of :class:`~ptxkit.fpsan.source_hints.SourceHints`."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.source_ast import CONST, OWN, Decision, SourceFile, _number, _one_value, _width
from ptxkit.fpsan.source_locations import HintsBase

# the predicates LLVM's InstCombine rewrites from (x - y) P 0 to x P y: they agree for every IEEE x, y (∞ − ∞ is
# NaN, and so unordered, where ∞ P ∞ is false too); <=, >=, == and != do not (∞ == ∞), so stay as written
_STRICT = (ast.Lt, ast.Gt)


class CompareHints(HintsBase):
    """Which comparison the source makes at an instruction's location."""

    def sub_compared_to_zero(self, instr: ir.Instruction) -> Decision | None:
        """Where the source's comparison at ``instr``'s location is ``(x - y) < 0.0`` or ``>`` (either side; the
        zero an int or float literal, names followed): the form is the subtraction's float width as the source
        states it (``"16"``, ``"32"``, ``"64"``; ``"own"``: the operands' own type, a load's) or ``"unknown"``;
        prefixed ``"folded:"`` where the other side is no literal but an expression (LLVM may have proven it zero:
        held-out seed 35022, ``(0.0 * x).to(int64).to(f32) > (p - q)`` as ``setp.lt.f32 p, q``, silent before)."""
        if self.loc.get(id(instr), (0, 0, 0))[2] == 0:
            return None  # (a merged location names no one comparison)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], _STRICT)):
                return None
            sides = [_one_value(f, e) for e in (n.left, n.comparators[0])]
            subs = [i for i, e in enumerate(sides) if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Sub)]
            if len(subs) != 1 or (other := sides[1 - subs[0]]) is None:
                return None
            sub = sides[subs[0]]
            assert sub is not None
            w = _width(f, sub, 8)
            form = "own" if w == OWN else str(w) if w not in (None, CONST) else "unknown"
            return (form if _number(other) == 0.0 else f"folded:{form}"), n
        return self.decide(instr, classify)
