//! Content: entry files under `content/`, split into front matter and Markdown, checked
//! into `Entry` values. Depends on no other module of ours (the CLI glue at the bottom aside).
use std::path::{Path, PathBuf};

pub mod body;
pub mod diagnostic;
pub mod front_matter;
pub mod load;
pub mod meta;

pub use diagnostic::{Diagnostic, Diagnostics};
pub use load::load;
pub use meta::{Meta, Status};

/// What kind of page an entry makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A page of its own at its URL (glossary entries, day pages, top-level pages).
    Page,
    /// `content/<section>.md` beside a folder `content/<section>/`: it introduces that
    /// section's index and is shown at the top of it, at the same URL.
    Intro,
}

/// One loaded entry: its file, where it goes, what its front matter says, and its body.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Path relative to the site root (`content/glossary/warp.md`).
    pub file: PathBuf,
    /// A page of its own, or a section's introduction.
    pub kind: Kind,
    /// Top-level section under content/ (`glossary`, `days`), empty for top-level pages.
    pub section: String,
    /// The last URL segment.
    pub slug: String,
    /// Site-absolute URL (`/glossary/warp/`).
    pub url: String,
    /// Checked front matter.
    pub meta: Meta,
    /// Markdown body.
    pub body: String,
    /// Whole-file line of the body's first line.
    pub body_line: usize,
    /// Whole-file lines of the front-matter fields.
    pub lines: front_matter::FieldLines,
}

/// Everything under content/.
#[derive(Debug, Clone, Default)]
pub struct Site {
    /// The entries, in path order.
    pub entries: Vec<Entry>,
    /// Other files (images…), copied as they are: (relative to root, absolute).
    pub assets: Vec<(PathBuf, PathBuf)>,
    /// Files found but left out (not an entry, not an asset type).
    pub warnings: Vec<Diagnostic>,
    /// Problems found while loading (each failed entry is left out of `entries`).
    pub problems: Vec<Diagnostic>,
    /// URLs of entries that failed to load: links to them are not reported again.
    pub unloaded: Vec<String>,
}

/// The file `coursegen new <section> <slug>` writes: every field, with a note on each.
pub fn scaffold(slug: &str) -> String {
    let term = slug.replace('-', " ");
    format!(
        r#"---
title: What is {term}?            # the question, as the page heading
term: {term}                      # the term, as the glossary index lists it
category: Uncategorised           # groups the glossary index, e.g. Memory, Execution
cc: "7.5"                         # compute capability the entry is written against
summary: One sentence that defines the term.
related: []                       # slugs of glossary entries, e.g. [warp, bank-conflict]
appears_in: []                    # day pages (content/days/), e.g. [day-15]
sources:
  - title: CUDA C++ Programming Guide
    url: https://docs.nvidia.com/cuda/cuda-c-programming-guide/
# diagram:                        # drawn from the bank model
#   preset: bank-map              # bank-map | lane-banks
#   highlight: {{ row: 0, column: 5 }}
#   alt: Describe what the picture shows, for readers who cannot see it.
# measure: bank_conflicts         # kernels/<name>.cu whose record fills "Measured"
status: draft                     # draft | in-review | published
byline:
  written_by: pending             # a name, or a list of names
  reviewed_by: pending            # a named reviewer who is none of the authors
  written_on: pending             # YYYY-MM-DD once signed
  last_checked_on: pending
---

The body, in Markdown. Explain the term from first principles.

With `measure:` set, prose under a `## Measured` heading goes under the measured table and
may quote the record: `{{{{% ratio 32L L digits=0 %}}}}`. With `diagram:` set, prose under a
`## Diagram` heading goes under the drawing.
"#
    )
}

/// Why `coursegen new` could not create an entry.
#[derive(Debug, thiserror::Error)]
pub enum NewError {
    /// A section folder or the slug is not a valid URL segment.
    #[error("`{part}` cannot be part of a URL: {why}; use lowercase letters, digits and hyphens")]
    BadSegment {
        /// The offending segment.
        part: String,
        /// What is wrong with it.
        why: load::SlugError,
    },
    /// An entry with that slug exists already (compared ignoring case).
    #[error("{0} already exists (slugs are compared ignoring case); not overwriting it")]
    Exists(PathBuf),
    /// Writing failed.
    #[error("cannot write {path}: {error}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

/// Writes the scaffold of a new draft at `content/<section>/<slug>.md` (section may nest:
/// `glossary/memory`), never over an existing entry of the same slug in any case.
pub fn create_entry(root: &Path, section: &str, slug: &str) -> Result<PathBuf, NewError> {
    let parts: Vec<&str> = section.split('/').filter(|p| !p.is_empty()).collect();
    for part in parts.iter().chain(std::iter::once(&slug)) {
        load::check_slug(part).map_err(|why| NewError::BadSegment {
            part: part.to_string(),
            why,
        })?;
    }
    let dir = parts.iter().fold(root.join("content"), |d, p| d.join(p));
    let path = dir.join(format!("{slug}.md"));
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| NewError::Io { path, error }
    };
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let wanted = format!("{slug}.md").to_lowercase();
    for item in std::fs::read_dir(&dir).map_err(io(&dir))?.flatten() {
        if item.file_name().to_string_lossy().to_lowercase() == wanted {
            return Err(NewError::Exists(item.path()));
        }
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::AlreadyExists => NewError::Exists(path.clone()),
            _ => NewError::Io {
                path: path.clone(),
                error,
            },
        })?;
    std::io::Write::write_all(&mut file, scaffold(slug).as_bytes()).map_err(io(&path))?;
    Ok(path)
}
