//! The lexer for POSIX shell and bash, with the state a shell keeps: quoting (single,
//! double, ANSI-C `$'…'`, backslash escapes outside quotes), heredocs (bodies plain, `<<-`
//! and quoted delimiters), nested `$( … )`, `$(( … ))`, `${ … }` and backticks, `case`
//! patterns, redirections with fd numbers, `x+=( … )` arrays and `{ … }` groups.
//! `lex_command` lexes one command of a terminal session for `console`.
use super::emit::{Class, Emitter, ident_end};

mod redirect;
mod words;

/// Lexes a script, reporting tokens to `out`.
pub(crate) fn lex(src: &str, out: &mut Emitter<'_>) {
    let mut lx = Lexer::new(src, 0, out);
    lx.commands(End::Eof);
}

/// Lexes the command starting at `start` up to the newline that ends it (continuation lines
/// and heredoc bodies included); returns the position after that newline.
pub(crate) fn lex_command(src: &str, start: usize, out: &mut Emitter<'_>) -> usize {
    let mut lx = Lexer::new(src, start, out);
    lx.one_line = true;
    lx.commands(End::Eof);
    lx.i
}

/// What closes the command list being lexed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Eof,
    /// `)` of `$( … )`.
    Paren,
    /// The closing backtick.
    Backtick,
}

struct Heredoc {
    delim: String,
    strip_tabs: bool,
}

/// Where a `case` is: reading patterns (up to `)`) or the commands of a branch.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Case {
    Patterns,
    Body,
}

struct Lexer<'s, 'o, 'e> {
    src: &'s str,
    b: &'s [u8],
    i: usize,
    out: &'o mut Emitter<'e>,
    heredocs: Vec<Heredoc>,
    /// Stop after the first command line (console sessions).
    one_line: bool,
}

/// Bytes that end an unquoted word.
fn ends_word(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\r' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')'
    )
}

/// The state of one command list (a script, or the inside of `$( … )` or backticks).
#[derive(Default)]
struct List {
    /// The next word names a command.
    command: bool,
    /// Counts down to the `in` of `for x in` / `case w in`.
    pending_in: u8,
    /// That `in` opens a case's patterns.
    case_in: bool,
    /// After `function`: the next word is its name.
    naming: bool,
    /// The next word is a redirection's target.
    redirect: bool,
    /// Open `case`s, innermost last.
    cases: Vec<Case>,
    /// Subshell parentheses open inside a `$( … )`.
    depth: usize,
}

impl List {
    fn in_patterns(&self) -> bool {
        self.cases.last() == Some(&Case::Patterns)
    }

    fn set_case(&mut self, to: Case) {
        if let Some(case) = self.cases.last_mut() {
            *case = to;
        }
    }
}

impl<'s, 'o, 'e> Lexer<'s, 'o, 'e> {
    fn new(src: &'s str, start: usize, out: &'o mut Emitter<'e>) -> Self {
        Lexer {
            src,
            b: src.as_bytes(),
            i: start,
            out,
            heredocs: Vec::new(),
            one_line: false,
        }
    }

    fn at(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }

    fn rest(&self) -> &'s str {
        &self.src[self.i..]
    }

    /// Steps over one char (a backslash escape may precede a multi-byte one).
    fn char_len(&self, at: usize) -> usize {
        self.src[at..].chars().next().map_or(1, char::len_utf8)
    }

    /// Lexes commands until `end` (consumed) or the end of the text.
    fn commands(&mut self, end: End) {
        let mut st = List {
            command: true,
            ..List::default()
        };
        while let Some(c) = self.at(0) {
            match c {
                b'\n' => {
                    self.i += 1;
                    self.heredoc_bodies();
                    st.command = true;
                    if self.one_line && end == End::Eof && st.cases.is_empty() {
                        return;
                    }
                }
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\\' if self.at(1) == Some(b'\n') => self.i += 2,
                b'#' => self.comment(),
                b'`' if end == End::Backtick => {
                    self.i += 1;
                    return;
                }
                b')' if end == End::Paren && st.depth == 0 && !st.in_patterns() => {
                    self.i += 1;
                    return;
                }
                b')' => {
                    self.i += 1;
                    if st.in_patterns() {
                        st.set_case(Case::Body);
                        st.command = true;
                    } else {
                        st.depth = st.depth.saturating_sub(1);
                    }
                }
                b'(' if self.rest().starts_with("((") && st.command => {
                    self.arithmetic(2);
                    st.command = false;
                }
                b'(' => {
                    self.i += 1;
                    if !st.in_patterns() {
                        st.depth += 1;
                        st.command = true;
                    }
                }
                b'&' if self.rest().starts_with("&>") => st.redirect = self.redirection(self.i),
                b';' | b'&' | b'|' => {
                    let op = self.operator();
                    if st.cases.last() == Some(&Case::Body) && (op.starts_with(";;") || op == ";&")
                    {
                        st.set_case(Case::Patterns);
                    }
                    st.command = !(op == "|" && st.in_patterns());
                }
                b'<' | b'>' => st.redirect = self.redirection(self.i),
                _ => self.word(&mut st),
            }
        }
    }

    /// One word of a command list: a case pattern, a redirection target, the `in` of
    /// `for`/`case`, an assignment, a function's name, an argument or a command.
    fn word(&mut self, st: &mut List) {
        if self.at(0).is_some_and(|c| c.is_ascii_digit())
            && let Some(target) = self.fd_redirection()
        {
            st.redirect = target;
            return;
        }
        let start = self.i;
        let simple = self.simple_word_end();
        let word = &self.src[start..simple];
        let plain_word = simple > start && self.b.get(simple).is_none_or(|&c| ends_word(c));
        let at_in = st.pending_in == 1;
        st.pending_in = st.pending_in.saturating_sub(1);
        if st.in_patterns() {
            if plain_word && word == "esac" {
                self.keyword(start, simple);
                st.cases.pop();
                st.command = false;
            } else {
                self.word_pieces();
            }
        } else if std::mem::take(&mut st.redirect) {
            self.word_pieces();
        } else if plain_word && at_in && word == "in" {
            self.keyword(start, simple);
            if std::mem::take(&mut st.case_in) {
                st.set_case(Case::Patterns);
            }
        } else if let Some(name) = assignment(self.rest()) {
            self.out.token(start, start + name, Class::Variable);
            self.i = start + self.rest().find('=').map_or(name, |e| e + 1);
            if self.at(0) == Some(b'(') {
                self.array();
            } else {
                self.word_pieces();
            }
        } else if std::mem::take(&mut st.naming) || (st.command && !plain_word) {
            self.word_pieces_as(Some(Class::Function));
            st.command = false;
        } else if !st.command {
            self.argument(plain_word.then_some(word));
        } else {
            let (class, stays) = command_word(word);
            self.out.token(start, simple, class);
            self.i = simple;
            st.command = stays;
            match word {
                "for" | "select" => st.pending_in = 2,
                "case" => {
                    st.pending_in = 2;
                    st.case_in = true;
                    st.cases.push(Case::Body);
                }
                "esac" => {
                    st.cases.pop();
                }
                "function" => st.naming = true,
                _ => {}
            }
        }
    }

    fn keyword(&mut self, start: usize, end: usize) {
        self.out.token(start, end, Class::Keyword);
        self.i = end;
    }
}

/// In `NAME=…`, `NAME+=…` or `NAME[i]=…`, the length of `NAME`.
fn assignment(rest: &str) -> Option<usize> {
    let b = rest.as_bytes();
    let name = ident_end(b, 0);
    if name == 0 || b[0].is_ascii_digit() {
        return None;
    }
    let mut k = name;
    if b.get(k) == Some(&b'[') {
        k += rest[k..].find(']')? + 1;
    }
    if b.get(k) == Some(&b'+') {
        k += 1;
    }
    (b.get(k) == Some(&b'=')).then_some(name)
}

/// The class of a word in command position, and whether the word after it names a command
/// too (`if`, `then`, `do`, `{`, `!` lead into a command; `fi`, `done` and commands do not).
fn command_word(word: &str) -> (Class, bool) {
    match word {
        "if" | "then" | "else" | "elif" | "while" | "until" | "do" | "time" | "!" | "{" => {
            (Class::Keyword, true)
        }
        "fi" | "done" | "esac" | "for" | "select" | "case" | "function" | "in" | "}" | "]]" => {
            (Class::Keyword, false)
        }
        "alias" | "bg" | "bind" | "break" | "builtin" | "caller" | "cd" | "command" | "compgen"
        | "complete" | "continue" | "declare" | "dirs" | "disown" | "echo" | "enable" | "eval"
        | "exec" | "exit" | "export" | "false" | "fc" | "fg" | "getopts" | "hash" | "help"
        | "history" | "jobs" | "kill" | "let" | "local" | "logout" | "mapfile" | "popd"
        | "printf" | "pushd" | "pwd" | "read" | "readarray" | "readonly" | "return" | "set"
        | "shift" | "shopt" | "source" | "suspend" | "test" | "times" | "trap" | "true"
        | "type" | "typeset" | "ulimit" | "umask" | "unalias" | "unset" | "wait" | "." | ":"
        | "[" | "[[" => (Class::Builtin, false),
        _ => (Class::Function, false),
    }
}
