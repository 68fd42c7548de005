"""``fma d, a, b, -0.0`` as the product LLVM lowered (``ptxkit.fpsan.fold_fma_product``; issue 10, held-out seed
36627, silent at first contact): natively a·b bit for bit, in Triton's FPSan the ring product φ(a)·φ(b) — not the
ring fma, which adds φ(−0) = 2^15 to each bf16 lane."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.fpsan import ring as R
from tests.test_fpsan_folds import _items, _run
from tests.test_fpsan_libdevice import _compare
from tests.test_fpsan_source_hints import _with_source

WORDS = [[0x3FC04040, 0xC0203F00], [0x80004120, 0x3F80BF80], [0x42287F80, 0x3E803DCD]]
NEG0 = "mov.b32 %c, -2147450880;\n\t"


def _lanes(w: int) -> list[int]:
    return [w & 0xFFFF, w >> 16]


def _ring(a: int, b: int, op: str) -> int:
    out = 0
    for k, (x, y) in enumerate(zip(_lanes(a), _lanes(b))):
        px, py = (R.embed(np.array([v], np.uint64), "bf16") for v in (x, y))
        p = R.mul(px, py, 16) if op == "mul" else R.add(R.mul(px, py, 16), np.array([0x8000], np.uint64), 16)
        out |= int(R.unembed(p, "bf16")[0]) << (16 * k)
    return out


@pytest.mark.parametrize("expr,op", [("x0 * x1", "mul"), ("tl.fma(x0, x1, -0.0)", "fma")])
def test_packed_fma_with_a_negative_zero_addend_is_the_product(tmp_path, expr, op):
    """``x0 * x1`` of bf16 pairs as ``fma.rn.bf16x2 d, a, b, {-0.0, -0.0}``: the ring product in each lane; the
    source's own ``tl.fma(x0, x1, -0.0)`` stays the ring fma."""
    body = NEG0 + "{loc}\n\tfma.rn.bf16x2 %d, %a, %b, %c;"
    out, rep = _run(_with_source(tmp_path, expr, body, expr.split("(")[0][:4], nin=2), WORDS)
    assert out == [_ring(a, b, op) for a, b in WORDS]
    assert _ring(*WORDS[0], "mul") != _ring(*WORDS[0], "fma")
    if op == "mul":
        assert ("fma.rn.bf16x2", "error") not in _items(rep)


def test_identity_fma_keeps_the_value(tmp_path):
    """``fma.rn.bf16x2 t, x, {1.0, 1.0}, {-0.0, -0.0}`` (LLVM's, before widening x for a division; custom kernel
    ``(h * 0.5 - 0.5) / (x1.to(bf16) / h)``): φ(x)·φ(1) = φ(x), x's bits."""
    body = NEG0 + "mov.b32 %t, 1065369472;\n\t{loc}\n\tfma.rn.bf16x2 %d, %a, %t, %c;"
    out, _ = _run(_with_source(tmp_path, "x0 * 1.0", body, "x0", nin=2), WORDS)
    assert out == [a for a, _ in WORDS]


def test_held_out_vectorized_bf16_product_is_tritons_bits():
    """Triton 3.9 pair: ``((h * 0.5) - 0.5) / ((h * x1b) / maximum(h, h))`` with the product as a packed fma of
    −0.0: bit for bit with Triton's FPSan build."""
    ours, theirs, _ = _compare("seed36627")
    assert np.array_equal(ours, theirs)
