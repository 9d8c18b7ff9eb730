//! The social card of a diagram: a 1200 × 630 SVG (the size link previews show) with the
//! diagram framed on it and titled, for `og:image`. Pure string work; uses `diagram::svg`.

use std::fmt::Write as _;

use super::font::FONT_FAMILY;
use super::svg::{CHROME_END, FRAME, INK, MUTED_INK, bank_fill};
use crate::html::escape;

/// Width of a social card, in pixels.
pub(crate) const CARD_WIDTH: u32 = 1200;
/// Height of a social card, in pixels.
pub(crate) const CARD_HEIGHT: u32 = 630;

const MARGIN: u32 = 40;
const STRIPE: u32 = 8;
const CARD_BACKGROUND: &str = "#f4f5f7";
/// Narrowest text column beside a diagram; a wide diagram goes under the title instead.
const MIN_TEXT_COLUMN: u32 = 380;
/// Height given to the title when it sits above the diagram.
const TITLE_BAND: u32 = 130;
const SUBTITLE_SIZE: u32 = 26;
/// Advance of a DejaVu Sans Mono glyph, in em.
const ADVANCE_EM: f32 = 1233.0 / 2048.0;

/// What the card says beside the diagram.
pub(crate) struct CardText<'a> {
    /// The main line, e.g. the glossary term.
    pub(crate) title: &'a str,
    /// A smaller line under it where there is room, e.g. the entry's question.
    pub(crate) subtitle: Option<&'a str>,
    /// The small line above it, e.g. "100 Days of GPU · CUDA glossary".
    pub(crate) kicker: &'a str,
}

/// Where the title goes and how large the diagram is drawn.
struct Layout {
    scale: f32,
    /// Top-left corner of the diagram.
    at: (f32, f32),
    /// Left, top and width of the text block.
    text: (u32, u32, u32),
    /// Most lines the title may take.
    title_lines: usize,
}

fn layout(width: u32, height: u32) -> Layout {
    let (w, h) = (width as f32, height as f32);
    let inner_h = (CARD_HEIGHT - 2 * MARGIN) as f32;
    let inner_w = (CARD_WIDTH - 2 * MARGIN) as f32;
    // Beside: text on the left, diagram on the right, full height.
    let beside = (inner_h / h).min((inner_w - (MIN_TEXT_COLUMN + MARGIN) as f32) / w);
    // Below: title band across the top, diagram under it.
    let below = (inner_w / w).min((inner_h - TITLE_BAND as f32) / h);
    if beside >= below {
        let (dw, dh) = (w * beside, h * beside);
        let x = CARD_WIDTH as f32 - MARGIN as f32 - dw;
        let y = (CARD_HEIGHT as f32 - dh) / 2.0;
        let text_width = (x as u32).saturating_sub(2 * MARGIN);
        Layout {
            scale: beside,
            at: (x, y),
            text: (MARGIN, MARGIN + 60, text_width),
            title_lines: 3,
        }
    } else {
        let (dw, dh) = (w * below, h * below);
        let x = (CARD_WIDTH as f32 - dw) / 2.0;
        let y = CARD_HEIGHT as f32 - MARGIN as f32 - dh;
        Layout {
            scale: below,
            at: (x, y),
            text: (MARGIN, MARGIN + 20, CARD_WIDTH - 2 * MARGIN),
            title_lines: 1,
        }
    }
}

/// `text` broken at spaces into at most `max_lines` lines of at most `columns` characters;
/// a word longer than a line is cut, and what does not fit ends in "…".
fn wrap(text: &str, columns: usize, max_lines: usize) -> Vec<String> {
    let columns = columns.max(4);
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        while !word.is_empty() {
            let used = current.chars().count();
            let room = if used == 0 {
                columns
            } else {
                columns - used - 1
            };
            if word.len() <= room {
                if used > 0 {
                    current.push(' ');
                }
                current.extend(word.drain(..));
            } else if used == 0 {
                current.extend(word.drain(..columns));
            } else {
                lines.push(std::mem::take(&mut current));
            }
            if current.chars().count() >= columns {
                lines.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    if lines.len() > max_lines {
        lines.truncate(max_lines);
        let last = &mut lines[max_lines - 1];
        let mut kept: Vec<char> = last.chars().collect();
        kept.truncate(columns - 1);
        *last = kept.into_iter().collect::<String>().trim_end().to_owned() + "…";
    }
    lines
}

/// Width and height of a diagram, read from its root element.
fn size_of(diagram: &str) -> Option<(u32, u32)> {
    let root = &diagram[..diagram.find('>')?];
    let attribute = |name: &str| -> Option<u32> {
        let start = root.find(&format!(" {name}=\""))? + name.len() + 3;
        root[start..].split('"').next()?.parse().ok()
    };
    Some((attribute("width")?, attribute("height")?))
}

/// The card for `diagram` (an SVG from `render_svg`): the diagram scaled to fit, beside or
/// under `text`. `None` when `diagram` is not one of ours.
pub(crate) fn card_svg(diagram: &str, text: &CardText<'_>) -> Option<String> {
    let (width, height) = size_of(diagram)?;
    let body_start = diagram.find('>')? + 1;
    let body = &diagram[body_start..diagram.rfind("</svg>")?];
    let layout = layout(width, height);
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{CARD_WIDTH}\" height=\"{CARD_HEIGHT}\" \
         viewBox=\"0 0 {CARD_WIDTH} {CARD_HEIGHT}\" font-family=\"{FONT_FAMILY}, monospace\">\n\
         <rect width=\"{CARD_WIDTH}\" height=\"{CARD_HEIGHT}\" fill=\"{CARD_BACKGROUND}\"/>\n"
    );
    // The 32 bank colours as a band across the top: the course's mark.
    for bank in 0..32u32 {
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"0\" width=\"{}\" height=\"{STRIPE}\" fill=\"{}\"/>",
            bank * CARD_WIDTH / 32,
            (bank + 1) * CARD_WIDTH / 32 - bank * CARD_WIDTH / 32,
            bank_fill(bank)
        );
    }
    let (left, top, _) = layout.text;
    let _ = writeln!(
        out,
        "<text x=\"{left}\" y=\"{top}\" font-size=\"22\" fill=\"{MUTED_INK}\">{}</text>",
        escape(text.kicker)
    );
    let (x, y) = layout.at;
    let scale = layout.scale;
    let (dw, dh) = (width as f32 * scale, height as f32 * scale);
    // The frame, then the mark: nothing after it overlaps what comes before it, so the
    // chrome can be painted first from a copy.
    let _ = writeln!(
        out,
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"8\" fill=\"none\" \
         stroke=\"{FRAME}\" stroke-width=\"2\"/>\n{CHROME_END}",
        x - 3.0,
        y - 3.0,
        dw + 6.0,
        dh + 6.0,
    );
    title(&mut out, &layout, text);
    let _ = write!(
        out,
        "<g transform=\"translate({x:.2} {y:.2}) scale({scale:.4})\" \
         font-family=\"{FONT_FAMILY}, monospace\">{body}</g>\n</svg>\n",
    );
    Some(out)
}

fn title(out: &mut String, layout: &Layout, text: &CardText<'_>) {
    let (left, top, width) = layout.text;
    let mut size = 46u32;
    let fits = |size: u32| (width as f32 / (size as f32 * ADVANCE_EM)) as usize;
    // Shrink the type until the longest word fits on a line, down to a floor.
    let longest = text
        .title
        .split_whitespace()
        .map(|w| w.chars().count())
        .max()
        .unwrap_or(0);
    while size > 30 && fits(size) < longest {
        size -= 2;
    }
    let lines = wrap(text.title, fits(size), layout.title_lines);
    let mut baseline = top + 14;
    for line in &lines {
        baseline += size + 10;
        let _ = writeln!(
            out,
            "<text x=\"{left}\" y=\"{baseline}\" font-size=\"{size}\" fill=\"{INK}\">{}</text>",
            escape(line)
        );
    }
    // Under a title beside the diagram there is room for the subtitle; above one, none.
    let Some(subtitle) = text.subtitle.filter(|_| layout.title_lines > 1) else {
        return;
    };
    baseline += 16;
    for line in wrap(subtitle, fits(SUBTITLE_SIZE), 4) {
        baseline += SUBTITLE_SIZE + 10;
        let _ = writeln!(
            out,
            "<text x=\"{left}\" y=\"{baseline}\" font-size=\"{SUBTITLE_SIZE}\" fill=\"{MUTED_INK}\">{}</text>",
            escape(&line)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn wraps(text: &str, columns: usize, max_lines: usize, expected: &[&str]) {
        assert_eq!(wrap(text, columns, max_lines), expected);
    }

    #[test]
    fn titles_wrap_at_spaces_and_end_in_an_ellipsis_when_cut() {
        wraps("Shared memory bank", 20, 3, &["Shared memory bank"]);
        wraps("Shared memory bank", 10, 3, &["Shared", "memory", "bank"]);
        wraps("Shared memory bank", 10, 2, &["Shared", "memory…"]);
        wraps(
            "cudaMemcpyAsyncPeer",
            8,
            3,
            &["cudaMemc", "pyAsyncP", "eer"],
        );
        wraps("", 10, 2, &[] as &[&str]);
        wraps("a b c", 4, 1, &["a b…"]);
        wraps("ab cd", 4, 1, &["ab…"]);
    }

    #[test]
    fn a_tall_diagram_goes_beside_the_title_and_a_wide_one_under_it() {
        let tall = layout(728, 808);
        assert!(tall.at.0 > 500.0 && tall.title_lines > 1);
        assert!(808.0 * tall.scale <= (CARD_HEIGHT - 2 * MARGIN) as f32 + 0.01);
        let wide = layout(772, 372);
        assert_eq!(wide.title_lines, 1);
        assert!(wide.at.1 >= (MARGIN + TITLE_BAND) as f32);
        assert!(772.0 * wide.scale <= (CARD_WIDTH - 2 * MARGIN) as f32 + 0.01);
    }

    #[test]
    fn the_card_escapes_its_text_and_frames_the_diagram() {
        let diagram = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"728\" height=\"808\">\
                       <rect width=\"10\" height=\"10\"/></svg>\n";
        let text = CardText {
            title: "Bank <conflict> & co",
            subtitle: Some("Why do <b> bank conflicts happen?"),
            kicker: "100 Days of GPU",
        };
        let card = card_svg(diagram, &text).unwrap();
        assert!(card.contains("Bank &lt;conflict&gt; &amp; co"), "{card}");
        assert!(card.contains("&lt;b&gt; bank"), "{card}");
        assert!(card.contains("<rect width=\"10\" height=\"10\"/></g>"));
        assert!(card.starts_with("<svg") && card.ends_with("</svg>\n"));
        assert_eq!(card_svg("not svg", &text), None);
    }
}
