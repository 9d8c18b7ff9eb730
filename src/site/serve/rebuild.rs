//! Incremental rebuilds for the preview, on the build's own stages: load and check run on
//! the whole site (so every problem is still found, as `build` would), but render writes
//! only what a change can affect — the changed entries, the entries that name them in
//! `related:`/`appears_in:`, and the indexes — while a change to templates, records or
//! kernels re-renders every page and a change under `static/` recopies only what changed.
//! Files are replaced one by one (write beside, rename over), and only when their bytes
//! differ, so a page being served is never half-written. A failed rebuild changes nothing:
//! the last good pages stay, and its changes are kept for the next attempt.
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::config::Config;
use crate::site::check::Checked;
use crate::site::output::OutFile;
use crate::site::raster_cache::RasterCache;
use crate::site::render::{self, RenderCtx};
use crate::site::{BuildOptions, SiteError, check, indexes, nav, pages, plan, urls};
use crate::templates::Templates;

/// What changed since the last good build.
#[derive(Debug, Default)]
struct Pending {
    /// Re-render every page (first build, config, templates, records, kernels, lost events).
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
}

/// Keeps what the next rebuild needs: templates, and a hash of every file it wrote.
pub(super) struct Rebuilder {
    root: PathBuf,
    opts: BuildOptions,
    config_file: Option<PathBuf>,
    out: PathBuf,
    templates: Option<Templates>,
    written: HashMap<PathBuf, u64>,
    pending: Pending,
}

impl Rebuilder {
    /// A rebuilder writing the site under `root` into `out`; its first run builds everything.
    /// `config_file` is `--config`, or `None` for the root's coursegen.toml.
    pub(super) fn new(
        root: &Path,
        opts: BuildOptions,
        config_file: Option<PathBuf>,
        out: &Path,
    ) -> Self {
        Rebuilder {
            root: root.to_path_buf(),
            opts,
            config_file,
            out: out.to_path_buf(),
            templates: None,
            written: HashMap::new(),
            pending: Pending {
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
                self.pending.all = true;
            } else if under("templates") {
                self.pending.all = true;
                self.pending.templates = true;
            } else if under("content") || under("static") {
                self.pending.files.insert(p);
            }
        }
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
        // its base path.
        let config = Config::load(&self.root, self.config_file.as_deref())
            .map_err(|e| vec![e.to_string()])?
            .at_domain_root();
        self.opts.review_max_age_days = config
            .review_max_age_days
            .unwrap_or(crate::policy::DEFAULT_REVIEW_MAX_AGE_DAYS);
        self.opts.config = config;
        let site = super::super::load(&self.root).map_err(lines)?;
        if self.pending.templates || self.templates.is_none() {
            self.templates =
                Some(Templates::load(&self.root.join("templates")).map_err(|e| lines(e.into()))?);
        }
        let templates = self.templates.as_ref().expect("loaded above");
        let checked = check::check(&self.root, &site, &self.opts)
            .map_err(|d| lines(SiteError::Content(crate::content::Diagnostics(d))))?;
        let (files, rendered) = self.render(&checked, templates).map_err(lines)?;
        let written = self
            .write(&checked, files)
            .map_err(|e| vec![e.to_string()])?;
        self.pending = Pending::default();
        Ok(Done {
            rendered,
            pages: checked.report.pages,
            written,
            millis: start.elapsed().as_millis(),
        })
    }

    /// Renders the pages a change can affect, and every index.
    fn render(
        &self,
        checked: &Checked<'_>,
        templates: &Templates,
    ) -> Result<(Vec<OutFile>, usize), SiteError> {
        let info = pages::SiteInfo::new(&self.opts.config, self.opts.drafts);
        let raster_cache = RasterCache::new(self.opts.cache_dir.clone());
        let nav = nav::Nav::new(&checked.pages);
        let rc = RenderCtx {
            nav: &nav,
            raster_cache: &raster_cache,
            info: &info,
            templates,
            checked,
            opts: &self.opts,
        };
        let stems: HashSet<&str> = (self.pending.files.iter())
            .filter_map(|p| p.file_stem()?.to_str())
            .collect();
        let dirty: Vec<_> = (checked.pages.iter())
            .filter(|p| {
                let m = &p.entry.meta;
                self.pending.all
                    || self.pending.files.contains(&self.root.join(&p.entry.file))
                    || m.related
                        .iter()
                        .chain(&m.appears_in)
                        .any(|s| stems.contains(s.as_str()))
                    || !self.written.contains_key(&plan::page_path(&p.entry.url))
            })
            .collect();
        let mut files = dirty
            .par_iter()
            .map(|p| render::page(p, rc).map(|(files, _search_record)| files))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect::<Vec<_>>();
        let indexes = indexes::indexes(
            &checked.pages,
            &checked.intros,
            &info,
            templates,
            &nav,
            urls::Urls::new(&self.opts.config),
        )?;
        let rendered = dirty.len()
            + indexes
                .iter()
                .filter(|f| f.path.ends_with("index.html"))
                .count();
        files.extend(indexes);
        if let Some(w) = raster_cache.warning() {
            eprintln!("{w}");
        }
        Ok((files, rendered))
    }

    /// Writes the files whose bytes changed, copies changed static files and assets, and
    /// removes what the site no longer has. Returns how many files it touched.
    fn write(&mut self, checked: &Checked<'_>, files: Vec<OutFile>) -> std::io::Result<usize> {
        let mut keep: HashSet<PathBuf> = plan::outputs(&checked.pages, &checked.intros, &self.opts)
            .into_iter()
            .collect();
        let mut touched = 0;
        for f in files {
            let h = hash(&f.bytes);
            if self.written.get(&f.path) != Some(&h) {
                replace(&self.out.join(&f.path), &f.bytes)?;
                self.written.insert(f.path, h);
                touched += 1;
            }
        }
        for (rel, src) in &checked.copies {
            keep.insert(rel.clone());
            if self.pending.all
                || self.pending.files.contains(src)
                || !self.written.contains_key(rel)
            {
                replace(&self.out.join(rel), &std::fs::read(src)?)?;
                self.written.insert(rel.clone(), 0);
                touched += 1;
            }
        }
        let gone: Vec<PathBuf> = (self.written.keys())
            .filter(|p| !keep.contains(*p))
            .cloned()
            .collect();
        for rel in gone {
            self.written.remove(&rel);
            match std::fs::remove_file(self.out.join(&rel)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => touched += 1,
            }
        }
        Ok(touched)
    }
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
