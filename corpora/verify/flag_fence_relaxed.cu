// flag_fence_relaxed: flag_gpu written with fences: CTA 0: st data; fence.acq_rel.gpu; st.relaxed.gpu flag;
// CTA 1: ld.relaxed.gpu flag (spin); fence.acq_rel.gpu; ld data.
// EXPECTED: verified.
// ISA argument (§8): fence.acq_rel followed by a strong write is a release pattern, a strong read followed
// by fence.acq_rel an acquire pattern; the relaxed.gpu st/ld of flag are morally strong (same .gpu scope
// containing both CTAs), the read observes the write, so the release pattern synchronizes with the acquire
// pattern and st data precedes ld data in causality order: no data race.
extern "C" __global__ void flag_fence_relaxed(unsigned* data, unsigned* flag, unsigned* out) {
    if (blockIdx.x == 0) {
        data[0] = 42u;
        asm volatile("fence.acq_rel.gpu;\n\tst.relaxed.gpu.global.u32 [%0], %1;" :: "l"(flag), "r"(1u) : "memory");
    } else {
        unsigned f = 0;
        do {
            asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(flag) : "memory");
        } while (f == 0);
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        out[0] = data[0];
    }
}
