//! The editorial rule (README, "The editorial rule"): an entry is published only when its
//! status says so and a named author and a different named reviewer signed it. The only
//! place a `Publishable` (or a previewable `Draft`) can be made. Depends on `content`.
use icu_casemap::CaseMapper;
use icu_normalizer::ComposingNormalizer;

use crate::content::load::GLOSSARY;
use crate::content::meta::UNSIGNED;
use crate::content::{Diagnostic, Entry, Status};

/// An entry that passed the editorial rule; only `check` makes one.
#[derive(Debug, Clone, Copy)]
pub struct Publishable<'a>(&'a Entry);

impl<'a> Publishable<'a> {
    /// The signed entry.
    pub fn entry(&self) -> &'a Entry {
        self.0
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
    /// Claims `published` without what that takes: stops the build.
    Refused(Vec<Diagnostic>),
}

/// A name as compared: NFKC, case-folded, whitespace collapsed ("Ada  Lovelace" = "ada lovelace").
pub fn canonical_name(name: &str) -> String {
    let nfkc = ComposingNormalizer::new_nfkc();
    let folded = CaseMapper::new()
        .fold_string(&nfkc.normalize(name))
        .into_owned();
    let normal = nfkc.normalize(&folded);
    normal.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// "pending", "tbd", empty (after normalisation) count as nobody.
pub fn is_unsigned(name: &str) -> bool {
    UNSIGNED.contains(&canonical_name(name).as_str())
}

/// Applies the editorial rule to one entry.
pub fn check(entry: &Entry) -> Verdict<'_> {
    let signature = signatures(entry);
    match entry.meta.status {
        Status::Published => {
            let mut problems: Vec<Diagnostic> = signature.err().into_iter().collect();
            problems.extend(missing_fields(entry));
            if problems.is_empty() {
                Verdict::Publish(Publishable(entry))
            } else {
                Verdict::Refused(problems)
            }
        }
        status => {
            let mut reason = format!("status is {}", status.as_str());
            if let Err(d) = signature {
                reason.push_str(&format!("; {}", d.message));
            }
            Verdict::Draft(Draft { entry, reason })
        }
    }
}

/// Ok when at least one named author and named reviewers who are none of the authors signed.
fn signatures(entry: &Entry) -> Result<(), Diagnostic> {
    let at = |field: &str, message: String, help: &str| {
        Diagnostic::new(&entry.file, entry.lines.of(field), message)
            .field(field)
            .help(help)
    };
    let byline = &entry.meta.byline;
    let authors: Vec<String> = byline
        .written_by
        .iter()
        .filter(|n| !is_unsigned(n))
        .map(|n| canonical_name(n))
        .collect();
    let reviewers: Vec<&String> = byline
        .reviewed_by
        .iter()
        .filter(|n| !is_unsigned(n))
        .collect();
    if authors.is_empty() {
        return Err(at(
            "byline.written_by",
            "no named author has signed".into(),
            "put the author's name in `written_by` (\"pending\" and \"tbd\" do not count)",
        ));
    }
    if reviewers.is_empty() {
        return Err(at(
            "byline.reviewed_by",
            "no named reviewer has signed".into(),
            "a reviewer who is not an author must put their name in `reviewed_by`",
        ));
    }
    if let Some(own) = reviewers
        .iter()
        .find(|r| authors.contains(&canonical_name(r)))
    {
        return Err(at(
            "byline.reviewed_by",
            format!(
                "reviewer `{own}` is also an author (names are compared ignoring case, spacing and Unicode form)"
            ),
            "an entry needs a reviewer who did not write it",
        ));
    }
    Ok(())
}

/// A published glossary entry shows every part of the page, so it needs every field.
fn missing_fields(entry: &Entry) -> Vec<Diagnostic> {
    let m = &entry.meta;
    let mut missing: Vec<&str> = Vec::new();
    if entry.section == GLOSSARY {
        let fields = [
            ("term", m.term.is_some()),
            ("category", m.category.is_some()),
            ("cc", m.cc.is_some()),
            ("summary", m.summary.is_some()),
            ("sources", !m.sources.is_empty()),
        ];
        missing.extend(
            fields
                .iter()
                .filter(|(_, present)| !present)
                .map(|(f, _)| *f),
        );
    }
    if m.byline.written_on.is_none() {
        missing.push("byline.written_on");
    }
    if m.byline.last_checked_on.is_none() {
        missing.push("byline.last_checked_on");
    }
    missing
        .into_iter()
        .map(|field| {
            Diagnostic::new(
                &entry.file,
                entry.lines.of(field),
                "a published entry needs this field",
            )
            .field(field)
            .help("fill it in, or set `status: draft` until it is ready")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::front_matter::{self, FieldLines};
    use crate::content::meta;
    use std::path::Path;

    fn entry(byline: &str, status: &str) -> Entry {
        let text = format!(
            "---\ntitle: T\nterm: t\ncategory: Memory\ncc: \"7.5\"\nsummary: s\nsources:\n  - {{title: a, url: https://x.org/}}\nstatus: {status}\nbyline:\n{byline}---\nbody\n"
        );
        let split = front_matter::split(&text).unwrap();
        let raw = front_matter::parse(&split).unwrap();
        let lines = FieldLines::index(split.yaml, split.yaml_line);
        let mut problems = Vec::new();
        let meta = meta::check(
            raw,
            Path::new("content/glossary/t.md"),
            &lines,
            &mut problems,
        )
        .expect("valid");
        Entry {
            file: "content/glossary/t.md".into(),
            kind: crate::content::Kind::Page,
            section: GLOSSARY.into(),
            slug: "t".into(),
            url: "/glossary/t/".into(),
            meta,
            body: String::new(),
            body_line: 1,
            lines,
        }
    }

    const DATES: &str = "  written_on: 2026-11-01\n  last_checked_on: 2026-11-02\n";

    #[track_caller]
    fn case(written_by: &str, reviewed_by: &str, refused_field: Option<&str>) {
        let byline = format!("  written_by: {written_by}\n  reviewed_by: {reviewed_by}\n{DATES}");
        let e = entry(&byline, "published");
        match (check(&e), refused_field) {
            (Verdict::Publish(_), None) => {}
            (Verdict::Refused(d), Some(field)) => {
                assert_eq!(d[0].field.as_deref(), Some(field), "{d:?}");
                assert_eq!(d[0].file, Path::new("content/glossary/t.md"));
            }
            (v, want) => {
                panic!("{written_by} / {reviewed_by}: got {v:?}, wanted refusal on {want:?}")
            }
        }
    }

    #[test]
    fn the_two_signature_rule() {
        case("Ada Lovelace", "Grace Hopper", None);
        case("[Ada Lovelace, Charles Babbage]", "Grace Hopper", None);
        case(
            "Ada Lovelace",
            "\" ada  LOVELACE\"",
            Some("byline.reviewed_by"),
        );
        case(
            "[Grace Hopper, Ada Lovelace]",
            "ADA LOVELACE",
            Some("byline.reviewed_by"),
        );
        case("Ada Lovelace", "pending", Some("byline.reviewed_by"));
        case("Ada Lovelace", "TBD", Some("byline.reviewed_by"));
        case("Ada Lovelace", "\"\"", Some("byline.reviewed_by"));
        case("Ada Lovelace", "[]", Some("byline.reviewed_by"));
        case("pending", "Grace Hopper", Some("byline.written_by"));
        case("\"  \"", "Grace Hopper", Some("byline.written_by"));
        case("[pending, tbd]", "Grace Hopper", Some("byline.written_by"));
        // Full-width letters and a no-break space are the same name after NFKC.
        case(
            "Ada Lovelace",
            "\"Ａｄａ\u{a0}Lovelace\"",
            Some("byline.reviewed_by"),
        );
        // Case folding, not just lowercasing: ß folds to ss.
        case("Jan Straße", "JAN STRASSE", Some("byline.reviewed_by"));
    }

    #[test]
    fn missing_byline_is_unsigned() {
        let e = entry("  written_on: 2026-11-01\n", "published");
        assert!(matches!(check(&e), Verdict::Refused(_)));
    }

    #[test]
    fn drafts_carry_their_reason() {
        let e = entry("  written_by: pending\n", "draft");
        let Verdict::Draft(d) = check(&e) else {
            panic!("draft expected")
        };
        assert_eq!(d.reason, "status is draft; no named author has signed");
        let e = entry(
            &format!("  written_by: Ada\n  reviewed_by: Grace\n{DATES}"),
            "in-review",
        );
        let Verdict::Draft(d) = check(&e) else {
            panic!("draft expected")
        };
        assert_eq!(d.reason, "status is in-review");
    }

    #[test]
    fn published_needs_dates() {
        let e = entry(
            "  written_by: Ada\n  reviewed_by: Grace\n  written_on: pending\n",
            "published",
        );
        let Verdict::Refused(d) = check(&e) else {
            panic!("refusal expected")
        };
        let fields: Vec<_> = d.iter().filter_map(|d| d.field.as_deref()).collect();
        assert_eq!(fields, ["byline.written_on", "byline.last_checked_on"]);
    }

    #[test]
    fn canonical_names() {
        assert_eq!(canonical_name("  Ada \t LOVELACE "), "ada lovelace");
        assert!(is_unsigned(" Pending "));
        assert!(!is_unsigned("Pen Ding"));
    }
}
