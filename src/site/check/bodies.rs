//! The Markdown of one body converted once, in the check stage, into the HTML fragments the
//! render stage shows: the main text and the prose under `## Measured` and `## Diagram`,
//! with every link and its line (for the link check). Uses `markdown` and `highlight`.
use std::collections::HashSet;

use crate::highlight::include::{IncludeCheck, Sources};
use crate::markdown::terms::Linking;
use crate::markdown::{self, Heading, PageState, RenderOptions};
use crate::measurement::bindings::Expanded;

/// Renders the body's main text and the prose of its special sections. (Empty, the
/// default, in a page that was rendered as soon as it was checked: `check::Checking`.)
#[derive(Default)]
pub(crate) struct Bodies {
    /// Main text.
    pub(crate) main: String,
    /// Under `## Measured`.
    pub(crate) measured: Option<String>,
    /// Under `## Diagram`.
    pub(crate) diagram: Option<String>,
    /// Every link in the body, with its body-relative line.
    pub(crate) links: Vec<markdown::Link>,
    /// What its fenced code blocks' options and includes came to, with body-relative lines
    /// (empty when converted without sources).
    pub(crate) includes: IncludeCheck,
    /// The body-relative line where a part's raw HTML passed `markdown::MAX_HTML_TAGS`.
    pub(crate) too_much_html: Option<usize>,
    /// What the page's Markdown copy (`index.md`) is made from, without parsing it again.
    pub(crate) source: MarkdownSource,
    /// The headings of the main text, in order (the page's contents list).
    pub(crate) headings: Vec<Heading>,
    /// Formulas that do not parse or pass a limit, with body-relative lines.
    pub(crate) math_errors: Vec<markdown::math::MathError>,
}

/// The Markdown the fragments were converted from, as the copy of a page needs it.
#[derive(Default)]
pub(crate) struct MarkdownSource {
    /// The body with its bindings' placeholders, when it has bindings; `None` when that
    /// text is the entry's body as written.
    pub(crate) bound: Option<Expanded>,
    /// Where each site-absolute link destination is written in that text, by byte offset
    /// (see `markdown::Rendered::site_paths`).
    pub(crate) site_paths: Vec<(usize, String)>,
    /// The code of each `file=` block and where it belongs in that text, by byte offset
    /// (see `markdown::Rendered::included`): the source's block is empty.
    pub(crate) included: Vec<(usize, String)>,
}

/// Renders an entry's body (after bindings were expanded) into its parts; with `cut`
/// false (section introductions) the whole body is the main text.
pub(crate) fn bodies(
    body: &str,
    opts: RenderOptions,
    cut: bool,
    sources: Option<&Sources>,
    terms: Option<Linking<'_>>,
) -> Bodies {
    let parts = if cut {
        markdown::sections(body)
    } else {
        markdown::Sections {
            main: body,
            ..Default::default()
        }
    };
    let anchors: HashSet<String> = [
        "measured",
        "diagram",
        "related-terms",
        "where-you-meet-this",
        "sources",
        "byline",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    let mut page = PageState {
        anchors,
        terms,
        headings: Vec::new(),
        math: Default::default(),
    };
    let mut math_errors = Vec::new();
    // How many headings each part left in `page.headings`: the main text's come first.
    let mut heading_counts = Vec::new();
    let mut links = Vec::new();
    let mut site_paths = Vec::new();
    let mut included = Vec::new();
    let mut includes = IncludeCheck::default();
    let mut too_much_html = None;
    let mut render = |text: &str, first_line: usize| {
        let r = markdown::render_with(text, opts, &mut page, sources);
        let at = |line: usize| line + first_line - 1;
        math_errors.extend(
            r.math_errors
                .into_iter()
                .map(|e| markdown::math::MathError {
                    line: at(e.line),
                    ..e
                }),
        );
        heading_counts.push(page.headings.len());
        too_much_html = too_much_html.or(r.too_much_html.map(at));
        let found = r.includes;
        includes
            .errors
            .extend(found.errors.into_iter().map(|(l, e)| (at(l), e)));
        includes
            .stale
            .extend(found.stale.into_iter().map(|(l, p, n)| (at(l), p, n)));
        includes.files.extend(found.files);
        includes.reads_files |= found.reads_files;
        links.extend(r.links.into_iter().map(|l| markdown::Link {
            line: l.line + first_line - 1,
            ..l
        }));
        // Each part is a slice of `body`: its offsets move by where it starts.
        let start = text.as_ptr() as usize - body.as_ptr() as usize;
        site_paths.extend(r.site_paths.into_iter().map(|(i, url)| (start + i, url)));
        included.extend(r.included.into_iter().map(|(i, code)| (start + i, code)));
        // Every page's HTML is held until the render stage: keep a copy of its length, not
        // the buffer it grew in (a quarter spare at 10,000 entries). `shrink_to_fit` would
        // not do: mimalloc keeps a block shrunk by less than half where it is.
        String::from(r.html.as_str())
    };
    let main = render(parts.main, 1);
    let measured = parts.measured.map(|(t, line)| render(t, line));
    let diagram = parts.diagram.map(|(t, line)| render(t, line));
    let mut headings = page.headings;
    headings.truncate(heading_counts.first().copied().unwrap_or(0));
    Bodies {
        headings,
        math_errors,
        main,
        measured,
        diagram,
        links,
        includes,
        too_much_html,
        source: MarkdownSource {
            bound: None,
            site_paths,
            included,
        },
    }
}
