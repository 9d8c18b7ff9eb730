//! The global-memory geometry the `global` access model (`access::global`) counts in:
//! 32-byte sectors of 128-byte cache lines, and the 64-byte pieces device memory moves.

/// Bytes of one sector, the unit the memory system moves between L2 and the SM.
pub(crate) const SECTOR_BYTES: u64 = 32;
/// Bytes of one cache line (four sectors).
pub(crate) const LINE_BYTES: u64 = 128;
/// Bytes device memory delivers for any sector it is asked for: two sectors. The H200 showed
/// it (reports/measurements.md): at a lane stride of 16 words every lane needs one sector of
/// its own 64-byte piece, and the load costs twice the stride-8 load, although both touch 32
/// sectors. Sectors count what L1 asks of L2; these pieces count what HBM moves.
pub(crate) const DRAM_ATOM_BYTES: u64 = 64;
