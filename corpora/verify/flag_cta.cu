// flag_cta: flag_gpu with .cta scope on the release and the acquire (one bug: .cta where .gpu is needed).
// EXPECTED: race.
// ISA argument (§8 scopes, "morally strong"): two operations are morally strong only if each one's scope
// includes the other's thread. The writer (CTA 0) and the reader (CTA 1) are in different CTAs, so the
// .cta-scoped st.release/ld.acquire are not morally strong w.r.t. each other: the acquire does not
// synchronize with the release, and the weak st data[0] / ld data[0] are unordered by causality order —
// a data race (and the flag accesses themselves race: conflicting, not morally strong).
// Witness: st.global.u32 data[0] and ld.global.u32 data[0] (or the flag's st.release.cta / ld.acquire.cta).
extern "C" __global__ void flag_cta(unsigned* data, unsigned* flag, unsigned* out) {
    if (blockIdx.x == 0) {
        data[0] = 42u;
        asm volatile("st.release.cta.global.u32 [%0], %1;" :: "l"(flag), "r"(1u) : "memory");
    } else {
        unsigned f = 0;
        do {
            asm volatile("ld.acquire.cta.global.u32 %0, [%1];" : "=r"(f) : "l"(flag) : "memory");
        } while (f == 0);
        out[0] = data[0];
    }
}
