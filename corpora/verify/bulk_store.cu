// bulk_store: TMA bulk store (cp.async.bulk.global.shared::cta, sm_90) of a shared buffer written by the
// threads, one CTA of 64 threads. Every thread stores buf[t] = 2*in[t] (st.shared, generic proxy),
// executes fence.proxy.async.shared::cta, then __syncthreads; thread 0 issues the bulk copy of the 256
// bytes to out, commits it (cp.async.bulk.commit_group) and waits (cp.async.bulk.wait_group 0).
// EXPECTED: verified.
// ISA argument (§8 proxies, fence.proxy.async; §9.7.9.25 cp.async.bulk): the bulk copy reads shared
// memory through the async proxy; a generic-proxy write is ordered before an async-proxy access of the
// same bytes only through a proxy fence: each writer's fence.proxy.async.shared::cta orders its st.shared
// before its bar.sync arrival, the barrier orders that before thread 0's cp.async.bulk (§9.7.13.1), so
// every generic write precedes the async-proxy read in causality order: no race. Nothing writes out but
// the copy, which wait_group 0 completes before the kernel exits.
extern "C" __global__ void bulk_store(const float* in, float* out) {
    __shared__ alignas(128) float buf[64];
    unsigned t = threadIdx.x;
    buf[t] = 2.0f * in[t];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        unsigned s = (unsigned)__cvta_generic_to_shared(buf);
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" :: "l"(out), "r"(s) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}
