"""The sanitizer's wgmma.mma_async expansion (ptxkit/fpsan/wgmma.py) on the simulator against a numpy ring
dot (docs/fpsan.md §2: D = Σ_k sext(φA)·sext(φB) + φC mod 2^32), for every swizzle mode, K-major and
MN-major operands, A in registers or shared memory, f16/bf16/tf32, scale-d an immediate or a predicate.

The shared-memory images are laid out here from the ISA's canonical layouts (§9.7.15.5.1.2, restated:
K-major — 8-row groups SBO apart, rows W bytes apart, k contiguous, the k-chunks of 16 bytes LBO apart
without swizzle; MN-major — W bytes of MN per row, the 8 k of a group W apart, k-groups SBO apart, MN
blocks of W/eb elements LBO apart; swizzle: address bits 4.. XOR bits 7..). Triton's own layouts are
checked independently by test_triton_gen (64×64×{32,64} f16, bf16, tf32 dots equal Triton's FPSan)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pytest
from conftest import PTX_CORPUS, needs_shared

from ptxkit.bench.tensorcore import prep, ptxas_seconds
from ptxkit.exec_sim import parse_text, run_kernel
from ptxkit.exec_sim.args import KernelArg
from ptxkit.fpsan import ring, wgmma
from ptxkit.fpsan_ptx import sanitize_text

N = 24  # three n8 tiles: one ldmatrix.x4 and one .x2 for B
THREADS = 128
B_BASE = 8192  # B's image starts here (1024-aligned like A's at 0)
SMEM = 16384


def _offsets(rows: int, k: int, mode: int, mn_major: bool, eb: int) -> tuple[np.ndarray, int, int]:
    """[row, k] byte offsets of an operand and its (LBO, SBO)."""
    w = {0: 16, 1: 128, 2: 64, 3: 32}[mode]
    mn, kk = np.arange(rows)[:, None], np.arange(k)[None, :]
    if mn_major:
        e = w // eb
        sbo = 8 * w
        lbo = sbo * ((k + 7) // 8)
        off = (mn // e) * lbo + (kk // 8) * sbo + (kk % 8) * w + (mn % e) * eb
    elif mode == 0:
        per = 16 // eb
        lbo, sbo = 128, 128 * ((k * eb + 15) // 16)
        off = (mn // 8) * sbo + (kk // per) * lbo + (mn % 8) * 16 + (kk % per) * eb
    else:
        lbo, sbo = 16, 8 * w
        off = (mn // 8) * sbo + (mn % 8) * w + kk * eb
    return off ^ (((off >> 7) & (w // 16 - 1)) << 4), lbo, sbo


def _desc(mode: int, lbo: int, sbo: int, start: int) -> int:
    return (start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | mode << 62


# an extern function forbids non-ABI helper functions: the helpers take .param arguments (mma_calls)
EXTERN = ".extern .func (.param .b32 r) vprintf (.param .b64 f, .param .b64 a);\n"


def _kernel(atype: str, a_regs: bool, trans_a: int, trans_b: int, scale_d: str, extern: bool = False) -> str:
    fp8 = atype.startswith("e")
    k = 8 if atype == "tf32" else 32 if fp8 else 16
    nd = N // 2
    imms = "1, 1" + ("" if atype == "tf32" or fp8 else (f", {trans_b}" if a_regs else f", {trans_a}, {trans_b}"))
    a_op = "{%a0, %a1, %a2, %a3}" if a_regs else "%rd4"
    d = ", ".join(f"%d{j}" for j in range(nd))
    loads = "".join(f"\tld.global.f32 %d{j}, [%rd7+{4 * j}];\n" for j in range(nd))
    stores = "".join(f"\tst.global.f32 [%rd9+{4 * j}], %d{j};\n" for j in range(nd))
    aload = "".join(f"\tld.global.u32 %a{i}, [%rd11+{4 * i}];\n" for i in range(4))
    return f""".version 8.0
.target sm_90a
.address_size 64
{EXTERN if extern else ""}.visible .entry k(.param .u64 img, .param .u64 cin, .param .u64 areg, .param .u64 out,
                  .param .u64 descs, .param .u32 keep)
{{
\t.reg .b32 %r<16>;
\t.reg .b32 %a<4>;
\t.reg .f32 %d<{nd}>;
\t.reg .b64 %rd<16>;
\t.reg .pred %p<4>;
\t.shared .align 1024 .b8 smem[{SMEM}];
\tmov.u32 %r0, %tid.x;
\tld.param.u64 %rd0, [img];
\tmov.u32 %r1, 0;
$copy:
\tmad.lo.u32 %r2, %r1, {THREADS}, %r0;
\tmul.wide.u32 %rd1, %r2, 4;
\tadd.s64 %rd2, %rd0, %rd1;
\tld.global.u32 %r3, [%rd2];
\tmov.u32 %r4, smem;
\tshl.b32 %r5, %r2, 2;
\tadd.u32 %r4, %r4, %r5;
\tst.shared.u32 [%r4], %r3;
\tadd.u32 %r1, %r1, 1;
\tsetp.lt.u32 %p0, %r1, {SMEM // 4 // THREADS};
\t@%p0 bra $copy;
\tbar.sync 0;
\tld.param.u64 %rd3, [descs];
\tld.global.u64 %rd4, [%rd3];
\tld.global.u64 %rd5, [%rd3+8];
\tmov.u32 %r6, smem;
\tshr.u32 %r6, %r6, 4;
\tcvt.u64.u32 %rd6, %r6;
\tadd.s64 %rd4, %rd4, %rd6;
\tadd.s64 %rd5, %rd5, %rd6;
\tld.param.u64 %rd7, [cin];
\tmul.wide.u32 %rd8, %r0, {4 * nd};
\tadd.s64 %rd7, %rd7, %rd8;
{loads}\tld.param.u64 %rd11, [areg];
\tmul.wide.u32 %rd12, %r0, 16;
\tadd.s64 %rd11, %rd11, %rd12;
{aload}\tld.param.u32 %r7, [keep];
\tsetp.ne.u32 %p1, %r7, 0;
\twgmma.fence.sync.aligned;
\twgmma.mma_async.sync.aligned.m64n{N}k{k}.f32.{atype}.{atype} {{{d}}}, {a_op}, %rd5, {scale_d}, {imms};
\twgmma.commit_group.sync.aligned;
\twgmma.wait_group.sync.aligned 0;
\tld.param.u64 %rd9, [out];
\tadd.s64 %rd9, %rd9, %rd8;
{stores}\tret;
}}
"""


def _ring_dot(A: np.ndarray, B: np.ndarray, C: np.ndarray, atype: str, keep: bool) -> np.ndarray:
    """A [64, k], B [N, k] (B^T), C [64, N] bit patterns → unembedded f32 bits of the ring dot."""
    et, w = ("f32", 32) if atype == "tf32" else (atype, 8) if atype.startswith("e") else (atype, 16)
    ea = ring.sext(ring.embed(A, et), w, 32).astype(np.uint64)
    eb = ring.sext(ring.embed(B, et), w, 32).astype(np.uint64)
    acc = ring.embed(C, "f32").astype(np.uint64) if keep else np.zeros(C.shape, np.uint64)
    for kk in range(A.shape[1]):
        acc = (acc + np.outer(ea[:, kk], eb[:, kk])) & np.uint64(0xFFFFFFFF)
    return ring.unembed(acc.astype(np.uint32), "f32").astype(np.uint32)


CASES = [("f16", mode, ta, tb, areg) for mode in (0, 1, 2, 3) for ta in (0, 1) for tb in (0, 1)
         for areg in (False, True) if not (mode == 0 and (ta or tb)) and not (areg and ta)]
CASES += [("bf16", 2, 1, 0, False), ("bf16", 3, 0, 1, True)]
CASES += [("tf32", mode, 0, 0, mode % 2 == 1) for mode in (0, 1, 2, 3)]
CASES += [("e5m2", mode, 0, 0, False) for mode in (0, 1, 2, 3)] + [("e4m3", 1, 0, 0, False)]
CASES = [(*c, False) for c in CASES] + [("f16", 1, 0, 1, False, True), ("bf16", 2, 1, 0, False, True),
                                          ("f16", 3, 0, 1, True, True), ("tf32", 2, 0, 0, False, True)]


def _inputs(atype, mode, trans_a, trans_b, a_regs):
    """Random A, B, C, the shared-memory image, descriptors and per-thread C/A registers of one case."""
    k, eb = (8, 4) if atype == "tf32" else (32, 1) if atype.startswith("e") else (16, 2)
    rng = np.random.default_rng(mode * 8 + trans_a * 4 + trans_b * 2 + a_regs + len(atype))
    bits = 8 * eb
    A = rng.integers(0, 1 << bits, size=(64, k), dtype=np.uint64)
    B = rng.integers(0, 1 << bits, size=(N, k), dtype=np.uint64)
    C = rng.integers(0, 1 << 32, size=(64, N), dtype=np.uint64)
    img = np.zeros(SMEM, np.uint8)
    a_off, a_lbo, a_sbo = _offsets(64, k, mode, bool(trans_a), eb)
    b_off, b_lbo, b_sbo = _offsets(N, k, mode, bool(trans_b), eb)
    for off, mat, base in ((a_off, A, 0), (b_off, B, B_BASE)):
        for (r, c), o in np.ndenumerate(off):
            img[base + o:base + o + eb] = np.frombuffer(int(mat[r, c]).to_bytes(eb, "little"), np.uint8)
    descs = np.array([_desc(mode, a_lbo, a_sbo, 0), _desc(mode, b_lbo, b_sbo, B_BASE)], np.uint64)
    # per thread: C/D register 4j+i of lane (g, t) in warp w is (16w + g + 8(i>>1), 8j + 2t + (i&1));
    # A registers in the m16n8kK A layout of the warp's 16 rows
    cin = np.zeros((THREADS, N // 2), np.uint32)
    areg = np.zeros((THREADS, 4), np.uint32)
    for tid in range(THREADS):
        w, g, t = tid // 32, (tid % 32) >> 2, tid & 3
        for r in range(N // 2):
            j, i = divmod(r, 4)
            cin[tid, r] = C[16 * w + g + 8 * (i >> 1), 8 * j + 2 * t + (i & 1)]
        for i in range(4):
            row = 16 * w + g + 8 * (i & 1)
            if atype == "tf32":  # a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
                areg[tid, i] = A[row, t + 4 * (i >> 1)]
            else:  # register i: (row, 2t + 8(i>>1)) and the next k in the high half
                col = 2 * t + 8 * (i >> 1)
                areg[tid, i] = int(A[row, col]) | int(A[row, col + 1]) << 16
    return A, B, C, img, descs, cin, areg


def _run(ptx, img, cin, areg, descs, keep):
    """Sanitize ``ptx``, run it on the simulator; the output as (64, N) by D element, and the text."""
    res = sanitize_text(ptx, "wgmma.ptx")
    assert res.report.errors == [] and "\twgmma.mma_async" not in res.text
    m = parse_text(res.text, "wgmma_sanitized.ptx")
    names = [p.name for p in m.entries()[0].params]
    data = [img.view(np.uint32), cin.reshape(-1), areg.reshape(-1), np.zeros(THREADS * N // 2, np.uint32), descs]
    args = [KernelArg(n, i, n, "buffer", "u32" if i < 4 else "u64", data=d.copy())
            for i, (n, d) in enumerate(zip(names, data))]
    args.append(KernelArg(names[5], 5, names[5], "scalar", "u32", value=int(keep)))
    out = run_kernel(m, None, args, 1, THREADS, SMEM).buffers[names[3]].view(np.uint32).reshape(THREADS, -1)
    got = np.zeros((64, N), np.uint32)
    for tid in range(THREADS):
        w, g, t = tid // 32, (tid % 32) >> 2, tid & 3
        for r in range(N // 2):
            j, i = divmod(r, 4)
            got[16 * w + g + 8 * (i >> 1), 8 * j + 2 * t + (i & 1)] = out[tid, r]
    return got, res.text


@pytest.mark.parametrize("atype,mode,trans_a,trans_b,a_regs,extern", CASES)
def test_wgmma_expansion_is_the_ring_dot(atype, mode, trans_a, trans_b, a_regs, extern):
    """Helper-function calls with .reg parameters (the default) and, in a module with an extern function,
    with ABI .param arguments."""
    A, B, C, img, descs, cin, areg = _inputs(atype, mode, trans_a, trans_b, a_regs)
    variants = (("%p1", True), ("%p1", False), ("0", False)) if mode == 1 and not trans_a else (("%p1", True),)
    for scale_d, keep in variants:
        ptx = _kernel(atype, a_regs, trans_a, trans_b, scale_d, extern)
        got, text = _run(ptx, img, cin, areg, descs, keep)
        assert "call.uni" in text and ("fps_rv" in text) == extern  # ABI helpers with an extern
        want = _ring_dot(A, B, C, atype, keep)
        assert np.array_equal(got, want), (scale_d, keep, int(np.sum(got != want)))


@pytest.mark.parametrize("atype,a_regs,extern", [("f16", False, False), ("bf16", True, False), ("tf32", True, False),
                                                 ("f16", False, True)])
def test_sanitized_wgmma_kernel_is_accepted_by_ptxas(atype, a_regs, extern, tmp_path):
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas not on PATH")
    res = sanitize_text(_kernel(atype, a_regs, 0, 1 if atype != "tf32" else 0, "%p1", extern), "wgmma.ptx")
    f = tmp_path / "k.ptx"
    f.write_text(res.text)
    r = subprocess.run(["ptxas", "-arch=sm_90a", str(f), "-o", str(tmp_path / "k.cubin")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr[:2000]


@pytest.mark.parametrize("atype,mode,trans_a,trans_b,a_regs,extern",
                         [("f16", 1, 0, 1, False, False), ("tf32", 1, 0, 0, True, False),
                          ("e5m2", 2, 0, 0, False, False), ("bf16", 2, 1, 0, False, True)])
def test_one_call_per_wgmma_is_the_ring_dot(atype, mode, trans_a, trans_b, a_regs, extern, monkeypatch):
    """Functions with many wgmma get one helper call per wgmma (all its n8 tile pairs, the last one odd):
    the same ring dot, and its D payloads as shadows."""
    monkeypatch.setattr(wgmma, "WHOLE_CALL_PAIRS", 1)
    A, B, C, img, descs, cin, areg = _inputs(atype, mode, trans_a, trans_b, a_regs)
    got, text = _run(_kernel(atype, a_regs, trans_a, trans_b, "%p1", extern), img, cin, areg, descs, True)
    assert np.array_equal(got, _ring_dot(A, B, C, atype, True))
    assert text.count("call.uni") == 2  # A's payloads (from shared memory or registers), one call for both pairs


@pytest.mark.parametrize("extern", [False, True])
def test_ring_reads_of_wgmma_results_use_the_returned_payloads(extern):
    """The wgmma helpers also return D's payloads, registered as shadows: a ring add reading D after the
    wait needs no φ, and its values equal those of the same kernel where a join point (a jump target)
    drops the shadows and D is re-embedded from its float bits (regression: every read re-embedded)."""
    _, _, _, img, descs, cin, areg = _inputs("f16", 1, 0, 1, False)
    adds = "".join(f"\tadd.f32 %d{j}, %d{j}, %d{(j + 1) % (N // 2)};\n" for j in range(N // 2 - 1))
    store = "\tld.param.u64 %rd9, [out];"
    base = _kernel("f16", False, 0, 1, "%p1", extern)
    shadowed = base.replace(store, adds + store)
    rejoined = base.replace(store, "\tbra.uni $join;\n$join:\n" + adds + store)
    got, text = _run(shadowed, img, cin, areg, descs, True)
    want, text2 = _run(rejoined, img, cin, areg, descs, True)
    plain, _ = _run(base, img, cin, areg, descs, True)
    assert np.array_equal(got, want) and not np.array_equal(got, plain)
    assert len(text.splitlines()) + 5 * (N // 2 - 1) < len(text2.splitlines())  # φ: ~8 lines a read


@pytest.mark.parametrize("atype,mode,trans_a,trans_b,a_regs,extern,whole",
                         [("f16", 1, 0, 1, False, False, False), ("tf32", 1, 0, 0, True, False, True),
                          ("e5m2", 2, 0, 0, False, False, False), ("bf16", 2, 1, 0, False, True, True)])
def test_resident_accumulators_take_and_return_payloads(atype, mode, trans_a, trans_b, a_regs, extern, whole,
                                                        monkeypatch):
    """D written only by ring ops and wgmma and read only by them (ptxkit.fpsan.resident): the helper
    takes and returns payloads (no φ of C, no φ⁻¹ of D). Two wgmma accumulate in place between ring
    multiplications by 1.0 (the identity, φ(1) = 1): φC + 2·AB where scale-d keeps C, else AB."""
    if whole:
        monkeypatch.setattr(wgmma, "WHOLE_CALL_PAIRS", 1)
    # five n8 tiles: two full pairs run in the helper's loop over a .local copy of D, the fifth after it
    monkeypatch.setattr(sys.modules[__name__], "N", 40)
    nd = N // 2
    A, B, C, img, descs, cin, areg = _inputs(atype, mode, trans_a, trans_b, a_regs)
    ptx = _kernel(atype, a_regs, trans_a, trans_b, "%p1", extern)
    loads = "".join(f"\tld.global.f32 %d{j}, [%rd7+{4 * j}];\n" for j in range(nd))
    into_c = "".join(f"\tld.global.f32 %c{j}, [%rd7+{4 * j}];\n\tmul.f32 %d{j}, %c{j}, 0f3F800000;\n"
                     for j in range(nd))
    mma = next(ln for ln in ptx.splitlines() if "wgmma.mma_async" in ln) + "\n"
    stores = "".join(f"\tst.global.f32 [%rd9+{4 * j}], %d{j};\n" for j in range(nd))
    outs = "".join(f"\tmul.f32 %e{j}, %d{j}, 0f3F800000;\n\tst.global.f32 [%rd9+{4 * j}], %e{j};\n"
                   for j in range(nd))
    ptx = (ptx.replace(loads, into_c).replace(mma, mma + mma).replace(stores, outs)
           .replace("\t.reg .f32 %d", f"\t.reg .f32 %c<{nd}>;\n\t.reg .f32 %e<{nd}>;\n\t.reg .f32 %d"))
    for keep in (True, False):
        got, text = _run(ptx, img, cin, areg, descs, keep)
        once = _ring_dot(A, B, C, atype, keep)
        assert np.array_equal(got, _ring_dot(A, B, once, atype, keep)), keep
    helper_outs = [ln.count(".reg .b32 %o") for ln in text.splitlines() if ln.startswith(".func") and "wgmma" in ln
                   and "wgmma_a" not in ln]
    assert helper_outs and all(n <= nd for n in helper_outs)  # payloads only, not bits and payloads
    assert text.count('.pragma "nounroll"') == 1 and "ld.local.v4.b32" in text
    if shutil.which("ptxas"):
        ok, why = ptxas_seconds(*prep(text))
        assert ok is not None, why


@pytest.mark.parametrize("imms,why,acc", [("-1, 1, 0, 0", "imm-scale", "f32"), ("1, 1", "operands", "f32"),
                                          ("1, 1, 0, 0", "accumulators", "f16")])
def test_unmodelled_wgmma_is_reported(imms, why, acc):
    ptx = _kernel("f16", False, 0, 0, "%p1").replace("%p1, 1, 1, 0, 0;", f"%p1, {imms};")
    ptx = ptx.replace("k16.f32.f16.f16", f"k16.{acc}.f16.f16")
    res = sanitize_text(ptx, "wgmma.ptx")
    assert len(res.report.errors) == 1 and why in str(res.report.errors[0])


@needs_shared
def test_tensormap_module_gets_abi_helpers_that_ptxas_accepts(tmp_path):
    """Triton's sm_120a TMA matmul (64 mma.sync f16, tensormap.replace): with non-ABI helper functions
    ptxas failed ("'Indirect Functions or Extern Functions' requires ABI"); the helpers are ABI there."""
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas not on PATH")
    src = PTX_CORPUS / "pyptx" / "tests" / "corpus" / "external" / "triton" / "matmul_tma_sm120a.ptx"
    text, arch = prep(src.read_text())
    res = sanitize_text(text, src.name)
    assert res.report.errors == [] and "call.uni (fps_rv)" in res.text and ".s32.u8.u8.s32" in res.text
    secs, why = ptxas_seconds(res.text, arch)
    assert secs is not None, why
