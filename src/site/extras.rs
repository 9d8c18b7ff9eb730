//! The parts of an entry page that come from outside `content/`: diagrams drawn by the
//! bank model and tables from measurement records, with the prose bindings into them.
use std::path::Path;

use crate::content::{Diagnostic, Entry};
use crate::site::BuildOptions;
use crate::site::output::OutFile;
use crate::site::pages::{DiagramCtx, MeasuredCtx};

/// What the build loaded once for every page: records, manifests, options.
pub(super) struct Extras {
    strict: bool,
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
        }
    }

    /// The entry's body with its number bindings replaced by recorded values.
    pub(super) fn expand_bindings(&self, entry: &Entry) -> Result<String, Vec<Diagnostic>> {
        let _ = self.strict;
        Ok(entry.body.clone())
    }

    /// The Diagram section; pushes the PNG beside the page into `files`.
    pub(super) fn diagram(
        &self,
        entry: &Entry,
        prose_html: Option<String>,
        _files: &mut Vec<OutFile>,
    ) -> Result<Option<DiagramCtx>, Vec<Diagnostic>> {
        Ok(entry.meta.diagram.as_ref().map(|d| DiagramCtx {
            svg_html: String::new(),
            alt: d.alt.clone(),
            preset: d.preset.clone(),
            prose_html: prose_html.unwrap_or_default(),
            png: None,
        }))
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
