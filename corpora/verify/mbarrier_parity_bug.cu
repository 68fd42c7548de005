// mbarrier_parity_bug: mbarrier_pc where the consumer waits on FULL with parity (r&1)^1 instead of r&1
// (one bug: waiting on the wrong phase parity).
// EXPECTED: race (not-well-synchronized, a deadlock, is also acceptable: see below).
// ISA argument (§9.7.13.15.16 mbarrier.test_wait/try_wait): phaseParity names "the current phase or the
// immediately preceding phase"; in round 0 FULL is in phase 0 and parity 1 names the preceding phase,
// which counts as completed, so try_wait.parity returns true at once. That wait is legal in itself (it is
// how a pipeline's producer first waits on an "empty" barrier), but here it orders nothing: the consumer's
// ld.shared buf[lane] is not ordered after the producer's st.shared buf[lane] (no release -> acquire
// through FULL's phase 0) — a data race on shared memory (§8).
// The consumer then runs one phase ahead: it may arrive on EMPTY for round r+1 before the producer waits
// for round r's EMPTY phase, so the producer's try_wait.parity can name a phase that never completes — a
// deadlock (not well synchronized) in those schedules.
// Witness: race — the producer's st.shared.f32 and the consumer's ld.shared.f32; deadlock — a
// mbarrier.try_wait.parity that waits for ever.
#include "mbar_common.cuh"
extern "C" __global__ void mbarrier_parity_bug(const float* in, float* out) {
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
            mbar_wait(&full, (r & 1) ^ 1);
            acc += buf[lane];
            mbar_arrive(&empty);
        }
        out[lane] = acc;
    }
}
