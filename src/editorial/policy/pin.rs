//! The review pin: `reviewed_hash` is a SHA-256 of the entry as reviewed — where it is (its
//! file and URL), its checked front matter, the whole byline included (who reviewed it, and
//! when), and its body — so an edit after the review shows, and so do a reviewer's name
//! swapped, a date moved, and a byte copy of the entry at another path.
//! The scheme is versioned: `v3:sha256:<hex>` is this one. `v2:sha256:<hex>` (which left the
//! place out) and `sha256:<hex>` (v1, which also left `reviewed_by` and `last_checked_on`
//! out) are recognised and no longer pin a review.
use std::path::Component;

use sha2::{Digest, Sha256};

use crate::canonical;
use crate::content::Entry;

/// What a `reviewed_hash` of the current scheme starts with; the rest is 64 lowercase hex
/// digits.
pub const PREFIX: &str = "v3:sha256:";

/// The schemes a `reviewed_hash` may still be written in, newest first, each with what it
/// left out: recognised, so the build can say why such a pin no longer pins a review.
pub const OLD: [(&str, &str, &str); 2] = [
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

/// The older scheme `hash` is written in, if any: its prefix, its name and what it left out.
pub fn old_scheme(hash: &str) -> Option<(&'static str, &'static str, &'static str)> {
    if hash.starts_with(PREFIX) {
        return None;
    }
    OLD.iter().copied().find(|(p, _, _)| hash.starts_with(p))
}

/// The hash `coursegen sign` writes and publishing compares, as `v3:sha256:<hex>`.
///
/// It covers where the page is and what it is made of, and who signed it when, not how the
/// YAML is spelled: the entry's place — its file relative to the site root (which holds its
/// section and sub-folders; a section's introduction is the top-level file named like the
/// section) and its URL (which holds its slug) — then the checked front matter as canonical
/// JSON (keys sorted, empty values dropped, so `related: []` and no `related` are the same
/// and reformatting or comments do not count as edits) without `reviewed_hash` itself (nor
/// the signatures over it), then the body with line endings normalised and surrounding
/// blank lines dropped (the first line's indentation kept: four spaces make it code).
pub fn review_hash(entry: &Entry) -> String {
    let mut meta = serde_json::to_value(&entry.meta).expect("Meta serialises to JSON");
    if let Some(byline) = meta.get_mut("byline").and_then(|b| b.as_object_mut()) {
        // The signatures sign this hash, so they cannot be part of it.
        for signed in ["reviewed_hash", "author_signature", "reviewer_signature"] {
            byline.remove(signed);
        }
    }
    let place = serde_json::json!({
        "file": file_of(entry),
        "url": entry.url,
    });
    let mut text = String::from("coursegen review v3\n");
    canonical::write_json(&place, &mut text);
    text.push('\n');
    canonical::write_json(&meta, &mut text);
    text.push('\n');
    text.push_str(&body_as_reviewed(&entry.body));
    text.push('\n');
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(PREFIX.len() + 64);
    out.push_str(PREFIX);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The entry's file as the pin names it: relative to the site root, `/` between parts on
/// every system (`content/glossary/warp.md`).
fn file_of(entry: &Entry) -> String {
    let parts: Vec<String> = (entry.file.components())
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    parts.join("/")
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
