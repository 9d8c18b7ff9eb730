//! Glossary terms linked where a page's prose first mentions them, each link with its
//! preview beside it: the entry's summary and compute capability, in the page itself (no
//! request, no script; the stylesheet shows it on hover and focus, `aria-describedby`
//! announces it). Never inside code, headings, links or images, never to the page itself.
//! `<!-- nolink -->` just before a mention leaves that mention unlinked. Used by
//! `markdown` only; the check stage builds the [`Terms`] of a build.
use std::collections::HashSet;

use pulldown_cmark::{CowStr, Event, Tag, TagEnd};

/// What an author writes just before a mention that should stay plain text: an HTML
/// comment, which every Markdown renderer (and the page's `index.md` copy) hides.
pub(crate) const NOLINK: &str = "<!-- nolink -->";

/// The forms of a term or alias that link to its entry without being declared, each with
/// what it is: its regular English [`plural`], and for a word of several words, the same
/// joined by hyphens (`shared memory` → `shared memories`, `shared-memory`,
/// `shared-memories`).
pub(crate) fn forms(word: &str) -> Vec<(String, &'static str)> {
    let word = word.trim();
    let mut out = Vec::new();
    out.extend(plural(word).map(|p| (p, "the plural")));
    if word.contains(char::is_whitespace) {
        let joined = word.split_whitespace().collect::<Vec<_>>().join("-");
        out.extend(plural(&joined).map(|p| (p, "the hyphenated plural")));
        out.push((joined, "the hyphenated form"));
    }
    out
}

/// The regular English plural of a term or alias (`warp` → `warps`, `bus` → `buses`,
/// `memory` → `memories`), which links to its entry without being declared; `None` when
/// the word does not end in a letter. Irregular forms are aliases.
pub(crate) fn plural(word: &str) -> Option<String> {
    let word = word.trim();
    let last = word.chars().next_back().filter(char::is_ascii_alphabetic)?;
    let lower = word.to_ascii_lowercase();
    let before = lower.chars().rev().nth(1);
    let vowel = |c: Option<char>| c.is_some_and(|c| "aeiou".contains(c));
    let upper = last.is_ascii_uppercase();
    let suffix = |s: &str| {
        if upper {
            s.to_ascii_uppercase()
        } else {
            s.to_string()
        }
    };
    Some(
        if ["s", "x", "z", "ch", "sh"]
            .iter()
            .any(|e| lower.ends_with(e))
        {
            format!("{word}{}", suffix("es"))
        } else if lower.ends_with('y') && !vowel(before) && before.is_some() {
            format!("{}{}", &word[..word.len() - 1], suffix("ies"))
        } else {
            format!("{word}{}", suffix("s"))
        },
    )
}

/// One glossary entry a page may link to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Term {
    /// The entry's site path (`/glossary/warp/`).
    pub(crate) url: String,
    /// Its slug, which names the preview's id (`term-warp`).
    pub(crate) slug: String,
    /// What the preview says, as HTML ([`preview_html`] of the entry's summary, else its
    /// title).
    pub(crate) preview: String,
    /// Its compute capability, when it names one.
    pub(crate) cc: Option<String>,
}

/// The terms of one build and the words that name them, matched in one pass per text.
#[derive(Debug, Default)]
pub(crate) struct Terms {
    terms: Vec<Term>,
    /// For each word of `matcher`, the index of its term.
    owner: Vec<usize>,
    matcher: Option<Words>,
}

impl Terms {
    /// The terms, each with the words (term and aliases) that name it; a word claimed twice
    /// goes to the first (the check stage reports the clash).
    pub(crate) fn new(entries: Vec<(Term, Vec<String>)>) -> Self {
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
        let matcher = (!words.is_empty()).then(|| Words::new(&words));
        Terms {
            terms,
            owner,
            matcher,
        }
    }

    /// Whether no entry names a term.
    pub(crate) fn is_empty(&self) -> bool {
        self.matcher.is_none()
    }
}

/// The words that name terms, found in a text as a leftmost-longest matcher that ignores
/// ASCII case finds them (aho-corasick's, which this replaced and which the tests hold it
/// to): from the first place where some word matches, the longest word there, and the
/// next search starts where it ends.
///
/// Every text of every page is searched, so the search skips (Wu and Manber's): a word
/// starting at `s` spans the window `s..s + window` (`window` is the shortest word's
/// length), so the window's last two bytes must be two neighbouring bytes of some word's
/// first `window`; where they are not, no word starts before the window has moved on past
/// them. Only where they end a word's first `window`, and the window starts with a word's
/// first two bytes, is the trie walked. aho-corasick reads every byte: past a few
/// thousand words its NFA costs some 35 instructions a byte, and its DFA 20 MiB and a
/// tenth of a second to build at 10,000 words; this costs about 4 (`benches/build.sh`,
/// the plain 10,000-entry build).
#[derive(Debug)]
struct Words {
    /// How far the window may move when it ends in these two bytes (`first | second << 8`,
    /// in any ASCII case): 0 where they end some word's first `window` bytes.
    shift: Box<[u8; 1 << 16]>,
    /// Whether some word starts with these two bytes (`first | second << 8`, in any ASCII
    /// case). Most windows that end right start wrong (`benches/build.sh`: seven in eight
    /// at 10,000 words), and this is one look where the trie is several.
    starts: Box<[bool; 1 << 16]>,
    /// The shortest word's length in bytes, at most [`MAX_WINDOW`].
    window: usize,
    /// The trie's first level: the node each ASCII-lowercased byte leads to.
    root: Box<[u32; 256]>,
    nodes: Vec<Node>,
}

/// The longest window: shifts are bytes.
const MAX_WINDOW: usize = 128;

/// A node of the trie: the words' bytes so far, ASCII-lowercased.
#[derive(Debug, Default)]
struct Node {
    /// The next byte (lowercased) and its node, ordered by byte: a node may have hundreds
    /// (a word for each byte after a shared start), and the walk finds its byte by halving.
    next: Vec<(u8, u32)>,
    /// The word that ends here.
    word: Option<usize>,
}

/// No node: a byte no word continues with.
const NO_NODE: u32 = u32::MAX;

impl Words {
    fn new(words: &[String]) -> Self {
        let window = (words.iter().map(String::len).min()).map_or(0, |w| w.min(MAX_WINDOW));
        let mut shift: Box<[u8; 1 << 16]> = vec![window.saturating_sub(1) as u8; 1 << 16]
            .into_boxed_slice()
            .try_into()
            .expect("a slice of 2^16");
        let mut starts: Box<[bool; 1 << 16]> = vec![false; 1 << 16]
            .into_boxed_slice()
            .try_into()
            .expect("a slice of 2^16");
        let mut root: Box<[u32; 256]> = Box::new([NO_NODE; 256]);
        let mut nodes: Vec<Node> = Vec::new();
        for (i, word) in words.iter().enumerate() {
            let bytes = word.as_bytes();
            let Some(&first) = bytes.first() else {
                continue;
            };
            for (j, pair) in bytes[..window].windows(2).enumerate() {
                for a in cases(pair[0]) {
                    for b in cases(pair[1]) {
                        let at = usize::from(a) | usize::from(b) << 8;
                        shift[at] = shift[at].min((window - 2 - j) as u8);
                        starts[at] |= j == 0;
                    }
                }
            }
            let slot = &mut root[usize::from(first.to_ascii_lowercase())];
            if *slot == NO_NODE {
                *slot = nodes.len() as u32;
                nodes.push(Node::default());
            }
            let mut at = *slot as usize;
            for &b in &bytes[1..] {
                let b = b.to_ascii_lowercase();
                at = match nodes[at].next.binary_search_by_key(&b, |&(c, _)| c) {
                    Ok(i) => nodes[at].next[i].1 as usize,
                    Err(i) => {
                        let n = nodes.len();
                        nodes[at].next.insert(i, (b, n as u32));
                        nodes.push(Node::default());
                        n
                    }
                };
            }
            // Words equal but for ASCII case were merged before (`Terms::new`).
            nodes[at].word.get_or_insert(i);
        }
        Words {
            shift,
            starts,
            window,
            root,
            nodes,
        }
    }

    /// The first word in `text` at or after `from`: its start, end and index.
    fn find(&self, text: &[u8], from: usize) -> Option<(usize, usize, usize)> {
        let m = self.window;
        if m < 2 {
            // A one-byte word: any byte may start one.
            return (from..text.len())
                .find_map(|s| self.longest(text, s).map(|(end, word)| (s, end, word)));
        }
        let mut s = from;
        while let Some(pair) = text.get(s + m - 2..s + m) {
            match self.shift[usize::from(pair[0]) | usize::from(pair[1]) << 8] {
                0 => {
                    // The window holds at least two bytes (`m` of them).
                    let first = usize::from(text[s]) | usize::from(text[s + 1]) << 8;
                    if let Some((end, word)) =
                        self.starts[first].then(|| self.longest(text, s)).flatten()
                    {
                        return Some((s, end, word));
                    }
                    s += 1;
                }
                shift => s += usize::from(shift),
            }
        }
        None
    }

    /// The longest word at `start` of `text`: its end and index.
    fn longest(&self, text: &[u8], start: usize) -> Option<(usize, usize)> {
        let mut node = self.root[usize::from(text[start].to_ascii_lowercase())];
        let mut found = None;
        let mut end = start + 1;
        while let Some(n) = self.nodes.get(node as usize) {
            if let Some(word) = n.word {
                found = Some((end, word));
            }
            let Some(b) = text.get(end).map(u8::to_ascii_lowercase) else {
                break;
            };
            node = (n.next.binary_search_by_key(&b, |&(c, _)| c)).map_or(NO_NODE, |i| n.next[i].1);
            end += 1;
        }
        found
    }
}

/// A byte in either ASCII case (a byte that is no letter, once).
fn cases(b: u8) -> [u8; 2] {
    [b.to_ascii_lowercase(), b.to_ascii_uppercase()]
}

/// One page's linking: which terms it already links (across its fragments).
#[derive(Debug)]
pub(crate) struct Linking<'a> {
    terms: &'a Terms,
    /// The page's own site path: an entry never links to itself.
    page: String,
    /// One bit per term, set once the page links it: a page mentions a few of a build's
    /// thousands of terms, and a bit each keeps making this cheap for every page
    /// (`benches/build.sh`).
    linked: Vec<u64>,
}

impl<'a> Linking<'a> {
    /// Linking for the page at `page` (a site path).
    pub(crate) fn new(terms: &'a Terms, page: &str) -> Self {
        Linking {
            terms,
            page: page.to_string(),
            linked: vec![0; terms.terms.len().div_ceil(64)],
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
    // Prose split over source lines is one text: a term written across a line break links.
    // A text alone stays borrowed: only a paragraph of several lines is copied.
    let mut prose: Option<CowStr<'e>> = None;
    for event in events {
        match (&event, prose.take()) {
            (Event::Text(t), Some(p)) if closed == 0 => {
                let mut joined = p.into_string();
                joined.push_str(t);
                prose = Some(CowStr::from(joined));
                continue;
            }
            (Event::SoftBreak, Some(p)) if closed == 0 => {
                let mut joined = p.into_string();
                joined.push('\n');
                prose = Some(CowStr::from(joined));
                continue;
            }
            (Event::Text(t), None) if closed == 0 => {
                prose = Some(t.clone());
                continue;
            }
            (_, p) => prose = p,
        }
        if let Some(p) = prose.take() {
            link_text(&p, matcher, linking, anchors, &mut skip_next, &mut out);
        }
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
            _ => {}
        }
        out.push(event);
    }
    if let Some(p) = prose.take() {
        link_text(&p, matcher, linking, anchors, &mut skip_next, &mut out);
    }
    out
}

/// One text event, with its first mentions linked, onto `out`.
fn link_text<'e>(
    text: &CowStr<'e>,
    matcher: &Words,
    linking: &mut Linking<'_>,
    anchors: &mut HashSet<String>,
    skip_next: &mut bool,
    out: &mut Vec<Event<'e>>,
) {
    let mut copied = 0;
    let mut from = 0;
    // Words are matched with each run of white space (a line break, two spaces) as one
    // space, and the mention linked as written.
    let spaced = Spaced::new(text);
    while let Some((start, end, word)) = matcher.find(spaced.text.as_bytes(), from) {
        from = end;
        let (start, end) = (spaced.original(start), spaced.original(end));
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
        let i = linking.terms.owner[word];
        let term = &linking.terms.terms[i];
        let bit = 1 << (i % 64);
        if linking.linked[i / 64] & bit != 0 || term.url == linking.page {
            continue;
        }
        if std::mem::take(skip_next) {
            continue;
        }
        linking.linked[i / 64] |= bit;
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

/// A text with each run of white space as one space (`text`), and the way back to the
/// text's own offsets: most texts have no run and are borrowed as they are.
struct Spaced<'t> {
    text: std::borrow::Cow<'t, str>,
    /// After each run: (its offset in `text`, its offset in the original), in order.
    map: Vec<(usize, usize)>,
}

impl<'t> Spaced<'t> {
    fn new(original: &'t str) -> Self {
        let runs = original.contains(['\n', '\t', '\r']) || original.contains("  ");
        if !runs {
            return Spaced {
                text: std::borrow::Cow::Borrowed(original),
                map: Vec::new(),
            };
        }
        let (mut text, mut map) = (String::with_capacity(original.len()), Vec::new());
        let mut chars = original.char_indices().peekable();
        while let Some((_, c)) = chars.next() {
            if !matches!(c, ' ' | '\n' | '\t' | '\r') {
                text.push(c);
                continue;
            }
            while chars
                .next_if(|(_, c)| matches!(c, ' ' | '\n' | '\t' | '\r'))
                .is_some()
            {}
            text.push(' ');
            let after = chars.peek().map_or(original.len(), |&(i, _)| i);
            map.push((text.len(), after));
        }
        Spaced {
            text: std::borrow::Cow::Owned(text),
            map,
        }
    }

    /// The original offset of `at`, an offset in `text` outside a run's space.
    fn original(&self, at: usize) -> usize {
        match self.map.partition_point(|&(t, _)| t <= at).checked_sub(1) {
            Some(i) => self.map[i].1 + (at - self.map[i].0),
            None => at,
        }
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
    let esc = crate::html::escape;
    let cc = (term.cc.as_deref()).map_or(String::new(), |cc| {
        format!(" <small>CC {}</small>", esc(cc))
    });
    format!(
        "<a class=\"term\" href=\"{}\" aria-describedby=\"{id}\">{}</a><span class=\"tip\" id=\"{id}\" hidden>{}{cc}</span>",
        esc(&term.url),
        esc(shown),
        term.preview,
    )
}

/// A summary as the preview shows it: its inline Markdown (code, emphasis, strong,
/// strikethrough) as HTML, everything else as its text, escaped. Written here rather than
/// cleaned after rendering, so nothing but those four elements can reach the preview: a
/// link would nest inside the term's own link, and raw HTML is shown as typed.
pub(crate) fn preview_html(summary: &str) -> String {
    use pulldown_cmark::{Options, Parser};
    let esc = crate::html::escape;
    let mut out = String::with_capacity(summary.len() + 16);
    let parser = Parser::new_ext(
        summary,
        Options::ENABLE_STRIKETHROUGH | Options::ENABLE_SMART_PUNCTUATION,
    );
    for event in parser {
        match event {
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) | Event::InlineMath(t) => {
                out.push_str(&esc(&t))
            }
            Event::Code(t) => {
                out.push_str("<code>");
                out.push_str(&esc(&t));
                out.push_str("</code>");
            }
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            Event::Start(Tag::Emphasis) => out.push_str("<em>"),
            Event::End(TagEnd::Emphasis) => out.push_str("</em>"),
            Event::Start(Tag::Strong) => out.push_str("<strong>"),
            Event::End(TagEnd::Strong) => out.push_str("</strong>"),
            Event::Start(Tag::Strikethrough) => out.push_str("<s>"),
            Event::End(TagEnd::Strikethrough) => out.push_str("</s>"),
            // A second paragraph, a list item or a heading: one line of text all the same.
            Event::End(TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::Item) => out.push(' '),
            _ => {}
        }
    }
    out.truncate(out.trim_end().len());
    out
}

#[cfg(test)]
mod tests;
