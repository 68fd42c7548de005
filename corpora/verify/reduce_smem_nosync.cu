// reduce_smem_nosync: reduce_smem with the __syncthreads inside the loop removed (one bug).
// EXPECTED: race.
// ISA argument: at step s thread t reads sdata[t+s] (ld.shared), which thread t+s wrote (st.shared,
// `sdata[t] += …`) at step 2s. With no bar.sync between the steps (§9.7.13.1) nothing orders the two
// accesses in causality order (§8): they are from different threads, conflict (same address, one is a
// write) and both are weak (plain ld/st are not morally strong) — a data race (§8 "data race"). Threads
// of one warp are not ordered either: since sm_70 lanes have independent forward progress and the model
// has no warp-synchronous ordering.
// Witness: the ld.shared of sdata[t+s] in the loop and the st.shared of sdata[t] in the loop.
extern "C" __global__ void reduce_smem_nosync(const float* in, float* out) {
    __shared__ float sdata[64];
    unsigned t = threadIdx.x;
    sdata[t] = in[t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];
    }
    __syncthreads();
    if (t == 0) out[0] = sdata[0];
}
