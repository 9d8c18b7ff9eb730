//! The lexer for YAML: comments, document markers and directives, mapping keys (block and
//! flow), quoted strings, block scalars (`|`, `>` and their bodies), anchors, aliases, tags,
//! and the core schema's literals and numbers. Uses only the shared emitter.
use super::emit::{Class, Emitter, line_end};

/// Lexes `src`, reporting tokens to `out`.
pub(crate) fn lex(src: &str, out: &mut Emitter<'_>) {
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let end = line_end(b, i);
        let line = &src[i..end];
        let indent = line.len() - line.trim_start_matches(' ').len();
        let body = &line[indent..];
        if indent == 0
            && (body.starts_with("---") || body.starts_with("..."))
            && body[3..].trim().is_empty_or_comment()
        {
            out.token(i, i + 3, Class::Keyword);
            comment_after(src, i + 3, end, out);
        } else if indent == 0 && body.starts_with('%') {
            out.token(i, end, Class::Preprocessor);
        } else {
            let (end, block) = lex_line(src, i + indent, end, out);
            i = match block {
                Some(block) => block_scalar(src, end, block, out),
                None => end + 1,
            };
            continue;
        }
        i = end + 1;
    }
}

trait EmptyOrComment {
    fn is_empty_or_comment(&self) -> bool;
}

impl EmptyOrComment for str {
    fn is_empty_or_comment(&self) -> bool {
        self.is_empty() || self.starts_with('#')
    }
}

fn comment_after(src: &str, from: usize, end: usize, out: &mut Emitter<'_>) {
    if let Some(n) = src[from..end].find('#') {
        out.token(from + n, end, Class::Comment);
    }
}

/// Lexes the tokens of one line from `start` to `end` (its newline). Returns where the line
/// ended (later when a quoted scalar spans lines), and the line's indentation when it opens
/// a block scalar (`key: |`), whose body follows.
fn lex_line(
    src: &str,
    start: usize,
    mut end: usize,
    out: &mut Emitter<'_>,
) -> (usize, Option<usize>) {
    let b = src.as_bytes();
    let line_start = src[..start].rfind('\n').map_or(0, |n| n + 1);
    let mut i = start;
    let mut flow = 0usize; // depth of `{…}` / `[…]`
    while i < end {
        let c = b[i];
        let prev_blank = i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n');
        match c {
            b' ' | b'\t' | b'\r' | b',' => i += 1,
            b'{' | b'[' => {
                flow += 1;
                i += 1;
            }
            b'}' | b']' => {
                flow = flow.saturating_sub(1);
                i += 1;
            }
            b'#' if prev_blank => {
                out.token(i, end, Class::Comment);
                return (end, None);
            }
            b'-' | b'?' | b':'
                if b.get(i + 1)
                    .is_none_or(|&n| matches!(n, b' ' | b'\n' | b'\r')) =>
            {
                i += 1
            }
            b'|' | b'>' if flow == 0 => {
                let mods = b[i + 1..end]
                    .iter()
                    .take_while(|c| matches!(c, b'-' | b'+' | b'0'..=b'9'))
                    .count();
                let rest = src[i + 1 + mods..end].trim();
                if rest.is_empty_or_comment() {
                    comment_after(src, i + 1 + mods, end, out);
                    return (end, Some(start - line_start));
                }
                i = scalar(src, i, end, flow, out);
            }
            b'"' | b'\'' => {
                let close = quoted_end(b, i);
                let after = super::emit::skip_blanks(b, close);
                let class = if b.get(after) == Some(&b':') {
                    Class::Key
                } else {
                    Class::String
                };
                out.token(i, close, class);
                i = close;
                if close > end {
                    // A quoted scalar that spans lines: lexing goes on to the end of its last line.
                    end = line_end(b, close);
                }
            }
            b'&' | b'*' if b.get(i + 1).is_some_and(|&n| !matches!(n, b' ' | b'\n')) => {
                let e = word_end(b, i, end);
                out.token(i, e, Class::Variable);
                i = e;
            }
            b'!' => {
                let e = word_end(b, i, end);
                out.token(i, e, Class::Type);
                i = e;
            }
            _ => i = scalar(src, i, end, flow, out),
        }
    }
    (end, None)
}

fn word_end(b: &[u8], start: usize, end: usize) -> usize {
    b[start..end]
        .iter()
        .position(|&c| matches!(c, b' ' | b'\t' | b',' | b']' | b'}' | b'\r'))
        .map_or(end, |n| start + n)
}

/// A plain scalar from `start`: a key when `:` and a blank follow, else a literal, a
/// number or plain text. Returns its end.
fn scalar(src: &str, start: usize, end: usize, flow: usize, out: &mut Emitter<'_>) -> usize {
    let b = src.as_bytes();
    let mut i = start;
    let mut key = false;
    while i < end {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == b':'
            && (next.is_none_or(|n| matches!(n, b' ' | b'\t' | b'\n' | b'\r'))
                || (flow > 0 && matches!(next, Some(b',' | b']' | b'}'))))
        {
            key = true;
            break;
        }
        if c == b'#' && matches!(b[i - 1], b' ' | b'\t') {
            break;
        }
        if flow > 0 && matches!(c, b',' | b']' | b'}') {
            break;
        }
        i += 1;
    }
    let text = src[start..i].trim_end();
    let stop = start + text.len();
    let class = if key { Some(Class::Key) } else { literal(text) };
    if let Some(class) = class {
        out.token(start, stop, class);
    }
    i.max(start + 1).min(end.max(start + 1))
}

/// The core schema's literals and numbers.
fn literal(text: &str) -> Option<Class> {
    match text {
        "true" | "false" | "True" | "False" | "TRUE" | "FALSE" | "null" | "Null" | "NULL" | "~"
        | "yes" | "no" | "on" | "off" => Some(Class::Literal),
        _ if !text.is_empty()
            && text
                .trim_start_matches(['-', '+'])
                .starts_with(|c: char| c.is_ascii_digit() || c == '.')
            && text.trim_start_matches(['-', '+']).bytes().all(|c| {
                c.is_ascii_hexdigit()
                    || matches!(c, b'.' | b'_' | b'x' | b'o' | b'e' | b'E' | b'-' | b'+')
            }) =>
        {
            Some(Class::Number)
        }
        _ => None,
    }
}

/// The end of a quoted scalar (`''` escapes a single quote; `\` escapes in double quotes);
/// quoted scalars may span lines.
fn quoted_end(b: &[u8], start: usize) -> usize {
    let q = b[start];
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' if q == b'"' => i += 2,
            c if c == q && q == b'\'' && b.get(i + 1) == Some(&b'\'') => i += 2,
            c if c == q => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The body of a block scalar after the line ending at `end`: following lines indented more
/// than `indent`, and blank lines among them, as one string. Returns where lexing goes on.
fn block_scalar(src: &str, end: usize, indent: usize, out: &mut Emitter<'_>) -> usize {
    let b = src.as_bytes();
    let start = (end + 1).min(b.len());
    let mut i = start;
    let mut last = start; // end of the last non-blank body line
    while i < b.len() {
        let e = line_end(b, i);
        let line = &src[i..e];
        if line.trim().is_empty() {
            i = e + 1;
            continue;
        }
        if line.len() - line.trim_start_matches(' ').len() <= indent {
            break;
        }
        last = e;
        i = e + 1;
    }
    out.token(start, last, Class::String);
    // `last` is a body line's newline (or the end); with no body, go on where it would start.
    if last == start {
        start
    } else {
        (last + 1).min(b.len())
    }
}
