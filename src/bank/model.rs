//! The shared-memory bank model: which bank serves a byte address, and how many serialized
//! passes one warp's load needs. Pure arithmetic on plain data (no I/O, no GPU); it depends
//! on no other module of ours.

/// Lanes in a warp, the same on every compute capability the course covers; used wherever
/// a warp-wide access is built.
pub(crate) const WARP_SIZE: usize = 32;

/// Shared-memory geometry of a compute capability; used wherever an address becomes a bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Geometry {
    banks: u32,
    word_bytes: u32,
}

impl Geometry {
    /// 32 banks of 4 bytes, as on every CC in [`known_ccs`]; used when no CC is named.
    pub const STANDARD: Geometry = Geometry {
        banks: 32,
        word_bytes: 4,
    };

    /// Most banks a geometry may have: [`analyze`] keeps a counter per bank, and no GPU comes
    /// near this.
    #[cfg(test)]
    pub(crate) const MAX_BANKS: u32 = 1024;

    /// A geometry with `banks` banks of `word_bytes` bytes; `None` if either is zero or there
    /// are more than [`Geometry::MAX_BANKS`] banks.
    #[cfg(test)]
    pub(crate) const fn new(banks: u32, word_bytes: u32) -> Option<Geometry> {
        if banks == 0 || banks > Geometry::MAX_BANKS || word_bytes == 0 {
            None
        } else {
            Some(Geometry { banks, word_bytes })
        }
    }

    /// Number of banks that answer in the same cycle.
    pub(crate) const fn banks(self) -> u32 {
        self.banks
    }

    /// Bytes one bank delivers per cycle: the width of one word.
    pub(crate) const fn word_bytes(self) -> u32 {
        self.word_bytes
    }

    /// Index of the word that holds byte `address`.
    pub(crate) const fn word_of(self, address: u64) -> u64 {
        address / self.word_bytes as u64
    }

    /// Bank holding word `word`: successive words go to successive banks.
    pub(crate) const fn bank_of_word(self, word: u64) -> u32 {
        // The remainder is below `banks`, a u32, so the narrowing cast is lossless.
        (word % self.banks as u64) as u32
    }

    /// Bank serving byte `address`: `(address / word_bytes) mod banks`.
    pub(crate) const fn bank_of_address(self, address: u64) -> u32 {
        self.bank_of_word(self.word_of(address))
    }

    /// Byte address of word `word`, the inverse of [`Geometry::word_of`] at word starts.
    pub(crate) const fn address_of_word(self, word: u64) -> u64 {
        word * self.word_bytes as u64
    }
}

// Kept as data, one row per CC, so a future architecture with other banks is a one-line
// change. The "Number of shared memory banks" row of the CUDA programming guide's
// compute-capability table reads 32 (of 4 bytes) for every one of these.
const KNOWN_CCS: [(&str, Geometry); 16] = [
    ("5.0", Geometry::STANDARD),
    ("5.2", Geometry::STANDARD),
    ("5.3", Geometry::STANDARD),
    ("6.0", Geometry::STANDARD),
    ("6.1", Geometry::STANDARD),
    ("6.2", Geometry::STANDARD),
    ("7.0", Geometry::STANDARD),
    ("7.2", Geometry::STANDARD),
    ("7.5", Geometry::STANDARD),
    ("8.0", Geometry::STANDARD),
    ("8.6", Geometry::STANDARD),
    ("8.7", Geometry::STANDARD),
    ("8.9", Geometry::STANDARD),
    ("9.0", Geometry::STANDARD),
    ("10.0", Geometry::STANDARD),
    ("12.0", Geometry::STANDARD),
];

/// Compute capabilities the course knows, oldest first; the site checks a front-matter `cc`
/// against them and lists them when it is unknown.
pub(crate) fn known_ccs() -> impl ExactSizeIterator<Item = &'static str> + Clone {
    KNOWN_CCS.iter().map(|&(cc, _)| cc)
}

/// Geometry of compute capability `cc` written as in front matter (`"7.5"`); `None` if the
/// course does not know it.
pub(crate) fn geometry(cc: &str) -> Option<Geometry> {
    KNOWN_CCS
        .iter()
        .find(|&&(known, _)| known == cc)
        .map(|&(_, geometry)| geometry)
}

/// What one warp-wide shared load costs under the model; made by [`analyze`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WarpAccess {
    // Per bank, the number of *distinct* words asked of it: lanes reading the same word are
    // served by one multicast, so they count once.
    words_per_bank: Vec<u32>,
}

impl WarpAccess {
    /// How many distinct banks the lanes touch (the measured table's "Banks the 32 lanes cover").
    pub(crate) fn banks_covered(&self) -> u32 {
        let covered = self.words_per_bank.iter().filter(|&&n| n > 0).count();
        u32::try_from(covered).expect("bank count fits in u32")
    }

    /// Conflict degree: the most distinct words asked of one bank (0 when no lane reads).
    pub(crate) fn conflict_degree(&self) -> u32 {
        self.words_per_bank.iter().copied().max().unwrap_or(0)
    }

    /// Predicted wavefronts: a bank puts one word on the wire per pass, so the busiest bank
    /// sets the number of serialized passes.
    pub(crate) fn wavefronts(&self) -> u32 {
        self.conflict_degree()
    }

    /// Predicted slowdown against a conflict-free load, which takes one wavefront.
    pub(crate) fn slowdown(&self) -> u32 {
        self.wavefronts()
    }

    /// Distinct words asked of each bank, indexed by bank; the lane-banks diagram shades by it.
    pub(crate) fn words_per_bank(&self) -> &[u32] {
        &self.words_per_bank
    }
}

/// Analyses one warp's load, given each active lane's byte address (normally [`WARP_SIZE`] of
/// them); bytes of the same word count as one word.
pub(crate) fn analyze(addresses: &[u64], geometry: Geometry) -> WarpAccess {
    let mut words: Vec<u64> = addresses.iter().map(|&a| geometry.word_of(a)).collect();
    words.sort_unstable();
    words.dedup();
    let mut words_per_bank = vec![0; geometry.banks() as usize];
    for word in words {
        words_per_bank[geometry.bank_of_word(word) as usize] += 1;
    }
    WarpAccess { words_per_bank }
}

/// Byte addresses of the load in which lane L reads word `stride_words · L`.
pub(crate) fn strided_addresses(stride_words: u32, geometry: Geometry) -> [u64; WARP_SIZE] {
    std::array::from_fn(|lane| geometry.address_of_word(u64::from(stride_words) * lane as u64))
}

/// Word index of `tile[row][column]` in a tile declared with rows of `row_width` words.
pub(crate) fn tile_word(row: u32, column: u32, row_width: u32) -> u64 {
    u64::from(row) * u64::from(row_width) + u64::from(column)
}

/// Bank of `tile[row][column]` in a tile declared with rows of `row_width` words.
pub(crate) fn tile_bank(row: u32, column: u32, row_width: u32, geometry: Geometry) -> u32 {
    geometry.bank_of_word(tile_word(row, column, row_width))
}

/// Byte addresses when lane L reads `tile[row][L]`: a warp walking along one row.
pub(crate) fn row_walk(row: u32, row_width: u32, geometry: Geometry) -> [u64; WARP_SIZE] {
    std::array::from_fn(|lane| geometry.address_of_word(tile_word(row, lane as u32, row_width)))
}

/// Byte addresses when lane L reads `tile[L][column]`: a warp walking down one column.
pub(crate) fn column_walk(column: u32, row_width: u32, geometry: Geometry) -> [u64; WARP_SIZE] {
    std::array::from_fn(|lane| geometry.address_of_word(tile_word(lane as u32, column, row_width)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const G: Geometry = Geometry::STANDARD;

    fn gcd(a: u32, b: u32) -> u32 {
        if b == 0 { a } else { gcd(b, a % b) }
    }

    /// Lane L reads word `stride · L`: the banks it covers and its conflict degree.
    #[track_caller]
    fn stride_case(stride: u32, banks: u32, degree: u32) {
        let access = analyze(&strided_addresses(stride, G), G);
        assert_eq!(
            access.banks_covered(),
            banks,
            "banks covered, stride {stride}"
        );
        assert_eq!(access.conflict_degree(), degree, "degree, stride {stride}");
        assert_eq!(access.wavefronts(), degree, "wavefronts, stride {stride}");
    }

    #[test]
    fn seed_measured_table_rows() {
        // The seed's three rows: L, 32L, 33L.
        stride_case(1, 32, 1);
        stride_case(32, 1, 32);
        stride_case(33, 32, 1);
        // And a few more the general law predicts.
        stride_case(2, 16, 2);
        stride_case(4, 8, 4);
        stride_case(16, 2, 16);
        stride_case(31, 32, 1);
        stride_case(64, 1, 32);
        stride_case(0, 1, 1); // every lane on word 0: one multicast
    }

    #[track_caller]
    fn address_case(address: u64, bank: u32) {
        assert_eq!(G.bank_of_address(address), bank, "bank of byte {address}");
    }

    #[test]
    fn bank_of_a_byte_address() {
        // "(byteAddress / 4) % 32": word 0 to bank 0, word 31 to bank 31, word 32 back to 0.
        address_case(0, 0);
        address_case(3, 0);
        address_case(4, 1);
        address_case(31 * 4, 31);
        address_case(32 * 4, 0);
        address_case(33 * 4 + 2, 1);
        address_case(u64::MAX, 31);
    }

    #[test]
    fn every_element_of_a_column_of_tile_32x32_is_in_bank_c() {
        for column in 0..32 {
            for row in 0..32 {
                assert_eq!(tile_word(row, column, 32), u64::from(32 * row + column));
                assert_eq!(
                    tile_bank(row, column, 32, G),
                    column,
                    "tile[{row}][{column}]"
                );
            }
            let walk = analyze(&column_walk(column, 32, G), G);
            assert_eq!(walk.banks_covered(), 1);
            assert_eq!(walk.conflict_degree(), 32);
            assert_eq!(walk.words_per_bank()[column as usize], 32);
        }
    }

    #[test]
    fn tile_32x33_puts_r_c_in_bank_r_plus_c_and_a_column_walk_visits_every_bank() {
        for column in 0..33 {
            for row in 0..32 {
                assert_eq!(tile_word(row, column, 33), u64::from(33 * row + column));
                assert_eq!(tile_bank(row, column, 33, G), (row + column) % 32);
            }
            let walk = analyze(&column_walk(column, 33, G), G);
            assert_eq!(walk.banks_covered(), 32, "column {column}");
            assert_eq!(walk.conflict_degree(), 1, "column {column}");
        }
    }

    #[test]
    fn a_row_walk_touches_all_32_banks_once_each() {
        for width in [32, 33] {
            for row in 0..32 {
                let walk = analyze(&row_walk(row, width, G), G);
                assert_eq!(walk.banks_covered(), 32);
                assert_eq!(walk.words_per_bank(), [1; 32]);
            }
        }
    }

    #[test]
    fn all_lanes_on_one_address_multicast() {
        let access = analyze(&[4 * 77; WARP_SIZE], G);
        assert_eq!(access.banks_covered(), 1);
        assert_eq!(access.conflict_degree(), 1);
        // Different bytes of one word are one word too.
        let bytes: Vec<u64> = (0..WARP_SIZE as u64).map(|lane| 40 + lane % 4).collect();
        assert_eq!(analyze(&bytes, G).conflict_degree(), 1);
    }

    #[test]
    fn two_words_in_one_bank_conflict_even_with_multicast_around_them() {
        // 16 lanes on word 0 and 16 on word 32: same bank, different words.
        let addresses: Vec<u64> = (0..32)
            .map(|lane| if lane < 16 { 0 } else { 128 })
            .collect();
        let access = analyze(&addresses, G);
        assert_eq!((access.banks_covered(), access.conflict_degree()), (1, 2));
        assert_eq!(access.slowdown(), 2);
    }

    #[test]
    fn no_lanes_cost_nothing() {
        let access = analyze(&[], G);
        assert_eq!((access.banks_covered(), access.conflict_degree()), (0, 0));
    }

    #[test]
    fn every_known_cc_has_32_banks_of_4_bytes() {
        assert_eq!(known_ccs().len(), 16);
        for cc in known_ccs() {
            assert_eq!(geometry(cc), Some(G), "cc {cc}");
        }
        assert_eq!(geometry("7.5"), Some(G));
        for unknown in ["", "7", "7.50", "3.5", "sm_75"] {
            assert_eq!(geometry(unknown), None, "{unknown:?}");
        }
        assert_eq!(Geometry::new(0, 4), None);
        assert_eq!(Geometry::new(32, 0), None);
        assert_eq!(Geometry::new(Geometry::MAX_BANKS + 1, 4), None);
        assert_eq!(Geometry::new(32, 4), Some(G));
    }

    proptest! {
        #[test]
        fn stride_law_degree_is_gcd_with_32(stride in 1u32..100_000) {
            let g = gcd(stride, 32);
            let access = analyze(&strided_addresses(stride, G), G);
            prop_assert_eq!(access.conflict_degree(), g);
            prop_assert_eq!(access.banks_covered(), 32 / g);
        }

        #[test]
        fn stride_law_holds_for_other_bank_counts(stride in 1u32..10_000, log2 in 0u32..7) {
            // With 2^k banks and 32 lanes, at most min(32, banks) banks can be covered.
            let banks = 1 << log2;
            let geometry = Geometry::new(banks, 4).unwrap();
            let covered = (banks / gcd(stride, banks)).min(32);
            let access = analyze(&strided_addresses(stride, geometry), geometry);
            prop_assert_eq!(access.banks_covered(), covered);
            prop_assert_eq!(access.conflict_degree(), 32u32.div_ceil(covered));
        }

        #[test]
        fn analysis_ignores_lane_order_and_repeated_addresses(
            mut addresses in prop::collection::vec(0u64..4096, 1..=32),
        ) {
            let access = analyze(&addresses, G);
            let degree = access.conflict_degree();
            prop_assert!((1..=32).contains(&degree));
            prop_assert!(access.banks_covered() as usize <= addresses.len());
            let distinct: u32 = access.words_per_bank().iter().sum();
            prop_assert!(distinct <= access.banks_covered() * degree);
            let first = addresses[0];
            addresses.push(first);
            addresses.reverse();
            prop_assert_eq!(analyze(&addresses, G), access);
        }
    }
}
