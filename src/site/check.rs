//! The check stage: everything that can be wrong with a loaded site, found before anything
//! is rendered — editorial verdicts, compute capabilities, prose bindings, records and
//! staleness, links (Markdown is converted here, once, because links are known only after
//! parsing), diagram specs and output collisions. Returns every problem at once, or the
//! pages ready to render.
//!
//! The work on one entry is three functions of that entry and the site-wide facts they
//! need ([`EntryChecks`]): its editorial verdict, its parts (bindings, Markdown, diagram)
//! and its link problems. `build` runs them as they are ([`Direct`]); `coursegen check`
//! hands its second check the parts its first made ([`TwoChecks`]); `coursegen serve`
//! hands in a memo that keeps their results for entries that did not change. The stage
//! keeps nothing between builds and runs the same steps either way.
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use self::bodies::Bodies;
use self::links::Targets;
use self::measurements::Measurements;
use self::page::{Lookup, Page};
use crate::bank;
use crate::content::{self, Diagnostic, Entry, EntryKind};
use crate::editorial::policy::{self, Rules, Verdict};
use crate::highlight::include::{IncludeCheck, SOURCE_DIR, Sources};
use crate::markdown::{Link, RenderOptions};
use crate::measurement::bindings::Expanded;
use crate::site::options::{BuildOptions, Report};
use crate::site::write::Copies;

pub(crate) mod assets;
pub(crate) mod bodies;
pub(crate) mod diagrams;
pub(crate) mod entry_memo;
pub(crate) mod links;
pub(crate) mod measurements;
pub(crate) mod page;
pub(crate) mod plan;
pub(crate) mod signers;
pub(crate) mod terms;

/// What the render and write stages need from a checked site.
pub(crate) struct CheckedSite {
    /// Entry pages this build shows (drafts only in the preview).
    pub(crate) pages: Vec<Page>,
    /// Section introductions this build shows.
    pub(crate) intros: Vec<Page>,
    /// Resolves `related:` and `appears_in:` to links.
    pub(crate) lookup: Lookup,
    /// Measured views, per kernel.
    pub(crate) measurements: Measurements,
    /// Static files and content assets to copy.
    pub(crate) copies: Copies,
    /// The summary (warnings, drafts, counts).
    pub(crate) report: Report,
    /// The config's home text, rendered and cleaned (site links not yet under the base path).
    pub(crate) home_html: Option<String>,
    /// The config's footer, the same way.
    pub(crate) footer_html: Option<String>,
}

/// The check stage's work on one entry, and its site-wide steps. Each result depends only
/// on the entry (the same allocation) and the arguments, so an implementation may hand out
/// an earlier result for the same entry and equal arguments.
pub(crate) trait EntryChecks: Sync {
    /// The editorial verdict ([`policy::verdict_of`]).
    fn verdict(&self, entry: &Arc<Entry>, rules: &Rules) -> Verdict {
        policy::verdict_of(entry, rules)
    }
    /// Everything but its links ([`entry_parts`]).
    fn parts(&self, entry: &Arc<Entry>, cx: &PageCx<'_>) -> Arc<Parts> {
        Arc::new(entry_parts(entry, cx))
    }
    /// The problems of its links against what the build contains ([`Targets::link_problems`]).
    fn link_problems(
        &self,
        entry: &Arc<Entry>,
        parts: &Parts,
        targets: &Arc<Targets>,
    ) -> Arc<[Diagnostic]> {
        targets.link_problems(entry, &parts.links).into()
    }
    /// The result of a site-wide step of the stage (`make`), which reads `inputs`: an
    /// implementation may hand out the result it made for inputs that differ in nothing the
    /// step reads (serve: at 10,000 entries these steps were most of a one-entry rebuild,
    /// `benches/serve_latency.sh`).
    fn site_wide<K, V>(&self, inputs: SiteWide<'_, K>, make: impl FnOnce() -> V) -> V
    where
        K: PartialEq + Send + 'static,
        V: Clone + Send + 'static,
    {
        let _ = inputs;
        make()
    }
}

/// What a site-wide step of the check stage reads: the entries, each seen through `same`,
/// and everything else in `key`. Two inputs with equal keys whose entries are, place by
/// place, the same allocation or `same` give the step the same result.
pub(crate) struct SiteWide<'a, K> {
    /// The step, to tell the results an implementation keeps apart.
    pub(crate) step: &'static str,
    /// The entries it reads, in order.
    pub(crate) entries: Vec<&'a Arc<Entry>>,
    /// Whether two versions of an entry agree in everything the step reads of it.
    pub(crate) same: fn(&Entry, &Entry) -> bool,
    /// Everything else the step reads.
    pub(crate) key: K,
}

/// The per-entry checks as they are (the trait's own), for `build`.
pub(crate) struct Direct;

impl EntryChecks for Direct {}

/// `coursegen check`'s per-entry checks, the same as [`Direct`]'s but for one thing: the
/// parts of an entry that the first of its two checks (as published) made are handed to the
/// second (as the preview) when they read nothing that differs between the two — no
/// measured bindings (`--strict` binds them differently) and no files (code blocks'
/// `file=`, a diagram from a kernel's manifest) — so each body is converted once
/// (`benches/build.sh`, check). A changed term list is caught by the terms key, as for
/// serve's memo.
#[derive(Default)]
pub(crate) struct TwoChecks {
    /// The parts kept by the first check.
    parts: entry_memo::EntryMemo<(), Arc<Parts>>,
}

impl EntryChecks for TwoChecks {
    fn parts(&self, entry: &Arc<Entry>, cx: &PageCx<'_>) -> Arc<Parts> {
        let compute = || Direct.parts(entry, cx);
        let keep = |p: &Arc<Parts>| entry.meta.measure.is_none() && !p.reads_files();
        self.parts.get_or(entry, (), compute, keep)
    }
}

/// The config's `sections` that name no section of the site (a typo, or a folder renamed).
fn unlisted_sections(config: &crate::config::Config, site: &content::Site) -> Vec<Diagnostic> {
    let present: BTreeSet<&str> = (site.entries.iter())
        .map(|e| e.section.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    let mut problems = Vec::new();
    for s in config
        .sections
        .iter()
        .filter(|s| !present.contains(s.name.as_str()))
    {
        let closest = content::diagnostic::closest(&s.name, present.iter().copied());
        let help = match (closest, present.is_empty()) {
            (Some(p), _) => format!("did you mean `{p}`?"),
            (None, true) => "content/ has no sections yet: a section is a folder of entries".into(),
            (None, false) => format!(
                "the sections under content/ are {}",
                present.iter().copied().collect::<Vec<_>>().join(", ")
            ),
        };
        let message = format!("no section `{}` under content/", s.name);
        problems.push(
            Diagnostic::new(&config.file, s.line, message)
                .field("sections")
                .help(help),
        );
    }
    problems
}

/// The config's `key` text (`home`, `footer`) rendered (sanitised), and checked as an
/// entry's body is: its links must reach pages or files of this build, and its raw HTML
/// must stay within what the cleaner takes.
fn prose(
    config: &crate::config::Config,
    key: &str,
    targets: &Targets,
    problems: &mut Vec<Diagnostic>,
) -> Option<String> {
    let text = match key {
        "home" => config.home.as_ref()?,
        _ => config.footer.as_ref()?,
    };
    let opts = RenderOptions { highlight: false };
    let rendered = crate::markdown::render(&text.text, opts, &mut Default::default());
    // (It links no terms: it is the course's own words, around every list.)
    let mut found = targets.problems_at("/", &config.file, text.line, &rendered.links);
    if let Some(line) = rendered.too_much_html {
        let message = format!(
            "the {key} text has more than {} HTML tags, or a tag with more than {} attributes",
            crate::markdown::MAX_HTML_TAGS,
            crate::sanitize::MAX_ATTRIBUTES
        );
        found.push(
            Diagnostic::new(&config.file, text.line + line - 1, message)
                .help("write it in Markdown; raw HTML is for a few tags"),
        );
    }
    for p in &mut found {
        p.field = Some(key.into());
        if text.lines_moved {
            p.line = text.line;
        }
    }
    problems.extend(found);
    Some(rendered.html)
}

/// Runs every check on `site`, each entry's work done by `checks`; all problems come back
/// together, sorted by file and line.
pub(crate) fn check_site_with(
    root: &Path,
    site: &content::Site,
    opts: &BuildOptions,
    checks: &impl EntryChecks,
) -> Result<CheckedSite, Vec<Diagnostic>> {
    let mut problems = site.problems.clone();
    let section_inputs = SiteWide {
        step: "sections",
        entries: site.entries.iter().collect(),
        same: |a, b| a.section == b.section,
        key: (opts.config.sections.clone(), opts.config.file.clone()),
    };
    problems.extend(checks.site_wide(section_inputs, || unlisted_sections(&opts.config, site)));
    let clash_inputs = SiteWide {
        step: "clashes",
        entries: (site.entries.iter())
            .filter(|e| e.meta.term.is_some())
            .collect(),
        same: terms::same_words,
        key: (),
    };
    let (clashes, shared_terms) = checks.site_wide(clash_inputs, || terms::clashes(&site.entries));
    problems.extend(clashes);
    let mut report = Report {
        warnings: site.warnings.clone(),
        ..Report::default()
    };
    report.warnings.extend(shared_terms);
    let rules = Rules {
        today: opts.today.unwrap_or_else(policy::clock_today),
        review_max_age_days: opts.review_max_age_days,
        strict: opts.strict,
        preview: opts.drafts,
        signatures: signers::signature_rules(root, opts, &mut problems, &mut report.warnings),
        required: opts.config.glossary_required,
    };
    let verdicts: Vec<Verdict> = (site.entries.par_iter())
        .map(|e| checks.verdict(e, &rules))
        .collect();
    let (shown, left_out) = apply_verdicts(&verdicts, opts.drafts, &mut problems, &mut report);
    // Links to a refused entry say so, not that there is no such page.
    let refused: Vec<(&Arc<Entry>, Option<&Diagnostic>)> = (site.entries.iter().zip(&verdicts))
        .filter_map(|(e, v)| match v {
            Verdict::Refused(d) => Some((e, d.first())),
            _ => None,
        })
        .collect();
    let lookup = Lookup::new(&verdicts, opts.drafts);
    let measurements = Measurements::load(
        root,
        opts,
        shown.iter().map(|(e, _)| &**e),
        &mut problems,
        &mut report.warnings,
    );
    let sources = Sources::new(root, measurements.stale_sources.clone());
    let term_inputs = SiteWide {
        step: "terms",
        entries: (shown.iter().map(|(e, _)| e))
            .filter(|e| terms::has_words(e))
            .collect(),
        same: terms::same_terms,
        key: (),
    };
    let (terms, terms_key) = checks.site_wide(term_inputs, || {
        let (list, key) = terms::terms(shown.iter().map(|(e, _)| &**e));
        (Arc::new(crate::markdown::terms::Terms::new(list)), key)
    });
    let cx = PageCx {
        measurements: &measurements,
        sources: &sources,
        terms: (&*terms, terms_key),
        render: RenderOptions {
            highlight: opts.highlight,
        },
    };
    // Each page converted (and its code blocks checked) first: the files its code blocks
    // include are copied, and links may point at them.
    let parted: Vec<(Arc<Entry>, Option<String>, Arc<Parts>)> = shown
        .into_par_iter()
        .map(|(entry, reason)| {
            let mut parts = checks.parts(&entry, &cx);
            // A memo may hand back parts made with another build's terms.
            if parts.terms_key != terms_key {
                parts = Direct.parts(&entry, &cx);
            }
            (entry, reason, parts)
        })
        .collect();
    let included = include_findings(&parted, opts.strict, (&mut problems, &mut report.warnings));
    let copies = copies(root, site, (&included, &sources), &mut problems);
    let target_inputs = SiteWide {
        step: "targets",
        entries: (parted.iter().map(|(e, ..)| e))
            .chain(&left_out)
            .chain(refused.iter().map(|(e, _)| *e))
            .collect(),
        same: links::same_targets,
        key: (
            (parted.len(), left_out.len()),
            refused.iter().map(|(_, d)| d.cloned()).collect::<Vec<_>>(),
            copies.iter().map(|c| c.0.clone()).collect::<Vec<_>>(),
            site.unloaded.clone(),
            opts.config.clone(),
            opts.writes_sitemap(),
        ),
    };
    let targets = checks.site_wide(target_inputs, || {
        Arc::new(Targets::new(
            parted.iter().map(|(e, ..)| &**e),
            left_out.iter().map(|e| &**e),
            refused.iter().map(|(e, d)| (&***e, *d)),
            copies.iter().map(|c| c.0.clone()),
            &site.unloaded,
            &opts.config,
            opts.writes_sitemap(),
        ))
    });
    let checked: Vec<Result<Page, Vec<Diagnostic>>> = parted
        .into_par_iter()
        .map(|(entry, reason, parts)| {
            let links = checks.link_problems(&entry, &parts, &targets);
            page(entry, reason, &parts, &links)
        })
        .collect();
    let home_html = prose(&opts.config, "home", &targets, &mut problems);
    let footer_html = prose(&opts.config, "footer", &targets, &mut problems);
    let (pages, intros) = sort_pages(checked, &mut problems);
    let output_inputs = SiteWide {
        step: "outputs",
        entries: pages.iter().chain(&intros).map(|p| &p.entry).collect(),
        same: plan::same_outputs,
        key: (
            pages.len(),
            (copies.iter())
                .map(|(rel, src)| (rel.clone(), src.shown()))
                .collect::<Vec<_>>(),
            opts.writes_sitemap(),
            root.to_path_buf(),
        ),
    };
    let (indexes, collisions) = checks.site_wide(output_inputs, || {
        let outputs = plan::outputs(&pages, &intros, opts);
        let indexes = outputs.iter().filter(|p| is_index(p)).count();
        (indexes, plan::collisions(root, &outputs, &copies, &pages))
    });
    problems.extend(collisions);
    if !problems.is_empty() {
        problems.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        problems.dedup();
        return Err(problems);
    }
    report.pages = indexes;
    if !opts.drafts && !opts.strict {
        // A published page must not tell readers to run the tool: say so at build time.
        let entries = pages.iter().chain(&intros).map(|p| &*p.entry);
        report.warnings.extend(measurements.unmeasured(entries));
    }
    Ok(CheckedSite {
        pages,
        intros,
        lookup,
        measurements,
        copies,
        report,
        home_html,
        footer_html,
    })
}

/// A shown entry and, in the preview, why it is a draft.
type Shown = Vec<(Arc<Entry>, Option<String>)>;

/// Sorts the editorial verdicts: refusals into `problems`, the entries this build shows,
/// and the drafts it leaves out (links to them are reported as such).
fn apply_verdicts(
    verdicts: &[Verdict],
    preview: bool,
    problems: &mut Vec<Diagnostic>,
    report: &mut Report,
) -> (Shown, Vec<Arc<Entry>>) {
    let mut shown = Vec::with_capacity(verdicts.len());
    let mut left_out = Vec::new();
    // Every entry may carry a warning (a review about to expire): grown once.
    let warned = verdicts.iter().map(|v| v.warnings().len()).sum();
    report.warnings.reserve(warned);
    for v in verdicts {
        report.warnings.extend(v.warnings().iter().cloned());
        match v {
            Verdict::Refused(d) => problems.extend(d.iter().cloned()),
            Verdict::Publish(p) => {
                report.published += 1;
                shown.push((Arc::clone(p.entry()), None));
            }
            Verdict::Draft(d) => {
                report
                    .drafts
                    .push((d.entry().file.clone(), d.reason.clone()));
                if preview {
                    shown.push((Arc::clone(d.entry()), Some(d.reason.clone())));
                } else {
                    left_out.push(Arc::clone(d.entry()));
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
) -> Copies {
    let found = assets::copies(root, &site.assets, problems);
    let mut copies = found.unwrap_or_else(|d| {
        problems.push(d);
        Vec::new()
    });
    copies.extend(included.iter().map(|rel| {
        let src = crate::theme::Source::File(sources.full_path(rel));
        (Path::new(SOURCE_DIR).join(rel), src)
    }));
    copies
}

/// Pages and intros apart, problems of the pages that failed into `problems` (in the
/// order of the entries, as the check found them).
fn sort_pages(
    checked: Vec<Result<Page, Vec<Diagnostic>>>,
    problems: &mut Vec<Diagnostic>,
) -> (Vec<Page>, Vec<Page>) {
    let (mut pages, mut intros) = (Vec::new(), Vec::new());
    for c in checked {
        match c {
            Ok(p) if p.entry.kind == EntryKind::Intro => intros.push(p),
            Ok(p) => pages.push(p),
            Err(d) => problems.extend(d),
        }
    }
    (pages, intros)
}

/// The site-wide facts checking one entry needs.
pub(crate) struct PageCx<'a> {
    measurements: &'a Measurements,
    sources: &'a Sources,
    /// The build's glossary terms, and their key.
    terms: (&'a crate::markdown::terms::Terms, u64),
    render: RenderOptions,
}

/// What checking one entry found, before its links are held against the site's targets.
pub(crate) struct Parts {
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
    /// What its code blocks' options and includes came to (body-relative lines).
    includes: IncludeCheck,
    /// The key of the terms its prose was linked with (`terms::terms`).
    terms_key: u64,
    /// Whether its diagram is drawn from a kernel's manifest.
    diagram_reads_kernel: bool,
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
    for (line, message) in std::mem::take(&mut bodies.math_errors) {
        before.push(
            Diagnostic::new(&entry.file, entry.body_line + line - 1, message).help(
                "write the formula in LaTeX math (`$x^2$`, `$$\\frac{a}{b}$$`); a dollar sign \
                 that is not math is written `\\$`",
            ),
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
    let diagram = match (entry.kind, diagrams::draw(entry, measurements.kernels())) {
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
    };
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

/// The checked page, or every problem of the entry at once (`links`: its link problems).
fn page(
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

/// Every `file=` include of the shown pages must resolve (errors), and an include of a
/// kernel whose record is stale is a warning (an error under `--strict`). Returns the files
/// included, to publish beside the pages.
fn include_findings(
    parted: &[(Arc<Entry>, Option<String>, Arc<Parts>)],
    strict: bool,
    (problems, warnings): (&mut Vec<Diagnostic>, &mut Vec<Diagnostic>),
) -> BTreeSet<String> {
    let checked = parted.iter().map(|(e, _, parts)| (&**e, &parts.includes));
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
        files.extend(c.files.iter().cloned());
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
