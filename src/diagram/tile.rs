//! What the diagram checks and both drawings share: the tile's cells and rows, and the
//! words that state the model's verdict on a warp-wide load. A leaf over `bank::model`.
use crate::bank::model::{WARP_SIZE, WarpAccess};

/// Rows of the tile a `bank-map` draws: one per lane of a warp.
pub(crate) const TILE_ROWS: u32 = WARP_SIZE as u32;

/// One word of the tile, `tile[row][column]`; a `bank-map` picks out its row and its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Cell {
    /// Row index, 0-based.
    pub(crate) row: u32,
    /// Column index (word within the row), 0-based.
    pub(crate) column: u32,
}

/// One line of plain words for what a warp-wide load costs, e.g. "1 bank × 32 words → 32
/// wavefronts"; the diagrams print it so the picture states the model's verdict.
pub(crate) fn describe_access(access: &WarpAccess) -> String {
    let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let degree = access.conflict_degree();
    let busy = access.words_per_bank().iter().filter(|&&n| n > 0);
    let uniform = busy.clone().all(|&n| n == degree);
    let banks = plural(access.banks_covered(), "bank", "banks");
    let words = plural(degree, "word", "words");
    let passes = plural(access.wavefronts(), "wavefront", "wavefronts");
    if uniform {
        format!("{banks} × {words} → {passes}")
    } else {
        format!("{banks}, up to {words} each → {passes}")
    }
}
