//! Published pages carry no script: a hostile corpus (links, raw HTML, heading attributes,
//! record strings, diagram alt text, front matter, SVG assets) through publish and preview
//! builds, every output file scanned; and the limits that keep hostile input cheap.
use std::path::Path;
use std::process::Command;

use crate::util::*;

/// Every way of writing script we know of, as Markdown and as raw HTML.
const VECTORS: &str = r#"
[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c](&#106;avascript:alert(1))
[d](java&#x09;script:alert(1)) [e](javascript&colon;alert(1)) [ref][r] <javascript:alert(1)>
![i](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+) [v](vbscript:msgbox(1))
[dt](data:text/html,<script>alert(1)</script>) [f](file:///etc/passwd)

[r]: javascript:alert(1)

<script>alert(1)</script> <img src="https://example.org/x.png" onerror="alert(1)">
<a href="javascript:alert(1)" onclick="alert(1)">x</a>
<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)">e</a>
<svg onload="alert(1)"><script>alert(1)</script></svg>
<iframe src="https://example.org/"></iframe>
<div style="background:url(javascript:alert(1))" onmouseover="alert(1)">d</div>
<details open ontoggle="alert(1)"><summary>s</summary></details>
<object data="https://example.org/x"></object><embed src="https://example.org/x">
<form action="https://example.org/"><button formaction="https://example.org/">b</button></form>
<math><a xlink:href="javascript:alert(1)">m</a></math>
<base href="https://example.org/">
<meta http-equiv="refresh" content="0;url=javascript:alert(1)">
<style>body { background: red }</style>

## Heading {onfocus=alert(1) autofocus tabindex=0 style=color:red}
"#;

/// A device name and driver version a hostile record could carry.
const DEVICE: &str =
    "[x](javascript:alert(1))\n\n## Owned <script>alert(1)</script><img src=x onerror=alert(1)>";
const DRIVER: &str = "<a href=\"javascript:alert(1)\">580</a>";

fn hostile_site() -> Site {
    let site = measured_site(true);
    // Every GPU's record of the kernel carries the hostile strings.
    let records = site.root().join("measurements/bank_conflicts");
    for item in std::fs::read_dir(&records).unwrap().flatten() {
        let record = format!(
            "measurements/bank_conflicts/{}",
            item.file_name().to_string_lossy()
        );
        if !record.ends_with(".json") {
            continue;
        }
        let mut r: serde_json::Value = serde_json::from_str(&site.read(&record)).unwrap();
        r["device"]["name"] = DEVICE.into();
        r["software"]["driver_version"] = DRIVER.into();
        site.write(&record, sealed(r));
    }
    let front = published(
        "<script>alert(1)</script> Evil",
        "measure: bank_conflicts\ndiagram:\n  preset: bank-map\n  alt: '\"><script>alert(1)</script><x onerror=alert(1) y=\"'\n",
    )
    .replace("summary: A term.", "summary: '<img src=x onerror=alert(1)>'")
    .replace("title: Guide", "title: '<script>alert(1)</script>'");
    let body = format!(
        "{VECTORS}\nOn {{{{% device %}}}} with driver {{{{% driver %}}}}.\n\n## Measured\n{VECTORS}\nOn {{{{% device %}}}}.\n\n## Diagram\n{VECTORS}\n"
    );
    site.write(
        "content/glossary/evil.md",
        front.replace("\nBody of", &format!("\n{body}\nBody of")),
    );
    site.write(
        "content/glossary.md",
        format!("{}{VECTORS}", published("Glossary", "")),
    );
    site.write(
        "content/glossary/draft.md",
        format!("{}{VECTORS}", draft("Draft")),
    );
    site.write(
        "content/glossary/picture.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 4 4\"><rect width=\"4\" height=\"4\" fill=\"teal\"/></svg>\n",
    );
    site
}

/// Scans every file under `out`; returns what each file carries.
fn scan(out: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mut pages = 0;
    for item in walkdir::WalkDir::new(out) {
        let item = item.unwrap();
        let ext = item
            .path()
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("");
        if !item.file_type().is_file() || !["html", "svg", "xml", "json"].contains(&ext) {
            continue;
        }
        let text = std::fs::read_to_string(item.path()).unwrap();
        if ext == "html" {
            pages += 1;
            let csp = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'self' ";
            if !text.contains(csp) {
                problems.push(format!("{}: no CSP", item.path().display()));
            }
        }
        if ext == "json" && text.contains('<') {
            problems.push(format!("{}: a raw `<`", item.path().display()));
        }
        let base = std::fs::read_to_string(repo().join("templates/base.html")).unwrap();
        let without_chrome = coursegen::sanitize::without_site_chrome(&text, &base);
        for p in coursegen::sanitize::active_content(&without_chrome) {
            problems.push(format!("{}: {p}", item.path().display()));
        }
    }
    assert!(pages >= 4, "only {pages} pages under {}", out.display());
    problems
}

#[test]
fn a_hostile_corpus_publishes_no_script_in_publish_or_preview_builds() {
    let site = hostile_site();
    for args in [&["build"][..], &["build", "--drafts"]] {
        let o = site.run(args);
        assert_code(&o, 0);
        let problems = scan(&site.root().join("public"));
        assert!(problems.is_empty(), "{args:?}:\n{}", problems.join("\n"));
        let evil = site.read("public/glossary/evil/index.html");
        // The corpus really went through: the prose, the bindings and the sections are there.
        assert!(
            evil.contains("&lt;script&gt;alert(1)&lt;/script&gt; Evil"),
            "{evil}"
        );
        assert!(
            evil.contains("On [x](javascript:alert(1))\n\n## Owned &lt;script&gt;"),
            "{evil}"
        );
        assert!(
            evil.contains(
                "with driver &lt;a href=&quot;javascript:alert(1)&quot;&gt;580&lt;/a&gt;."
            ),
            "{evil}"
        );
        assert_eq!(evil.matches("<h2 id=\"heading").count(), 3, "{evil}");
        assert!(
            evil.contains("<section class=\"measured\"")
                && evil.contains("<section class=\"diagram\"")
        );
        assert!(
            site.read("public/glossary/index.html")
                .contains("<h2 id=\"heading\">Heading</h2>")
        );
        assert!(site.exists("public/glossary/picture.svg"));
    }
    assert!(site.exists("public/glossary/draft/index.html"));
}

#[test]
fn a_hostile_svg_is_refused_with_its_lines_and_nothing_is_written() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    site.write(
        "content/glossary/evil.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\">\n<script>alert(1)</script>\n<rect onload=\"alert(1)\"/>\n<a href=\"javascript:alert(1)\"><text>x</text></a>\n<image href=\"https://evil.example/t.png\"/>\n</svg>\n",
    );
    let o = site.run(&["build"]);
    assert_fails_at(&o, "content/glossary/evil.svg:2", "<script> is not allowed");
    assert_fails_at(
        &o,
        "content/glossary/evil.svg:3",
        "event-handler attribute `onload`",
    );
    assert_fails_at(
        &o,
        "content/glossary/evil.svg:4",
        "link `javascript:alert(1)`",
    );
    assert_fails_at(
        &o,
        "content/glossary/evil.svg:5",
        "<image> refers to `https://evil.example/t.png`",
    );
    assert!(!site.exists("public"));
    assert_code(&site.run(&["check"]), 1);
}

#[cfg(unix)]
#[test]
fn static_files_and_assets_that_resolve_to_content_sources_are_refused() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    site.write("content/glossary/secret.md", draft("Secret"));
    let link = |target: &str, at: &str| {
        std::os::unix::fs::symlink(site.root().join(target), site.root().join(at)).unwrap()
    };
    link("content/glossary/secret.md", "static/secret.txt");
    link("content/glossary/secret.md", "content/glossary/leak.txt");
    let o = site.run(&["build"]);
    assert_code(&o, 1);
    for file in ["static/secret.txt", "content/glossary/leak.txt"] {
        let want = format!("{file}: resolves to `content/glossary/secret.md`, an entry's source");
        assert_stderr_has(&o, &[&want]);
    }
    assert!(!site.exists("public"));
}

#[test]
fn measure_names_a_kernel_not_a_path() {
    let site = Site::new();
    for (i, bad) in ["../../etc/passwd", "/etc/passwd", "bank/conflicts", "a b"]
        .iter()
        .enumerate()
    {
        site.write(
            &format!("content/glossary/m{i}.md"),
            published(&format!("M{i}"), &format!("measure: '{bad}'\n")),
        );
    }
    let o = site.run(&["check"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    assert_eq!(err.matches("is not a kernel name").count(), 4, "{err}");
    assert_fails_at(
        &o,
        "content/glossary/m0.md:11",
        "field `measure`: `../../etc/passwd` is not a kernel name",
    );
}

#[test]
fn a_slug_whose_folder_is_a_static_or_generated_file_is_a_content_error() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    site.write("content/style.css.md", published("Style", ""));
    site.write("content/search-index.json.md", published("Search", ""));
    let o = site.run(&["check"]);
    assert_fails_at(
        &o,
        "content/style.css.md:1",
        "style.css/index.html needs a folder `style.css`, but that is also static/style.css",
    );
    assert_fails_at(
        &o,
        "content/search-index.json.md:1",
        "search-index.json/index.html needs a folder `search-index.json`, but that is also a file coursegen generates",
    );
    // The files and pages every build writes: found by `check`, not at write time.
    for name in ["404.html", "feed.xml", "llms.txt"] {
        site.write(&format!("content/{name}.md"), published("G", ""));
    }
    site.write("content/search.md", published("Search page", ""));
    let o = site.run(&["check"]);
    for name in ["404.html", "feed.xml", "llms.txt"] {
        let want = format!(
            "{name}/index.html needs a folder `{name}`, but that is also a file coursegen generates"
        );
        assert_fails_at(&o, &format!("content/{name}.md:1"), &want);
    }
    assert_fails_at(
        &o,
        "content/search.md:1",
        "its page would be /search/, which is the search page",
    );
}

#[test]
fn a_yaml_alias_bomb_is_refused_at_once() {
    let site = Site::new();
    let mut laughs = String::from(
        "---\ntitle: Bomb\nx0: &a0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n",
    );
    for level in 1..20 {
        let refs = vec![format!("*a{}", level - 1); 10].join(", ");
        laughs.push_str(&format!("x{level}: &a{level} [{refs}]\n"));
    }
    laughs.push_str("---\nbody\n");
    site.write("content/glossary/bomb.md", laughs);
    let start = std::time::Instant::now();
    let o = site.run(&["check"]);
    assert_code(&o, 1);
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
    let err = stderr(&o);
    assert_fails_at(
        &o,
        "content/glossary/bomb.md:2",
        "YAML aliases (`*name`) expand",
    );
    assert!(err.len() < 2000, "{err}");
}

#[test]
fn an_oversized_entry_is_refused_before_it_is_read() {
    let site = Site::new();
    let big = format!("---\ntitle: Big\n---\n{}", "word ".repeat(220_000));
    site.write("content/glossary/big.md", big);
    let o = site.run(&["check"]);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &["content/glossary/big.md: the file is 1074 KiB; entries are limited to 1024 KiB"],
    );
}

#[test]
fn the_same_problem_on_many_lines_is_reported_once_with_a_count() {
    let site = Site::new();
    site.write(
        "content/glossary/warp.md",
        format!(
            "{}{}",
            published("Warp", ""),
            "[x](/nowhere/)\n\n".repeat(500)
        ),
    );
    let o = site.run(&["check"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    assert_stderr_has(
        &o,
        &[
            "note: the same problem 499 more times in this file (line ",
            "500 problems found (1 distinct)",
        ],
    );
}

#[test]
fn build_into_a_closed_pipe_exits_quietly() {
    let site = Site::new();
    for i in 0..1500 {
        site.write(
            &format!("content/glossary/d{i}.md"),
            draft(&format!("D{i}")),
        );
    }
    let script = format!(
        "'{}' build --root '{}' | head -c 10 >/dev/null; echo \"status ${{PIPESTATUS[0]}}\"",
        env!("CARGO_BIN_EXE_coursegen"),
        site.root().display()
    );
    let o = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.trim(), "status 0", "{}", stderr(&o));
    assert_stderr_lacks(&o, &["panicked"]);
}

/// One hostile file layout: what it writes, what a draft includes, the error it must give.
struct Hostile {
    files: &'static [(&'static str, &'static str)],
    /// (link, target), both from the site root; a target starting with `/` is in a folder
    /// outside the site.
    links: &'static [(&'static str, &'static str)],
    /// The file a code block of `content/glossary/x.md` (line 6) includes, if any.
    include: Option<&'static str>,
    error: &'static str,
}

#[cfg(unix)]
#[test]
fn nothing_a_contributor_commits_reaches_the_site_by_what_its_path_says() {
    let cases = [
        Hostile {
            files: &[("kernels/notes.html", "<script>alert(1)</script>\n")],
            links: &[],
            include: Some("kernels/notes.html"),
            error: "x.md:6: `file=kernels/notes.html` is a `.html` file",
        },
        Hostile {
            files: &[(
                "content/glossary/upper.MD",
                "---\ntitle: U\n---\nDraft text.\n",
            )],
            links: &[],
            include: Some("content/glossary/upper.MD"),
            error: "x.md:6: `file=content/glossary/upper.MD` is an entry",
        },
        Hostile {
            files: &[],
            links: &[("kernels/d.cu", "content/glossary/draft.md")],
            include: Some("kernels/d.cu"),
            error: "x.md:6: `file=kernels/d.cu` resolves to `content/glossary/draft.md`, an entry's source",
        },
        Hostile {
            files: &[],
            links: &[("kernels/t.cu", "/token")],
            include: Some("kernels/t.cu"),
            error: "x.md:6: `file=kernels/t.cu` resolves to a file outside the site root",
        },
        Hostile {
            files: &[],
            links: &[("content/glossary/cfg.txt", ".git/config")],
            include: None,
            error: "content/glossary/cfg.txt: resolves to `.git/config`, a hidden file",
        },
        Hostile {
            files: &[],
            links: &[("static/cfg.txt", ".git/config")],
            include: None,
            error: "static/cfg.txt: resolves to `.git/config`, a hidden file",
        },
        Hostile {
            files: &[],
            links: &[("static", "/")],
            include: None,
            error: "static/token: resolves to a file outside the site root",
        },
    ];
    for case in cases {
        let site = Site::new();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("token"), "ghp_secret\n").unwrap();
        site.write(
            ".git/config",
            "[http] extraheader = AUTHORIZATION: basic c2VjcmV0\n",
        );
        site.write("content/glossary/draft.md", draft("Draft"));
        let fence = case.include.map(|f| format!("```text file={f}\n```\n"));
        site.write(
            "content/glossary/x.md",
            draft("X") + &fence.unwrap_or_default(),
        );
        for (path, text) in case.files {
            site.write(path, text);
        }
        for (link, to) in case.links {
            let to = match to.strip_prefix('/') {
                Some(out) => outside.path().join(out),
                None => site.root().join(to),
            };
            let link = site.root().join(link);
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            if link.is_dir() {
                std::fs::remove_dir_all(&link).unwrap();
            }
            std::os::unix::fs::symlink(to, link).unwrap();
        }
        // A draft's code blocks are converted in the preview only (the publish build leaves
        // the draft out); assets and static files are copied by both.
        let builds: &[&[&str]] = match case.include {
            Some(_) => &[&["build", "--drafts"]],
            None => &[&["build", "--drafts"], &["build"]],
        };
        for args in builds {
            let o = site.run(args);
            assert_code(&o, 1);
            let err = stderr(&o);
            assert!(err.contains(case.error), "{args:?}: {err}");
            assert_stderr_lacks(&o, &["ghp_secret", "c2VjcmV0"]);
            assert!(
                !site.exists("public"),
                "{}: something was written",
                case.error
            );
        }
    }
}

#[test]
fn one_large_file_included_many_times_is_refused_quickly() {
    let site = Site::new();
    let line = "int x = 0; // a line of a large kernel, repeated until the file is a MiB\n";
    site.write("kernels/big.cu", line.repeat((1 << 20) / line.len()));
    let fences = "```cuda file=kernels/big.cu\n```\n\n".repeat(150);
    site.write("content/glossary/x.md", format!("{}{fences}", draft("X")));
    let start = std::time::Instant::now();
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &["this page's code blocks would include more than 2048 KiB in all"],
    );
    assert!(!site.exists("public"));
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "bounded"
    );
}

#[test]
fn a_mebibyte_of_adversarial_markdown_or_html_builds_in_bounded_time() {
    // Each was quadratic or worse somewhere once: 40,000 equal headings took 50 s (their
    // ids), 200,000 unclosed `<div>`s over two minutes (the HTML cleaner). Release builds
    // take well under a second for each; the bound here leaves room for a debug build.
    let n = (1 << 20) - 200;
    let cases: [(&str, String, i32); 6] = [
        ("headings", "## h\n\n".repeat(n / 6), 0),
        ("divs", "<div>".repeat(n / 5), 1),
        ("quotes", ">".repeat(n), 0),
        ("brackets", "[".repeat(n), 0),
        ("emphasis", "*a **b ".repeat(n / 7), 0),
        (
            "tables",
            format!("|a|b|\n|-|-|\n{}", "|x|y|\n".repeat(n / 6)),
            0,
        ),
    ];
    for (what, body, code) in cases {
        let site = Site::new();
        site.write("content/glossary/a.md", draft("A") + &body);
        let start = std::time::Instant::now();
        let o = site.run(&["build", "--drafts", "--no-search"]);
        let took = start.elapsed();
        assert_code(&o, code);
        assert!(
            took < std::time::Duration::from_secs(30),
            "{what}: {took:?}"
        );
        if code == 1 {
            assert_stderr_has(&o, &["tags of raw HTML"]);
        }
    }
}

#[cfg(unix)]
#[test]
fn fifos_and_linked_or_oversized_configs_are_refused_without_reading_them() {
    let mkfifo = |path: &Path| {
        let ok = Command::new("mkfifo")
            .arg(path)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "mkfifo {}", path.display());
    };
    // A FIFO blocks a read for ever: as an entry, an asset or the config it is refused.
    for (fifo, error) in [
        (
            "content/glossary/f.md",
            "content/glossary/f.md: is not a regular file",
        ),
        (
            "content/glossary/f.txt",
            "content/glossary/f.txt: is not a regular file",
        ),
        ("coursegen.toml", "coursegen.toml: is not a regular file"),
    ] {
        let site = Site::new();
        site.write("content/glossary/x.md", draft("X"));
        mkfifo(&site.root().join(fifo));
        let mut child = Command::new(env!("CARGO_BIN_EXE_coursegen"))
            .args(["--root", site.root().to_str().unwrap(), "build", "--drafts"])
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > std::time::Duration::from_secs(20) {
                child.kill().unwrap();
                panic!("{fifo}: the build hangs");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let o = child.wait_with_output().unwrap();
        assert_code(&o, 1);
        assert_stderr_has(&o, &[error]);
    }
    // The site's own config may not be a link out of the root (its text would be quoted in
    // a parse error, which CI posts on the pull request), nor be huge or hold a huge title.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("token"), "ghp_secret = [\n").unwrap();
    let site = Site::new();
    site.write("content/glossary/x.md", draft("X"));
    std::os::unix::fs::symlink(
        outside.path().join("token"),
        site.root().join("coursegen.toml"),
    )
    .unwrap();
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &["coursegen.toml: resolves to a file outside the site root"],
    );
    assert_stderr_lacks(&o, &["ghp_secret"]);
    std::fs::remove_file(site.root().join("coursegen.toml")).unwrap();
    site.write(
        "coursegen.toml",
        format!("title = \"{}\"\n", "T".repeat(200_000)),
    );
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["a site config is at most 64 KiB"]);
    site.write(
        "coursegen.toml",
        format!("title = \"{}\"\n", "T".repeat(300)),
    );
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["longer than 200 characters"]);
    assert!(!site.exists("public"));
}

/// Where a random layout's links may point: files a build may publish, and files it never
/// may (each of those holds a secret the output is searched for).
const LINK_TARGETS: &[&str] = &[
    "kernels/k.cu",
    "content/glossary/pic.png",
    "static/site.txt",
    "content/glossary/draft.md",
    "content/glossary/DRAFT2.MD",
    ".git/config",
    "/outside/token",
    "/outside",
    "static",
    "kernels",
    "content/glossary/loop-a.txt",
    "missing",
];

/// Where a random layout puts its links.
const LINK_PLACES: &[&str] = &[
    "static/l1.txt",
    "static/sub/l2.css",
    "content/glossary/l3.txt",
    "content/glossary/l4.png",
    "kernels/l5.cu",
    "kernels/l6.py",
    "content/glossary/loop-a.txt",
    "content/glossary/loop-b.txt",
];

/// The secrets: in the draft's text (never in the publish build), in `.git/config` and
/// outside the root (never in any build).
const DRAFT_SECRET: &str = "DRAFT-TEXT-7f3a";
const HIDDEN_SECRET: &str = "GIT-TOKEN-91c2";
const OUTSIDE_SECRET: &str = "OUTSIDE-TOKEN-5e8b";

#[cfg(unix)]
fn build_layout(links: &[(usize, usize)], includes: &[usize]) {
    let site = Site::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(outside.path().join("outside")).unwrap();
    std::fs::write(outside.path().join("outside/token"), OUTSIDE_SECRET).unwrap();
    site.write(".git/config", HIDDEN_SECRET);
    site.write("kernels/k.cu", "int k;\n");
    site.write("static/site.txt", "site file\n");
    site.write("content/glossary/pic.png", "not really a png\n");
    site.write(
        "content/glossary/draft.md",
        format!("{}{DRAFT_SECRET}\n", draft("Draft")),
    );
    site.write(
        "content/glossary/DRAFT2.MD",
        format!("{}{DRAFT_SECRET}\n", draft("Draft 2")),
    );
    let mut fences = String::new();
    for &i in includes {
        fences += &format!(
            "\n```text file={}\n```\n",
            LINK_PLACES[i % LINK_PLACES.len()]
        );
    }
    site.write("content/glossary/warp.md", published("Warp", "") + &fences);
    for &(place, target) in links {
        let link = site.root().join(LINK_PLACES[place % LINK_PLACES.len()]);
        let target = LINK_TARGETS[target % LINK_TARGETS.len()];
        let to = match target.strip_prefix('/') {
            Some(out) => outside.path().join(out),
            None => site.root().join(target),
        };
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(to, &link).unwrap();
    }
    for (args, draft_allowed) in [(&["build", "--drafts"][..], true), (&["build"][..], false)] {
        let o = site.run(args);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{links:?}: {o:?}");
        let public = site.root().join("public");
        if o.status.code() == Some(1) {
            assert!(!public.exists(), "{links:?}: a failed build wrote");
            continue;
        }
        for entry in walkdir::WalkDir::new(&public) {
            let entry = entry.unwrap();
            assert!(
                !entry.path_is_symlink(),
                "{}: a link in the output",
                entry.path().display()
            );
            if !entry.file_type().is_file() {
                continue;
            }
            let bytes = std::fs::read(entry.path()).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            let shown = entry.path().display();
            assert!(
                !text.contains(HIDDEN_SECRET),
                "{links:?} {includes:?}: {shown}"
            );
            assert!(
                !text.contains(OUTSIDE_SECRET),
                "{links:?} {includes:?}: {shown}"
            );
            if !draft_allowed {
                assert!(
                    !text.contains(DRAFT_SECRET),
                    "{links:?} {includes:?}: {shown}"
                );
            }
        }
        std::fs::remove_dir_all(&public).unwrap();
    }
}

#[cfg(unix)]
#[test]
fn layouts_that_once_leaked_publish_nothing_from_outside_the_allowed_set() {
    // Each of these published a secret on eda987c (static/l1.txt -> .git/config; the
    // content asset l3.txt -> outside; kernels/l5.cu -> the draft, included by a published
    // page; static -> a folder outside).
    build_layout(&[(0, 5)], &[]);
    build_layout(&[(2, 6)], &[]);
    build_layout(&[(4, 3)], &[4]);
    build_layout(&[(0, 4), (5, 4)], &[5]);
}

#[cfg(unix)]
mod random_layouts {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        /// Links inside, outside, in loops, into `.git`, into drafts and to folders, and
        /// code blocks including through them: no build ever publishes a byte from outside
        /// the allowed set.
        #[test]
        fn no_build_publishes_a_byte_from_outside_the_allowed_set(
            links in proptest::collection::vec((0usize..64, 0usize..64), 1..3),
            includes in proptest::collection::vec(0usize..64, 0..2),
        ) {
            super::build_layout(&links, &includes);
        }
    }
}

#[cfg(unix)]
#[test]
fn kernels_manifests_and_records_are_files_of_their_own() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("token"), "ghp_secret: [\n").unwrap();
    // A manifest, a kernel, a record and the measurements folder linked away: each is
    // refused, naming it, and the linked text is never quoted.
    let cases: [(&str, &str); 4] = [
        ("kernels/bank_conflicts.yaml", "kernels/bank_conflicts.yaml"),
        ("kernels/bank_conflicts.cu", "kernels/bank_conflicts.cu"),
        ("measurements", "measurements"),
        (
            "measurements/bank_conflicts/link.json",
            "measurements/bank_conflicts/link.json",
        ),
    ];
    for (link, named) in cases {
        let site = measured_site(true);
        let at = site.root().join(link);
        if at.is_dir() {
            std::fs::remove_dir_all(&at).unwrap();
        } else if at.exists() {
            std::fs::remove_file(&at).unwrap();
        }
        std::os::unix::fs::symlink(outside.path().join("token"), &at).unwrap();
        let o = site.run(&["build", "--drafts"]);
        assert_code(&o, 1);
        let err = stderr(&o);
        assert_stderr_has(&o, &[named, "symbolic link"]);
        assert!(!err.contains("ghp_secret"), "{link}: {err}");
        assert!(!site.exists("public"));
    }
}

/// One 1 MiB entry of each shape that was superlinear before the cleaner or the YAML parser
/// (112,000 attributes in one tag took 8 s in a release build; 9,990 `<html>` tags of eleven
/// attributes 26 s; `[[[…` 30,000 deep 4–6 s): each is refused at once, naming its file,
/// line and field. `benches/hostile.sh` times twenty of each with the release binary.
#[test]
fn a_mebibyte_of_attributes_or_of_nested_yaml_is_refused_at_its_line() {
    let names: Vec<String> = (0..112_000).map(|i| format!("a{i:x}")).collect();
    let one_tag = format!("{}\n<div {}>x</div>\n", draft("A"), names.join(" "));
    let html_tags: String = (0..9_990)
        .map(|t| {
            let names: Vec<String> = (0..11).map(|i| format!("a{t:x}b{i}")).collect();
            format!("<html {}>", names.join(" "))
        })
        .collect();
    let html_tags = format!("{}\n{html_tags}\n", draft("A"));
    let deep = format!(
        "---\ntitle: Deep\nstatus: draft\nsummary: {}{}\n---\nBody.\n",
        "[".repeat(30_000),
        "]".repeat(30_000)
    );
    let html = "more than 10000 tags of raw HTML in one part of the body, or a tag with more than 256 attributes";
    let cases = [
        (one_tag, format!("content/glossary/a.md:7: {html}")),
        (html_tags, format!("content/glossary/a.md:7: {html}")),
        (
            deep,
            "content/glossary/a.md:4: field `summary`: front matter opens more than 256 lists"
                .to_string(),
        ),
    ];
    for (text, error) in cases {
        assert!(text.len() <= 1 << 20, "{}", text.len());
        let site = Site::new();
        site.write("content/glossary/a.md", text);
        let start = std::time::Instant::now();
        let o = site.run(&["build", "--drafts", "--no-search"]);
        let took = start.elapsed();
        assert_code(&o, 1);
        assert_stderr_has(&o, &[&error]);
        // A debug build; the release binary takes a few milliseconds.
        assert!(
            took < std::time::Duration::from_secs(10),
            "{error}: {took:?}"
        );
    }
}

/// One 1 MiB entry of each shape of math and term that cost superlinear time or memory
/// (braces 200,000 deep took over 120 s in a release build, `\frac` 20,000 deep 12 s, a
/// 1 MiB matrix 3 s and 353 MiB, 175,000 inline formulas 2.3 s each, a 20,000-character
/// term over a 1 MB page 73 s): each is refused, naming its file and line (and field).
/// `benches/hostile.sh` times one and twenty of each with the release binary.
#[test]
fn a_mebibyte_of_nested_or_numerous_math_or_a_huge_term_is_refused_at_its_line() {
    let head = "---\ntitle: A\nstatus: draft\n---\n"; // the body starts on line 5
    let entry = |body: String| format!("{head}Intro.\n\n{body}\n");
    let braces = entry(format!(
        "$${}x{}$$",
        "{".repeat(200_000),
        "}".repeat(200_000)
    ));
    let frac = entry(format!(
        "$${}x{}$$",
        "\\frac{".repeat(100_000),
        "}{y}".repeat(100_000)
    ));
    let sqrt = entry(format!(
        "$${}x{}$$",
        "\\sqrt{".repeat(140_000),
        "}".repeat(140_000)
    ));
    // Formulas within the length limit, each nested too deep: the first is refused.
    let deep: String = (0..240)
        .map(|_| format!("$${}x{}$$\n\n", "\\sqrt{".repeat(600), "}".repeat(600)))
        .collect();
    let deep = entry(deep);
    let row = vec!["a_{ij}"; 16].join(" & ");
    let matrix = |rows: usize| {
        format!(
            "$$\\begin{{pmatrix}}{}\\end{{pmatrix}}$$",
            vec![row.as_str(); rows].join(" \\\\ ")
        )
    };
    let one_matrix = entry(matrix(7_000));
    let matrices = entry(vec![matrix(50); 130].join("\n\n"));
    let inline = format!("{head}{}", "$x$\n".repeat(175_000));
    let macros = entry(format!(
        "$$\\def\\a{{xxxxxxxx}}\\def\\b{{\\a\\a\\a\\a}}\\b\\b$$\n\n{}",
        "$x$ ".repeat(1000)
    ));
    let long_term = format!(
        "---\ntitle: A\nterm: {}\nstatus: draft\n---\n{}\n",
        "a".repeat(20_000),
        "a".repeat(1_000_000)
    );
    let length = "the formula is longer than 8 KiB (8192 bytes)";
    // (entry, its line or `None` where the limit is met at a formula found by adding up
    // sizes, message)
    let cases = [
        (braces, Some(7), length),
        (frac, Some(7), length),
        (sqrt, Some(7), length),
        (deep, Some(7), "the formula nests more than 32 deep"),
        (one_matrix, Some(7), length),
        (
            matrices,
            None,
            "the page's formulas make more than 1 MiB of MathML",
        ),
        (inline, Some(2005), "more than 2000 formulas on one page"),
        (macros, Some(7), "the formula defines a macro (`\\def`)"),
        (
            long_term,
            Some(3),
            "field `term`: the term is 20000 bytes long: a term or alias may be at most 64 bytes",
        ),
    ];
    for (text, line, message) in cases {
        assert!(text.len() <= 1 << 20, "{message}: {}", text.len());
        let site = Site::new();
        site.write("content/glossary/a.md", text);
        let o = site.run(&["build", "--drafts", "--no-search"]);
        assert_code(&o, 1);
        match line {
            Some(line) => {
                assert_stderr_has(&o, &[&format!("content/glossary/a.md:{line}: {message}")])
            }
            None => assert_stderr_has(&o, &["content/glossary/a.md:", message]),
        }
    }
}

/// A committed file's name is content: one holding a newline and a workflow command, a
/// carriage return, escape and bell characters and a bidirectional override prints as
/// escaped text from every command that names it — no line GitHub Actions would obey, no
/// character a terminal acts on — in the build summary too.
#[cfg(unix)]
#[test]
fn a_file_name_cannot_forge_a_workflow_command_or_drive_the_terminal() {
    let site = Site::new();
    let name = "x\n::error file=README.md,line=1::FORGED\r::add-mask::m\u{1b}[2J\u{7}\u{202e}##[error]y.md";
    // `slug:` names the page, so the file name reaches only the messages.
    let entry = "---\ntitle: X\nslug: x\nstatus: draft\n---\nDraft body.\n";
    site.write(&format!("content/glossary/{name}"), entry);
    site.write("content/glossary/b.md", draft("B"));
    let summary = site.root().join("summary.md");
    let runs: [&[&str]; 6] = [
        &["build", "--summary", summary.to_str().unwrap()],
        &["build", "--drafts"],
        &["check"],
        &["check", "--format", "json"],
        &["status"],
        &["status", "--json"],
    ];
    let mut outputs = Vec::new();
    for args in runs {
        for actions in [false, true] {
            let o = match actions {
                true => site.run_in_actions(args),
                false => site.run(args),
            };
            let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
            assert!(
                all.contains("FORGED"),
                "{args:?} does not name the file: {all}"
            );
            outputs.push((format!("{args:?}"), all));
        }
    }
    outputs.push(("summary".into(), std::fs::read_to_string(&summary).unwrap()));
    for (what, text) in outputs {
        for line in text.lines() {
            assert!(!line.trim_start().starts_with("::"), "{what}: {line:?}");
            assert!(!line.contains("##["), "{what}: {line:?}");
        }
        for c in ['\r', '\u{1b}', '\u{7}', '\u{202e}'] {
            assert!(!text.contains(c), "{what} holds {c:?}: {text:?}");
        }
    }
}
