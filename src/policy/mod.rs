//! The editorial rule: an entry is published only when its status says so, a named author
//! and a different named reviewer signed it, no scaffold text is left, and — when the
//! review is pinned — it is unchanged since. The only place a `Publishable` (or a
//! previewable `Draft`) can be made. Depends on `content`.
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use jiff::civil::Date;
use rayon::prelude::*;

use crate::content::{Diagnostic, Entry, Status};

mod findings;
pub mod names;
pub mod pin;
#[cfg(test)]
mod tests;

pub use findings::{Finding, Kind, assess};
pub use names::{canonical_name, is_unsigned};

/// How long a review stays valid unless the build says otherwise.
pub const DEFAULT_REVIEW_MAX_AGE_DAYS: u32 = 365;

/// What the rule is applied with: the date, the review expiry, and the kind of build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Today, for expiry and for dates in the future.
    pub today: Date,
    /// A review older than this many days has expired.
    pub review_max_age_days: u32,
    /// `--strict`: published entries need a pinned review that has not expired.
    pub strict: bool,
    /// `--drafts`: an entry edited since its review is shown as a draft instead of stopping the build.
    pub preview: bool,
}

/// Why `SOURCE_DATE_EPOCH` could not be used as today's date.
#[derive(Debug, thiserror::Error)]
#[error("SOURCE_DATE_EPOCH=`{0}` is not a Unix time in seconds; unset it or fix it")]
pub struct BadEpoch(String);

/// Today's date (UTC): `SOURCE_DATE_EPOCH` when set (reproducible builds, tests), else the clock.
pub fn today() -> Result<Date, BadEpoch> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse::<i64>()
            .ok()
            .and_then(|s| jiff::Timestamp::from_second(s).ok())
            .map(|t| t.to_zoned_datetime(jiff::tz::TimeZone::UTC).date())
            .ok_or(BadEpoch(v)),
        _ => Ok(clock_today()),
    }
}

/// Today's date (UTC) by the system clock.
pub fn clock_today() -> Date {
    jiff::Timestamp::now()
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .date()
}

/// An entry that passed the editorial rule; only `check` makes one.
#[derive(Debug, Clone)]
pub struct Publishable<'a> {
    entry: &'a Entry,
    /// Shared: serve's memo hands the same warnings out on every rebuild.
    warnings: Arc<[Diagnostic]>,
}

impl<'a> Publishable<'a> {
    /// The signed entry.
    pub fn entry(&self) -> &'a Entry {
        self.entry
    }
}

/// An entry that stays a draft, with the reason the build summary gives.
#[derive(Debug, Clone)]
pub struct Draft<'a> {
    entry: &'a Entry,
    /// Why it is not published, in words.
    pub reason: String,
}

impl<'a> Draft<'a> {
    /// The unpublished entry (rendered only in the preview).
    pub fn entry(&self) -> &'a Entry {
        self.entry
    }
}

/// What the rule says of one entry.
#[derive(Debug, Clone)]
pub enum Verdict<'a> {
    /// Signed and published.
    Publish(Publishable<'a>),
    /// Not published, legitimately.
    Draft(Draft<'a>),
    /// Claims `published` without what that takes, or has a malformed byline: stops the build.
    Refused(Vec<Diagnostic>),
}

impl Verdict<'_> {
    /// Problems that do not stop this build (a review about to be, or already, expired).
    pub fn warnings(&self) -> &[Diagnostic] {
        match self {
            Verdict::Publish(p) => &p.warnings,
            _ => &[],
        }
    }
}

/// Applies the editorial rule to one entry.
pub fn check<'a>(entry: &'a Entry, rules: &Rules) -> Verdict<'a> {
    let findings = assess(entry, rules);
    let diagnostics = |keep: &dyn Fn(Kind) -> bool| -> Vec<Diagnostic> {
        findings
            .iter()
            .filter(|f| keep(f.kind))
            .map(|f| f.diagnostic.clone())
            .collect()
    };
    let invalid = diagnostics(&|k| k == Kind::Invalid);
    let edited = findings.iter().find(|f| f.kind == Kind::Edited);
    match entry.meta.status {
        Status::Published => {
            let blocks = |k: Kind| match k {
                Kind::Invalid | Kind::Unsigned | Kind::Incomplete | Kind::Placeholder => true,
                Kind::Edited => !rules.preview,
                Kind::Unpinned | Kind::Expired => rules.strict,
            };
            let problems = diagnostics(&blocks);
            if !problems.is_empty() {
                Verdict::Refused(problems)
            } else if let Some(edited) = edited {
                // Only in the preview: show the page, marked, so the edit can be reviewed.
                Verdict::Draft(Draft {
                    entry,
                    reason: format!("status is published; {}", edited.diagnostic.message),
                })
            } else {
                Verdict::Publish(Publishable {
                    entry,
                    warnings: diagnostics(&|k| k == Kind::Expired).into(),
                })
            }
        }
        _ if !invalid.is_empty() => Verdict::Refused(invalid),
        status => {
            let mut reason = format!("status is {}", status.as_str());
            let first = |kind: Kind| findings.iter().find(|f| f.kind == kind);
            for f in [first(Kind::Unsigned), edited].into_iter().flatten() {
                reason.push_str(&format!("; {}", f.diagnostic.message));
            }
            let placeholders: Vec<&str> = findings
                .iter()
                .filter(|f| f.kind == Kind::Placeholder)
                .map(|f| f.missing.as_str())
                .collect();
            if !placeholders.is_empty() {
                reason.push_str(&format!(
                    "; scaffold text left in {}",
                    placeholders.join(", ")
                ));
            }
            Verdict::Draft(Draft { entry, reason })
        }
    }
}

/// Verdicts kept between the rebuilds of `coursegen serve`: an entry handed over unchanged
/// (the same `Arc`: the load did not read it again) and judged under the same rules keeps
/// its verdict without being judged again (the rule reads the whole body). The memo
/// re-issues a verdict only for the very entry [`check`] judged, so a `Publishable` is
/// still made only by the rule.
#[derive(Debug, Default)]
pub struct Memo {
    /// By the entry's address.
    kept: HashMap<usize, Kept>,
}

#[derive(Debug)]
struct Kept {
    /// The entry judged (kept alive, so its address is not reused).
    entry: Arc<Entry>,
    rules: Rules,
    outcome: Outcome,
}

/// A verdict without its entry.
#[derive(Debug, Clone)]
enum Outcome {
    Publish(Arc<[Diagnostic]>),
    Draft(String),
    Refused(Vec<Diagnostic>),
}

impl Outcome {
    fn of(v: &Verdict<'_>) -> Outcome {
        match v {
            Verdict::Publish(p) => Outcome::Publish(p.warnings.clone()),
            Verdict::Draft(d) => Outcome::Draft(d.reason.clone()),
            Verdict::Refused(d) => Outcome::Refused(d.clone()),
        }
    }

    fn verdict<'a>(&self, entry: &'a Entry) -> Verdict<'a> {
        match self {
            Outcome::Publish(warnings) => Verdict::Publish(Publishable {
                entry,
                warnings: Arc::clone(warnings),
            }),
            Outcome::Draft(reason) => Verdict::Draft(Draft {
                entry,
                reason: reason.clone(),
            }),
            Outcome::Refused(d) => Verdict::Refused(d.clone()),
        }
    }
}

/// [`check`] for every entry, in parallel, in their order. With a memo, an entry it judged
/// under the same rules is not judged again; afterwards it holds exactly these entries.
pub fn check_all<'a>(
    entries: &'a [Arc<Entry>],
    rules: &Rules,
    memo: Option<&mut Memo>,
) -> Vec<Verdict<'a>> {
    let Some(memo) = memo else {
        return entries.par_iter().map(|e| check(e, rules)).collect();
    };
    let key = |e: &Arc<Entry>| Arc::as_ptr(e) as usize;
    let judged: Vec<(Verdict<'a>, bool)> = entries
        .par_iter()
        .map(|e| {
            let kept =
                (memo.kept.get(&key(e))).filter(|k| Arc::ptr_eq(&k.entry, e) && k.rules == *rules);
            match kept {
                Some(k) => (k.outcome.verdict(e), false),
                None => (check(e, rules), true),
            }
        })
        .collect();
    // Updated in place: entries judged afresh replace what was kept for their address;
    // entries gone are dropped (the memo holds more than it was given).
    for (e, (verdict, fresh)) in entries.iter().zip(&judged) {
        if *fresh {
            let k = Kept {
                entry: Arc::clone(e),
                rules: *rules,
                outcome: Outcome::of(verdict),
            };
            memo.kept.insert(key(e), k);
        }
    }
    if memo.kept.len() > entries.len() {
        let given: HashSet<usize> = entries.iter().map(key).collect();
        memo.kept.retain(|k, _| given.contains(k));
    }
    judged.into_iter().map(|(v, _)| v).collect()
}
