// reduce_smem: shared-memory tree reduction of 64 floats by one CTA of 64 threads.
// EXPECTED: verified.
// ISA argument: every shared element sdata[i] is written by thread i and read by thread i-s in the
// step after it was written; a __syncthreads (bar.sync 0, §9.7.13.1 bar/barrier) separates the steps.
// bar.sync's arrive/wait of one phase is a morally-strong release/acquire pattern at CTA scope
// (§8: barriers order the memory operations before it in program order before those after it), so each
// write precedes the conflicting read in causality order: no data race (§8 "data race").
// Only thread 0 writes out[0]. Integer-free float adds happen in a fixed tree order: deterministic.
extern "C" __global__ void reduce_smem(const float* in, float* out) {
    __shared__ float sdata[64];
    unsigned t = threadIdx.x;
    sdata[t] = in[t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0) out[0] = sdata[0];
}
