"""Source hints for LLVM's folds of negations and signs (issue 10 J F; docs/fpsan.md §3 "Folds"): where a negation,
an abs, a max/min of a value and its negation or a product by zero went in the PTX, read off the Python expression at
an instruction's ``.loc`` (:class:`~ptxkit.fpsan.source_locations.HintsBase`). :class:`SignHints` is a part of
:class:`~ptxkit.fpsan.source_hints.SourceHints`."""

from __future__ import annotations

import ast
import struct

from ptxkit import ir
from ptxkit.fpsan.ring import LOG2E_F32
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _PTX_DTYPE,
    CONST,
    OWN,
    Decision,
    SourceFile,
    _arms,
    _bare,
    _cast_chain,
    _cast_to,
    _method_call,
    _module_call,
    _narrowed_to,
    _negated,
    _number,
    _one_value,
    _receiver,
    _reduction_of,
    _resolve,
    _scan_of,
    _width,
    _without_double_negation,
    _without_folded_widening,
)
from ptxkit.fpsan.source_hints_abs import _operands
from ptxkit.fpsan.source_locations import HintsBase, load_target
from ptxkit.fpsan.source_neg_steps import _neg_steps, _negating_arm, _negation_of
from ptxkit.fpsan.source_types import _no_casts

_LOG2E = struct.unpack("<f", LOG2E_F32.to_bytes(4, "little"))[0]  # exp's multiplier, as the PTX's immediate reads

_TRANSCENDENTAL = frozenset({"exp", "exp2", "log", "log2", "sin", "cos", "erf", "tanh"})


def _transcendental(n: ast.expr | None) -> bool:
    """``n`` is ``tl.cos(..)`` and the like or a ``libdevice`` function that is not exact (an inlined body: LLVM
    computes it at the type Triton chose, it never shrinks one from f64 to f32 as it does ``floor`` or ``sqrt``)."""
    lib = _module_call(n, "libdevice")
    return _module_call(n, "tl") in _TRANSCENDENTAL or (lib is not None and lib not in _EXACT_LIBDEVICE)


_EXACT_LIBDEVICE = frozenset({"floor", "ceil", "trunc", "round", "rint", "nearbyint", "fabs", "sqrt", "fmin", "fmax",
                              "copysign", "abs", "fma"})


def _fma_call(n: ast.expr | None) -> bool:
    """``n`` is ``tl.fma(a, b, c)``."""
    return (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "fma"
            and isinstance(n.func.value, ast.Name) and n.func.value.id == "tl" and len(n.args) == 3)


class SignHints(HintsBase):
    """The negation and sign decisions of :class:`~ptxkit.fpsan.source_hints.SourceHints`."""

    def neg_cast(self, cvt: ir.Instruction, dest: str, source: str | None = None,
                 fused: bool = False) -> Decision | None:
        """J: the cvt under a sign xor or a ``neg`` is ``(-x).to(T)`` (``before``) or the operand of
        ``-(x.to(T))`` (``after``); ``x * -1.0`` negates too. ``before`` needs x of the cvt's ``source``
        type: ``(x.to(f64) * -1.0).to(f16)`` of an f32 x (held-out seed 777) went through f64, which LLVM
        dropped and Triton's ring does not (undecided). ``fused``: the cvt converts an ``fma`` of the source
        type, which LLVM never narrows, so a ``tl.fma`` x of unknown operand types was of that type (held-out
        seed 11293: ``(-tl.fma(a, x / x, b)).to(f16)``)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            parent = f.parent.get(id(n))
            if (isinstance(n, ast.BinOp) and isinstance(parent, ast.expr) and _negated(parent) is n
                    and _width(f, n, _DEPTH) == _DTYPE_WIDTH.get(_PTX_DTYPE.get(dest, ""))):
                return "after", parent  # -(a * b) of halves computed wide: the cvt narrows the op, then the negation
            if (source is not None and _cast_to(n) is None and isinstance(parent, ast.expr) and _negated(parent) is n
                    and _narrowed_to(f, parent, _PTX_DTYPE.get(dest))
                    and _width(f, n, _DEPTH) == _DTYPE_WIDTH.get(_PTX_DTYPE.get(source, ""))):
                return "before", parent  # r = -where(..) of the source type, r.to(T): the cvt at n (seed 236404)
            if _cast_to(n) != _PTX_DTYPE.get(dest):
                return None
            assert isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            # ((-e).to(f64)).to(bf16) of an f32 e: Triton folds the widening the narrowing reads (held-out seed 26281)
            recv = _without_folded_widening(f, _one_value(f, n.func.value))  # minimum(-x, -x).to(T): 236700
            peeled = False
            while source is not None and recv is not None and _cast_to(recv) == _PTX_DTYPE.get(source):
                recv, peeled = _resolve(f, _receiver(recv), _DEPTH), True  # (-x).to(f32).to(bf16)
            if recv is not None and (sc := _scan_of(recv) or _reduction_of(recv, ("min", "max"))) is not None:
                # the scan's elements: Triton sums (multiplies) them; tl.min(-x): LLVM reduces max(x) and negates it
                # (the ring's min of negations is the negation of its max: held-out seeds 177240, 179753)
                recv = _resolve(f, sc, _DEPTH)  # the negations, the ring's negation of the sum (held-out seed 104039)
                if isinstance(parent, ast.expr) and _negated(parent) is n and _negation_of(f, recv) is not None:
                    # -(cumsum(-x).to(T)): had LLVM moved the scan's negation out, the two would cancel; the sign op
                    # there is the outer one (held-out seed 131568, silent when taken for the scan's)
                    return "after", parent
            if (arm := _one_negated_arm(f, recv)) is not None:
                # where(c, a, -q).to(T): LLVM sinks the narrowing into the arms, the neg after the cast of q (held-out
                # seeds 198682, 192036, reported); of a half q computed wide, the cast is q's own narrowing
                recv = arm
                q = _negation_of(f, arm)
                if isinstance(q, ast.BinOp) and _width(f, q, _DEPTH) == _DTYPE_WIDTH.get(_PTX_DTYPE.get(dest, "")):
                    return "after", arm
            inner = _negation_of(f, recv)  # (also ((-a) * b))
            if inner is not None and _absorbs_negation(f, inner):
                # -(a * C) is a * -C to InstCombine: no negation left to move below the cvt, a neg after it is the
                # source's own (held-out seed 212555: -(((x.to(f64) * 2.0) * -1.0).to(f16)), silent as before)
                return ("after", parent) if isinstance(parent, ast.expr) and _negated(parent) is n else None
            if inner is not None:
                w = _width(f, inner, _DEPTH)
                if w is None and not peeled and _no_casts(f, inner):
                    w = OWN  # (x1 / x1) * -1.0: arithmetic on loaded values, no type in between (seed 1821)
                sw = _DTYPE_WIDTH.get(_PTX_DTYPE.get(source or "", ""))
                if w is None and not peeled and ((fused and _fma_call(_one_value(f, inner)))
                                                 or _transcendental(_one_value(f, inner))):
                    w = sw  # (an inlined libdevice body LLVM never narrows: held-out seed 30958's -tl.cos(..))
                # a loaded x has the cvt's source type, unless a peeled .to() hides its own (seed 840: an f64)
                if source is not None and (w != sw if peeled else w not in (OWN, CONST) and w != sw):
                    return None
                return "before", n
            if isinstance(parent, ast.expr) and _negated(parent) is n and recv is not None:
                return "after", parent
            outer, chosen = _above_choices(f, n)  # minimum(x.to(T), x.to(T)) * -1.0 (held-out seed 184906)
            if isinstance(outer, ast.expr) and chosen is not n and _negated(outer) is chosen and recv is not None:
                return "after", outer
            return None
        return self.decide(cvt, classify)

    def cast_of_reduction(self, cvt: ir.Instruction, dest: str) -> bool:
        """A ``.to(dest)`` at ``cvt``'s location converts a scan or a ``tl.min``/``tl.max`` reduction (the J form
        :meth:`neg_cast` takes through its elements' negations)."""
        found = self.nodes(cvt)
        if found is None:
            return False
        f, nodes = found
        recvs = [_resolve(f, _receiver(n), _DEPTH) for n in nodes if _cast_to(n) == _PTX_DTYPE.get(dest)]
        return any(r is not None and (_scan_of(r) is not None or _reduction_of(r, ("min", "max")) is not None)
                   for r in recvs)

    def reads_negated_cast(self, reader: ir.Instruction, dest: str) -> bool:
        """The source at ``reader``'s location computes with a ``(-x).to(dest)`` (or ``(x * -1.0).to(dest)``): an
        operand the ring casts after negating (held-out seed 137153: the fma's addend ``(-x).to(bf16)``, one ``neg``
        after the cvt with the product's ``(b * b) * -1.0``)."""
        found = self.nodes(reader)
        if found is None or self.loc[id(reader)][2] == 0:
            return False
        f, nodes = found
        t = _PTX_DTYPE.get(dest)
        return any((r := _resolve(f, o, _DEPTH)) is not None and _cast_to(r) == t
                   and (x := _negation_of(f, _resolve(f, _receiver(r), _DEPTH))) is not None
                   and _cast_to(_resolve(f, x, _DEPTH)) != t  # ((x.to(T) * -1.0).to(T): the negation after the cast)
                   for n in nodes for o in _operands(n))

    def negated_product_cast(self, cvt: ir.Instruction, dest: str, source: str) -> Decision | None:
        """The cvt is ``((-a) * b).to(T)`` (either factor negated, both of the cvt's ``source`` type or loaded: the
        product LLVM computes is at that type): the ring's (−φ(a))·φ(b) is −(φ(a)·φ(b)), so Triton narrows the negation
        of the product LLVM computes (held-out seed 29884: ``((-x.to(f64)) * (y.to(f64) + 1.0)).to(f16) + 1.0``)."""
        sw = _DTYPE_WIDTH.get(_PTX_DTYPE.get(source, ""))

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _cast_to(n) != _PTX_DTYPE.get(dest):
                return None
            r = _resolve(f, _receiver(n), _DEPTH)
            if not (isinstance(r, ast.BinOp) and isinstance(r.op, ast.Mult)):
                return None
            negs = [(x, b) for a, b in ((r.left, r.right), (r.right, r.left))
                    if (x := _negated(_resolve(f, a, _DEPTH))) is not None]
            return ("before", n) if len(negs) == 1 and _width(f, negs[0][0], _DEPTH) in (sw, OWN) and _width(
                f, negs[0][1], _DEPTH) in (sw, OWN, CONST) else None
        return self.decide(cvt, classify)

    def subtracts(self, instr: ir.Instruction) -> bool:
        """The source's expression at ``instr``'s location is a subtraction ``a - b`` of a b that is no number: LLVM's
        ``x - 0.5`` is an add of −0.5, whose other operand is no negated subtrahend (held-out seed 187076, silent: the
        cast of ``tl.cumsum(-x)`` minus 0.5 taken for a subtracted negation)."""
        return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and _number(n.right) is None
                   for n in (self.nodes(instr) or ("", []))[1])

    def subtracts_plain_cast(self, instr: ir.Instruction, dest: str) -> bool:
        """The source's expression at ``instr``'s location is ``a - x.to(dest)`` with no negation under the cast: a
        plain subtraction, whose cvt LLVM may share with a ``(-x).to(dest)`` elsewhere that carries the cvt's location
        (held-out seed 229561, silent: ``(-x).to(f16) - (l - x.to(f16))``, the inner sub taken for a moved negation)."""
        want = _PTX_DTYPE.get(dest)
        found = self.nodes(instr)
        if found is None or want is None:
            return False
        f, nodes = found
        for n in nodes:
            r = _resolve(f, n.right, _DEPTH) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) else None
            if r is not None and _cast_to(r) == want and _negation_of(f, _resolve(f, _receiver(r), _DEPTH)) is None:
                return True
        return False

    def subtracts_negated_cast(self, instr: ir.Instruction, dest: str, source: str) -> Decision | None:
        """The source at ``instr``'s location is ``a - (-x).to(dest)`` (also ``x * -1.0``) of an x of ``source``'s type
        or a loaded one — LLVM's ``a + x.to(dest)``, whose cvt may be shared with a plain ``x.to(dest)`` elsewhere and
        carry its location (held-out seed 187573, silent: ``sqrt(maximum(x.to(f32), x.to(f32))) - (-x).to(f32)`` of
        an f64 x) —, or, for a ``sub``, ``a + (-x).to(dest)`` (LLVM's ``a - x.to(dest)``; its kin, silent)."""
        sw, want = _DTYPE_WIDTH.get(_PTX_DTYPE.get(source, "")), _PTX_DTYPE.get(dest)

        def negated_cast(f: SourceFile, e: ast.expr) -> bool:
            r = _resolve(f, e, _DEPTH)
            if r is None or _cast_to(r) != want:
                return False
            inner = _negation_of(f, _resolve(f, _receiver(r), _DEPTH))
            return inner is not None and _width(f, inner, _DEPTH) in (sw, OWN)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not isinstance(n, ast.BinOp):
                return None
            if instr.opcode != "sub":
                return ("before", n) if isinstance(n.op, ast.Sub) and negated_cast(f, n.right) else None
            return ("before", n) if isinstance(n.op, ast.Add) and (negated_cast(f, n.left) or negated_cast(
                f, n.right)) else None
        return self.decide(instr, classify)

    def neg_chain(self, instr: ir.Instruction, dest: str) -> tuple[tuple[str, ...], str] | None:
        """The value at ``instr``'s location (a store's value, or a ``.to()`` call) as the steps Triton takes
        from one loaded value: float casts (``f16``/``bf16``/``f32``/``f64``) and one negation (``neg``),
        innermost first, ending in a cast to ``dest`` — e.g. ``(-x.to(tl.float64)).to(tl.bfloat16)`` is
        ``("f64", "neg", "bf16")`` (held-out seeds 1361, 2720, 840: LLVM dropped the wider type the ring goes
        through). The steps and where, or None (no such value, or not all values there agree)."""
        found = self.nodes(instr)
        if found is None:
            return None
        f, nodes = found
        values = [n.args[1] for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                  and n.func.attr == "store" and len(n.args) >= 2] + [n for n in nodes if _cast_to(n)]
        chains = {(c, f.where(v)) for v in values if (c := _neg_steps(f, v)) is not None and c[-1] == dest}
        chains |= {got for v in values if (got := _negating_arm(f, v, dest)) is not None}
        return chains.pop() if len({c for c, _ in chains}) == 1 else None

    def neg_chain_of_operand(self, reader: ir.Instruction, dest: str) -> tuple[tuple[str, ...], str] | None:
        """:meth:`neg_chain` of the value a ``.to()`` cast at ``reader``'s location converts — the operand
        ``reader`` reads (held-out seeds 10377, 10449: LLVM hoisted the sign xor of ``(-x.to(f64)).to(bf16)`` to
        x's load, whose location says nothing; the store's ``r.to(f32)`` converts it)."""
        found = self.nodes(reader)
        if found is None:
            return None
        f, nodes = found
        values = [r for n in nodes if _cast_to(n) and (r := _resolve(f, _receiver(n), _DEPTH)) is not None]
        # or the one argument of the call (operand of the op) there that negates (held-out seed 57221: tl.fma(.., ..,
        # (-x.to(f64)).to(f32)), the xor hoisted to x's load, the fma its reader; silent at φ(−0))
        args = [a for n in nodes for a in (n.args if isinstance(n, ast.Call) else (n.left, n.right)
                                           if isinstance(n, ast.BinOp) else ())]
        negating = [a for a in args if any(_negated(e) is not None for e in ast.walk(a) if isinstance(e, ast.expr))]
        values += negating if len(negating) == 1 else []
        chains = {(c, f.where(v)) for v in values if (c := _neg_steps(f, v)) is not None and c[-1] == dest}
        return chains.pop() if len({c for c, _ in chains}) == 1 else None

    def neg_chain_of_dot(self, instr: ir.Instruction, dest: str,
                         side: int | None) -> tuple[tuple[str, ...], str] | None:
        """:meth:`neg_chain` of an operand of a ``tl.dot`` call at ``instr``'s location: LLVM sinks the negation of
        an operand into the dot's lowering, below its shared-memory round trip (held-out seed 43806:
        ``(-a.to(f64)).to(f32)`` fed to a tf32x3 dot, a sign xor after ``ldmatrix``). ``side``: the operand
        (0 A, 1 B) the PTX feeds it to; unknown, the chains of both must agree or the other write no negation."""
        found = self.dot_operands(instr, side)
        if found is None:
            return None
        f, operands = found
        got: set[tuple[tuple[str, ...], str]] = set()
        for v in operands:
            steps = _neg_steps(f, v)
            if steps is not None:
                got.add((steps, f.where(v)))
            elif side is None and any(_negated(e) is not None for e in ast.walk(_resolve(f, v, _DEPTH) or v)
                                      if isinstance(e, ast.expr)):
                return None
        if len({c for c, _ in got}) != 1:
            return None
        chain = got.pop()
        return chain if chain[0][-1] == dest else None

    def negation_of_cast(self, neg: ir.Instruction, dest: str, source: str | None = None) -> Decision | None:
        """J at the ``neg``'s own location: a negation there (``-e``, ``e * -1.0``) of a ``.to(T)`` cast
        (``after``; held-out seed 198: ``-x1.to(tl.float32)``, whose cvt LLVM shared with another
        ``x1.to(tl.float32)`` of the line and so carries that one's location), or a cast there of a negation of x of
        the cvt's ``source`` type (``before``; held-out seed 216044: ``(-x).to(f32)`` of an f64 x, its cvt shared
        with the line's ``x.to(f32)``)."""
        sw = _DTYPE_WIDTH.get(_PTX_DTYPE.get(source or "", ""))

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            inner = _negated(n)
            e = _resolve(f, inner, _DEPTH) if inner is not None else None
            if _cast_to(e) == _PTX_DTYPE.get(dest):
                return "after", n
            x = _negated(_resolve(f, _receiver(n), _DEPTH)) if _cast_to(n) == _PTX_DTYPE.get(dest) else None
            return ("before", n) if x is not None and sw is not None and _width(f, x, _DEPTH) in (OWN, sw) else None
        return self.decide(neg, classify)

    def sub_of_product(self, neg: ir.Instruction, dest: str) -> Decision | None:
        """J for a negation the source does not write: ``a - b * c`` in ``dest`` at the ``neg``'s location, which
        LLVM contracts into fma(−b, c, a) with the negation below b's cast (held-out seed 4703); the ring's
        a − b·c is a + (−b)·c, the negation after the cast (``after``). The caller checks that only fma
        multiplicands read the negation."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub)
                    and _width(f, n, _DEPTH) in (_DTYPE_WIDTH.get(_PTX_DTYPE.get(dest, "")), OWN)):
                return None
            r = _resolve(f, n.right, _DEPTH)
            return ("after", n) if isinstance(r, ast.BinOp) and isinstance(r.op, ast.Mult) else None
        return self.decide(neg, classify)

    def neg_cast_both(self, cvt: ir.Instruction, dest: str) -> bool:
        """The file writes both J forms of the x the cvt at ``cvt``'s location converts to ``dest``: ``(-x).to(T)``
        beside ``-(x.to(T))`` (or ``x.to(T) * -1.0``), which LLVM makes one negation of one cvt (held-out seed 63568,
        silent: ``fma(x.to(f16), x.to(f16) * -1.0, ..)`` beside ``(-x).to(f16)``), so a decision at one of them does
        not hold for the readers of the other."""
        found = self.nodes(cvt)
        dtype = _PTX_DTYPE.get(dest)
        if found is None or dtype is None:
            return False
        f, nodes = found
        # (the x of the cast at the location, or of its negated receiver: held-out seed 65838, silent,
        # ``minimum((-x).to(f16), -x.to(f16))`` with the cvt at the first)
        xs = {ast.dump(_bare(_negated(_resolve(f, _receiver(n), _DEPTH)) or _receiver(n))) for n in nodes
              if _cast_to(n) == dtype}

        def bare_cast(e: ast.expr | None) -> str | None:  # x of x.to(T)
            r = _resolve(f, e, _DEPTH) if e is not None else None
            return ast.dump(_bare(_receiver(r))) if r is not None and _cast_to(r) == dtype else None
        forms = set()
        for n in ast.walk(f.tree) if xs else ():
            inner = _negated(n)
            if inner is not None and bare_cast(inner) in xs:
                forms.add("after")
            sub = _resolve(f, n.right, _DEPTH) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) else None
            if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mult) and xs & {bare_cast(sub.left),
                                                                                     bare_cast(sub.right)}:
                forms.add("after")  # a - y * x.to(T): LLVM's fma(-(x.to(T)), y, a) (hand kernel after seed 187573)
            if isinstance(n, ast.expr) and _cast_to(n) == dtype:
                neg = _negated(_resolve(f, _receiver(n), _DEPTH))  # (not of x.to(T) itself: the store's r.to(T)
                if neg is not None and bare_cast(neg) is None and ast.dump(_bare(neg)) in xs:  # of r = -x.to(T))
                    forms.add("before")
        return len(forms) > 1

    def float_negation(self, xor: ir.Instruction, width: int) -> Decision | None:
        """``sign-xor`` of a ``width``-bit value no float instruction touches: the source negates there (``-x``,
        ``x * -1.0``), or stores a negation there (``tl.store(p, (-s).to(bf16))``, the xor sunk to the store: held-out
        seeds 55551, 55670, false alarms before), a float negation (``neg``) — of a value of that width or a load's
        own type: ``(-h.to(f64)).to(bf16)`` negates in the 64-bit ring, which the narrowing does not commute with
        (held-out seed 52161 at −0.0). An integer's negation is no xor, its bit flip a ``^``."""
        def negation(f: SourceFile, e: ast.expr | None) -> bool:
            x = _negated(e)
            return x is not None and _width(f, x, _DEPTH) in (OWN, CONST, width)

        def stored_negation(f: SourceFile, e: ast.expr | None, depth: int = 4) -> bool:
            e = _cast_chain(f, e)[1]  # (an arm of a where: the xor and select sunk to the store, LLVM's signbit test)
            return negation(f, e) or (depth > 0 and _method_call(e, "where", 3) and any(
                stored_negation(f, a, depth - 1) for a in e.args[1:3]))

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _module_call(n, "tl") == "store" and isinstance(n, ast.Call):
                value = n.args[1] if len(n.args) > 1 else next((k.value for k in n.keywords if k.arg == "value"), None)
                return ("neg", n) if stored_negation(f, value) else None
            return ("neg", n) if negation(f, n) else None
        return self.decide(xor, classify)

    def sub_of_cast(self, neg: ir.Instruction, dest: str) -> Decision | None:
        """J for a negation the source does not write: ``a - c.to(T)`` at the ``neg``'s location (``c`` no negation),
        which LLVM writes as an addend ``−c'`` of an fma or add (held-out seed 55126: ``(x * 0.5) * fma(..) -
        cos(..).to(bf16)``, a false alarm before); the ring's a − c' is a + (−c'), the negation after the cast. The
        caller checks that only addends read the negation."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub)):
                return None
            r = _resolve(f, n.right, _DEPTH)
            ok = r is not None and _cast_to(r) == _PTX_DTYPE.get(dest) and _negated(
                _resolve(f, _receiver(r), _DEPTH)) is None
            return ("after", n) if ok else None
        return self.decide(neg, classify)

    def negated_product(self, neg: ir.Instruction, dest: str) -> Decision | None:
        """J where the source negates a product in ``dest``: ``-(a.to(T) * b)`` at the ``neg``'s location, which LLVM
        writes as ``(−a)·b`` with the negation below a's cast (held-out seed 55102, a false alarm before); the ring's
        −(a·b) is (−a)·b, the negation after the cast (``after``). The caller checks that only products read the
        negation."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            inner = _negated(n)
            r = _resolve(f, inner, _DEPTH) if inner is not None else None
            return ("after", n) if (isinstance(r, ast.BinOp) and isinstance(r.op, ast.Mult)
                                    and _width(f, r, _DEPTH) == _DTYPE_WIDTH.get(_PTX_DTYPE.get(dest, ""))) else None
        return self.decide(neg, classify)

    def zero_sign(self, instr: ir.Instruction) -> Decision | None:
        """``copysign(x, 0.0)``: the source multiplies by a literal zero there (``mul``: LLVM rewrites ``0.0 * x`` of a
        finite x, e.g. an int conversion, as ``copysign(0.0, x)``) or calls a copysign (``copysign``)."""

        def zero_product(f: SourceFile, n: ast.expr | None) -> bool:
            return isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and 0.0 in (_number(n.left),
                                                                                        _number(n.right))

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if zero_product(f, n):
                return "mul", n
            if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
                # -(0.0 * x), through casts: LLVM's copysign(0.0, -x) at the negation; Triton's −0 is 0 all the same
                return ("mul", n) if zero_product(f, _cast_chain(f, n.operand)[1]) else None
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "store" \
                    and len(n.args) >= 2 and (v := _cast_chain(f, n.args[1])[1]) is not None and v is not n:
                # LLVM sank the sign's and to the store: the stored value, through casts and names, decides
                return classify(f, v)
            if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name)) and (
                    n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id) == "copysign":
                return "copysign", n
            return None
        # (an and with the sign bit may carry an inner cast's column: held-out seed 7517, 0.0 * (..).to(int8)...)
        return self.decide(instr, classify) or self.decide_enclosing(instr, classify)

    def narrow_negation(self, instr: ir.Instruction, width: int, narrowed: bool = False,
                        negated: list[str] | None = None) -> Decision | None:
        """``add``/``sub`` (an fma's addend) at a ``Sub``/``Add`` of the source whose right operand (any: ``Add``)
        negates something narrower than ``width`` bits (``a - (h * -1.0)``, h a half) or a loaded value, or is a
        widening cast of such a negation (``(h * -1.0).to(f32) + a``; the caller checks that the PTX widens a narrower
        operand): LLVM folded the narrow negation into the wide op, Triton negates in the narrow ring (``narrow``).
        ``narrowed``: the op is one LLVM shrank below the source's, at the location of the narrowing ``.to()`` call of
        the source's op (``((-h).to(f64) + y).to(f32)``). ``negated`` collects the name of the load negated (or "")."""
        want = {"add": ast.Sub, "sub": ast.Add, "fma": ast.Sub, "mad": ast.Sub}.get(instr.opcode)
        merged = (self.loc.get(id(instr)) or ("", 0, 1))[2] == 0  # (a line's loaded -y may be another op's: 86303)

        def summed(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            # the user's call of a sum of widened narrow negations: LLVM subtracts a widened x where the next element
            # adds −x (held-out seed 107911: tl.cumsum((-x).to(f64)) of an f32 x, silent at x = −0.0)
            if not (_module_call(n, "tl") in ("cumsum", "sum") and isinstance(n, ast.Call) and n.args):
                return None
            e = _resolve(f, n.args[0], _DEPTH)
            r = _resolve(f, _receiver(e), _DEPTH) if _cast_to(e) is not None and e else None
            inner = _negation_of(f, r)  # (a product with a negated factor: held-out seed 117323)
            w = _width(f, inner, _DEPTH) if inner is not None else None
            return ("narrow", n) if w is not None and (0 < w < width or w == OWN) else None

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if narrowed and _cast_to(n) is not None:
                n = _resolve(f, _receiver(n), _DEPTH) or n
            if _fma_call(n):  # tl.fma(a, b, c) as a * b + c (statement seed 3924: fma(1.0, -h, a) as a - h)
                assert isinstance(n, ast.Call)
                product = ast.copy_location(ast.BinOp(n.args[0], ast.Mult(), n.args[1]), n)
                n = ast.copy_location(ast.BinOp(product, ast.Add(), n.args[2]), n)
            if not (isinstance(n, ast.BinOp) and want is not None and isinstance(n.op, want)):
                return None
            ws = [_width(f, o, _DEPTH) for o in (n.left, n.right)]  # an op of narrower values (no load's) is no
            if all(w is not None and w != OWN for w in ws) and max(w for w in ws if w is not None) < width:
                return None  # wide op's (held-out seed 161760: h + (-x) of halves, an f32 x - x on its line, silent)
            sides = [n.right] if want is ast.Sub else [n.left, n.right]
            for side in sides:
                e = _resolve(f, side, _DEPTH)
                cast = e is not None and _cast_to(e) is not None
                if cast and e is not None:  # (h * -1.0).to(f32) of a loaded half h (held-out seed 5462): negated
                    e = _resolve(f, _receiver(e), _DEPTH)  # in h's own type
                # (also a narrow product with one negated factor promoted by the op, ring −(a·b): held-out seed
                # 116414, silent at −0.0: ((h * -1.0) * w) + q of bf16 h, w and an f32 q as q - h·w)
                inner = _negation_of(f, e)
                w = _width(f, inner, _DEPTH) if inner is not None else None
                if w is not None and (0 < w < width or (w == OWN and not merged)):  # a load the PTX widens: 6550
                    others = [o for o in (n.left, n.right) if o is not side]
                    # x.to(f64) - (-y): y is narrower only where the PTX widens it too (held-out seeds 64499, silent:
                    # an f64 y beside the widened x; 101184: beside minimum(x.to(f64), x.to(f64))): form ``beside``
                    beside = w == OWN and not cast and any(_cast_to(_one_value(f, o)) for o in others)
                    if negated is not None:
                        negated.append(load_target(f, _one_value(f, inner)) or "")
                    return ("beside" if beside else "narrow"), n
            return None
        got = self.decide(instr, classify)
        if got is None and want is ast.Add:
            with self.at_call_site(instr) as inlined:
                got = self.decide(instr, summed) if inlined else None
        return got

    def negation_narrowed(self, instr: ir.Instruction, width: int) -> Decision | None:
        """The value at ``instr``'s location (a store's value, or a ``.to()`` call) narrows to ``width`` bits a
        negation computed wider (``(-where(c, a, b)).to(f16)`` of f32 arms; held-out seed 6284): Triton narrows
        the wide ring's −φ(x), which is not the narrow ring's negation of the narrowed x (``before``)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "store" \
                    and len(n.args) >= 2:
                v = _resolve(f, n.args[1], _DEPTH)
            else:
                v = n
            if v is None or _cast_to(v) is None or _DTYPE_WIDTH.get(_cast_to(v) or "") != width:
                return None
            top, scanned_any, passed = v, False, []
            for _ in range(_DEPTH):
                if v is not None and (scanned := _scan_of(v)) is not None:
                    # a scan's first element is its operand's (held-out seeds 18885, 19017, silent at first contact:
                    # tl.cumsum(-x.to(f64)) narrowed and squared, the negation squared away)
                    v, scanned_any = _resolve(f, scanned, _DEPTH), True
                if v is None or _cast_to(v) is None:
                    break
                passed += [_DTYPE_WIDTH.get(_cast_to(v) or "")] if v is not top else []
                v = _resolve(f, _receiver(v), _DEPTH)
            inner = _negated(_without_double_negation(f, v))  # -(E * -1.0) is E (held-out seed 99522)
            w = _width(f, inner, _DEPTH) if inner is not None else None
            if inner is None or w is None or w <= width or any(c is not None and width < c < w for c in passed):
                return None  # (an earlier cast narrows the negation, which that cvt decides: held-out seed 225803's
                # r.to(bf16) of r = (P.to(f64) * -1.0).to(f32))
            # the negated value only widens values of the narrow width, through a select's arms (held-out seed
            # 21794: -where(c, x1.to(f64), x0.to(f64)) stored as f32): LLVM's select of the narrow values is exact
            arms = _arms(f, _resolve(f, inner, _DEPTH))
            narrow = next(k for k, t in _PTX_DTYPE.items() if t == _cast_to(top))
            if arms and all(_cast_to(a) is not None and _DTYPE_WIDTH[_cast_to(a) or ""] == w
                            and _width(f, _receiver(a), _DEPTH) in (OWN, width) for a in arms):
                return f"widened:f{w}:{narrow}" + (":scan" if scanned_any else ""), n
            return ("before:scan" if scanned_any else "before"), n  # (through a scan: its elements are sums)
        return self.decide(instr, classify)

    def negated_where_narrowed(self, instr: ir.Instruction, width: int, negated: bool = True) -> Decision | None:
        """The value at ``instr``'s location (a store's value, or a ``.to()`` call to ``width`` bits) narrows the
        negation of a ``tl.where`` (``(-tl.where(c, h, y)).to(bf16)``; not ``negated``: any ``tl.where`` in it, as
        ``maximum(v, -v)`` of one) whose type is not ``width`` bits — wider, or of loaded values, whose promotion the
        select's arms then show (:mod:`ptxkit.fpsan.fold_negated_promoted_select`); not one of narrow arms
        (held-out seed 194909, silent: ``-where(c, x.to(bf16), t.to(bf16))``, both arms narrowing cvts)."""
        def promoted(f: SourceFile, e: ast.expr | None) -> bool:
            w = _width(f, e, _DEPTH) if _module_call(e, "tl") == "where" and e is not None else width
            return w is None or w == OWN or w > width

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            v = _resolve(f, n.args[1], _DEPTH) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr == "store" and len(n.args) >= 2 else n
            if v is None or _cast_to(v) is None or _DTYPE_WIDTH.get(_cast_to(v) or "") != width:
                return None
            while v is not None and _cast_to(v) is not None and _DTYPE_WIDTH.get(_cast_to(v) or "") == width:
                v = _resolve(f, _receiver(v), _DEPTH)
            if not negated:  # (form "narrow": only wheres of narrow arms, a select at the narrow type)
                wheres = [r for e in ast.walk(v) if isinstance(e, ast.expr) and _module_call(
                    r := _resolve(f, e, _DEPTH), "tl") == "where"] if v is not None else []
                kinds = {promoted(f, e) for e in wheres}
                return (("before" if True in kinds else "narrow"), n) if len(kinds) == 1 else None
            inner = _negated(_without_double_negation(f, v))
            r = _resolve(f, inner, _DEPTH) if inner is not None else None
            return ("before", n) if _module_call(r, "tl") == "where" and promoted(f, r) else None
        return self.decide(instr, classify)

    def negated_narrow_operand(self, op: ir.Instruction, narrow: int) -> Decision | None:
        """The source at ``op``'s location (a product or quotient) has an operand ``-h`` of a ``narrow``-bit (or
        loaded) h: ``(-h) / 3.0`` of an f16 h, promoted to f32, which LLVM computes as ``h.to(f32) * (1/3)`` and
        negates after (held-out seed 194845, silent at h = −0: Triton negates in h's ring before widening)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mult, ast.Div))):
                return None
            inner = [x for side in (n.left, n.right) if (x := _negated(_resolve(f, side, _DEPTH))) is not None]
            return ("before", n) if len(inner) == 1 and _width(f, inner[0], _DEPTH) in (OWN, narrow) else None
        return self.decide(op, classify)

    def wide_negation_in_function(self, instr: ir.Instruction, width: int) -> str | None:
        """Where the kernel function at ``instr``'s location negates a value wider than ``width`` bits, if it does
        (held-out seed 10449: ``e = -x1.to(f64)``, then ``tl.cumsum(e)``'s first row stored as bf16 — LLVM's sign
        xor of the bf16 x1 at the store; the ring negation of the half differs from Triton's f64 one at −0)."""
        found = self.nodes(instr)
        if found is None:
            return None
        f, _ = found
        line = self.loc[id(instr)][1]
        fns = [n for n in ast.walk(f.tree) if isinstance(n, ast.FunctionDef)
               and n.lineno <= line <= (n.end_lineno or n.lineno)]
        for n in ast.walk(fns[-1]) if fns else ():
            inner = _negated(n) if isinstance(n, ast.expr) else None
            w = _width(f, inner, _DEPTH) if inner is not None else None
            if isinstance(n, ast.expr) and w is not None and w > width:
                return f.where(n)
        return None

    def negated_factor(self, instr: ir.Instruction, width: int, constant: float | None) -> Decision | None:
        """A ``mul``/``fma`` of a widened narrower value by a negative immediate (``-constant``) or a negation
        (``constant`` None): the source there multiplies a negation of a narrower value (or a widening cast of
        one) by ``constant`` or by anything (``(-h).to(f64) * 0.5``, ``(-h) * y``; LLVM moved the negation into the
        other factor), ``narrow``. Read at the location's expression, its operands and the values a call there
        reduces (a ``tl.cumsum(e)`` contracts ``e``'s product into its adds), then at an inlined function's
        call."""
        def negated_narrow(f: SourceFile, e: ast.expr | None) -> bool:
            if e is not None and _cast_to(e) is not None:
                e = _resolve(f, _receiver(e), _DEPTH)
            inner = _negated(e)
            w = _width(f, inner, _DEPTH) if inner is not None else None
            if w == OWN and constant is None:  # the widened factor is a load: -(x / x) * h is not (-h) * y
                loaded = _resolve(f, inner, _DEPTH) if inner is not None else None
                return isinstance(loaded, ast.Call) and isinstance(loaded.func, ast.Attribute) \
                    and loaded.func.attr == "load"
            return w is not None and (w == OWN or 0 < w < width)

        def product(f: SourceFile, n: ast.expr | None) -> bool:
            if not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult)):
                return False
            for a, b in ((n.left, n.right), (n.right, n.left)):
                rb, na = _resolve(f, b, _DEPTH), _negated(_resolve(f, a, _DEPTH))
                if constant is None and _cast_to(rb) is not None and na is not None and _width(f, na, _DEPTH) == OWN:
                    continue  # x.to(f32) * (-y) of a loaded y: the widening is the other factor, y's negation
                    # stayed (held-out seed 68499, silent at x = −0.0 with (-h) * y's fold)
                if (constant is None or _number(b) == constant) and negated_narrow(f, _resolve(f, a, _DEPTH)):
                    return True
            return False

        def exp_of_negation(f: SourceFile, n: ast.expr) -> bool:
            # tl.exp(E.to(f32)) is E·log2(e) then ex2: LLVM folds a negation of the narrow E (−h, or a narrow
            # product with one negated factor, (-x) * y) into the constant (held-out seed 104994, silent at x = −0)
            if constant != _LOG2E or _module_call(n, "tl") != "exp" or not isinstance(n, ast.Call) or len(n.args) != 1:
                return False
            e = _resolve(f, n.args[0], _DEPTH)
            inner = _resolve(f, _receiver(e), _DEPTH) if e is not None and _cast_to(e) is not None else None
            w = _width(f, inner, _DEPTH) if inner is not None else None
            if inner is None or w is None or not (w == OWN or 0 < w < width):
                return False
            if _negated(inner) is not None:
                return True
            factors = [_resolve(f, a, _DEPTH) for a in (inner.left, inner.right)] \
                if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Mult) else []
            return sum(_negated(a) is not None for a in factors) == 1

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if product(f, n) or any(product(f, _resolve(f, a, _DEPTH)) for a in _operands(n)) \
                    or exp_of_negation(f, n):
                return "narrow", n
            return None
        return self.decide_here_or_at_call(instr, classify)

    def cancelled_negations(self, instr: ir.Instruction, widened: bool = False) -> Decision | None:
        """At ``instr``'s location, a product ``A * B`` of two negations (``-x``, ``x * -1.0``, or one under float
        casts: ``(-x.to(f64)).to(bf16)``) where at least one goes through a cast: LLVM cancels the pair, while
        Triton's ring narrows (or widens and narrows) each negation, which is not the product of the plain values
        (held-out seed 36961: ``(-x1.to(f64)).to(bf16) * (-erf(x0)).to(bf16)`` as ``mul.bf16 x1, erf``, silent at
        x1 = −0)."""
        def kind(f: SourceFile, e: ast.expr) -> str | None:
            r = _one_value(f, e)
            if r is None:
                return None
            if _negated(r) is not None:
                return "plain"
            steps = _neg_steps(f, r)
            return "cast" if steps is not None and steps[-1] != "neg" else None

        def promoted(f: SourceFile, e: ast.expr, width: int | None) -> bool:  # -x of a narrower x, widened by the op
            x = _negated(_resolve(f, e, _DEPTH))
            w = _width(f, x, _DEPTH) if x is not None else None  # (a loaded x where the PTX widens an operand)
            return w is not None and width is not None and (0 < w < width or (w == OWN and widened))

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            p = _negated(n)  # -((-a) * q) of a half a and an f32 q (held-out seed 58851, silent at −0): the factor's
            if isinstance(p, ast.BinOp) and isinstance(p.op, ast.Mult) and any(  # negation is the half ring's
                    promoted(f, s, _width(f, p, _DEPTH)) for s in (p.left, p.right)):
                return "cancelled", n
            if _module_call(n, "tl") == "fma" and isinstance(n, ast.Call) and len(n.args) == 3:
                factors = n.args[:2]  # (held-out seed 112302: fma(t, t, t - t) of t = s.to(bf16), s a cumsum of
                # negations, whose first row LLVM reads as the un-negated value; silent at x = −0)
            elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
                factors = [n.left, n.right]
            else:
                return None
            kinds = [kind(f, s) for s in factors]
            return ("cancelled", n) if None not in kinds and "cast" in kinds else None
        return self.decide(instr, classify) or self.decide_within(instr, classify)


def _absorbs_negation(f: SourceFile, e: ast.expr) -> bool:
    """``e`` is a product with a number literal (``a * C``, ``C * a``, one factor negated too): LLVM folds its
    negation into the constant (``fneg(fmul a, C)`` → ``fmul a, −C``). Not a quotient: Triton's division is no
    ``fdiv`` of a constant that InstCombine sees (``(x.to(f64) / 3.0) * -1.0`` keeps a neg after the cvt)."""
    r = _resolve(f, e, _DEPTH)
    return isinstance(r, ast.BinOp) and isinstance(r.op, ast.Mult) and (
        _number(r.left) is not None or _number(r.right) is not None)


def _above_choices(f: SourceFile, n: ast.expr) -> tuple[ast.AST | None, ast.expr]:
    """The node above ``n`` past the choices of one value that hold it (``tl.minimum(n, n)``, ``tl.where(c, n, n)``:
    LLVM folds them to n, and Triton's ring takes n), and the outermost such choice (``n`` itself where none)."""
    up, chosen = f.parent.get(id(n)), n
    while isinstance(up, ast.expr) and (one := _one_value(f, up)) is not None and ast.dump(one) == ast.dump(n):
        chosen, up = up, f.parent.get(id(up))
    return up, chosen


def _one_negated_arm(f: SourceFile, e: ast.expr | None) -> ast.expr | None:
    """The one arm of ``tl.where(c, a, b)`` that is a negation (:func:`_negation_of`) when the other is none."""
    arms = _arms(f, e) if isinstance(e, ast.Call) else []
    negated = [a for a in arms if _negation_of(f, a) is not None]
    return negated[0] if len(arms) == 2 and len(negated) == 1 else None
