//! The lexer for Python 3: comments, (prefixed, triple-quoted) strings, numbers, decorators,
//! keywords, built-ins, and the names that `def` and `class` introduce. Uses only the shared
//! emitter.
use super::emit::{Class, Emitter, ident_end, is_ident, line_end, number_end, quoted_end, scan};

/// Every name of Python 3.13's `builtins` module (functions, types, exceptions, warnings,
/// constants) and the module attributes every file has; sorted, for binary search.
pub(crate) const BUILTINS: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "Ellipsis",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NotADirectoryError",
    "NotImplemented",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "PythonFinalizationError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
    "__builtins__",
    "__debug__",
    "__doc__",
    "__file__",
    "__import__",
    "__loader__",
    "__name__",
    "__package__",
    "__spec__",
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
];

/// Lexes `src`, reporting tokens to `out`.
pub(crate) fn lex(src: &str, out: &mut Emitter<'_>) {
    lex_range(src, 0, out);
}

/// Lexes `src` from `start` (an f-string field passes the text up to the field's end).
fn lex_range(src: &str, start: usize, out: &mut Emitter<'_>) {
    let b = src.as_bytes();
    let mut line_start = start == 0;
    // Set by `def` and `class`: the class of the name that follows.
    let mut naming: Option<Class> = None;
    scan(src, start, out, |mut i, out| {
        if let Some(newline) = super::emit::step_blank(b, &mut i) {
            line_start |= newline;
            return (i, None);
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
                    Some(b'"' | b'\'')
                        if is_string_prefix(word) && word.contains(['f', 'F', 't', 'T']) =>
                    {
                        return (fstring(src, i, end, out), None);
                    }
                    Some(b'"' | b'\'') if is_string_prefix(word) => {
                        (string_end(b, end), Class::String)
                    }
                    _ => {
                        let Some((class, then)) = word_class(src, i, end, names) else {
                            return (end, None);
                        };
                        naming = then;
                        (end, class)
                    }
                }
            }
            _ => return (i + 1, None),
        };
        (end, Some(class))
    });
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
        _ if BUILTINS.binary_search(&word).is_ok() => Some(Class::Builtin),
        _ => None,
    };
    let class = class.or_else(|| {
        let after = super::emit::skip_blanks(src.as_bytes(), end);
        (src.as_bytes().get(after) == Some(&b'(')).then_some(Class::Function)
    })?;
    Some((class, None))
}

/// An f-string (or t-string) from its prefix at `start`, its quote at `quote`: the literal
/// parts are strings, each `{field}` is lexed as Python, with its `!r` and `:spec` as string.
/// Returns its end.
fn fstring(src: &str, start: usize, quote: usize, out: &mut Emitter<'_>) -> usize {
    let b = src.as_bytes();
    let end = string_end(b, quote);
    let q = b[quote];
    let open_len = if b.get(quote + 1) == Some(&q) && b.get(quote + 2) == Some(&q) {
        3
    } else {
        1
    };
    let closed =
        end >= quote + 2 * open_len && b[end - 1] == q && (open_len == 1 || end >= quote + 6);
    let body_end = if closed { end - open_len } else { end };
    out.open(start, Class::String);
    let mut i = quote + open_len;
    while i < body_end {
        match b[i] {
            b'\\' => i += 2,
            b'{' if b.get(i + 1) == Some(&b'{') => i += 2,
            b'{' => {
                out.close(i);
                let (expr_end, close) = field(b, i + 1, body_end);
                lex_range(&src[..expr_end], i + 1, out);
                out.token(expr_end, close, Class::String);
                i = (close + 1).min(body_end);
                out.open(i, Class::String);
            }
            _ => i += 1,
        }
    }
    out.close(end);
    end
}

/// In a field starting at `start`: where its expression ends (at a top-level `!`, `:` or
/// `}`), and where its closing `}` is (or `limit`).
fn field(b: &[u8], start: usize, limit: usize) -> (usize, usize) {
    let mut depth = 0usize;
    let mut expr_end = None;
    let mut i = start;
    while i < limit {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' if depth > 0 => depth -= 1,
            b'}' if depth > 0 => depth -= 1,
            b'}' => return (expr_end.unwrap_or(i), i),
            b'\'' | b'"' if expr_end.is_none() => {
                let q = b[i];
                i += b[i + 1..limit]
                    .iter()
                    .position(|&c| c == q)
                    .map_or(limit - i, |n| n + 1);
            }
            b'!' if depth == 0 && expr_end.is_none() && b.get(i + 1) != Some(&b'=') => {
                expr_end = Some(i)
            }
            b':' if depth == 0 && expr_end.is_none() => expr_end = Some(i),
            _ => {}
        }
        i += 1;
    }
    (expr_end.unwrap_or(limit).min(limit), limit)
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
