"""Bits moved through integer data movement (``ptxkit.fpsan.bit_fields``): which register's bits a copy holds, and
the moves that compute (so that no copy is claimed)."""

from __future__ import annotations

import pytest

from ptxkit.fpsan.bit_fields import bit_copies, field_source
from ptxkit.fpsan.libdevice_flow import Flow
from ptxkit.ptx.parser import parse


def _flow(body: str) -> Flow:
    text = f""".version 8.7
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{{
    .reg .pred %p<4>;
    .reg .b16 %rs<16>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd0, [p];
    ld.global.b16 %rs1, [%rd0];
    ld.global.b16 %rs2, [%rd0+2];
    ld.global.b16 %rs3, [%rd0+4];
    ld.global.b16 %rs4, [%rd0+6];
{body}
    ret;
}}
"""
    (fn,) = parse(text, "k.ptx").functions()
    return Flow(fn)


# the packing of a bf16 scan's halves into one 64-bit word and back out (Triton 3.9's cumsum, held-out seed 99907)
_PACKED = """
    mov.b32 %r1, {%rs1, %rs2};
    mov.b32 %r2, {%rs3, %rs4};
    cvt.u64.u32 %rd1, %r1;
    cvt.u64.u32 %rd2, %r2;
    shl.b64 %rd3, %rd2, 32;
    or.b64 %rd4, %rd1, %rd3;
    shr.u64 %rd5, %rd4, 16;
    cvt.u16.u64 %rs5, %rd5;
    bfe.u64 %rd6, %rd2, 16, 16;
    cvt.u16.u64 %rs6, %rd6;
    shr.u64 %rd7, %rd4, 32;
    cvt.u16.u64 %rs7, %rd7;
    mov.b64 {%r3, %r4}, %rd4;
    mov.b32 {%rs8, %rs9}, %r4;
"""


def test_halves_moved_through_a_word_are_copies_of_the_originals():
    f = _flow(_PACKED)
    copies = bit_copies(f.writers)
    assert copies["%rs5"] == "%rs2"    # bits 16..31 of (r1 | r2 << 32)
    assert copies["%rs6"] == "%rs4"    # bfe of r2's high half
    assert copies["%rs7"] == "%rs3"    # bits 32..47
    assert field_source(f.writers, "%rs9", 0, 16) == ("%rs4", 0)  # unpacked from the word's high 32 bits
    assert f.bit_twins({"%rs2"}) == {"%rs5"}
    assert f.bit_twins({"%rs5"}) == {"%rs5", "%rs2"}


@pytest.mark.parametrize("step, why", [
    ("shl.b64 %rd3, %rd2, 32;\n    or.b64 %rd4, %rd1, %rd2;", "both sides have bits 16..31: the or computes them"),
    ("shl.b64 %rd3, %rd2, 32;\n    add.s64 %rd4, %rd1, %rd3;", "an add computes (its zero side is not looked through)"),
    ("shl.b64 %rd3, %rd2, 8;\n    or.b64 %rd4, %rd1, %rd3;", "r2 shifted by 8 overlaps r1's high half"),
    ("shl.b64 %rd3, %rd2, 32;\n    or.b64 %rd4, %rd3, 65536;", "the constant's bit 16 is set"),
])
def test_computed_words_hold_no_copy(step, why):
    body = _PACKED.replace("    shl.b64 %rd3, %rd2, 32;\n    or.b64 %rd4, %rd1, %rd3;\n", f"    {step}\n")
    f = _flow(body)
    assert "%rs5" not in bit_copies(f.writers), why


def test_a_constant_or_with_zeros_in_the_field_passes_the_bits():
    f = _flow(_PACKED.replace("    or.b64 %rd4, %rd1, %rd3;\n", "    or.b64 %rd4, %rd1, 4294967296;\n"))
    assert bit_copies(f.writers)["%rs5"] == "%rs2"


def test_a_guarded_or_twice_written_move_is_no_copy():
    twice = "    shr.u64 %rd5, %rd4, 16;\n    add.s64 %rd5, %rd5, 1;\n"
    f = _flow(_PACKED.replace("    shr.u64 %rd5, %rd4, 16;\n", twice))
    assert "%rs5" not in bit_copies(f.writers)
    f = _flow(_PACKED.replace("    or.b64 %rd4, %rd1, %rd3;\n", "    @%p1 or.b64 %rd4, %rd1, %rd3;\n"))
    assert "%rs5" not in bit_copies(f.writers)


def test_a_saturating_or_float_conversion_is_no_copy():
    f = _flow(_PACKED.replace("cvt.u16.u64 %rs5, %rd5;", "cvt.sat.u16.u64 %rs5, %rd5;"))
    assert "%rs5" not in bit_copies(f.writers)
    f = _flow("    cvt.rn.f16.f32 %rs5, %r1;\n    mov.b32 %r1, {%rs1, %rs2};\n")
    assert "%rs5" not in bit_copies(f.writers)


def test_an_original_written_again_after_the_copy_has_no_twin():
    """``%rs2`` written again after ``%rs5`` copied it: the two hold different values from then on."""
    f = _flow(_PACKED + "    mov.b16 %rs2, %rs1;\n")
    assert "%rs5" not in bit_copies(f.writers) and f.bit_twins({"%rs2"}) == set()
