// (a/b)*b with div.rn then mul.rn. Not a in the FPSan ring: an even payload of b has no inverse mod 2^32.
extern "C" __global__ void div_mul(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __fmul_rn(__fdiv_rn(a[i], b[i]), b[i]);
}
