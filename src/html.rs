//! HTML escaping, one rule for everything coursegen writes as HTML or XML itself: template
//! values, the markup `markdown` adds, highlighted code, diagrams (SVG), the feed and
//! sitemap, the bound values of measurements and `serve`'s own pages. A leaf: it imports
//! nothing of ours, so every writer of markup may ask it.

/// Appends `text` to `out` with `&`, `<`, `>`, `"` and `'` written as references, so that it
/// is the same text in element content and in an attribute value quoted either way, in HTML
/// and in XML alike. The runs between them are copied whole.
pub(crate) fn escape_into(out: &mut String, text: &str) {
    let mut run = 0;
    for (i, b) in text.bytes().enumerate() {
        let reference = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#x27;",
            _ => continue,
        };
        out.push_str(&text[run..i]);
        out.push_str(reference);
        run = i + 1;
    }
    out.push_str(&text[run..]);
}

/// [`escape_into`] a new string.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    escape_into(&mut out, text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(raw: &str, escaped: &str) {
        assert_eq!(escape(raw), escaped);
    }

    #[test]
    fn escapes_the_five_markup_characters_and_nothing_else() {
        case("plain", "plain");
        case("", "");
        case(
            "a < b && c > \"d\" 'e'",
            "a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#x27;e&#x27;",
        );
        case("tile[r][c] → bank", "tile[r][c] → bank");
        case("/a&b/\"<x>", "/a&amp;b/&quot;&lt;x&gt;");
        // Already escaped text is escaped again: the rule never guesses.
        case("&amp;", "&amp;amp;");
        let mut out = String::from("<p>");
        escape_into(&mut out, "é's");
        assert_eq!(out, "<p>é&#x27;s");
    }
}
