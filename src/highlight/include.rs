//! Code from files: a fence with `file=PATH` shows part of a file under the site root
//! (`lines=A-B`, or `region=NAME` between `[region NAME]` and `[end NAME]` comment lines),
//! so the kernel on a page is the kernel that was measured. `check_fence` finds every
//! problem of one block as the page's Markdown is converted. A file is admitted by what it
//! resolves to (`content::admit`, purpose `Include`): inert source text only, never a
//! hidden file or an entry; a page's includes together are bounded. Uses `fence` and
//! `content::admit`, no other module of ours.
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::fence::{FenceError, FenceInfo};
use crate::content::admit::{Purpose, Refusal, SiteRoot};

/// Where included files are published, relative to the site root (`/source/kernels/k.cu`).
pub(crate) const SOURCE_DIR: &str = "source";

/// Largest file a fence may include: a page shows code, not data.
const MAX_BYTES: u64 = 1 << 20;

/// Most text the code blocks of one page may include together: a short entry naming one
/// large file many times would otherwise make a page of hundreds of megabytes.
pub(crate) const MAX_PAGE_BYTES: usize = 2 << 20;

/// Why a fence's include cannot be shown; `Display` is the message, `help` the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum IncludeError {
    /// The info string is malformed.
    #[error(transparent)]
    Options(#[from] FenceError),
    /// `hl_lines` marks a line the block does not show.
    #[error("`hl_lines` marks line {which}, but the block shows lines {shown}")]
    HlLinesOutside {
        /// The line or range marked, as `8` or `3-5`.
        which: String,
        /// The lines shown, as `40-62`, or `none`.
        shown: String,
    },
    /// Asked to include from a fence without `file=`.
    #[error("no `file=`")]
    NoFile,
    /// The path leaves the root, is absolute, or names a hidden or entry file.
    #[error("`file={path}` {why}")]
    Refused {
        /// As written.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// The file cannot be read (missing, not UTF-8, too large).
    #[error("cannot include `{path}`: {why}")]
    Unreadable {
        /// As written.
        path: String,
        /// What went wrong.
        why: String,
    },
    /// `lines=` reaches past the end of the file.
    #[error("`lines={range}` is outside `{path}`, which has {count} lines")]
    OutOfRange {
        /// The file.
        path: String,
        /// The range as written.
        range: String,
        /// Its length.
        count: usize,
    },
    /// `region=` names no complete region of the file.
    #[error("`{path}` has no region `{name}`{}", known_regions(.known))]
    NoRegion {
        /// The file.
        path: String,
        /// The region asked for.
        name: String,
        /// The regions it has.
        known: Vec<String>,
    },
    /// The fence has a body as well as `file=`.
    #[error("a block with `file=` shows that file: its own body would be dropped")]
    BodyAndFile,
    /// The page's includes together pass [`MAX_PAGE_BYTES`].
    #[error("with `{path}`, this page's code blocks would include more than {} KiB in all", MAX_PAGE_BYTES >> 10)]
    PageTooLarge {
        /// The file whose include passed the limit.
        path: String,
    },
}

fn known_regions(known: &[String]) -> String {
    if known.is_empty() {
        String::new()
    } else {
        format!(" (it has: {})", known.join(", "))
    }
}

impl IncludeError {
    /// How to fix it.
    pub(crate) fn help(&self) -> String {
        match self {
            IncludeError::Options(_) | IncludeError::HlLinesOutside { .. } | IncludeError::NoFile => {
                "see \"Code blocks\" in the README".into()
            }
            IncludeError::Refused { .. } => {
                "name a file under the site root by its path from the root, e.g. `file=kernels/bank_conflicts.cu`".into()
            }
            IncludeError::Unreadable { .. } => "check the path from the site root".into(),
            IncludeError::OutOfRange { count, .. } => {
                format!("pick lines within 1-{count}, or mark a region and use `region=NAME`")
            }
            IncludeError::NoRegion { name, .. } => format!(
                "mark the lines with `// [region {name}]` before and `// [end {name}]` after (`#` in scripts)"
            ),
            IncludeError::BodyAndFile => "leave the fenced block empty".into(),
            IncludeError::PageTooLarge { .. } => {
                "show the part that matters (`lines=` or `region=`), or link to the file".into()
            }
        }
    }
}

/// Part of a file, ready to highlight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Included {
    /// The path from the root, `/`-separated, as the caption shows it.
    pub(crate) path: String,
    /// The lines shown, common indentation removed, each ending in `\n`.
    pub(crate) text: String,
    /// The file line number of each line shown.
    pub(crate) numbers: Vec<usize>,
    /// The note a page shows when the measured record of this file is stale.
    pub(crate) stale: Option<String>,
}

impl Included {
    /// "lines 40–62" for the caption.
    pub(crate) fn lines_label(&self) -> String {
        match (self.numbers.first(), self.numbers.last()) {
            (Some(a), Some(b)) if a == b => format!("line {a}"),
            (Some(a), Some(b)) => format!("lines {a}–{b}"),
            _ => "no lines".into(),
        }
    }
}

/// The files fences include, read once per build and shared by every page.
pub(crate) struct Sources {
    root: PathBuf,
    site: SiteRoot,
    files: Mutex<HashMap<String, Result<Arc<str>, IncludeError>>>,
    stale: HashMap<String, String>,
}

impl Sources {
    /// Sources under `root`; `stale` maps a path from the root to the note pages show for it.
    pub(crate) fn new(root: &Path, stale: HashMap<String, String>) -> Self {
        Sources {
            root: root.to_path_buf(),
            site: SiteRoot::new(root),
            files: Mutex::default(),
            stale,
        }
    }

    /// The part of the file a fence names.
    pub(crate) fn resolve(&self, info: &FenceInfo) -> Result<Included, IncludeError> {
        let Some(written) = info.file.as_deref() else {
            return Err(IncludeError::NoFile);
        };
        let path = normalise(written)?;
        let text = self.read(&path)?;
        let mut lines: Vec<(usize, &str)> = text
            .split_inclusive('\n')
            .enumerate()
            .map(|(i, l)| (i + 1, l))
            .collect();
        if let Some((a, b)) = info.lines {
            let count = lines.len();
            let b = b.unwrap_or(count);
            if a > count || b > count {
                let range = format!(
                    "{a}-{}",
                    info.lines
                        .and_then(|l| l.1)
                        .map_or(String::new(), |b| b.to_string())
                );
                return Err(IncludeError::OutOfRange { path, range, count });
            }
            lines = lines[a - 1..b].to_vec();
        } else if let Some(name) = &info.region {
            lines = region(&lines, name).ok_or_else(|| IncludeError::NoRegion {
                path: path.clone(),
                name: name.clone(),
                known: regions(&lines),
            })?;
        }
        // Preprocessor lines sit at column 0 inside indented code: they do not count.
        let indent = lines
            .iter()
            .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|(_, l)| blanks(l))
            .min()
            .unwrap_or(0);
        let mut out = String::with_capacity(lines.iter().map(|(_, l)| l.len() + 1).sum());
        for (_, l) in &lines {
            out.push_str(&l[blanks(l).min(indent)..]);
            if !l.ends_with('\n') {
                out.push('\n');
            }
        }
        Ok(Included {
            stale: self.stale.get(&path).cloned(),
            path,
            text: out,
            numbers: lines.iter().map(|(n, _)| *n).collect(),
        })
    }

    fn read(&self, path: &str) -> Result<Arc<str>, IncludeError> {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files
            .entry(path.to_string())
            .or_insert_with(|| self.load(path))
            .clone()
    }

    fn load(&self, path: &str) -> Result<Arc<str>, IncludeError> {
        let unreadable = |why: String| IncludeError::Unreadable {
            path: path.to_string(),
            why,
        };
        let canon = match self.site.admit(&self.root.join(path), Purpose::Include) {
            Ok(canon) => canon,
            Err(Refusal::Missing) => {
                return Err(unreadable("no such file under the site root".into()));
            }
            Err(why) => {
                return Err(IncludeError::Refused {
                    path: path.to_string(),
                    why: why.to_string(),
                });
            }
        };
        let meta = std::fs::metadata(&canon).map_err(|e| unreadable(e.to_string()))?;
        if meta.len() > MAX_BYTES {
            return Err(unreadable(format!("larger than {} KiB", MAX_BYTES >> 10)));
        }
        let bytes = std::fs::read(&canon).map_err(|e| unreadable(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|_| unreadable("not UTF-8 text".into()))?;
        Ok(text.replace("\r\n", "\n").into())
    }

    /// The absolute path of an included file, for copying it into the site.
    pub(crate) fn full_path(&self, path: &str) -> PathBuf {
        self.root.join(path)
    }
}

/// The number of leading spaces and tabs.
fn blanks(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// The path from the root, `/`-separated; refuses what would leave the root, hidden files
/// (`.git/config`) and entry sources (a draft's text must not reach a page unsigned).
pub(crate) fn normalise(written: &str) -> Result<String, IncludeError> {
    let refuse = |why: &str| IncludeError::Refused {
        path: written.to_string(),
        why: why.to_string(),
    };
    let p = Path::new(written);
    let mut parts = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => {
                let s = s.to_str().ok_or_else(|| refuse("is not UTF-8"))?;
                if s.starts_with('.') {
                    return Err(refuse("names a hidden file or folder"));
                }
                parts.push(s);
            }
            Component::CurDir => {}
            Component::ParentDir => return Err(refuse("leaves the site root (`..`)")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(refuse("is absolute: paths are from the site root"));
            }
        }
    }
    if parts.is_empty() {
        return Err(refuse("names no file"));
    }
    let entry = |l: &&str| l.to_ascii_lowercase().ends_with(".md");
    if parts[0] == "content" && parts.last().is_some_and(entry) {
        return Err(refuse(
            "is an entry: its text would be published without its own signatures",
        ));
    }
    Ok(parts.join("/"))
}

/// The text after a comment leader, for marker lines (`// [region a]`, `# [end a]`).
fn marker(line: &str) -> Option<(&str, &str)> {
    let t = line.trim();
    let t = ["//", "#", "--", ";", "/*"]
        .iter()
        .find_map(|lead| t.strip_prefix(lead))?;
    let t = t.trim().trim_end_matches("*/").trim();
    let inner = t.strip_prefix('[')?.strip_suffix(']')?;
    let (kind, name) = inner.split_once(' ')?;
    matches!(kind, "region" | "end").then(|| (kind, name.trim()))
}

/// The lines between `[region name]` and `[end name]`, other markers left out.
fn region<'a>(lines: &[(usize, &'a str)], name: &str) -> Option<Vec<(usize, &'a str)>> {
    let start = lines
        .iter()
        .position(|(_, l)| marker(l) == Some(("region", name)))?;
    let len = lines[start + 1..]
        .iter()
        .position(|(_, l)| marker(l) == Some(("end", name)))?;
    Some(
        lines[start + 1..start + 1 + len]
            .iter()
            .filter(|(_, l)| marker(l).is_none())
            .copied()
            .collect(),
    )
}

fn regions(lines: &[(usize, &str)]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|(_, l)| marker(l))
        .filter(|(k, _)| *k == "region")
        .map(|(_, n)| n.to_string())
        .collect()
}

/// Whether a line is only a region marker (the staleness hash may skip such lines).
#[cfg(test)]
pub(crate) fn is_marker_line(line: &str) -> bool {
    marker(line).is_some()
}

/// What the code blocks of one body came to ([`check_fence`] on each).
#[derive(Debug, Clone, Default)]
pub(crate) struct IncludeCheck {
    /// Problems, with their body-relative line.
    pub(crate) errors: Vec<(usize, IncludeError)>,
    /// Includes of files whose record is stale: line, path, note.
    pub(crate) stale: Vec<(usize, String, String)>,
    /// Every file included (paths from the root).
    pub(crate) files: Vec<String>,
    /// Whether a block names a file (`file=`), read or not: a check of such a body holds
    /// only while that file is unchanged.
    pub(crate) reads_files: bool,
    /// Bytes of text included so far, held to [`MAX_PAGE_BYTES`].
    pub(crate) bytes: usize,
}

/// Checks one fenced code block whose options were parsed as `info` (or failed to), on
/// `line`: its include resolves and is not given a body too, and `hl_lines` marks lines it
/// shows. What it finds goes into `out`. `markdown` calls it for every fenced block of a
/// page, in the one parse of the page's Markdown. Returns whether the block may be shown
/// (a refused one is not: it may name a huge or forbidden file).
pub(crate) fn check_fence(
    info: Result<FenceInfo, IncludeError>,
    text: &str,
    sources: &Sources,
    line: usize,
    out: &mut IncludeCheck,
) -> bool {
    out.reads_files |= info.as_ref().is_ok_and(|i| i.file.is_some());
    match check_block(info, text, sources, line, out) {
        Ok(()) => true,
        Err(e) => {
            out.errors.push((line, e));
            false
        }
    }
}

fn check_block(
    info: Result<FenceInfo, IncludeError>,
    text: &str,
    sources: &Sources,
    line: usize,
    out: &mut IncludeCheck,
) -> Result<(), IncludeError> {
    let info = info?;
    let shown: Vec<usize> = match &info.file {
        Some(_) if !text.trim().is_empty() => return Err(IncludeError::BodyAndFile),
        Some(_) => {
            let inc = sources.resolve(&info)?;
            out.bytes += inc.text.len();
            if out.bytes > MAX_PAGE_BYTES {
                return Err(IncludeError::PageTooLarge { path: inc.path });
            }
            if let Some(note) = &inc.stale {
                out.stale.push((line, inc.path.clone(), note.clone()));
            }
            let numbers = inc.numbers.clone();
            out.files.push(inc.path);
            numbers
        }
        None => (1..=text.lines().count()).collect(),
    };
    for &(a, b) in &info.hl_lines {
        if !shown.contains(&a) || !shown.contains(&b) {
            let shown = match (shown.first(), shown.last()) {
                (Some(f), Some(l)) => format!("{f}-{l}"),
                _ => "none".into(),
            };
            let which = if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            };
            return Err(IncludeError::HlLinesOutside { which, shown });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
