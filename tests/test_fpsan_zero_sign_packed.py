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


def test_packed_sign_and_of_a_zero_product_is_the_rings_zero(tmp_path):
    """The source's product: +0.0 in both lanes (a note)."""
    expr = "0.0 * x0.to(tl.int16).to(tl.bfloat16)"
    out, rep = _run(_with_source(tmp_path, expr, BODY, expr[:4]), WORDS)
    assert out == [0, 0, 0]
    assert ("and.b32", "error") not in _items(rep)


def test_packed_sign_and_of_a_copysign_call_is_reported(tmp_path):
    """A copysign call there (Triton 3.9 has only libdevice's, which it hashes, and none of halves): the native sign
    bits, reported as not modelled."""
    expr = "libdevice.copysign(0.0, x0.to(tl.int16).to(tl.bfloat16))"
    out, rep = _run(_with_source(tmp_path, expr, BODY, expr[:4]), WORDS)
    assert out == [0x8000, 0x80000000, 0]
    assert ("and.b32", "error") in _items(rep)


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


def test_negated_zero_product_sunk_to_the_store_is_tritons_zero():
    """``-(0.0 * i.to(f32)).to(f64)`` stored f16: NVPTX takes the sign of ``not`` of the f32's high half, and LLVM
    gives the ``and`` the store's location; the stored expression decides (−0 is 0 in Triton's ring): +0.0."""
    _assert_bit_exact("k_negated_zero_product_stored_f16", folds=())


def test_copysign_call_of_zero_is_tritons_call_hash():
    """``libdevice.copysign(0.0, i.to(f32))``: LLVM's ``and.b32 d, x, 0x80000000`` is the call, which Triton's FPSan
    hashes (silent before: left native as the sign of x)."""
    _assert_bit_exact("k_copysign_zero_of_int_f32", folds=())


def test_copysign_call_of_zero_narrowed_to_a_half_is_reported():
    """Stored f16, the sign of the f32's high half: the hash at f32 narrowed in the ring is not modelled: an error."""
    ours, theirs, errors = _compare("k_copysign_zero_of_int_stored_f16", folds=())
    assert "and.b16" in {e.opcode for e in errors} and (ours != theirs).any()
