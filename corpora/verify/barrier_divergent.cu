// barrier_divergent: __syncthreads inside a branch only threads 0..15 of a 64-thread CTA take
// (one bug: barrier in divergent code).
// EXPECTED: not-well-synchronized.
// ISA argument (§9.7.13.1 bar/barrier): bar.sync waits until the expected number of threads (all threads
// of the CTA for barrier 0 without a count) arrive; threads 16..63 never execute it and exit, so the
// barrier is reached by only part of the CTA: for a non-.aligned barrier the exited threads do not
// count, but bar.sync (= barrier.sync.aligned) also requires every thread of the warp to execute the same
// bar instruction — lanes 16..31 of warp 0 do not: behaviour undefined. Witness: the bar.sync line.
extern "C" __global__ void barrier_divergent(float* buf) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = buf[t];
    if (t < 16) {
        __syncthreads();
        buf[t] = s[63 - t];
    }
}
