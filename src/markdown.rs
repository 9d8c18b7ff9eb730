//! Markdown to HTML: pulldown-cmark with tables, footnotes and heading anchors; fenced code
//! through `highlight`; every fragment made safe by `sanitize` (see `render_with`). Also cuts a body
//! into its main text and the prose of the Measured and Diagram sections.
use std::collections::HashSet;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};

use crate::highlight::include::{IncludeCheck, Sources};

mod code;
mod headings;
mod links;
pub(crate) mod math;
pub(crate) mod shown;
mod tables;
pub(crate) mod terms;

pub(crate) use self::headings::Heading;
pub(crate) use self::links::{is_link_attribute, site_path};

/// What the fragments of one page share while they are converted: the heading ids used,
/// the glossary terms already linked, the headings found (for "On this page"), and what
/// its formulas have used of the page's limits.
#[derive(Debug, Default)]
pub struct PageState<'a> {
    /// Heading (and preview) ids already used on the page.
    pub(crate) anchors: HashSet<String>,
    /// Term linking, when this page links terms.
    pub(crate) terms: Option<terms::Linking<'a>>,
    /// The headings of every fragment converted so far, in order.
    pub(crate) headings: Vec<Heading>,
    /// The formulas converted so far, against the page's limits.
    pub(crate) math: math::MathBudget,
}

/// A body cut at its `## Measured` and `## Diagram` headings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Sections<'a> {
    /// Everything before the first special heading.
    pub(crate) main: &'a str,
    /// Prose under `## Measured`, with the body-relative line it starts on.
    pub(crate) measured: Option<(&'a str, usize)>,
    /// Prose under `## Diagram`, with the body-relative line it starts on.
    pub(crate) diagram: Option<(&'a str, usize)>,
}

/// Cuts `body` at level-2 headings titled exactly "Measured" or "Diagram" (outside code fences).
pub(crate) fn sections(body: &str) -> Sections<'_> {
    // Only a line that starts with `## ` can cut: a body without one (most) is not read
    // line by line (`benches/build.sh`: every body is cut for its page and again for its
    // Markdown copy).
    if !body.starts_with("## ") && !body.contains("\n## ") {
        return Sections {
            main: body,
            ..Sections::default()
        };
    }
    let mut cuts: Vec<(usize, usize, usize, &str)> = Vec::new(); // (heading start, text start, line, name)
    let mut offset = 0;
    for (i, (line, in_code)) in crate::content::body::fenced_lines(body).enumerate() {
        let name = line
            .trim_end()
            .strip_prefix("## ")
            .map(str::trim)
            .filter(|n| *n == "Measured" || *n == "Diagram");
        if let (false, Some(name)) = (in_code, name) {
            cuts.push((offset, offset + line.len(), i + 2, name));
        }
        offset += line.len();
    }
    let mut out = Sections {
        main: body,
        ..Sections::default()
    };
    if let Some(first) = cuts.first() {
        out.main = &body[..first.0];
    }
    for (k, &(_, start, line, name)) in cuts.iter().enumerate() {
        let end = cuts.get(k + 1).map_or(body.len(), |c| c.0);
        let slot = if name == "Measured" {
            &mut out.measured
        } else {
            &mut out.diagram
        };
        *slot = Some((&body[start..end], line));
    }
    out
}

/// How to render.
#[derive(Debug, Clone, Copy)]
pub struct RenderOptions {
    /// Highlight fenced code at build time.
    pub highlight: bool,
}

/// A link or image target found in Markdown, with its 1-based line in that Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    /// The destination as written.
    pub(crate) url: String,
    /// Line within the rendered fragment.
    pub(crate) line: usize,
}

/// Rendered HTML and the links it contains (for the link check).
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// Formulas that do not parse or pass a limit, with their lines in this Markdown.
    pub(crate) math_errors: Vec<math::MathError>,
    /// The HTML.
    pub html: String,
    /// Every link and image destination.
    pub(crate) links: Vec<Link>,
    /// Where each site-absolute destination (`/…`, not `//…`) is written in the Markdown:
    /// its byte offset and the destination, ordered by offset. A Markdown copy of the page
    /// moves them under the base path without parsing the text again.
    pub(crate) site_paths: Vec<(usize, String)>,
    /// What the fenced code blocks' options and includes came to (lines in this Markdown);
    /// empty when rendered without sources.
    pub(crate) includes: IncludeCheck,
    /// The code each `file=` block shows, with the byte offset in the Markdown just after
    /// its opening fence line, ordered by offset: a Markdown copy of the page writes the
    /// code there (the source holds an empty block). Empty when rendered without sources.
    pub(crate) included: Vec<(usize, String)>,
    /// The line where the raw HTML passed [`MAX_HTML_TAGS`], or where a tag of it holds more
    /// than `sanitize::MAX_ATTRIBUTES` attributes, if it did: the HTML is then not cleaned
    /// (nor shown), and the check stage refuses the page.
    pub(crate) too_much_html: Option<usize>,
}

/// Most tags of raw HTML one fragment may hold. The HTML cleaner's time grows with the
/// square of how deeply unclosed tags nest (200,000 `<div>`s took minutes); a page's own
/// HTML needs far fewer.
pub(crate) const MAX_HTML_TAGS: usize = 10_000;

/// The Markdown a body is written in: CommonMark with math, tables, footnotes,
/// strikethrough, heading attributes and smart punctuation.
fn options() -> Options {
    Options::ENABLE_MATH
        | Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_SMART_PUNCTUATION
}

/// Renders Markdown to HTML. `page` holds what the page's fragments share (heading ids,
/// so that several fragments of one page never repeat one; terms already linked).
pub fn render(markdown: &str, opts: RenderOptions, page: &mut PageState<'_>) -> Rendered {
    render_with(markdown, opts, page, None)
}

/// [`render`], with the files that `file=` code blocks include (checked beforehand by
/// `highlight::include::check_includes`; a block whose include fails here shows the error instead).
pub(crate) fn render_with(
    markdown: &str,
    opts: RenderOptions,
    page: &mut PageState<'_>,
    sources: Option<&Sources>,
) -> Rendered {
    let mut newlines: Option<Vec<usize>> = None;
    let mut found = scan(markdown, &mut newlines);
    let mut events = std::mem::take(&mut found.events);
    headings::name_headings(&mut events, &mut page.anchors);
    tables::aligned_cells(&mut events);
    code::unbroken_flags(&mut events);
    // MathML is another crate's writing: the cleaner sees it (see `math::to_mathml`).
    found.needs_cleaner |= !found.math_lines.is_empty();
    let mut math_errors = math::to_mathml(&mut events, &found.math_lines, &mut page.math);
    for &at in &found.unread {
        math_errors.push(math::unread_error(line_at(&mut newlines, markdown, at)));
    }
    if let Some(linking) = &mut page.terms {
        events = terms::link_terms(events, linking, &mut page.anchors);
    }
    let events = headings::heading_anchors(events, &mut page.headings);
    let (events, includes, included) =
        code::code_blocks(events, opts.highlight, sources, &found.fence_lines);
    let html = match (found.needs_cleaner, found.too_much_html) {
        (_, Some(_)) => String::new(),
        (true, None) => {
            let (html, raw) = html_marking_raw(markdown, events);
            match crate::sanitize::too_many_attributes(&html) {
                Some(at) => {
                    let at = markdown_offset(&raw, at).min(markdown.len());
                    found.too_much_html = Some(line_at(&mut newlines, markdown, at));
                    String::new()
                }
                None => crate::sanitize::html(&html),
            }
        }
        (false, None) => {
            let mut html = String::with_capacity(markdown.len() * 3 / 2);
            pulldown_cmark::html::push_html(&mut html, events.into_iter());
            html
        }
    };
    found.site_paths.sort();
    found.site_paths.dedup();
    Rendered {
        math_errors,
        html,
        links: found.links,
        site_paths: found.site_paths,
        includes,
        included,
        too_much_html: found.too_much_html,
    }
}

/// What one read of a fragment's events finds besides the events: its links, where its
/// code blocks and formulas are, and whether only the HTML cleaner can judge it.
#[derive(Default)]
struct Scan<'a> {
    events: Vec<Event<'a>>,
    links: Vec<Link>,
    /// Every site-absolute destination, by offset ([`Rendered::site_paths`]).
    site_paths: Vec<(usize, String)>,
    /// Each fenced block's line and the offset of its first line of code.
    fence_lines: Vec<(usize, usize)>,
    math_lines: Vec<usize>,
    /// Where a formula the parser did not take as math starts (`math::unread_formula`).
    unread: Vec<usize>,
    /// Raw HTML, or a link or image whose scheme is not on the allow-list.
    needs_cleaner: bool,
    /// The line where the raw HTML passed [`MAX_HTML_TAGS`].
    too_much_html: Option<usize>,
}

/// Reads the events of `markdown` once, noting what [`Scan`] holds.
fn scan<'a>(markdown: &'a str, newlines: &mut Option<Vec<usize>>) -> Scan<'a> {
    let parser = Parser::new_ext(markdown, options());
    let mut found = Scan {
        site_paths: links::definition_paths(markdown, &parser),
        ..Scan::default()
    };
    let mut html_tags = 0;
    // Runs of plain text (across soft line breaks), where a formula the parser did not take
    // as math would show as raw TeX (`math::unread_formula`).
    let mut run = None::<std::ops::Range<usize>>;
    let unread = |r: std::ops::Range<usize>| Some(r.start + math::unread_formula(&markdown[r])?);
    for (event, range) in parser.into_offset_iter() {
        match (&event, &mut run) {
            (Event::Text(_) | Event::SoftBreak, Some(r)) => r.end = range.end,
            (Event::Text(_), None) => run = Some(range.clone()),
            (Event::SoftBreak, None) => {}
            _ => found.unread.extend(run.take().and_then(unread)),
        }
        let mut line = || line_at(newlines, markdown, range.start);
        match &event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                found.needs_cleaner |= !crate::sanitize::url_allowed(dest_url);
                found.links.push(Link {
                    url: dest_url.to_string(),
                    line: line(),
                });
                let path = links::inline_path(&markdown[range.clone()], dest_url, range.start);
                found.site_paths.extend(path);
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                found.needs_cleaner = true;
                let line = line();
                html_tags += memchr_count(b'<', html.as_bytes());
                if html_tags > MAX_HTML_TAGS && found.too_much_html.is_none() {
                    found.too_much_html = Some(line);
                }
                found
                    .links
                    .extend(links::html_urls(html).map(|url| Link { url, line }));
                found
                    .site_paths
                    .extend(links::html_paths(html, range.start));
            }
            Event::InlineMath(_) | Event::DisplayMath(_) => found.math_lines.push(line()),
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => {
                let block = &markdown[range.clone()];
                let inside = block.find('\n').map_or(block.len(), |i| i + 1);
                found.fence_lines.push((line(), range.start + inside));
            }
            _ => {}
        }
        found.events.push(event);
    }
    found.unread.extend(run.and_then(unread));
    found
}

/// `events` as HTML, with where each piece of the Markdown's own raw HTML landed in it:
/// (offset in the HTML, offset in `markdown`), in order. Raw HTML is copied as written, so
/// a place in the HTML maps back to its line in the Markdown.
fn html_marking_raw(markdown: &str, events: Vec<Event<'_>>) -> (String, Vec<(usize, usize)>) {
    struct Marking<'c> {
        html: String,
        raw: Vec<(usize, usize)>,
        next: &'c std::cell::Cell<Option<usize>>,
    }
    impl std::fmt::Write for Marking<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            if let Some(at) = self.next.take() {
                self.raw.push((self.html.len(), at));
            }
            self.html.push_str(s);
            Ok(())
        }
    }
    let next = std::cell::Cell::new(None);
    let mut out = Marking {
        html: String::with_capacity(markdown.len() * 3 / 2),
        raw: Vec::new(),
        next: &next,
    };
    let source = markdown.as_bytes().as_ptr_range();
    let events = events.into_iter().inspect(|e| {
        if let Event::Html(h) | Event::InlineHtml(h) = e
            && source.contains(&h.as_ptr())
        {
            next.set(Some(h.as_ptr() as usize - markdown.as_ptr() as usize));
        }
    });
    // Writing to a String cannot fail.
    let _ = pulldown_cmark::html::write_html_fmt(&mut out, events);
    (out.html, out.raw)
}

/// The offset in the Markdown of the HTML's byte `at`, by the raw HTML written there (or
/// just before it): see [`html_marking_raw`].
fn markdown_offset(raw: &[(usize, usize)], at: usize) -> usize {
    let i = raw.partition_point(|&(html, _)| html <= at);
    match i.checked_sub(1).map(|i| raw[i]) {
        Some((html, markdown)) => markdown + (at - html),
        None => 0,
    }
}

fn memchr_count(byte: u8, bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == byte).count()
}

/// Where each newline of `text` is. Most fragments ask (a link or a code block), and a
/// vectorised search finds them several times faster than a byte loop
/// (`benches/build.sh`).
fn memchr_lines(text: &str) -> Vec<usize> {
    memchr::memchr_iter(b'\n', text.as_bytes()).collect()
}

/// The 1-based line of byte `at` of `markdown`, its line ends (`newlines`) found once, on
/// the first call: most fragments never ask.
fn line_at(newlines: &mut Option<Vec<usize>>, markdown: &str, at: usize) -> usize {
    let nl = newlines.get_or_insert_with(|| memchr_lines(markdown));
    1 + nl.partition_point(|&i| i < at)
}

#[cfg(test)]
mod tests;
