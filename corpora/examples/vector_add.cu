// The README's `ptxkit sanitize` example: an elementwise kernel with the float operations FPSan
// rewrites (add, mul, fma, exp via ex2, division) in nvcc's own PTX spelling.
// Regenerate: nvcc -arch=sm_90 -ptx -o vector_add.ptx vector_add.cu
extern "C" __global__ void vector_add(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = x[i], b = y[i];
        out[i] = __expf(a + b) * 0.5f + a / b;
    }
}
