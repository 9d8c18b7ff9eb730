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
    #[error("I/O error at {path}: {source}")]
    Io {
        /// Where it happened.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
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
    Ok(())
}

/// A file of the output, relative to the output folder.
pub struct OutFile {
    /// Relative path (`glossary/warp/index.html`).
    pub path: PathBuf,
    /// Contents.
    pub bytes: Vec<u8>,
}

/// Where the static files come from (relative path in the output, source file).
pub type Copies = Vec<(PathBuf, PathBuf)>;

/// Writes `files` and `copies` into a fresh folder beside `out`, then swaps it in.
pub fn write_atomically(out: &Path, files: &[OutFile], copies: &Copies) -> Result<(), OutputError> {
    let out = absolute(out);
    let parent = out.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "public".into());
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}.new-"))
        .tempdir_in(parent)
        .map_err(io(parent))?;
    let dirs: std::collections::BTreeSet<PathBuf> = files
        .iter()
        .map(|f| &f.path)
        .chain(copies.iter().map(|c| &c.0))
        .filter_map(|p| p.parent().map(|d| tmp.path().join(d)))
        .collect();
    for d in &dirs {
        std::fs::create_dir_all(d).map_err(io(d))?;
    }
    files.par_iter().try_for_each(|f| {
        let p = tmp.path().join(&f.path);
        std::fs::write(&p, &f.bytes).map_err(io(&p))
    })?;
    copies.par_iter().try_for_each(|(rel, src)| {
        let p = tmp.path().join(rel);
        std::fs::copy(src, &p).map(drop).map_err(io(src))
    })?;
    swap(tmp, &out, parent, &name)
}

/// Moves the finished folder into place; the old output is removed only after the swap.
fn swap(tmp: tempfile::TempDir, out: &Path, parent: &Path, name: &str) -> Result<(), OutputError> {
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
            source,
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
        let files = vec![OutFile {
            path: "a/index.html".into(),
            bytes: b"hi".to_vec(),
        }];
        write_atomically(&out, &files, &Vec::new()).unwrap();
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
