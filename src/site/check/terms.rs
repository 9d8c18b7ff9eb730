//! The glossary terms of one build, for linking them in every page's prose
//! (`markdown::terms`): each shown entry's `term` and `aliases`, pointing at its page. Only
//! pages this build shows are linked to (drafts only in the preview). Also the check that
//! no word names two entries. Uses `content` and `markdown`.
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::content::{Diagnostic, Entry};
use crate::markdown::terms::{Term, forms, preview_html};

/// The terms of the shown entries (for `Terms::new`), and a key that changes whenever they do (a memo's
/// parts made with other terms are made again). A word two entries claim links to neither.
pub(crate) fn terms<'a>(
    shown: impl Iterator<Item = &'a Entry> + Clone,
) -> (Vec<(Term, Vec<String>)>, u64) {
    // How many entries claim each word (term or alias), and make each form of one (plural,
    // hyphenated): a word two entries claim links to neither; a form links only to the one
    // entry that makes it, and never where another entry names it (`clashes` says both).
    let (mut claims, mut plurals) = (HashMap::new(), HashMap::new());
    for e in shown.clone() {
        let words: std::collections::BTreeSet<String> = (e.meta.term.iter())
            .chain(&e.meta.aliases)
            .map(|w| w.trim().to_lowercase())
            .collect();
        let made: std::collections::BTreeSet<String> = (words.iter())
            .flat_map(|w| forms(w))
            .map(|(f, _)| f.to_lowercase())
            .collect();
        for (counts, set) in [(&mut claims, words), (&mut plurals, made)] {
            for w in set {
                *counts.entry(w).or_insert(0usize) += 1;
            }
        }
    }
    let mut list = Vec::new();
    for e in shown {
        let Some(term) = &e.meta.term else { continue };
        let mut words = vec![term.clone()];
        words.extend(e.meta.aliases.iter().cloned());
        words.retain(|w| claims.get(&w.trim().to_lowercase()) == Some(&1));
        let made: Vec<String> = (words.iter())
            .flat_map(|w| forms(w))
            .map(|(f, _)| f)
            .filter(|f| {
                let key = f.to_lowercase();
                !claims.contains_key(&key) && plurals.get(&key) == Some(&1)
            })
            .collect();
        words.extend(made);
        let preview = preview_html(e.meta.summary.as_ref().unwrap_or(&e.meta.title));
        list.push((
            Term {
                url: e.url.clone(),
                slug: e.slug.clone(),
                preview,
                cc: e.meta.cc.clone(),
            },
            words,
        ));
    }
    // The pages come in the order the check found them; the key must not depend on it.
    list.sort_by(|a, b| a.0.url.cmp(&b.0.url));
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for (t, words) in &list {
        (&t.url, &t.preview, &t.cc, words).hash(&mut h);
    }
    (list, h.finish())
}

/// Whether [`terms`] reads anything of an entry: its term, or words it claims.
pub(crate) fn has_words(e: &Entry) -> bool {
    e.meta.term.is_some() || !e.meta.aliases.is_empty()
}

/// Whether two versions of an entry give [`terms`] the same list: the same URL (which ends
/// in the slug), words and preview.
pub(crate) fn same_terms(a: &Entry, b: &Entry) -> bool {
    let (x, y) = (&a.meta, &b.meta);
    a.url == b.url
        && x.term == y.term
        && x.aliases == y.aliases
        && x.cc == y.cc
        && x.summary.as_ref().unwrap_or(&x.title) == y.summary.as_ref().unwrap_or(&y.title)
}

/// Whether two versions of an entry with a term look the same to [`clashes`] (which skips
/// entries without one, and names a term's entry by its term, never its title): the same
/// file, words, and lines of its fields.
pub(crate) fn same_words(a: &Entry, b: &Entry) -> bool {
    let (x, y) = (&a.meta, &b.meta);
    a.file == b.file && x.term == y.term && x.aliases == y.aliases && a.lines == b.lines
}

/// Every word (term or alias, case ignored) that two entries claim, reported at the second
/// entry's field, naming the first: an error when an alias claims it (aliases exist for
/// linking), a warning when two entries share a term (neither is linked). Returns the
/// errors and the warnings.
pub(crate) fn clashes(entries: &[Arc<Entry>]) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
    let mut claimed: HashMap<String, (&Entry, &str)> = HashMap::new();
    let (mut problems, mut warnings) = (Vec::new(), Vec::new());
    for e in entries {
        let Some(term) = &e.meta.term else { continue };
        let words =
            std::iter::once((term, "term")).chain(e.meta.aliases.iter().map(|a| (a, "aliases")));
        for (word, field) in words {
            let key = word.trim().to_lowercase();
            match claimed.get(&key) {
                Some((first, _)) if std::ptr::eq(*first, &**e) => {}
                Some((first, first_field)) => {
                    let both_terms = field == "term" && *first_field == "term";
                    let d = Diagnostic::new(
                        &e.file,
                        e.lines.of(field),
                        format!(
                            "`{}` already names `{}` ({}:{}, `{first_field}`): a mention could link to either",
                            word.trim(),
                            first.meta.term.as_deref().unwrap_or(&first.meta.title),
                            first.file.display(),
                            first.lines.of(first_field),
                        ),
                    )
                    .field(field)
                    .help(if both_terms {
                        "give the entries different terms; until then a mention links to neither"
                    } else {
                        "keep the word on the entry it defines, and remove it here"
                    });
                    if both_terms {
                        warnings.push(d);
                    } else {
                        problems.push(d);
                    }
                }
                None => {
                    claimed.insert(key, (e, field));
                }
            }
        }
    }
    // A form (plural, hyphenated) that two entries would make, or that another entry names:
    // said once, at the second entry's word, as a warning (the form links to neither; a
    // declared word wins).
    let mut form_of: HashMap<String, (&Entry, &str, &str)> = HashMap::new();
    for e in entries {
        let Some(term) = &e.meta.term else { continue };
        let words =
            std::iter::once((term, "term")).chain(e.meta.aliases.iter().map(|a| (a, "aliases")));
        for (word, field) in words {
            for (form, what) in forms(word) {
                let key = form.to_lowercase();
                let other = match (claimed.get(&key), form_of.get(&key)) {
                    (Some((named, named_field)), _) if !std::ptr::eq(*named, &**e) => Some((
                        *named,
                        format!("`{named_field}` of"),
                        "links there, where it is named",
                    )),
                    (_, Some((made, made_word, made_what))) if !std::ptr::eq(*made, &**e) => {
                        Some((
                            *made,
                            format!("{made_what} of `{made_word}` on"),
                            "links to neither",
                        ))
                    }
                    _ => None,
                };
                match other {
                    Some((first, how, verdict)) => warnings.push(
                        Diagnostic::new(
                            &e.file,
                            e.lines.of(field),
                            format!(
                                "`{form}`, {what} of `{}`, is also {how} `{}` ({}): a mention \
                                 of `{form}` {verdict}",
                                word.trim(),
                                first.meta.term.as_deref().unwrap_or(&first.meta.title),
                                first.file.display(),
                            ),
                        )
                        .field(field)
                        .help("name the form as an alias of the entry it belongs to"),
                    ),
                    None => {
                        form_of.entry(key).or_insert((e, word.trim(), what));
                    }
                }
            }
        }
    }
    (problems, warnings)
}
