"""|x| of a ring value (ptxkit/fpsan/abs_bits.py, docs/fpsan.md §4 "abs"): Triton's FPSan build gets the sign
bit cleared by an integer ``and`` (LLVM folds ``fabs`` of the bitcast ring integer), while a GPU's float ``abs``
writes the canonical NaN for NaN bit patterns (tests/test_sim_gpu_vectors.py holds what an H200 does). The
reference here is the same kernel without the ``abs``, its bits with the sign cleared — which ring values
with NaN bit patterns among the inputs make differ from a float abs."""

from __future__ import annotations

import numpy as np

from tests.test_fpsan_folds import _items, _kernel, _run

N = 1024
_RNG = np.random.default_rng(28)


def _nan_pattern(bits: int, w: int) -> bool:
    exp, man = {32: (0x7F800000, 0x7FFFFF), 16: (0x7C00, 0x3FF)}[w]
    return (bits & exp) == exp and (bits & man) != 0


def _pairs(w_in: int) -> list[list[int]]:
    hi = 1 << w_in
    return [[int(v) for v in _RNG.integers(0, hi, 2, dtype=np.uint64)] for _ in range(N)]


def test_abs_of_a_rewritten_f32_value_is_the_sign_bit_and():
    rows = _pairs(32)
    plain, _ = _run(_kernel("add.f32 %t, %a, %b;\n\tmov.b32 %d, %t;"), rows)
    absd, rep = _run(_kernel("add.f32 %t, %a, %b;\n\tabs.f32 %d, %t;"), rows)
    assert any(_nan_pattern(v, 32) for v in plain)  # ring sums that are NaN patterns: where a float abs differs
    assert absd == [v & 0x7FFFFFFF for v in plain]
    assert not rep.errors  # an f32 |x| is Triton's and


def test_abs_of_a_ring_cast_half_is_the_and_and_reported():
    rows = [[r[0]] for r in _pairs(32)]
    cast = "cvt.rn.f16.f32 %h1, %a;\n\t{}\n\tmov.b16 %d, %h2;"
    plain, _ = _run(_kernel(cast.format("mov.b16 %h2, %h1;"), out_w=16, nin=1), rows, out_w=16)
    absd, rep = _run(_kernel(cast.format("abs.f16 %h2, %h1;"), out_w=16, nin=1), rows, out_w=16)
    assert any(_nan_pattern(v, 16) for v in plain)
    assert absd == [v & 0x7FFF for v in plain]
    # whether Triton's build has this and or a float abs.f16/abs.f16x2 is LLVM's choice: an error
    assert ("abs.f16", "error") in _items(rep)
    assert any("16-bit float" in i.reason for i in rep.items if i.opcode == "abs.f16")


def test_abs_of_a_loaded_value_stays_a_float_abs():
    """No rewrite made the value: the plain build's instruction, as Triton's build has it, with the GPU's
    canonical NaN for a NaN input."""
    from ptxkit.fpsan_ptx import sanitize_text

    text = _kernel("abs.f32 %d, %a;", nin=1)
    assert "abs.f32" in sanitize_text(text, "k.ptx").text
    out, rep = _run(text, [[0x7FC00001], [0xBF800000], [0xFF800001]])
    assert out == [0x7FFFFFFF, 0x3F800000, 0x7FFFFFFF] and not rep.errors
