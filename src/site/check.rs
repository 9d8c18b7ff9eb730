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
//! keeps nothing between builds and runs the same steps either way: [`Checking`]'s three,
//! of which the middle one, per entry, may hand each page on as soon as it passed its own
//! checks (the build renders and stages it then).
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
    /// What every page renders with (lookup, records, the config's prose).
    pub(crate) facts: Arc<Facts>,
    /// Static files and content assets to copy.
    pub(crate) copies: Copies,
    /// The summary (warnings, drafts, counts).
    pub(crate) report: Report,
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

/// The config's `key` text (`home`, `footer`) rendered (sanitised), and what is checked
/// of it as of an entry's body: its links must reach pages or files of this build, and its
/// raw HTML must stay within what the cleaner takes.
struct Prose {
    key: &'static str,
    html: String,
    links: Vec<Link>,
    too_much_html: Option<usize>,
}

impl Prose {
    /// The text rendered; `None` when the config has none.
    fn render(config: &crate::config::Config, key: &'static str) -> Option<Prose> {
        let text = match key {
            "home" => config.home.as_ref()?,
            _ => config.footer.as_ref()?,
        };
        let opts = RenderOptions { highlight: false };
        // (It links no terms: it is the course's own words, around every list.)
        let rendered = crate::markdown::render(&text.text, opts, &mut Default::default());
        Some(Prose {
            key,
            html: rendered.html,
            links: rendered.links,
            too_much_html: rendered.too_much_html,
        })
    }

    /// Its problems against what the build contains.
    fn problems(&self, config: &crate::config::Config, targets: &Targets) -> Vec<Diagnostic> {
        let key = self.key;
        let text = match key {
            "home" => config.home.as_ref(),
            _ => config.footer.as_ref(),
        };
        let Some(text) = text else {
            return Vec::new();
        };
        let mut found = targets.problems_at("/", &config.file, text.line, &self.links);
        if let Some(line) = self.too_much_html {
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
        found
    }
}

/// Runs every check on `site`, each entry's work done by `checks`; all problems come back
/// together, sorted by file and line.
pub(crate) fn check_site_with(
    root: &Path,
    site: &content::Site,
    opts: &BuildOptions,
    checks: &impl EntryChecks,
) -> Result<CheckedSite, Vec<Diagnostic>> {
    let checking = Checking::start(root, site, opts, checks);
    let converted = checking.convert::<()>(checks, None);
    checking
        .finish(checks, converted)
        .map(|(checked, _)| checked)
}

/// The check stage in its three steps, for a build that renders each page as soon as its
/// own checks pass ([`Checking::convert`]): the site-wide facts a page's render needs are
/// known before any body is converted, and a page's HTML fragments need not be held until
/// every page is checked (at 10,000 entries they were a third of a build's heap:
/// `benches/build.sh`, memory).
pub(crate) struct Checking<'s> {
    root: &'s Path,
    site: &'s content::Site,
    opts: &'s BuildOptions,
    problems: Vec<Diagnostic>,
    report: Report,
    /// The entries this build shows, in the load stage's order.
    shown: Shown,
    /// Drafts the publish build leaves out (links to them say so).
    left_out: Vec<Arc<Entry>>,
    /// Refused entries and their first problem (links to them say so).
    refused: Vec<(&'s Arc<Entry>, Option<Diagnostic>)>,
    facts: Arc<Facts>,
    sources: Sources,
    /// The build's glossary terms, and their key.
    terms: (Arc<crate::markdown::terms::Terms>, u64),
    /// The config's home and footer text: their links and raw HTML, checked at the end.
    prose: Vec<Prose>,
}

/// What every page of a checked site renders with besides its own parts.
pub(crate) struct Facts {
    /// Resolves `related:` and `appears_in:` to links.
    pub(crate) lookup: Lookup,
    /// Measured views, per kernel.
    pub(crate) measurements: Measurements,
    /// The config's home text, rendered and cleaned (site links not yet under the base path).
    pub(crate) home_html: Option<String>,
    /// The config's footer, the same way.
    pub(crate) footer_html: Option<String>,
}

/// How many entries [`Checking::convert`] converts before it hands them on in turn: one
/// entry at a time (converted, rendered, written) made the plain 10,000-entry build ~10 %
/// slower in CPU than converting every entry first, as the Markdown conversion and the
/// templates took turns on one core's caches; in runs of 64 it is as fast and holds only
/// 64 pages' HTML per thread (`benches/build.sh`, memory; 256 and 512 were no faster).
const CHUNK: usize = 64;

/// Each shown entry after [`Checking::convert`], and what its `each` returned.
pub(crate) struct Converted<T> {
    parted: Vec<(Arc<Entry>, Option<String>, Arc<Parts>)>,
    kept: Vec<T>,
}

impl<'s> Checking<'s> {
    /// The site-wide steps before any body is converted: the config's sections, the terms'
    /// clashes, the editorial verdicts, records and the term list.
    pub(crate) fn start(
        root: &'s Path,
        site: &'s content::Site,
        opts: &'s BuildOptions,
        checks: &impl EntryChecks,
    ) -> Self {
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
        let (clashes, shared_terms) =
            checks.site_wide(clash_inputs, || terms::clashes(&site.entries));
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
        let refused = (site.entries.iter().zip(&verdicts))
            .filter_map(|(e, v)| match v {
                Verdict::Refused(d) => Some((e, d.first().cloned())),
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
        let terms = checks.site_wide(term_inputs, || {
            let (list, key) = terms::terms(shown.iter().map(|(e, _)| &**e));
            (Arc::new(crate::markdown::terms::Terms::new(list)), key)
        });
        let prose: Vec<Prose> = ["home", "footer"]
            .into_iter()
            .filter_map(|key| Prose::render(&opts.config, key))
            .collect();
        let html = |key: &str| (prose.iter().find(|p| p.key == key)).map(|p| p.html.clone());
        let facts = Arc::new(Facts {
            lookup,
            measurements,
            home_html: html("home"),
            footer_html: html("footer"),
        });
        Checking {
            root,
            site,
            opts,
            problems,
            report,
            shown,
            left_out,
            refused,
            facts,
            sources,
            terms,
            prose,
        }
    }

    /// What every page renders with: known before any page is.
    pub(crate) fn facts(&self) -> &Arc<Facts> {
        &self.facts
    }

    /// The entry pages this build shows (not the section introductions), in order, and
    /// whether each is a draft: the pages of the checked site, if the check passes.
    pub(crate) fn listed(&self) -> impl Iterator<Item = (&Entry, bool)> {
        (self.shown.iter())
            .filter(|(e, _)| e.kind != EntryKind::Intro)
            .map(|(e, reason)| (&**e, reason.is_some()))
    }

    /// Checks and converts each shown entry, everything but its links, in parallel. With
    /// `each`, every entry page whose own checks passed is handed to it as soon as they
    /// did, and its HTML fragments are let go of after it (its page in the checked site
    /// then has none): the build renders and writes it there and then.
    pub(crate) fn convert<T: Send>(
        &self,
        checks: &impl EntryChecks,
        each: Option<&(dyn Fn(&Page) -> T + Sync)>,
    ) -> Converted<T> {
        let cx = PageCx {
            measurements: &self.facts.measurements,
            sources: &self.sources,
            terms: (&*self.terms.0, self.terms.1),
            render: RenderOptions {
                highlight: self.opts.highlight,
            },
        };
        let terms_key = self.terms.1;
        let let_go = Arc::new(Bodies::default());
        let convert = |entry: &Arc<Entry>| {
            let parts = checks.parts(entry, &cx);
            // A memo may hand back parts made with another build's terms.
            match parts.terms_key == terms_key {
                true => parts,
                false => Arc::new(entry_parts(entry, &cx)),
            }
        };
        let hand_on =
            |((entry, reason), mut parts): (&(Arc<Entry>, Option<String>), Arc<Parts>)| {
                let passed = parts.before.is_empty() && parts.after.is_empty();
                let kept = match each {
                    Some(each) if passed && entry.kind != EntryKind::Intro => {
                        let page = Page {
                            entry: Arc::clone(entry),
                            draft_reason: reason.clone(),
                            bodies: Arc::clone(&parts.bodies),
                            diagram: parts.diagram.clone(),
                        };
                        let kept = each(&page);
                        drop(page);
                        // Unique but where a memo keeps them, for another check.
                        if let Some(p) = Arc::get_mut(&mut parts) {
                            p.bodies = Arc::clone(&let_go);
                        }
                        Some(kept)
                    }
                    _ => None,
                };
                ((Arc::clone(entry), reason.clone(), parts), kept)
            };
        let (parted, kept): (Vec<_>, Vec<_>) = (self.shown.par_chunks(CHUNK))
            .flat_map_iter(|chunk| {
                let parts: Vec<_> = chunk.iter().map(|(e, _)| convert(e)).collect();
                chunk.iter().zip(parts).map(&hand_on)
            })
            .unzip();
        Converted {
            parted,
            kept: kept.into_iter().flatten().collect(),
        }
    }

    /// The checks that need every entry converted: includes, links, the config's prose and
    /// the outputs. Every problem of the stage at once, or the checked site and what
    /// `convert`'s `each` returned, one per entry page, in order.
    pub(crate) fn finish<T>(
        self,
        checks: &impl EntryChecks,
        converted: Converted<T>,
    ) -> Result<(CheckedSite, Vec<T>), Vec<Diagnostic>> {
        let Checking {
            root,
            site,
            opts,
            mut problems,
            mut report,
            left_out,
            refused,
            facts,
            sources,
            prose,
            ..
        } = self;
        let Converted { parted, kept } = converted;
        let included =
            include_findings(&parted, opts.strict, (&mut problems, &mut report.warnings));
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
                refused.iter().map(|(_, d)| d.clone()).collect::<Vec<_>>(),
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
                refused.iter().map(|(e, d)| (&***e, d.as_ref())),
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
        for p in &prose {
            problems.extend(p.problems(&opts.config, &targets));
        }
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
            report
                .warnings
                .extend(facts.measurements.unmeasured(entries));
        }
        let checked = CheckedSite {
            pages,
            intros,
            facts,
            copies,
            report,
        };
        Ok((checked, kept))
    }
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
