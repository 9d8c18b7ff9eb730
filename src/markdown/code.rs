//! Code: each fenced or indented block as the highlighter's HTML (with its options and
//! included file checked), and inline code whose flags must not break across lines.
use pulldown_cmark::{CodeBlockKind, CowStr, Event, Tag, TagEnd};

use crate::highlight::fence::FenceInfo;
use crate::highlight::include::{self, IncludeCheck, IncludeError, Sources};
use crate::html::escape;

/// Writes each word of inline code that holds a hyphen (`--gpu`, `-arch=sm_90`) in a
/// `<span class="nobr">`, which the stylesheet keeps on one line: a browser may otherwise
/// break a line after the "--" of a command's flag. The code's text is unchanged.
pub(super) fn unbroken_flags(events: &mut [Event<'_>]) {
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

/// Replaces each fenced code block by its highlighted (or escaped) HTML.
/// Each code block as its HTML; with `sources`, the options and includes of every fenced
/// block are checked too (`fence_lines`: the line each fenced block starts on, and the
/// offset of its first line of code). Also returns the code of each `file=` block, by
/// that offset.
pub(super) fn code_blocks<'a>(
    events: Vec<Event<'a>>,
    highlight: bool,
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
                    true => code_html(&info, &text, highlight, sources, |code| {
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
    highlight: bool,
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
    crate::highlight::render_block(info, code, included.as_ref(), highlight)
}
