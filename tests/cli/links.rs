//! Links: related terms, body links (Markdown and HTML), links to drafts.
use crate::util::*;

#[test]
fn related_terms_link_by_term_and_unlink_drafts_when_publishing() {
    let site = Site::new();
    site.write(
        "content/glossary/warp.md",
        published("Warp", "related: [lane, bank]\n"),
    );
    site.write("content/glossary/lane.md", draft("Lane"));
    site.write(
        "content/glossary/bank.md",
        published("Shared memory bank", ""),
    );
    assert_code(&site.run(&["build"]), 0);
    let html = site.read("public/glossary/warp/index.html");
    assert!(
        html.contains("<a href=\"/glossary/bank/\">Shared memory bank</a>"),
        "{html}"
    );
    assert!(
        // A related draft is not a link, and says why (issue 39).
        html.contains("<li>Lane <span class=\"not-published\">(not published yet)</span></li>"),
        "{html}"
    );
    assert_code(&site.run(&["build", "--drafts"]), 0);
    assert!(
        site.read("public/glossary/warp/index.html")
            .contains("<a href=\"/glossary/lane/\">Lane</a>")
    );
}

#[test]
fn broken_internal_links_are_errors_with_lines() {
    let site = Site::new();
    site.write(
        "content/glossary/warp.md",
        format!(
            "{}\nSee [lane](/glossary/lane/) and [bank](../bank/) and [ext](https://e.org/).\n",
            published("Warp", "")
        ),
    );
    site.write("content/glossary/lane.md", draft("Lane"));
    let o = site.run(&["build"]);
    assert_fails_at(
        &o,
        "warp.md:20",
        "link to `/glossary/lane/` points at a draft",
    );
    assert_fails_at(&o, "warp.md:20", "broken link: `../bank/`");
    assert_stderr_lacks(&o, &["e.org"]);
    site.write("content/glossary/bank.md", draft("Bank"));
    assert_code(&site.run(&["build", "--drafts"]), 0);
}

#[test]
fn links_written_as_html_are_checked_too() {
    let site = Site::new();
    site.write(
        "content/glossary/warp.md",
        format!(
            "{}\n<a href=\"/glossary/nope/\">x</a>\n",
            published("Warp", "")
        ),
    );
    let o = site.run(&["build"]);
    assert_fails_at(&o, "warp.md:20", "broken link: `/glossary/nope/`");
}

/// The prose under `## Measured` and `## Diagram` is rendered apart from the main text; its
/// links are checked all the same.
#[test]
fn links_in_the_measured_and_diagram_prose_are_checked() {
    let site = measured_site(true);
    let diagram = "diagram:\n  preset: bank-map\n  alt: a\n";
    site.write(
        "content/glossary/bank.md",
        format!(
            "{}\n## Measured\n\nSee [m](/glossary/no-measured/).\n\n## Diagram\n\nSee [d](/glossary/no-diagram/).\n",
            published("Bank", &format!("measure: bank_conflicts\n{diagram}"))
        ),
    );
    let o = site.run(&["check"]);
    assert_fails_at(&o, "bank.md:26", "broken link: `/glossary/no-measured/`");
    assert_fails_at(&o, "bank.md:30", "broken link: `/glossary/no-diagram/`");
}

/// A link to an entry that the editorial rule refuses says that the entry is refused, and
/// why in brief, not that the page does not exist (issue 36).
#[test]
fn a_link_to_a_refused_entry_says_the_entry_is_refused() {
    let site = Site::new();
    site.write(
        "content/glossary/bank.md",
        format!("{}\nSee [warp](/glossary/warp/).\n", published("Bank", "")),
    );
    // Claims published, but lacks its summary.
    site.write(
        "content/glossary/warp.md",
        published("Warp", "").replace("summary: A term.\n", ""),
    );
    let o = site.run(&["build"]);
    assert_fails_at(
        &o,
        "content/glossary/bank.md:20",
        "link to `/glossary/warp/` points at content/glossary/warp.md, an entry this build refuses (field `summary`: a published entry needs this field)",
    );
    assert_stderr_lacks(&o, &["broken link"]);
}
