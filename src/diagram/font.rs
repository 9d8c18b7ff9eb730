//! The font the diagrams are drawn with, embedded in the binary, and usvg's options that
//! use it and nothing else. A leaf: the SVG writer, the glyph outlines and the rasteriser
//! all read it, and it reads none of them.
use std::sync::{Arc, OnceLock};

use resvg::usvg::{self, fontdb};

/// Family of the font embedded below; the SVGs ask for it by this name so the PNG
/// and a browser that has DejaVu draw the same glyphs, with `monospace` as the fallback.
pub(crate) const FONT_FAMILY: &str = "DejaVu Sans Mono";

// resvg silently drops text whose font it cannot find, so a machine with no fonts would
// produce a PNG without a single label. Embedding the font removes that failure.
// DejaVu Sans Mono 2.37, Bitstream Vera licence: see assets/fonts/LICENSE-DejaVu.txt.
/// The embedded font file; the build cache keys on its hash.
pub(crate) const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");

/// The font database holding only the embedded font, built once: the site rasterises many
/// diagrams and parsing the font each time would be wasted work.
fn fonts() -> &'static Arc<fontdb::Database> {
    static FONTS: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    FONTS.get_or_init(|| {
        let mut db = fontdb::Database::new();
        db.load_font_source(fontdb::Source::Binary(Arc::new(FONT)));
        // Generic families resolve to the same face, so `monospace` fallbacks still render.
        db.set_monospace_family(FONT_FAMILY);
        db.set_sans_serif_family(FONT_FAMILY);
        db.set_serif_family(FONT_FAMILY);
        Arc::new(db)
    })
}

/// usvg's options for our SVGs: text in the embedded font only.
pub(crate) fn options() -> usvg::Options<'static> {
    usvg::Options {
        fontdb: Arc::clone(fonts()),
        font_family: FONT_FAMILY.to_owned(),
        ..usvg::Options::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_font_is_the_family_the_svgs_ask_for() {
        let families: Vec<&str> = fonts()
            .faces()
            .flat_map(|face| face.families.iter().map(|(name, _)| name.as_str()))
            .collect();
        assert_eq!(families, [FONT_FAMILY]);
    }
}
