//! The drawings of `bank`'s models as deterministic, accessible SVG, their social cards and
//! PNG. Here: the presets an entry's front matter may name, the checks on their options, and
//! `render_svg`, which hands each preset to its drawing (`bank_map`, `lane_banks`,
//! `lane_sectors`, `lane_paths`); what they share with this file lives in the leaf `tile`, so
//! no drawing imports it back. Uses `bank`, never the reverse; no I/O.

mod bank_map;
pub(crate) mod card;
pub(crate) mod font;
mod glyphs;
mod lane_banks;
mod lane_paths;
mod lane_sectors;
mod lanes;
mod palette;
pub(crate) mod raster;
pub(crate) mod svg;
mod tile;

use std::fmt;
use std::str::FromStr;

use crate::bank::access::{AccessKind, LaneMap, LaneMapError};
use crate::bank::model::WARP_SIZE;
pub(crate) use lane_sectors::MAX_LINES;
use svg::Frame;
pub(crate) use tile::{Cell, TILE_ROWS};

/// Row widths a `bank-map` can draw: the plain tile and the padded one.
pub(crate) const TILE_WIDTHS: [u32; 2] = [32, 33];

/// Largest word stride a `lane-banks` diagram draws; past 64 the picture only repeats.
pub(crate) const MAX_STRIDE: u32 = 64;

/// Largest word stride a `lane-sectors` diagram draws: at 32 every lane has a line of its own.
pub(crate) const MAX_SECTOR_STRIDE: u32 = 32;

/// Path counts a `lane-paths` diagram draws: the warp split into groups of equal size.
pub(crate) const PATH_COUNTS: [u32; 6] = [1, 2, 4, 8, 16, 32];

/// A diagram kind an entry names in its front matter (`diagram.preset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Preset {
    /// `bank-map`: the words of a shared tile, each shaded by its bank.
    BankMap,
    /// `lane-banks`: the 32 lanes of a warp and the bank each one reads for a stride.
    LaneBanks,
    /// `lane-sectors`: the 32 lanes of a warp and the global-memory sector each one reads.
    LaneSectors,
    /// `lane-paths`: the 32 lanes of a warp on `paths` paths, and the passes the warp makes.
    LanePaths,
}

impl Preset {
    /// Every preset, in the order error messages list them.
    pub(crate) const ALL: [Preset; 4] = [
        Preset::BankMap,
        Preset::LaneBanks,
        Preset::LaneSectors,
        Preset::LanePaths,
    ];

    /// The name front matter uses for this preset.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Preset::BankMap => "bank-map",
            Preset::LaneBanks => "lane-banks",
            Preset::LaneSectors => "lane-sectors",
            Preset::LanePaths => "lane-paths",
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = DiagramError;

    fn from_str(name: &str) -> Result<Preset, DiagramError> {
        Preset::ALL
            .into_iter()
            .find(|preset| preset.name() == name)
            .ok_or_else(|| DiagramError::UnknownPreset {
                given: name.to_owned(),
            })
    }
}

/// What an entry asks to be drawn, as its front matter says it; checked by [`render_svg`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct DiagramSpec {
    /// Which diagram.
    pub(crate) preset: Preset,
    /// `bank-map` only: the word whose row and column are picked out.
    pub(crate) highlight: Option<Cell>,
    /// `bank-map` only: words per tile row, 32 (default) or 33 (padded).
    pub(crate) width: Option<u32>,
    /// `lane-banks` and `lane-sectors` only: lane L reads word `stride · L` (default 1).
    pub(crate) stride: Option<u32>,
    /// `lane-paths` only: how many paths the warp's lanes take (default 2).
    pub(crate) paths: Option<u32>,
}

impl DiagramSpec {
    /// A spec for `preset` with every option left at its default.
    pub(crate) fn new(preset: Preset) -> DiagramSpec {
        DiagramSpec {
            preset,
            highlight: None,
            width: None,
            stride: None,
            paths: None,
        }
    }
}

/// Why a diagram spec cannot be drawn; each message says what would be accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DiagramError {
    /// The preset name is not one we draw.
    #[error(
        "unknown diagram preset `{given}`; valid presets are: {}",
        preset_list()
    )]
    UnknownPreset {
        /// The name as written.
        given: String,
    },
    /// An option was given to a preset that does not use it.
    #[error("`{option}` does not apply to preset `{preset}`; {preset} takes {}", options_of(*preset))]
    OptionNotApplicable {
        /// The option's front-matter name.
        option: &'static str,
        /// The preset it was given to.
        preset: Preset,
    },
    /// `width` is neither 32 nor 33.
    #[error(
        "bank-map width {width} is not supported; use 32 (the plain tile) or 33 (padded by one word)"
    )]
    UnsupportedWidth {
        /// The width as written.
        width: u32,
    },
    /// `highlight` names a word outside the tile.
    #[error(
        "highlight {{ row: {row}, column: {column} }} is outside the {rows}×{columns} tile; \
         row must be 0..={} and column 0..={}",
        rows - 1,
        columns - 1
    )]
    HighlightOutOfRange {
        /// Row as written.
        row: u32,
        /// Column as written.
        column: u32,
        /// Rows of the tile drawn.
        rows: u32,
        /// Words per row of the tile drawn.
        columns: u32,
    },
    /// A `lane-sectors` stride is past [`MAX_SECTOR_STRIDE`].
    #[error(
        "lane-sectors stride {stride} is out of range; use a word stride from 0 to {MAX_SECTOR_STRIDE}"
    )]
    SectorStrideOutOfRange {
        /// The stride as written.
        stride: u32,
    },
    /// `paths` is not one of [`PATH_COUNTS`].
    #[error(
        "lane-paths paths {paths} is not supported; use 1, 2, 4, 8, 16 or 32 (the warp split \
         into groups of equal size)"
    )]
    UnsupportedPaths {
        /// The count as written.
        paths: u32,
    },
    /// `stride` is past [`MAX_STRIDE`].
    #[error("lane-banks stride {stride} is out of range; use a word stride from 0 to {MAX_STRIDE}")]
    StrideOutOfRange {
        /// The stride as written.
        stride: u32,
    },
    /// A lane map that cannot be evaluated for the row drawn.
    #[error(transparent)]
    Map(#[from] LaneMapError),
    /// A `global` map whose lanes spread over more lines than a picture can show.
    #[error(
        "the lanes touch bytes {lines} lines of 128 bytes apart; a lane-sectors diagram draws \
         at most {MAX_LINES}"
    )]
    TooManyLines {
        /// Lines from the first the warp touches to the last.
        lines: u64,
    },
}

fn preset_list() -> String {
    Preset::ALL.map(Preset::name).join(", ")
}

fn options_of(preset: Preset) -> &'static str {
    match preset {
        Preset::BankMap => "`highlight` and `width`",
        Preset::LaneBanks | Preset::LaneSectors => "`stride`",
        Preset::LanePaths => "`paths`",
    }
}

/// A spec whose values have been checked, one variant per preset.
enum CheckedSpec {
    BankMap { width: u32, highlight: Option<Cell> },
    LaneBanks { stride: u32 },
    LaneSectors { stride: u32 },
    LanePaths { paths: u32 },
}

fn check_spec(spec: &DiagramSpec) -> Result<CheckedSpec, DiagramError> {
    let preset = spec.preset;
    let not_applicable = |option| DiagramError::OptionNotApplicable { option, preset };
    if preset != Preset::LanePaths && spec.paths.is_some() {
        return Err(not_applicable("paths"));
    }
    match preset {
        Preset::BankMap => {
            if spec.stride.is_some() {
                return Err(not_applicable("stride"));
            }
            let width = spec.width.unwrap_or(TILE_WIDTHS[0]);
            if !TILE_WIDTHS.contains(&width) {
                return Err(DiagramError::UnsupportedWidth { width });
            }
            if let Some(Cell { row, column }) = spec.highlight
                && (row >= TILE_ROWS || column >= width)
            {
                return Err(DiagramError::HighlightOutOfRange {
                    row,
                    column,
                    rows: TILE_ROWS,
                    columns: width,
                });
            }
            Ok(CheckedSpec::BankMap {
                width,
                highlight: spec.highlight,
            })
        }
        Preset::LaneBanks | Preset::LaneSectors => {
            if spec.highlight.is_some() {
                return Err(not_applicable("highlight"));
            }
            if spec.width.is_some() {
                return Err(not_applicable("width"));
            }
            let stride = spec.stride.unwrap_or(1);
            if preset == Preset::LaneSectors {
                if stride > MAX_SECTOR_STRIDE {
                    return Err(DiagramError::SectorStrideOutOfRange { stride });
                }
                return Ok(CheckedSpec::LaneSectors { stride });
            }
            if stride > MAX_STRIDE {
                return Err(DiagramError::StrideOutOfRange { stride });
            }
            Ok(CheckedSpec::LaneBanks { stride })
        }
        Preset::LanePaths => {
            for (option, given) in [
                ("highlight", spec.highlight.is_some()),
                ("width", spec.width.is_some()),
                ("stride", spec.stride.is_some()),
            ] {
                if given {
                    return Err(not_applicable(option));
                }
            }
            let paths = spec.paths.unwrap_or(2);
            if !PATH_COUNTS.contains(&paths) {
                return Err(DiagramError::UnsupportedPaths { paths });
            }
            Ok(CheckedSpec::LanePaths { paths })
        }
    }
}

/// Draws `spec` as an SVG whose `<title>` is `title` (the term) and whose `<desc>` is `desc`
/// (the alt text); the site inlines it and rasterises it. Same input, same bytes.
pub(crate) fn render_svg(
    spec: &DiagramSpec,
    title: &str,
    desc: &str,
) -> Result<String, DiagramError> {
    let checked = check_spec(spec)?;
    let id = element_id(spec, title, desc);
    let frame = |width, height| Frame {
        id: &id,
        width,
        height,
        title,
        desc,
    };
    Ok(match checked {
        CheckedSpec::BankMap { width, highlight } => bank_map::render(width, highlight, frame),
        CheckedSpec::LaneBanks { stride } => lane_banks::render(stride, frame),
        CheckedSpec::LaneSectors { stride } => lane_sectors::render(stride, frame),
        CheckedSpec::LanePaths { paths } => lane_paths::render(paths, frame),
    })
}

/// The lane drawing of an access kind: `lane-banks` for `shared`, `lane-sectors` for
/// `global`, `lane-paths` for `branch`.
pub(crate) fn lane_preset(kind: AccessKind) -> Preset {
    match kind {
        AccessKind::Shared => Preset::LaneBanks,
        AccessKind::Global => Preset::LaneSectors,
        AccessKind::Branch => Preset::LanePaths,
    }
}

/// Draws what `map` gives each lane at axis value `at` (`axis` names it in messages) with
/// its kind's lane drawing ([`lane_preset`]). The picture follows from what the lanes touch
/// alone, so two maps that agree on every lane draw the same bytes, however each is
/// written; `title` and `desc` as for [`render_svg`].
pub(crate) fn render_map(
    map: &LaneMap,
    at: i64,
    axis: &str,
    title: &str,
    desc: &str,
) -> Result<String, DiagramError> {
    let preset = lane_preset(map.kind);
    // What the picture shows, as the bytes of its key: the lanes' values and the width.
    let (values, width) = match map.kind {
        AccessKind::Branch => (Values::Paths(map.lanes(at, axis)?), 0),
        AccessKind::Shared | AccessKind::Global => (
            Values::Addresses(map.addresses(at, axis)?),
            map.width_at(at, axis)?,
        ),
    };
    let listed: Vec<String> = match &values {
        Values::Paths(paths) => paths.iter().map(i64::to_string).collect(),
        Values::Addresses(addresses) => addresses.iter().map(u64::to_string).collect(),
    };
    let key = format!("{preset}|map|{width}|{}|{title}|{desc}", listed.join(","));
    let id = format!("{preset}-{:08x}", fnv(&key) >> 32);
    let frame = |w, h| Frame {
        id: &id,
        width: w,
        height: h,
        title,
        desc,
    };
    Ok(match values {
        Values::Paths(paths) => lane_paths::render_map(&paths, frame),
        Values::Addresses(addresses) if map.kind == AccessKind::Shared => {
            lane_banks::render_map(&addresses, width, frame)
        }
        Values::Addresses(addresses) => lane_sectors::render_map(&addresses, width, frame)
            .map_err(|lines| DiagramError::TooManyLines { lines })?,
    })
}

/// What a map gives the lanes of one row.
enum Values {
    /// Each lane's path (`branch`).
    Paths([i64; WARP_SIZE]),
    /// Each lane's first byte (`shared`, `global`).
    Addresses([u64; WARP_SIZE]),
}

/// FNV-1a: tiny, and unlike std's hasher its output is fixed across Rust releases.
fn fnv(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// An id for the `<title>`/`<desc>` pair that is stable for the same input and unlikely to
/// collide when a page inlines several diagrams.
fn element_id(spec: &DiagramSpec, title: &str, desc: &str) -> String {
    let option = |value: Option<u32>| value.map_or_else(|| "-".to_owned(), |v| v.to_string());
    let highlight = spec
        .highlight
        .map_or_else(|| "-".to_owned(), |c| format!("{},{}", c.row, c.column));
    // A `paths` is added only when given, so the ids of the other presets stay as they were.
    let paths = spec.paths.map_or_else(String::new, |p| format!("|{p}"));
    let key = format!(
        "{}|{highlight}|{}|{}{paths}|{title}|{desc}",
        spec.preset,
        option(spec.width),
        option(spec.stride)
    );
    format!("{}-{:08x}", spec.preset, fnv(&key) >> 32)
}

#[cfg(test)]
pub(super) mod tests;
