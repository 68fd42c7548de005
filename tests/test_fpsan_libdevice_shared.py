"""Inlined libdevice bodies that LLVM laid out around the caller's code or shares work with (``ptxkit.fpsan.
libdevice_match``, ``libdevice_unmarked``; issue 10 A): Triton 3.9 pairs, bit for bit, with every body recognised as one
FPSan op (before, each was reported and its float instructions were sanitized one by one)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_fpsan_body_join import _zero_y
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare


def _body_errors(name: str) -> list[str]:
    _, _, errors = _compare(name, folds=(("half", "native"),))
    return [e.reason for e in errors if e.opcode.startswith("libdevice:")]


@pytest.mark.parametrize("name", [
    # exp2(x * 2.0) of f64: the body's x - round(x) is contracted into fma(a, 2.0, -round(x)) of the caller's x = a + a
    # (held-out seed 86982; and custom kernels, also beside the user's x * 2.0)
    "seed86982", "k_exp2_of_twice_f64", "k_exp2_of_twice_plus_twice_f64",
    # pow(i.to(f32), y) whose log runs in an out-of-line block LLVM located at the function's column (``.loc 1 0 1``,
    # compiler-made): the block is reached from the body only, so it is the body's work (held-out seed 90888)
    "seed90888",
    # two pow copies (two elements per thread) reading the caller's x + x (the user's 2.0 * x), which LLVM shares with
    # pow's x + x of its x == 0 or inf case (held-out seed 81550)
    "seed81550",
    # pow(y, h.to(f32).to(int64).to(bf16).to(f32)): y's conversion sunk into the body at line 0 is LLVM's one cvt for
    # the integer's exact bf16 and its widening, which Triton computes as the ring widening of the bf16 payload
    # (held-out seed 99193, silent at first contact in 115/256)
    "seed99193",
    # pow(-x, x + x): the user's x + x is y, read as a float by the body, so no copy of pow's own x + x (93001's shape)
    "k_pow_of_neg_and_self_add_f32",
    # pow(x * x, abs(h.to(f32))): the caller's non-.ftz abs sunk past the y == 0 test (made on h), at line 0 (held-out
    # seed 102973, reported: 206/256 elements differed)
    "seed102973", "k_pow_of_square_abs_widened_f16",
])
def test_pow_body_around_callers_code_is_tritons_op(name):
    assert _body_errors(name) == []
    _assert_bit_exact(name)


def test_pow_reading_callers_self_add_at_zero_base():
    """Seed 81550 with every x = ±0, where the body's result is its x + x path: still Triton's call hash."""
    ours, theirs, items = _zero_y("seed81550", buffer="x0_ptr", negative_zero=0x8000)
    bodies = [i for i in items if i.opcode == "libdevice:__nv_powf"]
    assert len(bodies) == 2 and all(i.severity == "note" for i in bodies)
    diff = np.nonzero(ours != theirs)[0]
    assert diff.size == 0, f"{diff.size}/{ours.size} elements differ"


def test_tanh_reading_the_sign_erf_computed_is_tritons_op():
    """tanhf (no exit marker) of x beside erff of the same x, which computes x's sign bit in both arms of its branch;
    tanhf's copysign reads that register (held-out seed 85289: where(erf(h.to(f32)) >= .., .., tanh(h.to(f32))))."""
    ours, theirs, errors = _compare("seed85289", folds=(("half", "native"),))
    assert not [e for e in errors if e.opcode.startswith("libdevice:")]
    diff = np.nonzero(ours != theirs)[0]
    assert diff.size == 0, f"{diff.size}/{ours.size} elements differ"
    # (the sign's copy in erff's other arm, at tanhf's location, is still a zero-sign fold the source cannot decide:
    # left native, which is right here, and reported)
    assert [e.opcode for e in errors] == ["and.b32"]


def test_pow_special_case_select_after_its_narrowing_and_negation_keeps_the_ring_value():
    """``-pow(x.to(f64), x.to(f64)).to(f16)``: LLVM sinks pow's x == 0 and x == 1 selects past the cvt and the sign xor
    (moved to the store), selecting -1.0 at the negation's location; Triton's single op has no special case (held-out
    seed 79474, reported before). Bit for bit on its inputs and on inputs all ±0.0, where the select would fire."""
    assert _body_errors("seed79474") == []
    _assert_bit_exact("seed79474")
    ours, theirs, items = _zero_y("seed79474", buffer="x0_ptr")
    assert [i.severity for i in items if i.opcode == "libdevice:__nv_pow"] == ["note"]
    diff = np.nonzero(ours != theirs)[0]
    assert diff.size == 0, f"{diff.size}/{ours.size} elements differ"


def test_log2_bodies_testing_the_scans_half_through_a_word_copy_are_tritons_op():
    """``log2(s.to(f32))`` of a bf16 cumsum s, two elements per thread: LLVM narrows each body's subnormal test to
    ``setp.lt.bf16`` and, from the second body on, tests a copy of the half that the scan's packing moved through a
    64-bit word (``shl``/``or``/``shr``/``cvt.u16.u64``) where the body's conversion reads the original (held-out
    seed 99907: three of four bodies were reported, 103/256 elements differed)."""
    assert _body_errors("seed99907") == []
    _assert_bit_exact("seed99907")


def test_exp2_selecting_the_callers_self_add_as_its_nan_result_is_tritons_op():
    """f64 ``exp2(x)`` beside ``pow(x, x)`` and the user's ``x * 2.0``: exp2's NaN arm selects x + x, and LLVM shares
    the one ``add.f64 x, x`` computed in pow's range (pow's own x + x, the user's product) (held-out seed 100528: the
    exp2 body was reported, 4/4 elements differed)."""
    assert _body_errors("seed100528") == []
    _assert_bit_exact("seed100528")


@pytest.mark.parametrize("name", ["k_pow_of_pow_same_exponent_f32", "seed201702", "seed210708"])
def test_pow_of_pow_sharing_the_exponents_tests_is_two_ops(name):
    """``pow(pow(x, y), y)`` (held-out seeds 201702, 210708, reported before): LLVM's CSE gives the outer body the
    inner's ``y == 0`` and odd-integer tests of y — one of them placed at the inner's location inside the outer's
    branch, read by the outer alone —, and the inner's result is the outer's base, read by the outer alone: both
    bodies are recognised, each result is its ring op, bit for bit."""
    assert not _body_errors(name)
    _assert_bit_exact(name)


def test_pow_of_pow_sharing_the_base_stays_reported():
    """``pow(x, pow(x, y))`` (held-out seed 208251): the outer's log of x is the inner's, so nothing in the outer body
    tells its base from its exponent; taken for pow(inner, x) it was silent (64/64): the bodies stay reported."""
    ours, theirs, _ = _compare("k_pow_of_pow_same_base_f32", folds=(("half", "native"),))
    assert not (ours == theirs).all() and _body_errors("k_pow_of_pow_same_base_f32")


def test_two_f64_pows_whose_tail_tests_sit_in_the_next_range_stay_recognised():
    """Seed 189884: ``fma(.., pow(b, a), pow(a, b))`` of f64: the first body's special-case tests and selects sunk past
    its exit sit in the second's range; a test there that the first's selects read is the first's tail, not one of the
    second's tests CSE'd at the first's location (which the pow(pow(x, y), y) rule takes out): bit for bit."""
    assert not _body_errors("seed189884")
    _assert_bit_exact("seed189884")


@pytest.mark.parametrize("name", ["k_pow_of_negated_pow_same_base_f64", "seed223440"])
def test_pow_of_negated_pow_of_one_base_is_bit_exact(name):
    """pow(-x, -pow(x, x)) of f64 (held-out seed 223440, silent at x = -1): the outer's y == 0 select follows the
    user's cast to f32, and its -x == 1 select reads the inner pow's x == -1 test; both keep the general arm."""
    ours, theirs, errors = _compare(name, folds=(("half", "native"),))
    assert not errors
    assert (ours == theirs).all()


def test_pow_special_case_selected_after_the_users_cast_before_a_bypassed_one():
    """pow(h.to(f64), (g.to(bf16) + 1.0).to(int16).to(f64)).to(f32) (held-out seed 238023, silent at first contact in
    222/512): LLVM moves the y == 0 select (a test of the int16's bits) after the user's narrowing of the result, and
    the x == 1 select (bypassed) reads it; the first keeps the general arm too — Triton's op has no special case."""
    ours, theirs, errors = _compare("seed238023", folds=(("half", "native"),))
    assert not errors
    assert (ours == theirs).all()


@pytest.mark.parametrize("name", ["k_pow_of_abs_same_base_f32", "k_pow_of_abs_same_base_f16"])
def test_pow_of_abs_of_its_base_is_bit_exact(name):
    """pow(x, abs(x)) of f32 (held-out seeds 225309, 225919: reported as unrecognised bodies): LLVM sinks the
    caller's non-.ftz |x| past powf's x == 1 test into the body; both (x, x) and (x, |x|) fit the body, and the
    source's call says the exponent is |x| — one FPSan op, bit for bit."""
    assert not _body_errors(name)
    _assert_bit_exact(name)


def test_pow_of_abs_of_its_base_without_a_source_is_reported():
    """Without the source, pow(x, x) and pow(x, |x|) both fit the PTX of pow(x, abs(x)): the body is reported."""
    from ptxkit.fpsan_ptx import sanitize_text
    from tests.test_fpsan_libdevice import _build

    plain, _ = _build("k_pow_of_abs_same_base_f32", "plain")
    res = sanitize_text(plain, "k.plain.ptx", source_hints=False)
    assert any(e.opcode == "libdevice:__nv_powf" for e in res.report.errors)


@pytest.mark.parametrize("name", ["seed227589", "k_pow_of_pow_of_x_by_x_f32"])
def test_pow_of_pow_of_one_base_is_bit_exact(name):
    """pow(pow(x, x), x) of f32 (held-out seed 227589, four powf bodies reported as unrecognised): the outer body's
    candidate inputs listed one register twice, so its one match (the inner's result, x) passed twice and was taken
    for two; each register is a candidate once — one FPSan op per call, bit for bit."""
    assert not _body_errors(name)
    _assert_bit_exact(name)


@pytest.mark.parametrize("name", ["seed227096", "seed225687", "k_pow_beside_pow_of_its_exponent_f32",
                                  "k_pow_of_exponent_beside_pow_f32", "k_pows_sharing_the_exponent_f32"])
def test_pows_sharing_one_argument_are_bit_exact(name):
    """pow(y, x) beside pow(x, x) of f32, in either order (held-out seeds 227096, 225687, 224810, 224352: powf bodies
    reported as unrecognised): LLVM's CSE shares x's tests (its odd-integer test, x == 0) between the bodies, so
    neither is one alone; together, the later's inputs are some of the earlier's (it reads the values computed from
    those alone) or more (it reads the earlier's values of the argument they share) — one FPSan op each."""
    assert not _body_errors(name)
    _assert_bit_exact(name)


def test_pows_sharing_only_the_base_stay_reported():
    """pow(x, y) beside pow(x, z): the later body's log of x is the earlier's (CSE), so nothing in it tells its base
    from its exponent (as for pow(x, pow(x, y)), 208251): the bodies stay reported, never taken in some order."""
    ours, theirs, _ = _compare("k_pows_sharing_the_base_f32", folds=(("half", "native"),))
    assert not (ours == theirs).all() and _body_errors("k_pows_sharing_the_base_f32")


@pytest.mark.parametrize("name", ["seed228530", "k_pow_of_round_trip_and_widening_bf16"])
def test_pow_of_a_round_trip_through_f64_and_the_widening_is_one_argument(name):
    """pow(x.to(f64).to(f32), x.to(f32)) of a bf16 x (held-out seed 228530, reported as two arguments): the two are
    one value in Triton's ring (the sign-extended payload narrows back to the f32 widening) and one register after
    LLVM's folds — pow(x, x), bit for bit."""
    assert not _body_errors(name)
    _assert_bit_exact(name)
