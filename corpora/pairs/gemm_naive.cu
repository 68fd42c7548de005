// The naive loop GEMM D = A*B + C for a 16x8 tile (same buffers and launch as gemm_mma.cu): each of
// the 32 threads computes 4 outputs with widening converts and fma. Equal to the mma.sync tile in
// the FPSan ring (Σ sext(E(a))·sext(E(b)) + E(c), sums in any order).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

template <typename T, typename F>
__device__ void naive(const T* A, const T* B, const float* C, float* D, int K, F widen) {
  for (int idx = threadIdx.x; idx < 128; idx += blockDim.x) {
    int row = idx / 8, col = idx % 8;
    float acc = C[idx];
    for (int k = 0; k < K; ++k) acc = fmaf(widen(A[row * K + k]), widen(B[k * 8 + col]), acc);
    D[idx] = acc;
  }
}

extern "C" __global__ void gemm_naive_f16(const __half* A, const __half* B, const float* C, float* D, int K) {
  naive(A, B, C, D, K, [] __device__(__half h) { return __half2float(h); });
}

extern "C" __global__ void gemm_naive_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C, float* D, int K) {
  naive(A, B, C, D, K, [] __device__(__nv_bfloat16 h) { return __bfloat162float(h); });
}

extern "C" __global__ void gemm_naive_tf32(const float* A, const float* B, const float* C, float* D, int K) {
  naive(A, B, C, D, K, [] __device__(float x) { return x; });
}

// f16 accumulation: every fma in f16 (hfma), like mma with .f16 accumulators.
extern "C" __global__ void gemm_naive_f16acc(const __half* A, const __half* B, const __half* C, __half* D, int K) {
  for (int idx = threadIdx.x; idx < 128; idx += blockDim.x) {
    int row = idx / 8, col = idx % 8;
    __half acc = C[idx];
    for (int k = 0; k < K; ++k) acc = __hfma(A[row * K + k], B[k * 8 + col], acc);
    D[idx] = acc;
  }
}
