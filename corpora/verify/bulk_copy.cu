// bulk_copy: TMA bulk copy (cp.async.bulk, sm_90) of 256 bytes global → shared completed through an
// mbarrier, one CTA of 32 threads. Thread 0 initialises BAR with count 1 (then __syncthreads), then
// arrives with mbarrier.arrive.expect_tx(256) and issues cp.async.bulk…mbarrier::complete_tx::bytes;
// every thread waits on BAR parity 0, then reads buf[63-t] and buf[t] and stores their sum to out[t].
// EXPECTED: verified.
// ISA argument (§9.7.9.25 cp.async.bulk, §9.7.13.15 mbarrier): expect_tx raises the phase's tx-count by
// 256; the bulk copy's complete_tx lowers it by the bytes written, after the writes are performed; phase 0
// completes only when the pending arrival count (1 → 0) and the tx-count (256 → 0) are both zero. The
// async-proxy writes are thus made visible to threads that observe the phase completion through
// try_wait (acquire), which orders them before every ld.shared of buf (§8): no race. Thread 0's expect_tx
// precedes its copy in program order, so the tx-count cannot underflow.
#include "mbar_common.cuh"
extern "C" __global__ void bulk_copy(const float* in, float* out) {
    __shared__ alignas(128) float buf[64];
    __shared__ unsigned long long bar;
    unsigned t = threadIdx.x;
    if (t == 0) mbar_init(&bar, 1);
    __syncthreads();
    if (t == 0) {
        mbar_arrive_expect_tx(&bar, 256);
        bulk_g2s(buf, in, 256, &bar);
    }
    mbar_wait(&bar, 0);
    out[t] = buf[63 - t] + buf[t];
}
