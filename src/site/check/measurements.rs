//! The measurement side of a build, for the check stage: records and kernel views loaded
//! once, staleness, and each entry's prose bindings expanded from its kernel's view. Uses
//! `measurement` (record, view, bindings); never touches the GPU.
use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::bodies::Bodies;
use crate::content::{Diagnostic, Entry};
use crate::measurement::bindings::{self, BindingError, Expanded};
use crate::measurement::contract;
use crate::measurement::manifest::Manifest;
use crate::measurement::record as records;
use crate::measurement::view::{self as measured, MeasuredError, MeasuredView};
use crate::site::options::BuildOptions;

/// The Measured section.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct MeasuredCtx {
    /// The view from `measurement::view` (tables per GPU, sentences), flattened for the template.
    #[serde(flatten)]
    pub(crate) view: crate::measurement::view::MeasuredView,
    /// Author prose under `## Measured`.
    pub(crate) prose_html: String,
    /// When the entry's `cc` differs from a record's: the sentence saying the model's
    /// geometry is the same for both (empty otherwise).
    pub(crate) cc_note: String,
}

/// One measured view per kernel an entry names, loaded once per build.
pub(crate) struct Measurements {
    strict: bool,
    views: HashMap<String, MeasuredView>,
    /// Kernel sources (`kernels/K.cu`) changed since a record of theirs: the note a page
    /// including that source shows.
    pub(crate) stale_sources: HashMap<String, String>,
    /// `kernels/`, each file read once: the manifests diagrams draw a kernel's row from.
    kernels: records::KernelFiles,
    /// Kernels whose manifests do not read, each reported once at the manifest.
    broken: HashSet<String>,
}

impl Measurements {
    /// Loads records and the views of every kernel an entry names. Problems that stop the
    /// build go to `problems`; stale records, model disagreements and bindings whose data is
    /// missing go to `warnings`, or to `problems` under `--strict` (where a binding without
    /// data fails as the entry's bindings are expanded).
    pub(crate) fn load<'a>(
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
        // Each kernel's source and manifest, read once for its view and its staleness.
        let kernels = records::KernelFiles::new(&root.join("kernels"));
        // Every manifest, used by an entry or not, is read and reported at its own line.
        let broken = every_manifest(&kernels, problems);
        let mut views = HashMap::new();
        // With a broken record reported, "no record" and binding errors would only echo it.
        let entries = entries.filter(|_| !records_broken);
        for entry in entries {
            let Some(kernel) = entry.meta.measure.as_deref() else {
                continue;
            };
            if let (false, Some(view)) = (opts.strict, views.get(kernel)) {
                warnings.extend(missing_data(entry, view));
            }
            if views.contains_key(kernel) {
                continue;
            }
            let at = Diagnostic::new(&entry.file, entry.lines.of("measure"), "").field("measure");
            match measured::load(&kernels, kernel, &records) {
                Ok(view) => {
                    // Noisy records, unsettled rows and model or counter disagreements:
                    // warnings in the preview, errors under --strict.
                    let (found, into) = if opts.strict {
                        (view.strict_problems(), &mut *problems)
                    } else {
                        (view.warnings(), &mut *warnings)
                    };
                    into.extend(found.into_iter().map(|m| Diagnostic {
                        message: m,
                        ..at.clone()
                    }));
                    if !opts.strict {
                        warnings.extend(missing_data(entry, &view));
                    }
                    views.insert(kernel.to_string(), view);
                }
                // Said at the manifest's line already.
                Err(MeasuredError::Manifest(_)) if broken.contains(kernel) => {}
                Err(e) => problems.push(Diagnostic {
                    message: relative_to(root, e).to_string(),
                    ..at
                }),
            }
        }
        let stale_sources = stale(root, (&kernels, &records), opts, (problems, warnings));
        Measurements {
            strict: opts.strict,
            views,
            stale_sources,
            kernels,
            broken,
        }
    }

    /// Whether the kernel the entry's diagram draws has a manifest that does not read (and
    /// was reported at the manifest's line).
    pub(crate) fn manifest_broken(&self, entry: &Entry) -> bool {
        let diagram = entry.meta.diagram.as_ref();
        diagram
            .and_then(|d| d.kernel.as_deref())
            .is_some_and(|k| self.broken.contains(k))
    }

    /// The kernels' files as this build read them.
    pub(crate) fn kernels(&self) -> &records::KernelFiles {
        &self.kernels
    }

    /// The entry's body with its number bindings resolved to recorded values, filled in
    /// after rendering by [`Measurements::fill_bindings`]. Without a record a binding reads
    /// "(not measured yet)", except under `--strict`.
    pub(crate) fn expand_bindings(&self, entry: &Entry) -> Result<Expanded, Vec<Diagnostic>> {
        let located = |errors| located(entry, errors);
        let Some(kernel) = entry.meta.measure.as_deref() else {
            bindings::check_no_bindings(&entry.body).map_err(located)?;
            return Ok(Expanded::plain(&entry.body));
        };
        let Some(view) = self.views.get(kernel) else {
            return Ok(Expanded::plain(&entry.body)); // its load error is already reported
        };
        let expanded = if self.strict {
            bindings::expand_bindings(&entry.body, view)
        } else {
            bindings::expand_bindings_preview(&entry.body, view)
        };
        expanded.map_err(located)
    }

    /// Writes the bound values, escaped, into the rendered body and special sections.
    pub(crate) fn fill_bindings(
        &self,
        entry: &Entry,
        expanded: &Expanded,
        bodies: &mut Bodies,
    ) -> Result<(), Vec<Diagnostic>> {
        let fragments = std::iter::once(&mut bodies.main)
            .chain(bodies.measured.as_mut())
            .chain(bodies.diagram.as_mut());
        expanded.fill(fragments).map_err(|e| located(entry, e))
    }

    /// The Measured section: the kernel's view (tables per GPU), the prose under it, and the
    /// sentence on a compute capability that differs from the records' (checked by
    /// [`Measurements::check_cc`] first, so a mismatch that matters never gets here).
    pub(crate) fn section(&self, entry: &Entry, prose_html: Option<String>) -> Option<MeasuredCtx> {
        let kernel = entry.meta.measure.as_deref()?;
        let view = self.views.get(kernel)?;
        let cc_note = entry
            .meta
            .cc
            .as_deref()
            .and_then(|cc| view.cc_note(cc).ok())
            .unwrap_or_default();
        Some(MeasuredCtx {
            view: view.clone(),
            prose_html: prose_html.unwrap_or_default(),
            cc_note,
        })
    }

    /// An entry written against one compute capability whose kernel was measured on another
    /// is fine when the model's geometry is the same for both, and an error when it is not.
    pub(crate) fn check_cc(&self, entry: &Entry) -> Option<Diagnostic> {
        let (cc, kernel) = (entry.meta.cc.as_deref()?, entry.meta.measure.as_deref()?);
        let message = self.views.get(kernel)?.cc_note(cc).err()?;
        Some(Diagnostic::new(&entry.file, entry.lines.of("cc"), message).field("cc"))
    }

    /// Published entries whose Measured section has no record yet (an error under --strict).
    pub(crate) fn unmeasured<'a>(
        &self,
        entries: impl Iterator<Item = &'a Entry>,
    ) -> Vec<Diagnostic> {
        entries
            .filter_map(|e| {
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
}

/// Records older than their kernel's source, manifest or header: a warning (an error under
/// `--strict`) at each, and the note a page including a changed source shows, by source.
fn stale(
    root: &Path,
    (kernels, records): (&records::KernelFiles, &records::RecordSet),
    opts: &BuildOptions,
    (problems, warnings): (&mut Vec<Diagnostic>, &mut Vec<Diagnostic>),
) -> HashMap<String, String> {
    let mut stale_sources = HashMap::new();
    // A course header that cannot be read is reported by `every_manifest`.
    let header = contract::header(kernels).unwrap_or_else(|_| contract::HEADER.as_bytes().into());
    match records::stale_records(kernels, records, &header) {
        Ok(stale) => {
            let stale: Vec<records::StaleRecord> = stale
                .into_iter()
                .map(|s| {
                    let path = s.path.strip_prefix(root).unwrap_or(&s.path).to_path_buf();
                    records::StaleRecord { path, ..s }
                })
                .collect();
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
    stale_sources
}

/// The error with its file named relative to the site root, as every other problem is.
fn relative_to(root: &Path, e: measured::MeasuredError) -> measured::MeasuredError {
    match e {
        measured::MeasuredError::Kernel {
            kernel,
            path,
            error,
        } => measured::MeasuredError::Kernel {
            kernel,
            path: path
                .strip_prefix(root)
                .map_or(path.clone(), Path::to_path_buf),
            error,
        },
        other => other,
    }
}

/// The entry's bindings whose data its kernel's records lack (the preview prints "not
/// measured" there), as warnings naming the line; `build --strict` refuses them.
fn missing_data(entry: &Entry, view: &MeasuredView) -> Vec<Diagnostic> {
    located(entry, bindings::missing_data(&entry.body, view))
}

/// Binding errors carry body lines; diagnostics name the whole file's.
fn located(entry: &Entry, errors: Vec<BindingError>) -> Vec<Diagnostic> {
    errors
        .into_iter()
        .map(|e| Diagnostic::new(&entry.file, entry.body_line + e.line - 1, e.message))
        .collect()
}

/// Reads every manifest of `kernels/`, whether an entry measures its kernel or not,
/// and the course's own contract header if it has one: each problem goes to `problems` at the
/// manifest's file and line. (A `.cu` without a manifest may be code a page shows: `measure`
/// and `measure --plan` name it, the build does not.) Returns the kernels whose manifests do
/// not read.
fn every_manifest(
    kernels: &records::KernelFiles,
    problems: &mut Vec<Diagnostic>,
) -> HashSet<String> {
    let mut broken = HashSet::new();
    // A folder that cannot be listed: the kernels' views and records say so where they read.
    let names = kernels.names("yaml").unwrap_or_default();
    if let Err(e) = contract::header(kernels) {
        problems.push(Diagnostic::new(
            format!("kernels/{}", contract::HEADER_NAME),
            0,
            format!("cannot be read: {e}"),
        ));
    }
    for name in names {
        let yaml = format!("kernels/{name}.yaml");
        let text = match kernels.read(&name, "yaml") {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                problems.push(Diagnostic::new(&yaml, 0, format!("cannot be read: {e}")));
                broken.insert(name);
                continue;
            }
        };
        if let Err(e) = Manifest::parse(Path::new(&yaml), &text) {
            problems.extend(e.diagnostics(Path::new(&yaml), &text));
            broken.insert(name);
        }
    }
    broken
}
