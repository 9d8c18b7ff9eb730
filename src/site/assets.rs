//! The files a build copies as they are: `static/` to the output root, and the assets found
//! under `content/` beside their pages. Listed in the check stage (links may point at them,
//! and SVGs are checked by `sanitize::check_svg`), copied by the write stage.
use std::path::{Path, PathBuf};

use super::output::Copies;
use crate::content::Diagnostic;

/// `static/` goes to the output root; content assets mirror their place under content/.
/// Symbolic links inside static/ are copied when they point at a file inside the root, and
/// left out with a warning otherwise (as content/ refuses links that leave the root). A
/// static file that resolves into content/, an asset that resolves to an entry's source, and
/// an SVG that fails `sanitize::check_svg` are problems: each would publish what the
/// editorial rule or the script policy keeps out.
pub(crate) fn copies(
    root: &Path,
    assets: &[(PathBuf, PathBuf)],
    problems: &mut Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Copies, Diagnostic> {
    let canon_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let canon_content = canon_root.join("content");
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
            // The walk follows a link named static/ itself, so resolve every file.
            let target = item.path().canonicalize().ok();
            if target
                .as_ref()
                .is_some_and(|t| t.starts_with(&canon_content))
            {
                problems.push(
                    Diagnostic::new(rel_to_root(item.path()), 0, "resolves into content/: static files may not publish content sources")
                        .help("content assets are published beside their pages; copy the file into static/ if it belongs there"),
                );
                continue;
            }
            if item.path_is_symlink() {
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
        if let Err(d) = check_asset(rel, abs) {
            problems.extend(d);
            continue;
        }
        let under = rel.strip_prefix("content").unwrap_or(rel).to_path_buf();
        copies.push((under, abs.clone()));
    }
    Ok(copies)
}

/// An asset may not be an entry's source under another name, and an SVG must pass the check.
fn check_asset(rel: &Path, abs: &Path) -> Result<(), Vec<Diagnostic>> {
    let target = abs.canonicalize().unwrap_or_else(|_| abs.to_path_buf());
    if target
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"))
    {
        return Err(vec![
            Diagnostic::new(rel, 0, "links to an entry's Markdown source: publishing it would bypass the editorial rule")
                .help("remove the link"),
        ]);
    }
    if !rel
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"))
    {
        return Ok(());
    }
    let text = std::fs::read(abs)
        .map_err(|e| vec![Diagnostic::new(rel, 0, format!("cannot read: {e}"))])?;
    let Ok(text) = String::from_utf8(text) else {
        return Err(vec![Diagnostic::new(
            rel,
            0,
            "an SVG file must be UTF-8 text",
        )]);
    };
    let problems = crate::sanitize::check_svg(&text);
    if problems.is_empty() {
        return Ok(());
    }
    Err(problems
        .into_iter()
        .map(|p| {
            Diagnostic::new(rel, p.line as usize, p.message).help(
                "SVG files are published only when they merely draw; remove the part, or export \
                 as plain SVG (see README, Security)",
            )
        })
        .collect())
}
