//! The digits of the diagrams' numeric labels as glyph outlines, drawn once in `<defs>` and
//! placed with `<use>`: a bank map has over a thousand labels, and laying each out as
//! `<text>` made both the SVG and its rasterisation slow (`benches/diagrams.sh`). The
//! outlines and advance come from usvg's own layout of the embedded font, so a `<use>`
//! label covers the pixels the `<text>` it replaces would.

use std::fmt::Write as _;
use std::sync::OnceLock;

use resvg::tiny_skia::PathSegment;
use resvg::usvg::{self, Node};

use super::font::{self, FONT_FAMILY};

/// Font size of every numeric label in the diagrams.
pub(crate) const LABEL_SIZE: u32 = 9;

/// The ten digit outlines at [`LABEL_SIZE`], origin on the baseline at the left edge.
struct Digits {
    /// SVG path data of '0'…'9'.
    paths: [String; 10],
    /// Horizontal advance of every digit (the font is monospaced).
    advance: f32,
}

fn digits() -> &'static Digits {
    static DIGITS: OnceLock<Digits> = OnceLock::new();
    DIGITS.get_or_init(|| {
        let paths = std::array::from_fn(|d| outline_of(char::from(b'0' + d as u8)));
        // Two digits apart: the advance is where the second one starts.
        let advance = layout_offsets("00")[1];
        Digits { paths, advance }
    })
}

/// Parses `<text>` of `content` at the origin with usvg and the embedded font.
fn text_tree(content: &str, anchor: &str) -> usvg::Tree {
    let svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\">\
         <text x=\"0\" y=\"0\" font-family=\"{FONT_FAMILY}\" font-size=\"{LABEL_SIZE}\" \
         text-anchor=\"{anchor}\">{content}</text></svg>"
    );
    usvg::Tree::from_str(&svg, &font::options()).expect("a one-line text SVG parses")
}

fn the_text(tree: &usvg::Tree) -> &usvg::Text {
    match tree.root().children() {
        [Node::Text(text)] => text,
        other => panic!("expected one text node, got {}", other.len()),
    }
}

/// The x offset of each glyph of `content` laid out by usvg, anchored at `anchor`.
fn layout_offsets_anchored(content: &str, anchor: &str) -> Vec<f32> {
    let tree = text_tree(content, anchor);
    the_text(&tree)
        .layouted()
        .iter()
        .flat_map(|span| span.positioned_glyphs.iter())
        .map(|glyph| glyph.transform().tx)
        .collect()
}

fn layout_offsets(content: &str) -> Vec<f32> {
    layout_offsets_anchored(content, "start")
}

fn outline_of(digit: char) -> String {
    let tree = text_tree(&digit.to_string(), "start");
    let mut d = String::new();
    for node in the_text(&tree).flattened().children() {
        let Node::Path(path) = node else { continue };
        for segment in path.data().segments() {
            let (command, points) = match segment {
                PathSegment::MoveTo(p) => ('M', vec![p]),
                PathSegment::LineTo(p) => ('L', vec![p]),
                PathSegment::QuadTo(p1, p) => ('Q', vec![p1, p]),
                PathSegment::CubicTo(p1, p2, p) => ('C', vec![p1, p2, p]),
                PathSegment::Close => ('Z', vec![]),
            };
            d.push(command);
            for p in points {
                let _ = write!(d, "{} {} ", number(p.x), number(p.y));
            }
        }
    }
    d.trim_end().to_owned()
}

/// `value` to three decimals, without trailing zeros: 0.0005 of a unit is far below a pixel
/// at any scale the site draws, and the same float always prints the same.
pub(crate) fn number(value: f32) -> String {
    let fixed = format!("{value:.3}");
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    match trimmed {
        "-0" | "" => "0".to_owned(),
        other => other.to_owned(),
    }
}

/// The `<defs>` children that every label refers to: `<path id="{id}-dN">` for each digit.
pub(crate) fn defs(id: &str) -> String {
    let mut out = String::new();
    for (digit, path) in digits().paths.iter().enumerate() {
        let _ = writeln!(out, "<path id=\"{id}-d{digit}\" d=\"{path}\"/>");
    }
    out
}

/// `<use>` elements drawing `value` centred on `x` with its baseline at `y`, as
/// `<text text-anchor="middle" font-size="9">` would; they take the fill of their parent.
pub(crate) fn label(id: &str, (x, y): (f32, u32), value: u32) -> String {
    let text = value.to_string();
    let advance = digits().advance;
    let start = x - text.len() as f32 * advance / 2.0;
    let mut out = String::new();
    for (i, digit) in text.bytes().enumerate() {
        let _ = write!(
            out,
            "<use href=\"#{id}-d{}\" x=\"{}\" y=\"{y}\"/>",
            char::from(digit),
            number(start + i as f32 * advance)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn prints(value: f32, expected: &str) {
        assert_eq!(number(value), expected);
    }

    #[test]
    fn numbers_print_short_and_stable() {
        prints(0.0, "0");
        prints(-0.0001, "0");
        prints(5.4185, "5.418");
        prints(-2.7, "-2.7");
        prints(12.0, "12");
        prints(-556.0, "-556");
    }

    #[test]
    fn labels_sit_where_usvg_lays_out_the_same_text() {
        for value in [0, 7, 10, 31, 32, 64, 105] {
            let ours: Vec<f32> = label("t", (0.0, 0), value)
                .split("x=\"")
                .skip(1)
                .map(|rest| rest.split('"').next().unwrap().parse().unwrap())
                .collect();
            let usvg = layout_offsets_anchored(&value.to_string(), "middle");
            assert_eq!(ours.len(), usvg.len(), "{value}");
            for (a, b) in ours.iter().zip(&usvg) {
                assert!((a - b).abs() < 1e-3, "{value}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn every_digit_has_an_outline() {
        for (digit, path) in digits().paths.iter().enumerate() {
            assert!(
                path.starts_with('M') && path.ends_with('Z'),
                "{digit}: {path}"
            );
        }
        assert!((digits().advance - 9.0 * 1233.0 / 2048.0).abs() < 1e-3);
    }
}
