//! The global-memory coalescing model, pure like the bank model beside it: a warp's 32
//! addresses become requests for 32-byte sectors of 128-byte cache lines, and the cost of a
//! warp-wide load is the number of distinct sectors it touches.
use std::collections::BTreeSet;

use super::model::WARP_SIZE;

/// Bytes of one sector, the unit the memory system moves between L2 and the SM.
pub const SECTOR_BYTES: u64 = 32;
/// Bytes of one cache line (four sectors).
pub const LINE_BYTES: u64 = 128;
/// Bytes each lane reads in the course's kernels (one `unsigned int`).
pub const WORD_BYTES: u64 = 4;
/// Bytes device memory delivers for any sector it is asked for: two sectors. The H200 showed
/// it (measurements/README.md): at a lane stride of 16 words every lane needs one sector of
/// its own 64-byte piece, and the load costs twice the stride-8 load, although both touch 32
/// sectors. Sectors count what L1 asks of L2; these pieces count what HBM moves.
pub const DRAM_ATOM_BYTES: u64 = 64;

/// What one warp-wide load costs the memory system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarpLoad {
    /// Distinct 32-byte sectors touched, in address order.
    pub sectors: Vec<u64>,
    /// Distinct 128-byte lines touched.
    pub lines: u32,
    /// Bytes the lanes asked for (distinct words × word size).
    pub useful_bytes: u64,
}

impl WarpLoad {
    /// Sectors fetched for this request.
    pub fn sectors_per_request(&self) -> u32 {
        self.sectors.len() as u32
    }

    /// Bytes fetched: sectors × 32.
    pub fn fetched_bytes(&self) -> u64 {
        self.sectors.len() as u64 * SECTOR_BYTES
    }

    /// Useful bytes over fetched bytes (1.0 when perfectly coalesced).
    pub fn efficiency(&self) -> f64 {
        self.useful_bytes as f64 / self.fetched_bytes() as f64
    }

    /// Bytes device memory moves for this request: distinct 64-byte pieces × 64, what a
    /// load that misses every cache costs in time.
    pub fn dram_bytes(&self) -> u64 {
        let per_atom = DRAM_ATOM_BYTES / SECTOR_BYTES;
        let mut atoms: Vec<u64> = self.sectors.iter().map(|s| s / per_atom).collect();
        atoms.dedup();
        atoms.len() as u64 * DRAM_ATOM_BYTES
    }
}

/// The cost of a warp loading one 4-byte word at each byte address.
pub fn analyze(addresses: &[u64]) -> WarpLoad {
    let words: BTreeSet<u64> = addresses.iter().map(|a| a / WORD_BYTES).collect();
    let sectors: BTreeSet<u64> = addresses.iter().map(|a| a / SECTOR_BYTES).collect();
    let lines: BTreeSet<u64> = addresses.iter().map(|a| a / LINE_BYTES).collect();
    WarpLoad {
        sectors: sectors.into_iter().collect(),
        lines: lines.len() as u32,
        useful_bytes: words.len() as u64 * WORD_BYTES,
    }
}

/// Byte addresses of the 32 lanes reading 4-byte words at a lane stride of `stride` words,
/// starting at an aligned line.
pub fn strided_addresses(stride_words: u32) -> [u64; WARP_SIZE] {
    std::array::from_fn(|lane| lane as u64 * u64::from(stride_words) * WORD_BYTES)
}

/// The load of a warp at a lane stride of `stride` words.
pub fn strided_load(stride_words: u32) -> WarpLoad {
    analyze(&strided_addresses(stride_words))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(stride: u32, sectors: u32, lines: u32, efficiency: f64) {
        let load = strided_load(stride);
        assert_eq!(
            (load.sectors_per_request(), load.lines, load.efficiency()),
            (sectors, lines, efficiency),
            "stride {stride}"
        );
    }

    /// Device memory moves two sectors at a time: strides up to 8 words cost their sectors,
    /// 16 and 32 cost a 64-byte piece per lane.
    #[test]
    fn dram_bytes_double_once_lanes_leave_their_neighbours_pieces() {
        let bytes: Vec<u64> = [1, 2, 4, 8, 16, 32]
            .iter()
            .map(|&s| strided_load(s).dram_bytes())
            .collect();
        assert_eq!(bytes, [128, 256, 512, 1024, 2048, 2048]);
    }

    /// Every claim the coalescing entry makes: stride 1 is four sectors of one line, and each
    /// doubling of the stride doubles the sectors until every lane has its own.
    #[test]
    fn strided_loads_cost_what_the_glossary_says() {
        case(0, 1, 1, 4.0 / 32.0); // a broadcast: one word, one sector
        case(1, 4, 1, 1.0);
        case(2, 8, 2, 0.5);
        case(4, 16, 4, 0.25);
        case(8, 32, 8, 0.125);
        case(16, 32, 16, 0.125);
        case(32, 32, 32, 0.125);
        case(3, 12, 3, 128.0 / 384.0);
    }

    #[test]
    fn a_misaligned_warp_touches_one_more_sector_and_line() {
        let shifted: Vec<u64> = strided_addresses(1).iter().map(|a| a + 4).collect();
        let load = analyze(&shifted);
        assert_eq!((load.sectors_per_request(), load.lines), (5, 2));
    }
}
