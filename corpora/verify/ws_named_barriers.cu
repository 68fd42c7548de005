// ws_named_barriers: producer/consumer warp specialisation with named barriers, one CTA of 64 threads.
// Warp 0 (producer) fills a 32-float shared buffer for round r = 0..3; warp 1 (consumer) adds it to its
// accumulator. FULL (barrier 1): producer `bar.arrive 1, 64` after writing, consumer `bar.sync 1, 64`
// before reading. EMPTY (barrier 2): consumer `bar.arrive 2, 64` after reading, producer `bar.sync 2, 64`
// before overwriting (from round 1 on).
// EXPECTED: verified.
// ISA argument (§9.7.13.1): bar.arrive and bar.sync of one barrier phase: the arrivals' memory accesses
// before the arrive are ordered before the accesses after the waiting bar.sync (barrier completion is a
// release/acquire at CTA scope, §8). The producer's st.shared of round r precede FULL phase r, the
// consumer's ld.shared come after it; the consumer's loads of round r precede EMPTY phase r, the
// producer's stores of round r+1 come after it: every conflicting pair is ordered, no data race.
// 64 = both warps' threads (counts whole warps), so counts match on every barrier.
extern "C" __global__ void ws_named_barriers(const float* in, float* out) {
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
            acc += buf[lane];
            if (r < 3) asm volatile("bar.arrive 2, 64;" ::: "memory");
        }
        out[lane] = acc;
    }
}
