// Vectorised shared loads: each lane reads 4, 8 or 16 bytes per instruction.
//
// Every logical thread issues 2048 shared loads of `width` bytes, the one runtime argument
// of the sweep: 4 (one `float`-sized word, LDS.32), 8 (a `float2`, LDS.64) or 16 (a
// `float4`, LDS.128). The 32 lanes of a warp read 32 consecutive elements, so one load
// instruction moves 32 × width bytes: 128, 256 or 512. Shared memory delivers 128 bytes
// (32 banks × 4 bytes) per wavefront, so the hardware serves an 8-byte load half a warp at
// a time and a 16-byte load a quarter at a time, each part free of conflicts: 1, 2 and 4
// wavefronts per instruction, the same bytes per wavefront. kernels/vector_loads.yaml
// declares that map (`model.address`, `model.width`); Nsight Compute's wavefronts per
// shared load are checked against it. The instructions per thread are the same in every
// row, so the rows' times follow the wavefronts; the bytes moved per thread grow with the
// width (4 times as many at 16 bytes).
//
// The elements are unsigned int, uint2 and uint4 (the widths of float, float2 and float4),
// so the sums are exact. Pass p of logical block b reads 16 groups of 32 elements from
// group (b + p) mod 16 on, each at a compile-time offset from one pointer. The result (a
// wrapping sum of every word read) is written out and compared word for word with
// vector_loads_reference's before any time counts.
//
// Launched by `coursegen measure --gpu` as vector_loads(input, output, width,
// logical_blocks, clock): thread 0 of block 0 writes the SM cycles and nanoseconds it was
// alive to clock[0..2], so the record can state the SM clock during the timed launch.

#define TILE_WORDS 4096
#define PASSES 128
#define GROUPS 16

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ unsigned int words(unsigned int x) { return x; }
__device__ __forceinline__ unsigned int words(uint2 x) { return x.x + x.y; }
__device__ __forceinline__ unsigned int words(uint4 x) { return x.x + x.y + x.z + x.w; }

// The timed loop for one element type: PASSES × GROUPS loads of sizeof(T) bytes per lane.
template <typename T>
__device__ __forceinline__ unsigned int read_tile(const unsigned int* tile, int b)
{
    const T* lane_base = reinterpret_cast<const T*>(tile) + (threadIdx.x & 31);
    unsigned int a0 = 0, a1 = 0;
#pragma unroll 1
    for (int pass = 0; pass < PASSES; ++pass) {
        const T* p = lane_base + ((b + pass) % GROUPS) * 32;
#pragma unroll
        for (int g = 0; g < GROUPS; g += 2) {
            a0 += words(p[g * 32]);
            a1 += words(p[(g + 1) * 32]);
        }
    }
    return a0 + a1;
}

extern "C" __global__ void __launch_bounds__(1024, 2)
vector_loads(const unsigned int* __restrict__ input,
             unsigned int* __restrict__ output,
             int width,
             int logical_blocks,
             unsigned long long* __restrict__ clock)
{
    __shared__ __align__(16) unsigned int tile[TILE_WORDS];

    const bool witness = blockIdx.x == 0 && threadIdx.x == 0;
    long long c0 = 0;
    unsigned long long t0 = 0;
    if (witness) {
        c0 = clock64();
        t0 = global_ns();
    }

    for (int w = threadIdx.x; w < TILE_WORDS; w += blockDim.x)
        tile[w] = input[w];
    __syncthreads();

    // [region vector-reads]
    for (int b = blockIdx.x; b < logical_blocks; b += gridDim.x) {
        unsigned int sum;
        if (width == 16)
            sum = read_tile<uint4>(tile, b);
        else if (width == 8)
            sum = read_tile<uint2>(tile, b);
        else
            sum = read_tile<unsigned int>(tile, b);
        output[(size_t)b * blockDim.x + threadIdx.x] = sum;
    }
    // [end vector-reads]

    if (witness) {
        clock[0] = (unsigned long long)(clock64() - c0);
        clock[1] = global_ns() - t0;
    }
}

// The reference (kernels/vector_loads.yaml, `reference`): the same words read one at a time
// from global memory. Element e of `width` bytes is words e·(width/4) to e·(width/4) +
// width/4 − 1. The measured kernel's output must equal this one's word for word.
extern "C" __global__ void __launch_bounds__(1024)
vector_loads_reference(const unsigned int* __restrict__ input,
                       unsigned int* __restrict__ output,
                       int width,
                       int logical_blocks,
                       unsigned long long* __restrict__ clock)
{
    (void)clock;
    const unsigned int lane = threadIdx.x % 32;
    const unsigned int per = (unsigned int)width / 4;
    for (int b = blockIdx.x; b < logical_blocks; b += gridDim.x) {
        unsigned int sum = 0;
        for (int pass = 0; pass < PASSES; ++pass)
            for (int g = 0; g < GROUPS; ++g) {
                const unsigned int element = (((b + pass) % GROUPS) + g) * 32 + lane;
                for (unsigned int k = 0; k < per; ++k)
                    sum += input[element * per + k];
            }
        output[(size_t)b * blockDim.x + threadIdx.x] = sum;
    }
}
