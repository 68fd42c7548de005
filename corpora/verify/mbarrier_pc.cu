// mbarrier_pc: producer/consumer through mbarriers (sm_90), one CTA of 64 threads, 4 rounds over one
// 32-float shared buffer. FULL and EMPTY are mbarriers initialised (thread 0, then __syncthreads) with
// arrival count 32. Round r: producer warp 0 waits EMPTY with parity (r-1)&1 (from round 1), stores
// buf[lane], arrives on FULL; consumer warp 1 waits FULL with parity r&1, loads buf[lane], arrives on EMPTY.
// EXPECTED: verified.
// ISA argument (§9.7.13.15 mbarrier): mbarrier.arrive has .release semantics and try_wait .acquire
// semantics at .cta scope by default; a phase completes when its pending count reaches 0, i.e. after all
// 32 arrivals; try_wait.parity p returns true once the phase with parity p has completed. Round r's FULL
// phase (parity r&1) completes only after all producer stores of round r, so each store is ordered before
// the consumer's load by release → acquire (§8 causality order); symmetrically EMPTY phase r orders the
// consumer's loads of round r before the producer's stores of round r+1. No data race.
#include "mbar_common.cuh"
extern "C" __global__ void mbarrier_pc(const float* in, float* out) {
    __shared__ float buf[32];
    __shared__ unsigned long long full, empty;
    unsigned t = threadIdx.x, lane = t & 31;
    if (t == 0) { mbar_init(&full, 32); mbar_init(&empty, 32); }
    __syncthreads();
    if (t < 32) {
        for (int r = 0; r < 4; ++r) {
            if (r > 0) mbar_wait(&empty, (r - 1) & 1);
            buf[lane] = in[r * 32 + lane];
            mbar_arrive(&full);
        }
    } else {
        float acc = 0.0f;
        for (int r = 0; r < 4; ++r) {
            mbar_wait(&full, r & 1);
            acc += buf[lane];
            mbar_arrive(&empty);
        }
        out[lane] = acc;
    }
}
