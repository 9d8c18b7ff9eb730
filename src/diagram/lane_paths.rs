//! The `lane-paths` preset: the 32 lanes of a warp split into `paths` groups of neighbours,
//! each group on a path of its own, and under them one row per pass the warp makes, the
//! lanes switched on in that pass shaded.

use super::lanes::{self, BOX, LANE_TOP, LEFT, PITCH, RIGHT_MARGIN, box_left};
use super::svg::{Anchor, FRAME, Frame, INK, Svg};
use crate::bank::access;
use crate::bank::divergence::{self, Divergence, LANES};
use crate::bank::model::WARP_SIZE;

/// Top edge of the first pass row.
const PASS_TOP: u32 = LANE_TOP + BOX + 24;
/// Space under the last pass row for the verdict.
const FOOT: u32 = 52;
/// Fill of a lane doing work in a pass.
pub(crate) const ACTIVE: &str = "#4f86d9";
/// Fill of a lane switched off in a pass.
const IDLE: &str = "#f5f5f5";

/// Draws a warp whose lanes take `paths` paths (1 to 32) and the passes it makes; `frame`
/// sizes the document.
pub(crate) fn render<'a>(paths: u32, frame: impl FnOnce(u32, u32) -> Frame<'a>) -> String {
    draw(&divergence::grouped(paths), &title(paths), frame)
}

/// Draws a warp whose lane L takes path `paths[L]` (a lane map's row) and the passes it
/// makes; `frame` sizes the document.
pub(crate) fn render_map<'a>(
    paths: &[i64; WARP_SIZE],
    frame: impl FnOnce(u32, u32) -> Frame<'a>,
) -> String {
    let warp = access::branch(paths);
    let distinct = match warp.passes() {
        1 => "1 path".to_owned(),
        n => format!("{n} paths"),
    };
    let title = format!(
        "{distinct}: lanes 0, 1, 2 … 31 take paths {}",
        lanes::listed(|lane| paths[lane])
    );
    draw(&warp, &title, frame)
}

fn draw<'a>(warp: &Divergence, title: &str, frame: impl FnOnce(u32, u32) -> Frame<'a>) -> String {
    let rows = warp.passes();
    let height = PASS_TOP + rows * PITCH + FOOT;
    let mut svg = Svg::open(&frame(LEFT + LANES * PITCH + RIGHT_MARGIN, height));
    let names: Vec<(u32, String)> = (0..rows)
        .map(|pass| (row_top(pass) + 14, format!("pass {}", pass + 1)))
        .collect();
    let names: Vec<(u32, &str)> = names.iter().map(|(y, n)| (*y, n.as_str())).collect();
    lanes::heading(
        &mut svg,
        title,
        "The warp runs one pass per path; a shaded box is a lane switched on in that pass.",
        &names,
    );
    lanes::lane_row(&mut svg);
    passes(&mut svg, warp);
    let verdict = verdict(warp);
    svg.text((LEFT, height - 20), 12, Anchor::Start, INK, &verdict);
    svg.finish()
}

fn row_top(pass: u32) -> u32 {
    PASS_TOP + pass * PITCH
}

/// Which lanes take which path: "4 paths: lanes 8k to 8k + 7 take path k".
fn title(paths: u32) -> String {
    match divergence::lanes_per_path(paths) {
        32 => "1 path: all 32 lanes take the same one".to_owned(),
        1 => "32 paths: every lane takes a path of its own".to_owned(),
        n => format!(
            "{} paths: lanes {n}k to {n}k + {} take path k",
            divergence::grouped(paths).passes(),
            n - 1
        ),
    }
}

/// One row of 32 boxes per pass, the lanes switched on in it shaded.
fn passes(svg: &mut Svg, warp: &Divergence) {
    for (row, pass) in (0u32..).zip(&warp.passes) {
        let y = row_top(row);
        for lane in 0..LANES {
            let fill = if pass.has(lane) { ACTIVE } else { IDLE };
            svg.line(format_args!(
                "<rect x=\"{}\" y=\"{y}\" width=\"{BOX}\" height=\"{BOX}\" rx=\"2\" \
                 fill=\"{fill}\" stroke=\"{FRAME}\"/>",
                box_left(lane)
            ));
        }
    }
}

/// What the passes cost: "4 passes of 8 lanes: 25% of the lane slots do work, 4× the time
/// of one path".
fn verdict(warp: &Divergence) -> String {
    let passes = warp.passes();
    let active = warp.active_per_pass();
    let lanes = if active.iter().all(|&a| a == active[0]) {
        let s = if active[0] == 1 { "" } else { "s" };
        format!("{} lane{s}", active[0])
    } else {
        format!(
            "{} lanes",
            active
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let cost = match passes {
        1 => "as fast as it gets".to_owned(),
        n => format!("{n}× the time of one path"),
    };
    format!(
        "{passes} {} of {lanes}: {}% of the lane slots do work, {cost}",
        if passes == 1 { "pass" } else { "passes" },
        format_percent(warp.efficiency())
    )
}

/// 25, 12.5, 3.125: a percentage without trailing zeros.
fn format_percent(fraction: f64) -> String {
    let text = format!("{:.3}", fraction * 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use resvg::usvg;

    use super::ACTIVE;
    use crate::diagram::{DiagramError, DiagramSpec, Preset, render_svg};

    fn svg(paths: u32) -> Result<String, DiagramError> {
        let spec = DiagramSpec {
            paths: Some(paths),
            ..DiagramSpec::new(Preset::LanePaths)
        };
        render_svg(&spec, "Warp divergence", "Lanes in passes.")
    }

    /// The picture states the model's verdict and shades exactly the lane slots that work:
    /// 32 of them whatever the paths, spread over one row per pass.
    #[test]
    fn passes_shade_the_lanes_the_model_switches_on() {
        for (paths, title, verdict) in [
            (
                1,
                "1 path: all 32 lanes take the same one",
                "1 pass of 32 lanes: 100% of the lane slots do work, as fast as it gets",
            ),
            (
                4,
                "4 paths: lanes 8k to 8k + 7 take path k",
                "4 passes of 8 lanes: 25% of the lane slots do work, 4× the time of one path",
            ),
            (
                32,
                "32 paths: every lane takes a path of its own",
                "32 passes of 1 lane: 3.125% of the lane slots do work, 32× the time of one path",
            ),
        ] {
            let text = svg(paths).unwrap();
            assert!(text.contains(title), "{paths}: {text}");
            assert!(text.contains(verdict), "{paths}: {text}");
            let fill = format!("fill=\"{ACTIVE}\"");
            assert_eq!(text.matches(&fill).count(), 32, "{paths}");
            assert_eq!(text.matches("<rect").count() - 33, 32 * paths as usize);
            assert!(text.contains(&format!(">pass {paths}<")), "{paths}");
            usvg::Tree::from_str(&text, &usvg::Options::default()).expect("valid SVG");
            assert_eq!(text, svg(paths).unwrap(), "deterministic");
        }
        for bad in [0, 3, 64] {
            let err = svg(bad).unwrap_err().to_string();
            assert!(err.contains("1, 2, 4, 8, 16 or 32"), "{bad}: {err}");
        }
        assert_eq!("lane-paths".parse::<Preset>().unwrap(), Preset::LanePaths);
    }
}
