//! The pipeline as a whole: every problem of a site in one run of `check` and of `build`,
//! sorted by file and line, nothing written; section intros go through the same stages.
use crate::util::*;

/// One site with one error of each kind, and the line each must be reported at.
fn site_with_every_kind_of_error() -> (Site, Vec<(&'static str, &'static str)>) {
    let site = measured_site(true);
    let body = |text: &str| format!("\n{text}\n");
    site.write(
        "content/glossary/a-field.md",
        "---\ntitle: A\ntitel: b\n---\n",
    );
    site.write(
        "content/glossary/b-related.md",
        "---\ntitle: B\nrelated: [zzz]\n---\n",
    );
    site.write(
        "content/glossary/c-link.md",
        format!(
            "{}{}",
            published("C", ""),
            body("See [x](/glossary/nope/).")
        ),
    );
    site.write("content/glossary/lane.md", draft("Lane"));
    site.write(
        "content/glossary/d-draft.md",
        format!("{}{}", published("D", ""), body("See [lane](../lane/).")),
    );
    site.write(
        "content/glossary/e-diagram.md",
        published("E", "diagram:\n  preset: bank-mapp\n  alt: a\n"),
    );
    site.write(
        "content/glossary/f-cc.md",
        published("F", "").replace("cc: \"8.0\"", "cc: \"7.7\""),
    );
    site.write(
        "content/glossary/bank.md",
        site.read("content/glossary/bank.md")
            .replace("ratio 32L L", "ratio 64L L"),
    );
    site.write(
        "content/glossary/h-kernel.md",
        published("H", "measure: no_such_kernel\n"),
    );
    site.write(
        "content/glossary.md",
        format!("---\ntitle: The glossary\nstatus: published\n{SIGNED}---\n\nStart at [the intro](/glossary/missing/).\n"),
    );
    let wants = vec![
        ("content/glossary/a-field.md:3:", "field `titel`"),
        (
            "content/glossary/b-related.md:3:",
            "`zzz` is not a glossary entry",
        ),
        ("content/glossary/bank.md:23:", "64L"),
        (
            "content/glossary/c-link.md:20:",
            "broken link: `/glossary/nope/`",
        ),
        ("content/glossary/d-draft.md:20:", "points at a draft"),
        (
            "content/glossary/e-diagram.md:12:",
            "field `diagram.preset`",
        ),
        ("content/glossary/f-cc.md:5:", "field `cc`"),
        (
            "content/glossary/h-kernel.md:11:",
            "field `measure`: cannot read `kernels/no_such_kernel.cu`",
        ),
        // Paths sort by component: `glossary/…` before `glossary.md`.
        (
            "content/glossary.md:11:",
            "broken link: `/glossary/missing/`",
        ),
    ];
    (site, wants)
}

#[test]
fn every_kind_of_error_is_reported_in_one_run_sorted_and_nothing_is_written() {
    let (site, wants) = site_with_every_kind_of_error();
    let listing = || {
        let mut names: Vec<_> = std::fs::read_dir(site.root())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let before = listing();
    for args in [
        &["check"][..],
        &["check", "--drafts"],
        &["build"],
        &["build", "--drafts"],
        // Pages are staged as the check passes them (with search: after it).
        &["build", "--no-search"],
    ] {
        let o = site.run(args);
        assert_code(&o, 1);
        let err = stderr(&o);
        let mut last = 0;
        // In the preview the draft is shown, so a link to it is fine.
        let preview = args.contains(&"--drafts");
        for (at, what) in wants
            .iter()
            .filter(|w| !(preview && w.1 == "points at a draft"))
        {
            let line = err
                .lines()
                .find(|l| l.contains(at) && l.contains(what))
                .unwrap_or_else(|| panic!("{args:?}: no `{at} … {what}` in\n{err}"));
            let pos = err.find(line).unwrap();
            assert!(
                pos >= last,
                "{args:?}: `{at}` is out of file/line order:\n{err}"
            );
            last = pos;
        }
        let count = err.lines().filter(|l| l.starts_with("error: ")).count();
        assert!(
            err.contains(&format!("{count} problems found; nothing was written")),
            "{args:?}: {err}"
        );
        assert!(!site.exists("public"), "{args:?}: nothing may be written");
        // Nor left beside it: a build stages pages as the check passes them.
        assert_eq!(listing(), before, "{args:?}: a file or folder was left");
    }
}

/// `content/glossary.md`, signed and published, with `extra` front matter and `body`.
fn intro(extra: &str, body: &str) -> String {
    format!("---\ntitle: The glossary\nstatus: published\n{extra}{SIGNED}---\n\n{body}")
}

#[test]
fn intros_expand_bindings_highlight_on_request_and_are_sanitised() {
    let site = measured_site(true);
    let code = "```cuda\n__global__ void k() {}\n```\n";
    site.write(
        "content/glossary.md",
        intro(
            "measure: bank_conflicts\n",
            &format!("Measured on an {{{{% device %}}}}.\n\n{code}\n<script>alert(1)</script>\n"),
        ),
    );
    // `--strict` publishes reviews pinned to the text only.
    sign_bank(&site);
    let signing = ["sign", "content/glossary.md", "--reviewer", "Grace Hopper"];
    assert_code(&site.run(&signing), 0);
    assert_code(&site.run(&["build", "--strict"]), 0);
    let html = site.read("public/glossary/index.html");
    assert!(html.contains("<h1>The glossary</h1>"), "{html}");
    assert!(html.contains("Measured on an NVIDIA H200."), "{html}");
    assert!(!html.contains("{{%"), "{html}");
    assert!(html.contains("<span class=\"hl-"), "highlighted: {html}");
    assert!(!html.contains("<script>alert"), "{html}");
    assert_code(&site.run(&["build", "--no-highlight"]), 0);
    let html = site.read("public/glossary/index.html");
    assert!(
        !html.contains("<span class=\"hl-"),
        "--no-highlight: {html}"
    );
    assert!(html.contains("__global__ void k() {}"), "{html}");
    site.write(
        "content/glossary.md",
        intro("measure: bank_conflicts\n", "A {{% ratio 64L L %}}.\n"),
    );
    let o = site.run(&["build"]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["content/glossary.md:12:", "no row `64L`"]);
}

#[test]
fn intros_report_unknown_bindings_and_follow_the_editorial_rule() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    site.write(
        "content/glossary.md",
        intro("", "A {{% ratio 32L L %}} here.\n"),
    );
    let o = site.run(&["check"]);
    assert_code(&o, 1);
    // a binding without `measure:` names its line
    assert_stderr_has(&o, &["content/glossary.md:11:"]);
    // A draft introduction is left out of the publish build and shown in the preview.
    site.write(
        "content/glossary.md",
        "---\ntitle: The glossary\nstatus: draft\n---\n\nWelcome.\n",
    );
    assert_code(&site.run(&["build"]), 0);
    let html = site.read("public/glossary/index.html");
    assert!(
        !html.contains("Welcome.") && !html.contains("The glossary"),
        "{html}"
    );
    assert!(html.contains("href=\"/glossary/warp/\""), "{html}");
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let html = site.read("public/glossary/index.html");
    assert!(
        html.contains("Welcome.") && html.contains("draft-banner"),
        "{html}"
    );
}

/// `--version` names the commit the binary was built from (a release and a checkout alike;
/// a build from crates.io, with no git, names the version alone).
#[test]
fn version_names_the_commit() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .arg("--version")
        .output()
        .unwrap();
    assert_code(&o, 0);
    let out = String::from_utf8_lossy(&o.stdout).trim().to_string();
    let version = concat!("coursegen ", env!("CARGO_PKG_VERSION"));
    assert!(out.starts_with(version), "{out}");
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    if let Some(head) = head.ok().filter(|h| h.status.success())
        && std::env::var_os("COURSEGEN_COMMIT").is_none()
    {
        let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
        assert_eq!(out, format!("{version} ({head})"));
    }
}

/// `completions SHELL` prints a script the shell accepts, naming every subcommand; `man`
/// prints a roff page with a section per subcommand.
#[test]
fn completions_and_man_page_come_from_the_command_line() {
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_coursegen"))
            .args(args)
            .output()
            .unwrap();
        assert_code(&o, 0);
        String::from_utf8(o.stdout).unwrap()
    };
    let bash = run(&["completions", "bash"]);
    for sub in [
        "build", "check", "measure", "serve", "sign", "signers", "status", "man",
    ] {
        assert!(
            bash.contains(sub),
            "{sub} missing from the bash completions"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("coursegen.bash");
    std::fs::write(&script, &bash).unwrap();
    let syntax = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert_code(&syntax, 0);
    assert!(run(&["completions", "fish"]).contains("complete -c coursegen"));
    let man = run(&["man"]);
    assert!(man.contains(".TH coursegen 1"), "no title line");
    for section in ["COURSEGEN BUILD", "COURSEGEN SIGN", "COURSEGEN MEASURE"] {
        assert!(man.contains(section), "{section} missing from the man page");
    }
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .args(["completions", "nosh"])
        .output()
        .unwrap();
    assert_code(&bad, 2);
}
