"""The argument order of a two-argument libdevice call other than pow (``ptxkit.fpsan.libdevice_order``; issue 10):
``libdevice.atan2(a, b)`` was hashed as atan2(b, a) — the body's first use is b's — silent in 99/128 elements."""

from __future__ import annotations

import pytest

from tests.test_fpsan_libdevice import _assert_bit_exact


@pytest.mark.parametrize("name", ["k_atan2_two_loads_f32", "k_atan2_two_loads_f16"])
def test_atan2_arguments_hashed_in_the_sources_order(name):
    """Bit for bit against Triton's FPSan build, nothing reported: the source's arguments say which input is which."""
    _assert_bit_exact(name, folds=())
