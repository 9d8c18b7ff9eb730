//! The `lane-banks` preset: the 32 lanes of a warp reading word `stride · L`, a line from
//! each lane to the bank it hits, and every bank shaded by how many distinct words it must
//! serve.

use super::lanes::{self, BOX, LEFT, PITCH, RIGHT_MARGIN, box_left};
use super::svg::{Anchor, FRAME, Frame, INK, LOAD_LEVELS, MUTED_INK, Svg, load_level};
use super::tile::describe_access;
use crate::bank::access;
use crate::bank::model::{self, Geometry, WARP_SIZE};

/// Top edge of the bank boxes.
pub(crate) const BANK_TOP: u32 = 236;
const HEIGHT: u32 = 372;

/// Draws the lanes reading word `stride · L` and the banks serving them; `frame` sizes the
/// document.
pub(crate) fn render<'a>(stride: u32, frame: impl FnOnce(u32, u32) -> Frame<'a>) -> String {
    let geometry = Geometry::STANDARD;
    let addresses = model::strided_addresses(stride, geometry);
    let access = model::analyze(&addresses, geometry);
    let cost = match access.slowdown() {
        1 => "as fast as a conflict-free load".to_owned(),
        n => format!("{n}× the time of a conflict-free load"),
    };
    let verdict = format!("Stride {stride}: {} ({cost})", describe_access(&access));
    let bank = match stride {
        0 => "0".to_owned(),
        1 => "L mod 32".to_owned(),
        s => format!("({s}·L) mod 32"),
    };
    let title = format!("{}, in bank {bank}", lanes::reads(stride));
    draw(&addresses, access.words_per_bank(), &title, &verdict, frame)
}

/// Draws a warp whose lane L reads `width` bytes at byte `addresses[L]` (a lane map's row),
/// shaded by the `shared` access model; `frame` sizes the document.
pub(crate) fn render_map<'a>(
    addresses: &[u64; WARP_SIZE],
    width: u32,
    frame: impl FnOnce(u32, u32) -> Frame<'a>,
) -> String {
    let load = access::shared(addresses, width, Geometry::STANDARD);
    let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut verdict = format!(
        "{} per request; the lanes cover {} of the 32 banks",
        plural(load.wavefronts, "wavefront", "wavefronts"),
        load.banks_covered,
    );
    if load.degree_per_phase.len() > 1 {
        verdict.push_str(&format!(
            " ({} bytes a lane: {} phases of {} lanes)",
            load.width,
            load.degree_per_phase.len(),
            WARP_SIZE / load.degree_per_phase.len()
        ));
    }
    let title = lanes::reads_map(addresses, load.width);
    draw(addresses, &load.words_per_bank, &title, &verdict, frame)
}

/// The picture: lanes, a line from each to the bank of its first byte, the banks shaded by
/// `counts` (distinct words each serves), the legend and `verdict`.
fn draw<'a>(
    addresses: &[u64],
    counts: &[u32],
    title: &str,
    verdict: &str,
    frame: impl FnOnce(u32, u32) -> Frame<'a>,
) -> String {
    let geometry = Geometry::STANDARD;
    let mut svg = Svg::open(&frame(
        LEFT + geometry.banks() * PITCH + RIGHT_MARGIN,
        HEIGHT,
    ));
    heading(&mut svg, title);
    // A line from each lane down to the bank that serves it.
    let banks_read = addresses
        .iter()
        .map(|&address| box_left(geometry.bank_of_address(address)) + BOX / 2);
    lanes::connectors(&mut svg, banks_read, BANK_TOP);
    lanes::lane_row(&mut svg);
    banks(&mut svg, counts);
    legend(&mut svg, BANK_TOP + 72);
    svg.text((LEFT, HEIGHT - 20), 12, Anchor::Start, INK, verdict);
    svg.finish()
}

/// The title (what lane L reads, and in which bank), how to read the shading, the rows' names.
fn heading(svg: &mut Svg, title: &str) {
    lanes::heading(
        svg,
        title,
        "Banks are shaded by how many distinct words they serve; lanes on one word share a multicast.",
        &[(BANK_TOP + 14, "bank"), (BANK_TOP + 40, "words")],
    );
}

/// Each bank shaded by its load, with the count of distinct words printed under it so the
/// load reads without colour.
fn banks(svg: &mut Svg, counts: &[u32]) {
    for (bank, &words) in (0u32..).zip(counts) {
        let x = box_left(bank);
        let level = load_level(words);
        svg.line(format_args!(
            "<rect x=\"{x}\" y=\"{BANK_TOP}\" width=\"{BOX}\" height=\"{BOX}\" rx=\"2\" \
             fill=\"{}\" stroke=\"{FRAME}\"/>",
            level.fill
        ));
    }
    // Labels grouped by ink: bank numbers in the ink their load level calls for, and the
    // counts of idle banks muted.
    let centre = |bank: u32| box_left(bank) + BOX / 2;
    let count_ink = |words: u32| if words == 0 { MUTED_INK } else { INK };
    let mut inks: Vec<&str> = vec![INK, MUTED_INK];
    for level in &LOAD_LEVELS {
        if !inks.contains(&level.ink) {
            inks.push(level.ink);
        }
    }
    for ink in inks {
        let numbers = (0u32..)
            .zip(counts)
            .filter(|&(_, &words)| load_level(words).ink == ink)
            .map(|(bank, _)| ((centre(bank), BANK_TOP + 14), bank));
        let tallies = (0u32..)
            .zip(counts)
            .filter(|&(_, &words)| count_ink(words) == ink)
            .map(|(bank, &words)| ((centre(bank), BANK_TOP + 40), words));
        let mut labels = numbers.chain(tallies).peekable();
        if labels.peek().is_some() {
            svg.labels(Some(ink), labels);
        }
    }
}

/// The load scale, each step's swatch labelled with the counts it stands for.
fn legend(svg: &mut Svg, y: u32) {
    svg.text(
        (LEFT, y + 14),
        11,
        Anchor::Start,
        MUTED_INK,
        "distinct words per bank:",
    );
    let mut x = LEFT + 176;
    for level in &LOAD_LEVELS {
        svg.line(format_args!(
            "<rect x=\"{x}\" y=\"{y}\" width=\"{BOX}\" height=\"{BOX}\" rx=\"2\" fill=\"{}\" \
             stroke=\"{FRAME}\"/>",
            level.fill
        ));
        svg.text((x + BOX + 4, y + 14), 11, Anchor::Start, INK, level.label);
        x += BOX + 12 + 7 * level.label.len() as u32;
    }
}
