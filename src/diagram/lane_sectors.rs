//! The `lane-sectors` preset: the 32 lanes of a warp reading 4-byte word `stride · L` from
//! global memory, a line from each lane to the 32-byte sector that holds its word, and the
//! 128-byte lines the warp spans, each cut into its four sectors, fetched ones shaded.

use super::lanes::{self, BOX, LEFT, PITCH, RIGHT_MARGIN};
use super::svg::{Anchor, FRAME, Frame, INK, Svg};
use crate::bank::access::{self, GlobalLoad};
use crate::bank::coalescing::{LINE_BYTES, SECTOR_BYTES};
use crate::bank::model::WARP_SIZE;

const LINE_TOP: u32 = 236;
const HEIGHT: u32 = 340;
/// Width of the strip the warp's lines are drawn in: as wide as the lanes.
const STRIP: u32 = PITCH * WARP_SIZE as u32 - (PITCH - BOX);
const FETCHED: &str = "#f28567";
const IDLE: &str = "#f5f5f5";

/// Most 128-byte lines a `lane-sectors` picture spans: beyond, the sectors would be slivers.
pub(crate) const MAX_LINES: u64 = 64;

/// Draws the lanes reading word `stride · L` and the sectors fetched for them; `frame` sizes
/// the document.
pub(crate) fn render<'a>(stride: u32, frame: impl FnOnce(u32, u32) -> Frame<'a>) -> String {
    let addresses: [u64; WARP_SIZE] =
        std::array::from_fn(|lane| lane as u64 * u64::from(stride) * 4);
    let load = access::global(&addresses, 4);
    let last_line = addresses.iter().max().map_or(0, |a| a / LINE_BYTES);
    let verdict = format!(
        "Stride {stride}: {} sectors in {} lines, {} bytes fetched for {} used ({:.1}% useful)",
        load.sectors_per_request(),
        load.lines,
        load.fetched_bytes(),
        load.useful_bytes,
        load.efficiency() * 100.0
    );
    let picture = Picture {
        addresses: &addresses,
        load: &load,
        lines: 0..=last_line,
        title: &lanes::reads(stride),
        verdict: &verdict,
    };
    draw(&picture, frame)
}

/// Draws a warp whose lane L reads `width` bytes at byte `addresses[L]` (a lane map's row),
/// the lines from the first one a lane touches to the last; `None` when they span more than
/// [`MAX_LINES`] (the count given instead).
pub(crate) fn render_map<'a>(
    addresses: &[u64; WARP_SIZE],
    width: u32,
    frame: impl FnOnce(u32, u32) -> Frame<'a>,
) -> Result<String, u64> {
    let load = access::global(addresses, width);
    let first = load
        .sectors
        .first()
        .map_or(0, |s| s * SECTOR_BYTES / LINE_BYTES);
    let last = load
        .sectors
        .last()
        .map_or(0, |s| s * SECTOR_BYTES / LINE_BYTES);
    let span = last - first + 1;
    if span > MAX_LINES {
        return Err(span);
    }
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let verdict = format!(
        "{} in {}, {} bytes fetched for {} used ({:.1}% useful)",
        plural(u64::from(load.sectors_per_request()), "sector", "sectors"),
        plural(u64::from(load.lines), "line", "lines"),
        load.fetched_bytes(),
        load.useful_bytes,
        load.efficiency() * 100.0
    );
    let picture = Picture {
        addresses,
        load: &load,
        lines: first..=last,
        title: &lanes::reads_map(addresses, load.width),
        verdict: &verdict,
    };
    Ok(draw(&picture, frame))
}

/// What one picture shows.
struct Picture<'p> {
    /// Lane L's first byte.
    addresses: &'p [u64; WARP_SIZE],
    /// The access model's count.
    load: &'p GlobalLoad,
    /// The 128-byte lines drawn, by number.
    lines: std::ops::RangeInclusive<u64>,
    title: &'p str,
    verdict: &'p str,
}

fn draw<'a>(p: &Picture<'_>, frame: impl FnOnce(u32, u32) -> Frame<'a>) -> String {
    let first_line = *p.lines.start();
    let lines = (p.lines.end() - first_line + 1) as u32;
    let first_sector = first_line * 4;
    let mut svg = Svg::open(&frame(LEFT + STRIP + RIGHT_MARGIN, HEIGHT));
    lanes::heading(
        &mut svg,
        p.title,
        "Each 128-byte line is four 32-byte sectors; a warp’s load fetches every sector a lane touches.",
        &[(LINE_TOP + 14, "line")],
    );
    let sector_width = f64::from(STRIP) / f64::from(lines * 4);
    let sector_x = |sector: u64| f64::from(LEFT) + (sector - first_sector) as f64 * sector_width;
    // A line from each lane down to the middle of the sector that holds its word.
    let sectors_read = p.addresses.iter().map(|&address| {
        let x = sector_x(address / SECTOR_BYTES) + sector_width / 2.0;
        format!("{x:.2}")
    });
    lanes::connectors(&mut svg, sectors_read, LINE_TOP);
    lanes::lane_row(&mut svg);
    for sector in first_sector..first_sector + u64::from(lines) * 4 {
        let fill = if p.load.sectors.contains(&sector) {
            FETCHED
        } else {
            IDLE
        };
        svg.line(format_args!(
            "<rect x=\"{:.2}\" y=\"{LINE_TOP}\" width=\"{sector_width:.2}\" height=\"{BOX}\" \
             fill=\"{fill}\" stroke=\"{FRAME}\"/>",
            sector_x(sector)
        ));
    }
    // Heavier edges between lines, and line numbers when there is room for them.
    let numbered = lines <= 16 && first_line + u64::from(lines) <= 100_000;
    for line in 0..=lines {
        let x = sector_x(first_sector + u64::from(line) * 4);
        svg.line(format_args!(
            "<line x1=\"{x:.2}\" y1=\"{}\" x2=\"{x:.2}\" y2=\"{}\" stroke=\"{INK}\" stroke-width=\"1.5\"/>",
            LINE_TOP - 4,
            LINE_TOP + BOX + 4
        ));
        if line < lines && numbered {
            let mid = x + 2.0 * sector_width;
            let number = first_line as u32 + line;
            svg.labels(Some(INK), [((mid.round() as u32, LINE_TOP + 40), number)]);
        }
    }
    svg.text((LEFT, HEIGHT - 20), 12, Anchor::Start, INK, p.verdict);
    svg.finish()
}

#[cfg(test)]
mod tests {
    use resvg::usvg;

    use crate::diagram::{DiagramError, DiagramSpec, Preset, render_svg};

    fn svg(stride: u32) -> Result<String, DiagramError> {
        let spec = DiagramSpec {
            stride: Some(stride),
            ..DiagramSpec::new(Preset::LaneSectors)
        };
        render_svg(&spec, "Memory coalescing", "Lanes onto sectors.")
    }

    /// The picture states the model's verdict and shades exactly the sectors fetched.
    #[test]
    fn lanes_land_on_the_sectors_the_model_counts() {
        for (stride, sectors, verdict) in [
            (
                1,
                4,
                "Stride 1: 4 sectors in 1 lines, 128 bytes fetched for 128 used (100.0% useful)",
            ),
            (
                2,
                8,
                "Stride 2: 8 sectors in 2 lines, 256 bytes fetched for 128 used (50.0% useful)",
            ),
            (
                32,
                32,
                "Stride 32: 32 sectors in 32 lines, 1024 bytes fetched for 128 used (12.5% useful)",
            ),
        ] {
            let text = svg(stride).unwrap();
            assert!(text.contains(verdict), "{stride}: {text}");
            assert_eq!(
                text.matches("fill=\"#f28567\"").count(),
                sectors,
                "{stride}"
            );
            usvg::Tree::from_str(&text, &usvg::Options::default()).expect("valid SVG");
            assert_eq!(text, svg(stride).unwrap(), "deterministic");
        }
        assert!(svg(33).unwrap_err().to_string().contains("from 0 to 32"));
        assert_eq!(
            "lane-sectors".parse::<Preset>().unwrap(),
            Preset::LaneSectors
        );
    }
}
