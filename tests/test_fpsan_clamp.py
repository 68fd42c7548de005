"""``tl.clamp(x, -c, c)``, which LLVM writes ``min.xorsign.abs.T d, x, c`` (``ptxkit.fpsan.fold_clamp``; a model
kernel, silent at x = −0.0): Triton's FPSan clamps in the ring, where φ(−0.0) is the least value and clamps to −c."""

from __future__ import annotations

import pytest

from tests.test_fpsan_libdevice import _assert_bit_exact


@pytest.mark.parametrize("name", ["k_clamp_symmetric_f32", "k_clamp_symmetric_f16"])
def test_symmetric_clamp_is_the_ring_clamp(name):
    """Bit for bit against Triton's FPSan build (the inputs hold −0.0), nothing reported."""
    _assert_bit_exact(name, folds=())
