"""``libdevice.pow(x, N)`` of an integer literal N (``ptxkit.fpsan.fold_powi``): Triton calls ``__nv_powif`` /
``__nv_powi`` and its FPSan hashes the call of x and the raw integer; LLVM expands a square-and-multiply chain, which
sanitized op by op was silent in 480/512 elements."""

from __future__ import annotations

import pytest

from tests.test_fpsan_libdevice import _assert_bit_exact, _compare


@pytest.mark.parametrize("name", ["k_powi3_f32", "k_powi2_plus_f64", "k_powi_neg3_f64"])
def test_integer_power_is_the_hashed_call(name):
    """x^3 (f32), x^2 + 1.0 contracted into an fma (f64), (x + 2)^-3 through a reciprocal (f64, the integer
    sign-extended in the hash): bit for bit, nothing reported."""
    _assert_bit_exact(name, folds=())


def test_power_llvm_folded_away_is_reported():
    """x^0 is 1.0 to LLVM: no chain is left where Triton hashes the call; an error, never silent."""
    ours, theirs, errors = _compare("k_powi0_f32", folds=())
    assert (ours != theirs).any()
    assert any(e.opcode == "libdevice:__nv_powi" for e in errors)


def test_negation_beside_a_signbit_test_is_the_ring_negation():
    """``tl.where(libdevice.signbit(x) != 0, -x, x)``: LLVM's ``setp.lt.s32`` on x's bits is a float's sign test, not
    integer code; the sign xor is ``-x`` (silent at x = −0.0 before)."""
    _assert_bit_exact("k_signbit_neg_f32", folds=())
