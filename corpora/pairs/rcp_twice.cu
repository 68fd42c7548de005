// 1/(1/a) with rcp.rn twice. In the FPSan ring inv(inv(u)) = u for every payload (fpsan.md §2: odd u
// have a true inverse; even u map to even and back), so this equals copy_a.
extern "C" __global__ void rcp_twice(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __frcp_rn(__frcp_rn(a[i]));
}
