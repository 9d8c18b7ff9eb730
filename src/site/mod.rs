//! `build` and `check` as four stages — load → check → render → write — each returning
//! its own problems; `check` is load + check. The only module that knows all the others
//! (see ARCHITECTURE.md for the route of one build).
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::config::Config;
use crate::content::{self, Diagnostic, Diagnostics};
use crate::templates::Templates;

mod assets;
pub mod build_cache;
mod check;
mod diagrams;
#[cfg(test)]
mod fuzz_tests;
mod generated;
mod indexes;
mod links;
mod measurements;
mod nav;
pub mod output;
pub mod pages;
mod plan;
mod render;
mod search;
pub mod serve;
mod summary;
mod urls;

use output::OutputError;
pub use render::RenderError;

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
    /// The site config (`coursegen.toml` with the command line's overrides): title,
    /// base path, edit links, external link prefixes.
    pub config: Config,
    /// A review older than this many days has expired (a warning; an error under `strict`).
    pub review_max_age_days: u32,
    /// The date the editorial rule takes as today; `None` reads the clock.
    pub today: Option<jiff::civil::Date>,
    /// Folder of the persistent build cache (see `build_cache`); `None` renders every
    /// diagram afresh.
    pub cache_dir: Option<PathBuf>,
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
    /// A checked page failed to render (a template or the rasteriser, not content).
    #[error(transparent)]
    Render(#[from] RenderError),
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

/// Builds the site under `root` (or only checks it when `opts.out` is `None`): load, check,
/// and — only when check found nothing — render and write.
pub fn build(root: &Path, opts: &BuildOptions) -> Result<Report, SiteError> {
    if let Some(out) = &opts.out {
        output::check_out(root, out)?;
    }
    let site = load(root)?;
    let templates = Templates::load(&root.join("templates"))?.with_root(&opts.config.root);
    let checked =
        check::check(root, &site, opts).map_err(|d| SiteError::Content(Diagnostics(d)))?;
    let mut warnings = Vec::new();
    if let Some(out) = &opts.out {
        warnings.extend(write(out, &checked, &templates, opts)?);
    }
    let mut report = checked.report;
    report.warnings.extend(warnings);
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
fn load_changed(
    root: &Path,
    cache: &mut content::load::Cache,
    changed: &content::load::Changed,
) -> Result<content::Site, SiteError> {
    if !root.join("content").is_dir() {
        return Err(SiteError::NoContent(root.to_path_buf()));
    }
    Ok(content::load_changed(root, cache, changed))
}

/// Render and write: pages are rendered in parallel and stored in the staging folder as
/// soon as each is done, so a build never holds the whole site in memory; the folder is
/// swapped in only when every page and copy is there. Returns a warning if the build cache
/// could not keep what was rendered.
fn write(
    out: &Path,
    checked: &check::Checked<'_>,
    templates: &Templates,
    opts: &BuildOptions,
) -> Result<Option<Diagnostic>, SiteError> {
    let build_cache = build_cache::BuildCache::new(opts.cache_dir.clone());
    let info = pages::SiteInfo::new(&opts.config, opts.drafts);
    let nav = nav::Nav::new(&checked.pages, templates.root());
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
    staging.write_all(&files)?;
    staging.commit(&checked.copies)?;
    Ok(build_cache.warning())
}

/// The files made from the whole site rather than one page: home page and section indexes
/// (with `search-index.json`), the sitemap (publish build with an address), `404.html` and
/// the search page, `feed.xml` and `llms.txt`. `serve` writes them through here too.
fn site_files(
    checked: &check::Checked<'_>,
    info: &pages::SiteInfo,
    templates: &Templates,
    nav: &nav::Nav,
    opts: &BuildOptions,
) -> Result<Vec<output::OutFile>, SiteError> {
    let urls = urls::Urls::new(&opts.config);
    let mut files = indexes::indexes(&checked.pages, &checked.intros, info, templates, nav, urls)?;
    if let (Some(base), true) = (&opts.config.base_url, writes_sitemap(opts)) {
        files.push(indexes::sitemap(base, &checked.pages, &checked.intros));
    }
    files.extend(generated::plain_pages(info, templates, nav)?);
    let published: Vec<&content::Entry> = checked
        .pages
        .iter()
        .filter(|p| p.draft_reason.is_none())
        .map(|p| p.entry)
        .collect();
    let (base, root) = (opts.config.base_url.as_deref(), templates.root());
    files.push(generated::feed(&published, info, base, root));
    files.push(generated::llms_txt(&published, info, nav, base, root));
    Ok(files)
}

/// The publish build with a known address lists its pages in sitemap.xml; the preview,
/// whose drafts are `noindex`, has none.
fn writes_sitemap(opts: &BuildOptions) -> bool {
    opts.config.base_url.is_some() && !opts.drafts
}
