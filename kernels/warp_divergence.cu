// What a divergent branch costs.
//
// Every logical thread runs the same work, ITERATIONS rounds of a multiply-add and an
// xor-shift on CHAINS independent words, inside a branch that only the lanes of one path
// take. Thread g is on path (g / (32 / paths)) mod 32, where `paths` (1, 2, 4, ... 32) is
// the one runtime argument of the sweep: the 32 lanes of a warp split into `paths` groups
// of neighbours, each on a path of its own. The loop gives each of the warp's paths its
// turn, as a branch does (the hardware runs only the paths some lane of the warp is on),
// and the warp runs the body once per path with only that path's lanes switched on: 1
// path is one pass of 32 lanes, 32 paths are 32 passes of one lane each.
//
// Paths differ in data, not in code: the body adds a constant of its path, so a lane's
// result says which path it ran. With 1 path per warp the warps still take 32 different
// paths between them (warp w takes path w mod 32), and that costs nothing: divergence is
// a matter of the lanes of one warp.
//
// The work is long (ITERATIONS rounds) against what runs outside the branch (indexing,
// the loop over the paths, the store), so nearly every instruction a warp executes is the
// branch's, and Nsight Compute's threads per executed instruction reads 32 / paths to
// three decimals (at 32,768 rounds it read 16.001 for 2 paths: the few instructions outside
// the branch, run by all 32 lanes, showed in the third decimal).
//
// The result (a wrapping sum per thread) is written out and checked against a reference
// kernel (kernels/warp_divergence.yaml, `reference`) before any time counts.
//
// Launched by `coursegen measure --gpu` as warp_divergence(input, output, paths,
// logical_blocks, clock): thread 0 of block 0 writes the SM cycles and nanoseconds it was
// alive to clock[0..2], so the record can state the SM clock during the timed launch.

#define ITERATIONS 131072
#define CHAINS 4

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void __launch_bounds__(256)
warp_divergence(const unsigned int* __restrict__ input,
                unsigned int* __restrict__ output,
                int paths,
                int logical_blocks,
                unsigned long long* __restrict__ clock)
{
    const bool witness = blockIdx.x == 0 && threadIdx.x == 0;
    long long c0 = 0;
    unsigned long long t0 = 0;
    if (witness) {
        c0 = clock64();
        t0 = global_ns();
    }

    // paths is a power of two: lanes_per_path = 32 / paths = 1 << shift.
    const unsigned int shift = 6u - (unsigned int)__ffs(paths);
    const unsigned int lane = threadIdx.x & 31u;
    for (int b = blockIdx.x; b < logical_blocks; b += gridDim.x) {
        const unsigned int g = (unsigned int)b * blockDim.x + threadIdx.x;
        const unsigned int path = (g >> shift) & 31u;
        // The warp's paths: first, first + 1, ... first + paths - 1 (mod 32).
        const unsigned int first = ((g & ~31u) >> shift) & 31u;
        unsigned int x0 = input[lane * CHAINS + 0];
        unsigned int x1 = input[lane * CHAINS + 1];
        unsigned int x2 = input[lane * CHAINS + 2];
        unsigned int x3 = input[lane * CHAINS + 3];
        // [region paths]
#pragma unroll 1
        for (unsigned int turn = 0; turn < (unsigned int)paths; ++turn) {
            const unsigned int p = (first + turn) & 31u;
            if (path == p) {
                const unsigned int c = 0x9E3779B9u * (p + 1u);
                for (int i = 0; i < ITERATIONS; ++i) {
                    x0 = x0 * 1664525u + c;
                    x1 = x1 * 1664525u + c;
                    x2 = x2 * 1664525u + c;
                    x3 = x3 * 1664525u + c;
                    x0 ^= x0 >> 13;
                    x1 ^= x1 >> 13;
                    x2 ^= x2 >> 13;
                    x3 ^= x3 >> 13;
                }
            }
        }
        // [end paths]
        output[g] = x0 + x1 + x2 + x3;
    }

    if (witness) {
        clock[0] = (unsigned long long)(clock64() - c0);
        clock[1] = global_ns() - t0;
    }
}

// The reference (kernels/warp_divergence.yaml, `reference`): thread g works out its path,
// p = (g / (32 / paths)) mod 32, and runs that path's rounds with no loop over the warp's
// paths. The measured kernel's output must equal this one's word for word.
extern "C" __global__ void __launch_bounds__(256)
warp_divergence_reference(const unsigned int* __restrict__ input,
                          unsigned int* __restrict__ output,
                          int paths,
                          int logical_blocks,
                          unsigned long long* __restrict__ clock)
{
    (void)clock;
    const unsigned int lane = threadIdx.x % 32;
    for (int b = blockIdx.x; b < logical_blocks; b += gridDim.x) {
        const unsigned int g = (unsigned int)b * blockDim.x + threadIdx.x;
        const unsigned int p = (g / (32u / (unsigned int)paths)) % 32;
        const unsigned int c = 0x9E3779B9u * (p + 1u);
        unsigned int sum = 0;
        for (int k = 0; k < CHAINS; ++k) {
            unsigned int x = input[lane * CHAINS + k];
            for (int i = 0; i < ITERATIONS; ++i) {
                x = x * 1664525u + c;
                x ^= x >> 13;
            }
            sum += x;
        }
        output[g] = sum;
    }
}
