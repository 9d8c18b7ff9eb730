//! The lexer for POSIX shell and bash: prompts, comments, quoting (with variables inside
//! double quotes), variables, keywords, built-ins, command names, options and assignments.
//! Heredoc bodies are left plain. Uses only the shared emitter.
use super::emit::{Class, Emitter, ident_end, is_ident, line_end};

/// Lexes `src`, reporting tokens to `out`.
pub(crate) fn lex(src: &str, out: &mut Emitter<'_>) {
    let b = src.as_bytes();
    let mut i = 0;
    let mut line_start = true;
    // The next word names a command (start of line, after `;`, `|`, `&&`, `then`, …).
    let mut command = true;
    // Counts down to the `in` of `for x in …` / `case x in`.
    let mut until_in = 0u8;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match c {
            b'\n' => {
                line_start = true;
                command = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'\\' if next == Some(b'\n') => {
                i += 2;
                continue;
            }
            _ => {}
        }
        let at_line_start = std::mem::replace(&mut line_start, false);
        let (end, class) = match c {
            b'$' if at_line_start && next == Some(b' ') => (i + 2, Some(Class::Prompt)),
            b'#' => (line_end(b, i), Some(Class::Comment)),
            b'\'' => {
                let end = src[i + 1..].find('\'').map_or(b.len(), |n| i + n + 2);
                command = false;
                until_in = until_in.saturating_sub(1);
                (end, Some(Class::String))
            }
            b'"' => {
                i = double_quoted(src, i, out);
                command = false;
                until_in = until_in.saturating_sub(1);
                continue;
            }
            b'$' => {
                until_in = until_in.saturating_sub(1);
                (variable_end(b, i).unwrap_or(i + 1), Some(Class::Variable))
            }
            b';' | b'|' | b'&' | b'(' | b'`' => {
                command = true;
                (i + 1, None)
            }
            b')' | b'<' | b'>' => (i + 1, None),
            _ => {
                let end = word_end(b, i);
                let word = &src[i..end];
                let at_in = until_in == 1;
                until_in = until_in.saturating_sub(1);
                // `N=4 cmd`, `export N=4`, `make CC=gcc`: a command may still follow.
                if let Some(eq) = assignment(word) {
                    out.token(i, i + eq, Class::Variable);
                    i = end;
                    continue;
                }
                if command {
                    let (class, stays) = command_word(word);
                    command = stays;
                    if matches!(word, "for" | "select" | "case") {
                        until_in = 2;
                    }
                    (end, Some(class))
                } else if word == "in" && at_in {
                    (end, Some(Class::Keyword))
                } else if word.starts_with('-') {
                    (end, Some(Class::Option))
                } else if word.bytes().all(|c| c.is_ascii_digit()) {
                    (end, Some(Class::Number))
                } else {
                    (end, None)
                }
            }
        };
        if let Some(class) = class {
            out.token(i, end, class);
        }
        i = end;
    }
}

/// The class of a word in command position, and whether the word after it names a command
/// too (`if`, `then`, `do`, `!` lead into a command; `fi`, `done` and commands do not).
fn command_word(word: &str) -> (Class, bool) {
    match word {
        "if" | "then" | "else" | "elif" | "while" | "until" | "do" | "time" | "!" => {
            (Class::Keyword, true)
        }
        "fi" | "done" | "esac" | "for" | "select" | "case" | "function" | "in" => {
            (Class::Keyword, false)
        }
        "echo" | "cd" | "export" | "source" | "." | "alias" | "unset" | "set" | "read"
        | "printf" | "exit" | "return" | "shift" | "test" | "[" | "[[" | "eval" | "exec"
        | "local" | "declare" | "pwd" | "pushd" | "popd" | "wait" | "trap" | "kill" | "true"
        | "false" | "type" | "command" => (Class::Builtin, false),
        _ => (Class::Function, false),
    }
}

/// In `NAME=value`, the length of `NAME`.
fn assignment(word: &str) -> Option<usize> {
    let eq = word.find('=')?;
    let name = &word.as_bytes()[..eq];
    (eq > 0 && !name[0].is_ascii_digit() && name.iter().all(|&c| is_ident(c))).then_some(eq)
}

/// The end of an unquoted word: stops at blanks, operators, quotes and `$`.
fn word_end(b: &[u8], start: usize) -> usize {
    b[start + 1..]
        .iter()
        .position(|&c| {
            matches!(
                c,
                b' ' | b'\t'
                    | b'\r'
                    | b'\n'
                    | b';'
                    | b'|'
                    | b'&'
                    | b'('
                    | b')'
                    | b'<'
                    | b'>'
                    | b'"'
                    | b'\''
                    | b'`'
                    | b'$'
            )
        })
        .map_or(b.len(), |n| start + 1 + n)
}

/// The end of the variable whose `$` is at `start`: `$NAME`, `${…}`, `$1`, `$?`; `None` for
/// a lone `$` or a command substitution `$(`.
fn variable_end(b: &[u8], start: usize) -> Option<usize> {
    match *b.get(start + 1)? {
        b'{' => {
            let stop = line_end(b, start);
            Some(
                b[start..stop]
                    .iter()
                    .position(|&c| c == b'}')
                    .map_or(stop, |n| start + n + 1),
            )
        }
        c if c.is_ascii_alphabetic() || c == b'_' => Some(ident_end(b, start + 1)),
        b'0'..=b'9' | b'?' | b'@' | b'#' | b'$' | b'!' | b'*' | b'-' => Some(start + 2),
        _ => None,
    }
}

/// Lexes the double-quoted string opening at `start`, variables nested inside its span;
/// returns its end.
fn double_quoted(src: &str, start: usize, out: &mut Emitter<'_>) -> usize {
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
            b'$' => match variable_end(b, i) {
                Some(end) => {
                    out.token(i, end, Class::Variable);
                    i = end;
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    // A trailing backslash may step past the end; a backslash before a multi-byte char
    // lands inside it, but the scan goes on to a quote or the end, both boundaries.
    let end = i.min(b.len());
    out.close(end);
    end
}
