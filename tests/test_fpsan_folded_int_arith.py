"""Float arithmetic on an integer's conversion that LLVM folded into integer arithmetic
(``ptxkit.fpsan.folded_int_arith``; issue 10, held-out seed 45440, silent at first contact):
``(x.to(tl.int16).to(tl.float32) + 1.0).to(tl.int8)`` is ``add.s16 i, 1`` in the plain PTX, no float instruction
left, while Triton's FPSan converts the ring sum's float; so is a comparison of such a sum with a literal. The source
shows it, so it is reported."""

from __future__ import annotations

import pytest

from tests.test_fpsan_folds import _run
from tests.test_fpsan_libdevice import _compare
from tests.test_fpsan_source_hints import _with_source

# x → i16, LLVM's integer add of the literal, the int8 wrap, back to f32 at the store's location
FOLDED = ("cvt.rzi.s16.f32 %h1, %a;\n\tadd.s16 %h2, %h1, 1;\n\tcvt.s16.s8 %h3, %h2;\n\t{store}\n\t"
          "cvt.rn.f32.s16 %d, %h3;")


def _reported(rep) -> list[str]:
    return [i.reason for i in rep.errors if "left no float instruction" in i.reason]


# tl.where(i.to(f32) + 1.0 > 2.0, x0, x1) as LLVM's integer comparison i > 1
COMPARED = "cvt.rzi.s16.f32 %h1, %a;\n\tsetp.gt.s16 %p1, %h1, 1;\n\t{store}\n\tselp.b32 %d, %a, %b, %p1;"


@pytest.mark.parametrize("expr,body", [("(x0.to(tl.int16).to(tl.float32) + 1.0).to(tl.int8)", FOLDED),
                                       ("(2.0 * x0.to(tl.int8).to(tl.float64)).to(tl.int16)", FOLDED),
                                       ("(x0.to(tl.int16).to(tl.float32) - 1.0).to(tl.uint8)", FOLDED),
                                       ("tl.where(x0.to(tl.int16).to(tl.float32) + 1.0 > 2.0, x0, x1)", COMPARED)])
def test_folded_arithmetic_on_an_integer_conversion_is_reported(tmp_path, expr, body):
    _, rep = _run(_with_source(tmp_path, expr, body, "", nin=2), [[0x40000000, 0x3F800000]])
    got = _reported(rep)
    assert len(got) == 1 and "kernel.py:9:" in got[0]


@pytest.mark.parametrize("expr,body", [
    ("(x0.to(tl.int16).to(tl.float32) + 1.0).to(tl.int8)",  # the float add kept, at the sum's location
     "cvt.rzi.s16.f32 %h1, %a;\n\tcvt.rn.f32.s16 %r1, %h1;\n\t.loc 1 9 10\n\tadd.f32 %r2, %r1, 0f3F800000;\n\t"
     "cvt.rzi.s16.f32 %h2, %r2;\n\t{store}\n\tcvt.rn.f32.s16 %d, %h2;"),
    ("(x0 + 1.0).to(tl.int8)", FOLDED),  # a float x: no integer conversion under the op
    ("(x0.to(tl.int16).to(tl.float32) + x0).to(tl.int8)", FOLDED)])  # no literal: nothing LLVM folds so
def test_kept_or_other_arithmetic_says_nothing(tmp_path, expr, body):
    _, rep = _run(_with_source(tmp_path, expr, body, ""), [[0x40000000]])
    assert not _reported(rep)


def test_held_out_kernel_is_reported():
    """Seed 45440's Triton 3.9 pair: the mismatch (every element, silent at first contact) is reported."""
    ours, theirs, errors = _compare("seed45440")
    assert not (ours == theirs).all()
    assert any("left no float instruction" in e.reason for e in errors)
