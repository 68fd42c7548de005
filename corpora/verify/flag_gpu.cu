// flag_gpu: message passing between two CTAs (1 thread each) through a flag with inline PTX:
// CTA 0 stores data[0] = 42 (weak st.global) then st.release.gpu flag = 1; CTA 1 spins on
// ld.acquire.gpu flag until it reads 1, then loads data[0] and stores it to out[0].
// EXPECTED: verified (out[0] = 42 in every execution that terminates; the spin terminates under the
// forward-progress of co-resident CTAs).
// ISA argument (§8): st.release.gpu and ld.acquire.gpu are morally strong (both .gpu, which includes both
// threads, same address and size); the acquire that reads the release's value synchronizes with it, so
// st data precedes ld data in causality order (release pattern → acquire pattern): no data race.
extern "C" __global__ void flag_gpu(unsigned* data, unsigned* flag, unsigned* out) {
    if (blockIdx.x == 0) {
        data[0] = 42u;
        asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(flag), "r"(1u) : "memory");
    } else {
        unsigned f = 0;
        do {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(flag) : "memory");
        } while (f == 0);
        out[0] = data[0];
    }
}
