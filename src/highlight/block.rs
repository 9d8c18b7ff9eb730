//! One code block as HTML: highlighted (or escaped) code in `<pre><code>`, split into
//! numbered and marked lines on request, and for an included file a `<figure>` whose
//! caption names the file and lines and links to its copy in the site.
use super::fence::FenceInfo;
use super::include::{Included, SOURCE_DIR};
use crate::html::escape_into;

/// Renders a block: `code` is the fence body, or the included text when `included` is set.
pub(crate) fn render(
    info: &FenceInfo,
    code: &str,
    included: Option<&Included>,
    highlight: bool,
) -> String {
    let inner = highlight
        .then(|| super::lang::highlight(code, &info.lang))
        .flatten()
        .unwrap_or_else(|| {
            let mut s = String::with_capacity(code.len() + 16);
            escape_into(&mut s, code);
            s
        });
    let numbered = info.linenos || !info.hl_lines.is_empty();
    let inner = if numbered {
        let first = included
            .and_then(|i| i.numbers.first().copied())
            .unwrap_or(1);
        let number =
            |k: usize| included.map_or(first + k, |i| i.numbers.get(k).copied().unwrap_or(0));
        lines(&inner, info, number)
    } else {
        inner
    };
    let lang = lang_class(&info.lang);
    let mut out = String::with_capacity(inner.len() + 160);
    if let Some(inc) = included {
        out.push_str("<figure class=\"code-file\">\n<figcaption><a href=\"/");
        out.push_str(SOURCE_DIR);
        out.push('/');
        percent_encode_into(&mut out, &inc.path);
        out.push_str("\"><code>");
        escape_into(&mut out, &inc.path);
        out.push_str("</code></a>, ");
        out.push_str(&inc.lines_label());
        out.push_str("</figcaption>\n");
        if let Some(note) = &inc.stale {
            out.push_str("<p class=\"code-stale\" role=\"note\">");
            escape_into(&mut out, note);
            out.push_str("</p>\n");
        }
    }
    out.push_str("<pre");
    if numbered {
        out.push_str(" class=\"numbered\"");
    }
    out.push_str("><code");
    if let Some(lang) = &lang {
        out.push_str(" class=\"language-");
        out.push_str(lang);
        out.push('"');
    }
    out.push('>');
    out.push_str(&inner);
    out.push_str("</code></pre>\n");
    if included.is_some() {
        out.push_str("</figure>\n");
    }
    out
}

/// A path as a URL path: bytes other than letters, digits and `-._~/` as `%XX`, so a `#`,
/// `?` or space in a file name cannot cut the link short.
fn percent_encode_into(out: &mut String, path: &str) {
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// `language-…` suffix: lowercase letters, digits and `+-_` only (it lands in an attribute).
fn lang_class(lang: &str) -> Option<String> {
    let s: String = lang
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '_'))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    (!s.is_empty()).then_some(s)
}

/// Wraps each line of highlighted HTML in `<span class="line">` (plus ` hl` when marked),
/// led by its number in a non-selectable `<span class="ln">`. Token spans that cross a
/// newline are closed before it and reopened after, so every line is well-formed; the
/// newline stays inside the spans that were open, so removing a span removes its newline.
fn lines(html: &str, info: &FenceInfo, number: impl Fn(usize) -> usize) -> String {
    let mut out = String::with_capacity(html.len() + html.len() / 2 + 64);
    let mut open: Vec<&str> = Vec::new();
    let body = html.strip_suffix('\n').unwrap_or(html);
    let trailing = body.len() < html.len();
    let start_line = |out: &mut String, k: usize, open: &[&str]| {
        let n = number(k);
        let marked = info.hl_lines.iter().any(|&(a, b)| (a..=b).contains(&n));
        out.push_str(if marked {
            "<span class=\"line hl\">"
        } else {
            "<span class=\"line\">"
        });
        if info.linenos {
            out.push_str("<span class=\"ln\" aria-hidden=\"true\">");
            out.push_str(&n.to_string());
            out.push_str("</span>");
        }
        for tag in open {
            out.push_str(tag);
        }
    };
    let mut k = 0;
    start_line(&mut out, k, &open);
    let mut rest = body;
    while let Some(i) = rest.find(['<', '\n']) {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        if rest.starts_with('\n') {
            out.push('\n');
            out.extend(std::iter::repeat_n("</span>", open.len() + 1));
            k += 1;
            start_line(&mut out, k, &open);
            rest = &rest[1..];
        } else {
            let end = rest.find('>').map_or(rest.len(), |e| e + 1);
            let tag = &rest[..end];
            if tag.starts_with("</") {
                open.pop();
            } else {
                open.push(tag);
            }
            out.push_str(tag);
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    if trailing {
        out.push('\n');
    }
    out.extend(std::iter::repeat_n("</span>", open.len() + 1));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(s: &str) -> FenceInfo {
        FenceInfo::parse(s).expect("valid")
    }

    #[test]
    fn plain_blocks_are_as_before() {
        assert_eq!(
            render(&info("cuda"), "int x;\n", None, false),
            "<pre><code class=\"language-cuda\">int x;\n</code></pre>\n"
        );
        assert_eq!(
            render(&info(""), "a < b\n", None, true),
            "<pre><code>a &lt; b\n</code></pre>\n"
        );
        assert_eq!(
            render(&info("x\"><script>"), "", None, false),
            "<pre><code class=\"language-x\"></code></pre>\n"
        );
    }

    #[test]
    fn numbered_lines_close_and_reopen_spans() {
        let html = render(
            &info("c {linenos hl_lines=2}"),
            "/* a\nb */ int x;\n",
            None,
            true,
        );
        assert_eq!(
            html,
            "<pre class=\"numbered\"><code class=\"language-c\">\
             <span class=\"line\"><span class=\"ln\" aria-hidden=\"true\">1</span><span class=\"hl-com\">/* a\n</span></span>\
             <span class=\"line hl\"><span class=\"ln\" aria-hidden=\"true\">2</span><span class=\"hl-com\">b */</span> <span class=\"hl-ty\">int</span> x;\n</span>\
             </code></pre>\n"
        );
    }

    #[test]
    fn included_blocks_get_a_caption_and_file_numbers() {
        let inc = Included {
            path: "kernels/k.cu".into(),
            text: "a;\nb;\n".into(),
            numbers: vec![40, 41],
            stale: Some("changed".into()),
        };
        let html = render(
            &info("cuda file=kernels/k.cu linenos hl_lines=41"),
            &inc.text,
            Some(&inc),
            false,
        );
        assert!(html.starts_with("<figure class=\"code-file\">\n<figcaption><a href=\"/source/kernels/k.cu\"><code>kernels/k.cu</code></a>, lines 40–41</figcaption>\n<p class=\"code-stale\" role=\"note\">changed</p>\n"), "{html}");
        assert!(html.contains("<span class=\"line\"><span class=\"ln\" aria-hidden=\"true\">40</span>a;\n</span><span class=\"line hl\"><span class=\"ln\" aria-hidden=\"true\">41</span>b;\n</span>"), "{html}");
        assert!(html.ends_with("</figure>\n"));
        let odd = Included {
            path: "kernels/a b#c\"é.cu".into(),
            ..inc
        };
        let html = render(&info("cuda file=x"), "a;\n", Some(&odd), false);
        assert!(html.contains("<a href=\"/source/kernels/a%20b%23c%22%C3%A9.cu\"><code>kernels/a b#c&quot;é.cu</code></a>"), "{html}");
    }
}
