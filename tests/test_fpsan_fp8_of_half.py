"""``h.to(tl.float8e5 / float8e4nv)`` of a half h (``ptxkit.fpsan.casts``, issue 10). bf16: Triton lowers it through
the exact f32 widening (an inline asm ``cvt.f32.bf16``) and ``cvt.rn.satfinite.*x2.f32`` (a model kernel, silent in
455/512); f16: one ``cvt.rn.satfinite.*x2.f16x2``. Its FPSan narrows the half's payload 16 → 8 with its fold, which
is not the 32 → 8 fold of the sign-extended payload. The simulator runs the plain conversions too
(``ptxkit.exec_sim.fp8``): vectors from the formats' definitions (ISA §5.2.5.1)."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.exec_sim import fp8
from tests.test_fpsan_libdevice import _assert_bit_exact
from tests.test_sim_semantics import run


@pytest.mark.parametrize("name", ["k_bf16_to_fp8e5", "k_bf16_to_fp8e4", "k_f16_to_fp8e4"])
def test_half_to_fp8_is_the_16_to_8_narrowing(name):
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("name", ["k_bf16_to_fp8e4_four_asm_copies", "k_f16_to_fp8e5_four_pairs"])
def test_each_copy_of_the_conversion_asm_is_its_own_scope(name):
    """8 halves per thread: Triton repeats its asm per pair, each copy declaring its own ``b0``/``b1``; the widening
    that feeds each copy's ``cvt`` is found within that copy (silent in 194/256 before)."""
    _assert_bit_exact(name, folds=())


def test_e5m2_to_bf16_asm_is_the_ring_widening():
    """``x.to(float8e5).to(bfloat16)``: Triton's asm rebiases with ``mul.rn.bf16x2`` by 2^112, which is no user mul
    (``fold_fp8_via_half.e5m2_to_bf16``); Triton's FPSan sign-extends each byte's payload to 16 bits."""
    _assert_bit_exact("k_fp8e5_to_bf16_f32", folds=())


def test_f32_to_e5m2_toward_zero_is_the_32_to_8_narrowing():
    """``x.to(float8e5, fp_downcast_rounding="rtz")``: ``cvt.rz.f16.f32`` then the upper byte of each half
    (``ptxkit.fpsan.fold_fp8_via_half``); Triton's FPSan narrows 32 → 8."""
    _assert_bit_exact("k_f32_to_fp8e5_rtz", folds=())


# (value, E4M3 code, E5M2 code): ties go to the even code; beyond the largest finite value and ±inf saturate
VECTORS = [(0.0, 0x00, 0x00), (-0.0, 0x80, 0x80), (1.0, 0x38, 0x3C), (-2.5, 0xC2, 0xC1),
           (1.0625, 0x38, 0x3C),  # E4M3 tie between 1 (0x38) and 1.125 (0x39): even
           (1.1875, 0x3A, 0x3D),  # E4M3 tie between 1.125 and 1.25 (0x3A); E5M2 nearest 1.25 (0x3D)
           (448.0, 0x7E, 0x5F), (464.0, 0x7E, 0x5F), (1e6, 0x7E, 0x7B), (float("inf"), 0x7E, 0x7B),
           (float("-inf"), 0xFE, 0xFB), (2.0 ** -9, 0x01, 0x18), (2.0 ** -10, 0x00, 0x14), (3 * 2.0 ** -10, 0x02, 0x1A),
           (2.0 ** -16, 0x00, 0x01), (float("nan"), 0x7F, 0x7F)]


def test_fp8_codes_of_hand_vectors():
    x = np.array([v for v, _, _ in VECTORS])
    assert [int(c) for c in fp8.encode(x, "e4m3")] == [e for _, e, _ in VECTORS]
    assert [int(c) for c in fp8.encode(x, "e5m2")] == [e for _, _, e in VECTORS]


def test_simulator_runs_the_fp8_pair_conversions(tmp_path):
    """``cvt.rn.satfinite.e4m3x2.f32`` (a → the upper byte), ``….e5m2x2.f16x2`` (the upper half → the upper byte) and
    their widening back to f16x2, on the hand vectors."""
    x = np.array([v for v, _, _ in VECTORS] * 2, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    body = """
  .reg .b32 %r<8>;
  .reg .b16 %h<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 8;
  ld.param.u64 %rd1, [x]; add.s64 %rd1, %rd1, %rd2; ld.global.v2.f32 {%f1, %f2}, [%rd1];
  cvt.rn.satfinite.e4m3x2.f32 %h1, %f2, %f1;
  cvt.rn.f16.f32 %h2, %f1;
  cvt.rn.f16.f32 %h3, %f2;
  mov.b32 %r2, {%h2, %h3};
  cvt.rn.satfinite.e5m2x2.f16x2 %h4, %r2;
  cvt.rn.f16x2.e4m3x2 %r3, %h1;
  mov.b32 {%h5, %h6}, %r3;
  cvt.u32.u16 %r4, %h1;
  cvt.u32.u16 %r5, %h4;
  cvt.u32.u16 %r6, %h5;
  ld.param.u64 %rd3, [out];
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd3, %rd4;
  st.global.v4.u32 [%rd5], {%r4, %r5, %r6, %r3};
"""
    n = len(VECTORS)
    r = run(body, [f"x=f32[{2 * n}]:{tmp_path}/x.npy", f"out=u32[{4 * n}]:zeros"], block=n)
    out = r.buffers["out"].reshape(n, 4)
    e4 = [e for _, e, _ in VECTORS]
    with np.errstate(over="ignore"):
        halves = x.astype(np.float16)  # the f16 rounding first (1e6 → inf)
    e5 = [int(c) for c in fp8.encode(halves.astype(np.float64), "e5m2")]
    for i in range(n):
        assert out[i, 0] == e4[2 * i % n] | e4[(2 * i + 1) % n] << 8, i
        assert out[i, 1] == e5[2 * i] | e5[2 * i + 1] << 8, i
        lo = fp8.values("e4m3")[e4[2 * i % n]]
        got = np.uint16(out[i, 2]).view(np.float16)
        assert (np.isnan(lo) and np.isnan(got)) or float(got) == lo, i
