//! Build-time highlighting of fenced code (CUDA, C++, C, Python, shell, terminal sessions,
//! PTX, SASS, CMake, JSON, YAML) into HTML-escaped text
//! with `<span class="hl-…">` tokens, colours left to `static/highlight.css`. Uses no other
//! module of ours.
//!
//! The lexers are hand-written rather than TextMate grammars (syntect): syntect has no CUDA
//! grammar, and `cargo bench --bench highlight` against `benches/syntect_compare` measures
//! the difference in time (BENCHMARKS.md, The highlighter).
mod asm;
mod block;
mod c_family;
mod console;
pub(crate) mod cuda_api;
mod data;
mod emit;
pub mod fence;
pub mod include;
pub(crate) mod python;
mod shell;
mod yaml;

pub use block::render as render_block;

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use emit::Emitter;

/// A language the highlighter knows, picked from a fence's info string by [`Lang::from_info`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
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
    pub fn from_info(info: &str) -> Option<Lang> {
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
/// language is unknown (the caller then emits the code escaped, uncoloured). Blocks seen
/// more than once are cached by language and content; safe to call from rayon workers.
pub fn highlight(code: &str, lang: &str) -> Option<String> {
    let lang = Lang::from_info(lang)?;
    Some(cache().highlight(lang, code))
}

/// Highlights without the cache; used by the micro-benchmark to time the lexers alone.
pub fn highlight_uncached(code: &str, lang: &str) -> Option<String> {
    Lang::from_info(lang).map(|lang| render(lang, code))
}

/// The stylesheet for the `hl-*` classes, light and dark; also shipped as `static/highlight.css`.
pub fn css() -> &'static str {
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

/// Shards keep two rayon workers from queueing on one lock; 16 is plenty for a few cores.
const SHARDS: usize = 16;
/// Past this many bytes of kept code and HTML, new blocks are rendered but not kept.
const MAX_CACHE_BYTES: usize = 64 << 20;

struct Cached {
    lang: Lang,
    code: Box<str>,
    html: Arc<str>,
}

/// Keys are already well-mixed 64-bit hashes, so the maps need not hash them again.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys reach this hasher (through write_u64); this is the generic fallback.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A block is kept from its second sighting on. Most blocks of a course are unique: keeping
/// each one's HTML until the build ends raised the peak memory `benches/build.sh` reports
/// and saved no time, while a hash per block costs 16 bytes. Repeated blocks, and every block
/// from the second rebuild of `serve` on, are still rendered at most twice.
#[derive(Default)]
struct Shard {
    /// Hashes of the blocks rendered once and not kept.
    seen: HashSet<u64, BuildHasherDefault<PassThrough>>,
    kept: HashMap<u64, Vec<Cached>, BuildHasherDefault<PassThrough>>,
}

impl Shard {
    fn hit(&self, key: u64, lang: Lang, code: &str) -> Option<&Arc<str>> {
        self.kept
            .get(&key)?
            .iter()
            .find(|c| c.lang == lang && &*c.code == code)
            .map(|c| &c.html)
    }
}

struct HighlightCache {
    shards: [Mutex<Shard>; SHARDS],
    bytes: AtomicUsize,
}

fn cache() -> &'static HighlightCache {
    static CACHE: OnceLock<HighlightCache> = OnceLock::new();
    CACHE.get_or_init(HighlightCache::new)
}

impl HighlightCache {
    fn new() -> Self {
        HighlightCache {
            shards: std::array::from_fn(|_| Mutex::new(Shard::default())),
            bytes: AtomicUsize::new(0),
        }
    }

    /// How many blocks are kept, and how many seen once (for tests).
    #[cfg(test)]
    fn counts(&self) -> (usize, usize) {
        self.shards.iter().fold((0, 0), |(kept, seen), s| {
            let s = s.lock().unwrap_or_else(|e| e.into_inner());
            (
                kept + s.kept.values().map(Vec::len).sum::<usize>(),
                seen + s.seen.len(),
            )
        })
    }

    fn highlight(&self, lang: Lang, code: &str) -> String {
        let key = hash_block(lang, code);
        let shard = &self.shards[(key >> 60) as usize % SHARDS];
        // A poisoned shard only means another worker panicked mid-insert; the maps are intact.
        let lock = || shard.lock().unwrap_or_else(|e| e.into_inner());
        let again = {
            let mut shard = lock();
            if let Some(html) = shard.hit(key, lang, code) {
                return html.to_string();
            }
            !shard.seen.insert(key)
        };
        // Render outside the lock: two workers racing on one block both render it, which is
        // cheaper than making every other block of the shard wait.
        let html = render(lang, code);
        let size = code.len() + html.len();
        if !again || self.bytes.fetch_add(size, Ordering::Relaxed) + size > MAX_CACHE_BYTES {
            if again {
                self.bytes.fetch_sub(size, Ordering::Relaxed);
            }
            return html;
        }
        let mut shard = lock();
        if shard.hit(key, lang, code).is_some() {
            self.bytes.fetch_sub(size, Ordering::Relaxed);
        } else {
            shard.seen.remove(&key);
            shard.kept.entry(key).or_default().push(Cached {
                lang,
                code: code.into(),
                html: html.as_str().into(),
            });
        }
        html
    }
}

/// FxHash-style word-at-a-time hash with a splitmix64 finish (the shard comes from the top
/// bits). Collisions are harmless: a hit also compares the code itself.
fn hash_block(lang: Lang, code: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let bytes = code.as_bytes();
    let mut h = (lang as u64 + 1).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("chunks of 8"));
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    h = (h.rotate_left(5) ^ u64::from_le_bytes(tail) ^ bytes.len() as u64).wrapping_mul(K);
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
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
