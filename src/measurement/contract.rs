//! The kernel contract, as the tool holds a course's kernels to it: the header `coursegen.cuh`
//! that NVRTC gets (built in, or the course's own `kernels/coursegen.cuh`), the manifest's
//! sizes as the header's compile-time constants, and what a compiled kernel must offer —
//! the manifest's `kernel` and `reference.kernel` as unmangled entry points with the
//! contract's five parameters, read from the PTX NVRTC made — and NVRTC's messages as
//! (line, message) pairs. Pure: `run` compiles, this judges. Uses `manifest` and `record`.
use std::sync::Arc;

use super::manifest::Manifest;
use super::record::KernelFiles;

/// The built-in header, `#include <coursegen.cuh>` (assets/cuda/coursegen.cuh).
pub const HEADER: &str = include_str!("../../assets/cuda/coursegen.cuh");

/// The header's name as a kernel includes it, and the file a course may keep its own copy in.
pub(crate) const HEADER_NAME: &str = "coursegen.cuh";

/// The header a course's kernels compile with: `kernels/coursegen.cuh` when the course has
/// one (written by `coursegen eject`, perhaps edited), else the built-in one. A course file
/// that cannot be read (a link, a FIFO) is an error naming it, never a silent fallback.
pub(crate) fn header(kernels: &KernelFiles) -> std::io::Result<Arc<[u8]>> {
    match kernels.read("coursegen", "cuh") {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Arc::from(HEADER.as_bytes())),
        Err(e) => Err(e),
    }
}

/// Whether `source` includes the contract header (so the header is part of what is measured).
pub(crate) fn includes_header(source: &[u8]) -> bool {
    String::from_utf8_lossy(source).lines().any(|l| {
        let l = l.trim_start();
        l.starts_with('#') && l.contains("include") && l.contains(HEADER_NAME)
    })
}

/// The manifest's sizes as the header's constants, NVRTC options after the manifest's own:
/// `input_words` and `launch.block_threads`, stated once, in the manifest.
pub(crate) fn defines(manifest: &Manifest) -> Vec<String> {
    vec![
        format!("-DCOURSEGEN_INPUT_WORDS={}u", manifest.input_words),
        format!(
            "-DCOURSEGEN_BLOCK_THREADS={}u",
            manifest.launch.block_threads
        ),
    ]
}

/// Every NVRTC option a manifest's kernel compiles with, after the target: the manifest's
/// `compile_options`, then [`defines`].
pub fn options(manifest: &Manifest) -> Vec<String> {
    let mut all = manifest.compile_options.clone();
    all.extend(defines(manifest));
    all
}

/// What a kernel may not ask of the compiler, since a course's kernels are content (a pull
/// request's are compiled by `check` in CI): each `(line, why)` of `source` that includes a
/// file other than the contract header — NVRTC would read any file of the machine and quote
/// it in its errors — however the directive is spelt (`#`, `%:`, `??=`, lines spliced with
/// `\`). Line 0: the manifest's `compile_options` (each must be on [`SAFE_OPTIONS`]).
pub(crate) fn refused(source: &str, options: &[String]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = source.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let first = i;
        let mut logical = String::new();
        while i < lines.len() {
            let line = lines[i];
            i += 1;
            match line.strip_suffix('\\') {
                Some(spliced) => logical.push_str(spliced),
                None => {
                    logical.push_str(line);
                    break;
                }
            }
        }
        let text = logical.trim_start();
        let directive = ["#", "%:", "??="]
            .iter()
            .find_map(|mark| text.strip_prefix(mark))
            .map(str::trim_start);
        if let Some(rest) =
            directive.filter(|r| r.starts_with("include") || r.starts_with("import"))
        {
            let target = rest
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .trim();
            let allowed = [format!("<{HEADER_NAME}>"), format!("\"{HEADER_NAME}\"")];
            if !allowed.iter().any(|a| target == a.as_str()) {
                out.push((
                    first + 1,
                    format!(
                        "includes `{target}`: a kernel may include only <{HEADER_NAME}> (kernels \
                         are content, and the compiler would read any file of the machine); put \
                         what it needs in the kernel's own file"
                    ),
                ));
            }
        }
    }
    for option in options {
        let allowed = SAFE_OPTIONS
            .iter()
            .any(|safe| option == safe || (safe.ends_with('=') && option.starts_with(safe)));
        if !allowed {
            out.push((
                0,
                format!(
                    "compile option `{option}` is not one a course may pass (it could read files \
                     or change what is compiled elsewhere); allowed: {}",
                    SAFE_OPTIONS.join(" ")
                ),
            ));
        }
    }
    out
}

/// The NVRTC options a manifest's `compile_options` may hold: the language and code
/// generation, never a path (`-I`, `-include`) or an output.
pub(crate) const SAFE_OPTIONS: [&str; 12] = [
    "--std=",
    "-std=",
    "--use_fast_math",
    "-use_fast_math",
    "--fmad=",
    "--ftz=",
    "--prec-div=",
    "--prec-sqrt=",
    "--maxrregcount=",
    "--extra-device-vectorization",
    "--generate-line-info",
    "-lineinfo",
];

/// The contract's parameters as PTX declares them: two pointers, two `int`s, a pointer.
pub(crate) const PARAMS: [&str; 5] = ["u64", "u64", "u32", "u32", "u64"];

/// How the contract's parameters read in messages.
pub(crate) const PARAMS_C: &str = "(const unsigned int* input, unsigned int* output, int value, \
                            int logical_blocks, unsigned long long* clock)";

/// An entry point of compiled PTX: its name and its parameters' PTX types (`u64`, `u32`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The symbol: the C name under `extern "C"`, a mangled one (`_Z...`) otherwise.
    pub(crate) name: String,
    /// Each parameter's type, e.g. `u64`, `b8` (for a struct), in order.
    pub(crate) params: Vec<String>,
}

/// The `.entry` declarations of PTX text, in order.
pub(crate) fn entries(ptx: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".entry ") {
        rest = &rest[at + ".entry ".len()..];
        let Some(open) = rest.find('(') else { break };
        let name = rest[..open].trim().to_owned();
        let close = rest[open..].find(')').map_or(rest.len(), |c| open + c);
        let params = rest[open + 1..close]
            .split(',')
            .filter_map(|p| {
                // `.param .u64 .ptr .align 1 name_param_0` or `.param .u32 name_param_2`
                let mut words = p.split_whitespace();
                (words.next() == Some(".param"))
                    .then(|| words.next())
                    .flatten()
                    .map(|t| t.trim_start_matches('.').to_owned())
            })
            .collect();
        out.push(Entry { name, params });
        rest = &rest[close..];
    }
    out
}

/// Why an entry point the manifest names does not keep the contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Broken {
    /// No entry point of that name; `mangled` when a C++-mangled one of that name is there.
    Missing {
        /// A mangled symbol that holds the name (the kernel lacks `extern "C"`).
        mangled: Option<String>,
        /// The unmangled entry points the source does have.
        available: Vec<String>,
    },
    /// Found, with other parameters than the contract's.
    Params(Vec<String>),
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Broken::Missing {
                mangled: Some(m), ..
            } => write!(
                f,
                "is compiled as the C++ symbol `{m}`: declare it `extern \"C\" __global__` so \
                 measure can find it by name"
            ),
            Broken::Missing { available, .. } if available.is_empty() => write!(
                f,
                "is not a kernel of the source: it defines no `extern \"C\" __global__` function"
            ),
            Broken::Missing { available, .. } => write!(
                f,
                "is not a kernel of the source; its `extern \"C\" __global__` kernels are {}",
                available
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Broken::Params(params) => write!(
                f,
                "takes {} parameter{} ({}) where the contract has five {PARAMS_C}; use \
                 `COURSEGEN_PARAMS(value)` from <coursegen.cuh>",
                params.len(),
                if params.len() == 1 { "" } else { "s" },
                if params.is_empty() {
                    "none".to_owned()
                } else {
                    params.join(", ")
                }
            ),
        }
    }
}

/// Whether `name` is an entry point of `entries` with the contract's parameters.
pub(crate) fn keeps_contract(entries: &[Entry], name: &str) -> Result<(), Broken> {
    match entries.iter().find(|e| e.name == name) {
        Some(e) if e.params.iter().map(String::as_str).eq(PARAMS) => Ok(()),
        Some(e) => Err(Broken::Params(e.params.clone())),
        None => Err(Broken::Missing {
            mangled: entries
                .iter()
                .find(|e| e.name.starts_with("_Z") && mangled_holds(&e.name, name))
                .map(|e| e.name.clone()),
            available: entries
                .iter()
                .filter(|e| !e.name.starts_with("_Z"))
                .map(|e| e.name.clone())
                .collect(),
        }),
    }
}

/// Whether the Itanium-mangled `symbol` names a function `name` (`_Z<len><name>...`).
fn mangled_holds(symbol: &str, name: &str) -> bool {
    symbol
        .strip_prefix("_Z")
        .and_then(|s| s.strip_prefix(&name.len().to_string()))
        .is_some_and(|s| s.starts_with(name))
}

/// One message of NVRTC's log about `file`: `kernels/x.cu(12): error: expected a ";"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LogLine {
    /// The 1-based line, in the file the message names.
    pub(crate) line: usize,
    /// The file NVRTC named (the kernel, or the header).
    pub(crate) file: String,
    /// `error: expected a ";"`, with the lines that follow it (the source line, the caret).
    pub(crate) message: String,
}

/// NVRTC's log as messages at a file and line: each `FILE(LINE): error: ...` (or warning)
/// with the lines under it up to the next; lines before the first are dropped, and a
/// summary such as `1 error detected in the compilation of ...` ends the last message.
pub(crate) fn log_lines(log: &str) -> Vec<LogLine> {
    let mut out: Vec<LogLine> = Vec::new();
    for raw in log.lines() {
        if let Some((file, line, message)) = located(raw) {
            out.push(LogLine {
                line,
                file: file.to_owned(),
                message: message.to_owned(),
            });
        } else if raw.contains(" detected in the compilation of ") {
            continue;
        } else if let Some(last) = out.last_mut().filter(|_| !raw.trim().is_empty()) {
            last.message.push('\n');
            last.message.push_str(raw.trim_end());
        }
    }
    out
}

/// `FILE(LINE): rest` split, when the line is a located message.
fn located(raw: &str) -> Option<(&str, usize, &str)> {
    let open = raw.find('(')?;
    let close = open + raw[open..].find("): ")?;
    let line = raw[open + 1..close].parse().ok()?;
    let file = &raw[..open];
    (!file.is_empty() && !file.contains(' ')).then_some((file, line, &raw[close + 3..]))
}

/// The 1-based line of the first line of `source` outside a comment that names `name` as a
/// function (followed by `(`, or at the line's end with `(` on the next), or 0.
pub(crate) fn line_of_function(source: &str, name: &str) -> usize {
    let lines: Vec<&str> = source.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.trim_start().starts_with("//") || l.trim_start().starts_with('*') {
            continue;
        }
        let mut from = 0;
        while let Some(at) = l[from..].find(name) {
            let start = from + at;
            let end = start + name.len();
            let before = l[..start].chars().next_back();
            let after = l[end..].trim_start();
            let word = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            let next_line = lines
                .get(i + 1)
                .is_some_and(|n| n.trim_start().starts_with('('));
            if word && (after.starts_with('(') || (after.is_empty() && next_line)) {
                return i + 1;
            }
            from = end;
        }
    }
    0
}

#[cfg(test)]
mod tests;
