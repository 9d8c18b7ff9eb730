//! Words: plain runs, escapes, single, double and ANSI-C quotes, and the expansions
//! `$NAME`, `${ … }`, `$( … )`, `$(( … ))` and backticks, with arrays `x=( … )`.
use super::{End, Lexer, ends_word};
use crate::highlight::emit::{Class, ident_end, is_ident};

impl Lexer<'_, '_, '_> {
    pub(super) fn comment(&mut self) {
        let end = self.rest().find('\n').map_or(self.b.len(), |n| self.i + n);
        self.out.token(self.i, end, Class::Comment);
        self.i = end;
    }

    /// The end of the run of plain unquoted characters from here.
    pub(super) fn simple_word_end(&self) -> usize {
        self.b[self.i..]
            .iter()
            .position(|&c| ends_word(c) || matches!(c, b'\'' | b'"' | b'`' | b'$' | b'\\'))
            .map_or(self.b.len(), |n| self.i + n)
    }

    /// An argument: options and numbers coloured when the word is plain.
    pub(super) fn argument(&mut self, plain: Option<&str>) {
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

    pub(super) fn word_pieces(&mut self) {
        self.word_pieces_as(None);
    }

    /// Lexes one word made of plain runs (in `plain`'s class), escapes, quotes and expansions.
    pub(super) fn word_pieces_as(&mut self, plain: Option<Class>) {
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
    pub(super) fn double_quoted(&mut self) {
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
    pub(super) fn dollar(&mut self) {
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
    pub(super) fn arithmetic(&mut self, open: usize) {
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
    pub(super) fn array(&mut self) {
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
