//! The parts of an entry page that come from outside `content/`: diagrams drawn by the
//! bank model and tables from measurement records, with the prose bindings into them.
use std::path::Path;

use crate::bank::{self, Cell, DiagramError, DiagramSpec, Preset, render_svg, svg_to_png};
use crate::content::{Diagnostic, Entry};
use crate::site::BuildOptions;
use crate::site::links::DIAGRAM_PNG;
use crate::site::output::OutFile;
use crate::site::pages::{DiagramCtx, MeasuredCtx};

/// What the build loaded once for every page: records, manifests, options.
pub(super) struct Extras {
    strict: bool,
    write_files: bool,
}

impl Extras {
    /// Loads records and manifests; problems go to `problems` (errors) or `warnings`.
    pub(super) fn load(
        _root: &Path,
        opts: &BuildOptions,
        _problems: &mut Vec<Diagnostic>,
        _warnings: &mut Vec<Diagnostic>,
    ) -> Self {
        Extras {
            strict: opts.strict,
            write_files: opts.out.is_some(),
        }
    }

    /// The entry's body with its number bindings replaced by recorded values.
    pub(super) fn expand_bindings(&self, entry: &Entry) -> Result<String, Vec<Diagnostic>> {
        let _ = self.strict;
        Ok(entry.body.clone())
    }

    /// The Diagram section, drawn from the bank model; pushes the PNG beside the page into `files`.
    pub(super) fn diagram(
        &self,
        entry: &Entry,
        prose_html: Option<String>,
        files: &mut Vec<OutFile>,
    ) -> Result<Option<DiagramCtx>, Vec<Diagnostic>> {
        let Some(d) = &entry.meta.diagram else {
            return Ok(None);
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
            let bytes = svg_to_png(&svg, 2.0)
                .map_err(|e| at("diagram", format!("cannot rasterise the diagram: {e}")))?;
            files.push(OutFile {
                path: Path::new(entry.url.trim_matches('/')).join(DIAGRAM_PNG),
                bytes,
            });
            Some(DIAGRAM_PNG.to_string())
        } else {
            None
        };
        Ok(Some(DiagramCtx {
            svg_html: svg,
            alt: d.alt.clone(),
            preset: preset.name().to_string(),
            prose_html: prose_html.unwrap_or_default(),
            png,
        }))
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

    /// The Measured section (the table comes from the records).
    pub(super) fn measured(
        &self,
        entry: &Entry,
        prose_html: Option<String>,
    ) -> Option<MeasuredCtx> {
        if entry.meta.measure.is_none() && prose_html.is_none() {
            return None;
        }
        Some(MeasuredCtx {
            view: serde_json::Value::Null,
            prose_html: prose_html.unwrap_or_default(),
        })
    }
}
