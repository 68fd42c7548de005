// Element-wise a-b (fast-math __expf lowers to mul 0f3FB8AA3B + ex2.approx, which FPSan models).
extern "C" __global__ void sub_ab(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] - b[i];
}
