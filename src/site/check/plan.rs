//! The files a build will write, planned in the check stage from the checked pages: their
//! paths, the sections that get an index, and the refusal of two outputs at one path or of
//! a page whose folder is a file.
use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::page::Page;
use crate::content::{Diagnostic, Entry};
use crate::site::layout::{Copies, DIAGRAM_PNG, GENERATED, page_path};
use crate::site::options::BuildOptions;

/// The sections whose index this build writes: those with a shown entry or intro.
pub(crate) fn sections<'a>(pages: &'a [Page], intros: &'a [Page]) -> BTreeSet<&'a str> {
    let of_pages = pages.iter().map(|p| p.entry.section.as_str());
    let of_intros = intros.iter().map(|p| p.entry.slug.as_str());
    of_pages
        .chain(of_intros)
        .filter(|s| !s.is_empty())
        .collect()
}

/// Every file the render stage will write, relative to the output folder.
pub(crate) fn outputs(pages: &[Page], intros: &[Page], opts: &BuildOptions) -> Vec<PathBuf> {
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
    if opts.writes_sitemap() {
        paths.push("sitemap.xml".into());
    }
    paths
}

/// Whether two versions of a shown entry give [`outputs`] and [`collisions`] the same
/// paths and problems: the same file, place (the URL ends in the slug), kind, diagram
/// (drawn or not from it alone, with the same kernels) and field lines.
pub(crate) fn same_outputs(a: &Entry, b: &Entry) -> bool {
    a.file == b.file
        && a.url == b.url
        && a.section == b.section
        && a.kind == b.kind
        && a.meta.slug == b.meta.slug
        && a.meta.diagram == b.meta.diagram
        && a.lines == b.lines
}

/// Pages the build writes itself, by URL, whatever its content: an entry there would be lost.
const GENERATED_PAGES: &[(&str, &str)] = &[("/search/", "the search page")];

/// Two outputs at one path would silently overwrite each other, and a page whose folder is
/// a file (`content/style.css.md` beside `static/style.css`) cannot be written: refuse both,
/// naming the entry or file to rename.
pub(crate) fn collisions(
    root: &Path,
    paths: &[PathBuf],
    copies: &Copies,
    pages: &[Page],
) -> Vec<Diagnostic> {
    // Keyed by the path's bytes: the paths are made by us, one spelling each, and hashing a
    // `Path` takes it apart (serve runs this on every rebuild: `benches/serve_latency.sh`).
    let mut seen: HashMap<&OsStr, Option<PathBuf>> =
        HashMap::with_capacity(paths.len() + copies.len());
    let all = paths
        .iter()
        .map(|p| (p, None))
        .chain(copies.iter().map(|(rel, src)| (rel, Some(src.shown()))));
    let mut problems = Vec::new();
    for (path, src) in all {
        if let Some(first) = seen.insert(path.as_os_str(), src.clone()) {
            let what = |s: Option<&PathBuf>| {
                s.map_or_else(
                    || "a generated page".to_string(),
                    |p| p.display().to_string(),
                )
            };
            problems.push(
                Diagnostic::new(
                    src.as_deref().unwrap_or(path.as_path()),
                    0,
                    format!(
                        "{} would be written twice (by {} and {})",
                        path.display(),
                        what(first.as_ref()),
                        what(src.as_ref())
                    ),
                )
                .help("rename the file, or move the entry so that its URL differs"),
            );
        }
    }
    problems.extend(folder_clashes(root, &seen, pages));
    problems.extend(generated_pages(pages));
    problems
}

/// Entries whose page is one the build writes itself (`content/search.md`).
fn generated_pages(pages: &[Page]) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    for p in pages {
        let Some((_, what)) = GENERATED_PAGES.iter().find(|(g, _)| p.entry.url == *g) else {
            continue;
        };
        let e = &p.entry;
        let (line, field) = match e.meta.slug {
            Some(_) => (e.lines.of("slug"), Some("slug")),
            None => (1, None),
        };
        let d = Diagnostic::new(
            &e.file,
            line,
            format!(
                "its page would be {}, which is {what}: coursegen writes it itself",
                e.url
            ),
        )
        .help("give the entry another slug (or rename the file)");
        problems.push(match field {
            Some(f) => d.field(f),
            None => d,
        });
    }
    problems
}

/// Outputs that need a folder where another output (or a generated file) is a file.
fn folder_clashes(
    root: &Path,
    seen: &HashMap<&OsStr, Option<PathBuf>>,
    pages: &[Page],
) -> Vec<Diagnostic> {
    let by_path = std::cell::OnceCell::new();
    let mut problems = Vec::new();
    for (path, src) in seen {
        let path = Path::new(path);
        let is_file = |a: &Path| {
            let a = a.as_os_str();
            // Generated files sit at the root: only a top-level name can be one.
            let top = !a.as_encoded_bytes().contains(&b'/');
            seen.contains_key(a) || (top && GENERATED.iter().any(|g| a == *g))
        };
        let Some(folder) = path
            .ancestors()
            .skip(1)
            .find(|a| !a.as_os_str().is_empty() && is_file(a))
        else {
            continue;
        };
        let file = match seen.get(folder.as_os_str()) {
            Some(Some(src)) => src.strip_prefix(root).unwrap_or(src).display().to_string(),
            _ => "a file coursegen generates".into(),
        };
        let by_path: &HashMap<PathBuf, &Entry> = by_path.get_or_init(|| {
            (pages.iter())
                .map(|p| (page_path(&p.entry.url), &*p.entry))
                .collect()
        });
        let at = match (by_path.get(path), src) {
            (Some(e), _) if e.meta.slug.is_some() => {
                Diagnostic::new(&e.file, e.lines.of("slug"), "").field("slug")
            }
            (Some(e), _) => Diagnostic::new(&e.file, 1, ""),
            (None, Some(src)) => Diagnostic::new(src.strip_prefix(root).unwrap_or(src), 0, ""),
            (None, None) => Diagnostic::new(path, 0, ""),
        };
        problems.push(Diagnostic {
            message: format!(
                "{} needs a folder `{}`, but that is also {file}",
                path.display(),
                folder.display()
            ),
            help: Some("give the entry another slug (or rename the file) so the two differ".into()),
            ..at
        });
    }
    problems
}
