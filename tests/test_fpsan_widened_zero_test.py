"""A zero test of a widened value (``ptxkit.fpsan.fold_widened_zero_test``): LLVM writes ``h.to(f32) == 0.0`` as
``(bits(h) & 0x7FFF) == 0``, true at h = −0.0; Triton's FPSan compares the ring widening, which is zero for +0.0 only
(φ(−0.0) = −2^15 widens to no zero). User-style probes were silent at −0.0, for explicit casts and for a name assigned
0.0 (an fp32 scalar) beside a half."""

from __future__ import annotations

import re

import pytest

from tests.test_fpsan_libdevice import DATA, SPECS, _assert_bit_exact
from tests.test_fpsan_select_extremum import _sanitized


@pytest.mark.parametrize("name", ["k_widened_zero_test_f16", "k_widened_nonzero_test_f32"])
def test_widened_zero_test_is_the_rings(name):
    """Bit for bit against Triton's FPSan build (the inputs hold −0.0), nothing reported."""
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("name", ["k_widened_zero_test_f16", "k_widened_nonzero_test_f32"])
def test_the_plain_build_tests_the_magnitude_bits(name):
    text = (DATA / f"{name}.plain.ptx").read_text()
    assert re.search(r"and\.b(16|32)\s+(%\w+), %\w+, (32767|2147483647);\s*\n\s*setp\.eq\.b(16|32)\s+%\w+, \2, 0;",
                     text)


def test_a_test_at_the_values_own_type_keeps_the_magnitude():
    """The same PTX under ``x0 == 0.0`` (a half compared as a half, −0.0 equal to zero in Triton's build too): the
    magnitude ``and`` stays."""
    name = "k_widened_zero_test_f16"
    source = SPECS[name].source.replace("x0.to(tl.float32) == 0.0", "x0 == 0.0")
    assert source != SPECS[name].source
    out, _ = _sanitized(name, source)
    assert re.search(r"^\s*and\.b16\s+%\w+, %\w+, 32767;", out, re.M)
    out, _ = _sanitized(name, SPECS[name].source)
    assert not re.search(r"^\s*and\.b16\s+%\w+, %\w+, 32767;", out, re.M)
