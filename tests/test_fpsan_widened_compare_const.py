"""A comparison of a widened half with a Python number, which LLVM narrows (issue 10; found on a softplus kernel, silent
in 85/512 elements): ``x.to(f32) > 20.0`` of an f16 x is ``setp.gt.f16 p, x, r`` with ``mov.b16 r, 0x4D00``, as 20.0
is exact in f16. Triton's FPSan compares the ring widening φ⁻¹₃₂(sext φ₁₆(x)) with the f32 number 20.0 itself; the
constant is no widened half (``ptxkit.fpsan.folds_narrowed.widened_setp``)."""

from __future__ import annotations

import pytest

from tests.test_fpsan_libdevice import _assert_bit_exact


@pytest.mark.parametrize("name", ["k_softplus_f16", "k_cmp_widened_half_const_bf16"])
def test_widened_half_compared_with_a_number_is_tritons_bits(name):
    """Bit for bit against Triton's FPSan build, nothing reported (the half=f32 form is decided by the source)."""
    _assert_bit_exact(name, folds=())


def test_clamp_by_nested_wheres_of_literals_is_tritons_bits():
    """``where(x < -0.5, -0.5, where(x > 0.5, 0.5, x))`` of a widened half, stored as f16: both comparisons against
    narrowed constants, and the inner select's literal (at the store cast's location, LLVM having sunk the narrowing
    into the arms) is the ring narrowing of the f32 0.5, not the f16 0.5 (silent in 125/512 elements before)."""
    _assert_bit_exact("k_threshold_where_f16", folds=())
