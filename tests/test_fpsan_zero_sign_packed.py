"""``0.0 * i.to(bf16)`` of packed lanes as LLVM's ``and.b32 x, 0x80008000`` (``ptxkit.fpsan.fold_zero_sign``; issue
10, held-out seed 37380, silent at first contact: a wgmma operand, every output element differed): Triton's ring
product φ(0)·φ(x) is 0 in both lanes, +0.0, where the native and keeps each lane's sign."""

from __future__ import annotations

import pytest

from tests.test_fpsan_folds import _items, _run
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare
from tests.test_fpsan_source_hints import _with_source

BODY = ("mov.b32 {{%h1, %h2}}, %a;\n\tcvt.rn.bf16.s16 %h3, %h1;\n\tcvt.rn.bf16.s16 %h4, %h2;\n\t"
        "mov.b32 %r1, {{%h3, %h4}};\n\t{loc}\n\tand.b32 %d, %r1, -2147450880;")
WORDS = [[0x0005FFFF], [0xFFF00003], [0x00000000]]  # lanes (low, high): (−1, 5), (3, −16), (0, 0)


@pytest.mark.parametrize("expr,want", [("0.0 * x0.to(tl.int16).to(tl.bfloat16)", [0, 0, 0]),
                                       ("tl.math.copysign(x0.to(tl.int16).to(tl.bfloat16), 0.0)",
                                        [0x8000, 0x80000000, 0])])
def test_packed_sign_and_of_a_zero_product_is_the_rings_zero(tmp_path, expr, want):
    """The source's product: +0.0 in both lanes (a note); its copysign call: the native sign bits."""
    out, rep = _run(_with_source(tmp_path, expr, BODY, expr[:4]), WORDS)
    assert out == want
    assert ("and.b32", "error") not in _items(rep)


def test_packed_sign_and_without_a_source_is_reported(tmp_path):
    out, rep = _run(_with_source(tmp_path, "x0", BODY, "x0"), WORDS)
    assert out == [0x8000, 0x80000000, 0] and ("and.b32", "error") in _items(rep)


def test_held_out_zero_product_into_a_dot_is_tritons_bits():
    """Triton 3.9 pair: ``(0.0 * a.to(f16).to(int16).to(bf16))`` as a wgmma operand: bit for bit."""
    ours, theirs, errors = _compare("seed37380")
    assert (ours == theirs).all() and not errors


def test_half_sign_and_of_a_zero_product_is_the_rings_zero(tmp_path):
    """``0.0 * i.to(f16)`` with eight lanes a thread: ``and.b16 h, -32768`` of ``cvt.rn.f16.s16`` (custom kernels,
    silent before): +0.0, Triton's ring product."""
    body = "cvt.rn.f16.s16 %h1, %a;\n\t{loc}\n\tand.b16 %d, %h1, -32768;"
    out, rep = _run(_with_source(tmp_path, "0.0 * x0.to(tl.float16)", body, "0.0", w=16), [[0xFFFF], [5]], w=16)
    assert out == [0, 0] and ("and.b16", "error") not in _items(rep)


def test_zero_times_a_negated_int_conversion_is_tritons_zero():
    """``0.0 * (x.to(f16).to(int64).to(bf16) * -1.0)`` (held-out seed 81791, silent at first contact in 350/512
    elements): NVPTX's copysign(0.0, −y) tests the sign bit of ``not y``; Triton's ring product is +0.0."""
    _assert_bit_exact("seed81791", folds=())


@pytest.mark.parametrize("name", ["seed95870", "k_zero_times_int_stored_f16", "k_zero_times_int_stored_bf16",
                                  "k_zero_times_int_f64_stored_f16", "seed153803"])
def test_zero_product_stored_as_a_half_is_the_rings_zero(name):
    """``(0.0 * i.to(f32)).to(f16|bf16)``: LLVM keeps the sign of the f32's high half (``mov.b32 {_, hi}, x; and.b16 d,
    hi, 0x8000``), Triton's ring product is +0.0 (held-out seed 95870, silent at first contact in 36/128 elements); of
    an f64, ``cvt.u16.u64 (shr.u64 x, 48)`` (held-out seed 153803, a select's int conversion: 64/256)."""
    _assert_bit_exact(name, folds=())
