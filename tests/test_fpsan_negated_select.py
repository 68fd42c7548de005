"""``-tl.where(c, x, 0.0)`` (``ptxkit.fpsan.fold_negated_select_zero``): LLVM moves the negation into the select's
arms, ``selp d, -x, -0.0, p``; Triton's ring negation of the source's +0.0 is +0.0 (and of −0.0 is −0.0), so the
zero arm takes the ring's sign. Silent wherever c was false (241/512 elements, every float type)."""

from __future__ import annotations

import pytest

from tests.test_fpsan_libdevice import _assert_bit_exact


@pytest.mark.parametrize("name", ["k_neg_where_f16", "k_neg_where_scaled_f32", "k_neg_where_negzero_f64"])
def test_zero_arm_of_a_negated_where_is_the_rings(name):
    _assert_bit_exact(name, folds=())


def test_half_times_a_sign_where_negates_in_the_wide_ring():
    """``h * tl.where(c, 1.0, -1.0)`` of a half: the where is an f32 tensor, so Triton negates h's sign-extended
    payload in the 32-bit ring and narrows; LLVM's ``neg.f16`` in the select differs at h = −0.0
    (``ptxkit.fpsan.fold_sign_multiply``; silent in user-style probes)."""
    _assert_bit_exact("k_sign_times_where_f16", folds=())
