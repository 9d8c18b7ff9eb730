//! The lexer for terminal sessions (`console`, `shell-session`): a line starting with `$ `
//! or `# ` is a command, lexed as shell after its prompt (which is not selectable); other
//! lines are output, left plain. A command's continuation lines and heredoc bodies belong
//! to it, so a `$ ` inside a heredoc is never a prompt. Uses the shell lexer and the emitter.
use super::emit::{Class, Emitter};
use super::shell;

/// Lexes `src`, reporting tokens to `out`.
pub(crate) fn lex(src: &str, out: &mut Emitter<'_>) {
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let prompt = match (b[i], b.get(i + 1)) {
            (b'$' | b'#', Some(b' ')) => Some(2),
            (b'$' | b'#', Some(b'\n') | None) => Some(1),
            _ => None,
        };
        if let Some(n) = prompt {
            out.token(i, i + n, Class::Prompt);
            i = shell::lex_command(src, i + n, out);
        } else {
            let end = src[i..].find('\n').map_or(b.len(), |n| i + n + 1);
            // The newline stays inside the span, so copying commands only drops whole lines.
            out.token(i, end, Class::Output);
            i = end;
        }
    }
}
