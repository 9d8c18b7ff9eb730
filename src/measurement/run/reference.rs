//! The CPU reference: random input words, each thread's expected result as the manifest's
//! `reference` defines it, and the check of a launch's whole output against it. Pure; no GPU.
use crate::measurement::manifest::Reference;

/// What the output buffer is filled with before a checked launch, so an unwritten word shows.
pub(crate) const POISON: u32 = 0xDEAD_BEEF;

/// Pseudo-random input words (xorshift64*), never all zero, reproducible from `seed`.
pub(crate) fn input(words: u32, seed: u64) -> Vec<u32> {
    let mut state = seed | 1;
    (0..words)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
        })
        .collect()
}

/// The first wrong thread of a checked launch, and how many were wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mismatch {
    pub(crate) thread: u64,
    pub(crate) expected: u32,
    pub(crate) got: u32,
    pub(crate) wrong: u64,
    pub(crate) total: u64,
}

/// Every thread's expected result for one axis value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expected {
    /// `lane_window_sum`: the result of (block offset `o`, lane `l`) at index `o * 32 + l`.
    Lanes { by_offset_lane: Vec<u32>, mask: u32 },
    /// `strided_sum`: one result per logical thread, in launch order.
    Threads(Vec<u32>),
    /// `divergent_paths`: the result of (lane `l`, path `p`) at index `l * 32 + p`, and the
    /// shift that gives a thread's path (`(g >> shift) mod 32`).
    Paths { by_lane_path: Vec<u32>, shift: u32 },
}

impl Expected {
    /// Computes the reference for axis value `value` over `input`, for `threads` logical
    /// threads.
    pub(crate) fn new(reference: &Reference, input: &[u32], value: u32, threads: u64) -> Expected {
        match *reference {
            Reference::LaneWindowSum {
                reads,
                window,
                block_offset_mask,
            } => lanes(input, value, (reads, window, block_offset_mask)),
            Reference::StridedSum { reads } => strided(input, value, reads, threads),
            Reference::DivergentPaths { iterations, chains } => {
                paths(input, value, iterations, chains)
            }
        }
    }

    /// What thread `thread` of logical block `block` (of `block_threads`) must return.
    pub(crate) fn at(&self, block: u64, thread: u32, block_threads: u32) -> u32 {
        match self {
            Expected::Lanes {
                by_offset_lane,
                mask,
            } => {
                let offset = (block & u64::from(*mask)) as usize;
                by_offset_lane[offset * 32 + (thread % 32) as usize]
            }
            Expected::Threads(all) => {
                all[(block * u64::from(block_threads) + u64::from(thread)) as usize]
            }
            Expected::Paths {
                by_lane_path,
                shift,
            } => {
                // The kernel's index is 32 bits wide.
                let g = (block * u64::from(block_threads) + u64::from(thread)) as u32;
                let path = (g >> shift) & 31;
                by_lane_path[((thread % 32) * 32 + path) as usize]
            }
        }
    }

    /// Checks a whole output buffer of `block_threads`-thread logical blocks.
    pub(crate) fn check_output(&self, output: &[u32], block_threads: u32) -> Result<u64, Mismatch> {
        let mut first = None;
        let mut wrong = 0u64;
        for (i, &got) in output.iter().enumerate() {
            let i = i as u64;
            let want = self.at(
                i / u64::from(block_threads),
                (i % u64::from(block_threads)) as u32,
                block_threads,
            );
            if got != want {
                wrong += 1;
                first.get_or_insert((i, want, got));
            }
        }
        match first {
            None => Ok(output.len() as u64),
            Some((thread, expected, got)) => Err(Mismatch {
                thread,
                expected,
                got,
                wrong,
                total: output.len() as u64,
            }),
        }
    }
}

fn lanes(input: &[u32], value: u32, (reads, window, mask): (u32, u32, u32)) -> Expected {
    let passes = reads / window;
    let mut by_offset_lane = Vec::with_capacity(32 * (mask as usize + 1));
    for offset in 0..=mask {
        for lane in 0..32u32 {
            let start = (lane * value + offset) as usize;
            let mut sum = 0u32;
            for pass in 0..passes as usize {
                let words = &input[start + pass..start + pass + window as usize];
                sum = words.iter().fold(sum, |a, &w| a.wrapping_add(w));
            }
            by_offset_lane.push(sum);
        }
    }
    Expected::Lanes {
        by_offset_lane,
        mask,
    }
}

/// Thread g (warp w, lane L) sums `input[((w·reads + i)·32 + L)·value mod len]`; the buffer
/// is a power of two long (the manifest checks), so the modulo is a mask, as in the kernel.
/// Hundreds of millions of reads for a real launch: spread over the CPU's cores.
fn strided(input: &[u32], value: u32, reads: u32, threads: u64) -> Expected {
    use rayon::prelude::*;
    let mask = input.len() as u64 - 1;
    let (value, reads) = (u64::from(value), u64::from(reads));
    let all = (0..threads)
        .into_par_iter()
        .map(|g| {
            let (warp, lane) = (g / 32, g % 32);
            (0..reads).fold(0u32, |sum, i| {
                let word = (((warp * reads + i) * 32 + lane) * value) & mask;
                sum.wrapping_add(input[word as usize])
            })
        })
        .collect();
    Expected::Threads(all)
}

/// Lane L on path p starts from `input[L·chains + k]` and runs `iterations` rounds of
/// x = x·1664525 + 0x9E3779B9·(p + 1), x ^= x >> 13 on each chain k; the result is their
/// wrapping sum. Which lanes are on which path depends only on the thread's index and the
/// number of paths (a power of two, the manifest checks): thread g is on path
/// (g >> (5 − log2 paths)) mod 32. Every (lane, path) pair, 1024 of them, spread over the
/// CPU's cores.
fn paths(input: &[u32], value: u32, iterations: u32, chains: u32) -> Expected {
    use rayon::prelude::*;
    let shift = 5 - value.max(1).trailing_zeros().min(5);
    let by_lane_path = (0..32 * 32u32)
        .into_par_iter()
        .map(|i| {
            let (lane, path) = (i / 32, i % 32);
            let c = 0x9E37_79B9u32.wrapping_mul(path + 1);
            (0..chains).fold(0u32, |sum, k| {
                let mut x = input[(lane * chains + k) as usize];
                for _ in 0..iterations {
                    x = x.wrapping_mul(1_664_525).wrapping_add(c);
                    x ^= x >> 13;
                }
                sum.wrapping_add(x)
            })
        })
        .collect();
    Expected::Paths {
        by_lane_path,
        shift,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REF: Reference = Reference::LaneWindowSum {
        reads: 8,
        window: 4,
        block_offset_mask: 1,
    };

    #[test]
    fn input_is_reproducible_and_not_degenerate() {
        let a = input(2048, 7);
        assert_eq!(a, input(2048, 7));
        assert_ne!(a, input(2048, 8));
        assert!(a.iter().filter(|&&w| w == 0).count() < 2);
    }

    #[test]
    fn expected_matches_the_kernel_indexing_written_out_by_hand() {
        let words: Vec<u32> = (0..200).collect();
        let e = Expected::new(&REF, &words, 3, 0);
        // block 5 (offset 1), thread 34 (lane 2): start 2·3 + 1 = 7; passes 0,1 of 4 words
        let by_hand: u32 = (7..11).sum::<u32>() + (8..12).sum::<u32>();
        assert_eq!(e.at(5, 34, 64), by_hand);
        assert_eq!(e.at(4, 2, 64), (6..10).sum::<u32>() + (7..11).sum::<u32>());
    }

    #[test]
    fn check_counts_wrong_threads_and_reports_the_first() {
        let words = input(256, 1);
        let e = Expected::new(&REF, &words, 2, 0);
        let mut out: Vec<u32> = (0..128u64)
            .map(|i| e.at(i / 64, (i % 64) as u32, 64))
            .collect();
        assert_eq!(e.check_output(&out, 64), Ok(128));
        out[70] = POISON;
        out[90] ^= 1;
        let m = e.check_output(&out, 64).unwrap_err();
        assert_eq!((m.thread, m.got, m.wrong, m.total), (70, POISON, 2, 128));
    }

    #[test]
    fn strided_sum_matches_the_coalescing_kernel_indexing_written_out_by_hand() {
        let words: Vec<u32> = (0..1024).collect();
        let e = Expected::new(&Reference::StridedSum { reads: 2 }, &words, 4, 64);
        // thread 33: warp 1, lane 1; requests 2 and 3 at stride 4: words (2·32 + 1)·4 = 260
        // and (3·32 + 1)·4 = 388.
        assert_eq!(e.at(0, 33, 64), 260 + 388);
        // thread 63 of a launch whose requests wrap: warp 1, lane 31, request 3 at stride 8 is
        // (3·32 + 31)·8 = 1016; request 2 is (2·32 + 31)·8 = 760.
        let e = Expected::new(&Reference::StridedSum { reads: 2 }, &words, 8, 64);
        assert_eq!(e.at(0, 63, 64), 760 + 1016);
        let wrapped = Expected::new(&Reference::StridedSum { reads: 4 }, &words, 8, 64);
        // request 7 of warp 1 at stride 8, lane 0: 7·32·8 = 1792 mod 1024 = 768.
        let by_hand: u32 = [4, 5, 6, 7].iter().map(|r| (r * 32 * 8) % 1024).sum();
        assert_eq!(wrapped.at(0, 32, 64), by_hand);
    }

    /// One round of the kernel's body on chain word `x` for path `p`, written out again.
    fn round(x: u32, p: u32) -> u32 {
        let x = x
            .wrapping_mul(1_664_525)
            .wrapping_add(0x9E37_79B9u32.wrapping_mul(p + 1));
        x ^ (x >> 13)
    }

    #[test]
    fn divergent_paths_match_the_kernel_indexing_written_out_by_hand() {
        let words: Vec<u32> = (100..164).collect();
        let reference = Reference::DivergentPaths {
            iterations: 1,
            chains: 2,
        };
        // 4 paths: lanes in groups of 8. Thread 45 of block 0 (64 threads) is lane 13 of
        // warp 1: g = 45, path (45 >> 3) mod 32 = 5, seeds words 26 and 27.
        let e = Expected::new(&reference, &words, 4, 0);
        assert_eq!(e.at(0, 45, 64), round(126, 5).wrapping_add(round(127, 5)));
        // Block 3, thread 0: g = 192, path 24; lane 0 seeds words 0 and 1.
        assert_eq!(e.at(3, 0, 64), round(100, 24).wrapping_add(round(101, 24)));
        // 1 path per warp: warp w takes path w mod 32, all its lanes together.
        let one = Expected::new(&reference, &words, 1, 0);
        assert_eq!(one.at(0, 33, 64), round(102, 1).wrapping_add(round(103, 1)));
        assert_eq!(one.at(16, 2, 64), round(104, 0).wrapping_add(round(105, 0)));
        // 32 paths: every lane its own, lane L on path L.
        let all = Expected::new(&reference, &words, 32, 0);
        assert_eq!(all.at(5, 7, 64), round(114, 7).wrapping_add(round(115, 7)));
        // Two rounds are the round twice.
        let two = Reference::DivergentPaths {
            iterations: 2,
            chains: 1,
        };
        let e = Expected::new(&two, &words, 32, 0);
        assert_eq!(e.at(0, 3, 32), round(round(103, 3), 3));
    }
}
