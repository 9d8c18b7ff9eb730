//! The lexer for POSIX shell and bash, with the state a shell keeps: quoting (single, double,
//! ANSI-C `$'…'`, backslash escapes outside quotes), heredocs (bodies plain, `<<-` and quoted
//! delimiters), nested `$( … )`, `$(( … ))`, `${ … }` and backticks, `case` patterns,
//! redirections with fd numbers, `x+=( … )` arrays and `{ … }` groups. `lex_command` lexes one
//! command of a terminal session for `console`. Uses only the shared emitter.
use super::emit::{Class, Emitter, ident_end, is_ident};

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
        let mut command = true; // the next word names a command
        let mut pending_in = 0u8; // counts down to the `in` of `for x in` / `case w in`
        let mut case_in = false; // that `in` opens a case's patterns
        let mut naming = false; // after `function`: the next word is its name
        let mut redirect = false; // the next word is a redirection's target
        let mut cases: Vec<Case> = Vec::new();
        let mut depth = 0usize; // subshell parentheses inside a `$( … )`
        while let Some(c) = self.at(0) {
            match c {
                b'\n' => {
                    self.i += 1;
                    self.heredoc_bodies();
                    command = true;
                    if self.one_line && end == End::Eof && cases.is_empty() {
                        return;
                    }
                    continue;
                }
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\\' if self.at(1) == Some(b'\n') => self.i += 2,
                b'#' => self.comment(),
                b'`' if end == End::Backtick => {
                    self.i += 1;
                    return;
                }
                b')' if end == End::Paren
                    && depth == 0
                    && cases.last() != Some(&Case::Patterns) =>
                {
                    self.i += 1;
                    return;
                }
                b')' => {
                    self.i += 1;
                    if cases.last() == Some(&Case::Patterns) {
                        *cases.last_mut().expect("a case") = Case::Body;
                        command = true;
                    } else {
                        depth = depth.saturating_sub(1);
                    }
                }
                b'(' if self.rest().starts_with("((") && command => {
                    self.arithmetic(2);
                    command = false;
                }
                b'(' => {
                    self.i += 1;
                    if cases.last() != Some(&Case::Patterns) {
                        depth += 1;
                        command = true;
                    }
                }
                b'&' if self.rest().starts_with("&>") => redirect = self.redirection(self.i),
                b';' | b'&' | b'|' => {
                    let op = self.operator();
                    if let Some(case @ Case::Body) = cases.last_mut()
                        && (op.starts_with(";;") || op == ";&")
                    {
                        *case = Case::Patterns;
                    }
                    command = !(op == "|" && cases.last() == Some(&Case::Patterns));
                }
                b'<' | b'>' => redirect = self.redirection(self.i),
                _ => {
                    if c.is_ascii_digit()
                        && let Some(target) = self.fd_redirection()
                    {
                        redirect = target;
                        continue;
                    }
                    let start = self.i;
                    let simple = self.simple_word_end();
                    let word = &self.src[start..simple];
                    let plain_word =
                        simple > start && self.b.get(simple).is_none_or(|&c| ends_word(c));
                    let at_in = pending_in == 1;
                    pending_in = pending_in.saturating_sub(1);
                    if cases.last() == Some(&Case::Patterns) {
                        if plain_word && word == "esac" {
                            self.out.token(start, simple, Class::Keyword);
                            self.i = simple;
                            cases.pop();
                            command = false;
                        } else {
                            self.word_pieces();
                        }
                        continue;
                    }
                    if redirect {
                        redirect = false;
                        self.word_pieces();
                        continue;
                    }
                    if plain_word && at_in && word == "in" {
                        self.out.token(start, simple, Class::Keyword);
                        self.i = simple;
                        if std::mem::take(&mut case_in)
                            && let Some(case) = cases.last_mut()
                        {
                            *case = Case::Patterns;
                        }
                        continue;
                    }
                    if let Some(name) = assignment(self.rest()) {
                        self.out.token(start, start + name, Class::Variable);
                        self.i = start + self.rest().find('=').map_or(name, |e| e + 1);
                        if self.at(0) == Some(b'(') {
                            self.array();
                        } else {
                            self.word_pieces();
                        }
                        continue;
                    }
                    if naming {
                        naming = false;
                        self.word_pieces_as(Some(Class::Function));
                        command = false;
                        continue;
                    }
                    if !command {
                        self.argument(plain_word.then_some(word));
                        continue;
                    }
                    if !plain_word {
                        self.word_pieces_as(Some(Class::Function));
                        command = false;
                        continue;
                    }
                    let (class, stays) = command_word(word);
                    self.out.token(start, simple, class);
                    self.i = simple;
                    command = stays;
                    match word {
                        "for" | "select" => pending_in = 2,
                        "case" => {
                            pending_in = 2;
                            case_in = true;
                            cases.push(Case::Body);
                        }
                        "esac" => {
                            cases.pop();
                        }
                        "function" => naming = true,
                        _ => {}
                    }
                }
            }
        }
    }

    /// `;`, `;;`, `;&`, `;;&`, `&`, `&&`, `|`, `||`, `|&`: consumed and returned.
    fn operator(&mut self) -> &'s str {
        let rest = self.rest();
        let len = [";;&", ";;", ";&", "&&", "||", "|&"]
            .iter()
            .find(|op| rest.starts_with(**op))
            .map_or(1, |op| op.len());
        self.i += len;
        &rest[..len]
    }

    /// A redirection operator at `start` (after any fd number): `<`, `>`, `>>`, `>&`, `<&`,
    /// `&>`, `&>>`, `<>`, `>|`, `<<<`; `<<` and `<<-` read a heredoc delimiter. Returns whether
    /// a target word follows.
    fn redirection(&mut self, start: usize) -> bool {
        let rest = &self.src[start..];
        if rest.starts_with("<<<") {
            self.i = start + 3;
            return true;
        }
        if let Some(after) = rest.strip_prefix("<<") {
            let strip_tabs = after.starts_with('-');
            self.i = start + 2 + usize::from(strip_tabs);
            self.heredoc_delimiter(strip_tabs);
            return false;
        }
        let len = ["&>>", "&>", ">>", ">&", "<&", "<>", ">|"]
            .iter()
            .find(|op| rest.starts_with(**op))
            .map_or(1, |op| op.len());
        self.i = start + len;
        // `>&2`, `2>&1`, `<&-`: the target is a descriptor.
        if rest[..len].ends_with('&') {
            let n = self.b[self.i..]
                .iter()
                .take_while(|c| c.is_ascii_digit() || **c == b'-')
                .count();
            if n > 0 {
                self.out.token(self.i, self.i + n, Class::Number);
                self.i += n;
                return false;
            }
        }
        true
    }

    /// Digits right before `<` or `>` (`2>&1`) are a file descriptor, not a command.
    /// Returns whether a target word follows, or `None` when these digits are a word.
    fn fd_redirection(&mut self) -> Option<bool> {
        let n = self.b[self.i..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if !matches!(self.at(n), Some(b'<' | b'>')) {
            return None;
        }
        self.out.token(self.i, self.i + n, Class::Number);
        let op = self.i + n;
        Some(self.redirection(op))
    }

    fn heredoc_delimiter(&mut self, strip_tabs: bool) {
        while matches!(self.at(0), Some(b' ' | b'\t')) {
            self.i += 1;
        }
        let start = self.i;
        let mut delim = String::new();
        while let Some(c) = self.at(0) {
            match c {
                b'\'' | b'"' => {
                    let (inner, close) = match self.rest()[1..].find(c as char) {
                        Some(n) => (self.i + 1 + n, self.i + 2 + n),
                        None => (self.b.len(), self.b.len()),
                    };
                    delim.push_str(&self.src[self.i + 1..inner]);
                    self.i = close;
                }
                b'\\' => {
                    let n = self.char_len(self.i + 1).min(self.b.len() - self.i - 1);
                    delim.push_str(&self.src[self.i + 1..self.i + 1 + n]);
                    self.i += 1 + n;
                }
                c if ends_word(c) => break,
                _ => {
                    let n = self.char_len(self.i);
                    delim.push_str(&self.src[self.i..self.i + n]);
                    self.i += n;
                }
            }
        }
        self.out.token(start, self.i, Class::String);
        if !delim.is_empty() {
            self.heredocs.push(Heredoc { delim, strip_tabs });
        }
    }

    /// After a newline: skips the bodies of pending heredocs (left plain) and their
    /// delimiter lines.
    fn heredoc_bodies(&mut self) {
        for doc in std::mem::take(&mut self.heredocs) {
            while self.i < self.b.len() {
                let end = self
                    .rest()
                    .find('\n')
                    .map_or(self.b.len(), |n| self.i + n + 1);
                let line = self.src[self.i..end].trim_end_matches(['\n', '\r']);
                let line = if doc.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                self.i = end;
                if line == doc.delim {
                    break;
                }
            }
        }
    }

    fn comment(&mut self) {
        let end = self.rest().find('\n').map_or(self.b.len(), |n| self.i + n);
        self.out.token(self.i, end, Class::Comment);
        self.i = end;
    }

    /// The end of the run of plain unquoted characters from here.
    fn simple_word_end(&self) -> usize {
        self.b[self.i..]
            .iter()
            .position(|&c| ends_word(c) || matches!(c, b'\'' | b'"' | b'`' | b'$' | b'\\'))
            .map_or(self.b.len(), |n| self.i + n)
    }

    /// An argument: options and numbers coloured when the word is plain.
    fn argument(&mut self, plain: Option<&str>) {
        let start = self.i;
        match plain {
            Some(w) if w.starts_with('-') && w.len() > 1 => {
                self.i += w.len();
                self.out.token(start, self.i, Class::Option);
            }
            Some(w) if w.bytes().all(|c| c.is_ascii_digit()) => {
                self.i += w.len();
                self.out.token(start, self.i, Class::Number);
            }
            _ => self.word_pieces(),
        }
    }

    fn word_pieces(&mut self) {
        self.word_pieces_as(None);
    }

    /// Lexes one word made of plain runs (in `plain`'s class), escapes, quotes and expansions.
    fn word_pieces_as(&mut self, plain: Option<Class>) {
        while let Some(c) = self.at(0) {
            match c {
                b'\\' => self.i += 1 + self.char_len(self.i + 1).min(self.b.len() - self.i - 1),
                b'\'' => {
                    let end = self.rest()[1..]
                        .find('\'')
                        .map_or(self.b.len(), |n| self.i + n + 2);
                    self.out.token(self.i, end, Class::String);
                    self.i = end;
                }
                b'"' => self.double_quoted(),
                b'`' => {
                    self.i += 1;
                    self.commands(End::Backtick);
                }
                b'$' => self.dollar(),
                c if ends_word(c) => break,
                _ => {
                    let start = self.i;
                    self.i = self.simple_word_end().max(self.i + 1);
                    if let Some(class) = plain {
                        self.out.token(start, self.i, class);
                    }
                }
            }
        }
    }

    /// `"…"`: a string span with expansions nested inside.
    fn double_quoted(&mut self) {
        self.out.open(self.i, Class::String);
        self.i += 1;
        while let Some(c) = self.at(0) {
            match c {
                b'\\' => self.i += 1 + self.char_len(self.i + 1).min(self.b.len() - self.i - 1),
                b'"' => {
                    self.i += 1;
                    break;
                }
                b'$' => self.dollar(),
                b'`' => {
                    self.i += 1;
                    self.commands(End::Backtick);
                }
                _ => self.i += self.char_len(self.i),
            }
        }
        self.i = self.i.min(self.b.len());
        self.out.close(self.i);
    }

    /// `$NAME`, `$1`, `$?`, `${…}`, `$(…)`, `$((…))`, `$'…'`; a lone `$` stays plain.
    fn dollar(&mut self) {
        let start = self.i;
        match self.at(1) {
            Some(b'(') if self.rest().starts_with("$((") => self.arithmetic(3),
            Some(b'(') => {
                self.i += 2;
                self.commands(End::Paren);
            }
            Some(b'{') => {
                let mut depth = 0;
                let mut i = self.i + 1;
                while i < self.b.len() {
                    match self.b[i] {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        b'\\' => i += 1,
                        b'\n' => break,
                        _ => {}
                    }
                    i += 1;
                }
                self.i = i.min(self.b.len());
                while !self.src.is_char_boundary(self.i) {
                    self.i += 1;
                }
                self.out.token(start, self.i, Class::Variable);
            }
            Some(b'\'') => {
                let mut i = self.i + 2;
                while i < self.b.len() && self.b[i] != b'\'' {
                    i += if self.b[i] == b'\\' {
                        1 + self.char_len((i + 1).min(self.b.len() - 1))
                    } else {
                        1
                    };
                }
                self.i = (i + 1).min(self.b.len());
                self.out.token(start, self.i, Class::String);
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                self.i = ident_end(self.b, self.i + 1);
                self.out.token(start, self.i, Class::Variable);
            }
            Some(b'0'..=b'9' | b'?' | b'@' | b'#' | b'$' | b'!' | b'*' | b'-') => {
                self.i += 2;
                self.out.token(start, self.i, Class::Variable);
            }
            _ => self.i += 1,
        }
    }

    /// `((…))` or `$((…))` (opener of `open` bytes): names and `$` variables coloured as
    /// variables, digits as numbers.
    fn arithmetic(&mut self, open: usize) {
        self.i += open;
        let mut depth = 0usize;
        while let Some(c) = self.at(0) {
            match c {
                b'(' => depth += 1,
                b')' if depth == 0 => {
                    self.i += if self.at(1) == Some(b')') { 2 } else { 1 };
                    return;
                }
                b')' => depth -= 1,
                b'$' => {
                    self.dollar();
                    continue;
                }
                b'0'..=b'9' => {
                    let end = ident_end(self.b, self.i);
                    self.out.token(self.i, end, Class::Number);
                    self.i = end;
                    continue;
                }
                c if is_ident(c) => {
                    let end = ident_end(self.b, self.i);
                    self.out.token(self.i, end, Class::Variable);
                    self.i = end;
                    continue;
                }
                _ => {}
            }
            self.i += self.char_len(self.i);
        }
    }

    /// `x=( a b )` and `x+=( … )`: words up to `)`, none of them a command.
    fn array(&mut self) {
        self.i += 1;
        while let Some(c) = self.at(0) {
            match c {
                b')' => {
                    self.i += 1;
                    return;
                }
                b' ' | b'\t' | b'\r' | b'\n' => self.i += 1,
                b'#' => self.comment(),
                c if ends_word(c) => self.i += 1,
                _ => self.word_pieces(),
            }
        }
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

#[cfg(test)]
mod tests;
