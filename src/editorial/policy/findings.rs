//! Everything the editorial rule finds wrong with one entry, each with its kind (which
//! decides whether it blocks publishing), a short label for `coursegen status`, and a
//! diagnostic naming file, line and field.
use crate::content::Entry;

use super::names::{self, Name};
use super::pin;
use super::rules::Rules;

mod finding;
mod placeholders;

use finding::finding;
pub(crate) use finding::{Finding, FindingKind};

/// Every problem the rule finds in `entry`, whatever its status.
pub(crate) fn assess(entry: &Entry, rules: &Rules) -> Vec<Finding> {
    let mut out = Vec::new();
    let signed = signatures(entry, rules, &mut out);
    dates(entry, rules, &mut out);
    missing_fields(entry, rules, &mut out);
    placeholders::placeholders(entry, &mut out);
    // What the page shows beside its text, read only for a pinned entry (most builds' many
    // drafts have no pin).
    let shown = match (&rules.files, &entry.meta.byline.reviewed_hash) {
        (Some(files), Some(_)) => files.shown(entry),
        _ => Vec::new(),
    };
    // The pin the entry must have, made once: the review and both signatures are held to it.
    let required = rules.signatures.as_ref().filter(|s| s.required);
    let expected = (entry.meta.byline.reviewed_hash.is_some() || required.is_some())
        .then(|| pin::expected(entry, &shown));
    review(
        entry,
        rules,
        signed,
        (&shown, expected.as_deref()),
        &mut out,
    );
    if let (Some(sig), Some(hash)) = (required, &expected) {
        out.extend(signature_findings(entry, hash, sig));
    }
    out
}

/// The command a reviewer runs to sign `entry`, with `who` as the reviewer; with a key
/// when the course has an allowed-signers file (`sign` refuses a review without one then).
pub(crate) fn sign_command(entry: &Entry, who: &str, rules: &Rules) -> String {
    sign_command_naming(entry, None, who, rules.signatures.is_some())
}

/// [`sign_command`] that also names the author (`--author`), and takes a key when `key`:
/// every help line that tells someone to sign gives a command that runs as written, with
/// the names it knows and `NAME` where it knows none.
pub(crate) fn sign_command_naming(
    entry: &Entry,
    author: Option<&str>,
    reviewer: &str,
    key: bool,
) -> String {
    let quoted = |name: &str| format!("\"{}\"", name.replace('"', "\\\""));
    format!(
        "coursegen sign {}{} --reviewer {}{}",
        entry.file.display(),
        author.map_or(String::new(), |a| format!(" --author {}", quoted(a))),
        quoted(reviewer),
        if key { KEY_ARG } else { "" }
    )
}

/// The key a help line signs with: the default name `ssh-keygen -t ed25519` gives it.
pub(crate) const KEY_ARG: &str = " --key ~/.ssh/id_ed25519";

/// The first named reviewer of `entry`, or `NAME` for the one who will be.
pub(crate) fn reviewer_or_name(entry: &Entry) -> String {
    names::named_people(&entry.meta.byline.reviewed_by)
        .into_iter()
        .next()
        .unwrap_or_else(|| "NAME".into())
}

/// The most names one byline field (`written_by`, `reviewed_by`) may list.
pub(crate) const MAX_PEOPLE: usize = 32;

/// The people named in one byline field (as shown, and as compared); several names in one
/// string and names without letters are reported, placeholders skipped.
fn people(
    entry: &Entry,
    field: &str,
    list: &[String],
    out: &mut Vec<Finding>,
) -> Vec<(String, Name)> {
    let mut people = Vec::new();
    let short = field.trim_start_matches("byline.");
    let one_each =
        || format!("write a list, one name each: `{short}: [Ada Lovelace, Grace Hopper]`");
    // Every reviewer is compared with every author: a byline of thousands of names would
    // make that check the build's cost.
    if list.len() > MAX_PEOPLE {
        out.push(
            finding(
                entry,
                FindingKind::Invalid,
                field,
                "the people who wrote or reviewed it",
                format!(
                    "{} names: a byline field lists at most {MAX_PEOPLE} people",
                    list.len()
                ),
            )
            .help("name the people who wrote or reviewed this entry; credit others in the body"),
        );
        return people;
    }
    // YAML folds a name continued on the next line into one: two people would read as one.
    if entry.lines.folds(field) {
        out.push(
            finding(
                entry,
                FindingKind::Invalid,
                field,
                "one name per person",
                "a name runs on over several lines, which YAML reads as one name".into(),
            )
            .help(one_each()),
        );
        return people;
    }
    // A name is shown (escaped) only in a finding: most bylines have none.
    let shown = |raw: &String| raw.escape_debug().to_string();
    for raw in list {
        match names::classify(raw) {
            Name::Unsigned => {}
            Name::Several => out.push(
                finding(
                    entry,
                    FindingKind::Invalid,
                    field,
                    "one name per person",
                    format!("`{}` looks like several names in one", shown(raw)),
                )
                .help(one_each()),
            ),
            Name::NoLetters => out.push(
                finding(
                    entry,
                    FindingKind::Invalid,
                    field,
                    "a name with letters",
                    format!(
                        "`{}` is not a name: a name must contain letters",
                        shown(raw)
                    ),
                )
                .help("write the person's name, or `pending` until they sign"),
            ),
            person => people.push((names::display_name(raw), person)),
        }
    }
    people
}

/// Judges every name; true when a named author and a named reviewer who is none of the
/// authors signed.
fn signatures(entry: &Entry, rules: &Rules, out: &mut Vec<Finding>) -> bool {
    let byline = &entry.meta.byline;
    let authors = people(entry, "byline.written_by", &byline.written_by, out);
    let reviewers = people(entry, "byline.reviewed_by", &byline.reviewed_by, out);
    if out.iter().any(|f| f.kind == FindingKind::Invalid) {
        // The names must be fixed first; what is missing follows from the fixed list.
        return false;
    }
    if authors.is_empty() {
        out.push(
            finding(
                entry,
                FindingKind::Unsigned,
                "byline.written_by",
                "author",
                "no named author has signed".into(),
            )
            .help(format!(
                "the reviewer names the author when signing (a hand edit of the byline would void the review's pin): `{}`",
                sign_command_naming(entry, Some("AUTHOR NAME"), &reviewer_or_name(entry), rules.signatures.is_some())
            )),
        );
    }
    if reviewers.is_empty() {
        out.push(
            finding(
                entry,
                FindingKind::Unsigned,
                "byline.reviewed_by",
                "reviewer",
                "no named reviewer has signed".into(),
            )
            .help(format!(
                "a reviewer who is not an author reads it and signs it, which writes `reviewed_by`: `{}`",
                sign_command_naming(entry, None, "NAME", rules.signatures.is_some())
            )),
        );
    }
    // One report is enough: fixing it means choosing a different reviewer.
    let twin = reviewers.iter().find_map(|(shown, reviewer)| {
        // Unless the allowed-signers file says they are two people.
        let said_different = |author: &str| {
            (rules.signatures.as_ref()).is_some_and(|s| s.signers.said_different(author, shown))
        };
        let (author, _) =
            (authors.iter()).find(|(name, a)| a.same_person(reviewer) && !said_different(name))?;
        Some((shown, author))
    });
    if let Some((shown, author)) = twin {
        let message = if names::canonical_name(author) == names::canonical_name(shown) {
            format!(
                "reviewer `{shown}` is also an author (names are compared ignoring case, spacing, invisible characters and Unicode form)"
            )
        } else {
            format!(
                "reviewer `{shown}` looks the same as author `{author}` (names are also compared by their Unicode confusable skeleton, so `Аda` with a Cyrillic А is `Ada`, and by their words in any order, titles left out and initials standing for words, so `Dr A. Lovelace` and `Lovelace Ada` are `Ada Lovelace`)"
            )
        };
        out.push(
            finding(
                entry,
                FindingKind::Unsigned,
                "byline.reviewed_by",
                "a reviewer who is not an author",
                message,
            )
            .help(format!(
                "an entry needs a reviewer who did not write it; if they are two people, a \
                 maintainer says so in the allowed-signers file on the default branch: \
                 `# coursegen: different-people \"{author}\" \"{shown}\"`"
            )),
        );
    }
    !authors.is_empty()
        && !reviewers.is_empty()
        && !out.iter().any(|f| f.kind == FindingKind::Unsigned)
}

/// Dates in the future, and a check before the writing, are errors whatever the status.
fn dates(entry: &Entry, rules: &Rules, out: &mut Vec<Finding>) {
    let b = &entry.meta.byline;
    for (field, date) in [
        ("byline.written_on", b.written_on),
        ("byline.last_checked_on", b.last_checked_on),
    ] {
        if let Some(d) = date.filter(|d| *d > rules.today) {
            out.push(
                finding(
                    entry,
                    FindingKind::Invalid,
                    field,
                    "a date that is not in the future",
                    format!("{d} is in the future (today is {})", rules.today),
                )
                .help("write the date it happened; `coursegen sign` sets last_checked_on to today"),
            );
        }
    }
    if let (Some(written), Some(checked)) = (b.written_on, b.last_checked_on)
        && checked < written
    {
        out.push(
            finding(
                entry,
                FindingKind::Invalid,
                "byline.last_checked_on",
                "a check after the writing",
                format!("last checked on {checked}, before it was written on {written}"),
            )
            .help("a review cannot come before the writing: correct one of the two dates"),
        );
    }
}

/// A published glossary entry shows every part of the page, so it needs every field.
fn missing_fields(entry: &Entry, rules: &Rules, out: &mut Vec<Finding>) {
    let m = &entry.meta;
    let mut missing: Vec<&str> = Vec::new();
    if entry.section == rules.glossary {
        missing.extend(rules.required.unfilled(m));
    }
    if m.byline.written_on.is_none() {
        missing.push("byline.written_on");
    }
    if m.byline.last_checked_on.is_none() {
        missing.push("byline.last_checked_on");
    }
    for field in missing {
        out.push(
            finding(
                entry,
                FindingKind::Incomplete,
                field,
                field,
                "a published entry needs this field".into(),
            )
            .help(match field {
                "byline.written_on" | "byline.last_checked_on" => format!(
                    "the reviewer's signature writes it: `{}`",
                    sign_command_naming(
                        entry,
                        None,
                        &reviewer_or_name(entry),
                        rules.signatures.is_some()
                    )
                ),
                _ => "fill it in, or set `status: draft` until it is ready".into(),
            }),
        );
    }
}

/// The pinned review: edited since, missing, or expired.
fn review(
    entry: &Entry,
    rules: &Rules,
    signed: bool,
    (shown, expected): (&[pin::Shown], Option<&str>),
    out: &mut Vec<Finding>,
) {
    let b = &entry.meta.byline;
    // Who must review and the command they run, said only in a finding: most entries have
    // none (`benches/build.sh`).
    let who_and_command = || {
        let reviewers = names::named_people(&b.reviewed_by);
        let who = match reviewers.as_slice() {
            [] => "a reviewer who is not an author".to_string(),
            [one] => one.clone(),
            [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
        };
        let command = sign_command(
            entry,
            reviewers.first().map_or("NAME", String::as_str),
            rules,
        );
        (who, command)
    };
    let old_scheme = (b.reviewed_hash.as_deref()).and_then(|h| pin::old_scheme(h, shown));
    match (&b.reviewed_hash, old_scheme) {
        // The older schemes left out who reviewed and when (v1) or where the entry is (v2):
        // they pin nothing any more.
        (Some(_), Some((_, scheme, left_out))) => {
            let (who, command) = who_and_command();
            out.push(
            finding(entry, FindingKind::Unpinned, "byline.reviewed_hash", "reviewed_hash",
                format!("signed under {scheme}, which did not cover {left_out}: the review is not pinned (required by --strict); sign it again"))
            .help(format!("{who} reviews it again and runs `{command}`, which writes a `{}` pin (and the author signs again, if the course requires signatures)", pin::PREFIX)),
            )
        }
        (Some(pinned), _) if Some(pinned.as_str()) != expected => {
            let (who, command) = who_and_command();
            let what = match shown {
                [] => "the entry no longer matches".to_string(),
                files => format!(
                    "the entry, or a file it shows ({}), no longer matches",
                    files
                        .iter()
                        .map(|f| format!("`{}`", f.path))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            out.push(
            finding(entry, FindingKind::Edited, "byline.reviewed_hash", "review of the latest edit",
                format!("edited since review: {what} its `reviewed_hash`, so {who} must review it again"))
            .help(format!("after reviewing the change, run `{command}` (it pins the new text and sets last_checked_on)")),
            )
        }
        (Some(_), _) => {}
        (None, _) if signed => {
            let (_, command) = who_and_command();
            out.push(
            finding(entry, FindingKind::Unpinned, "byline.reviewed_hash", "reviewed_hash",
                "no `reviewed_hash`: the review is not pinned to the text it approved (required by --strict)".into())
            .help(format!("the reviewer runs `{command}`")),
            )
        }
        (None, _) => {}
    }
    if let Some(checked) = b.last_checked_on.filter(|_| signed) {
        let age = i64::from((rules.today - checked).get_days());
        if age > i64::from(rules.review_max_age_days) {
            let (_, command) = who_and_command();
            out.push(
                finding(entry, FindingKind::Expired, "byline.last_checked_on",
                    &format!("a review within {} days", rules.review_max_age_days),
                    format!("last checked on {checked}, {age} days ago: a review is valid for {} days", rules.review_max_age_days))
                .help(format!("a reviewer re-reads it against its sources and runs `{command}`, which sets last_checked_on to today")),
            );
        }
    }
}

/// The findings of the signature rule for `entry`.
fn signature_findings(
    entry: &Entry,
    hash: &str,
    rules: &super::signatures::SignatureRules,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (role, sig) in super::signed::entry_signatures(entry, hash, rules) {
        let (message, help) = match sig {
            super::signed::RoleSignature::Valid(_) => continue,
            super::signed::RoleSignature::Missing => (
                format!("no {} signature (signatures are required)", role.as_str()),
                format!(
                    "{}{}",
                    missing_signature_help(entry, hash, role),
                    rules
                        .pending
                        .as_deref()
                        .map(|p| format!("; {p}"))
                        .unwrap_or_default()
                ),
            ),
            super::signed::RoleSignature::Invalid(why) => (
                format!("{} signature refused: {why}", role.as_str()),
                format!(
                    "the {} reviews the entry as it is now and signs again with their own key listed in {}{}",
                    role.as_str(),
                    rules.signers.file.display(),
                    rules
                        .pending
                        .as_deref()
                        .map(|p| format!("; {p}"))
                        .unwrap_or_default()
                ),
            ),
        };
        let missing = format!("{} signature", role.as_str());
        let mut f = finding(
            entry,
            FindingKind::Unverified,
            role.field(),
            &missing,
            message,
        );
        f.diagnostic.help = Some(help);
        out.push(f);
    }
    out
}

/// The command that adds the missing signature of `role`: the reviewer signs naming
/// themselves; the author signs over the reviewer's pin, so only once that pin is there.
fn missing_signature_help(entry: &Entry, hash: &str, role: super::signatures::Role) -> String {
    use super::signatures::Role;
    let reviewer = sign_command_naming(entry, None, &reviewer_or_name(entry), true);
    let author = format!(
        "coursegen sign {} --role author{KEY_ARG}",
        entry.file.display()
    );
    match role {
        Role::Reviewer => format!("the reviewer runs `{reviewer}`"),
        Role::Author if entry.meta.byline.reviewed_hash.as_deref() == Some(hash) => {
            format!("the author runs `{author}`")
        }
        Role::Author => {
            format!("once the reviewer has signed (`{reviewer}`), the author runs `{author}`")
        }
    }
}
