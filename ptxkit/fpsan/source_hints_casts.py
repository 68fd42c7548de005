"""Source hints for float casts LLVM shortened (issue 10; docs/fpsan.md §3 "Folds"): a narrowing ``cvt`` whose
source value the Python expression at its ``.loc`` computes at a wider type. ``fptrunc(fpext x)`` is
``fptrunc x`` in IEEE (the widening is exact), but Triton's FPSan narrows the 64-bit ring value, mixing in the
bits the widening's sign extension set (docs/fpsan.md, narrowing cast). :class:`CastHints` is a part of
:class:`~ptxkit.fpsan.source_hints.SourceHints`."""

from __future__ import annotations

import ast
import struct

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.source_ast import (
    _BINOP,
    _DEPTH,
    _DTYPE_WIDTH,
    _HALF,
    _INT_DTYPES,
    _PTX_DTYPE,
    _WIDE,
    OWN,
    Classify,
    Decision,
    SourceFile,
    _abs_argument,
    _abs_call,
    _arms,
    _as_op,
    _cast_to,
    _form,
    _int_width,
    _method_call,
    _module_call,
    _negated,
    _number,
    _one,
    _one_value,
    _receiver,
    _resolve,
    _returned,
    _scan_of,
    _to_dtype,
    _width,
)
from ptxkit.fpsan.source_locations import HintsBase
from ptxkit.fpsan.source_types import _no_casts
from ptxkit.fpsan.source_walk import subexpressions


def _widened_from(f: SourceFile, e: ast.expr, sw: int) -> bool:
    """``e`` (names followed) is a cast wider than ``sw`` bits of a value of ``sw`` bits or a load's own type (no
    number: its wide ring value is no sign extension of the narrow one's)."""
    r = _resolve(f, e, _DEPTH)
    return (r is not None and _DTYPE_WIDTH.get(_cast_to(r) or "", 0) > sw
            and _width(f, _receiver(r), _DEPTH) in (OWN, sw))


class CastHints(HintsBase):
    """Casts the source computes through a type the PTX no longer has."""

    def narrowed_f32(self, instr: ir.Instruction) -> Decision | None:
        """An f32 add/sub/mul carrying a ``.to(tl.float32)`` cast's location whose receiver is that op on
        operands widened to f64 (``(x.to(f64) * y.to(f64)).to(f32)``: LLVM shrinks it, the product of two
        f32 being exact in f64; held-out seeds 1516, 1610): ``f64``; that cast negated (``-(…).to(f32)``,
        the negation moved onto an operand): ``neg``. Anything else undecided (an f32 op)."""
        want = _BINOP.get(instr.opcode)
        imm = next((o for o in instr.operands[1:] if isinstance(o, ir.FloatImm)), None)
        value = struct.unpack("<f", imm.bits.to_bytes(4, "little"))[0] if imm is not None and imm.width == 32 else None

        def same_constant(e: ast.BinOp) -> bool:  # the op's number as the PTX immediate (a - c is add a, -c)
            c = _number(e.right)
            c = -c if c is not None and isinstance(e.op, ast.Sub) and want is ast.Add else c
            c = _number(e.left) if c is None else c
            return (c is None) if imm is None else (c is not None and struct.pack("<f", c) == struct.pack("<f", value))

        def width(f: SourceFile, op: ast.expr, e: ast.expr) -> int | None:
            """``_width`` of an operand, a helper's parameter read as its call's argument (``_sq(x.to(f64))`` of
            ``def _sq(a): return (a * a).to(f32)``: statement-level probe, silent)."""
            if isinstance(e, ast.Name) and (arg := self.call_arguments(instr, f, op)[0].get(e.id)) is not None:
                e = arg
            # (a choice of one value is that value: 1.5 * where(c, v, v) of an f64 v; statement-level seed 2699)
            return _width(f, _one_value(f, e) or e, _DEPTH)

        def classify(f: SourceFile, n: ast.expr, narrowed_only: bool = False,
                     by_constant: bool = False) -> tuple[str, ast.expr] | None:
            if want is None:
                return None
            if (neg_of := _negated(n)) is not None \
                    and _cast_to(inner_cast := _resolve(f, neg_of, _DEPTH)) == "float32":
                # -(x.to(f64) * y.to(f64)).to(f32): LLVM moves the negation onto an operand (held-out seed 32469);
                # through a name, or as v * -1.0 (v = (a * a).to(f32); tl.exp(-v): statement-level probe, silent)
                assert inner_cast is not None
                inner = classify(f, inner_cast, narrowed_only, by_constant)
                return ("neg", n) if inner is not None and inner[0] == "f64" else None
            while _cast_to(n) == "float32" and _cast_to(r := _resolve(f, _receiver(n), _DEPTH)) == "float32":
                assert r is not None
                n = r  # (e.to(f32).to(f32): the second cast is none; statement-level seed 2699)
            if _cast_to(n) != "float32":  # the op itself, on f32 values (held-out seed 9335: floor(h.to(f32)) - 0.5
                # on the line of (h.to(f64) + 1.0).to(f32), both at column 0)
                if narrowed_only or not (isinstance(n, ast.BinOp) and _as_op(n)[0] is want
                                         and (not by_constant or same_constant(n))):
                    return None
                if _form(width(f, n, n.left), width(f, n, n.right)) not in ("f32", "native"):
                    return None
                return ("cse" if _cse_twin(f, n, narrowed=False) else "native"), n
            # (through a select's arms, into which LLVM sinks the fptrunc: held-out seed 10698,
            # where(c, y.to(f64), y.to(f64) - 0.5).to(f32) as add.f32 y, -0.5 — silent at first contact)
            if imm is None and want is ast.Mult and not by_constant and (
                    how := _negated_widened_product(f, _resolve(f, _receiver(n), _DEPTH))):
                return f"neg-product:{how}", n
            arms = [e for e in _arms(f, _resolve(f, _receiver(n), _DEPTH)) if isinstance(e, ast.BinOp)]
            ops = [e for e in arms if _as_op(e)[0] is want and (not by_constant or same_constant(e))]
            if not ops and not by_constant and any(  # ((i.to(f64) * -1.0) - 0.5).to(f32) as sub.f32 -0.5, i32: LLVM
                    _form(width(f, e, e.left), width(f, e, e.right)) == "f64" for e in arms):
                # folded the f64 ops into another one (held-out seed 54683, silent); a negation moved into an add or a
                # sub is a ring identity too (−a − c = (−c) − a): the f64 op on the widened operands
                moved = want in (ast.Add, ast.Sub) and any(_negated(a) is not None for e in arms
                                                           for a in subexpressions(f, e))  # (names, helpers followed)
                ints = any(_int_to_f64(f, a) for e in arms for a in ast.walk(e) if isinstance(a, ast.expr))
                return ("int" if ints else "f64" if moved else "restructured"), n
            forms = {_form(width(f, e, e.left), width(f, e, e.right)) for e in ops}
            if forms == {"f64"} and any(_int_to_f64(f, a) for e in ops for a in (e.left, e.right)):
                return "int", n  # i.to(f64) * c: Triton's operand is the native int → f64 conversion (seed 17257)
            if forms != {"f64"}:
                return None
            return ("cse" if any(_cse_twin(f, e, narrowed=True) for e in ops) else "f64"), n

        def argument(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:  # (the library call's own argument)
            calls = [n] if _returned(f, n) is None else [  # (or in a helper's return: _sg(x.to(f64)) of def
                c for c in ast.walk(_resolve(f, n, _DEPTH) or n) if isinstance(c, ast.Call)]  # _sg(a): sigmoid(..))
            args = [_resolve(f, c.args[0], _DEPTH) for c in calls if isinstance(c, ast.Call) and (
                _module_call(c, "tl") or _module_call(c, "libdevice")) and len(c.args) == 1]
            got = {g for a in args if a is not None and (g := classify(f, a, narrowed_only=True)) is not None
                   and g[0] == "f64"}  # (the op itself, not the body's others)
            if len(got) != 1:
                return None
            one = got.pop()
            return ("neg", one[1]) if negated_in_body else one

        got = self.decide(instr, classify)
        if got is None:  # tl.sigmoid((a * a).to(f32)) of a = x.to(f64): the narrowed product carries the location
            # of the negation in sigmoid's body (standard.py), inlined at the user's call (statement-level probe,
            # silent)
            body = self.nodes(instr)
            negated_in_body = body is not None and any(
                isinstance(b, ast.UnaryOp) and isinstance(b.op, ast.USub) for b in body[1])
            # (not exp's own multiplier of the narrowed value, at the body's exp: k_sigmoid_of_narrowed_square_f32's
            # mul by log2(e), taken for the narrowed product)
            exp_step = imm is not None and imm.width == 32 and imm.bits & 0x7FFFFFFF == R.LOG2E_F32
            with self.at_call_site(instr) as inlined:
                got = self.decide(instr, argument) if inlined and not exp_step else None
        if got is None:  # several forms at the location (on the line, at column 0): the op's constant, else say so
            # (an f32 op taken for the narrowed one is silent)
            wide = self.decide(instr, lambda f, n: classify(f, n, narrowed_only=True))
            if wide is None:
                return None
            return (self.decide(instr, lambda f, n: classify(f, n, by_constant=True)) or _nested(self, instr, classify)
                    or Decision("both", wide.where))
        return got

    def int8_conversion(self, cvt: ir.Instruction) -> Decision | None:
        """A float → integer ``cvt`` at a ``.to(tl.int8)``/``.to(tl.uint8)`` call (NVPTX converts into 16 bits):
        the form is the dtype. An out-of-range ``fptosi`` to i8 is poison, so LLVM may drop the 8-bit wrap in one
        build and keep it in the other (held-out seeds 33573: the plain build drops it; 28003, 29235: Triton's)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            t = _to_dtype(n)
            return (t, n) if t in ("int8", "uint8") else None
        return self.decide(cvt, classify)

    def abs_widened_argument(self, reader: ir.Instruction, width: int) -> Decision | None:
        """An argument of the call (or an operand of the operator) at ``reader``'s location (a libdevice body's line,
        or the user's call it came from) is ``abs(x.to(W)).to(T)`` of a ``width``-bit x, T as wide as x and W wider:
        the |x| LLVM hoisted to the load is the value the reader reads (held-out seed 44432:
        ``sin(abs(x.to(f64)).to(f32))`` of an f32 x, silent at −0, the sin body's ring op reading it). Form ``W:T``,
        as :meth:`SourceHints.abs_widened`'s."""
        names = {"float32": "f32", **_HALF}

        def narrowed_abs(f: SourceFile, a: ast.expr) -> str | None:
            arg = _resolve(f, a, _DEPTH)
            t = _cast_to(arg)
            ab = _resolve(f, _receiver(arg), _DEPTH) if arg is not None and t in names else None
            if t is None or _DTYPE_WIDTH[t] != width or ab is None or not _abs_call(ab):
                return None
            assert isinstance(ab, ast.Call)
            inner = _resolve(f, ab.args[0], _DEPTH)
            wide = _cast_to(inner)
            if inner is None or wide not in _WIDE or _DTYPE_WIDTH[wide] <= width:
                return None
            return f"{_WIDE[wide]}:{names[t]}" if _width(f, _receiver(inner), _DEPTH) in (width, OWN) else None

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            args = n.args if isinstance(n, ast.Call) else [n.left, n.right] if isinstance(n, ast.BinOp) else \
                [n.left, *n.comparators] if isinstance(n, ast.Compare) else []
            forms = {m for a in args if (m := narrowed_abs(f, a)) is not None}
            return (forms.pop(), n) if len(forms) == 1 else None
        return self.decide_here_or_at_call(reader, classify)

    def f32_int(self, cvt: ir.Instruction, dest: str) -> Decision | None:
        """``cvt.rzi.sN.f32 d, x`` of Triton's ``x.to(tl.float64).to(intN)`` (``f64``: LLVM drops the fpext,
        Triton's ring widens the payload first; held-out seed 1473), also of a choice of such widenings (``f64``) or
        of them and a constant (``mixed``, :func:`widened_choice`); anything else undecided."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            t = _to_dtype(n)
            # (through a choice of one value: tl.where(c, d.to(f64), d.to(f64)).to(int8), held-out seed 4383)
            recv = _one_value(f, _receiver(n)) if t in _INT_DTYPES else None
            if recv is None or max(16, _int_width(t or "")) != max(16, int(dest[1:])):
                return None
            if _cast_to(recv) != "float64":
                return (form, n) if (form := widened_choice(f, recv)) else None
            # the cvt reads f32, so the .to(f64)'s receiver is f32 unless the source says otherwise (1560: a dot),
            # or a half that LLVM widened to f32 (held-out seed 3282: a half sum, shuffled as f32): the ring widening
            # of its f32 payload to f64 is the half's
            inner = _resolve(f, _receiver(recv), _DEPTH)
            if _to_dtype(inner) in _INT_DTYPES:
                return None  # i.to(f64).to(int64) of an integer (held-out seed 7104: x.to(int64).to(f64).to(int64)),
                # which Triton folds: the cvt is the first .to(int64), from f32
            return ("f64", n) if _width(f, _receiver(recv), _DEPTH) != 64 else None

        def any_int(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:  # every int conversion of that width
            t = _to_dtype(n)
            ok = t in _INT_DTYPES and max(16, _int_width(t or "")) == max(16, int(dest[1:]))
            return (classify(f, n) or ("direct", n)) if ok else None
        got = self.decide(cvt, classify)
        if got is None and (loc := self.loc.get(id(cvt))) is not None and loc[1] == 0:
            got = self.decide_in_file(cvt, any_int)  # no location (LLVM's line 0, held-out seed 75724: the last of
            # eight copies, silent): the file's one form of such a conversion, if one
        return got if got is not None and got.form in ("f64", "mixed") else None

    def narrowed_from_wider(self, cvt: ir.Instruction, dest: str, source: str,
                            of_extremum: bool = False) -> Decision | None:
        """A ``cvt.rn.{dest}.{source}`` at a ``.to(dest)`` call whose receiver the source computes explicitly wider
        than ``source`` with exact work LLVM dropped along with the widening — a negation squared away, a scan's
        first element (``s.to(bf16)`` of ``s = tl.cumsum(-x.to(f64))``, an f32 x: held-out seed 18885, silent at first
        contact), which Triton's ring narrows from f64: form ``wider``. The bare ``x.to(f64).to(bf16)`` Triton's own
        pipeline folds before FPSan (held-out seed 3218), and an abs or max/min of widenings has folds of its own
        (folds_sign): None."""
        sw = _DTYPE_WIDTH.get(_PTX_DTYPE.get(source, ""))

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _cast_to(n) != _PTX_DTYPE.get(dest) or sw is None:
                return None
            # where(c, x.to(f64), x.to(f64)).to(bf16): Triton folds the select, then truncf(extf(x)) (held-out seed
            # 67531, reported as a dropped widening)
            recv = _one_value(f, _receiver(n))
            if (isinstance(recv, ast.Call) and isinstance(recv.func, ast.Attribute) and recv.func.attr in ("max", "min")
                    and recv.args and (arg := _resolve(f, recv.args[0], _DEPTH)) is not None
                    and _DTYPE_WIDTH.get(_cast_to(arg) or "", 0) > sw
                    and _width(f, _receiver(arg), _DEPTH) in (OWN, sw)):
                return "reduced", n  # tl.max(x.to(f64)).to(f16): reduced at f32 by LLVM, exactly (seed 22539)
            if recv is not None and _module_call(recv, "tl") in ("minimum", "maximum") and isinstance(recv, ast.Call) \
                    and len(recv.args) >= 2 and any(_widened_from(f, a, sw) for a in recv.args[:2]) \
                    and ast.dump(recv.args[0]) != ast.dump(recv.args[1]):  # (maximum(a, a) is a, and Triton folds
                # the widening the narrowing then reads: held-out seed 60716, silent with this rule's first form)
                # minimum(y.to(f64), x.to(f64)).to(f16): min.f32, exactly (held-out seed 66687, silent); a number
                # beside it is no sign extension of its f32 payload (minimum(y.to(f64), 0.5)): reported
                both = all(_widened_from(f, a, sw) or _width(f, a, _DEPTH) in (OWN, sw) for a in recv.args[:2])
                return ("reduced" if both else "wider"), n
            w = _width(f, recv, _DEPTH) if recv is not None else None
            if recv is None or w is None or w not in (32, 64) or w <= sw:
                return None
            return ("wider", n) if (_negated(recv) is not None or _scan_of(recv) is not None
                                    or _where_of_widening(f, recv, sw)) else None

        def or_plain(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            # (a plain narrowing on the line too: at a merged location, column 0, either may be this cvt — the
            # max/min's where ``of_extremum`` (the cvt reads one), else the plain one: statement seed 6010, silent:
            # x1.to(bf16) and maximum(x0.to(f64), ..).to(bf16) on one line)
            return classify(f, n) or (("plain", n) if _cast_to(n) == _PTX_DTYPE.get(dest) else None)
        got = self.forms_at(cvt, or_plain)
        if got is None or (("plain" in got[1]) and not of_extremum):
            return None
        return _one(got[0], {k: v for k, v in got[1].items() if k != "plain"})

    def abs_at_cast(self, cvt: ir.Instruction, dest: str, source: str) -> Decision | None:
        """The abs/cvt order told at the ``cvt``'s own location (the ``.to(T)`` call; LLVM gives a moved abs
        the store's, held-out seeds 995, 1032): the call's receiver is an abs of an x of the cvt's ``source``
        type (``abs(x).to(T)``: ``outside``), or the call is an abs's argument (``abs(x.to(T))``: ``inside``)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _abs_call(n):  # the cvt at the abs call's own location (held-out seed 1403: tl.abs(x0.to(f64)))
                assert isinstance(n, ast.Call)
                arg = _abs_argument(f, n)
                return ("inside", n) if arg is not None and _cast_to(arg) == _PTX_DTYPE.get(dest) else None
            if _cast_to(n) != _PTX_DTYPE.get(dest):
                return None
            recv = _resolve(f, _receiver(n), _DEPTH)
            if recv is not None and (scanned := _scan_of(recv)) is not None:
                recv = _resolve(f, scanned, _DEPTH)  # a scan's first row, the abs's own (held-out seed 22343)
            if recv is not None and len(abs_arms := [a for a in _arms(f, recv) if _abs_call(a)]) == 1:
                recv = abs_arms[0]  # LLVM sinks the cvt into a select's arms, the abs below it (held-out seed 23249)
            sw = _DTYPE_WIDTH.get(_PTX_DTYPE.get(source, ""))
            back = _cast_to(recv)  # abs(h.to(W)).to(S).to(T), narrowed back to the half's S first (held-out 12601)
            if back is not None and recv is not None and _DTYPE_WIDTH[back] == sw and back in _HALF:
                inner = _resolve(f, _receiver(recv), _DEPTH)
                wide = _abs_via(f, inner, sw, back) if inner is not None else None
                return (f"via-{wide}-{_HALF[back]}", n) if wide else None
            if back is not None and recv is not None and sw is not None and _DTYPE_WIDTH[back] > sw:
                # abs(x).to(W).to(T) of an S-bit x, W wider: Triton's pipeline folds the exact widening the
                # narrowing reads before FPSan sees it (as x.to(f64).to(bf16), held-out seed 3218), leaving the
                # ring cast of |x| from S (held-out seed 21785)
                recv = _resolve(f, _receiver(recv), _DEPTH)
            if _abs_call(recv):
                assert isinstance(recv, ast.Call)
                arg = _resolve(f, recv.args[0], _DEPTH)
                w = _width(f, arg, _DEPTH) if arg is not None else None
                # a loaded x is the cvt's source itself (LLVM converts the loaded type): seed 1099's abs(x1); so is
                # uncast arithmetic on loads, whatever type promotion gave it (held-out seed 24090: abs(a / a))
                # (an abs of the cast too, abs(abs(x).to(T)): "+abs", one sign-bit and in the PTX, held-out seed 24703)
                again = "+abs" if _abs_call(f.parent.get(id(n))) else ""
                if arg is not None and _round_trip_through(f, arg, _PTX_DTYPE.get(dest, "")):
                    return None  # abs(where(c, s.to(T).to(f32), q)).to(T): LLVM drops the round trip (163593)
                if w in (OWN, sw) or (w is None and arg is not None and _no_casts(f, arg)):
                    return "outside" + again, n
                # abs(x.to(f64)).to(f16) of an f32 x: LLVM drops the exact widening (held-out seed 1180)
                if w == 64 and sw == 32:
                    return "outside-f64" + again, n
                # abs(h.to(W)).to(T) of a half h (W neither the cvt's source nor its dest): LLVM drops the widening,
                # Triton's ring computes the abs at W (held-out seeds 15309, 13496): form via-W
                via = _abs_via(f, recv, sw, _PTX_DTYPE.get(dest, ""))
                return (f"via-{via}", n) if via else None
            parent = f.parent.get(id(n))
            return ("inside", parent) if isinstance(parent, ast.expr) and _abs_call(parent) else None
        return self.decide(cvt, classify)


    def half_fma(self, fma: ir.Instruction) -> Decision | None:
        """A 16-bit ``fma`` at an add/sub of the source one of whose terms is a half narrowing of a wider product
        (``a + (-(x.to(f32) * y.to(f32))).to(f16)``: held-out seed 84547, silent at first contact in 59/64 elements):
        LLVM narrowed the exact product into the fma, while Triton's FPSan multiplies in the wide ring and narrows
        with its hash fold (form ``wide``); else None."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub))):
                return None
            sides = [_narrowed_wide_product(f, side) for side in (n.left, n.right)]
            return ("wide" if all(sides) else "wide:one", n) if any(sides) else None
        return self.decide(fma, classify)


def _narrowed_wide_product(f: SourceFile, side: ast.expr) -> bool:
    """``side`` is ``(±(a * b)).to(half)`` (or its negation) with the product at f32 or f64."""
    t = _resolve(f, side, _DEPTH)
    t = _resolve(f, inner, _DEPTH) if (inner := _negated(t)) is not None else t
    if t is None or _cast_to(t) not in ("float16", "bfloat16"):
        return False
    p = _resolve(f, _receiver(t), _DEPTH)
    p = _resolve(f, inner, _DEPTH) if (inner := _negated(p)) is not None else p
    return isinstance(p, ast.BinOp) and isinstance(p.op, ast.Mult) and (
        _form(_width(f, p.left, _DEPTH), _width(f, p.right, _DEPTH)) in ("f32", "f64"))


_WIDE_TAG = {"float32": "f32", "float64": "f64"}


def widened_choice(f: SourceFile, e: ast.expr, wide: str = "float64", depth: int = _DEPTH) -> str | None:
    """W (``f64``; ``f32`` with ``wide``) where ``e`` is a ``tl.maximum``/``tl.minimum``/``tl.where`` whose arms are
    each ``.to(W)`` of a narrower value (or ``0.0``, 0 in either ring), or such a choice: LLVM moves the choice below
    the exact fpext and drops the fpext before the fptosi, Triton's ring widens each payload, whose max/min/select is
    the widening of theirs (held-out seed 170795, silent at first contact: ``tl.minimum(x0.to(f64),
    x2.to(f64)).to(tl.int16)`` of f32 values as ``cvt.rzi.s16.f32`` of a min; of halves, ``cvt.rzi.s32.f16``).
    ``mixed`` where an arm is another number: its W constant is no widening of the narrow one LLVM selects
    (``tl.where(c, x.to(f64), 3.0)``); else None."""
    arms = (e.args[1:3] if _method_call(e, "where", 3) else e.args[:2] if _method_call(e, "maximum", 2)
            or _method_call(e, "minimum", 2) else [])
    if not arms or depth == 0:
        return None
    tag, bits = _WIDE_TAG[wide], _DTYPE_WIDTH[wide]
    forms: set[str | None] = set()
    for a in (_one_value(f, x) for x in arms):
        c = _number(a) if a is not None else None
        if c is not None:
            forms.add(tag if c == 0.0 and str(c)[0] != "-" else "mixed")
        elif a is not None and _cast_to(a) == wide and (w := _width(f, _receiver(a), _DEPTH)) is not None and w < bits:
            forms.add(tag)
        else:
            forms.add(widened_choice(f, a, wide, depth - 1) if a is not None and _cast_to(a) is None else None)
    return None if None in forms or forms == {"mixed"} else "mixed" if "mixed" in forms else tag


def _abs_via(f: SourceFile, n: ast.expr, sw: int | None, dest: str) -> str | None:
    """W (``f32``/``f64``) of ``abs(h.to(W))`` whose h is ``sw`` bits wide (or loaded), W wider than h and not the
    ``dest`` dtype the value is cast to next; else None."""
    if not _abs_call(n) or sw is None:
        return None
    arg = _resolve(f, n.args[0], _DEPTH)
    cast = _cast_to(arg) if arg is not None else None
    if arg is None or cast not in _WIDE or _DTYPE_WIDTH[cast] <= sw or cast == dest:
        return None
    return _WIDE[cast] if _width(f, _receiver(arg), _DEPTH) in (OWN, sw) else None


def _where_of_widening(f: SourceFile, e: ast.expr, sw: int) -> bool:
    """``e`` is a ``tl.where`` with an arm ``y.to(W)`` widening an ``sw``-bit y (the other arm of another type, a
    literal say): Triton narrows the ring select of the wide values, where LLVM selects the narrowed arms (held-out seed
    49895's family: ``tl.where(c, 3.0, x.to(f64))`` stored as f16 of an f32 x, silent)."""
    if not _method_call(e, "where", 3):
        return False
    for a in e.args[1:]:
        r = _resolve(f, a, _DEPTH)
        if r is not None and _cast_to(r) is not None and _DTYPE_WIDTH[_cast_to(r) or ""] > sw \
                and _width(f, _receiver(r), _DEPTH) in (OWN, sw):
            return True
    return False


def int_cast_wider(f: SourceFile, e: ast.expr, dest: str) -> bool:
    """``e`` (an arm of a select, under abs and negations, names followed) is an integer's cast to a float type
    wider than ``dest``: LLVM converts the integer straight to ``dest`` (exact when it fits), Triton to the wider
    type, then narrows the ring payload with its hash fold."""
    todo = [e]
    for _ in range(_DEPTH):
        if not todo:
            return False
        x = _resolve(f, todo.pop(), _DEPTH)
        if x is None:
            continue
        if _method_call(x, "where", 3):
            todo += x.args[1:]
        elif _abs_call(x):
            todo.append(x.args[0])
        elif (inner := _negated(x)) is not None:
            todo.append(inner)
        elif (t := _to_dtype(x)) in _DTYPE_WIDTH and _DTYPE_WIDTH[t] > _DTYPE_WIDTH[dest] and \
                _to_dtype(_resolve(f, _receiver(x), _DEPTH)) in _INT_DTYPES:
            return True
    return False


def cast_back_to_int(f: SourceFile, n: ast.expr) -> bool:
    """``n`` is the receiver of an integer cast, ``n.to(tl.intN)``: an integer's half ``i.to(f16).to(int16)`` that
    LLVM drops as an exact round trip, which Triton's φ⁻¹(φ(v)) = v computes as one too (held-out seed 77311)."""
    up = f.parent.get(id(n))
    return isinstance(up, ast.Attribute) and up.attr == "to" and _to_dtype(f.parent.get(id(up))) in _INT_DTYPES


def _round_trip_through(f: SourceFile, e: ast.expr, dtype: str) -> bool:
    """``e`` (names followed) holds ``y.to(dtype).to(W)``, a round trip through the type a later ``.to(dtype)``
    narrows to: LLVM drops it there (narrowing twice is narrowing once), where Triton's ring narrows, widens, then
    computes on (held-out seed 163593: ``abs(where(c, sin(x).to(bf16).to(f32), q)).to(bf16)``, silent)."""
    return any(_cast_to(n) not in (None, dtype) and _cast_to(_resolve(f, _receiver(n), _DEPTH)) == dtype
               for n in subexpressions(f, e))


def _int_to_f64(f: SourceFile, e: ast.expr) -> bool:
    """``i.to(tl.float64)`` of an integer-typed ``i`` (a ``.to(tl.intN)`` cast), through names."""
    r = _resolve(f, e, _DEPTH)
    return r is not None and _cast_to(r) == "float64" and _to_dtype(_resolve(f, _receiver(r), _DEPTH)) in _INT_DTYPES


def _cse_twin(f: SourceFile, e: ast.BinOp, narrowed: bool) -> bool:
    """The statement of ``e`` (an f32 ``a OP b``, or the f64 ``a.to(f64) OP b.to(f64))`` of a narrowing when
    ``narrowed``) also has the other one on the same a and b: LLVM shrinks the narrowed op to the f32 one and CSE
    makes both one instruction, whose readers want the two values of Triton's ring (held-out seed 172374, silent at
    first contact: ``tl.fma((x0 * x2) * x0, .., (x0.to(f64) * x2.to(f64)).to(f32))``)."""
    def key(b: ast.BinOp, wide: bool) -> tuple[str, ...] | None:
        sides = (b.left, b.right)
        xs = [_receiver(x) if _cast_to(x) == "float64" else x if _number(x) is not None else None for x in sides] \
            if wide else [None if _cast_to(x) is not None else x for x in sides]
        if any(x is None for x in xs):
            return None
        dumps = [ast.dump(x) for x in xs if x is not None]
        return tuple(sorted(dumps) if isinstance(b.op, (ast.Add, ast.Mult)) else dumps)
    own = key(e, narrowed)
    stmt: ast.AST | None = e
    while stmt is not None and not isinstance(stmt, ast.stmt):
        stmt = f.parent.get(id(stmt))
    if own is None or stmt is None:
        return False
    return any(isinstance(m, ast.BinOp) and m is not e and type(m.op) is type(e.op) and key(m, not narrowed) == own
               and (narrowed or _cast_to(f.parent.get(id(f.parent.get(id(m))))) == "float32") for m in ast.walk(stmt))


def _nested(hints: HintsBase, instr: ir.Instruction, classify: Classify) -> Decision | None:
    """``nested`` where the two forms at ``instr``'s location are an f32 op whose operand is the narrowing of the
    same op on widened values, ``(a.to(f64) * b.to(f64)).to(f32) * c``: both start at one column, so which PTX op is
    which only the dataflow says (held-out seed 200333, silent at first contact); else None."""
    got = hints.forms_at(instr, classify)
    if got is None or set(got[1]) != {"native", "f64"}:
        return None
    f, forms = got
    outer, cast = forms["native"], forms["f64"]
    if not (isinstance(outer, ast.BinOp) and cast in (outer.left, outer.right)):
        return None
    return Decision("nested", f.where(cast))


def _negated_widened_product(f: SourceFile, e: ast.expr | None) -> str | None:
    """``neg`` for ``-(P.to(f64))``, ``mul`` for ``P.to(f64) * -1.0`` (either order), P a product of values no wider
    than f32; else None. LLVM shrinks ``(that).to(f32)`` to P's own f32 ``mul`` with the negation moved onto an
    operand (held-out seed 225803: ``((x * x).to(f64) * -1.0).to(f32)`` as ``mul.f32 d, x, -x``, taken for the
    product of x and -x widened, reported only for a later narrowing)."""
    inner = _negated(e)
    w = _resolve(f, inner, _DEPTH) if inner is not None else None
    if w is None or _cast_to(w) != "float64":
        return None
    p = _resolve(f, _receiver(w), _DEPTH)
    if not (isinstance(p, ast.BinOp) and _as_op(p)[0] is ast.Mult) or _form(
            _width(f, p.left, _DEPTH), _width(f, p.right, _DEPTH)) == "f64":
        return None
    return "neg" if isinstance(e, ast.UnaryOp) else "mul"
