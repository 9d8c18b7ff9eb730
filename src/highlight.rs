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
mod lang;
pub(crate) mod python;
mod shell;
mod yaml;

pub(crate) use block::render as render_block;
pub use lang::highlight;

/// The stylesheet for the `hl-*` classes, light and dark; also shipped as `static/highlight.css`.
#[cfg(test)]
pub(crate) fn css() -> &'static str {
    include_str!("../static/highlight.css")
}

#[cfg(test)]
mod tests;
