//! The link check: every site-internal link and image in a body must reach a page or file
//! of this build. External links (with a scheme) are not fetched.
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crate::content::{Diagnostic, Entry};
use crate::markdown::Link;

/// What this build will contain, and which pages exist only as drafts.
pub(super) struct Targets {
    built: HashSet<String>,
    drafts: HashMap<String, PathBuf>,
}

/// File name of the PNG written beside a page that has a diagram.
pub(super) const DIAGRAM_PNG: &str = "diagram.png";

/// File name of the full-size SVG written beside a page that has a diagram.
pub(super) const DIAGRAM_SVG: &str = "diagram.svg";

impl Targets {
    /// Indexes pages (`shown`), left-out drafts, and copied files (paths relative to the output).
    pub(super) fn new<'a>(
        shown: impl Iterator<Item = &'a Entry>,
        left_out: impl Iterator<Item = &'a Entry>,
        files: impl Iterator<Item = PathBuf>,
    ) -> Self {
        let mut built: HashSet<String> = [
            "/".to_string(),
            "/search-index.json".into(),
            "/sitemap.xml".into(),
            "/feed.xml".into(),
            "/llms.txt".into(),
            "/404.html".into(),
            "/search/".into(),
        ]
        .into();
        for e in shown {
            built.insert(e.url.clone());
            if !e.section.is_empty() {
                built.insert(format!("/{}/", e.section));
            }
            if e.meta.diagram.is_some() {
                built.insert(format!("{}{DIAGRAM_PNG}", e.url));
                built.insert(format!("{}{DIAGRAM_SVG}", e.url));
            }
        }
        for f in files {
            built.insert(format!("/{}", f.to_string_lossy().replace('\\', "/")));
        }
        let drafts = left_out.map(|e| (e.url.clone(), e.file.clone())).collect();
        Targets { built, drafts }
    }

    /// Problems with `entry`'s links (lines are body-relative in `links`).
    pub(super) fn check(&self, entry: &Entry, links: &[Link]) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for link in links {
            let Some(path) = internal_path(&entry.url, &link.url) else {
                continue;
            };
            let with_slash = format!("{}/", path.trim_end_matches('/'));
            if self.built.contains(&path) || self.built.contains(&with_slash) {
                continue;
            }
            let line = entry.body_line + link.line - 1;
            let d = match self
                .drafts
                .get(&path)
                .or_else(|| self.drafts.get(&with_slash))
            {
                Some(file) => Diagnostic::new(
                    &entry.file,
                    line,
                    format!(
                        "link to `{}` points at a draft ({}) that this build leaves out",
                        link.url,
                        file.display()
                    ),
                )
                .help("publish that entry too, or link to it once it is published"),
                None => Diagnostic::new(
                    &entry.file,
                    line,
                    format!(
                        "broken link: `{}` is not a page or file of this site",
                        link.url
                    ),
                )
                .help("site links look like /glossary/<slug>/; check the slug"),
            };
            out.push(d);
        }
        out
    }
}

/// The site path a link points to, or `None` for external links and same-page anchors.
fn internal_path(page_url: &str, url: &str) -> Option<String> {
    let url = url.split(['#', '?']).next().unwrap_or("");
    if url.is_empty() || url.starts_with("//") || has_scheme(url) {
        return None;
    }
    let joined = if url.starts_with('/') {
        url.to_string()
    } else {
        format!("{page_url}{url}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let mut path = format!("/{}", parts.join("/"));
    if joined.ends_with('/') && path != "/" {
        path.push('/');
    }
    Some(path)
}

fn has_scheme(url: &str) -> bool {
    match url.split_once(':') {
        Some((scheme, _)) => {
            !scheme.is_empty()
                && !scheme.contains('/')
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_paths() {
        let cases = [
            ("/glossary/warp/", Some("/glossary/warp/")),
            ("/glossary/warp", Some("/glossary/warp")),
            ("../bank/#x", Some("/glossary/bank/")),
            ("img.png", Some("/glossary/lane/img.png")),
            ("https://e.org/x", None),
            ("mailto:a@b", None),
            ("#anchor", None),
            ("//cdn.example/x", None),
        ];
        for (url, want) in cases {
            assert_eq!(
                internal_path("/glossary/lane/", url).as_deref(),
                want,
                "{url}"
            );
        }
    }
}
