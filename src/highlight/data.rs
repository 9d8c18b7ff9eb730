//! The lexers for data and build files: JSON (keys, strings, numbers, literals; comments as
//! JSONC allows) and CMake (commands, control keywords, variables and generator
//! expressions, quoted and bracket arguments, comments). Uses only the shared emitter.
use super::emit::{
    Class, Emitter, Token, ident_end, is_ident, line_end, number_end, scan, skip_blanks,
    slash_comment_end,
};

/// Lexes JSON.
pub(crate) fn lex_json(src: &str, out: &mut Emitter<'_>) {
    let b = src.as_bytes();
    scan(src, 0, out, |i, _| {
        let c = b[i];
        let next = b.get(i + 1).copied();
        let (end, class) = match c {
            b'"' => {
                let end = string_end(b, i);
                let after = skip_ws(b, end);
                let class = if b.get(after) == Some(&b':') {
                    Class::Key
                } else {
                    Class::String
                };
                (end, class)
            }
            b'/' if matches!(next, Some(b'/' | b'*')) => {
                (slash_comment_end(src, i), Class::Comment)
            }
            b'-' | b'0'..=b'9' if c != b'-' || next.is_some_and(|n| n.is_ascii_digit()) => {
                (number_end(b, i, false), Class::Number)
            }
            c if c.is_ascii_alphabetic() => {
                let end = ident_end(b, i);
                let literal = matches!(&src[i..end], "true" | "false" | "null");
                return (end, literal.then_some(Class::Literal));
            }
            _ => return (i + 1, None),
        };
        (end, Some(class))
    });
}

/// The end of a JSON string (escapes honoured; an unclosed one ends at the line's end).
fn string_end(b: &[u8], start: usize) -> usize {
    super::emit::quoted_end(b, start, b'"')
}

fn skip_ws(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .map_or(b.len(), |n| from + n)
}

/// CMake's flow-control commands.
fn cmake_keyword(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "if" | "elseif"
            | "else"
            | "endif"
            | "foreach"
            | "endforeach"
            | "while"
            | "endwhile"
            | "function"
            | "endfunction"
            | "macro"
            | "endmacro"
            | "return"
            | "break"
            | "continue"
            | "block"
            | "endblock"
    )
}

/// Lexes CMake.
pub(crate) fn lex_cmake(src: &str, out: &mut Emitter<'_>) {
    let b = src.as_bytes();
    scan(src, 0, out, |i, out| {
        let (end, class) = match b[i] {
            b'#' => match bracket_end(src, i + 1) {
                Some(end) => (end, Class::Comment),
                None => (line_end(b, i), Class::Comment),
            },
            b'[' => match bracket_end(src, i) {
                Some(end) => (end, Class::String),
                None => return (i + 1, None),
            },
            b'"' => return (quoted(src, i, out), None),
            b'$' => match reference_end(b, i) {
                Some(end) => (end, Class::Variable),
                None => return (i + 1, None),
            },
            b'0'..=b'9' if i == 0 || !is_ident(b[i - 1]) => {
                (number_end(b, i, false), Class::Number)
            }
            c if c.is_ascii_alphabetic() || c == b'_' => return cmake_word(src, i),
            _ => return (i + 1, None),
        };
        (end, Some(class))
    });
}

/// A command (`add_library(`), a flow-control keyword (`if(`), a boolean constant or a
/// plain word (an argument, `None`) starting at `start`.
fn cmake_word(src: &str, start: usize) -> Token {
    let b = src.as_bytes();
    let end = b[start..]
        .iter()
        .position(|&c| !is_ident(c) && c != b'-' && c != b'.')
        .map_or(b.len(), |n| start + n);
    let word = &src[start..end];
    let name_end = ident_end(b, start);
    if b.get(skip_blanks(b, name_end)) == Some(&b'(') {
        let class = if cmake_keyword(&src[start..name_end]) {
            Class::Keyword
        } else {
            Class::Function
        };
        (name_end, Some(class))
    } else if matches!(word, "ON" | "OFF" | "TRUE" | "FALSE" | "YES" | "NO") {
        (end, Some(Class::Literal))
    } else {
        (end, None)
    }
}

/// `[[…]]`, `[=[…]=]`: the end of the bracket whose `[` is at `start`, if it opens one.
fn bracket_end(src: &str, start: usize) -> Option<usize> {
    let rest = src.get(start..)?;
    let eq = rest
        .strip_prefix('[')?
        .bytes()
        .take_while(|&c| c == b'=')
        .count();
    if rest.as_bytes().get(1 + eq) != Some(&b'[') {
        return None;
    }
    let close = format!("]{}]", "=".repeat(eq));
    let body = start + 2 + eq;
    Some(
        src[body..]
            .find(&close)
            .map_or(src.len(), |n| body + n + close.len()),
    )
}

/// `${VAR}`, `$ENV{VAR}`, `$CACHE{VAR}`, `$<generator:expr>`, nested ones included.
fn reference_end(b: &[u8], start: usize) -> Option<usize> {
    let open_at = match b.get(start + 1)? {
        b'{' | b'<' => start + 1,
        c if c.is_ascii_uppercase() => {
            let e = ident_end(b, start + 1);
            (b.get(e) == Some(&b'{')).then_some(e)?
        }
        _ => return None,
    };
    let (open, close) = if b[open_at] == b'<' {
        (b'<', b'>')
    } else {
        (b'{', b'}')
    };
    let mut depth = 0;
    for (k, &c) in b[open_at..].iter().enumerate() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(open_at + k + 1);
            }
        } else if c == b'\n' {
            return Some(open_at + k);
        }
    }
    Some(b.len())
}

/// A quoted argument: a string span with `${…}` references nested in it.
fn quoted(src: &str, start: usize, out: &mut Emitter<'_>) -> usize {
    let b = src.as_bytes();
    out.open(start, Class::String);
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => {
                i += 1;
                break;
            }
            b'$' => match reference_end(b, i) {
                Some(end) => {
                    out.token(i, end, Class::Variable);
                    i = end;
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    let mut end = i.min(b.len());
    while !src.is_char_boundary(end) {
        end += 1;
    }
    out.close(end);
    end
}
