"""An integer's narrowing-widening round trip LLVM dropped (``ptxkit.fpsan.fold_dropped_round_trip``; issue 10,
held-out seed 94098, silent at first contact): reported, never silent; a round trip LLVM keeps is no such case."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_fpsan_libdevice import _assert_bit_exact, _compare

_SAID = "narrows a value and widens it back"


def _dropped(errors: list) -> list[str]:
    return [e.opcode for e in errors if _SAID in e.reason]


def test_dropped_round_trip_of_an_integer_is_reported():
    """``i.to(f64).to(f32).to(f64) - i.to(f64)`` of ``i = x.to(int32)``, x an f32: the PTX subtracts the conversion
    from itself; Triton's ring round trip is not φ(x), so the two builds differ (the report is what keeps it honest)."""
    ours, theirs, errors = _compare("k_int_round_trip_dropped_f64", folds=())
    assert set(_dropped(errors)) == {"sub.f64"}  # (two elements per thread)
    assert np.count_nonzero(ours != theirs) > 0


def test_held_out_cumsum_first_row_round_trip_is_reported():
    """Seed 94098: ``s * s - s.to(f32).to(f64)`` of a cumsum whose first row is ``i.to(f64)``: the negation LLVM puts
    on that row's conversion is reported (the other rows keep their cvt pair, sanitized exactly)."""
    ours, theirs, errors = _compare("seed94098", folds=())
    assert "neg.f64" in _dropped(errors)  # (and the fma reading it, at the same location)
    assert np.count_nonzero(ours != theirs) > 0


def test_kept_round_trip_beside_an_integer_is_not_reported():
    """``i.to(f64) * y.to(f32).to(f64)`` of an f64 y: the product reads y's widening, the round trip LLVM kept."""
    _, _, errors = _compare("k_int_times_round_trip_kept_f64", folds=())
    assert _dropped(errors) == []
    _assert_bit_exact("k_int_times_round_trip_kept_f64", folds=())


@pytest.mark.parametrize("name", ["k_promoted_int_round_trip_dropped_f32", "seed150105"])
def test_round_trip_widened_by_the_operators_promotion_is_the_int_wide_fold(name):
    """``x + i.to(f32).to(f16)`` of an f32 x, ``i`` an f16's truncation (and held-out seed 150105, silent at first
    contact in 219/512, then reported: ``pow(..).to(f16) / i.to(f32).to(f16)``): Triton folds ``i.to(f32).to(f16)``
    into ``i.to(f16)`` and promotes the half back to f32 for the op; LLVM reads ``i``'s conversion to f32 itself
    (exact). Since stop 41 that conversion is the int-wide fold's (the native conversion to f16, widened in the
    ring; held-out seed 181208), so the op reads Triton's value: bit for bit, no round trip reported."""
    _, _, errors = _compare(name, folds=())
    assert _dropped(errors) == []
    _assert_bit_exact(name, folds=())


def test_float_round_trip_under_an_abs_narrowed_again_is_reported():
    """Held-out seed 163593 (silent at first contact, 45/128): ``abs(where(c, sin(x).to(bf16).to(f32), q)).to(bf16)``
    — LLVM drops the arm's bf16 round trip (the result is narrowed to bf16 again), Triton's ring narrows, widens and
    takes the abs of those bits: the source's ``abs(x).to(bf16)`` no longer decides the sign-bit and, reported."""
    ours, theirs, errors = _compare("seed163593", folds=())
    assert "and.b16" in {e.opcode for e in errors}
    assert np.count_nonzero(ours != theirs) > 0


def test_comparison_of_a_negation_narrowed_whose_negation_llvm_cancelled_is_reported():
    """``-(q.to(bf16)) < (-x).to(bf16)`` of an f64 x (held-out seed 167987, silent at first contact): LLVM moves x's
    negation past the narrowing and cancels both (``setp.gt.bf16 q, x``); Triton narrows −φ(x), which is not the
    negation of x's narrowing: reported. With both negations after the casts the swapped compare is Triton's."""
    from tests.test_fpsan_libdevice import _assert_bit_exact
    ours, theirs, errors = _compare("k_negated_narrowing_compared_bf16", folds=())
    assert "setp.gt.bf16" in {e.opcode for e in errors}
    assert np.count_nonzero(ours != theirs) > 0
    _assert_bit_exact("k_narrowing_negated_compared_bf16", folds=())
