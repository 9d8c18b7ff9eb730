//! What a browser reads a URL in content as: character references decoded, and whether
//! its scheme is one a page may use.

/// URL schemes a link or image from content may use; anything else (`javascript:`,
/// `data:`, `vbscript:`, `file:` …) is dropped. Relative URLs are always kept.
pub(super) const URL_SCHEMES: &[&str] = &["http", "https", "mailto"];

/// Decodes the character references a browser decodes in an attribute value (numeric ones
/// and the few names that spell URL punctuation), so `&#106;avascript&colon;` is checked
/// as what it is.
pub(crate) fn decode_references(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let name = rest[1..].split(';').next().unwrap_or("");
        let c = match name {
            "amp" => Some('&'),
            "colon" => Some(':'),
            "tab" => Some('\t'),
            "newline" => Some('\n'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "lt" => Some('<'),
            "gt" => Some('>'),
            n => n
                .strip_prefix("#x")
                .or_else(|| n.strip_prefix("#X"))
                .map(|h| u32::from_str_radix(h, 16))
                .or_else(|| n.strip_prefix('#').map(str::parse))
                .and_then(Result::ok)
                .and_then(char::from_u32),
        };
        match c {
            Some(c) if rest[1..].contains(';') => {
                out.push(c);
                rest = &rest[name.len() + 2..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether `url` is one a page may link to or load: relative, or of an allowed scheme.
/// Used where content URLs are checked outside the cleaner: Markdown link and image
/// destinations (a fragment with one that fails goes through [`super::html`]) and SVG assets.
pub(crate) fn url_allowed(url: &str) -> bool {
    // Browsers drop ASCII tab and newline anywhere in a URL and ignore leading spaces and
    // control characters, so `java\tscript:` is `javascript:`: normalise the same way.
    let url: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let scheme_end = url.find([':', '/', '?', '#']);
    match scheme_end {
        Some(i) if url[i..].starts_with(':') => {
            let scheme = url[..i].to_ascii_lowercase();
            URL_SCHEMES.contains(&scheme.as_str())
        }
        _ => true,
    }
}
