//! SVG writing shared by the bank diagrams: the document frame with its accessible
//! `<title>`/`<desc>`, text, numeric labels, and the palettes.

use std::fmt::{self, Write as _};

use super::glyphs;
use crate::html::escape;

use super::font::FONT_FAMILY;

// Drawn inside the SVG so the diagram reads the same on light and dark page themes.
pub(crate) const BACKGROUND: &str = "#ffffff";
pub(crate) const FRAME: &str = "#c9ccd1";
pub(crate) const INK: &str = "#1a1a1a";
pub(crate) const MUTED_INK: &str = "#4a4f57";

// One colour per bank. Hues step by 5/32 of a turn (56°) from bank to bank and lightness
// alternates (OKLCH L 0.91 for even banks, 0.73 for odd), so neighbouring banks differ in
// both hue and lightness, which still tells them apart for colour-blind readers; all 32 are
// distinct and dark ink on any of them has a contrast ratio above 6.7.
const BANK_PALETTE: [&str; 32] = [
    "#ffd6d2", "#d49d27", "#c8eebb", "#08c0be", "#cce4fe", "#be8fed", "#fed5de", "#e89043",
    "#dfe8ab", "#14c39c", "#bbeaff", "#9d9afc", "#ffd2ee", "#f28567", "#f4e1a4", "#61c075",
    "#a0f1fb", "#76a7fe", "#f4d4ff", "#f2808d", "#fedab2", "#91b74e", "#a4f3e6", "#3fb3f5",
    "#e3dcff", "#e980b2", "#ffd8c5", "#b7ab2d", "#b3f2cf", "#10bbdb", "#d7e0fe", "#d786d3",
];

/// Fill of a word cell in bank `bank`; banks past 32 wrap round the palette.
pub(crate) fn bank_fill(bank: u32) -> &'static str {
    BANK_PALETTE[bank as usize % BANK_PALETTE.len()]
}

/// A step of the load scale: banks serving this many distinct words share a fill.
pub(crate) struct LoadLevel {
    pub(crate) up_to: u32,
    pub(crate) label: &'static str,
    pub(crate) fill: &'static str,
    pub(crate) ink: &'static str,
}

// Distinct words served by one bank, from idle (grey) through calm to hot (red). Steps are
// powers of two because a stride's conflict degree, gcd(s, 32), always is one.
pub(crate) const LOAD_LEVELS: [LoadLevel; 7] = [
    LoadLevel {
        up_to: 0,
        label: "0",
        fill: "#f5f5f5",
        ink: MUTED_INK,
    },
    LoadLevel {
        up_to: 1,
        label: "1",
        fill: "#baebd4",
        ink: INK,
    },
    LoadLevel {
        up_to: 2,
        label: "2",
        fill: "#d1d486",
        ink: INK,
    },
    LoadLevel {
        up_to: 4,
        label: "3–4",
        fill: "#e9b452",
        ink: INK,
    },
    LoadLevel {
        up_to: 8,
        label: "5–8",
        fill: "#eb883b",
        ink: INK,
    },
    LoadLevel {
        up_to: 16,
        label: "9–16",
        fill: "#d95737",
        ink: "#ffffff",
    },
    LoadLevel {
        up_to: u32::MAX,
        label: "17+",
        fill: "#ba2b2e",
        ink: "#ffffff",
    },
];

/// The load step for a bank serving `words` distinct words.
pub(crate) fn load_level(words: u32) -> &'static LoadLevel {
    LOAD_LEVELS
        .iter()
        .find(|level| words <= level.up_to)
        .unwrap_or(&LOAD_LEVELS[LOAD_LEVELS.len() - 1])
}

/// The light colours a page theme may override, each with the CSS custom property that
/// overrides it (the site's stylesheet defines the dark values).
fn theme_names() -> &'static std::collections::HashMap<&'static str, String> {
    static NAMES: std::sync::OnceLock<std::collections::HashMap<&'static str, String>> =
        std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names = std::collections::HashMap::new();
        for (colour, name) in [
            (BACKGROUND, "diagram-bg"),
            (FRAME, "diagram-frame"),
            (INK, "diagram-ink"),
            (MUTED_INK, "diagram-muted"),
            (LANE_FILL, "diagram-lane"),
        ] {
            names.insert(colour, name.to_string());
        }
        for (bank, colour) in BANK_PALETTE.iter().enumerate() {
            names.insert(*colour, format!("bank-{bank}"));
        }
        for (i, level) in LOAD_LEVELS.iter().enumerate() {
            names.insert(level.fill, format!("load-{i}"));
        }
        names
    })
}

/// Fill of the lane boxes of `lane-banks` and `lane-sectors`.
pub(crate) const LANE_FILL: &str = "#eef0f3";

/// The diagram with each of its colours drawn through a CSS custom property that falls back
/// to the colour itself (`fill="var(--bank-3, #08c0be)"`), so an inline diagram follows the
/// page's light or dark theme. Files on their own (SVG, PNG) keep the plain light colours.
pub(crate) fn themed(svg: &str) -> String {
    let names = theme_names();
    let mut out = String::with_capacity(svg.len() + svg.len() / 8);
    let mut rest = svg;
    while let Some(at) = rest.find("=\"#") {
        let (head, tail) = rest.split_at(at + 2);
        out.push_str(head);
        let colour = tail
            .get(..7)
            .filter(|_| tail.as_bytes().get(7) == Some(&b'"'));
        match colour.and_then(|c| names.get(c).map(|n| (c, n))) {
            Some((colour, name)) => {
                out.push_str("var(--");
                out.push_str(name);
                out.push_str(", ");
                out.push_str(colour);
                out.push(')');
                rest = &tail[7..];
            }
            None => rest = tail,
        }
    }
    out.push_str(rest);
    out
}
/// Marks the start of a part of a diagram that is the same in every diagram of its kind (a
/// bank map's tile): `raster` renders such a part once per process and reuses the pixels.
pub(crate) const STATIC_START: &str = "<!--coursegen:static-->";
/// Marks the end of that part.
pub(crate) const STATIC_END: &str = "<!--coursegen:/static-->";
/// Ends a card's chrome (background, stripe, kicker, frame): the same in every card of a
/// section and diagram size, so `raster` renders it once per process and paints the rest
/// of the card over a copy.
pub(crate) const CHROME_END: &str = "<!--coursegen:/chrome-->";

/// Horizontal alignment of a text run.
#[derive(Clone, Copy)]
pub(crate) enum Anchor {
    Start,
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::End => "end",
        }
    }
}

/// An SVG document being written, always with integer coordinates so the output is
/// byte-identical on every platform.
pub(crate) struct Svg {
    out: String,
    /// The document's id, which prefixes the ids of its `<defs>`.
    id: String,
}

/// What the document's root element says about itself.
pub(crate) struct Frame<'a> {
    pub(crate) id: &'a str,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) title: &'a str,
    pub(crate) desc: &'a str,
}

impl Svg {
    /// Opens the root with `role="img"`, labelled by its title and description, and defines
    /// the digit glyphs that [`Svg::labels`] places; no panel (see [`Svg::open`]).
    pub(crate) fn header(frame: &Frame<'_>) -> Svg {
        let Frame {
            id, width, height, ..
        } = *frame;
        let mut svg = Svg {
            out: String::new(),
            id: id.to_owned(),
        };
        svg.line(format_args!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" role=\"img\" \
             aria-labelledby=\"{id}-title {id}-desc\" font-family=\"{FONT_FAMILY}, monospace\">"
        ));
        svg.line(format_args!(
            "<title id=\"{id}-title\">{}</title>",
            escape(frame.title)
        ));
        svg.line(format_args!(
            "<desc id=\"{id}-desc\">{}</desc>",
            escape(frame.desc)
        ));
        svg.line(format_args!("<defs>\n{}</defs>", glyphs::defs(id)));
        svg
    }

    /// Opens a diagram as [`Svg::header`] does and draws its panel.
    pub(crate) fn open(frame: &Frame<'_>) -> Svg {
        let mut svg = Svg::header(frame);
        svg.panel(frame);
        svg
    }

    /// The diagram's panel: a rounded, framed rectangle the size of the document.
    pub(crate) fn panel(&mut self, frame: &Frame<'_>) {
        self.line(format_args!(
            "<rect x=\"0.5\" y=\"0.5\" width=\"{}\" height=\"{}\" rx=\"6\" fill=\"{BACKGROUND}\" \
             stroke=\"{FRAME}\"/>",
            frame.width - 1,
            frame.height - 1
        ));
    }

    /// Writes one line of markup, already escaped.
    pub(crate) fn line(&mut self, markup: fmt::Arguments<'_>) {
        self.out
            .write_fmt(markup)
            .expect("writing to a String cannot fail");
        self.out.push('\n');
    }

    /// Writes a text run at (`x`, `y`) (baseline), escaping `content`.
    pub(crate) fn text(
        &mut self,
        at: (u32, u32),
        size: u32,
        anchor: Anchor,
        fill: &str,
        content: &str,
    ) {
        let (x, y) = at;
        self.line(format_args!(
            "<text x=\"{x}\" y=\"{y}\" font-size=\"{size}\" text-anchor=\"{}\" fill=\"{fill}\">{}</text>",
            anchor.as_str(),
            escape(content)
        ));
    }

    /// The id of this document, to prefix ids of further `<defs>`.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Writes numeric labels, each `value` centred on `x` with its baseline at `y`, at
    /// [`glyphs::LABEL_SIZE`]: `<use>` of the digit glyphs, in one group filled with `fill`,
    /// or with the fill of the enclosing group when `None`.
    pub(crate) fn labels(
        &mut self,
        fill: Option<&str>,
        labels: impl IntoIterator<Item = ((u32, u32), u32)>,
    ) {
        let uses: String = labels
            .into_iter()
            .map(|((x, y), value)| glyphs::label(&self.id, (x as f32, y), value))
            .collect();
        match fill {
            Some(fill) => self.line(format_args!("<g fill=\"{fill}\">{uses}</g>")),
            None => self.line(format_args!("{uses}")),
        }
    }

    /// Closes the root and returns the document.
    pub(crate) fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_has_32_distinct_colours_and_neighbours_differ() {
        let mut seen: Vec<&str> = (0..32).map(bank_fill).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 32);
        assert_eq!(bank_fill(32), bank_fill(0));
        // Lightness alternates, so neighbours differ even to a reader who sees no hue.
        let luma = |bank: u32| {
            let hex = bank_fill(bank);
            let channel = |i: usize| u32::from_str_radix(&hex[i..i + 2], 16).unwrap();
            (299 * channel(1) + 587 * channel(3) + 114 * channel(5)) / 1000
        };
        for bank in 0..32 {
            let (this, next) = (luma(bank), luma((bank + 1) % 32));
            assert!(
                this.abs_diff(next) >= 25,
                "banks {bank} and {}: {this} vs {next}",
                bank + 1
            );
        }
    }

    #[test]
    fn themed_colours_fall_back_to_the_light_ones() {
        let svg = "<rect fill=\"#ffffff\" stroke=\"#c9ccd1\"/><path fill=\"#08c0be\"/>\
                   <text fill=\"#123456\">#ffffff</text>";
        assert_eq!(
            themed(svg),
            "<rect fill=\"var(--diagram-bg, #ffffff)\" stroke=\"var(--diagram-frame, #c9ccd1)\"/>\
             <path fill=\"var(--bank-3, #08c0be)\"/><text fill=\"#123456\">#ffffff</text>"
        );
        // Every palette colour has its own property, so each can be re-coloured.
        let named: std::collections::HashSet<&String> = theme_names().values().collect();
        assert_eq!(named.len(), theme_names().len());
        assert_eq!(theme_names().len(), 5 + 32 + LOAD_LEVELS.len());
    }

    #[test]
    fn load_levels_cover_every_count() {
        assert_eq!(load_level(0).label, "0");
        assert_eq!(load_level(1).label, "1");
        assert_eq!(load_level(3).label, "3–4");
        assert_eq!(load_level(32).label, "17+");
        assert_eq!(load_level(u32::MAX).label, "17+");
    }
}
