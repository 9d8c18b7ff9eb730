//! The lexer for Python 3: comments, (prefixed, triple-quoted) strings, numbers, decorators,
//! keywords, built-ins, and the names that `def` and `class` introduce. Uses only the shared
//! emitter.
use super::emit::{Class, Emitter, ident_end, is_ident, line_end, number_end, quoted_end};

/// Lexes `src`, reporting tokens to `out`.
pub(crate) fn lex(src: &str, out: &mut Emitter<'_>) {
    let b = src.as_bytes();
    let mut i = 0;
    let mut line_start = true;
    // Set by `def` and `class`: the class of the name that follows.
    let mut naming: Option<Class> = None;
    while i < b.len() {
        if let Some(newline) = super::step_blank(b, &mut i) {
            line_start |= newline;
            continue;
        }
        let c = b[i];
        let at_line_start = std::mem::replace(&mut line_start, false);
        let names = naming.take();
        let (end, class) = match c {
            b'#' => (line_end(b, i), Class::Comment),
            b'"' | b'\'' => (string_end(b, i), Class::String),
            // Elsewhere `@` is matrix multiplication.
            b'@' if at_line_start => {
                let end = b[i + 1..]
                    .iter()
                    .position(|&c| !is_ident(c) && c != b'.')
                    .map_or(b.len(), |n| i + 1 + n);
                (end, Class::Decorator)
            }
            b'0'..=b'9' => (number_end(b, i, false), Class::Number),
            b'.' if b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                (number_end(b, i, false), Class::Number)
            }
            c if is_ident(c) => {
                let end = ident_end(b, i);
                let word = &src[i..end];
                match b.get(end) {
                    Some(b'"' | b'\'') if is_string_prefix(word) => {
                        (string_end(b, end), Class::String)
                    }
                    _ => match word_class(src, i, end, names) {
                        Some((class, then)) => {
                            naming = then;
                            (end, class)
                        }
                        None => {
                            i = end;
                            continue;
                        }
                    },
                }
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.token(i, end, class);
        i = end;
    }
}

/// The class of the name at `start..end` (`None`: plain), and the class of the name after it.
fn word_class(
    src: &str,
    start: usize,
    end: usize,
    names: Option<Class>,
) -> Option<(Class, Option<Class>)> {
    let word = &src[start..end];
    let attribute = start > 0 && src.as_bytes()[start - 1] == b'.';
    let class = match word {
        "def" => return Some((Class::Keyword, Some(Class::Function))),
        "class" => return Some((Class::Keyword, Some(Class::Type))),
        _ if names.is_some() => return names.map(|c| (c, None)),
        _ if attribute => None,
        "and" | "as" | "assert" | "async" | "await" | "break" | "continue" | "del" | "elif"
        | "else" | "except" | "finally" | "for" | "from" | "global" | "if" | "import" | "in"
        | "is" | "lambda" | "nonlocal" | "not" | "or" | "pass" | "raise" | "return" | "try"
        | "while" | "with" | "yield" => Some(Class::Keyword),
        "True" | "False" | "None" => Some(Class::Literal),
        "print"
        | "len"
        | "range"
        | "enumerate"
        | "zip"
        | "map"
        | "filter"
        | "sum"
        | "min"
        | "max"
        | "abs"
        | "int"
        | "float"
        | "str"
        | "bool"
        | "bytes"
        | "list"
        | "dict"
        | "set"
        | "tuple"
        | "type"
        | "isinstance"
        | "open"
        | "super"
        | "object"
        | "sorted"
        | "reversed"
        | "any"
        | "all"
        | "iter"
        | "next"
        | "repr"
        | "round"
        | "divmod"
        | "pow"
        | "hex"
        | "ord"
        | "chr"
        | "format"
        | "getattr"
        | "setattr"
        | "hasattr"
        | "Exception"
        | "ValueError"
        | "TypeError"
        | "KeyError"
        | "IndexError"
        | "RuntimeError"
        | "NotImplementedError"
        | "StopIteration"
        | "AssertionError" => Some(Class::Builtin),
        _ => None,
    };
    let class = class.or_else(|| {
        let after = super::emit::skip_blanks(src.as_bytes(), end);
        (src.as_bytes().get(after) == Some(&b'(')).then_some(Class::Function)
    })?;
    Some((class, None))
}

/// `r`, `b`, `f`, `u`, `t` and their two-letter mixes (`rb`, `Rf`, …) before a quote.
fn is_string_prefix(word: &str) -> bool {
    (1..=2).contains(&word.len())
        && word
            .bytes()
            .all(|c| matches!(c.to_ascii_lowercase(), b'r' | b'b' | b'f' | b'u' | b't'))
}

/// The end of the string whose opening quote is at `start`, triple-quoted or not.
fn string_end(b: &[u8], start: usize) -> usize {
    let q = b[start];
    if b.get(start + 1) != Some(&q) || b.get(start + 2) != Some(&q) {
        return quoted_end(b, start, q);
    }
    let mut i = start + 3;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
        } else if b[i] == q && b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q) {
            return i + 3;
        } else {
            i += 1;
        }
    }
    b.len()
}
