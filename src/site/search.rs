//! The search index: every published entry's term, title, summary and body text, indexed by
//! Pagefind into `pagefind/` (a chunked index the browser loads a piece at a time, so a
//! query on a 10,000-entry course fetches tens of kilobytes, not the whole index). Uses
//! `output` for the files it returns and nothing else of ours.
use std::collections::BTreeMap;
use std::path::Path;

use super::output::OutFile;

/// Folder of the index, under the site root; the search script loads `pagefind.js` from it.
pub(super) const BUNDLE: &str = "pagefind";

/// Why the search index could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// Pagefind refused a record or failed to build the index.
    #[error("cannot build the search index: {message}")]
    Pagefind {
        /// Pagefind's message chain.
        message: String,
    },
}

/// One page as the index holds it.
#[derive(Debug, Clone)]
pub(super) struct Record {
    /// URL as the browser should open it (with the site's base path).
    pub(super) url: String,
    /// Shown as the result's heading: the term, or the title.
    pub(super) title: String,
    /// The section's title, shown beside the result.
    pub(super) section: String,
    /// Everything searchable: term, title, summary and body text.
    pub(super) content: String,
    /// A draft, indexed only in the preview and marked in results.
    pub(super) draft: bool,
}

impl Record {
    /// A record from an entry's parts; `body_html` is reduced to its text.
    pub(super) fn new(url: String, heading: &str, section: &str, parts: &[&str]) -> Self {
        let mut content = String::new();
        for part in parts {
            content.push_str(part);
            content.push_str(". ");
        }
        Record {
            url,
            title: heading.to_string(),
            section: section.to_string(),
            content,
            draft: false,
        }
    }
}

/// Builds the index of `records` and returns its files, under [`BUNDLE`].
pub(super) fn index(records: Vec<Record>) -> Result<Vec<OutFile>, SearchError> {
    let fail = |e: anyhow::Error| SearchError::Pagefind {
        message: format!("{e:#}"),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| fail(e.into()))?;
    runtime.block_on(async {
        let options = pagefind::options::PagefindServiceConfig::builder()
            .force_language("en".to_string())
            .build();
        let mut index = pagefind::api::PagefindIndex::new(Some(options)).map_err(fail)?;
        for r in records {
            let mut meta = BTreeMap::from([
                ("title".to_string(), r.title),
                ("section".to_string(), r.section),
            ]);
            if r.draft {
                meta.insert("draft".into(), "draft".into());
            }
            index
                .add_custom_record(r.url, r.content, "en".into(), Some(meta), None, None)
                .await
                .map_err(fail)?;
        }
        let files = index.get_files().await.map_err(fail)?;
        Ok(files
            .into_iter()
            // The UI bundles are Pagefind's own search widgets; the site has its own.
            .filter(|f| !is_unused_ui(&f.filename))
            .map(|f| OutFile {
                path: Path::new(BUNDLE).join(f.filename),
                bytes: f.contents,
            })
            .collect())
    })
}

fn is_unused_ui(name: &Path) -> bool {
    let name = name.to_string_lossy();
    name.starts_with("pagefind-ui")
        || name.starts_with("pagefind-modular-ui")
        || name.starts_with("pagefind-component-ui")
        || name.starts_with("playground")
}

/// The text of an HTML fragment that our own renderer produced: tags dropped, the common
/// entities decoded, blocks separated by spaces.
pub(super) fn text_of(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        push_decoded(&mut out, &rest[..lt]);
        match rest[lt..].find('>') {
            Some(gt) => {
                out.push(' ');
                rest = &rest[lt + gt + 1..];
            }
            None => {
                rest = "";
            }
        }
    }
    push_decoded(&mut out, rest);
    out
}

fn push_decoded(out: &mut String, text: &str) {
    if !text.contains('&') {
        out.push_str(text);
        return;
    }
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let decoded = [
            ("&amp;", '&'),
            ("&lt;", '<'),
            ("&gt;", '>'),
            ("&quot;", '"'),
            ("&#39;", '\''),
            ("&#x27;", '\''),
            ("&nbsp;", ' '),
        ]
        .iter()
        .find(|(entity, _)| tail.starts_with(entity));
        match decoded {
            Some((entity, ch)) => {
                out.push(*ch);
                rest = &tail[entity.len()..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(html: &str, text: &str) {
        assert_eq!(
            text_of(html)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            text
        );
    }

    #[test]
    fn text_of_drops_tags_and_decodes_entities() {
        case(
            "<p>A <em>warp</em> is 32 threads.</p>",
            "A warp is 32 threads.",
        );
        case("<p>a &lt; b &amp;&amp; c</p><p>next</p>", "a < b && c next");
        case(
            "<code>x&quot;</code> &unknown; tail <",
            "x\" &unknown; tail",
        );
    }

    #[test]
    fn index_holds_every_record_in_pagefind_files() {
        let records = vec![Record::new(
            "/glossary/warp/".into(),
            "Warp",
            "Glossary",
            &["Warp", "thirty-two lanes in lockstep"],
        )];
        let files = index(records).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|f| f.path.to_string_lossy().into_owned())
            .collect();
        assert!(
            names.contains(&"pagefind/pagefind.js".to_string()),
            "{names:?}"
        );
        assert!(
            names.iter().any(|n| n.ends_with(".pf_fragment")),
            "{names:?}"
        );
        assert!(names.iter().any(|n| n.ends_with(".pf_index")), "{names:?}");
        assert!(
            !names.iter().any(|n| n.contains("pagefind-ui")),
            "{names:?}"
        );
    }
}
