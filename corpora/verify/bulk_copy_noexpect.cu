// bulk_copy_noexpect: bulk_copy with thread 0's mbarrier.arrive.expect_tx replaced by a plain
// mbarrier.arrive (one bug: TMA signalled before the write completes — arrive without expect_tx).
// EXPECTED: not-well-synchronized (a race is also an acceptable report: see below).
// ISA argument (§9.7.13.15 mbarrier, tx-count): with no expect_tx the phase's tx-count stays 0, so the
// single arrival completes phase 0 at once, before the bulk copy has written anything; its complete_tx
// later decrements the tx-count of the next phase (a transaction-count mismatch: the phase the bytes are
// accounted to is not the one the consumers wait for). The consumers' try_wait.parity 0 then succeeds
// without the async-proxy writes being ordered before their ld.shared of buf: a race between
// cp.async.bulk's writes and those loads (§8).
// Witness: not-well-synchronized — the mbarrier.arrive without expect_tx and the cp.async.bulk whose
// complete_tx it did not announce; race — the cp.async.bulk and an ld.shared.f32 of buf.
#include "mbar_common.cuh"
extern "C" __global__ void bulk_copy_noexpect(const float* in, float* out) {
    __shared__ alignas(128) float buf[64];
    __shared__ unsigned long long bar;
    unsigned t = threadIdx.x;
    if (t == 0) mbar_init(&bar, 1);
    __syncthreads();
    if (t == 0) {
        mbar_arrive(&bar);
        bulk_g2s(buf, in, 256, &bar);
    }
    mbar_wait(&bar, 0);
    out[t] = buf[63 - t] + buf[t];
}
