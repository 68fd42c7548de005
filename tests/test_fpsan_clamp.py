"""``tl.clamp(x, -c, c)``, which LLVM writes ``min.xorsign.abs.T d, x, c`` (``ptxkit.fpsan.fold_clamp``; a model
kernel, silent at x = −0.0): Triton's FPSan clamps in the ring, where φ(−0.0) is the least value and clamps to −c."""

from __future__ import annotations

import pytest

from tests.test_fpsan_libdevice import SPECS, _assert_bit_exact
from tests.test_fpsan_select_extremum import _sanitized


@pytest.mark.parametrize("name", ["k_clamp_symmetric_f32", "k_clamp_symmetric_f16", "k_named_symmetric_clamp_f32"])
def test_symmetric_clamp_is_the_ring_clamp(name):
    """Bit for bit against Triton's FPSan build (the inputs hold −0.0), nothing reported."""
    _assert_bit_exact(name, folds=())


def test_clamp_of_a_widened_half_is_taken_in_the_wide_ring():
    """``tl.minimum(tl.maximum(h.to(f32), -1.5), 2.5)`` stored as f16 through a name: LLVM's ``max.f16``/``min.f16``
    of the narrowed literals; Triton compares at f32 (sext φ(h) with φ_f32(c)) twice and narrows once
    (``ptxkit.fpsan.fold_narrowed_extremum``; model kernels' clamp, reported before)."""
    _assert_bit_exact("k_clamp_widened_half_f16", folds=())


def test_helper_clamp_of_a_widened_half_read_wide():
    """A helper's ``relu6(x)`` of ``h.to(f32)``, read at f32: LLVM's ``min.f16`` then ``cvt.f32.f16``; Triton's ring
    clamps at f32 and the widening reads that value (the helper's parameter resolved at its call; silent before)."""
    _assert_bit_exact("k_helper_relu6_of_half_f16", folds=())


def test_xorsign_clamp_the_source_does_not_give_is_reported():
    """The named clamp's PTX (``min.xorsign.abs.f32 d, x, 0.5``) under a source whose bounds are ±0.25: no tl.clamp
    there gives the op's constant, so the xorsign model's bits are kept and reported (they differ from Triton's ring
    clamp at x = −0.0), never silent."""
    name = "k_named_symmetric_clamp_f32"
    source = SPECS[name].source.replace("lo = -0.5", "lo = -0.25").replace("hi = 0.5", "hi = 0.25")
    assert source != SPECS[name].source
    _, items = _sanitized(name, source)
    assert any(i.severity == "error" and "min.xorsign.abs" in i.reason for i in items)
    _, items = _sanitized(name, SPECS[name].source)
    assert not any(i.severity == "error" for i in items)
