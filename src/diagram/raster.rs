//! Rasterises the diagrams' SVG to PNG with resvg, for social-card images and pixel tests.
//! Text is drawn with a font embedded in the binary, never with the machine's fonts, so the
//! PNG is the same everywhere. What every card shares (a bank map's panel, a card's chrome)
//! is rendered once per process and the rest drawn over it, for speed alone:
//! `benches/diagrams.sh` is the benchmark that justifies it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg;

use super::font::options;
use super::glyphs;
use super::palette;
use super::svg::{CHROME_END, STATIC_END, STATIC_START};

/// Largest scale factor accepted; the site uses 2.
pub(crate) const MAX_SCALE: f32 = 8.0;

// A guard against a hostile or mistaken SVG asking for an enormous canvas.
const MAX_PIXELS: u64 = 64 * 1024 * 1024;

/// Why an SVG could not be turned into a PNG.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RasterError {
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

/// Renders `svg` to PNG bytes at `scale` times its size, in full RGBA; tests and anyone who
/// wants a diagram at print size use it.
#[cfg(test)]
pub(crate) fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, RasterError> {
    render(svg, scale)?
        .encode_png()
        .map_err(|error| RasterError::Encode {
            message: error.to_string(),
        })
}

/// Renders `svg` at its own size to an indexed-colour PNG (see `diagram::palette`): what the
/// site writes for a diagram's social card, a fraction of the bytes of [`svg_to_png`].
pub(crate) fn svg_to_indexed_png(svg: &str) -> Result<Vec<u8>, RasterError> {
    let encoded = match Layers::of(svg) {
        Some(layers) => match layers.over_base()? {
            Some((base, layer)) => with_canvas(base.pixmap(), |canvas| {
                layer.draw(canvas);
                base.encode_over(canvas)
            }),
            None => palette::encode_indexed(&layers.render()?),
        },
        None => palette::encode_indexed(&render(svg, 1.0)?),
    };
    encoded.map_err(|error| RasterError::Encode {
        message: error.to_string(),
    })
}

/// Runs `f` with a transparent canvas the size of `like`, one per thread and size, which `f`
/// must leave transparent (as [`palette::Base::encode_over`] does): a card draws a few
/// percent of its pixels, so clearing them costs less than a fresh 3 MB canvas.
fn with_canvas<T>(like: &Pixmap, f: impl FnOnce(&mut Pixmap) -> T) -> T {
    thread_local! {
        static CANVAS: RefCell<Option<Pixmap>> = const { RefCell::new(None) };
    }
    let size = (like.width(), like.height());
    let mut canvas = CANVAS
        .with(|c| c.borrow_mut().take())
        .filter(|c| (c.width(), c.height()) == size)
        .unwrap_or_else(|| Pixmap::new(size.0, size.1).expect("the base's size is valid"));
    let out = f(&mut canvas);
    CANVAS.with(|c| *c.borrow_mut() = Some(canvas));
    out
}

/// What a card draws over its base (the chrome with the static part on it): the layer below
/// the part, then the one above.
struct Drawn {
    below: usvg::Tree,
    above: usvg::Tree,
}

impl Drawn {
    fn draw(&self, canvas: &mut Pixmap) {
        resvg::render(&self.below, Transform::identity(), &mut canvas.as_mut());
        resvg::render(&self.above, Transform::identity(), &mut canvas.as_mut());
    }
}

/// A card split around its diagram's static part (see `svg::STATIC_START`): what is drawn
/// below it, the part itself as a document of its own, and what is drawn above it. The
/// static part of a bank map (panel, axis numbers, headings, tile) is nearly all of its
/// nodes and the same in every card of its width, so its pixels are rendered once per
/// process and composited; what is drawn above it (the picked tabs, outlines and captions)
/// places the diagram's own digit glyphs, so that layer defines them again. The card's chrome
/// (up to `svg::CHROME_END`), the same in every card of a section and size, is rendered
/// once per process too, and the rest of the layer below is painted over a copy of it.
struct Layers {
    /// The chrome as a document of its own, when the card marks it.
    chrome: Option<String>,
    below: String,
    fixed: String,
    above: String,
}

impl Layers {
    /// The layers of `svg`, when it is a card (root, one transformed group holding the
    /// diagram) whose diagram has a static part.
    fn of(svg: &str) -> Option<Layers> {
        let start = svg.find(STATIC_START)?;
        let end = svg.find(STATIC_END)? + STATIC_END.len();
        let root = &svg[..svg.find('>')? + 1];
        let group_at = svg[..start].rfind("<g transform=")?;
        let group = &svg[group_at..group_at + svg[group_at..].find('>')? + 1];
        // The diagram's id prefixes the ids its static part refers to; the layer uses its own.
        let title_at = svg[group_at..start].find("<title id=\"")? + group_at + 11;
        let id = &svg[title_at..title_at + svg[title_at..].find("-title\"")?];
        let part = svg[start..end].replace(&format!("{id}-"), "static-");
        let rest = &svg[root.len()..start];
        let (chrome, rest) = match rest.split_once(CHROME_END) {
            Some((chrome, rest)) => (Some(format!("{root}{chrome}</svg>\n")), rest),
            None => (None, rest),
        };
        Some(Layers {
            chrome,
            below: format!("{root}{rest}</g>\n</svg>\n"),
            fixed: format!(
                "{root}{group}<defs>\n{}</defs>\n{part}</g>\n</svg>\n",
                glyphs::defs("static")
            ),
            // The picked tabs above the part place the diagram's own digit glyphs.
            above: format!(
                "{root}{group}<defs>\n{}</defs>\n{}",
                glyphs::defs(id),
                &svg[end..]
            ),
        })
    }

    /// The card's base and what is drawn over it, when what is drawn below the static part
    /// (a card's text, beside the diagram) does not touch it: then the chrome with the part
    /// on it is rendered and quantised once, and a card is its own text, tabs, outlines and
    /// captions drawn on a transparent canvas and composited over that base.
    fn over_base(&self) -> Result<Option<(Arc<palette::Base>, Drawn)>, RasterError> {
        let Some(chrome) = &self.chrome else {
            return Ok(None);
        };
        let below = parse(&self.below)?;
        if !clear_of(&below, rendered_once(&self.fixed)?.bounds) {
            return Ok(None);
        }
        let above = parse(&self.above)?;
        let base = composed_once(chrome, &self.fixed)?;
        Ok(Some((base, Drawn { below, above })))
    }

    /// The card's pixels, drawn in order: the chrome and the layer below, the static part,
    /// the layer above.
    fn render(&self) -> Result<Pixmap, RasterError> {
        let fixed = rendered_once(&self.fixed)?;
        let mut pixmap = match &self.chrome {
            Some(chrome) => {
                let mut pixmap = Pixmap::clone(&rendered_once(chrome)?.pixmap);
                draw(&self.below, &mut pixmap)?;
                pixmap
            }
            None => render(&self.below, 1.0)?,
        };
        source_over(&mut pixmap, &fixed);
        draw(&self.above, &mut pixmap)?;
        Ok(pixmap)
    }
}

/// Whether everything `tree` draws lies outside `bounds` (pixels, end exclusive), with a
/// pixel to spare on every side for anti-aliasing.
fn clear_of(tree: &usvg::Tree, bounds: Option<[u32; 4]>) -> bool {
    let Some([x0, y0, x1, y1]) = bounds else {
        return true;
    };
    if !tree.root().has_children() {
        return true;
    }
    let b = tree.root().abs_stroke_bounding_box();
    let (left, top) = (b.left().floor() - 2.0, b.top().floor() - 2.0);
    let (right, bottom) = (b.right().ceil() + 2.0, b.bottom().ceil() + 2.0);
    right <= x0 as f32 || left >= x1 as f32 || bottom <= y0 as f32 || top >= y1 as f32
}

/// The chrome `chrome` with the static part `fixed` composited over it, quantised, made the
/// first time this process asks for the pair.
fn composed_once(chrome: &str, fixed: &str) -> Result<Arc<palette::Base>, RasterError> {
    static COMPOSED: Once<palette::Base> = OnceLock::new();
    once(&COMPOSED, &format!("{chrome}\u{0}{fixed}"), || {
        let mut pixmap = Pixmap::clone(&rendered_once(chrome)?.pixmap);
        source_over(&mut pixmap, &*rendered_once(fixed)?);
        Ok(palette::Base::new(pixmap))
    })
}

/// What this process made once per key.
type Once<T> = OnceLock<Mutex<HashMap<String, Arc<T>>>>;

/// The value of `key` in `made`, made by `make` the first time this process asks for it.
fn once<T>(
    made: &Once<T>,
    key: &str,
    make: impl FnOnce() -> Result<T, RasterError>,
) -> Result<Arc<T>, RasterError> {
    let made = made.get_or_init(Default::default);
    let known = made
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(key)
        .cloned();
    if let Some(value) = known {
        return Ok(value);
    }
    let value = Arc::new(make()?);
    let mut made = made.lock().unwrap_or_else(|e| e.into_inner());
    made.insert(key.to_owned(), Arc::clone(&value));
    Ok(value)
}

/// A document rendered once, with the spans of its pixels that are not transparent.
struct Rendered {
    pixmap: Pixmap,
    spans: Vec<Span>,
    /// The box of those pixels, `[left, top, right, bottom]`, end exclusive; `None` when
    /// every pixel is transparent.
    bounds: Option<[u32; 4]>,
}

/// A run of pixels of a layer, by index: all opaque, or all partly transparent. Fully
/// transparent pixels are in no span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    len: usize,
    opaque: bool,
}

impl Rendered {
    fn new(pixmap: Pixmap) -> Self {
        let spans = spans_of(&pixmap);
        let width = pixmap.width() as usize;
        let bounds = spans.iter().fold(None, |bounds: Option<[usize; 4]>, span| {
            let (first, last) = (span.start, span.start + span.len - 1);
            let (top, bottom) = (first / width, last / width);
            // A span that runs on into the next row touches both of its ends.
            let (left, right) = match top == bottom {
                true => (first % width, last % width),
                false => (0, width - 1),
            };
            let [l, t, r, b] = bounds.unwrap_or([left, top, right, bottom]);
            Some([l.min(left), t.min(top), r.max(right), b.max(bottom)])
        });
        let bounds = bounds.map(|[l, t, r, b]| [l, t, r + 1, b + 1].map(|v| v as u32));
        Rendered {
            pixmap,
            spans,
            bounds,
        }
    }
}

/// The spans of `pixmap`'s pixels that are not transparent, in order.
fn spans_of(pixmap: &Pixmap) -> Vec<Span> {
    let mut spans: Vec<Span> = Vec::new();
    for (i, p) in pixmap.pixels().iter().enumerate() {
        let opaque = match p.alpha() {
            0 => continue,
            255 => true,
            _ => false,
        };
        match spans.last_mut() {
            Some(last) if last.start + last.len == i && last.opaque == opaque => last.len += 1,
            _ => spans.push(Span {
                start: i,
                len: 1,
                opaque,
            }),
        }
    }
    spans
}

/// The document `svg` rendered at its own size, the first time this process asks for it.
fn rendered_once(svg: &str) -> Result<Arc<Rendered>, RasterError> {
    static RENDERED: Once<Rendered> = OnceLock::new();
    once(&RENDERED, svg, || Ok(Rendered::new(render(svg, 1.0)?)))
}

/// Paints the document `svg` over `pixmap` (the same size).
fn draw(svg: &str, pixmap: &mut Pixmap) -> Result<(), RasterError> {
    let tree = parse(svg)?;
    resvg::render(&tree, Transform::identity(), &mut pixmap.as_mut());
    Ok(())
}

/// Draws `layer` over `pixmap`, both premultiplied and the same size. By hand because
/// tiny-skia's `draw_pixmap` samples the layer as a pattern, a tenth of a card's time; only
/// the layer's spans are visited, opaque ones copied whole.
fn source_over(pixmap: &mut Pixmap, layer: &Rendered) {
    let dst = pixmap.data_mut();
    let src = layer.pixmap.data();
    for span in &layer.spans {
        let bytes = span.start * 4..(span.start + span.len) * 4;
        if span.opaque {
            dst[bytes.clone()].copy_from_slice(&src[bytes]);
            continue;
        }
        palette::over_bytes(&mut dst[bytes.clone()], &src[bytes]);
    }
}

fn parse(svg: &str) -> Result<usvg::Tree, RasterError> {
    usvg::Tree::from_str(svg, &options()).map_err(|source| RasterError::Parse { source })
}

fn render(svg: &str, scale: f32) -> Result<Pixmap, RasterError> {
    if !(scale.is_finite() && scale > 0.0 && scale <= MAX_SCALE) {
        return Err(RasterError::BadScale { scale });
    }
    let tree = parse(svg)?;
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
    Ok(pixmap)
}

#[cfg(test)]
mod tests;
