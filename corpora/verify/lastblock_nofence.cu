// lastblock_nofence: lastblock_fence without the writer's __threadfence() (one bug: missing fence
// between CTAs).
// EXPECTED: race.
// ISA argument (§8): the writer's st partial[b] (weak) is followed only by a relaxed atom on count; a
// relaxed atom alone is not a release pattern (release needs .release/.acq_rel or a fence before it), so
// the last CTA's atom → fence.sc → ld partial[b] does not synchronize with the writer and the weak
// st partial[b] and the weak ld partial[b] of different CTAs are unordered by causality order: a data
// race on global memory. Witness: st.global.f32 partial[blockIdx.x] and ld.global.f32 partial[i].
extern "C" __global__ void lastblock_nofence(const float* in, float* partial, unsigned* count, float* out) {
    unsigned t = threadIdx.x;
    float v = in[blockIdx.x * 32 + t];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (t == 0) {
        partial[blockIdx.x] = v;
        unsigned ticket = atomicAdd(count, 1u);
        if (ticket == gridDim.x - 1) {
            __threadfence();
            float s = 0.0f;
            for (unsigned i = 0; i < gridDim.x; ++i) s += partial[i];
            out[0] = s;
        }
    }
}
