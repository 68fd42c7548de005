"""LLVM's folds of negation and abs (issue 10 F, J; docs/fpsan.md §3 "Folds"): sign-bit ``xor``/``or``/``and``
on float values, a negation or abs moved across a float ``cvt`` (``(-x).to(T)``, ``abs(x).to(T)``), a
negation of a max/min feeding a min/max, and a narrow negation folded into a wide add. Where the Python
source at the ``.loc`` tells the form (``ptxkit.fpsan.source_hints``) it is computed as Triton's FPSan
computes it; elsewhere the PTX as written, reported."""


from __future__ import annotations

from collections.abc import Callable

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.abs_bits import MIN_WIDENED, with_half_abs
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, guard_text, hexc
from ptxkit.fpsan.fold_flow import (
    BIT_OPS,
    MOVES,
    Flow,
    FoldResult,
    cast_dest,
    decide_fold,
    float_cast,
    float_cast_reader,
    fold_verdict,
    opcode_is,
    reaches,
    readers_of,
)
from ptxkit.fpsan.fold_neg_abs_cast import cast_below, neg_abs_before_cast, neg_abs_order, ring_max_of_negation
from ptxkit.fpsan.fold_neg_extremum import negated_tree
from ptxkit.fpsan.fold_neg_round_trip import neg_of_round_trip
from ptxkit.fpsan.fold_neg_tree_root import widened_sub_root
from ptxkit.fpsan.fold_negated_int_widening import negated_int_widening
from ptxkit.fpsan.fold_negated_promoted_select import negated_promoted_select, per_arm
from ptxkit.fpsan.fold_sign_emit import abs_of_widened, neg_abs, neg_before_cast, neg_before_packed_cast
from ptxkit.fpsan.folds_narrow_neg import (
    _narrow_negation,
    _neg_cast_hint,
    _negated_factor,
    _negated_factor_source,
    _negated_widening_narrowed,
    _widened,
    _widened_times_negative,
    extremum_of_negation_narrowed,
    negated_widened_product,
)
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.neg_chain import dot_side, neg_through, neg_through_packed
from ptxkit.fpsan.neg_readers import only_addends, only_multiplicands
from ptxkit.fpsan.ops import (
    LANE_TYPE,
    TABLE,
    OpInfo,
    as_reg,
    elementwise,
    float_type_of,
    lane_nonzero_signs,
    rewrite_sign_xor,
    sign_mask_lanes,
    sign_xor_lanes,
    sign_xor_width,
)
from ptxkit.fpsan.options import Options
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_ast import Decision
from ptxkit.ptx.types import FLOAT_TYPES

_OTHER_EXTREMUM = {"max": "min", "min": "max"}
_SCALAR_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


def is_sign_bit_op(instr: ir.Instruction) -> bool:
    """A sign-bit ``xor`` (−x) or ``or``/``and`` (−|x|, |x|) on bits: :func:`rewrite_sign_fold` decides it."""
    return bool(sign_xor_width(instr)) or sign_mask_lanes(instr) is not None


def rewrite_sign_fold(instr: ir.Instruction, ctx: RewriteContext, opts: Options, flow: Flow) -> FoldResult | None:
    """The negation/abs fold ``instr`` belongs to, rewritten or reported (None: not one of them)."""
    op = instr.opcode
    if sign_xor_width(instr):
        return _sign_xor(instr, ctx, opts, flow)
    if op in ("or", "and") and (lanes := sign_mask_lanes(instr)) is not None:
        return _sign_mask(instr, ctx, flow, lanes)
    ft = float_type_of(instr)
    if ft is None:
        return None
    ops = instr.operands
    if neg_extremum_site(instr, flow):
        # −max feeding a min, or carrying the max's own location (LLVM made it rewriting min(−a, −b): 1354)
        return _neg_extremum(instr, ctx, flow, ft or "")
    if op == "cvt" and (ab := _abs_inside_cast(flow, instr)) is not None:
        return _cast_of_abs(instr, *ab, ctx)
    if (op == "neg" and ft in ("f16", "bf16", "f32", "f64") and len(ops) == 2 and isinstance(ops[1], ir.Reg)
            and not opts.fold("neg-cast") and (done := neg_through(instr, ops[1].name, ctx, flow)
                                                or negated_widened_product(instr, ctx, flow, ft)) is not None):
        return done  # a float neg the source takes through a wider type (held-out seed 43806's b operand; 101546:
        # (-x.to(f64)).to(f16) of an f32 x as neg.f16 of cvt.rn.f16.f32, as the sign xor's case)
    if (op == "neg" and len(ops) == 2 and isinstance(ops[1], ir.Reg) and (cvt := flow.only_def(ops[1].name))
            is not None and cvt.opcode == "cvt" and float_cast(cvt, packed=True) is not None):
        return _neg_of_cast(instr, cvt, ctx, opts, flow, ft)
    if op == "abs" and len(ops) == 2 and isinstance(ops[1], ir.Reg):
        w = R.ring(LANE_TYPE.get(ft, ft)).w
        return _abs(instr, ctx, flow, ops[1].name, name_of(ops[0]), (w * (2 if ft in LANE_TYPE else 1), w),
                    packed=True)
    if (op in ("mul", "fma", "mad") and ft in ("f32", "f64") and len(ops) in (3, 4)
            and (k := _widened_times_negative(flow, ops, ft)) is not None
            and (decided := _negated_factor_source(instr, flow, ft, ops[3 - k])) is not None):
        return _negated_factor(instr, ctx, flow, ft, k, decided)
    if (((op in ("add", "sub") and len(ops) == 3 and (wide := [i for i in (1, 2) if _widened(flow, ops[i], ft)]))
         or (op in ("fma", "mad") and len(ops) == 4 and (wide := [3] if _widened(flow, ops[3], ft) else [])))
            and ft in ("f32", "f64") and (decided := flow.hints.narrow_negation(instr, R.ring(ft).w)) is not None):
        return _narrow_negation(instr, ctx, flow, ft, wide, decided)
    return None


_XOR_FLOAT = ("sign-bit xor on a float value (the dataflow shows a float type): LLVM's folded -x, sanitized as "
              "Triton's ring negation 0 − φ(x)")


_XOR_UNKNOWN = ("sign-bit xor on a value no float or integer instruction defines or reads: LLVM's folded -x "
                "(ring negation 0 − φ(x)) or integer code (a bit flip)")


_XOR_CAST = ("sign-bit xor of a float conversion's result: LLVM moves the negation of (-x).to(T) below the cvt, "
             "so the source was (-x).to(T) (ring cast of −φ(x)) or -(x.to(T)) (ring negation after the cast)")


def _sign_xor(instr: ir.Instruction, ctx: RewriteContext, opts: Options, flow: Flow) -> FoldResult | None:
    src = next(o for o in instr.operands[1:] if isinstance(o, ir.Reg)).name
    if not opts.fold("neg-cast") and not opts.fold("sign-xor") and (
            done := neg_through(instr, src, ctx, flow) or neg_through_packed(instr, src, ctx, flow)):
        return done
    kind = flow.value_kind([src, name_of(instr.operands[0])])
    if kind == "int" and flow.value_kind([src, name_of(instr.operands[0])], sign_tests=False) == "unknown" and (
            negated := flow.hints.float_negation(instr, sign_xor_width(instr))) is not None:
        # -x beside a sign test of x's bits, LLVM's libdevice.signbit(x) (user-style probe, silent at x = -0.0)
        rewrite_sign_xor(instr, ctx)
        return FoldResult(True, Verdict(f"sign-bit xor on a float value the source negates at {negated.where} (only "
                                        "sign tests read its bits, LLVM's signbit): LLVM's folded -x, sanitized as "
                                        "Triton's ring negation 0 − φ(x)", NOTE, native=False))
    if kind == "int" or (kind == "unknown" and opts.fold("sign-xor") == "bits"):
        if kind == "int":
            return None  # integer code: a bit move
        return FoldResult(False, Verdict(f"{_XOR_UNKNOWN}; left as a bit move (stated: sign-xor=bits)", NOTE))
    if kind == "unknown":
        rewrite_sign_xor(instr, ctx)
        return FoldResult(True, fold_verdict(opts, "sign-xor", _XOR_UNKNOWN, "neg",
                                             decide_fold(opts, "sign-xor", lambda i: flow.hints.float_negation(
                                                 i, sign_xor_width(i)), instr)))
    cvt = flow.only_def(src)
    mft = float_type_of(cvt) if cvt is not None and cvt.opcode in ("max", "min") else None
    if mft is not None and _scalar_sign_xor_of(instr, mft):
        # −max(x) of tl.min(-x) with the negation as a sign xor after the reduction tree (held-out seed 11777)
        as_neg = ir.Instruction("neg", (mft,), (instr.operands[0], ir.Reg(src)), instr.guard, instr.span)
        return _neg_extremum(as_neg, ctx, flow, mft, instr)
    if cvt is not None and cvt.opcode == "cvt" and float_cast(cvt) is not None:
        types = float_cast(cvt)
        if types and not opts.fold("neg-cast") and (
                trip := neg_of_round_trip(instr, cvt, ctx, flow, types[0], types[1])) is not None:
            return trip
        decided = decide_fold(opts, "neg-cast", lambda c: _neg_cast_hint(flow, c, types[0], types[1])
                              if types else None, cvt)
        decided = None if decided is not None and types and flow.hints.neg_cast_both(cvt, types[0]) else decided
        form = opts.fold("neg-cast") or (decided.form if decided else "after")
        if form == "before" and neg_before_cast(instr, cvt, ctx, flow):
            return FoldResult(True, fold_verdict(opts, "neg-cast", _XOR_CAST, form, decided))
        rewrite_sign_xor(instr, ctx)
        return FoldResult(True, fold_verdict(opts, "neg-cast", _XOR_CAST, "after", decided) if form == "after" else
                          Verdict(f"{_XOR_CAST}; the cvt's source may change before the xor, so sanitized as "
                                  "the negation after the cast", ERROR, native=False))
    if (done := negated_int_widening(instr, ctx, flow) or negated_promoted_select(instr, ctx, flow, src)) is not None:
        return done
    decided = flow.hints.negation_narrowed(instr, sign_xor_width(instr))
    if decided is not None and decided.form.startswith("widened:") and (
            done := _negated_widening_narrowed(instr, ctx, flow, src, decided)) is not None:
        return done
    rewrite_sign_xor(instr, ctx)
    if decided is not None:
        return FoldResult(True, Verdict(f"{_XOR_FLOAT}; but the source at {decided.where} negates a wider value "
                                        "before narrowing it, which Triton's ring narrowing does not commute with "
                                        "(LLVM moved the negation past the cast, here through a select)", ERROR,
                                        native=False))
    w = sign_xor_width(instr)
    if w == 16 and (where := flow.hints.wide_negation_in_function(instr, w)) is not None:
        return FoldResult(True, Verdict(f"{_XOR_FLOAT}; but the source at {where} negates a value wider than 16 bits, "
                                        "which LLVM may have moved onto the half (Triton's wide ring negation, "
                                        "narrowed, differs from the half's at −0), and the location does not say "
                                        "whether this is it", ERROR, native=False))
    return FoldResult(True, Verdict(_XOR_FLOAT, NOTE, native=False))


_NEG_ABS_HEAD = "sign-bit or on a float value: LLVM's −|x|"
_NEG_ABS = (f"{_NEG_ABS_HEAD}, from -abs(x) (sanitized so: the ring negation of |x|, whose sign stays clear at 0) "
            "or from minimum(x, -x) and the like, whose ring result differs at ±0")


_ABS_OR_MAX = ("sign-bit and on a float value: LLVM's |x|, from abs(x) (native, as Triton's FPSan leaves it) or "
               "from maximum(x, -x), Triton's ring max, which keeps -0 (its payload is its own negation)")
_ABS_AFTER_CAST_HEAD = ("abs of a float conversion's result: LLVM moves abs below the cast (abs(x).to(T) becomes "
                        "abs(x.to(T)))")
_ABS_AFTER_CAST = f"{_ABS_AFTER_CAST_HEAD}, and Triton's ring cast does not commute with abs; left as written"
_ABS_CAST_HEAD = ("sign-bit clear (|x|) of a value a float conversion then reads: LLVM moves abs across the cast "
                  "(abs(x.to(T)) becomes abs(x).to(T), also through a min/max narrowed below the cast), and Triton's "
                  "ring cast does not commute with abs")
_ABS_CAST = f"{_ABS_CAST_HEAD}; left as written"


def _sign_mask(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, lanes: tuple[int, int]) -> FoldResult | None:
    """``or.bN d, a, signs`` (−|a|) and ``and.bN d, a, ~signs`` (|a|) on float values (the dataflow's
    type; integer code is left alone): −|a| becomes |a| then the ring negation (``fold_sign_emit.neg_abs``) and is
    reported; |a| stays native like Triton's abs, reported where a float ``cvt`` reads it."""
    src = next(o for o in instr.operands[1:] if isinstance(o, ir.Reg)).name
    dst = name_of(instr.operands[0])
    if instr.opcode == "and" and (side := dot_side(flow, dst)) is not None and (
            decided := flow.hints.abs_of_max_in_dot(instr, lanes[1], side)) is not None:
        # a dot operand's maximum(x, -x), whose fabs LLVM sank past the shared-memory round trip (the operand's
        # loads are untyped words, so the integer test below would take it)
        ring_max_of_negation(instr, ctx, src, dst, lanes)
        return FoldResult(True, Verdict(f"{instr.opcode}: LLVM's |x| of a dot operand the source at {decided.where} "
                                        "computes as the max or min of x and -x: sanitized as Triton's ring max", NOTE,
                                        native=False), moves=True)
    if flow.value_kind([src, dst]) == "int" or any(
            d.opcode in BIT_OPS and not FLOAT_TYPES & set(d.mods) and not (d.opcode == "and" and sign_mask_lanes(d))
            for d in flow.defs.get(src, [])):
        # integer code (libdevice's trig reduction sets a mantissa's implicit bit: shl, or); not a sign or of LLVM's
        # |x| (held-out seed 14869: -cumsum(abs(h)), whose first row LLVM makes −|h|, silent before)
        return None
    d = flow.only_def(src)
    if d is not None and float_cast_reader(d) and (done := extremum_of_negation_narrowed(instr, d, ctx, flow, lanes)):
        return done
    if instr.opcode == "and":
        return _abs(instr, ctx, flow, src, dst, lanes, packed=False)  # seed 860: abs(x * y).to(f16)
    if (d is not None and float_cast_reader(d) and (order := neg_abs_order(flow, d)) is not None
            and (order.form == "inside" or neg_abs_before_cast(instr, d, ctx, flow))):
        if order.form == "inside":  # -abs(x.to(T)): the PTX's order (seed 67953's other form)
            neg_abs(instr, ctx, src, dst, lanes)
        inside = order.form == "inside"  # (-abs(x.to(f16)): the abs of a half, whose form Triton's build picks)
        return FoldResult(True, with_half_abs(ctx, instr, Verdict(
            f"{_NEG_ABS_HEAD}, from -abs(x) and a cast: the source at {order.where} " + (
                "casts first" if inside else "casts -abs(x): the ring negation of |x|, then the ring cast"), NOTE,
            native=False), lanes if inside else (0, 0)), moves=inside)
    if lanes[0] == lanes[1] in (16, 32) and not cast_below(flow, d) and (
            wide := flow.hints.abs_widened(instr, lanes[1], negated=True)) is not None and ":" in wide.form:
        # (-abs(h.to(f32))).to(bf16): LLVM dropped both casts (held-out seed 227213: or.b16 at the store, reported)
        wide_t, _, half = wide.form.partition(":")
        abs_of_widened(instr, ctx, src, dst, half, wide_t, negated=True)
        return FoldResult(True, Verdict(f"{_NEG_ABS_HEAD} of a {lanes[1]}-bit value where the source at {wide.where} "
                                        f"negates abs of its widening to {wide_t}, narrowed back: LLVM dropped both "
                                        "conversions; sanitized as Triton's ring widening, abs of the wide bits, ring "
                                        "negation and narrowing", NOTE, native=False))
    # a cast between the source's expression and the or (LLVM sank the or past it) leaves it undecided
    decided = None if cast_below(flow, d) else flow.hints.neg_abs(instr, lanes[1])
    if decided is not None and decided.form == "min":
        # minimum(x, -x): the ring min of φ(x) and −φ(x) is −|x| except at ±0, which stay themselves (the
        # payload is its own negation at −0): x with the sign set where the magnitude is not zero (seed 610)
        w, lane = lanes
        _, t = lane_nonzero_signs(ctx, src, w, lane)
        ctx.invalidate(dst)
        ctx.emit(f"{guard_text(instr.guard)}or.b{w} {dst}, {src}, {t}")
        return FoldResult(True, Verdict(f"{_NEG_ABS_HEAD}: the source at {decided.where} is a "
                                        "minimum of x and -x, sanitized as Triton's ring min", NOTE, native=False),
                          moves=True)
    neg_abs(instr, ctx, src, dst, lanes)
    if decided is not None:  # -abs(x)
        return FoldResult(True, with_half_abs(ctx, instr, Verdict(
            f"{_NEG_ABS_HEAD}, from -abs(x): the ring negation of |x|, decided by the source at {decided.where}", NOTE,
            native=False), lanes), moves=True)
    return FoldResult(True, Verdict(_NEG_ABS, ERROR, native=False), moves=True)


def _abs(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, src: str, dst: str, lanes: tuple[int, int],
         packed: bool) -> FoldResult | None:
    """|x| (``abs``, or the sign-bit ``and`` on ``lanes``: (register width, lane width)): Triton's ring max where
    the source takes the max or min of x and -x (:func:`_ring_max_of_negation`), else native like Triton's abs
    (:func:`_abs_next_to_cast`), reported where the source has such a max that no location ties to it."""
    if (decided := flow.hints.abs_of_max(instr, lanes[1], flow.uses.get(dst, []))) is not None:
        # the max of a promoted select LLVM narrowed is at the select's type (a narrow one's: "narrow")
        promoted = cast_below(flow, flow.only_def(src))
        select = flow.hints.negated_where_narrowed(instr, lanes[1], negated=False) if promoted else None
        if select is not None and select.form == "before" and decided.form == "max" and lanes[0] == lanes[1] and (
                done := per_arm(instr, ctx, flow, src, "max", decided)):
            return done
        promoted = promoted and (select is None or select.form != "narrow")
        ring_max_of_negation(instr, ctx, src, dst, lanes)
        # a min's negation folded into a reader past a cvt negates the widened max: not the ring min at −0
        widened = promoted or (decided.form == "min" and any(u.opcode == "cvt" for u in flow.uses.get(dst, [])))
        return FoldResult(True, Verdict(f"{instr.opcode}: LLVM's |x|, and the source at {decided.where} takes the "
                                        "max or min of x and -x (a min's negation folded into the reader): sanitized "
                                        "as Triton's ring max" + (MIN_WIDENED if widened else ""),
                                        ERROR if widened else NOTE, native=False), moves=True)
    done = _abs_next_to_cast(instr, ctx, flow, src, dst, packed=packed)
    if done is None and (where := flow.hints.max_of_negation_in_source(instr)) is not None:
        return FoldResult(False, Verdict(f"{_ABS_OR_MAX}; the source has one at {where}, and no location ties "
                                         "this one to it or to an abs; left native", ERROR))
    return done


def _abs_next_to_cast(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, src: str, dst: str,
                      packed: bool) -> FoldResult | None:
    """|x| (``abs`` or the sign-bit ``and``) next to a float ``cvt``: of the cvt's result (computed as the
    source orders them, :func:`_abs_after_cast`), or read by one, through moves and min/max (at the cvt
    where the source has ``abs(x.to(T))``, :func:`_cast_of_abs`; else reported); None when neither."""
    cvt = flow.only_def(src)
    if flow.read_by_bodies(dst):  # libdevice's own |x| of bodies that share it (held-out seed 1261: cosf and
        # tanhf of one x; 12411: tanhf's |x| that sinf's range tests): the bodies run natively and their results are
        # the ring ops, so no ring value reads it
        return FoldResult(False, Verdict("|x| read only by inlined libdevice bodies, which run natively (their "
                                         "results are the ring ops): left native", NOTE))
    if cvt is not None and cvt.opcode == "cvt" and float_cast(cvt, packed=packed) is not None:
        return _abs_after_cast(instr, cvt, ctx, flow)
    aft = float_type_of(instr) if instr.opcode == "abs" else None
    w = R.ring(aft).w if aft in ("f16", "bf16", "f32") else _and_width(instr)
    # abs(h.to(f32)) narrowed back: LLVM drops both casts and clears the half's sign (held-out seed 3944: silent);
    # Triton's ring widens φ(h), clears the sign of the wide bits, narrows the payload back (f32 through f64 too:
    # held-out seed 15164)
    widened = flow.hints.abs_widened(instr, w) if w in (16, 32) else None
    wide, _, half = widened.form.partition(":") if widened is not None else ("", "", "")
    head = (f"|x| of a {w}-bit value where the source at {widened.where} takes abs of its widening to {wide}, narrowed "
            "back: LLVM dropped both conversions") if widened is not None else ""
    if half:  # the location's expression narrows it to that half: what every reader reads (held-out seed 12601)
        abs_of_widened(instr, ctx, src, dst, half, wide)
        return FoldResult(True, Verdict(f"{head}; sanitized as Triton's ring widening, abs of the wide bits and ring "
                                        "narrowing", NOTE, native=False))
    if not reaches(flow, dst, float_cast_reader, through=("min", "max")):
        if any(_widening_half_op(flow, u) for u in flow.uses.get(dst, [])):
            # a 16-bit op the source makes f32/f64 arithmetic on widened halves widens |x| in the ring (held-out
            # seed 3424: |x.to(f32)| + y narrowed to add.bf16 of LLVM's |x|, hoisted to the load: silent)
            return FoldResult(False, Verdict(f"{_ABS_CAST_HEAD}: a 16-bit op that is wider arithmetic in the "
                                             "source widens it; left as written", ERROR))
        if widened is not None:
            stores = list(readers_of(flow, dst, lambda u: False))
            # a sign-bit and has no type: the stores' narrowing names it (held-out seed 22758)
            at_store = {d.form for u in stores if (d := flow.hints.abs_widened(u, w)) is not None}
            store_wide, _, store_half = next(iter(at_store)).partition(":") if len(at_store) == 1 else ("", "", "")
            half = aft or (store_half if store_wide == wide else "")
            if half in ("f16", "bf16", "f32") and all(u.opcode == "st" or u.opcode in MOVES for u in stores):
                abs_of_widened(instr, ctx, src, dst, half, wide)
                return FoldResult(True, Verdict(f"{head}; sanitized as Triton's ring widening, abs of the wide bits "
                                                "and ring narrowing (only stores read it)", NOTE, native=False))
            return FoldResult(False, Verdict(f"{head}, and Triton's ring widening, abs of the wide bits and ring "
                                             "narrowing is not the half's own abs; left as written", ERROR))
        uses = flow.uses.get(dst, [])
        form = _argument_form(flow, dst, w) if widened is None and w in (16, 32) else None
        if form is not None:
            wide, half = form.split(":")
            abs_of_widened(instr, ctx, src, dst, half, wide)
            return FoldResult(True, Verdict(f"|x| of a {w}-bit value hoisted to its load, an argument the source at "
                                            f"its readers writes as abs(x.to({wide})).to({half}): sanitized as "
                                            "Triton's ring widening, abs of the wide bits and ring narrowing", NOTE,
                                            native=False))
        hoisted = next((d for u in uses if widened is None and w in (16, 32)
                        and (d := flow.hints.abs_widened_operand(u, w)) is not None), None)
        if hoisted is not None:
            return FoldResult(False, Verdict(f"|x| of a {w}-bit value that code reads where the source at "
                                             f"{hoisted.where} takes abs of its widening: Triton's abs is on the wide "
                                             "float's bits, which differs from the narrow one's at −0; left as "
                                             "written", ERROR))
        if w in (16, 32) and (wider := flow.hints.abs_wider(instr, w)) is not None:
            return FoldResult(False, Verdict(f"|x| of a {w}-bit value where the source at {wider.where} takes abs of a "
                                             "wider value: LLVM narrowed its operands before the abs (through a "
                                             "select), and Triton's ring narrowing does not commute with abs; left "
                                             "as written", ERROR))
        return None
    if all((got := _abs_inside_cast(flow, u)) is not None and got[0] is instr for u in _lane_readers(flow, dst)):
        return FoldResult(False, Verdict(f"{_ABS_CAST_HEAD}: the source has abs(x.to(T)), computed so at the "
                                         "conversion", NOTE))
    return FoldResult(False, _abs_verdict(flow, instr, "outside", _ABS_CAST, *cast_dest(flow, dst)))


def _argument_form(flow: Flow, dst: str, w: int) -> str | None:
    """The form ``W:T`` of :meth:`SourceHints.abs_widened_argument` every reader of the |x| ``dst`` names (a recognised
    body's native lines, which read whatever bits it has, may carry other locations: its ring op reads the argument),
    else None."""
    forms: set[str] = set()
    for u in flow.uses.get(dst, []):
        d = flow.hints.abs_widened_argument(u, w)
        if d is not None:
            forms.add(d.form)
        elif not (dst in flow.body_inputs and u.span is not None and u.span.line in flow.native):
            return None
    return forms.pop() if len(forms) == 1 else None


_NEG_CAST = ("negation of a float conversion's result: LLVM moves the negation of (-x).to(T) (also x * -1.0) "
             "below the cvt, so the source was (-x).to(T) (ring cast of −φ(x)) or -(x.to(T)) (ring negation after "
             "the cast); they differ for narrowing casts, and for widening ones at -0")


def _neg_of_cast(instr: ir.Instruction, cvt: ir.Instruction, ctx: RewriteContext, opts: Options, flow: Flow,
                 ft: str) -> FoldResult:
    """``neg d, c`` of ``c = cvt.T.S x`` (held-out seed 777: ``(x.to(f64) * -1.0).to(f16)`` as a packed
    ``cvt.rn.f16x2.f32`` then ``neg.f16x2``): the J fold with a ``neg`` in place of the sign xor."""
    types = float_cast(cvt, packed=True)
    assert types is not None
    dest = types[0].removesuffix("x2")
    if dest == types[0] and not opts.fold("neg-cast") and (
            trip := neg_of_round_trip(instr, cvt, ctx, flow, dest, types[1])) is not None:
        return trip
    decided = (decide_fold(opts, "neg-cast", lambda c: _neg_cast_hint(flow, c, dest, types[1]), cvt)
               or decide_fold(opts, "neg-cast", lambda n: flow.hints.negation_of_cast(n, dest, types[1]), instr)
               or (decide_fold(opts, "neg-cast", lambda n: flow.hints.sub_of_product(n, dest), instr)
                   if only_multiplicands(flow, instr) else None)
               or (decide_fold(opts, "neg-cast", lambda n: flow.hints.negated_product(n, dest), instr)
                   if only_multiplicands(flow, instr, products=True) else None)
               or (decide_fold(opts, "neg-cast", lambda n: flow.hints.sub_of_cast(n, dest), instr)
                   if only_addends(flow, instr) else None))
    if decided is not None and flow.hints.neg_cast_both(cvt, dest):
        decided = None  # both forms of one x in the file, one neg (held-out seed 63568): no one answer
    form = opts.fold("neg-cast") or (decided.form if decided else "after")
    if form == "before" and (neg_before_cast(instr, cvt, ctx, flow) if float_cast(cvt) is not None
                             else neg_before_packed_cast(instr, cvt, ctx, flow)):
        return FoldResult(True, fold_verdict(opts, "neg-cast", _NEG_CAST, form, decided))
    compute, nsrc = TABLE["neg"]
    if not elementwise(instr, ctx, OpInfo(LANE_TYPE.get(ft, ft), ft if ft in LANE_TYPE else None), compute, nsrc):
        return FoldResult(False, Verdict("neg: operand form not modelled"))
    if form == "after":
        return FoldResult(True, fold_verdict(opts, "neg-cast", _NEG_CAST, form, decided))
    return FoldResult(True, Verdict(f"{_NEG_CAST}; the cvt's source may change before the neg, so sanitized as the "
                                    "negation after the cast", ERROR, native=False))


_NEG_EXTREMUM = ("negation of a max/min: LLVM rewrites min(-a, -b) as -max(a, b) (and max/min swapped), which "
                 "the ring computes differently where a payload is φ(-0) = −2^(w−1) (its own negation); "
                 "sanitized as written")


def _scalar_sign_xor_of(instr: ir.Instruction, ft: str | None) -> bool:
    """``instr`` is a sign xor of one scalar of float type ``ft`` (a half's too: held-out seed 34595, ``tl.max(x *
    -1.0)`` of bf16 as a min.bf16 tree under ``xor.b16``)."""
    w = _SCALAR_WIDTH.get(ft or "")
    return w is not None and sign_xor_lanes(instr) == (w, w)


def neg_extremum_site(instr: ir.Instruction, flow: Flow) -> bool:
    """``neg`` of a max/min that a min/max reads, or at the max's own location: LLVM's −max(a, b) of min(−a, −b)."""
    ops, ft = instr.operands, float_type_of(instr)
    return (instr.opcode == "neg" and len(ops) == 2 and isinstance(ops[1], ir.Reg)
            and (m := flow.only_def(ops[1].name)) is not None and m.opcode in ("max", "min")
            and ((ft in ("f32", "f64") and reaches(flow, name_of(ops[0]), opcode_is(_OTHER_EXTREMUM[m.opcode])))
                 or flow.hints.same_location(instr, m)))


def tree_root(flow: Flow) -> Callable[[ir.Instruction], bool]:
    """The roots :func:`ptxkit.fpsan.fold_neg_extremum.negated_tree` looks for: such a ``neg`` where the user's
    reduction takes the other extremum of negations (the source hint ``reduced_negation``)."""
    def root(u: ir.Instruction) -> bool:
        if u.opcode == "xor":  # the negation as a sign xor after the tree (held-out seed 11777)
            src = next((o.name for o in u.operands[1:] if isinstance(o, ir.Reg)), None)
            m = flow.only_def(src) if src is not None else None
            mft = float_type_of(m) if m is not None and m.opcode in ("max", "min") else None
            site = _scalar_sign_xor_of(u, mft)
        elif u.opcode == "cvt":  # the negation in a subtraction after a widening (held-out seed 36975)
            m = flow.only_def(name_of(u.operands[1])) if widened_sub_root(u, flow) is not None else None
            site = m is not None
        else:
            m = flow.only_def(name_of(u.operands[1])) if len(u.operands) == 2 and isinstance(u.operands[1], ir.Reg) \
                else None
            site = m is not None and neg_extremum_site(u, flow)
        # the tree's root max carries the reduction's call (inlined_at); the xor may carry the store's location
        return (m is not None and site and m.opcode in _OTHER_EXTREMUM
                and any(flow.hints.reduced_negation(i, _OTHER_EXTREMUM[m.opcode]) is not None for i in (m, u)))
    return root


def _neg_extremum(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str,
                  original: ir.Instruction | None = None) -> FoldResult:
    """``neg`` of a ``max``/``min`` result that a ``min``/``max`` reads (held-out seed 883: ``tl.min(x *
    -1.0)`` as −max(x) into the shuffle tree's min): the ring negation as written, a note where the source
    negates a max/min call there, else an error."""
    compute, nsrc = TABLE["neg"]
    if not elementwise(instr, ctx, OpInfo(ft, None), compute, nsrc):
        return FoldResult(False, Verdict("neg: operand form not modelled"))
    m = flow.only_def(name_of(instr.operands[1]))
    if m is not None and tree_root(flow)(original or instr) and negated_tree(m, flow, tree_root(flow)):
        return FoldResult(True, Verdict(f"{_NEG_EXTREMUM.split(', which')[0]}: the user's reduction takes the "
                                        f"{_OTHER_EXTREMUM[m.opcode]} of negations; its tree computes "
                                        f"−{_OTHER_EXTREMUM[m.opcode]}(−a, −b) at each node, so this negation is "
                                        "Triton's", NOTE, native=False))
    decided = flow.hints.neg_extremum(instr)
    if decided is not None and decided.form == "written":
        return FoldResult(True, Verdict(f"{_NEG_EXTREMUM.split(', which')[0]}: the source at {decided.where} "
                                        "negates the max/min itself", NOTE, native=False))
    how = f"the source at {decided.where} negates the operands" if decided else "no source says which"
    return FoldResult(True, Verdict(f"{_NEG_EXTREMUM}; {how}", ERROR, native=False))


def _abs_verdict(flow: Flow, instr: ir.Instruction, as_written: str, reason: str, dest: str | None = None,
                 source: str | None = None, decided: Decision | None = None) -> Verdict:
    """A note where the source's abs call shows the order the PTX has (``as_written``: the cast
    ``inside`` or ``outside`` the abs; ``dest``: the cast's type; ``decided``: already told), else an error
    (the other order, or no source)."""
    decided = decided or flow.hints.abs_cast(instr, dest, source)
    if decided is not None and decided.form == as_written:
        return Verdict(f"{reason.split('; ')[0]}: the source at {decided.where} has this order", NOTE, native=False)
    how = f"the source at {decided.where} has the other" if decided is not None else "no source says which"
    return Verdict(f"{reason}; {how}", ERROR)


def _widening_half_op(flow: Flow, u: ir.Instruction) -> bool:
    """``u`` is a 16-bit add/sub/mul/setp the source shows as f32/f64 arithmetic on widened halves (H)."""
    ft = float_type_of(u)
    if ft not in ("f16", "bf16") or u.opcode not in ("add", "sub", "mul", "setp"):
        return False
    decided = flow.hints.half(u)
    return decided is not None and decided.form != "native"


def _abs_inside_cast(flow: Flow, cvt: ir.Instruction) -> tuple[ir.Instruction, str, str | None] | None:
    """The |x| (``abs.fS`` or the sign-bit ``and``; or a lane of ``abs.fSx2``, unpacked: held-out seed 540)
    a scalar float ``cvt`` reads, and x, when the source's abs call takes the cast (``abs(x.to(T))``, LLVM's
    ``abs(x).to(T)``: held-out seed 736) and x is unchanged up to the cvt; else None."""
    types = float_cast(cvt) if cvt.opcode == "cvt" else None
    src = cvt.operands[1] if types is not None else None
    ab = flow.only_def(src.name) if isinstance(src, ir.Reg) else None
    lane = _packed_lane(flow, ab, src.name) if ab is not None and isinstance(src, ir.Reg) else None
    if lane is not None:
        ab, x = lane
    if (types is None or ab is None or ab.guard is not None or len(ab.operands) < 2
            or not isinstance(ab.operands[1], ir.Reg)):
        return None
    if ab.opcode == "abs":
        if (float_type_of(ab) or "").removesuffix("x2" if lane else "") != types[1]:
            return None
    elif lane is not None or not (ab.opcode == "and" and (lanes := sign_mask_lanes(ab)) is not None
                                  and lanes[0] == lanes[1] == R.ring(types[1]).w):
        return None
    if lane is None:
        x = ab.operands[1].name
    if not flow.same_value(x, ab, cvt):  # (across a body's joins too: held-out seed 24369)
        return None
    if _after_cast_outside(flow, ab):
        # the abs of a narrowing cvt that :func:`_abs_after_cast` computes as the source's abs(y).to(S): this cvt
        # then widens that (held-out seed 43362: abs(x.to(f32)).to(f16).to(f32) of an f64 x read as a half's chain;
        # sqrt(abs(x).to(f16).to(f32)) of an f32 x, read as abs(x.to(f32)) of the half), and takes its abs again
        # where the source does (abs(abs(x).to(f16).to(f32)): one abs.f16 in the PTX)
        again = flow.hints.abs_at_cast(cvt, types[0], types[1])
        return (ab, name_of(ab.operands[0]), None) if again is not None and again.form == "inside" else None
    at_cast = flow.hints.abs_at_cast(cvt, types[0], types[1])
    if at_cast is not None and at_cast.form.startswith("via-"):
        return ab, x, at_cast.form[4:]
    decided = flow.hints.abs_cast(ab, types[0]) or at_cast
    return (ab, x, None) if decided is not None and decided.form == "inside" else None


def _after_cast_outside(flow: Flow, ab: ir.Instruction) -> bool:
    """``ab`` reads a float cvt's result where the source takes abs before that cast (``abs(x).to(T)``), the
    decision :func:`_abs_after_cast` acts on."""
    cvt = flow.only_def(ab.operands[1].name) if isinstance(ab.operands[1], ir.Reg) else None
    if cvt is None or cvt.opcode != "cvt" or float_cast(cvt, packed=True) is None:
        return False
    decided = _cast_order(flow, ab, cvt)
    return decided is not None and decided.form.partition("+")[0] in ("outside", "outside-f64")


def _cast_order(flow: Flow, ab: ir.Instruction, cvt: ir.Instruction) -> Decision | None:
    """The source's order of the abs ``ab`` and the float ``cvt`` it reads: at the abs's location, else at the
    cvt's (``SourceHints.abs_cast``, ``abs_at_cast``)."""
    types = float_cast(cvt, packed=True)
    decided = flow.hints.abs_cast(ab, types[0].removesuffix("x2") if types else None, types[1] if types else None)
    if decided is None and types is not None:
        decided = flow.hints.abs_at_cast(cvt, types[0].removesuffix("x2"), types[1])
    return decided


def _packed_lane(flow: Flow, unpack: ir.Instruction, r: str) -> tuple[ir.Instruction, str] | None:
    """(``abs.fTx2 p, q``, x) where ``r`` is a lane of ``mov.b32 {..}, p`` and x the same lane of the packing
    ``mov.b32 q, {..}`` of the operand, unpacked as it was packed."""
    ops = unpack.operands
    if not (unpack.opcode == "mov" and unpack.guard is None and len(ops) == 2 and isinstance(ops[0], ir.Vec)
            and isinstance(ops[1], ir.Reg)):
        return None
    ab = flow.only_def(ops[1].name)
    if ab is None or ab.opcode != "abs" or not isinstance(ab.operands[1], ir.Reg) or ab.guard is not None:
        return None
    pack = flow.only_def(ab.operands[1].name)
    if pack is None or pack.opcode != "mov" or not isinstance(pack.operands[1], ir.Vec):
        return None
    outs, ins = ops[0].items, pack.operands[1].items
    i = next((k for k, o in enumerate(outs) if isinstance(o, ir.Reg) and o.name == r), None)
    x = ins[i] if i is not None and len(outs) == len(ins) else None
    return (ab, x.name) if isinstance(x, ir.Reg) else None


def _lane_readers(flow: Flow, dst: str) -> list[ir.Instruction]:
    """The readers of ``dst``, and of the lanes of its unpackings instead of the unpacking itself."""
    out: list[ir.Instruction] = []
    for u in flow.uses.get(dst, []):
        if u.opcode == "mov" and isinstance(u.operands[0], ir.Vec):
            out += [v for o in u.operands[0].items if isinstance(o, ir.Reg) for v in flow.uses.get(o.name, [])]
        else:
            out.append(u)
    return out


def _abs_after_cast(instr: ir.Instruction, cvt: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult:
    """|c| of ``c = cvt.T.S x``: as written where the source's abs takes the cast; where it is
    ``abs(x).to(T)`` (LLVM moved the abs below the cast) and x is unchanged, Triton's ring cast of |x|;
    else left and reported (:func:`_abs_verdict`)."""
    types = float_cast(cvt, packed=True)
    decided = _cast_order(flow, instr, cvt)
    xs = cvt.operands[1:][::-1]  # cvt.rn.bf16x2.f32 d, a, b: b the low lane (ISA §9.7.9.21)
    lanes = sign_mask_lanes(instr) if instr.opcode == "and" else None
    fits = types is not None and (float_type_of(instr) == types[0] if instr.opcode == "abs"
                                  else lanes is not None and lanes[0] == lanes[1] == R.ring(types[0]).w)
    form, _, again = decided.form.partition("+") if decided is not None else ("", "", "")
    if (decided is None or form not in ("outside", "outside-f64") or not fits or instr.guard is not None
            or not all(isinstance(x, ir.Reg) and flow.unchanged_between(x.name, cvt, instr) for x in xs)):
        return FoldResult(False, _abs_verdict(flow, instr, "inside", _ABS_AFTER_CAST, decided=decided))
    assert types is not None
    dt, st = types[0].removesuffix("x2"), types[1]
    via = "f64" if form == "outside-f64" else st  # the f64 LLVM dropped, which Triton's ring keeps
    wv = R.ring(via).w
    pays = []
    for x in xs:
        p = ctx.embed(x, st)
        if via != st:
            p = cast_payload(ctx, p, st, via)
        bits = ctx.unembed_to_fresh(as_reg(ctx, p, wv), via)
        mag = ctx.fresh(BITS_KIND[wv])
        ctx.emit(f"and.b{wv} {mag}, {bits}, {hexc((1 << (wv - 1)) - 1, wv)}")
        pays.append(cast_payload(ctx, ctx.embed_value(mag, via), via, dt))
        if again:  # abs(abs(x).to(T)): the outer abs on the narrowed value's bits (native, as Triton's)
            wd = R.ring(dt).w
            nb, outer = ctx.unembed_to_fresh(as_reg(ctx, pays[-1], wd), dt), ctx.fresh(BITS_KIND[wd])
            ctx.emit(f"and.b{wd} {outer}, {nb}, {hexc((1 << (wd - 1)) - 1, wd)}")
            pays[-1] = ctx.embed_value(outer, dt)
    if len(pays) == 1:
        ctx.define(instr.operands[0], pays[0], dt, None)
    else:
        lo, hi = (ctx.unembed_to_fresh(p, dt) for p in pays)
        d = name_of(instr.operands[0])
        ctx.invalidate(d)
        ctx.emit(f"mov.b32 {d}, {{{lo}, {hi}}}")
    how = (f"abs(x.to(f64)).to({dt}), the ring widening of x, |·|, then the ring cast" if via != st else
           f"abs(x).to({dt}), sanitized so (the ring cast of |x|)") + (", and |·| of that" if again else "")
    return FoldResult(True, Verdict(f"{_ABS_AFTER_CAST_HEAD}: the source at {decided.where} has {how}", NOTE,
                                    native=False))


def _cast_of_abs(cvt: ir.Instruction, ab: ir.Instruction, x: str, via: str | None,
                 ctx: RewriteContext) -> FoldResult:
    """``cvt.T.S d, |x|`` as Triton's ``abs(x.to(T))``: the ring cast of φ(x), then abs of its float bits; ``via``
    W: ``abs(x.to(W)).to(T)``, the abs at W, then the ring cast to T."""
    types = float_cast(cvt)
    assert types is not None
    dt, st = types
    if via is not None:  # W, or W-S: abs(x.to(W)).to(S) first (S the cvt's source type)
        wt, _, back = via.partition("-")
        ww = R.ring(wt).w
        bits = ctx.unembed_to_fresh(cast_payload(ctx, ctx.embed(ir.Reg(x), st), st, wt), wt)
        m = ctx.fresh(BITS_KIND[ww])
        ctx.emit(f"and.b{ww} {m}, {bits}, {hexc((1 << (ww - 1)) - 1, ww)}")
        p = cast_payload(ctx, ctx.embed(m, wt), wt, back or dt)
        ctx.define(cvt.operands[0], cast_payload(ctx, p, back, dt) if back else p, dt, cvt.guard)
        chain = f"abs(x.to({wt}))" + (f".to({back})" if back else "") + f".to({dt})"
        return FoldResult(True, Verdict(f"cvt.{dt}.{st} of |x|: LLVM's abs(x).to({dt}) for the source's {chain}; "
                                        "sanitized as that chain of ring casts, the abs on the wide bits", NOTE,
                                        native=False))
    w = R.ring(dt).w
    bits = ctx.unembed_to_fresh(cast_payload(ctx, ctx.embed(ir.Reg(x), st), st, dt), dt)
    d = name_of(cvt.operands[0])
    ctx.invalidate(d)
    ctx.emit(f"{guard_text(cvt.guard)}and.b{w} {d}, {bits}, {hexc((1 << (w - 1)) - 1, w)}")
    return FoldResult(True, Verdict(f"cvt.{dt}.{st} of |x|: LLVM's abs(x).to({dt}) for the source's abs(x.to({dt})); "
                                    "sanitized as the ring cast of x, then abs", NOTE, native=False))


def _and_width(instr: ir.Instruction) -> int:
    """N of ``and.bN`` (0 for anything else)."""
    return next((int(m[1:]) for m in instr.mods if m in ("b16", "b32", "b64")), 0) if instr.opcode == "and" else 0
