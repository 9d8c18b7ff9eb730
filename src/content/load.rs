//! Walks `content/` (nested sections allowed), reads each entry once, and checks what can
//! be checked per site: slugs, duplicates, and that related terms and days resolve.
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use super::diagnostic::Diagnostic;
use super::entry::{Entry, EntryKind, Site};
use super::front_matter::{self, FieldLines};
use super::meta::{self, Meta};

mod cache;
mod walk;
pub(crate) use cache::{Changed, LoadCache};

/// The glossary's folder unless the config names another (`[glossary] folder`): the
/// section whose entries `related:` names.
pub(crate) const DEFAULT_GLOSSARY: &str = "glossary";
/// The section whose entries `appears_in:` names.
pub(crate) const DAYS: &str = "days";

/// Loads every entry under `<root>/content`, `related:` naming entries of the section
/// `glossary` (the config's `[glossary] folder`). Entries that fail to load are left out
/// and their problems kept in [`Site::problems`], so that the check stage still runs on
/// the rest and a build reports everything at once.
pub(crate) fn load(root: &Path, glossary: &str) -> Site {
    load_changed(root, glossary, &mut LoadCache::default(), &Changed::All)
}

/// [`load`], reading again only the entry files that `changed` names (and files added),
/// with everything else from `cache`, which is then updated (see [`Cache`]). The result
/// equals a fresh [`load`] of the same files, as long as `changed` names every path that
/// changed since the load that filled the cache.
pub(crate) fn load_changed(
    root: &Path,
    glossary: &str,
    cache: &mut LoadCache,
    changed: &Changed,
) -> Site {
    load_reading(root, glossary, cache, changed, &|rel, abs| {
        read_entry(rel, abs)
    })
}

/// [`load`], with the entry file `file` (relative to the root) read as `text` instead of
/// what is on disk: `coursegen sign --publish` checks the site with the entry as it would
/// be signed, before writing it.
pub(crate) fn load_with_text(root: &Path, glossary: &str, file: &Path, text: &str) -> Site {
    let read = |rel: &Path, abs: &Path| match rel == file {
        true => parse_entry(rel, text),
        false => read_entry(rel, abs),
    };
    load_reading(
        root,
        glossary,
        &mut LoadCache::default(),
        &Changed::All,
        &read,
    )
}

/// How a load reads one entry file: its path relative to the root, and absolute.
type ReadEntry<'a> = dyn Fn(&Path, &Path) -> Result<Entry, Vec<Diagnostic>> + Sync + 'a;

/// [`load_changed`], each entry file read by `read` (its path relative to the root, and
/// absolute).
fn load_reading(
    root: &Path,
    glossary: &str,
    cache: &mut LoadCache,
    changed: &Changed,
    read: &ReadEntry,
) -> Site {
    let content = root.join("content");
    let mut walked = cache.walked(root, &content, changed);
    // Entries not read yet (new or changed) and symbolic links (whose targets the watcher
    // may not see) are read.
    let stale: Vec<usize> = (walked.files.iter().enumerate())
        .filter(|(_, slot)| slot.link || slot.result.is_none())
        .map(|(i, _)| i)
        .collect();
    let fresh: Vec<(usize, Result<Entry, Vec<Diagnostic>>)> = stale
        .par_iter()
        .map(|&i| (i, read(&walked.files[i].rel, &walked.files[i].abs)))
        .collect();
    for (i, r) in fresh {
        walked.files[i].result = Some(r.map(Arc::new));
    }
    let mut problems = walked.problems.clone();
    let mut entries = Vec::with_capacity(walked.files.len());
    // The slot of each entry, to keep an intro marked there.
    let mut slots = Vec::with_capacity(walked.files.len());
    // Entries that failed to load still exist: references to them are not reported again.
    let mut failed: HashSet<(String, String)> = HashSet::new();
    let mut unloaded = Vec::new();
    for (i, slot) in walked.files.iter().enumerate() {
        match &slot.result {
            Some(Ok(e)) => {
                entries.push(e.clone());
                slots.push(i);
            }
            Some(Err(d)) => {
                problems.extend(d.iter().cloned());
                let (section, dirs, stem) = place(&slot.rel);
                unloaded.push(url_of(&dirs, &stem));
                failed.insert((section, stem));
            }
            None => {}
        }
    }
    let (entries, marked, found) = cache.across(entries, failed, glossary);
    // The cache keeps each entry as the site has it (an intro marked), so that an unchanged
    // intro stays the same allocation too.
    for (i, e) in marked {
        walked.files[slots[i]].result = Some(Ok(e));
    }
    problems.extend(found);
    let site = Site {
        entries,
        assets: walked.assets.clone(),
        warnings: walked.skipped.clone(),
        problems,
        unloaded,
    };
    cache.keep(walked);
    site
}

/// Section, sub-folders and file stem of `content/<dirs…>/<stem>.md`.
fn place(file: &Path) -> (String, Vec<String>, String) {
    let dirs: Vec<String> = file
        .parent()
        .and_then(|p| p.strip_prefix("content").ok())
        .map(|p| p.iter().map(|s| s.to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    (dirs.first().cloned().unwrap_or_default(), dirs, stem)
}

/// `/dirs…/slug/`.
fn url_of(dirs: &[String], slug: &str) -> String {
    let mut url = String::from("/");
    for part in dirs.iter().map(String::as_str).chain(std::iter::once(slug)) {
        url.push_str(part);
        url.push('/');
    }
    url
}

/// Reads, splits, parses and checks one entry file.
fn read_entry(file: &Path, abs: &Path) -> Result<Entry, Vec<Diagnostic>> {
    let cannot_read =
        |e: std::io::Error| vec![Diagnostic::new(file, 0, format!("cannot read: {e}"))];
    let meta = std::fs::metadata(abs).map_err(cannot_read)?;
    if !meta.is_file() {
        // A FIFO would block the read for ever.
        return Err(vec![
            Diagnostic::new(file, 0, "is not a regular file (a FIFO, device or socket)")
                .help("entries are Markdown files; remove it"),
        ]);
    }
    let size = meta.len();
    if size > super::limits::MAX_ENTRY_BYTES {
        return Err(vec![
            Diagnostic::new(
                file,
                0,
                format!(
                    "the file is {} KiB; entries are limited to {} KiB",
                    size / 1024,
                    super::limits::MAX_ENTRY_BYTES / 1024
                ),
            )
            .help("split it into several entries; put data in assets beside it"),
        ]);
    }
    let bytes = std::fs::read(abs).map_err(cannot_read)?;
    let text = decode(file, bytes)?;
    parse_entry(file, &text)
}

/// Splits, parses and checks the text of one entry file (`file` relative to the root; BOM
/// removed, line endings `\n`); `coursegen sign` uses it to check a file before writing it.
pub(crate) fn parse_entry(file: &Path, text: &str) -> Result<Entry, Vec<Diagnostic>> {
    let split = front_matter::split(text).map_err(|e| {
        let line = if matches!(e, front_matter::SplitError::NoOpening) { 1 } else { text.lines().count().max(1) };
        vec![Diagnostic::new(file, line, e.to_string()).help(match e {
            front_matter::SplitError::NoOpening => "start the file with `---`, the front matter (at least `title: …`), and another `---`",
            front_matter::SplitError::NoClosing => "end the front matter with a line holding only `---`",
        })]
    })?;
    let raw = front_matter::parse(&split).map_err(|problems| {
        (problems.into_iter())
            .map(|p| {
                let mut d = Diagnostic::new(file, p.line, p.message);
                d.field = p.field;
                d.help = p.help;
                d
            })
            .collect::<Vec<_>>()
    })?;
    let lines = FieldLines::index(split.yaml, split.yaml_line);
    let mut problems = Vec::new();
    let meta = meta::check_meta(raw, file, &lines, &mut problems);
    let (section, dirs, slug) = locate(file, meta.as_ref(), &lines, &mut problems);
    let (Some(meta), true) = (meta, problems.is_empty()) else {
        return Err(problems);
    };
    let url = url_of(&dirs, &slug);
    Ok(Entry {
        file: file.to_path_buf(),
        kind: EntryKind::Page,
        section,
        slug,
        url,
        body_line: split.body_line,
        body: split.body.to_string(),
        meta,
        lines,
    })
}

/// Checks the bytes are UTF-8 (naming the line of the first bad byte); drops a BOM; CRLF → LF.
pub(crate) fn decode(file: &Path, bytes: Vec<u8>) -> Result<String, Vec<Diagnostic>> {
    let text = String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..good].iter().filter(|&&b| b == b'\n').count();
        vec![
            Diagnostic::new(file, line, "the file is not valid UTF-8")
                .help("save it as UTF-8 (most editors: \"Save with encoding\")"),
        ]
    })?;
    let text = text
        .strip_prefix('\u{feff}')
        .map(str::to_string)
        .unwrap_or(text);
    Ok(if text.contains('\r') {
        text.replace("\r\n", "\n")
    } else {
        text
    })
}

/// Section, sub-folders and slug of an entry, from its path (and `slug:` if given).
fn locate(
    file: &Path,
    meta: Option<&Meta>,
    lines: &FieldLines,
    problems: &mut Vec<Diagnostic>,
) -> (String, Vec<String>, String) {
    let (section, parts, stem) = place(file);
    let (slug, field, line) = match meta.and_then(|m| m.slug.clone()) {
        Some(s) => (s, Some("slug"), lines.of("slug")),
        None => (stem, None, 1),
    };
    for part in parts
        .iter()
        .map(String::as_str)
        .chain(std::iter::once(slug.as_str()))
    {
        if let Err(why) = check_slug(part) {
            let mut d = Diagnostic::new(
                file,
                line,
                format!("`{}` cannot be part of a URL: {why}", part.escape_debug()),
            )
            .help("use lowercase letters, digits and hyphens, e.g. `shared-memory-bank`");
            d.field = field.map(str::to_string);
            problems.push(d);
        }
    }
    (section, parts, slug)
}

/// A top-level entry named like a section (`content/glossary.md` beside entries under
/// `content/glossary/`) is that section's introduction. Returns the entries whose kind it
/// changed.
fn mark_intros(entries: &mut [Arc<Entry>]) -> Vec<usize> {
    // Only a top-level entry can introduce a section: look for sections of those names.
    let tops: HashSet<&str> = (entries.iter())
        .filter(|e| e.section.is_empty())
        .map(|e| e.slug.as_str())
        .collect();
    let sections: HashSet<String> = (entries.iter())
        .filter(|e| !e.section.is_empty() && tops.contains(e.section.as_str()))
        .map(|e| e.section.clone())
        .collect();
    let mut changed = Vec::new();
    for (i, e) in entries.iter_mut().enumerate() {
        let kind = if e.section.is_empty() && sections.contains(&e.slug) {
            EntryKind::Intro
        } else {
            EntryKind::Page
        };
        if e.kind != kind {
            Arc::make_mut(e).kind = kind;
            changed.push(i);
        }
    }
    changed
}

/// Why a slug (or folder name) cannot be a URL path segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SlugError {
    /// Nothing at all.
    #[error("it is empty")]
    Empty,
    /// `..` would climb out of the section.
    #[error("it contains `..`")]
    DotDot,
    /// `/` or `\`.
    #[error("it contains a path separator")]
    Separator,
    /// A tab, newline or other control character.
    #[error("it contains a control character")]
    Control,
    /// A hidden file's name.
    #[error("it starts with a dot")]
    LeadingDot,
    /// Anything but ASCII letters, digits, `-`, `_` and `.`.
    #[error("only ASCII letters, digits, `-`, `_` and `.` are allowed")]
    Character,
}

/// A slug (or folder name) must be a plain URL path segment.
pub(crate) fn check_slug(slug: &str) -> Result<(), SlugError> {
    if slug.is_empty() {
        Err(SlugError::Empty)
    } else if slug.contains("..") {
        Err(SlugError::DotDot)
    } else if slug.contains('/') || slug.contains('\\') {
        Err(SlugError::Separator)
    } else if slug.chars().any(char::is_control) {
        Err(SlugError::Control)
    } else if slug.starts_with('.') {
        Err(SlugError::LeadingDot)
    } else if !slug
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        Err(SlugError::Character)
    } else {
        Ok(())
    }
}

/// Two entries may not share a URL, nor a slug within a section (case-insensitively:
/// they would collide on case-insensitive file systems and in `related:` lookups). The
/// second of a pair is reported, and its position returned: it is dropped, so that later
/// checks do not report it again.
fn check_unique(entries: &[Arc<Entry>], problems: &mut Vec<Diagnostic>) -> Vec<usize> {
    // Lower case only what is not already (most slugs are).
    fn lower(s: &str) -> Cow<'_, str> {
        if s.bytes().any(|b| !b.is_ascii() || b.is_ascii_uppercase()) {
            Cow::Owned(s.to_lowercase())
        } else {
            Cow::Borrowed(s)
        }
    }
    let mut dropped = Vec::new();
    let mut seen: HashMap<(Cow<'_, str>, Cow<'_, str>), usize> =
        HashMap::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let key = (lower(&e.section), lower(&e.slug));
        let Some(&first) = seen.get(&key) else {
            seen.insert(key, i);
            continue;
        };
        // Name the `slug:` line when the slug was set there, else the file as a whole.
        let first = &entries[first].file;
        let mut d = Diagnostic::new(&e.file, 1, format!("slug `{}` is already used by {}", e.slug, first.display()))
            .help("rename one of the files (slugs are compared ignoring case), or set a different `slug:`");
        if e.meta.slug.is_some() {
            d = d.field("slug");
            d.line = e.lines.of("slug");
        }
        problems.push(d);
        dropped.push(i);
    }
    dropped
}

/// `related:` names slugs of the section `glossary` and `appears_in:` day slugs; each
/// must exist.
fn check_references(
    entries: &[Arc<Entry>],
    glossary: &str,
    failed: &HashSet<(String, String)>,
    problems: &mut Vec<Diagnostic>,
) {
    let index = |section: &str| -> HashMap<&str, &Arc<Entry>> {
        entries
            .iter()
            .filter(|e| e.section == section)
            .map(|e| (e.slug.as_str(), e))
            .collect()
    };
    let terms = index(glossary);
    let days = index(DAYS);
    // Each glossary entry's words (term, aliases) as slugs, and their plain plurals: a
    // `related:` that names an entry by a word of it is told the entry's slug.
    let mut words: HashMap<String, &Arc<Entry>> = HashMap::new();
    for t in terms.values() {
        for w in (t.meta.term.iter()).chain(&t.meta.aliases) {
            let slug = word_slug(w);
            for form in [format!("{slug}es"), format!("{slug}s"), slug] {
                let entry = words.entry(form).or_insert(t);
                // Ties go to the first slug in order, so that every build says the same.
                if t.slug < entry.slug {
                    *entry = t;
                }
            }
        }
    }
    for e in entries {
        for (field, wanted, known, what, section) in [
            (
                "related",
                &e.meta.related,
                &terms,
                "glossary entry",
                glossary,
            ),
            ("appears_in", &e.meta.appears_in, &days, "day page", DAYS),
        ] {
            for slug in wanted {
                if known.contains_key(slug.as_str())
                    || failed.contains(&(section.to_string(), slug.clone()))
                {
                    continue;
                }
                // Ties go to the first name in order, so that every build suggests the same.
                let closest = known
                    .keys()
                    .min_by_key(|k| (strsim::levenshtein(slug, k), **k))
                    .filter(|k| strsim::levenshtein(slug, k) <= 3);
                let named = (field == "related")
                    .then(|| words.get(&word_slug(slug)))
                    .flatten();
                let help = match (named, closest) {
                    (Some(t), _) => format!(
                        "`{slug}` is a word of the entry `{}`: write its slug, `{}`",
                        t.meta.term.as_deref().unwrap_or(&t.meta.title),
                        t.slug
                    ),
                    (None, Some(k)) => format!("did you mean `{k}`?"),
                    (None, None) => format!(
                        "create content/{section}/{slug}.md (`coursegen new {section} {slug}`) or remove it"
                    ),
                };
                problems.push(
                    Diagnostic::new(
                        &e.file,
                        e.lines.of(field),
                        format!("`{slug}` is not a {what}"),
                    )
                    .field(field)
                    .help(help),
                );
            }
        }
    }
}

/// A word as a slug (`Shared memory` → `shared-memory`): what an author who names a term
/// by a word of it writes in `related:` or after a link's section.
pub(crate) fn word_slug(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.trim().to_lowercase().chars() {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.truncate(out.trim_end_matches('-').len());
    out
}

#[cfg(test)]
mod tests;
