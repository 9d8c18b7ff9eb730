//! What loading `content/` gives: each entry (a page or a section's introduction) with its
//! checked front matter and body, and the site of them with its assets and problems.
use std::path::PathBuf;

use super::diagnostic::Diagnostic;
use super::front_matter;
use super::meta::Meta;

/// What kind of page an entry makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    /// A page of its own at its URL (glossary entries, day pages, top-level pages).
    Page,
    /// `content/<section>.md` beside a folder `content/<section>/`: it introduces that
    /// section's index and is shown at the top of it, at the same URL.
    Intro,
}

/// One loaded entry: its file, where it goes, what its front matter says, and its body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// Path relative to the site root (`content/glossary/warp.md`).
    pub(crate) file: PathBuf,
    /// A page of its own, or a section's introduction.
    pub(crate) kind: EntryKind,
    /// Top-level section under content/ (`glossary`, `days`), empty for top-level pages.
    pub(crate) section: String,
    /// The last URL segment.
    pub(crate) slug: String,
    /// Site-absolute URL (`/glossary/warp/`).
    pub(crate) url: String,
    /// Checked front matter.
    pub(crate) meta: Meta,
    /// Markdown body.
    pub(crate) body: String,
    /// Whole-file line of the body's first line.
    pub(crate) body_line: usize,
    /// Whole-file lines of the front-matter fields.
    pub(crate) lines: front_matter::FieldLines,
}

/// Everything under content/.
#[derive(Debug, Clone, Default)]
pub(crate) struct Site {
    /// The entries, in path order; shared, so that a load that reuses its cache (see
    /// [`load_changed`](super::load_changed)) hands an unchanged entry over without copying it.
    pub(crate) entries: Vec<std::sync::Arc<Entry>>,
    /// Other files (images…), copied as they are: (relative to root, absolute).
    pub(crate) assets: Vec<(PathBuf, PathBuf)>,
    /// Files found but left out (not an entry, not an asset type).
    pub(crate) warnings: Vec<Diagnostic>,
    /// Problems found while loading (each failed entry is left out of `entries`).
    pub(crate) problems: Vec<Diagnostic>,
    /// URLs of entries that failed to load: links to them are not reported again.
    pub(crate) unloaded: Vec<String>,
}
