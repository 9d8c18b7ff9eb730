//! `coursegen status`: what an editor looks at before a release — every entry with its
//! editorial state, author, reviewer and what it still needs, as a table or JSON.
use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::content::{Entry, Status};
use crate::editorial::policy::{self, Finding, FindingKind, Rules, names};

/// One entry's line in the report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Row {
    /// The entry file, relative to the root.
    pub(crate) file: PathBuf,
    /// Where it would be published.
    pub(crate) url: String,
    /// The status its front matter claims.
    pub(crate) status: Status,
    /// Where it stands: published, draft, in review, edited since review, expired,
    /// placeholder, refused (claims published, cannot be) or invalid (malformed byline).
    pub(crate) state: &'static str,
    /// Authors, as shown on the page.
    pub(crate) authors: Vec<String>,
    /// Reviewers, as shown on the page.
    pub(crate) reviewers: Vec<String>,
    /// What it still needs, in a few words each.
    pub(crate) missing: Vec<String>,
    /// The same, as full messages with line and field.
    pub(crate) problems: Vec<Problem>,
    /// Each role's SSH signature (`author: valid (Ada Lovelace)`, `reviewer: missing`,
    /// `author: invalid: why`); empty when the site has no allowed-signers file.
    pub(crate) signatures: Vec<String>,
}

/// One finding, for `--json`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Problem {
    /// Its kind.
    pub(crate) kind: FindingKind,
    /// Whole-file line.
    pub(crate) line: usize,
    /// The front-matter field, when it is about one.
    pub(crate) field: Option<String>,
    /// What is wrong.
    pub(crate) message: String,
}

/// The report over every entry, in path order.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StatusReport {
    /// The date reviews were aged against.
    pub(crate) today: String,
    /// How many days a review stays valid.
    pub(crate) review_max_age_days: u32,
    /// One row per entry.
    pub(crate) entries: Vec<Row>,
}

/// Judges every entry as a publish build would.
pub(crate) fn report(entries: &[std::sync::Arc<Entry>], rules: &Rules) -> StatusReport {
    StatusReport {
        today: rules.today.to_string(),
        review_max_age_days: rules.review_max_age_days,
        entries: entries.iter().map(|e| row(e, rules)).collect(),
    }
}

fn row(entry: &Entry, rules: &Rules) -> Row {
    let findings = policy::assess(entry, rules);
    let b = &entry.meta.byline;
    Row {
        file: entry.file.clone(),
        url: entry.url.clone(),
        status: entry.meta.status,
        state: state(entry.meta.status, &findings),
        authors: names::named_people(&b.written_by),
        reviewers: names::named_people(&b.reviewed_by),
        missing: findings.iter().map(|f| f.missing.clone()).collect(),
        problems: findings
            .iter()
            .map(|f| Problem {
                kind: f.kind,
                line: f.diagnostic.line,
                field: f.diagnostic.field.clone(),
                message: f.diagnostic.message.clone(),
            })
            .collect(),
        signatures: rules
            .signatures
            .as_ref()
            .map(|r| signature_lines(entry, rules, r))
            .unwrap_or_default(),
    }
}

fn signature_lines(
    entry: &Entry,
    rules: &Rules,
    signers: &policy::signatures::SignatureRules,
) -> Vec<String> {
    let shown = (rules.files.as_ref()).map_or_else(Vec::new, |files| files.shown(entry));
    policy::entry_signatures(entry, &policy::pin::expected(entry, &shown), signers)
        .into_iter()
        .map(|(role, sig)| match sig {
            policy::RoleSignature::Missing => format!("{}: missing", role.as_str()),
            policy::RoleSignature::Invalid(why) => format!("{}: invalid: {why}", role.as_str()),
            policy::RoleSignature::Valid(v) => {
                let p = &v.signer.principals;
                let who = p.iter().find(|p| !p.contains('@')).or(p.first());
                format!(
                    "{}: valid ({})",
                    role.as_str(),
                    who.map_or("", String::as_str)
                )
            }
        })
        .collect()
}

/// The one word an editor sorts by: the most urgent thing about the entry.
fn state(status: Status, findings: &[Finding]) -> &'static str {
    let has = |k: FindingKind| findings.iter().any(|f| f.kind == k);
    if has(FindingKind::Invalid) {
        "invalid"
    } else if has(FindingKind::Edited) {
        "edited since review"
    } else if has(FindingKind::Placeholder) {
        "placeholder"
    } else if status == Status::Published
        && (has(FindingKind::Unsigned)
            || has(FindingKind::Incomplete)
            || has(FindingKind::Unverified))
    {
        "refused"
    } else if status == Status::Published && has(FindingKind::Expired) {
        "expired"
    } else {
        match status {
            Status::Published => "published",
            Status::InReview => "in review",
            Status::Draft => "draft",
        }
    }
}

/// The report as an aligned text table with a count per state underneath.
pub(crate) fn table(report: &StatusReport) -> String {
    let dash = |v: &[String]| {
        if v.is_empty() {
            "-".to_string()
        } else {
            v.join(", ")
        }
    };
    let mut rows: Vec<[String; 5]> = vec![[
        "STATE".into(),
        "FILE".into(),
        "AUTHOR".into(),
        "REVIEWER".into(),
        "MISSING".into(),
    ]];
    // Names and paths come from content: escaped, so none can drive the terminal.
    let shown = |s: String| crate::content::diagnostic::printable(&s).into_owned();
    for r in &report.entries {
        rows.push([
            r.state.into(),
            shown(r.file.display().to_string()),
            shown(dash(&r.authors)),
            shown(dash(&r.reviewers)),
            shown(dash(&r.missing)),
        ]);
    }
    let mut widths = [0usize; 4];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        for (w, cell) in widths.iter().zip(row) {
            out.push_str(cell);
            out.push_str(&" ".repeat(w - cell.chars().count() + 2));
        }
        out.push_str(&row[4]);
        out.push('\n');
    }
    for r in report.entries.iter().filter(|r| !r.signatures.is_empty()) {
        out.push_str(&format!(
            "{}: signatures: {}\n",
            shown(r.file.display().to_string()),
            shown(r.signatures.join("; "))
        ));
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &report.entries {
        *counts.entry(r.state).or_default() += 1;
    }
    let n = report.entries.len();
    let parts: Vec<String> = counts.iter().map(|(s, c)| format!("{c} {s}")).collect();
    out.push_str(&format!(
        "\n{n} entr{}: {}\n",
        if n == 1 { "y" } else { "ies" },
        parts.join(", ")
    ));
    out
}
