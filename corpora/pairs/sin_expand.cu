// The angle-addition formula sin(a)cos(b) + cos(a)sin(b) (exact in the ring: z^(a+b) = z^a z^b).
extern "C" __global__ void sin_expand(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __sinf(a[i]) * __cosf(b[i]) + __cosf(a[i]) * __sinf(b[i]);
}
