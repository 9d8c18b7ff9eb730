//! Markdown to HTML: pulldown-cmark with tables, footnotes and heading anchors; fenced code
//! through `highlight`; every fragment made safe by `sanitize` (see `render_with`). Also cuts a body
//! into its main text and the prose of the Measured and Diagram sections.
use std::collections::{HashMap, HashSet};

use pulldown_cmark::{Alignment, CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

use crate::highlight::fence::FenceInfo;
use crate::highlight::include::{self, IncludeCheck, IncludeError, Sources};
use crate::html::escape;

pub(crate) mod math;
pub(crate) mod shown;
pub(crate) mod terms;

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

/// A heading of the page, for its contents list.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Heading {
    /// 1 to 6.
    pub(crate) level: u8,
    /// Its id (the anchor).
    pub(crate) id: String,
    /// Its text.
    pub(crate) text: String,
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
    let options = options();
    let mut links = Vec::new();
    let mut newlines: Option<Vec<usize>> = None;
    let mut events: Vec<Event<'_>> = Vec::new();
    // Whether the fragment holds something only the HTML cleaner can judge: raw HTML, or a
    // link or image whose scheme is not on the allow-list.
    let mut needs_cleaner = false;
    let parser = Parser::new_ext(markdown, options);
    let mut site_paths = definition_paths(markdown, &parser);
    let mut fence_lines = Vec::new();
    let (mut html_tags, mut too_much_html) = (0, None);
    let mut math_lines = Vec::new();
    // Runs of plain text (across soft line breaks), where a formula the parser did not take
    // as math would show as raw TeX (`math::unread_formula`).
    let (mut run, mut unread) = (None::<std::ops::Range<usize>>, Vec::new());
    for (event, range) in parser.into_offset_iter() {
        match (&event, &mut run) {
            (Event::Text(_) | Event::SoftBreak, Some(r)) => r.end = range.end,
            (Event::Text(_), None) => run = Some(range.clone()),
            (Event::SoftBreak, None) => {}
            _ => unread.extend(
                run.take()
                    .and_then(|r| Some(r.start + math::unread_formula(&markdown[r])?)),
            ),
        }
        let mut line = || line_at(&mut newlines, markdown, range.start);
        match &event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                needs_cleaner |= !crate::sanitize::url_allowed(dest_url);
                links.push(Link {
                    url: dest_url.to_string(),
                    line: line(),
                });
                site_paths.extend(inline_path(&markdown[range.clone()], dest_url, range.start));
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                needs_cleaner = true;
                let line = line();
                html_tags += memchr_count(b'<', html.as_bytes());
                if html_tags > MAX_HTML_TAGS && too_much_html.is_none() {
                    too_much_html = Some(line);
                }
                links.extend(html_urls(html).map(|url| Link { url, line }));
                site_paths.extend(html_paths(html, range.start));
            }
            Event::InlineMath(_) | Event::DisplayMath(_) => math_lines.push(line()),
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => {
                let block = &markdown[range.clone()];
                let inside = block.find('\n').map_or(block.len(), |i| i + 1);
                fence_lines.push((line(), range.start + inside));
            }
            _ => {}
        }
        events.push(event);
    }
    name_headings(&mut events, &mut page.anchors);
    aligned_cells(&mut events);
    unbroken_flags(&mut events);
    // MathML is another crate's writing: the cleaner sees it (see `math::to_mathml`).
    needs_cleaner |= !math_lines.is_empty();
    let mut math_errors = math::to_mathml(&mut events, &math_lines, &mut page.math);
    unread.extend(run.and_then(|r| Some(r.start + math::unread_formula(&markdown[r])?)));
    for at in unread {
        math_errors.push(math::unread_error(line_at(&mut newlines, markdown, at)));
    }
    if let Some(linking) = &mut page.terms {
        events = terms::link_terms(events, linking, &mut page.anchors);
    }
    let events = heading_anchors(events, &mut page.headings);
    let (events, includes, included) = code_blocks(events, opts, sources, &fence_lines);
    let html = match (needs_cleaner, too_much_html) {
        (_, Some(_)) => String::new(),
        (true, None) => {
            let (html, raw) = html_marking_raw(markdown, events);
            match crate::sanitize::too_many_attributes(&html) {
                Some(at) => {
                    let at = markdown_offset(&raw, at).min(markdown.len());
                    too_much_html = Some(line_at(&mut newlines, markdown, at));
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
    site_paths.sort();
    site_paths.dedup();
    Rendered {
        math_errors,
        html,
        links,
        site_paths,
        includes,
        included,
        too_much_html,
    }
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

/// Whether a destination is a path on this site's domain (`/glossary/`, not `//cdn…`).
fn site_absolute(url: &str) -> bool {
    url.starts_with('/') && !url.starts_with("//")
}

/// The site-absolute destinations of the reference definitions (`[w]: /glossary/warp/`),
/// with where each is written.
fn definition_paths(markdown: &str, parser: &Parser<'_>) -> Vec<(usize, String)> {
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
fn inline_path(text: &str, dest: &str, start: usize) -> Option<(usize, String)> {
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
fn html_paths(html: &str, start: usize) -> Vec<(usize, String)> {
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
fn html_urls(html: &str) -> impl Iterator<Item = String> + '_ {
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

/// Writes the opening tag of each aligned table cell with a class (`align-left`…) instead of
/// the `style` attribute pulldown-cmark would write: the cleaner drops `style`, and the
/// page's Content-Security-Policy would block it anyway.
fn aligned_cells(events: &mut [Event<'_>]) {
    let mut aligns: Vec<Alignment> = Vec::new();
    let (mut head, mut cell) = (false, 0);
    for event in events.iter_mut() {
        match event {
            Event::Start(Tag::Table(a)) => aligns = a.clone(),
            Event::Start(Tag::TableHead) => (head, cell) = (true, 0),
            Event::End(TagEnd::TableHead) => head = false,
            Event::Start(Tag::TableRow) => cell = 0,
            Event::End(TagEnd::TableCell) => cell += 1,
            Event::Start(Tag::TableCell) => {
                let tag = match (head, aligns.get(cell)) {
                    (true, Some(Alignment::Left)) => "<th class=\"align-left\">",
                    (true, Some(Alignment::Center)) => "<th class=\"align-center\">",
                    (true, Some(Alignment::Right)) => "<th class=\"align-right\">",
                    (false, Some(Alignment::Left)) => "<td class=\"align-left\">",
                    (false, Some(Alignment::Center)) => "<td class=\"align-center\">",
                    (false, Some(Alignment::Right)) => "<td class=\"align-right\">",
                    _ => continue,
                };
                *event = Event::Html(CowStr::Borrowed(tag));
            }
            _ => {}
        }
    }
}

/// Writes each word of inline code that holds a hyphen (`--gpu`, `-arch=sm_90`) in a
/// `<span class="nobr">`, which the stylesheet keeps on one line: a browser may otherwise
/// break a line after the "--" of a command's flag. The code's text is unchanged.
fn unbroken_flags(events: &mut [Event<'_>]) {
    for event in events.iter_mut() {
        let Event::Code(code) = event else { continue };
        if !code.contains('-') {
            continue;
        }
        let mut html = String::with_capacity(code.len() + 32);
        html.push_str("<code>");
        for piece in code.split_inclusive(' ') {
            let word = piece.trim_end_matches(' ');
            if word.contains('-') {
                html.push_str("<span class=\"nobr\">");
                html.push_str(&escape(word));
                html.push_str("</span>");
                html.push_str(&piece[word.len()..]);
            } else {
                html.push_str(&escape(piece));
            }
        }
        html.push_str("</code>");
        *event = Event::InlineHtml(CowStr::from(html));
    }
}

/// Gives each heading an id (its text, slugified, made unique on the page) and drops the
/// attributes a `{key=value}` suffix asks for: headings keep only an id and classes.
fn name_headings(events: &mut [Event<'_>], anchors: &mut HashSet<String>) {
    // Footnotes are named for their labels (`[^1]` is `id="1"`): a heading `## 1` gets
    // another id.
    for e in events.iter() {
        if let Event::FootnoteReference(label) | Event::Start(Tag::FootnoteDefinition(label)) = e {
            anchors.insert(label.to_string());
        }
    }
    // The next suffix to try for each base: a page of many equal headings stays linear.
    let mut next: HashMap<String, usize> = HashMap::new();
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading { attrs, .. }) = &mut events[i] {
            attrs.clear();
        }
        if let Event::Start(Tag::Heading { id: None, .. }) = &events[i] {
            let mut text = String::new();
            for e in &events[i + 1..] {
                match e {
                    Event::End(TagEnd::Heading(_)) => break,
                    Event::Text(t) | Event::Code(t) => text.push_str(t),
                    _ => {}
                }
            }
            let id = unique(slugify(&text), anchors, &mut next);
            if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[i] {
                *slot = Some(CowStr::from(id));
            }
        } else if let Event::Start(Tag::Heading { id: Some(id), .. }) = &events[i] {
            anchors.insert(id.to_string());
        }
        i += 1;
    }
}

/// Wraps each heading with its anchor link (`<a class="anchor" href="#id">`, named for the
/// heading), as GitHub does: beside the heading, not in it, so the heading's own name stays
/// its text. Records every heading for the page's contents list.
fn heading_anchors<'a>(events: Vec<Event<'a>>, headings: &mut Vec<Heading>) -> Vec<Event<'a>> {
    if !events
        .iter()
        .any(|e| matches!(e, Event::Start(Tag::Heading { .. })))
    {
        return events;
    }
    let mut out = Vec::with_capacity(events.len() + 8);
    let mut open: Option<(u8, String, String)> = None;
    for e in events {
        match &e {
            Event::Start(Tag::Heading { level, id, .. }) => {
                out.push(Event::Html(CowStr::from("<div class=\"heading\">")));
                let id = id.as_deref().unwrap_or_default().to_string();
                open = Some((*level as u8, id, String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((.., text)) = &mut open {
                    text.push_str(t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                out.push(e);
                if let Some((level, id, text)) = open.take() {
                    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                    out.push(Event::Html(CowStr::from(format!(
                        "<a class=\"anchor\" href=\"#{id}\" aria-label=\"Link to the section “{}”\"><span aria-hidden=\"true\">#</span></a></div>\n",
                        escape(&text)
                    ))));
                    headings.push(Heading { level, id, text });
                }
                continue;
            }
            _ => {}
        }
        out.push(e);
    }
    out
}

/// Lowercase ASCII letters and digits joined by single hyphens.
pub(crate) fn slugify(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        "section".into()
    } else {
        out
    }
}

fn unique(
    base: String,
    anchors: &mut HashSet<String>,
    next: &mut HashMap<String, usize>,
) -> String {
    let n = next.entry(base.clone()).or_insert(1);
    let mut id = base.clone();
    while !anchors.insert(id.clone()) {
        id = format!("{base}-{n}");
        *n += 1;
    }
    id
}

/// Replaces each fenced code block by its highlighted (or escaped) HTML.
/// Each code block as its HTML; with `sources`, the options and includes of every fenced
/// block are checked too (`fence_lines`: the line each fenced block starts on, and the
/// offset of its first line of code). Also returns the code of each `file=` block, by
/// that offset.
fn code_blocks<'a>(
    events: Vec<Event<'a>>,
    opts: RenderOptions,
    sources: Option<&Sources>,
    fence_lines: &[(usize, usize)],
) -> (Vec<Event<'a>>, IncludeCheck, Vec<(usize, String)>) {
    let mut out = Vec::with_capacity(events.len());
    let mut found = IncludeCheck::default();
    let mut included = Vec::new();
    let mut lines = fence_lines.iter().copied();
    // The open block: what it shows with, its options (fenced), and its text.
    type Open = (
        FenceInfo,
        Option<((usize, usize), Result<FenceInfo, IncludeError>)>,
        String,
    );
    let mut code: Option<Open> = None;
    for e in events {
        match (&mut code, e) {
            (None, Event::Start(Tag::CodeBlock(kind))) => {
                code = Some(match kind {
                    CodeBlockKind::Fenced(info) => {
                        let parsed = FenceInfo::parse(&info).map_err(IncludeError::Options);
                        // A malformed option is reported by the check; show the code anyway.
                        let shown = parsed.clone().unwrap_or_else(|_| FenceInfo {
                            lang: info.split_whitespace().next().unwrap_or("").to_string(),
                            ..FenceInfo::default()
                        });
                        let at = lines.next().unwrap_or((0, 0));
                        (shown, Some((at, parsed)), String::new())
                    }
                    CodeBlockKind::Indented => (FenceInfo::default(), None, String::new()),
                });
            }
            (Some((_, _, text)), Event::Text(t)) => text.push_str(&t),
            (Some(_), Event::End(TagEnd::CodeBlock)) => {
                let (info, fenced, text) = code.take().unwrap_or_default();
                let start = fenced.as_ref().map(|((_, start), _)| *start);
                let shown = match (fenced, sources) {
                    (Some(((line, _), parsed)), Some(sources)) => {
                        include::check_fence(parsed, &text, sources, line, &mut found)
                    }
                    _ => true,
                };
                let html = match shown {
                    true => code_html(&info, &text, opts, sources, |code| {
                        if let Some(start) = start {
                            included.push((start, code.to_string()));
                        }
                    }),
                    // The check stage reports it, and nothing of this page is written.
                    false => "<pre><code>(refused: see the build's errors)</code></pre>\n".into(),
                };
                out.push(Event::Html(CowStr::from(html)));
            }
            (Some(_), _) => {}
            (None, e) => out.push(e),
        }
    }
    (out, found, included)
}

/// A code block's HTML; `include` is handed the code of a `file=` block.
fn code_html(
    info: &FenceInfo,
    text: &str,
    opts: RenderOptions,
    sources: Option<&Sources>,
    include: impl FnOnce(&str),
) -> String {
    let included = match (&info.file, sources) {
        (Some(_), Some(sources)) => match sources.resolve(info) {
            Ok(inc) => Some(inc),
            Err(e) => return format!("<pre><code>{}</code></pre>\n", escape(&e.to_string())),
        },
        _ => None,
    };
    if let Some(inc) = &included {
        include(&inc.text);
    }
    let code = included.as_ref().map_or(text, |i| i.text.as_str());
    crate::highlight::render_block(info, code, included.as_ref(), opts.highlight)
}

#[cfg(test)]
mod tests {
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
        let body =
            "intro\n```\n## Measured\n```\n## Measured\n\nafter table\n## Diagram\ncaption\n";
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
}
