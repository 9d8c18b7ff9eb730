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

/// Blocks of the languages added in issue 15, the size a day page shows.
pub const MORE_BLOCKS: &[(&str, &str)] = &[
    ("console", CONSOLE_7),
    ("ptx", PTX_16),
    ("sass", SASS_10),
    ("cmake", CMAKE_12),
    ("json", JSON_14),
    ("yaml", YAML_16),
];

/// A 7-line terminal session.
pub const CONSOLE_7: &str = r#"$ nvcc -O3 -arch=sm_90 bank_conflicts.cu -o bank_conflicts
$ ./bank_conflicts --stride 32 2>&1 | tee out_32.txt
stride 32: median 33.907 ms over 10 samples (rsd 0.020%)
$ cat <<EOF > sweep.sh
for s in 1 32 33; do ./bank_conflicts --stride "$s"; done
EOF
$ bash sweep.sh
"#;

/// 16 lines of PTX.
pub const PTX_16: &str = r#".visible .entry bank_conflicts(
	.param .u64 bank_conflicts_param_0,
	.param .u32 bank_conflicts_param_2
)
{
	.reg .pred 	%p<8>;
	.reg .b32 	%r<170>;
	ld.param.u64 	%rd9, [bank_conflicts_param_0];
	mov.u32 	%r1, %tid.x;
	setp.ne.s32 	%p1, %r19, 0;
	@%p1 bra 	$L__BB0_2;
	ld.shared.u32 	%r24, [%rd3+4];
	add.s32 	%r25, %r24, %r23;
$L__BB0_2:
	ret;
}
"#;

/// 10 lines of SASS as cuobjdump prints it.
pub const SASS_10: &str = r#"        /*0000*/                   LDC R1, c[0x0][0x28] ;                       /* 0x00000a00ff017b82 */
                                                                                /* 0x000fe20000000800 */
        /*0010*/                   S2R R0, SR_TID.X ;                           /* 0x0000000000007919 */
        /*0020*/                   S2UR UR6, SR_CTAID.X ;                       /* 0x00000000000679c3 */
        /*0050*/                   LOP3.LUT P0, RZ, R0, UR6, RZ, 0xfc, !PT ;    /* 0x0000000600ff7c12 */
        /*0060*/              @!P0 CS2R R4, SR_CLOCKLO ;                        /* 0x0000000000048805 */
        /*0090*/                   ISETP.GT.AND P0, PT, R0, 0x7ff, PT ;         /* 0x000007ff0000780c */
        /*00c0*/               @P0 BRA 0x1a0 ;                                  /* 0x0000000000340947 */
        /*0100*/                   IMAD.MOV.U32 R11, RZ, RZ, R0 ;               /* 0x000000ffff0b7224 */
        /*0110*/                   LDS R4, [R2+0x4] ;                           /* 0x0000040002047984 */
"#;

/// A 12-line CMakeLists.txt.
pub const CMAKE_12: &str = r#"cmake_minimum_required(VERSION 3.24)
project(bank_conflicts LANGUAGES CXX CUDA)
# Build for the GPU in the machine, or for Hopper by default.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90)
endif()
add_executable(bank_conflicts bank_conflicts.cu)
target_compile_options(bank_conflicts PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math -lineinfo>)
set_target_properties(bank_conflicts PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
message(STATUS "CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES}")
install(TARGETS bank_conflicts)
"#;

/// 14 lines of JSON (a record's head).
pub const JSON_14: &str = r#"{
  "schema": 1,
  "kernel": "bank_conflicts",
  "device": {
    "name": "NVIDIA H200",
    "compute_capability": "9.0",
    "sm_count": 132,
    "sm_clock_mhz": 1979.83
  },
  "rows": [
    { "label": "L", "value": 1, "median_ms": 1.0762, "converged": true },
    { "label": "32L", "value": 32, "median_ms": 33.9802, "note": null }
  ]
}
"#;

/// 16 lines of YAML (a kernel manifest and a CI step).
pub const YAML_16: &str = r#"# The sweep of kernels/bank_conflicts.cu
kernel: bank_conflicts
block_threads: 1024
sweep:
  - label: L
    stride: 1
  - label: "32L"
    stride: 32
  - {label: 33L, stride: 33}
defaults: &timing
  min_samples: 10
  target_rel_stdev: 0.005
ci:
  run: |
    cargo test --locked
    bash .ci/nvrtc.sh
"#;
