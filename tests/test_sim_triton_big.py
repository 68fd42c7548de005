"""Larger Triton kernels of ../shared/corpora/ptx/triton (sm_80 builds: cp.async pipelines, ldmatrix,
mma.sync, shuffles, shared-memory reductions) against numpy references (see triton_gen.py there)."""

from __future__ import annotations

import numpy as np
from conftest import PTX_CORPUS, needs_shared

T = PTX_CORPUS / "triton"


def _run(name, specs, grid, block, shared):
    from ptxkit.exec_sim import load_module, parse_arg_specs, run_kernel

    m = load_module(T / name)
    return run_kernel(m, None, parse_arg_specs(specs, m.entries()[0], 0), grid, block, shared)


@needs_shared
def test_softmax_sm80(tmp_path):
    x = np.random.default_rng(0).standard_normal((3, 1000)).astype(np.float32)
    np.save(tmp_path / "x.npy", x.reshape(-1))
    r = _run("triton_softmax_sm80.ptx", [f"0=f32[3000]:{tmp_path / 'x.npy'}", "1=f32[3000]:zeros", "2=s32:1000",
                                         "3=null", "4=null"], 3, 128, 1024)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(r.buffers["1"].reshape(3, 1000), e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)


@needs_shared
def test_matmul_sm80(tmp_path):
    M = N = K = 128  # one 128x128 tile, two BLOCK_K=64 steps through the cp.async pipeline
    rng = np.random.default_rng(1)
    A = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    B = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    np.save(tmp_path / "a.npy", A.reshape(-1))
    np.save(tmp_path / "b.npy", B.reshape(-1))
    specs = [f"0=f16[{M * K}]:{tmp_path / 'a.npy'}", f"1=f16[{K * N}]:{tmp_path / 'b.npy'}", f"2=f16[{M * N}]:zeros",
             f"3=s32:{M}", f"4=s32:{N}", f"5=s32:{K}", f"6=s32:{K}", "7=s32:1", f"8=s32:{N}", "9=s32:1",
             f"10=s32:{N}", "11=s32:1", "12=null", "13=null"]
    r = _run("triton_matmul_sm80.ptx", specs, 1, 256, 3 * (128 * 64 + 64 * 128) * 2)
    want = A.astype(np.float64) @ B.astype(np.float64)
    # f16 output: half an ulp of |C| <= 16 is 2**-7
    np.testing.assert_allclose(r.buffers["2"].reshape(M, N).astype(np.float64), want, atol=2 ** -7)


@needs_shared
def test_flash_attention_sm80(tmp_path):
    n, d = 128, 128
    rng = np.random.default_rng(2)
    q, k, v = (rng.uniform(-1, 1, (n, d)).astype(np.float16) for _ in range(3))
    for name, a in (("q", q), ("k", k), ("v", v)):
        np.save(tmp_path / f"{name}.npy", a.reshape(-1))
    specs = [f"0=f16[{n * d}]:{tmp_path / 'q.npy'}", f"1=f16[{n * d}]:{tmp_path / 'k.npy'}",
             f"2=f16[{n * d}]:{tmp_path / 'v.npy'}", f"3=f16[{n * d}]:zeros", "4=f32:0.125",
             f"5=s32:{d}", f"6=s32:{d}", f"7=s32:{d}", f"8=s32:{d}", f"9=s32:{n}", "10=null", "11=null"]
    r = _run("triton_attn_fwd_sm80.ptx", specs, 1, 256, 131072)
    s = q.astype(np.float64) @ k.astype(np.float64).T * 0.125
    p = np.exp(s - s.max(1, keepdims=True))
    want = (p / p.sum(1, keepdims=True)) @ v.astype(np.float64)
    np.testing.assert_allclose(r.buffers["3"].reshape(n, d).astype(np.float64), want, atol=5e-4)
