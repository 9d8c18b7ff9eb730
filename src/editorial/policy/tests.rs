//! The editorial rule in tables: each case is an entry file, the build it is judged in,
//! and the verdict with the file, line and field of every refusal.
use std::path::Path;

use super::*;
use crate::content::load::{decode, parse_entry};

const FILE: &str = "content/glossary/t.md";

/// A complete published entry; line 9 is `status`, 10 `byline`, 11–14 its fields, 17 the body.
const BASE: &str = "---
title: T
term: t
category: Memory
cc: \"7.5\"
summary: s
sources:
  - {title: a, url: https://x.org/}
status: published
byline:
  written_by: Ada Lovelace
  reviewed_by: Grace Hopper
  written_on: 2026-11-01
  last_checked_on: 2026-11-02
---

Body text of the entry.
";

const PLAIN: Rules = Rules {
    today: jiff::civil::date(2026, 11, 30),
    review_max_age_days: DEFAULT_REVIEW_MAX_AGE_DAYS,
    strict: false,
    preview: false,
    signatures: None,
    required: Required::ALL,
    glossary: std::borrow::Cow::Borrowed(crate::content::load::DEFAULT_GLOSSARY),
    files: None,
};
const STRICT: Rules = Rules {
    strict: true,
    ..PLAIN
};
const PREVIEW: Rules = Rules {
    preview: true,
    ..PLAIN
};

/// BASE with each `(from, to)` replaced once (every `from` must be there).
fn text(edits: &[(&str, &str)]) -> String {
    let mut t = BASE.to_string();
    for (from, to) in edits {
        assert!(t.contains(from), "{from} not in the base entry");
        t = t.replacen(from, to, 1);
    }
    t
}

fn entry(text: &str) -> Entry {
    entry_at(FILE, text)
}

fn entry_at(file: &str, text: &str) -> Entry {
    let file = Path::new(file);
    let text = decode(file, text.as_bytes().to_vec()).unwrap();
    parse_entry(file, &text).unwrap_or_else(|d| panic!("{d:?}"))
}

/// BASE with edits, then signed: a correct `reviewed_hash` added to the byline.
fn signed(edits: &[(&str, &str)]) -> String {
    let t = text(edits);
    let hash = pin::review_hash(&entry(&t), &[]);
    t.replacen(
        "  last_checked_on:",
        &format!("  reviewed_hash: {hash}\n  last_checked_on:"),
        1,
    )
}

#[derive(Debug)]
enum Want<'a> {
    Publish,
    /// Published, with a warning on (field, line) containing the text.
    Warn(&'a str, usize, &'a str),
    /// A draft whose reason contains the text.
    Draft(&'a str),
    /// Refused; the first diagnostic is on (field, line) and contains the text.
    Refused(Option<&'a str>, usize, &'a str),
}

#[track_caller]
fn case(text: &str, rules: &Rules, want: Want<'_>) {
    let e = entry(text);
    let verdict = verdict_of(&Arc::new(e), rules);
    match (&verdict, &want) {
        (Verdict::Publish(_), Want::Publish) => assert!(verdict.warnings().is_empty()),
        (Verdict::Publish(_), Want::Warn(field, line, msg)) => {
            let w = &verdict.warnings()[0];
            assert_eq!((w.field.as_deref(), w.line), (Some(*field), *line), "{w:?}");
            assert!(w.message.contains(msg), "{w:?}");
        }
        (Verdict::Draft(d), Want::Draft(reason)) => {
            assert!(d.reason.contains(reason), "{}", d.reason)
        }
        (Verdict::Refused(d), Want::Refused(field, line, msg)) => {
            assert_eq!(d[0].file, Path::new(FILE));
            assert_eq!(
                (d[0].field.as_deref(), d[0].line),
                (*field, *line),
                "{d:#?}"
            );
            assert!(d[0].message.contains(msg), "{d:#?}");
        }
        _ => panic!("{text}\nwanted {want:?}, got {verdict:#?}"),
    }
}

const REVIEWER: &str = "reviewed_by: Grace Hopper";
const AUTHOR: &str = "written_by: Ada Lovelace";

#[test]
fn the_two_signature_rule() {
    let refused_reviewer = |to: &str, msg: &str| {
        case(
            &text(&[(REVIEWER, to)]),
            &PLAIN,
            Want::Refused(Some("byline.reviewed_by"), 12, msg),
        )
    };
    let refused_author = |to: &str, msg: &str| {
        case(
            &text(&[(AUTHOR, to)]),
            &PLAIN,
            Want::Refused(Some("byline.written_by"), 11, msg),
        )
    };
    case(BASE, &PLAIN, Want::Publish);
    case(
        &text(&[(AUTHOR, "written_by: [Ada Lovelace, Charles Babbage]")]),
        &PLAIN,
        Want::Publish,
    );
    refused_reviewer("reviewed_by: \" ada  LOVELACE\"", "also an author");
    case(
        &text(&[
            (AUTHOR, "written_by: [Grace Hopper, Ada Lovelace]"),
            (REVIEWER, "reviewed_by: ADA LOVELACE"),
        ]),
        &PLAIN,
        Want::Refused(Some("byline.reviewed_by"), 12, "also an author"),
    );
    for nobody in ["pending", "TBD", "\"\"", "[]"] {
        refused_reviewer(&format!("reviewed_by: {nobody}"), "no named reviewer");
    }
    for nobody in ["pending", "\"  \"", "[pending, tbd]"] {
        refused_author(&format!("written_by: {nobody}"), "no named author");
    }
    // Full-width letters and a no-break space are the same name after NFKC.
    refused_reviewer("reviewed_by: \"Ａｄａ\u{a0}Lovelace\"", "also an author");
    // Case folding, not just lowercasing: ß folds to ss.
    case(
        &text(&[
            (AUTHOR, "written_by: Jan Straße"),
            (REVIEWER, "reviewed_by: JAN STRASSE"),
        ]),
        &PLAIN,
        Want::Refused(Some("byline.reviewed_by"), 12, "also an author"),
    );
}

#[test]
fn invisible_characters_do_not_make_one_person_two() {
    // YAML escapes, as a contributor's editor might save them.
    for c in [
        "200B", "200C", "200D", "2060", "00AD", "FEFF", "202E", "2066", "200F", "FE0F",
    ] {
        let name = format!("reviewed_by: \"Ada\\u{c} Lovelace\"");
        case(
            &text(&[(REVIEWER, &name)]),
            &PLAIN,
            Want::Refused(Some("byline.reviewed_by"), 12, "also an author"),
        );
        let pending = format!("reviewed_by: \"pend\\u{c}ing\"");
        case(
            &text(&[(REVIEWER, &pending)]),
            &PLAIN,
            Want::Refused(Some("byline.reviewed_by"), 12, "no named reviewer"),
        );
    }
}

#[test]
fn confusable_names_are_one_person() {
    // A Cyrillic А, and a Greek Ο in a reviewer's name.
    case(
        &text(&[(REVIEWER, "reviewed_by: \u{410}da Lovelace")]),
        &PLAIN,
        Want::Refused(
            Some("byline.reviewed_by"),
            12,
            "looks the same as author `Ada Lovelace`",
        ),
    );
    case(
        &text(&[
            (AUTHOR, "written_by: Grace Hopper"),
            (REVIEWER, "reviewed_by: Grace H\u{39f}pper"),
        ]),
        &PLAIN,
        Want::Refused(Some("byline.reviewed_by"), 12, "confusable"),
    );
}

/// Issue 35, item 3: the author under a title, with initials, or with her names in another
/// order is still the author.
#[test]
fn initials_titles_and_word_order_do_not_make_another_person() {
    for twin in [
        "A. Lovelace",
        "A Lovelace",
        "Dr Ada Lovelace",
        "Prof. Dr. Ada Lovelace",
        "Lovelace Ada",
        "Ada A. Lovelace",
        "Ada",
        "Dr. \u{410}. Lovelace",
    ] {
        case(
            &text(&[(REVIEWER, &format!("reviewed_by: {twin}"))]),
            &PLAIN,
            Want::Refused(
                Some("byline.reviewed_by"),
                12,
                "looks the same as author `Ada Lovelace`",
            ),
        );
    }
    // Someone else who shares a name is someone else.
    for other in ["Ada Byron", "Grace Lovelace", "B. Lovelace"] {
        case(
            &text(&[(REVIEWER, &format!("reviewed_by: {other}"))]),
            &PLAIN,
            Want::Publish,
        );
    }
}

/// Every reviewer is compared with every author: the lists are bounded, so the comparison
/// is (a 1 MiB entry could otherwise name 100,000 people in each).
#[test]
fn a_byline_lists_a_bounded_number_of_people() {
    let many = |n: usize| {
        let names: Vec<String> = (0..n).map(|i| format!("Person{i} Name")).collect();
        format!("written_by: [{}]", names.join(", "))
    };
    case(
        &text(&[(AUTHOR, &many(findings::MAX_PEOPLE))]),
        &PLAIN,
        Want::Publish,
    );
    case(
        &text(&[(AUTHOR, &many(findings::MAX_PEOPLE + 1))]),
        &PLAIN,
        Want::Refused(
            Some("byline.written_by"),
            11,
            "33 names: a byline field lists at most 32 people",
        ),
    );
}

#[test]
fn placeholders_are_nobody() {
    for p in [
        "none", "nobody", "unknown", "TODO", "TBA", "tbd.", "N.A.", "\"-\"", "\"?\"", "x", "n/a",
    ] {
        case(
            &text(&[(REVIEWER, &format!("reviewed_by: {p}"))]),
            &PLAIN,
            Want::Refused(
                Some("byline.reviewed_by"),
                12,
                "no named reviewer has signed",
            ),
        );
        case(
            &text(&[(AUTHOR, &format!("written_by: {p}"))]),
            &PLAIN,
            Want::Refused(Some("byline.written_by"), 11, "no named author has signed"),
        );
    }
}

#[test]
fn several_names_in_one_string_are_errors_whatever_the_status() {
    for s in [
        "Ada Lovelace, Grace Hopper",
        "Ada Lovelace and Grace Hopper",
        "\"Ada & Grace\"",
        "\"Ada | Grace\"",
        "\"Ada\\nGrace\"",
        "Ada，Grace",
        "Ada、Grace",
        "Ada ＆ Grace",
        "Ada ﹐ Grace",
        "Ada / Grace",
    ] {
        let t = text(&[(AUTHOR, &format!("written_by: {s}"))]);
        case(
            &t,
            &PLAIN,
            Want::Refused(
                Some("byline.written_by"),
                11,
                "looks like several names in one",
            ),
        );
        let t = t.replace("status: published", "status: draft");
        case(
            &t,
            &PLAIN,
            Want::Refused(
                Some("byline.written_by"),
                11,
                "looks like several names in one",
            ),
        );
    }
    case(
        &text(&[(REVIEWER, "reviewed_by: \"42\"")]),
        &PLAIN,
        Want::Refused(Some("byline.reviewed_by"), 12, "must contain letters"),
    );
}

#[test]
fn dates_must_be_possible_whatever_the_status() {
    let future = text(&[
        ("written_on: 2026-11-01", "written_on: 2026-12-01"),
        ("last_checked_on: 2026-11-02", "last_checked_on: 2026-12-02"),
    ]);
    case(
        &future,
        &PLAIN,
        Want::Refused(
            Some("byline.written_on"),
            13,
            "2026-12-01 is in the future (today is 2026-11-30)",
        ),
    );
    case(
        &future.replace("status: published", "status: draft"),
        &PLAIN,
        Want::Refused(Some("byline.written_on"), 13, "in the future"),
    );
    case(
        &text(&[("last_checked_on: 2026-11-02", "last_checked_on: 2026-10-02")]),
        &PLAIN,
        Want::Refused(
            Some("byline.last_checked_on"),
            14,
            "last checked on 2026-10-02, before it was written on 2026-11-01",
        ),
    );
    // Today is not the future.
    case(
        &text(&[("last_checked_on: 2026-11-02", "last_checked_on: 2026-11-30")]),
        &PLAIN,
        Want::Publish,
    );
}

#[test]
fn reviews_expire() {
    let old = text(&[
        ("written_on: 2026-11-01", "written_on: 2025-10-01"),
        ("last_checked_on: 2026-11-02", "last_checked_on: 2025-11-29"),
    ]);
    let msg = "last checked on 2025-11-29, 366 days ago: a review is valid for 365 days";
    case(&old, &PLAIN, Want::Warn("byline.last_checked_on", 14, msg));
    case(
        &old,
        &PREVIEW,
        Want::Warn("byline.last_checked_on", 14, msg),
    );
    case(
        &signed(&[
            ("written_on: 2026-11-01", "written_on: 2025-10-01"),
            ("last_checked_on: 2026-11-02", "last_checked_on: 2025-11-29"),
        ]),
        &STRICT,
        Want::Refused(Some("byline.last_checked_on"), 15, msg),
    );
    // Exactly 365 days is still valid; the age is an option.
    case(
        &text(&[
            ("written_on: 2026-11-01", "written_on: 2025-10-01"),
            ("last_checked_on: 2026-11-02", "last_checked_on: 2025-11-30"),
        ]),
        &PLAIN,
        Want::Publish,
    );
    let month = Rules {
        review_max_age_days: 20,
        ..PLAIN
    };
    case(
        BASE,
        &month,
        Want::Warn(
            "byline.last_checked_on",
            14,
            "28 days ago: a review is valid for 20 days",
        ),
    );
    // A draft's old review is nobody's concern yet.
    case(
        &old.replace("status: published", "status: draft"),
        &STRICT,
        Want::Draft("status is draft"),
    );
}

#[test]
fn a_review_is_pinned_to_what_was_reviewed() {
    let pinned = signed(&[]);
    case(&pinned, &STRICT, Want::Publish);
    case(&pinned, &PLAIN, Want::Publish);
    // The pin covers who reviewed and when: after a real review, swapping the reviewer's
    // name or moving the date (to renew an expired review) is an edit like any other.
    for forged in [
        pinned.replace("reviewed_by: Grace Hopper", "reviewed_by: Alan Turing"),
        pinned.replace("last_checked_on: 2026-11-02", "last_checked_on: 2026-11-29"),
    ] {
        case(
            &forged,
            &STRICT,
            Want::Refused(Some("byline.reviewed_hash"), 14, "edited since review"),
        );
    }
    // A pin of the first scheme, which left those fields out, no longer pins a review.
    let v1 = pinned.replace("reviewed_hash: v4:sha256:", "reviewed_hash: sha256:");
    case(
        &v1,
        &STRICT,
        Want::Refused(
            Some("byline.reviewed_hash"),
            14,
            "signed under the first review pin",
        ),
    );
    case(&v1, &PLAIN, Want::Publish);
    // Nor does one of the second, which left out where the entry is (issue 35, item 2).
    let v2 = pinned.replace("reviewed_hash: v4:sha256:", "reviewed_hash: v2:sha256:");
    case(
        &v2,
        &STRICT,
        Want::Refused(
            Some("byline.reviewed_hash"),
            14,
            "signed under the second review pin (`v2:sha256:`), which did not cover where the entry is (its file and URL), so a copy elsewhere carried the review: the review is not pinned (required by --strict); sign it again",
        ),
    );
    case(&v2, &PLAIN, Want::Publish);
    let edited = pinned.replace("Body text", "Body texts");
    let msg = "edited since review: the entry no longer matches its `reviewed_hash`, so Grace Hopper must review it again";
    case(
        &edited,
        &PLAIN,
        Want::Refused(Some("byline.reviewed_hash"), 14, msg),
    );
    case(
        &edited,
        &STRICT,
        Want::Refused(Some("byline.reviewed_hash"), 14, msg),
    );
    case(
        &edited,
        &PREVIEW,
        Want::Draft("status is published; edited since review"),
    );
    case(
        &edited.replace("status: published", "status: in-review"),
        &PLAIN,
        Want::Draft("status is in-review; edited since review"),
    );
    // Front matter counts too, status included; the help names the command.
    let e = entry(&pinned.replace("status: published", "status: published\nrelated: [t]"));
    let Verdict::Refused(d) = verdict_of(&Arc::new(e), &PLAIN) else {
        panic!("refusal expected")
    };
    assert_eq!(
        d[0].help.as_deref(),
        Some(
            "after reviewing the change, run `coursegen sign content/glossary/t.md --reviewer \"Grace Hopper\"` (it pins the new text and sets last_checked_on)"
        )
    );
    // --strict requires the pin; a plain build accepts a reviewer written by hand.
    case(
        BASE,
        &STRICT,
        Want::Refused(Some("byline.reviewed_hash"), 10, "no `reviewed_hash`"),
    );
    case(BASE, &PLAIN, Want::Publish);
}

#[test]
fn the_hash_covers_content_not_spelling() {
    let hash = |t: &str| pin::review_hash(&entry(t), &[]);
    let base = hash(BASE);
    assert!(base.starts_with("v4:sha256:") && base.len() == 10 + 64);
    // Same content, spelled differently: line endings, comments, list style, empty lists,
    // quoting, review fields, trailing blank lines.
    for same in [
        BASE.replace('\n', "\r\n"),
        BASE.replace("title: T\n", "title: T   # the heading\n# a comment\n"),
        BASE.replace(
            "  - {title: a, url: https://x.org/}",
            "  - title: a\n    url: https://x.org/",
        ),
        BASE.replace("status: published\n", "status: published\nrelated: []\n"),
        BASE.replace("cc: \"7.5\"", "cc: 7.5"),
        BASE.replace("reviewed_by: Grace Hopper", "reviewed_by: [Grace Hopper]"),
        format!("{BASE}\n\n"),
        format!("{BASE}   \n"),
        BASE.replace("---\n\nBody", "---\n\n\n   \n\t\nBody"),
    ] {
        assert_eq!(hash(&same), base, "{same}");
    }
    // A first paragraph indented four spaces (or a tab) is a code block on the page.
    for code in [
        BASE.replace("\nBody text", "\n    Body text"),
        BASE.replace("\nBody text", "\n\tBody text"),
        BASE.replace("---\n\nBody", "---\n\n  \n    Body"),
    ] {
        assert_ne!(hash(&code), base, "{code}");
    }
    // Where the entry is (issue 35, item 2): the same bytes at another slug, in a
    // sub-folder, in another section, or as a section's introduction are another entry.
    for place in [
        "content/glossary/t-again.md",
        "content/glossary/sub/t.md",
        "content/days/t.md",
        "content/t.md",
        "content/glossary.md",
    ] {
        assert_ne!(
            pin::review_hash(&entry_at(place, BASE), &[]),
            base,
            "{place}"
        );
    }
    assert_ne!(
        hash(&BASE.replace("term: t\n", "term: t\nslug: u\n")),
        base,
        "a slug of its own moves the page"
    );
    // Edits a reader would see, and the status and authors.
    for edit in [
        BASE.replace("Body text", "Body texts"),
        BASE.replace("Body text of", "Body  text of"),
        BASE.replace("title: T", "title: U"),
        BASE.replace("summary: s", "summary: S"),
        BASE.replace("status: published", "status: draft"),
        BASE.replace("written_by: Ada Lovelace", "written_by: Ada King"),
        BASE.replace("written_on: 2026-11-01", "written_on: 2026-10-31"),
        BASE.replace("https://x.org/", "https://y.org/"),
        // Who reviewed it and when: a name swapped or a date moved to renew a review.
        BASE.replace("reviewed_by: Grace Hopper", "reviewed_by: Alan Turing"),
        BASE.replace(
            "reviewed_by: Grace Hopper",
            "reviewed_by: [Grace Hopper, Alan Turing]",
        ),
        BASE.replace("last_checked_on: 2026-11-02", "last_checked_on: 2026-11-30"),
        BASE.replace("last_checked_on: 2026-11-02", "last_checked_on: pending"),
    ] {
        assert_ne!(hash(&edit), base, "{edit}");
    }
    // Pinned: reviews already signed must stay valid across versions of coursegen.
    assert_eq!(base, PINNED_BASE_HASH);
    // A v3 pin (signed before the pin covered the files a page shows) still pins an entry
    // that shows none: the same text, the same v3 hash as before v4.
    let v3 = BASE.replacen(
        "  last_checked_on:",
        &format!("  reviewed_hash: {PINNED_BASE_HASH_V3}\n  last_checked_on:"),
        1,
    );
    assert_eq!(pin::expected(&entry(&v3), &[]), PINNED_BASE_HASH_V3);
}

/// The hash of BASE under the v4 scheme; if this changes, every review is lost.
const PINNED_BASE_HASH: &str =
    "v4:sha256:dd9bb761b9a9823ae0bdfb3f8be564dcaaf65b1cf5b56fccbd525995b3e27388";

/// The hash of BASE under the v3 scheme, which still pins it (it shows no file).
const PINNED_BASE_HASH_V3: &str =
    "v3:sha256:32b241a784424409aa7c73dc29683dba59437d4094946d473978b10313a90669";

#[test]
fn scaffold_text_blocks_publishing() {
    case(
        &text(&[("summary: s", "summary: One sentence that defines the term.")]),
        &PLAIN,
        Want::Refused(
            Some("summary"),
            6,
            "still holds the scaffold's placeholder \"One sentence that defines the term.\"",
        ),
    );
    case(
        &text(&[("category: Memory", "category: Uncategorised")]),
        &PLAIN,
        Want::Refused(Some("category"), 4, "placeholder"),
    );
    case(
        &text(&[("title: T", "title: \"Day 16: the day's topic\"")]),
        &PLAIN,
        Want::Refused(Some("title"), 2, "placeholder"),
    );
    case(
        &text(&[(
            "Body text of the entry.",
            "Intro.\n\nThe body, in Markdown. Explain the term from first principles.",
        )]),
        &PLAIN,
        Want::Refused(
            None,
            19,
            "the body still holds the scaffold's placeholder text",
        ),
    );
    // Disguised inside and across lines beyond ASCII: the line is where the sentence starts.
    case(
        &text(&[(
            "Body text of the entry.",
            "Intro ü.\n\nSome words. The body, in\nMark\u{200b}down.\u{a0}Explain the term\nfrom first principles",
        )]),
        &PLAIN,
        Want::Refused(
            None,
            19,
            "the body still holds the scaffold's placeholder text \"The body, in Markdown.\"",
        ),
    );
    case(
        &text(&[(
            "Body text of the entry.",
            "Intro.\n\n\nwords -- and WRITE\n\nwhat this page   is for",
        )]),
        &PLAIN,
        Want::Refused(
            None,
            20,
            "the body still holds the scaffold's placeholder text \"Write what this page is for.\"",
        ),
    );
    case(
        &text(&[
            ("summary: s", "summary: One sentence that defines the term."),
            ("status: published", "status: draft"),
        ]),
        &PLAIN,
        Want::Draft("status is draft; scaffold text left in summary"),
    );
    // Case and the closing full stop do not make it the author's own.
    case(
        &text(&[("summary: s", "summary: one sentence that defines the term")]),
        &PLAIN,
        Want::Refused(Some("summary"), 6, "placeholder"),
    );
    // Text added around it does not either.
    case(
        &text(&[(
            "summary: s",
            "summary: One sentence that defines the term. A warp is 32 lanes.",
        )]),
        &PLAIN,
        Want::Refused(Some("summary"), 6, "placeholder"),
    );
}

#[test]
fn a_published_entry_needs_every_field() {
    let t = text(&[
        ("written_on: 2026-11-01", "written_on: pending"),
        ("  last_checked_on: 2026-11-02\n", ""),
    ]);
    let Verdict::Refused(d) = verdict_of(&Arc::new(entry(&t)), &PLAIN) else {
        panic!("refusal expected")
    };
    let got: Vec<_> = d
        .iter()
        .map(|d| (d.field.as_deref().unwrap(), d.line))
        .collect();
    assert_eq!(
        got,
        [("byline.written_on", 13), ("byline.last_checked_on", 10)]
    );
    let t = text(&[("summary: s\n", ""), ("cc: \"7.5\"\n", "")]);
    let Verdict::Refused(d) = verdict_of(&Arc::new(entry(&t)), &PLAIN) else {
        panic!("refusal expected")
    };
    let got: Vec<_> = d.iter().map(|d| d.field.as_deref().unwrap()).collect();
    assert_eq!(got, ["cc", "summary"]);
    // A missing byline is unsigned.
    let t = BASE.split("byline:").next().unwrap().to_string() + "---\nbody\n";
    case(
        &t,
        &PLAIN,
        Want::Refused(Some("byline.written_by"), 1, "no named author"),
    );
}

#[test]
fn drafts_carry_their_reason() {
    let d = "---\ntitle: T\nstatus: draft\nbyline:\n  written_by: pending\n---\n";
    case(
        d,
        &PLAIN,
        Want::Draft("status is draft; no named author has signed"),
    );
    let e = entry(d);
    let Verdict::Draft(v) = verdict_of(&Arc::new(e), &PLAIN) else {
        panic!("draft")
    };
    assert_eq!(v.reason, "status is draft; no named author has signed");
    let t = text(&[("status: published", "status: in-review")]);
    let e = entry(&t);
    let Verdict::Draft(v) = verdict_of(&Arc::new(e), &PLAIN) else {
        panic!("draft")
    };
    assert_eq!(v.reason, "status is in-review");
}

#[test]
fn malformed_hashes_are_content_errors() {
    let t = text(&[(
        "  written_on:",
        "  reviewed_hash: sha256:abc\n  written_on:",
    )]);
    let d = parse_entry(Path::new(FILE), &t).unwrap_err();
    assert_eq!(
        (d[0].field.as_deref(), d[0].line),
        (Some("byline.reviewed_hash"), 13)
    );
    assert!(d[0].message.contains("is not a review hash"), "{d:?}");
}

/// Ways around the name and scaffold rules that once published under `--strict`: none may.
#[test]
fn disguised_names_and_scaffold_text_do_not_publish() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        // The reviewer is the author, spelled otherwise.
        (
            "trailing full stop",
            &[("reviewed_by: Grace Hopper", "reviewed_by: Ada Lovelace.")],
        ),
        (
            "no space",
            &[("reviewed_by: Grace Hopper", "reviewed_by: AdaLovelace")],
        ),
        (
            "a hyphen",
            &[("reviewed_by: Grace Hopper", "reviewed_by: Ada-Lovelace")],
        ),
        // The reviewer hides among the authors.
        (
            "middle dot",
            &[(
                "written_by: Ada Lovelace",
                "written_by: \"Ada Lovelace · Grace Hopper\"",
            )],
        ),
        (
            "bullet",
            &[(
                "written_by: Ada Lovelace",
                "written_by: \"Ada Lovelace • Grace Hopper\"",
            )],
        ),
        (
            "katakana dot",
            &[(
                "written_by: Ada Lovelace",
                "written_by: \"Ada Lovelace・Grace Hopper\"",
            )],
        ),
        (
            "en dash",
            &[(
                "written_by: Ada Lovelace",
                "written_by: \"Ada Lovelace – Grace Hopper\"",
            )],
        ),
        (
            "y",
            &[(
                "written_by: Ada Lovelace",
                "written_by: Ada Lovelace y Grace Hopper",
            )],
        ),
        (
            "with",
            &[(
                "written_by: Ada Lovelace",
                "written_by: Ada Lovelace with Grace Hopper",
            )],
        ),
        (
            "tab",
            &[(
                "written_by: Ada Lovelace",
                "written_by: \"Ada Lovelace\\tGrace Hopper\"",
            )],
        ),
        (
            "YAML fold",
            &[(
                "written_by: Ada Lovelace",
                "written_by: Ada Lovelace\n    Grace Hopper",
            )],
        ),
        (
            "quoted fold",
            &[(
                "written_by: Ada Lovelace",
                "written_by: \"Ada Lovelace\n    Grace Hopper\"",
            )],
        ),
        (
            "folded block",
            &[(
                "written_by: Ada Lovelace",
                "written_by: >\n    Ada Lovelace\n    Grace Hopper",
            )],
        ),
        (
            "item fold",
            &[(
                "written_by: Ada Lovelace",
                "written_by:\n    - Ada Lovelace\n      Grace Hopper",
            )],
        ),
        // Stand-ins for people.
        (
            "yes",
            &[("reviewed_by: Grace Hopper", "reviewed_by: \"yes\"")],
        ),
        (
            "one letter",
            &[("reviewed_by: Grace Hopper", "reviewed_by: Q")],
        ),
        (
            "John Doe",
            &[("reviewed_by: Grace Hopper", "reviewed_by: John Doe")],
        ),
        (
            "Reviewer Name",
            &[("reviewed_by: Grace Hopper", "reviewed_by: Reviewer Name")],
        ),
        (
            "The author",
            &[("written_by: Ada Lovelace", "written_by: The author")],
        ),
        (
            "myself",
            &[("reviewed_by: Grace Hopper", "reviewed_by: myself")],
        ),
        // Scaffold text, lightly disguised.
        (
            "no full stop",
            &[("summary: s", "summary: One sentence that defines the term")],
        ),
        (
            "lower case",
            &[("summary: s", "summary: one sentence that defines the term.")],
        ),
        (
            "NBSP",
            &[(
                "summary: s",
                "summary: \"One\u{a0}sentence that defines the term.\"",
            )],
        ),
        (
            "ZWSP",
            &[(
                "summary: s",
                "summary: \"One sentence that de\u{200b}fines the term.\"",
            )],
        ),
        (
            "US spelling",
            &[("category: Memory", "category: Uncategorized")],
        ),
        (
            "body re-wrapped",
            &[(
                "Body text of the entry.",
                "Intro.\n\nThe body, in\nMarkdown. Explain the term\nfrom first principles",
            )],
        ),
        (
            "body lower-cased",
            &[(
                "Body text of the entry.",
                "what the reader builds today, and why it matters for the days that follow",
            )],
        ),
    ];
    // A list of names over lines is no fold: it publishes.
    let listed = signed(&[(
        "written_by: Ada Lovelace",
        "written_by:\n    - Ada Lovelace   # the first\n\n    - Alan Turing",
    )]);
    assert!(matches!(
        verdict_of(&Arc::new(entry(&listed)), &STRICT),
        Verdict::Publish(_)
    ));
    for (what, edits) in cases {
        let e = Arc::new(entry(&signed(edits)));
        let verdict = verdict_of(&e, &STRICT);
        assert!(
            !matches!(verdict, Verdict::Publish(_)),
            "{what}: published: {:?}",
            e.meta.byline
        );
    }
}

/// A v3 pin (signed before the pin covered what a page shows) still pins an entry that
/// shows no file, so upgrading does not un-sign such a course; an entry that includes a
/// file, embeds an image or draws its diagram from a manifest must be signed again.
#[test]
fn a_v3_pin_holds_only_where_the_page_shows_no_file() {
    let v3 = BASE.replacen(
        "  last_checked_on:",
        &format!("  reviewed_hash: {PINNED_BASE_HASH_V3}\n  last_checked_on:"),
        1,
    );
    case(&v3, &STRICT, Want::Publish);
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
    std::fs::write(dir.path().join("kernels/k.cu"), "int x;\n").unwrap();
    let files = std::sync::Arc::new(pin::Files::new(dir.path()));
    let with_files = Rules {
        files: Some(files.clone()),
        ..STRICT
    };
    case(&v3, &with_files, Want::Publish);
    let including = v3.replace("Body text", "Body text\n\n```cuda file=kernels/k.cu\n```");
    case(
        &including,
        &with_files,
        Want::Refused(
            Some("byline.reviewed_hash"),
            14,
            "signed under the third review pin",
        ),
    );
    let e = entry(&including);
    let shown = files.shown(&e);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert_eq!(shown[0].path, "kernels/k.cu");
    // Under v4 the file's bytes are part of the pin: the same entry, another file, another hash.
    let v4 = pin::review_hash(&e, &shown);
    std::fs::write(dir.path().join("kernels/k.cu"), "int y;\n").unwrap();
    let after = pin::Files::new(dir.path()).shown(&e);
    assert_ne!(pin::review_hash(&e, &after), v4);
    assert_eq!(
        pin::review_hash(&e, &[]),
        pin::review_hash(&entry(&including), &[])
    );
    let (_, scheme, left_out) = pin::old_scheme(PINNED_BASE_HASH_V3, &shown).unwrap();
    assert_eq!(scheme, "the third review pin (`v3:sha256:`)");
    assert!(left_out.contains("files the page shows"), "{left_out}");
    assert!(pin::old_scheme(PINNED_BASE_HASH_V3, &[]).is_none());
}
