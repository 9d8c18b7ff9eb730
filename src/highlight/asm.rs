//! The lexers for GPU assembly: PTX (directives, types, opcodes with their modifiers,
//! registers, predicates, labels, numbers) and SASS as `cuobjdump`/`nvdisasm` print it
//! (opcodes, registers, predicates, labels, addresses and encodings as comments). Uses only
//! the shared emitter.
use super::emit::{
    Class, Emitter, Token, ident_end, is_ident, number_end, quoted_end, scan, skip_blanks,
    slash_comment_end,
};

/// PTX's special registers (`%tid.x` and friends).
const PTX_SPECIAL: &[&str] = &[
    "tid",
    "ntid",
    "laneid",
    "warpid",
    "nwarpid",
    "ctaid",
    "nctaid",
    "smid",
    "nsmid",
    "gridid",
    "clock",
    "clock64",
    "clock_hi",
    "globaltimer",
    "globaltimer_lo",
    "globaltimer_hi",
    "lanemask_eq",
    "lanemask_le",
    "lanemask_lt",
    "lanemask_ge",
    "lanemask_gt",
    "pm0",
    "pm1",
    "pm2",
    "pm3",
    "dynamic_smem_size",
    "total_smem_size",
    "envreg0",
    "clusterid",
    "nclusterid",
    "cluster_ctaid",
    "cluster_nctaid",
    "cluster_ctarank",
    "cluster_nctarank",
    "is_explicit_cluster",
    "aggr_smem_size",
    "reserved_smem_offset_begin",
];

/// PTX's fundamental types, as directive-like words (`.u32`).
fn ptx_type(word: &str) -> bool {
    matches!(
        word,
        "b8" | "b16"
            | "b32"
            | "b64"
            | "b128"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "s8"
            | "s16"
            | "s32"
            | "s64"
            | "f16"
            | "f16x2"
            | "f32"
            | "f64"
            | "bf16"
            | "bf16x2"
            | "tf32"
            | "e4m3"
            | "e5m2"
            | "pred"
            | "v2"
            | "v4"
            | "v8"
    )
}

/// The end of `name(.part)*`: an opcode with its modifiers, or a register with a component.
fn dotted_end(b: &[u8], start: usize) -> usize {
    let mut end = ident_end(b, start);
    while b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(|&c| is_ident(c)) {
        end = ident_end(b, end + 1);
    }
    end
}

/// Lexes PTX.
pub(crate) fn lex_ptx(src: &str, out: &mut Emitter<'_>) {
    lex(src, out, ptx_word);
}

/// What PTX and SASS share: a statement ends at a newline, `;`, `{` or `}` (the next word
/// is an opcode, a directive or a label), comments are C's, and strings, `@` guards and
/// numbers read alike. `word` reads the rest (directives, registers, labels, opcodes), and
/// clears `statement` once it has read the statement's opcode.
fn lex(src: &str, out: &mut Emitter<'_>, word: impl Fn(&str, usize, &mut bool) -> Token) {
    let b = src.as_bytes();
    let mut statement = true;
    scan(src, 0, out, |i, _| match b[i] {
        b'\n' | b';' | b'{' | b'}' => {
            statement = true;
            (i + 1, None)
        }
        b'/' if matches!(b.get(i + 1), Some(b'/' | b'*')) => {
            (slash_comment_end(src, i), Some(Class::Comment))
        }
        b'"' => (quoted_end(b, i, b'"'), Some(Class::String)),
        // A guard, `@%p1` or `@!%p1`: the opcode follows it.
        b'@' => (i + 1, None),
        b'0'..=b'9' => (number_end(b, i, false), Some(Class::Number)),
        _ => word(src, i, &mut statement),
    });
}

/// A PTX word at `i`: a directive or type (`.global`, `.u32`), a register (`%r1`, `%tid.x`),
/// a label, or the statement's opcode with its modifiers.
fn ptx_word(src: &str, i: usize, statement: &mut bool) -> Token {
    let b = src.as_bytes();
    let next = b.get(i + 1).copied();
    match b[i] {
        b'.' if next.is_some_and(|n| n.is_ascii_alphabetic()) => {
            let end = ident_end(b, i + 1);
            let class = if ptx_type(&src[i + 1..end]) {
                Class::Type
            } else {
                Class::Keyword
            };
            *statement = false;
            (end, Some(class))
        }
        b'%' if next.is_some_and(is_ident) => {
            let name_end = ident_end(b, i + 1);
            if PTX_SPECIAL.contains(&&src[i + 1..name_end]) {
                (dotted_end(b, i + 1), Some(Class::Builtin))
            } else {
                (name_end, Some(Class::Register))
            }
        }
        c if is_ident(c) || c == b'$' => {
            let end = ident_end(b, i + 1);
            let label = b.get(end) == Some(&b':');
            if (*statement && label) || c == b'$' {
                (end, Some(Class::Label))
            } else if *statement {
                *statement = false;
                (dotted_end(b, i), Some(Class::Function))
            } else {
                (end, None)
            }
        }
        _ => (i + 1, None),
    }
}

/// A SASS register: `R12`, `RZ`, `P0`, `PT`, `UR4`, `URZ`, `UP0`, `UPT`, `B1`.
fn sass_register(word: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    matches!(word, "RZ" | "PT" | "URZ" | "UPT" | "SRZ")
        || ["UR", "UP", "R", "P", "B"]
            .iter()
            .any(|p| word.strip_prefix(p).is_some_and(digits))
}

/// Lexes SASS.
pub(crate) fn lex_sass(src: &str, out: &mut Emitter<'_>) {
    lex(src, out, sass_word);
}

/// A SASS word at `i`: a label (`.L_x_1:`) or a reference to one, a directive, a register,
/// a special register (`SR_TID.X`), or the statement's opcode with its modifiers.
fn sass_word(src: &str, i: usize, statement: &mut bool) -> Token {
    let b = src.as_bytes();
    match b[i] {
        b'.' if b.get(i + 1).is_some_and(|&n| is_ident(n)) => {
            // `.L_x_1:` is a label and `(.L_x_1)` a reference to one; at the start of a
            // line `.section` is a directive; `R2.reuse` is a plain modifier.
            let end = ident_end(b, i + 1);
            let class = if b.get(end) == Some(&b':')
                || (i > 0 && b[i - 1] == b'(')
                || src[i + 1..end].starts_with("L_")
            {
                Some(Class::Label)
            } else if *statement {
                Some(Class::Keyword)
            } else {
                None
            };
            *statement = *statement && class == Some(Class::Label);
            (end, class)
        }
        c if is_ident(c) => {
            let end = ident_end(b, i);
            let word = &src[i..end];
            if *statement && b.get(end) == Some(&b':') {
                (end, Some(Class::Label))
            } else if sass_register(word) {
                (end, Some(Class::Register))
            } else if word.starts_with("SR_") {
                (dotted_end(b, i), Some(Class::Builtin))
            } else if word == "Function" && b.get(skip_blanks(b, end)) == Some(&b':') {
                (end, Some(Class::Keyword))
            } else if *statement && word.bytes().all(|c| !c.is_ascii_lowercase()) {
                *statement = false;
                (dotted_end(b, i), Some(Class::Function))
            } else {
                (end, None)
            }
        }
        _ => (i + 1, None),
    }
}
