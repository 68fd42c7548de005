// Every thread atomicAdd()s its strided partial sum into out[0] (which must start at 0). Equal to
// sum_seq only when float atomics are sanitized as ring additions (--atomics ring); with native
// atomics the float add of sanitized bit patterns is not the ring sum.
extern "C" __global__ void sum_atomic(const float* x, float* out, int n) {
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) acc += x[i];
  atomicAdd(out, acc);
}
