"""A negated dot operand that the source takes through a wider type (issue 10 F/J; held-out seed 43806, silent at
first contact): ``(-a.to(tl.float64)).to(tl.float32)`` fed to ``tl.dot``. LLVM drops the f64 and sinks the negation
into the dot's lowering, below the shared-memory round trip (a sign xor after ``ldmatrix`` for A, a ``neg.f32``
after ``ld.shared`` for B), at the dot's location. Triton's FPSan negates in the 64-bit ring and narrows with its
hash, which differs from the 32-bit ring's negation at φ(−0) = −2^31 (whole rows of the product differ). The mma
operand the negation reaches names the dot argument whose chain it is. Triton 3.9 pairs in tests/data/triton_libdevice
(make_pairs.py: seed43806 and :data:`HAND_DOT`), checked bit for bit on the simulator."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_fpsan_libdevice import SPECS, _assert_bit_exact, _build


@pytest.mark.parametrize("name", ["seed43806", "k_dot_neg_b_through_f64_tf32x3", "k_dot_neg_a_through_f64_tf32x3"])
def test_negated_dot_operand_through_f64_is_tritons_bits(name):
    _assert_bit_exact(name)


def test_the_vectors_hold_minus_zero_in_the_negated_operand():
    """The vectors reach the case that tells the rings apart: −0.0 among A's elements (the rows that differed)."""
    a = SPECS["seed43806"].input_arrays()["a_ptr"]
    assert (np.asarray(a) == 0x80000000).any()


def test_dot_operand_max_of_a_value_and_its_negation_is_tritons_ring_max():
    """Held-out seed 49150 (silent at first contact): ``maximum(a.to(f64).to(f32), -a)`` fed to a tf32x3 wgmma dot.
    LLVM drops the round trip, folds the maximum into fabs and sinks it past ``ldmatrix`` (a sign-bit ``and`` of
    untyped words at the dot's location, read by the split into tf32 halves and the wgmma's A registers); Triton's
    ring max of φ(a) and −φ(a) keeps φ(−0) = −2^31 (its own negation). Bit for bit, nothing reported."""
    plain, _ = _build("seed49150", "plain")
    assert "wgmma.mma_async" in plain and "2147483647" in plain
    _assert_bit_exact("seed49150")
