// Tree reduction in shared memory (one block; blockDim.x a power of two <= 256): each thread first
// adds a strided slice of x, then the block halves the partial sums with __syncthreads between steps.
extern "C" __global__ void sum_tree(const float* x, float* out, int n) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  float acc = 0.0f;
  for (int i = t; i < n; i += blockDim.x) acc += x[i];
  s[t] = acc;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[0] = s[0];
}
