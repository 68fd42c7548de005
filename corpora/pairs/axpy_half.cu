// y = a*x + y on f16 elements one at a time (scalar fma.rn.f16). Pair: axpy_half2.
#include <cuda_fp16.h>
extern "C" __global__ void axpy_half(const __half* a, const __half* x, __half* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i + 1 < n) {
    y[2 * i] = __hfma(a[2 * i], x[2 * i], y[2 * i]);
    y[2 * i + 1] = __hfma(a[2 * i + 1], x[2 * i + 1], y[2 * i + 1]);
  }
}
