// Warp-shuffle reduction (one block, blockDim.x a multiple of 32, <= 1024): strided partial sums,
// __shfl_down_sync butterfly within each warp, then thread 0 adds the per-warp results.
extern "C" __global__ void sum_shfl(const float* x, float* out, int n) {
  __shared__ float warp_sums[32];
  unsigned t = threadIdx.x;
  float acc = 0.0f;
  for (int i = t; i < n; i += blockDim.x) acc += x[i];
  for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  if ((t & 31) == 0) warp_sums[t >> 5] = acc;
  __syncthreads();
  if (t == 0) {
    float total = 0.0f;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) total += warp_sums[w];
    out[0] = total;
  }
}
