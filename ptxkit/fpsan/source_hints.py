"""Source hints for LLVM's ambiguous folds (issue 10 K J H; docs/fpsan.md §3 "Folds", docs/cli.md
``--source-hints``): Triton's PTX keeps ``.loc FILE LINE COL`` debug lines and ``.file N "kernel.py"``
naming the Python source. When that file exists and parses, the expression at the ``.loc`` of a folded
instruction often says which source form produced it:

* K ``add.fT d, x, x``: Triton's column is the ``BinOp``'s (1-based); ``x * 2.0`` gives ``mul2``, an
  ``Add`` of two identical operands ``add``.
* J a sign xor of a float ``cvt``: the xor carries the store's ``.loc`` (LLVM sank the ``fneg``), the
  cvt the ``.to(T)`` call's: ``(-x).to(T)`` gives ``before``, ``-(x.to(T))`` ``after``.
* H a 16-bit ``add/sub/mul``: a narrowed one carries the ``.to(f16)`` cast's ``.loc`` (the
  ``fptrunc``), its receiver (through one-assignment names) the f32/f64 ``BinOp`` on ``.to(tl.float32)``
  operands; a genuine half op its own ``BinOp`` on 16-bit values. ``setp`` the ``Compare``'s.
* E ``cvt.rzi.sN.f16`` carries the integer ``.to(tl.intN)`` call's ``.loc``: its receiver ``h.to(tl.float64)``
  of a half gives ``f64``, ``h.to(tl.float32)`` or a half itself (Triton converts a half to an integer
  through f32) ``f32``.
* ``cvt.rn.f16.sN`` carries the ``.to(tl.float16)`` call's: an integer receiver (``i.to(tl.int16)``, or
  ``i.to(tl.float32)`` of one, which Triton folds before its FPSan) gives ``native``; float arithmetic
  between them (seed 51) stays undecided.

Safety against a stale source (edited after compiling): the node found must agree with the instruction
(the operator, the operands' shape, the cast's type); anything else, a missing file, or one that does
not parse leaves the fold undecided (the default form, reported). Only ``.py`` files are read.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ptxkit import ir
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
    _bare,
    _cancels,
    _cast_to,
    _chain_casts_to,
    _classify,
    _combine_op,
    _commuted,
    _form,
    _int_width,
    _is_two,
    _method_call,
    _narrowed_to,
    _negated,
    _number,
    _one,
    _one_value,
    _receiver,
    _reduction_of,
    _refolded,
    _resolve,
    _ring_chain,
    _same,
    _same_type_args,
    _scan_of,
    _to_dtype,
    _width,
    _without_double_negation,
    _without_folded_widening,
)
from ptxkit.fpsan.source_hints_abs import AbsHints
from ptxkit.fpsan.source_hints_casts import CastHints, _int_to_f64, cast_back_to_int, int_cast_wider, widened_choice
from ptxkit.fpsan.source_hints_compare import CompareHints
from ptxkit.fpsan.source_hints_libcall import LibcallHints
from ptxkit.fpsan.source_hints_reduce import ReduceHints
from ptxkit.fpsan.source_hints_sign import SignHints, _transcendental
from ptxkit.fpsan.source_locations import _same_value, load_target
from ptxkit.fpsan.source_self_add import _self_add_ambiguous, promoted_two, two_like
from ptxkit.fpsan.source_types import _own_or_promoted, int_valued


class SourceHints(SignHints, AbsHints, CastHints, LibcallHints, CompareHints, ReduceHints):
    """The source's decisions of LLVM's ambiguous folds for one function (the module docstring); the negation and
    sign ones are :class:`~ptxkit.fpsan.source_hints_sign.SignHints`' and
    :class:`~ptxkit.fpsan.source_hints_abs.AbsHints`', the locations
    :class:`~ptxkit.fpsan.source_locations.HintsBase`'."""

    def self_add(self, instr: ir.Instruction, lane: str, loaded: str | None = None,
                 converted: str | None = None, load: str | None = None) -> Decision | None:
        """K: ``add x, x`` from ``x * 2.0`` (``mul2``) or ``x + x`` (``add``); under a narrowing cast's
        ``.loc`` (seed 98: ``(2.0 * x.to(tl.float64)).to(tl.float32)``, LLVM shrinks the f64 op) the same
        on the widened operand, ``mul2-f64``/``add-f64`` (``-f32`` for halves). Nothing at the location:
        the one form among its sub-expressions whose operand is a ``.to()`` of the add's type (seed 118:
        ``pow(…) * (s.to(f64) + s.to(f64))``, the add carrying the product's column). ``loaded``: the PTX's operand
        narrows a load of that type, so an uncast loaded operand in the source is of that type. A form on another
        value is another add's: of a math call where the PTX's operand is ``converted`` (held-out seed 119523: x + x
        hoisted into ``pow(x, x)``'s body at ``pow(..) * 2.0``'s column), of any but the name the operand is the
        ``load`` of (128298: ``x1 * 2.0`` beside ``x0.to(f32) + x0.to(f32)``, the add at column 0)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _cast_to(n) is not None:
                wide = _widened_self_add(f, n, lane)
                # (a narrowing LLVM kept made the forms two adds, 126295; a widening is the same cvt for both:
                # held-out seed 181080, silent, (h.to(f64) + h.to(f64)).to(f32) beside 2.0 * h.to(f32))
                if wide is None or wide[0] == "both" or converted == "narrowing":
                    return wide[:2] if wide is not None else None
                # beside the lane's own form of the value, one add after LLVM's CSE (held-out seed 160526, silent)
                own = _PTX_DTYPE.get(loaded or "") if _width(f, _bare(wide[2]), _DEPTH) == OWN else None
                return ("both", n) if _self_add_ambiguous(f, ast.dump(_bare(wide[2])), _PTX_DTYPE.get(lane),
                                                          own) else wide[:2]
            at, n = n, _without_double_negation(f, n) or n  # LLVM drops -(E * -1.0) (held-out seed 99522)
            shape = _self_add_shape(n, lambda e: two_like(f, e, self.call_arguments(instr, f, e)[0]))
            if shape is None and (inner := _negated(n)) is not None:
                # (E) * -1.0: the negation LLVM computes apart carries E's add at its location (held-out seed 170583:
                # ((x0 * 2.0) * -1.0) reduced by tl.sum)
                shape = _self_add_shape(_resolve(f, inner, _DEPTH))
            if shape is None:
                return None
            form, x = shape
            form = "mul2-f32" if form == "mul2" and lane in ("f16", "bf16") and promoted_two(f, n) is not None else form
            if converted and _transcendental(_one_value(f, x)):  # (a cast of the call is a conversion: 122020)
                return None
            if load is not None and load_target(f, _one_value(f, _bare(x))) not in (None, load):
                return None
            # the other form on the same operand anywhere in the file: LLVM's CSE may have made both one add
            # (held-out seed 2363: (s + s) / (s * 2.0) as add t, s, s; div t, t): no one answer
            own = _PTX_DTYPE.get(loaded or "") if _width(f, _bare(x), _DEPTH) == OWN else None
            both = (_self_add_ambiguous(f, ast.dump(_bare(x)), _PTX_DTYPE.get(lane), own)
                    or _other_arm_doubles(f, at, form, x))
            return ("both", at) if both else (form, at)

        loc = self.loc.get(id(instr))

        def typed(f: SourceFile, n: ast.expr, own: bool = False) -> tuple[str, ast.expr] | None:
            """``classify`` where the operand is explicitly of the add's type (``y.to(tl.float64)``), or (``own``)
            a value of its own type (a load, a parameter)."""
            if not isinstance(n, ast.BinOp):
                return None
            got = _classify(classify, f, n)
            y = n.left if got is None or got[0] == "add" or _is_two(n.right) else n.right
            w = _width(f, y, _DEPTH)
            own_typed = w == OWN or (w is None and lane in ("f32", "f64") and _own_or_promoted(f, y, _DEPTH))
            return got if w == _DTYPE_WIDTH.get(_PTX_DTYPE.get(lane, "")) or (own and own_typed) else None
        exact = self.decide(instr, classify) if loc is not None and loc[2] != 0 else None
        # then a loaded value's own type (held-out seeds 2462: the next element's 2.0 * x0 of an f64 x0 at 12:0;
        # 2348: a * 2.0 that LLVM shared with pow(a, a)'s x + y test, at the call's location)
        got = exact or self.decide_within(instr, typed)
        if got is None and loc is not None and (loc[2] == 0 or self._at_call(instr)):
            got = self.decide_within(instr, lambda f, n: typed(f, n, own=True), whole_line=True)
        if got is None and loc is not None and loc[1] == 0:  # LLVM's "no location" (held-out seed 35394: the later
            got = self.decide_in_file(instr, lambda f, n: typed(f, n, own=True))  # exp2(2.0 * a) copies at 0:10)
        return None if got is not None and got.form == "both" else got

    def _at_call(self, instr: ir.Instruction) -> bool:
        """A ``libdevice.NAME(...)`` call starts at ``instr``'s location: the op LLVM shared with the inlined
        body (``pow(a, a)``'s x + y and the user's ``a * 2.0``) carries the call's location."""
        found = self.nodes(instr)
        return found is not None and any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
            and (n.func.value.id == "libdevice" or (n.func.value.id == "tl" and n.func.attr in _INLINED_MATH))
            for n in found[1])

    def half(self, instr: ir.Instruction) -> Decision | None:
        """H: a 16-bit add/sub/mul/setp is half arithmetic (``native``) or f32/f64 arithmetic on
        widened halves (``f32``/``f64``); of an f32 setp, ``f64`` is a comparison of f32s widened to f64."""
        want = _BINOP.get(instr.opcode)
        ops = _SETP_SOURCE_OPS.get(next((m for m in instr.mods if m in _SETP_SOURCE_OPS), ""), _ANY_CMP)

        def fits(op: type[ast.operator] | None) -> bool:  # (not Add for a sub: LLVM's x - y of x + (-y) is the
            # ring's only where -y is a negation in the op's type, held-out 807, 2238: (-y.to(f64)).to(bf16))
            return want is not None and op is want

        def classify(f: SourceFile, n: ast.expr, any_cmp: bool = False) -> tuple[str, ast.expr] | None:
            if instr.opcode == "setp":  # (only a comparison the predicate can be: held-out seed 123833)
                if isinstance(n, ast.Compare) and len(n.comparators) == 1 and (any_cmp or type(n.ops[0]) in ops):
                    form = _form(_width(f, n.left, _DEPTH), _width(f, n.comparators[0], _DEPTH))
                    return (form, n) if form else None
                return None
            if fits(_combine_op(f, n)):  # LLVM's tree of a reduction's combine at the reduce call (seed 42: tl.sum
                # of bf16 as add.bf16x2 at standard.py's core.reduce)
                return "native", n
            if isinstance(n, ast.BinOp) and fits(_as_op(n)[0]):
                form = _form(_width(f, n.left, _DEPTH), _width(f, n.right, _DEPTH))
                form = form if form == "native" else None  # a widened op has the narrowing cast's .loc
            elif _cast_to(n) in ("float16", "bfloat16"):  # the fptrunc LLVM narrowed the op into
                assert isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                recv = _without_folded_widening(f, _resolve(f, n.func.value, _DEPTH))  # (E.to(f64)).to(f16), E f32
                forms = {_form(_width(f, e.left, _DEPTH), _width(f, e.right, _DEPTH))
                         for e in _arms(f, recv) if isinstance(e, ast.BinOp) and fits(_as_op(e)[0])}
                forms |= {form for e in _arms(f, recv) if (form := _negation_folded(f, e, want)) is not None}
                form = forms.pop() if len(forms) == 1 else None
                form = form if form != "native" else None  # a cast of a half op is not where LLVM puts it
            else:
                return None
            return (form, n) if form else None
        loc = self.loc.get(id(instr))
        got, merged = self.decide(instr, classify), instr.opcode == "setp" and loc is not None and loc[2] == 0
        if got is not None and merged and self.decide(instr, lambda f, n: classify(f, n, any_cmp=True)) != got:
            got = None  # column 0: the line's one form only where those the setp cannot be give it too
        if got is None and merged:
            got = self._compare_on_line(instr)
        return got

    def _compare_on_line(self, setp: ir.Instruction) -> Decision | None:
        """A 16-bit ``setp`` at column 0 of a line (LLVM's merged location, held-out seed 8641: the next element's
        ``x2 < x0`` and ``x2.to(f64) <= x0.to(f64)`` after a sin body): the one form of the line's comparisons that
        this predicate can be — as written or swapped, or inverted (an unordered ``geu`` is ``not (a < b)``).
        Undecided where the line also calls what lowers to comparisons (max/min, clamp, sort)."""
        cmp = next((m for m in setp.mods if m in _SETP_SOURCE_OPS), None)
        if cmp is None:
            return None
        found = self.nodes(setp)
        if found is None:
            return None
        f, _ = found
        line = self.loc[id(setp)][1]
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _LOWERED_TO_SETP
               and n.lineno == line for n in ast.walk(f.tree)):
            return None
        ops = _SETP_SOURCE_OPS[cmp]

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.Compare) and len(n.comparators) == 1 and type(n.ops[0]) in ops):
                return None
            form = _form(_width(f, n.left, _DEPTH), _width(f, n.comparators[0], _DEPTH))
            return (form, n) if form else None
        seen = self.forms_within(setp, classify, whole_line=True)
        forms = seen[1] if seen is not None else {}
        if len(forms) > 1 and "f64" in forms and setp.mods[-1:] == ("f32",):  # (held-out seed 83330:
            # x2.to(f64) <= x1.to(f64) beside x2 >= x1 on one line, one setp.le.f32 at 13:0): undecided
            return Decision("undecided", f"{f.name}:{line}")
        return _one(f, forms)


    def half_int(self, cvt: ir.Instruction, dest: str) -> Decision | None:
        """E: ``cvt.rzi.sN.f16 d, h`` is ``h.to(f32).to(int)`` (``f32``; also ``h.to(int)``) or
        ``h.to(f64).to(int)`` (``f64``). The cast's integer width is the cvt's (8 bits: 16, NVPTX has no
        8-bit registers), or wider when LLVM narrowed the cvt (:func:`_refolded`); else undecided."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            t = _to_dtype(n)
            if t not in _INT_DTYPES:
                return None
            # (through a choice of one value: tl.minimum(h.to(f64), h.to(f64)).to(int32), held-out seed 8343)
            recv = _one_value(f, _receiver(n))
            if recv is None:
                return None
            via = _cast_to(recv)
            if via in ("float32", "float64"):  # its receiver is the cvt's half; a reassigned name (unknown) will do
                inner = _receiver(recv)
                w = _width(f, inner, _DEPTH)
                half = w in (16, OWN) or (w is None and isinstance(inner, ast.Name)) or (
                    # tl.max of halves is an f32, their exact widening: the ring's widenings compose (held-out seed
                    # 202935, reported: tl.max(h).to(f64).to(int32) as cvt.rzi.s32.bf16 of the bf16 max)
                    via == "float64" and w == 32 and (red := _reduction_of(_resolve(f, inner, _DEPTH), ("min", "max")))
                    is not None and _width(f, red, _DEPTH) == 16)
                form = f"f{_DTYPE_WIDTH[via]}" if half else None
            elif _cast_to(recv) in ("float16", "bfloat16") and _to_dtype(_resolve(f, _receiver(recv), _DEPTH)) in \
                    _INT_DTYPES:  # i.to(f16).to(int32) of an int: a round trip LLVM folds with the cvt before it
                return "int round trip", n  # (held-out seed 40069, silent), which Triton's values need not survive
            else:  # (a choice of widenings of halves: LLVM converts the half it chose; hand kernels, reported)
                red = _reduction_of(recv, ("min", "max"))  # (tl.max of halves: the f32 of their widening)
                half = _width(f, recv, _DEPTH) in (16, OWN) or (red is not None and _width(f, red, _DEPTH) == 16)
                form = "f32" if half else next(
                    (c for w in ("float32", "float64") if (c := widened_choice(f, recv, w)) not in (None, "mixed")),
                    None)
            if form is None or max(16, _int_width(t)) == max(16, int(dest[1:])):
                return (form, n) if form else None
            return _refolded(n, form, int(dest[1:]))
        got = self.decide(cvt, classify)  # a round trip alone at the location is no conversion form either (54091:
        return None if got is not None and got.form == "int round trip" else got  # a KeyError stopped sanitize)

    def int_half(self, cvt: ir.Instruction, dest: str) -> Decision | None:
        """``cvt.rn.f16.sN d, i`` is ``i.to(f16)`` (``native``) — decided only where the half cast's
        receiver is an integer cast, or an f32 cast of one (Triton folds that pair before its FPSan; the
        cvt may carry either cast's ``.loc``); float arithmetic between them stays undecided."""
        want = _PTX_DTYPE.get(dest)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _cast_to(n) == "float32" and _narrowed_to(f, n, want):
                recv = _resolve(f, _receiver(n), _DEPTH)  # the cvt carries the sitofp's .loc (seed 57)
            elif _cast_to(n) == want:
                recv = _resolve(f, _receiver(n), _DEPTH)
                if isinstance(recv, ast.expr) and (scanned := _scan_of(recv)) is not None:
                    # a scan's first row is its operand's own (held-out seed 75360: cumsum(i.to(f32)).to(bf16),
                    # the first row's sitofp and fptrunc folded into one cvt): Triton narrows the f32 sum's payload
                    op = _one_value(f, scanned)
                    inner = _resolve(f, _receiver(op), _DEPTH) if op is not None and _cast_to(op) == "float32" else None
                    return ("f32", n) if _to_dtype(inner) in _INT_DTYPES else None
                if isinstance(recv, ast.expr) and _cast_to(recv) == "float32":
                    recv = _resolve(f, _receiver(recv), _DEPTH)
                elif recv is not None and _to_dtype(recv) not in _INT_DTYPES:
                    ops = _ring_chain(f, recv)
                    # only a chain IEEE cancels is gone from the PTX (seed 51: -(i * -1.0)); one that remains
                    # (seed 1391: i.to(f32) * 2.0, an add.f16 x, x after the cvt) is not the cvt's
                    return (f"f32;{','.join(ops)}", n) if ops and _cancels(ops) else None
            else:
                return None
            if _to_dtype(recv) not in _INT_DTYPES:
                return None
            # the half then cast through an integer and back (held-out seed 4160: i8.to(f16).to(int32).to(f16)): LLVM
            # drops that exact round trip, where Triton converts the half to the integer through its f32 widening
            up = f.parent.get(id(f.parent.get(id(n))))
            if isinstance(up, ast.expr) and _to_dtype(up) in _INT_DTYPES and isinstance(
                    back := f.parent.get(id(f.parent.get(id(up)))), ast.expr) and _cast_to(back) is not None:
                return "round-trip", n
            return "native", n
        return self.decide(cvt, classify)

    def int_wide(self, cvt: ir.Instruction, within: bool = False) -> Decision | None:
        """``cvt.rn.{f32,f64}.{s,u}N d, i`` is ``i.to(T)`` (``direct``) or LLVM's fold of
        ``i.to(f16|bf16).to(T)`` (``f16``/``bf16``: exact when i fits the half's mantissa, so LLVM drops the half,
        whose payload Triton's FPSan widens) or of ``i.to(f32).to(f64)`` (``f32``: exact when i fits f32). A half
        cast of an integer cast at the location, or a half cast as the receiver of the wide cast there, gives
        its type; a wide cast of an integer cast ``direct``; anything else (a loaded tensor) stays undecided.
        In an inlined library function (``tl.max`` widens its half input at standard.py:212), where its
        parameter says nothing, the call's location decides: ``tl.max(i.to(bf16))`` is ``bf16``. ``within``: a call's
        argument chain sunk into its body, by the location's sub-expressions (at line 0 the file's: seed 99193)."""

        dest = _PTX_DTYPE.get(next((m for m in cvt.mods if m in ("f32", "f64")), ""))

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if isinstance(n, (ast.BinOp, ast.Compare)) or _same_type_args(n):  # x + i.to(f16) of a wider x: the
                # promotion of the half carries the BinOp's location (held-out seed 594: fma(..) +
                # x.to(f16).to(int64).to(f16), stored as f32), the comparison's (49895: y.to(f32) <= i.to(f16)), or
                # the elementwise call's (3220: tl.maximum(i.to(bf16), y) computed in f32)
                sides = ((n.left, n.right) if isinstance(n, ast.BinOp) else (n.left, *n.comparators)
                         if isinstance(n, ast.Compare) else _same_type_args(n))
                forms = {got[0] for side in sides  # (-(-E) is E: held-out seed 224356, tl.min(-(-i.to(bf16))))
                         if (e := _without_double_negation(f, _resolve(f, side, _DEPTH))) is not None
                         and (((got := classify(f, e)) is not None and got[0] in ("f16", "bf16"))
                              or (dest == "float64" and _to_dtype(e) == "float32"  # x + i.to(f32) of an f64 x
                                  and int_valued(f, _receiver(e)) and (got := ("f32", e))))}
                return (forms.pop(), n) if len(forms) == 1 else None
            t = _to_dtype(n)
            if t in ("float16", "bfloat16"):  # i.to(f16): the half LLVM dropped (not a float's cast)
                r = _resolve(f, _receiver(n), _DEPTH)
                if _to_dtype(r) in ("float32", "float64") and r is not None:  # i.to(f64).to(f16), which Triton folds
                    r = _resolve(f, _receiver(r), _DEPTH)  # into i.to(f16) before its FPSan pass (held-out 181208)
                return (_HALF[t], n) if int_valued(f, r) and not cast_back_to_int(f, n) else None
            if t == dest:  # (through -(-E): the ring's negation is an involution, held-out seed 111429)
                e, via = _without_double_negation(f, _resolve(f, _receiver(n), _DEPTH)), ""
                scanned = _scan_of(e) if e is not None else None
                if scanned is not None:  # a scan's first row, its operand's (held-out seed 24917): a half widened; a
                    # wide value the scan's, which Triton casts in the ring (no fold across the scan: 24288, silent)
                    e = _resolve(f, scanned, _DEPTH)
                    h = _to_dtype(e)
                    if h is None or e is None or _to_dtype(_resolve(f, _receiver(e), _DEPTH)) not in _INT_DTYPES:
                        return None
                    form = "direct" if h == t else {**_HALF, **_WIDE}.get(h)
                    return (form, n) if form else None
                if e is not None and t is not None and _to_dtype(e) is None and int_cast_wider(f, e, t):
                    return "wider", n  # r.to(f32) of r = where(c, a, abs(i.to(f64))): held-out seed 82680
                while (w := _to_dtype(e)) in ("float32", "float64"):  # x.to(int8).to(f32).to(f32)
                    # i.to(f32).to(f64): the exact f32 LLVM dropped (held-out 1244); Triton itself folds the
                    # narrowing i.to(f64).to(f32) into one conversion before its FPSan pass (seed 694)
                    via = w if (w, t) == ("float32", "float64") else via
                    e = _resolve(f, _receiver(e), _DEPTH) if isinstance(e, ast.Call) else None
                recv = _to_dtype(e)
                if recv in ("float16", "bfloat16"):
                    return _HALF[recv], n
                return (_WIDE.get(via, "direct"), n) if recv in _INT_DTYPES or int_valued(f, e) else None
            return None
        if within:
            at0 = self.loc.get(id(cvt), ("", 1))[1] == 0
            return self.decide_in_file(cvt, classify) if at0 else self.decide_within(cvt, classify)
        return self.decide_here_or_at_call(cvt, classify)

    def half_of_int_on_line(self, cvt: ir.Instruction) -> str | None:
        """Where the statement on ``cvt``'s line casts an integer to a half (``i.to(tl.float16)``), which LLVM
        may have dropped into this wide conversion though its location does not say (a safety net for
        :meth:`int_wide`); None without a source or such a cast."""
        def half_of_int(f: SourceFile, n: ast.expr) -> bool:
            return (_to_dtype(n) in ("float16", "bfloat16")
                    and int_valued(f, _receiver(n)))

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if half_of_int(f, n):
                return "half", n
            todo, seen = [n] if isinstance(n, ast.Name) else [], 0
            while todo and seen < 64:  # (and in the values of the names it reads: held-out seed 224356's tl.min(e)
                seen += 1  # of e = -(-i.to(bf16)) a line above, silent)
                v = _resolve(f, todo.pop(), _DEPTH)
                for x in ast.walk(v) if v is not None and not isinstance(v, ast.Name) else ():
                    if isinstance(x, ast.expr) and half_of_int(f, x):
                        return "half", x
                    todo += [x] if isinstance(x, ast.Name) else []
            return None
        got = self.decide_within(cvt, classify, whole_line=True)
        if got is None:
            with self.at_call_site(cvt) as inlined:
                got = self.decide_within(cvt, classify, whole_line=True) if inlined else None
        return got.where if got is not None else None

    def abs_cast(self, instr: ir.Instruction, dest: str | None = None, source: str | None = None) -> Decision | None:
        """An abs next to a float ``cvt`` (LLVM moves fabs across fpext/fptrunc): the ``abs`` call at the
        location takes a float cast (``abs(x.to(T))``: ``inside``; to the cvt's ``dest`` type when given)
        or something else (``abs(x)``, cast later: ``outside``; with ``source``, only an x of the cvt's
        source type, held-out seed 538). At LLVM's "no location" (line 0), the one form in the file (seed 61338)."""
        classify = _abs_cast_classify(dest, source)
        loc = self.loc.get(id(instr))
        return self.decide(instr, classify) or self.decide_enclosing(instr, classify) or (
            self.decide_in_file(instr, classify) if loc is not None and loc[1] == 0 else None)

    def abs_cast_within(self, call: ir.Instruction, dest: str, source: str) -> Decision | None:
        """:meth:`abs_cast` among the sub-expressions of the user's call at ``call``'s location: an argument's
        abs and cvt LLVM sank into an inlined libdevice body at no location of their own (line 0, held-out
        seed 17682)."""
        return self.decide_within(call, _abs_cast_classify(dest, source))

    def abs_widened(self, instr: ir.Instruction, width: int, negated: bool = False) -> Decision | None:
        """An abs of a ``width``-bit value: the ``abs`` call at the location takes a widening of a ``width``-bit
        x (``abs(h.to(tl.float32))``): form ``f32``/``f64``, the type Triton's ring widens to before the abs, with
        ``:f16``/``:bf16`` where the location's expression narrows the abs back to that half. ``negated``: the
        narrowed expression is that abs negated, ``(-abs(h.to(W))).to(half)`` (held-out seed 227213)."""

        def classify(f: SourceFile, at: ast.expr) -> tuple[str, ast.expr] | None:
            n: ast.expr | None = at
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "store" \
                    and len(n.args) >= 2:
                n = n.args[1]  # LLVM sank the abs to the store (held-out seed 3944): the value it stores
            half = ""
            if n is not None and (c := _cast_to(n)) is not None and _DTYPE_WIDTH[c] == width:  # narrowed back
                n = _without_double_negation(f, _resolve(f, _receiver(n), _DEPTH))
                while n is not None and _cast_to(n) == c:  # r.to(f16) of r = abs(..).to(f16): one narrowing
                    n = _without_double_negation(f, _resolve(f, _receiver(n), _DEPTH))
                half = ":" + {**_HALF, "float32": "f32"}.get(c, "")
            if negated:  # (only of the narrowed value: −|x| LLVM sank past the narrowing)
                negated_of = _negated(n) if half else None
                n = _resolve(f, negated_of, _DEPTH) if negated_of is not None else None
                if not _abs_call(n):
                    return None
            if n is not None and half and not _abs_call(n):
                # the narrowing of arithmetic on such an abs ((abs(x.to(f64)) * 2.0).to(f32), held-out seed 16587,
                # silent: LLVM's |x| of the f32 read by the narrowed product): the abs is not narrowed there
                got = [g for a in ast.walk(n) if isinstance(a, ast.expr) and _abs_call(a)
                       and (g := classify(f, a)) is not None]
                return got[0] if len(got) == 1 else None
            if not _abs_call(n):
                return None
            arg = _abs_argument(f, n)  # (abs(-x.to(W)) is abs(x.to(W)) in the ring too: |φ⁻¹(−s)| = |φ⁻¹(s)|)
            cast = _cast_to(arg)
            if arg is None or cast is None or _DTYPE_WIDTH[cast] <= width:
                return None
            inner = _width(f, _receiver(arg), _DEPTH)
            return ({"float32": "f32", "float64": "f64"}[cast] + half, n) if inner in (width, OWN) else None
        return self.decide(instr, classify)

    def abs_widened_operand(self, reader: ir.Instruction, width: int) -> Decision | None:
        """An operand of the expression at ``reader``'s location (or the user's call an inlined reader came from;
        names followed) is ``abs(x.to(W))`` of a ``width``-bit x, W wider: the |x| LLVM hoisted to the load (no
        location of its own) that the reader reads (held-out seeds 16587, ``(abs(x.to(f64)) * 2.0).to(f32)`` as
        ``and.b32`` at the load and the self-add; 18911, ``tl.cumsum(e)`` of ``e = abs(x.to(f64)).to(f32)``)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            todo, seen = [n], 0
            while todo and seen < 16:
                e, seen = todo.pop(), seen + 1
                for a in ast.walk(e):  # (the expression there, e.g. the narrowing of a product of the abs)
                    if isinstance(a, ast.Name) and isinstance(a.ctx, ast.Load):
                        r = _resolve(f, a, _DEPTH)
                        todo += [r] if r is not None and r is not a else []
                        continue
                    arg = _resolve(f, a.args[0], _DEPTH) if isinstance(a, ast.expr) and _abs_call(a) else None
                    cast = _cast_to(arg)
                    if (isinstance(a, ast.expr) and arg is not None and cast is not None
                            and _DTYPE_WIDTH[cast] > width and _width(f, _receiver(arg), _DEPTH) in (width, OWN)):
                        return "wider", a
            return None
        return self.decide_here_or_at_call(reader, classify)

    def trunc(self, cvt: ir.Instruction) -> Decision | None:
        """``cvt.rzi.fT.fT`` is a ``trunc`` call (``call``) or LLVM's fold of ``x.to(int).to(float)``
        (``casts:int16`` and so on, the integer dtype: fptosi then sitofp, native in Triton's FPSan; ``casts:int32:f64``
        where the source converts to the integer from an f64 cast of a narrower x)."""

        ptx = next((m for m in cvt.mods if m in ("f16", "bf16", "f32", "f64")), "")

        def via(f: SourceFile, to_int: ast.expr) -> str:
            # x.to(f64).to(int32) of a narrower x (held-out seed 6651: a bf16 x1): the conversion from f64, which
            # LLVM dropped as exact and Triton's ring does not (a sign extension to 64 bits)
            w = _cast_to(_resolve(f, _receiver(to_int), _DEPTH))
            return ":f64" if w == "float64" and ptx != "f64" else ""

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name)):
                name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
                if name == "trunc":
                    return "call", n
            t = _to_dtype(n)
            if t in _INT_DTYPES:
                return f"casts:{t}{via(f, n)}", n
            r = _resolve(f, _receiver(n), _DEPTH) if t in _DTYPE_WIDTH else None
            if r is not None and (rt := _to_dtype(r)) in _INT_DTYPES:
                return f"casts:{rt}{via(f, r)}", n
            return None
        return self.decide_within(cvt, classify)

    def folded_compare(self, instr: ir.Instruction) -> Decision | None:
        """``setp.fT p, x, c`` of one value and a constant where the source's ``Compare`` there has no number on
        either side: LLVM folded it algebraically (held-out seed 11701: ``x.to(f32) < -x.to(f32)`` of an f64 x as
        ``x < -2^-150``), which Triton's ring cast and negation do not follow."""
        if self.loc.get(id(instr), (0, 0, 0))[2] == 0:
            return None  # (a merged location names no one comparison)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.Compare) and len(n.comparators) == 1):
                return None
            sides = [_one_value(f, e) for e in (n.left, n.comparators[0])]
            if any(e is None or _number(e) is not None or isinstance(e, ast.Constant) for e in sides):
                return None
            return "folded", n
        return self.decide(instr, classify)

    def int_through_float(self, instr: ir.Instruction) -> Decision | None:
        """An integer ``cvt`` (or none: a move) where the source at its location converts an integer to a float type
        and back (``x.to(tl.int64).to(tl.bfloat16).to(tl.int32)``, held-out seed 13142): LLVM folds the exact round
        trip into an integer conversion, where Triton's FPSan widens the float in the ring before converting back."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not isinstance(n, ast.Call) or not str(_to_dtype(n)).startswith(("int", "uint")):
                return None
            inner = n.func.value if isinstance(n.func, ast.Attribute) else None
            if _cast_to(inner) is None or not isinstance(inner, ast.Call) or not isinstance(inner.func, ast.Attribute):
                return None
            return ("folded", n) if str(_to_dtype(inner.func.value)).startswith(("int", "uint")) else None
        return self.decide_within(instr, classify)

    def reduced_wider(self, instr: ir.Instruction, ft: str) -> Decision | None:
        """A ``max``/``min`` of ``ft`` at a ``tl.max``/``tl.min`` whose operand the source computes at a wider type
        (held-out seed 12552: ``tl.max(abs(-x.to(f64)))`` stored as f32): LLVM reduces the narrow values, max and
        min commuting with the exact widening; Triton's ring widens, negates and reduces at the wider type."""
        w = _DTYPE_WIDTH[_PTX_DTYPE[ft]]

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("max", "min")
                    and n.args):
                return None
            got = _width(f, n.args[0], _DEPTH)
            if got is None or got <= w:
                return None
            # only the widening of a value of the op's own type: the ring's sign extension keeps the payloads'
            # order, so the narrow max is Triton's (held-out seed 22539); what narrows it is a CastHints matter
            arg = _resolve(f, n.args[0], _DEPTH)
            widening = arg is not None and _cast_to(arg) is not None and _width(f, _receiver(arg), _DEPTH) in (OWN, w)
            return ("widening" if widening else "wider"), n
        with self.at_call_site(instr) as inlined:
            return self.decide(instr, classify) if inlined else None


def _negation_folded(f: SourceFile, e: ast.expr, want: type[ast.operator] | None) -> str | None:
    """The wide form (``f32``/``f64``) of ``e``, an add with a negated operand that LLVM made a sub (or a sub of a
    negation it made an add) of widened halves narrowed back, when the negation is at that wide type too — the
    ring's (−a) + b is b − a (held-out seed 188462: ``(h.to(f32) * -1.0) + 1.0`` stored as bf16, ``sub.bf16 1.0,
    h``) —, else None (a negation at another type, ``(-y.to(f64)).to(bf16) + x``, is not: held-out 807, 2238)."""
    if not isinstance(e, ast.BinOp) or want not in (ast.Add, ast.Sub):
        return None
    op = _as_op(e)[0]
    if want is ast.Sub and op is ast.Add:
        sides = [(s, o) for s, o in ((e.left, e.right), (e.right, e.left))
                 if _negated(_resolve(f, s, _DEPTH)) is not None]
    elif want is ast.Add and op is ast.Sub:
        sides = [(e.right, e.left)] if _negated(_resolve(f, e.right, _DEPTH)) is not None else []
    else:
        return None
    if len(sides) != 1:
        return None
    neg, other = sides[0]
    form = _form(_width(f, neg, _DEPTH), _width(f, other, _DEPTH))
    return form if form in ("f32", "f64") and _width(f, neg, _DEPTH) == {"f32": 32, "f64": 64}[form] else None


# tl.* math whose lowering inlines a libdevice body (f64, or erf/tanh of any type): LLVM may share the body's steps
# with the user's code on the same line, under the call's location (held-out seed 9188: f64 exp2's NaN arm x + x is the
# user's a + a)
_INLINED_MATH = frozenset({"exp", "exp2", "log", "log2", "sin", "cos", "erf", "tanh", "sqrt", "rsqrt"})


# the Python comparisons a float setp predicate can come from: as written or swapped, or inverted (Triton's
# comparisons are ordered, ``!=`` unordered; LLVM inverts one by swapping a select's arms: ``not (a < b)`` is ``geu``)
_LT_GT: frozenset[type[ast.cmpop]] = frozenset({ast.Lt, ast.Gt})
_LE_GE: frozenset[type[ast.cmpop]] = frozenset({ast.LtE, ast.GtE})
_EQ_NE: frozenset[type[ast.cmpop]] = frozenset({ast.Eq, ast.NotEq})
_SETP_SOURCE_OPS = {"eq": _EQ_NE, "neu": _EQ_NE, "lt": _LT_GT, "gt": _LT_GT, "le": _LE_GE, "ge": _LE_GE,
                    "ltu": _LE_GE, "gtu": _LE_GE, "leu": _LT_GT, "geu": _LT_GT}
_ANY_CMP: frozenset[type[ast.cmpop]] = frozenset(ast.cmpop.__subclasses__())
_LOWERED_TO_SETP = frozenset({"maximum", "minimum", "max", "min", "clamp", "sort", "argmax", "argmin", "abs"})


def _self_add_shape(n: ast.expr | None, two: Callable[[ast.expr], bool] = _is_two) -> tuple[str, ast.expr] | None:
    """``("add", x)`` of ``x + x`` (or ``x - (-x)``; ``(2.0 * h) + (h * 2.0)``, one value LLVM adds to itself),
    ``("mul2", x)`` of ``x * 2.0`` / ``2.0 * x`` (``two``: what multiplies as 2.0, ``two_like``), else None."""
    if not isinstance(n, ast.BinOp):
        return None
    op, left, right = _as_op(n)
    if op is ast.Add and _commuted(left) == _commuted(right):
        return "add", left
    if isinstance(n.op, ast.Mult) and (two(n.left) or two(n.right)):
        return "mul2", n.right if two(n.left) else n.left
    return None


def _other_arm_doubles(f: SourceFile, arm: ast.expr, form: str, x: ast.expr) -> bool:
    """``arm`` is an arm of a ``tl.where`` whose other arm doubles the same value in another ring computation (held-out
    hand kernel ``where(c, h * 2.0, h + h.to(f32))`` stored as f16: LLVM makes both one ``add.f16 h, h`` and drops the
    select, whose arms Triton computes apart)."""
    parent = f.parent.get(id(arm))
    if not (isinstance(parent, ast.Call) and _method_call(parent, "where", 3) and arm in parent.args[1:]):
        return False
    other = _resolve(f, parent.args[2] if arm is parent.args[1] else parent.args[1], _DEPTH)
    if not isinstance(other, ast.BinOp):
        return False
    op, left, right = _as_op(other)
    pair = next((c for c, o in ((left, right), (right, left)) if _cast_to(c) is not None
                 and ast.dump(_bare(c)) == ast.dump(_bare(o))), None) if op is ast.Add else None
    shape = _self_add_shape(other) or (("add", pair) if pair is not None else None)  # h + h.to(f32): promoted
    if shape is None or ast.dump(_bare(shape[1])) != ast.dump(_bare(x)):
        return False
    return (shape[0], ast.dump(_same(shape[1]))) != (form, ast.dump(_same(x)))


def _widened_self_add(f: SourceFile, n: ast.expr, lane: str) -> tuple[str, ast.expr, ast.expr] | None:
    """The K form of ``n = E.to(lane)`` when ``E`` is ``2.0 * y`` or ``y + y`` of a ``y`` widened to
    f32/f64 beyond ``lane`` (the ``fptrunc`` LLVM folded the wide op into), with n and y."""
    if _cast_to(n) != _PTX_DTYPE.get(lane):
        return None
    e = _without_double_negation(f, _resolve(f, _receiver(n), _DEPTH))
    via = _cast_to(e)  # (2.0 * h.to(f32)).to(f64) narrowed: Triton folds that exact widening into the narrowing
    # before its FPSan pass (held-out seeds 3218, 47198); a narrowing between is the ring's step
    e = _without_double_negation(f, _resolve(f, _receiver(e), _DEPTH)) if via and e is not None else e
    # LLVM sinks the fptrunc into a where's arms (hand kernel where(c, x.to(f32) * 2.0, z.to(f32)).to(f16))
    found = {(g[0], ast.dump(g[2])): g for a in _arms(f, e) if (g := _arm_self_add(f, n, a, lane, via)) is not None}
    if len(found) > 1:
        return "both", n, next(iter(found.values()))[2]
    return next(iter(found.values()), None)


def _arm_self_add(f: SourceFile, n: ast.expr, e: ast.expr | None, lane: str,
                  via: str | None) -> tuple[str, ast.expr, ast.expr] | None:
    """:func:`_widened_self_add` of one value ``e`` the narrowing ``n`` reaches."""
    if not isinstance(e, ast.BinOp):
        return None
    op, left, right = _as_op(e)
    promoted = promoted_two(f, e) if lane in ("f16", "bf16") else None  # (x * s of s = 2.0: an f32 product)
    if op is ast.Mult and (_is_two(left) or _is_two(right)):
        base, y = "mul2", right if _is_two(left) else left
    elif op is ast.Add and _same_value(f, left, right):
        base, y = "add", left
    elif promoted is not None:
        base, y = "mul2", promoted
    else:
        return None
    w = _width(f, y, _DEPTH)
    w = 32 if promoted is not None and base == "mul2" and w in (OWN, 16) and y is promoted else w
    if w == 64 and _int_to_f64(f, y):  # (2.0 * i.to(f64)).to(f32) as cvt.rn.f32.s64 then add: Triton's operand is
        return f"{base}-f64-int", n, y  # the native i → f64, not the PTX's i → f32 widened (held-out seeds 38208,
        # silent, then reported; 169688: replayed, fold_self_add)
    if w not in (32, 64) or w <= _DTYPE_WIDTH[_PTX_DTYPE[lane]]:
        return None
    then = "" if via is None or _DTYPE_WIDTH[via] >= w else "-" + {**_HALF, **_WIDE}.get(via, "?")
    return f"{base}-f{w}{then}", n, y


def _abs_cast_classify(dest: str | None, source: str | None) -> Classify:
    """:meth:`SourceHints.abs_cast`'s reading of an expression."""
    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if not _abs_call(n):
            return None
        arg = _abs_argument(f, n)  # abs(-x) is abs(x): LLVM drops the negation
        cast = _cast_to(arg)
        if dest is not None and cast is not None and cast != _PTX_DTYPE.get(dest):
            if _chain_casts_to(f, arg, _PTX_DTYPE.get(dest)):  # abs(x.to(f16).to(f32)): the cvt to f16 is inside
                return "inside", n  # (held-out seeds 52638; 133772, abs(s.to(bf16).to(f32)) of an f64 s: silent)
            if source is not None and cast != _PTX_DTYPE.get(source):
                return None  # abs(h.to(f32)).to(f64) as |h| widened once: a cast between the two (1774)
            if arg is not None and _chain_casts_to(f, _one_value(f, _receiver(arg)), _PTX_DTYPE.get(dest)):
                # abs(maximum(h, h).to(f32)) of h = x.to(f16): the abs after the narrowing (held-out seed 204961,
                # silent at first contact: taken for abs(x).to(f16))
                return "inside", n
            cast = None  # abs(h.to(f16)) of an f16 h, widened later (seed 742): not the cast at hand
        sw = _DTYPE_WIDTH.get(_PTX_DTYPE.get(source or "", ""))
        if not cast and source is not None and (arg is None or _width(f, arg, _DEPTH) != sw):
            return None  # abs(minimum(h, h)) of h = x.to(f16): LLVM's abs(x.to(f16)), not of the cvt's source
        if cast and source is not None and arg is not None and _width(f, _receiver(arg), _DEPTH) not in (None, OWN, sw):
            return None  # abs(abs(x.to(f64)).to(f16)) of an f32 x: the cast the source has is of an f64 (24703)
        return ("inside" if cast else "outside"), n
    return classify
