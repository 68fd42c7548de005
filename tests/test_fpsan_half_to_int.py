"""f16/bf16 → integer ``cvt`` (issue 10 E; ``ptxkit.fpsan.casts``): LLVM folds Triton's ``h.to(f32).to(int)``
(and ``h.to(f64).to(int)``) into one ``cvt.rzi.sN.f16``. Triton's FPSan widens the payload by sign
extension and converts φ⁻¹ of it; the expected bits here come from docs/fpsan.md §1 alone (φ and φ⁻¹ written
out below from its formulas and table, not ptxkit's ring module), on a hand-written kernel."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from ptxkit.corpus.triton_check import TRITON_VERSION, compile_ptx, run_ptx, triton_available
from ptxkit.corpus.triton_kernels import idiom_kernels, single_op_matrix
from ptxkit.fpsan_ptx import sanitize_text
from tests.test_fpsan_folds import _items, _kernel, _run

# docs/fpsan.md §1: (w, shift, mulA, mulBPos, mulBNeg, inv(mulBPos), inv(mulBNeg), inv(mulA))
TABLE = {"f16": (16, 10, 0x7789, 0x11B7, 0x6E49, 0x1C07, 0x63F9, 0x2EB9),
         "bf16": (16, 7, 0x7789, 0x4E47, 0x31B9, 0x7B77, 0x0489, 0x2EB9),
         "f32": (32, 23, 0x00E3F789, 0x0BEAC0C7, 0x74153F39, 0x7B8000F7, 0x047FFF09, 0x6D2BAEB9),
         "f64": (64, 52, 0xE3F789, 0x47E51BFF1AA71547, 0x381AE400E558EAB9, 0x4770000000000477,
                 0x388FFFFFFFFFFB89, 0x76FB3970ED2BAEB9)}


def phi(u: int, t: str) -> int:
    w, shift, mul_a, b_pos, b_neg, *_ = TABLE[t]
    sign, mag = 1 << (w - 1), (1 << (w - 1)) - 1
    neg = u & sign
    y = (u * mul_a) & mag
    z = y ^ (y >> shift)
    return ((z * (b_neg if neg else b_pos)) & mag) ^ (sign if neg else 0)


def phi_inv(v: int, t: str) -> int:
    w, shift, _, _, _, inv_pos, inv_neg, inv_a = TABLE[t]
    sign, mag = 1 << (w - 1), (1 << (w - 1)) - 1
    neg = v & sign
    z = (v * (inv_neg if neg else inv_pos)) & mag
    s = shift
    while s < w:
        z ^= z >> s
        s *= 2
    return ((z * inv_a) & mag) ^ (sign if neg else 0)


def triton(h: int, t: str, via: str, bits: int) -> int:
    """fptosi(φ⁻¹_via(sext φ_t(h))) as cvt.rzi.s{bits} computes it (NaN → 0, saturating)."""
    p = phi(h, t)
    wv = TABLE[via][0]
    q = (p - (1 << 16) if p & 0x8000 else p) % (1 << wv)
    u = phi_inv(q, via)
    f = struct.unpack("<f", struct.pack("<I", u))[0] if via == "f32" else struct.unpack("<d", struct.pack("<Q", u))[0]
    if math.isnan(f):
        return 0
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    r = lo if f == -math.inf else hi if f == math.inf else max(lo, min(hi, math.trunc(f)))
    return r % (1 << bits)


HALVES = [0x3C00, 0xBC00, 0x4248, 0xC500, 0x0000, 0x8000, 0x2E66, 0x7BFF, 0x0001, 0x5A40, 0xD3D3, 0x3555]


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_half_to_int_is_the_widened_conversion_and_reported(t):
    """Unstated, the source is taken as through f32 (Triton's ``h.to(tl.int32)``) and reported: the same
    PTX comes from ``h.to(f64).to(int)``, which differs (checked here on these inputs)."""
    text = _kernel(f"cvt.rzi.s32.{t} %d, %a;", w=16, out_w=32, nin=1)
    want = [triton(h, t, "f32", 32) for h in HALVES]
    assert want != [triton(h, t, "f64", 32) for h in HALVES]
    out, rep = _run(text, [[h] for h in HALVES], w=16, out_w=32)
    assert out == want
    assert _items(rep) == [(f"cvt.rzi.s32.{t}", "error")]


def test_half_to_int_stated_forms_are_notes():
    text = _kernel("cvt.rzi.s16.bf16 %d, %a;", w=16, nin=1)
    for via in ("f32", "f64"):
        out, rep = _run(text, [[h] for h in HALVES], w=16, folds=(("half-int", via),))
        assert out == [triton(h, "bf16", via, 16) for h in HALVES], via
        assert _items(rep) == [("cvt.rzi.s16.bf16", "note")]


def test_phi_reference_matches_the_documented_vectors():
    """The φ above is docs/fpsan.md's: φ(1) = 1, φ(−1) = 2^w − 1, φ(2.0) = 0x35606380 (f32)."""
    assert phi(0x3C00, "f16") == 1 and phi(0xBC00, "f16") == 0xFFFF and phi(0x3F80, "bf16") == 1
    assert phi(0x40000000, "f32") == 0x35606380 and phi_inv(0x35606380, "f32") == 0x40000000
    assert all(phi_inv(phi(u, "f16"), "f16") == u for u in range(0, 65536, 97))


@pytest.mark.parametrize("key,via", [("k_cast_f16subgti32subgtf32", "f32"), ("k_idiom_E_bf16_via_f64_to_i8", "f64")])
def test_both_source_forms_on_tritons_ptx(key, via):
    """Triton 3.9's own FPSan PTX of ``x.to(int32)`` (f16) and of ``x.to(f64).to(int8)`` (bf16, seed 57's
    idiom): the same plain PTX shape, and with the source form stated sanitize computes Triton's bits."""
    if triton_available() != TRITON_VERSION:
        pytest.skip(f"Triton {TRITON_VERSION} not installed")
    spec = {k.name: k for k in single_op_matrix() + idiom_kernels()}[key]
    plain, fpsan = compile_ptx(spec, ""), compile_ptx(spec, "fpsan")
    # its int8 result is converted to f32 directly (int-wide: no half between, which the PTX cannot show)
    res = sanitize_text(plain.ptx, "plain.ptx", folds=(("half-int", via), ("int-wide", "direct")))
    ours, theirs = run_ptx(spec, plain, res.text, "s.ptx"), run_ptx(spec, fpsan, fpsan.ptx, "f.ptx")
    assert np.array_equal(ours, theirs), f"{int((ours != theirs).sum())}/{ours.size} differ"
    # an int8 conversion of a ring value is reported whatever the form: whether LLVM keeps the 8-bit wrap of the
    # poison out-of-range fptosi in either build is its choice (held-out seeds 33573, 28003)
    assert [e.reason for e in res.report.errors if "fptosi is poison" not in e.reason] == []
    assert bool(res.report.errors) == (via == "f64")  # one per element the thread converts

