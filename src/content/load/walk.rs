//! The walk of `content/`: every entry file and asset, in the order of a walk sorted by
//! name, with what it refused (a symbolic link leaving the root or to a folder) and what
//! it left out (a file that is neither an entry nor an asset type).
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::content::diagnostic::Diagnostic;
use crate::content::entry::Entry;

/// Extensions of files under content/ that are copied beside the pages.
const ASSETS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "svg", "webp", "avif", "ico", "pdf", "mp4", "webm", "csv", "txt",
    "cu", "cuh", "py", "zip",
];

/// The files under `content/`, in the order of a walk sorted by name.
#[derive(Debug, Default)]
pub(super) struct Walked {
    /// Entry files, each with what reading it gave (`None`: to read).
    pub(super) files: Vec<Slot>,
    /// Other files copied as they are: (relative to the root, absolute).
    pub(super) assets: Vec<(PathBuf, PathBuf)>,
    /// Files and folders the walk refused (links leaving the root, unreadable folders…).
    pub(super) problems: Vec<Diagnostic>,
    /// Files left out: neither entries nor assets.
    pub(super) skipped: Vec<Diagnostic>,
}

/// An entry file and what reading it gave.
#[derive(Debug)]
pub(super) struct Slot {
    /// Relative to the root.
    pub(super) rel: PathBuf,
    /// Absolute.
    pub(super) abs: PathBuf,
    /// A symbolic link: read on every load (the watcher may not see its target change).
    pub(super) link: bool,
    /// The entry, or why it failed to load; `None` until read.
    pub(super) result: Option<Result<Arc<Entry>, Vec<Diagnostic>>>,
}

/// Lists entry files and other files (assets) under `content/`, in the order of a walk
/// sorted by name, with what the walk refused and what it left out.
pub(super) fn walk(root: &Path, content: &Path) -> Walked {
    let mut w = Walked::default();
    if !content.is_dir() {
        w.problems.push(
            Diagnostic::new(content.strip_prefix(root).unwrap_or(content), 0, "no content folder")
                .help("run from the site root, pass --root DIR, or create content/glossary/ with `coursegen new glossary <slug>`"),
        );
        return w;
    }
    let canon_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    // Walked unsorted and sorted at the end: walkdir's sort by name takes the name out of
    // the path on every comparison, which cost more than the walk in `benches/build.sh`.
    let walker = walkdir::WalkDir::new(content).into_iter();
    for item in walker.filter_entry(|e| !is_hidden(e.file_name())) {
        let item = match item {
            Ok(item) => item,
            Err(err) => {
                let path = err.path().unwrap_or(content).to_path_buf();
                w.problems.push(Diagnostic::new(
                    rel(root, &path),
                    0,
                    format!("cannot read: {err}"),
                ));
                continue;
            }
        };
        let path = item.path().to_path_buf();
        let relative = rel(root, &path);
        let link = item.path_is_symlink();
        if link {
            match path.canonicalize() {
                Ok(target) if !target.starts_with(&canon_root) => {
                    w.problems.push(
                        Diagnostic::new(
                            relative,
                            0,
                            format!(
                                "symbolic link leaves the site root (it points to {})",
                                target.display()
                            ),
                        )
                        .help("copy the file into content/ instead of linking to it"),
                    );
                    continue;
                }
                Ok(target) if target.is_dir() => {
                    w.problems.push(
                        Diagnostic::new(relative, 0, "symbolic links to folders are not followed")
                            .help("move the folder into content/"),
                    );
                    continue;
                }
                Ok(_) => {}
                Err(err) => {
                    w.problems.push(Diagnostic::new(
                        relative,
                        0,
                        format!("broken symbolic link: {err}"),
                    ));
                    continue;
                }
            }
        } else if item.file_type().is_dir() {
            continue;
        }
        match classify(relative, path) {
            Found::Entry(rel, abs) => w.files.push(Slot {
                rel,
                abs,
                link,
                result: None,
            }),
            Found::Asset(rel, abs) => w.assets.push((rel, abs)),
            Found::Skipped(d) => w.skipped.push(d),
        }
    }
    // The order of a walk sorted by name: siblings by name, a folder's files where the
    // folder sorts.
    w.files.sort_by_cached_key(|s| walk_order(&s.rel));
    w.assets.sort_by_cached_key(|f| walk_order(&f.0));
    w.problems.sort_by_cached_key(|d| walk_order(&d.file));
    w.skipped.sort_by_cached_key(|d| walk_order(&d.file));
    w
}

/// What a file under `content/` is to the site.
pub(super) enum Found {
    /// An entry (`.md`): relative to the root, absolute.
    Entry(PathBuf, PathBuf),
    /// An asset copied beside the pages: relative to the root, absolute.
    Asset(PathBuf, PathBuf),
    /// Neither: left out, with a warning.
    Skipped(Diagnostic),
}

/// Tells an entry from an asset and from what is left out, by the extension.
pub(super) fn classify(relative: PathBuf, path: PathBuf) -> Found {
    let ext = extension(&path).to_ascii_lowercase();
    if ext == "md" {
        Found::Entry(relative, path)
    } else if ASSETS.contains(&ext.as_str()) {
        Found::Asset(relative, path)
    } else {
        // Not published, and said so: an editor backup (`warp.md~`) or a stray export
        // could otherwise carry a draft past the editorial rule.
        Found::Skipped(
            Diagnostic::new(
                relative,
                0,
                "not an entry (.md) nor an asset type coursegen copies; left out of the site",
            )
            .help(format!(
                "assets are copied when their extension is one of: {}",
                ASSETS.join(", ")
            )),
        )
    }
}

/// A key that sorts paths as a walk sorted by name lists them: the path's bytes with
/// every separator as 0, below any byte a name can hold, so that `a/b` sorts before `a-c`
/// as the folder `a` sorts before the file `a-c`. [`walk_order`] collected.
pub(super) fn walk_key(path: &Path) -> impl Iterator<Item = u8> + '_ {
    (path.as_os_str().as_encoded_bytes().iter()).map(|&b| {
        if std::path::is_separator(b.into()) {
            0
        } else {
            b
        }
    })
}

/// [`walk_key`] as a sort key.
fn walk_order(path: &Path) -> Vec<u8> {
    walk_key(path).collect()
}

/// The extension of the path's file name (`""` when it has none or is not UTF-8), as
/// `Path::extension` finds it, from the bytes.
pub(super) fn extension(path: &Path) -> &str {
    let bytes = path.as_os_str().as_encoded_bytes();
    let name_at = (bytes.iter())
        .rposition(|&b| std::path::is_separator(b.into()))
        .map_or(0, |i| i + 1);
    let name = &bytes[name_at..];
    match name.iter().rposition(|&b| b == b'.') {
        Some(dot) if dot > 0 => std::str::from_utf8(&name[dot + 1..]).unwrap_or(""),
        _ => "",
    }
}

pub(super) fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .is_some_and(|n| n.starts_with('.') && n.len() > 1)
}

pub(super) fn rel(root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root).unwrap_or(path).to_path_buf()
}
