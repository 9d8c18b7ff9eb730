//! The pages and files a build makes besides the entries: home page, section indexes,
//! search index, sitemap; the static files to copy; and the check that no two outputs
//! share a path.
use std::path::{Path, PathBuf};

use super::SiteError;
use super::output::{self, OutFile, OutputError};
use super::pages::{self, HomeCtx, IndexItem, SectionCtx, SiteInfo};
use crate::content::{Diagnostic, Diagnostics, Entry};
use crate::markdown::RenderOptions;
use crate::templates::Templates;

/// `/glossary/warp/` → `glossary/warp/index.html`.
pub(super) fn page_path(url: &str) -> PathBuf {
    Path::new(url.trim_matches('/')).join("index.html")
}

/// The home page, one index per section, and the search index.
pub(super) fn indexes(
    shown: &[(&Entry, Option<&str>)],
    intros: &[(&Entry, Option<&str>)],
    info: &SiteInfo,
    templates: &Templates,
    nav: &super::nav::Nav,
) -> Result<Vec<OutFile>, SiteError> {
    let mut by_section: std::collections::BTreeMap<&str, Vec<(Option<String>, IndexItem)>> =
        Default::default();
    for (e, reason) in shown {
        let item = IndexItem {
            term: e.meta.term.clone().unwrap_or_else(|| e.meta.title.clone()),
            title: e.meta.title.clone(),
            summary: e.meta.summary.clone(),
            url: e.url.clone(),
            draft: reason.is_some(),
        };
        by_section
            .entry(e.section.as_str())
            .or_default()
            .push((e.meta.category.clone(), item));
    }
    let mut files = Vec::new();
    let mut sections = Vec::new();
    let mut search = Vec::new();
    let mut pages_at_top = by_section.remove("").unwrap_or_default();
    pages_at_top.sort_by(|a, b| a.1.title.cmp(&b.1.title));
    for (section, items) in by_section {
        let intro = intros
            .iter()
            .find(|(e, _)| e.slug == section)
            .map(|(e, _)| *e);
        let title = intro.map_or_else(|| pages::section_title(section), |e| e.meta.title.clone());
        let intro_html = intro.map(|e| {
            let opts = RenderOptions { highlight: true };
            crate::markdown::render(&e.body, opts, &mut Default::default()).html
        });
        let url = format!("/{section}/");
        sections.push(pages::SectionLink {
            title: title.clone(),
            url: url.clone(),
            count: items.len(),
        });
        search.extend(items.iter().map(|(_, i)| i.clone()));
        let ctx = SectionCtx {
            site: info.clone(),
            section: section.into(),
            title: title.clone(),
            url: url.clone(),
            intro_html,
            groups: pages::groups(items, section == crate::content::load::DAYS),
            nav: nav.page(&url, &title),
        };
        files.push(OutFile {
            path: page_path(&url),
            bytes: templates.render("section.html", &ctx)?.into_bytes(),
        });
    }
    let home = HomeCtx {
        site: info.clone(),
        url: "/".into(),
        sections,
        pages: pages_at_top.into_iter().map(|(_, i)| i).collect(),
        nav: nav.page("/", &info.title),
        overview: nav.overview(),
    };
    files.push(OutFile {
        path: "index.html".into(),
        bytes: templates.render("index.html", &home)?.into_bytes(),
    });
    let json = serde_json::to_vec(&search).expect("index items serialise");
    files.push(OutFile {
        path: "search-index.json".into(),
        bytes: json,
    });
    Ok(files)
}

/// Two outputs at one path would silently overwrite each other: refuse instead.
pub(super) fn check_collisions(
    paths: &[PathBuf],
    copies: &output::Copies,
) -> Result<(), SiteError> {
    let mut seen = std::collections::HashMap::with_capacity(paths.len() + copies.len());
    let all = paths
        .iter()
        .map(|p| (p, None))
        .chain(copies.iter().map(|(rel, src)| (rel, Some(src))));
    let mut problems = Vec::new();
    for (path, src) in all {
        if let Some(first) = seen.insert(path.clone(), src) {
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
    if problems.is_empty() {
        Ok(())
    } else {
        Err(SiteError::Content(Diagnostics(problems)))
    }
}

/// sitemap.xml: the home page, section indexes and every published entry, absolute URLs.
pub(super) fn sitemap(base: &str, shown: &[(&Entry, Option<&str>)]) -> OutFile {
    let base = base.trim_end_matches('/');
    let mut urls: std::collections::BTreeSet<String> = ["/".to_string()].into();
    for (e, _) in shown {
        if !e.section.is_empty() {
            urls.insert(format!("/{}/", e.section));
        }
        urls.insert(e.url.clone());
    }
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for u in urls {
        xml.push_str(&format!(
            "  <url><loc>{}</loc></url>\n",
            crate::markdown::escape(&format!("{base}{u}"))
        ));
    }
    xml.push_str("</urlset>\n");
    OutFile {
        path: "sitemap.xml".into(),
        bytes: xml.into_bytes(),
    }
}

/// `static/` goes to the output root; content assets mirror their place under content/.
/// Symbolic links inside static/ are copied when they point at a file inside the root, and
/// left out with a warning otherwise (as content/ refuses links that leave the root).
pub(super) fn static_copies(
    root: &Path,
    assets: &[(PathBuf, PathBuf)],
    warnings: &mut Vec<Diagnostic>,
) -> Result<output::Copies, SiteError> {
    let canon_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut copies = Vec::new();
    let dir = root.join("static");
    if dir.is_dir() {
        for item in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let item = item.map_err(|e| OutputError::Io {
                path: e.path().unwrap_or(&dir).to_path_buf(),
                error: e
                    .into_io_error()
                    .unwrap_or_else(|| std::io::Error::other("loop in folder links")),
            })?;
            let rel_to_root = item.path().strip_prefix(root).unwrap_or(item.path());
            if item.path_is_symlink() {
                let target = item.path().canonicalize().ok();
                if !target
                    .as_ref()
                    .is_some_and(|t| t.starts_with(&canon_root) && t.is_file())
                {
                    warnings.push(
                        Diagnostic::new(rel_to_root, 0, "symbolic link to a folder, a missing file or a file outside the site root: not copied")
                            .help("copy the file into static/ instead of linking to it"),
                    );
                    continue;
                }
            } else if !item.file_type().is_file() {
                continue;
            }
            {
                let rel = item
                    .path()
                    .strip_prefix(&dir)
                    .unwrap_or(item.path())
                    .to_path_buf();
                copies.push((rel, item.path().to_path_buf()));
            }
        }
    }
    for (rel, abs) in assets {
        let under = rel.strip_prefix("content").unwrap_or(rel).to_path_buf();
        copies.push((under, abs.clone()));
    }
    Ok(copies)
}
