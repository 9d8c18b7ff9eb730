//! The editorial rule: an entry is published only when its status says so, a named author
//! and a different named reviewer signed it, no scaffold text is left, and — when the
//! review is pinned — it is unchanged since. The only place a `Publishable` (or a
//! previewable `Draft`) can be made.
use std::sync::Arc;

use crate::content::{Diagnostic, Entry, Status};
use jiff::civil::Date;

mod findings;
pub(crate) mod names;
pub(crate) mod pin;
mod rules;
pub mod signatures;
mod signed;
#[cfg(test)]
mod tests;
pub(crate) mod trusted;

pub(crate) use findings::{Finding, FindingKind, assess, reviewer_or_name};
pub(crate) use names::is_unsigned;
pub(crate) use rules::{Required, Rules};
pub(crate) use signed::{RoleSignature, byline_signatures, entry_signatures};

/// How long a review stays valid unless the build says otherwise.
pub(crate) const DEFAULT_REVIEW_MAX_AGE_DAYS: u32 = 365;

/// The longest a review may be set to stay valid (five years): past it, expiry would be
/// switched off by a large number.
pub(crate) const MAX_REVIEW_MAX_AGE_DAYS: u32 = 1830;

/// Why `SOURCE_DATE_EPOCH` could not be used as today's date.
#[derive(Debug, thiserror::Error)]
#[error("SOURCE_DATE_EPOCH=`{0}` is not a Unix time in seconds; unset it or fix it")]
pub(crate) struct BadEpoch(String);

/// Today's date (UTC): `SOURCE_DATE_EPOCH` when set (reproducible builds, tests), else the clock.
pub(crate) fn today() -> Result<Date, BadEpoch> {
    Ok(match source_date_epoch()? {
        Some(s) => date_at(s),
        None => clock_today(),
    })
}

/// `SOURCE_DATE_EPOCH`, when set (reproducible builds, tests): Unix seconds.
pub(crate) fn source_date_epoch() -> Result<Option<i64>, BadEpoch> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(v) if !v.trim().is_empty() => (v.trim().parse::<i64>().ok())
            .filter(|&s| jiff::Timestamp::from_second(s).is_ok())
            .map(Some)
            .ok_or(BadEpoch(v)),
        _ => Ok(None),
    }
}

/// The date (UTC) of a Unix time that [`source_date_epoch`] or git gave.
fn date_at(seconds: i64) -> Date {
    (jiff::Timestamp::from_second(seconds).unwrap_or(jiff::Timestamp::UNIX_EPOCH))
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .date()
}

/// Today's date (UTC) by the system clock.
pub(crate) fn clock_today() -> Date {
    jiff::Timestamp::now()
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .date()
}

/// An entry that passed the editorial rule; only `verdict_of` makes one.
#[derive(Debug, Clone)]
pub(crate) struct Publishable {
    entry: Arc<Entry>,
    /// Shared, so that a verdict kept for an unchanged entry is cheap to hand out again.
    warnings: Arc<[Diagnostic]>,
}

impl Publishable {
    /// The signed entry.
    pub(crate) fn entry(&self) -> &Arc<Entry> {
        &self.entry
    }
}

/// An entry that stays a draft, with the reason the build summary gives.
#[derive(Debug, Clone)]
pub(crate) struct Draft {
    entry: Arc<Entry>,
    /// Why it is not published, in words.
    pub(crate) reason: String,
}

impl Draft {
    /// The unpublished entry (rendered only in the preview).
    pub(crate) fn entry(&self) -> &Arc<Entry> {
        &self.entry
    }
}

/// What the rule says of one entry.
#[derive(Debug, Clone)]
pub(crate) enum Verdict {
    /// Signed and published.
    Publish(Publishable),
    /// Not published, legitimately.
    Draft(Draft),
    /// Claims `published` without what that takes, or has a malformed byline: stops the build.
    Refused(Vec<Diagnostic>),
}

impl Verdict {
    /// Problems that do not stop this build (a review about to be, or already, expired).
    pub(crate) fn warnings(&self) -> &[Diagnostic] {
        match self {
            Verdict::Publish(p) => &p.warnings,
            _ => &[],
        }
    }
}

/// Applies the editorial rule to one entry.
pub(crate) fn verdict_of(entry: &Arc<Entry>, rules: &Rules) -> Verdict {
    let findings = assess(entry, rules);
    let diagnostics = |keep: &dyn Fn(FindingKind) -> bool| -> Vec<Diagnostic> {
        findings
            .iter()
            .filter(|f| keep(f.kind))
            .map(|f| f.diagnostic.clone())
            .collect()
    };
    let invalid = diagnostics(&|k| k == FindingKind::Invalid);
    // What holds a published entry back in the publish build but only marks it in the
    // preview, so that a pull request still shows its pages: an edit since the review, and
    // signatures that do not verify (yet).
    let held = (findings.iter())
        .find(|f| f.kind == FindingKind::Edited)
        .or_else(|| findings.iter().find(|f| f.kind == FindingKind::Unverified));
    match entry.meta.status {
        Status::Published => {
            let blocks = |k: FindingKind| match k {
                FindingKind::Invalid
                | FindingKind::Unsigned
                | FindingKind::Incomplete
                | FindingKind::Placeholder => true,
                FindingKind::Edited => !rules.preview,
                FindingKind::Unpinned | FindingKind::Expired => rules.strict,
                FindingKind::Unverified => !rules.preview,
            };
            let problems = diagnostics(&blocks);
            if !problems.is_empty() {
                Verdict::Refused(problems)
            } else if let Some(held) = held {
                // Only in the preview: show the page, marked, so the change can be reviewed.
                Verdict::Draft(Draft {
                    entry: Arc::clone(entry),
                    reason: format!("status is published; {}", held.diagnostic.message),
                })
            } else {
                Verdict::Publish(Publishable {
                    entry: Arc::clone(entry),
                    warnings: diagnostics(&|k| k == FindingKind::Expired).into(),
                })
            }
        }
        _ if !invalid.is_empty() => Verdict::Refused(invalid),
        status => {
            let mut reason = format!("status is {}", status.as_str());
            let first = |kind: FindingKind| findings.iter().find(|f| f.kind == kind);
            for f in [first(FindingKind::Unsigned), first(FindingKind::Edited)]
                .into_iter()
                .flatten()
            {
                reason.push_str(&format!("; {}", f.diagnostic.message));
            }
            let placeholders: Vec<&str> = findings
                .iter()
                .filter(|f| f.kind == FindingKind::Placeholder)
                .map(|f| f.missing.as_str())
                .collect();
            if !placeholders.is_empty() {
                reason.push_str(&format!(
                    "; scaffold text left in {}",
                    placeholders.join(", ")
                ));
            }
            Verdict::Draft(Draft {
                entry: Arc::clone(entry),
                reason,
            })
        }
    }
}
