"""Triton 3.9 matmul with device-side tensor descriptors (tl.make_tensor_descriptor: tensormap.replace
in shared memory, tensormap.cp_fenceproxy to the global scratch, then TMA + mbarrier + wgmma), one CTA of
128 threads, a 64 x 64 tile, K = 128. device_desc_matmul.ptx is its sm_90 PTX, compiled by
compile() below (no GPU needed): params a_ptr, b_ptr (f16, row-major 64 x 128 and 128 x 64), c_ptr
(f32 64 x 64), the global scratch (256 bytes: two tensor maps) and the profile scratch (null);
--block 128 --shared 49176."""

import triton
import triton.language as tl


@triton.jit
def dev_matmul(a_ptr, b_ptr, c_ptr, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[BM, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, BN], strides=[BN, 1], block_shape=[BK, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([0, k])
        b = b_desc.load([k, 0])
        acc = tl.dot(a, b, acc)
    offs_m = tl.arange(0, BM)[:, None]
    offs_n = tl.arange(0, BN)[None, :]
    tl.store(c_ptr + offs_m * BN + offs_n, acc)


def compile() -> str:
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"}
    k = triton.compile(ASTSource(dev_matmul, sig, {"K": 128, "BM": 64, "BN": 64, "BK": 64}),
                       target=GPUTarget("cuda", 90, 32), options={"num_warps": 4, "num_stages": 3})
    assert k.metadata.shared == 49176 and k.metadata.global_scratch_size == 256
    return k.asm["ptx"]


if __name__ == "__main__":
    from pathlib import Path

    Path(__file__).with_suffix(".ptx").write_text(compile())
