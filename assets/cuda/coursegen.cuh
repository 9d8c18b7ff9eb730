// coursegen.cuh: the kernel contract of `coursegen measure`, in one place.
//
// coursegen hands this header to NVRTC (`#include <coursegen.cuh>` needs no file of the
// course); `coursegen eject` writes a copy to kernels/coursegen.cuh to read or to give an
// editor, and a course's own kernels/coursegen.cuh is then the one compiled. A kernel that
// does not include it works as before, as long as it keeps the contract below.
//
// `coursegen measure --gpu` launches the measured kernel and its reference (the manifest's
// `kernel` and `reference.kernel`, both `extern "C" __global__` in kernels/NAME.cu) as
//
//     name(input, output, value, logical_blocks, clock)
//
//   input           COURSEGEN_INPUT_WORDS 32-bit words (the manifest's `input_words`),
//                   pseudo-random and never all zero, fresh for each run; the same words
//                   for the kernel and its reference. Allocated with cuMemAlloc: aligned to
//                   at least 256 bytes.
//   output          one 32-bit word per logical thread (logical_blocks × block threads),
//                   filled with a poison word before each checked launch: every logical
//                   thread must write its word, and it must equal the reference's.
//   value           the row's value of the manifest's `axis` (the one swept argument).
//   logical_blocks  waves × SMs × blocks resident per SM (the manifest's `launch.waves`):
//                   the same work on every SM of any GPU.
//   clock           two 64-bit words: thread 0 of block 0 (the witness) writes the SM
//                   cycles and nanoseconds it was alive, so the record states the SM clock
//                   of the timed launch. The reference need not write it.
//
// The grid is logical_blocks blocks, or, with `launch.persistent: true`, one resident wave
// (SMs × blocks per SM) that loops over the logical blocks: either way a block runs
// logical blocks blockIdx.x, blockIdx.x + gridDim.x, ... below logical_blocks, which is
// what `coursegen::blocks` walks.
#pragma once

#if !defined(COURSEGEN_INPUT_WORDS) || !defined(COURSEGEN_BLOCK_THREADS)
#error "coursegen.cuh: COURSEGEN_INPUT_WORDS and COURSEGEN_BLOCK_THREADS come from the manifest; compile through coursegen (check, measure), or pass -D for each"
#endif

// The parameters of every measured and reference kernel; `axis` names the swept argument:
//     extern "C" __global__ void my_kernel(COURSEGEN_PARAMS(stride)) { ... }
#define COURSEGEN_PARAMS(axis)                                                              \
    const unsigned int *__restrict__ input, unsigned int *__restrict__ output, int axis,    \
        int logical_blocks, unsigned long long *__restrict__ clock

namespace coursegen {

// The manifest's `input_words`: the words of `input`, stated once, in the manifest.
constexpr unsigned int input_words = COURSEGEN_INPUT_WORDS;
// The manifest's `launch.block_threads`, e.g. for __launch_bounds__.
constexpr unsigned int block_threads = COURSEGEN_BLOCK_THREADS;

// The GPU's global timer, in nanoseconds.
__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// The clock witness: declare one first thing in the measured kernel,
//     coursegen::Witness witness(clock);
// and thread 0 of block 0 writes its SM cycles and nanoseconds to clock[0..2] when the
// kernel returns.
class Witness {
public:
    __device__ __forceinline__ explicit Witness(unsigned long long *clock)
        : on_(blockIdx.x == 0 && threadIdx.x == 0), clock_(clock)
    {
        if (on_) {
            c0_ = clock64();
            t0_ = global_ns();
        }
    }
    __device__ __forceinline__ ~Witness()
    {
        if (on_) {
            clock_[0] = (unsigned long long)(clock64() - c0_);
            clock_[1] = global_ns() - t0_;
        }
    }
    Witness(const Witness &) = delete;
    Witness &operator=(const Witness &) = delete;

private:
    bool on_;
    long long c0_ = 0;
    unsigned long long t0_ = 0;
    unsigned long long *clock_;
};

// The logical blocks this block runs, for a range-for:
//     for (int b : coursegen::blocks(logical_blocks)) { ... }
struct BlocksEnd {};
struct BlocksIter {
    int b, end;
    __device__ __forceinline__ int operator*() const { return b; }
    // `b += gridDim.x` as a hand-written loop says it (unsigned, read each time), so the
    // compiler makes the same code of both.
    __device__ __forceinline__ BlocksIter &operator++()
    {
        b += gridDim.x;
        return *this;
    }
    __device__ __forceinline__ bool operator!=(BlocksEnd) const { return b < end; }
};
struct Blocks {
    int logical_blocks;
    __device__ __forceinline__ BlocksIter begin() const
    {
        return {(int)blockIdx.x, logical_blocks};
    }
    __device__ __forceinline__ BlocksEnd end() const { return {}; }
};
__device__ __forceinline__ Blocks blocks(int logical_blocks) { return {logical_blocks}; }

// This thread's index among all logical threads, in logical block b: where its output
// word goes, `output[coursegen::thread_of(b)]`.
__device__ __forceinline__ unsigned long long thread_of(int b)
{
    return (unsigned long long)b * blockDim.x + threadIdx.x;
}

// Copies the whole input into `tile` (shared memory of input_words words) with the block's
// threads, then waits for all of them.
__device__ __forceinline__ void load_tile(unsigned int *tile, const unsigned int *input)
{
    for (int w = threadIdx.x; w < (int)input_words; w += blockDim.x)
        tile[w] = input[w];
    __syncthreads();
}

} // namespace coursegen
