"""Triton 3.9 sources of the corpora/verify kernels (compiled by build.py; the .ptx files are committed).

Each kernel's expected verdict is argued in the header of its .ptx (build.py writes it from TRITON in
build.py). Compile: ``python corpora/verify/build.py`` (needs triton==3.9.0; no GPU).
"""

import triton
import triton.language as tl


@triton.jit
def reduce_sum(x_ptr, out_ptr, N: tl.constexpr):
    """One program sums N floats: tl.sum lowers to shuffles within a warp and a shared-memory exchange
    between warps (st.shared, bar.sync, ld.shared)."""
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr, tl.sum(x, axis=0))


@triton.jit
def softmax_row(x_ptr, y_ptr, N: tl.constexpr):
    """Softmax of one row of N floats (max and sum reductions through shared memory)."""
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + offs, e / tl.sum(e, axis=0))


@triton.jit
def atomic_count(x_ptr, out_ptr, N: tl.constexpr):
    """Each program adds its N int32 values into out[0] with tl.atomic_add (atom.global.add)."""
    pid = tl.program_id(0)
    offs = pid * N + tl.arange(0, N)
    tl.atomic_add(out_ptr + tl.zeros_like(offs), tl.load(x_ptr + offs))


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C[BM, BN] = A[BM, K] @ B[K, BN] (f16 in, f32 out, row-major); on sm_80 the loop is pipelined
    with cp.async (num_stages) and the products use mma.sync."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def matmul_tma(a_desc, b_desc, c_ptr, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C[BM, BN] = A[BM, K] @ B[K, BN] through host tensor descriptors: on sm_90 TMA
    (cp.async.bulk.tensor) into a multi-stage shared ring guarded by mbarriers, wgmma on the stages."""
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([0, k])
        b = b_desc.load([k, 0])
        acc = tl.dot(a, b, acc)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
