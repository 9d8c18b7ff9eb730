//! The lexer for C, C++ and CUDA: comments, string/char/raw-string literals, numbers,
//! preprocessor directives, keywords, types, CUDA qualifiers and built-ins, function calls
//! and `<<<…>>>` launches.
use super::cuda_api::{RUNTIME_API, RUNTIME_TYPES};
use super::emit::{
    Class, Emitter, Token, ident_end, is_ident, line_end, number_end, quoted_end, scan,
    skip_blanks, slash_comment_end,
};

/// Which C-family language a block is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    C,
    Cpp,
    Cuda,
}

/// Lexes `src`, reporting tokens to `out`.
pub(crate) fn lex(src: &str, dialect: Dialect, out: &mut Emitter<'_>) {
    let b = src.as_bytes();
    // Only blanks since the last newline: a `#` here starts a directive.
    let mut line_start = true;
    // Inside `#include`, `<…>` is a path, not two operators.
    let mut include = false;
    let mut launch_open = false;
    scan(src, 0, out, |mut i, _| {
        if let Some(newline) = super::emit::step_blank(b, &mut i) {
            if newline {
                line_start = true;
                include = false;
            }
            return (i, None);
        }
        let c = b[i];
        let at_line_start = std::mem::replace(&mut line_start, false);
        let next = b.get(i + 1).copied();
        let (end, class) = match c {
            b'#' if at_line_start => {
                let word = skip_blanks(b, i + 1);
                let end = ident_end(b, word);
                include = matches!(&src[word..end], "include" | "include_next" | "import");
                (end, Class::Preprocessor)
            }
            b'/' if matches!(next, Some(b'/' | b'*')) => {
                (slash_comment_end(src, i), Class::Comment)
            }
            b'"' => (quoted_end(b, i, b'"'), Class::String),
            b'\'' => (quoted_end(b, i, b'\''), Class::String),
            b'<' if include => {
                let stop = line_end(b, i);
                let end = src[i..stop].find('>').map_or(stop, |n| i + n + 1);
                (end, Class::String)
            }
            b'<' if dialect != Dialect::C && src[i..].starts_with("<<<") => {
                launch_open = true;
                (i + 3, Class::Launch)
            }
            b'>' if launch_open && src[i..].starts_with(">>>") => {
                launch_open = false;
                (i + 3, Class::Launch)
            }
            b'0'..=b'9' => (number_end(b, i, dialect != Dialect::C), Class::Number),
            b'.' if next.is_some_and(|n| n.is_ascii_digit()) => {
                (number_end(b, i, dialect != Dialect::C), Class::Number)
            }
            c if is_ident(c) => return word(src, i, dialect),
            _ => return (i + 1, None),
        };
        (end, Some(class))
    });
}

/// Lexes the word at `start`: a literal's prefix (`u8"…"`, `R"(…)"`), or an identifier
/// (`None` for a plain name).
fn word(src: &str, start: usize, dialect: Dialect) -> Token {
    let b = src.as_bytes();
    let end = ident_end(b, start);
    let word = &src[start..end];
    match (word, b.get(end)) {
        ("L" | "u" | "U" | "u8", Some(&q @ (b'"' | b'\''))) => {
            return (quoted_end(b, end, q), Some(Class::String));
        }
        ("R" | "LR" | "uR" | "UR" | "u8R", Some(b'"')) if dialect != Dialect::C => {
            return (raw_string_end(src, end), Some(Class::String));
        }
        _ => {}
    }
    if let Some(class) = classify(word, dialect) {
        return (end, Some(class));
    }
    let after = skip_blanks(b, end);
    let called =
        b.get(after) == Some(&b'(') || (dialect != Dialect::C && src[after..].starts_with("<<<"));
    (end, called.then_some(Class::Function))
}

/// The end of a C++ raw string whose `"` is at `quote`: `R"delim( … )delim"`. A malformed
/// opening reads as an ordinary string.
fn raw_string_end(src: &str, quote: usize) -> usize {
    let b = src.as_bytes();
    let open = b[quote + 1..]
        .iter()
        .take(17)
        .position(|&c| c == b'(')
        .map(|n| quote + 1 + n);
    let Some(open) = open else {
        return quoted_end(b, quote, b'"');
    };
    let delim = &src[quote + 1..open];
    if delim
        .bytes()
        .any(|c| matches!(c, b' ' | b')' | b'\\' | b'\t' | b'\n' | b'"'))
    {
        return quoted_end(b, quote, b'"');
    }
    let close = format!("){delim}\"");
    src[open..]
        .find(&close)
        .map_or(b.len(), |n| open + n + close.len())
}

/// The class of an identifier, or `None` for a plain name.
fn classify(word: &str, dialect: Dialect) -> Option<Class> {
    if let Some(class) = classify_c(word) {
        return Some(class);
    }
    if dialect == Dialect::C {
        return None;
    }
    classify_cpp(word).or_else(|| classify_cuda(word))
}

fn classify_c(word: &str) -> Option<Class> {
    Some(match word {
        "auto" | "break" | "case" | "const" | "continue" | "default" | "do" | "else" | "enum"
        | "extern" | "for" | "goto" | "if" | "inline" | "register" | "restrict" | "return"
        | "sizeof" | "static" | "struct" | "switch" | "typedef" | "union" | "volatile"
        | "while" | "asm" | "__asm__" | "__asm" | "__volatile__" | "_Alignas" | "_Alignof"
        | "_Atomic" | "_Generic" | "_Noreturn" | "_Static_assert" | "_Thread_local" | "alignas"
        | "alignof" | "static_assert" | "typeof" => Class::Keyword,
        "void" | "bool" | "_Bool" | "char" | "short" | "int" | "long" | "float" | "double"
        | "signed" | "unsigned" | "size_t" | "ssize_t" | "ptrdiff_t" | "intptr_t" | "uintptr_t"
        | "int8_t" | "int16_t" | "int32_t" | "int64_t" | "uint8_t" | "uint16_t" | "uint32_t"
        | "uint64_t" | "wchar_t" | "FILE" => Class::Type,
        "true" | "false" | "NULL" => Class::Literal,
        _ => return None,
    })
}

fn classify_cpp(word: &str) -> Option<Class> {
    Some(match word {
        "catch" | "class" | "concept" | "constexpr" | "consteval" | "constinit" | "const_cast"
        | "co_await" | "co_return" | "co_yield" | "decltype" | "delete" | "dynamic_cast"
        | "explicit" | "export" | "friend" | "mutable" | "namespace" | "new" | "noexcept"
        | "operator" | "override" | "final" | "private" | "protected" | "public"
        | "reinterpret_cast" | "requires" | "static_cast" | "template" | "this" | "throw"
        | "try" | "typeid" | "typename" | "using" | "virtual" => Class::Keyword,
        // The alternative spellings of operators are keywords in C++ (macros in C).
        "and" | "and_eq" | "bitand" | "bitor" | "compl" | "not" | "not_eq" | "or" | "or_eq"
        | "xor" | "xor_eq" => Class::Keyword,
        "char8_t" | "char16_t" | "char32_t" => Class::Type,
        "nullptr" => Class::Literal,
        _ => return None,
    })
}

/// CUDA names, also coloured in C++ blocks since CUDA is often fenced as `cpp`.
fn classify_cuda(word: &str) -> Option<Class> {
    Some(match word {
        "__global__" | "__device__" | "__host__" | "__shared__" | "__constant__"
        | "__managed__" | "__restrict__" | "__forceinline__" | "__noinline__"
        | "__launch_bounds__" | "__grid_constant__" | "__align__" | "__cluster_dims__" => {
            Class::Qualifier
        }
        "threadIdx"
        | "blockIdx"
        | "blockDim"
        | "gridDim"
        | "warpSize"
        | "clusterDim"
        | "__syncthreads"
        | "__syncthreads_count"
        | "__syncthreads_and"
        | "__syncthreads_or"
        | "__syncwarp"
        | "__shfl_sync"
        | "__shfl_up_sync"
        | "__shfl_down_sync"
        | "__shfl_xor_sync"
        | "__ballot_sync"
        | "__any_sync"
        | "__all_sync"
        | "__activemask"
        | "__threadfence"
        | "__threadfence_block"
        | "__ldg"
        | "__popc"
        | "__clz"
        | "__ffs"
        | "__fmaf_rn"
        | "__expf"
        | "__logf"
        | "__sinf"
        | "__cosf"
        | "__fdividef"
        | "__float2half"
        | "__half2float"
        | "atomicAdd"
        | "atomicSub"
        | "atomicExch"
        | "atomicMin"
        | "atomicMax"
        | "atomicCAS"
        | "atomicAnd"
        | "atomicOr"
        | "atomicXor" => Class::Builtin,
        "dim3" | "half" | "__half" | "__half2" | "__nv_bfloat16" | "__nv_bfloat162" => Class::Type,
        _ if is_vector_type(word) => Class::Type,
        // The prefix test keeps the searches off every other identifier.
        _ if word.starts_with("cuda") && RUNTIME_API.binary_search(&word).is_ok() => Class::Builtin,
        _ if word.starts_with("cuda") && RUNTIME_TYPES.binary_search(&word).is_ok() => Class::Type,
        _ => return None,
    })
}

/// CUDA's vector types: `float4`, `uchar2`, `longlong3`, …
fn is_vector_type(word: &str) -> bool {
    let Some((&n, base)) = word.as_bytes().split_last() else {
        return false;
    };
    (b'1'..=b'4').contains(&n)
        && matches!(
            base,
            b"char"
                | b"uchar"
                | b"short"
                | b"ushort"
                | b"int"
                | b"uint"
                | b"long"
                | b"ulong"
                | b"longlong"
                | b"ulonglong"
                | b"float"
                | b"double"
        )
}
