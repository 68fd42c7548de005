"""Plain nvcc kernels (../shared/corpora/ptx/nvcc, .cu sources beside them) on the simulator, checked
against numpy references computed here: reduction (shared memory, barriers, shuffles, atomicAdd),
softmax (.func calls with .param passing, f16 conversions, expf/log1p/sin bodies), atomics."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import PTX_CORPUS, needs_shared

NVCC = PTX_CORPUS / "nvcc"


def _module(name):
    from ptxkit.exec_sim import load_module

    return load_module(NVCC / name)


def _run(mod, kernel, specs, grid, block, shared=0, seed=0):
    from ptxkit.exec_sim import parse_arg_specs, run_kernel
    from ptxkit.exec_sim.launch import select_entry

    args = parse_arg_specs(specs, select_entry(mod, kernel), seed)
    return run_kernel(mod, kernel, args, grid, block, shared)


def _reduce_reference(x, block, grid):
    """reduce_sum exactly as reduction.cu is written: the tree loop stops at s > 32 and the warp
    stage reads only sdata[0..31], so for blockDim >= 64 the partial sums in sdata[32..63] are
    dropped (a bug of the sample, reproduced here on purpose: the simulator must run what is written)."""
    total = 0.0
    xs = np.concatenate([x.astype(np.float64), np.zeros(2 * block * grid)])
    for b in range(grid):
        base = 2 * block * b
        v = xs[base:base + block] + xs[base + block:base + 2 * block]
        s = block // 2
        while s > 32:
            v[:s] += v[s:2 * s]
            s //= 2
        total += v[:32].sum()
    return total


@needs_shared
@pytest.mark.parametrize("n", [1000, 256, 33])
def test_reduction(tmp_path, n):
    x = np.random.default_rng(n).uniform(-1, 1, n).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    block = 128
    grid = (n + 2 * block - 1) // (2 * block)
    r = _run(_module("reduction_sm90.ptx"), None,
             [f"0=f32[{n}]:{tmp_path / 'x.npy'}", "1=f32[1]:zeros", f"2=s32:{n}"], grid, block, block * 4)
    assert abs(float(r.buffers["1"][0]) - _reduce_reference(x, block, grid)) < 1e-5 * n
    assert r.buffers["0"].tobytes() == x.tobytes()  # input untouched


@needs_shared
def test_softmax_rows(tmp_path):
    rows, cols = 4, 100
    x = np.random.default_rng(1).uniform(-3, 3, (rows, cols)).astype(np.float16)
    np.save(tmp_path / "x.npy", x.reshape(-1))
    r = _run(_module("softmax_sm90.ptx"), "_Z12softmax_rowsPK6__halfPS_i",
             [f"0=f16[{rows * cols}]:{tmp_path / 'x.npy'}", f"1=f16[{rows * cols}]:zeros", f"2=s32:{cols}"],
             rows, 32)
    xf = x.astype(np.float64)
    want = np.exp(xf - xf.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(r.buffers["1"].astype(np.float64).reshape(rows, cols), want, rtol=2e-3, atol=1e-4)


@needs_shared
def test_softmax_double(tmp_path):
    # includes arguments past the fast sin() range: the slow path is a .func call with .local arrays
    x = np.concatenate([np.random.default_rng(2).uniform(-0.5, 3.0, 60), [1e6, -2.5e7, 12345.678, 0.0]])
    n = len(x)
    np.save(tmp_path / "x.npy", x)
    r = _run(_module("softmax_sm90.ptx"), "_Z14softmax_doublePKdPdi",
             [f"0=f64[{n}]:{tmp_path / 'x.npy'}", f"1=f64[{n}]:zeros", f"2=s32:{n}"], 2, 32)
    with np.errstate(all="ignore"):  # exp(1e6), exp(12345.678) = inf; log1p(-2.5e7) = NaN: the kernel must agree
        want = np.exp(x) / (1.0 + np.log1p(x) + np.sin(x))
    assert np.isinf(want).sum() == 2 and np.isnan(want).sum() == 1
    np.testing.assert_allclose(r.buffers["1"], want, rtol=1e-12)


@needs_shared
def test_atomics_histogram(tmp_path):
    n, grid, block = 700, 3, 64
    data = np.random.default_rng(3).integers(0, 256, n).astype(np.uint8)
    np.save(tmp_path / "d.npy", data)
    r = _run(_module("atomics_sm90.ptx"), None,
             [f"0=u8[{n}]:{tmp_path / 'd.npy'}", "1=u32[256]:zeros", f"2=s32:{n}", "3=f32[1]:zeros",
              "4=u32[1]:zeros", "5=f64[1]:zeros"], grid, block)
    threads = grid * block
    coeffs = np.arange(1, 17, dtype=np.float64)
    assert float(r.buffers["3"][0]) == pytest.approx(sum(coeffs[t % 16] for t in range(block)) * grid)
    h2 = r.buffers["4"].view(np.float16)
    assert h2.tolist() == [float(threads), float(2 * threads)]
    assert float(r.buffers["5"][0]) == float(threads)
    counts = np.bincount(data, minlength=256)
    hist = r.buffers["1"].astype(np.int64)
    # atomics.cu: block b's grid-stride loop counts the elements i with (i // block) % grid == b into
    # local_b, then for every bin i: atomicAdd(hist[i], local_b[i]); atomicMax(hist[i], local_b[i]) is a
    # no-op (hist[i] >= local_b[i] after the add); atomicCAS(hist[i+1], 0, local_b[i]) stores local_b[i]
    # only while hist[i+1] is still 0, i.e. at most once with a nonzero value. So hist[j] - counts[j] is 0
    # or local_b[j-1] for some block b, whatever the schedule.
    owner = (np.arange(n) // block) % grid
    local = np.stack([np.bincount(data[owner == b], minlength=256) for b in range(grid)])
    assert local.sum() == n
    extra = hist - counts
    for j in range(256):
        allowed = {0} | {int(local[b, (j - 1) & 255]) for b in range(grid)}
        assert int(extra[j]) in allowed, (j, int(extra[j]), allowed)
    printed = [int(line.split("counter=")[1]) for line in r.stdout if "counter=" in line]
    assert len(printed) == 1 and 1 <= printed[0] <= threads  # thread (0,0) after its own atomicAdd


@needs_shared
def test_mma_inline_ldmatrix_cp_async(tmp_path):
    """mma_inline of mma_gemm.cu: cp.async + ldmatrix(.trans) + mma.sync m16n8k16. Lanes 16-31 give the
    same row addresses as lanes 0-15, so matrices 2 and 3 of the x4 ldmatrix repeat columns 0-7 of A:
    the effective A is [A[:, :8] | A[:, :8]]. D's fragment layout (ISA mma.m16n8 C/D figure): lane l
    holds D[l/4][2(l%4)+j] in d_j and D[l/4+8][2(l%4)+j] in d_{2+j}."""
    rng = np.random.default_rng(5)
    A = rng.uniform(-2, 2, (16, 16)).astype(np.float16)
    B = rng.uniform(-2, 2, (16, 8)).astype(np.float16)
    np.save(tmp_path / "a.npy", A.reshape(-1))
    np.save(tmp_path / "b.npy", B.reshape(-1))
    r = _run(_module("mma_gemm_sm90.ptx"), "_Z10mma_inlinePK6__halfS1_Pf",
             [f"0=f16[256]:{tmp_path / 'a.npy'}", f"1=f16[128]:{tmp_path / 'b.npy'}", "2=f32[128]:zeros"], 1, 32)
    a_eff = np.concatenate([A[:, :8], A[:, :8]], axis=1).astype(np.float64)
    D = a_eff @ B.astype(np.float64)
    want = np.zeros((32, 4))
    for lane in range(32):
        g, q = lane // 4, lane % 4
        want[lane] = [D[g, 2 * q], D[g, 2 * q + 1], D[g + 8, 2 * q], D[g + 8, 2 * q + 1]]
    np.testing.assert_allclose(r.buffers["2"].reshape(32, 4), want, rtol=1e-5, atol=1e-5)


@needs_shared
def test_wmma_gemm(tmp_path):
    M = N = K = 32
    rng = np.random.default_rng(6)
    A = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    Bt = rng.uniform(-1, 1, (N, K)).astype(np.float16)  # B col-major = B^T row-major (B + bc*K + k)
    np.save(tmp_path / "a.npy", A.reshape(-1))
    np.save(tmp_path / "b.npy", Bt.reshape(-1))
    r = _run(_module("mma_gemm_sm90.ptx"), "_Z9wmma_gemmPK6__halfS1_Pfiii",
             [f"0=f16[{M * K}]:{tmp_path / 'a.npy'}", f"1=f16[{N * K}]:{tmp_path / 'b.npy'}",
              f"2=f32[{M * N}]:zeros", f"3=s32:{M}", f"4=s32:{N}", f"5=s32:{K}"], (1, 2), (64, 1))
    want = A.astype(np.float64) @ Bt.astype(np.float64).T
    np.testing.assert_allclose(r.buffers["2"].reshape(M, N), want, rtol=1e-5, atol=1e-5)
