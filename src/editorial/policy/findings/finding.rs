//! One problem the editorial rule found in an entry, and its kind, which decides what it blocks.
use crate::content::{Diagnostic, Entry};

/// What kind of problem a finding is, which decides what it blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum FindingKind {
    /// A malformed byline (several names in one, no letters, impossible dates): an error
    /// whatever the status.
    Invalid,
    /// No named author, no named reviewer, or a reviewer who is an author.
    Unsigned,
    /// A field a published entry needs is missing.
    Incomplete,
    /// Text `coursegen new` wrote is still there.
    Placeholder,
    /// The entry changed since the review its `reviewed_hash` pins.
    Edited,
    /// No `reviewed_hash` (required by `--strict`).
    Unpinned,
    /// The review is older than the allowed age (an error under `--strict`, else a warning).
    Expired,
    /// An author or reviewer signature is missing or does not verify (blocks publishing
    /// when signatures are required).
    Unverified,
}

/// One problem the rule found.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    /// What kind of problem.
    pub(crate) kind: FindingKind,
    /// What is missing, in a few words (`reviewer`, `summary`, `review of the latest edit`).
    pub(crate) missing: String,
    /// Where and what, with a suggested fix.
    pub(crate) diagnostic: Diagnostic,
}

pub(super) fn finding(
    entry: &Entry,
    kind: FindingKind,
    field: &str,
    missing: &str,
    message: String,
) -> Finding {
    Finding {
        kind,
        missing: missing.to_string(),
        diagnostic: Diagnostic::new(&entry.file, entry.lines.of(field), message).field(field),
    }
}

impl Finding {
    pub(super) fn help(mut self, help: impl Into<String>) -> Self {
        self.diagnostic.help = Some(help.into());
        self
    }
}
