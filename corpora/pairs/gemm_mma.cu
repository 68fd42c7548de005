// One warp computes D = A*B + C for a 16x8 tile with mma.sync (PTX ISA §9.7.14.5.8, the
// m16n8k16 / m16n8k8 fragment layouts), K a multiple of the instruction's k.
// A: 16xK row-major, B: Kx8 row-major, C and D: 16x8 f32 row-major. Launch: one block of 32 threads.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __forceinline__ unsigned pack16(unsigned short lo, unsigned short hi) {
  return (unsigned)lo | ((unsigned)hi << 16);  // element with the lower index in the low half
}

template <typename T>
__device__ __forceinline__ unsigned short bits16(T v) { return *reinterpret_cast<unsigned short*>(&v); }

// f16 or bf16 A/B, m16n8k16, f32 accumulators.
template <typename T, bool BF16>
__device__ void mma_k16(const T* A, const T* B, const float* C, float* D, int K) {
  unsigned lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  float d0 = C[g * 8 + 2 * t], d1 = C[g * 8 + 2 * t + 1];
  float d2 = C[(g + 8) * 8 + 2 * t], d3 = C[(g + 8) * 8 + 2 * t + 1];
  for (int k0 = 0; k0 < K; k0 += 16) {
    const T* a = A + k0;
    unsigned a0 = pack16(bits16(a[g * K + 2 * t]), bits16(a[g * K + 2 * t + 1]));
    unsigned a1 = pack16(bits16(a[(g + 8) * K + 2 * t]), bits16(a[(g + 8) * K + 2 * t + 1]));
    unsigned a2 = pack16(bits16(a[g * K + 2 * t + 8]), bits16(a[g * K + 2 * t + 9]));
    unsigned a3 = pack16(bits16(a[(g + 8) * K + 2 * t + 8]), bits16(a[(g + 8) * K + 2 * t + 9]));
    const T* b = B + k0 * 8;
    unsigned b0 = pack16(bits16(b[(2 * t) * 8 + g]), bits16(b[(2 * t + 1) * 8 + g]));
    unsigned b1 = pack16(bits16(b[(2 * t + 8) * 8 + g]), bits16(b[(2 * t + 9) * 8 + g]));
    if (BF16)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    else
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  D[g * 8 + 2 * t] = d0; D[g * 8 + 2 * t + 1] = d1;
  D[(g + 8) * 8 + 2 * t] = d2; D[(g + 8) * 8 + 2 * t + 1] = d3;
}

extern "C" __global__ void gemm_mma_f16(const __half* A, const __half* B, const float* C, float* D, int K) {
  mma_k16<__half, false>(A, B, C, D, K);
}

extern "C" __global__ void gemm_mma_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C, float* D, int K) {
  mma_k16<__nv_bfloat16, true>(A, B, C, D, K);
}

// f16 m16n8k8 with f16 accumulators (C and D f16 here, packed two per register).
extern "C" __global__ void gemm_mma_f16_k8_f16acc(const __half* A, const __half* B, const __half* C, __half* D, int K) {
  unsigned lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  unsigned c0 = pack16(bits16(C[g * 8 + 2 * t]), bits16(C[g * 8 + 2 * t + 1]));
  unsigned c1 = pack16(bits16(C[(g + 8) * 8 + 2 * t]), bits16(C[(g + 8) * 8 + 2 * t + 1]));
  for (int k0 = 0; k0 < K; k0 += 8) {
    const __half* a = A + k0;
    unsigned a0 = pack16(bits16(a[g * K + 2 * t]), bits16(a[g * K + 2 * t + 1]));
    unsigned a1 = pack16(bits16(a[(g + 8) * K + 2 * t]), bits16(a[(g + 8) * K + 2 * t + 1]));
    const __half* b = B + k0 * 8;
    unsigned b0 = pack16(bits16(b[(2 * t) * 8 + g]), bits16(b[(2 * t + 1) * 8 + g]));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%0,%1};"
                 : "+r"(c0), "+r"(c1) : "r"(a0), "r"(a1), "r"(b0));
  }
  unsigned short* d = reinterpret_cast<unsigned short*>(D);
  d[g * 8 + 2 * t] = c0 & 0xffff; d[g * 8 + 2 * t + 1] = c0 >> 16;
  d[(g + 8) * 8 + 2 * t] = c1 & 0xffff; d[(g + 8) * 8 + 2 * t + 1] = c1 >> 16;
}

// tf32 m16n8k8 (f32 bit patterns fed as .tf32), f32 accumulators.
extern "C" __global__ void gemm_mma_tf32(const float* A, const float* B, const float* C, float* D, int K) {
  unsigned lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  float d0 = C[g * 8 + 2 * t], d1 = C[g * 8 + 2 * t + 1];
  float d2 = C[(g + 8) * 8 + 2 * t], d3 = C[(g + 8) * 8 + 2 * t + 1];
  for (int k0 = 0; k0 < K; k0 += 8) {
    const float* a = A + k0;
    unsigned a0 = __float_as_uint(a[g * K + t]), a1 = __float_as_uint(a[(g + 8) * K + t]);
    unsigned a2 = __float_as_uint(a[g * K + t + 4]), a3 = __float_as_uint(a[(g + 8) * K + t + 4]);
    const float* b = B + k0 * 8;
    unsigned b0 = __float_as_uint(b[t * 8 + g]), b1 = __float_as_uint(b[(t + 4) * 8 + g]);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  D[g * 8 + 2 * t] = d0; D[g * 8 + 2 * t + 1] = d1;
  D[(g + 8) * 8 + 2 * t] = d2; D[(g + 8) * 8 + 2 * t + 1] = d3;
}
