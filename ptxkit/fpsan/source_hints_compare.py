"""Source hints for comparisons LLVM rewrote (issue 10): ``(x - y) < 0.0`` compared as ``x < y``, ``c(x) <= c(x)``
of a cast or a negation as x's own NaN test.
:class:`CompareHints` is a part of :class:`~ptxkit.fpsan.source_hints.SourceHints`."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _PTX_DTYPE,
    CONST,
    OWN,
    Decision,
    SourceFile,
    _abs_call,
    _cast_to,
    _negated,
    _number,
    _one_value,
    _receiver,
    _resolve,
    _width,
)
from ptxkit.fpsan.source_locations import HintsBase, _same_value

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

    def self_compare(self, instr: ir.Instruction, ft: str) -> Decision | None:
        """``setp.num/nan.fT p, x, x`` (LLVM's ``c(x) <= c(x)`` → ``ord(x, x)``, which drops the narrowing
        cast ``c``: fptrunc keeps NaN-ness, the ring cast does not): the ``Compare``'s operands, both the
        same ``.to(T)`` to another type ``T``, give ``T``; both of width ``ft`` (a load, a parameter, a cast
        to ``ft``) ``native``."""
        w = _DTYPE_WIDTH[_PTX_DTYPE[ft]]

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.Compare) and len(n.comparators) == 1):
                return None
            sides = [_one_value(f, e) for e in (n.left, n.comparators[0])]
            if any(_sign_op_under_casts(f, e) for e in sides):
                # (held-out seed 3710: LLVM folds -x != -x, and (-x.to(f32)).to(bf16) != -x, to x != x; Triton
                # compares the bits of the ring's −φ(x), whose NaN-ness is not x's): a negation of x or of its cast
                negs = {_negated_self(f, e, w, ft) for e in sides}
                neg = negs.pop() if len(negs) == 1 else None
                return (neg, n) if neg is not None else None
            casts = {_cast_to(e) if e is not None else None for e in sides}
            if len(casts) == 1 and None not in casts:
                t = casts.pop()
                assert t is not None
                # any other type: narrower, the other 16-bit one (held-out seed 2650: s.to(f16) != s.to(f16) of a
                # bf16 s as setp.nan.bf16 s, s; the ring cast keeps the payload, read as an f16) or wider (2354:
                # the ring widening is no fpext either)
                if t != _PTX_DTYPE[ft]:
                    return _DTYPE_TYPES[t], n
            widths = {_width(f, e, _DEPTH) for e in (n.left, n.comparators[0])}
            return ("native", n) if widths <= {OWN, w} and widths else None
        loc = self.loc.get(id(instr))

        def same(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            ok = isinstance(n, ast.Compare) and len(n.comparators) == 1 and _same_value(f, n.left, n.comparators[0])
            return classify(f, n) if ok else None
        # a merged location (held-out seed 8641: x1.to(f32) == x1.to(f32) of an f64 x1 at 15:0 after a sin body,
        # taken for Triton's own test, silent): the line's self-comparisons; none (line 0, held-out seed 22220: a
        # test LLVM scheduled after a log body, taken for Triton's own, silent): the file's
        if loc is not None and loc[1] == 0:
            return self.decide_in_file(instr, same)
        if loc is not None and loc[2] == 0:
            return self.decide_within(instr, same, whole_line=True)
        found = self.nodes(instr)
        if found is not None and not any(isinstance(n, ast.Compare) for n in found[1]):
            # no comparison starts there in the source (tl.dot's tf32x3 NaN guards, a libdevice call): it is
            # Triton's lowering testing its own values, which no cast narrowed
            f, ns = found
            _, line, col = self.loc[id(instr)]
            return Decision("native", f.where(ns[0]) if ns else f"{f.name}:{line}:{col}: no comparison there")
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


def _negated_self(f: SourceFile, e: ast.expr | None, w: int, ft: str) -> str | None:
    """The self-compare form of ``-x`` (``neg``) or ``-(x.to(T))`` (``neg-T``) of an x of width ``w`` (held-out
    seeds 202460, 186951: ``(-d.to(f64)) == (-d.to(f64))`` of an f32 d, as ``setp.num.f32 d, d``), else None."""
    x = _negated(e)
    x = _resolve(f, x, _DEPTH) if x is not None else None
    if x is None:
        return None
    t = _cast_to(x)
    if t is not None and t != _PTX_DTYPE[ft]:
        recv = _resolve(f, _receiver(x), _DEPTH)
        ok = recv is not None and _width(f, recv, _DEPTH) in (OWN, w) and t in _DTYPE_TYPES
        return f"neg-{_DTYPE_TYPES[t]}" if ok else None
    return "neg" if _width(f, x, _DEPTH) in (OWN, w) else None


_DTYPE_TYPES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64"}


def _sign_op_under_casts(f: SourceFile, e: ast.expr | None) -> bool:
    """``e`` is, under ``.to()`` casts, a negation or an abs (ops that keep NaN-ness, which LLVM drops from a
    self-comparison)."""
    for _ in range(_DEPTH):
        if e is None:
            return False
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return True
        if _abs_call(e):
            return True
        if _cast_to(e) is None:
            return False
        e = _resolve(f, _receiver(e), _DEPTH)
    return False
