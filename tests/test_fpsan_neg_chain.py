"""A negation through float casts LLVM dropped, on a packed pair of halves (``ptxkit.fpsan.neg_chain``; issue 10,
held-out seed 35006, silent at first contact): ``(-a.to(f64)).to(bf16)`` of a bf16 dot operand is one
``xor.b32 …, 0x80008000`` after the ldmatrix; Triton's ring widens, negates in 64 bits and narrows each lane, which
is not the 16-bit ring's negation at φ(−0) = −2^15."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.fpsan import ring as R
from tests.test_fpsan_folds import _items, _run
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare
from tests.test_fpsan_source_hints import _with_source

HALVES = [0x4248, 0x8000, 0xC500, 0x2E66]


def _through_f64(hs: list[int]) -> list[int]:
    wide = R.float_unop("neg", R.float_cast(np.array(hs, np.uint64), "f16", "f64").astype(np.uint64), "f64")
    return [int(v) for v in R.float_cast(wide.astype(np.uint64), "f64", "f16")]


def _words(lo: list[int], hi: list[int]) -> list[int]:
    return [(h << 16) | low for low, h in zip(lo, hi)]


def test_packed_negation_through_f64_is_computed_per_lane(tmp_path):
    lo, hi = HALVES, HALVES[::-1]
    body = "{store}\n\txor.b32 %d, %a, -2147450880;"
    out, rep = _run(_with_source(tmp_path, "(-x0.to(tl.float64))", body, ""), [[w] for w in _words(lo, hi)])
    assert out == _words(_through_f64(lo), _through_f64(hi))
    assert out != [w ^ 0x80008000 for w in _words(lo, hi)]  # the lanes with −0 differ from the half ring's negation
    assert [s for o, s in _items(rep) if o == "xor.b32"] == ["note"]


@pytest.mark.parametrize("expr", ["-x0", "(-x0).to(tl.float16)"])
def test_packed_negation_with_no_wider_type_is_the_rings_negation(tmp_path, expr):
    """No type between the load and the store: each lane's 16-bit ring negation (−0 stays −0)."""
    lo, hi = HALVES, HALVES[::-1]
    out, _ = _run(_with_source(tmp_path, expr, "{store}\n\txor.b32 %d, %a, -2147450880;", ""),
                  [[w] for w in _words(lo, hi)])
    neg = [h ^ 0x8000 if h & 0x7FFF else h for h in lo], [h ^ 0x8000 if h & 0x7FFF else h for h in hi]
    assert out == _words(*neg)


def test_held_out_dot_operand_negated_through_f64_is_tritons_bits():
    """Triton 3.9 pair: ``a = (-a.to(f64)).to(bf16)`` of a bf16 dot operand, the sign xor after the ldmatrix:
    bit for bit with Triton's FPSan build."""
    _assert_bit_exact("seed35006")


@pytest.mark.parametrize("arms,negated", [("x0.to(tl.float64) * -1.0, x0.to(tl.float32).to(tl.float64)", True),
                                          ("-x0.to(tl.float64), x0.to(tl.float64)", True),
                                          ("x0.to(tl.float64) * 2.0, x0.to(tl.float64)", False)])
def test_negation_narrowed_into_a_selects_arm_goes_through_f64(tmp_path, arms, negated):
    """``where(c, x.to(f64) * -1.0, x.to(f32).to(f64)).to(f16)`` of a half x (held-out seed 80544, silent at first
    contact at x = −0.0): LLVM sinks the narrowing into the arms, one of them ``neg.f16 x``; Triton's ring widens,
    negates in 64 bits and narrows, which is not the 16-bit negation at φ(−0). Without a negating arm: the neg is
    the half ring's."""
    body = "{store}\n\tneg.f16 %h1, %a;\n\tmov.b16 %d, %h1;"
    text = _with_source(tmp_path, f"tl.where(x0 > 0.5, {arms})", body, "", w=16)
    out, _ = _run(text, [[h] for h in HALVES], w=16)
    ring_neg = [int(v) for v in R.float_unop("neg", np.array(HALVES, np.uint64), "f16")]
    assert out == (_through_f64(HALVES) if negated else ring_neg)
    assert _through_f64(HALVES) != ring_neg


def test_held_out_select_arm_negation_is_tritons_bits():
    _assert_bit_exact("seed80544", folds=())


def test_sign_xor_narrowed_into_a_cast_selects_arm_goes_through_f64(tmp_path):
    """The same with the where cast itself and stored through the name (``r = where(..).to(f16)``, ``r.to(f16)``)
    and LLVM's sign xor of the loaded half (a custom kernel after held-out seed 80544, reported before)."""
    expr = "tl.where(x0 > 0.5, x0.to(tl.float64) * -1.0, x0.to(tl.float64)).to(tl.float16)"
    out, rep = _run(_with_source(tmp_path, expr, "{store}\n\txor.b16 %d, %a, -32768;", "", w=16),
                    [[h] for h in HALVES], w=16)
    assert out == _through_f64(HALVES) and not rep.errors


@pytest.mark.parametrize("name", ["seed101546", "k_neg_of_widened_narrowed_f16", "k_where_neg_of_widened_narrowed_f16"])
def test_float_neg_of_a_narrowing_goes_through_f64(name):
    """``(-x.to(f64)).to(f16)`` of an f32 x as ``neg.f16`` of ``cvt.rn.f16.f32`` (the sign xor's case with a float
    neg; held-out seed 101546, in one arm of a select: reported at the cvt and the neg, 80/128 elements differed):
    Triton widens, negates in 64 bits and narrows; bit for bit on the seeded inputs and on x = ±0.0, nothing
    reported."""
    from tests.test_fpsan_body_join import _zero_y
    _assert_bit_exact(name)
    ours, theirs, items = _zero_y(name, buffer="x2_ptr" if name.startswith("seed") else "x0_ptr")
    assert np.array_equal(ours, theirs)
    assert not [i for i in items if i.severity == "error"]


def test_scan_of_widened_negations_narrowed_goes_through_f64():
    """``tl.cumsum(-x.to(f64), axis=0).to(bf16)`` of an f32 x (held-out seed 101371, reported: 39/512 elements
    differed): the first row is ``neg.bf16`` of ``cvt.rn.bf16.f32 x`` (Triton's chain through f64), the later rows
    narrow LLVM's ``(−a) − b − …``, the ring's sum of the negations, as written. Bit for bit, also at x = ±0.0."""
    from tests.test_fpsan_body_join import _zero_y
    _assert_bit_exact("seed101371")
    ours, theirs, items = _zero_y("seed101371", buffer="x0_ptr")
    assert np.array_equal(ours, theirs)
    assert not [i for i in items if i.severity == "error"]


def test_scan_of_negated_f64_narrowed_is_the_cast_of_the_negation():
    """``tl.cumsum(-tanh(x.to(f64)), axis=0).to(f32)`` (held-out seed 104039, reported: 50/256 elements differed): the
    first row is ``neg.f32`` of ``cvt.rn.f32.f64`` of the tanh; the source's ``.to(f32)`` of the scan narrows its
    operand's negation (``before``: the ring cast of −φ(t)). Bit for bit, nothing reported."""
    _assert_bit_exact("seed104039")


def test_negated_cast_of_a_scan_of_negations_is_the_outer_negation():
    """``tl.cumsum(x.to(f64) * -1.0).to(f16) * -1.0`` (held-out seed 131568, silent at first contact: 17/64): the scan
    keeps its negation (``neg.f64``, a ``sub.f64``), and the sign xor after the narrowing is the source's outer
    ``* -1.0`` (``after``), not the scan's negation moved out (which would have cancelled with it)."""
    _assert_bit_exact("seed131568", folds=())


@pytest.mark.parametrize("name", ["seed100920", "k_rsqrt_of_negated_widening_narrowed_f32",
                                  "k_sqrt_of_negated_widening_narrowed_f32"])
def test_sign_xor_at_the_load_read_by_rsqrt_goes_through_f64(name):
    """``tl.rsqrt((-x.to(f64)).to(f32))`` of an f32 x: LLVM drops both casts and hoists the sign xor to x's load,
    whose location says nothing; the rsqrt (sqrt) reading it names the chain (held-out seed 100920, silent at
    x = −0.0 with zero-rich inputs: the f32 ring's negation). Bit for bit on inputs half ±0.0, nothing reported."""
    from tests.test_fpsan_body_join import _zero_y
    ours, theirs, items = _zero_y(name, buffer="x0_ptr")
    assert np.array_equal(ours, theirs)
    assert not [i for i in items if i.severity == "error"]


def test_one_negation_after_a_cast_for_both_forms_is_reported():
    """``tl.fma((b * b) * -1.0, y, (-x).to(bf16))`` of ``b = x.to(bf16)``, an f64 x (held-out seed 137153, silent at
    first contact: 153/256): LLVM makes the product's negation ``b * (-b)`` and the addend's ``(-x).to(bf16)`` one
    ``neg.bf16`` after the cvt; the product reads it as the negation after the cast, the fma's addend as Triton's
    ring narrowing of −φ(x). No one form: the neg-cast fold stays undecided (reported)."""
    ours, theirs, errors = _compare("seed137153", folds=())
    assert not (ours == theirs).all()
    assert sum(e.opcode == "neg.bf16" and "neg-cast" in e.reason for e in errors) == 4


def test_negated_maximum_of_loaded_values_narrowed_is_the_cast_of_the_negation():
    """``r = -maximum(fma(x, exp2(x), x + x), fma(erf(x), rsqrt(x), tanh(x)))`` of an f32 x stored as f16 (held-out
    seed 173695, reported: 44/64 elements differed): the store's ``.to(f16)`` narrows the negation of a maximum whose
    operands are loaded values' arithmetic, of the cvt's source type (``before``). Bit for bit, nothing reported."""
    _assert_bit_exact("seed173695")


def test_min_reduction_of_negations_narrowed_is_the_cast_of_the_negation():
    """``tl.min(-exp(x.to(f64)), axis=0).to(bf16)`` (held-out seed 179753, reported: 30/64 elements differed): LLVM
    reduces max(exp) and sets the sign of its narrowing; Triton's ring min of negations is the negation of the max,
    then narrowed (``before``). Bit for bit, nothing reported."""
    _assert_bit_exact("seed179753")


@pytest.mark.parametrize("name", ["seed172436", "seed172066", "k_neg_int_f64_to_bf16",
                                  "k_int_f64_f32_times_minus_one_to_f16"])
def test_negated_wide_conversion_of_an_integer_narrowed_is_tritons_chain(name):
    """``(-(i.to(f64))).to(f16)`` (held-out seed 172436, reported: 116/256 elements differed; 172066: ``i.to(f64)
    .to(f32) * -1.0``): LLVM's one ``cvt.rn.f16.s32`` and a sign xor of the half; Triton converts i natively, negates
    in the wide ring and narrows. Bit for bit, nothing reported."""
    _assert_bit_exact(name)


@pytest.mark.parametrize("name", ["seed187076", "k_half_minus_cumsum_of_negations"])
def test_narrowed_scan_of_negations_read_by_a_subtraction_is_as_written(name):
    """``2.0 * (tl.cumsum(-(x - 0.5)).to(f16) - 0.5)`` (held-out seed 187076, silent at first contact: the add of
    −0.5 taken for the source's subtraction of a negated cast) and ``y - tl.cumsum(-x).to(f16)``: the negations stay
    in the PTX before the scan, so the cvt and the sub are the ring's as written. Bit for bit, nothing reported."""
    _assert_bit_exact(name)


def test_negated_choice_of_one_cast_and_doubled_min_reduction_of_halves():
    """``tl.min(minimum(x.to(bf16), x.to(bf16)) * -1.0)`` then ``tl.sin(s * 2.0)`` (held-out seed 184906, reported:
    12/16 elements differed): the negation is of the cast through LLVM's fold of the minimum of one value (``after``),
    and ``tl.min`` of bf16 is an f32 (Triton 3.9 widens it), so the f32 adds at column 0 are the product's. Bit for bit,
    nothing reported."""
    _assert_bit_exact("seed184906")


@pytest.mark.parametrize("name", ["seed187573", "k_product_minus_narrowed_negation"])
def test_subtracted_narrowed_negation_sharing_a_cast_is_tritons(name):
    """``sqrt(maximum(x.to(f32), x.to(f32))) - (-x).to(f32)`` of an f64 x (held-out seed 187573, silent at first
    contact: LLVM's ``add`` of the one cvt it made of both casts, whose location names the plain one) and
    ``x.to(f32) * 3.0 - (-x).to(f32)`` (its ``fma(c, 3.0, c)``): the subtraction's own location says which operand
    narrows the negation. Bit for bit, nothing reported."""
    _assert_bit_exact(name)


def test_cast_plus_narrowed_negation_sharing_a_cast_is_tritons():
    """``x.to(f32) + (-x).to(f32)`` of an f64 x: LLVM's ``sub c, c`` of the one cvt; the sum's own location says the
    subtrahend narrows the negation (silent before). Bit for bit, nothing reported."""
    _assert_bit_exact("k_cast_plus_narrowed_negation")


def test_one_negated_cast_read_as_both_forms_is_reported():
    """``(-x).to(f32) - y.to(f32) * x.to(f32)``: LLVM's ``fma(n, y', n)`` of one ``n = neg(cvt x)``, the product's
    −x.to(f32) and the addend's (-x).to(f32) (silent before): no one form is the neg's, so it is reported."""
    ours, theirs, errors = _compare("k_narrowed_negation_minus_product_of_cast")
    assert not (ours == theirs).all() and "neg.f32" in {e.opcode for e in errors}


def test_narrowed_reduction_of_negations_exchanged_in_shared_memory_is_as_written():
    """``(s.to(f16) - s.to(f16)) + (-s.to(f16))`` of ``s = tl.max(-x.to(f64))`` (held-out seed 157179, exact before and
    reported since: a regression of the tl.max rule): LLVM reduces the halves, widens and negates before the
    shared-memory exchange, so the cvt narrows the negation the PTX computed and the sub is the ring's as written."""
    ours, theirs, errors = _compare("seed157179")
    assert (ours == theirs).all()
    assert not [e for e in errors if "sub of a narrowing conversion" in e.reason]


@pytest.mark.parametrize("name", ["k_neg_of_promoted_where", "k_max_of_promoted_where_and_negation"])
def test_sign_op_of_a_promoted_select_narrowed_is_tritons_per_arm(name):
    """``(-where(c, h, y)).to(bf16)`` of a bf16 h and an f32 y, and ``maximum(v, -v)`` of such a select (silent
    before): LLVM selects h and the narrowed y and flips or clears the sign at 16 bits; Triton's ring works at the
    promoted type, arm by arm, then narrows. Bit for bit, nothing reported."""
    _assert_bit_exact(name)


@pytest.mark.parametrize("name,opcode", [("k_neg_abs_of_promoted_where", "or.b16"),
                                         ("k_min_of_half_negation_plus_f32", "and.b16")])
def test_sign_op_past_a_conversion_of_the_sources_extremum_is_reported(name, opcode):
    """−|v| of a promoted select LLVM narrowed (Triton's native abs at f32), and ``minimum(h, -h) + y`` as ``y -
    |h|.to(f32)`` (the negation of the widened max, not the ring min at −0): silent before, reported now."""
    _, _, errors = _compare(name)
    assert opcode in {e.opcode for e in errors}


@pytest.mark.parametrize("name", ["seed194909", "k_max_of_narrow_where_and_negation"])
def test_sign_op_of_a_select_of_narrow_arms_is_the_narrow_rings(name):
    """``-where(c, x.to(bf16), tanh(x).to(bf16))`` (held-out seed 194909, exact before, silent at first contact with
    the per-arm rule) and ``maximum(v, -v)`` of such a select: both arms are narrowing cvts because the source casts
    them, so the select is at the narrow type and the sign op is its ring's. Bit for bit, nothing reported."""
    _assert_bit_exact(name)


@pytest.mark.parametrize("name", ["seed194845", "k_neg_half_over_three", "k_exp_times_neg_half_over_three"])
def test_negation_of_a_widened_half_moved_past_its_product_is_tritons_at_zero(name):
    """``cos(..).to(f16) * ((-x0) / 3.0) + ..`` of an f16 x0 (held-out seed 194845, silent at first contact: 3/128
    elements at x0 = −0): LLVM's ``-(x0.to(f32) * (1/3))``; Triton negates x0 in its 16-bit ring (φ(−0) = −2^15, its
    own negation) and then widens. Bit for bit at ±0, nothing reported."""
    from tests.test_fpsan_body_join import _zero_y
    _assert_bit_exact(name)
    ours, theirs, items = _zero_y(name, buffer="x0_ptr", negative_zero=0x8000)
    assert np.array_equal(ours, theirs)
    assert not [i for i in items if i.severity == "error"]


@pytest.mark.parametrize("name", ["seed199925", "k_neg_cast_of_min_of_negations", "k_negated_cast_of_min_of_negations"])
def test_negation_after_a_narrowed_reduction_of_negations_is_the_outer_one(name):
    """``fma(tanh(s).to(bf16), s.to(bf16), -s.to(bf16))`` of ``s = tl.min(-(h / h))`` (held-out seed 199925, exact
    before, silent at first contact with the tl.min rule): the tree's negations stay before the cvt, so the neg after
    it is the source's outer one (``after``); ``(-s).to(bf16)`` stays ``before``. Bit for bit, nothing reported."""
    _assert_bit_exact(name)


def test_negated_arm_of_a_helpers_where_goes_through_f32():
    """``_sel(c, h.to(f32), -h.to(f32))`` of ``def _sel(c, a, b): return tl.where(c, a, b)``, stored as f16: LLVM
    sinks the narrowing into the helper's arms and negates the half (``neg.f16``); the helper's where hid the arms
    from the source hint (silent at the payload whose negation overflows the half ring)."""
    _assert_bit_exact("k_helper_where_negated_widening_f16", folds=())
