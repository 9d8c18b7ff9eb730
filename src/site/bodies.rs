//! The Markdown of one body converted once, in the check stage, into the HTML fragments the
//! render stage shows: the main text and the prose under `## Measured` and `## Diagram`,
//! with every link and its line (for the link check). Uses `markdown` and `highlight`.
use std::collections::HashSet;

use crate::highlight::include::Sources;
use crate::markdown::{self, RenderOptions};

/// Renders the body's main text and the prose of its special sections.
pub(crate) struct Bodies {
    /// Main text.
    pub(crate) main: String,
    /// Under `## Measured`.
    pub(crate) measured: Option<String>,
    /// Under `## Diagram`.
    pub(crate) diagram: Option<String>,
    /// Every link in the body, with its body-relative line.
    pub(crate) links: Vec<markdown::Link>,
}

/// Renders an entry's body (after bindings were expanded) into its parts; with `cut`
/// false (section introductions) the whole body is the main text.
pub(crate) fn bodies(
    body: &str,
    opts: RenderOptions,
    cut: bool,
    sources: Option<&Sources>,
) -> Bodies {
    let parts = if cut {
        markdown::sections(body)
    } else {
        markdown::Sections {
            main: body,
            ..Default::default()
        }
    };
    let mut anchors: HashSet<String> = [
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
    let mut links = Vec::new();
    let mut render = |text: &str, first_line: usize| {
        let r = markdown::render_with(text, opts, &mut anchors, sources);
        links.extend(r.links.into_iter().map(|l| markdown::Link {
            line: l.line + first_line - 1,
            ..l
        }));
        r.html
    };
    let main = render(parts.main, 1);
    let measured = parts.measured.map(|(t, line)| render(t, line));
    let diagram = parts.diagram.map(|(t, line)| render(t, line));
    Bodies {
        main,
        measured,
        diagram,
        links,
    }
}
