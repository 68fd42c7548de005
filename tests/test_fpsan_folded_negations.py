"""A negation inside an exact round trip that LLVM dropped with it (``ptxkit.fpsan.folded_negations``; issue 10,
held-out seed 55897, silent at first contact): ``a - (-h.to(f64)).to(f16)`` of a half h is ``a + h`` in the plain
PTX (an fma's addend there), nothing at the narrowing; Triton's ring negates the sign-extended payload and narrows
it back, which differs from −φ(h) at φ(−0.0). The source shows it, so it is reported — unless the PTX still negates
the loaded value, which the sign folds decide."""

from __future__ import annotations

import pytest

from tests.test_fpsan_folds import _run
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare
from tests.test_fpsan_source_hints import _with_source

FOLDED = "narrowing at"
LOAD = ".loc 1 7 10"  # x0 = tl.load(x0_ptr)


def _reported(rep) -> list[str]:
    return [i.reason for i in rep.errors if FOLDED in i.reason and "negated exact widening" in i.reason]


@pytest.mark.parametrize("expr,body,reported", [
    ("x1 - (-x0.to(tl.float64)).to(tl.float16)", "{store}\n\tadd.f16 %d, %b, %a;", True),
    ("x1 - (-x0.to(tl.float32)).to(tl.float16)", "{store}\n\tadd.f16 %d, %b, %a;", True),
    ("x1 - (-x0.to(tl.float64)).to(tl.float16)", "neg.f16 %h1, %a;\n\t{store}\n\tsub.f16 %d, %b, %h1;", False),
    ("x1 - (-x0).to(tl.float16)", "{store}\n\tadd.f16 %d, %b, %a;", False)])  # no round trip
def test_negated_round_trip_left_no_instruction(tmp_path, expr, body, reported):
    _, rep = _run(_with_source(tmp_path, expr, body, "", nin=2, w=16, out_w=16), [[0x8000, 0x3C00]], w=16, out_w=16)
    assert bool(_reported(rep)) == reported


def test_held_out_kernel_is_reported():
    """Seed 55897's Triton 3.9 pair: the elements at x0 = −0.0 (and the cumsum after them) differ, reported."""
    ours, theirs, errors = _compare("seed55897", folds=())
    assert not (ours == theirs).all()
    assert any(FOLDED in e.reason for e in errors)


@pytest.mark.parametrize("name", ["seed57221", "k_fma_of_negated_round_trip"])
def test_hoisted_negation_read_by_an_op_is_the_chain_of_its_negating_argument(name):
    """``tl.fma(a, b, (-x.to(f64)).to(f32))`` (held-out seed 57221, silent at first contact at x = −0.0): LLVM hoists
    the sign xor to x's load, whose location says nothing, and the fma reads it; the fma's one negating argument is
    the chain Triton computes (widen, negate, narrow) — bit for bit."""
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("expr,body,reported", [
    # |x| at the load's location (no location of the round trip): Triton's abs of the wide float keeps −0
    ("tl.abs((-x0.to(tl.float64))).to(tl.float32)", f"{LOAD}\n\tand.b32 %d, %a, 2147483647;", True),
    ("tl.abs(x0.to(tl.float64)).to(tl.float32)", f"{LOAD}\n\tand.b32 %d, %a, 2147483647;", True),
    ("(-tl.abs(x0.to(tl.float64))).to(tl.float32)", f"{LOAD}\n\tor.b32 %d, %a, -2147483648;", False),  # (sign fold)
    ("tl.abs(x0).to(tl.float32)", f"{LOAD}\n\tand.b32 %d, %a, 2147483647;", False)])  # no round trip
def test_abs_round_trip_left_no_instruction(tmp_path, expr, body, reported):
    """``abs(-x.to(f64)).to(f32)`` of an f32 x (held-out seed 78506, silent at first contact): LLVM drops the round
    trip and clears x's sign bit at the load's location. Triton's FPSan takes abs of the f64 the sign-extended (and
    negated) payload stands for and narrows back, which keeps x = −0.0 as −0.0: reported where an |x| was left
    native without a word."""
    _, rep = _run(_with_source(tmp_path, expr, body, "", nin=1), [[0x80000000]])
    said = [i.reason for i in rep.errors if FOLDED in i.reason and "abs of an exact widening" in i.reason]
    assert bool(said) == reported


def test_held_out_abs_round_trip_is_reported():
    """Seed 78506's Triton 3.9 pair: the row maxima over x0 = −0.0 differ (3 of 8), reported."""
    ours, theirs, errors = _compare("seed78506", folds=())
    assert not (ours == theirs).all()
    assert any("abs of an exact widening" in e.reason for e in errors)
