"""Source hints for comparisons LLVM rewrote (issue 10): ``(x - y) < 0.0`` compared as ``x < y``.
:class:`CompareHints` is a part of :class:`~ptxkit.fpsan.source_hints.SourceHints`."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _PTX_DTYPE,
    CONST,
    OWN,
    Decision,
    SourceFile,
    _cast_to,
    _negated,
    _number,
    _one_value,
    _receiver,
    _resolve,
    _width,
)
from ptxkit.fpsan.source_locations import HintsBase

# the predicates LLVM's InstCombine rewrites from (x - y) P 0 to x P y: they agree for every IEEE x, y (∞ − ∞ is
# NaN, and so unordered, where ∞ P ∞ is false too); <=, >=, == and != do not (∞ == ∞), so stay as written
_STRICT = (ast.Lt, ast.Gt)


class CompareHints(HintsBase):
    """Which comparison the source makes at an instruction's location."""

    def sub_compared_to_zero(self, instr: ir.Instruction) -> Decision | None:
        """Where the source's comparison at ``instr``'s location is ``D < 0.0`` or ``>`` (either side; the zero an
        int or float literal, names followed) of a difference ``D``: ``x - y`` or ``x + (-y)``, under negations and
        float casts. The form is the subtraction's float width as the source states it (``"16"``, ``"32"``,
        ``"64"``; ``"own"``: the operands' own type, a load's; ``"unknown"``), then ``>T`` for each cast outward
        (``"own>float64"``); prefixed ``"folded:"`` where the other side is no literal but an expression (LLVM may
        have proven it zero: held-out seed 35022, ``(0.0 * x).to(int64).to(f32) > (p - q)`` as ``setp.lt.f32 p,
        q``, silent before). Negations are left out: the ring's negation is the float's but at ±0 and NaN, where
        ``<`` and ``>`` are false both ways, and LLVM turned the predicate with them."""
        if self.loc.get(id(instr), (0, 0, 0))[2] == 0:
            return None  # (a merged location names no one comparison)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], _STRICT)):
                return None
            sides = [_one_value(f, e) for e in (n.left, n.comparators[0])]
            found = [(i, d) for i, e in enumerate(sides) if e is not None and (d := _difference(f, e)) is not None]
            if len(found) != 1 or (other := sides[1 - found[0][0]]) is None:
                return None
            form = found[0][1]
            if _number(other) == 0.0:
                return form, n
            # ((a - b) - b) > E: LLVM may compare a - b with b (held-out seed 64175)
            return (f"folded:nested:{form}" if _nested(f, sides[found[0][0]]) else f"folded:{form}"), n
        return self.decide(instr, classify)


    def compared_with_negation(self, instr: ir.Instruction, width: int) -> Decision | None:
        """Where the source's comparison at ``instr``'s location is ``-E OP E`` (either side negated, ``<``, ``<=``,
        ``>``, ``>=``; names followed) of ``E`` = ``x.to(T)`` (or x itself) of an x of ``width`` bits: LLVM folds it to
        x against a constant (held-out seeds 110741, 109988, 110115: ``(-x.to(f16)) < x.to(f16)`` of an f32 x as
        ``setp.gt.f32 x, c``). Form ``OP:K:T``: the PTX comparison of the source's, the negated side K (0 left,
        1 right), T the cast's PTX type ('' for none)."""
        if self.loc.get(id(instr), (0, 0, 0))[2] == 0:
            return None  # (a merged location names no one comparison)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in _ORDERED):
                return None
            sides = [_one_value(f, e) for e in (n.left, n.comparators[0])]
            for k in (0, 1):
                inner, other = _negated(sides[k]), sides[1 - k]
                v = _one_value(f, inner) if inner is not None else None
                if v is None or other is None or ast.dump(v) != ast.dump(other):
                    continue
                t = _cast_to(other)
                x = _one_value(f, _receiver(other)) if t is not None else other
                if x is None or (t is not None and _cast_to(x) is not None) or _width(f, x, _DEPTH) not in (OWN, width):
                    return None  # (a chain of casts, or an x of another width: not this comparison's x)
                return f"{_ORDERED[type(n.ops[0])]}:{k}:{_PTX_OF.get(t or '', '')}", n
            return None
        return self.decide(instr, classify)


_ORDERED = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
_PTX_OF = {v: k for k, v in _PTX_DTYPE.items()}


def _nested(f: SourceFile, e: ast.expr | None) -> bool:
    """``e`` (under casts) is a difference whose minuend is a difference itself."""
    r = _resolve(f, e, _DEPTH) if e is not None else None
    while r is not None and _cast_to(r) is not None:
        r = _resolve(f, _receiver(r), _DEPTH)
    return (isinstance(r, ast.BinOp) and isinstance(r.op, ast.Sub)
            and isinstance(m := _resolve(f, r.left, _DEPTH), ast.BinOp) and isinstance(m.op, ast.Sub))


def _difference(f: SourceFile, e: ast.expr) -> str | None:
    """``e`` as a difference under negations and float casts: its form (see ``sub_compared_to_zero``), else None."""
    casts: list[str] = []
    for _ in range(_DEPTH):
        r = _resolve(f, e, _DEPTH)
        if r is None:
            return None
        if (inner := _negated(r)) is not None:
            e = inner
        elif (t := _cast_to(r)) is not None:
            casts.append(t)
            e = _receiver(r)
        elif isinstance(r, ast.BinOp) and (isinstance(r.op, ast.Sub) or (
                isinstance(r.op, ast.Add) and any(_negated(_resolve(f, s, _DEPTH)) is not None
                                                  for s in (r.left, r.right)))):
            w = _width(f, r, _DEPTH)
            form = "own" if w == OWN else str(w) if w not in (None, CONST) else "unknown"
            return ">".join([form, *reversed(casts)])
        else:
            return None
    return None
