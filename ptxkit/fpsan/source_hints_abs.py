"""Source hints for LLVM's folds of abs and of max/min of a value and its negation (issue 10 J F; docs/fpsan.md §3
"Folds"): where a sign-bit ``and``/``or`` (|x|, −|x|) or a negated max/min tree went in the PTX, read off the Python
expression at an instruction's ``.loc`` (:class:`~ptxkit.fpsan.source_locations.HintsBase`). :class:`AbsHints` is a
part of :class:`~ptxkit.fpsan.source_hints.SourceHints`."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ptxkit import ir
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _PTX_DTYPE,
    OWN,
    Decision,
    SourceFile,
    _abs_call,
    _cast_to,
    _method_call,
    _negated,
    _number,
    _one_value,
    _receiver,
    _resolve,
    _same_type_args,
    _to_dtype,
    _width,
)
from ptxkit.fpsan.source_locations import HintsBase


def _call_name(n: ast.expr) -> str | None:
    """``f`` of a two-argument call ``tl.f(a, b)`` / ``f(a, b)``, else None."""
    if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name)) and len(n.args) == 2:
        return n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
    return None


def _neg_abs_form(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    """(``min``, x) of ``minimum(x, -x)`` / ``min``, (``negabs``, x) of ``-abs(x)``, else None."""
    if _call_name(n) in ("minimum", "min"):
        x = _of_negation(f, n)
        return ("min", x) if x is not None else None
    inner = _negated(n)
    e = _resolve(f, inner, _DEPTH) if inner is not None else None
    return ("negabs", e.args[0]) if _abs_call(e) and isinstance(e, ast.Call) else None


def _of_negation(f: SourceFile, n: ast.expr) -> ast.expr | None:
    """x of a two-argument call of x and its negation, in either order (choices between one value such as
    ``where(c, a, a)`` resolved on both sides), else None."""
    if not (isinstance(n, ast.Call) and len(n.args) == 2):
        return None
    a, b = n.args
    for x, y in ((a, b), (b, a)):
        inner = _negated(y)
        if inner is None:
            continue
        if ast.dump(inner) == ast.dump(x):
            return x
        rx, ri = _one_value(f, x), _one_value(f, inner)
        if rx is not None and (rx is ri or (ri is not None and ast.dump(rx) == ast.dump(ri))):
            return x
    return None


_EXTREMA = ("maximum", "max", "minimum", "min")


def _operands(n: ast.expr) -> list[ast.expr]:
    """The values an expression computes with: a BinOp's or Compare's sides, a unary op's operand, a
    stored value, an elementwise call's float arguments, a ``.to()``'s receiver."""
    if isinstance(n, ast.BinOp):
        return [n.left, n.right]
    if isinstance(n, ast.UnaryOp):
        return [n.operand]
    if isinstance(n, ast.Compare):
        return [n.left, *n.comparators]
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "store" and len(n.args) >= 2:
        return [n.args[1]]
    if _to_dtype(n) is not None:
        return [_receiver(n)]
    return _same_type_args(n)


def _strip_casts(f: SourceFile, e: ast.expr) -> ast.expr | None:
    """``e`` resolved, through ``.to()`` casts and choices between one value."""
    v = _one_value(f, e)
    for _ in range(_DEPTH):
        if v is None or _to_dtype(v) is None:
            break
        v = _one_value(f, _receiver(v))
    return v


def _without_round_trips(f: SourceFile, n: ast.expr) -> ast.expr:
    """``n`` (a call) with each argument's exact widening round trip ``y.to(W).to(T)`` of a T-wide y taken out: y in
    the ring too (a sign extension, narrowed back to itself)."""
    if not isinstance(n, ast.Call):
        return n
    args: list[ast.expr] = []
    for a in n.args:
        t = _cast_to(a)
        inner = _receiver(a) if t is not None else None
        w = _cast_to(inner)
        y = _receiver(inner) if inner is not None and w is not None else None
        keep = y is not None and t is not None and w is not None and _DTYPE_WIDTH[w] > _DTYPE_WIDTH[t] \
            and _width(f, y, _DEPTH) in (OWN, _DTYPE_WIDTH[t])
        args.append(y if keep and y is not None else a)
    return ast.Call(n.func, args, n.keywords)


class AbsHints(HintsBase):
    """The abs and max/min-of-a-negation decisions of :class:`~ptxkit.fpsan.source_hints.SourceHints`."""

    def abs_wider(self, instr: ir.Instruction, width: int) -> Decision | None:
        """The ``abs`` call at ``instr``'s location (a store's value, through its narrowing ``.to()`` and names) whose
        argument is wider than ``width`` bits (``tl.abs(tl.where(c, a / b.to(f32), h)).to(f16)``: held-out seed
        14541, LLVM narrows the arms and takes the half's abs, while Triton's ring narrowing does not commute with
        abs): form ``wider``."""
        def classify(f: SourceFile, at: ast.expr) -> tuple[str, ast.expr] | None:
            n: ast.expr | None = at
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "store" \
                    and len(n.args) >= 2:
                n = _resolve(f, n.args[1], _DEPTH)
            while n is not None and _cast_to(n) is not None:
                n = _resolve(f, _receiver(n), _DEPTH)
            if not _abs_call(n):
                return None
            w = _width(f, n.args[0], _DEPTH)
            return ("wider", n) if w is not None and w > width else None
        return self.decide(instr, classify)

    def neg_abs(self, instr: ir.Instruction, width: int) -> Decision | None:
        """−|x| as a sign-bit ``or`` on ``width``-bit lanes: a ``minimum``/``min`` of x and its negation there
        (``min``: Triton's ring min, which keeps ±0 as they are), or a negation of an ``abs`` call
        (``negabs``) — of an x of that width (``-abs(h.to(f64))`` of an f16 h went through f64, whose ring
        LLVM dropped: seed 1632, undecided)."""
        def fits(f: SourceFile, x: ast.expr) -> bool:
            return _width(f, x, _DEPTH) in (OWN, width)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _call_name(n) in ("minimum", "min"):
                x = _of_negation(f, n)
                return ("min", n) if x is not None and fits(f, x) else None
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "load":
                # LLVM gave −|x| of a loaded x the load's location (held-out seed 71844, reported: minimum(-x, x)
                # * y): the one form the function takes of that value, if one
                fn = f.function_of(n)
                found = [(got[0], m) for m in (ast.walk(fn) if fn is not None else ()) if isinstance(m, ast.expr)
                         and (got := _neg_abs_form(f, m)) is not None and _one_value(f, got[1]) is n]
                return found[0] if found and len({form for form, _ in found}) == 1 else None
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "store" \
                    and len(n.args) >= 2:  # LLVM sank the or to the store (seed 610): the stored value's expression
                v = _strip_casts(f, n.args[1])
                return classify(f, v) if v is not None and v is not n else None
            if _method_call(n, "dot", 2):  # LLVM hoisted the or into the dot's operand loads from shared memory
                # (held-out seed 188325, reported: a = minimum(a * -1.0, a).to(f32) into a tf32 dot): its operands
                operands = [v for a in n.args[:2] if (v := _strip_casts(f, a)) is not None]
                forms = {got for v in operands if (got := classify(f, v)) is not None}
                return forms.pop() if len({form for form, _ in forms}) == 1 else None
            inner = _negated(n)
            e = _resolve(f, inner, _DEPTH) if inner is not None else None
            if not _abs_call(e):
                return None
            assert isinstance(e, ast.Call)
            return ("negabs", n) if fits(f, e.args[0]) else None
        return self.decide(instr, classify) or self.decide_enclosing(instr, classify)

    def abs_of_max(self, instr: ir.Instruction, width: int,
                   readers: Sequence[ir.Instruction] = ()) -> Decision | None:
        """|x| as a sign-bit ``and`` on ``width``-bit lanes: a ``maximum``/``max`` of x and its negation there
        (``max``: Triton's ring max, which keeps ±0 as they are; ``min`` of a minimum; held-out seed 4957:
        ``maximum(where(c, a, a), -a)``, an ``and`` on a dot operand no float instruction reads). LLVM often
        hoists the ``and`` to the load, whose location says nothing: then the expressions at its ``readers``'
        locations decide, where each operand that clears a sign is such a maximum (``maximum(x, -x) * 3.0``;
        not ``abs(y) + maximum(x, -x)``, whose ``and``s the PTX does not tell apart)."""
        def is_max(f: SourceFile, n: ast.expr | None) -> bool:
            # minimum(x, -x) too: LLVM's |x| of it has its negation folded into the reader (1.0 + min(x, -x)
            # as 1.0 - |x|), and the ring's −max(p, −p) is min(p, −p), at p = φ(−0) = −2^(w−1) as well
            # (an operand's exact round trip h.to(f64).to(f16) is h, natively and in the ring: held-out seed 215940,
            # maximum(h.to(f64).to(f16), -h) silent at h = −0 when the and was taken for a plain |h|)
            x = (_of_negation(f, n) or _of_negation(f, _without_round_trips(f, n))) \
                if n is not None and _call_name(n) in _EXTREMA else None
            return x is not None and _width(f, x, _DEPTH) in (OWN, width)

        def form(n: ast.expr) -> str:  # ("min": a minimum, whose negation LLVM folded into a reader)
            return "min" if _call_name(n) in ("minimum", "min") else "max"

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            return (form(n), n) if is_max(f, n) else None

        def classify_reader(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            ops = [_strip_casts(f, o) for o in _operands(n)]
            clears = [o for o in ops if o is not None and (is_max(f, o) or _abs_call(o))]
            if not clears or not all(is_max(f, o) for o in clears):
                return None
            return ("min" if any(form(o) == "min" for o in clears if o is not None) else "max"), n

        got = self.decide(instr, classify) or self.decide_enclosing(instr, classify)
        if got is not None or not readers:
            return got
        decisions = [self.decide(u, classify_reader) for u in readers]
        return decisions[0] if all(d is not None for d in decisions) else None

    def abs_of_max_in_dot(self, instr: ir.Instruction, width: int, side: int | None) -> Decision | None:
        """|x| as a sign-bit ``and`` at a ``tl.dot`` call's location, on the operand ``side`` (0 A, 1 B; None: both
        agree) that is a ``maximum``/``minimum`` of a value and its negation: LLVM's fabs of it, sunk into the dot's
        lowering (held-out seed 49150: ``maximum(a.to(f64).to(f32), -a)``, the ``and`` after ``ldmatrix``, silent);
        Triton's ring max (``max``). The exact widening's round trip is the value itself in the ring too."""
        found = self.dot_operands(instr, side)
        if found is None:
            return None
        f, operands = found
        got: set[str] = set()
        for v in operands:
            m = _strip_casts(f, v)
            x = (_of_negation(f, m) or _of_negation(f, _without_round_trips(f, m))) if m is not None and \
                _call_name(m) in _EXTREMA else None
            got.add(f.where(m) if x is not None and _width(f, x, _DEPTH) in (OWN, width) and m is not None else "")
        return Decision("max", got.pop()) if len(got) == 1 and "" not in got else None

    def max_of_negation_in_source(self, instr: ir.Instruction) -> str | None:
        """Where the source of ``instr``'s function has a max or min of a value and its negation
        anywhere (a safety net for :meth:`abs_of_max`: a sign-bit ``and`` no location ties to it may be it)."""
        found = self.nodes(instr)
        if found is None:
            return None
        f = found[0]
        scope: ast.AST = next((fn for n in found[1] if (fn := f.function_of(n)) is not None), f.tree)
        for n in ast.walk(scope):
            if isinstance(n, ast.Call) and _call_name(n) in _EXTREMA and _of_negation(f, n) is not None:
                return f.where(n)
        return None

    def reduced_negation(self, instr: ir.Instruction, op: str) -> Decision | None:
        """At the user's call of the reduction ``instr`` was inlined from: ``tl.OP(-E, …)`` (``E * -1.0`` too, through
        names) where ``E`` has no max/min call of two different operands (a ``maximum(x, x)`` is x in the ring as
        natively): the reduction's min of negations is what LLVM made a negated max tree (held-out seed 14282), and no
        node of that tree is a max the source takes itself; form ``moved``."""
        def clean(f: SourceFile, e: ast.expr, depth: int) -> bool:
            modules = {id(a.value) for a in ast.walk(e) if isinstance(a, ast.Attribute)}  # tl of tl.load
            for n in ast.walk(e):
                if isinstance(n, ast.Call) and _call_name(n) in _EXTREMA and ast.dump(n.args[0]) != ast.dump(n.args[1]):
                    return False
                if isinstance(n, ast.Name) and n is not e and depth > 0 and id(n) not in modules:
                    r = _resolve(f, n, _DEPTH)
                    if r is None or (r is not n and not clean(f, r, depth - 1)):
                        return False
            return True

        types = [m.removesuffix("x2") for m in instr.mods if m.removesuffix("x2") in _PTX_DTYPE]
        width = _DTYPE_WIDTH[_PTX_DTYPE[types[-1]]] if types else None  # (a cvt root: its source's)

        def negation(f: SourceFile, a: ast.expr) -> bool:
            e = _resolve(f, a, _DEPTH)
            # (-x).to(f64) of a tree LLVM narrowed below the cast (to x's type): the negation under the widening; a
            # cast to the tree's own type may widen a narrower x, negated in its own ring (held-out seed 131412)
            while (e is not None and _negated(e) is None and (c := _cast_to(e)) is not None and width is not None
                   and _DTYPE_WIDTH[c] > width):
                e = _resolve(f, _receiver(e), _DEPTH)
            inner = _negated(e) if e is not None else None
            # a negation of a wider value (-x.to(f64) of a bf16 tree) is the wide ring's, which the tree's order
            # carries as written (held-out seed 137708, silent at −0 when replayed in the narrow ring)
            return inner is not None and clean(f, inner, 4) and (
                width is None or (_width(f, inner, _DEPTH) or 0) <= width)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args):
                return None
            if n.func.attr == op:
                return ("moved", n) if negation(f, n.args[0]) else None
            # the elementwise tl.minimum(-a, -b) (held-out seed 14532): both operands negations
            if n.func.attr == f"{op}imum" and len(n.args) == 2 and all(negation(f, a) for a in n.args):
                return "moved", n
            return None
        got = self.decide(instr, classify)
        if got is None:
            with self.at_call_site(instr) as inlined:
                got = self.decide(instr, classify) if inlined else None
        return got

    def neg_extremum(self, instr: ir.Instruction) -> Decision | None:
        """``neg`` of a max/min: the source negates a ``max``/``min``/``maximum``/``minimum`` call there
        (``written``), or negates something else there (``moved``: LLVM pulled the negation of the
        operands out of a min/max, e.g. ``tl.min(x * -1.0)``)."""

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
                inner: ast.expr | None = n.operand
            elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
                inner = n.left if _number(n.right) == -1.0 else n.right if _number(n.left) == -1.0 else None
            else:
                return None
            if inner is None:
                return None
            e = _resolve(f, inner, _DEPTH)
            name = (e.func.attr if isinstance(e.func, ast.Attribute) else e.func.id
                    if isinstance(e.func, ast.Name) else "") if isinstance(e, ast.Call) else ""
            return ("written" if name in ("max", "min", "maximum", "minimum") else "moved"), n
        return self.decide(instr, classify)
