"""``x % y`` of floats, which NVPTX expands into ``div``, ``cvt.rzi`` and ``fma`` (and an infinite-divisor select for a
variable y): Triton's FPSan computes the ring remainder E(x) srem (E(y) | 1) (``ptxkit.fpsan.fold_frem``; a model
kernel's ``(x * 1000.0).to(int32).to(f32) % 7.0`` was silent in 190/512)."""

from __future__ import annotations

import numpy as np

from tests.test_fpsan_libdevice import _compare


def test_remainder_by_a_literal_is_the_ring_remainder():
    ours, theirs, errors = _compare("k_mod_const_f32", folds=())
    assert np.array_equal(ours, theirs)
    assert not errors


def test_remainder_by_a_value_is_the_ring_remainder_at_an_infinite_divisor_too():
    """The inputs hold ±inf divisors: the native select of x there is not Triton's; the dead trunc is still reported
    (the source does not say which trunc it is), the result bit for bit."""
    ours, theirs, _ = _compare("k_mod_var_f32", folds=())
    assert np.array_equal(ours, theirs)
