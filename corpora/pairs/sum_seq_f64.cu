// Sequential double-precision sum by thread 0 (the f64 ring, w = 64). Pair: sum_tree_f64.
extern "C" __global__ void sum_seq_f64(const double* x, double* out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    double acc = 0.0;
    for (int i = 0; i < n; ++i) acc += x[i];
    out[0] = acc;
  }
}
