"""Two negations around a narrowing that LLVM cancelled (``ptxkit.fpsan.fold_negated_narrowing``; issue 10, held-out
seed 82591, silent at first contact): ``(-(x / y)).to(bf16) * -1.0`` is one ``cvt.rn.bf16.f32`` of x / y in the plain
PTX; Triton's FPSan negates in the f32 ring, narrows with its hash fold and negates in the bf16 ring, and the fold
does not commute with the negation."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.fpsan import ring as R
from tests.test_fpsan_folds import _run
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare
from tests.test_fpsan_source_hints import _with_source

XS = [0x3FC00000, 0xC0490FDB, 0x3E99999A, 0x80000000]


def _negated_around(xs: list[int]) -> list[int]:
    e = R.embed(np.array(xs, np.uint64), "f32")
    narrowed = R.float_cast(R.unembed(R.neg(e, 32), "f32"), "f32", "f16")
    return [int(v) for v in R.unembed(R.neg(R.embed(narrowed, "f16"), 16), "f16")]


@pytest.mark.parametrize("expr,anchor,around", [("(-x0).to(tl.float16) * -1.0", "(-x0)", True),
                                                ("-(tl.max(-x0, axis=0).to(tl.float16))", "tl.max", True),
                                                ("x0.to(tl.float16) * -1.0", "x0", False),  # one negation
                                                ("(-x0).to(tl.float16)", "(-x0)", False),
                                                # -(-x) is x: one negation (held-out seed 133127, silent)
                                                ("tl.max(-(-x0), axis=0).to(tl.float16) * -1.0", "tl.max", False),
                                                ("(-(-x0)).to(tl.float16) * -1.0", "(-(-x0))", False)])
def test_negations_cancelled_around_a_narrowing(tmp_path, expr, anchor, around):
    """Both negations present in the source and none in the PTX: −narrow(−φ(x)); one alone is another rule's."""
    text = _with_source(tmp_path, expr, "{loc}\n\tcvt.rn.f16.f32 %d, %a;", anchor, out_w=16)
    out, rep = _run(text, [[x] for x in XS], out_w=16)
    plain = [int(v) for v in R.float_cast(np.array(XS, np.uint64), "f32", "f16")]
    assert _negated_around(XS) != plain
    said = any("negates a narrowed negation" in i.reason for i in rep.items)
    assert said == around and (out == _negated_around(XS) or not around)


@pytest.mark.parametrize("name", ["seed82591", "k_negated_narrowing_negated_bf16", "seed133127"])
def test_held_out_negations_around_a_narrowing_are_tritons_bits(name):
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("expr,reported", [("x1 + (-(x0.to(tl.float32) * x0.to(tl.float32)).to(tl.float16))", True),
                                           ("x1 - (x0.to(tl.float32) * 3.0).to(tl.float16)", True),
                                           ("x1 + x0 * x0", False)])  # half arithmetic: the fma is Triton's too
def test_half_fma_of_a_narrowed_wider_product_is_reported(tmp_path, expr, reported):
    """``a + (-(x.to(f32) * y.to(f32))).to(f16)`` as ``fma.rn.f16 (-x), y, a`` (held-out seed 84547, silent at first
    contact in 59/64 elements): LLVM narrowed the exact f32 product into the half fma; Triton multiplies in the f32
    ring and narrows with its hash fold. Not modelled: reported."""
    body = "{loc}\n\tfma.rn.f16 %d, %a, %a, %b;"
    _, rep = _run(_with_source(tmp_path, expr, body, "x1", nin=2, w=16, out_w=16), [[0x3C00, 0x4000]], w=16, out_w=16)
    assert any("narrowing of a wider product" in e.reason for e in rep.errors) == reported


def test_held_out_half_fma_of_a_narrowed_product_is_reported():
    ours, theirs, errors = _compare("seed84547", folds=())
    assert not (ours == theirs).all() and any("narrowing of a wider product" in e.reason for e in errors)


@pytest.mark.parametrize("name", ["seed236404", "seed236700", "k_min_of_same_negations_bf16"])
def test_negation_before_a_narrowing_through_a_name_or_a_choice(name):
    """``r = -tl.where(c, h, fma(..))`` of an f32 where, then ``r.to(f16)`` (held-out seed 236404: LLVM's cvt carries
    the where's location, not the cast's), and ``tl.minimum(-x, -x).to(bf16)`` (seed 236700, and its hand kernel):
    the negation LLVM moved below the cvt as a sign-bit xor is the source's before the narrowing, the ring's cast of
    −φ(x). Both were reported under the default ``neg-cast=after`` at first contact; now decided, bit for bit."""
    _assert_bit_exact(name, folds=())
