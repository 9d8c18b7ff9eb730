//! Glossary terms linked where a page's prose first mentions them, each link with its
//! preview beside it: the entry's summary and compute capability, in the page itself (no
//! request, no script; the stylesheet shows it on hover and focus, `aria-describedby`
//! announces it). Never inside code, headings, links or images, never to the page itself.
//! `<!-- nolink -->` just before a mention leaves that mention unlinked. Used by
//! `markdown` only; the check stage builds the [`Terms`] of a build.
use std::collections::HashSet;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use pulldown_cmark::{CowStr, Event, Tag, TagEnd};

/// What an author writes just before a mention that should stay plain text: an HTML
/// comment, which every Markdown renderer (and the page's `index.md` copy) hides.
pub const NOLINK: &str = "<!-- nolink -->";

/// One glossary entry a page may link to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The entry's site path (`/glossary/warp/`).
    pub url: String,
    /// Its slug, which names the preview's id (`term-warp`).
    pub slug: String,
    /// What the preview says: the entry's summary, else its title.
    pub preview: String,
    /// Its compute capability, when it names one.
    pub cc: Option<String>,
}

/// The terms of one build and the words that name them, matched in one pass per text.
#[derive(Debug, Default)]
pub struct Terms {
    terms: Vec<Term>,
    /// For each pattern of `matcher`, the index of its term.
    owner: Vec<usize>,
    matcher: Option<AhoCorasick>,
}

impl Terms {
    /// The terms, each with the words (term and aliases) that name it; a word claimed twice
    /// goes to the first (the check stage reports the clash).
    pub fn new(entries: Vec<(Term, Vec<String>)>) -> Self {
        let mut seen = HashSet::new();
        let (mut terms, mut owner, mut words) = (Vec::new(), Vec::new(), Vec::new());
        for (term, names) in entries {
            let i = terms.len();
            for name in names {
                let name = name.trim().to_string();
                if !name.is_empty() && seen.insert(name.to_lowercase()) {
                    owner.push(i);
                    words.push(name);
                }
            }
            terms.push(term);
        }
        // A DFA matches about twice as fast as the NFA the builder picks for this many
        // words (every text of every page goes through it); past a few thousand words its
        // tables grow large, and the builder chooses.
        let kind = (words.len() <= 5_000).then_some(AhoCorasickKind::DFA);
        let matcher = (!words.is_empty()).then(|| {
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .kind(kind)
                .build(&words)
                .expect("a few thousand literal words build a matcher")
        });
        Terms {
            terms,
            owner,
            matcher,
        }
    }

    /// Whether no entry names a term.
    pub fn is_empty(&self) -> bool {
        self.matcher.is_none()
    }
}

/// One page's linking: which terms it already links (across its fragments).
#[derive(Debug)]
pub struct Linking<'a> {
    terms: &'a Terms,
    /// The page's own site path: an entry never links to itself.
    page: String,
    linked: Vec<bool>,
}

impl<'a> Linking<'a> {
    /// Linking for the page at `page` (a site path).
    pub fn new(terms: &'a Terms, page: &str) -> Self {
        Linking {
            terms,
            page: page.to_string(),
            linked: vec![false; terms.terms.len()],
        }
    }
}

/// Links the first mention of each term in the prose of `events`; `anchors` holds the
/// page's ids, which the previews' ids join.
pub(super) fn link_terms<'e>(
    events: Vec<Event<'e>>,
    linking: &mut Linking<'_>,
    anchors: &mut HashSet<String>,
) -> Vec<Event<'e>> {
    let Some(matcher) = &linking.terms.matcher else {
        return events;
    };
    let mut out = Vec::with_capacity(events.len() + 8);
    // Inside something whose text is never linked: headings, links, images, code blocks,
    // a raw `<a>`.
    let mut closed = 0usize;
    let mut skip_next = false;
    for event in events {
        match &event {
            Event::Start(
                Tag::Heading { .. }
                | Tag::Link { .. }
                | Tag::Image { .. }
                | Tag::CodeBlock(_)
                | Tag::MetadataBlock(_),
            ) => closed += 1,
            Event::End(
                TagEnd::Heading(_)
                | TagEnd::Link
                | TagEnd::Image
                | TagEnd::CodeBlock
                | TagEnd::MetadataBlock(_),
            ) => closed = closed.saturating_sub(1),
            Event::InlineHtml(h) if h.trim() == NOLINK => {
                skip_next = true;
                continue;
            }
            Event::InlineHtml(h) | Event::Html(h) => {
                let lower = h.trim_start().to_ascii_lowercase();
                if lower.starts_with("<a ") || lower.starts_with("<a>") {
                    closed += 1;
                } else if lower.starts_with("</a") {
                    closed = closed.saturating_sub(1);
                }
            }
            Event::Text(text) if closed == 0 => {
                link_text(text, matcher, linking, anchors, &mut skip_next, &mut out);
                continue;
            }
            _ => {}
        }
        out.push(event);
    }
    out
}

/// One text event, with its first mentions linked, onto `out`.
fn link_text<'e>(
    text: &CowStr<'e>,
    matcher: &AhoCorasick,
    linking: &mut Linking<'_>,
    anchors: &mut HashSet<String>,
    skip_next: &mut bool,
    out: &mut Vec<Event<'e>>,
) {
    let mut copied = 0;
    for m in matcher.find_iter(text.as_ref()) {
        let (start, end) = (m.start(), m.end());
        let word_start = !text[..start]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric);
        let word_end = !text[end..]
            .chars()
            .next()
            .is_some_and(char::is_alphanumeric);
        if !(word_start && word_end) {
            continue;
        }
        let i = linking.terms.owner[m.pattern().as_usize()];
        let term = &linking.terms.terms[i];
        if linking.linked[i] || term.url == linking.page {
            continue;
        }
        if std::mem::take(skip_next) {
            continue;
        }
        linking.linked[i] = true;
        if copied < start {
            out.push(Event::Text(CowStr::from(text[copied..start].to_string())));
        }
        out.push(Event::InlineHtml(CowStr::from(link_html(
            term,
            &text[start..end],
            anchors,
        ))));
        copied = end;
    }
    // The marker covers the mention that follows it in this text only.
    *skip_next = false;
    if copied == 0 {
        out.push(Event::Text(text.clone()));
    } else if copied < text.len() {
        out.push(Event::Text(CowStr::from(text[copied..].to_string())));
    }
}

/// The link and its preview, the preview right after it: the stylesheet shows it while
/// the link is pointed at or focused (`a.term:hover + .tip`). It is hidden from reading in
/// place (the link's description says it) and from search text. Short names and ids
/// numbered on the page (`term-1`) keep the bytes a link adds close to its summary's.
fn link_html(term: &Term, shown: &str, anchors: &mut HashSet<String>) -> String {
    let mut n = 1;
    let mut id = String::from("term-1");
    while !anchors.insert(id.clone()) {
        n += 1;
        id = format!("term-{n}");
    }
    let esc = super::escape;
    let cc = (term.cc.as_deref()).map_or(String::new(), |cc| {
        format!(" <small>CC {}</small>", esc(cc))
    });
    format!(
        "<a class=\"term\" href=\"{}\" aria-describedby=\"{id}\">{}</a><span class=\"tip\" id=\"{id}\" aria-hidden=\"true\">{}{cc}</span>",
        esc(&term.url),
        esc(shown),
        esc(&term.preview),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::{PageState, RenderOptions, render};

    fn terms() -> Terms {
        let term = |slug: &str, cc: Option<&str>| Term {
            url: format!("/glossary/{slug}/"),
            slug: slug.into(),
            preview: format!("What a {slug} is."),
            cc: cc.map(String::from),
        };
        Terms::new(vec![
            (term("warp", None), vec!["warp".into(), "warps".into()]),
            (
                term("shared-memory-bank", Some("7.5")),
                vec!["shared memory bank".into(), "bank".into(), "banks".into()],
            ),
            (term("shared-memory", None), vec!["shared memory".into()]),
        ])
    }

    fn linked(md: &str, page: &str) -> String {
        let terms = terms();
        let mut state = PageState {
            terms: Some(Linking::new(&terms, page)),
            ..PageState::default()
        };
        render(md, RenderOptions { highlight: false }, &mut state).html
    }

    fn links_to(html: &str) -> Vec<&str> {
        html.match_indices(" href=\"")
            .map(|(i, _)| {
                let rest = &html[i + 7..];
                &rest[..rest.find('"').unwrap()]
            })
            .filter(|url| !url.starts_with('#'))
            .collect()
    }

    #[test]
    fn the_first_mention_of_each_term_is_linked_with_its_preview() {
        let html = linked(
            "A Warp reads shared memory; each warp hits a shared memory bank.\n",
            "/days/day-1/",
        );
        assert_eq!(
            links_to(&html),
            [
                "/glossary/warp/",
                "/glossary/shared-memory/",
                "/glossary/shared-memory-bank/"
            ],
            "{html}"
        );
        // The mention keeps its spelling; the preview is described, not read in place.
        assert!(
            html.contains(
                "<a class=\"term\" href=\"/glossary/warp/\" aria-describedby=\"term-1\">Warp</a>\
                 <span class=\"tip\" id=\"term-1\" aria-hidden=\"true\">What a warp is.</span>"
            ),
            "{html}"
        );
        assert!(html.contains("<small>CC 7.5</small>"), "{html}");
    }

    #[test]
    fn code_headings_links_words_inside_words_and_the_page_itself_are_left_alone() {
        let md =
            "# Warp\n\n`warp` and [a warp](/x/) and warped and\n\n```\nwarp\n```\n\nthe bank.\n";
        let html = linked(md, "/glossary/shared-memory-bank/");
        assert_eq!(links_to(&html), ["/x/"], "{html}");
    }

    #[test]
    fn a_marked_mention_stays_plain_and_the_next_one_is_linked() {
        let html = linked(
            "The <!-- nolink -->warp here is a loom's; a warp of threads is 32.\n",
            "/",
        );
        assert_eq!(links_to(&html), ["/glossary/warp/"], "{html}");
        assert!(html.contains("The warp here"), "{html}");
        assert!(!html.contains("nolink"), "{html}");
    }

    #[test]
    fn a_term_is_linked_once_per_page_across_fragments() {
        let terms = terms();
        let mut state = PageState {
            terms: Some(Linking::new(&terms, "/")),
            ..PageState::default()
        };
        let opts = RenderOptions { highlight: false };
        let first = render("A warp.\n", opts, &mut state).html;
        let second = render("A warp.\n", opts, &mut state).html;
        assert_eq!(links_to(&first).len(), 1);
        assert!(links_to(&second).is_empty(), "{second}");
    }
}
