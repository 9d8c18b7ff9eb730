//! The entry file `sign` edits: found under `content/`, read with how it spells its text
//! (a byte-order mark, CRLF line endings), its YAML edited in place and parsed back, and
//! written whole with the same spelling.
use std::path::{Path, PathBuf};

use super::edit;
use super::error::SignError;
use crate::content::{self, Diagnostic, Diagnostics, Entry};

/// How the file spells its text, kept when it is written back.
#[derive(Debug, Clone, Copy)]
pub(super) struct Spelling {
    bom: bool,
    crlf: bool,
}

/// The entry `file` (relative to `root`, or as the user typed it): its path relative to the
/// root, its absolute path, its text and its spelling.
pub(super) fn read(
    root: &Path,
    file: &Path,
) -> Result<(PathBuf, PathBuf, String, Spelling), SignError> {
    let (rel, abs) = locate(root, file)?;
    let bytes = std::fs::read(&abs).map_err(|error| SignError::Io {
        what: "read",
        path: abs.clone(),
        error,
    })?;
    let spelling = Spelling {
        bom: bytes.starts_with("\u{feff}".as_bytes()),
        crlf: bytes.windows(2).any(|w| w == b"\r\n"),
    };
    let text =
        content::load::decode(&rel, bytes).map_err(|d| SignError::Content(Diagnostics(d)))?;
    Ok((rel, abs, text, spelling))
}

/// Writes `signed` back with the file's BOM and line endings, atomically (whole, keeping
/// its mode).
pub(super) fn write(abs: &Path, signed: String, spelling: Spelling) -> Result<(), SignError> {
    let mut out = if spelling.crlf {
        signed.replace('\n', "\r\n")
    } else {
        signed
    };
    if spelling.bom {
        out.insert(0, '\u{feff}');
    }
    let mode = crate::atomic::Mode::Kept;
    crate::atomic::write(abs, out.as_bytes(), mode).map_err(|error| SignError::Io {
        what: "write",
        path: abs.to_path_buf(),
        error,
    })
}

/// (relative to root, absolute) for the entry file, which must lie under `<root>/content`.
fn locate(root: &Path, file: &Path) -> Result<(PathBuf, PathBuf), SignError> {
    let not = || SignError::NotAnEntry(file.to_path_buf());
    // Relative to the root first (`coursegen --root site sign content/glossary/warp.md`),
    // else as typed (`site/content/glossary/warp.md`).
    let abs = if root.join(file).exists() {
        root.join(file)
    } else {
        file.to_path_buf()
    };
    let abs = abs.canonicalize().map_err(|_| not())?;
    let root = root.canonicalize().map_err(|_| not())?;
    let rel = abs.strip_prefix(&root).map_err(|_| not())?.to_path_buf();
    let is_md = rel
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    if !rel.starts_with("content") || !is_md || !abs.is_file() {
        return Err(not());
    }
    Ok((rel, abs))
}

pub(super) fn parse(rel: &Path, text: &str) -> Result<Entry, SignError> {
    content::load::parse_entry(rel, text).map_err(|d| SignError::Content(Diagnostics(d)))
}

/// Applies `f` to the YAML part of `text`.
pub(super) fn edit_yaml(
    rel: &Path,
    text: &str,
    f: impl FnOnce(&str) -> Result<String, edit::EditError>,
) -> Result<String, SignError> {
    let split = content::front_matter::split(text).map_err(|e| {
        SignError::Content(Diagnostics(vec![Diagnostic::new(rel, 1, e.to_string())]))
    })?;
    let start = split.yaml.as_ptr() as usize - text.as_ptr() as usize;
    let end = start + split.yaml.len();
    let yaml = f(split.yaml).map_err(|e| {
        let line = match e {
            edit::EditError::InlineByline { line } => split.yaml_line + line - 1,
        };
        SignError::Content(Diagnostics(vec![
            Diagnostic::new(rel, line, e.to_string()).field("byline"),
        ]))
    })?;
    // An empty front matter (`---\n---`) has no YAML slice to replace: insert after `---\n`.
    let (start, end) = if split.yaml.is_empty() {
        (4.min(text.len()), 4.min(text.len()))
    } else {
        (start, end)
    };
    Ok(format!("{}{yaml}{}", &text[..start], &text[end..]))
}
