//! Code blocks of the sizes a glossary entry carries (CUDA of 10–30 lines, some Python and
//! shell), shared by the highlighter micro-benchmark and the syntect comparison.

/// (language, code) pairs.
pub const BLOCKS: &[(&str, &str)] = &[
    ("cuda", CUDA_12),
    ("cuda", CUDA_20),
    ("cuda", CUDA_30),
    ("python", PYTHON_15),
    ("bash", SHELL_8),
];

/// A 12-line CUDA kernel.
pub const CUDA_12: &str = r#"// Each lane reads word lane * stride of a shared tile.
__global__ void strided_read(float* out, int stride, int reps) {
    __shared__ float tile[2048];
    int lane = threadIdx.x & 31;
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) tile[i] = (float)i;
    __syncthreads();
    float acc = 0.0f;
    for (int r = 0; r < reps; ++r) {
        acc += tile[(lane * stride + r) & 2047];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"#;

/// A 20-line CUDA block: a kernel and its launch.
pub const CUDA_20: &str = r#"#include <cuda_runtime.h>
#define TILE 32

// Transpose through a padded tile: row TILE + 1 spreads a column over all 32 banks.
__global__ void transpose(float* __restrict__ out, const float* __restrict__ in, int n) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

void launch(float* out, const float* in, int n, cudaStream_t s) {
    transpose<<<dim3(n / TILE, n / TILE), dim3(TILE, 8), 0, s>>>(out, in, n);
}
"#;

/// A 30-line CUDA block: a reduction with warp shuffles, and host code.
pub const CUDA_30: &str = r#"#include <cuda_runtime.h>

template <int BLOCK>
__global__ void reduce_sum(const float* in, float* out, size_t n) {
    __shared__ float warp_sums[BLOCK / 32];
    float v = 0.0f;
    for (size_t i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
        v += __ldg(&in[i]);
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
}

int main() {
    const size_t n = 1 << 24;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, sizeof(float));
    reduce_sum<256><<<1024, 256>>>(in, out, n);
    cudaError_t err = cudaDeviceSynchronize();
    printf("status: %s\n", cudaGetErrorString(err));
    return err == cudaSuccess ? 0 : 1;
}
"#;

/// A 15-line Python block.
pub const PYTHON_15: &str = r#"import statistics

def bank(address: int, width: int = 4, banks: int = 32) -> int:
    """The bank that serves a byte address."""
    return (address // width) % banks

def conflict_degree(addresses):
    words = {}
    for a in addresses:
        words.setdefault(bank(a), set()).add(a // 4)
    return max(len(w) for w in words.values())

if __name__ == "__main__":
    for stride in (1, 32, 33):
        print(stride, conflict_degree([4 * stride * lane for lane in range(32)]))
"#;

/// An 8-line shell block.
pub const SHELL_8: &str = r#"$ nvcc -O3 -arch=sm_75 -lineinfo bank_conflicts.cu -o bank_conflicts
$ ./bank_conflicts --stride 1 --reps 2048
# Sweep the strides the glossary quotes.
for s in 1 32 33; do
    ./bank_conflicts --stride "$s" --reps 2048 | tee "out_${s}.txt"
done
export CUDA_VISIBLE_DEVICES=0
ncu --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum ./bank_conflicts
"#;
