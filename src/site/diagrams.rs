//! Diagrams of a build: the entry's `diagram:` checked and drawn as SVG by the bank model
//! (check stage), and its PNG rasterised once per process (render stage). Uses `bank`.
use std::collections::HashMap;

use crate::bank::{self, Cell, DiagramError, DiagramSpec, Preset, render_svg, svg_to_png};
use crate::content::{Diagnostic, Entry};

/// File name of the PNG written beside a page that has a diagram.
pub(super) const DIAGRAM_PNG: &str = "diagram.png";

/// File name of the full-size SVG written beside a page that has a diagram.
pub(super) const DIAGRAM_SVG: &str = "diagram.svg";

/// A diagram drawn from a checked spec.
pub(super) struct Drawn {
    /// Inline SVG.
    pub(super) svg: String,
    /// The preset's name.
    pub(super) preset: &'static str,
}

/// Checks the entry's `diagram:` against the bank model and draws it; `None` without one.
pub(super) fn draw(entry: &Entry) -> Result<Option<Drawn>, Diagnostic> {
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
    };
    let title = entry.meta.term.as_deref().unwrap_or(&entry.meta.title);
    let svg = render_svg(&spec, title, &d.alt).map_err(|e| at("diagram", e.to_string()))?;
    Ok(Some(Drawn {
        svg,
        preset: preset.name(),
    }))
}

/// The 2× PNG of a diagram. Rasterising costs ~0.1 s per diagram, and `serve` rebuilds on
/// every save, so PNGs are kept for the life of the process, keyed by the SVG's hash.
pub(super) fn png_of(svg: &str) -> Result<Vec<u8>, bank::RasterError> {
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<String, Vec<u8>>>> = OnceLock::new();
    let key = crate::measurement::record::sha256_hex(svg.as_bytes());
    let cache = CACHE.get_or_init(Default::default);
    if let Some(png) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(png.clone());
    }
    let png = svg_to_png(svg, 2.0)?;
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, png.clone());
    Ok(png)
}
