// Day 16: what an uncoalesced global load costs.
//
// Every logical thread reads READS 4-byte words from a 1 GiB buffer, far larger than the
// H200's 60 MB L2, so nothing is served twice from cache and each row's time is set by
// the bytes the memory system fetches. Lane L of warp w reads, at its i-th load, word
// ((w * READS + i) * 32 + L) * stride: the 32 lanes of one load ask for 32 words at a lane
// stride of `stride` words, the one runtime argument of the sweep, and no two loads of a
// launch share a word until the buffer wraps. Stride 1 is four 32-byte sectors of one
// 128-byte line; every doubling doubles the sectors, until at stride 8 each lane has a
// sector of its own (32 sectors, 8 × the bytes for the same useful data).
//
// The result (a wrapping sum per thread) is written out and checked against a reference
// kernel (kernels/coalescing.yaml, `reference`) before any time counts.
//
// Launched by `coursegen measure --gpu` as coalescing(input, output, stride,
// logical_blocks, clock): thread 0 of block 0 writes the SM cycles and nanoseconds it was
// alive to clock[0..2], so the record can state the SM clock during the timed launch.

#define WORDS_LOG2 28
#define READS 64

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void __launch_bounds__(256)
coalescing(const unsigned int* __restrict__ input,
           unsigned int* __restrict__ output,
           int stride,
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

    const unsigned long long mask = (1ull << WORDS_LOG2) - 1;
    for (int b = blockIdx.x; b < logical_blocks; b += gridDim.x) {
        const unsigned long long g = (unsigned long long)b * blockDim.x + threadIdx.x;
        const unsigned long long warp = g >> 5, lane = g & 31;
        const unsigned long long step = 32ull * stride;
        unsigned long long word = ((warp * READS) * 32 + lane) * stride;
        unsigned int sum = 0;
#pragma unroll 16
        for (int i = 0; i < READS; ++i) {
            sum += input[word & mask];
            word += step;
        }
        output[g] = sum;
    }

    if (witness) {
        clock[0] = (unsigned long long)(clock64() - c0);
        clock[1] = global_ns() - t0;
    }
}

// The reference (kernels/coalescing.yaml, `reference`): logical thread g (warp w, lane L)
// sums input[((w * READS + i) * 32 + L) * stride mod 2^WORDS_LOG2] over i < READS, one
// index computed from scratch per read. The measured kernel's output must equal this one's
// word for word.
extern "C" __global__ void __launch_bounds__(256)
coalescing_reference(const unsigned int* __restrict__ input,
                     unsigned int* __restrict__ output,
                     int stride,
                     int logical_blocks,
                     unsigned long long* __restrict__ clock)
{
    (void)clock;
    for (int b = blockIdx.x; b < logical_blocks; b += gridDim.x) {
        const unsigned long long g = (unsigned long long)b * blockDim.x + threadIdx.x;
        const unsigned long long warp = g / 32, lane = g % 32;
        unsigned int sum = 0;
        for (unsigned long long i = 0; i < READS; ++i)
            sum += input[(((warp * READS + i) * 32 + lane) * stride) % (1ull << WORDS_LOG2)];
        output[g] = sum;
    }
}
