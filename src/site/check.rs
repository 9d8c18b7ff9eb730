//! The check stage: everything that can be wrong with a loaded site, found before anything
//! is rendered — editorial verdicts, compute capabilities, prose bindings, records and
//! staleness, links (Markdown is converted here, once, because links are known only after
//! parsing), diagram specs and output collisions. Returns every problem at once, or the
//! pages ready to render.
use std::collections::BTreeSet;
use std::path::Path;

use rayon::prelude::*;

use super::diagrams;
use super::links::Targets;
use super::measurements::Measurements;
use super::output::Copies;
use super::pages::{self, Lookup, Page};
use super::{BuildOptions, Report, assets, plan};
use crate::bank;
use crate::content::{self, Diagnostic, Entry, Kind};
use crate::highlight::include::{self, SOURCE_DIR, Sources};
use crate::markdown::RenderOptions;
use crate::policy::{self, Verdict};

/// What the render and write stages need from a checked site.
pub(super) struct Checked<'a> {
    /// Entry pages this build shows (drafts only in the preview).
    pub(super) pages: Vec<Page<'a>>,
    /// Section introductions this build shows.
    pub(super) intros: Vec<Page<'a>>,
    /// Resolves `related:` and `appears_in:` to links.
    pub(super) lookup: Lookup<'a>,
    /// Measured views, per kernel.
    pub(super) measurements: Measurements,
    /// Static files and content assets to copy.
    pub(super) copies: Copies,
    /// The summary (warnings, drafts, counts).
    pub(super) report: Report,
}

/// Runs every check on `site`; all problems come back together, sorted by file and line.
pub(super) fn check<'a>(
    root: &Path,
    site: &'a content::Site,
    opts: &BuildOptions,
) -> Result<Checked<'a>, Vec<Diagnostic>> {
    let mut problems = site.problems.clone();
    let mut report = Report {
        warnings: site.warnings.clone(),
        ..Report::default()
    };
    let rules = policy::Rules {
        today: opts.today.unwrap_or_else(policy::clock_today),
        review_max_age_days: opts.review_max_age_days,
        strict: opts.strict,
        preview: opts.drafts,
    };
    let verdicts: Vec<Verdict<'a>> = site
        .entries
        .par_iter()
        .map(|e| policy::check(e, &rules))
        .collect();
    let (shown, left_out) = apply_verdicts(&verdicts, opts.drafts, &mut problems, &mut report);
    let lookup = Lookup::new(&verdicts, opts.drafts);
    let measurements = Measurements::load(
        root,
        opts,
        shown.iter().map(|(e, _)| *e),
        &mut problems,
        &mut report.warnings,
    );
    let sources = Sources::new(root, measurements.stale_sources.clone());
    let included = check_includes(
        &shown,
        &sources,
        opts.strict,
        &mut problems,
        &mut report.warnings,
    );
    let copies = copies(
        root,
        site,
        (&included, &sources),
        &mut problems,
        &mut report,
    );
    let targets = Targets::new(
        shown.iter().map(|(e, _)| *e),
        left_out.into_iter(),
        copies.iter().map(|c| c.0.clone()),
        &site.unloaded,
        &opts.config,
        super::writes_sitemap(opts),
    );
    let render = RenderOptions {
        highlight: opts.highlight,
    };
    let cx = PageCx {
        measurements: &measurements,
        targets: &targets,
        sources: &sources,
        render,
    };
    let (pages, intros) = check_pages(shown, cx, &mut problems);
    let outputs = plan::outputs(&pages, &intros, opts);
    problems.extend(plan::collisions(&outputs, &copies));
    if !problems.is_empty() {
        problems.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        problems.dedup();
        return Err(problems);
    }
    report.pages = outputs.iter().filter(|p| p.ends_with("index.html")).count();
    if !opts.drafts && !opts.strict {
        // A published page must not tell readers to run the tool: say so at build time.
        let entries = pages.iter().chain(&intros).map(|p| p.entry);
        report.warnings.extend(measurements.unmeasured(entries));
    }
    Ok(Checked {
        pages,
        intros,
        lookup,
        measurements,
        copies,
        report,
    })
}

/// A shown entry and, in the preview, why it is a draft.
type Shown<'a> = Vec<(&'a Entry, Option<String>)>;

/// Sorts the editorial verdicts: refusals into `problems`, the entries this build shows,
/// and the drafts it leaves out (links to them are reported as such).
fn apply_verdicts<'a>(
    verdicts: &[Verdict<'a>],
    preview: bool,
    problems: &mut Vec<Diagnostic>,
    report: &mut Report,
) -> (Shown<'a>, Vec<&'a Entry>) {
    let mut shown = Vec::new();
    let mut left_out = Vec::new();
    for v in verdicts {
        report.warnings.extend(v.warnings().iter().cloned());
        match v {
            Verdict::Refused(d) => problems.extend(d.iter().cloned()),
            Verdict::Publish(p) => {
                report.published += 1;
                shown.push((p.entry(), None));
            }
            Verdict::Draft(d) => {
                report
                    .drafts
                    .push((d.entry().file.clone(), d.reason.clone()));
                if preview {
                    shown.push((d.entry(), Some(d.reason.clone())));
                } else {
                    left_out.push(d.entry());
                }
            }
        }
    }
    (shown, left_out)
}

/// The files copied as they are, and the files code blocks include (their captions link to
/// the copies beside the pages).
fn copies(
    root: &Path,
    site: &content::Site,
    (included, sources): (&BTreeSet<String>, &Sources),
    problems: &mut Vec<Diagnostic>,
    report: &mut Report,
) -> Copies {
    let mut copies = assets::copies(root, &site.assets, &mut report.warnings).unwrap_or_else(|d| {
        problems.push(d);
        Vec::new()
    });
    copies.extend(
        included
            .iter()
            .map(|rel| (Path::new(SOURCE_DIR).join(rel), sources.full_path(rel))),
    );
    copies
}

/// Checks every shown entry in parallel: the pages and intros that passed, problems of the
/// others into `problems`.
fn check_pages<'a>(
    shown: Shown<'a>,
    cx: PageCx<'_>,
    problems: &mut Vec<Diagnostic>,
) -> (Vec<Page<'a>>, Vec<Page<'a>>) {
    let checked: Vec<Result<Page<'a>, Vec<Diagnostic>>> = shown
        .into_par_iter()
        .map(|(entry, reason)| page(entry, reason, cx))
        .collect();
    let (mut pages, mut intros) = (Vec::new(), Vec::new());
    for c in checked {
        match c {
            Ok(p) if p.entry.kind == Kind::Intro => intros.push(p),
            Ok(p) => pages.push(p),
            Err(d) => problems.extend(d),
        }
    }
    (pages, intros)
}

/// What checking one page needs from the site.
#[derive(Clone, Copy)]
struct PageCx<'a> {
    measurements: &'a Measurements,
    targets: &'a Targets,
    sources: &'a Sources,
    render: RenderOptions,
}

/// Checks one shown entry and converts its Markdown; every problem of the entry at once.
fn page<'a>(
    entry: &'a Entry,
    draft_reason: Option<String>,
    cx: PageCx<'_>,
) -> Result<Page<'a>, Vec<Diagnostic>> {
    let PageCx {
        measurements,
        targets,
        sources,
        render,
    } = cx;
    let mut problems: Vec<Diagnostic> = check_cc(entry).into_iter().collect();
    let body = measurements.expand_bindings(entry).unwrap_or_else(|d| {
        problems.extend(d);
        std::borrow::Cow::Borrowed(&entry.body)
    });
    let mut bodies = pages::bodies(&body, render, entry.kind == Kind::Page, Some(sources));
    problems.extend(targets.check(entry, &bodies.links));
    bodies.links = Vec::new();
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
            problems.push(section_without_field(entry, heading, field));
        }
    }
    let diagram = match (entry.kind, diagrams::draw(entry)) {
        (_, Err(d)) => {
            problems.push(d);
            None
        }
        (Kind::Intro, Ok(Some(_))) => {
            problems.push(
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
    };
    if problems.is_empty() {
        Ok(Page {
            entry,
            draft_reason,
            bodies,
            diagram,
        })
    } else {
        Err(problems)
    }
}

/// Every `file=` include of the shown pages must resolve (errors), and an include of a
/// kernel whose record is stale is a warning (an error under `--strict`). Returns the files
/// included, to publish beside the pages.
fn check_includes(
    shown: &Shown<'_>,
    sources: &Sources,
    strict: bool,
    problems: &mut Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
) -> BTreeSet<String> {
    let checked: Vec<(&Entry, include::Checked)> = shown
        .par_iter()
        .map(|(e, _)| (*e, include::check(&e.body, sources)))
        .collect();
    let mut files = BTreeSet::new();
    for (e, c) in checked {
        let at = |line: usize| e.body_line + line - 1;
        problems.extend(c.errors.iter().map(|(line, err)| {
            Diagnostic::new(&e.file, at(*line), err.to_string()).help(err.help())
        }));
        let stale = c.stale.iter().map(|(line, path, _)| {
            Diagnostic::new(
                &e.file,
                at(*line),
                format!("the code block shows `{path}`, which changed since its measurement record was made; the page says so"),
            )
            .help("re-run `coursegen measure --gpu` on that GPU and commit the record")
        });
        if strict {
            problems.extend(stale);
        } else {
            warnings.extend(stale);
        }
        files.extend(c.files);
    }
    files
}

/// `cc` must be a compute capability the bank model knows.
fn check_cc(entry: &Entry) -> Option<Diagnostic> {
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
