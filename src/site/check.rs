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
use self::config_texts::{Prose, unlisted_sections};
use self::entry::page;
pub(crate) use self::entry::{PageCx, Parts, entry_parts};
use self::links::Targets;
use self::measurements::Measurements;
use self::page::{Lookup, Page};
use crate::content::{self, Diagnostic, Entry, EntryKind};
use crate::editorial::policy::{self, Rules, Verdict};
use crate::highlight::include::{SOURCE_DIR, Sources};
use crate::markdown::RenderOptions;
use crate::site::layout::Copies;
use crate::site::options::{BuildOptions, Report};

pub(crate) mod assets;
pub(crate) mod bodies;
mod config_texts;
pub(crate) mod diagrams;
pub(crate) mod entry;
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
    /// The signature rules the entries were judged by (the provenance records their file).
    pub(crate) signatures: Option<Arc<crate::editorial::policy::signatures::SignatureRules>>,
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
            today: opts.today(),
            review_max_age_days: opts.review_max_age_days,
            strict: opts.strict,
            preview: opts.drafts,
            signatures: signers::signature_rules(root, opts, &mut problems, &mut report.warnings),
            required: opts.config.glossary_required,
            glossary: opts.config.glossary_folder.clone().into(),
            files: Some(Arc::new(policy::pin::Files::new(root))),
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
            signatures: rules.signatures.clone(),
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
        let (indexes, collisions) = outputs(checks, (root, opts), (&pages, &intros), &copies);
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

/// The outputs step: how many pages the build writes (for the report), and the problems
/// of its outputs (two at one path, a page whose folder is a file).
fn outputs(
    checks: &impl EntryChecks,
    (root, opts): (&Path, &BuildOptions),
    (pages, intros): (&[Page], &[Page]),
    copies: &Copies,
) -> (usize, Vec<Diagnostic>) {
    let inputs = SiteWide {
        step: "outputs",
        entries: pages.iter().chain(intros).map(|p| &p.entry).collect(),
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
    checks.site_wide(inputs, || {
        let outputs = plan::outputs(pages, intros, opts);
        let indexes = outputs.iter().filter(|p| is_index(p)).count();
        (indexes, plan::collisions(root, &outputs, copies, pages))
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
