//! The link check: every site-internal link and image in a body must reach a page or file
//! of this build. External links (with a scheme) are not fetched.
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crate::content::{Diagnostic, Entry};
use crate::markdown::Link;
use crate::site::layout::{DIAGRAM_PNG, DIAGRAM_SVG};

/// What this build will contain, and which pages exist only as drafts. Equal targets give
/// every link the same verdict (serve keeps link problems while the targets stay equal).
#[derive(PartialEq)]
pub(crate) struct Targets {
    built: HashSet<String>,
    drafts: HashMap<String, PathBuf>,
    /// Entries the editorial rule refused: their file and the first reason, in a few words.
    refused: HashMap<String, (PathBuf, String)>,
    /// For `links.external_prefixes` (same domain, outside this site: not checked) and
    /// the base path (to explain a link written with it).
    config: crate::config::Config,
    /// Each shown entry's words (term, aliases and their plural and hyphenated forms) as
    /// slugs, to the entry's URL and term: a link to `/glossary/warps/` is told of
    /// `/glossary/warp/`.
    words: HashMap<String, (String, String)>,
}

/// Whether two versions of an entry give [`Targets::new`] the same targets, wherever it
/// lists them (shown, left out or refused): the same file, URL, section and diagram files,
/// and the same words (term and aliases) a broken link's help may name.
pub(crate) fn same_targets(a: &Entry, b: &Entry) -> bool {
    a.file == b.file
        && a.url == b.url
        && a.section == b.section
        && a.meta.diagram.is_some() == b.meta.diagram.is_some()
        && a.meta.term == b.meta.term
        && a.meta.aliases == b.meta.aliases
}

impl Targets {
    /// Indexes pages (`shown`), left-out drafts, refused entries (with their first
    /// problem), and copied files (paths relative to the output); `/sitemap.xml` only when
    /// this build writes one.
    pub(crate) fn new<'a>(
        shown: impl Iterator<Item = &'a Entry>,
        left_out: impl Iterator<Item = &'a Entry>,
        refused: impl Iterator<Item = (&'a Entry, Option<&'a Diagnostic>)>,
        files: impl Iterator<Item = PathBuf>,
        unloaded: &[String],
        config: &crate::config::Config,
        sitemap: bool,
    ) -> Self {
        let mut built: HashSet<String> = [
            "/".to_string(),
            "/search-index.json".into(),
            "/feed.xml".into(),
            "/llms.txt".into(),
            "/robots.txt".into(),
            "/404.html".into(),
            "/search/".into(),
        ]
        .into();
        if sitemap {
            built.insert("/sitemap.xml".into());
        }
        let mut sections = HashSet::new();
        let mut words = HashMap::new();
        for e in shown {
            if let Some(term) = &e.meta.term {
                for w in std::iter::once(term).chain(&e.meta.aliases) {
                    let forms = crate::markdown::terms::forms(w).into_iter().map(|(f, _)| f);
                    for f in std::iter::once(w.clone()).chain(forms) {
                        (words.entry(crate::content::load::word_slug(&f)))
                            .or_insert_with(|| (e.url.clone(), term.clone()));
                    }
                }
            }
            built.insert(e.url.clone());
            if !e.section.is_empty() {
                sections.insert(e.section.as_str());
            }
            if e.meta.diagram.is_some() {
                built.insert(format!("{}{DIAGRAM_PNG}", e.url));
                built.insert(format!("{}{DIAGRAM_SVG}", e.url));
            }
        }
        built.extend(sections.into_iter().map(|s| format!("/{s}/")));
        // An entry that failed to load is reported once, not again by every link to it.
        built.extend(unloaded.iter().cloned());
        for f in files {
            built.insert(format!("/{}", f.to_string_lossy().replace('\\', "/")));
        }
        let drafts = left_out.map(|e| (e.url.clone(), e.file.clone())).collect();
        let refused = refused
            .map(|(e, why)| {
                let why = why.map_or_else(String::new, |d| match &d.field {
                    Some(f) => format!("field `{f}`: {}", d.message),
                    None => d.message.clone(),
                });
                (e.url.clone(), (e.file.clone(), why))
            })
            .collect();
        Targets {
            built,
            drafts,
            refused,
            config: config.clone(),
            words,
        }
    }

    /// Problems with `entry`'s links (lines are body-relative in `links`).
    pub(crate) fn link_problems(&self, entry: &Entry, links: &[Link]) -> Vec<Diagnostic> {
        self.problems_at(&entry.url, &entry.file, entry.body_line, links)
    }

    /// Problems with the links of Markdown shown on the page at `page_url`, whose first
    /// line is line `first_line` of `file` (an entry's body, or the config's home text).
    pub(crate) fn problems_at(
        &self,
        page_url: &str,
        file: &std::path::Path,
        first_line: usize,
        links: &[Link],
    ) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for link in links {
            let Some(path) = crate::markdown::site_path(page_url, &link.url) else {
                continue;
            };
            let with_slash = format!("{}/", path.trim_end_matches('/'));
            if self.built.contains(&path)
                || self.built.contains(&with_slash)
                || self.config.is_external(&path)
            {
                continue;
            }
            let line = first_line + link.line - 1;
            let refused = (self.refused.get(&path)).or_else(|| self.refused.get(&with_slash));
            let draft = (self.drafts.get(&path)).or_else(|| self.drafts.get(&with_slash));
            let d = match (refused, draft) {
                (Some((target, why)), _) => Diagnostic::new(
                    file,
                    line,
                    format!(
                        "link to `{}` points at {}, an entry this build refuses ({why})",
                        link.url,
                        target.display()
                    ),
                )
                .help("fix that entry (its own errors are listed with it): the link works once it builds"),
                (None, Some(draft)) => Diagnostic::new(
                    file,
                    line,
                    format!(
                        "link to `{}` points at a draft ({}) that this build leaves out",
                        link.url,
                        draft.display()
                    ),
                )
                .help("publish that entry too, or link to it once it is published"),
                (None, None) => Diagnostic::new(
                    file,
                    line,
                    format!(
                        "broken link: `{}` is not a page or file of this site",
                        link.url
                    ),
                )
                .help(self.broken_help(&path)),
            };
            out.push(d);
        }
        out
    }
}

impl Targets {
    /// The entry a broken link names by one of its words (`/glossary/warps/`,
    /// `/glossary/Shared-Memory/`): its URL and term.
    fn named(&self, path: &str) -> Option<(&str, &str)> {
        let last = path.trim_end_matches('/').rsplit('/').next()?;
        let (url, term) = self.words.get(&crate::content::load::word_slug(last))?;
        (url.as_str() != path).then_some((url.as_str(), term.as_str()))
    }

    /// A link written with the base path (`/course/glossary/warp/`) would get it twice.
    fn broken_help(&self, path: &str) -> String {
        let root = self.config.root.trim_end_matches('/');
        let inner = (path.strip_prefix(root)).filter(|p| !root.is_empty() && p.starts_with('/'));
        match (inner, self.named(path)) {
            (Some(inner), _) if self.built.contains(inner) => format!(
                "write it as `{inner}`: the base path `{root}/` is added when the site is built"
            ),
            (_, Some((url, term))) => format!(
                "`{term}` is at `{url}`: link there (a term's aliases and plurals link to its one page)"
            ),
            _ => "site links look like /glossary/<slug>/; check the slug, or list paths \
                  that live outside this site under `links.external_prefixes` in coursegen.toml"
                .into(),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn site_paths_resolve_as_a_browser_does() {
        let cases = [
            ("/glossary/warp/", Some("/glossary/warp/")),
            ("/glossary/warp", Some("/glossary/warp")),
            ("../bank/#x", Some("/glossary/bank/")),
            ("img.png", Some("/glossary/lane/img.png")),
            ("https://e.org/x", None),
            ("mailto:a@b", None),
            ("#anchor", None),
            ("//cdn.example/x", None),
            ("http://coursegen.invalid/x", None),
            ("my%20image.png?x=1", Some("/glossary/lane/my image.png")),
            ("../../../../etc/", Some("/etc/")),
            ("", None),
        ];
        for (url, want) in cases {
            assert_eq!(
                crate::markdown::site_path("/glossary/lane/", url).as_deref(),
                want,
                "{url}"
            );
        }
    }
}
