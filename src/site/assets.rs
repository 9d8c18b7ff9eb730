//! The files a build copies as they are: `static/` to the output root, and the assets found
//! under `content/` beside their pages. Listed in the check stage (links may point at them),
//! copied by the write stage.
use std::path::{Path, PathBuf};

use super::output::Copies;
use crate::content::Diagnostic;

/// `static/` goes to the output root; content assets mirror their place under content/.
/// Symbolic links inside static/ are copied when they point at a file inside the root, and
/// left out with a warning otherwise (as content/ refuses links that leave the root).
pub(super) fn copies(
    root: &Path,
    assets: &[(PathBuf, PathBuf)],
    warnings: &mut Vec<Diagnostic>,
) -> Result<Copies, Diagnostic> {
    let canon_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let rel_to_root = |p: &Path| p.strip_prefix(root).unwrap_or(p).to_path_buf();
    let mut copies = Vec::new();
    let dir = root.join("static");
    if dir.is_dir() {
        for item in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let item = item.map_err(|e| {
                Diagnostic::new(
                    rel_to_root(e.path().unwrap_or(&dir)),
                    0,
                    format!("cannot read: {e}"),
                )
            })?;
            if item.path_is_symlink() {
                let target = item.path().canonicalize().ok();
                if !target
                    .as_ref()
                    .is_some_and(|t| t.starts_with(&canon_root) && t.is_file())
                {
                    warnings.push(
                        Diagnostic::new(rel_to_root(item.path()), 0, "symbolic link to a folder, a missing file or a file outside the site root: not copied")
                            .help("copy the file into static/ instead of linking to it"),
                    );
                    continue;
                }
            } else if !item.file_type().is_file() {
                continue;
            }
            let rel = item.path().strip_prefix(&dir).unwrap_or(item.path());
            copies.push((rel.to_path_buf(), item.path().to_path_buf()));
        }
    }
    for (rel, abs) in assets {
        let under = rel.strip_prefix("content").unwrap_or(rel).to_path_buf();
        copies.push((under, abs.clone()));
    }
    Ok(copies)
}
