// Day 15: what a shared-memory bank conflict costs.
//
// Every logical thread reads a 2048-word __shared__ tile 2048 times. Lane L starts at word
// L * stride, the one runtime argument of the sweep, so the 32 lanes of a warp ask for 32
// words at that stride: stride 1 or 33 touches all 32 banks once, stride 32 asks one bank
// for 32 different words, which the hardware serves one per clock.
//
// Layout (why it runs at the hardware limit): a lane never wraps round the tile. Each pass
// reads WINDOW consecutive words from one base pointer with compile-time offsets, so every
// read is a single LDS with an immediate offset and no index arithmetic; a masked index
// (`& 2047`) would put an AND and an address computation in front of every load. The
// largest word read is 31*33 + 31 + 31 + 63 = 1148, inside the tile.
//
// The result (a wrapping sum per thread) is written out and checked against a reference
// kernel (kernels/bank_conflicts.yaml, `reference`) before any time counts. Each logical
// block starts its lanes (b & 31) words further on, so the compiler cannot reuse one
// block's sums for the next.
//
// Launched by `coursegen measure --gpu` as bank_conflicts(input, output, stride,
// logical_blocks, clock): thread 0 of block 0 writes the SM cycles and nanoseconds it was
// alive to clock[0..2], so the record can state the SM clock during the timed launch.

#define TILE_WORDS 2048
#define READS 2048
#define WINDOW 64

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void __launch_bounds__(1024, 2)
bank_conflicts(const unsigned int* __restrict__ input,
               unsigned int* __restrict__ output,
               int stride,
               int logical_blocks,
               unsigned long long* __restrict__ clock)
{
    __shared__ unsigned int tile[TILE_WORDS];

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

    // [region timed-loop]
    const unsigned int* lane_base = tile + (threadIdx.x & 31) * stride;
    for (int b = blockIdx.x; b < logical_blocks; b += gridDim.x) {
        const unsigned int* base = lane_base + (b & 31);
        unsigned int a0 = 0, a1 = 0;
#pragma unroll 1
        for (int pass = 0; pass < READS / WINDOW; ++pass) {
            const unsigned int* p = base + pass;
#pragma unroll
            for (int k = 0; k < WINDOW; k += 2) {
                a0 += p[k];
                a1 += p[k + 1];
            }
        }
        output[(size_t)b * blockDim.x + threadIdx.x] = a0 + a1;
    }
    // [end timed-loop]

    if (witness) {
        clock[0] = (unsigned long long)(clock64() - c0);
        clock[1] = global_ns() - t0;
    }
}

// The reference (kernels/bank_conflicts.yaml, `reference`): the same sums read the obvious
// way, straight from global memory, no tile and no unrolling. Thread t of logical block b
// (lane L = t mod 32) sums input[L * stride + (b & 31) + pass + k] over 32 passes of 64
// words. The measured kernel's output must equal this one's word for word.
extern "C" __global__ void __launch_bounds__(1024)
bank_conflicts_reference(const unsigned int* __restrict__ input,
                         unsigned int* __restrict__ output,
                         int stride,
                         int logical_blocks,
                         unsigned long long* __restrict__ clock)
{
    (void)clock;
    const unsigned int lane = threadIdx.x & 31;
    for (int b = blockIdx.x; b < logical_blocks; b += gridDim.x) {
        const unsigned int start = lane * stride + (b & 31);
        unsigned int sum = 0;
        for (int pass = 0; pass < READS / WINDOW; ++pass)
            for (int k = 0; k < WINDOW; ++k)
                sum += input[start + pass + k];
        output[(size_t)b * blockDim.x + threadIdx.x] = sum;
    }
}
