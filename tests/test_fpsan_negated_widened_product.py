"""The negation of an f32 product widened to f64 and narrowed back (``ptxkit.fpsan.folds_narrowed.negated_product``;
issue 10 H, held-out seed 225803: 127/128 differing at first contact, reported for another instruction).
``((x * y).to(f64) * -1.0).to(f32)`` and ``(-(x * y).to(f64)).to(f32)`` are one ``mul.f32`` after LLVM's folds, the
negation moved onto an operand (a ``neg.f32``, or a sign-bit ``xor`` of a loaded value). Triton's FPSan multiplies in
the f32 ring, sign-extends, negates in the f64 ring and narrows: the PTX's ring product is that narrowing except where
the product is −2^31 (an input of −0.0, φ(−0.0) = −2^31, times an odd payload: element 82 of the hand pairs) — bit for
bit, against Triton 3.9's own FPSan build. Without the moved negation in the PTX, the mul is reported."""

from __future__ import annotations

import pytest

from tests.test_fpsan_folds import _run
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare
from tests.test_fpsan_source_hints import _with_source

EXPR = "((x0 * x1).to(tl.float64) * -1.0).to(tl.float32)"


@pytest.mark.parametrize("name", ["seed225803", "k_negated_widened_product_f32", "k_neg_of_widened_product_f32"])
def test_negated_widened_product_is_bit_exact(name):
    _, _, errors = _compare(name, folds=())
    assert not errors  # (also not the bf16 store's narrowing of r, whose negation the f32 cast narrowed first)
    _assert_bit_exact(name, folds=())


def test_product_without_the_moved_negation_is_reported(tmp_path):
    text = _with_source(tmp_path, EXPR, "{loc}\n\tmul.f32 %d, %a, %b;", "((x0", nin=2)
    _, rep = _run(text, [[0x3FC00000, 0x40000000]])
    assert any(e.opcode == "mul.f32" and "no neg.f32 or sign xor" in e.reason for e in rep.errors)


def test_product_of_the_moved_negation_is_the_ring_product_narrowed(tmp_path):
    """``mul.f32 d, a, -b``: the f32 ring product −φ(a)φ(b), except at φ(a)φ(b) = −2^31 (a = −0.0, b's payload odd),
    where Triton's narrowing of +2^31 gives 0x7FFF0DB6 (docs/fpsan.md's 64 → 32 fold), unembedded."""
    from ptxkit.fpsan import ring as R

    text = _with_source(tmp_path, EXPR, "{loc}\n\tneg.f32 %t, %b;\n\tmul.f32 %d, %a, %t;", "((x0", nin=2)
    rows = [[0x3FC00000, 0x40000000], [0x80000000, 0x3F800001]]
    got, rep = _run(text, rows)
    assert not rep.errors
    phi = [[int(R.embed_int(v, "f32")) for v in r] for r in rows]
    assert (phi[1][0] * phi[1][1]) % 2**32 == 2**31  # the corner: the product is −2^31
    want = [R.unembed_int((-(phi[0][0] * phi[0][1])) % 2**32, "f32"), R.unembed_int(0x7FFF0DB6, "f32")]
    assert got == [int(w) for w in want]
