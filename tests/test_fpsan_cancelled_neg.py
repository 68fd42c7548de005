"""Two negations LLVM cancelled in a product where the source casts one of them (``ptxkit.fpsan.fold_cancelled_neg``;
issue 10, held-out seed 36961, silent at first contact at x = −0): reported, since the PTX keeps no trace of
either negation and Triton's ring casts each one."""

from __future__ import annotations

import pytest

from tests.test_fpsan_folds import _items, _run
from tests.test_fpsan_libdevice import _assert_bit_exact
from tests.test_fpsan_source_hints import _with_source

MUL = "{loc}\n\tmul.f16 %d, %a, %b;"


@pytest.mark.parametrize("expr,reported", [
    ("(-x0.to(tl.float64)).to(tl.float16) * (-x1)", True),
    ("(-x0.to(tl.float32)).to(tl.float16) * (x1 * -1.0)", True),
    ("(-x0) * (-x1)", False),
    ("(-x0.to(tl.float32)) * (-x1.to(tl.float32))", False),
])
def test_product_of_cancelled_negations_under_a_cast_is_reported(tmp_path, expr, reported):
    """A plain negation on each side (or one after a widening) cancels in the ring too: nothing said of it."""
    _, rep = _run(_with_source(tmp_path, expr, MUL, expr[:3], nin=2, w=16), [[0x8000, 0x3C00]], w=16)
    assert any("multiplies two negations" in i.reason for i in rep.errors) == reported
    assert (("mul.f16", "error") in _items(rep)) >= reported


def test_product_reading_a_negation_says_nothing_of_cancelling(tmp_path):
    """The PTX keeps a negation (a sign xor): the other folds decide; nothing cancelled."""
    expr = "(-x0.to(tl.float64)).to(tl.float16) * (-x1)"
    body = "xor.b16 %h1, %a, -32768;\n\t{loc}\n\tmul.f16 %d, %h1, %b;"
    _, rep = _run(_with_source(tmp_path, expr, body, expr[:3], nin=2, w=16), [[0x8000, 0x3C00]], w=16)
    assert not any("multiplies two negations" in i.reason for i in rep.items)


def test_held_out_cancelled_negations_are_reported():
    """Seed 36961's pair: the mismatch (silent at first contact) is reported at the product."""
    from tests.test_fpsan_libdevice import _compare
    ours, theirs, errors = _compare("seed36961")
    assert not (ours == theirs).all() and any("multiplies two negations" in e.reason for e in errors)


WIDE = "cvt.f32.bf16 %r1, %a;\n\tcvt.f32.bf16 %r2, %b;\n\t{loc}\n\tmul.f32 %d, %r1, %r2;"


@pytest.mark.parametrize("expr,w,body,reported", [
    ("-((-x0.to(tl.bfloat16)) * x1.to(tl.float32))", 16, WIDE, True),
    ("-((-x0) * x1.to(tl.float32))", 16, WIDE, True),  # a loaded x0: the PTX widens it
    ("-((-x0) * x1)", 32, "{loc}\n\tmul.f32 %d, %a, %b;", False),  # one type: the ring cancels them too
])
def test_negated_product_of_a_promoted_negation_is_reported(tmp_path, expr, w, body, reported):
    """``-((-a) * q)`` of a bf16 a and an f32 q (held-out seed 58851, silent at first contact at a = −0): LLVM's
    ``mul.f32 a, q``; Triton negates a in the 16-bit ring before the product promotes it."""
    text = _with_source(tmp_path, expr, body, "-((", nin=2, w=w, out_w=32)
    _, rep = _run(text, [[0x8000, 0x3F80] if w == 16 else [0x80000000, 0x3F800000]], w=w, out_w=32)
    assert any("multiplies two negations" in i.reason for i in rep.errors) == reported


def test_held_out_negated_product_of_a_promoted_negation_is_reported():
    from tests.test_fpsan_libdevice import _compare
    ours, theirs, errors = _compare("seed58851", folds=())
    assert not (ours == theirs).all() and any("multiplies two negations" in e.reason for e in errors)


@pytest.mark.parametrize("name", [
    "seed99522", "k_double_negation_of_twice_f32", "k_double_negation_of_twice_stored_bf16",
])
def test_twice_under_a_double_negation_is_the_product_by_two(name):
    """``-((y * 2.0) * -1.0)``: LLVM drops both negations and writes y * 2.0 as ``add y, y`` at the outer negation's
    location. In the ring the negations cancel (φ(−1) = −1), so the source's y * 2.0 decides ``mul2``; narrowed to
    bf16 the value negates nothing (held-out seed 99522: the self-add left at the default and the narrowing
    reported, 96/128 elements differed). Bit for bit, nothing reported."""
    _assert_bit_exact(name)


def test_fma_of_a_scans_narrowed_negations_whose_first_row_llvm_cancelled_is_reported():
    """``tl.fma(t, t, t - t)`` of ``t = s.to(bf16)``, ``s = tl.cumsum(-(x.to(bf16).to(f32)))`` (held-out seed 112302,
    silent at first contact at x = −0.0): the first row is ``(-h.to(f32)).to(bf16)``, which LLVM reads as h with
    both negations cancelled in the product; Triton narrows the f32 ring's negation, which is not −h at φ(−0). Not
    modelled: reported at the fma."""
    from tests.test_fpsan_libdevice import _compare
    ours, theirs, errors = _compare("seed112302", folds=())
    assert any(e.opcode == "fma.rn.bf16" and "multiplies two negations" in e.reason for e in errors)
    assert (ours != theirs).any()  # (the inputs have x = −0.0 in the first row)
