// barrier_count_mismatch: warp 0 executes `bar.sync 1, 64` and warp 1 `bar.sync 1, 32` on the same named
// barrier 1 of a 64-thread CTA (one bug: bar.sync count mismatch).
// EXPECTED: not-well-synchronized.
// ISA argument (§9.7.13.1 bar/barrier): "all threads that participate in a barrier must use the same
// thread count b"; here the two warps give 64 and 32 for barrier 1, so the behaviour is undefined.
// Witness: the two bar.sync instructions.
extern "C" __global__ void barrier_count_mismatch(float* buf) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = buf[t];
    if (t < 32) {
        asm volatile("bar.sync 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 32;" ::: "memory");
    }
    buf[t] = s[63 - t];
}
