"""int → f16/bf16 ``cvt`` (ptxkit.fpsan.casts._int_to_half, ``--fold int-half``): Triton's ``i.to(bf16)``
is one ``sitofp`` its FPSan leaves native, but LLVM also folds ``fptrunc(sitofp i → f32)`` into the same
``cvt.rn.bf16.s64`` when float arithmetic between them cancelled after the FPSan pass (triton_gen seed 51:
``(-(h.to(i64).to(f32) * -1.0)).to(bf16)``), and there Triton's FPSan converts to f32 natively and
narrows the payload in the ring. Default: native, reported as an error; ``int-half=f32`` reproduces the
second reading. References: the docs/fpsan.md §2 narrowing written out here, and Triton's own FPSan PTX."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.corpus.triton_check import compile_ptx, run_ptx, triton_available
from ptxkit.corpus.triton_kernels import generate
from ptxkit.exec_sim.args import KernelArg
from ptxkit.exec_sim.frontend import parse_text
from ptxkit.exec_sim.launch import run_kernel
from ptxkit.fpsan import ring as R
from ptxkit.fpsan_ptx import sanitize_text

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 inp, .param .u64 out)
{
  .reg .b16 %rs<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [inp];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u64 %rd5, [%rd4];
  cvt.rn.bf16.s64 %rs1, %rd5;
  mul.wide.u32 %rd6, %r1, 2;
  add.s64 %rd7, %rd2, %rd6;
  st.global.b16 [%rd7], %rs1;
  ret;
}
"""

INTS = np.array([0, 1, -1, 2, 3, 7, -100, 257, 1000, -4097, 65504, -65504, 12345, 99, -3, 511] * 2, np.int64)


def _run(text: str) -> np.ndarray:
    m = parse_text(text, "t.ptx")
    args = [KernelArg("inp", 0, "inp", "buffer", "u64", data=INTS.view(np.uint64).copy()),
            KernelArg("out", 1, "out", "buffer", "u16", data=np.zeros(32, np.uint16))]
    return np.asarray(run_kernel(m, None, args, (1, 1, 1), (32, 1, 1)).buffers["out"])


def _narrow_32_16(v: np.ndarray) -> np.ndarray:
    """docs/fpsan.md §2: t = trunc16(v); disc = v ^ sext32(t); f = trunc16((disc·0x0db70db7 mod 2^32) >> 16);
    f ^= f >> 8; out = t ^ f."""
    out = []
    for x in v.tolist():
        t = x & 0xFFFF
        disc = x ^ ((t - 0x10000 if t & 0x8000 else t) & 0xFFFFFFFF)
        f = ((disc * 0x0DB70DB7) & 0xFFFFFFFF) >> 16
        f ^= f >> 8
        out.append(t ^ f)
    return np.array(out, np.uint64)


def _report(folds: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    res = sanitize_text(PTX, "t.ptx", folds=folds)
    return [(i.severity, i.opcode) for i in res.report.items]


def test_default_is_native_and_reported_as_an_error():
    res = sanitize_text(PTX, "t.ptx")
    assert "cvt.rn.bf16.s64 %rs1, %rd5;" in res.text
    assert ("error", "cvt.rn.bf16.s64") in _report(())
    assert _report((("int-half", "native"),)) == [("note", "cvt.rn.bf16.s64")]
    # native: the hardware's round-to-nearest of the integer (exact for these small values' bf16 neighbours)
    want = (np.asarray(INTS, np.float32).view(np.uint32) + 0x7FFF + ((np.asarray(INTS, np.float32).view(np.uint32)
                                                                       >> 16) & 1)) >> 16
    assert _run(res.text).tolist() == want.astype(np.uint16).tolist()


def test_int_half_f32_converts_to_f32_then_narrows_the_payload():
    res = sanitize_text(PTX, "t.ptx", folds=(("int-half", "f32"),))
    assert ("note", "cvt.rn.bf16.s64") in [(i.severity, i.opcode) for i in res.report.items]
    f32 = np.asarray(INTS, np.float32).view(np.uint32)  # all exact in f32
    want = R.unembed(_narrow_32_16(R.embed(f32, "f32")), "bf16")
    assert _run(res.text).tolist() == np.asarray(want, np.uint16).tolist()


@pytest.mark.skipif(triton_available() is None, reason="needs Triton")
def test_seed_51_is_exact_with_the_f32_reading():
    """Triton's FPSan PTX of seed 51 has cvt.rn.f32.s64 and the ring narrowing where the plain PTX has
    one cvt.rn.bf16.s64; with --fold int-half=f32 (and half-int=f32 for its cvt.rzi.s64.f16) our output
    gives its bits exactly; native (the default) does not."""
    spec = generate(51)
    plain, fp = compile_ptx(spec, ""), compile_ptx(spec, "fpsan")
    ref = run_ptx(spec, fp, fp.ptx, "k51.fpsan.ptx")
    got = {}
    for form in ("native", "f32"):
        res = sanitize_text(plain.ptx, "k51.plain.ptx", folds=(("int-half", form), ("half-int", "f32")))
        got[form] = run_ptx(spec, plain, res.text, "k51.sanitized.ptx")
    assert (got["f32"] == ref).all()
    assert (got["native"] != ref).any()
