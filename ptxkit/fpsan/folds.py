"""LLVM's folds that hide, in the plain PTX, the operation Triton's FPSan instrumented (issue 10 K F G
J L M; docs/fpsan.md §3 "Folds", §4). Each is recognised on the plain PTX and sanitized as Triton's FPSan
of the source form that produces it; where two plausible source forms give the same PTX, the default
form is sanitized and the instruction is reported as an **error** (``--strict`` fails) unless the user
states the source form with ``--fold NAME=FORM`` (:data:`FOLD_FORMS`), which makes it a note.

* K ``add.fT d, x, x`` — ``x*2.0`` (LLVM canonicalises ``fmul x, 2.0`` into ``fadd x, x``) or a source
  ``x + x``: ring φ(x)·φ(2) against 2φ(x). Default ``self-add=add`` (the PTX as written).
* F ``xor.bN d, x, signmask`` — LLVM's ``-x`` on bits (ring negation ``0 − φ(x)``, which differs from
  the xor only at ±0) or integer code. Decided by the dataflow (:class:`Flow`): a float or integer type
  on any instruction that defines or reads the value (through bit moves) decides; without one it is
  sanitized as a negation and reported (``sign-xor=neg`` or ``=bits`` states it).
* J the sign xor of a float↔float ``cvt`` result — ``(-x).to(T)`` (LLVM sinks ``fneg`` below
  ``fptrunc``/``fpext``) or ``-(x.to(T))``: the ring cast of −φ(x) against −(the ring cast of φ(x)).
  Default ``neg-cast=after`` (what the PTX says), ``before`` for the other.
* G ``mul.fT d, x, -0.0`` — ``0.0*(-x)`` or ``-(0.0*x)`` (InstCombine moves the negation into the
  constant): ring 0. A source multiplying by a literal −0.0 would give φ(x)·2^(w−1); assumed not (note).
* L ``selp.fT t, -0.0, y, p`` read only by float adds — LLVM's ``p ? x : x + y`` → ``x + (p ? -0.0 : y)``
  (cumsum's combine), −0.0 being IEEE's additive identity but not the ring's (φ(−0.0) = 2^(w−1)):
  the select takes +0.0 (payload 0) instead, which is Triton's ``p ? φ(x) : φ(x) + φ(y)`` (note).
* H ``add/sub/mul.f16`` (bf16, packed) and ``setp.f16`` — half arithmetic, or f32/f64 arithmetic on
  widened halves whose result is narrowed back (``(x.to(f32) * y.to(f32)).to(f16)``; InstCombine
  narrows it, and a comparison of two widened halves): Triton 3.9 gives the same instructions for both
  (only the debug ``.loc`` and the schedule differ), while the ring differs (a 16-bit ring op against
  the narrowing fold of the 32/64-bit one). Default ``half=native``; ``f32``/``f64`` sanitize the
  widened form (sign-extended payloads, the op at that width, Triton's narrowing fold; for
  ``setp`` a comparison of the widened floats φ⁻¹(sext φ(x))).
* T ``cvt.rn.f32.sN d, i`` of ``i = cvt.rzi.sN.{f16,bf16} h`` read only by ``setp`` (or by an ``abs`` only ``setp``
  reads) — ``h.to(intN).to(f32)``
  compared: Triton's FPSan widens h to f32 in the ring, and LLVM then folds fptosi/sitofp of that f32 into
  ``cvt.rzi.f32.f32`` (a comparison ignores the sign of zero, an out-of-range fptosi is poison), which
  the plain build cannot (its source is the half); so ``d`` is the trunc of the widened bits (note). Likewise
  through f64 (``cvt.rn.f64.sN``), of an f32 too where the source converts ``x.to(f64).to(intN)``.
* R ``cvt.rn.fT.sN d, i`` of ``i = cvt.rzi.sN.fT x`` read only by ``setp``, split by libdevice bodies only:
  Triton's FPSan build folds the pair into ``cvt.rzi.fT.fT`` (``ptxkit.fpsan.fold_round_trip``; note).
* M ``selp.fT d, NaN, m, p`` with ``m = max/min.fT a, b`` and ``p = setp.nan.fT a, b`` — LLVM's expansion of
  ``llvm.maximum/minimum`` (``propagate_nan=ALL``) where no ``.NaN`` instruction exists (f64): Triton's
  ring max/min decides NaN inputs too, so ``d`` takes ``m`` (note).
"""

from __future__ import annotations

import dataclasses

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.casts import through_int, trunc_casts
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, float_to_bits, guard_text, hexc
from ptxkit.fpsan.dispatch import rewrite_instruction
from ptxkit.fpsan.fold_body_join import body_join
from ptxkit.fpsan.fold_cancelled_neg import report_cancelled_negations
from ptxkit.fpsan.fold_constant_expr import constant_expression, constant_operand
from ptxkit.fpsan.fold_contracted import contracted_narrowed_product, kept_as_addend
from ptxkit.fpsan.fold_contracted_wide_add import contracted_wide_add
from ptxkit.fpsan.fold_converted_int_arith import converted_int_arith, rewrite_converted_int_arith
from ptxkit.fpsan.fold_dropped_abs import dropped_abs
from ptxkit.fpsan.fold_dropped_arm_round_trip import dropped_arm_round_trip
from ptxkit.fpsan.fold_exp_narrowed_neg import exp_of_narrowed_negation
from ptxkit.fpsan.fold_exp_narrowed_neg import replays as exp_replays
from ptxkit.fpsan.fold_flow import (
    Flow,
    FoldResult,
    as_written_reported,
    decide_fold,
    doubled_input,
    float_cast,
    fold_verdict,
    roles,
)
from ptxkit.fpsan.fold_fma_product import as_product, product_fma
from ptxkit.fpsan.fold_fp8_via_half import e5m2_to_bf16, fp8_via_half
from ptxkit.fpsan.fold_frem import frem_select
from ptxkit.fpsan.fold_half_copysign import half_copysign, rewrite_half_copysign
from ptxkit.fpsan.fold_libcall import direct_libcall, unmodelled_libcall
from ptxkit.fpsan.fold_merged_int_conversion import merged_int_conversion
from ptxkit.fpsan.fold_named_literal import named_literal_constant, selected_named_literal
from ptxkit.fpsan.fold_narrowed_compare import narrowed_compare, rewrite_narrowed_compare
from ptxkit.fpsan.fold_narrowed_extremum import narrowed_extremum
from ptxkit.fpsan.fold_narrowed_fma import report_widened_sum_fma
from ptxkit.fpsan.fold_neg_extremum import max_of_negations, negated_tree
from ptxkit.fpsan.fold_neg_into_constant import (
    negated_constant_product_in_sum,
    negation_cancelled_in_sum,
    negation_in_constant,
    report_cancelled_negation,
)
from ptxkit.fpsan.fold_neg_tree_root import cancelled_tree
from ptxkit.fpsan.fold_negated_int_widening import read_only_negated
from ptxkit.fpsan.fold_negated_narrowing import negated_around_narrowing, rewrite_negated_narrowing, sign_op
from ptxkit.fpsan.fold_negated_select_zero import negated_zero_arm, rewrite_negated_zero_arm
from ptxkit.fpsan.fold_negation_compare import negation_compared, rewrite_negation_compare
from ptxkit.fpsan.fold_poison import poison_conversion
from ptxkit.fpsan.fold_powi import powi_tail, rewrite_powi
from ptxkit.fpsan.fold_round_trip import (
    compared_round_trip,
    compared_with_ring_constant,
    same_value_in_fpsan_block,
    sign_blind_compares,
    trunc_of_round_trip,
)
from ptxkit.fpsan.fold_select_arith import (
    report_unexplained_select,
    rewrite_select_arith,
    select_arith_constant,
    unexplained_select_constant,
)
from ptxkit.fpsan.fold_select_const import narrowed_select_constants, rewrite_select_constants
from ptxkit.fpsan.fold_select_expr import select_expression_constants
from ptxkit.fpsan.fold_select_extremum import select_extremum
from ptxkit.fpsan.fold_select_self_add import hoisted_self_add, select_arms_form, select_of_forms
from ptxkit.fpsan.fold_self_add import (
    converted,
    copies_decision,
    narrowed_load,
    operand_load,
    plan,
    self_add,
    written_doubling_sum,
)
from ptxkit.fpsan.fold_self_compare import self_compare
from ptxkit.fpsan.fold_shared_product import as_sum, shared_product
from ptxkit.fpsan.fold_sign_multiply import rewrite_sign_multiplied_half, sign_multiplied_half
from ptxkit.fpsan.fold_sub_compare import sub_compared
from ptxkit.fpsan.fold_user_asm import user_asm
from ptxkit.fpsan.fold_widened_zero_test import widened_zero_test
from ptxkit.fpsan.fold_zero_sign import zero_of, zero_sign, zero_sign_fold
from ptxkit.fpsan.folds_narrow_neg import NEGATION_FOLDED, negated_operand_op, widened_negated_operand
from ptxkit.fpsan.folds_narrowed import (
    half_constant,
    lane_constants,
    narrowed_f32_unmodelled,
    negated_narrowed_product,
    negated_product,
    nested_role,
    widened_setp,
)
from ptxkit.fpsan.folds_reported import report_rewritten_shapes
from ptxkit.fpsan.folds_sign import is_sign_bit_op, rewrite_sign_fold, tree_root
from ptxkit.fpsan.folds_sub import sub_fold
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.ops import ALL_FLOATS, LANE_TYPE, TABLE, OpInfo, as_reg, elementwise, float_type_of
from ptxkit.fpsan.options import Options
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_ast import Decision

# ------------------------------------------------------------------------------ the folds

_INT_TYPES = ("s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64")


def _compared_narrow_int(instr: ir.Instruction, flow: Flow) -> ir.Instruction | None:
    """The ``cvt.rzi.{s,u}N.{f16,bf16}`` whose integer ``cvt.rn.f32.{s,u}N`` converts back (or ``.f64``; of an f32
    too, back to f64), where only comparisons read the result (or an abs they alone read: held-out seed 209470) and
    the float is unchanged in between, across libdevice bodies too (fold T)."""
    types = [m for m in instr.mods if m in _INT_TYPES or m in LANE_TYPE.values() or m in ("f32", "f64")]
    ops = instr.operands
    if types[:1] not in (["f32"], ["f64"]) or len(types) != 2 or types[1] not in _INT_TYPES or len(ops) != 2 \
            or not isinstance(ops[1], ir.Reg) or not isinstance(ops[0], ir.Reg):
        return None
    cvt = flow.only_def(ops[1].name)
    if cvt is None or cvt.opcode != "cvt" or "rzi" not in cvt.mods or len(cvt.operands) != 2 \
            or not isinstance(cvt.operands[1], ir.Reg) or not ({"f16", "bf16"} & set(cvt.mods)
                                                               or ("f32" in cvt.mods and types[0] == "f64")):
        return None
    if (compares := sign_blind_compares(flow, instr)) is None:
        return None
    # (a libdevice body between, the plain build's branches: one block in Triton's, held-out seed 210588, silent)
    h = cvt.operands[1].name
    return cvt if flow.unchanged_between(h, cvt, instr) or same_value_in_fpsan_block(
        flow, h, cvt, instr, [u for u, _ in compares]) else None


def _negation_moved_off(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """A narrowing float ``cvt`` whose source value is ``(-x).to(T)`` of a wider x (held-out seed 6034: ``fma((-h32)
    .to(f16), -(..), ..)``, both negations cancelled), while no sign op defines its operand or reads its result
    (the J fold's own cases): where the source says so, else None."""
    types = float_cast(instr)
    ops = instr.operands
    if types is None or R.ring(types[0]).w >= R.ring(types[1]).w or not isinstance(ops[1], ir.Reg) \
            or not isinstance(ops[0], ir.Reg):
        return None
    defs = flow.defs.get(ops[1].name, [])  # (a masked load writes twice: held-out seed 14443, silent before)
    if not defs or any(sign_op(d) for d in defs) or any(sign_op(u) for u in flow.uses.get(ops[0].name, [])):
        return None
    if (uses := flow.uses.get(ops[0].name, [])) and all(exp_replays(u, flow) for u in uses):
        return None  # (read only by exp's multiplier, the negation in it: fold_exp_narrowed_neg replays it from here)
    # also ((-a) * b).to(T) where the product LLVM narrows has no negated factor, unless a sub or an add the source
    # writes as a subtraction reads it, which folds_sub decides (held-out seed 29884's kin: the negation cancelled
    # against a * -1.0 after the cast was silent)
    p = flow.only_def(ops[1].name)
    kept = p is None or p.opcode != "mul" or any(
        (isinstance(o, ir.FloatImm) and o.bits >> (o.width - 1) & 1) or (isinstance(o, ir.Reg) and any(
            sign_op(d) for d in flow.defs.get(o.name, []))) for o in p.operands[1:])
    subs = all((u.opcode == "sub" and u.operands[2] == ops[0]) or (u.opcode == "add" and flow.hints.subtracts(u))
               for u in flow.uses.get(ops[0].name, []))
    decided = flow.hints.negation_narrowed(instr, R.ring(types[0]).w)
    if decided is not None and decided.form.endswith(":scan") and p is not None and p.opcode in ("add", "sub") \
            and _negation_summed(flow, p):
        return None  # a later element of a scan of negations, the negation in its sum (held-out seed 101371)
    return decided or (None if kept or subs else flow.hints.negated_product_cast(instr, *types))


def _negation_summed(flow: Flow, p: ir.Instruction) -> bool:
    """A negation (``neg``, sign ``xor``) is a term of the sum ``p`` (through adds and subs): ``(−a) − b − c``, LLVM's
    scan of ``-x`` — the ring's sum of the negations, as Triton's."""
    todo, seen = [p], 0
    while todo and seen < 32:
        t, seen = todo.pop(), seen + 1
        if sign_op(t):
            return True
        if t.opcode in ("add", "sub"):
            todo += [d for o in t.operands[1:] if isinstance(o, ir.Reg) and (d := flow.only_def(o.name)) is not None]
    return False


def _trunc_of_widened(instr: ir.Instruction, cvt: ir.Instruction, ctx: RewriteContext,
                      as_int: bool = False) -> FoldResult | None:
    """Fold T: ``d`` = trunc of φ⁻¹ of the half's payload sign-extended to f32 (held-out seed 5041: silent
    before), or to f64 (of an f32 too, where the source converts through f64); not where the source converts
    through another type than ``d``'s (no trunc to fold: the types differ) or says the integer was converted to a
    half (the int-wide fold's own case)."""
    st = "bf16" if "bf16" in cvt.mods else "f16" if "f16" in cvt.mods else "f32"
    it = next(m for m in cvt.mods if m in _INT_TYPES)
    if st == "f32":  # x.to(f64).to(int32).to(f64) of an f32 x (held-out seed 19853, silent at first contact): the
        # source says through f64, else the plain f32 → int → f64 (no same-type pair to fold in either build)
        half_int = "f64" if ctx.hints.f32_int(cvt, it) is not None else ""
    else:
        half_int = ctx.folds.get("half-int") or (d.form if (d := ctx.hints.half_int(cvt, it)) is not None else "f32")
    wide = ctx.hints.int_wide(instr)
    wt = "f64" if "f64" in instr.mods else "f32"  # (f64: h.to(f64).to(int8).to(f64), held-out seed 16720, silent)
    if not half_int.startswith(wt) or (wide is not None and wide.form != "direct"):
        return None
    bits = ctx.unembed_to_fresh(cast_payload(ctx, ctx.embed(cvt.operands[1], st), st, wt), wt)
    dst = name_of(instr.operands[0])
    ctx.invalidate(dst)
    if as_int:  # (compared with a ring constant: an integer comparison in Triton's build, fold_round_trip)
        i, g = ctx.fresh(BITS_KIND[max(int(it[1:]), 16)]), guard_text(instr.guard)  # (an s8 in a b16)
        ctx.emit(f"{g}cvt.rzi.{it}.{wt} {i}, {bits}")
        ctx.emit(f"{g}cvt.rn.{wt}.{it} {dst}, {i}")
    else:
        ctx.emit(f"{guard_text(instr.guard)}cvt.rzi.{wt}.{wt} {dst}, {bits}")
    how = "the two conversions, as the integer comparison LLVM makes of a compared ring constant" if as_int else \
        "that trunc"
    return FoldResult(True, Verdict(f"{instr.opcode}.{'.'.join(instr.mods)} of {st} → {it} read only by comparisons: "
                                    f"Triton's FPSan widens the {st} to {wt} in the ring, and LLVM folds the {wt} → "
                                    f"int → {wt} pair that follows into a trunc (a comparison ignores the sign of "
                                    f"zero); sanitized as {how}", NOTE, native=False))


def rewrite_fold(instr: ir.Instruction, ctx: RewriteContext, opts: Options, flow: Flow) -> FoldResult | None:
    """The fold ``instr`` belongs to, rewritten (None: not a fold; the ordinary dispatch applies)."""
    op = instr.opcode
    if (asm := user_asm(instr, ctx, flow)) is not None:
        return asm
    if float_type_of(instr) is not None:
        unmodelled_libcall(instr, ctx, flow)
    report_rewritten_shapes(instr, ctx, flow)
    if op == "mov" and (joined := body_join(instr, ctx, flow)) is not None:
        return joined
    if op == "neg" and (sign_times := sign_multiplied_half(instr, flow)) is not None:
        return rewrite_sign_multiplied_half(instr, ctx, sign_times)
    if op == "and" and (zero_test := widened_zero_test(instr, ctx, flow)) is not None:
        return zero_test
    if op == "cvt" and (e5m2 := fp8_via_half(instr, ctx, flow)) is not None:
        return e5m2
    if op == "mul" and (bf16 := e5m2_to_bf16(instr, ctx, flow)) is not None:
        return bf16
    sign = rewrite_sign_fold(instr, ctx, opts, flow)
    if sign is not None or is_sign_bit_op(instr):  # a sign-bit xor/or/and of integer code: not a fold
        return sign
    if op in ("max", "min") and not _reduced_wider(instr, flow) and (
            negated_tree(instr, flow, tree_root(flow)) or cancelled_tree(instr, flow)):
        return max_of_negations(instr, ctx)
    if op in ("fma", "mad") and (narrowed := contracted_narrowed_product(instr, ctx, flow)) is not None:
        return narrowed
    if op == "fma" and (wide_add := contracted_wide_add(instr, ctx, flow)) is not None:
        return wide_add
    if (const := (named_literal_constant(instr, ctx, flow) or constant_expression(instr, ctx, flow)) if op == "mov"
            else constant_operand(instr, ctx, opts, flow)) is not None:  # (a constant LLVM folded, the ring's)
        return const
    if op == "cvt" and (unsigned := dropped_abs(instr, ctx, flow, opts.atomics)) is not None:
        return unsigned
    if op == "cvt" and (poison := poison_conversion(instr, flow) or read_only_negated(instr, flow)) is not None:
        return FoldResult(False, poison)
    if op in ("and", "selp") and (zero := zero_sign_fold(instr, ctx, opts, flow)) is not None:
        return zero
    if op == "selp" and (copysign := half_copysign(instr, flow)) is not None:
        return rewrite_half_copysign(instr, ctx, flow, copysign)
    if op == "selp" and (zero_arm := negated_zero_arm(instr, flow)) is not None:
        return rewrite_negated_zero_arm(instr, ctx, *zero_arm)
    if op == "add" and (moved := negated_constant_product_in_sum(instr, flow)) is not None:
        ctx.report(instr, f"add of a widened half product by a negative constant where the source at {moved.where} "
                   "subtracts the product by a positive one: LLVM moved the negation into the half constant, Triton "
                   "negates after the sign extension, which differs where the 16-bit product is −2^15 (a factor "
                   "−0.0); sanitized as written", ERROR, False)
    if op == "mul" and (exp_neg := exp_of_narrowed_negation(instr, ctx, flow)) is not None:
        return exp_neg
    if op in ("mul", "div", "rcp", "fma") and (powi := powi_tail(instr, flow)) is not None:
        return rewrite_powi(instr, ctx, powi)
    if op == "selp" and (pushed := select_expression_constants(instr, flow)) is not None:
        return rewrite_select_arith(instr, ctx, pushed)
    if op == "selp" and (consts := narrowed_select_constants(instr, flow)) is not None:
        return rewrite_select_constants(instr, ctx, *consts)
    if op == "selp" and (named := selected_named_literal(instr, ctx, flow)) is not None:
        return named
    if op == "selp" and (arith := select_arith_constant(instr, flow)) is not None:
        return rewrite_select_arith(instr, ctx, arith)
    if op == "selp" and (kept := dropped_arm_round_trip(instr, ctx, flow)) is not None:
        return kept
    if op == "selp" and (where := unexplained_select_constant(instr, flow)) is not None:
        report_unexplained_select(instr, ctx, where)
    if op == "cvt" and len([m for m in instr.mods if m in _INT_TYPES]) == 2 and (
            folded := flow.hints.int_through_float(instr)) is not None:
        return FoldResult(False, Verdict(f"integer conversion where the source at {folded.where} converts an integer "
                                         "to a float type and back: LLVM folds the exact round trip, Triton's FPSan "
                                         "widens the float in the ring before converting back; left native", ERROR))
    if op == "cvt" and (int_arith := converted_int_arith(instr, flow)) is not None:
        return rewrite_converted_int_arith(instr, ctx, int_arith)
    ft = float_type_of(instr)
    if ft is None and op == "selp" and instr.mods == ("b16",) and len(instr.operands) == 4:
        ft = _half_select(instr, flow)  # a half cumsum's -0.0 select (held-out seeds 1893, 1930)
    if ft is None:
        return None
    ops = instr.operands
    if op == "cvt" and (cvt := _compared_narrow_int(instr, flow)) is not None:
        return _trunc_of_widened(instr, cvt, ctx, compared_with_ring_constant(instr, flow))
    if op == "cvt" and (cvt := compared_round_trip(instr, flow)) is not None:
        return trunc_of_round_trip(instr, cvt, ctx)
    if op == "cvt" and (merged := merged_int_conversion(instr, flow)) is not None:
        ctx.report(instr, f"float → integer conversion LLVM merged from two source conversions through different "
                   f"widenings ({merged[0].where}: {merged[0].form}; {merged[1].where}: {merged[1].form}), which "
                   "Triton's FPSan computes apart (the payload widened to each type); sanitized as the first",
                   ERROR, False)
    if op == "cvt" and (around := negated_around_narrowing(instr, flow)) is not None:
        return rewrite_negated_narrowing(instr, ctx, around)
    if op == "cvt" and (moved := _negation_moved_off(instr, flow)) is not None:
        ctx.report(instr, f"narrowing conversion where the source at {moved.where} narrows a negation of a wider "
                   "value, but no negation reaches or leaves the cvt: LLVM cancelled it against another or moved it "
                   "elsewhere, and Triton's ring narrowing of −φ(x) is not the narrow ring's negation of the "
                   "narrowed x; sanitized as written", ERROR, False)
    if (op == "cvt" and "rzi" in instr.mods and [m for m in instr.mods if m in ALL_FLOATS] == [ft, ft]
            and ft in ("f32", "f64") and len(ops) == 2
            and isinstance(ops[0], ir.Reg) and not all(u.opcode == "setp" for u in flow.uses.get(ops[0].name, []))
            and (decided := trunc_casts(instr, ctx)) is not None):
        # x.to(intN).to(fT) that LLVM folds into a trunc where only sign-of-zero-blind code reads it (x + 0.5):
        # in Triton's FPSan the ring code reads it, so the two native conversions stay (held-out seed 5106)
        through_int(instr, ctx, ft, decided)
        return FoldResult(True, None)
    if op in ("sqrt", "rsqrt", "copysign") and (done := direct_libcall(instr, ctx, flow, ft)) is not None:
        return done
    if op == "copysign" and len(ops) == 3 and ft in ("f32", "f64") and _zero_value(flow, ops[2]):
        return zero_sign(instr, ctx, opts, ft, decide_fold(opts, "zero-sign", flow.hints.zero_sign, instr))
    if op in ("fma", "mad") and len(ops) == 4 and (c := _product_of(flow, instr)) is not None \
            and not written_doubling_sum(flow, instr):
        # x·2.0 of a product p = a·b, as p + p contracted into fma(a, b, p) (held-out seeds 960, 1087)
        lane = LANE_TYPE.get(ft, ft)
        added = dataclasses.replace(instr, opcode="add", mods=(ft,), operands=(ops[0], c, c))
        return self_add(added, ctx, opts, ft,
                        decide_fold(opts, "self-add", lambda i: flow.hints.self_add(i, lane), instr))
    if op == "add" and len(ops) == 3 and isinstance(ops[1], ir.Reg) and ops[1] == ops[2]:
        lane = LANE_TYPE.get(ft, ft)
        # the inner one of two self-adds at one location (held-out seed 5719: ((h.to(f32) * 2.0).to(f64).to(bf16)
        # * 2.0 as two add.bf16): the location's expression is the outer one's; the inner one's the source does not
        # tell at its width (silent before): undecided; also at column 0 of the outer's line (12693), but not where the
        # outer is a recognised body's own x + x (12700: pow(a + a, a)'s NaN arm)
        inner = any(u.opcode == "add" and len(u.operands) == 3 and u.operands[1] == u.operands[2] == ops[0]
                    and u.span is not None and u.span.line not in flow.native
                    and flow.hints.within_location(instr, u) for u in flow.uses.get(ops[0].name, [])) \
            if isinstance(ops[0], ir.Reg) else False
        def hint(i: ir.Instruction) -> Decision | None:
            return flow.hints.self_add(i, lane, narrowed_load(flow, i.operands[1], ft),
                                       converted(flow, i.operands[1]), operand_load(flow, i.operands[1]))
        decided = None if inner else decide_fold(opts, "self-add", lambda i: hint(i) or copies_decision(
            i, flow, hint) or select_arms_form(i, flow) or doubled_input(i, flow), instr)
        both = None if inner or decided or not opts.source_hints or opts.fold("self-add") else plan(instr, flow, lane)
        return self_add(instr, ctx, opts, ft, decided, both, flow)
    if op == "add" and not opts.fold("self-add") and (h := hoisted_self_add(instr, flow, ft or "")) is not None \
            and h[2] == "mul2":
        return select_of_forms(instr, ctx, flow, ft or "", h[0], h[1], h[3])
    if op == "setp" and (nc := narrowed_compare(instr, flow, ft or "")) is not None:
        return rewrite_narrowed_compare(instr, ctx, ft or "", *nc)
    if op in ("mul", "fma"):
        report_cancelled_negations(instr, ctx, flow)
    if op in ("mul", "fma", "div") and (moved := negation_in_constant(instr, flow)) is not None:
        ctx.report(instr, f"product with a negated constant where the source at {moved.where} negates x before "
                   "widening it: LLVM moved the negation into the constant; Triton's FPSan negates x's payload in its "
                   "own ring and sign-extends it, which differs at φ(−0.0) = −2^(w−1) (its own negation there); "
                   "sanitized as written", ERROR, False)
    if op in ("fma", "mad"):
        report_cancelled_negation(instr, ctx, flow)
        report_widened_sum_fma(instr, ctx, flow)
    if op in ("fma", "mad") and product_fma(instr, flow, ft):
        return as_product(instr, ctx, opts, flow, rewrite_fold)
    if op in ("fma", "mad") and (t := shared_product(instr, flow)) is not None:
        return as_sum(instr, t, ctx, opts, flow, rewrite_fold)
    if (op, len(ops)) in (("mul", 3), ("fma", 4), ("mad", 4)) and (_neg_zero(ops[1], ft, flow)
                                                                   or _neg_zero(ops[2], ft, flow)):
        return _mul_neg_zero(instr, ctx, ft, flow=None, zeros=flow)  # ring 0 whatever the width (before H)
    if (op, len(ops)) in (("mul", 3), ("fma", 4)) and ft in LANE_TYPE and any(
            _packed_neg_zero(flow, o, ft) for o in ops[1:3]):
        return _mul_neg_zero(instr, ctx, ft, flow)  # seed 783: -(0.0 * h) as mul.f16x2 h, {-0.0, -0.0}
    if (op == "setp" and len(ops) == 3 and ft in ("f16", "bf16", "f32", "f64") and isinstance(ops[0], ir.Reg)
            and isinstance(ops[1], ir.Reg) and ops[1] == ops[2] and {"num", "nan"} & set(instr.mods)):
        return self_compare(instr, ctx, opts, ft, decide_fold(opts, "self-compare",
                                                            lambda i: flow.hints.self_compare(i, ft), instr))
    if op == "setp" and (nn := negation_compared(instr, flow, ft or "")) is not None:
        return rewrite_negation_compare(instr, ctx, ft or "", *nn)
    if (op == "setp" and len(ops) == 3 and ft in ("f16", "bf16", "f32", "f64") and isinstance(ops[1], ir.Reg)
            and isinstance(ops[2], ir.FloatImm) and (folded := flow.hints.folded_compare(instr)) is not None):
        return FoldResult(False, Verdict(f"comparison of a value with a constant where the source at {folded.where} "
                                         "compares two expressions: LLVM folded it algebraically (x.to(f32) < "
                                         "-x.to(f32) as x < -2^-150), which Triton's ring casts and negations do not "
                                         "follow; left native", ERROR))
    if op == "setp" and (done := sub_compared(instr, ctx, flow, ft)) is not None:
        return done
    if op == "setp" and ft in ("f16", "bf16", "f32") and _negations_gone(flow, instr) \
            and flow.hints.reads_negated_cast(instr, ft):
        # -(a.to(T)) < (-x).to(T): LLVM cancels the two negations, moving x's past the narrowing, which Triton's
        # ring narrowing does not commute with (held-out seed 167987, silent at first contact)
        return FoldResult(False, Verdict(_NEG_CAST_COMPARED, ERROR))
    if op in ("sub", "add", "fma") and (done := sub_fold(instr, ctx, flow, ft)) is not None:
        return done
    if op in ("sub", "add") and (cancelled := negation_cancelled_in_sum(instr, flow)) is not None:
        ctx.report(instr, f"{op} of a widened value where the source at {cancelled.where} widens a negation and "
                   "subtracts it (or adds it where LLVM subtracts): LLVM cancelled the two; Triton's FPSan negates in "
                   "the narrow ring before sign-extending, which differs at φ(−0.0) = −2^(w−1) (its own negation "
                   "there); sanitized as written", ERROR, False)
    if (op in ("add", "sub", "mul") and ft == "f32" and len(ops) == 3 and not opts.fold("half")
            and (decided := flow.hints.narrowed_f32(instr)) is not None
            and (decided := nested_role(instr, flow, decided)).form != "native"):
        if decided.form.startswith("neg-product:"):
            return negated_product(instr, ctx, flow, decided) or as_written_reported(instr, ctx, ft, (
                f"f32 mul where the source at {decided.where} negates its product widened to f64 and narrows: LLVM "
                "moved the negation onto an operand, which no neg.f32 or sign xor here shows; sanitized as the f32 op"))
        if decided.form == "neg" and (done := negated_narrowed_product(instr, ctx, flow, decided)) is not None:
            return done
        if (reason := narrowed_f32_unmodelled(op, decided)) is not None:
            return as_written_reported(instr, ctx, ft, reason)
        return _half(instr, ctx, opts, ft, decided, flow)  # f64 arithmetic on widened f32, narrowed back
    if op in ("max", "min") and (done := narrowed_extremum(instr, ctx, flow) or select_extremum(instr, ctx, flow)):
        return done
    if (op in ("max", "min") and ft in ("f16", "bf16", "f32") and (wider := flow.hints.reduced_wider(instr, ft))
            and wider.form == "wider"):
        return as_written_reported(instr, ctx, ft, f"{op}.{ft} of a reduction whose operand the source at "
                                    f"{wider.where} computes at a wider type: LLVM reduces the narrow values (max and "
                                    "min commute with the exact widening), Triton's FPSan widens in the ring and "
                                    f"reduces there (not modelled); sanitized as the {ft} op")
    if (op == "fma" and LANE_TYPE.get(ft, ft) in ("f16", "bf16") and (wide := flow.hints.half_fma(instr)) is not None
            and not (wide.form == "wide:one" and kept_as_addend(flow, instr))):
        return as_written_reported(instr, ctx, ft, f"{op}.{ft} where the source at {wide.where} adds a half "
                                    "narrowing of a wider product: LLVM narrowed the exact product into the 16-bit "
                                    "fma, Triton's FPSan multiplies in the wide ring and narrows (not modelled); "
                                    f"sanitized as the {ft} fma")
    if op in ("add", "sub", "mul", "setp") and LANE_TYPE.get(ft, ft) in ("f16", "bf16"):
        return (op == "setp" and flow.tests_bypassed(instr)) or _half(
            instr, ctx, opts, ft, decide_fold(opts, "half", lambda i: flow.hints.half(i)
                                              or flow.hints.negated_reduction(i), instr), flow)
    wide = flow.hints.half(instr) if op == "setp" and ft == "f32" and len(ops) == 3 else None
    if wide is not None and wide.form == "undecided":
        return FoldResult(False, Verdict(f"setp.f32 at a merged location of {wide.where}, whose comparisons of this "
                                         "kind include one of f32 values widened to f64 (Triton compares the ring "
                                         "widenings) and one of the f32 values: which one this is, the PTX does not "
                                         "say; left native", ERROR))
    if wide is not None and wide.form == "f64":
        # x.to(f64) >= y.to(f64) of f32 values: LLVM compares the f32s (held-out seed 18867, silent at first contact)
        return widened_setp(instr, ctx, ft, "f64", Verdict(
            f"setp.f32 of two values the source at {wide.where} widens to f64: LLVM drops the exact widenings, "
            "Triton's FPSan compares the ring widenings; sanitized so", NOTE, native=False))
    if op == "selp" and len(ops) == 4 and ft in ("f16", "bf16", "f32", "f64"):
        return _select_fold(instr, ctx, flow, ft)
    return None


def _reduced_wider(instr: ir.Instruction, flow: Flow) -> bool:
    """The max/min is of a reduction the source computes at a wider type (its own report below; held-out seed 40668:
    ``tl.min(-h.to(f32))`` as an f16 tree whose negation LLVM moved, silent at −0 where the f32 ring's negation of a
    widened φ(−0) is no minimum)."""
    ft = float_type_of(instr)
    wider = flow.hints.reduced_wider(instr, ft) if ft in ("f16", "bf16", "f32") else None
    return wider is not None and wider.form == "wider"


_HALF = ("16-bit float op: half arithmetic or, with the same PTX, f32/f64 arithmetic on widened halves that "
         "LLVM narrows because the result is narrowed back (x.to(f32)*y.to(f32)).to(f16), or a comparison of "
         "two widened halves), which Triton's FPSan computes at the wide width")


_NARROWED_F32 = ("f32 op LLVM narrowed from f64 arithmetic on widened f32 ((x.to(f64) * y.to(f64)).to(f32): exact "
                 "in IEEE, while Triton's FPSan computes it in the 64-bit ring and narrows); sanitized so")


def _half(instr: ir.Instruction, ctx: RewriteContext, opts: Options, ft: str, decided: Decision | None,
          flow: Flow) -> FoldResult:
    form = opts.fold("half") or (decided.form if decided else "native")
    verdict = fold_verdict(opts, "half", _HALF, form, decided)
    if ft == "f32" and decided is not None:  # only the source decides it (every f32 op would be undecided)
        verdict = Verdict(f"{_NARROWED_F32}; decided by the source at {decided.where}", NOTE, native=False)
    if form == "native":
        if instr.opcode == "setp":
            return FoldResult(False, Verdict(verdict.reason, verdict.severity))  # a comparison: left native
        done = rewrite_instruction(instr, ctx, opts.atomics)
        if done is True:
            return FoldResult(True, verdict)
        return FoldResult(False, done if isinstance(done, Verdict) else Verdict(str(done or "not modelled")))
    ww = 32 if form == "f32" else 64
    if instr.opcode == "setp":
        return widened_setp(instr, ctx, ft, form, verdict, flow)
    op = {"add": "add.s{w}", "sub": "sub.s{w}", "mul": "mul.lo.s{w}"}[instr.opcode].format(w=ww)
    lane = LANE_TYPE.get(ft, ft)

    packed = ft in LANE_TYPE
    consts = [lane_constants(flow, o, lane) if packed else (half_constant(flow, o, lane),) * 2
              for o in instr.operands[1:3]]
    lanes = iter((0, 1))  # elementwise computes lane 0, then lane 1
    if (neg := widened_negated_operand(instr, ctx, flow, ft, ww) if not packed else None) is not None:
        verdict = dataclasses.replace(verdict, reason=f"{verdict.reason}; {NEGATION_FOLDED}")

    def compute(c: RewriteContext, ps: list[str], w: int, _i: ir.Instruction) -> str:
        wide, at = [], next(lanes, 0)
        for p, k in zip(ps, (ks[at] for ks in consts), strict=True):
            if k is not None:  # a Python number takes the wide type: φ_wide(c) (1488; packed: 15653)
                wide.append(hexc(R.embed_int(float_to_bits(k, form), form), ww))
                continue
            x = c.fresh(BITS_KIND[ww])
            lw = R.ring(lane).w
            c.emit(f"cvt.s{ww}.s{lw} {x}, {as_reg(c, p, lw)}")
            wide.append(x)
        o = c.fresh(BITS_KIND[ww])
        c.emit(f"{op} {o}, {wide[0]}, {wide[1]}" if neg is None else negated_operand_op(c, o, wide, neg, ww, op))
        return cast_payload(c, o, form, lane)
    if not elementwise(instr, ctx, OpInfo(lane, ft if ft in LANE_TYPE else None), compute, 2):
        return FoldResult(False, Verdict(f"{instr.opcode}: operand form not modelled"))
    return FoldResult(True, verdict)


_MUL_NEG_ZERO = ("mul by -0.0 (also as an fma multiplicand): LLVM folds 0.0*(-x) and -(0.0*x) into x*(-0.0); "
                 "sanitized as Triton's ring φ(0)·(−φ(x)) = 0 (a source multiplying by a literal -0.0 would give "
                 "φ(x)·φ(-0.0))")


def _packed_neg_zero(flow: Flow, o: ir.Operand, ft: str) -> bool:
    """``o`` is −0.0 in both lanes of a packed ``ft``: an immediate, or a register whose one definition moves
    one in (``mov.b32 r, -2147450880``: 0x80008000)."""
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    if d is not None and d.opcode == "mov" and len(d.operands) == 2 and d.guard is None:
        o = d.operands[1]
    return isinstance(o, ir.Imm) and o.value % (1 << 32) == 0x80008000 and ft in ("f16x2", "bf16x2")


def _mul_neg_zero(instr: ir.Instruction, ctx: RewriteContext, ft: str, flow: Flow | None = None,
                  zeros: Flow | None = None) -> FoldResult:
    """``mul d, x, -0.0`` and ``fma d, x, -0.0, c`` (``c - 0.0*x`` contracted: the G fold inside an fma,
    issue 10 seed 108): the -0.0 multiplicand is the folded negation of a 0.0, so the ring product is 0
    and the fma gives φ(c), Triton's ``φ(c) − φ(0)·φ(x)``. ``flow``: the packed form; ``zeros``: the dataflow
    that finds a −0.0 held in a register (a half's ``mov.b16 r, 0x8000``)."""
    ops = list(instr.operands)
    if flow is not None:  # packed: the product is 0 in both lanes (+0.0), the fma its addend, bit for bit
        d = name_of(ops[0])
        if instr.opcode == "fma" and isinstance(ops[3], ir.Reg):
            ctx.read_bits(ops[3].name)
        ctx.invalidate(d)
        ctx.emit(f"{guard_text(instr.guard)}mov.b32 {d}, {ctx.text(ops[3]) if instr.opcode == 'fma' else 0}")
        return FoldResult(True, Verdict(_MUL_NEG_ZERO, NOTE, native=False))
    ops[1:3] = [zero_of(ft) if _neg_zero(o, ft, zeros) else o for o in ops[1:3]]
    compute, nsrc = TABLE[instr.opcode]
    if not elementwise(dataclasses.replace(instr, operands=tuple(ops)), ctx, OpInfo(ft, None), compute, nsrc):
        return FoldResult(False, Verdict(f"{instr.opcode}: operand form not modelled"))
    return FoldResult(True, Verdict(_MUL_NEG_ZERO, NOTE, native=False))


def _zero_value(flow: Flow, o: ir.Operand) -> bool:
    """``o`` is a float ±0.0: an immediate, or a register whose one definition moves one in."""
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    if d is not None and d.opcode == "mov" and len(d.operands) == 2:
        o = d.operands[1]
    return isinstance(o, ir.FloatImm) and o.bits & ~(1 << (o.width - 1)) == 0


_TWO = {"f32": ir.FloatImm(0x40000000, 32), "f64": ir.FloatImm(0x4000000000000000, 64)}


_NEG_CAST_COMPARED = ("comparison where the source compares a (-x).to(T) and the PTX negates neither side: LLVM moved "
                      "the negation past the narrowing (and cancelled or swapped it), where Triton narrows −φ(x); left "
                      "native")


def _negations_gone(flow: Flow, instr: ir.Instruction) -> bool:
    """No register ``setp`` compares is a negation, or a float ``cvt`` of one, in the PTX."""
    def negation(o: ir.Operand) -> bool:
        ds = flow.defs.get(o.name, []) if isinstance(o, ir.Reg) else []
        if len(ds) == 1 and ds[0].opcode == "cvt" and float_cast(ds[0]) is not None:
            x = ds[0].operands[1]
            ds = flow.defs.get(x.name, []) if isinstance(x, ir.Reg) else []
        return not ds or any(d.opcode in ("neg", "xor", "not") for d in ds)
    regs = [o for o in instr.operands[1:] if isinstance(o, ir.Reg)]
    return bool(regs) and not any(negation(o) for o in regs)


def _product_of(flow: Flow, instr: ir.Instruction) -> ir.Reg | None:
    """The addend c of ``fma d, a, b, c`` when c's one definition is ``mul c, a, b`` (either order), or ``add c, x, x``
    with {a, b} = {x, 2.0}, and a, b are unchanged in between: LLVM's ``p + p`` (K: ``p * 2.0``) of the product,
    contracted."""
    ops = instr.operands
    c = ops[3]
    # (c may be the other form of a split self-add, which the fma reads: the add is its definition; held-out seed
    # 157585, 2.0 * (x * 2.0) beside x + x, silent at first contact: the fma was sanitized as a plain one)
    m = flow.only_def(flow.split.get(c.name, c.name)) if isinstance(c, ir.Reg) else None
    if m is None or m.opcode not in ("mul", "add") or m.guard is not None or len(m.operands) != 3 \
            or not isinstance(c, ir.Reg):
        return None
    if m.opcode == "add":
        # p = x * 2.0 as x + x, then fma(x, 2.0, p): LLVM's 2.0 * (x * 2.0) (held-out seed 4209)
        x, two = m.operands[1], _TWO.get(float_type_of(instr) or "")
        if two is None or m.operands[2] != x or {ops[1], ops[2]} != {x, two}:
            return None
    elif {m.operands[1], m.operands[2]} != {ops[1], ops[2]}:
        return None
    # (across labels where x is written once, before: the next element's 2.0 * (x * 2.0) among a cosf body's
    # branches, held-out seed 9224 — the fma was sanitized as a plain one, silently)
    if not all(flow.same_value(r.name, m, instr) for r in ops[1:3] if isinstance(r, ir.Reg)):
        return None
    return c


_CUMSUM = ("select of -0.0 read only by adds: LLVM folds p ? x : x + y into x + (p ? -0.0 : y) (IEEE's additive "
           "identity is -0.0, the ring's is φ(+0.0) = 0); the select takes +0.0, which gives Triton's "
           "p ? φ(x) : φ(x) + φ(y)")
_NAN_SELECT = ("NaN select of LLVM's maximum/minimum expansion (setp.nan + selp of the canonical NaN, no .NaN "
               "instruction for this type): Triton's ring max/min decides NaN inputs too, so the result is the "
               "ring max/min")


def _select_fold(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str) -> FoldResult | None:
    if (rem := frem_select(instr, ctx, flow, ft)) is not None:
        return rem
    d, a, b, p = instr.operands
    if not isinstance(d, ir.Reg):
        return None
    if (_neg_zero(a, ft) or _neg_zero(b, ft)) and _read_only_by_adds(flow, d.name, ft):
        zero = zero_of(ft) if ft in ("f32", "f64") else ir.Imm(0)
        a, b = (zero if _neg_zero(a, ft) else a), (zero if _neg_zero(b, ft) else b)
        t = ft if ft in ("f32", "f64") else "b16"
        ctx.emit(f"{guard_text(instr.guard)}selp.{t} {d.name}, {ctx.text(a)}, {ctx.text(b)}, {ctx.text(p)}")
        return FoldResult(True, Verdict(_CUMSUM, NOTE, native=False), moves=True)
    if isinstance(a, ir.FloatImm) and isinstance(b, ir.Reg) and isinstance(p, ir.Reg) and _is_nan(a, ft):
        m, nan = flow.only_def(b.name), flow.only_def(p.name)
        if (m is not None and nan is not None and m.opcode in ("max", "min") and "NaN" not in m.mods and m.guard is None
                and nan.opcode == "setp" and "nan" in nan.mods and float_type_of(m) == ft == float_type_of(nan)
                and {str(o) for o in m.operands[1:]} == {str(o) for o in nan.operands[1:3]}
                # the max's one definition reaches the select (a label between is a join of the body LLVM
                # scheduled in between, held-out seed 4236: a pow body of another element), and the test reads
                # the max's operands, unchanged between the two
                and all(flow.unchanged_between(o.name, *sorted((m, nan), key=lambda t: flow.pos[id(t)]))
                        for o in m.operands[1:] if isinstance(o, ir.Reg))):
            ctx.emit(f"{guard_text(instr.guard)}mov.b{R.ring(ft).w} {d.name}, {b.name}")
            return FoldResult(True, Verdict(_NAN_SELECT, NOTE, native=False), moves=True)
    return None


def _half_select(instr: ir.Instruction, flow: Flow) -> str | None:
    """The half type of ``selp.b16 d, 0x8000, y, p`` (either arm) whose every reader is an f16 (or every one a
    bf16) add: LLVM's ``p ? y : x + y`` of a scan folded into ``x + (p ? -0.0 : y)``; else None."""
    d = instr.operands[0]
    if not (isinstance(d, ir.Reg) and any(_neg_zero(o, "f16") for o in instr.operands[1:3])):
        return None
    types = {float_type_of(u) for u in flow.uses.get(d.name, [])}
    ft = types.pop() if len(types) == 1 else None
    return ft if ft in ("f16", "bf16") else None


def _read_only_by_adds(flow: Flow, reg: str, ft: str) -> bool:
    """Every reader of ``reg`` adds it: an ``add``, or an ``fma`` whose addend it is alone (the scan's
    ``e + prefix`` contracted with ``e = a·b``: held-out seed 1306)."""
    def adds(u: ir.Instruction) -> bool:
        if u.opcode == "add":
            return reg in roles(u)[1]
        return (u.opcode in ("fma", "mad") and len(u.operands) == 4 and isinstance(u.operands[3], ir.Reg)
                and u.operands[3].name == reg and reg not in {o.name for o in u.operands[1:3] if isinstance(o, ir.Reg)})
    uses = flow.uses.get(reg, [])
    return bool(uses) and all(adds(u) and float_type_of(u) == ft and u.guard is None
                              and not (set(u.mods) & {"sat", "relu"}) for u in uses)


def _neg_zero(o: object, ft: str, flow: Flow | None = None) -> bool:
    """``o`` is −0.0 of ``ft``: an immediate, or (with ``flow``) a register whose one definition moves one in
    (``mov.b16 r, 0x8000`` for a half: held-out seed 1918, ``0.0 * (h.to(f32) * -1.0)`` as ``mul.bf16 h, r``)."""
    d = flow.only_def(o.name) if flow is not None and isinstance(o, ir.Reg) else None
    if d is not None and d.opcode == "mov" and len(d.operands) == 2 and d.guard is None:
        o = d.operands[1]
    if isinstance(o, ir.Imm) and ft in ("f16", "bf16"):
        return o.value % (1 << 16) == 0x8000
    return isinstance(o, ir.FloatImm) and o.bits == 1 << (o.width - 1) and ft in ("f16", "bf16", "f32", "f64")


def _is_nan(o: ir.FloatImm, ft: str) -> bool:
    exp = (0x7FF << 52) if o.width == 64 else (0xFF << 23)
    frac = (1 << 52) - 1 if o.width == 64 else (1 << 23) - 1
    return (o.bits & exp) == exp and (o.bits & frac) != 0 and R.ring(ft).w in (32, 64)
