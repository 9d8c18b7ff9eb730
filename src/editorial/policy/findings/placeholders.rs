//! The editorial rule's finding of text `coursegen new` wrote that nobody replaced: a
//! placeholder left in a field, or a scaffold sentence left in the body however re-wrapped,
//! re-cased or re-spaced.
use super::finding::{Finding, FindingKind, finding};
use crate::content::{Diagnostic, Entry, scaffold};
use crate::editorial::policy::names;

/// Text `coursegen new` wrote that nobody replaced.
pub(super) fn placeholders(entry: &Entry, out: &mut Vec<Finding>) {
    // The placeholders folded once, each as ` words ` for a whole-word search
    // (`benches/build.sh`: every entry is held against every placeholder).
    static WANTED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let wanted_all = WANTED.get_or_init(|| {
        (scaffold::PLACEHOLDERS.iter())
            .map(|(_, text)| format!(" {} ", names::fold_text(text)))
            .collect()
    });
    let m = &entry.meta;
    // Each field folded once, however many placeholders it is held against.
    let mut folded: Vec<(&str, Option<String>)> = Vec::new();
    for ((field, text), wanted) in scaffold::PLACEHOLDERS.iter().zip(wanted_all) {
        let value = match *field {
            "title" => Some(m.title.as_str()),
            "category" => m.category.as_deref(),
            "summary" => m.summary.as_deref(),
            "diagram.alt" => m.diagram.as_ref().map(|d| d.alt.as_str()),
            _ => None,
        };
        let at = match folded.iter().position(|(f, _)| f == field) {
            Some(at) => at,
            None => {
                // Folded (case, punctuation, spacing, invisible characters, spelling):
                // deleting the full stop or lower-casing is not writing the text.
                folded.push((field, value.map(names::fold_text)));
                folded.len() - 1
            }
        };
        if folded[at]
            .1
            .as_deref()
            .is_some_and(|v| contains_words(v, wanted))
        {
            out.push(
                finding(
                    entry,
                    FindingKind::Placeholder,
                    field,
                    field,
                    format!("still holds the scaffold's placeholder \"{text}\""),
                )
                .help(
                    "replace it with the entry's own text: `coursegen new` wrote it as a reminder",
                ),
            );
        }
    }
    if let Some((line, sentence)) = scaffold_sentence(&entry.body) {
        out.push(Finding {
            kind: FindingKind::Placeholder,
            missing: "body".into(),
            diagnostic: Diagnostic::new(
                &entry.file,
                entry.body_line + line,
                format!("the body still holds the scaffold's placeholder text \"{sentence}\""),
            )
            .help("write the entry's own text in place of every paragraph `coursegen new` wrote"),
        });
    }
}

/// Whether the folded `text` holds `spaced`, folded words with a space on each side
/// (` words `), as whole words.
fn contains_words(text: &str, spaced: &str) -> bool {
    let words = &spaced[1..spaced.len() - 1];
    if words.is_empty() {
        return false;
    }
    text == words
        || text.starts_with(&spaced[1..])
        || text.ends_with(&spaced[..spaced.len() - 1])
        || text.contains(spaced)
}

/// The first sentence a scaffold wrote that `body` still holds, however re-wrapped,
/// re-cased or re-spaced: the body-relative line (0-based) it starts on, and the sentence.
///
/// A sentence is held when the body, folded as [`names::fold_text`] folds it, holds its
/// folded words in a row. An ASCII line folds byte for byte (letters and digits
/// lower-cased, any other character a gap between words), so the search runs over the body
/// as it is, each other line replaced by its fold, for every sentence at once: its words,
/// case ignored, apart by one or more gap bytes and from the text around them. The rule
/// reads every body of every entry (`benches/build.sh`; BENCHMARKS.md, "Since: the
/// editorial rule's scaffold check").
fn scaffold_sentence(body: &str) -> Option<(usize, String)> {
    use regex_automata::meta::Regex;
    use regex_automata::util::syntax;
    struct Scaffold {
        /// One pattern per spelling of each sentence.
        search: Regex,
        /// The sentence of each pattern (a sentence may have two spellings).
        sentence: Vec<&'static str>,
        /// The words of each pattern, longest first: a text that lacks one of them (case
        /// aside) cannot match the pattern, and the search runs only on a text that holds
        /// every word of some pattern. Looking for a few words costs a fraction of the
        /// search over every byte (`benches/build.sh`).
        words: Vec<Vec<memchr::memmem::Finder<'static>>>,
    }
    static SCAFFOLD: std::sync::OnceLock<Scaffold> = std::sync::OnceLock::new();
    let s = SCAFFOLD.get_or_init(|| {
        let mut patterns: Vec<String> = Vec::new();
        let mut sentence = Vec::new();
        let mut words = Vec::new();
        // A gap: an ASCII byte that is no letter or digit (a byte beyond ASCII belongs to
        // a folded word).
        const GAP: &str = "[\\x00-/:-@\\[-`{-\\x7f]";
        // Short sentences ("Explain it.") could be anyone's words.
        for s in scaffold::body_sentences() {
            let folded = names::fold_text(s);
            if folded.split(' ').count() < 4 {
                continue;
            }
            // Both spellings of the scaffold's own words (fold_text writes `uncategorised`).
            let us = folded.replace("uncategorised", "uncategorized");
            for p in [folded.clone(), us] {
                let escaped: Vec<String> = p.split(' ').map(regex_syntax_escape).collect();
                let pattern = format!("(?:^|{GAP}){}(?:{GAP}|$)", escaped.join(&format!("{GAP}+")));
                if !patterns.contains(&pattern) {
                    patterns.push(pattern);
                    sentence.push(s);
                    let mut needed: Vec<&str> = p.split(' ').collect();
                    needed.sort_by_key(|w| std::cmp::Reverse(w.len()));
                    needed.dedup();
                    words.push(
                        (needed.iter())
                            .map(|w| memchr::memmem::Finder::new(w).into_owned())
                            .collect(),
                    );
                }
            }
        }
        let search = Regex::builder()
            .syntax(
                syntax::Config::new()
                    .unicode(false)
                    .utf8(false)
                    .case_insensitive(true),
            )
            .build_many(&patterns)
            .expect("the scaffold's sentences make patterns");
        Scaffold {
            search,
            sentence,
            words,
        }
    });
    let folded;
    let text = if body.is_ascii() {
        body
    } else {
        // Line by line, so that a line number in the folded text is the body's.
        folded = (body.lines())
            .map(|l| match l.is_ascii() {
                true => std::borrow::Cow::Borrowed(l),
                false => std::borrow::Cow::Owned(names::fold_text(l)),
            })
            .collect::<Vec<_>>()
            .join("\n");
        &folded
    };
    // Folded words are lower case, and the search ignores ASCII case.
    let lower = text.to_ascii_lowercase();
    let holds = |words: &Vec<memchr::memmem::Finder<'_>>| {
        (words.iter()).all(|w| w.find(lower.as_bytes()).is_some())
    };
    if !s.words.iter().any(holds) {
        return None;
    }
    let found = s.search.find(text.as_bytes())?;
    // The match may start with the gap before its first word.
    let first = text[found.start()..]
        .find(|c: char| c.is_ascii_alphanumeric())
        .map_or(found.start(), |i| found.start() + i);
    let line = text.as_bytes()[..first]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    Some((
        line,
        s.sentence[found.pattern().as_usize()].trim().to_string(),
    ))
}

/// `word` as a pattern that matches it literally (a folded word is letters and digits,
/// and beyond ASCII as `fold_text` leaves it).
fn regex_syntax_escape(word: &str) -> String {
    word.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'0'..=b'9' => char::from(b).to_string(),
            _ => format!("\\x{b:02x}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the rule means, without the search: the folded body holds a folded sentence
    /// of four words or more as whole words.
    fn reference(body: &str) -> bool {
        let folded = names::fold_text(body);
        scaffold::body_sentences()
            .map(names::fold_text)
            .filter(|s| s.split(' ').count() >= 4)
            .any(|s| contains_words(&folded, &format!(" {s} ")))
    }

    /// Words of the scaffold's sentences and others, gaps of every kind, and characters
    /// that fold (invisible, wide, accented, another spelling).
    fn pieces() -> Vec<String> {
        let mut out: Vec<String> = scaffold::body_sentences()
            .flat_map(|s| s.split(' '))
            .map(str::to_string)
            .collect();
        for p in [
            " ",
            "  ",
            "\n",
            "\n\n",
            ", ",
            ". ",
            "-",
            "\u{200b}",
            "\u{a0}",
            "é",
            "Ü",
            "ｅ",
            "ﬁ",
            "x",
            "2",
            "_",
            "uncategorized",
            "Uncategorised",
            "`",
            "**",
        ] {
            out.push(p.to_string());
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]
        /// The one search over the body finds a sentence exactly when the folded body holds
        /// one, however its words are cased, re-wrapped, re-spaced or disguised.
        #[test]
        fn the_search_agrees_with_the_folded_rule(
            picks in proptest::collection::vec(any::<proptest::sample::Index>(), 0..60),
            upper in proptest::collection::vec(any::<bool>(), 60),
            sentence in any::<proptest::sample::Index>(),
            around in any::<(proptest::sample::Index, proptest::sample::Index)>(),
        ) {
            let pieces = pieces();
            let sentences: Vec<&str> = scaffold::body_sentences().collect();
            // Half the bodies hold a whole sentence somewhere, disguised by the pieces.
            let mut body = String::new();
            for (i, p) in picks.iter().enumerate() {
                let piece = p.get(&pieces);
                body.push_str(&if upper[i] { piece.to_uppercase() } else { piece.clone() });
                if i == picks.len() / 2 && upper[59] {
                    // Whatever comes before and after it: a gap, or a letter that joins.
                    body.push_str(around.0.get(&pieces).as_str());
                    body.push_str(&sentence.get(&sentences).replace(' ', "\n"));
                    body.push_str(around.1.get(&pieces).as_str());
                }
            }
            prop_assert_eq!(scaffold_sentence(&body).is_some(), reference(&body), "{:?}", body);
        }
    }
}
