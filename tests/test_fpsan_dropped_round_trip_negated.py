"""A value narrowed to T, widened back and narrowed to T again with a negation between (issue 10; random first contact
seed 244847, silent in 21/64; user-style probes silent in 45/64 and 187/200): LLVM drops the inner
``fpext(fptrunc(p))`` — rounding twice is rounding once — and Triton's FPSan keeps it in the ring, where the negation
does not commute with the narrowing. ``fold_dropped_arm_round_trip`` gives a where's arm its ring round trip again;
``fold_neg_round_trip`` narrows the negation of the widened payload."""

from __future__ import annotations

import pytest

from tests.test_fpsan_libdevice import _assert_bit_exact, _compare


@pytest.mark.parametrize("name", ["k_where_arm_round_trip_negated_f32", "k_negated_round_trip_f32", "seed244847",
                                  "k_round_trip_times_minus_one_f64", "k_named_negated_round_trip_f32"])
def test_dropped_round_trip_under_a_negation_is_tritons(name):
    _assert_bit_exact(name, folds=())


def test_round_trip_dropped_with_arithmetic_moved_around_the_select_is_reported():
    """``-where(c, x * 3.0, (x * z).to(f16))`` at f32, stored as f16: LLVM makes it ``x * select(c, 3.0, z)``, the
    round trip gone from an arm that no longer exists in the PTX: reported, never silent."""
    ours, theirs, errors = _compare("k_where_arm_round_trip_moved_f32", folds=())
    assert (ours != theirs).any()
    assert any("round trip" in e.reason and e.opcode.startswith("selp") for e in errors), [e.reason for e in errors]
