//! The review pin: `reviewed_hash` is a SHA-256 of the entry as reviewed — where it is (its
//! file and URL), its checked front matter, the whole byline included (who reviewed it, and
//! when), its body, and every file of the repository the page shows (the files its code
//! blocks include, the images it embeds, the manifest its diagram is drawn from) — so an
//! edit after the review shows, whether to the entry or to what it shows, and so do a
//! reviewer's name swapped, a date moved, and a byte copy of the entry at another path.
//! The scheme is versioned: `v4:sha256:<hex>` is this one. `v3:sha256:<hex>` (which left the
//! files the page shows out) still pins an entry that shows none, for which it covers all
//! that v4 does; `v2:sha256:<hex>` (which left the place out) and `sha256:<hex>` (v1, which
//! also left `reviewed_by` and `last_checked_on` out) are recognised and no longer pin a
//! review. Records are not pinned: they are reviewed as data (`measure --compare`).
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::canonical;
use crate::content::Entry;
use crate::content::admit::{Purpose, SiteRoot};
use crate::markdown::shown::{self, Reference};

/// What a `reviewed_hash` of the current scheme starts with; the rest is 64 lowercase hex
/// digits.
pub(crate) const PREFIX: &str = "v4:sha256:";

/// The scheme before: the same, without the files the page shows.
const V3: &str = "v3:sha256:";

/// The schemes a `reviewed_hash` may still be written in, newest first, each with what it
/// left out: recognised, so the build can say why such a pin no longer pins a review.
pub(crate) const OLD: [(&str, &str, &str); 3] = [
    (
        V3,
        "the third review pin (`v3:sha256:`)",
        "the files the page shows from the repository (included code, images, a diagram's manifest)",
    ),
    (
        "v2:sha256:",
        "the second review pin (`v2:sha256:`)",
        "where the entry is (its file and URL), so a copy elsewhere carried the review",
    ),
    (
        "sha256:",
        "the first review pin (`sha256:`)",
        "who reviewed the entry and when, nor where it is",
    ),
];

/// The older scheme `hash` is written in, if it no longer pins the entry: its prefix, its
/// name and what it left out. A v3 pin still pins an entry that shows no file (`shown`).
pub(crate) fn old_scheme(
    hash: &str,
    shown: &[Shown],
) -> Option<(&'static str, &'static str, &'static str)> {
    if hash.starts_with(V3) && shown.is_empty() {
        return None;
    }
    scheme_of(hash)
}

/// The older scheme `hash` is written in (`None` for the current one): its prefix, its name
/// and what it left out.
pub(crate) fn scheme_of(hash: &str) -> Option<(&'static str, &'static str, &'static str)> {
    OLD.iter().copied().find(|(p, _, _)| hash.starts_with(p))
}

/// The hash `coursegen sign` writes and publishing compares, as `v4:sha256:<hex>`.
///
/// It covers where the page is and what it is made of, and who signed it when, not how the
/// YAML is spelled: the entry's place — its file relative to the site root (which holds its
/// section and sub-folders; a section's introduction is the top-level file named like the
/// section) and its URL (which holds its slug) — then the checked front matter as canonical
/// JSON (keys sorted, empty values dropped, so `related: []` and no `related` are the same
/// and reformatting or comments do not count as edits) without `reviewed_hash` itself (nor
/// the signatures over it), then the body with line endings normalised and surrounding
/// blank lines dropped (the first line's indentation kept: four spaces make it code), then
/// each file the page shows (`shown`, [`Files::shown`]): its path and the SHA-256 of its
/// bytes, or that it could not be read.
pub(crate) fn review_hash(entry: &Entry, shown: &[Shown]) -> String {
    hash(entry, Some(shown))
}

/// The hash `entry`'s pin must equal: [`review_hash`], or the v3 hash while the entry is
/// pinned under v3 and shows no file (for which v3 covers everything v4 does).
pub(crate) fn expected(entry: &Entry, shown: &[Shown]) -> String {
    let v3 = (entry.meta.byline.reviewed_hash.as_deref()).is_some_and(|h| h.starts_with(V3));
    if v3 && shown.is_empty() {
        hash(entry, None)
    } else {
        hash(entry, Some(shown))
    }
}

/// The pin of `entry` under v4 (`shown`) or v3 (`None`).
fn hash(entry: &Entry, shown: Option<&[Shown]>) -> String {
    let mut meta = serde_json::to_value(&entry.meta).expect("Meta serialises to JSON");
    if let Some(byline) = meta.get_mut("byline").and_then(|b| b.as_object_mut()) {
        // The signatures sign this hash, so they cannot be part of it.
        for signed in ["reviewed_hash", "author_signature", "reviewer_signature"] {
            byline.remove(signed);
        }
    }
    let place = serde_json::json!({
        "file": canonical::slash_path(&entry.file),
        "url": entry.url,
    });
    let (prefix, version) = match shown {
        Some(_) => (PREFIX, "v4"),
        None => (V3, "v3"),
    };
    let mut text = format!("coursegen review {version}\n");
    canonical::write_json(&place, &mut text);
    text.push('\n');
    canonical::write_json(&meta, &mut text);
    text.push('\n');
    text.push_str(&body_as_reviewed(&entry.body));
    text.push('\n');
    for file in shown.unwrap_or_default() {
        let digest = file.digest.as_deref().unwrap_or("unreadable");
        text.push_str(&format!("shows {} {digest}\n", file.path));
    }
    format!("{prefix}{}", canonical::sha256_hex(text.as_bytes()))
}

/// A file of the repository that a page shows, with the SHA-256 of its bytes (`None`: it
/// could not be read, or is not a file the site may show).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shown {
    /// From the site root, `/` between parts (`kernels/k.cu`, `content/glossary/warp.svg`).
    pub(crate) path: String,
    digest: Option<String>,
}

/// The repository files pages show, each read and hashed at most once a run: pages that
/// embed one large image together cost the image once (`content::admit` bounds it).
pub(crate) struct Files {
    root: PathBuf,
    site: SiteRoot,
    digests: Mutex<HashMap<String, Option<String>>>,
}

impl Files {
    /// The files under the site root `root`, none read yet.
    pub(crate) fn new(root: &Path) -> Self {
        Files {
            root: root.to_path_buf(),
            site: SiteRoot::new(root),
            digests: Mutex::default(),
        }
    }

    /// What `entry`'s page shows from the repository, by path: the files its code blocks
    /// include, the images it embeds (a content asset beside its page, else a file of
    /// `static/`), and the manifest its diagram is drawn from (`kernels/NAME.yaml`).
    pub(crate) fn shown(&self, entry: &Entry) -> Vec<Shown> {
        let mut files: Vec<(String, Purpose)> = Vec::new();
        for reference in shown::references(&entry.body, &entry.url) {
            files.push(match reference {
                Reference::Include(path) => (path, Purpose::Include),
                Reference::Image(site_path) => {
                    let rel = site_path.trim_start_matches('/');
                    let asset = format!("content/{rel}");
                    let file = format!("static/{rel}");
                    match self.root.join(&asset).exists() || !self.root.join(&file).exists() {
                        true => (asset, Purpose::Asset),
                        false => (file, Purpose::Static),
                    }
                }
            });
        }
        let kernel = (entry.meta.diagram.as_ref()).and_then(|d| d.kernel.as_deref());
        if let Some(name) = kernel {
            files.push((format!("kernels/{name}.yaml"), Purpose::Include));
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        files.dedup_by(|a, b| a.0 == b.0);
        files
            .into_iter()
            .map(|(path, purpose)| Shown {
                digest: self.digest(&path, purpose),
                path,
            })
            .collect()
    }

    /// The SHA-256 of the file at `path` (from the root), if the site may show it.
    fn digest(&self, path: &str, purpose: Purpose) -> Option<String> {
        let known = self.digests.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(d) = known.get(path) {
            return d.clone();
        }
        drop(known);
        let canon = self.site.admit(&self.root.join(path), purpose).ok();
        let digest = canon
            .and_then(|c| std::fs::read(c).ok())
            .map(|bytes| canonical::sha256_hex(&bytes));
        let mut known = self.digests.lock().unwrap_or_else(PoisonError::into_inner);
        known.insert(path.to_string(), digest.clone());
        digest
    }
}

impl std::fmt::Debug for Files {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Files").field("root", &self.root).finish()
    }
}

/// One run's files are another's when they are under the same root: a rule made for one
/// build judges the same entry the same way in the next, unless the entry shows files
/// (serve keeps no verdict of such an entry, [`may_show_files`]).
impl PartialEq for Files {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root
    }
}

impl Eq for Files {}

/// Whether `entry`'s verdict may depend on files beside it: it is pinned, and its body or
/// diagram shows one. Costs a parse of the body only when it has a fence, an image or raw
/// HTML (`shown::references`).
pub(crate) fn may_show_files(entry: &Entry) -> bool {
    entry.meta.byline.reviewed_hash.is_some()
        && (entry
            .meta
            .diagram
            .as_ref()
            .is_some_and(|d| d.kernel.is_some())
            || !shown::references(&entry.body, &entry.url).is_empty())
}

/// The body with line endings normalised, blank lines before and after dropped, and
/// trailing space at its end dropped; a first line's indentation is kept, since Markdown
/// reads four spaces or a tab there as a code block.
fn body_as_reviewed(body: &str) -> String {
    let body = body.replace("\r\n", "\n").replace('\r', "\n");
    let mut start = 0;
    for line in body.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    body[start..].trim_end().to_string()
}
