//! The review pin: `reviewed_hash` is a SHA-256 of the entry as reviewed — its checked
//! front matter, the whole byline included (who reviewed it, and when), and its body — so
//! an edit after the review shows, and so does a reviewer's name swapped or a date moved.
//! The scheme is versioned: `v2:sha256:<hex>` is this one; `sha256:<hex>` (v1, which left
//! `reviewed_by` and `last_checked_on` out) is recognised and no longer pins a review.
use sha2::{Digest, Sha256};

use crate::canonical;
use crate::content::Entry;

/// What a `reviewed_hash` of the current scheme starts with; the rest is 64 lowercase hex
/// digits.
pub const PREFIX: &str = "v2:sha256:";

/// What a hash of the first scheme (v1) starts with.
pub const PREFIX_V1: &str = "sha256:";

/// The hash `coursegen sign` writes and publishing compares, as `v2:sha256:<hex>`.
///
/// It covers what the page is made of and who signed it when, not how the YAML is
/// spelled: the checked front matter as canonical JSON (keys sorted, empty values dropped,
/// so `related: []` and no `related` are the same and reformatting or comments do not
/// count as edits) without `reviewed_hash` itself (nor the signatures over it), then the body with line endings
/// normalised and surrounding blank lines trimmed.
pub fn review_hash(entry: &Entry) -> String {
    let mut meta = serde_json::to_value(&entry.meta).expect("Meta serialises to JSON");
    if let Some(byline) = meta.get_mut("byline").and_then(|b| b.as_object_mut()) {
        // The signatures sign this hash, so they cannot be part of it.
        for signed in ["reviewed_hash", "author_signature", "reviewer_signature"] {
            byline.remove(signed);
        }
    }
    let mut text = String::from("coursegen review v2\n");
    canonical::write_json(&meta, &mut text);
    text.push('\n');
    let body = entry.body.replace("\r\n", "\n").replace('\r', "\n");
    text.push_str(body.trim_matches(|c: char| c == '\n' || c.is_whitespace()));
    text.push('\n');
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(PREFIX.len() + 64);
    out.push_str(PREFIX);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}
