// Sequential sum: thread 0 adds x[0..n) left to right. Pairs: sum_tree, sum_shfl, sum_atomic (equal
// in the FPSan ring, where + is associative and commutative), sum_seq_short (off by one: not equal).
extern "C" __global__ void sum_seq(const float* x, float* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) acc += x[i];
    out[0] = acc;
  }
}
