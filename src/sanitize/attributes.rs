//! A bound on the attributes the HTML cleaner meets in one tag, checked in one linear pass
//! before it parses. html5ever checks each new attribute against every earlier one of its
//! tag (the duplicate rule), so a tag's cost grows with the square of its attributes:
//! 112,000 in one tag of a 1 MiB entry took 8 s. It also merges every `<html>` tag's
//! attributes into one element, checking each against all before it.
//!
//! The pass follows the HTML tokenizer's tag states exactly (WHATWG, "13.2.5 Tokenization":
//! tag name, the attribute-name and attribute-value states, self-closing). Everything outside
//! a tag — text, comments, RCDATA such as `<textarea>`'s, CDATA — is one state that may
//! open a tag at every `<` followed by a letter (or `</` and a letter): the tokenizer opens
//! tags nowhere else, so by following each possibility at once the pass never counts fewer
//! attributes than the cleaner will see. It may count more (a tag written inside a
//! comment), which only matters to a tag that is close to the limit already.

/// Most attributes one tag may hold; also the most all `<html>` and `<body>` tags of one
/// fragment may hold together. A hand-written tag has a few; past this, nothing but a
/// generator writes them.
pub(crate) const MAX_ATTRIBUTES: u32 = 256;

#[derive(Clone, Copy)]
enum State {
    TagName,
    BeforeName,
    Name,
    AfterName,
    BeforeValue,
    DoubleQuoted,
    SingleQuoted,
    Unquoted,
    AfterQuoted,
    SelfClosing,
}

const STATES: usize = 10;

/// One way the tokenizer may be inside a tag: how many attributes the tag has so far, and
/// where its `<` is.
#[derive(Clone, Copy)]
struct Open {
    attributes: u32,
    start: usize,
}

/// Where a tag in `fragment` would reach more than [`MAX_ATTRIBUTES`] attributes in the
/// HTML cleaner (or the `<html>` and `<body>` tags would, together): the byte offset of
/// that tag's `<`. `None` when every tag stays within the limit.
pub(crate) fn too_many_attributes(fragment: &str) -> Option<usize> {
    let bytes = fragment.as_bytes();
    // Index: state, then whether the tag merges its attributes (`<html>`, `<body>`).
    let mut open: [[Option<Open>; 2]; STATES] = [[None; 2]; STATES];
    let mut merged = 0u32;
    let mut i = 0;
    while i < bytes.len() {
        if open.iter().flatten().all(Option::is_none) {
            // Outside every tag: the next one can only open at a letter after `<` or `</`.
            match bytes[i..].iter().position(|&b| b == b'<') {
                Some(j) => i += j + 1,
                None => return None,
            }
            if bytes.get(i) == Some(&b'/') {
                i += 1;
            }
            if i >= bytes.len() {
                return None;
            }
        }
        let b = bytes[i];
        let mut next: [[Option<Open>; 2]; STATES] = [[None; 2]; STATES];
        let mut merging_attribute = None;
        for (state, ways) in open.iter().enumerate() {
            for (merges, way) in ways.iter().enumerate() {
                let Some(way) = way else { continue };
                let Some((to, starts)) = step(STATES_IN_ORDER[state], b) else {
                    continue; // the tag ended
                };
                let attributes = way.attributes + u32::from(starts);
                if attributes > MAX_ATTRIBUTES {
                    return Some(way.start);
                }
                if starts && merges == 1 {
                    merging_attribute = Some(way.start);
                }
                let slot = &mut next[to as usize][merges];
                if slot.is_none_or(|s| s.attributes < attributes) {
                    *slot = Some(Open {
                        attributes,
                        start: way.start,
                    });
                }
            }
        }
        if let Some(start) = merging_attribute {
            merged += 1;
            if merged > MAX_ATTRIBUTES {
                return Some(start);
            }
        }
        if let Some(start) = tag_opens_at(bytes, i) {
            let merges = usize::from(merges_attributes(&bytes[i..]));
            let slot = &mut next[State::TagName as usize][merges];
            if slot.is_none() {
                *slot = Some(Open {
                    attributes: 0,
                    start,
                });
            }
        }
        open = next;
        i += 1;
    }
    None
}

const STATES_IN_ORDER: [State; STATES] = [
    State::TagName,
    State::BeforeName,
    State::Name,
    State::AfterName,
    State::BeforeValue,
    State::DoubleQuoted,
    State::SingleQuoted,
    State::Unquoted,
    State::AfterQuoted,
    State::SelfClosing,
];

/// The tokenizer's next state inside a tag after byte `b`, and whether `b` starts an
/// attribute; `None` when `b` ends the tag.
fn step(state: State, b: u8) -> Option<(State, bool)> {
    use State::*;
    // The tokenizer turns CR into LF before it looks.
    let space = matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
    let new_attribute = Some((Name, true));
    match state {
        TagName if space => Some((BeforeName, false)),
        TagName if b == b'/' => Some((SelfClosing, false)),
        TagName if b == b'>' => None,
        TagName => Some((TagName, false)),
        // After a quoted value and after `/`, anything else is read as in BeforeName.
        BeforeName | AfterQuoted | SelfClosing if space => Some((BeforeName, false)),
        BeforeName | AfterQuoted | SelfClosing if b == b'/' => Some((SelfClosing, false)),
        BeforeName | AfterQuoted | SelfClosing if b == b'>' => None,
        BeforeName | AfterQuoted | SelfClosing => new_attribute,
        Name if space => Some((AfterName, false)),
        Name if b == b'/' => Some((SelfClosing, false)),
        Name if b == b'>' => None,
        Name if b == b'=' => Some((BeforeValue, false)),
        Name => Some((Name, false)),
        AfterName if space => Some((AfterName, false)),
        AfterName if b == b'/' => Some((SelfClosing, false)),
        AfterName if b == b'=' => Some((BeforeValue, false)),
        AfterName if b == b'>' => None,
        AfterName => new_attribute,
        BeforeValue if space => Some((BeforeValue, false)),
        BeforeValue if b == b'"' => Some((DoubleQuoted, false)),
        BeforeValue if b == b'\'' => Some((SingleQuoted, false)),
        BeforeValue if b == b'>' => None,
        BeforeValue => Some((Unquoted, false)),
        DoubleQuoted if b == b'"' => Some((AfterQuoted, false)),
        DoubleQuoted => Some((DoubleQuoted, false)),
        SingleQuoted if b == b'\'' => Some((AfterQuoted, false)),
        SingleQuoted => Some((SingleQuoted, false)),
        Unquoted if space => Some((BeforeName, false)),
        Unquoted if b == b'>' => None,
        Unquoted => Some((Unquoted, false)),
    }
}

/// Where the tag whose name starts at `i` opens (its `<`), if a tag can start there: a
/// letter after `<` or after `</`.
fn tag_opens_at(bytes: &[u8], i: usize) -> Option<usize> {
    if !bytes[i].is_ascii_alphabetic() || i == 0 {
        return None;
    }
    match bytes[i - 1] {
        b'<' => Some(i - 1),
        b'/' if i >= 2 && bytes[i - 2] == b'<' => Some(i - 2),
        _ => None,
    }
}

/// Whether a tag named at the start of `rest` has its attributes merged into an element
/// that earlier tags of the same name made: `html` (and `body`, in a whole document).
fn merges_attributes(rest: &[u8]) -> bool {
    ["html", "body"].iter().any(|name| {
        rest.len() >= name.len()
            && rest[..name.len()].eq_ignore_ascii_case(name.as_bytes())
            && rest
                .get(name.len())
                .is_none_or(|b| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(attributes: usize) -> String {
        let names: Vec<String> = (0..attributes).map(|i| format!("a{i}")).collect();
        format!("<div {}>x</div>", names.join(" "))
    }

    /// `html` is refused (at the offset given) or passes (`None`).
    #[track_caller]
    fn case(html: &str, refused_at: Option<usize>) {
        assert_eq!(too_many_attributes(html), refused_at, "{:.120}", html);
    }

    #[test]
    fn counts_attributes_as_the_tokenizer_does() {
        let limit = MAX_ATTRIBUTES as usize;
        case(&tag(limit), None);
        case(&tag(limit + 1), Some(0));
        case(&format!("<p>a</p>{}", tag(limit + 1)), Some(8));
        // Separated by `/`, after a quoted value without a space, names starting with `=`.
        let slashes = format!("<a {}>", vec!["x"; limit + 1].join("/"));
        let joined = format!("<a {}>", vec!["x=\"1\""; limit + 1].join(""));
        // `=x =x`: a name `=x`, then a value `=x` (after the space, `=` starts the value).
        let equals = format!("<a {}>", vec!["=x"; 2 * limit + 1].join(" "));
        for html in [&slashes, &joined, &equals] {
            case(html, Some(0));
        }
        // `>` inside a quoted value does not end the tag; words inside a value are not
        // attributes.
        let quoted_gt = format!("<a {}>", vec!["x=\">\""; limit + 1].join(" "));
        case(&quoted_gt, Some(0));
        case(
            &format!("<a title=\"{}\">", "word ".repeat(10 * limit)),
            None,
        );
        case(&format!("<p>{}</p>", "word ".repeat(10 * limit)), None);
        // An end tag's attributes cost the tokenizer as much as a start tag's.
        case(
            &format!("</div {}>", vec!["x1 x2"; limit].join(" ")),
            Some(0),
        );
        // A tag written in a comment or a <textarea> may be a tag after all: counted.
        case(&format!("<!-- {} -->", tag(limit + 1)), Some(5));
        case(
            &format!(
                "<textarea><!-- </textarea {}>",
                vec!["y"; limit + 1].join(" ")
            ),
            Some(15),
        );
    }

    #[test]
    fn html_tags_are_counted_together() {
        let few = "<html a b c d e f g h>".repeat(MAX_ATTRIBUTES as usize / 8);
        case(&few, None);
        case(&format!("{few}<HTML z>"), Some(few.len()));
        case(&format!("{few}<body z>"), Some(few.len()));
        case(&format!("{few}<htmlx z>"), None);
    }

    #[test]
    fn a_mebibyte_is_checked_quickly() {
        let hostile = tag(112_000);
        let open = "<a b=\"".repeat(150_000);
        for html in [hostile, open] {
            let start = std::time::Instant::now();
            let _ = too_many_attributes(&html);
            assert!(start.elapsed().as_secs_f64() < 0.5, "{:?}", start.elapsed());
        }
    }
}
