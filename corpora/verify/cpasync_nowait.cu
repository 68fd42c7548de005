// cpasync_nowait: cpasync_double without the cp.async.wait_group before consuming a tile (one bug:
// cp.async data used before wait_group).
// EXPECTED: not-well-synchronized (a race is also an acceptable report: see below).
// ISA argument (§9.7.9.25 cp.async): "there is no ordering guarantee between two cp.async operations, or
// between a cp.async and other memory accesses, unless cp.async.wait_group/wait_all or an mbarrier is
// used"; without a wait the bar.sync does not order the asynchronous write into buf[b][t] before the other
// thread's ld.shared buf[b][63-t]: the read may see the old contents. The misuse is the ld.shared of the
// copied data with no cp.async.wait_* between the cp.async and it; seen as memory events it is a race
// between the cp.async's shared write and that ld.shared (§8).
// Witness (either verdict): the ld.shared.f32 of buf and the cp.async.ca.shared.global that wrote it.
__device__ __forceinline__ void cp_async4(float* smem, const float* gmem) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "l"(gmem) : "memory");
}
extern "C" __global__ void cpasync_nowait(const float* in, float* out) {
    __shared__ float buf[2][64];
    unsigned t = threadIdx.x;
    float acc = 0.0f;
    cp_async4(&buf[0][t], &in[t]);
    asm volatile("cp.async.commit_group;" ::: "memory");
    for (int i = 0; i < 4; ++i) {
        if (i + 1 < 4) {
            cp_async4(&buf[(i + 1) & 1][t], &in[(i + 1) * 64 + t]);
            asm volatile("cp.async.commit_group;" ::: "memory");
        }
        __syncthreads();
        acc += buf[i & 1][63 - t];
        __syncthreads();
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    out[t] = acc;
}
