//! The editorial rule: only signed, published entries reach the publish build; drafts
//! render in the preview with a banner and `noindex`.
use crate::util::*;
use std::process::Command;

#[test]
fn publishes_a_signed_entry() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    let html = site.read("public/glossary/warp/index.html");
    assert!(html.contains("<h1>Warp</h1>"));
    assert!(html.contains("Written by: Ada Lovelace. Reviewed by: Grace Hopper. Written on: 2026-11-01. Last checked on: 2026-11-20."));
    assert!(!html.contains("noindex"));
    assert!(!html.contains("draft-banner"));
    assert!(
        site.read("public/glossary/index.html")
            .contains("href=\"/glossary/warp/\"")
    );
    assert!(site.exists("public/style.css"));
}

#[test]
fn refuses_a_reviewer_who_is_the_author() {
    let site = Site::new();
    let text = published("Warp", "").replace(
        "reviewed_by: Grace Hopper",
        "reviewed_by: \" ada  LOVELACE\"",
    );
    site.write("content/glossary/lane.md", published("Lane", ""));
    assert_code(&site.run(&["build"]), 0);
    site.write("public/keep.txt", "previous build");
    site.write("content/glossary/warp.md", text);
    let o = site.run(&["build"]);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &[
            "content/glossary/warp.md:",
            "field `byline.reviewed_by`",
            "also an author",
        ],
    );
    assert_eq!(
        site.read("public/keep.txt"),
        "previous build",
        "a failed build must leave public/ alone"
    );
    assert!(site.exists("public/glossary/lane/index.html"));
    assert!(!site.exists("public/glossary/warp"));
}

#[test]
fn published_without_signatures_stops_the_build() {
    let site = Site::new();
    site.write(
        "content/glossary/warp.md",
        published("Warp", "").replace("written_by: Ada Lovelace", "written_by: pending"),
    );
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["field `byline.written_by`: no named author"]);
    assert!(!site.exists("public"));
}

#[test]
fn drafts_are_left_out_of_the_publish_build() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    site.write("content/glossary/lane.md", draft("Lane"));
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("draft content/glossary/lane.md: status is draft"),
        "{out}"
    );
    assert!(!site.exists("public/glossary/lane"));
    assert!(!site.read("public/glossary/index.html").contains("Lane"));
    assert!(!site.read("public/search-index.json").contains("lane"));
}

#[test]
fn drafts_render_in_the_preview_with_banner_and_noindex() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 0);
    let html = site.read("public/glossary/lane/index.html");
    assert!(html.contains("<meta name=\"robots\" content=\"noindex\">"));
    assert!(html.contains("class=\"draft-banner\""));
    assert!(html.contains(
        "This entry stays a draft until a named author and a different named reviewer sign it."
    ));
    assert!(html.contains("Course preview"));
    assert!(
        site.read("public/glossary/index.html")
            .contains("draft-tag")
    );
}

#[test]
fn every_page_of_the_preview_is_noindex_and_the_publish_build_only_its_404_and_search() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    site.write("content/glossary/warp.md", published("Warp", ""));
    let noindex = "<meta name=\"robots\" content=\"noindex\">";
    let pages = |out: &str| -> Vec<(String, String)> {
        walkdir::WalkDir::new(site.root().join(out))
            .into_iter()
            .map(|e| e.unwrap().into_path())
            .filter(|p| p.extension().is_some_and(|x| x == "html"))
            .map(|p| {
                (
                    p.display().to_string(),
                    std::fs::read_to_string(&p).unwrap(),
                )
            })
            .collect()
    };
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let preview = pages("public");
    assert!(preview.len() >= 5, "{preview:?}");
    for (path, html) in &preview {
        assert_eq!(html.matches(noindex).count(), 1, "{path}");
    }
    assert_code(&site.run(&["build"]), 0);
    for (path, html) in pages("public") {
        let wanted = path.ends_with("404.html") || path.ends_with("search/index.html");
        assert_eq!(html.contains(noindex), wanted, "{path}");
    }
}

#[test]
fn several_names_in_one_string_are_refused() {
    let site = Site::new();
    let text = published("Warp", "").replace(
        "written_by: Ada Lovelace",
        "written_by: Ada Lovelace, Grace Hopper",
    );
    site.write("content/glossary/warp.md", text);
    let o = site.run(&["build"]);
    assert_fails_at(
        &o,
        "warp.md:12",
        "field `byline.written_by`: `Ada Lovelace, Grace Hopper` looks like several names",
    );
    assert_stderr_has(&o, &["written_by: [Ada Lovelace, Grace Hopper]"]);
}

#[test]
fn sitemap_lists_only_published_pages() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    site.write("content/glossary/lane.md", draft("Lane"));
    assert_code(
        &site.run(&["build", "--base-url", "https://course.example.org/"]),
        0,
    );
    let xml = site.read("public/sitemap.xml");
    assert!(
        xml.contains("<loc>https://course.example.org/glossary/warp/</loc>"),
        "{xml}"
    );
    assert!(!xml.contains("lane"), "{xml}");
    assert_code(
        &site.run(&[
            "build",
            "--drafts",
            "--base-url",
            "https://course.example.org/",
        ]),
        0,
    );
    assert!(
        !site.exists("public/sitemap.xml"),
        "the preview is noindex: no sitemap"
    );
}

#[test]
fn the_repository_preview_has_every_part_of_the_seed() {
    let out = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .args(["build", "--drafts", "--root"])
        .arg(repo())
        .arg("--out")
        .arg(out.path().join("public"))
        .output()
        .unwrap();
    assert_code(&o, 0);
    let html = std::fs::read_to_string(
        out.path()
            .join("public/glossary/shared-memory-bank/index.html"),
    )
    .unwrap();
    let parts = [
        // The breadcrumb back to the glossary (Home / CUDA glossary / Memory / page): the
        // name this course's config gives the section.
        "href=\"/glossary/\">CUDA glossary</a>",
        "<span>CUDA glossary</span>",
        "Memory",
        "CC 7.5",
        "<h1>What is a shared memory bank on a GPU?</h1>",
        "One of 32 independent slices of shared memory",
        // The first mention of a glossary term links to it (issue 39).
        "Ask a <a class=\"term\" href=\"/glossary/warp/\"",
        ">Measured</h2>",
        ">Diagram</h2>",
        "Words of a 32-wide shared tile shaded by bank.",
        ">Related terms</h2>",
        ">Where you meet this</h2>",
        ">Sources</h2>",
        ">Byline</h2>",
        "Written by: pending. Reviewed by: pending. Written on: pending. Last checked on: pending.",
        "This entry stays a draft until a named author and a different named reviewer sign it.",
    ];
    let mut last = 0;
    for part in parts {
        let at = html[last..].find(part).map(|i| i + last);
        assert!(at.is_some(), "missing or out of order: {part}");
        last = at.unwrap();
    }
    let o = Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .args(["build", "--root"])
        .arg(repo())
        .arg("--out")
        .arg(out.path().join("publish"))
        .output()
        .unwrap();
    assert_code(&o, 0);
    assert!(
        !out.path()
            .join("publish/glossary/shared-memory-bank")
            .exists()
    );
}

#[test]
fn entries_in_review_are_left_out_of_the_publish_build_even_when_signed() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    site.write(
        "content/glossary/lane.md",
        published("Lane", "").replace("status: published", "status: in-review"),
    );
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains("draft content/glossary/lane.md: status is in-review"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(!site.exists("public/glossary/lane"));
    assert!(
        !site
            .read("public/glossary/index.html")
            .contains("/glossary/lane/")
    );
    assert!(
        !site
            .read("public/search-index.json")
            .contains("/glossary/lane/")
    );
    assert_code(&site.run(&["build", "--drafts"]), 0);
    assert!(
        site.read("public/glossary/lane/index.html")
            .contains("draft-banner")
    );
}

#[test]
fn the_search_index_lists_every_published_entry_and_no_draft() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    site.write("content/glossary/bank.md", published("Bank", ""));
    site.write("content/glossary/lane.md", draft("Lane"));
    assert_code(&site.run(&["build"]), 0);
    let index: serde_json::Value =
        serde_json::from_str(&site.read("public/search-index.json")).unwrap();
    let mut urls: Vec<&str> = index
        .as_array()
        .expect("a list")
        .iter()
        .map(|i| i["url"].as_str().unwrap())
        .collect();
    urls.sort();
    assert_eq!(urls, ["/glossary/bank/", "/glossary/warp/"]);
    assert_eq!(index[0]["term"], "Bank", "{index}");
}

/// Issue 36: one `check` reports every problem of every entry — a draft's as well as a
/// published entry's — each saying which build it blocks. Before, plain `check` hid the
/// draft's broken link and `check --drafts` hid the published entry's stale review.
#[test]
fn one_check_reports_every_entry_and_what_each_problem_blocks() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    let sign = [
        "sign",
        "content/glossary/warp.md",
        "--reviewer",
        "Grace Hopper",
    ];
    assert_code(&site.run(&sign), 0);
    let edited = site
        .read("content/glossary/warp.md")
        .replace("Body of Warp.", "Body of Warps.");
    site.write("content/glossary/warp.md", edited);
    site.write(
        "content/glossary/draft.md",
        "---\ntitle: Draft\nstatus: draft\n---\nSee [it](/glossary/nope/).\n",
    );
    let o = site.run(&["check", "--strict"]);
    assert_fails_at(
        &o,
        "content/glossary/draft.md:5",
        "broken link: `/glossary/nope/` is not a page or file of this site (blocks the preview only, where this entry is a draft)",
    );
    let pinned = (site.read("content/glossary/warp.md").lines())
        .position(|l| l.contains("reviewed_hash"))
        .unwrap()
        + 1;
    assert_fails_at(
        &o,
        &format!("content/glossary/warp.md:{pinned}"),
        "field `byline.reviewed_hash`: edited since review",
    );
    assert_stderr_has(
        &o,
        &["must review it again (blocks the published site only)"],
    );
    // `--drafts` is the preview's check alone, as before.
    let o = site.run(&["check", "--drafts"]);
    assert_fails_at(
        &o,
        "content/glossary/draft.md:5",
        "broken link: `/glossary/nope/` is not a page or file of this site",
    );
    assert_stderr_lacks(&o, &["blocks", "warp.md"]);
}
