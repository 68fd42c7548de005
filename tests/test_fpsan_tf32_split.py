"""tf32x3 dots (issue 10 I; ``ptxkit.fpsan.casts``): Triton splits each f32 operand into big =
``cvt.rna.tf32.f32`` (an inline asm) and small = x − big, and runs three dots. Its FPSan hashes the inline
asm like any pure call (docs/fpsan.md §2: Σ rotl(E(arg_i), i) XOR FNV-1a-64(symbol), the symbol being the asm
string), then the subtraction and the dots are ring ops. Expected bits here from docs/fpsan.md alone (φ
written out in tests/test_fpsan_half_to_int.py, FNV-1a-64 below); on Triton's own PTX when installed."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.corpus.triton_check import TRITON_VERSION, cache_dir, compile_ptx, run_ptx, triton_available
from ptxkit.corpus.triton_kernels import single_dot
from ptxkit.fpsan_ptx import sanitize_text
from tests.test_fpsan_folds import _items, _kernel, _run
from tests.test_fpsan_half_to_int import phi, phi_inv


def fnv1a64(s: str) -> int:
    h = 0xCBF29CE484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001B3) % (1 << 64)
    return h


ASM = "cvt.rna.tf32.f32 $0, $1;"  # Triton 3.9's inline asm (its FPSan PTX xors 0x1f768597 into the payload)
F32 = [0x3F800000, 0xBF800000, 0x40490FDB, 0xC0500000, 0x00000000, 0x80000000, 0x3DCCCCCD, 0x7F7FFFFF, 0x00000001]


def test_fnv_of_the_asm_string_is_the_constant_in_tritons_ptx():
    assert fnv1a64(ASM) & 0xFFFFFFFF == 0x1F768597 == 527861143


def test_cvt_rna_tf32_is_the_call_hash_of_tritons_asm():
    """big = φ⁻¹(φ(x) XOR FNV(asm)), and small = x − big is the ring difference (not 0, not x's low bits)."""
    text = _kernel("cvt.rna.tf32.f32 %t, %a;\n\tsub.f32 %d, %a, %t;", nin=1)
    h = fnv1a64(ASM) & 0xFFFFFFFF
    big = [phi_inv(phi(x, "f32") ^ h, "f32") for x in F32]
    small = [phi_inv((phi(x, "f32") - phi(b, "f32")) % (1 << 32), "f32") for x, b in zip(F32, big)]
    out, rep = _run(text, [[x] for x in F32])
    assert out == small
    assert not [i for i in _items(rep) if i[1] == "error"]
    out, _ = _run(_kernel("cvt.rna.tf32.f32 %d, %a;", nin=1), [[x] for x in F32])
    assert out == big


@pytest.mark.parametrize("shape,nw", [((16, 16, 16), 1), ((32, 32, 16), 4)])
def test_tf32x3_dot_is_tritons(shape, nw):
    """``tl.dot(a, b, input_precision="tf32x3")``: the split, three mma and the NaN-to-0 select between
    them, sanitized, give Triton's FPSan bits (it was 256/256 differing, reported: cvt.tf32 not modelled)."""
    if triton_available() != TRITON_VERSION:
        pytest.skip(f"Triton {TRITON_VERSION} not installed")
    spec = single_dot("f32", shape, nw, "tf32x3")
    plain, fpsan = compile_ptx(spec, ""), compile_ptx(spec, "fpsan")
    # the source hints decide the NaN guards' setp.num x, x: find kernel.py where the PTX cache keeps it
    # (Triton's own cache may hand back PTX whose .file names the directory of an earlier compile)
    res = sanitize_text(plain.ptx, "plain.ptx", source_root=str(cache_dir() / "src"))
    ours, theirs = run_ptx(spec, plain, res.text, "s.ptx"), run_ptx(spec, fpsan, fpsan.ptx, "f.ptx")
    assert np.array_equal(ours, theirs), f"{int((ours != theirs).sum())}/{ours.size} differ"
    assert not res.report.errors
