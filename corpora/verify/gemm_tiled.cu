// gemm_tiled: C = A·B with 16×16 shared-memory tiles, one CTA of 256 threads (16×16), M = N = 16,
// K = 64 (4 tiles along K): the 256-thread tiled GEMM of issue 11's Done line (≤ 30 s).
// EXPECTED: verified.
// ISA argument: in each K step every thread stores one element of As and of Bs (st.shared), the first
// __syncthreads (bar.sync 0, §9.7.13.1) orders those stores before every thread's ld.shared of the row/
// column it needs, and the second __syncthreads orders those loads before the next step's stores to the
// same tile (write-after-read). Both directions of conflict are thus ordered by causality order
// through the barrier (§8), so there is no data race; each C element is written by one thread only.
#define TILE 16
extern "C" __global__ void gemm_tiled(const float* A, const float* B, float* C, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
