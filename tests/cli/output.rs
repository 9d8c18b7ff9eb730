//! What is written where: the output folder, static files, assets, diagrams, sanitising.
use crate::util::*;
use std::path::PathBuf;
use std::process::Command;

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
    assert_stderr_has(&o, &["secret.md: symbolic link leaves the site root"]);
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
    assert_stderr_has(&o, &["an existing file"]);
    assert_eq!(site.read("notes.txt"), "my notes");
    site.write("thesis/thesis.tex", "chapter 1");
    let o = site.run(&[
        "build",
        "--drafts",
        "--out",
        site.root().join("thesis").to_str().unwrap(),
    ]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["did not write"]);
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
    // A marker is one a build wrote: any file of that name is not.
    site.write("thesis/.coursegen-output", "anything");
    let thesis = site.root().join("thesis");
    let o = site.run(&["build", "--drafts", "--out", thesis.to_str().unwrap()]);
    assert_code(&o, 2);
    assert_eq!(site.read("thesis/thesis.tex"), "chapter 1");
    // A committed `public -> elsewhere` would make a default build replace `elsewhere`.
    #[cfg(unix)]
    {
        std::fs::remove_dir_all(site.root().join("public")).unwrap();
        std::os::unix::fs::symlink(&thesis, site.root().join("public")).unwrap();
        let o = site.run(&["build", "--drafts"]);
        assert_code(&o, 2);
        assert_stderr_has(&o, &["it is a symbolic link"]);
        assert_eq!(site.read("thesis/thesis.tex"), "chapter 1");
    }
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
    assert_stderr_has(&o, &["warning: content/glossary/warp.md~: not an entry"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("draft content/glossary/secret.MD"));
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
    assert_stderr_has(&o, &["has no content/ folder"]);
}

#[test]
fn base_url_must_be_http() {
    let site = Site::new();
    site.write("content/glossary/x.md", draft("X"));
    for bad in ["ftp://x", "not a url", "https://"] {
        let o = site.run(&["build", "--base-url", bad]);
        assert_code(&o, 2);
        assert_stderr_has(&o, &["--base-url"]);
    }
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
    assert_code(&site.run(&["build", "--drafts"]), 0);
    assert_eq!(site.read("public/logo.svg"), "<svg/>");
    // A link out of the root stops the build, naming it; nothing is written.
    std::fs::remove_dir_all(site.root().join("public")).unwrap();
    std::os::unix::fs::symlink(outside.path(), site.root().join("static/secret.txt")).unwrap();
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &["static/secret.txt: resolves to a file outside the site root"],
    );
    assert!(!site.exists("public"));
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
    // The caption prints the alt text, so the inline picture has no `<desc>` that would
    // say it again; diagram.svg, opened alone, keeps it, escaped.
    assert!(!html.contains("<desc"), "{html}");
    let svg = site.read("public/glossary/bank/diagram.svg");
    assert!(
        svg.contains("<desc") && svg.contains("Words &lt;shaded&gt; by bank."),
        "alt text escaped in desc: {svg}"
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

/// Every file under `dir`, relative path → bytes.
fn tree(dir: &std::path::Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

#[test]
fn two_runs_of_the_binary_write_byte_identical_sites() {
    let site = Site::new();
    let diagram = "diagram:\n  preset: lane-banks\n  stride: 2\n  alt: Two lanes per bank.\n";
    site.write("content/glossary/bank.md", published("Bank", diagram));
    site.write(
        "content/glossary/warp.md",
        published("Warp", "related: [bank]\n"),
    );
    site.write("content/glossary/lane.md", draft("Lane"));
    let mut trees = Vec::new();
    for out in ["one", "two"] {
        let path = site.root().join(out);
        let args = ["build", "--drafts", "--out", path.to_str().unwrap()];
        assert_code(&site.run(&args), 0);
        trees.push(tree(&path));
    }
    assert!(
        trees[0].contains_key(std::path::Path::new("glossary/bank/diagram.png")),
        "{:?}",
        trees[0].keys()
    );
    assert_eq!(
        trees[0].keys().collect::<Vec<_>>(),
        trees[1].keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &trees[0] {
        assert!(
            &trees[1][path] == bytes,
            "{} differs between runs",
            path.display()
        );
    }
}

#[test]
fn pages_rendered_as_the_check_passes_them_are_the_pages_rendered_after_it() {
    // Without search a build renders each page as soon as the check has passed it and lets
    // its HTML go; with search it renders them after the check, beside the index. Every
    // file but the index must come out the same either way.
    let site = Site::new();
    let diagram = "diagram:\n  preset: lane-banks\n  stride: 2\n  alt: Two lanes per bank.\n";
    let body = "\n## Why\n\nA [warp](/glossary/warp/) of $32$ lanes.\n\n```cuda\n\
                __global__ void k(float *x) { x[threadIdx.x] = 0; }\n```\n";
    site.write(
        "content/glossary/bank.md",
        format!("{}{body}", published("Bank", diagram)),
    );
    site.write(
        "content/glossary/warp.md",
        published("Warp", "related: [bank]\n"),
    );
    site.write("content/glossary/lane.md", draft("Lane"));
    let mut trees = Vec::new();
    for (out, search) in [("plain", &["--no-search"][..]), ("searched", &[])] {
        let path = site.root().join(out);
        let mut args = vec!["build", "--drafts", "--out", path.to_str().unwrap()];
        args.extend(search);
        assert_code(&site.run(&args), 0);
        trees.push(tree(&path));
    }
    let searched: std::collections::BTreeMap<_, _> = (trees.pop().unwrap().into_iter())
        .filter(|(path, _)| !path.starts_with("pagefind"))
        .collect();
    let plain = trees.pop().unwrap();
    assert!(
        String::from_utf8_lossy(&plain[std::path::Path::new("glossary/bank/index.html")])
            .contains("lanes."),
        "{:?}",
        plain.keys()
    );
    assert_eq!(
        plain.keys().collect::<Vec<_>>(),
        searched.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &plain {
        assert!(
            &searched[path] == bytes,
            "{} differs between the build with search and the one without",
            path.display()
        );
    }
}

#[test]
fn no_highlight_shows_code_plainly_and_escaped() {
    let site = Site::new();
    let code = "\n```cuda\n__global__ void k(int *a) { if (a < 0) {} }\n```\n";
    site.write(
        "content/glossary/warp.md",
        format!("{}{code}", published("Warp", "")),
    );
    assert_code(&site.run(&["build"]), 0);
    let html = site.read("public/glossary/warp/index.html");
    assert!(
        html.contains("<span class=\"hl-"),
        "highlighted by default: {html}"
    );
    assert_code(&site.run(&["build", "--no-highlight"]), 0);
    let html = site.read("public/glossary/warp/index.html");
    assert!(!html.contains("<span class=\"hl-"), "{html}");
    assert!(
        html.contains(
            "<code class=\"language-cuda\">__global__ void k(int *a) { if (a &lt; 0) {} }"
        ),
        "{html}"
    );
}
