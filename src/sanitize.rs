//! The one HTML policy for everything a contributor or a record can influence: every
//! rendered Markdown fragment (body, `## Measured` and `## Diagram` prose, section intros).
//! A fragment with raw HTML, or with a link or image whose URL fails [`url_allowed`], goes
//! through [`html`]: ammonia parses and filters it, and this module only states the policy.
//! Any other fragment is HTML that pulldown-cmark and our highlighter wrote from Markdown
//! alone — text and attribute values escaped, every URL on the allow-list, heading
//! attributes reduced to id and classes and table alignment written as classes by
//! `markdown` — so it is used as written, not parsed again (`cargo bench --bench sanitize`
//! and `benches/build.sh` measure what that saves; BENCHMARKS.md, Sanitiser). The
//! `plain_markdown_makes_no_script` test and the proptest fuzz suite hold both routes to
//! the same rule. SVG assets are checked against an allowlist by [`check_svg`].
use std::collections::HashSet;
use std::sync::OnceLock;

mod attributes;
mod audit;
pub use audit::{active_content, without_site_chrome};
mod svg;
mod urls;

pub(crate) use attributes::{MAX_ATTRIBUTES, too_many_attributes};
pub(crate) use svg::check_svg;
use urls::URL_SCHEMES;
pub(crate) use urls::{decode_references, url_allowed};

/// The start every [`ALIGN`] style has.
const ALIGN_STYLE: &str = " style=\"text-align: ";

/// Table-cell alignment as raw HTML in content may write it (a `style` attribute), and the class
/// that replaces it: the policy drops every `style` attribute, and the page's
/// Content-Security-Policy would block inline styles anyway.
const ALIGN: [(&str, &str); 3] = [
    (" style=\"text-align: left\"", " class=\"align-left\""),
    (" style=\"text-align: center\"", " class=\"align-center\""),
    (" style=\"text-align: right\"", " class=\"align-right\""),
];

/// MathML Core's elements (what pulldown-latex writes), kept by the cleaner.
const MATHML_TAGS: &[&str] = &[
    "math",
    "semantics",
    "annotation",
    "mrow",
    "mi",
    "mn",
    "mo",
    "ms",
    "mtext",
    "mspace",
    "mfrac",
    "msqrt",
    "mroot",
    "msub",
    "msup",
    "msubsup",
    "munder",
    "mover",
    "munderover",
    "mmultiscripts",
    "mprescripts",
    "none",
    "mtable",
    "mtr",
    "mtd",
    "mpadded",
    "mphantom",
    "mstyle",
    "menclose",
    "merror",
];

/// The presentation attributes those elements may carry.
const MATHML_ATTRIBUTES: &[&str] = &[
    "mathvariant",
    "displaystyle",
    "scriptlevel",
    "stretchy",
    "symmetric",
    "largeop",
    "movablelimits",
    "lspace",
    "rspace",
    "minsize",
    "maxsize",
    "fence",
    "separator",
    "accent",
    "accentunder",
    "linethickness",
    "width",
    "height",
    "depth",
    "voffset",
    "columnalign",
    "rowalign",
    "columnspacing",
    "rowspacing",
    "columnlines",
    "rowlines",
    "frame",
    "framespacing",
    "notation",
    "form",
];

fn cleaner() -> &'static ammonia::Builder<'static> {
    static CLEANER: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    CLEANER.get_or_init(|| {
        let mut b = ammonia::Builder::default();
        // ammonia's defaults already drop <script>, <style>, <iframe>, <svg>, forms,
        // comments, every on* handler and `style`; what follows narrows them further.
        b.url_schemes(URL_SCHEMES.iter().copied().collect::<HashSet<_>>());
        b.url_relative(ammonia::UrlRelative::PassThrough);
        // Headings and highlighted code carry ids and classes; nothing else is added.
        b.add_generic_attributes(["class", "id"]);
        b.add_tags(["figure", "figcaption", "details", "summary"]);
        // What the code-block renderer writes: line numbers hidden from screen readers,
        // the stale-source note; a term's preview, hidden until asked for.
        b.add_tag_attributes("span", ["aria-hidden", "hidden"]);
        b.add_tag_attributes("p", ["role"]);
        // Heading anchors are named for their heading; a linked term is described by its
        // preview (`markdown::terms`).
        b.add_tag_attributes("a", ["aria-label", "aria-describedby"]);
        // Formulas as MathML (`markdown::math`): MathML Core's elements, the attributes
        // pulldown-latex writes, and the TeX kept in an annotation. No `href`, no `style`.
        b.add_tags(MATHML_TAGS.iter().copied());
        for tag in MATHML_TAGS {
            b.add_tag_attributes(tag, MATHML_ATTRIBUTES.iter().copied());
        }
        b.add_tag_attributes("math", ["display"]);
        b.add_tag_attributes("annotation", ["encoding"]);
        // ammonia keeps `cite` on these, and does not hold it to the URL schemes: a
        // `cite="javascript:…"` would survive. Pages never show it; drop it.
        for tag in ["blockquote", "q", "ins", "del"] {
            b.rm_tag_attributes(tag, &["cite"]);
        }
        // `rel="noopener"` guards `target=_blank`, which content cannot set.
        b.link_rel(None);
        b
    })
}

/// Cleans one HTML fragment rendered from content: what `markdown::render` returns when
/// the Markdown holds raw HTML or a URL outside the allow-list. The caller first holds it to
/// [`too_many_attributes`]: the cleaner's time grows with the square of a tag's attributes.
pub fn html(fragment: &str) -> String {
    cleaner()
        .clean(&classes_for_alignment(fragment))
        .to_string()
}

/// The `src` of every image the HTML cleaner keeps in `fragment`, as the browser reads it
/// (character references decoded): what raw HTML embeds, for the review pin. The caller
/// first holds it to [`too_many_attributes`].
pub(crate) fn image_sources(fragment: &str) -> Vec<String> {
    let found = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&found);
    let mut builder = ammonia::Builder::default();
    builder.url_relative(ammonia::UrlRelative::PassThrough);
    builder.attribute_filter(move |element, attribute, value| {
        if element == "img" && attribute == "src" {
            let mut seen = seen
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            seen.push(value.to_string());
        }
        Some(value.into())
    });
    builder.clean(fragment);
    drop(builder);
    let mut found = found
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    std::mem::take(&mut *found)
}

fn classes_for_alignment(fragment: &str) -> std::borrow::Cow<'_, str> {
    // One pass over the fragment: most have no aligned table, and those that have one
    // have it in many cells.
    let mut out = String::new();
    let mut copied = 0;
    for (at, _) in fragment.match_indices(ALIGN_STYLE) {
        let Some((style, class)) = ALIGN.iter().find(|(s, _)| fragment[at..].starts_with(s)) else {
            continue;
        };
        if out.is_empty() {
            out.reserve(fragment.len());
        }
        out.push_str(&fragment[copied..at]);
        out.push_str(class);
        copied = at + style.len();
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(fragment);
    }
    out.push_str(&fragment[copied..]);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asserts that cleaning `input` keeps `kept` and removes every string in `gone`.
    #[track_caller]
    fn case(input: &str, kept: &str, gone: &[&str]) {
        let out = html(input);
        assert!(out.contains(kept), "{input:?} lost {kept:?}: {out}");
        for g in gone {
            assert!(
                !out.to_ascii_lowercase().contains(g),
                "{input:?} kept {g:?}: {out}"
            );
        }
    }

    #[test]
    fn policy() {
        for tag in ["blockquote", "q", "ins", "del"] {
            case(
                &format!(r#"<{tag} cite="javascript:alert(1)">c</{tag}>"#),
                ">c</",
                &["javascript", "cite"],
            );
        }
        case(
            r#"<a href="javascript:alert(1)">x</a>"#,
            ">x</a>",
            &["javascript"],
        );
        case(
            r#"<a href="JaVaScRiPt:alert(1)">x</a>"#,
            ">x</a>",
            &["javascript"],
        );
        case(
            r#"<a href="&#106;avascript&colon;alert(1)">x</a>"#,
            ">x</a>",
            &["javascript", "alert"],
        );
        case(
            "<a href=\"java\tscript:alert(1)\">x</a>",
            ">x</a>",
            &["script", "alert"],
        );
        case(
            r#"<img src="data:image/svg+xml;base64,PHN2Zz4=" alt="a">"#,
            "alt=\"a\"",
            &["data:"],
        );
        case(
            r#"<a href="vbscript:x">v</a><a href="file:///etc/passwd">f</a>"#,
            ">v</a>",
            &["vbscript", "file:"],
        );
        case(
            r#"<h2 id="a" class="b" onfocus="alert(1)" autofocus tabindex="0" style="color:red">T</h2>"#,
            r#"<h2 id="a" class="b">T</h2>"#,
            &["onfocus", "autofocus", "tabindex", "style"],
        );
        case(
            "<p>x<script>alert(1)</script><style>*{}</style><iframe src=/></iframe></p>",
            "<p>x</p>",
            &["<script", "<style", "<iframe", "alert"],
        );
        case(
            r#"<svg onload="alert(1)"><a xlink:href="javascript:x">s</a></svg>"#,
            "",
            &["<svg", "onload", "javascript"],
        );
        case(
            r#"<a href="https://e.org/x">e</a> <a href="/glossary/warp/">w</a> <a href="mailto:a@b.c">m</a> <a href="../x/">r</a>"#,
            r#"href="https://e.org/x""#,
            &[],
        );
        case(
            "<a href=\"/glossary/warp/\">w</a>",
            "href=\"/glossary/warp/\"",
            &[],
        );
        case("<a href=\"../x/#y\">w</a>", "href=\"../x/#y\"", &[]);
        case(
            "<a href=\"mailto:a@b.c\">w</a>",
            "href=\"mailto:a@b.c\"",
            &[],
        );
        case(
            "<table><tr><td style=\"text-align: center\">1</td></tr></table>",
            "<td class=\"align-center\">1</td>",
            &["style"],
        );
        case(
            "<details><summary>s</summary><b>b</b><sub>2</sub></details>",
            "<details><summary>s</summary><b>b</b><sub>2</sub></details>",
            &[],
        );
    }

    #[test]
    fn references_decode_as_a_browser_does() {
        assert_eq!(
            decode_references("&#x6A;ava&#115;cript&colon;x&amp;y &unknown; &#xZZ; a&b"),
            "javascript:x&y &unknown; &#xZZ; a&b"
        );
    }

    #[test]
    fn urls() {
        for (url, ok) in [
            ("https://e.org", true),
            ("HTTP://e.org", true),
            ("mailto:a@b.c", true),
            ("/a/b.png", true),
            ("b.png", true),
            ("#frag", true),
            ("?q=a:b", true),
            ("a/b:c", true),
            ("javascript:alert(1)", false),
            (" JavaScript:alert(1)", false),
            ("java\tscript:alert(1)", false),
            ("\u{1}javascript:alert(1)", false),
            ("data:image/png;base64,AA", false),
            ("vbscript:x", false),
        ] {
            assert_eq!(url_allowed(url), ok, "{url:?}");
        }
    }
}
