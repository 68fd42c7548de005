// gemm_tiled_nosync1: gemm_tiled (16×16 tiles, 256 threads) without the __syncthreads between the tile
// stores and the inner product (one bug).
// EXPECTED: race.
// ISA argument: thread (ty,tx) reads As[ty][k] and Bs[k][tx] (ld.shared) that threads (ty,k) and (k,tx)
// stored (st.shared) in the same K step; with no bar.sync between them (§9.7.13.1) the weak store and
// the weak load of different threads are not ordered by causality order (§8) — a data race
// (read-after-write). Witness: the st.shared of As (or Bs) and an ld.shared of As (or Bs) in the unrolled
// inner loop.
#define TILE 16
extern "C" __global__ void gemm_tiled_nosync1(const float* A, const float* B, float* C, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
