//! Pixel tests: the PNGs that resvg makes of the diagrams show what the model says, the
//! highlight is drawn, and the embedded font really puts text on the image.

use resvg::tiny_skia::Pixmap;

use super::*;
use crate::diagram::bank_map::{CELL, cell_origin};
use crate::diagram::card::card_svg;
use crate::diagram::glyphs;
use crate::diagram::lane_banks::BANK_TOP;
use crate::diagram::lanes::box_left;
use crate::diagram::svg::{BACKGROUND, INK};
use crate::diagram::svg::{bank_fill, load_level};
use crate::diagram::tests::{bank_map, lane_banks, render};

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
    // Rows are one strip of cells shifted and clipped: nothing of it shows beside the tile.
    let background = rgba(BACKGROUND);
    for row in 1..32 {
        let (left, y) = cell_origin(row, 0);
        let (right, _) = cell_origin(row, 33);
        assert_eq!(
            pixel(&image, (left - 4, y + 4)),
            background,
            "left of row {row}"
        );
        assert_eq!(
            pixel(&image, (right + 4, y + 4)),
            background,
            "right of row {row}"
        );
    }
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

/// Pixels of the 20 × 14 tab centred on `x` with its number's baseline at `y`: how many are
/// the ink and how many light (the white number, anti-aliased).
fn tab_colours(pixmap: &Pixmap, (x, y): (u32, u32)) -> (usize, usize) {
    let (mut ink, mut white) = (0, 0);
    for ty in y - 9..y + 3 {
        for tx in x - 8..x + 8 {
            match pixel(pixmap, (tx, ty)) {
                [0x1a, 0x1a, 0x1a, 255] => ink += 1,
                [r, g, b, 255] if r.min(g).min(b) > 200 => white += 1,
                _ => {}
            }
        }
    }
    (ink, white)
}

#[test]
fn the_picked_row_and_column_numbers_are_reversed_out_of_dark_tabs() {
    let plain = raster(&render(&bank_map(None, None)));
    let picked = raster(&render(&bank_map(None, Some((7, 5)))));
    let (column_x, _) = cell_origin(0, 5);
    let (_, row_y) = cell_origin(7, 0);
    let column_tab = (column_x + CELL / 2, 96 - 8);
    let row_tab = (64 - 14, row_y + CELL / 2 + 3);
    for tab in [column_tab, row_tab] {
        let (ink, white) = tab_colours(&picked, tab);
        // The tab is dark, and its number (drawn over the plain one) shows white.
        assert!(
            ink > 100 && white >= 3,
            "tab at {tab:?}: {ink} ink, {white} white"
        );
        let (ink, _) = tab_colours(&plain, tab);
        assert_eq!(ink, 0, "no tab at {tab:?} when nothing is picked");
    }
    // Another number keeps its plain look.
    let (ink, _) = tab_colours(&picked, (cell_origin(0, 9).0 + CELL / 2, 96 - 8));
    assert_eq!(ink, 0);
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
fn glyph_labels_cover_the_pixels_text_would() {
    // Every label a diagram draws, at whole and half-unit centres, as `<use>` of the digit
    // glyphs and as the `<text>` they replace. They may differ only where float rounding
    // tips one anti-aliasing sample: a step of at most 1/16 on a few edge pixels.
    let open = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"440\" height=\"100\">\
                <rect width=\"440\" height=\"100\" fill=\"#fed5de\"/>";
    let mut uses = format!("{open}<defs>{}</defs><g fill=\"{INK}\">", glyphs::defs("t"));
    let mut texts = format!(
        "{open}<g fill=\"{INK}\" font-size=\"{}\" text-anchor=\"middle\" \
         font-family=\"DejaVu Sans Mono\">",
        glyphs::LABEL_SIZE
    );
    for value in 0..=64u32 {
        let (x, y) = (10.0 + (value % 20) as f32 * 21.5, 20 + (value / 20) * 20);
        uses.push_str(&glyphs::label("t", (x, y), value));
        texts.push_str(&format!("<text x=\"{x}\" y=\"{y}\">{value}</text>"));
    }
    let (uses, texts) = (
        raster(&format!("{uses}</g></svg>")),
        raster(&format!("{texts}</g></svg>")),
    );
    let background = rgba("#fed5de");
    let inked = texts
        .pixels()
        .iter()
        .filter(|p| [p.red(), p.green(), p.blue(), p.alpha()] != background);
    let inked = inked.count();
    let mut differing = 0;
    for (a, b) in uses.pixels().iter().zip(texts.pixels()) {
        let channels = [
            a.red().abs_diff(b.red()),
            a.green().abs_diff(b.green()),
            a.blue().abs_diff(b.blue()),
        ];
        let worst = channels.into_iter().max().unwrap();
        assert!(worst <= 16, "a pixel differs by {worst}");
        differing += usize::from(worst > 0);
    }
    assert!(inked > 5_000, "{inked} pixels of ink");
    assert!(
        differing * 50 < inked,
        "{differing} of {inked} inked pixels differ"
    );
}

/// The social card of `spec`, as the site makes it for the seed entry.
fn card_of(spec: &crate::diagram::DiagramSpec) -> Vec<u8> {
    let text = crate::diagram::card::CardText {
        title: "Shared memory bank",
        subtitle: Some("What is a shared memory bank on a GPU?"),
        kicker: "100 Days of GPU · CUDA glossary",
    };
    let card = crate::diagram::card::card_svg(&render(spec), &text).expect("our SVG has a size");
    crate::diagram::raster::svg_to_indexed_png(&card).expect("card rasterises")
}

#[test]
fn social_cards_are_1200_by_630_and_under_100_kb() {
    for spec in [
        bank_map(None, Some((0, 5))),
        bank_map(Some(33), Some((3, 7))),
        lane_banks(32),
        lane_banks(3),
    ] {
        let start = std::time::Instant::now();
        let png = card_of(&spec);
        let elapsed = start.elapsed();
        if let Some(dir) = std::env::var_os("BANK_DIAGRAM_OUT") {
            let name = format!(
                "card-{:?}-{:?}-{:?}.png",
                spec.preset, spec.width, spec.stride
            );
            std::fs::write(std::path::Path::new(&dir).join(name), &png).unwrap();
            eprintln!("{:?}: {} bytes in {elapsed:?}", spec, png.len());
        }
        let image = Pixmap::decode_png(&png).unwrap();
        assert_eq!((image.width(), image.height()), (1200, 630), "{spec:?}");
        assert!(png.len() <= 100 * 1024, "{spec:?}: {} bytes", png.len());
    }
}

#[test]
fn the_card_shows_the_diagram_title_and_bank_colours() {
    let card = Pixmap::decode_png(&card_of(&bank_map(None, Some((0, 5))))).unwrap();
    let at = |x: u32, y: u32| {
        let c = card.pixel(x, y).unwrap();
        [c.red(), c.green(), c.blue(), c.alpha()]
    };
    // The band of bank colours across the top, exact despite the palette.
    for bank in [0, 1, 31] {
        assert_eq!(
            at(bank * 1200 / 32 + 10, 3),
            rgba(bank_fill(bank)),
            "bank {bank}"
        );
    }
    // Ink of the title on the left, and every bank fill somewhere in the diagram.
    let ink = card
        .pixels()
        .iter()
        .take(1200 * 300)
        .enumerate()
        .filter(|(i, p)| i % 1200 < 600 && p.red() < 0x40 && p.green() < 0x40);
    assert!(ink.count() > 1_000, "the title is drawn");
    let mut seen: Vec<[u8; 4]> = card
        .pixels()
        .iter()
        .map(|c| [c.red(), c.green(), c.blue(), c.alpha()])
        .collect();
    seen.sort_unstable();
    seen.dedup();
    for bank in 0..32 {
        assert!(seen.contains(&rgba(bank_fill(bank))), "bank {bank} fill");
    }
}

/// Where a card's time goes; a measurement, not a check:
/// `cargo test --release --lib card_cost -- --ignored --nocapture`.
#[test]
#[ignore = "prints timings; run in release by hand"]
fn card_cost_breakdown() {
    use std::time::Instant;
    let text = crate::diagram::card::CardText {
        title: "Shared memory bank",
        subtitle: Some("What is a shared memory bank on a GPU?"),
        kicker: "100 Days of GPU · Glossary",
    };
    let _ = card_of(&bank_map(None, Some((0, 5))));
    for spec in [
        bank_map(None, Some((1, 6))),
        bank_map(Some(33), Some((2, 9))),
        lane_banks(5),
    ] {
        let start = Instant::now();
        let svg = render(&spec);
        let card = crate::diagram::card::card_svg(&svg, &text).unwrap();
        let t_svg = start.elapsed();
        let tree = resvg::usvg::Tree::from_str(&card, &crate::diagram::font::options()).unwrap();
        let t_parse = start.elapsed();
        let mut pixmap = Pixmap::new(1200, 630).unwrap();
        resvg::render(
            &tree,
            resvg::tiny_skia::Transform::identity(),
            &mut pixmap.as_mut(),
        );
        let t_render = start.elapsed();
        let png = crate::diagram::palette::encode_indexed(&pixmap).unwrap();
        let t_encode = start.elapsed();
        eprintln!(
            "{:?}: svg {:?} parse {:?} render {:?} quantise+encode {:?} ({} B, {} nodes)",
            spec.preset,
            t_svg,
            t_parse - t_svg,
            t_render - t_parse,
            t_encode - t_render,
            png.len(),
            count(tree.root()),
        );
    }
    fn count(group: &resvg::usvg::Group) -> usize {
        group
            .children()
            .iter()
            .map(|n| match n {
                resvg::usvg::Node::Group(g) => 1 + count(g),
                _ => 1,
            })
            .sum()
    }
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

#[test]
fn a_card_rendered_in_layers_matches_one_rendered_whole() {
    use crate::diagram::card::{CardText, card_svg};
    let text = CardText {
        title: "Shared memory bank",
        subtitle: None,
        kicker: "100 Days of GPU",
    };
    for spec in [bank_map(None, Some((3, 4))), bank_map(Some(33), None)] {
        let card = card_svg(&render(&spec), &text).unwrap();
        let layers = Layers::of(&card).expect("a bank map card has a static part");
        assert!(
            layers.chrome.is_some(),
            "the card's chrome is rendered once"
        );
        let fixed = rendered_once(&layers.fixed).unwrap();
        assert!(
            clear_of(&parse(&layers.below).unwrap(), fixed.bounds),
            "the card's text is beside the diagram: drawn over the chrome and part at once"
        );
        let whole = super::render(&card, 1.0).unwrap();
        let worst = |a: &Pixmap, b: &Pixmap| {
            (a.data().iter().zip(b.data()))
                .map(|(a, b)| a.abs_diff(*b))
                .max()
                .unwrap()
        };
        // Compositing a premultiplied layer rounds once more than drawing in place.
        let in_order = layers.render().unwrap();
        assert!(worst(&whole, &in_order) <= 4, "{spec:?}: drawn in order");
        // Twice: the second takes the base from memory.
        for _ in 0..2 {
            let (base, drawn) = layers.over_base().unwrap().expect("the text is clear");
            let mut canvas = Pixmap::new(1200, 630).unwrap();
            drawn.draw(&mut canvas);
            let mut composite = base.pixmap().clone();
            palette::over_bytes(composite.data_mut(), canvas.data());
            assert!(worst(&whole, &composite) <= 4, "{spec:?}: over the base");
            // The PNG: the same pixels but where the palette rounds an edge (about 3 %).
            let png = Pixmap::decode_png(&base.encode_over(&mut canvas).unwrap()).unwrap();
            let exact = (png.pixels().iter().zip(composite.pixels()))
                .filter(|(a, b)| a == b)
                .count();
            assert!(
                exact * 100 >= 95 * png.pixels().len(),
                "{spec:?}: {exact} exact pixels"
            );
            assert!(
                canvas.data().iter().all(|&b| b == 0),
                "the canvas is left transparent"
            );
        }
    }
    let card = card_svg(&render(&lane_banks(2)), &text).unwrap();
    assert!(Layers::of(&card).is_none(), "lane-banks has no static part");
}

#[test]
fn a_card_is_the_same_whatever_was_drawn_before_it_on_the_thread() {
    let card = |row, column| {
        let text = crate::diagram::card::CardText {
            title: "Shared memory bank",
            subtitle: None,
            kicker: "100 Days of GPU",
        };
        card_svg(&render(&bank_map(None, Some((row, column)))), &text).unwrap()
    };
    let (a, b) = (card(1, 2), card(30, 29));
    // The first card of a fresh thread, then the same after another card on this one.
    let fresh = std::thread::spawn({
        let b = b.clone();
        move || svg_to_indexed_png(&b).unwrap()
    })
    .join()
    .unwrap();
    let first = svg_to_indexed_png(&a).unwrap();
    assert_eq!(svg_to_indexed_png(&b).unwrap(), fresh);
    assert_eq!(svg_to_indexed_png(&a).unwrap(), first);
    assert_ne!(first, fresh);
}

#[test]
fn a_layer_is_composited_through_its_spans_as_pixel_by_pixel() {
    use resvg::tiny_skia::{Color, Paint, Rect, Transform};
    // A layer with transparent gaps, opaque fills and anti-aliased (partial) edges.
    let mut layer = Pixmap::new(50, 20).unwrap();
    let mut paint = Paint::default();
    paint.set_color(Color::from_rgba8(200, 30, 90, 255));
    layer.fill_rect(
        Rect::from_xywh(3.3, 2.5, 20.0, 9.0).unwrap(),
        &paint,
        Transform::identity(),
        None,
    );
    paint.set_color(Color::from_rgba8(10, 120, 250, 128));
    layer.fill_rect(
        Rect::from_xywh(15.0, 6.0, 30.0, 10.0).unwrap(),
        &paint,
        Transform::identity(),
        None,
    );
    let rendered = Rendered::new(layer.clone());
    let spans = &rendered.spans;
    assert!(spans.iter().any(|s| s.opaque) && spans.iter().any(|s| !s.opaque));
    // Spans are in order, never touch one of the same kind, and cover exactly the pixels
    // that are not transparent.
    for pair in spans.windows(2) {
        let end = pair[0].start + pair[0].len;
        assert!(end <= pair[1].start);
        assert!(end < pair[1].start || pair[0].opaque != pair[1].opaque);
    }
    let visible: Vec<(u32, u32)> = (0..20u32)
        .flat_map(|y| (0..50u32).map(move |x| (x, y)))
        .filter(|&(x, y)| layer.pixel(x, y).unwrap().alpha() > 0)
        .collect();
    let naive = [
        visible.iter().map(|p| p.0).min().unwrap(),
        visible.iter().map(|p| p.1).min().unwrap(),
        visible.iter().map(|p| p.0).max().unwrap() + 1,
        visible.iter().map(|p| p.1).max().unwrap() + 1,
    ];
    assert_eq!(rendered.bounds, Some(naive));
    assert_eq!(Rendered::new(Pixmap::new(5, 5).unwrap()).bounds, None);
    let covered: usize = spans.iter().map(|s| s.len).sum();
    let visible = layer.pixels().iter().filter(|p| p.alpha() > 0).count();
    assert_eq!(covered, visible);
    let mut below = Pixmap::new(50, 20).unwrap();
    below.fill(Color::from_rgba8(240, 240, 200, 255));
    let mut expected = below.clone();
    for (d, s) in expected
        .data_mut()
        .chunks_exact_mut(4)
        .zip(layer.data().chunks_exact(4))
    {
        let keep = 255 - u16::from(s[3]);
        for (d, &s) in d.iter_mut().zip(s) {
            *d = s + ((u16::from(*d) * keep + 255) >> 8) as u8;
        }
    }
    source_over(&mut below, &rendered);
    assert_eq!(below.data(), expected.data());
}

#[test]
fn a_layer_is_clear_of_a_box_only_when_nothing_it_draws_comes_near() {
    let tree = |body: &str| {
        parse(&format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"100\">{body}</svg>"
        ))
        .unwrap()
    };
    let square = tree("<rect x=\"10\" y=\"10\" width=\"20\" height=\"20\"/>");
    assert!(
        clear_of(&square, Some([100, 0, 200, 100])),
        "far to the right"
    );
    assert!(clear_of(&square, Some([0, 60, 200, 100])), "far below");
    assert!(!clear_of(&square, Some([25, 25, 60, 60])), "overlapping");
    assert!(
        !clear_of(&square, Some([31, 0, 60, 100])),
        "a pixel away: anti-aliasing"
    );
    assert!(clear_of(&square, None), "an empty part");
    assert!(clear_of(&tree(""), Some([0, 0, 200, 100])), "nothing drawn");
    let text = tree("<text x=\"10\" y=\"50\" font-size=\"20\">a title</text>");
    assert!(
        !clear_of(&text, Some([40, 40, 60, 60])),
        "text is measured too"
    );
}
