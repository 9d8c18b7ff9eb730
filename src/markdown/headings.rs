//! Headings: each gets an id (its text slugified, unique on the page) and an anchor link
//! beside it, and is recorded for the page's contents list.
use std::collections::{HashMap, HashSet};

use pulldown_cmark::{CowStr, Event, Tag, TagEnd};

use crate::html::escape;

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

/// Gives each heading an id (its text, slugified, made unique on the page) and drops the
/// attributes a `{key=value}` suffix asks for: headings keep only an id and classes.
pub(super) fn name_headings(events: &mut [Event<'_>], anchors: &mut HashSet<String>) {
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
pub(super) fn heading_anchors<'a>(
    events: Vec<Event<'a>>,
    headings: &mut Vec<Heading>,
) -> Vec<Event<'a>> {
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
