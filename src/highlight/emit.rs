//! The token classes and the HTML writer the lexers share: escapes text, wraps tokens in
//! `<span class="hl-…">`, and copies the untouched runs between tokens in one go. Also what
//! the lexers read with: the scanning loop (`scan`) and the ends of identifiers, numbers,
//! quoted literals, comments and lines.
use crate::html::escape_into;

/// What a token is; each maps to one CSS class in `static/highlight.css`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Keywords: `for`, `return`, `def`, `if … fi`.
    Keyword,
    /// CUDA execution- and memory-space qualifiers: `__global__`, `__shared__`.
    Qualifier,
    /// Built-in types: `int`, `float4`, `size_t`, `dim3`.
    Type,
    /// Built-in variables and functions: `threadIdx`, `__syncthreads`, `print`, `echo`.
    Builtin,
    /// A called or defined function, or a shell command.
    Function,
    /// String and character literals, `#include <…>` paths, heredoc bodies.
    String,
    /// Numeric literals.
    Number,
    /// `true`, `nullptr`, `None`.
    Literal,
    /// Comments.
    Comment,
    /// Preprocessor directives: `#include`, `#pragma`.
    Preprocessor,
    /// CUDA launch brackets `<<<` and `>>>`.
    Launch,
    /// Shell variables: `$HOME`, `${N}`.
    Variable,
    /// Python decorators.
    Decorator,
    /// Command-line options: `-O3`, `--use_fast_math`.
    Option,
    /// A shell prompt (`$ ` at the start of a line); not selectable, so copying skips it.
    Prompt,
    /// A line of a terminal session's output: plain, and left out when the block is copied.
    Output,
    /// A key of JSON or YAML mappings.
    Key,
    /// Registers and special registers of PTX and SASS: `%r1`, `%tid.x`, `R4`, `P0`.
    Register,
    /// Labels: `$L__BB0_1:`, `.L_x_1:`.
    Label,
}

impl Class {
    /// Every class, for the test that checks the stylesheet covers them all.
    #[cfg(test)]
    pub(crate) const ALL: [Class; 19] = [
        Class::Keyword,
        Class::Qualifier,
        Class::Type,
        Class::Builtin,
        Class::Function,
        Class::String,
        Class::Number,
        Class::Literal,
        Class::Comment,
        Class::Preprocessor,
        Class::Launch,
        Class::Variable,
        Class::Decorator,
        Class::Option,
        Class::Prompt,
        Class::Output,
        Class::Key,
        Class::Register,
        Class::Label,
    ];

    /// The CSS class name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Class::Keyword => "hl-kw",
            Class::Qualifier => "hl-qual",
            Class::Type => "hl-ty",
            Class::Builtin => "hl-bi",
            Class::Function => "hl-fn",
            Class::String => "hl-str",
            Class::Number => "hl-num",
            Class::Literal => "hl-lit",
            Class::Comment => "hl-com",
            Class::Preprocessor => "hl-pp",
            Class::Launch => "hl-launch",
            Class::Variable => "hl-var",
            Class::Decorator => "hl-dec",
            Class::Option => "hl-opt",
            Class::Prompt => "hl-prompt",
            Class::Output => "hl-out",
            Class::Key => "hl-key",
            Class::Register => "hl-reg",
            Class::Label => "hl-label",
        }
    }
}

/// Writes the highlighted HTML of one source text. Lexers report tokens by byte range, in
/// order; whatever lies between tokens is copied escaped. Ranges must fall on char
/// boundaries, which holds because lexers only start and stop tokens at ASCII bytes.
pub(crate) struct Emitter<'a> {
    src: &'a str,
    out: String,
    /// Start of the text not yet written.
    done: usize,
}

impl<'a> Emitter<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        // Tokens and escapes roughly double a block's size.
        Emitter {
            src,
            out: String::with_capacity(src.len() * 2 + 64),
            done: 0,
        }
    }

    /// Wraps `src[start..end]` in a span of `class`, writing any plain text before it.
    pub(crate) fn token(&mut self, start: usize, end: usize, class: Class) {
        if end <= start {
            return;
        }
        self.open(start, class);
        self.close(end);
    }

    /// Opens a span at `start` (for tokens that nest others: shell variables in strings).
    pub(crate) fn open(&mut self, start: usize, class: Class) {
        self.plain_to(start);
        self.out.push_str("<span class=\"");
        self.out.push_str(class.name());
        self.out.push_str("\">");
    }

    /// Closes the innermost open span at `end`.
    pub(crate) fn close(&mut self, end: usize) {
        self.plain_to(end);
        self.out.push_str("</span>");
    }

    /// Writes the rest of the text and returns the HTML.
    pub(crate) fn finish(mut self) -> String {
        self.plain_to(self.src.len());
        self.out
    }

    fn plain_to(&mut self, end: usize) {
        if end > self.done {
            escape_into(&mut self.out, &self.src[self.done..end]);
            self.done = end;
        }
    }
}

/// Where a token read by a lexer step ends, and its class (`None`: plain text).
pub(crate) type Token = (usize, Option<Class>);

/// The loop every token-at-a-time lexer runs, from `start` to the end of `src`: `step(i, out)`
/// reads what begins at `i` and returns where it ends, with the class of the token it is, or
/// `None` for plain text (or for text `step` has already written to `out` itself, as an
/// f-string or a quoted CMake argument with tokens nested in it). A step must move forward.
pub(crate) fn scan<'e>(
    src: &str,
    start: usize,
    out: &mut Emitter<'e>,
    mut step: impl FnMut(usize, &mut Emitter<'e>) -> Token,
) {
    let mut i = start;
    while i < src.len() {
        let (end, class) = step(i, out);
        debug_assert!(end > i, "a lexer step at {i} did not move");
        if let Some(class) = class {
            out.token(i, end, class);
        }
        i = end;
    }
}

/// Identifier characters of all our languages (ASCII only: a non-ASCII byte ends a word on
/// a char boundary, since it is the first byte of its char).
pub(crate) fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The end of the identifier starting at `start`.
pub(crate) fn ident_end(bytes: &[u8], start: usize) -> usize {
    bytes[start..]
        .iter()
        .position(|&b| !is_ident(b))
        .map_or(bytes.len(), |n| start + n)
}

/// The end of a numeric literal (a C "pp-number": digits, letters, `.`, `_`, and a sign
/// right after an exponent letter); `sep` also allows C++14 digit separators (`1'000`).
pub(crate) fn number_end(bytes: &[u8], start: usize, sep: bool) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        let b = bytes[i];
        let prev = bytes[i - 1];
        let ok = is_ident(b)
            || b == b'.'
            || ((b == b'+' || b == b'-') && matches!(prev, b'e' | b'E' | b'p' | b'P'))
            || (sep && b == b'\'' && bytes.get(i + 1).is_some_and(|n| n.is_ascii_alphanumeric()));
        if !ok {
            break;
        }
        i += 1;
    }
    i
}

/// The end of a quoted literal opened at `start` by `quote`: after the closing quote, or at
/// the end of the line when it is left open; a backslash always takes the next byte.
pub(crate) fn quoted_end(bytes: &[u8], start: usize, quote: u8) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            b if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    // A backslash may have stepped into a multi-byte char; end on a boundary instead.
    bytes.len()
}

/// The end of the comment whose `/` is at `start`, a `//` or `/* … */` comment (C, CUDA,
/// PTX, SASS, JSONC): at the end of its line, after its `*/`, or at the end of the text
/// when a `/*` is left open.
pub(crate) fn slash_comment_end(src: &str, start: usize) -> usize {
    if src.as_bytes().get(start + 1) == Some(&b'*') {
        src[start + 2..]
            .find("*/")
            .map_or(src.len(), |n| start + 2 + n + 2)
    } else {
        line_end(src.as_bytes(), start)
    }
}

/// The end of the line holding `start` (the position of its `\n`, or the end of the text).
pub(crate) fn line_end(bytes: &[u8], start: usize) -> usize {
    bytes[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |n| start + n)
}

/// The first position at or after `start` that is not a space or tab.
pub(crate) fn skip_blanks(bytes: &[u8], start: usize) -> usize {
    bytes[start..]
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .map_or(bytes.len(), |n| start + n)
}

/// Steps `i` past one blank byte of `b`, as every lexer does between tokens: `Some(true)`
/// for a newline, `Some(false)` for a space, tab or CR, `None` (not moved) otherwise.
pub(super) fn step_blank(b: &[u8], i: &mut usize) -> Option<bool> {
    let newline = match b[*i] {
        b'\n' => true,
        b' ' | b'\t' | b'\r' => false,
        _ => return None,
    };
    *i += 1;
    Some(newline)
}
