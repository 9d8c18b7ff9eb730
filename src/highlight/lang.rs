//! The languages the highlighter knows, picked from a fence's info string, and the lexer
//! each one runs.
use super::emit::Emitter;
use super::{asm, c_family, console, data, python, shell, yaml};

/// A language the highlighter knows, picked from a fence's info string by [`Lang::from_info`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Lang {
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
