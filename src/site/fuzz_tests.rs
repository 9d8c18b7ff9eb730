//! The fuzz suite: property tests that feed hostile and arbitrary front matter, Markdown
//! bodies with bindings, and measurement records through whole builds (publish and
//! preview), asserting that nothing panics and that no written page carries script
//! (`sanitize::active_content` finds nothing). A fixed budget runs in `cargo test`; for a
//! longer run: `PROPTEST_CASES=5000 cargo test --release --lib fuzz` (README, Security).
use std::path::Path;

use proptest::prelude::*;

use crate::content::front_matter::{self, FieldLines};
use crate::site::options::BuildOptions;
use crate::site::{SiteError, build};

/// Cases per property in `cargo test`, unless `PROPTEST_CASES` says otherwise; a whole
/// build costs some 50 ms in a debug build.
fn budget(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Pieces of hostile input: script in every spelling we know, Markdown structure, bindings.
const ATOMS: &[&str] = &[
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](&#106;avascript&colon;alert(1))",
    "<javascript:alert(1)>",
    "![i](data:image/svg+xml;base64,PHN2Zz4=)",
    "[r]\n\n[r]: javascript:alert(1)",
    "<script>alert(1)</script>",
    "<img src=\"https://e.org/x.png\" onerror=\"alert(1)\">",
    "<a href=\"&#x6A;avascript:alert(1)\" onclick=alert(1)>a</a>",
    "<svg onload=alert(1)>",
    "<div style=\"x\" onmouseover=alert(1)>",
    "## H {onfocus=alert(1) autofocus style=x}",
    "{{% device %}}",
    "{{% driver %}}",
    "{{% ratio 32L L digits=0 %}}",
    "`{{% device %}}`",
    "\"",
    "'",
    "<",
    "&",
    "\u{E000}0\u{E001}",
    "\n---\n",
    "*a &b !c",
];

fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(ATOMS).prop_map(str::to_string),
        1 => "\\PC{0,24}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    let sep =
        proptest::sample::select(&[" ", "\n", "\n\n", "\n## Measured\n", "\n## Diagram\n"][..]);
    proptest::collection::vec((atom(), sep), 0..10)
        .prop_map(|parts| parts.into_iter().map(|(a, s)| a + s).collect())
}

/// A YAML scalar holding `s`: quoted (JSON strings are YAML) or, sometimes, as written.
fn yaml_value() -> impl Strategy<Value = String> {
    (atom(), any::<bool>()).prop_map(|(s, raw)| {
        if raw {
            s.replace('\n', " ")
        } else {
            serde_json::to_string(&s).unwrap_or_default()
        }
    })
}

const SIGNED: &str = "status: published\nbyline:\n  written_by: Ada Lovelace\n  reviewed_by: Grace Hopper\n  written_on: 2026-11-01\n  last_checked_on: 2026-11-20\n";

/// Writes a site with one entry (`front` + `body`) and the kernel's record edited by `record`.
fn site(front: &str, body: &str, record: impl Fn(&mut serde_json::Value)) -> tempfile::TempDir {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let copy = |from: &str| {
        for item in walkdir::WalkDir::new(repo.join(from)).into_iter().flatten() {
            let to = dir.path().join(item.path().strip_prefix(repo).unwrap());
            if item.file_type().is_dir() {
                std::fs::create_dir_all(&to).unwrap();
            } else {
                std::fs::copy(item.path(), &to).unwrap();
            }
        }
    };
    for folder in [
        "templates",
        "static",
        "kernels",
        "measurements/bank_conflicts",
    ] {
        copy(folder);
    }
    // Every GPU's record of the kernel (one per physical GPU) gets the same edit.
    let records = dir.path().join("measurements/bank_conflicts");
    for item in std::fs::read_dir(&records).unwrap().flatten() {
        let path = item.path();
        if path.extension().is_some_and(|e| e == "json") {
            let mut r: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            record(&mut r);
            std::fs::write(&path, serde_json::to_vec(&r).unwrap()).unwrap();
        }
    }
    let entry = dir.path().join("content/glossary/fuzz.md");
    std::fs::create_dir_all(entry.parent().unwrap()).unwrap();
    std::fs::write(entry, format!("---\n{front}---\n{body}\n")).unwrap();
    dir
}

/// Builds publish and preview; a build may fail on content, never otherwise, and what it
/// writes carries no script.
fn builds_without_script(dir: &Path) -> Result<(), TestCaseError> {
    for drafts in [false, true] {
        let out = dir.join(if drafts { "preview" } else { "public" });
        let opts = BuildOptions {
            drafts,
            strict: false,
            highlight: true,
            search: true,
            trusted_ref: None,
            check_signatures: true,
            cache_dir: None,
            out: Some(out.clone()),
            config: crate::config::Config {
                base_url: Some("https://course.example.org/".into()),
                ..Default::default()
            },
            review_max_age_days: 3650,
            // 2026-11-30T12:00:00Z
            epoch: Some(1_796_040_000),
        };
        match build(dir, &opts) {
            Ok(_) => {}
            Err(SiteError::Content(_)) => continue,
            Err(e) => return Err(TestCaseError::fail(format!("not a content error: {e}"))),
        }
        for item in walkdir::WalkDir::new(&out).into_iter().flatten() {
            let p = item.path();
            if !p.extension().is_some_and(|e| e == "html" || e == "svg") {
                continue;
            }
            let html = std::fs::read_to_string(p).unwrap();
            let found = crate::sanitize::active_content(&crate::sanitize::without_site_chrome(
                &html,
                &base_template(),
            ));
            prop_assert!(found.is_empty(), "{}: {found:?}", p.display());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(budget(256))]

    /// Front matter of any shape parses to a result or a problem, never a panic.
    #[test]
    fn front_matter_never_panics(yaml in "(\\PC|\n){0,200}", body in "\\PC{0,40}") {
        let text = format!("---\n{yaml}\n---\n{body}");
        let Ok(split) = front_matter::split(&text) else {
            return Ok(());
        };
        if let Ok(raw) = front_matter::parse(&split) {
            let lines = FieldLines::index(split.yaml, split.yaml_line);
            crate::content::meta::check_meta(raw, Path::new("f.md"), &lines, &mut Vec::new());
        }
    }
}

proptest! {
    // About a third of these builds succeed (the rest stop on content errors, as they
    // should); each success is audited page by page.
    #![proptest_config(budget(8))]

    /// Hostile values in every front-matter field a page shows.
    #[test]
    fn front_matter_makes_no_script(
        title in yaml_value(), summary in yaml_value(), term in yaml_value(),
        category in yaml_value(), source in yaml_value(), alt in yaml_value(),
    ) {
        let front = format!(
            "title: {title}\nterm: {term}\ncategory: {category}\ncc: \"8.0\"\nsummary: {summary}\n\
             sources:\n  - title: {source}\n    url: https://e.org/\nmeasure: bank_conflicts\n\
             diagram:\n  preset: bank-map\n  alt: {alt}\n{SIGNED}"
        );
        let dir = site(&front, "Body.", |_| {});
        builds_without_script(dir.path())?;
    }

    /// Hostile Markdown with bindings, in the body and under `## Measured` and `## Diagram`.
    #[test]
    fn bodies_with_bindings_make_no_script(body in text()) {
        let front = format!(
            "title: Fuzz\nterm: Fuzz\ncategory: Memory\ncc: \"8.0\"\nsummary: s\nsources:\n  - title: t\n    url: https://e.org/\nmeasure: bank_conflicts\ndiagram:\n  preset: bank-map\n  alt: a\n{SIGNED}"
        );
        let dir = site(&front, &body, |_| {});
        builds_without_script(dir.path())?;
    }

    /// Hostile strings in the record's device name, versions and date, quoted by bindings.
    #[test]
    fn records_make_no_script(name in atom(), driver in atom(), nvrtc in atom(), body in text()) {
        let front = format!("title: Fuzz\nmeasure: bank_conflicts\n{SIGNED}");
        let body = format!("{body}\n\n## Measured\n\nOn {{{{% device %}}}}, {{{{% driver %}}}}, {{{{% nvrtc %}}}}.\n");
        let dir = site(&front, &body, |r| {
            r["device"]["name"] = name.clone().into();
            r["software"]["driver_version"] = driver.clone().into();
            r["software"]["nvrtc_version"] = nvrtc.clone().into();
        });
        builds_without_script(dir.path())?;
    }
}

/// The repository's `templates/base.html`, which the fuzz sites copy.
fn base_template() -> String {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(repo.join("templates/base.html")).unwrap()
}
