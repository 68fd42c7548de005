"""A narrowing cast compared with a literal (``ptxkit.fpsan.fold_narrowed_compare``; issue 10, custom kernels found
probing held-out seed 49895, silent before): ``x.to(f16) <= 0.5`` of an f64 x is ``setp.le.f64 x, 0.50048828125``
in the plain PTX (LLVM drops the narrowing and moves the constant to the rounding boundary), while Triton's FPSan
compares the float of the ring narrowing with 0.5. Triton 3.9 pairs in tests/data/triton_libdevice (make_pairs.py
HAND), bit for bit on the simulator."""

from __future__ import annotations

import re

import pytest

from tests.test_fpsan_libdevice import _assert_bit_exact, _build


@pytest.mark.parametrize("name", ["k_f16_cast_le_half_f64", "k_bf16_cast_gt_f32", "k_f32_cast_lt_zero_f64"])
def test_narrowed_value_compared_with_a_literal_is_tritons_comparison(name):
    plain, _ = _build(name, "plain")
    wide = "f64" if name.endswith("f64") else "f32"
    assert re.search(rf"setp\.\w+\.{wide}\s+%p\d+, %\w+, 0[fd]", plain)  # the shape: the wide value, a constant
    _assert_bit_exact(name, folds=())
