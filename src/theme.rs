//! The built-in theme: this repository's `templates/` and `static/`, compiled into the
//! binary with `include_dir`, and `init/`, the files `coursegen init` writes (and
//! `init-gpu/`, those `init --gpu` adds). A site's own
//! file of the same path under `templates/` or `static/` overrides a built-in one; an
//! override is admitted by what it resolves to (`content::admit`), the built-in files are
//! trusted. The built-in scripts and stylesheets ship minified (`shipped`); `static/` and
//! `eject` keep them readable.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use include_dir::{Dir, DirEntry, include_dir};

use crate::content::admit::{Purpose, Refusal, SiteRoot};

/// The built-in templates (`templates/` of this repository at compile time).
static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/templates");
/// The built-in static files (`static/` of this repository at compile time).
static STATIC: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/static");
/// The built-in scripts and stylesheets as the output gets them: `static/*.js` and
/// `static/*.css` minified by build.rs.
static SHIPPED: Dir<'static> = include_dir!("$OUT_DIR/shipped");
/// What `coursegen init` writes (`init/` of this repository at compile time).
static INIT: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/init");
/// What `coursegen init --gpu` adds: the course's measure CI (`init-gpu/`).
static INIT_GPU: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/init-gpu");

/// The two folders of a theme, under the site root.
pub(crate) const FOLDERS: [&str; 2] = ["templates", "static"];

/// Where a theme file comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// The site's own file (absolute path).
    File(PathBuf),
    /// A built-in file: its theme folder (`static`), path in it (`style.css`) and bytes.
    Builtin(&'static str, &'static str, &'static [u8]),
}

impl Source {
    /// The bytes.
    pub(crate) fn read(&self) -> std::io::Result<std::borrow::Cow<'static, [u8]>> {
        match self {
            Source::File(p) => std::fs::read(p).map(Into::into),
            Source::Builtin(_, _, bytes) => Ok((*bytes).into()),
        }
    }

    /// How a diagnostic names it: the file, or `static/x (built-in theme)`.
    pub(crate) fn shown(&self) -> PathBuf {
        match self {
            Source::File(p) => p.clone(),
            Source::Builtin(folder, rel, _) => {
                PathBuf::from(format!("{folder}/{rel} (built-in theme)"))
            }
        }
    }
}

/// Why the site's theme files could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ThemeError {
    /// A folder could not be listed or a file read.
    #[error("cannot read {path}: {error}")]
    Io {
        /// The folder or file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// An override that is not admitted (a link out of the root, a hidden file…).
    #[error("{path} {why}")]
    Refused {
        /// The file, relative to the site root.
        path: PathBuf,
        /// Why.
        why: Refusal,
    },
}

/// Every file of an embedded folder: (path relative to it, with `/`, bytes), sorted.
fn embedded(dir: &'static Dir<'static>) -> Vec<(&'static str, &'static [u8])> {
    fn walk(dir: &'static Dir<'static>, out: &mut Vec<(&'static str, &'static [u8])>) {
        for e in dir.entries() {
            match e {
                DirEntry::Dir(d) => walk(d, out),
                DirEntry::File(f) => {
                    if let Some(p) = f.path().to_str() {
                        out.push((p, f.contents()));
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// The built-in files of one theme folder (`templates` or `static`), by relative path.
pub(crate) fn builtin(folder: &str) -> Vec<(&'static str, &'static [u8])> {
    match folder {
        "templates" => embedded(&TEMPLATES),
        "static" => embedded(&STATIC),
        _ => Vec::new(),
    }
}

/// What the output gets for static file `rel`: a built-in script or stylesheet as the theme
/// ships it (minified: `SHIPPED`), and so is a site's file that is byte for byte the built-in
/// source (what `coursegen eject` wrote, unedited, or this repository's own `static/`); any
/// other file as it is. A site's edited script or stylesheet ships as written.
pub(crate) fn shipped(rel: &str, source: Source) -> Source {
    let (Some(min), Some(readable)) = (SHIPPED.get_file(rel), STATIC.get_file(rel)) else {
        return source;
    };
    let as_builtin = match &source {
        Source::Builtin(..) => true,
        // Lengths first: a large site file is not read to learn it differs.
        Source::File(p) => {
            std::fs::metadata(p).is_ok_and(|m| m.len() == readable.contents().len() as u64)
                && std::fs::read(p).is_ok_and(|own| own == readable.contents())
        }
    };
    match min.path().to_str() {
        Some(path) if as_builtin => Source::Builtin("static", path, min.contents()),
        _ => source,
    }
}

/// The kernel a new course starts with: this repository's own, so the one `init` writes is
/// the one CI compiles and the device measured, never a copy that drifts (an init'd course's
/// CI holds this repository's records fresh for it). Its rewrite on the contract header
/// (tests/fixtures/kernels-on-header/) replaces it with the next measurement.
const INIT_KERNEL: [(&str, &[u8]); 2] = [
    (
        "kernels/warp_divergence.cu",
        include_bytes!("../kernels/warp_divergence.cu"),
    ),
    (
        "kernels/warp_divergence.yaml",
        include_bytes!("../kernels/warp_divergence.yaml"),
    ),
];

/// The files `coursegen init` writes, by path relative to the new course: `init/` and the
/// kernel.
pub(crate) fn init_files() -> Vec<(&'static str, &'static [u8])> {
    let mut files = embedded(&INIT);
    files.extend(INIT_KERNEL);
    files.sort();
    files
}

/// The files `coursegen init --gpu` adds, by path relative to the course: the measure
/// workflow for self-hosted GPU runners and the Slurm script (`init-gpu/`).
pub(crate) fn init_gpu_files() -> Vec<(&'static str, &'static [u8])> {
    embedded(&INIT_GPU)
}

/// The files of theme folder `folder` (`templates` or `static`) a site under `root` uses,
/// by path relative to that folder: the built-in ones, each replaced by the site's own
/// file of the same path, and the site's other files. An absent folder is no error. A site
/// file is admitted by what it resolves to: one that is not comes back among the refusals
/// (and the built-in file, if any, stays). With `only_ext`, files of other extensions are
/// left out (the templates folder may hold notes).
pub(crate) fn files(
    root: &Path,
    folder: &'static str,
    only_ext: Option<&str>,
) -> Result<Files, ThemeError> {
    let mut out: BTreeMap<String, Source> = builtin(folder)
        .into_iter()
        .map(|(rel, bytes)| (rel.to_string(), Source::Builtin(folder, rel, bytes)))
        .collect();
    let mut refused = Vec::new();
    let dir = root.join(folder);
    if !dir.is_dir() {
        return Ok((out, refused));
    }
    let site = SiteRoot::new(root);
    for item in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let item = item.map_err(|e| ThemeError::Io {
            path: e.path().unwrap_or(&dir).to_path_buf(),
            error: e
                .into_io_error()
                .unwrap_or_else(|| std::io::Error::other("loop in folder links")),
        })?;
        if item.file_type().is_dir() {
            continue;
        }
        if only_ext.is_some_and(|x| item.path().extension().is_none_or(|e| e != x)) {
            continue;
        }
        let shown = item.path().strip_prefix(root).unwrap_or(item.path());
        if let Err(why) = site.admit(item.path(), Purpose::Static) {
            refused.push(ThemeError::Refused {
                path: shown.to_path_buf(),
                why,
            });
            continue;
        }
        let rel = item
            .path()
            .strip_prefix(&dir)
            .unwrap_or(item.path())
            .to_string_lossy()
            .replace('\\', "/");
        out.insert(rel, Source::File(item.path().to_path_buf()));
    }
    Ok((out, refused))
}

/// A theme folder's files by relative path, and the site files that were refused.
pub(crate) type Files = (BTreeMap<String, Source>, Vec<ThemeError>);
