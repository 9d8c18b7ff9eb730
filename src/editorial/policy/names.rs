//! Names in a byline as the editorial rule compares them: invisible characters removed,
//! NFKC, case folding, whitespace collapsed, and a UTS #39 confusable skeleton, so one
//! person cannot pass as two.
use icu_casemap::CaseMapper;
use icu_normalizer::ComposingNormalizer;
use icu_properties::CodePointSetData;
use icu_properties::props::{BidiControl, DefaultIgnorableCodePoint};

/// Words that stand for "nobody has signed yet". Compared ignoring case, spaces and
/// punctuation, so `TBD.`, `N.A.`, `n/a` and `To do` match too; a name that is only
/// punctuation (`-`, `?`, `...`) or empty is unsigned as well.
pub(crate) const PLACEHOLDERS: &[&str] = &[
    "pending",
    "tbd",
    "tba",
    "tbc",
    "todo",
    "fixme",
    "none",
    "nobody",
    "noone",
    "unknown",
    "unsigned",
    "unassigned",
    "anonymous",
    "anon",
    "na",
    "nil",
    "null",
    "x",
    "xx",
    "xxx",
    "someone",
    "somebody",
    "author",
    "reviewer",
    "name",
    "yourname",
    "me",
    "myself",
    "self",
    "yes",
    "no",
    "ok",
    "test",
    "tester",
    "example",
    "johndoe",
    "janedoe",
    "johnsmith",
    "reviewername",
    "authorname",
    "theauthor",
    "thereviewer",
    "areviewer",
    "anauthor",
    "firstlast",
    "firstnamelastname",
    "namesurname",
    "fullname",
];

/// What one name in a byline turns out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Name {
    /// A person, as compared: the canonical form and its confusable skeleton.
    Person {
        /// NFKC, case-folded, whitespace collapsed, invisible characters removed.
        canonical: String,
        /// UTS #39 skeletons, case-folded: of the name as written, then of `canonical`
        /// (the confusables table is case-sensitive: `Η` and `H` meet only before folding,
        /// `а` and `a` after). `Аda` with a Cyrillic А gives `ada`.
        skeleton: [String; 2],
        /// The name's words, titles (`Dr`, `Prof`, `Jr`…) left out: of `canonical`, then
        /// each word's skeleton. Compared as a set, with initials, by [`same_words`].
        words: [Vec<String>; 2],
    },
    /// A placeholder (`pending`, `TODO`, `-`…): nobody has signed.
    Unsigned,
    /// One string that holds several names (`Ada, Grace`, `Ada | Grace`, `Ada ＆ Grace`).
    Several,
    /// Something with no letters in it (`42`, `#1`): not a person's name.
    NoLetters,
}

impl Name {
    /// True when both are people and could be the same one: the same canonical form or
    /// skeleton, or the same words in any order, titles left out and an initial standing
    /// for a word (`A. Lovelace`, `Dr Ada Lovelace`, `Lovelace Ada` and `Ada` are all Ada
    /// Lovelace). Loose on purpose: it decides who may not review whom, so a false "same"
    /// asks for a reviewer who is plainly someone else, while a false "different" would let
    /// an author review their own work.
    pub(crate) fn same_person(&self, other: &Name) -> bool {
        match (self, other) {
            (
                Name::Person {
                    canonical: a,
                    skeleton: sa,
                    words: wa,
                },
                Name::Person {
                    canonical: b,
                    skeleton: sb,
                    words: wb,
                },
            ) => {
                a == b
                    || sa[0] == sb[0]
                    || sa[1] == sb[1]
                    // Punctuation, spaces and hyphens folded: `Ada Lovelace.`, `AdaLovelace`
                    // and `Ada-Lovelace` are Ada Lovelace.
                    || letters(a) == letters(b)
                    || letters(&sa[1]) == letters(&sb[1])
                    || same_words(&wa[0], &wb[0])
                    || same_words(&wa[1], &wb[1])
            }
            _ => false,
        }
    }
}

/// Titles and degrees that say nothing about who a person is (compared folded, without
/// their full stop): `Dr Ada Lovelace` is Ada Lovelace. Generational suffixes (`Jr`, `Sr`,
/// `III`) are words: they tell a father from his son.
const TITLES: &[&str] = &[
    "dr",
    "doctor",
    "prof",
    "professor",
    "mr",
    "mrs",
    "ms",
    "mx",
    "miss",
    "sir",
    "dame",
    "rev",
    "phd",
    "esq",
];

/// The most words of a name compared one by one (a perfect matching); longer names are
/// compared word by word against a set, in time linear in their words.
const MAX_WORDS: usize = 8;

/// The distinct words of a canonical name (letters and digits; anything else separates),
/// titles left out, in order.
fn words_of(canonical: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for w in canonical.split(|c: char| !c.is_alphanumeric()) {
        if !w.is_empty() && !TITLES.contains(&w) && seen.insert(w) {
            words.push(w.to_string());
        }
    }
    words
}

/// Whether two names' words could name one person: every word of the shorter name pairs
/// with a different word of the longer one — the same word, or an initial and a word it
/// begins — and the two share at least one whole word, unless the shorter is initials
/// alone (`A. L.` may be Ada Lovelace; `A. B.` and `A. C.` are not one person). A name of
/// more than [`MAX_WORDS`] words is compared by its words too, each word of the shorter
/// name pairing with any word of the longer one: padding a name with words does not make
/// its bearer someone else.
fn same_words(a: &[String], b: &[String]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return false;
    }
    let whole = |w: &String| w.chars().count() > 1;
    // Initials alone on either side (names of as many words may come in either order).
    let initials_only = !short.iter().any(whole) || !long.iter().any(whole);
    if long.len() > MAX_WORDS {
        let words: std::collections::HashSet<&str> = long.iter().map(String::as_str).collect();
        let firsts: std::collections::HashSet<char> =
            long.iter().filter_map(|w| w.chars().next()).collect();
        let pairs = |w: &String| {
            let first = w.chars().next().map(String::from).unwrap_or_default();
            words.contains(w.as_str())
                || (!whole(w) && firsts.contains(&w.chars().next().unwrap_or(' ')))
                || words.contains(first.as_str())
        };
        let shared = initials_only || short.iter().any(|w| whole(w) && words.contains(w.as_str()));
        return shared && short.iter().all(pairs);
    }
    if !initials_only && !short.iter().any(|w| whole(w) && long.contains(w)) {
        return false;
    }
    let pairs = |x: &str, y: &str| {
        let initial = |i: &str, w: &str| i.chars().count() == 1 && w.starts_with(i);
        x == y || initial(x, y) || initial(y, x)
    };
    // A perfect matching of the shorter side (Kuhn's augmenting paths; at most 8 × 8).
    fn augment(
        i: usize,
        short: &[String],
        long: &[String],
        pairs: &dyn Fn(&str, &str) -> bool,
        seen: &mut [bool],
        taken: &mut [Option<usize>],
    ) -> bool {
        for j in 0..long.len() {
            if seen[j] || !pairs(&short[i], &long[j]) {
                continue;
            }
            seen[j] = true;
            if taken[j].is_none_or(|k| augment(k, short, long, pairs, seen, taken)) {
                taken[j] = Some(i);
                return true;
            }
        }
        false
    }
    let mut taken = vec![None; long.len()];
    (0..short.len()).all(|i| {
        let mut seen = vec![false; long.len()];
        augment(i, short, long, &pairs, &mut seen, &mut taken)
    })
}

/// Whether two principals of the allowed-signers file (or a principal and a name) are one
/// person, by the rule [`Name::same_person`] applies to names. An email address
/// (`ada@example.org`) is compared whole — case, invisible characters, Unicode form and
/// look-alikes folded — and is never the same as a name, which it does not spell.
pub(crate) fn same_principal(a: &str, b: &str) -> bool {
    // The at signs NFKC makes `@`: a full-width `＠` writes an email too.
    let email = |p: &str| p.contains(['@', '\u{FF20}', '\u{FE6B}']);
    match (email(a), email(b)) {
        (true, true) => {
            let (ca, cb) = (address(a), address(b));
            ca == cb || unicode_security::skeleton(&ca).eq(unicode_security::skeleton(&cb))
        }
        (false, false) => match (classify(a), classify(b)) {
            (na @ Name::Person { .. }, nb @ Name::Person { .. }) => na.same_person(&nb),
            // Not a person's name by the byline's rules (`ci`, `Ada & Grace`): compared
            // as written, folded.
            _ => canonical_name(a) == canonical_name(b),
        },
        _ => false,
    }
}

/// An email address as compared: [`canonical_name`] without any space.
fn address(p: &str) -> String {
    canonical_name(p).split_whitespace().collect()
}

/// The letters and digits of a name, nothing else.
fn letters(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).collect()
}

/// Judges one name as written in `written_by` or `reviewed_by`.
///
/// A course has a handful of authors and reviewers across thousands of entries, so each
/// thread remembers its last verdicts (normalising and skeletons showed in the profile of
/// `benches/build.sh`'s 10,000-entry corpus); the cache is bounded, so hostile content
/// cannot grow it.
pub(crate) fn classify(raw: &str) -> Name {
    use std::cell::RefCell;
    use std::collections::HashMap;
    const REMEMBERED: usize = 1024;
    thread_local! {
        static SEEN: RefCell<HashMap<String, Name>> = RefCell::new(HashMap::new());
    }
    if let Some(name) = SEEN.with_borrow(|seen| seen.get(raw).cloned()) {
        return name;
    }
    let name = classify_uncached(raw);
    SEEN.with_borrow_mut(|seen| {
        if seen.len() >= REMEMBERED {
            seen.clear();
        }
        seen.insert(raw.to_owned(), name.clone());
    });
    name
}

fn classify_uncached(raw: &str) -> Name {
    let visible = nfkc(&strip_invisible(raw));
    let canonical = canonical_name(raw);
    if is_placeholder(&canonical) {
        return Name::Unsigned;
    }
    if looks_like_several(&visible) {
        return Name::Several;
    }
    // One letter (`Q`) names nobody; nor does text without letters (`42`).
    if canonical.chars().filter(|c| c.is_alphabetic()).count() < 2 {
        return Name::NoLetters;
    }
    let collapsed = visible.split_whitespace().collect::<Vec<_>>().join(" ");
    let written: String = unicode_security::skeleton(&collapsed).collect();
    let skeleton = [
        canonical_name(&written),
        unicode_security::skeleton(&canonical).collect(),
    ];
    let plain = words_of(&canonical);
    let looks: Vec<String> = (plain.iter())
        .map(|w| canonical_name(&unicode_security::skeleton(w).collect::<String>()))
        .collect();
    Name::Person {
        canonical,
        skeleton,
        words: [plain, looks],
    }
}

/// A name as compared: invisible characters removed, NFKC, case-folded, whitespace
/// collapsed (`" ada  LOVELACE"` and `"Ada\u{200B} Lovelace"` both give `ada lovelace`).
pub(crate) fn canonical_name(name: &str) -> String {
    let folded = CaseMapper::new()
        .fold_string(&nfkc(&strip_invisible(name)))
        .into_owned();
    // Folding can produce text that is not NFKC again (e.g. ǰ), so normalise once more.
    let normal = nfkc(&folded);
    normal.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text as the scaffold check compares it: invisible characters removed, NFKC, case-folded,
/// every run of anything but letters and digits one space, and the scaffold's own words
/// in one spelling (`uncategorized` is `uncategorised`). A placeholder re-wrapped,
/// lower-cased, without its full stop or with an NBSP or ZWSP inside folds to itself.
pub(crate) fn fold_text(text: &str) -> String {
    // One pass, ASCII as bytes: the editorial check folds every body of every entry
    // (`benches/build.sh`); a character beyond ASCII is normalised on its own.
    if text.is_ascii() {
        return fold_ascii(text);
    }
    let ignorable = CodePointSetData::new::<DefaultIgnorableCodePoint>();
    let bidi = CodePointSetData::new::<BidiControl>();
    let mut out = String::with_capacity(text.len());
    let mut gap = false;
    let push = |c: char, out: &mut String, gap: &mut bool| {
        if c.is_alphanumeric() {
            if *gap && !out.is_empty() {
                out.push(' ');
            }
            *gap = false;
            out.extend(c.to_lowercase());
        } else {
            *gap = true;
        }
    };
    for c in text.chars() {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                if gap && !out.is_empty() {
                    out.push(' ');
                }
                gap = false;
                out.push(c.to_ascii_lowercase());
            } else {
                gap = true;
            }
        } else if ignorable.contains(c) || bidi.contains(c) {
            // Renders as nothing: `de\u{200B}fines` is `defines`.
        } else if c.is_alphanumeric() {
            // Compatibility forms (`Ｏｎｅ`, `ﬁ`) become their plain letters.
            let mut one = [0u8; 4];
            for d in nfkc(c.encode_utf8(&mut one)).chars() {
                push(d, &mut out, &mut gap);
            }
        } else {
            // Dashes, quotes, an NBSP: between words.
            gap = true;
        }
    }
    one_spelling(out)
}

/// Folded text with the scaffold's own words in one spelling (`uncategorized` is
/// `uncategorised`), as whole words.
fn one_spelling(folded: String) -> String {
    if !folded.contains("uncategorized") {
        return folded;
    }
    let words: Vec<&str> = (folded.split(' '))
        .map(|w| {
            if w == "uncategorized" {
                "uncategorised"
            } else {
                w
            }
        })
        .collect();
    words.join(" ")
}

/// [`fold_text`] of ASCII text: lower-case words of letters and digits, one space apart.
fn fold_ascii(text: &str) -> String {
    let mut bytes = Vec::with_capacity(text.len());
    for word in (text.as_bytes().split(|b| !b.is_ascii_alphanumeric())).filter(|w| !w.is_empty()) {
        if !bytes.is_empty() {
            bytes.push(b' ');
        }
        bytes.extend_from_slice(word);
    }
    bytes.make_ascii_lowercase();
    one_spelling(String::from_utf8(bytes).expect("ASCII is UTF-8"))
}

/// A name as shown on a page: invisible and bidi control characters removed, spacing
/// collapsed, otherwise as written.
pub(crate) fn display_name(name: &str) -> String {
    strip_invisible(name)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A name as `coursegen sign` writes it: invisible and bidi control characters removed,
/// surrounding space trimmed, everything else (line breaks included) left for the rule to judge.
pub(crate) fn without_invisible(name: &str) -> String {
    strip_invisible(name).trim().to_string()
}

/// Who a byline list names, as a page shows them: placeholders (`pending`, `TBD`) left out.
/// The one answer to "who signed" for the rule's messages, the pages and `status`.
pub(crate) fn named_people(list: &[String]) -> Vec<String> {
    (list.iter())
        .filter(|n| !is_unsigned(n))
        .map(|n| display_name(n))
        .collect()
}

/// True for `pending`, `TBD.`, `-`, empty and the rest of `PLACEHOLDERS`.
pub(crate) fn is_unsigned(name: &str) -> bool {
    classify(name) == Name::Unsigned
}

fn nfkc(s: &str) -> String {
    ComposingNormalizer::new_nfkc().normalize(s).into_owned()
}

/// Removes default-ignorable code points (ZWSP, ZWJ, ZWNJ, U+2060, soft hyphen, BOM,
/// variation selectors, tags…) and bidi controls, which render as nothing.
fn strip_invisible(s: &str) -> String {
    // No ASCII character is default-ignorable or a bidi control (`benches/build.sh`: every
    // byline name of every entry passes here).
    if s.is_ascii() {
        return s.to_string();
    }
    let ignorable = CodePointSetData::new::<DefaultIgnorableCodePoint>();
    let bidi = CodePointSetData::new::<BidiControl>();
    s.chars()
        .filter(|&c| !ignorable.contains(c) && !bidi.contains(c))
        .collect()
}

/// Compares ignoring case, spaces and punctuation: `N.A.` is `na`, `T B D` is `tbd`.
fn is_placeholder(canonical: &str) -> bool {
    let key: String = canonical.chars().filter(|c| c.is_alphanumeric()).collect();
    key.is_empty() || PLACEHOLDERS.contains(&key.as_str())
}

/// Characters that separate names in a list, in any script (NFKC has already turned
/// full-width and small forms such as `，` `＆` `｜` into their ASCII twins).
const SEPARATORS: &[char] = &[
    // commas
    ',',
    '\u{55D}',
    '\u{60C}',
    '\u{7F8}',
    '\u{1363}',
    '\u{1802}',
    '\u{1808}',
    '\u{2E32}',
    '\u{2E34}',
    '\u{2E41}',
    '\u{2E49}',
    '\u{2E4C}',
    '\u{3001}',
    '\u{A4FE}',
    '\u{A60D}',
    '\u{A6F5}',
    '\u{1144D}',
    '\u{1145A}',
    '\u{16E97}',
    '\u{1DA87}',
    // semicolons
    ';',
    '\u{61B}',
    '\u{1364}',
    '\u{204F}',
    '\u{2E35}',
    '\u{A6F6}',
    '\u{1DA89}',
    // ampersands
    '&',
    '\u{214B}',
    '\u{6FD}',
    '\u{1F674}',
    '\u{1F675}',
    // vertical lines
    '|',
    '\u{A6}',
    '\u{2016}',
    '\u{2223}',
    '\u{2E3E}',
    // slashes and plus
    '/',
    '\u{2044}',
    '\u{2215}',
    '\u{29F8}',
    '+',
    // middle dots, bullets and interpuncts
    '\u{B7}',
    '\u{387}',
    '\u{2022}',
    '\u{2023}',
    '\u{2027}',
    '\u{2043}',
    '\u{2219}',
    '\u{22C5}',
    '\u{25CF}',
    '\u{25E6}',
    '\u{30FB}',
    '\u{FF65}',
    '\u{2E31}',
    // dashes other than the hyphen (a hyphen joins a double-barrelled name)
    '\u{2012}',
    '\u{2013}',
    '\u{2014}',
    '\u{2015}',
    '\u{2E3A}',
    '\u{2E3B}',
    '\u{FE58}',
    // tabs and line breaks
    '\t',
    '\n',
    '\r',
    '\u{B}',
    '\u{C}',
    '\u{85}',
    '\u{2028}',
    '\u{2029}',
];

/// "Ada, Grace", "Ada | Grace", "Ada\nGrace", "Ada and Grace": one string naming several
/// people, which would let a reviewer who is also an author hide among the authors.
fn looks_like_several(name: &str) -> bool {
    if name.contains(SEPARATORS) {
        return true;
    }
    // "and", "with" and their twins in other languages, as whole words between names.
    const JOINING: &[&str] = &["and", "with", "y", "und", "et", "og", "och", "plus"];
    let lower = name.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    words.len() > 2
        && words[1..words.len() - 1]
            .iter()
            .any(|w| JOINING.contains(w))
        || words.iter().any(|w| *w == "and" || *w == "with")
}

#[cfg(test)]
mod tests;
