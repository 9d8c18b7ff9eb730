//! Files made from the whole site rather than one entry: the Atom feed, `llms.txt`, and the
//! pages that belong to no entry (`404.html`, the search page); plus the Markdown copy
//! written beside each published page. Uses `pages`/`nav` contexts and `templates`.
use std::fmt::Write as _;

use super::nav::Nav;
use super::output::OutFile;
use super::pages::{PlainCtx, SiteInfo};
use crate::content::Entry;
use crate::templates::{TemplateError, Templates};

/// Entries the feed lists: the most recent, as feed readers fetch it on every poll.
pub(crate) const FEED_ENTRIES: usize = 50;

/// File name of the Markdown copy beside each published page.
pub(crate) const MARKDOWN: &str = "index.md";

/// `404.html` and `search/index.html`, when the site's templates provide them.
pub(crate) fn plain_pages(
    info: &SiteInfo,
    templates: &Templates,
    nav: &Nav,
) -> Result<Vec<OutFile>, TemplateError> {
    let mut files = Vec::new();
    for (template, url, title, path) in [
        ("404.html", "/404.html", "Page not found", "404.html"),
        ("search.html", "/search/", "Search", "search/index.html"),
    ] {
        if !templates.has(template) {
            continue;
        }
        let ctx = PlainCtx {
            site: info.clone(),
            url: url.into(),
            nav: nav.page(url, title),
        };
        files.push(OutFile {
            path: path.into(),
            bytes: templates.render(template, &ctx)?.into_bytes(),
        });
    }
    Ok(files)
}

/// The address of a page as feeds and llms.txt print it: absolute under `base` when the
/// site has a public address, else site-absolute under `root`.
fn address(base: Option<&str>, root: &str, url: &str) -> String {
    let path = super::urls::href(root, url);
    match base {
        Some(b) => format!("{}{path}", origin(b)),
        None => path,
    }
}

/// `https://example.org/course/` → `https://example.org` (the path is in `root`).
fn origin(base: &str) -> &str {
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    match base[after_scheme..].find('/') {
        Some(slash) => &base[..after_scheme + slash],
        None => base,
    }
}

fn xml(text: &str) -> String {
    crate::markdown::escape(text)
}

/// The day a page was last changed, as the feed dates it.
fn updated(e: &Entry) -> Option<jiff::civil::Date> {
    let b = &e.meta.byline;
    b.last_checked_on.or(b.written_on)
}

/// `feed.xml`: an Atom feed of the most recently updated published entries and days.
pub(crate) fn feed(
    published: &[&Entry],
    info: &SiteInfo,
    base: Option<&str>,
    root: &str,
) -> OutFile {
    let mut entries: Vec<&Entry> = published
        .iter()
        .copied()
        .filter(|e| !e.section.is_empty())
        .collect();
    entries.sort_by(|a, b| updated(b).cmp(&updated(a)).then_with(|| a.url.cmp(&b.url)));
    entries.truncate(FEED_ENTRIES);
    let stamp = |d: Option<jiff::civil::Date>| {
        d.map_or_else(|| "1970-01-01".into(), |d| d.to_string()) + "T00:00:00Z"
    };
    let id = |url: &str| match base {
        Some(_) => address(base, root, url),
        None => format!("urn:coursegen:page:{url}"),
    };
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    out.push_str("<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    let _ = writeln!(out, "  <title>{}</title>", xml(&info.title));
    let _ = writeln!(out, "  <id>{}</id>", xml(&id("/")));
    let _ = writeln!(
        out,
        "  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>",
        xml(&address(base, root, "/"))
    );
    let _ = writeln!(
        out,
        "  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>",
        xml(&address(base, root, "/feed.xml"))
    );
    let newest = entries.first().and_then(|e| updated(e));
    let _ = writeln!(out, "  <updated>{}</updated>", stamp(newest));
    let _ = writeln!(out, "  <generator>coursegen</generator>");
    for e in entries {
        let m = &e.meta;
        out.push_str("  <entry>\n");
        let _ = writeln!(out, "    <title>{}</title>", xml(&m.title));
        let _ = writeln!(out, "    <id>{}</id>", xml(&id(&e.url)));
        let _ = writeln!(
            out,
            "    <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>",
            xml(&address(base, root, &e.url))
        );
        let _ = writeln!(out, "    <updated>{}</updated>", stamp(updated(e)));
        if let Some(d) = m.byline.written_on {
            let _ = writeln!(out, "    <published>{}</published>", stamp(Some(d)));
        }
        for name in m
            .byline
            .written_by
            .iter()
            .filter(|n| !crate::policy::is_unsigned(n))
        {
            let _ = writeln!(
                out,
                "    <author><name>{}</name></author>",
                xml(name.trim())
            );
        }
        if let Some(s) = &m.summary {
            let _ = writeln!(out, "    <summary>{}</summary>", xml(s));
        }
        out.push_str("  </entry>\n");
    }
    out.push_str("</feed>\n");
    OutFile {
        path: "feed.xml".into(),
        bytes: out.into_bytes(),
    }
}

/// `llms.txt`: the course as a Markdown list of its published pages, each linking to the
/// Markdown copy beside it, by section in reading order.
pub(crate) fn llms_txt(
    published: &[&Entry],
    info: &SiteInfo,
    nav: &Nav,
    base: Option<&str>,
    root: &str,
) -> OutFile {
    let by_url: std::collections::HashMap<&str, &Entry> =
        published.iter().map(|e| (e.url.as_str(), *e)).collect();
    let mut out = format!("# {}\n\n", info.title);
    if let Some(d) = &info.description {
        let _ = write!(out, "> {}\n\n", md_text(d));
    }
    out.push_str("Each page below links to its Markdown copy (`index.md` beside the page).\n");
    for section in nav.overview_all() {
        let mut lines = String::new();
        for item in section.groups.iter().flat_map(|g| g.items.iter()) {
            let Some(e) = by_url.get(item.url.as_str()) else {
                continue; // a draft, in the preview
            };
            let md = address(base, root, &format!("{}{MARKDOWN}", e.url));
            let _ = write!(lines, "- [{}]({md})", md_text(&item.text));
            if let Some(s) = &e.meta.summary {
                let _ = write!(lines, ": {}", md_text(s));
            }
            lines.push('\n');
        }
        if !lines.is_empty() {
            let _ = write!(out, "\n## {}\n\n{lines}", section.title);
        }
    }
    OutFile {
        path: "llms.txt".into(),
        bytes: out.into_bytes(),
    }
}

/// Text safe inside a Markdown link label or list line: brackets and line breaks escaped.
fn md_text(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
        .replace(['\n', '\r'], " ")
}

/// The Markdown copy of a published page: title, summary, body (numbers bound to their
/// records), related terms, sources and byline.
pub(crate) fn markdown_copy(e: &Entry, body: &str, byline: &super::pages::BylineCtx) -> String {
    let m = &e.meta;
    let mut out = format!("# {}\n\n", m.title.replace('\n', " "));
    if let Some(s) = &m.summary {
        let _ = writeln!(out, "> {}\n", s.replace('\n', " "));
    }
    out.push_str(body.trim());
    out.push('\n');
    if !m.sources.is_empty() {
        out.push_str("\n## Sources\n\n");
        for s in &m.sources {
            let _ = writeln!(out, "- [{}]({})", md_text(&s.title), s.url);
        }
    }
    let _ = write!(
        out,
        "\n## Byline\n\nWritten by: {}. Reviewed by: {}. Written on: {}. Last checked on: {}.\n",
        byline.written_by, byline.reviewed_by, byline.written_on, byline.last_checked_on
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(base: Option<&str>, root: &str, url: &str, want: &str) {
        assert_eq!(address(base, root, url), want);
    }

    #[test]
    fn addresses_respect_base_and_root() {
        case(None, "/", "/glossary/warp/", "/glossary/warp/");
        case(
            None,
            "/course/",
            "/glossary/warp/",
            "/course/glossary/warp/",
        );
        case(
            Some("https://example.org/course/"),
            "/course/",
            "/feed.xml",
            "https://example.org/course/feed.xml",
        );
        case(
            Some("https://example.org"),
            "/",
            "/",
            "https://example.org/",
        );
    }

    #[test]
    fn markdown_labels_cannot_break_out_of_links() {
        assert_eq!(md_text("a]b[c\nd"), "a\\]b\\[c d");
    }
}
