// A 32×32 tile read by columns: naive, padded to 33 words a row, and XOR-swizzled.
//
// Every logical thread reads 2048 words of a __shared__ tile. Lane L of a warp reads row L,
// and at every load the warp's 32 lanes read one column c between them, so each load is a
// column of the tile. How a column lies in the banks is the one runtime argument of the
// sweep, `layout`:
//   0, naive:    tile[L][c] is word 32·L + c, bank c for every lane: one bank asked for 32
//                different words, served one per wavefront (32 wavefronts per load);
//   1, padded:   rows of 33 words, tile[L][c] is word 33·L + c, bank (L + c) mod 32: all
//                32 banks once (1 wavefront), at the price of one unused word per row;
//   2, swizzled: rows of 32 words, but column c of row L is stored at c ^ L, so tile[L][c]
//                is word 32·L + (c ^ L), bank c ^ L: again all 32 banks once, and no
//                padding (the XOR of a row index is how CUTLASS-style kernels lay out tiles).
// kernels/swizzled_tile.yaml declares that map (`model.word`); Nsight Compute's wavefronts
// per shared load are checked against it.
//
// Lane L reads row (L + b + p) mod 32 in pass p of logical block b: the lanes of a warp
// still read 32 different rows (a rotation of the map above, with the same banks), and no
// load can be hoisted out of the loops. The loads are what the hardware limit needs: the
// padded tile is read at compile-time offsets from one row pointer, and the naive and
// swizzled tiles, whose rows are 128-byte aligned, at byte (row·128 | flip·4) XOR 4·c, a
// single LOP3 in front of each LDS (flip is the row for the swizzle, 0 otherwise). The
// tile is read through a volatile pointer so that every read stays one 4-byte LDS, as the
// map says: otherwise the compiler proves the naive rows 16-byte aligned and merges four
// neighbouring columns into one LDS.128 (measured: a quarter of the loads, each 32
// wavefronts, and 8 times the padded row's time instead of 32). Each
// value is weighted by its column's odd factor, so a lane that read its columns in another
// order would sum to something else. The result (a wrapping sum per thread) is written out
// and compared word for word with swizzled_tile_reference's before any time counts.
//
// Launched by `coursegen measure --gpu` as swizzled_tile(input, output, layout,
// logical_blocks, clock): thread 0 of block 0 writes the SM cycles and nanoseconds it was
// alive to clock[0..2], so the record can state the SM clock during the timed launch.

#define TILE_WORDS (32 * 33)
#define PASSES 64

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void __launch_bounds__(1024, 2)
swizzled_tile(const unsigned int* __restrict__ input,
              unsigned int* __restrict__ output,
              int layout,
              int logical_blocks,
              unsigned long long* __restrict__ clock)
{
    __shared__ __align__(128) unsigned int tile[TILE_WORDS];

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

    // [region column-reads]
    const unsigned int lane = threadIdx.x & 31;
    for (int b = blockIdx.x; b < logical_blocks; b += gridDim.x) {
        unsigned int sum = 0;
        if (layout == 1) {
#pragma unroll 1
            for (int pass = 0; pass < PASSES; ++pass) {
                const unsigned int r = (lane + b + pass) & 31;
                const volatile unsigned int* row = tile + r * 33;
#pragma unroll
                for (unsigned int c = 0; c < 32; c += 2)
                    sum += row[c] * (2 * c + 1) + row[c + 1] * (2 * c + 3);
            }
        } else {
            const volatile char* base = reinterpret_cast<const volatile char*>(tile);
#pragma unroll 1
            for (int pass = 0; pass < PASSES; ++pass) {
                const unsigned int r = (lane + b + pass) & 31;
                const unsigned int at = (r * 32 | (layout == 2 ? r : 0u)) * 4;
#pragma unroll
                for (unsigned int c = 0; c < 32; c += 2)
                    sum += *reinterpret_cast<const volatile unsigned int*>(base + (at ^ (4 * c))) * (2 * c + 1)
                         + *reinterpret_cast<const volatile unsigned int*>(base + (at ^ (4 * c + 4))) * (2 * c + 3);
            }
        }
        output[(size_t)b * blockDim.x + threadIdx.x] = sum;
    }
    // [end column-reads]

    if (witness) {
        clock[0] = (unsigned long long)(clock64() - c0);
        clock[1] = global_ns() - t0;
    }
}

// The reference (kernels/swizzled_tile.yaml, `reference`): the same reads straight from
// global memory, one index computed from scratch per read: in pass p of logical block b,
// lane L reads row r = (L + b + p) mod 32, column c at word 32·r + c (naive), 33·r + c
// (padded) or 32·r + (c ^ r) (swizzled), weighted by 2·c + 1. The measured kernel's output
// must equal this one's word for word.
extern "C" __global__ void __launch_bounds__(1024)
swizzled_tile_reference(const unsigned int* __restrict__ input,
                        unsigned int* __restrict__ output,
                        int layout,
                        int logical_blocks,
                        unsigned long long* __restrict__ clock)
{
    (void)clock;
    const unsigned int lane = threadIdx.x % 32;
    for (int b = blockIdx.x; b < logical_blocks; b += gridDim.x) {
        unsigned int sum = 0;
        for (int pass = 0; pass < PASSES; ++pass) {
            const unsigned int r = (lane + b + pass) % 32;
            for (unsigned int c = 0; c < 32; ++c) {
                unsigned int word;
                if (layout == 0)
                    word = 32 * r + c;
                else if (layout == 1)
                    word = 33 * r + c;
                else
                    word = 32 * r + (c ^ r);
                sum += input[word] * (2 * c + 1);
            }
        }
        output[(size_t)b * blockDim.x + threadIdx.x] = sum;
    }
}
