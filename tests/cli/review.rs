//! Reviews end to end (issue 10): `sign` pins a review to the text, an edit holds the
//! entry back until a reviewer signs again, names cannot be faked, reviews expire,
//! scaffold text is never published, and `status` shows where every entry stands.
use std::process::Command;

use crate::util::*;

const WARP: &str = "content/glossary/warp.md";

fn sign(site: &Site, file: &str, reviewer: &str) -> std::process::Output {
    site.run(&["sign", file, "--reviewer", reviewer])
}

/// The line of `file` that starts with `prefix` (1-based).
fn line_of(site: &Site, file: &str, prefix: &str) -> usize {
    site.read(file)
        .lines()
        .position(|l| l.trim_start().starts_with(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` in {file}"))
        + 1
}

#[test]
fn sign_publish_edit_refused_sign_again_published() {
    let site = Site::new();
    site.write(WARP, published("Warp", ""));
    let o = sign(&site, WARP, "Grace Hopper");
    assert_code(&o, 0);
    assert!(
        stdout(&o).contains(
            "signed content/glossary/warp.md as reviewed by Grace Hopper on 2026-11-30 (v4:sha256:"
        ),
        "{}",
        stdout(&o)
    );
    assert_code(&site.run(&["build", "--strict"]), 0);
    assert!(
        site.read("public/glossary/warp/index.html")
            .contains("Body of Warp.")
    );

    // One word changes after the review.
    site.write(
        WARP,
        site.read(WARP).replace("Body of Warp.", "Body of Warps."),
    );
    let o = site.run(&["build", "--strict"]);
    let line = line_of(&site, WARP, "reviewed_hash:");
    assert_fails_at(
        &o,
        &format!("content/glossary/warp.md:{line}"),
        "field `byline.reviewed_hash`: edited since review",
    );
    assert_stderr_has(
        &o,
        &[
            "Grace Hopper must review it again",
            "run `coursegen sign content/glossary/warp.md --reviewer \"Grace Hopper\"`",
        ],
    );
    // A plain build refuses it too (its status says published), and leaves the site alone.
    assert_code(&site.run(&["build"]), 1);
    assert!(
        site.read("public/glossary/warp/index.html")
            .contains("Body of Warp.")
    );
    // The preview shows it, marked.
    let preview = site.root().join("preview");
    let o = site.run(&["build", "--drafts", "--out", preview.to_str().unwrap()]);
    assert_code(&o, 0);
    let html = site.read("preview/glossary/warp/index.html");
    assert!(html.contains("edited since review"), "{html}");
    assert!(html.contains("noindex"));

    // The reviewer reads the change and signs again.
    assert_code(&sign(&site, WARP, "Grace Hopper"), 0);
    assert_code(&site.run(&["build", "--strict"]), 0);
    assert!(
        site.read("public/glossary/warp/index.html")
            .contains("Body of Warps.")
    );
}

#[test]
fn sign_edits_only_the_byline_lines() {
    let site = Site::new();
    let original = published("Warp", "related: []   # none yet\n")
        .replace("  reviewed_by: Grace Hopper\n", "")
        .replace(
            "last_checked_on: 2026-11-20",
            "last_checked_on: pending   # after review",
        )
        .replace('\n', "\r\n");
    site.write(WARP, format!("\u{feff}{original}"));
    let o = site.run(&[
        "sign",
        WARP,
        "--reviewer",
        "Grace O'Hara",
        "--reviewer",
        "Alan Turing",
    ]);
    assert_code(&o, 0);
    let after = site.read(WARP);
    assert!(after.starts_with('\u{feff}'), "the BOM stays");
    let before: Vec<&str> = original.split("\r\n").collect();
    let now: Vec<&str> = after.trim_start_matches('\u{feff}').split("\r\n").collect();
    assert_eq!(
        after.matches('\n').count(),
        after.matches("\r\n").count(),
        "CRLF stays"
    );
    let changed: Vec<&str> = now
        .iter()
        .filter(|l| !before.contains(l))
        .copied()
        .collect();
    let hash = changed
        .iter()
        .find(|l| l.contains("reviewed_hash"))
        .expect("hash line");
    assert_eq!(
        changed,
        [
            "  last_checked_on: 2026-11-30 # after review",
            "  reviewed_by: [Grace O'Hara, Alan Turing]",
            *hash,
        ],
        "{after}"
    );
    assert_eq!(now.len(), before.len() + 2, "two lines added, none lost");
    assert_code(&site.run(&["build", "--strict"]), 0);
    let html = site.read("public/glossary/warp/index.html");
    assert!(
        html.contains("Reviewed by: Grace O&#x27;Hara and Alan Turing."),
        "{html}"
    );
}

#[test]
fn sign_with_author_and_publish_fills_the_byline_of_a_draft() {
    let site = Site::new();
    site.write(
        WARP,
        published("Warp", "")
            .replace("status: published", "status: in-review")
            .replace("written_by: Ada Lovelace", "written_by: pending")
            .replace("written_on: 2026-11-01", "written_on: pending"),
    );
    let o = site.run(&[
        "sign",
        WARP,
        "--reviewer",
        "Grace\u{200B} Hopper",
        "--author",
        "Ada Lovelace",
        "--publish",
    ]);
    assert_code(&o, 0);
    let text = site.read(WARP);
    assert!(
        !text.contains('\u{200B}'),
        "invisible characters are not written"
    );
    for line in [
        "status: published",
        "written_by: Ada Lovelace",
        "written_on: 2026-11-30",
        "reviewed_by: Grace Hopper",
        "last_checked_on: 2026-11-30",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
    assert_code(&site.run(&["build", "--strict"]), 0);
    // Without --publish, sign says what still keeps it back.
    site.write("content/glossary/lane.md", draft("Lane"));
    let o = sign(&site, "content/glossary/lane.md", "Grace Hopper");
    assert_code(&o, 0);
    let out = stdout(&o);
    assert!(out.contains("note: still keeps it from being published: content/glossary/lane.md:4: field `byline.written_by`: no named author has signed"), "{out}");
    assert!(out.contains("field `status`: status is draft"), "{out}");
}

#[test]
fn sign_refuses_signatures_that_break_the_rule() {
    let site = Site::new();
    site.write(WARP, published("Warp", ""));
    let before = site.read(WARP);
    for (reviewer, message) in [
        (
            "ada  LOVELACE",
            "field `byline.reviewed_by`: reviewer `ada LOVELACE` is also an author",
        ),
        (
            "\u{410}da Lovelace",
            "looks the same as author `Ada Lovelace`",
        ),
        ("Ada\u{200B} Lovelace", "is also an author"),
        (
            "TBD",
            "field `byline.reviewed_by`: --reviewer `TBD` counts as a placeholder, not a person's name",
        ),
        ("-", "--reviewer `-` counts as a placeholder"),
        (
            "Grace Hopper, Alan Turing",
            "`Grace Hopper, Alan Turing` looks like several names in one",
        ),
        ("Grace\nAlan", "looks like several names in one"),
        ("42", "`42` is not a name: a name must contain letters"),
    ] {
        let o = sign(&site, WARP, reviewer);
        assert_fails_at(&o, "content/glossary/warp.md:13", "");
        let err = stderr(&o);
        assert!(err.contains(message), "{reviewer}: {err}");
        assert_stderr_has(&o, &["the file was not changed"]);
        assert_eq!(
            site.read(WARP),
            before,
            "{reviewer}: the file must not change"
        );
    }
    // Not an entry: usage errors.
    site.write("notes.md", "---\ntitle: x\n---\n");
    assert_code(&sign(&site, "notes.md", "Grace Hopper"), 2);
    assert_code(&sign(&site, "content/glossary/nope.md", "Grace Hopper"), 2);
    assert_code(&site.run(&["sign", WARP]), 2);
    // A broken entry is reported, not signed.
    site.write("content/glossary/bad.md", "---\ntitle: x\ntitel: y\n---\n");
    let o = sign(&site, "content/glossary/bad.md", "Grace Hopper");
    assert_fails_at(&o, "bad.md:3", "field `titel`");
}

#[test]
fn strict_builds_require_a_pinned_review() {
    let site = Site::new();
    site.write(WARP, published("Warp", ""));
    assert_code(&site.run(&["build"]), 0);
    let o = site.run(&["build", "--strict"]);
    assert_fails_at(
        &o,
        "warp.md:11",
        "field `byline.reviewed_hash`: no `reviewed_hash`",
    );
    assert_stderr_has(
        &o,
        &[
            "the reviewer runs `coursegen sign content/glossary/warp.md --reviewer \"Grace Hopper\"`",
        ],
    );
    assert_code(&site.run(&["check", "--strict"]), 1);
    // A hash that is not one is an error in every build.
    site.write(
        WARP,
        published("Warp", "").replace(
            "  written_on:",
            "  reviewed_hash: sha256:beef\n  written_on:",
        ),
    );
    let o = site.run(&["build"]);
    assert_fails_at(
        &o,
        "warp.md:14",
        "field `byline.reviewed_hash`: `sha256:beef` is not a review hash",
    );
}

#[test]
fn reviews_expire_and_dates_must_be_possible() {
    let site = Site::new();
    let old = published("Warp", "")
        .replace("written_on: 2026-11-01", "written_on: 2025-06-01")
        .replace("last_checked_on: 2026-11-20", "last_checked_on: 2025-07-01");
    site.write(WARP, &old);
    // Signed on 2025-07-01 (the pin covers the date, so it cannot be moved afterwards).
    let o = Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .env("SOURCE_DATE_EPOCH", "1751328000")
        .args(["sign", WARP, "--reviewer", "Grace Hopper", "--root"])
        .arg(site.root())
        .output()
        .unwrap();
    assert_code(&o, 0);
    assert!(site.read(WARP).contains("last_checked_on: 2025-07-01"));
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    assert_stderr_has(
        &o,
        &[
            "warning: content/glossary/warp.md:15: field `byline.last_checked_on`: last checked on 2025-07-01, 517 days ago: a review is valid for 365 days",
        ],
    );
    let o = site.run(&["build", "--strict"]);
    assert_fails_at(
        &o,
        "content/glossary/warp.md:15",
        "field `byline.last_checked_on`: last checked on 2025-07-01",
    );
    assert_code(
        &site.run(&["build", "--strict", "--review-max-age", "600"]),
        0,
    );
    assert_code(&site.run(&["build", "--review-max-age", "0"]), 2);
    // Signing again renews it.
    assert_code(&sign(&site, WARP, "Grace Hopper"), 0);
    assert_code(&site.run(&["build", "--strict"]), 0);

    let future =
        published("Warp", "").replace("last_checked_on: 2026-11-20", "last_checked_on: 2026-12-24");
    site.write(WARP, future.replace("status: published", "status: draft"));
    let o = site.run(&["build", "--drafts"]);
    assert_fails_at(
        &o,
        "warp.md:15",
        "field `byline.last_checked_on`: 2026-12-24 is in the future (today is 2026-11-30)",
    );
    site.write(
        WARP,
        published("Warp", "").replace("last_checked_on: 2026-11-20", "last_checked_on: 2026-10-20"),
    );
    let o = site.run(&["build"]);
    assert_fails_at(
        &o,
        "warp.md:15",
        "field `byline.last_checked_on`: last checked on 2026-10-20, before it was written on 2026-11-01",
    );
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .env("SOURCE_DATE_EPOCH", "yesterday")
        .args(["check", "--root"])
        .arg(site.root())
        .output()
        .unwrap();
    assert_code(&bad, 2);
    assert_stderr_has(&bad, &["SOURCE_DATE_EPOCH"]);
}

#[test]
fn names_cannot_be_faked() {
    let site = Site::new();
    // (reviewed_by as written in YAML, message); every one stops the publish build.
    for (reviewer, message) in [
        ("\"Ada\\u200B Lovelace\"", "is also an author"),
        ("\"Ada\\u00AD Lovelace\"", "is also an author"),
        ("\"\\u202EAda Lovelace\"", "is also an author"),
        ("\u{410}da Lovelace", "looks the same as author"),
        ("\"pend\\u200Bing\"", "no named reviewer has signed"),
        ("none", "no named reviewer has signed"),
        ("N.A.", "no named reviewer has signed"),
        ("\"?\"", "no named reviewer has signed"),
        ("x", "no named reviewer has signed"),
        (
            "\"Grace Hopper | Ada Lovelace\"",
            "looks like several names in one",
        ),
        (
            "\"Grace Hopper\\nAda Lovelace\"",
            "looks like several names in one",
        ),
        (
            "Grace Hopper，Ada Lovelace",
            "looks like several names in one",
        ),
        (
            "Grace Hopper ＆ Ada Lovelace",
            "looks like several names in one",
        ),
    ] {
        site.write(
            WARP,
            published("Warp", "").replace(
                "reviewed_by: Grace Hopper",
                &format!("reviewed_by: {reviewer}"),
            ),
        );
        let o = site.run(&["build"]);
        assert_fails_at(&o, "warp.md:13", "field `byline.reviewed_by`: ");
        let err = stderr(&o);
        assert!(err.contains(message), "{reviewer}: {err}");
    }
}

#[test]
fn scaffold_text_is_never_published() {
    let site = Site::new();
    assert_code(&site.run(&["new", "glossary", "warp-divergence"]), 0);
    let file = "content/glossary/warp-divergence.md";
    let sign = |publish: bool| {
        let mut args = vec![
            "sign",
            file,
            "--reviewer",
            "Grace Hopper",
            "--author",
            "Ada Lovelace",
        ];
        if publish {
            args.push("--publish");
        }
        site.run(&args)
    };
    // `sign --publish` refuses it, saying why, and writes nothing (issue 36).
    let scaffold = site.read(file);
    let o = sign(true);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &[
            "field `summary`: still holds the scaffold's placeholder",
            "--publish refused",
        ],
    );
    assert_eq!(site.read(file), scaffold);
    // Published by hand and signed, it still does not build.
    site.write(file, scaffold.replace("status: draft", "status: published"));
    let o = sign(false);
    assert_code(&o, 0);
    assert!(
        stdout(&o).contains("field `summary`: still holds the scaffold's placeholder"),
        "{}",
        stdout(&o)
    );
    let o = site.run(&["build"]);
    assert_fails_at(
        &o,
        "warp-divergence.md:4",
        "field `category`: still holds the scaffold's placeholder \"Uncategorised\"",
    );
    assert_fails_at(
        &o,
        "warp-divergence.md:6",
        "field `summary`: still holds the scaffold's placeholder \"One sentence that defines the term.\"",
    );
    let body = line_of(&site, file, "The body, in Markdown.");
    assert_fails_at(
        &o,
        &format!("warp-divergence.md:{body}"),
        "the body still holds the scaffold's placeholder text",
    );
    let o = site.run(&["status"]);
    assert_code(&o, 0);
    assert!(stdout(&o).contains("placeholder  content/glossary/warp-divergence.md  Ada Lovelace  Grace Hopper  category, summary, body"), "{}", stdout(&o));
}

#[test]
fn new_scaffolds_day_pages_and_refuses_unknown_sections_and_taken_slugs() {
    let site = Site::new();
    assert_code(&site.run(&["new", "days", "day-16"]), 0);
    let day = site.read("content/days/day-16.md");
    assert!(day.contains("title: \"Day 16: the day's topic\""), "{day}");
    assert!(
        !day.contains("term:") && !day.contains("category:") && !day.contains("cc:"),
        "{day}"
    );
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 0);
    assert!(stdout(&o).contains("draft content/days/day-16.md: status is draft; no named author has signed; scaffold text left in title, summary, body"), "{}", stdout(&o));
    assert!(site.exists("public/days/day-16/index.html"));

    let o = site.run(&["new", "glosary", "warp"]);
    assert_code(&o, 2);
    assert_stderr_has(
        &o,
        &[
            "there is no section `glosary` under content/ (sections now: days, glossary); did you mean `glossary`?",
        ],
    );
    assert!(!site.exists("content/glosary"));
    assert_code(&site.run(&["new", "notes", "setup", "--new-section"]), 0);
    assert!(site.read("content/notes/setup.md").contains("title: Setup"));
    assert_code(&site.run(&["new", "notes", "more"]), 0);

    site.write(WARP, draft("Warp"));
    let o = site.run(&["new", "glossary/memory", "WARP"]);
    assert_code(&o, 2);
    assert_stderr_has(
        &o,
        &["slug `WARP` is already used by content/glossary/warp.md"],
    );
    site.write(
        "content/glossary/lanes.md",
        "---\ntitle: Lane\nslug: lane\n---\n",
    );
    let o = site.run(&["new", "glossary/memory", "lane"]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["already used by content/glossary/lanes.md"]);
    // The build checks the same across sub-folders, naming the `slug:` line.
    site.write(
        "content/glossary/zz/x.md",
        "---\ntitle: X\nslug: warp\n---\n",
    );
    let o = site.run(&["check"]);
    assert_fails_at(
        &o,
        "content/glossary/zz/x.md:3",
        "field `slug`: slug `warp` is already used by content/glossary/warp.md",
    );
}

#[test]
fn status_lists_every_entry_with_what_it_needs() {
    let site = Site::new();
    site.write("content/glossary/a-published.md", published("A", ""));
    site.write("content/glossary/b-draft.md", draft("B"));
    site.write(
        "content/glossary/c-review.md",
        published("C", "").replace("status: published", "status: in-review"),
    );
    site.write("content/glossary/d-edited.md", published("D", ""));
    assert_code(
        &sign(&site, "content/glossary/d-edited.md", "Grace Hopper"),
        0,
    );
    site.write(
        "content/glossary/d-edited.md",
        site.read("content/glossary/d-edited.md")
            .replace("Body of D.", "Body of D, edited."),
    );
    site.write(
        "content/glossary/e-expired.md",
        published("E", "")
            .replace("written_on: 2026-11-01", "written_on: 2024-01-01")
            .replace("last_checked_on: 2026-11-20", "last_checked_on: 2024-02-01"),
    );
    let o = site.run(&["status"]);
    assert_code(&o, 0);
    let out = stdout(&o);
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .take(5)
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    assert_eq!(
        rows,
        [
            vec![
                "published",
                "content/glossary/a-published.md",
                "Ada Lovelace",
                "Grace Hopper",
                "reviewed_hash"
            ],
            vec![
                "draft",
                "content/glossary/b-draft.md",
                "-",
                "-",
                "author, reviewer, term, category, cc, summary, sources, byline.written_on, byline.last_checked_on"
            ],
            vec![
                "in review",
                "content/glossary/c-review.md",
                "Ada Lovelace",
                "Grace Hopper",
                "reviewed_hash"
            ],
            vec![
                "edited since review",
                "content/glossary/d-edited.md",
                "Ada Lovelace",
                "Grace Hopper",
                "review of the latest edit"
            ],
            vec![
                "expired",
                "content/glossary/e-expired.md",
                "Ada Lovelace",
                "Grace Hopper",
                "reviewed_hash, a review within 365 days"
            ],
        ],
        "{out}"
    );
    assert!(
        out.contains(
            "5 entries: 1 draft, 1 edited since review, 1 expired, 1 in review, 1 published"
        ),
        "{out}"
    );
    let o = site.run(&["status", "--json"]);
    assert_code(&o, 0);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["today"], "2026-11-30");
    let d = &json["entries"][3];
    assert_eq!(d["file"], "content/glossary/d-edited.md");
    assert_eq!(d["state"], "edited since review");
    assert_eq!(d["status"], "published");
    assert_eq!(d["reviewers"], serde_json::json!(["Grace Hopper"]));
    assert_eq!(d["problems"][0]["kind"], "edited");
    assert_eq!(d["problems"][0]["field"], "byline.reviewed_hash");
    assert_eq!(d["problems"][0]["line"], 16);
}

#[test]
fn status_reports_broken_entries_and_a_missing_content_folder() {
    let site = Site::new();
    site.write(WARP, "---\ntitle: Warp\nstatus: publshed\n---\n");
    let o = site.run(&["status"]);
    assert_fails_at(&o, "warp.md:3", "field `status`: unknown status `publshed`");
    let empty = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .args(["status", "--root"])
        .arg(empty.path())
        .output()
        .unwrap();
    assert_code(&o, 2);
    assert_stderr_has(&o, &["has no content/ folder"]);
}
