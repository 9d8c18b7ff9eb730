//! Files made from the whole site rather than one entry: the Atom feed, `llms.txt`, and the
//! pages that belong to no entry (`404.html`, the search page); plus the Markdown copy
//! written beside each published page. Uses `pages`/`nav` contexts and `templates`.
use std::borrow::Cow;
use std::fmt::Write as _;

use super::nav::Nav;
use super::pages::{PlainCtx, SiteInfo};
use crate::content::Entry;
use crate::html::escape;
use crate::site::check::measurements::MeasuredCtx;
use crate::site::urls::Urls;
use crate::site::write::OutFile;
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
    urls: Urls<'_>,
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
            bytes: templates.render(template, &ctx, urls.root())?.into_bytes(),
        });
    }
    Ok(files)
}

/// The day a page was last changed, as the feed and the sitemap date it.
pub(crate) fn updated(e: &Entry) -> Option<jiff::civil::Date> {
    let b = &e.meta.byline;
    b.last_checked_on.or(b.written_on)
}

/// `feed.xml`: an Atom feed of the most recently updated published entries and days; a
/// feed without one (a preview of drafts) is dated `today`, not 1970.
pub(crate) fn feed(
    published: &[&Entry],
    info: &SiteInfo,
    urls: Urls<'_>,
    today: jiff::civil::Date,
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
    let id =
        |url: &str| (urls.absolute(url)).unwrap_or_else(|| format!("urn:coursegen:page:{url}"));
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    out.push_str("<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    let _ = writeln!(out, "  <title>{}</title>", escape(&info.title));
    let _ = writeln!(out, "  <id>{}</id>", escape(&id("/")));
    let _ = writeln!(
        out,
        "  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>",
        escape(&urls.address("/"))
    );
    let _ = writeln!(
        out,
        "  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>",
        escape(&urls.address("/feed.xml"))
    );
    let newest = entries.first().and_then(|e| updated(e)).or(Some(today));
    let _ = writeln!(out, "  <updated>{}</updated>", stamp(newest));
    let _ = writeln!(out, "  <generator>coursegen</generator>");
    for e in entries {
        let m = &e.meta;
        out.push_str("  <entry>\n");
        let _ = writeln!(out, "    <title>{}</title>", escape(&m.title));
        let _ = writeln!(out, "    <id>{}</id>", escape(&id(&e.url)));
        let _ = writeln!(
            out,
            "    <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>",
            escape(&urls.address(&e.url))
        );
        let _ = writeln!(out, "    <updated>{}</updated>", stamp(updated(e)));
        if let Some(d) = m.byline.written_on {
            let _ = writeln!(out, "    <published>{}</published>", stamp(Some(d)));
        }
        for name in m
            .byline
            .written_by
            .iter()
            .filter(|n| !crate::editorial::policy::is_unsigned(n))
        {
            let _ = writeln!(
                out,
                "    <author><name>{}</name></author>",
                escape(name.trim())
            );
        }
        if let Some(s) = &m.summary {
            let _ = writeln!(out, "    <summary>{}</summary>", escape(s));
        }
        out.push_str("  </entry>\n");
    }
    out.push_str("</feed>\n");
    OutFile {
        path: "feed.xml".into(),
        bytes: out.into_bytes(),
    }
}

/// `robots.txt`: the preview (every page `noindex`) asks crawlers to stay out; the
/// published site lets them in and names its sitemap when it writes one. Crawlers read it
/// only at the root of a host, so under a sub-path it is advice the host may copy.
pub(crate) fn robots_txt(opts: &crate::site::options::BuildOptions, urls: Urls<'_>) -> OutFile {
    let mut out = String::from("User-agent: *\n");
    if opts.drafts {
        out.push_str("Disallow: /\n");
    } else {
        out.push_str("Allow: /\n");
        if opts.config.base_url.is_some() && opts.writes_sitemap() {
            let _ = writeln!(out, "\nSitemap: {}", urls.address("/sitemap.xml"));
        }
    }
    OutFile {
        path: "robots.txt".into(),
        bytes: out.into_bytes(),
    }
}

/// `llms.txt`: the course as a Markdown list of its published pages, each linking to the
/// Markdown copy beside it, by section in reading order.
pub(crate) fn llms_txt(
    published: &[&Entry],
    info: &SiteInfo,
    nav: &Nav,
    urls: Urls<'_>,
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
            let md = urls.address(&format!("{}{MARKDOWN}", e.url));
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

/// What the page shows beside its body's text, which its Markdown copy writes in too.
#[derive(Clone, Copy)]
pub(crate) struct Shown<'a> {
    /// The Measured section's tables.
    pub(crate) measured: Option<&'a MeasuredCtx>,
    /// The diagram's alt text and the file of the drawing, beside the copy.
    pub(crate) diagram: Option<(&'a str, Option<&'a str>)>,
}

/// Where the code of a `file=` block goes in a page's Markdown while its links are moved
/// and its bindings filled: a mark (`\u{FDD0}n\u{FDD1}`), replaced by the code last, so
/// that neither step reads the code (a `<` in it would pass for a tag to the bindings).
const CODE_MARK: (char, char) = ('\u{FDD0}', '\u{FDD1}');

/// A page's Markdown with a mark where each `file=` block's code goes.
pub(crate) struct Marked<'a> {
    /// The text with its marks.
    pub(crate) text: Cow<'a, str>,
    /// Where each site-absolute link destination now is in it.
    pub(crate) site_paths: Cow<'a, [(usize, String)]>,
    /// The code each mark stands for, with the fence's indentation.
    pub(crate) code: Vec<String>,
}

/// `text` with a mark in the empty block of each `file=` block (`included`, by offset).
pub(crate) fn mark_included<'a>(
    text: &'a str,
    included: &[(usize, String)],
    site_paths: &'a [(usize, String)],
) -> Marked<'a> {
    if included.is_empty() {
        return Marked {
            text: Cow::Borrowed(text),
            site_paths: Cow::Borrowed(site_paths),
            code: Vec::new(),
        };
    }
    let mut out = String::with_capacity(text.len() + 8 * included.len());
    let mut shifts = Vec::with_capacity(included.len()); // (offset, bytes added there)
    let mut blocks = Vec::with_capacity(included.len());
    let mut at = 0;
    for (n, (start, code)) in included.iter().enumerate() {
        let start = (*start).clamp(at, text.len());
        out.push_str(&text[at..start]);
        // The fence's own indentation (a block inside a list item) before each line.
        let line = text[..start].trim_end_matches('\n');
        let line = &line[line.rfind('\n').map_or(0, |i| i + 1)..];
        let indent = &line[..line.len() - line.trim_start().len()];
        let mut block = String::with_capacity(code.len() + 1);
        if start == text.len() && !text.ends_with('\n') {
            block.push('\n');
        }
        for l in code.lines() {
            block.push_str(indent);
            block.push_str(l);
            block.push('\n');
        }
        let before = out.len();
        let _ = write!(out, "{}{n}{}", CODE_MARK.0, CODE_MARK.1);
        shifts.push((start, out.len() - before));
        blocks.push(block);
        at = start;
    }
    out.push_str(&text[at..]);
    let mut added = 0;
    let mut next = shifts.iter().peekable();
    let moved = site_paths
        .iter()
        .map(|(i, url)| {
            while let Some(&&(start, n)) = next.peek() {
                if start > *i {
                    break;
                }
                added += n;
                next.next();
            }
            (i + added, url.clone())
        })
        .collect();
    Marked {
        text: Cow::Owned(out),
        site_paths: Cow::Owned(moved),
        code: blocks,
    }
}

/// `body` with each mark of [`mark_included`] replaced by the code it stands for.
pub(crate) fn fill_included(body: String, blocks: &[String]) -> String {
    if blocks.is_empty() {
        return body;
    }
    let mut out = String::with_capacity(body.len() + blocks.iter().map(String::len).sum::<usize>());
    let mut rest = body.as_str();
    while let Some(i) = rest.find(CODE_MARK.0) {
        out.push_str(&rest[..i]);
        let after = &rest[i + CODE_MARK.0.len_utf8()..];
        let block = after.find(CODE_MARK.1).and_then(|end| {
            let n: usize = after[..end].parse().ok()?;
            Some((blocks.get(n)?, end + CODE_MARK.1.len_utf8()))
        });
        match block {
            Some((code, len)) => {
                out.push_str(code);
                rest = &after[len..];
            }
            None => {
                out.push(CODE_MARK.0);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The Measured section's tables as Markdown: per GPU, its sentence, the table, and where
/// the numbers come from.
fn measured_markdown(measured: &MeasuredCtx) -> String {
    let cell = |t: &str| t.replace('|', "\\|").replace('\n', " ");
    let mut out = String::new();
    if !measured.cc_note.is_empty() {
        let _ = writeln!(out, "{}\n", measured.cc_note);
    }
    let columns = &measured.view.columns;
    for device in &measured.view.devices {
        let _ = writeln!(out, "{}\n", device.sentence);
        let heads: Vec<String> = columns.iter().map(|c| cell(&c.heading)).collect();
        let _ = writeln!(out, "| {} |", heads.join(" | "));
        let rules: Vec<&str> = (0..columns.len())
            .map(|i| if i == 0 { "---" } else { "---:" })
            .collect();
        let _ = writeln!(out, "| {} |", rules.join(" | "));
        for row in &device.rows {
            let cells: Vec<String> = row.cells.iter().map(|c| cell(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        let _ = writeln!(out, "\n{}\n", device.provenance);
    }
    if measured.view.devices.is_empty() {
        out.push_str("Not measured yet.\n\n");
    }
    out
}

/// `body` with what the page shows under `## Measured` and `## Diagram` but the body's
/// text does not hold: the tables first under their heading, the drawing with its alt
/// text first under its own (each heading added at the end when the body has none).
fn with_shown(body: &str, shown: Shown<'_>) -> String {
    let parts = crate::markdown::sections(body);
    let offset = |part: &str| part.as_ptr() as usize - body.as_ptr() as usize;
    let mut inserts: Vec<(usize, String)> = Vec::new();
    let mut appended = String::new();
    if let Some(m) = shown.measured {
        let table = measured_markdown(m);
        match parts.measured {
            Some((text, _)) => inserts.push((offset(text), format!("\n{}\n", table.trim_end()))),
            None => {
                let _ = write!(appended, "\n\n## Measured\n\n{table}");
            }
        }
    }
    if let Some((alt, file)) = shown.diagram {
        let drawing = match file {
            Some(f) => format!("![{}]({f})\n\n", md_text(alt)),
            None => format!("Alt text: “{}”\n\n", alt.replace('\n', " ")),
        };
        match parts.diagram {
            Some((text, _)) => inserts.push((offset(text), format!("\n{}\n", drawing.trim_end()))),
            None => {
                let _ = write!(appended, "\n\n## Diagram\n\n{drawing}");
            }
        }
    }
    inserts.sort_by_key(|i| i.0);
    let mut out = String::with_capacity(body.len() + 1024);
    let mut at = 0;
    for (i, text) in inserts {
        out.push_str(&body[at..i]);
        out.push_str(&text);
        at = i;
    }
    out.push_str(&body[at..]);
    let mut out = out.trim().to_string();
    out.push_str(appended.trim_end());
    out
}

/// The Markdown copy of a published page: title, summary, body (numbers bound to their
/// records, included code written in) with the measured tables and the diagram's alt
/// text, related terms, sources and byline.
pub(crate) fn markdown_copy(
    e: &Entry,
    body: &str,
    shown: Shown<'_>,
    byline: &super::pages::BylineCtx,
) -> String {
    let m = &e.meta;
    let mut out = format!("# {}\n\n", m.title.replace('\n', " "));
    if let Some(s) = &m.summary {
        let _ = writeln!(out, "> {}\n", s.replace('\n', " "));
    }
    out.push_str(&with_shown(body.trim(), shown));
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

    #[test]
    fn markdown_labels_cannot_break_out_of_links() {
        assert_eq!(md_text("a]b[c\nd"), "a\\]b\\[c d");
    }
}
