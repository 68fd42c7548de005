// bulk_copy_nowait: bulk_copy where the threads read buf after a __syncthreads instead of waiting on the
// mbarrier (one bug: the consumer reads before the mbarrier phase completes).
// EXPECTED: race.
// ISA argument (§9.7.9.25 cp.async.bulk, §8 async proxy): the bulk copy's writes are performed
// asynchronously (async proxy) and are made visible only through the mbarrier's complete_tx; bar.sync
// orders the issuing of the copy, not its writes, so the writes and the threads' ld.shared of buf are
// unordered by causality order — a data race. Witness: the cp.async.bulk and an ld.shared.f32 of buf.
#include "mbar_common.cuh"
extern "C" __global__ void bulk_copy_nowait(const float* in, float* out) {
    __shared__ alignas(128) float buf[64];
    __shared__ unsigned long long bar;
    unsigned t = threadIdx.x;
    if (t == 0) mbar_init(&bar, 1);
    __syncthreads();
    if (t == 0) {
        mbar_arrive_expect_tx(&bar, 256);
        bulk_g2s(buf, in, 256, &bar);
    }
    __syncthreads();
    out[t] = buf[63 - t] + buf[t];
    mbar_wait(&bar, 0);
}
