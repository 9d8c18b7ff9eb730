//! The three access models a course declares a kernel's lanes with, each from what every
//! lane of one warp touches: `shared` (the shared-memory bytes each lane reads → wavefronts
//! per request, equal words multicast), `global` (the global-memory bytes → 32-byte sectors
//! and 128-byte lines per request) and `branch` (the path each lane takes → passes per warp,
//! threads per instruction). A lane map (`bank::expr`) gives the values; these functions
//! count. Pure, like the models they are built on (`model`, `coalescing`, `divergence`).
use std::collections::BTreeSet;

use super::coalescing::{self, LINE_BYTES, SECTOR_BYTES};
use super::divergence::{self, Divergence};
use super::expr::{EvalError, Expr, ExprError};
use super::model::{Geometry, WARP_SIZE};

/// Bytes one lane may read in a `shared` or `global` access: a word, two or four.
pub(crate) const WIDTHS: [u32; 3] = [4, 8, 16];

/// Highest byte address a map may give (GPUs address 49 bits of virtual memory).
pub(crate) const MAX_ADDRESS: u64 = 1 << 48;

/// Bytes the shared-memory pipe delivers in one wavefront: 32 banks of 4 bytes. A warp whose
/// lanes read 8 or 16 bytes each is served a half or a quarter of a warp at a time.
const WAVEFRONT_BYTES: u32 = 128;

/// The kinds of access a manifest can declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AccessKind {
    /// Shared-memory loads: wavefronts per request.
    Shared,
    /// Global-memory loads: sectors and lines per request.
    Global,
    /// A branch: passes per warp, threads per instruction.
    Branch,
}

impl AccessKind {
    /// Every kind, in the order messages list them.
    pub(crate) const ALL: [AccessKind; 3] =
        [AccessKind::Shared, AccessKind::Global, AccessKind::Branch];

    /// The kind's name as a manifest spells it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            AccessKind::Shared => "shared",
            AccessKind::Global => "global",
            AccessKind::Branch => "branch",
        }
    }
}

/// What one warp-wide shared load costs when each lane reads `width` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedLoad {
    /// Bytes each lane reads (4, 8 or 16).
    pub(crate) width: u32,
    /// Wavefronts the request takes: per phase (a whole warp for 4 bytes, half for 8, a
    /// quarter for 16) the most distinct words asked of one bank, summed over the phases.
    pub(crate) wavefronts: u32,
    /// Banks any lane touches.
    pub(crate) banks_covered: u32,
    /// Distinct words asked of each bank over the whole warp, by bank (the picture's shade).
    pub(crate) words_per_bank: Vec<u32>,
    /// Per phase, the most distinct words asked of one bank.
    pub(crate) degree_per_phase: Vec<u32>,
}

impl SharedLoad {
    /// Bytes the lanes move per load instruction: lanes × width.
    pub(crate) fn bytes_per_instruction(&self) -> u64 {
        WARP_SIZE as u64 * u64::from(self.width)
    }
}

/// The shared load in which lane L reads `width` bytes at byte `addresses[L]`. `width` is
/// one of [`WIDTHS`] (anything else counts as 4); an address need not be aligned to it.
pub(crate) fn shared(addresses: &[u64], width: u32, geometry: Geometry) -> SharedLoad {
    let width = if WIDTHS.contains(&width) { width } else { 4 };
    let lanes_per_phase = (WAVEFRONT_BYTES / width).max(1) as usize;
    let words_of = |address: &u64| {
        let first = geometry.word_of(*address);
        let last = geometry.word_of(address.saturating_add(u64::from(width) - 1));
        first..=last
    };
    let mut degree_per_phase = Vec::new();
    for phase in addresses.chunks(lanes_per_phase) {
        let words: BTreeSet<u64> = phase.iter().flat_map(words_of).collect();
        degree_per_phase.push(max_per_bank(&words, geometry));
    }
    let all: BTreeSet<u64> = addresses.iter().flat_map(words_of).collect();
    let words_per_bank = per_bank(&all, geometry);
    SharedLoad {
        width,
        wavefronts: degree_per_phase.iter().sum(),
        banks_covered: words_per_bank.iter().filter(|&&n| n > 0).count() as u32,
        words_per_bank,
        degree_per_phase,
    }
}

fn per_bank(words: &BTreeSet<u64>, geometry: Geometry) -> Vec<u32> {
    let mut counts = vec![0u32; geometry.banks() as usize];
    for &word in words {
        counts[geometry.bank_of_word(word) as usize] += 1;
    }
    counts
}

fn max_per_bank(words: &BTreeSet<u64>, geometry: Geometry) -> u32 {
    per_bank(words, geometry).into_iter().max().unwrap_or(0)
}

/// What one warp-wide global load costs when each lane reads `width` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalLoad {
    /// Bytes each lane reads.
    pub(crate) width: u32,
    /// Distinct 32-byte sectors touched, in address order.
    pub(crate) sectors: Vec<u64>,
    /// Distinct 128-byte lines touched.
    pub(crate) lines: u32,
    /// Distinct bytes the lanes asked for.
    pub(crate) useful_bytes: u64,
}

impl GlobalLoad {
    /// Sectors fetched for this request.
    pub(crate) fn sectors_per_request(&self) -> u32 {
        self.sectors.len() as u32
    }

    /// Bytes fetched: sectors × 32.
    pub(crate) fn fetched_bytes(&self) -> u64 {
        self.sectors.len() as u64 * SECTOR_BYTES
    }

    /// Useful bytes over fetched bytes (1.0 when perfectly coalesced).
    pub(crate) fn efficiency(&self) -> f64 {
        self.useful_bytes as f64 / self.fetched_bytes().max(1) as f64
    }

    /// Bytes device memory moves for the request: distinct 64-byte pieces × 64.
    pub(crate) fn dram_bytes(&self) -> u64 {
        let per_atom = coalescing::DRAM_ATOM_BYTES / SECTOR_BYTES;
        let atoms: BTreeSet<u64> = self.sectors.iter().map(|s| s / per_atom).collect();
        atoms.len() as u64 * coalescing::DRAM_ATOM_BYTES
    }

    /// Bytes the lanes move per load instruction: lanes × width.
    pub(crate) fn bytes_per_instruction(&self) -> u64 {
        WARP_SIZE as u64 * u64::from(self.width)
    }
}

/// The global load in which lane L reads `width` bytes (1 to 16) at byte `addresses[L]`.
pub(crate) fn global(addresses: &[u64], width: u32) -> GlobalLoad {
    let width = u64::from(width.clamp(1, 16));
    let last = |a: &u64| a.saturating_add(width - 1);
    let sectors: BTreeSet<u64> = addresses
        .iter()
        .flat_map(|a| a / SECTOR_BYTES..=last(a) / SECTOR_BYTES)
        .collect();
    let lines: BTreeSet<u64> = addresses
        .iter()
        .flat_map(|a| a / LINE_BYTES..=last(a) / LINE_BYTES)
        .collect();
    // The union of the lanes' byte ranges, measured by merging them in address order.
    let mut ranges: Vec<(u64, u64)> = addresses.iter().map(|a| (*a, last(a))).collect();
    ranges.sort_unstable();
    let mut useful = 0u64;
    let mut reach: Option<u64> = None;
    for (start, end) in ranges {
        let from = match reach {
            Some(r) if r >= end => continue,
            Some(r) if r >= start => r + 1,
            _ => start,
        };
        useful += end - from + 1;
        reach = Some(end);
    }
    GlobalLoad {
        width: width as u32,
        sectors: sectors.into_iter().collect(),
        lines: lines.len() as u32,
        useful_bytes: useful,
    }
}

/// How a warp runs a branch whose lane L takes path `paths[L]`: one pass per distinct path.
pub(crate) fn branch(paths: &[i64; WARP_SIZE]) -> Divergence {
    divergence::analyze(paths)
}

/// What the lane expression of a map gives each lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LaneValue {
    /// A 4-byte word index (`shared` maps' `word`).
    Word,
    /// A byte address (`shared` or `global` maps' `address`).
    Byte,
    /// A path id (`branch` maps' `path`).
    Path,
}

/// A checked lane map: for each lane of a warp and a value of the sweep's axis, what the
/// lane touches, and from that what the access costs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LaneMap {
    /// The access model.
    pub(crate) kind: AccessKind,
    /// What the expression gives.
    pub(crate) value: LaneValue,
    /// Bytes each lane reads (`shared` and `global`; 4 for `branch`), unless `width_expr`
    /// gives it per row.
    pub(crate) width: u32,
    /// The expression as written, for titles and messages.
    pub(crate) text: String,
    expr: Expr,
    /// Bytes each lane reads as an expression of the axis and the constants (a sweep over
    /// access widths: float, float2, float4).
    width_expr: Option<Expr>,
    /// Values of the constants, after `lane` and the axis in the expression's names.
    constants: Vec<i64>,
}

/// Why a lane map cannot be used; the manifest or front matter adds file, line and field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LaneMapError {
    /// The expression does not parse.
    #[error(transparent)]
    Expr(#[from] ExprError),
    /// The expression fails for some lane and axis value.
    #[error("lane {lane} at {axis} = {value}: {error}")]
    Eval {
        /// The lane.
        lane: u32,
        /// The axis's name.
        axis: String,
        /// The axis value.
        value: i64,
        /// What went wrong.
        error: EvalError,
    },
    /// An address or word came out negative or past [`MAX_ADDRESS`].
    #[error(
        "lane {lane} at {axis} = {value}: the {what} is {got}; byte addresses must be from 0 \
         to 2^48"
    )]
    OutOfRange {
        /// The lane.
        lane: u32,
        /// The axis's name.
        axis: String,
        /// The axis value.
        value: i64,
        /// `word` or `address`.
        what: &'static str,
        /// The value computed.
        got: i64,
    },
    /// A width other than 4, 8 or 16.
    #[error("width {0} is not supported; a lane reads 4, 8 or 16 bytes")]
    Width(u32),
    /// A width expression that gives another width than 4, 8 or 16 for some row.
    #[error("at {axis} = {value}: width {got} is not supported; a lane reads 4, 8 or 16 bytes")]
    WidthAt {
        /// The axis's name.
        axis: String,
        /// The axis value.
        value: i64,
        /// The width computed.
        got: i64,
    },
    /// A width expression that names `lane`: every lane of one instruction reads as many
    /// bytes.
    #[error("the width is one for the whole instruction: it cannot depend on `lane`")]
    WidthOfLane,
    /// A constant shares a name with `lane`, the axis or a function, or is not a name.
    #[error(
        "constant `{0}` cannot be used: a constant is a name (letters, digits, `_`) other than `lane`, the axis's name, `min`, `max` or `gcd`"
    )]
    ConstantName(String),
}

/// What a map predicts for one row: the access analysed.
#[derive(Debug, Clone, PartialEq)]
pub enum Prediction {
    /// Shared-memory load.
    Shared(SharedLoad),
    /// Global-memory load.
    Global(GlobalLoad),
    /// Divergent branch.
    Branch(Divergence),
}

impl Prediction {
    /// What one request costs: wavefronts, sectors or passes.
    pub(crate) fn cost(&self) -> u32 {
        match self {
            Prediction::Shared(s) => s.wavefronts,
            Prediction::Global(g) => g.sectors_per_request(),
            Prediction::Branch(b) => b.passes(),
        }
    }

    /// What the kind's hardware counter reads per request: wavefronts per load, sectors per
    /// request, or threads per executed instruction.
    pub fn counter(&self) -> f64 {
        match self {
            Prediction::Branch(b) => b.threads_per_instruction(),
            _ => f64::from(self.cost()),
        }
    }

    /// What one request costs in time: wavefronts, bytes device memory moves, or passes.
    pub(crate) fn time_cost(&self) -> f64 {
        match self {
            Prediction::Global(g) => g.dram_bytes() as f64,
            _ => f64::from(self.cost()),
        }
    }
}

impl LaneMap {
    /// Checks a map: `text` gives each lane's `value`, in names `lane`, `axis` and the
    /// `constants` (name, value).
    pub(crate) fn new(
        kind: AccessKind,
        value: LaneValue,
        width: u32,
        text: &str,
        axis: &str,
        constants: &[(&str, i64)],
    ) -> Result<LaneMap, LaneMapError> {
        if kind != AccessKind::Branch && !WIDTHS.contains(&width) {
            return Err(LaneMapError::Width(width));
        }
        let mut names = vec!["lane", axis];
        for (name, _) in constants {
            let identifier = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !identifier || names.contains(name) || ["min", "max", "gcd"].contains(name) {
                return Err(LaneMapError::ConstantName((*name).to_owned()));
            }
            names.push(name);
        }
        let expr = Expr::parse(text, &names)?;
        Ok(LaneMap {
            kind,
            value,
            width,
            text: text.to_owned(),
            expr,
            width_expr: None,
            constants: constants.iter().map(|(_, v)| *v).collect(),
        })
    }

    /// The same map with the bytes each lane reads given per row by `text`, an expression of
    /// the axis and the constants (not of `lane`), e.g. the axis itself for a sweep over
    /// float, float2 and float4.
    pub(crate) fn width_from(
        mut self,
        text: &str,
        axis: &str,
        constants: &[(&str, i64)],
    ) -> Result<LaneMap, LaneMapError> {
        let mut names = vec!["lane", axis];
        names.extend(constants.iter().map(|(name, _)| *name));
        let expr = Expr::parse(text, &names)?;
        if expr.uses(0) {
            return Err(LaneMapError::WidthOfLane);
        }
        self.width_expr = Some(expr);
        Ok(self)
    }

    /// Bytes each lane reads at axis value `at`.
    pub(crate) fn width_at(&self, at: i64, axis: &str) -> Result<u32, LaneMapError> {
        let Some(expr) = &self.width_expr else {
            return Ok(self.width);
        };
        let mut values = vec![0, at];
        values.extend(&self.constants);
        let got = expr.eval(&values).map_err(|error| LaneMapError::Eval {
            lane: 0,
            axis: axis.to_owned(),
            value: at,
            error,
        })?;
        u32::try_from(got)
            .ok()
            .filter(|w| WIDTHS.contains(w))
            .ok_or_else(|| LaneMapError::WidthAt {
                axis: axis.to_owned(),
                value: at,
                got,
            })
    }

    /// Each lane's value of the expression at axis value `at` (`axis` names it in messages).
    pub(crate) fn lanes(&self, at: i64, axis: &str) -> Result<[i64; WARP_SIZE], LaneMapError> {
        let mut values = vec![0, at];
        values.extend(&self.constants);
        let mut out = [0i64; WARP_SIZE];
        for (lane, slot) in (0u32..).zip(out.iter_mut()) {
            values[0] = i64::from(lane);
            *slot = self
                .expr
                .eval(&values)
                .map_err(|error| LaneMapError::Eval {
                    lane,
                    axis: axis.to_owned(),
                    value: at,
                    error,
                })?;
        }
        Ok(out)
    }

    /// Each lane's byte address at axis value `at` (`shared` and `global` maps).
    pub(crate) fn addresses(&self, at: i64, axis: &str) -> Result<[u64; WARP_SIZE], LaneMapError> {
        let lanes = self.lanes(at, axis)?;
        let (what, scale) = match self.value {
            LaneValue::Word => ("word", 4u64),
            _ => ("address", 1),
        };
        let mut out = [0u64; WARP_SIZE];
        for (lane, (slot, &got)) in (0u32..).zip(out.iter_mut().zip(&lanes)) {
            let out_of_range = || LaneMapError::OutOfRange {
                lane,
                axis: axis.to_owned(),
                value: at,
                what,
                got,
            };
            *slot = u64::try_from(got)
                .ok()
                .and_then(|g| g.checked_mul(scale))
                .filter(|a| *a <= MAX_ADDRESS)
                .ok_or_else(out_of_range)?;
        }
        Ok(out)
    }

    /// What the map predicts at axis value `at`.
    pub(crate) fn predict(
        &self,
        at: i64,
        axis: &str,
        geometry: Geometry,
    ) -> Result<Prediction, LaneMapError> {
        Ok(match self.kind {
            AccessKind::Shared => Prediction::Shared(shared(
                &self.addresses(at, axis)?,
                self.width_at(at, axis)?,
                geometry,
            )),
            AccessKind::Global => {
                Prediction::Global(global(&self.addresses(at, axis)?, self.width_at(at, axis)?))
            }
            AccessKind::Branch => Prediction::Branch(branch(&self.lanes(at, axis)?)),
        })
    }
}

#[cfg(test)]
mod tests;
