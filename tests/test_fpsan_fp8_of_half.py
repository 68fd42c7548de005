"""``h.to(tl.float8e5 / float8e4nv)`` of a bf16 h (``ptxkit.fpsan.casts``, issue 10; a model kernel, silent in 455/512):
Triton lowers it through the exact f32 widening (an inline asm ``cvt.f32.bf16``) and ``cvt.rn.satfinite.*x2.f32``;
its FPSan narrows the half's payload 16 → 8 with its fold, which is not the 32 → 8 fold of the sign-extended payload."""

from __future__ import annotations

import pytest

from tests.test_fpsan_libdevice import _assert_bit_exact


@pytest.mark.parametrize("name", ["k_bf16_to_fp8e5", "k_bf16_to_fp8e4"])
def test_half_to_fp8_is_the_16_to_8_narrowing(name):
    _assert_bit_exact(name, folds=())
