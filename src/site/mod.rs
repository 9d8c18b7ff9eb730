//! `build` and `check`: orchestrates content → policy → markdown/templates → output, with
//! diagrams from `bank` and tables from `measurement`. The only module that knows
//! all the others; output is written atomically by `output`.
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::content::{self, Diagnostic, Diagnostics, Entry};
use crate::highlight::include::{self, SOURCE_DIR, Sources};
use crate::markdown::RenderOptions;
use crate::policy::{self, Verdict};
use crate::templates::Templates;

mod extras;
mod generated;
mod indexes;
mod links;
mod nav;
pub mod output;
pub mod pages;
mod search;
pub mod serve;

use indexes::{check_collisions, indexes, page_path, sitemap, static_copies};
use output::{OutFile, OutputError};
use pages::{EntryCtx, Lookup, SiteInfo};

/// How to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Preview: drafts rendered with a banner and `noindex`.
    pub drafts: bool,
    /// Stale or missing measurement records are errors.
    pub strict: bool,
    /// Highlight fenced code.
    pub highlight: bool,
    /// Write the search index (`pagefind/`).
    pub search: bool,
    /// Output folder; `None` for `check` (nothing written).
    pub out: Option<PathBuf>,
    /// Public address, for sitemap.xml (publish builds only).
    pub base_url: Option<String>,
}

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// Content problems: exit 1, nothing written.
    #[error("{0}; nothing was written")]
    Content(Diagnostics),
    /// The root has no content/ folder: wrong directory or wrong --root.
    #[error(
        "{0} has no content/ folder: run coursegen from the site root, pass --root DIR, \
         or start one with `coursegen new glossary <slug>`"
    )]
    NoContent(PathBuf),
    /// Templates missing or broken.
    #[error(transparent)]
    Templates(#[from] crate::templates::TemplateError),
    /// Output refused or not writable.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The search index could not be built.
    #[error(transparent)]
    Search(#[from] search::SearchError),
}

/// What a build did, for the summary.
#[derive(Debug, Default)]
pub struct Report {
    /// Pages written (or that would be).
    pub pages: usize,
    /// Entries published.
    pub published: usize,
    /// Drafts rendered (preview) or left out (publish), with their reasons.
    pub drafts: Vec<(PathBuf, String)>,
    /// Warnings that did not stop the build.
    pub warnings: Vec<Diagnostic>,
}

/// Builds the site under `root` (or only checks it when `opts.out` is `None`).
pub fn build(root: &Path, opts: &BuildOptions) -> Result<Report, SiteError> {
    if let Some(out) = &opts.out {
        output::check_out(root, out)?;
    }
    if !root.join("content").is_dir() {
        return Err(SiteError::NoContent(root.to_path_buf()));
    }
    let site = content::load(root).map_err(|d| SiteError::Content(Diagnostics(d)))?;
    let verdicts: Vec<Verdict<'_>> = site.entries.iter().map(policy::check).collect();
    let mut problems: Vec<Diagnostic> = Vec::new();
    let mut report = Report {
        warnings: site.warnings.clone(),
        ..Report::default()
    };
    for v in &verdicts {
        match v {
            Verdict::Refused(d) => problems.extend(d.iter().cloned()),
            Verdict::Publish(_) => report.published += 1,
            Verdict::Draft(d) => report
                .drafts
                .push((d.entry().file.clone(), d.reason.clone())),
        }
    }
    let templates = Templates::load(&root.join("templates"))?;
    let lookup = Lookup::new(&verdicts, opts.drafts);
    let info = SiteInfo {
        title: "100 Days of GPU".into(),
        preview: opts.drafts,
    };
    let (shown, intros) = shown_pages(&verdicts, opts.drafts);
    let extras = extras::Extras::load(
        root,
        opts,
        shown.iter().map(|(e, _)| *e),
        &mut problems,
        &mut report.warnings,
    );
    let sources = Sources::new(root, extras.stale_sources.clone());
    let included = check_includes(
        &shown,
        &sources,
        opts.strict,
        &mut problems,
        &mut report.warnings,
    );
    let mut copies = static_copies(root, &site.assets, &mut report.warnings)?;
    // Captions link to the included files: publish them beside the pages.
    copies.extend(
        included
            .iter()
            .map(|rel| (Path::new(SOURCE_DIR).join(rel), sources.full_path(rel))),
    );
    let left_out = verdicts.iter().filter_map(|v| match v {
        Verdict::Draft(d) if !opts.drafts => Some(d.entry()),
        _ => None,
    });
    let targets = links::Targets::new(
        shown.iter().map(|(e, _)| *e),
        left_out,
        copies.iter().map(|c| c.0.clone()),
    );
    let nav = nav::Nav::new(&shown);
    let ctx = RenderCtx {
        nav: &nav,
        info: &info,
        lookup: &lookup,
        templates: &templates,
        extras: &extras,
        targets: &targets,
        sources: &sources,
        opts,
    };
    // Pages are written into the staging folder as soon as they are rendered, so a build
    // never holds the whole site in memory; the folder is swapped in only at the end.
    let staging = opts.out.as_deref().map(output::Staging::new).transpose()?;
    let (mut paths, records) = render_all(&shown, &ctx, staging.as_ref(), &mut problems)?;
    if !problems.is_empty() {
        problems.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        problems.dedup();
        return Err(SiteError::Content(Diagnostics(problems)));
    }
    let mut files = indexes(&shown, &intros, &info, &templates, &nav)?;
    if let (Some(base), false) = (&opts.base_url, opts.drafts) {
        files.push(sitemap(base, &shown));
    }
    files.extend(generated::plain_pages(&info, &templates, &nav)?);
    let published: Vec<&Entry> = shown
        .iter()
        .filter(|(_, draft)| draft.is_none())
        .map(|(e, _)| *e)
        .collect();
    let (base, root) = (opts.base_url.as_deref(), templates.root());
    files.push(generated::feed(&published, &info, base, root));
    files.push(generated::llms_txt(&published, &info, &nav, base, root));
    if opts.search && staging.is_some() {
        files.extend(search::index(records)?);
    }
    if !opts.drafts && !opts.strict {
        // A published page must not tell readers to run the tool: say so at build time.
        report.warnings.extend(extras.unmeasured(&shown));
    }
    paths.extend(files.iter().map(|f| f.path.clone()));
    check_collisions(&paths, &copies)?;
    report.pages = paths.iter().filter(|p| p.ends_with("index.html")).count();
    if let Some(staging) = staging {
        for f in &files {
            staging.write(f)?;
        }
        staging.commit(&copies)?;
    }
    Ok(report)
}

/// The check stage's part for code blocks: every `file=` include of the shown pages must
/// resolve (errors), and an include of a kernel whose record is stale is a warning (an
/// error under `--strict`). Returns the files included, to publish beside the pages.
fn check_includes(
    shown: &[(&Entry, Option<&str>)],
    sources: &Sources,
    strict: bool,
    problems: &mut Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
) -> std::collections::BTreeSet<String> {
    let checked: Vec<(&Entry, include::Checked)> = shown
        .par_iter()
        .map(|(e, _)| (*e, include::check(&e.body, sources)))
        .collect();
    let mut files = std::collections::BTreeSet::new();
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

/// The entries this build renders (drafts only in the preview), and apart from them the
/// top-level `content/<section>.md` pages, which introduce that section's index.
#[allow(clippy::type_complexity)]
fn shown_pages<'a>(
    verdicts: &'a [Verdict<'a>],
    drafts: bool,
) -> (
    Vec<(&'a Entry, Option<&'a str>)>,
    Vec<(&'a Entry, Option<&'a str>)>,
) {
    let shown: Vec<(&Entry, Option<&str>)> = verdicts
        .iter()
        .filter_map(|v| match v {
            Verdict::Publish(p) => Some((p.entry(), None)),
            Verdict::Draft(d) if drafts => Some((d.entry(), Some(d.reason.as_str()))),
            _ => None,
        })
        .collect();
    let section_names: std::collections::HashSet<&str> = shown
        .iter()
        .map(|(e, _)| e.section.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    let (intros, shown) = shown
        .into_iter()
        .partition(|(e, _)| e.section.is_empty() && section_names.contains(e.slug.as_str()));
    (shown, intros)
}

/// Renders every entry in parallel, writing each page as it is done; returns the paths
/// written. Content problems are collected in `problems`; an I/O failure stops the build.
fn render_all(
    shown: &[(&Entry, Option<&str>)],
    ctx: &RenderCtx<'_>,
    staging: Option<&output::Staging>,
    problems: &mut Vec<Diagnostic>,
) -> Result<(Vec<PathBuf>, Vec<search::Record>), SiteError> {
    enum Fail {
        Content(Vec<Diagnostic>),
        Output(OutputError),
    }
    type Rendered = (Vec<PathBuf>, Option<search::Record>);
    let rendered: Vec<Result<Rendered, Fail>> = shown
        .par_iter()
        .map(|(e, reason)| {
            let (files, record) = render_entry(e, *reason, ctx).map_err(Fail::Content)?;
            if let Some(st) = staging {
                for f in &files {
                    st.write(f).map_err(Fail::Output)?;
                }
            }
            Ok((files.into_iter().map(|f| f.path).collect(), record))
        })
        .collect();
    let mut paths = Vec::with_capacity(shown.len() * 3 + 8);
    let mut records = Vec::with_capacity(shown.len());
    for r in rendered {
        match r {
            Ok((p, record)) => {
                paths.extend(p);
                records.extend(record);
            }
            Err(Fail::Content(d)) => problems.extend(d),
            Err(Fail::Output(e)) => return Err(e.into()),
        }
    }
    Ok((paths, records))
}

/// What every page render shares.
#[derive(Clone, Copy)]
struct RenderCtx<'a> {
    nav: &'a nav::Nav,
    info: &'a SiteInfo,
    lookup: &'a Lookup<'a>,
    templates: &'a Templates,
    extras: &'a extras::Extras,
    targets: &'a links::Targets,
    sources: &'a Sources,
    opts: &'a BuildOptions,
}

fn render_entry(
    entry: &Entry,
    draft_reason: Option<&str>,
    rc: &RenderCtx<'_>,
) -> Result<(Vec<OutFile>, Option<search::Record>), Vec<Diagnostic>> {
    let RenderCtx {
        nav,
        info,
        lookup,
        templates,
        extras,
        targets,
        sources,
        opts,
    } = *rc;
    let render_opts = RenderOptions {
        highlight: opts.highlight,
    };
    let body = extras.expand_bindings(entry)?;
    let bodies = pages::bodies(&body, render_opts, Some(sources));
    let mut broken = targets.check(entry, &bodies.links);
    broken.extend(extras.check_cc(entry));
    if !broken.is_empty() {
        return Err(broken);
    }
    let mut files = Vec::new();
    let diagram = extras.diagram(entry, bodies.diagram, &mut files)?;
    let measured = extras.measured(entry, bodies.measured)?;
    let m = &entry.meta;
    let term_of = |e: &Entry| e.meta.term.clone().unwrap_or_else(|| e.meta.title.clone());
    let published = draft_reason.is_none() && opts.out.is_some();
    let section_title = pages::section_title(&entry.section);
    // Everything shown is searchable: published pages, and drafts in the preview (marked).
    let record = (opts.search && opts.out.is_some()).then(|| {
        let heading = m.term.as_deref().unwrap_or(&m.title);
        let url = format!("{}{}", templates.root(), entry.url.trim_start_matches('/'));
        let summary = m.summary.as_deref().unwrap_or("");
        let text = search::text_of(&bodies.main);
        let mut r = search::Record::new(
            url,
            heading,
            &section_title,
            &[heading, &m.title, summary, &text],
        );
        r.draft = draft_reason.is_some();
        r
    });
    let byline = pages::byline(entry);
    if published {
        files.push(OutFile {
            path: Path::new(entry.url.trim_matches('/')).join(generated::MARKDOWN),
            bytes: generated::markdown_copy(entry, &body, &byline).into_bytes(),
        });
    }
    let ctx = EntryCtx {
        site: info.clone(),
        url: entry.url.clone(),
        section: entry.section.clone(),
        section_url: format!("/{}/", entry.section),
        section_title,
        title: m.title.clone(),
        term: m.term.clone(),
        category: m.category.clone(),
        cc: m.cc.clone(),
        summary: m.summary.clone(),
        body_html: bodies.main,
        og_image: diagram.as_ref().and_then(|d| d.png.as_ref()).map(|png| {
            format!(
                "{}{}{png}",
                opts.base_url.as_deref().unwrap_or("").trim_end_matches('/'),
                entry.url
            )
        }),
        measured,
        diagram,
        related: m
            .related
            .iter()
            .map(|s| lookup.link(content::load::GLOSSARY, s, term_of))
            .collect(),
        appears_in: m
            .appears_in
            .iter()
            .map(|s| lookup.link(content::load::DAYS, s, |e| e.meta.title.clone()))
            .collect(),
        sources: m.sources.clone(),
        byline,
        draft_reason: draft_reason.map(str::to_string),
        nav: nav.page(&entry.url, &m.title),
        markdown: published.then(|| generated::MARKDOWN.to_string()),
    };
    let html = templates
        .render("entry.html", &ctx)
        .map_err(|e| vec![Diagnostic::new(&entry.file, 0, e.to_string())])?;
    files.push(OutFile {
        path: page_path(&entry.url),
        bytes: html.into_bytes(),
    });
    Ok((files, record))
}
