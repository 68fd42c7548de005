// cluster_dsmem: distributed shared memory in a cluster of 2 CTAs of 32 threads (sm_90). Each CTA stores
// buf[t] = in[rank*32 + t] into its own shared buffer, then the cluster barrier (barrier.cluster.arrive
// .release + barrier.cluster.wait.acquire) lets every thread read the *other* CTA's buf[31-t] through
// mapa + ld.shared::cluster; a second cluster barrier keeps each CTA's shared memory alive until the other
// has read it. out[rank*32 + t] = own + other.
// EXPECTED: verified.
// ISA argument (§9.7.13.4 barrier.cluster, §8): barrier.cluster.arrive.release / wait.acquire is a
// release/acquire pattern at cluster scope: each CTA's st.shared of buf precedes, in causality order,
// the other CTA's ld.shared::cluster of it (morally strong synchronisation: both CTAs are in the
// cluster). The second cluster barrier orders those remote reads before either CTA exits (a CTA's
// shared memory must not be accessed after it exits). No race.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_dsmem(const float* in, float* out) {
    __shared__ float buf[32];
    unsigned t = threadIdx.x, rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    buf[t] = in[rank * 32 + t];
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned local = (unsigned)__cvta_generic_to_shared(&buf[31 - t]), remote;
    float other;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank ^ 1u));
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(other) : "r"(remote) : "memory");
    out[rank * 32 + t] = buf[t] + other;
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
