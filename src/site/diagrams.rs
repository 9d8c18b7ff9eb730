//! Diagrams of a build: the entry's `diagram:` checked and drawn as SVG by the bank model
//! (check stage), and its social card rasterised through the build cache (render stage).
//! Uses `bank` and `site::build_cache`.
use crate::bank::{
    self, CardText, Cell, DiagramError, DiagramSpec, Preset, card_svg, render_svg,
    svg_to_indexed_png,
};
use crate::content::{Diagnostic, Entry};
use crate::site::build_cache::BuildCache;

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

/// The social card of a diagram (`og:image`): `svg` framed beside `title` (the term), the
/// entry's question and `kicker`, rasterised through the persistent `cache`.
pub(crate) fn card_of(
    svg: &str,
    entry: &Entry,
    kicker: &str,
    cache: &BuildCache,
) -> Result<Vec<u8>, bank::RasterError> {
    let title = entry.meta.term.as_deref().unwrap_or(&entry.meta.title);
    let text = CardText {
        title,
        subtitle: (title != entry.meta.title).then_some(entry.meta.title.as_str()),
        kicker,
    };
    let card = card_svg(svg, &text).expect("render_svg writes its size on the root");
    cache.get_or_render("card", &card, svg_to_indexed_png)
}

/// The site's card (`card.png`): a bank map beside the course's title, for the pages
/// that have no diagram of their own. One per build, through the persistent `cache`.
pub(crate) fn site_card(title: &str, cache: &BuildCache) -> Result<Vec<u8>, bank::RasterError> {
    let spec = DiagramSpec::new(Preset::BankMap);
    let svg = render_svg(&spec, title, title).expect("the default bank map draws");
    let text = CardText {
        title,
        subtitle: None,
        kicker: "Glossary and day pages",
    };
    let card = card_svg(&svg, &text).expect("render_svg writes its size on the root");
    cache.get_or_render("card", &card, svg_to_indexed_png)
}
