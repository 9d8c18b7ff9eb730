//! The files a build will write, planned in the check stage from the checked pages: their
//! paths, the sections that get an index, and the refusal of two outputs at one path.
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::BuildOptions;
use super::diagrams::DIAGRAM_PNG;
use super::output::Copies;
use super::pages::Page;
use crate::content::Diagnostic;

/// `/glossary/warp/` → `glossary/warp/index.html`.
pub(super) fn page_path(url: &str) -> PathBuf {
    Path::new(url.trim_matches('/')).join("index.html")
}

/// The sections whose index this build writes: those with a shown entry or intro.
pub(super) fn sections<'a>(pages: &'a [Page<'_>], intros: &'a [Page<'_>]) -> BTreeSet<&'a str> {
    let of_pages = pages.iter().map(|p| p.entry.section.as_str());
    let of_intros = intros.iter().map(|p| p.entry.slug.as_str());
    of_pages
        .chain(of_intros)
        .filter(|s| !s.is_empty())
        .collect()
}

/// Every file the render stage will write, relative to the output folder.
pub(super) fn outputs(
    pages: &[Page<'_>],
    intros: &[Page<'_>],
    opts: &BuildOptions,
) -> Vec<PathBuf> {
    let mut paths = Vec::with_capacity(pages.len() * 2 + 8);
    for p in pages {
        paths.push(page_path(&p.entry.url));
        if p.diagram.is_some() {
            paths.push(Path::new(p.entry.url.trim_matches('/')).join(DIAGRAM_PNG));
        }
    }
    paths.extend(
        sections(pages, intros)
            .into_iter()
            .map(|s| page_path(&format!("/{s}/"))),
    );
    paths.extend(["index.html".into(), "search-index.json".into()]);
    if super::writes_sitemap(opts) {
        paths.push("sitemap.xml".into());
    }
    paths
}

/// Two outputs at one path would silently overwrite each other: refuse instead.
pub(super) fn collisions(paths: &[PathBuf], copies: &Copies) -> Vec<Diagnostic> {
    let mut seen: HashMap<&Path, Option<&PathBuf>> =
        HashMap::with_capacity(paths.len() + copies.len());
    let all = paths
        .iter()
        .map(|p| (p, None))
        .chain(copies.iter().map(|(rel, src)| (rel, Some(src))));
    let mut problems = Vec::new();
    for (path, src) in all {
        if let Some(first) = seen.insert(path, src) {
            let what = |s: Option<&PathBuf>| {
                s.map_or_else(
                    || "a generated page".to_string(),
                    |p| p.display().to_string(),
                )
            };
            problems.push(
                Diagnostic::new(
                    src.map_or(path.as_path(), |p| p.as_path()),
                    0,
                    format!(
                        "{} would be written twice (by {} and {})",
                        path.display(),
                        what(first),
                        what(src)
                    ),
                )
                .help("rename the file, or move the entry so that its URL differs"),
            );
        }
    }
    problems
}
