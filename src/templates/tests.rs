//! Tests of the templates: the policy first in the head, values escaped for text and both
//! quotes, inline scripts allowed by hash, the theme's own snippet.
use super::*;

fn templates(files: &[(&str, &str)]) -> Templates {
    let dir = tempfile::tempdir().unwrap();
    for name in REQUIRED {
        std::fs::write(
            dir.path().join(name),
            "<!doctype html><html><head></head></html>",
        )
        .unwrap();
    }
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    Templates::load(dir.path()).unwrap()
}

#[test]
fn every_page_gets_the_policy_first_in_head() {
    let t = templates(&[(
        "index.html",
        "<!doctype html>\n<HTML><Head lang=\"en\"><meta charset=\"utf-8\"><title>{{ t }}</title></head><body></body></html>",
    )]);
    let html = t
        .render("index.html", &serde_json::json!({"t": "x"}), "/")
        .unwrap();
    let meta = format!("<Head lang=\"en\">{}<meta charset", csp_meta(t.csp()));
    assert!(html.contains(&meta), "{html}");
    assert_eq!(html.matches("Content-Security-Policy").count(), 1);
    let t = templates(&[("index.html", "<header>no head element</header>")]);
    let err = t
        .render("index.html", &serde_json::json!({}), "/")
        .unwrap_err();
    assert!(err.to_string().contains("no <head>"), "{err}");
}

/// Where the policy goes is where the browser's parser opens the head element: after
/// comments, a doctype and `<html>` read as the parser reads them; a page that lets the
/// parser open its head anywhere else is refused.
#[test]
fn the_policy_goes_where_the_parser_opens_the_head() {
    let placed = [
        ("<!-- <head> -->\n<!doctype html><html><head>", "<head>"),
        (
            "<!doctype html><html data-x=\"<head>\" lang=en><!--><head>",
            "<head>",
        ),
        (
            "\u{feff}<!DOCTYPE html>\n<!-- a --!><!---><html>\n<HEAD id='>'>",
            "<HEAD id='>'>",
        ),
        ("<head title=\"a > b\" x=1>", "<head title=\"a > b\" x=1>"),
    ];
    for (page, head) in placed {
        let t = templates(&[("index.html", &format!("{page}<title>t</title>"))]);
        let html = t.render("index.html", &serde_json::json!({}), "/").unwrap();
        let want = format!("{head}{}<title>", csp_meta(t.csp()));
        assert!(html.contains(&want), "{page:?}: {html}");
        assert_eq!(html.matches("Content-Security-Policy").count(), 1);
    }
    let refused = [
        "<html><!-- <head> --><body><head>",
        "<!doctype html><title>t</title><head>",
        "x<head>",
        "<html><html><head>",
        "<!-- <head> --",
        "<head x=\"unclosed>",
        "<header><head>",
    ];
    for page in refused {
        let t = templates(&[("index.html", page)]);
        let err = t
            .render("index.html", &serde_json::json!({}), "/")
            .unwrap_err();
        assert!(err.to_string().contains("no <head>"), "{page:?}: {err}");
    }
}

#[test]
fn values_cannot_leave_text_or_either_kind_of_quoted_attribute() {
    let t = templates(&[(
        "index.html",
        "<html><head></head><body><a title=\"{{ v }}\" data-x='{{ v }}'>{{ v }}</a>{{ w | safe }}</body></html>",
    )]);
    let v = r#"x' onmouseover='alert(1)" onclick="alert(2)"><script>&amp;"#;
    let html = t
        .render(
            "index.html",
            &serde_json::json!({"v": v, "w": "<b>kept</b>"}),
            "/",
        )
        .unwrap();
    let escaped = "x&#x27; onmouseover=&#x27;alert(1)&quot; onclick=&quot;alert(2)&quot;&gt;&lt;script&gt;&amp;amp;";
    assert_eq!(html.matches(escaped).count(), 3, "{html}");
    assert!(
        !html.contains("<script>") && html.contains("<b>kept</b>"),
        "{html}"
    );
}

#[test]
fn the_policy_allows_exactly_the_templates_inline_scripts() {
    let page = |script: &str| {
        format!("<html><head>{script}<script src=\"{{{{ root }}}}site.js\"></script></head></html>")
    };
    let t = templates(&[("index.html", &page("<script>var a=1</script>"))]);
    // echo -n 'var a=1' | openssl dgst -sha256 -binary | base64
    let hash = "'sha256-WazVQOu5lmXfSreSrMJd1CsaQ4c00fUQpJfBYCuMSIw='";
    assert_eq!(sha256_base64("var a=1"), &hash[8..hash.len() - 1]);
    assert!(
        t.csp()
            .contains(&format!("script-src 'self' {hash} 'wasm-unsafe-eval'")),
        "{}",
        t.csp()
    );
    // Edited: the new code's hash, not the old one.
    let edited = templates(&[("index.html", &page("<script>var a=2</script>"))]);
    assert!(!edited.csp().contains(hash));
    assert!(edited.csp().contains(&sha256_base64("var a=2")));
    // None: no hash at all.
    let none = templates(&[("index.html", &page(""))]);
    assert!(
        none.csp().contains("script-src 'self' 'wasm-unsafe-eval'"),
        "{}",
        none.csp()
    );
    // Template syntax inside an inline script is refused, naming the file.
    let dir = tempfile::tempdir().unwrap();
    for name in REQUIRED {
        std::fs::write(dir.path().join(name), page("")).unwrap();
    }
    std::fs::write(
        dir.path().join("index.html"),
        page("<script>var t=\"{{ title }}\"</script>"),
    )
    .unwrap();
    let err = Templates::load(dir.path()).err().expect("refused");
    assert!(
        err.to_string()
            .starts_with("templates/index.html has an inline <script>"),
        "{err}"
    );
}

#[test]
fn the_repository_theme_snippet_is_allowed_by_its_hash() {
    let t = Templates::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("templates"))
        .unwrap();
    let base = include_str!("../../templates/base.html");
    let code = inline_scripts("base.html", base).unwrap();
    assert_eq!(code.len(), 1, "the theme snippet");
    assert!(
        t.csp()
            .contains(&format!("'sha256-{}'", sha256_base64(code[0]))),
        "{}",
        t.csp()
    );
}
