//! `build` and `check` as four stages — load → check → render → write — each returning
//! its own problems; `check` is load + check. The only module that knows all the others
//! (see ARCHITECTURE.md for the route of one build).
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::content::{self, Diagnostic, Diagnostics};
use crate::templates::Templates;

mod assets;
pub(crate) mod bodies;
pub mod build_cache;
pub(crate) mod check;
pub(crate) mod diagrams;
#[cfg(test)]
mod fuzz_tests;
mod generated;
mod indexes;
pub(crate) mod links;
mod measurements;
pub(crate) mod nav;
mod options;
pub mod output;
pub(crate) mod page;
pub mod pages;
mod plan;
pub(crate) mod render;
mod search;
mod summary;
mod urls;

pub use options::{BuildOptions, CacheCounts, Report, Timings};
use output::OutputError;
pub use render::RenderError;

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
    /// A checked page failed to render (a template or the rasteriser, not content).
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The search index could not be built.
    #[error(transparent)]
    Search(#[from] search::SearchError),
}

/// Builds the site under `root` (or only checks it when `opts.out` is `None`): load, check,
/// and — only when check found nothing — render and write.
pub fn build(root: &Path, opts: &BuildOptions) -> Result<Report, SiteError> {
    if let Some(out) = &opts.out {
        output::check_out(root, out)?;
    }
    let start = std::time::Instant::now();
    let site = load(root)?;
    let loaded = std::time::Instant::now();
    let templates = Templates::load_site(root)?.with_root(&opts.config.root);
    let checked =
        check::check_site(root, &site, opts).map_err(|d| SiteError::Content(Diagnostics(d)))?;
    let done_check = std::time::Instant::now();
    let mut warnings = Vec::new();
    let mut cache = None;
    if let Some(out) = &opts.out {
        let written = write(out, &checked, &templates, opts)?;
        warnings.extend(written.warning);
        cache = written.counts;
    }
    let mut report = checked.report;
    report.warnings.extend(warnings);
    report.entries = site.entries.len();
    report.cache = cache;
    report.timings = Timings {
        load: loaded - start,
        check: done_check - loaded,
        write: done_check.elapsed(),
    };
    Ok(report)
}

/// Load: walk content/, read, split and parse every entry (references resolved).
fn load(root: &Path) -> Result<content::Site, SiteError> {
    if !root.join("content").is_dir() {
        return Err(SiteError::NoContent(root.to_path_buf()));
    }
    Ok(content::load(root))
}

/// [`load`] through `coursegen serve`'s cache: reads again only the entry files `changed`
/// names (and files the cache does not hold).
pub(crate) fn load_changed(
    root: &Path,
    cache: &mut content::load::LoadCache,
    changed: &content::load::Changed,
) -> Result<content::Site, SiteError> {
    if !root.join("content").is_dir() {
        return Err(SiteError::NoContent(root.to_path_buf()));
    }
    Ok(content::load_changed(root, cache, changed))
}

/// Render and write: pages are rendered in parallel and stored in the staging folder as
/// soon as each is done, so a build never holds the whole site in memory; the folder is
/// swapped in only when every page and copy is there.
fn write(
    out: &Path,
    checked: &check::CheckedSite,
    templates: &Templates,
    opts: &BuildOptions,
) -> Result<Written, SiteError> {
    let build_cache = build_cache::BuildCache::new(opts.cache_dir.clone());
    let info = pages::SiteInfo::new(&opts.config, opts.drafts, checked.home_html.clone());
    let names = nav::SectionNames::new(&opts.config.sections);
    let nav = nav::Nav::new(&checked.pages, templates.root(), names);
    let rc = render::RenderCtx {
        info: &info,
        templates,
        checked,
        opts,
        nav: &nav,
        build_cache: &build_cache,
    };
    let staging = output::Staging::new(out)?;
    let records: Vec<search::Record> = (checked.pages.par_iter())
        .filter_map(|p| render::record(p, rc))
        .collect();
    // The pages, the files made from the whole site (indexes, feed, llms.txt) and the
    // search index at once: the site files are one thread's work, and an edit re-indexes
    // one shard on one thread; either would otherwise follow the pages alone.
    let (pages, (files, index)) = rayon::join(
        || {
            checked.pages.par_iter().try_for_each(|p| {
                staging.write_all(&render::page(p, rc)?)?;
                Ok::<_, SiteError>(())
            })
        },
        || {
            rayon::join(
                || site_files(checked, &info, templates, &nav, opts),
                || match opts.search {
                    true => search::index(records, &build_cache),
                    false => Ok(Vec::new()),
                },
            )
        },
    );
    pages?;
    let mut files = files?;
    files.extend(index?);
    // Pages without a diagram name the site's card as their og:image, which only an
    // absolute address can (see render::page).
    if opts.config.base_url.is_some() {
        let bytes = diagrams::site_card(&info.title, &build_cache).map_err(|error| {
            render::RenderError::Raster {
                file: diagrams::SITE_CARD_PNG.into(),
                error,
            }
        })?;
        files.push(output::OutFile {
            path: diagrams::SITE_CARD_PNG.into(),
            bytes,
        });
    }
    staging.write_all(&files)?;
    staging.commit(&checked.copies)?;
    Ok(Written {
        warning: build_cache.warning(),
        counts: build_cache.counts(),
    })
}

/// What [`write`] reports besides the files.
struct Written {
    /// The build cache could not keep what was rendered.
    warning: Option<Diagnostic>,
    /// What the build cache held and what was made (`None`: no cache).
    counts: Option<CacheCounts>,
}

/// The files made from the whole site rather than one page: home page and section indexes
/// (with `search-index.json`), the sitemap (publish build with an address), `404.html` and
/// the search page, `feed.xml` and `llms.txt`. `serve` writes them through here too.
pub(crate) fn site_files(
    checked: &check::CheckedSite,
    info: &pages::SiteInfo,
    templates: &Templates,
    nav: &nav::Nav,
    opts: &BuildOptions,
) -> Result<Vec<output::OutFile>, SiteError> {
    let urls = urls::Urls::new(&opts.config);
    let mut files = indexes::indexes(&checked.pages, &checked.intros, info, templates, nav, urls)?;
    if let (Some(base), true) = (&opts.config.base_url, opts.writes_sitemap()) {
        files.push(indexes::sitemap(base, &checked.pages, &checked.intros));
    }
    files.extend(generated::plain_pages(info, templates, nav)?);
    let published: Vec<&content::Entry> = checked
        .pages
        .iter()
        .filter(|p| p.draft_reason.is_none())
        .map(|p| &*p.entry)
        .collect();
    let (base, root) = (opts.config.base_url.as_deref(), templates.root());
    let today = opts.today.unwrap_or_else(crate::policy::clock_today);
    files.push(generated::feed(&published, info, (base, root), today));
    files.push(generated::robots_txt(opts, root));
    files.push(generated::llms_txt(&published, info, nav, base, root));
    Ok(files)
}
