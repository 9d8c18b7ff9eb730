//! What the two warp diagrams (`lane-banks`, `lane-sectors`) share: the lane row's layout,
//! the heading with the name of each row, the numbered lane boxes, and the connectors from
//! each lane down to what it reads.

use std::fmt::Display;

use super::svg::{Anchor, FRAME, INK, LANE_FILL, MUTED_INK, Svg};
use crate::bank::model::WARP_SIZE;

/// Distance between neighbouring lane boxes (and the bank boxes under them).
pub(crate) const PITCH: u32 = 22;
/// Side of a lane box.
pub(crate) const BOX: u32 = 20;
/// Left edge of lane 0's box; the row names stand right-aligned before it.
pub(crate) const LEFT: u32 = 64;
/// Space right of the widest row.
pub(crate) const RIGHT_MARGIN: u32 = 24;
/// Top edge of the lane boxes.
pub(crate) const LANE_TOP: u32 = 76;

/// Left edge of box `index` in the lane row, or in a row of boxes under it on the same
/// pitch; pixel tests sample inside it.
pub(crate) fn box_left(index: u32) -> u32 {
    LEFT + index * PITCH
}

/// What lane L reads for `stride`, the start of each diagram's title: "Lane L reads word 2·L".
pub(crate) fn reads(stride: u32) -> String {
    match stride {
        0 => "Every lane reads word 0".to_owned(),
        1 => "Lane L reads word L".to_owned(),
        s => format!("Lane L reads word {s}·L"),
    }
}

/// Lanes 0, 1, 2 and 31 and what `value` gives each: "0, 33, 66 … 1023".
pub(crate) fn listed<T: Display>(value: impl Fn(usize) -> T) -> String {
    format!(
        "{}, {}, {} … {}",
        value(0),
        value(1),
        value(2),
        value(WARP_SIZE - 1)
    )
}

/// What the lanes of a map read, told from the values themselves, so two spellings of one
/// map title one picture: "Lanes 0, 1, 2 … 31 read words 0, 33, 66 … 1023" (4-byte aligned
/// words), else "Lanes 0, 1, 2 … 31 read 16 bytes at 0, 16, 32 … 496".
pub(crate) fn reads_map(addresses: &[u64; WARP_SIZE], width: u32) -> String {
    if width == 4 && addresses.iter().all(|a| a % 4 == 0) {
        format!(
            "Lanes 0, 1, 2 … 31 read words {}",
            listed(|lane| addresses[lane] / 4)
        )
    } else {
        format!(
            "Lanes 0, 1, 2 … 31 read {width} bytes at {}",
            listed(|lane| addresses[lane])
        )
    }
}

/// The title, the note under it that says how to read the picture, and the name of each
/// row left of it: `lane`, then each of `rows`, `(baseline, name)`.
pub(crate) fn heading(svg: &mut Svg, title: &str, note: &str, rows: &[(u32, &str)]) {
    svg.text((LEFT, 28), 15, Anchor::Start, INK, title);
    svg.text((LEFT, 48), 11, Anchor::Start, MUTED_INK, note);
    for &(baseline, name) in [(LANE_TOP + 14, "lane")].iter().chain(rows) {
        svg.text((LEFT - 8, baseline), 11, Anchor::End, MUTED_INK, name);
    }
}

/// A line from the bottom of each lane's box to `(x, top)`, `x` from `targets` in lane
/// order, written as it should stand in the document.
pub(crate) fn connectors(svg: &mut Svg, targets: impl IntoIterator<Item = impl Display>, top: u32) {
    svg.line(format_args!(
        "<g stroke=\"{MUTED_INK}\" stroke-width=\"1\">"
    ));
    for (lane, x) in (0u32..).zip(targets) {
        svg.line(format_args!(
            "<line x1=\"{}\" y1=\"{}\" x2=\"{x}\" y2=\"{top}\"/>",
            box_left(lane) + BOX / 2,
            LANE_TOP + BOX
        ));
    }
    svg.line(format_args!("</g>"));
}

/// The 32 lane boxes, each with its number.
pub(crate) fn lane_row(svg: &mut Svg) {
    for lane in 0..WARP_SIZE as u32 {
        let x = box_left(lane);
        svg.line(format_args!(
            "<rect x=\"{x}\" y=\"{LANE_TOP}\" width=\"{BOX}\" height=\"{BOX}\" rx=\"2\" \
             fill=\"{LANE_FILL}\" stroke=\"{FRAME}\"/>"
        ));
    }
    let labels =
        (0..WARP_SIZE as u32).map(|lane| ((box_left(lane) + BOX / 2, LANE_TOP + 14), lane));
    svg.labels(Some(INK), labels);
}
