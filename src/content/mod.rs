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

/// One loaded entry: its file, where it goes, what its front matter says, and its body.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Path relative to the site root (`content/glossary/warp.md`).
    pub file: PathBuf,
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
}

/// The file `coursegen new <section> <slug>` writes: every field, with a note on each.
pub fn scaffold(slug: &str) -> String {
    let term = slug.replace('-', " ");
    format!(
        r#"---
title: What is {term}?            # the question, as the page heading
term: {term}                      # the term, as the glossary index lists it
category: Memory                  # groups the glossary index
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

/// Runs `coursegen new <section> <slug>`: writes the scaffold, never over an existing file.
pub fn cli_new(root: &Path, args: &crate::cli::NewArgs) -> Result<(), crate::cli::Failure> {
    use crate::cli::Failure;
    for part in [&args.section, &args.slug] {
        load::check_slug(part).map_err(|why| {
            Failure::Usage(anyhow::anyhow!("`{part}` cannot be part of a URL: {why}"))
        })?;
    }
    let dir = root.join("content").join(&args.section);
    let path = dir.join(format!("{}.md", args.slug));
    if path.exists() {
        return Err(Failure::Usage(anyhow::anyhow!(
            "{} already exists; not overwriting it",
            path.display()
        )));
    }
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&path, scaffold(&args.slug)))
        .map_err(|e| Failure::Usage(anyhow::anyhow!("cannot write {}: {e}", path.display())))?;
    println!(
        "created {} (a draft: fill in the fields, then ask a reviewer to sign it)",
        path.display()
    );
    Ok(())
}
