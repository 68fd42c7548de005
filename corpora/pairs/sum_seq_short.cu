// The off-by-one bug: the loop stops one element early (i < n - 1). Not equal to sum_seq.
extern "C" __global__ void sum_seq_short(const float* x, float* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    float acc = 0.0f;
    for (int i = 0; i < n - 1; ++i) acc += x[i];
    out[0] = acc;
  }
}
