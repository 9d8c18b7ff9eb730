//! One shown entry checked and converted: everything but its links, which are held against
//! the whole site's targets later ([`super::Checking`]'s last step). Its result, [`Parts`],
//! is what `EntryChecks::parts` hands out and memos keep.
use std::sync::Arc;

use super::bodies::{self, Bodies};
use super::diagrams;
use super::measurements::Measurements;
use super::page::Page;
use crate::bank;
use crate::content::{Diagnostic, Entry, EntryKind};
use crate::highlight::include::{IncludeCheck, Sources};
use crate::markdown::{Link, RenderOptions};
use crate::measurement::bindings::Expanded;

/// The site-wide facts checking one entry needs.
pub(crate) struct PageCx<'a> {
    pub(super) measurements: &'a Measurements,
    pub(super) sources: &'a Sources,
    /// The build's glossary terms, and their key.
    pub(super) terms: (&'a crate::markdown::terms::Terms, u64),
    pub(super) render: RenderOptions,
}

/// What checking one entry found, before its links are held against the site's targets.
pub(crate) struct Parts {
    /// Compute capability and bindings.
    pub(super) before: Vec<Diagnostic>,
    /// Special sections without their field, the diagram.
    pub(super) after: Vec<Diagnostic>,
    /// Every link of the body, with its body-relative line.
    pub(super) links: Vec<Link>,
    /// The body as HTML.
    pub(super) bodies: Arc<Bodies>,
    /// The drawn diagram.
    pub(super) diagram: Option<Arc<diagrams::Drawn>>,
    /// What its code blocks' options and includes came to (body-relative lines).
    pub(super) includes: IncludeCheck,
    /// The key of the terms its prose was linked with (`terms::terms`).
    pub(super) terms_key: u64,
    /// Whether its diagram is drawn from a kernel's manifest.
    pub(super) diagram_reads_kernel: bool,
}

impl Parts {
    /// Whether its code blocks read files (`file=`), or its diagram a kernel's manifest,
    /// which may change unseen: a result that read one holds only for this build.
    pub(crate) fn reads_files(&self) -> bool {
        self.includes.reads_files || self.diagram_reads_kernel
    }
}

/// Checks one shown entry and converts its Markdown; everything but its links.
pub(crate) fn entry_parts(entry: &Entry, cx: &PageCx<'_>) -> Parts {
    let PageCx {
        measurements,
        render,
        ..
    } = *cx;
    let mut before: Vec<Diagnostic> = check_cc(entry).into_iter().collect();
    before.extend(measurements.check_cc(entry));
    let body = measurements.expand_bindings(entry).unwrap_or_else(|d| {
        before.extend(d);
        Expanded::plain(&entry.body)
    });
    let (terms, terms_key) = cx.terms;
    let linking = (entry.meta.link_terms && !terms.is_empty())
        .then(|| crate::markdown::terms::Linking::new(terms, &entry.url));
    let mut bodies = bodies::bodies(
        &body.markdown,
        render,
        entry.kind == EntryKind::Page,
        Some(cx.sources),
        linking,
    );
    for e in std::mem::take(&mut bodies.math_errors) {
        before.push(
            Diagnostic::new(&entry.file, entry.body_line + e.line - 1, e.message).help(e.help),
        );
    }
    if let Err(d) = measurements.fill_bindings(entry, &body, &mut bodies) {
        before.extend(d);
    }
    if let Some(line) = bodies.too_much_html {
        before.push(
            Diagnostic::new(
                &entry.file,
                entry.body_line + line - 1,
                format!(
                    "more than {} tags of raw HTML in one part of the body, or a tag with more \
                     than {} attributes: the HTML cleaner cannot check that much in bounded time",
                    crate::markdown::MAX_HTML_TAGS,
                    crate::sanitize::MAX_ATTRIBUTES
                ),
            )
            .help("write the content in Markdown, or split it over pages"),
        );
    }
    let links = std::mem::take(&mut bodies.links);
    let includes = std::mem::take(&mut bodies.includes);
    // The copy of the page is made from the same text; the body itself serves when it is
    // that text.
    bodies.source.bound = body.has_bindings().then_some(body);
    let mut after = Vec::new();
    for (prose, heading, field, present) in [
        (
            &bodies.measured,
            "Measured",
            "measure",
            entry.meta.measure.is_some(),
        ),
        (
            &bodies.diagram,
            "Diagram",
            "diagram",
            entry.meta.diagram.is_some(),
        ),
    ] {
        if prose.is_some() && !present {
            after.push(section_without_field(entry, heading, field));
        }
    }
    let diagram = drawn(entry, measurements, &mut after);
    Parts {
        before,
        after,
        links,
        bodies: Arc::new(bodies),
        diagram: diagram.map(Arc::new),
        includes,
        terms_key,
        diagram_reads_kernel: (entry.meta.diagram.as_ref()).is_some_and(|d| d.kernel.is_some()),
    }
}

/// The entry's diagram drawn, or its problem into `after`.
fn drawn(
    entry: &Entry,
    measurements: &Measurements,
    after: &mut Vec<Diagnostic>,
) -> Option<diagrams::Drawn> {
    match (entry.kind, diagrams::draw(entry, measurements.kernels())) {
        // A kernel whose manifest does not read is reported at the manifest's line.
        (_, Err(_)) if measurements.manifest_broken(entry) => None,
        (_, Err(d)) => {
            after.push(d);
            None
        }
        (EntryKind::Intro, Ok(Some(_))) => {
            after.push(
                Diagnostic::new(
                    &entry.file,
                    entry.lines.of("diagram"),
                    "a section introduction shows no diagram",
                )
                .field("diagram")
                .help("draw it on an entry of the section instead"),
            );
            None
        }
        (_, Ok(d)) => d,
    }
}

/// The checked page, or every problem of the entry at once (`links`: its link problems).
pub(super) fn page(
    entry: Arc<Entry>,
    draft_reason: Option<String>,
    parts: &Parts,
    links: &[Diagnostic],
) -> Result<Page, Vec<Diagnostic>> {
    if parts.before.is_empty() && links.is_empty() && parts.after.is_empty() {
        Ok(Page {
            entry,
            draft_reason,
            bodies: parts.bodies.clone(),
            diagram: parts.diagram.clone(),
        })
    } else {
        Err((parts.before.iter())
            .chain(links)
            .chain(&parts.after)
            .cloned()
            .collect())
    }
}

/// `cc` must be a compute capability the bank model knows.
fn check_cc(entry: &Entry) -> Option<Diagnostic> {
    let cc = entry.meta.cc.as_deref()?;
    if bank::model::geometry(cc).is_some() {
        return None;
    }
    let known: Vec<&str> = bank::model::known_ccs().collect();
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
