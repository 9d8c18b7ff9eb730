//! What `coursegen.toml` says: `RawConfig`, every value kept with its span so that problems
//! name their line, unknown keys refused (every one, with a suggestion). Each key's doc
//! comment is its description — what it means, then its type and default — from which the
//! guide's page of the keys is generated (`guide_reference_tests`).
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::content::Diagnostic;

/// What the file says. Every value keeps its span so that problems name their line.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawConfig {
    /// the site's name, on every page: the header and every `<title>`
    ///
    /// - type: text
    /// - default: `Untitled course`
    pub(super) title: Option<Spanned<String>>,
    /// one line about the course: the home page's meta description and the summary line of
    /// `llms.txt`; the home page's lede when there is no `home`
    ///
    /// - type: text, one line
    /// - default: none
    pub(super) description: Option<Spanned<String>>,
    /// the home page's text, in Markdown, rendered and cleaned as an entry's body is
    /// (raw HTML such as `<kbd>` kept, scripts removed); its links are checked as an entry's are
    /// (an error names the config's line and field `home`) and move under the base path
    ///
    /// - type: Markdown
    /// - default: none
    pub(super) home: Option<Spanned<String>>,
    /// http(s) address the site is served from; may carry a path
    /// ([Sub-path hosting](../publishing/sub-path.md)), which becomes the base path, but no empty
    /// segment (`//`), which would make the site's links name another host. Needed for
    /// `sitemap.xml`, `robots.txt`'s sitemap line and absolute `og:image` URLs; `--base-url`
    /// (or `COURSEGEN_BASE_URL`) replaces it
    ///
    /// - type: http(s) address
    /// - default: none
    pub(super) base_url: Option<Spanned<String>>,
    /// the course's source repository: the footer links to it, and each page then links to its
    /// source file ("Edit this page")
    ///
    /// - type: http(s) address
    /// - default: none
    pub(super) repository: Option<Spanned<String>>,
    /// what a page's source path (`content/glossary/warp.md`) is appended to for "Edit this page";
    /// set it for another branch or host
    ///
    /// - type: http(s) address
    /// - default: `<repository>/edit/main/` (`/-/edit/main/` on GitLab)
    pub(super) edit_url: Option<Spanned<String>>,
    /// BCP 47 tag (`en`, `pt-BR`) for `<html lang>`
    ///
    /// - type: BCP 47 tag
    /// - default: `en`
    pub(super) language: Option<Spanned<String>>,
    /// whole days a review stays valid after `last_checked_on`; `--review-max-age` replaces it for
    /// `build`, `check` and `status`
    ///
    /// - type: whole days
    /// - default: the editorial default (365)
    pub(super) review_max_age_days: Option<Spanned<i64>>,
    /// the sections in reading order, each a folder under `content/`, as a name (`"days"`) or
    /// `{ name, title }`; `title` is what the sidebar, breadcrumbs, entry pages, search results and
    /// social cards call it, and heads its index when it has no introduction
    /// (default: the folder's name, capitalised). Sections not listed follow the listed ones, in
    /// the default order. A name with no folder of entries under `content/` is an error with a
    /// suggestion
    ///
    /// - type: list of names or `{ name, title }`
    /// - default: days, glossary, then the others by name
    pub(super) sections: Vec<Spanned<toml::Value>>,
    /// the line under every page, in Markdown, rendered, cleaned and link-checked as `home` is
    /// (an error names field `footer`); set it when the course is not about GPUs, or to credit its
    /// authors
    ///
    /// - type: Markdown
    /// - default: coursegen's sentence about diagrams and measured numbers
    pub(super) footer: Option<Spanned<String>>,
    /// `[links]`: site paths outside this site.
    pub(super) links: RawLinks,
    /// `[review]`: who may sign reviews, and whether a published entry needs their signatures.
    pub(super) review: RawReview,
    /// `[glossary]`: which section is the glossary, and what its entries must hold.
    pub(super) glossary: RawGlossary,
    /// `[new]`: what `coursegen new` writes into a new glossary entry.
    pub(super) new: RawNew,
}

/// `[glossary]`, as the file says it.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawGlossary {
    /// the section under `content/` that is the glossary, and its URL (`/terms/`): one folder name,
    /// no `/` or `..`. Its entries are the ones `related:` names, the sidebar groups by category
    /// and orders by term, `glossary.required` applies to, and `coursegen new FOLDER SLUG` writes
    /// as glossary entries; `days` is the day pages' folder
    ///
    /// - type: folder name
    /// - default: `glossary`
    pub(super) folder: Option<Spanned<String>>,
    /// the fields a published glossary entry must fill in, from those five; a course on another
    /// subject leaves out `cc` (no compute capability), and `coursegen new` then writes no `cc`
    /// line
    ///
    /// - type: list of field names
    /// - default: `["term", "category", "cc", "summary", "sources"]`
    pub(super) required: Option<Vec<Spanned<String>>>,
}

/// `[new]`, as the file says it.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawNew {
    /// the compute capability `coursegen new` writes into a glossary entry (`"9.0"`); `""` writes
    /// none
    ///
    /// - type: text
    /// - default: `"7.5"` (none when `glossary.required` leaves out `cc`)
    pub(super) cc: Option<Spanned<String>>,
    /// the category `coursegen new` writes into a glossary entry
    ///
    /// - type: text, one line
    /// - default: `Uncategorised` (a placeholder publishing refuses)
    pub(super) category: Option<Spanned<String>>,
    /// the sources `coursegen new` writes into a glossary entry; `[]` writes `sources: []`
    ///
    /// - type: list of `{ title, url }`
    /// - default: the CUDA C++ Programming Guide
    pub(super) sources: Option<Vec<Spanned<RawSource>>>,
}

/// One of `[new] sources`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSource {
    /// The source's title, one line.
    pub(super) title: String,
    /// Its http(s) address.
    pub(super) url: String,
}

/// `[review]`, as the file says it.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawReview {
    /// the allowed-signers file, relative to the site root (no `..`): who may sign reviews
    /// ([Signed reviews](../reviewing/signed-reviews.md))
    ///
    /// - type: path
    /// - default: `.coursegen/allowed_signers`
    pub(super) allowed_signers: Option<Spanned<String>>,
    /// a published entry needs a valid author and reviewer signature
    /// ([Signed reviews](../reviewing/signed-reviews.md)); `build --strict` requires them anyway
    /// once the allowed-signers file exists
    ///
    /// - type: `true` or `false`
    /// - default: `false`
    pub(super) require_signatures: Option<bool>,
}

/// `[links]`, as the file says it.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawLinks {
    /// site-absolute paths that live on the same domain but outside this site (`/docs/`); links
    /// under them are neither link-checked nor moved under the base path. Matched by whole
    /// segments: `/docs/` covers `/docs` and `/docs/api/`, not `/docsets/`
    ///
    /// - type: list of site-absolute paths
    /// - default: none
    pub(super) external_prefixes: Vec<Spanned<String>>,
}

/// The keys of each table, for unknown-key suggestions (kept equal to the structs by a test).
pub(super) const KEYS: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "title",
            "description",
            "home",
            "base_url",
            "repository",
            "edit_url",
            "language",
            "review_max_age_days",
            "sections",
            "footer",
            "links",
            "review",
            "glossary",
            "new",
        ],
    ),
    ("links", &["external_prefixes"]),
    ("review", &["allowed_signers", "require_signatures"]),
    ("glossary", &["folder", "required"]),
    ("new", &["cc", "category", "sources"]),
];

/// The file as the structs read it, or its first type or syntax error, with its line and key.
pub(super) fn read(text: &str, file: &Path) -> Result<RawConfig, Vec<Diagnostic>> {
    toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(0, |s| line_of(text, s.start));
        let mut d = Diagnostic::new(file, line, e.message().trim().to_string())
            .help("each key and its type: the guide's page \"`coursegen.toml` keys\" (guide/src/reference/config.md)");
        d.field = e.span().and_then(|s| key_at(text, s.start));
        vec![d]
    })
}

/// Unknown keys, every one of them, with a suggestion (serde would stop at the first).
pub(super) fn unknown_keys(
    text: &str,
    at: &impl Fn(Range<usize>, &str, String) -> Diagnostic,
) -> Vec<Diagnostic> {
    // A file that does not parse is reported by the typed pass, with its line.
    let Ok(doc) = toml::de::DeTable::parse(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (table, allowed) in KEYS {
        let entries = if table.is_empty() {
            Some(doc.get_ref())
        } else {
            doc.get_ref()
                .get(*table)
                .and_then(|v| v.get_ref().as_table())
        };
        for (key, _) in entries.into_iter().flatten() {
            let name = key.get_ref().as_ref();
            if allowed.contains(&name) {
                continue;
            }
            let dotted = if table.is_empty() {
                name.to_string()
            } else {
                format!("{table}.{name}")
            };
            let help = match crate::content::diagnostic::closest(name, allowed.iter().copied()) {
                Some(k) => format!("did you mean `{k}`?"),
                _ => format!("the keys allowed here are {}", allowed.join(", ")),
            };
            out.push(at(key.span(), &dotted, "unknown key".into()).help(help));
        }
    }
    out.sort_by_key(|d| d.line);
    out
}

/// The dotted key whose value holds byte `offset`, for type errors.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    let mut found = None;
    for (key, value) in doc.get_ref() {
        if value.span().contains(&offset) {
            found = Some(key.get_ref().to_string());
        }
        // A `[table]`'s own span may cover only its header: look at its keys in any case.
        for (inner, v) in value.get_ref().as_table().into_iter().flatten() {
            if v.span().contains(&offset) {
                found = Some(format!("{}.{}", key.get_ref(), inner.get_ref()));
            }
        }
    }
    found
}

/// 1-based line of a byte offset.
pub(super) fn line_of(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}
