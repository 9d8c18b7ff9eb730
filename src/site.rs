//! `build` and `check` as four stages — load → check → render → write — each returning
//! its own problems; `check` is load + check. A build without search renders and stages
//! each entry page as soon as the check has passed it, while other entries are checked,
//! and swaps the output in only when the whole check passed. The only module that knows
//! all the others (see ARCHITECTURE.md for the route of one build).
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::content::{self, Diagnostics};
use crate::templates::Templates;

pub(crate) mod check;
#[cfg(test)]
mod fuzz_tests;
pub(crate) mod layout;
pub(crate) mod options;
pub(crate) mod render;
pub(crate) mod summary;
pub(crate) mod urls;
pub(crate) mod write;

use self::options::{BuildOptions, Report, Timings};
use self::render::{RenderError, Renderer};
use self::write::OutputError;

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SiteError {
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
    /// A checked page failed to render (a template or the rasteriser, not content).
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The search index could not be built.
    #[error(transparent)]
    Search(#[from] render::search::SearchError),
}

/// Builds the site under `root` (or only checks it when `opts.out` is `None`): load, check,
/// and — only when check found nothing — the output swapped in.
pub(crate) fn build(root: &Path, opts: &BuildOptions) -> Result<Report, SiteError> {
    if let Some(out) = &opts.out {
        write::check_out(root, out, opts.cache_dir.as_deref())?;
    }
    let start = std::time::Instant::now();
    let site = load(root, &opts.config.glossary_folder)?;
    let templates = Templates::load_site(root)?;
    match &opts.out {
        Some(out) => build_to(out, root, &site, &templates, opts, start),
        None => build_loaded(root, &site, &check::Direct, opts, start),
    }
}

/// Checks the site twice on one load of its content and templates (nothing written): as it
/// would be published (`opts`), then as the preview shows it (drafts rendered, not strict),
/// so `coursegen check` can say which problem blocks which build. The outer error: no
/// content, or templates that do not load.
pub(crate) fn check_published_and_preview(
    root: &Path,
    opts: &BuildOptions,
) -> Result<Checks, SiteError> {
    let opts = BuildOptions {
        out: None,
        ..opts.clone()
    };
    let start = std::time::Instant::now();
    let site = load(root, &opts.config.glossary_folder)?;
    // Templates that do not load fail the check as they would fail the build.
    Templates::load_site(root)?;
    let checks = check::TwoChecks::default();
    let published = build_loaded(root, &site, &checks, &opts, start);
    let preview = BuildOptions {
        drafts: true,
        strict: false,
        ..opts
    };
    let now = std::time::Instant::now();
    let preview = build_loaded(root, &site, &checks, &preview, now);
    Ok(Checks { published, preview })
}

/// The problems the publish build (`build --strict`) would report in the entry `file`
/// (relative to the root) were its text `text`, every other file as it is: `coursegen sign
/// --publish` asks before it writes, reusing the check stage whole. The signature rule is
/// left out: `sign` verifies the signature it makes, and the author signs after it.
pub(crate) fn entry_problems_as_published(
    root: &Path,
    opts: &BuildOptions,
    file: &Path,
    text: &str,
) -> Result<Vec<content::Diagnostic>, SiteError> {
    if !root.join("content").is_dir() {
        return Err(SiteError::NoContent(root.to_path_buf()));
    }
    let site = content::load::load_with_text(root, &opts.config.glossary_folder, file, text);
    let opts = BuildOptions {
        drafts: false,
        strict: true,
        out: None,
        check_signatures: false,
        ..opts.clone()
    };
    let start = std::time::Instant::now();
    let problems = match build_loaded(root, &site, &check::Direct, &opts, start) {
        Ok(_) => Vec::new(),
        Err(SiteError::Content(problems)) => problems.0,
        Err(e) => return Err(e),
    };
    Ok(problems.into_iter().filter(|d| d.file == file).collect())
}

/// The two checks of [`check_published_and_preview`].
pub(crate) struct Checks {
    /// The site as it would be published.
    pub(crate) published: Result<Report, SiteError>,
    /// The site as the preview shows it, drafts rendered.
    pub(crate) preview: Result<Report, SiteError>,
}

/// [`build`]'s check alone after the load stage (the content and the templates), which
/// began at `start`, each entry checked by `checks`.
fn build_loaded(
    root: &Path,
    site: &content::Site,
    checks: &impl check::EntryChecks,
    opts: &BuildOptions,
    start: std::time::Instant,
) -> Result<Report, SiteError> {
    let loaded = std::time::Instant::now();
    let checked = check::check_site_with(root, site, opts, checks)
        .map_err(|d| SiteError::Content(Diagnostics(d)))?;
    let mut report = checked.report;
    report.entries = site.entries.len();
    report.timings = Timings {
        load: loaded - start,
        check: loaded.elapsed(),
        write: Default::default(),
    };
    Ok(report)
}

/// [`build`] into `out` after the load stage, which began at `start`. Without search, each
/// entry page is rendered and stored in the staging folder as soon as its own checks pass,
/// while other entries are still being checked, and its HTML fragments are let go of then:
/// the build never holds every page's HTML at once (`benches/build.sh`, memory). With
/// search, the pages are rendered after the check, beside the index. The files made from
/// the whole site follow the check; the folder is swapped in only when the whole check
/// passed and every page and copy is there, and removed otherwise.
fn build_to(
    out: &Path,
    root: &Path,
    site: &content::Site,
    templates: &Templates,
    opts: &BuildOptions,
    start: std::time::Instant,
) -> Result<Report, SiteError> {
    let loaded = std::time::Instant::now();
    let checks = check::Direct;
    let checking = check::Checking::start(root, site, opts, &checks);
    let facts = std::sync::Arc::clone(checking.facts());
    let nav = Renderer::nav_of(checking.listed(), opts);
    let renderer = Renderer::new(&facts, templates, opts, &nav);
    // A publish build records each page's digest for its provenance; others hash nothing.
    let staging = match opts.drafts {
        true => write::Staging::new(out)?,
        false => write::Staging::new(out)?.recording_pages(),
    };
    let each = |p: &check::page::Page| {
        staging.write_all(&renderer.page(p)?)?;
        Ok::<_, SiteError>(())
    };
    // With search, the pages are rendered after the check, beside the index: the index
    // needs every record first, and after pages rendered during the check it ran alone on
    // one thread (a shard re-indexed after a one-entry edit, ~0.4 s at 10,000 entries): the
    // warm build after an edit was 12-15 % slower (`benches/build.sh`, search).
    let late = opts.search;
    let converted = checking.convert(&checks, (!late).then_some(&each as _));
    let (checked, rendered) =
        (checking.finish(&checks, converted)).map_err(|d| SiteError::Content(Diagnostics(d)))?;
    // The check passed: every page was rendered (without search).
    rendered.into_iter().collect::<Result<(), _>>()?;
    let done_check = std::time::Instant::now();
    let records = (checked.pages.par_iter())
        .filter_map(|p| renderer.record(p))
        .collect();
    // The pages (with search), the files made from the whole site (indexes, feed,
    // llms.txt) and the search index at once: the site files are one thread's work, and an
    // edit re-indexes one shard on one thread.
    let (pages, (files, index)) = rayon::join(
        || match late {
            true => checked.pages.par_iter().try_for_each(each),
            false => Ok(()),
        },
        || {
            rayon::join(
                || renderer.site_files(&checked),
                || renderer.search_index(records),
            )
        },
    );
    pages?;
    let mut files = files?;
    files.extend(index?);
    files.extend(renderer.site_card()?);
    staging.write_all(&files)?;
    // The publish build says what each page is and who signed it, last: every page is staged.
    if !opts.drafts {
        let entries: Vec<&content::Entry> = checked.pages.iter().map(|p| &*p.entry).collect();
        let rules = checked.facts.signatures.as_deref();
        let bytes = write::provenance::file(root, opts, &entries, rules, staging.pages());
        let path = crate::editorial::provenance::FILE.into();
        staging.write_all(&[write::OutFile { path, bytes }])?;
    }
    staging.commit(&checked.copies)?;
    let (warning, cache) = renderer.cache_report();
    let mut report = checked.report;
    report.warnings.extend(warning);
    report.entries = site.entries.len();
    report.cache = cache;
    report.timings = Timings {
        load: loaded - start,
        check: done_check - loaded,
        write: done_check.elapsed(),
    };
    Ok(report)
}

/// Load: walk content/, read, split and parse every entry (references resolved, `related:`
/// in the section `glossary`).
fn load(root: &Path, glossary: &str) -> Result<content::Site, SiteError> {
    if !root.join("content").is_dir() {
        return Err(SiteError::NoContent(root.to_path_buf()));
    }
    Ok(content::load(root, glossary))
}

/// [`load`] through `coursegen serve`'s cache: reads again only the entry files `changed`
/// names (and files the cache does not hold).
pub(crate) fn load_changed(
    root: &Path,
    glossary: &str,
    cache: &mut content::load::LoadCache,
    changed: &content::load::Changed,
) -> Result<content::Site, SiteError> {
    if !root.join("content").is_dir() {
        return Err(SiteError::NoContent(root.to_path_buf()));
    }
    Ok(content::load_changed(root, glossary, cache, changed))
}
