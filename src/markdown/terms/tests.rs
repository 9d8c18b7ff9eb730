//! Tests of term linking: plurals, the first mention per page, previews, what is left
//! alone, and the trie against aho-corasick.
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
fn regular_plurals_and_white_space_runs() {
    for (word, want) in [
        ("warp", "warps"),
        ("bus", "buses"),
        ("Memory", "Memories"),
        ("key", "keys"),
        ("shared memory bank", "shared memory banks"),
        ("SM", "SMS"),
        ("branch", "branches"),
    ] {
        assert_eq!(plural(word).as_deref(), Some(want), "{word}");
    }
    assert_eq!(plural("CC 8.0"), None);
    assert_eq!(
        forms("shared  memory"),
        [
            ("shared  memories".to_string(), "the plural"),
            ("shared-memories".to_string(), "the hyphenated plural"),
            ("shared-memory".to_string(), "the hyphenated form"),
        ]
    );
    assert_eq!(forms("warp"), [("warps".to_string(), "the plural")]);
    let spaced = Spaced::new("a\n  shared\t\tmemory bank");
    assert_eq!(spaced.text, "a shared memory bank");
    let at = spaced.text.find("shared").unwrap();
    let end = at + "shared memory bank".len();
    assert_eq!(
        &"a\n  shared\t\tmemory bank"[spaced.original(at)..spaced.original(end)],
        "shared\t\tmemory bank"
    );
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
    // The mention keeps its spelling; the preview is described, hidden in the HTML
    // itself (never read in place, nor by a reader mode or a text browser).
    assert!(
        html.contains(
            "<a class=\"term\" href=\"/glossary/warp/\" aria-describedby=\"term-1\">Warp</a>\
             <span class=\"tip\" id=\"term-1\" hidden>What a warp is.</span>"
        ),
        "{html}"
    );
    assert!(html.contains("<small>CC 7.5</small>"), "{html}");
}

#[test]
fn a_preview_is_its_summary_s_inline_markdown_and_nothing_else() {
    assert_eq!(
        preview_html("Memory a block declares with `__shared__`, *fast* and **near**."),
        "Memory a block declares with <code>__shared__</code>, <em>fast</em> and \
         <strong>near</strong>."
    );
    // A link would nest in the term's own; raw HTML shows as typed; a list is a line.
    assert_eq!(
        preview_html("See [this](https://x.org) <img src=x onerror=y> & <b>\n- one\n- two"),
        "See this &lt;img src=x onerror=y&gt; &amp; &lt;b&gt; one two"
    );
}

#[test]
fn code_headings_links_words_inside_words_and_the_page_itself_are_left_alone() {
    let md = "# Warp\n\n`warp` and [a warp](/x/) and warped and\n\n```\nwarp\n```\n\nthe bank.\n";
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

mod matcher {
    use crate::markdown::terms::Words;
    use aho_corasick::{AhoCorasickBuilder, MatchKind};
    use proptest::prelude::*;

    /// Letters in both cases, gaps, digits, and bytes beyond ASCII (a letter whose
    /// lower case is ASCII, `K` the Kelvin sign, among them).
    const PIECES: &[&str] = &[
        "a", "b", "ab", "ba", "A", "B", " ", "-", "1", "é", "É", "\u{212a}", "k", "K",
    ];

    fn join(picks: &[prop::sample::Index]) -> String {
        picks.iter().map(|p| *p.get(PIECES)).collect()
    }

    /// Every word found in `text` from its start, each search from the end of the last.
    fn found(words: &Words, text: &str) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(m) = words.find(text.as_bytes(), from) {
            from = m.1;
            out.push(m);
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]
        /// The trie finds what aho-corasick's leftmost-longest, ASCII-case-insensitive
        /// matcher found before it, word for word.
        #[test]
        fn the_trie_finds_what_aho_corasick_found(
            names in prop::collection::vec(prop::collection::vec(any::<prop::sample::Index>(), 1..7), 1..12),
            shortest in 1usize..7,
            text in prop::collection::vec(any::<prop::sample::Index>(), 0..60),
        ) {
            // As `Terms::new` keeps them: trimmed, not empty, once whatever the case;
            // and none shorter than `shortest` bytes, so that windows of every length
            // are tried.
            let mut seen = std::collections::HashSet::new();
            let words: Vec<String> = (names.iter().map(|n| join(n).trim().to_string()))
                .filter(|w| w.len() >= shortest && seen.insert(w.to_lowercase()))
                .collect();
            prop_assume!(!words.is_empty());
            let text = join(&text);
            let aho = AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(&words)
                .unwrap();
            let want: Vec<_> = (aho.find_iter(&text))
                .map(|m| (m.start(), m.end(), m.pattern().as_usize()))
                .collect();
            prop_assert_eq!(found(&Words::new(&words), &text), want, "{:?} in {:?}", words, text);
        }
    }
}
