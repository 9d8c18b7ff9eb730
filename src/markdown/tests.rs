//! Tests of the Markdown pass: links with their lines, headings, tables, the cleaner's two
//! routes, code and the cut into sections.
use super::*;

fn md(s: &str) -> String {
    render(
        s,
        RenderOptions { highlight: false },
        &mut PageState::default(),
    )
    .html
}

#[test]
fn links_are_collected_with_lines() {
    let r = render(
        "a [x](/glossary/warp/)\n\nb\n![i](img.png) [y](https://e.org)\n",
        RenderOptions { highlight: false },
        &mut PageState::default(),
    );
    let got: Vec<_> = r.links.iter().map(|l| (l.url.as_str(), l.line)).collect();
    assert_eq!(
        got,
        [("/glossary/warp/", 1), ("img.png", 4), ("https://e.org", 4)]
    );
    let html = render(
        "x\n\n<a href=\"/a/\">a</a> <img src='/b.png' data-src=\"/no/\">\n",
        RenderOptions { highlight: false },
        &mut PageState::default(),
    );
    let got: Vec<_> = html
        .links
        .iter()
        .map(|l| (l.url.as_str(), l.line))
        .collect();
    assert_eq!(got, [("/a/", 3), ("/b.png", 3)]);
}

#[test]
fn tables_footnotes_and_anchors() {
    let html = md(
        "## Why 32?\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nText[^1].\n\n[^1]: A note.\n\n## Why 32?\n",
    );
    assert!(html.contains("<h2 id=\"why-32\">"), "{html}");
    assert!(html.contains("<h2 id=\"why-32-1\">"), "{html}");
    assert!(html.contains("<table>"), "{html}");
    assert!(html.contains("class=\"footnote-definition\""), "{html}");
}

/// The route that skips the HTML cleaner (Markdown without raw HTML, every URL allowed)
/// must write only what the cleaner would have kept: run the cleaner over that output and
/// nothing but serialisation may change. Covers every Markdown feature we enable, with
/// highlighting on and off, and every entry of the repository's content and fixtures.
#[test]
fn markdown_that_skips_the_cleaner_is_what_the_cleaner_keeps() {
    let features = "# T {#top .big data-x=1}\n\n## Why \"32\"? & &lt;why&gt; <3\n\n*a* **b** ~~c~~ `d<e>` \
        'quotes' -- dashes... [l](/glossary/warp/ \"t'it\\\"le\") [m](https://e.org/a?b=1&c=2) \
        <https://e.org> <x@e.org> ![i](img.png \"x\")\n\n> quote\n\n1. one\n2. two\n\n\
        - [ ] not a task list\n\n| l | c | r |\n|:-|:-:|-:|\n| 1 | 2 | 3 |\n\n\
        Text[^n].\n\n[^n]: A note with [a link](#top).\n\n---\n\nline  \nbreak &amp; &copy; &#x27;\n\n\
        ```cuda\n__global__ void k(int* p) { if (a < b && c) p[0] = \"s\"; }\n```\n\n\
        ```bash\n$ nvcc -o k k.cu && ./k > out.txt\n```\n\n    indented <code>\n";
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut samples = vec![("features".to_string(), features.to_string())];
    let mut dirs = vec![root.join("content"), root.join("tests/fixtures")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = e.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "md") {
                let text = std::fs::read_to_string(&path).unwrap();
                samples.push((path.display().to_string(), text));
            }
        }
    }
    let mut skipped = 0;
    for (name, text) in &samples {
        for highlight in [true, false] {
            let opts = RenderOptions { highlight };
            let html = render(text, opts, &mut PageState::default()).html;
            let cleaned = crate::sanitize::html(&html);
            if html == cleaned {
                continue; // went through the cleaner (its output is a fixed point)
            }
            skipped += 1;
            assert_eq!(
                serialised(&html),
                serialised(&cleaned),
                "{name}: the cleaner would change this output"
            );
        }
    }
    assert!(
        skipped > samples.len(),
        "only {skipped} renders skipped the cleaner"
    );
}

/// `html` with the differences between pulldown-cmark's and html5ever's serialisation
/// taken out: void elements, and which characters of text are written as references.
fn serialised(html: &str) -> String {
    html.replace(" />", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
}

#[test]
fn raw_html_is_sanitised() {
    let html = md(
        "Hi <script>alert(1)</script> <a href=\"javascript:x()\" onclick=\"y()\">l</a> <b>bold</b>\n",
    );
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("onclick"), "{html}");
    assert!(!html.contains("javascript:"), "{html}");
    assert!(html.contains("<b>bold</b>"), "{html}");
}

#[test]
fn plain_markdown_makes_no_script() {
    for input in [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](javascript&colon;alert(1))",
        "[x][r]\n\n[r]: javascript:alert(1)",
        "<javascript:alert(1)>",
        "![i](javascript:alert(1))",
        "![i](data:image/svg+xml;base64,PHN2Zz4=)",
        "[x](vbscript:msgbox)",
        "## Title {onfocus=alert(1) autofocus tabindex=0 style=color:red}",
        "## Title {#ok .fine onclick=alert(1)}",
    ] {
        let html = md(input).to_ascii_lowercase();
        let attrs = [
            "=\"javascript",
            "=\"vbscript",
            "=\"data:",
            "onfocus",
            "onclick",
            "style=",
        ];
        for bad in attrs.iter().chain(&["autofocus", "tabindex", "<script"]) {
            assert!(!html.contains(bad), "{input:?} → {html}");
        }
    }
    let html = md("## Title {#ok .fine onclick=alert(1)}");
    // The heading, beside its anchor link.
    assert!(
        html.starts_with("<div class=\"heading\">\n<h2 id=\"ok\" class=\"fine\">Title</h2>\n<a class=\"anchor\" href=\"#ok\""),
        "{html}"
    );
    let html = md("| a | b | c | d |\n|:-|:-:|-:|-|\n| 1 | 2 | 3 | 4 |\n| 5 | 6 | 7 | 8 |\n");
    for cell in [
        "<td class=\"align-left\">1</td>",
        "<td class=\"align-center\">2</td>",
        "<td class=\"align-right\">3</td>",
        "<td>4</td>",
        "<td class=\"align-left\">5</td>",
        "<td class=\"align-right\">7</td>",
    ] {
        assert!(html.contains(cell), "{cell} in {html}");
    }
    assert!(!html.contains("style"), "{html}");
}

/// Regression (issue 28): at 390 px `coursegen measure --gpu` broke after its "--".
#[test]
fn flags_in_inline_code_stay_whole() {
    assert_eq!(
        md("Run `coursegen measure --gpu <k>` or `a&b`."),
        "<p>Run <code>coursegen measure <span class=\"nobr\">--gpu</span> &lt;k&gt;</code> or <code>a&amp;b</code>.</p>\n"
    );
}

#[test]
fn code_is_escaped() {
    let html = md("```cuda\nif (a < b && c) {}\n```\n");
    assert!(
        html.contains("<pre><code class=\"language-cuda\">if (a &lt; b &amp;&amp; c) {}"),
        "{html}"
    );
}

#[test]
fn sections_cut_outside_fences() {
    let body = "intro\n```\n## Measured\n```\n## Measured\n\nafter table\n## Diagram\ncaption\n";
    let s = sections(body);
    assert_eq!(s.main, "intro\n```\n## Measured\n```\n");
    assert_eq!(s.measured, Some(("\nafter table\n", 6)));
    assert_eq!(s.diagram, Some(("caption\n", 9)));
    // A cut on the first line; a heading's words in prose, or not at a line's start,
    // cut nothing.
    let s = sections("## Diagram\ncaption\n");
    assert_eq!((s.main, s.diagram), ("", Some(("caption\n", 2))));
    let body = "Measured on a T4.\n # ## Measured\nx ## Diagram\n";
    assert_eq!(
        sections(body),
        Sections {
            main: body,
            ..Sections::default()
        }
    );
}
