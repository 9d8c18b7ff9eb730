//! Build-time highlighting of fenced code (CUDA, C++, C, Python, shell, terminal sessions,
//! PTX, SASS, CMake, JSON, YAML) into HTML-escaped text with `<span class="hl-…">` tokens,
//! colours left to `static/highlight.css`. The lexers are hand-written rather than TextMate
//! grammars (syntect): syntect has no CUDA grammar, and `cargo bench --bench highlight`
//! against `benches/syntect_compare` measures the difference in time (BENCHMARKS.md, The
//! highlighter).
mod asm;
mod block;
mod c_family;
mod console;
pub(crate) mod cuda_api;
mod data;
mod emit;
pub(crate) mod fence;
pub(crate) mod include;
pub(crate) mod python;
mod shell;
mod yaml;

pub(crate) use block::render as render_block;

use emit::Emitter;

/// A language the highlighter knows, picked from a fence's info string by [`Lang::from_info`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Lang {
    /// CUDA C++: C++ plus execution/memory-space qualifiers, built-ins and `<<<…>>>` launches.
    Cuda,
    /// C++ (CUDA qualifiers and built-ins are coloured too: CUDA is often fenced as `cpp`).
    Cpp,
    /// C: no C++ keywords, no CUDA names.
    C,
    /// Python 3.
    Python,
    /// POSIX shell and bash.
    Shell,
    /// A terminal session: `$ ` commands and their output.
    Console,
    /// NVIDIA's PTX virtual assembly.
    Ptx,
    /// SASS, the GPU's machine code as `cuobjdump -sass` and `nvdisasm` print it.
    Sass,
    /// CMake scripts.
    Cmake,
    /// JSON (comments allowed, as in JSONC).
    Json,
    /// YAML.
    Yaml,
}

impl Lang {
    /// Every language, for the tests that must cover each lexer.
    #[cfg(test)]
    pub(crate) const ALL: [Lang; 11] = [
        Lang::Cuda,
        Lang::Cpp,
        Lang::C,
        Lang::Python,
        Lang::Shell,
        Lang::Console,
        Lang::Ptx,
        Lang::Sass,
        Lang::Cmake,
        Lang::Json,
        Lang::Yaml,
    ];

    /// Reads the language from a fence info string (`cuda`, `c++ {linenos}`, `py,ignore`, …);
    /// `None` for languages we do not highlight.
    pub(crate) fn from_info(info: &str) -> Option<Lang> {
        let word = info
            .trim()
            .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
            .next()
            .unwrap_or("");
        const ALIASES: &[(&str, Lang)] = &[
            ("cuda", Lang::Cuda),
            ("cu", Lang::Cuda),
            ("cuh", Lang::Cuda),
            ("cpp", Lang::Cpp),
            ("c++", Lang::Cpp),
            ("cxx", Lang::Cpp),
            ("cc", Lang::Cpp),
            ("hpp", Lang::Cpp),
            ("hxx", Lang::Cpp),
            ("c", Lang::C),
            ("h", Lang::C),
            ("python", Lang::Python),
            ("python3", Lang::Python),
            ("py", Lang::Python),
            ("bash", Lang::Shell),
            ("sh", Lang::Shell),
            ("shell", Lang::Shell),
            ("zsh", Lang::Shell),
            ("console", Lang::Console),
            ("shell-session", Lang::Console),
            ("shellsession", Lang::Console),
            ("terminal", Lang::Console),
            ("ptx", Lang::Ptx),
            ("sass", Lang::Sass),
            ("cmake", Lang::Cmake),
            ("json", Lang::Json),
            ("jsonc", Lang::Json),
            ("yaml", Lang::Yaml),
            ("yml", Lang::Yaml),
        ];
        ALIASES
            .iter()
            .find(|(alias, _)| alias.eq_ignore_ascii_case(word))
            .map(|&(_, lang)| lang)
    }
}

/// Highlights one fenced block: the inner HTML of its `<code>` element, or `None` when the
/// language is unknown (the caller then emits the code escaped, uncoloured).
pub fn highlight(code: &str, lang: &str) -> Option<String> {
    Lang::from_info(lang).map(|lang| render(lang, code))
}

/// The stylesheet for the `hl-*` classes, light and dark; also shipped as `static/highlight.css`.
#[cfg(test)]
pub(crate) fn css() -> &'static str {
    include_str!("../static/highlight.css")
}

fn render(lang: Lang, code: &str) -> String {
    let mut out = Emitter::new(code);
    match lang {
        Lang::Cuda => c_family::lex(code, c_family::Dialect::Cuda, &mut out),
        Lang::Cpp => c_family::lex(code, c_family::Dialect::Cpp, &mut out),
        Lang::C => c_family::lex(code, c_family::Dialect::C, &mut out),
        Lang::Python => python::lex(code, &mut out),
        Lang::Shell => shell::lex(code, &mut out),
        Lang::Console => console::lex(code, &mut out),
        Lang::Ptx => asm::lex_ptx(code, &mut out),
        Lang::Sass => asm::lex_sass(code, &mut out),
        Lang::Cmake => data::lex_cmake(code, &mut out),
        Lang::Json => data::lex_json(code, &mut out),
        Lang::Yaml => yaml::lex(code, &mut out),
    }
    out.finish()
}

/// Steps `i` past one blank byte of `b`, as every lexer does between tokens: `Some(true)`
/// for a newline, `Some(false)` for a space, tab or CR, `None` (not moved) otherwise.
fn step_blank(b: &[u8], i: &mut usize) -> Option<bool> {
    let newline = match b[*i] {
        b'\n' => true,
        b' ' | b'\t' | b'\r' => false,
        _ => return None,
    };
    *i += 1;
    Some(newline)
}

#[cfg(test)]
mod tests;
