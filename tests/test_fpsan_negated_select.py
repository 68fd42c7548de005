"""``-tl.where(c, x, 0.0)`` (``ptxkit.fpsan.fold_negated_select_zero``): LLVM moves the negation into the select's
arms, ``selp d, -x, -0.0, p``; Triton's ring negation of the source's +0.0 is +0.0 (and of −0.0 is −0.0), so the
zero arm takes the ring's sign. Silent wherever c was false (241/512 elements, every float type)."""

from __future__ import annotations

import pytest

from tests.test_fpsan_libdevice import _assert_bit_exact


@pytest.mark.parametrize("name", ["k_neg_where_f16", "k_neg_where_scaled_f32", "k_neg_where_negzero_f64"])
def test_zero_arm_of_a_negated_where_is_the_rings(name):
    _assert_bit_exact(name, folds=())
