// lastblock_fence: grid-wide sum, "last block" pattern (CUDA threadFenceReduction), 3 CTAs of 32 threads.
// Each CTA reduces its 32 inputs with warp shuffles; lane 0 stores the CTA's partial sum to
// partial[blockIdx.x], executes __threadfence() (fence.sc.gpu / membar.gl) and atomicAdd(count, 1)
// (atom.global.add.u32: .relaxed.gpu by default); the CTA whose atom returns gridDim.x-1 executes
// __threadfence() again and lane 0 sums every partial.
// EXPECTED: verified.
// ISA argument (§8): writer side, st partial → fence.sc.gpu → atom count is a release pattern; reader
// side, atom count → fence.sc.gpu → ld partial is an acquire pattern. Every writer's atom precedes the
// reader's atom in observation order (§8: directly, or through the chain of atom RMWs on count — all
// relaxed.gpu, morally strong with each other since .gpu contains every thread), so every writer's
// fence synchronizes with the reader's fence and st partial[i] precedes ld partial[i] in causality order:
// no data race. The partials are summed in index order by one thread: deterministic.
extern "C" __global__ void lastblock_fence(const float* in, float* partial, unsigned* count, float* out) {
    unsigned t = threadIdx.x;
    float v = in[blockIdx.x * 32 + t];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (t == 0) {
        partial[blockIdx.x] = v;
        __threadfence();
        unsigned ticket = atomicAdd(count, 1u);
        if (ticket == gridDim.x - 1) {
            __threadfence();
            float s = 0.0f;
            for (unsigned i = 0; i < gridDim.x; ++i) s += partial[i];
            out[0] = s;
        }
    }
}
