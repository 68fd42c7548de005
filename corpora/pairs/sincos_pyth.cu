// sin(a)^2 + cos(a)^2 with the fast-math intrinsics (sin.approx / cos.approx). In the FPSan ring
// (cos x, sin x) = (Re, Im) of z^x with |z|^2 = (-3/5)^2 + (4/5)^2 = 1, so the result is exactly 1.0.
extern "C" __global__ void sincos_pyth(const float* a, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = __sinf(a[i]), c = __cosf(a[i]);
    out[i] = s * s + c * c;
  }
}
