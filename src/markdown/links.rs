//! Links in a fragment: the site path a link points to, and where the Markdown writes each
//! site-absolute destination (inline, in a reference definition, in raw HTML's `href` and
//! `src`), so that the link check reads them and a Markdown copy moves them under the base
//! path.
use pulldown_cmark::Parser;

/// A stand-in origin for the site, so that links resolve as a browser resolves them.
const ORIGIN: &str = "http://coursegen.invalid";

/// The site path a link on the page at `page_url` points to (percent-decoded, no query or
/// fragment), or `None` for external links and same-page anchors.
pub(crate) fn site_path(page_url: &str, link: &str) -> Option<String> {
    if link.is_empty() || link.starts_with('#') {
        return None;
    }
    let base = url::Url::parse(&format!("{ORIGIN}{page_url}")).ok()?;
    let joined = base.join(link).ok()?;
    if joined.origin() != base.origin() || !link_is_relative_or_local(link) {
        return None;
    }
    let path = percent_encoding::percent_decode_str(joined.path()).decode_utf8_lossy();
    Some(path.into_owned())
}

/// A link with its own scheme or host (`https://…`, `mailto:…`, `//cdn…`) leaves the site,
/// even when it happens to name our stand-in origin.
fn link_is_relative_or_local(link: &str) -> bool {
    !link.starts_with("//") && url::Url::parse(link) == Err(url::ParseError::RelativeUrlWithoutBase)
}

/// Whether a destination is a path on this site's domain (`/glossary/`, not `//cdn…`).
fn site_absolute(url: &str) -> bool {
    url.starts_with('/') && !url.starts_with("//")
}

/// The site-absolute destinations of the reference definitions (`[w]: /glossary/warp/`),
/// with where each is written.
pub(super) fn definition_paths(markdown: &str, parser: &Parser<'_>) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (_, def) in parser.reference_definitions().iter() {
        let text = &markdown[def.span.clone()];
        let after = text.find("]:").map_or(0, |i| i + 2);
        if site_absolute(&def.dest)
            && let Some(i) = text[after..].find(&*def.dest)
        {
            out.push((def.span.start + after + i, def.dest.to_string()));
        }
    }
    out
}

/// Where an inline link's or image's site-absolute destination is written: after its
/// `](` (a reference link's is in its definition).
pub(super) fn inline_path(text: &str, dest: &str, start: usize) -> Option<(usize, String)> {
    if !site_absolute(dest) {
        return None;
    }
    let (i, _) = text.match_indices(dest).find(|(i, _)| {
        let before = text[..*i].trim_end_matches([' ', '\t', '\n', '<']);
        before.ends_with("](")
    })?;
    Some((start + i, dest.to_string()))
}

/// Where raw HTML's site-absolute `href="/…"` and `src="/…"` values are written.
pub(super) fn html_paths(html: &str, start: usize) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = html[from..].find("=\"/") {
        let value = from + i + 2;
        let end = html[value..].find('"').map_or(html.len(), |e| value + e);
        if is_link_attribute(&html[..from + i]) && site_absolute(&html[value..end]) {
            out.push((start + value, html[value..end].to_string()));
        }
        from = value;
    }
    out
}

/// Whether the text before `="` ends in an `href` or `src` attribute name.
pub(crate) fn is_link_attribute(before: &str) -> bool {
    ["href", "src"].iter().any(|name| {
        before
            .strip_suffix(name)
            .is_some_and(|b| b.ends_with(|c: char| c.is_ascii_whitespace()))
    })
}

/// The values of `href` and `src` attributes in a fragment of raw HTML, so that links
/// written as HTML are checked like Markdown ones.
pub(super) fn html_urls(html: &str) -> impl Iterator<Item = String> + '_ {
    let lower = html.to_ascii_lowercase();
    let mut found = Vec::new();
    for attr in ["href", "src"] {
        let mut from = 0;
        while let Some(i) = lower[from..].find(attr).map(|i| i + from) {
            from = i + attr.len();
            let before = lower[..i].chars().next_back();
            if !before.is_some_and(char::is_whitespace) {
                continue;
            }
            let rest = html[from..].trim_start();
            let Some(rest) = rest.strip_prefix('=') else {
                continue;
            };
            let rest = rest.trim_start();
            let value = match rest.chars().next() {
                Some(q @ ('"' | '\'')) => rest[1..].split(q).next().unwrap_or(""),
                _ => rest
                    .split(|c: char| c.is_whitespace() || c == '>')
                    .next()
                    .unwrap_or(""),
            };
            found.push(crate::sanitize::decode_references(value));
        }
    }
    found.into_iter()
}
