"""The user's |x| of ``abs(x.to(W)).to(T)`` that LLVM hoists to x's load as a sign-bit ``and`` of the T-bit x
(issue 10; held-out seed 44432: ``sin(abs(x.to(f64)).to(f32))`` of an f32 x, silent at first contact). Triton's FPSan
widens φ(x) to W, clears the sign of W's bits and narrows back, which differs from T's own |x| at −0 (φ(−0) is the
ring's −2^31, whose 64-bit sign extension is not the widening of any f32's magnitude). The readers' calls name it: a
recognised libdevice body (its lines read the bits natively, its ring op the argument), an op such as exp's, or an
operator.
Triton 3.9 pairs in tests/data/triton_libdevice, checked bit for bit on the simulator."""

from __future__ import annotations

import pytest

from tests.test_fpsan_libdevice import SPECS, _assert_bit_exact


@pytest.mark.parametrize("name", ["seed44432", "k_exp_of_abs_widened_f32", "k_abs_widened_times_x_f32"])
def test_hoisted_abs_of_a_widening_read_as_an_argument_is_tritons_bits(name):
    _assert_bit_exact(name)


def test_the_vectors_reach_minus_zero():
    """−0.0 is among the inputs, where the rings differ (the elements that differed were those)."""
    assert any((a == 0x80000000).any() for a in SPECS["seed44432"].input_arrays().values())


@pytest.mark.parametrize("name", ["seed52638", "k_rsqrt_abs_of_narrowed_widened", "seed102602",
                                  "k_abs_of_negated_narrowing_widened_f64", "seed133772", "seed204961"])
def test_abs_of_a_narrowing_widened_back_is_inside_both_casts(name):
    """``tl.abs(x.to(f16).to(f32))`` of an f32 x (held-out seed 52638, silent at first contact): LLVM's ``abs.f16``
    between ``cvt.rn.f16.f32`` and ``cvt.f32.f16``. The source's abs takes the widening, which takes the narrowing: the
    abs is inside both casts, not ``abs(x).to(f16)`` (the narrowing's own order was read from the outer cast alone,
    and the abs applied twice); also through a negation the abs drops, ``tl.abs((x.to(f16) * -1.0).to(f64))`` (held-out
    seed 102602, silent at first contact: 34/128 elements); also where the widening is to no type of the narrowing's
    source, ``tl.abs(s.to(bf16).to(f32))`` of an f64 cumsum ``s`` of abs values (held-out seed 133772, silent: read at
    the cvt's location as the scan's abs); also through a choice of one value, ``tl.abs(tl.maximum(h, h).to(f32))`` of
    ``h = x.to(f16)`` (held-out seed 204961, silent at first contact)."""
    _assert_bit_exact(name, folds=())


def test_sin_body_of_an_abs_runs_on_a_non_negative_input():
    """``tl.sin(tl.abs(x * 2.0).to(f32))`` of an f64 x (held-out seed 140845: the candidate failed in the simulator,
    an out-of-bounds local access): LLVM compiles the inlined ``__nv_sinf`` for a non-negative input (an ``abs.f32``
    writes it) and its Payne-Hanek reduction indexes local memory by the input's high bits, sign included, while the
    ring narrowing of |x| may set the sign. The ring sin reads a saved copy; the native body, whose result is
    replaced, runs on the input with its sign cleared. Bit for bit, nothing reported."""
    _assert_bit_exact("seed140845", folds=())


@pytest.mark.parametrize("name", ["seed227213", "k_neg_abs_widened_bf16", "k_neg_abs_widened_f16",
                                  "k_neg_abs_widened_f32"])
def test_negated_abs_of_a_widening_narrowed_back_is_tritons_bits(name):
    """``(-abs(h.to(W))).to(T)`` (held-out seed 227213, reported: 3/128 differing): LLVM drops both casts and writes
    −|h| as a sign-bit ``or`` of the T-bit h; Triton widens φ(h), clears the wide bits' sign, negates in the wide ring
    and narrows — which differs from T's own −|h| where the widened bits are negative. Decided by the source."""
    from tests.test_fpsan_libdevice import _compare

    _, _, errors = _compare(name, folds=())
    assert not [e for e in errors if e.opcode.startswith("or.")]
    _assert_bit_exact(name, folds=())
