//! Writing the output atomically: every file goes into a temporary folder beside `--out`,
//! which is swapped in only when the whole build succeeded — on Linux by one atomic
//! exchange, so the site is never missing. Refuses dangerous `--out`s; cleans up what a
//! killed build left beside `--out`.
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::site::layout::{Copies, MARKER};

pub(crate) mod provenance;

/// Why the output could not be written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OutputError {
    /// `--out` would overwrite or swallow sources.
    #[error("refusing to write output to {out}: it is {what}")]
    Refused {
        /// The requested folder.
        out: PathBuf,
        /// What it collides with.
        what: String,
    },
    /// File-system failure.
    #[error("I/O error at {path}: {error}")]
    Io {
        /// Where it happened.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |error| OutputError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Absolute, `..`-free form of a path that may not exist yet, its longest existing prefix
/// resolved (links followed): what `--out` and the build cache are judged by.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    // Resolve the longest existing prefix so symlinked folders compare correctly.
    let mut existing = abs.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (
            existing.file_name().map(ToOwned::to_owned),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut out = existing.canonicalize().unwrap_or(existing);
    out.extend(rest.into_iter().rev());
    out
}

/// Folders under the site root that the build reads or keeps and so never writes: the
/// sources, the course's own settings (`.coursegen/`, where the allowed-signers file is),
/// git's, and the folder where earlier versions kept the build cache.
const NOT_OUT: &[&str] = &[
    "content",
    "templates",
    "static",
    "kernels",
    "measurements",
    "src",
    ".coursegen",
    ".coursegen-cache",
    ".git",
    ".github",
];

/// Refuses an output folder that is the root, a source folder, the build cache, or a
/// parent of one or inside one; then removes what a killed build left beside it, so a
/// build that goes on to fail leaves no staging folder either.
pub(crate) fn check_out(root: &Path, out: &Path, cache: Option<&Path>) -> Result<(), OutputError> {
    refuse_out(root, out, cache)?;
    let out = absolute(out);
    if let Some(parent) = out.parent() {
        let _lock = lock_folder(parent);
        remove_leftovers(parent, &name_of(&out));
    }
    Ok(())
}

/// [`check_out`]'s judgement, without touching anything.
fn refuse_out(root: &Path, out: &Path, cache: Option<&Path>) -> Result<(), OutputError> {
    let out_abs = absolute(out);
    let root_abs = absolute(root);
    let refuse = |what: String| {
        Err(OutputError::Refused {
            out: out.to_path_buf(),
            what,
        })
    };
    // A committed `public -> /elsewhere` would make a default build replace the folder it
    // names: the output folder is the folder given, never a link to one.
    if std::fs::symlink_metadata(out).is_ok_and(|m| m.file_type().is_symlink()) {
        return refuse(
            "a symbolic link; the build replaces the folder it names, so give that folder itself"
                .into(),
        );
    }
    if out_abs == root_abs || root_abs.starts_with(&out_abs) {
        return refuse("the site root or a folder above it".into());
    }
    for source in NOT_OUT {
        let s = root_abs.join(source);
        if s.starts_with(&out_abs) || out_abs.starts_with(&s) {
            return refuse(format!(
                "the folder {source}/ of the site, or a folder above or inside it; the build replaces --out whole, so give a folder of its own (the default is public/)"
            ));
        }
    }
    if let Some(cache) = cache.map(absolute)
        && (cache.starts_with(&out_abs) || out_abs.starts_with(&cache))
    {
        return refuse(format!(
            "the build cache {} or a folder above or inside it; give the output a folder of its own",
            cache.display()
        ));
    }
    if out_abs.exists() && !out_abs.is_dir() {
        return refuse("an existing file, not a folder".into());
    }
    let listing = std::fs::read_dir(&out_abs).map(|mut items| items.next().is_some());
    match replaceable(listing, || is_marker(&out_abs.join(MARKER))) {
        Ok(()) => Ok(()),
        Err(what) => refuse(what),
    }
}

/// Whether an existing `--out` may be replaced, from its listing (is it non-empty?): when
/// it is empty, missing, or carries our marker. What cannot be listed cannot be known to be
/// ours, so it is never moved aside.
fn replaceable(
    listing: std::io::Result<bool>,
    has_marker: impl FnOnce() -> bool,
) -> Result<(), String> {
    match listing {
        Ok(false) => Ok(()),
        Ok(true) if has_marker() => Ok(()),
        Ok(true) => Err(format!(
            "a folder with files that coursegen did not write (no {MARKER} in it); \
             the build replaces the whole folder, so pick a new or empty one, or remove it first"
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!(
            "a folder that cannot be listed ({e}); fix its permissions or pick another --out"
        )),
    }
}

/// What the marker holds.
const MARKER_TEXT: &str =
    "Written by coursegen build; the next build replaces this folder whole.\n";

/// Whether `path` is a marker as a build writes it: a regular file (not a link to one)
/// holding exactly [`MARKER_TEXT`].
fn is_marker(path: &Path) -> bool {
    std::fs::symlink_metadata(path)
        .is_ok_and(|m| m.is_file() && m.len() == MARKER_TEXT.len() as u64)
        && std::fs::read(path).is_ok_and(|bytes| bytes == MARKER_TEXT.as_bytes())
}

/// A file of the output, relative to the output folder.
pub(crate) struct OutFile {
    /// Relative path (`glossary/warp/index.html`).
    pub(crate) path: PathBuf,
    /// Contents.
    pub(crate) bytes: Vec<u8>,
}

/// A fresh folder beside `out` that receives the build; `commit` swaps it in, and dropping
/// it without committing removes it, leaving `out` untouched.
pub(crate) struct Staging {
    dir: tempfile::TempDir,
    out: PathBuf,
    /// Held until the swap: builds into one parent wait for each other, so the leftovers
    /// one of them removes are never another's live staging folder.
    _lock: Option<std::fs::File>,
    /// Each HTML page written, by its path in the site, with the SHA-256 of its bytes: what
    /// the provenance records (`provenance`). Kept only for a publish build
    /// ([`Staging::recording_pages`]): other builds do not hash their pages.
    pages: Option<std::sync::Mutex<Vec<(String, String)>>>,
}

impl Staging {
    /// Creates the staging folder next to `out` (same file system, so the swap is a rename),
    /// after removing the `.<out>.new-*` and `.<out>.old-*` folders a killed build left.
    pub(crate) fn new(out: &Path) -> Result<Self, OutputError> {
        let out = absolute(out);
        let parent = out.parent().unwrap_or(Path::new("/")).to_path_buf();
        std::fs::create_dir_all(&parent).map_err(io(&parent))?;
        let lock = lock_folder(&parent);
        let name = name_of(&out);
        remove_leftovers(&parent, &name);
        let dir = tempfile::Builder::new()
            .prefix(&format!(".{name}.new-"))
            .tempdir_in(&parent)
            .map_err(io(&parent))?;
        Ok(Staging {
            dir,
            out,
            _lock: lock,
            pages: None,
        })
    }

    /// This staging folder, keeping the SHA-256 of each HTML page written into it, for the
    /// provenance of a publish build ([`Staging::pages`]).
    pub(crate) fn recording_pages(self) -> Self {
        Staging {
            pages: Some(Default::default()),
            ..self
        }
    }

    /// Writes files (their folders created as needed), creating a folder once for files
    /// that follow each other in it, as a page's do (`index.html`, `index.md`, its diagram).
    pub(crate) fn write_all(&self, files: &[OutFile]) -> Result<(), OutputError> {
        let mut made: Option<&Path> = None;
        for file in files {
            let p = self.dir.path().join(&file.path);
            let parent = file.path.parent();
            if parent != made {
                if let Some(d) = p.parent() {
                    std::fs::create_dir_all(d).map_err(io(d))?;
                }
                made = parent;
            }
            std::fs::write(&p, &file.bytes).map_err(io(&p))?;
        }
        if let Some(ledger) = &self.pages {
            let pages: Vec<_> = (files.iter())
                .filter(|f| f.path.extension().is_some_and(|e| e == "html"))
                .map(|f| {
                    let path = crate::canonical::slash_path(&f.path);
                    (path, crate::canonical::sha256_hex(&f.bytes))
                })
                .collect();
            if !pages.is_empty() {
                let mut ledger = ledger.lock().unwrap_or_else(|e| e.into_inner());
                ledger.extend(pages);
            }
        }
        Ok(())
    }

    /// The HTML pages written so far, by path, with their SHA-256: sorted, so that the
    /// provenance does not depend on which thread wrote which page first.
    /// Empty unless the folder is [`Staging::recording_pages`].
    pub(crate) fn pages(&self) -> std::collections::BTreeMap<String, String> {
        let Some(ledger) = &self.pages else {
            return Default::default();
        };
        let ledger = ledger.lock().unwrap_or_else(|e| e.into_inner());
        ledger.iter().cloned().collect()
    }

    /// Copies the static files in, then moves the finished folder into place.
    pub(crate) fn commit(self, copies: &Copies) -> Result<(), OutputError> {
        let marker = self.dir.path().join(MARKER);
        std::fs::write(&marker, MARKER_TEXT).map_err(io(&marker))?;
        copies.par_iter().try_for_each(|(rel, src)| {
            let p = self.dir.path().join(rel);
            if let Some(d) = p.parent() {
                std::fs::create_dir_all(d).map_err(io(d))?;
            }
            match src {
                crate::theme::Source::File(src) => {
                    std::fs::copy(src, &p).map(drop).map_err(io(src))
                }
                crate::theme::Source::Builtin(_, _, bytes) => {
                    std::fs::write(&p, bytes).map_err(io(&p))
                }
            }
        })?;
        swap(self.dir, &self.out)
    }
}

fn name_of(out: &Path) -> String {
    out.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "public".into())
}

/// Takes an exclusive lock on the folder itself (so no lock file is left behind), released
/// when the returned handle is dropped. Elsewhere than Linux builds do not wait for each other.
#[cfg(target_os = "linux")]
fn lock_folder(dir: &Path) -> Option<std::fs::File> {
    let folder = std::fs::File::open(dir).ok()?;
    rustix::fs::flock(&folder, rustix::fs::FlockOperation::LockExclusive).ok()?;
    Some(folder)
}

#[cfg(not(target_os = "linux"))]
fn lock_folder(_: &Path) -> Option<std::fs::File> {
    None
}

/// Removes `.<name>.new-*` and `.<name>.old-*` folders in `parent`: staging folders of a
/// build that was killed before it could clean up. Best effort: a folder that cannot be
/// removed is tried again by the next build.
fn remove_leftovers(parent: &Path, name: &str) {
    let Ok(items) = std::fs::read_dir(parent) else {
        return;
    };
    let (new, old) = (format!(".{name}.new-"), format!(".{name}.old-"));
    for item in items.flatten() {
        let file_name = item.file_name();
        let Some(n) = file_name.to_str() else {
            continue;
        };
        let is_dir = item.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && (n.starts_with(&new) || n.starts_with(&old)) {
            let _ = std::fs::remove_dir_all(item.path());
        }
    }
}

/// Moves the finished folder into place; the old output is removed only after the swap.
fn swap(tmp: tempfile::TempDir, out: &Path) -> Result<(), OutputError> {
    let new = tmp.keep();
    if out.exists() {
        match exchange(&new, out) {
            // `new` now holds the previous site.
            Ok(true) => return std::fs::remove_dir_all(&new).map_err(io(&new)),
            Ok(false) => {}
            Err(error) => {
                let _ = std::fs::remove_dir_all(&new);
                return Err(OutputError::Io {
                    path: out.to_path_buf(),
                    error,
                });
            }
        }
    }
    swap_by_renames(new, out)
}

/// Swaps two folders in one step with `renameat2(RENAME_EXCHANGE)`; `Ok(false)` where the
/// kernel or file system cannot (then the caller falls back to two renames).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(true),
        Err(e) if [rustix::io::Errno::INVAL, rustix::io::Errno::NOSYS].contains(&e) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// Where there is no atomic exchange: the old output moves aside, the new one in, and the
/// old one is removed; between the two renames `out` is briefly missing.
fn swap_by_renames(new: PathBuf, out: &Path) -> Result<(), OutputError> {
    let parent = out.parent().unwrap_or(Path::new("/"));
    let name = name_of(out);
    let old = if out.exists() {
        let old = tempfile::Builder::new()
            .prefix(&format!(".{name}.old-"))
            .tempdir_in(parent)
            .map_err(io(parent))?;
        let old_path = old.keep();
        std::fs::remove_dir(&old_path).map_err(io(&old_path))?;
        std::fs::rename(out, &old_path).map_err(io(out))?;
        Some(old_path)
    } else {
        None
    };
    if let Err(source) = std::fs::rename(&new, out) {
        if let Some(old) = &old {
            let _ = std::fs::rename(old, out);
        }
        let _ = std::fs::remove_dir_all(&new);
        return Err(OutputError::Io {
            path: out.to_path_buf(),
            error: source,
        });
    }
    if let Some(old) = old {
        std::fs::remove_dir_all(&old).map_err(io(&old))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_sources_and_parents() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        for bad in [
            r.to_path_buf(),
            r.join("content"),
            r.join("templates"),
            r.join("static"),
            r.join("content/glossary"),
            r.join("."),
            r.parent().unwrap().to_path_buf(),
        ] {
            assert!(check_out(r, &bad, None).is_err(), "{}", bad.display());
        }
        for good in [r.join("public"), r.join("out/site"), r.join("content-out")] {
            assert!(check_out(r, &good, None).is_ok(), "{}", good.display());
        }
    }

    #[test]
    fn swaps_in_and_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        std::fs::create_dir_all(out.join("stale")).unwrap();
        let files = [OutFile {
            path: "a/index.html".into(),
            bytes: b"hi".to_vec(),
        }];
        let staging = Staging::new(&out).unwrap();
        staging.write_all(&files).unwrap();
        staging.commit(&Vec::new()).unwrap();
        assert_eq!(std::fs::read(out.join("a/index.html")).unwrap(), b"hi");
        assert!(!out.join("stale").exists());
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }

    fn build_once(out: &Path, text: &str) {
        let staging = Staging::new(out).unwrap();
        staging
            .write_all(&[OutFile {
                path: "index.html".into(),
                bytes: text.as_bytes().to_vec(),
            }])
            .unwrap();
        staging.commit(&Vec::new()).unwrap();
    }

    #[test]
    fn readers_never_see_the_site_missing() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        build_once(&out, "0");
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let reader = {
            let (out, done) = (out.clone(), done.clone());
            std::thread::spawn(move || {
                let mut misses = 0;
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    if std::fs::read(out.join("index.html")).is_err() {
                        misses += 1;
                    }
                }
                misses
            })
        };
        for i in 1..200 {
            build_once(&out, &i.to_string());
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        let misses = reader.join().unwrap();
        #[cfg(target_os = "linux")]
        assert_eq!(
            misses, 0,
            "the site was missing {misses} times during 199 swaps"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("index.html")).unwrap(),
            "199"
        );
    }

    #[test]
    fn a_killed_builds_leftovers_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        for leftover in [".public.new-abc", ".public.old-def", ".other.new-x", "keep"] {
            std::fs::create_dir_all(dir.path().join(leftover).join("sub")).unwrap();
        }
        build_once(&out, "x");
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, [".other.new-x", "keep", "public"]);
    }

    #[test]
    fn an_unlistable_out_is_refused() {
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let err = replaceable(Err(denied), || true).unwrap_err();
        assert!(err.contains("cannot be listed"), "{err}");
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(replaceable(Err(missing), || false), Ok(()));
        assert_eq!(replaceable(Ok(false), || false), Ok(()));
        assert_eq!(replaceable(Ok(true), || true), Ok(()));
        assert!(
            replaceable(Ok(true), || false)
                .unwrap_err()
                .contains("did not write")
        );
    }
}
