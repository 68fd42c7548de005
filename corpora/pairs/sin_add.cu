// sin(a) + sin(b): not sin(a + b).
extern "C" __global__ void sin_add(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __sinf(a[i]) + __sinf(b[i]);
}
