// gemm_tiled_nosync2: gemm_tiled (16×16 tiles, 256 threads) without the __syncthreads after the inner
// product (one bug): the next K step overwrites a tile other threads may still be reading.
// EXPECTED: race.
// ISA argument: thread (ty,k) stores As[ty][k] (st.shared) of step i+1 while thread (ty,tx) may still load
// As[ty][k] (ld.shared) of step i. The load of step i and the store of step i+1 both come after barrier
// phase i and before barrier phase i+1 in their threads' program order, so no barrier phase lies between
// them and neither precedes the other in causality order (§8, §9.7.13.1) — a write-after-read data race.
// Witness: the st.shared of As (or Bs) and an ld.shared of As (or Bs) in the unrolled inner loop.
#define TILE 16
extern "C" __global__ void gemm_tiled_nosync2(const float* A, const float* B, float* C, int N, int K) {
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
    }
    C[row * N + col] = acc;
}
