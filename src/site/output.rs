//! Writing the output atomically: every file goes into a temporary folder beside `--out`,
//! which is swapped in only when the whole build succeeded. Refuses dangerous `--out`s.
use std::path::{Path, PathBuf};

use rayon::prelude::*;

/// Why the output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
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

/// Absolute, `..`-free form of a path that may not exist yet.
fn absolute(path: &Path) -> PathBuf {
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

/// Refuses an output folder that is the root, a source folder, or a parent of one.
pub fn check_out(root: &Path, out: &Path) -> Result<(), OutputError> {
    let out_abs = absolute(out);
    let root_abs = absolute(root);
    let refuse = |what: String| {
        Err(OutputError::Refused {
            out: out.to_path_buf(),
            what,
        })
    };
    if out_abs == root_abs || root_abs.starts_with(&out_abs) {
        return refuse("the site root or a folder above it".into());
    }
    for source in [
        "content",
        "templates",
        "static",
        "kernels",
        "measurements",
        "src",
    ] {
        let s = root_abs.join(source);
        if s.starts_with(&out_abs) || out_abs.starts_with(&s) {
            return refuse(format!(
                "the source folder {source}/ or a folder above or inside it"
            ));
        }
    }
    if out_abs.exists() && !out_abs.is_dir() {
        return refuse("an existing file, not a folder".into());
    }
    let foreign = std::fs::read_dir(&out_abs)
        .map(|mut items| items.next().is_some() && !out_abs.join(MARKER).is_file())
        .unwrap_or(false);
    if foreign {
        return refuse(format!(
            "a folder with files that coursegen did not write (no {MARKER} in it); \
             the build replaces the whole folder, so pick a new or empty one, or remove it first"
        ));
    }
    Ok(())
}

/// Written into every output folder, so that a later build knows it may replace it.
pub const MARKER: &str = ".coursegen-output";

/// A file of the output, relative to the output folder.
pub struct OutFile {
    /// Relative path (`glossary/warp/index.html`).
    pub path: PathBuf,
    /// Contents.
    pub bytes: Vec<u8>,
}

/// Where the static files come from (relative path in the output, source file).
pub type Copies = Vec<(PathBuf, PathBuf)>;

/// A fresh folder beside `out` that receives the build; `commit` swaps it in, and dropping
/// it without committing removes it, leaving `out` untouched.
pub struct Staging {
    dir: tempfile::TempDir,
    out: PathBuf,
}

impl Staging {
    /// Creates the staging folder next to `out` (same file system, so the swap is a rename).
    pub fn new(out: &Path) -> Result<Self, OutputError> {
        let out = absolute(out);
        let parent = out.parent().unwrap_or(Path::new("/")).to_path_buf();
        std::fs::create_dir_all(&parent).map_err(io(&parent))?;
        let dir = tempfile::Builder::new()
            .prefix(&format!(".{}.new-", name_of(&out)))
            .tempdir_in(&parent)
            .map_err(io(&parent))?;
        Ok(Staging { dir, out })
    }

    /// Writes one file (its folders created as needed). Safe to call from many threads.
    pub fn write(&self, file: &OutFile) -> Result<(), OutputError> {
        let p = self.dir.path().join(&file.path);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(io(d))?;
        }
        std::fs::write(&p, &file.bytes).map_err(io(&p))
    }

    /// Copies the static files in, then moves the finished folder into place.
    pub fn commit(self, copies: &Copies) -> Result<(), OutputError> {
        let marker = self.dir.path().join(MARKER);
        std::fs::write(
            &marker,
            "Written by coursegen build; the next build replaces this folder whole.\n",
        )
        .map_err(io(&marker))?;
        copies.par_iter().try_for_each(|(rel, src)| {
            let p = self.dir.path().join(rel);
            if let Some(d) = p.parent() {
                std::fs::create_dir_all(d).map_err(io(d))?;
            }
            std::fs::copy(src, &p).map(drop).map_err(io(src))
        })?;
        swap(self.dir, &self.out)
    }
}

fn name_of(out: &Path) -> String {
    out.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "public".into())
}

/// Moves the finished folder into place; the old output is removed only after the swap.
fn swap(tmp: tempfile::TempDir, out: &Path) -> Result<(), OutputError> {
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
    let new = tmp.keep();
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
            assert!(check_out(r, &bad).is_err(), "{}", bad.display());
        }
        for good in [r.join("public"), r.join("out/site"), r.join("content-out")] {
            assert!(check_out(r, &good).is_ok(), "{}", good.display());
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
        files.iter().try_for_each(|f| staging.write(f)).unwrap();
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
}
