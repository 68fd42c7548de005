// shfl_reduce: warp-level sum of 32 floats with __shfl_down_sync (shfl.sync.down.b32), lane 0 stores it.
// EXPECTED: verified.
// ISA argument: shfl.sync exchanges registers, not memory (§9.7.8.? shfl.sync): it makes no memory event;
// the only memory accesses are each lane's ld in[t] (distinct addresses) and lane 0's st out[0]: no two
// accesses conflict, so no data race; the shuffle tree order is fixed: deterministic.
extern "C" __global__ void shfl_reduce(const float* in, float* out) {
    float v = in[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) out[0] = v;
}
