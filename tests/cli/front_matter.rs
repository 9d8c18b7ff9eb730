//! Front matter and `new`: every bad input is named by file, line and field, all at once.
use crate::util::*;

/// Every kind of bad front matter: (name, file contents, expected stderr fragments, line included).
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

/// In GitHub Actions (`GITHUB_ACTIONS=true`) every problem is also an `::error` command at
/// its file and line, so it shows on the pull request's diff; elsewhere there is none.
#[test]
fn in_github_actions_each_problem_is_an_annotation_at_its_line() {
    let site = Site::new();
    site.write("content/glossary/a.md", "---\ntitle: a\ntitel: b\n---\n");
    site.write(
        "content/glossary/b.md",
        "---\ntitle: b\nstatus: \"draft\\n::error::forged\"\n---\n",
    );
    let o = site.run_in_actions(&["check"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    let commands: Vec<&str> = err.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(commands.len(), 2, "{err}");
    assert!(
        commands[0].starts_with("::error file=content/glossary/a.md,line=3,title=coursegen::"),
        "{err}"
    );
    assert!(
        commands[1].starts_with("::error file=content/glossary/b.md,line=3,title=coursegen::"),
        "{err}"
    );
    assert!(!err.lines().any(|l| l.starts_with("::error::")), "{err}");
    let plain = stderr(&site.run(&["check"]));
    assert!(!plain.lines().any(|l| l.starts_with("::")), "{plain}");
}

/// `check --format json` gives editors every problem with file, line and field on stdout,
/// and a clean site `ok` with its warnings; stdout holds nothing else.
#[test]
fn check_format_json_lists_every_problem_on_stdout() {
    let site = Site::new();
    site.write("content/glossary/a.md", "---\ntitle: a\ntitel: b\n---\n");
    site.write(
        "content/glossary/b.md",
        "---\ntitle: b\nrelated: [zzz]\n---\n",
    );
    let o = site.run(&["check", "--format", "json"]);
    assert_code(&o, 1);
    let out: serde_json::Value =
        serde_json::from_slice(&o.stdout).expect("stdout is one JSON object");
    assert_eq!(out["ok"], false);
    let problems = out["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 2, "{out}");
    assert_eq!(problems[0]["file"], "content/glossary/a.md");
    assert_eq!(problems[0]["line"], 3);
    assert!(problems.iter().all(|p| p["message"].is_string()), "{out}");
    // stderr as with text
    assert_stderr_has(&o, &["2 problems found"]);
    site.write("content/glossary/a.md", "---\ntitle: a\n---\n");
    site.write("content/glossary/b.md", "---\ntitle: b\n---\n");
    let o = site.run(&["check", "--format", "json"]);
    assert_code(&o, 0);
    let out: serde_json::Value =
        serde_json::from_slice(&o.stdout).expect("stdout is one JSON object");
    assert_eq!(out["ok"], true, "{out}");
    assert_eq!(out["problems"], serde_json::json!([]));
}

/// `error:` and `help:` are coloured as compilers colour them on a terminal (forced here
/// with CLICOLOR_FORCE), never under NO_COLOR, and not in a pipe.
#[test]
fn labels_are_coloured_on_a_terminal_and_never_under_no_color() {
    let site = Site::new();
    site.write("content/glossary/a.md", "---\ntitle: a\ntitel: b\n---\n");
    let forced = stderr(&site.run_with(&["check"], &[("CLICOLOR_FORCE", "1")]));
    assert!(
        forced.starts_with("\u{1b}[1m\u{1b}[31merror:\u{1b}[0m content/glossary/a.md:3"),
        "{forced:?}"
    );
    assert!(forced.contains("\u{1b}[36mhelp:"), "{forced:?}");
    let none = stderr(&site.run_with(&["check"], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]));
    assert!(
        !none.contains('\u{1b}') && none.starts_with("error: content/glossary/a.md:3"),
        "{none:?}"
    );
    let piped = stderr(&site.run(&["check"]));
    assert!(!piped.contains('\u{1b}'), "{piped:?}");
}

/// `--quiet` leaves out the summary and the drafts, never a problem.
#[test]
fn quiet_prints_problems_only() {
    let site = Site::new();
    site.write("content/glossary/a.md", "---\ntitle: a\n---\n");
    for command in ["build", "check"] {
        let loud = site.run(&[command]);
        assert_code(&loud, 0);
        assert!(String::from_utf8_lossy(&loud.stdout).contains("draft content/glossary/a.md"));
        let quiet = site.run(&[command, "--quiet"]);
        assert_code(&quiet, 0);
        assert!(
            quiet.stdout.is_empty(),
            "{command}: {:?}",
            String::from_utf8_lossy(&quiet.stdout)
        );
    }
    site.write("content/glossary/a.md", "---\ntitle: a\ntitel: b\n---\n");
    let o = site.run(&["check", "-q"]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["a.md:3"]);
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
    assert_stderr_has(&o, &["a.md:3", "b.md:3", "2 problems found"]);
}

#[test]
fn duplicate_slugs_are_refused_even_when_case_differs() {
    let site = Site::new();
    site.write("content/glossary/warp.md", draft("Warp"));
    site.write("content/glossary/sub/Warp.md", draft("Warp again"));
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &[
            "content/glossary/warp.md",
            "content/glossary/sub/Warp.md",
            "is already used by",
        ],
    );
}

#[test]
fn invalid_utf8_names_the_line() {
    let site = Site::new();
    site.write(
        "content/glossary/x.md",
        b"---\ntitle: x\n---\nok\nbad \xff here\n".as_slice(),
    );
    let o = site.run(&["build", "--drafts"]);
    assert_fails_at(&o, "x.md:5", "the file is not valid UTF-8");
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
        // The page's own theme script is the one `<script>`; none comes from the entry.
        assert!(!html.contains("<script>alert"), "{page}: {html}");
        assert!(!html.contains("\"onmouseover"), "{page}: {html}");
    }
    let html = site.read("public/glossary/x/index.html");
    assert!(html.contains("<title>&quot;&gt;&lt;script&gt;"), "{html}");
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
        assert_stderr_has(&o, wants);
    }
    let site = Site::new();
    site.write(
        "content/glossary/bank.md",
        published("Bank", "").replace("cc: \"8.0\"", "cc: \"7.7\""),
    );
    let o = site.run(&["build"]);
    assert_fails_at(
        &o,
        "bank.md:5",
        "field `cc`: `7.7` is not a compute capability",
    );
    assert_stderr_has(&o, &["7.5"]);
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
fn new_refuses_case_twins_and_allows_nested_sections() {
    let site = Site::new();
    site.write("content/glossary/warp.md", draft("Warp"));
    let o = site.run(&["new", "glossary", "Warp"]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["already exists"]);
    assert_code(&site.run(&["new", "glossary/memory", "smem-carveout"]), 0);
    assert!(site.exists("content/glossary/memory/smem-carveout.md"));
    assert_code(&site.run(&["new", "glossary/..", "x"]), 2);
    assert_code(&site.run(&["build", "--drafts"]), 0);
    assert!(site.exists("public/glossary/memory/smem-carveout/index.html"));
}

/// CRLF files count lines as LF files do: in front matter, body bindings and body links.
#[test]
fn crlf_files_report_the_same_line_numbers() {
    let site = Site::new();
    let text = "---\ntitle: x\ncategroy: y\n---\n";
    let body = "---\ntitle: y\n---\n\nline 5\n\n[a](/glossary/nope/)\n";
    for (name, crlf) in [("lf", false), ("crlf", true)] {
        let fix = |t: &str| {
            if crlf {
                t.replace('\n', "\r\n")
            } else {
                t.to_string()
            }
        };
        site.write(&format!("content/glossary/{name}-x.md"), fix(text));
        site.write(&format!("content/glossary/{name}-y.md"), fix(body));
    }
    let o = site.run(&["check", "--drafts"]);
    for name in ["lf", "crlf"] {
        assert_fails_at(&o, &format!("{name}-x.md:3"), "field `categroy`");
        assert_fails_at(
            &o,
            &format!("{name}-y.md:7"),
            "broken link: `/glossary/nope/`",
        );
    }
}

/// `--verbose` says what the build used: the config, the theme files that are the site's
/// own, what the cache held, and each stage's time; never with `--quiet`.
#[test]
fn verbose_names_the_config_the_site_s_theme_files_the_cache_and_the_stages() {
    let site = Site::new();
    for folder in ["templates", "static"] {
        std::fs::remove_dir_all(site.root().join(folder)).unwrap();
    }
    let diagram = "diagram:\n  preset: bank-map\n  highlight: { row: 0, column: 5 }\n  alt: Words shaded by bank.\n";
    site.write(
        "content/glossary/a.md",
        format!("---\ntitle: a\n{diagram}---\nBody.\n"),
    );
    let first = site.run(&["build", "--drafts", "--no-search", "-v"]);
    assert_stderr_has(
        &first,
        &[
            "config: none (coursegen.toml absent: the defaults); base path /\n",
            "theme: built-in (the site has no templates/ or static/ files)\n",
            // The diagram's PNG.
            "(diagrams: 0 reused, 1 rendered; search shards: 0 reused, 0 indexed)\n",
            "stages: load ",
            " (1 entry), check and pages ",
            ", site files and write ",
        ],
    );
    site.write(
        "coursegen.toml",
        "title = \"T\"\nbase_url = \"https://e.org/c/\"\n",
    );
    site.write("templates/404.html", "{% extends \"base.html\" %}");
    site.write("static/extra.txt", "mine");
    site.write(
        "static/style.css",
        std::fs::read(repo().join("static/style.css")).unwrap(),
    );
    let second = site.run(&["build", "--drafts", "--no-search", "--verbose"]);
    assert_stderr_has(
        &second,
        &[
            "config: coursegen.toml; base path /c/\n",
            "theme: built-in, with the site's own files: 1 overriding the built-in one \
             (templates/404.html); 1 added (static/extra.txt); 1 the same as the built-in one\n",
            // The PNG again (the title it shows changed), and the site's card, which only a
            // site with an address has.
            "(diagrams: 0 reused, 2 rendered;",
        ],
    );
    let third = site.run(&["build", "--drafts", "--no-search", "--verbose"]);
    assert_stderr_has(&third, &["(diagrams: 2 reused, 0 rendered;"]);
    let check = site.run(&["check", "-v"]);
    assert_stderr_has(&check, &["stages: load "]);
    assert_stderr_lacks(&check, &["cache:", "check and pages", "write"]);
    // With search, the pages are rendered after the check, beside the index.
    let searched = site.run(&["build", "--drafts", "-v"]);
    assert_stderr_has(&searched, &[" (1 entry), check ", ", render and write "]);
    let both = site.run(&["build", "-q", "-v"]);
    assert_code(&both, 2);
    assert_stderr_has(&both, &["cannot be used with"]);
}

/// Unknown fields inside nested maps (the byline, the diagram, a source) are each reported
/// in the same run as the others, at their own line, with their dotted path and the field
/// meant: serde alone stops at the first.
#[test]
fn every_unknown_nested_field_is_reported_in_one_run_with_its_path() {
    let site = Site::new();
    let file = "content/glossary/x.md";
    site.write(
        file,
        "---\ntitle: x\nbyline:\n  written_by: Ada\n  reviewd_by: Grace\ndiagram:\n  \
         preset: bank-map\n  alt: a\n  highlight:\n    row: 1\n    colum: 2\nsources:\n  \
         - title: t\n    url: https://e.org/\n  - titel: u\n    url: https://e.org/u\n---\n",
    );
    let o = site.run(&["check"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    for (line, field, name, meant) in [
        (5, "byline.reviewd_by", "reviewd_by", "reviewed_by"),
        (11, "diagram.highlight.colum", "colum", "column"),
        (15, "sources[1].titel", "titel", "title"),
    ] {
        let said = format!("{file}:{line}: field `{field}`: unknown field `{name}`");
        assert_eq!(err.matches(&said).count(), 1, "{said}\n{err}");
        assert!(err.contains(&format!("did you mean `{meant}`?")), "{err}");
    }
    assert_eq!(err.matches("unknown field").count(), 3, "{err}");
}
