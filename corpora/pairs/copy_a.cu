// out = a: the right-hand side of identities that should give back their input.
extern "C" __global__ void copy_a(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i];
}
