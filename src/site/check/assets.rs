//! The files a build copies as they are: the theme's static files (built-in, or the site's
//! `static/` file of the same path; the built-in scripts and stylesheets minified,
//! `theme::shipped`) to the output root, and the assets found under `content/` beside their
//! pages. Listed in the check stage (links may point at them,
//! and SVGs are checked by `sanitize::check_svg`), copied by the write stage.
use std::path::{Path, PathBuf};

use crate::content::Diagnostic;
use crate::content::admit::{Purpose, Refusal, SiteRoot};
use crate::site::layout::Copies;

/// `static/` goes to the output root; content assets mirror their place under content/.
/// Every file is admitted by what it resolves to (`content::admit`): a file that resolves
/// outside the root, into a hidden folder such as `.git/`, to an entry's source, or to
/// something that is not a regular file is a problem, and so is an SVG that fails
/// `sanitize::check_svg`: each would publish what the editorial rule or the script policy
/// keeps out.
pub(crate) fn copies(
    root: &Path,
    assets: &[(PathBuf, PathBuf)],
    problems: &mut Vec<Diagnostic>,
) -> Result<Copies, Diagnostic> {
    let site = SiteRoot::new(root);
    let rel_to_root = |p: &Path| p.strip_prefix(root).unwrap_or(p).to_path_buf();
    let refused = |path: &Path, why: Refusal| {
        Diagnostic::new(rel_to_root(path), 0, why.to_string())
            .help("copy the file itself into the site instead of linking to it, or remove it")
    };
    let mut copies = Vec::new();
    let (theme, refusals) = crate::theme::files(root, "static", None)
        .map_err(|e| Diagnostic::new(Path::new("static"), 0, e.to_string()))?;
    for r in refusals {
        if let crate::theme::ThemeError::Refused { path, why } = r {
            problems.push(refused(&root.join(path), why));
        }
    }
    copies.extend(
        theme
            .into_iter()
            .map(|(rel, src)| (PathBuf::from(&rel), crate::theme::shipped(&rel, src))),
    );
    for (rel, abs) in assets {
        if let Err(why) = site.admit(abs, Purpose::Asset) {
            problems.push(refused(rel, why));
            continue;
        }
        if let Err(d) = check_svg_asset(rel, abs) {
            problems.extend(d);
            continue;
        }
        let under = rel.strip_prefix("content").unwrap_or(rel).to_path_buf();
        copies.push((under, crate::theme::Source::File(abs.clone())));
    }
    Ok(copies)
}

/// An SVG asset must pass the check.
fn check_svg_asset(rel: &Path, abs: &Path) -> Result<(), Vec<Diagnostic>> {
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
