//! The entry's `diagram:` checked and drawn as SVG by the bank model, and the names of the
//! files a diagram adds to the output (the render stage rasterises its card: `render::cards`).
use crate::bank::{Cell, DiagramError, DiagramSpec, Preset, render_svg};
use crate::content::{Diagnostic, Entry};

/// File name of the social card written beside a page that has a diagram.
pub(crate) const DIAGRAM_PNG: &str = "diagram.png";

/// File name of the full-size SVG written beside a page that has a diagram.
pub(crate) const DIAGRAM_SVG: &str = "diagram.svg";

/// File name of the site's own card, at the root: the `og:image` of pages without a
/// diagram.
pub(crate) const SITE_CARD_PNG: &str = "card.png";

/// A diagram drawn from a checked spec.
pub(crate) struct Drawn {
    /// Inline SVG.
    pub(crate) svg: String,
    /// The preset's name.
    pub(crate) preset: &'static str,
}

/// Checks the entry's `diagram:` against the bank model and draws it; `None` without one.
pub(crate) fn draw(entry: &Entry) -> Result<Option<Drawn>, Diagnostic> {
    let Some(d) = &entry.meta.diagram else {
        return Ok(None);
    };
    let at = |field: &str, message: String| {
        Diagnostic::new(&entry.file, entry.lines.of(field), message).field(field)
    };
    let preset: Preset = d
        .preset
        .parse()
        .map_err(|e: DiagramError| at("diagram.preset", e.to_string()))?;
    let spec = DiagramSpec {
        preset,
        highlight: d.highlight.map(|(row, column)| Cell { row, column }),
        width: d.width,
        stride: d.stride,
        paths: d.paths,
    };
    let title = entry.meta.term.as_deref().unwrap_or(&entry.meta.title);
    let svg = render_svg(&spec, title, &d.alt).map_err(|e| at("diagram", e.to_string()))?;
    Ok(Some(Drawn {
        svg,
        preset: preset.name(),
    }))
}
