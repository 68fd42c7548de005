// Shared-memory tree reduction in double precision (one block, blockDim.x a power of two <= 256).
extern "C" __global__ void sum_tree_f64(const double* x, double* out, int n) {
  __shared__ double s[256];
  unsigned t = threadIdx.x;
  double acc = 0.0;
  for (int i = t; i < n; i += blockDim.x) acc += x[i];
  s[t] = acc;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[0] = s[0];
}
