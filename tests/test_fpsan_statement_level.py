"""Kernels written as statements — names bound to literals or to literal arithmetic, ``tl.math.F`` spellings, products
and negations split over names and library bodies — that the expression generator does not write (issue 10; found by a
statement-level random generator, each silent at first contact). Where the PTX still says what Triton computed the
sanitized kernel is bit-exact; where LLVM folded it away the report says so (``--strict`` fails), never silence."""

from __future__ import annotations

import ast

import pytest

from ptxkit.fpsan.source_parse import parse_python
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare


@pytest.mark.parametrize("name", [
    "k_math_spelling_narrowed_add_f32",  # tl.math.rsqrt typed like tl.rsqrt: the f64 add LLVM narrowed is decided
    "k_named_negated_literal_min_bf16",  # c = 1.5; tl.minimum(-c, h): -c is the fp32 scalar -1.5, the min at f32
    "k_named_literal_quotient_plus_widened_f32",  # c = 2.0 / -0.5 is an fp32 scalar like c = -4.0
    "k_where_plus_after_widening_f32",  # -4.0 + where(...).to(f64): the folded arm constant is the f64 ring's
    "k_square_plus_widened_f32",  # f32 x*x contracted into the narrowed f64 add: product at f32, add at f64
    "k_widened_minus_product_f32",  # the same with a subtracted product (LLVM negates a factor)
    "k_named_literal_stored_f16",  # c = 0.79788; store c as f16: the fp32 scalar's ring narrowing
    "k_named_literal_stored_f64",  # ... as f64: MLIR folds the exact widening, the IEEE constant stays
    "k_named_literal_via_half_stored_bf16",  # c.to(f16) stored as bf16: LLVM's mov.b16 then Triton's f16 -> bf16 cvt
    "k_named_literal_sum_stored_f16",  # c = 0.1; c += 1.0: MLIR's f32 sum, then the ring narrowing
    "k_full_f32_stored_f16",  # tl.full([B], v, tl.float32) narrowed like the named literal
    "k_helper_negation_plus_widened_f32",  # _neg(z) + x.to(f64) of def _neg(b): return -b (the helper read through)
    "k_helper_square_plus_one_f32",  # _sq(x.to(f64)) + 1.0 of def _sq(a): return (a * a).to(f32)
    "k_log2_where_literal_merged_f32",  # the where's folded constant arm at LLVM's column-0 copies
    "k_log2_where_narrowed_compare_f32",  # ... and the comparison of a narrowing there
    "k_abs_of_narrowed_max_f64",  # |max(x, 10.0).to(f32)|: LLVM drops the abs, the ring's narrowing needs it
    "k_abs_of_named_narrowed_max_f64",  # ... through a name only the abs reads
    "k_abs_of_narrowed_max_half_f32",  # ... to f16 (reported as every half |x|: Triton's may be a float abs)
    "k_abs_of_narrowed_max_widened_back_f32",  # |max(x, 0.5).to(f16).to(f32)|: the f32 |x|, an integer and
    "k_quotient_plus_widened_f32",  # x.to(f64) + (x / x) / x: an f64 operand makes the add f64 whatever the other
    "k_where_narrowed_sigmoid_compare_f32",  # v = tl.sigmoid(x); v.to(f16) < 0 as LLVM's v < -2^-25
    "k_sigmoid_of_where_literal_f32",  # sigmoid's * -log2e pushed into the where's arms (standard.py's location)
    "k_helper_sigmoid_of_where_literal_f32",  # ... in a helper
    "k_named_where_literal_through_abs_bf16",  # b = where(c, z, 0.1); rsqrt(|b| + 1.0): the folded 1.1 arm
    "k_where_two_and_widened_half_f16",  # where(c, 2.0, h.to(f32)) stored as f16: 2.0's ring narrowing (f16, not bf16)
    "k_named_two_where_widened_sum_f16",  # c = 2.0; v + where(c > v, c, h.to(f32)) of an f64 v: φ32(2.0) widened
    "k_helper_compare_of_widened_argument_f32",  # a helper's b > a of a widened argument a: its one call's argument
    "k_named_eps_cast_plus_f16",  # eps = 1e-6; x + eps.to(f16): the ring narrowing of the fp32 scalar, not 0x0011
    "k_named_scale_cast_to_dtype_bf16",  # s = 0.1; x * s.to(x.dtype)
    "k_named_floor_cast_where_f16",  # lo = 0.1; where(x > 0, x, lo.to(f16)): the selp's immediate arm
    "k_named_eps_cast_packed_f16",  # x / (z + eps.to(x.dtype)) with packed halves: {eps, eps} of an add.f16x2
    "k_full_of_named_literal_f16",  # tl.full([B], eps, tl.float16) of a named eps: the fp32 scalar cast in the ring
    # stop 51 (statement-level seeds 636, 425, 1830, 1967, 2106, 2160, 1785; silent at first contact)
    "k_min_named_literal_widened_bf16",  # c = 1.5; min(c, x.to(f64)) stored as bf16: LLVM's min.f32, the ring's at f64
    "k_min_named_sum_widened_f32",  # c = 1.5; c += 0.1: the named sum, an f32 constant beside the widening
    "k_min_widened_literal_f16",  # min(x.to(f64), 1.5) narrowed to f16: the 64-bit min narrowed once (reported before)
    "k_where_half_or_named_sum_bf16",  # where(h > 0, h, c) of a named c: an f32 where, narrowed (LLVM's selp.b16)
    "k_where_round_trip_sunk_f32",  # where(x > x.to(f16), 2.0, x).to(f16).to(f32): the casts LLVM sank into x's arm
    "k_where_literals_round_trip_f32",  # where(c, 2.0, 0.1).to(f16).to(f32): both literals through the round trip
    "k_exp_of_narrowed_negation_f32",  # tl.exp(v.to(f32)) of v = -(..) at f64: the negation in exp's multiplier
    "k_sigmoid_of_narrowed_negation_f32",  # tl.sigmoid of the same: its exp(-x) cancelled the negation
    "k_exp_of_half_round_trip_negation_f32",  # tl.exp(v.to(f16).to(f32)) of v = -(x * y)
    "k_where_narrowed_negation_compare_f64",  # v = -x; v.to(f32) < 1.0 as LLVM's x > -1.0's boundary
    "k_where_narrowed_negated_product_compare_f64",  # v = -(x - h) * 1e-6 compared narrowed (a half beside x)
    "k_where_wide_where_narrowed_compare_f32",  # where(c, x.to(f64), x).to(f16) < 0: the widening folded, f32's
    "k_where_negated_widening_narrowed_compare_f32",  # (-x.to(f64)).to(f16) < 0.5: negated at f64 (−0: after sext)
    "k_reassigned_under_constexpr_if_f64",  # v = -x; if FLAG: v = y - where(v.to(f32) < 0, ..): the first v inside
    "k_where_literal_arithmetic_arm_f32",  # where(c, h * h, (-0.5 - 1.5)): the arm is the constexpr -2.0, a literal
    "k_exp2_of_where_literal_merged_f64",  # exp2(where(c, 1.5, h).to(f64)): the later selects at LLVM's column 0
    "k_negated_narrowed_product_by_constant_f32",  # -(1.5 * x.to(f64)).to(f32) as mul.f32 x, -1.5 (reported before)
    "k_negated_narrowed_square_f32",  # -(x.to(f64) * x.to(f64)).to(f32) as mul.f32 x, neg x (reported before)
    "k_negated_narrowed_where_same_arms_f32",  # ... of 1.5 * where(c, v, v) narrowed twice (seed 2699)
    "k_where_narrowed_stored_wide_bf16",  # where(b < 0, b, -0.5).to(bf16) stored as f32: -0.5 through both casts
    "k_sigmoid_of_narrowed_square_f32",  # sigmoid's negation of the narrowed f64 product (reported before)
    "k_exp_of_negated_narrowed_square_f32",  # v = (a * a).to(f32); exp(-v) (reported before)
    "k_helper_sigmoid_of_narrowed_square_f32",  # sigmoid's negation, in a helper (reported before)
    "k_helper_twice_sigmoid_of_narrowed_square_f32",  # _h(_h(x.to(f64), ..), ..): each copy's own call's argument
    "k_where_half_arm_literal_promoted_f32",  # where(c, x.to(f16), 1e-6).to(f16): a cast to its own type, no sinking
    "k_plus_narrowed_product_of_loaded_f32",  # y + (x.to(f64) * y).to(f32) as fma.f32: the loaded y promoted to f64
    "k_minus_narrowed_product_of_loaded_f32",  # y - (..): LLVM's sign xor on x, E's product of x itself
    "k_plus_narrowed_product_of_loaded_f16",  # halves: the f32 product narrowed to f16 (reported before)
    "k_where_narrowed_fdiv_compare_f64",  # tl.fdiv(a, b).to(bf16) < 0: fdiv's f32 result, LLVM's boundary compare
    "k_min_of_value_and_widening_narrowed_f64",  # min(y, y.to(f64)).to(bf16): one value, narrowed from f32
    "k_where_f64_min_narrowed_f16_stored_f32",  # where(c, min(x.to(f32), y64), 0.5).to(f16): selp.f64 then the cvts
    "k_where_narrowed_half_quotient_compare_f32",  # (h * h / 0.1).to(bf16) < 0: an f32 quotient, LLVM's boundary
    "k_exp_of_named_literal_f16",  # exp of a name bound to 10.0: MLIR folds it with libm's expf, FPSan narrows in the
    "k_sin_of_cast_named_literal_f32",  # ring (both reported before); sin(c.to(f64)) of such a name: libm's sin
    "k_store_folded_sqrt_of_named_f32",  # sqrt(|v.to(f64)|) + v of v = 1.5: folded in f64, narrowed in the ring
    "k_store_folded_exp2_of_named_f16",  # exp2((c - 2.0).to(f32)) of c = 1.0; c -= 0.5: libm's exp2f
    "k_min_where_negative_named_literal_bf16",  # c0 = -0.5 is an fp32 scalar: c0 > h compares at f32
    "k_fma_unit_of_negated_half_f32",  # fma(sqrt(|c|), -h, a) of c = -1.0: a − h of LLVM is a + sext(−φ(h))
    "k_log_in_helper_f32",  # logf in a helper: its body's ".loc 1 8 17," column is the line-0 fix-up's
    "k_store_constexpr_alias_f16",  # c: tl.constexpr = 1e-6; v = c; v.to(f16): v an fp32 tensor, narrowed in the ring
    "k_helper_dead_second_call_where_f32",  # _h's second call dead: its parameters are the first call's arguments
    "k_where_constexpr_above_narrowing_f32",  # c0 > x.to(bf16) of c0: tl.constexpr = 3.0: LLVM's x < 2.996
    "k_where_scalar_above_narrowing_f32",  # ... of c0 = 3.0, an fp32 scalar: the ring narrowing sign-extended
    "k_where_narrowing_widened_compare_f32",  # x.to(f16).to(f32) < 3.0: both casts dropped by LLVM
    "k_fma_of_where_literals_f16",  # fma(c, max(c, 0.5), where(p, 4.0, 1.0)) stored as f16: LLVM's selp of 4.0, 1.0
    "k_max_of_where_literals_bf16",  # max(where(p, 4.0, -1.5), 0.25) * 0.3: the arms' max and product folded
    "k_abs_of_self_compared_where_half_f32",  # |where(x > x, x, h).to(f32)|: the where is h, LLVM's abs of the half
    "k_sub_of_narrowed_helper_constant_f32",  # x - (4.0 + v.to(f16)) of a helper's constant v: add.f32 x, -4.0
    "k_fma_of_constants_widened_f64",  # fma(a, fma(c, -1.0, 4.0), b) at f64: MLIR leaves the inner fma to the ring
    "k_where_own_test_constant_floor_f64",  # floor(where(where(x < 0, 4.0, x) < 0, |y|, log2(6))): LLVM's 2.0
    "k_where_constant_condition_narrowed_f32",  # where(-c < 0, -c, x).to(f16) + x: MLIR's -c narrowed in the ring
    "k_static_range_constant_narrowed_bf16",  # v = v * 3.0 + 1e-6 twice in a static_range, then v.to(bf16)
    "k_min_of_constexpr_and_half_f32",  # tl.minimum(c0, h) of c0: tl.constexpr = 1.5: the half min, as LLVM's
    "k_where_constexpr_and_literal_widened_f32",  # where(p, S, 1.5) + v of an f64 v: selp.f64 of S's fp32 value, 1.5
])
def test_statement_level_kernels_are_bit_exact(name):
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("name,opcode,words", [
    ("k_where_computed_constant_arm_f64", "selp", "no literal"),  # v = sqrt(|c|); v + where(p, x, v): selp of 2v
    ("k_product_minus_widened_f32", "fma", "subtrahend negated"),  # P - E: the f32 negation of E, not the ring's
    ("k_abs_and_plain_narrowed_max_f64", "cvt", "some reads"),  # |v| * v: LLVM's v * v
    ("k_loop_constant_stored_f16", "st", "float arithmetic"),  # v = v * c + v in a static_range, stored as f16
    ("k_fma_of_constexprs_plus_half_bf16", "", "tl.fma"),  # tl.math.fma(S, S, 1.5) of a constexpr S: LLVM's constant
    ("k_where_constexpr_round_trip_f32", "selp", "tl.constexpr"),  # where(.., S, x).to(f16).to(f32): S = 2.1 rounded
    ("k_minus_half_product_widened_f16", "add", "negative constant"),  # a - (c * h).to(f64) as a + (-c * h): at h = -0
    ("k_floor_constexpr_plus_where_f64", "selp", "no literal"),  # floor(S) + where(c, S, x): selp(c, -1.25, x - 1)
    ("k_where_self_compare_constant_arm_f32", "st", "with itself"),  # where(x > x, .., 0.5).to(f32): LLVM's 0.5f
    ("k_where_square_fma_widened_sign_f32", "st", "sign of a square"),  # fma(x, x, 3.0).to(f64) < 0: LLVM's false
    ("k_where_constant_narrowing_compared_f32", "st", "compares constants"),  # v.to(bf16) > v of v = 0.1: the ring's
    ("k_where_self_compare_widened_half_f16", "st", "with itself"),  # where(h.to(f32) > h, h, 3.0): one location
    ("k_where_constant_condition_dropped_load_f32", "add", "load LLVM dropped"),  # .. of a dead x: its type unknown
    ("k_where_self_compare_constexpr_arm_f32", "st", "with itself"),  # where(x > x, y, S).to(f32): LLVM's S in f32
])
def test_statement_level_kernels_that_differ_are_reported(name, opcode, words):
    ours, theirs, errors = _compare(name, folds=())
    assert (ours != theirs).any()  # (LLVM folded what Triton's ring computes: the PTX cannot give its bits)
    assert any(e.opcode.startswith(opcode) and words in e.reason for e in errors), \
        [(e.opcode, e.reason) for e in errors]


def test_tl_math_functions_read_as_tl_functions():
    tree = parse_python("y = tl.math.rsqrt(x) + tl.math.exp(x) * tl.math.umulhi(a, b) + tl.math.other(x)\n")
    assert "tl.rsqrt(x)" in (text := ast.unparse(tree)) and "tl.exp(x)" in text
    assert "tl.umulhi(a, b)" in text and "tl.math.other(x)" in text  # (only what triton.language exports as is)


def test_aug_assign_reads_as_the_assignment_triton_builds():
    tree = parse_python("c = 0.1\nc += 1.0\nv[0] += 1\n")
    stmt = tree.body[1]
    assert ast.unparse(stmt) == "c = c + 1.0"
    assert (stmt.value.lineno, stmt.value.col_offset, stmt.value.end_col_offset) == (2, 0, 8)  # (the statement's)
    assert ast.unparse(tree.body[2]) == "v[0] += 1"  # (a subscript target: left as written)


def test_where_of_a_strict_self_comparison_is_its_false_arm():
    """``x > x`` is false for every x, NaN included, natively and on Triton's float bits: LLVM folds ``tl.where(x >
    x, a, b)`` to ``b`` (statement seed 1302); ``x >= x`` is not (NaN), and MLIR's constant view keeps the compare."""
    from ptxkit.fpsan.source_ast import SourceFile, _one_value
    from ptxkit.fpsan.source_numbers import scalar_value

    src = ("def k(x):\n    c = 0.5\n    a = tl.where(x > x, x, x.to(tl.float16))\n    b = tl.where(x >= x, x, 1.0)\n"
           "    d = tl.where(x < x, 2.0, c)\n    return a, b, d\n")
    tree = parse_python(src)
    f = SourceFile.of_tree("k.py", src, tree)
    ret = next(n for n in ast.walk(tree) if isinstance(n, ast.Return))
    assert isinstance(ret.value, ast.Tuple)
    a, b, d = (_one_value(f, e) for e in ret.value.elts)
    assert a is not None and ast.unparse(a) == "x.to(tl.float16)"
    assert b is not None and ast.unparse(b).startswith("tl.where(x >= x")
    assert d is not None and ast.unparse(d) == "0.5"
    assert scalar_value(f, ret.value.elts[2], 8) is None
