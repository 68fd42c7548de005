"""``fma d, a, b, c`` beside ``mul t, a, b`` (``ptxkit.fpsan.fold_shared_product``; issue 10, held-out seed 44869,
silent at first contact): ``tl.sum(e)`` of ``e = (x.to(f32) * x.to(f32)).to(f16)`` of a bf16 x. LLVM narrows e's
product to ``mul.f16`` (Triton's FPSan: the f32 ring product, narrowed) and contracts the reduction's first add
with a second copy of that product, ``fma.rn.f16 s, a, a, shuffled``, which the 16-bit ring fma is not. The fma is
the sum of the product's own value. Triton 3.9's pair (tests/data/triton_libdevice), bit for bit on the simulator."""

from __future__ import annotations

from tests.test_fpsan_libdevice import _assert_bit_exact, _build


def test_contracted_sum_of_a_kept_product_is_tritons_bits():
    plain, _ = _build("seed44869", "plain")
    assert "fma.rn.f16" in plain and "mul.f16" in plain  # the shape this covers
    _assert_bit_exact("seed44869", folds=())  # (the source decides the mul.f16 is Triton's f32 product)


def test_a_recognised_bodys_own_square_is_no_shared_product():
    """``tl.fma(x, tanh(x), tl.fma(x, x, x))`` (held-out seed 57837, silent at first contact): tanhf's body squares x
    (``mul.f32 t, x, x``, a line that runs natively) beside the user's ``fma x, x, x``; the body's native square is
    no value of the ring, so the fma stays the ring fma — bit for bit."""
    _assert_bit_exact("seed57837", folds=())


def test_contracted_difference_of_a_kept_product_is_the_sources_sub():
    """``s' * s' - s' * s'`` of bf16 casts (held-out seed 55393, a false alarm before): LLVM keeps ``t = s' * s'``
    and contracts ``t - t`` into ``fma(s', s', -t)`` with ``neg.bf16x2``; the sum ``t + (−t)`` is the ring's
    ``t − t``, which the source's difference of halves decides as half arithmetic — bit for bit, nothing reported."""
    plain, _ = _build("seed55393", "plain")
    assert "neg.bf16x2" in plain and "fma.rn.bf16x2" in plain
    _assert_bit_exact("seed55393", folds=())
