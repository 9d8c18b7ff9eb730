//! The parts of an entry page that come from outside `content/`: diagrams drawn by the
//! bank model, and tables from measurement records with the prose bindings into them.
use std::collections::HashMap;
use std::path::Path;

use crate::bank::{self, Cell, DiagramError, DiagramSpec, Preset, render_svg, svg_to_png};
use crate::content::{Diagnostic, Entry};
use crate::measurement::bindings::{self, BindingError};
use crate::measurement::record as records;
use crate::measurement::view::{self as measured, MeasuredView};
use crate::site::BuildOptions;
use crate::site::links::{DIAGRAM_PNG, DIAGRAM_SVG};
use crate::site::output::OutFile;
use crate::site::pages::{DiagramCtx, MeasuredCtx};

/// What the build loaded once for every page: one measured view per kernel, and options.
pub(super) struct Extras {
    strict: bool,
    write_files: bool,
    views: HashMap<String, MeasuredView>,
    /// Kernel sources (`kernels/K.cu`) changed since a record of theirs: the note a page
    /// including that source shows.
    pub(super) stale_sources: HashMap<String, String>,
}

impl Extras {
    /// Loads records and the views of every kernel an entry names. Problems that stop the
    /// build go to `problems`; stale records and model disagreements go to `warnings`, or to
    /// `problems` under `--strict`.
    pub(super) fn load<'a>(
        root: &Path,
        opts: &BuildOptions,
        entries: impl Iterator<Item = &'a Entry>,
        problems: &mut Vec<Diagnostic>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Self {
        let mut records_broken = false;
        let records = records::load_all(&root.join("measurements")).unwrap_or_else(|errors| {
            records_broken = true;
            problems.extend(
                errors
                    .iter()
                    .map(|e| Diagnostic::new("measurements", 0, e.to_string())),
            );
            records::RecordSet::default()
        });
        let mut views = HashMap::new();
        // With a broken record reported, "no record" and binding errors would only echo it.
        let entries = entries.filter(|_| !records_broken);
        for entry in entries {
            let Some(kernel) = entry.meta.measure.as_deref() else {
                continue;
            };
            if views.contains_key(kernel) {
                continue;
            }
            let at = Diagnostic::new(&entry.file, entry.lines.of("measure"), "").field("measure");
            match measured::load(root, kernel, &records) {
                Ok(view) => {
                    if opts.strict && view.devices.is_empty() {
                        problems.extend(view.strict_problems().into_iter().map(|m| Diagnostic {
                            message: m,
                            ..at.clone()
                        }));
                    }
                    let model = view.devices.iter().flat_map(|d| d.warnings.iter());
                    warnings.extend(model.map(|m| Diagnostic {
                        message: m.clone(),
                        ..at.clone()
                    }));
                    views.insert(kernel.to_string(), view);
                }
                Err(e) => problems.push(Diagnostic {
                    message: e.to_string(),
                    ..at
                }),
            }
        }
        let mut stale_sources = HashMap::new();
        match records::stale_records(&root.join("kernels"), &records) {
            Ok(stale) => {
                for s in stale.iter().filter(|s| s.source_changed) {
                    stale_sources.insert(
                        format!("kernels/{}.cu", s.kernel),
                        format!(
                            "This code changed after it was measured: the record `{}` was made with an earlier version, so the measured numbers may not match it.",
                            s.path.display()
                        ),
                    );
                }
                let found = stale
                    .iter()
                    .map(|s| Diagnostic::new(&s.path, 0, s.to_string()));
                if opts.strict {
                    problems.extend(found)
                } else {
                    warnings.extend(found)
                }
            }
            Err(errors) => problems.extend(
                errors
                    .iter()
                    .map(|e| Diagnostic::new("kernels", 0, e.to_string())),
            ),
        }
        Extras {
            strict: opts.strict,
            write_files: opts.out.is_some(),
            views,
            stale_sources,
        }
    }

    /// The entry's body with its number bindings replaced by recorded values. Without a
    /// record a binding reads "(not measured yet)", except under `--strict`.
    pub(super) fn expand_bindings(&self, entry: &Entry) -> Result<String, Vec<Diagnostic>> {
        let located = |errors: Vec<BindingError>| -> Vec<Diagnostic> {
            errors
                .into_iter()
                .map(|e| Diagnostic::new(&entry.file, entry.body_line + e.line - 1, e.message))
                .collect()
        };
        let Some(kernel) = entry.meta.measure.as_deref() else {
            bindings::check_no_bindings(&entry.body).map_err(located)?;
            return Ok(entry.body.clone());
        };
        let Some(view) = self.views.get(kernel) else {
            return Ok(entry.body.clone()); // its load error is already reported
        };
        let expanded = if self.strict {
            bindings::expand_bindings(&entry.body, view)
        } else {
            bindings::expand_bindings_preview(&entry.body, view)
        };
        expanded.map_err(located)
    }

    /// The Diagram section, drawn from the bank model; pushes the PNG beside the page into `files`.
    pub(super) fn diagram(
        &self,
        entry: &Entry,
        prose_html: Option<String>,
        files: &mut Vec<OutFile>,
    ) -> Result<Option<DiagramCtx>, Vec<Diagnostic>> {
        let Some(d) = &entry.meta.diagram else {
            return match prose_html {
                Some(_) => Err(vec![section_without_field(entry, "Diagram", "diagram")]),
                None => Ok(None),
            };
        };
        let at = |field: &str, message: String| {
            vec![Diagnostic::new(&entry.file, entry.lines.of(field), message).field(field)]
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
        let png = if self.write_files {
            let bytes = png_of(&svg)
                .map_err(|e| at("diagram", format!("cannot rasterise the diagram: {e}")))?;
            files.push(OutFile {
                path: Path::new(entry.url.trim_matches('/')).join(DIAGRAM_PNG),
                bytes,
            });
            Some(DIAGRAM_PNG.to_string())
        } else {
            None
        };
        // The same drawing on its own, which a tap on the inline one opens full size.
        let full = self.write_files.then(|| {
            files.push(OutFile {
                path: Path::new(entry.url.trim_matches('/')).join(DIAGRAM_SVG),
                bytes: svg.clone().into_bytes(),
            });
            DIAGRAM_SVG.to_string()
        });
        Ok(Some(DiagramCtx {
            svg_html: bank::themed(&svg),
            alt: d.alt.clone(),
            preset: preset.name().to_string(),
            prose_html: prose_html.unwrap_or_default(),
            png,
            full,
        }))
    }

    /// The Measured section: the kernel's view (tables per GPU) and the prose under it.
    pub(super) fn measured(
        &self,
        entry: &Entry,
        prose_html: Option<String>,
    ) -> Result<Option<MeasuredCtx>, Vec<Diagnostic>> {
        let Some(kernel) = entry.meta.measure.as_deref() else {
            return match prose_html {
                Some(_) => Err(vec![section_without_field(entry, "Measured", "measure")]),
                None => Ok(None),
            };
        };
        Ok(self.views.get(kernel).map(|view| MeasuredCtx {
            view: view.clone(),
            prose_html: prose_html.unwrap_or_default(),
        }))
    }

    /// Published entries whose Measured section has no record yet (an error under --strict).
    pub(super) fn unmeasured(&self, shown: &[(&Entry, Option<&str>)]) -> Vec<Diagnostic> {
        shown
            .iter()
            .filter_map(|(e, _)| {
                let kernel = e.meta.measure.as_deref()?;
                let view = self.views.get(kernel)?;
                view.devices.is_empty().then(|| {
                    Diagnostic::new(&e.file, e.lines.of("measure"), format!("published with no measurement record of `{kernel}`: the page says \"not measured yet\""))
                        .field("measure")
                        .help("run `coursegen measure --gpu` on a GPU machine and commit the record; `build --strict` refuses this")
                })
            })
            .collect()
    }

    /// `cc` must be a compute capability the bank model knows.
    pub(super) fn check_cc(&self, entry: &Entry) -> Option<Diagnostic> {
        let cc = entry.meta.cc.as_deref()?;
        if bank::geometry(cc).is_some() {
            return None;
        }
        let known: Vec<&str> = bank::known_ccs().collect();
        Some(
            Diagnostic::new(
                &entry.file,
                entry.lines.of("cc"),
                format!("`{cc}` is not a compute capability coursegen knows"),
            )
            .field("cc")
            .help(format!("use one of {}", known.join(", "))),
        )
    }
}

/// The 2× PNG of a diagram. Rasterising costs ~0.1 s per diagram, and `serve` rebuilds on
/// every save, so PNGs are kept for the life of the process, keyed by the SVG's hash.
fn png_of(svg: &str) -> Result<Vec<u8>, bank::RasterError> {
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<String, Vec<u8>>>> = OnceLock::new();
    let key = records::sha256_hex(svg.as_bytes());
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

fn section_without_field(entry: &Entry, heading: &str, field: &str) -> Diagnostic {
    let line = entry
        .body
        .lines()
        .position(|l| l.trim() == format!("## {heading}"))
        .map_or(0, |i| entry.body_line + i);
    Diagnostic::new(
        &entry.file,
        line,
        format!("a `## {heading}` section needs `{field}:` in the front matter"),
    )
    .help(format!(
        "add `{field}:` (see the README), or rename the heading"
    ))
}
