//! Pixel tests: the PNGs that resvg makes of the diagrams show what the model says, the
//! highlight is drawn, and the embedded font really puts text on the image.

use resvg::tiny_skia::Pixmap;

use super::*;
use crate::bank::bank_map::cell_origin;
use crate::bank::diagram::tests::{bank_map, lane_banks, render};
use crate::bank::lane_banks::{BANK_TOP, box_left};
use crate::bank::svg::{bank_fill, load_level};

const SCALE: f32 = 2.0;

fn raster(svg: &str) -> Pixmap {
    let png = svg_to_png(svg, SCALE).expect("diagram rasterises");
    Pixmap::decode_png(&png).expect("valid PNG")
}

/// The pixel at user-space point (`x`, `y`) of the SVG, as RGBA.
fn pixel(pixmap: &Pixmap, (x, y): (u32, u32)) -> [u8; 4] {
    // Truncation is intended: SCALE is a whole number.
    let scale = SCALE as u32;
    let colour = pixmap
        .pixel(x * scale, y * scale)
        .expect("point inside the image");
    [colour.red(), colour.green(), colour.blue(), colour.alpha()]
}

fn rgba(hex: &str) -> [u8; 4] {
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
    [byte(1), byte(3), byte(5), 255]
}

/// A point inside word cell (row, column), clear of its bank number and of any outline.
fn in_cell(row: u32, column: u32) -> (u32, u32) {
    let (x, y) = cell_origin(row, column);
    (x + 4, y + 4)
}

#[test]
fn in_a_32_wide_map_each_column_is_one_colour_its_banks() {
    let image = raster(&render(&bank_map(None, None)));
    for column in 0..32 {
        for row in 0..32 {
            assert_eq!(
                pixel(&image, in_cell(row, column)),
                rgba(bank_fill(column)),
                "tile[{row}][{column}]"
            );
        }
    }
}

#[test]
fn in_a_33_wide_map_one_column_shows_32_distinct_colours() {
    let image = raster(&render(&bank_map(Some(33), Some((0, 5)))));
    let mut colours: Vec<[u8; 4]> = (0..32).map(|row| pixel(&image, in_cell(row, 5))).collect();
    for (row, colour) in (0u32..).zip(&colours) {
        assert_eq!(*colour, rgba(bank_fill((row + 5) % 32)), "tile[{row}][5]");
    }
    colours.sort_unstable();
    colours.dedup();
    assert_eq!(colours.len(), 32);
}

#[test]
fn the_highlighted_row_and_column_are_drawn() {
    let plain = raster(&render(&bank_map(None, None)));
    let picked = raster(&render(&bank_map(None, Some((0, 5)))));
    // The outlines sit on the cell edges: left of column 5 and above row 0.
    let (column_x, _) = cell_origin(0, 5);
    let (_, middle_y) = cell_origin(16, 0);
    let (_, row_y) = cell_origin(0, 0);
    let (middle_x, _) = cell_origin(0, 20);
    for point in [(column_x - 2, middle_y + 10), (middle_x + 10, row_y - 2)] {
        assert_ne!(
            pixel(&plain, point),
            pixel(&picked, point),
            "outline at {point:?}"
        );
        assert_eq!(
            pixel(&picked, point),
            [0x1a, 0x1a, 0x1a, 255],
            "outline ink at {point:?}"
        );
    }
    // Away from the picked row and column the two pictures agree.
    for (row, column) in [(10, 10), (31, 31), (16, 0)] {
        let point = in_cell(row, column);
        assert_eq!(
            pixel(&plain, point),
            pixel(&picked, point),
            "tile[{row}][{column}]"
        );
    }
}

#[test]
fn lane_banks_shade_each_bank_by_its_load() {
    let point = |bank| (box_left(bank) + 3, BANK_TOP + 3);
    let conflicted = raster(&render(&lane_banks(32)));
    assert_eq!(pixel(&conflicted, point(0)), rgba(load_level(32).fill));
    for bank in 1..32 {
        assert_eq!(
            pixel(&conflicted, point(bank)),
            rgba(load_level(0).fill),
            "bank {bank}"
        );
    }
    let padded = raster(&render(&lane_banks(33)));
    for bank in 0..32 {
        assert_eq!(
            pixel(&padded, point(bank)),
            rgba(load_level(1).fill),
            "bank {bank}"
        );
    }
}

/// `svg` with every `<text>` element taken out.
fn without_text(svg: &str) -> String {
    svg.lines()
        .filter(|line| !line.trim_start().starts_with("<text"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn text_renders_with_the_embedded_font() {
    // resvg drops text it has no font for; if the embedded font were not used, taking the
    // text out would change nothing.
    for spec in [bank_map(None, Some((0, 5))), lane_banks(32)] {
        let svg = render(&spec);
        let stripped = without_text(&svg);
        assert!(svg.contains("<text") && !stripped.contains("<text"));
        let with = raster(&svg);
        let bare = raster(&stripped);
        let differing = with
            .pixels()
            .iter()
            .zip(bare.pixels())
            .filter(|(a, b)| a != b)
            .count();
        // The heading alone covers thousands of pixels at 2×.
        assert!(
            differing > 5_000,
            "{differing} pixels differ for {:?}",
            spec.preset
        );
    }
}

#[test]
fn the_embedded_font_is_the_family_the_svgs_ask_for() {
    let families: Vec<&str> = fonts()
        .faces()
        .flat_map(|face| face.families.iter().map(|(name, _)| name.as_str()))
        .collect();
    assert_eq!(families, [FONT_FAMILY]);
}

#[track_caller]
fn bad_scale(scale: f32) {
    let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>"#;
    assert!(
        matches!(svg_to_png(svg, scale), Err(RasterError::BadScale { .. })),
        "{scale}"
    );
}

#[test]
fn scales_outside_the_range_are_refused() {
    bad_scale(0.0);
    bad_scale(-1.0);
    bad_scale(f32::NAN);
    bad_scale(f32::INFINITY);
    bad_scale(MAX_SCALE * 2.0);
}

#[test]
fn malformed_svg_is_an_error_not_a_panic() {
    let error = svg_to_png("<svg", 1.0).unwrap_err();
    assert!(matches!(error, RasterError::Parse { .. }), "{error}");
}

#[test]
fn an_enormous_canvas_is_refused() {
    let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>"#;
    let error = svg_to_png(svg, 1.0).unwrap_err();
    assert!(matches!(error, RasterError::Canvas { .. }), "{error}");
}
