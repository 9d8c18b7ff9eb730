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
mod tests;
