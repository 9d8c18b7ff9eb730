//! Rasterises the diagrams' SVG to PNG with resvg, for social-card images and pixel tests.
//! Text is drawn with a font embedded in the binary, never with the machine's fonts, so the
//! PNG is the same everywhere. Uses resvg (usvg, tiny-skia) and nothing else of ours.

use std::sync::{Arc, OnceLock};

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg::{self, fontdb};

use super::svg::FONT_FAMILY;

// resvg silently drops text whose font it cannot find, so a machine with no fonts would
// produce a PNG without a single label. Embedding the font removes that failure.
// DejaVu Sans Mono 2.37, Bitstream Vera licence: see assets/fonts/LICENSE-DejaVu.txt.
const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");

/// Largest scale factor accepted; the site uses 2.
pub const MAX_SCALE: f32 = 8.0;

// A guard against a hostile or mistaken SVG asking for an enormous canvas.
const MAX_PIXELS: u64 = 64 * 1024 * 1024;

/// Why an SVG could not be turned into a PNG.
#[derive(Debug, thiserror::Error)]
pub enum RasterError {
    /// The scale factor is not a finite number in (0, [`MAX_SCALE`]].
    #[error(
        "scale {scale} is out of range; use a factor above 0 and at most {MAX_SCALE} (the site uses 2)"
    )]
    BadScale {
        /// The factor asked for.
        scale: f32,
    },
    /// usvg rejected the document.
    #[error("cannot parse the SVG to rasterise it")]
    Parse {
        /// usvg's reason.
        #[source]
        source: usvg::Error,
    },
    /// The scaled canvas is empty or larger than the guard allows.
    #[error(
        "a {width}×{height} SVG at scale {scale} makes an unsupported canvas; \
         keep it non-empty and under {MAX_PIXELS} pixels"
    )]
    Canvas {
        /// Width of the SVG, in user units.
        width: f32,
        /// Height of the SVG, in user units.
        height: f32,
        /// The factor asked for.
        scale: f32,
    },
    /// The PNG encoder failed.
    #[error("cannot encode the PNG: {message}")]
    Encode {
        /// The encoder's reason.
        message: String,
    },
}

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

/// Renders `svg` to PNG bytes at `scale` times its size; the site calls it with 2.0 for each
/// diagram's image beside the page.
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, RasterError> {
    if !(scale.is_finite() && scale > 0.0 && scale <= MAX_SCALE) {
        return Err(RasterError::BadScale { scale });
    }
    let options = usvg::Options {
        fontdb: Arc::clone(fonts()),
        font_family: FONT_FAMILY.to_owned(),
        ..usvg::Options::default()
    };
    let tree =
        usvg::Tree::from_str(svg, &options).map_err(|source| RasterError::Parse { source })?;
    let size = tree.size();
    let canvas_error = || RasterError::Canvas {
        width: size.width(),
        height: size.height(),
        scale,
    };
    let scaled = size.scale_by(scale).ok_or_else(canvas_error)?.to_int_size();
    if u64::from(scaled.width()) * u64::from(scaled.height()) > MAX_PIXELS {
        return Err(canvas_error());
    }
    let mut pixmap = Pixmap::new(scaled.width(), scaled.height()).ok_or_else(canvas_error)?;
    resvg::render(
        &tree,
        Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(|error| RasterError::Encode {
        message: error.to_string(),
    })
}

#[cfg(test)]
mod tests;
