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
        html.contains("<li>lane</li>") || html.contains("<li>Lane</li>"),
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
    assert_code(&o, 1);
    let err = stderr(&o);
    assert!(
        err.contains("warp.md:20: link to `/glossary/lane/` points at a draft"),
        "{err}"
    );
    assert!(err.contains("warp.md:20: broken link: `../bank/`"), "{err}");
    assert!(!err.contains("e.org"), "{err}");
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
    assert_code(&o, 1);
    assert!(
        stderr(&o).contains("warp.md:20: broken link: `/glossary/nope/`"),
        "{}",
        stderr(&o)
    );
}
