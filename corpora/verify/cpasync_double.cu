// cpasync_double: double-buffered copy with cp.async (sm_80), one CTA of 64 threads, 4 tiles of 64 floats.
// Thread t copies in[i*64 + t] into buf[i&1][t] with cp.async.ca.shared.global (4 bytes) and commits a
// group per tile; before consuming tile i it waits with cp.async.wait_group 1 (all but the newest group,
// i.e. tile i, complete) — wait_group 0 for the last tile — then __syncthreads, and reads buf[i&1][63-t]
// (another thread's copy); a second __syncthreads precedes the overwrite of that buffer by tile i+2.
// EXPECTED: verified.
// ISA argument (§9.7.9.25 cp.async): the writes of a cp.async are performed (visible to the executing
// thread) once cp.async.wait_group N returns with its group among the completed ones; they are then
// ordered, like the thread's own writes, before its bar.sync, which orders them before the other
// threads' ld.shared (§9.7.13.1, §8 causality order). The second bar.sync orders every ld of buf[b]
// before the cp.async of tile i+2 into buf[b] is issued. No race, no use before wait.
__device__ __forceinline__ void cp_async4(float* smem, const float* gmem) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "l"(gmem) : "memory");
}
extern "C" __global__ void cpasync_double(const float* in, float* out) {
    __shared__ float buf[2][64];
    unsigned t = threadIdx.x;
    float acc = 0.0f;
    cp_async4(&buf[0][t], &in[t]);
    asm volatile("cp.async.commit_group;" ::: "memory");
    for (int i = 0; i < 4; ++i) {
        if (i + 1 < 4) {
            cp_async4(&buf[(i + 1) & 1][t], &in[(i + 1) * 64 + t]);
            asm volatile("cp.async.commit_group;" ::: "memory");
            asm volatile("cp.async.wait_group 1;" ::: "memory");
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");
        }
        __syncthreads();
        acc += buf[i & 1][63 - t];
        __syncthreads();
    }
    out[t] = acc;
}
