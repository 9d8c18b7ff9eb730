//! Runs the real `coursegen` binary on small fixture sites in temp dirs and checks exit
//! codes, stderr and the files written (after mdBook's testsuite and just's tests/lib.rs).
//!
//! One integration binary; each subject adds a module here and uses `util`.
mod reader;
mod util;

use std::path::PathBuf;
use std::process::Command;

use util::*;

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
    let err = stderr(&o);
    assert!(err.contains("content/glossary/warp.md:"), "{err}");
    assert!(err.contains("field `byline.reviewed_by`"), "{err}");
    assert!(err.contains("also an author"), "{err}");
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
    assert!(
        stderr(&o).contains("field `byline.written_by`: no named author"),
        "{}",
        stderr(&o)
    );
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

/// Every bad input of issue 2 item 7: (file contents, expected line, expected stderr fragments).
#[test]
fn bad_front_matter_is_reported_with_file_line_and_field() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "no closing",
            "---\ntitle: x\nbody\n",
            &["x.md:3:", "never closed"],
        ),
        (
            "no opening",
            "title: x\n",
            &["x.md:1:", "must start with a line `---`"],
        ),
        (
            "yaml syntax",
            "---\ntitle: x\nrelated: [a, b\n---\n",
            &[
                "x.md:3:",
                "did not find expected",
                "help: the YAML does not parse near here",
            ],
        ),
        (
            "not a mapping",
            "---\n- a\n- b\n---\n",
            &["x.md:2:", "must be a mapping"],
        ),
        (
            "unknown field",
            "---\ntitle: x\ncategroy: Memory\n---\n",
            &["x.md:3:", "field `categroy`", "did you mean `category`?"],
        ),
        (
            "wrong type",
            "---\ntitle: x\nrelated: 5\n---\n",
            &["x.md:3:", "field `related`", "invalid type"],
        ),
        (
            "nested wrong type",
            "---\ntitle: x\ndiagram:\n  preset: bank-map\n  width: wide\n  alt: a\n---\n",
            &["x.md:5:", "field `diagram.width`"],
        ),
        (
            "bad status",
            "---\ntitle: x\nstatus: done\n---\n",
            &["x.md:3:", "field `status`", "draft, in-review, published"],
        ),
        (
            "bad date",
            "---\ntitle: x\nbyline:\n  written_on: 30/11/2026\n---\n",
            &["x.md:4:", "field `byline.written_on`", "YYYY-MM-DD"],
        ),
        (
            "no title",
            "---\nterm: x\n---\n",
            &["x.md:1:", "field `title`", "add `title:"],
        ),
        (
            "diagram without alt",
            "---\ntitle: x\ndiagram:\n  preset: bank-map\n---\n",
            &["x.md:3:", "field `diagram.alt`"],
        ),
        (
            "slug with ..",
            "---\ntitle: x\nslug: a..b\n---\n",
            &["x.md:3:", "field `slug`", "`..`"],
        ),
        (
            "slug with /",
            "---\ntitle: x\nslug: a/b\n---\n",
            &["x.md:3:", "path separator"],
        ),
        (
            "slug with \\",
            "---\ntitle: x\nslug: 'a\\b'\n---\n",
            &["x.md:3:", "path separator"],
        ),
        (
            "slug with control",
            "---\ntitle: x\nslug: \"a\\tb\"\n---\n",
            &["x.md:3:", "control character"],
        ),
        (
            "unresolved related",
            "---\ntitle: x\nrelated: [warpp]\n---\n",
            &[
                "x.md:3:",
                "field `related`",
                "`warpp` is not a glossary entry",
            ],
        ),
        (
            "unresolved day",
            "---\ntitle: x\nappears_in: [day-99]\n---\n",
            &["x.md:3:", "field `appears_in`", "not a day page"],
        ),
        (
            "javascript source",
            "---\ntitle: x\nsources:\n  - {title: a, url: \"javascript:alert(1)\"}\n---\n",
            &["x.md:3:", "field `sources`", "not http(s)"],
        ),
    ];
    for (name, text, wants) in cases {
        let site = Site::new();
        site.write("content/glossary/x.md", text);
        let o = site.run(&["build", "--drafts"]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        for want in *wants {
            assert!(err.contains(want), "{name}: wanted {want:?} in\n{err}");
        }
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert!(!site.exists("public"), "{name}: nothing may be written");
    }
}

#[test]
fn all_problems_are_reported_together() {
    let site = Site::new();
    site.write("content/glossary/a.md", "---\ntitle: a\ntitel: b\n---\n");
    site.write(
        "content/glossary/b.md",
        "---\ntitle: b\nrelated: [zzz]\n---\n",
    );
    let o = site.run(&["check"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    assert!(
        err.contains("a.md:3") && err.contains("b.md:3") && err.contains("2 problems found"),
        "{err}"
    );
}

#[test]
fn duplicate_slugs_are_refused_even_when_case_differs() {
    let site = Site::new();
    site.write("content/glossary/warp.md", draft("Warp"));
    site.write("content/glossary/sub/Warp.md", draft("Warp again"));
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    assert!(
        err.contains("content/glossary/warp.md") && err.contains("content/glossary/sub/Warp.md"),
        "{err}"
    );
    assert!(err.contains("is already used by"), "{err}");
}

#[test]
fn invalid_utf8_names_the_line() {
    let site = Site::new();
    site.write(
        "content/glossary/x.md",
        b"---\ntitle: x\n---\nok\nbad \xff here\n".as_slice(),
    );
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    assert!(
        stderr(&o).contains("x.md:5: the file is not valid UTF-8"),
        "{}",
        stderr(&o)
    );
}

#[cfg(unix)]
#[test]
fn symlinks_leaving_the_root_are_refused() {
    let site = Site::new();
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(outside.path(), draft("Secret")).unwrap();
    std::os::unix::fs::symlink(
        outside.path(),
        site.root().join("content/glossary/secret.md"),
    )
    .unwrap();
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    assert!(
        stderr(&o).contains("secret.md: symbolic link leaves the site root"),
        "{}",
        stderr(&o)
    );
    // A link that stays inside the root is followed.
    std::fs::remove_file(site.root().join("content/glossary/secret.md")).unwrap();
    site.write("notes/inside.md", draft("Inside"));
    std::os::unix::fs::symlink(
        site.root().join("notes/inside.md"),
        site.root().join("content/glossary/inside.md"),
    )
    .unwrap();
    assert_code(&site.run(&["build", "--drafts"]), 0);
    assert!(
        site.read("public/glossary/inside/index.html")
            .contains("Inside")
    );
}

#[test]
fn bom_and_crlf_are_accepted() {
    let site = Site::new();
    let text = format!("\u{feff}{}", published("Warp", "").replace('\n', "\r\n"));
    site.write("content/glossary/warp.md", text);
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    assert!(
        site.read("public/glossary/warp/index.html")
            .contains("<h1>Warp</h1>")
    );
}

#[test]
fn front_matter_values_are_escaped_everywhere() {
    let site = Site::new();
    let evil = "\"><script>alert(1)</script>";
    let text = format!(
        "---\ntitle: '{evil}'\nsummary: '{evil}'\ncategory: '{evil}'\nsources:\n  - {{title: '{evil}', url: 'https://x.org/\"onmouseover=\"x'}}\nstatus: draft\n---\nbody\n"
    );
    site.write("content/glossary/x.md", text);
    assert_code(&site.run(&["build", "--drafts"]), 0);
    for page in ["public/glossary/x/index.html", "public/glossary/index.html"] {
        let html = site.read(page);
        assert!(!html.contains("<script>"), "{page}: {html}");
        assert!(!html.contains("\"onmouseover"), "{page}: {html}");
    }
    let html = site.read("public/glossary/x/index.html");
    assert!(html.contains("<title>&quot;&gt;&lt;script&gt;"), "{html}");
}

#[test]
fn raw_html_in_bodies_is_sanitised() {
    let site = Site::new();
    site.write("content/glossary/x.md", "---\ntitle: x\n---\n<img src=\"https://example.org/x.png\" onerror=\"alert(1)\"><script>alert(2)</script>\n\n<b>kept</b>\n");
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let html = site.read("public/glossary/x/index.html");
    assert!(
        !html.contains("onerror") && !html.contains("alert(2)"),
        "{html}"
    );
    assert!(html.contains("<b>kept</b>"));
}

#[test]
fn dangerous_out_folders_are_refused() {
    let site = Site::new();
    site.write("content/glossary/x.md", draft("X"));
    for out in [
        ".",
        "content",
        "templates",
        "static",
        "kernels",
        "measurements",
        "src",
        "..",
    ] {
        let path: PathBuf = site.root().join(out);
        let o = site.run(&["build", "--drafts", "--out", path.to_str().unwrap()]);
        assert_code(&o, 2);
        assert!(
            stderr(&o).contains("refusing to write output"),
            "{out}: {}",
            stderr(&o)
        );
    }
    assert!(site.exists("content/glossary/x.md") && site.exists("templates/entry.html"));
    let o = site.run(&[
        "build",
        "--drafts",
        "--out",
        site.root().join("site-out").to_str().unwrap(),
    ]);
    assert_code(&o, 0);
    assert!(site.exists("site-out/glossary/x/index.html"));
}

#[test]
fn check_writes_nothing() {
    let site = Site::new();
    site.write("content/glossary/x.md", draft("X"));
    let o = site.run(&["check"]);
    assert_code(&o, 0);
    assert!(!site.exists("public"));
}

#[test]
fn new_scaffolds_an_entry_that_builds() {
    let site = Site::new();
    let o = site.run(&["new", "glossary", "warp-divergence"]);
    assert_code(&o, 0);
    let text = site.read("content/glossary/warp-divergence.md");
    for field in [
        "title:",
        "term:",
        "category:",
        "cc:",
        "summary:",
        "related:",
        "appears_in:",
        "sources:",
        "diagram:",
        "measure:",
        "status:",
        "written_by:",
        "reviewed_by:",
        "written_on:",
        "last_checked_on:",
    ] {
        assert!(text.contains(field), "scaffold lacks {field}");
    }
    assert_code(&site.run(&["build", "--drafts"]), 0);
    assert_code(&site.run(&["new", "glossary", "warp-divergence"]), 2);
    assert_code(&site.run(&["new", "glossary", "../escape"]), 2);
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
        "← Glossary",
        "CUDA glossary",
        "Memory",
        "CC 7.5",
        "<h1>What is a shared memory bank on a GPU?</h1>",
        "One of 32 independent slices of shared memory",
        "Ask a warp for 32 floats",
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
fn serve_previews_on_localhost_and_refuses_traversal() {
    use std::io::{BufRead, BufReader, Read, Write};
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    site.write("secret.txt", "do not serve");
    let mut child = Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .args(["serve", "--port", "0", "--root"])
        .arg(site.root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let line = lines.next().expect("serve printed its address").unwrap();
        if let Some(rest) = line.strip_prefix("serving http://") {
            break rest.split('/').next().unwrap().to_string();
        }
    };
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    let get = |path: &str| {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut r = String::new();
        s.read_to_string(&mut r).unwrap();
        r
    };
    let page = get("/glossary/lane/");
    let (ok, traversal, encoded) = (
        page.starts_with("HTTP/1.1 200"),
        get("/../secret.txt"),
        get("/%2e%2e/secret.txt"),
    );
    child.kill().unwrap();
    let _ = child.wait();
    assert!(ok && page.contains("<h1>Lane</h1>"), "{page}");
    assert!(traversal.starts_with("HTTP/1.1 404") && !traversal.contains("do not serve"));
    assert!(encoded.starts_with("HTTP/1.1 404") && !encoded.contains("do not serve"));
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

/// The Modal GPU glossary (CC BY 4.0, tests/fixtures/modal-gpu-glossary): real content in a
/// neighbouring format. As it stands, every deviation is reported, not dropped; adapted to
/// our format, every file becomes a page.
#[test]
fn real_glossary_corpus_is_reported_then_built() {
    let site = Site::new();
    let corpus = repo().join("tests/fixtures/modal-gpu-glossary");
    copy_dir(&corpus, &site.root().join("content"));
    let entries: Vec<PathBuf> = walkdir::WalkDir::new(site.root().join("content"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .map(|e| e.into_path())
        .collect();
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    let with_abbreviation = entries
        .iter()
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("\nabbreviation:")
        })
        .count();
    assert!(with_abbreviation > 0);
    assert_eq!(
        err.matches("field `abbreviation`: unknown field").count(),
        with_abbreviation,
        "{err}"
    );
    assert!(!err.contains("panicked"));
    // Drop the field we do not have: now its links, mounted under /gpu-glossary/, are broken here.
    let edit = |f: &dyn Fn(String) -> String| {
        for p in &entries {
            std::fs::write(p, f(std::fs::read_to_string(p).unwrap())).unwrap();
        }
    };
    edit(&|text| {
        text.lines()
            .filter(|l| !l.starts_with("abbreviation:"))
            .map(|l| format!("{l}\n"))
            .collect()
    });
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    assert!(
        stderr(&o).contains("broken link: `/gpu-glossary/"),
        "{}",
        stderr(&o)
    );
    // Mount the links at our root.
    edit(&|text| {
        text.replace("](/gpu-glossary/", "](/")
            .replace("](/docs/", "](https://modal.com/docs/")
    });
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 0);
    let pages = walkdir::WalkDir::new(site.root().join("public"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "index.html")
        .count();
    let sections = [
        "device-hardware",
        "device-software",
        "host-software",
        "perf",
    ];
    // Every entry is a page, except the section introductions, which head their indexes; plus the home page.
    assert_eq!(pages, entries.len() - sections.len() + sections.len() + 1);
    let intro = site.read("public/device-hardware/index.html");
    assert!(
        intro.contains("href=\"/device-hardware/warp-scheduler/\""),
        "section index lists its entries"
    );
}

#[test]
fn diagrams_are_drawn_inline_with_a_png_beside_the_page() {
    let site = Site::new();
    let diagram = "diagram:\n  preset: bank-map\n  highlight: { row: 0, column: 5 }\n  alt: Words <shaded> by bank.\n";
    site.write("content/glossary/bank.md", published("Bank", diagram));
    assert_code(
        &site.run(&["build", "--base-url", "https://course.example.org"]),
        0,
    );
    let html = site.read("public/glossary/bank/index.html");
    assert!(
        html.contains("<svg") && html.contains("role=\"img\""),
        "inline SVG"
    );
    assert!(
        html.contains("<desc") && html.contains("Words &lt;shaded&gt; by bank."),
        "alt text escaped in desc"
    );
    assert!(
        html.contains(
            "<figcaption><span class=\"alt-label\">Alt text:</span> “Words &lt;shaded&gt; by bank.”"
        ),
        "{html}"
    );
    assert!(html.contains("<meta property=\"og:image\" content=\"https://course.example.org/glossary/bank/diagram.png\">"), "{html}");
    let png = std::fs::read(site.root().join("public/glossary/bank/diagram.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

#[test]
fn diagram_and_cc_mistakes_are_errors() {
    let cases: &[(&str, &[&str])] = &[
        (
            "diagram:\n  preset: bank-mapp\n  alt: a\n",
            &[
                "bank.md:12:",
                "field `diagram.preset`",
                "bank-map",
                "lane-banks",
            ],
        ),
        (
            "diagram:\n  preset: bank-map\n  width: 40\n  alt: a\n",
            &["bank.md:11:", "field `diagram`", "40"],
        ),
        (
            "diagram:\n  preset: bank-map\n  highlight: { row: 32, column: 0 }\n  alt: a\n",
            &["bank.md:11:", "field `diagram`"],
        ),
    ];
    for (extra, wants) in cases {
        let site = Site::new();
        site.write("content/glossary/bank.md", published("Bank", extra));
        let o = site.run(&["build"]);
        assert_code(&o, 1);
        for want in *wants {
            assert!(
                stderr(&o).contains(want),
                "wanted {want:?} in {}",
                stderr(&o)
            );
        }
    }
    let site = Site::new();
    site.write(
        "content/glossary/bank.md",
        published("Bank", "").replace("cc: \"8.0\"", "cc: \"7.7\""),
    );
    let o = site.run(&["build"]);
    assert_code(&o, 1);
    assert!(
        stderr(&o).contains("bank.md:5: field `cc`: `7.7` is not a compute capability")
            && stderr(&o).contains("7.5"),
        "{}",
        stderr(&o)
    );
}

/// A site with the repository's kernel, manifest and committed H200 record.
fn measured_site(record: bool) -> Site {
    let site = Site::new();
    copy_dir(&repo().join("kernels"), &site.root().join("kernels"));
    if record {
        copy_dir(
            &repo().join("measurements/bank_conflicts"),
            &site.root().join("measurements/bank_conflicts"),
        );
    }
    let body = "\n## Measured\n\nA factor of {{% ratio 32L L digits=0 %}} between the rows.\n";
    site.write(
        "content/glossary/bank.md",
        format!("{}{body}", published("Bank", "measure: bank_conflicts\n")),
    );
    site
}

#[test]
fn measured_tables_and_bindings_come_from_the_record() {
    let site = measured_site(true);
    let o = site.run(&["build", "--strict"]);
    assert_code(&o, 0);
    let html = site.read("public/glossary/bank/index.html");
    let record: serde_json::Value =
        serde_json::from_str(&site.read("measurements/bank_conflicts/nvidia-h200.json")).unwrap();
    let median = |label: &str| {
        record["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["label"] == label)
            .unwrap()["median_ms"]
            .as_f64()
            .unwrap()
    };
    let ratio = median("32L") / median("L");
    assert!(
        html.contains(&format!("A factor of {} between the rows.", ratio.round())),
        "{html}"
    );
    assert!(
        html.contains(&format!("<td>{:.2}</td>", ratio)),
        "table ratio from the record: {html}"
    );
    assert!(html.contains("On an NVIDIA H200, driver "), "{html}");
    assert!(html.contains(record["software"]["driver_version"].as_str().unwrap()));
}

#[test]
fn editing_the_kernel_makes_strict_builds_fail_as_stale() {
    let site = measured_site(true);
    let cu = site.root().join("kernels/bank_conflicts.cu");
    let mut source = std::fs::read_to_string(&cu).unwrap();
    source.push_str("\n// an edit\n");
    std::fs::write(&cu, source).unwrap();
    let o = site.run(&["build", "--strict"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    assert!(
        err.contains("measurements/bank_conflicts/nvidia-h200.json")
            && err.contains("`bank_conflicts` is stale"),
        "{err}"
    );
    let o = site.run(&["check"]);
    assert_code(&o, 0);
    assert!(
        stderr(&o).contains("warning:") && stderr(&o).contains("stale"),
        "check warns: {}",
        stderr(&o)
    );
}

#[test]
fn without_a_record_the_preview_says_not_measured_and_strict_fails() {
    let site = measured_site(false);
    site.write(
        "content/glossary/bank.md",
        site.read("content/glossary/bank.md")
            .replace("status: published", "status: draft"),
    );
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let html = site.read("public/glossary/bank/index.html");
    assert!(html.contains("class=\"not-measured\""), "{html}");
    assert!(
        html.contains("A factor of (not measured yet) between the rows."),
        "{html}"
    );
    let o = site.run(&["build", "--drafts", "--strict"]);
    assert_code(&o, 1);
    assert!(
        stderr(&o).contains("field `measure`") && stderr(&o).contains("no measurement record"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn unknown_bindings_are_errors_with_lines() {
    let site = measured_site(true);
    site.write(
        "content/glossary/bank.md",
        site.read("content/glossary/bank.md")
            .replace("ratio 32L L", "ratio 64L L"),
    );
    let o = site.run(&["build"]);
    assert_code(&o, 1);
    assert!(
        stderr(&o).contains("bank.md:23:") && stderr(&o).contains("64L"),
        "{}",
        stderr(&o)
    );
    let site = Site::new();
    site.write(
        "content/glossary/x.md",
        "---\ntitle: x\n---\n\nA {{% ratio 32L L %}}.\n",
    );
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    assert!(
        stderr(&o).contains("x.md:5:"),
        "a binding needs `measure:`: {}",
        stderr(&o)
    );
}

#[test]
fn out_must_be_a_folder_coursegen_owns() {
    let site = Site::new();
    site.write("content/glossary/x.md", draft("X"));
    site.write("notes.txt", "my notes");
    let o = site.run(&[
        "build",
        "--drafts",
        "--out",
        site.root().join("notes.txt").to_str().unwrap(),
    ]);
    assert_code(&o, 2);
    assert!(stderr(&o).contains("an existing file"), "{}", stderr(&o));
    assert_eq!(site.read("notes.txt"), "my notes");
    site.write("thesis/thesis.tex", "chapter 1");
    let o = site.run(&[
        "build",
        "--drafts",
        "--out",
        site.root().join("thesis").to_str().unwrap(),
    ]);
    assert_code(&o, 2);
    assert!(stderr(&o).contains("did not write"), "{}", stderr(&o));
    assert_eq!(site.read("thesis/thesis.tex"), "chapter 1");
    // Our own output is replaced, build after build; an empty folder is fine too.
    std::fs::create_dir_all(site.root().join("empty")).unwrap();
    assert_code(
        &site.run(&[
            "build",
            "--drafts",
            "--out",
            site.root().join("empty").to_str().unwrap(),
        ]),
        0,
    );
    assert_code(&site.run(&["build", "--drafts"]), 0);
    assert_code(&site.run(&["build", "--drafts"]), 0);
    assert!(site.exists("public/.coursegen-output"));
}

#[test]
fn only_entries_and_known_assets_are_published() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    site.write("content/glossary/secret.MD", draft("Secret"));
    site.write("content/glossary/warp.md~", published("Old warp", ""));
    site.write("content/glossary/tile.png", b"\x89PNG".as_slice());
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    assert!(!site.exists("public/glossary/secret.MD") && !site.exists("public/glossary/secret"));
    assert!(!site.exists("public/glossary/warp.md~"));
    assert!(site.exists("public/glossary/tile.png"));
    let err = stderr(&o);
    assert!(
        err.contains("warning: content/glossary/warp.md~: not an entry"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("draft content/glossary/secret.MD"));
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

#[test]
fn several_names_in_one_string_are_refused() {
    let site = Site::new();
    let text = published("Warp", "").replace(
        "written_by: Ada Lovelace",
        "written_by: Ada Lovelace, Grace Hopper",
    );
    site.write("content/glossary/warp.md", text);
    let o = site.run(&["build"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    assert!(err.contains("warp.md:12: field `byline.written_by`: `Ada Lovelace, Grace Hopper` looks like several names"), "{err}");
    assert!(
        err.contains("written_by: [Ada Lovelace, Grace Hopper]"),
        "{err}"
    );
}

#[test]
fn a_broken_entry_does_not_cascade_into_its_referrers() {
    let site = Site::new();
    site.write(
        "content/glossary/bank.md",
        "---\ntitle: Bank\nrow: x\n---\n",
    );
    site.write(
        "content/glossary/warp.md",
        "---\ntitle: Warp\nrelated: [bank]\n---\n",
    );
    let o = site.run(&["check"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    assert!(err.contains("bank.md:3: field `row`"), "{err}");
    assert!(
        !err.contains("warp.md"),
        "only the real problem is reported: {err}"
    );
    assert!(err.contains("1 problem found"), "{err}");
}

#[test]
fn a_root_without_content_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .args(["check", "--root"])
        .arg(dir.path().join("nope"))
        .output()
        .unwrap();
    assert_code(&o, 2);
    assert!(
        stderr(&o).contains("has no content/ folder"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn new_refuses_case_twins_and_allows_nested_sections() {
    let site = Site::new();
    site.write("content/glossary/warp.md", draft("Warp"));
    let o = site.run(&["new", "glossary", "Warp"]);
    assert_code(&o, 2);
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    assert_code(&site.run(&["new", "glossary/memory", "smem-carveout"]), 0);
    assert!(site.exists("content/glossary/memory/smem-carveout.md"));
    assert_code(&site.run(&["new", "glossary/..", "x"]), 2);
    assert_code(&site.run(&["build", "--drafts"]), 0);
    assert!(site.exists("public/glossary/memory/smem-carveout/index.html"));
}

#[test]
fn base_url_must_be_http() {
    let site = Site::new();
    site.write("content/glossary/x.md", draft("X"));
    for bad in ["ftp://x", "not a url", "https://"] {
        let o = site.run(&["build", "--base-url", bad]);
        assert_code(&o, 2);
        assert!(stderr(&o).contains("--base-url"), "{}", stderr(&o));
    }
}

#[test]
fn records_of_several_gpus_render_side_by_side() {
    let site = measured_site(true);
    let h200 = site.read("measurements/bank_conflicts/nvidia-h200.json");
    let mut other: serde_json::Value = serde_json::from_str(&h200).unwrap();
    other["device"]["name"] = "Second GPU".into();
    other["device"]["slug"] = "second-gpu".into();
    site.write(
        "measurements/bank_conflicts/second-gpu.json",
        serde_json::to_string_pretty(&other).unwrap(),
    );
    let o = site.run(&["build", "--strict"]);
    assert_code(&o, 0);
    let html = site.read("public/glossary/bank/index.html");
    assert!(
        html.contains("id=\"measured-nvidia-h200\"") && html.contains("id=\"measured-second-gpu\""),
        "{html}"
    );
    assert!(
        html.contains("On a Second GPU,") || html.contains("On an Second GPU,"),
        "{html}"
    );
    // The copy measured the same times, so the rounded ratio in prose holds on both.
    assert!(html.contains("A factor of 32 between the rows."), "{html}");
}

#[cfg(unix)]
#[test]
fn static_symlinks_are_copied_inside_the_root_and_refused_outside() {
    let site = Site::new();
    site.write("content/glossary/x.md", draft("X"));
    site.write("shared/logo.svg", "<svg/>");
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::os::unix::fs::symlink(
        site.root().join("shared/logo.svg"),
        site.root().join("static/logo.svg"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), site.root().join("static/secret.txt")).unwrap();
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 0);
    assert_eq!(site.read("public/logo.svg"), "<svg/>");
    assert!(!site.exists("public/secret.txt"));
    assert!(
        stderr(&o).contains("warning: static/secret.txt: symbolic link"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_broken_record_is_reported_once_and_by_name() {
    let site = measured_site(true);
    site.write("measurements/bank_conflicts/nvidia-h200.json", "{ not json");
    let o = site.run(&["build"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    assert!(
        err.contains("nvidia-h200.json") && err.contains("not valid JSON"),
        "{err}"
    );
    assert!(
        err.contains("1 problem found"),
        "no echo as missing records or bindings: {err}"
    );
}
