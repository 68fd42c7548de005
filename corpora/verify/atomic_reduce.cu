// atomic_reduce: integer sum of 64 values into one counter by 2 CTAs × 32 threads with atomicAdd
// (atom.global.add.u32).
// EXPECTED: verified.
// ISA argument (§8, §9.7.12.? atom): every access to sum[0] is an atom (relaxed, .gpu scope by default);
// all of them are morally strong with each other (same .gpu scope containing every thread, same address
// and size), so there is no data race; integer addition is associative and commutative, so every order
// of the atomics (coherence order of sum[0]) gives the same final value: deterministic.
extern "C" __global__ void atomic_reduce(const unsigned* in, unsigned* sum) {
    atomicAdd(sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
}
