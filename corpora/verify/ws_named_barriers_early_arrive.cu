// ws_named_barriers_early_arrive: ws_named_barriers with the consumer's EMPTY arrival (`bar.arrive 2, 64`)
// moved before its read of the buffer (one bug): the producer may overwrite the buffer for round r+1
// while the consumer still reads round r.
// EXPECTED: race.
// ISA argument (§9.7.13.1, §8): FULL phase r orders the producer's stores of round r before the consumer's
// loads of round r, but the consumer's ld.shared buf[lane] of round r now follows its EMPTY arrival in
// program order, so EMPTY phase r orders nothing of it before the producer's st.shared buf[lane] of round
// r+1 (only what precedes an arrival is released): a write-after-read data race in shared
// memory. Witness: the producer's st.shared.f32 and the consumer's ld.shared.f32.
extern "C" __global__ void ws_named_barriers_early_arrive(const float* in, float* out) {
    __shared__ float buf[32];
    unsigned t = threadIdx.x, lane = t & 31;
    if (t < 32) {
        for (int r = 0; r < 4; ++r) {
            if (r > 0) asm volatile("bar.sync 2, 64;" ::: "memory");
            buf[lane] = in[r * 32 + lane];
            asm volatile("bar.arrive 1, 64;" ::: "memory");
        }
    } else {
        float acc = 0.0f;
        for (int r = 0; r < 4; ++r) {
            asm volatile("bar.sync 1, 64;" ::: "memory");
            if (r < 3) asm volatile("bar.arrive 2, 64;" ::: "memory");
            acc += buf[lane];
        }
        out[lane] = acc;
    }
}
