// bulk_store_nofence: bulk_store without the fence.proxy.async.shared::cta (one bug: async-proxy access
// without the required proxy fence).
// EXPECTED: race.
// ISA argument (§8 proxies, fence.proxy.async): bar.sync orders the threads' generic-proxy st.shared
// before thread 0's instructions, but a memory access through a different proxy (the bulk copy's
// async-proxy read of buf) is only ordered after a generic write through a proxy fence
// (fence.proxy.async) between them; with none, the st.shared of buf[t] and the cp.async.bulk's read of
// the same bytes are not ordered in causality order for the async proxy — a data race (the copy may
// read stale shared memory). Witness: an st.shared.f32 of buf and the cp.async.bulk.global.shared::cta.
extern "C" __global__ void bulk_store_nofence(const float* in, float* out) {
    __shared__ alignas(128) float buf[64];
    unsigned t = threadIdx.x;
    buf[t] = 2.0f * in[t];
    __syncthreads();
    if (t == 0) {
        unsigned s = (unsigned)__cvta_generic_to_shared(buf);
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" :: "l"(out), "r"(s) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}
