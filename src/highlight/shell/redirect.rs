//! Shell operators, redirections (fd numbers, `>&2`, `&>`) and heredocs (delimiters, and
//! bodies skipped plain after the line that opens them).
use super::{Heredoc, Lexer, ends_word};
use crate::highlight::emit::Class;

impl<'s> Lexer<'s, '_, '_> {
    /// `;`, `;;`, `;&`, `;;&`, `&`, `&&`, `|`, `||`, `|&`: consumed and returned.
    pub(super) fn operator(&mut self) -> &'s str {
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
    pub(super) fn redirection(&mut self, start: usize) -> bool {
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
    pub(super) fn fd_redirection(&mut self) -> Option<bool> {
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

    pub(super) fn heredoc_delimiter(&mut self, strip_tabs: bool) {
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
    pub(super) fn heredoc_bodies(&mut self) {
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
}
