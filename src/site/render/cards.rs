//! Social cards (`og:image`): a diagram framed beside its entry's title, and the site's own
//! card, rasterised through the build cache.
use crate::content::Entry;
use crate::diagram::{DiagramSpec, Preset, card, raster, render_svg};
use crate::site::render::build_cache::BuildCache;

/// The social card of a diagram (`og:image`): `svg` framed beside `title` (the term), the
/// entry's question and `kicker`, rasterised through the persistent `cache`.
pub(crate) fn card_of(
    svg: &str,
    entry: &Entry,
    kicker: &str,
    cache: &BuildCache,
) -> Result<Vec<u8>, raster::RasterError> {
    let title = entry.meta.term.as_deref().unwrap_or(&entry.meta.title);
    let text = card::CardText {
        title,
        subtitle: (title != entry.meta.title).then_some(entry.meta.title.as_str()),
        kicker,
    };
    let card = card::card_svg(svg, &text).expect("render_svg writes its size on the root");
    cache.get_or_render("card", &card, raster::svg_to_indexed_png)
}

/// The site's card (`card.png`): a bank map beside the course's title, for the pages
/// that have no diagram of their own. One per build, through the persistent `cache`.
pub(crate) fn site_card(title: &str, cache: &BuildCache) -> Result<Vec<u8>, raster::RasterError> {
    let spec = DiagramSpec::new(Preset::BankMap);
    let svg = render_svg(&spec, title, title).expect("the default bank map draws");
    let text = card::CardText {
        title,
        subtitle: None,
        kicker: "Glossary and day pages",
    };
    let card = card::card_svg(&svg, &text).expect("render_svg writes its size on the root");
    cache.get_or_render("card", &card, raster::svg_to_indexed_png)
}
