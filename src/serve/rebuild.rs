//! Incremental rebuilds for the preview, on the build's own stages, each kept between
//! rebuilds and redone only where a change reaches:
//!
//! - **load** looks again only at the paths the watcher named: a file removed leaves the
//!   list, a file added or changed is parsed again; a folder or a symbolic link falls back
//!   to a walk of `content/`; the checks across entries run again when a name, place or
//!   reference changed (`content::load_changed`).
//! - **check** judges, converts and checks again only entries that changed, and holds
//!   every page's links against the site's targets again when those changed; the
//!   site-wide steps (clashing words, the term list, link targets, the output plan and its
//!   collisions, the config's sections) are made again only when an entry changed in what
//!   the step reads of it, or the rest of its inputs did; records and copies are put
//!   together every time: the check stage runs as for `build`, with that work through
//!   `memo::CheckMemo`. So every problem is still found, as `build` would find it.
//! - **render** renders a page again when its entry, its HTML or its draft state changed,
//!   or — when something lists show changed (a title, a category, a page added or gone) —
//!   when its sidebar, breadcrumbs, previous/next or related links differ; the site-wide
//!   files (indexes, feed, llms.txt, 404 and search pages) are rendered again in that case
//!   only. A change to the config, records or kernels reads, checks and renders everything
//!   again; a template change renders everything again.
//!
//! Files are replaced one by one (write beside, rename over), and only when their bytes
//! differ, so a page being served is never half-written. A failed rebuild changes nothing:
//! the last good pages stay, and its changes are kept for the next attempt. The output
//! then holds what `build --drafts --no-search` (or `build --no-search` with `--no-drafts`)
//! writes, less the `.coursegen-output` marker; the tests compare the two.
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use self::changes::{Links, Plan};
use super::memo::CheckMemo;
use crate::config::Config;
use crate::content::load::{Changed, LoadCache};
use crate::content::{self, Entry};
use crate::site::SiteError;
use crate::site::check::bodies::Bodies;
use crate::site::check::diagrams::Drawn;
use crate::site::check::{self, CheckedSite};
use crate::site::options::BuildOptions;
use crate::site::render::Renderer;
use crate::site::render::nav::Nav;
use crate::site::write::OutFile;
use crate::templates::Templates;

mod changes;

/// What changed since the last good build.
#[derive(Debug, Default)]
struct Pending {
    /// Read and check everything again (first build, config, records, kernels, lost events).
    reload: bool,
    /// Render every page again (the above, and templates).
    all: bool,
    /// Templates must be read again.
    templates: bool,
    /// Changed files under content/ and static/, absolute.
    files: BTreeSet<PathBuf>,
}

/// What one successful rebuild did, for the log line.
#[derive(Debug)]
pub(super) struct Done {
    /// Entry pages and indexes rendered.
    pub(super) rendered: usize,
    /// Pages the site has.
    pub(super) pages: usize,
    /// Files written or removed because they changed.
    pub(super) written: usize,
    /// Wall time of the rebuild.
    pub(super) millis: u128,
    /// Wall time of its stages: load, check, render, write (with keeping what the next
    /// rebuild compares with).
    pub(super) stages: [u128; 4],
}

/// One page as the last good build rendered it.
struct Rendered {
    /// Its entry (the same allocation while the entry is unchanged).
    entry: Arc<Entry>,
    /// Its HTML fragments.
    bodies: Arc<Bodies>,
    /// Its diagram.
    diagram: Option<Arc<Drawn>>,
    /// Why it was a draft.
    draft_reason: Option<String>,
    /// The entries its related terms and days named, and whether each was a draft.
    links: Links,
    /// The files it wrote.
    files: Vec<PathBuf>,
}

/// What the last good build rendered: what the next one compares with.
struct Last {
    /// Every entry loaded, in path order.
    entries: Vec<Arc<Entry>>,
    /// The reading order.
    nav: Arc<Nav>,
    /// Entry pages, by URL.
    pages: HashMap<String, Rendered>,
    /// Section intros, by URL: HTML and draft reason (the section indexes show them).
    intros: HashMap<String, (Arc<Bodies>, Option<String>)>,
    /// The files the site-wide pages wrote.
    site_files: Vec<PathBuf>,
    /// The files copied, in order.
    copies: Vec<PathBuf>,
}

/// Keeps what the next rebuild needs: templates, the load cache, the check memo, what the
/// last good build rendered, and a hash of every file in the output.
pub(super) struct Rebuilder {
    root: PathBuf,
    opts: BuildOptions,
    config_file: Option<PathBuf>,
    /// `--base-url`: the address the site is built for, whatever the config says.
    base_url: Option<String>,
    out: PathBuf,
    templates: Option<Templates>,
    loaded: LoadCache,
    memo: CheckMemo,
    last: Option<Last>,
    written: HashMap<PathBuf, u64>,
    pending: Pending,
}

impl Rebuilder {
    /// A rebuilder writing the site under `root` into `out`; its first run builds everything.
    /// `config_file` is `--config`, or `None` for the root's coursegen.toml; `base_url` is
    /// `--base-url` (`None`: the site is built for `/`).
    pub(super) fn new(
        root: &Path,
        opts: BuildOptions,
        config_file: Option<PathBuf>,
        base_url: Option<String>,
        out: &Path,
    ) -> Self {
        Rebuilder {
            root: root.to_path_buf(),
            opts,
            config_file,
            base_url,
            out: out.to_path_buf(),
            templates: None,
            loaded: LoadCache::default(),
            memo: CheckMemo::default(),
            last: None,
            written: HashMap::new(),
            pending: Pending {
                reload: true,
                all: true,
                templates: true,
                files: BTreeSet::new(),
            },
        }
    }

    /// Notes changed paths (absolute; an empty path means "anything may have changed").
    pub(super) fn changed(&mut self, paths: impl IntoIterator<Item = PathBuf>) {
        for p in paths {
            let under = |dir: &str| p.starts_with(self.root.join(dir));
            if p.as_os_str().is_empty()
                || p == self.config_path()
                || under("measurements")
                || under("kernels")
            {
                self.pending.reload = true;
                self.pending.all = true;
            } else if under("templates") || p == self.root.join("static") {
                // A theme folder made or removed whole: every file of the theme may differ.
                self.pending.all = true;
                self.pending.templates = true;
            } else if under("content") || under("static") {
                self.pending.files.insert(p);
            } else {
                // Not a path the watcher should report: do not guess what it affects.
                self.pending.reload = true;
                self.pending.all = true;
            }
        }
    }

    /// The check stage's site-wide steps made afresh since the last call (not kept).
    #[cfg(test)]
    pub(super) fn site_steps_made(&self) -> Vec<&'static str> {
        self.memo.site_steps_made()
    }

    /// The config file this serve reads (and whose changes rebuild every page).
    pub(super) fn config_path(&self) -> PathBuf {
        (self.config_file.clone()).unwrap_or_else(|| self.root.join(crate::config::FILE))
    }

    /// Runs the stages; on success the output is current, on failure it is unchanged and
    /// the problems come back, one line each.
    pub(super) fn rebuild(&mut self) -> Result<Done, Vec<String>> {
        let start = Instant::now();
        // The config is read again on every rebuild; the site is served at `/` whatever
        // its base path, unless `--base-url` names the address to build for.
        let config = Config::load(&self.root, self.config_file.as_deref())
            .map_err(|e| vec![e.to_string()])?;
        let config = match &self.base_url {
            Some(url) => {
                let mut config = config;
                config.override_base_url(url).map_err(|m| vec![m])?;
                config
            }
            None => config.at_domain_root(),
        };
        self.opts.review_max_age_days = config
            .review_max_age_days
            .unwrap_or(crate::editorial::policy::DEFAULT_REVIEW_MAX_AGE_DAYS);
        self.opts.config = config;
        let changed = if self.pending.reload {
            // The memo holds checks made with the old config, records and kernels.
            self.memo = CheckMemo::default();
            Changed::All
        } else {
            let under_root = |p: &PathBuf| p.strip_prefix(&self.root).ok().map(Path::to_path_buf);
            Changed::Paths(self.pending.files.iter().filter_map(under_root).collect())
        };
        let glossary = &self.opts.config.glossary_folder;
        let site = crate::site::load_changed(&self.root, glossary, &mut self.loaded, &changed)
            .map_err(lines)?;
        let loaded = start.elapsed();
        if self.pending.templates || self.templates.is_none() {
            let templates = Templates::load_site(&self.root).map_err(|e| lines(e.into()))?;
            self.templates = Some(templates);
        }
        let checked = check::check_site_with(&self.root, &site, &self.opts, &self.memo);
        self.memo.keep_only_seen();
        let checked =
            checked.map_err(|d| lines(SiteError::Content(crate::content::Diagnostics(d))))?;
        let checked_at = start.elapsed();
        let templates = self.templates.as_ref().expect("loaded above");
        let plan = self.plan(&site, &checked);
        let (files, rendered) = self.render(&checked, templates, &plan).map_err(lines)?;
        let rendered_at = start.elapsed();
        let written = self
            .write(&checked, &files, &plan)
            .map_err(|e| vec![e.to_string()])?;
        self.remember(&site, &checked, plan, &files);
        self.pending = Pending::default();
        let done = start.elapsed();
        // Dropped off the way to the served page: freeing every page and warning of a large
        // site is a good part of a one-entry rebuild (`benches/serve_latency.sh`).
        let pages = checked.report.pages;
        rayon::spawn(move || drop((site, checked, files)));
        Ok(Done {
            rendered,
            pages,
            written,
            millis: done.as_millis(),
            stages: [
                loaded.as_millis(),
                (checked_at - loaded).as_millis(),
                (rendered_at - checked_at).as_millis(),
                (done - rendered_at).as_millis(),
            ],
        })
    }

    /// Renders the pages the plan names, and the site-wide files when it says so.
    fn render(
        &self,
        checked: &CheckedSite,
        templates: &Templates,
        plan: &Plan<'_>,
    ) -> Result<(Rendering, usize), SiteError> {
        let renderer = Renderer::new(&checked.facts, templates, &self.opts, &plan.nav);
        let pages = (plan.dirty.par_iter())
            .map(|(p, _)| renderer.page(p))
            .collect::<Result<Vec<_>, _>>()?;
        let site = match plan.site {
            true => Some(renderer.site_files(checked)?),
            false => None,
        };
        // Pages as the report counts them: entries, section indexes and the home page.
        let indexes = checked.report.pages.saturating_sub(checked.pages.len());
        let rendered = plan.dirty.len() + if site.is_some() { indexes } else { 0 };
        if let (Some(w), _) = renderer.cache_report() {
            eprintln!("{w}");
        }
        Ok((Rendering { pages, site }, rendered))
    }

    /// Writes the files whose bytes changed, copies changed static files and assets, and
    /// removes what the site no longer has. Returns how many files it touched.
    fn write(
        &mut self,
        checked: &CheckedSite,
        files: &Rendering,
        plan: &Plan<'_>,
    ) -> std::io::Result<usize> {
        let result = self.write_files(checked, files, plan);
        if result.is_err() {
            // Part of it may be written: render everything next time (unchanged bytes are
            // not written again).
            self.last = None;
        }
        result
    }

    fn write_files(
        &mut self,
        checked: &CheckedSite,
        files: &Rendering,
        plan: &Plan<'_>,
    ) -> std::io::Result<usize> {
        let mut touched = 0;
        for f in files
            .pages
            .iter()
            .flatten()
            .chain(files.site.iter().flatten())
        {
            let h = hash(&f.bytes);
            if self.written.get(&f.path) != Some(&h) {
                replace(&self.out.join(&f.path), &f.bytes)?;
                self.written.insert(f.path.clone(), h);
                touched += 1;
            }
        }
        let watched = ["content", "static"].map(|d| self.root.join(d));
        for (rel, src) in &checked.copies {
            // Files outside the watched folders (a code block's `file=`) may change unseen;
            // a built-in theme file is compared every time (an override of it may be gone).
            let due = match src {
                crate::theme::Source::File(src) => {
                    !watched.iter().any(|w| src.starts_with(w)) || self.pending.files.contains(src)
                }
                crate::theme::Source::Builtin(..) => true,
            };
            if self.pending.all || due || !self.written.contains_key(rel) {
                let bytes = src.read()?;
                let h = hash(&bytes);
                if self.written.get(rel) != Some(&h) {
                    replace(&self.out.join(rel), &bytes)?;
                    self.written.insert(rel.clone(), h);
                    touched += 1;
                }
            }
        }
        let gone = self.gone(checked, files, plan);
        for rel in gone {
            self.written.remove(&rel);
            match std::fs::remove_file(self.out.join(&rel)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => touched += 1,
            }
        }
        Ok(touched)
    }

    /// The files of the output that nothing writes any more. Only files whose owner (a
    /// page, the site-wide pages, a copy) stopped writing them are looked at, unless
    /// there is no last build to compare with.
    fn gone(&self, checked: &CheckedSite, files: &Rendering, plan: &Plan<'_>) -> Vec<PathBuf> {
        let paths = |f: &[OutFile]| f.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
        let mut candidates: Vec<PathBuf> = Vec::new();
        match &self.last {
            None => candidates.extend(self.written.keys().cloned()),
            Some(last) => {
                for ((p, _), now) in plan.dirty.iter().zip(&files.pages) {
                    if let Some(was) = last.pages.get(&p.entry.url) {
                        let now = paths(now);
                        candidates.extend(was.files.iter().filter(|f| !now.contains(f)).cloned());
                    }
                }
                if plan.listed {
                    let urls: HashSet<&str> = (checked.pages.iter())
                        .map(|p| p.entry.url.as_str())
                        .collect();
                    for (url, was) in &last.pages {
                        if !urls.contains(url.as_str()) {
                            candidates.extend(was.files.iter().cloned());
                        }
                    }
                }
                if let Some(site) = &files.site {
                    let now = paths(site);
                    let old = last.site_files.iter().filter(|f| !now.contains(f));
                    candidates.extend(old.cloned());
                }
                if last.copies.len() != checked.copies.len()
                    || (last.copies.iter().zip(&checked.copies)).any(|(a, b)| *a != b.0)
                {
                    let now: HashSet<&PathBuf> = checked.copies.iter().map(|c| &c.0).collect();
                    let old = last.copies.iter().filter(|f| !now.contains(f));
                    candidates.extend(old.cloned());
                }
            }
        }
        if candidates.is_empty() {
            return candidates;
        }
        // What the output keeps: every page's files (as rendered now, or as last time),
        // the site-wide files and the copies.
        let mut keep: HashSet<&PathBuf> = HashSet::new();
        let fresh: HashSet<&str> = (plan.dirty.iter())
            .map(|(p, _)| p.entry.url.as_str())
            .collect();
        if let Some(last) = &self.last {
            for p in &checked.pages {
                if let Some(was) = last.pages.get(&p.entry.url)
                    && !fresh.contains(p.entry.url.as_str())
                {
                    keep.extend(was.files.iter());
                }
            }
            if files.site.is_none() {
                keep.extend(last.site_files.iter());
            }
        }
        let rendered = files
            .pages
            .iter()
            .flatten()
            .chain(files.site.iter().flatten());
        keep.extend(rendered.map(|f| &f.path));
        keep.extend(checked.copies.iter().map(|c| &c.0));
        candidates.retain(|c| !keep.contains(c) && self.written.contains_key(c));
        candidates.sort();
        candidates.dedup();
        candidates
    }

    /// Keeps what this good build rendered, for the next rebuild to compare with.
    fn remember(
        &mut self,
        site: &content::Site,
        checked: &CheckedSite,
        plan: Plan<'_>,
        files: &Rendering,
    ) {
        let mut last = self.last.take();
        let mut fresh: HashMap<&str, Rendered> = HashMap::with_capacity(plan.dirty.len());
        for ((p, links), f) in plan.dirty.into_iter().zip(&files.pages) {
            let rendered = Rendered {
                entry: Arc::clone(&p.entry),
                bodies: p.bodies.clone(),
                diagram: p.diagram.clone(),
                draft_reason: p.draft_reason.clone(),
                links,
                files: f.iter().map(|f| f.path.clone()).collect(),
            };
            fresh.insert(p.entry.url.as_str(), rendered);
        }
        let pages = match (plan.listed, last.as_mut()) {
            // The same pages as last time: replace those rendered again.
            (false, Some(last)) => {
                let mut pages = std::mem::take(&mut last.pages);
                for (url, rendered) in fresh {
                    pages.insert(url.to_string(), rendered);
                }
                pages
            }
            (_, was) => {
                let mut was = was.map(|l| std::mem::take(&mut l.pages));
                let mut pages = HashMap::with_capacity(checked.pages.len());
                for p in &checked.pages {
                    let url = p.entry.url.as_str();
                    let kept = was.as_mut().and_then(|w| w.remove(url));
                    match fresh.remove(url).or(kept) {
                        Some(rendered) => pages.insert(url.to_string(), rendered),
                        // Neither rendered now nor before (cannot happen): render all next time.
                        None => return,
                    };
                }
                pages
            }
        };
        let site_files = match (&files.site, last) {
            (Some(files), _) => files.iter().map(|f| f.path.clone()).collect(),
            (None, Some(last)) => last.site_files,
            (None, None) => return,
        };
        self.last = Some(Last {
            entries: site.entries.clone(),
            nav: plan.nav,
            pages,
            intros: (checked.intros.iter())
                .map(|p| {
                    let shown = (p.bodies.clone(), p.draft_reason.clone());
                    (p.entry.url.clone(), shown)
                })
                .collect(),
            site_files,
            copies: checked.copies.iter().map(|c| c.0.clone()).collect(),
        });
    }
}

/// What one rebuild rendered: each dirty page's files (in the plan's order), and the
/// site-wide files when rendered.
struct Rendering {
    pages: Vec<Vec<OutFile>>,
    site: Option<Vec<OutFile>>,
}

fn hash(bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// Writes `bytes` beside `path` and renames it over, so a reader sees the old file or the
/// new one, never a part.
fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(".new-").tempfile_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A failed build's problems, one line each ("file:line: message …").
fn lines(e: SiteError) -> Vec<String> {
    match e {
        SiteError::Content(d) => d.0.iter().map(ToString::to_string).collect(),
        other => vec![other.to_string()],
    }
}
