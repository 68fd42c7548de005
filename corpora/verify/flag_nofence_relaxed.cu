// flag_nofence_relaxed: flag_fence_relaxed without the writer's fence.acq_rel.gpu (one bug: missing fence).
// EXPECTED: race.
// ISA argument (§8): st.relaxed.gpu alone is not a release pattern, so the reader's acquire pattern
// (ld.relaxed.gpu; fence.acq_rel.gpu) synchronizes with nothing: the weak st data[0] (CTA 0) and the weak
// ld data[0] (CTA 1) are unordered by causality order — a data race on global memory.
// Witness: st.global.u32 data[0] and ld.global.u32 data[0].
extern "C" __global__ void flag_nofence_relaxed(unsigned* data, unsigned* flag, unsigned* out) {
    if (blockIdx.x == 0) {
        data[0] = 42u;
        asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(flag), "r"(1u) : "memory");
    } else {
        unsigned f = 0;
        do {
            asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(flag) : "memory");
        } while (f == 0);
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        out[0] = data[0];
    }
}
