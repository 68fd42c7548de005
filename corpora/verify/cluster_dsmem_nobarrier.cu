// cluster_dsmem_nobarrier: cluster_dsmem without the first cluster barrier (one bug: the remote read of
// the other CTA's buffer is not synchronised with its store).
// EXPECTED: race.
// ISA argument (§9.7.13.4, §8): nothing orders CTA r's st.shared buf[31-t] before CTA r^1's
// ld.shared::cluster of the same bytes through mapa (the only cluster barrier left comes after the read):
// conflicting weak accesses of different threads not ordered by causality order — a data race on
// distributed shared memory. Witness: the st.shared.f32 of buf and the ld.shared::cluster.f32.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_dsmem_nobarrier(const float* in, float* out) {
    __shared__ float buf[32];
    unsigned t = threadIdx.x, rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    buf[t] = in[rank * 32 + t];
    unsigned local = (unsigned)__cvta_generic_to_shared(&buf[31 - t]), remote;
    float other;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank ^ 1u));
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(other) : "r"(remote) : "memory");
    out[rank * 32 + t] = buf[t] + other;
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
