//! The check stage: everything that can be wrong with a loaded site, found before anything
//! is rendered — editorial verdicts, compute capabilities, prose bindings, records and
//! staleness, links (Markdown is converted here, once, because links are known only after
//! parsing), diagram specs and output collisions. Returns every problem at once, or the
//! pages ready to render.
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use super::diagrams;
use super::links::Targets;
use super::measurements::Measurements;
use super::output::Copies;
use super::pages::{self, Bodies, Lookup, Page};
use super::{BuildOptions, Report, assets, plan};
use crate::bank;
use crate::content::{self, Diagnostic, Entry, Kind};
use crate::highlight::include::{self, IncludeError, SOURCE_DIR, Sources};
use crate::markdown::{Link, RenderOptions};
use crate::measurement::bindings::Expanded;
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
    check_with(root, site, opts, None)
}

/// [`check`], reusing what `memo` kept from an earlier check of the same site with the
/// same options, records and kernels (see [`Memo`]), and filling it for the next one.
/// Returns exactly what [`check`] returns.
pub(super) fn check_with<'a>(
    root: &Path,
    site: &'a content::Site,
    opts: &BuildOptions,
    mut memo: Option<&mut Memo>,
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
    let verdicts: Vec<Verdict<'a>> = policy::check_all(
        &site.entries,
        &rules,
        memo.as_deref_mut().map(|m| &mut m.verdicts),
    );
    // The memo keeps the `Arc` of each entry it checked.
    let arcs = Arcs::new(&site.entries);
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
        (&mut problems, &mut report.warnings),
        memo.as_deref_mut().map(|m| (m, &arcs)),
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
    let (pages, intros) = match memo.as_deref_mut() {
        Some(memo) => {
            let checked = check_pages_memo(shown, cx, &mut problems, memo, &arcs);
            memo.targets = Some(targets);
            checked
        }
        None => check_pages(shown, cx, &mut problems),
    };
    let outputs = plan::outputs(&pages, &intros, opts);
    match memo.as_deref() {
        // The same outputs and copies as a check that found no collision: none now.
        Some(Memo {
            collisions: Some((o, c)),
            ..
        }) if *o == outputs && *c == copies => {}
        _ => {
            let found = plan::collisions(root, &outputs, &copies, &pages);
            if let Some(memo) = memo {
                memo.collisions = found.is_empty().then(|| (outputs.clone(), copies.clone()));
            }
            problems.extend(found);
        }
    }
    if !problems.is_empty() {
        problems.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        problems.dedup();
        return Err(problems);
    }
    report.pages = outputs.iter().filter(|p| is_index(p)).count();
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
    let found = assets::copies(root, &site.assets, problems, &mut report.warnings);
    let mut copies = found.unwrap_or_else(|d| {
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
        .map(|(entry, reason)| {
            let mut parts = parts(entry, cx, cx.sources);
            let links = cx.targets.check(entry, &parts.links);
            // The links are checked: do not keep them for the render stage.
            parts.links = Vec::new();
            page(entry, reason, &parts, &links)
        })
        .collect();
    sort_pages(checked, problems)
}

/// Pages and intros apart, problems of the pages that failed into `problems` (in the
/// order of the entries, as the check found them).
fn sort_pages<'a>(
    checked: Vec<Result<Page<'a>, Vec<Diagnostic>>>,
    problems: &mut Vec<Diagnostic>,
) -> (Vec<Page<'a>>, Vec<Page<'a>>) {
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

/// What checking one entry found, before its links are held against the site's targets.
struct Parts {
    /// Compute capability and bindings.
    before: Vec<Diagnostic>,
    /// Special sections without their field, the diagram.
    after: Vec<Diagnostic>,
    /// Every link of the body, with its body-relative line.
    links: Vec<Link>,
    /// The body as HTML.
    bodies: Arc<Bodies>,
    /// The drawn diagram.
    diagram: Option<Arc<diagrams::Drawn>>,
}

/// Checks one shown entry and converts its Markdown (code blocks include files through
/// `sources`); everything but its links.
fn parts(entry: &Entry, cx: PageCx<'_>, sources: &Sources) -> Parts {
    let PageCx {
        measurements,
        render,
        ..
    } = cx;
    let mut before: Vec<Diagnostic> = check_cc(entry).into_iter().collect();
    before.extend(measurements.check_cc(entry));
    let body = measurements.expand_bindings(entry).unwrap_or_else(|d| {
        before.extend(d);
        Expanded::plain(&entry.body)
    });
    let mut bodies = pages::bodies(
        &body.markdown,
        render,
        entry.kind == Kind::Page,
        Some(sources),
    );
    if let Err(d) = measurements.fill_bindings(entry, &body, &mut bodies) {
        before.extend(d);
    }
    let links = std::mem::take(&mut bodies.links);
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
    let diagram = match (entry.kind, diagrams::draw(entry)) {
        (_, Err(d)) => {
            after.push(d);
            None
        }
        (Kind::Intro, Ok(Some(_))) => {
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
    };
    Parts {
        before,
        after,
        links,
        bodies: Arc::new(bodies),
        diagram: diagram.map(Arc::new),
    }
}

/// The checked page, or every problem of the entry at once (`links`: its link problems).
fn page<'a>(
    entry: &'a Entry,
    draft_reason: Option<String>,
    parts: &Parts,
    links: &[Diagnostic],
) -> Result<Page<'a>, Vec<Diagnostic>> {
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

/// What the check stage found, kept between the rebuilds of `coursegen serve`. An entry
/// the load handed over unchanged (the same `Arc`) is not judged, converted or checked
/// again: its verdict, HTML, diagram and problems come from here, and its links are held
/// against the site's targets again only when those changed (a page added, removed, moved
/// or drafted; a file copied or gone). An entry whose code blocks read files (`file=`) is
/// checked again every time, as those files may have changed unseen. Output collisions
/// are looked for again when the outputs or copies changed. Everything else the check
/// stage does (records, includes of changed entries, copies, targets, the output plan)
/// runs in full and in the same order, so the result equals [`check`]'s.
///
/// Valid only for the options, config, records and kernels it was filled with: whoever
/// holds it must [`Memo::clear`] it when one of those changes.
#[derive(Default)]
pub(super) struct Memo {
    /// The editorial verdicts.
    verdicts: policy::Memo,
    /// Per entry (by the address of the entry it holds): what checking it found.
    pages: HashMap<usize, Memoized>,
    /// Per entry whose code blocks read no file: the problems of its code-block options.
    includes: HashMap<usize, (Arc<Entry>, IncludeErrors)>,
    /// The link targets the kept link problems were found against.
    targets: Option<Targets>,
    /// The outputs and copies of the last check, when they collided nowhere.
    collisions: Option<(Vec<std::path::PathBuf>, Copies)>,
}

/// The problems of one body's code-block options, with their body lines.
type IncludeErrors = Vec<(usize, IncludeError)>;

/// One entry checked: the entry, its page or its problems, and how it was checked.
type CheckedThrough<'a> = (&'a Entry, Result<Page<'a>, Vec<Diagnostic>>, Through);

/// One entry's check, for the [`Memo`].
struct Memoized {
    /// The entry as checked: the result holds while the site has this same allocation.
    entry: Arc<Entry>,
    parts: Parts,
    /// Problems of its links, against [`Memo::targets`].
    link_problems: Vec<Diagnostic>,
}

impl Memo {
    /// Forgets everything (the config, records or kernels changed).
    pub(super) fn clear(&mut self) {
        *self = Memo::default();
    }
}

/// The address of an entry: the memo's key (it keeps the entry alive, so the address
/// names that entry until the memo lets go of it).
fn address(entry: &Entry) -> usize {
    std::ptr::from_ref(entry) as usize
}

/// The site's entries by address, to find the `Arc` of an entry the check was lent: looked
/// for one by one while few are asked for (an edit checks one entry afresh), indexed once
/// many are.
struct Arcs<'s> {
    entries: &'s [Arc<Entry>],
    asked: std::cell::Cell<usize>,
    index: std::cell::OnceCell<HashMap<usize, &'s Arc<Entry>>>,
}

impl<'s> Arcs<'s> {
    fn new(entries: &'s [Arc<Entry>]) -> Self {
        Arcs {
            entries,
            asked: std::cell::Cell::new(0),
            index: std::cell::OnceCell::new(),
        }
    }

    fn get(&self, entry: &Entry) -> Option<&'s Arc<Entry>> {
        self.asked.set(self.asked.get() + 1);
        if self.index.get().is_none() && self.asked.get() <= 16 {
            return (self.entries.iter()).find(|e| std::ptr::eq(Arc::as_ptr(e), entry));
        }
        let index =
            (self.index).get_or_init(|| self.entries.iter().map(|e| (address(e), e)).collect());
        index.get(&address(entry)).copied()
    }
}

/// How one entry was checked through the memo.
enum Through {
    /// Taken from the memo; with its link problems when the targets changed.
    Kept(Option<Vec<Diagnostic>>),
    /// Checked afresh; what to keep, unless its code blocks read files.
    Fresh(Option<(Parts, Vec<Diagnostic>)>),
}

/// [`check_pages`] through the memo: entries it holds unchanged are taken from it, others
/// checked (and kept); entries no longer shown are dropped from it.
fn check_pages_memo<'a>(
    shown: Shown<'a>,
    cx: PageCx<'_>,
    problems: &mut Vec<Diagnostic>,
    memo: &mut Memo,
    arcs: &Arcs<'_>,
) -> (Vec<Page<'a>>, Vec<Page<'a>>) {
    let same_targets = memo.targets.as_ref() == Some(cx.targets);
    let kept = &memo.pages;
    let checked: Vec<CheckedThrough<'a>> = shown
        .into_par_iter()
        .map(|(entry, reason)| {
            let memoized = kept
                .get(&address(entry))
                .filter(|m| std::ptr::eq(Arc::as_ptr(&m.entry), entry));
            match memoized {
                Some(m) if same_targets => {
                    let page = page(entry, reason, &m.parts, &m.link_problems);
                    (entry, page, Through::Kept(None))
                }
                Some(m) => {
                    let links = cx.targets.check(entry, &m.parts.links);
                    let page = page(entry, reason, &m.parts, &links);
                    (entry, page, Through::Kept(Some(links)))
                }
                None => {
                    // Sources of its own, to tell whether this page read a file.
                    let sources = cx.sources.fresh();
                    let parts = parts(entry, cx, &sources);
                    let links = cx.targets.check(entry, &parts.links);
                    let page = page(entry, reason, &parts, &links);
                    let keep = (!sources.used()).then_some((parts, links));
                    (entry, page, Through::Fresh(keep))
                }
            }
        })
        .collect();
    let (given, mut missing) = (checked.len(), 0);
    let mut shown = Vec::with_capacity(checked.len());
    let mut results = Vec::with_capacity(checked.len());
    for (entry, page, through) in checked {
        shown.push(address(entry));
        match through {
            Through::Kept(None) => {}
            Through::Kept(Some(links)) => {
                if let Some(m) = memo.pages.get_mut(&address(entry)) {
                    m.link_problems = links;
                }
            }
            Through::Fresh(keep) => {
                let arc = keep.as_ref().and_then(|_| arcs.get(entry));
                match (keep, arc) {
                    (Some((parts, link_problems)), Some(arc)) => {
                        let m = Memoized {
                            entry: Arc::clone(arc),
                            parts,
                            link_problems,
                        };
                        memo.pages.insert(address(entry), m);
                    }
                    _ => {
                        memo.pages.remove(&address(entry));
                        missing += 1;
                    }
                }
            }
        }
        results.push(page);
    }
    // Every entry shown is held, but those that read files: more means some held are no
    // longer shown.
    if memo.pages.len() > given - missing {
        let shown: HashSet<usize> = shown.into_iter().collect();
        memo.pages.retain(|a, _| shown.contains(a));
    }
    sort_pages(results, problems)
}

/// Every `file=` include of the shown pages must resolve (errors), and an include of a
/// kernel whose record is stale is a warning (an error under `--strict`). Returns the files
/// included, to publish beside the pages. With a memo, an unchanged entry whose code blocks
/// read no file is not looked at again.
fn check_includes(
    shown: &Shown<'_>,
    sources: &Sources,
    strict: bool,
    (problems, warnings): (&mut Vec<Diagnostic>, &mut Vec<Diagnostic>),
    memo: Option<(&mut Memo, &Arcs<'_>)>,
) -> BTreeSet<String> {
    let checked: Vec<(&Entry, include::Checked)> = match memo {
        None => shown
            .par_iter()
            .map(|(e, _)| (*e, include::check(&e.body, sources)))
            .collect(),
        Some((memo, arcs)) => {
            let kept = &memo.includes;
            let checked: Vec<(&Entry, include::Checked, Option<bool>)> = shown
                .par_iter()
                .map(|(e, _)| {
                    let memoized = kept
                        .get(&address(e))
                        .filter(|(entry, _)| std::ptr::eq(Arc::as_ptr(entry), *e));
                    match memoized {
                        Some((_, errors)) => {
                            let c = include::Checked {
                                errors: errors.clone(),
                                ..include::Checked::default()
                            };
                            (*e, c, None)
                        }
                        None => {
                            let own = sources.fresh();
                            let c = include::check(&e.body, &own);
                            (*e, c, Some(!own.used()))
                        }
                    }
                })
                .collect();
            let (given, mut missing) = (checked.len(), 0);
            let mut out = Vec::with_capacity(checked.len());
            for (e, c, fresh) in checked {
                let arc = fresh.filter(|keep| *keep).and_then(|_| arcs.get(e));
                match (fresh, arc) {
                    (Some(true), Some(arc)) => {
                        memo.includes
                            .insert(address(e), (Arc::clone(arc), c.errors.clone()));
                    }
                    (Some(_), _) => {
                        memo.includes.remove(&address(e));
                        missing += 1;
                    }
                    (None, _) => {}
                }
                out.push((e, c));
            }
            // Every entry given is held, but those that read files: more means some held
            // are gone from the site.
            if memo.includes.len() > given - missing {
                let given: HashSet<usize> = out.iter().map(|(e, _)| address(e)).collect();
                memo.includes.retain(|a, _| given.contains(a));
            }
            out
        }
    };
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

/// Whether an output is a page (`…/index.html`), read from the bytes (`Path::ends_with`
/// takes the path apart, for every output of every rebuild).
fn is_index(path: &Path) -> bool {
    let bytes = path.as_os_str().as_encoded_bytes();
    let name = b"index.html";
    bytes.ends_with(name)
        && (bytes.len() == name.len()
            || std::path::is_separator(bytes[bytes.len() - name.len() - 1].into()))
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
