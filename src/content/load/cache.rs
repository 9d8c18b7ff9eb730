//! What a load keeps for the next, so that `coursegen serve` reads only what changed: the
//! files the walk of `content/` found, each with what reading it gave, and what the checks
//! across entries found. Told which paths changed, the next load patches the walk's list
//! instead of walking again (a folder changed, a symbolic link or anything unusual falls
//! back to a walk), reads only those files, and runs the checks across entries again only
//! when an entry's name, place, references or field lines changed. For speed alone:
//! `benches/serve_latency.sh` is the benchmark that justifies it.
use std::collections::{BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::walk::{Found, Slot, Walked, classify, is_hidden, walk_key};
use super::{check_references, check_unique};
use crate::content::diagnostic::Diagnostic;
use crate::content::entry::Entry;

/// What an earlier load found, kept between the rebuilds of `coursegen serve`. An entry
/// that did not change keeps the same allocation (`Arc`) from one load to the next, which
/// later stages use to tell it is unchanged.
#[derive(Debug, Default)]
pub(crate) struct LoadCache {
    walked: Option<Walked>,
    across: Option<Across>,
    /// Walks made (a test checks that a plain edit makes none).
    #[cfg(test)]
    pub(super) walks: usize,
}

/// Which paths changed since the load that filled the [`LoadCache`].
#[derive(Debug)]
pub(crate) enum Changed {
    /// Anything may have changed: `content/` is walked and every file read again.
    All,
    /// These paths, relative to the root (paths outside `content/` are ignored; a folder
    /// stands for everything under it).
    Paths(BTreeSet<PathBuf>),
}

/// The checks across entries of the last load: what they were given and what they found.
#[derive(Debug)]
struct Across {
    /// The entries, intros marked, before duplicates were dropped.
    entries: Vec<Arc<Entry>>,
    /// Entries that failed to load, by (section, slug).
    failed: HashSet<(String, String)>,
    /// The glossary's folder, whose entries `related:` named.
    glossary: String,
    /// Positions of the duplicates dropped.
    dropped: Vec<usize>,
    problems: Vec<Diagnostic>,
}

impl LoadCache {
    /// The files under `content/` as they are now: the kept list patched with `changed`, or
    /// a new walk (keeping what was read of the files `changed` does not name).
    pub(super) fn walked(&mut self, root: &Path, content: &Path, changed: &Changed) -> Walked {
        let paths = match (changed, self.walked.take()) {
            (Changed::Paths(paths), Some(old)) => match patch(root, old, paths) {
                Ok(patched) => return patched,
                Err(old) => Some((paths, old)),
            },
            _ => None,
        };
        #[cfg(test)]
        {
            self.walks += 1;
        }
        let mut walked = super::walk::walk(root, content);
        if let Some((paths, old)) = paths {
            let mut kept: HashMap<OsString, _> = (old.files.into_iter())
                .filter(|s| !names(paths, &s.rel))
                .filter_map(|s| Some((s.rel.into_os_string(), s.result?)))
                .collect();
            for slot in &mut walked.files {
                slot.result = kept.remove(slot.rel.as_os_str());
            }
        }
        walked
    }

    /// Keeps `walked` for the next load.
    pub(super) fn keep(&mut self, walked: Walked) {
        self.walked = Some(walked);
    }

    /// The checks across entries (intros marked, duplicates reported and dropped,
    /// references resolved), or what they found last time when no entry changed its name,
    /// place, references or field lines and the same entries failed to load. Returns the
    /// entries kept, the entries whose kind marking changed (by position in `entries`),
    /// and the problems.
    pub(super) fn across(
        &mut self,
        mut entries: Vec<Arc<Entry>>,
        failed: HashSet<(String, String)>,
        glossary: &str,
    ) -> Acrossed {
        let last = self.across.take().filter(|a| {
            a.failed == failed
                && a.glossary == glossary
                && a.entries.len() == entries.len()
                && (a.entries.iter().zip(&entries)).all(|(a, b)| Arc::ptr_eq(a, b) || same(a, b))
        });
        let mut marked = Vec::new();
        let (dropped, problems) = match last {
            Some(last) => {
                // The same sections: a changed entry is what the entry it replaces was.
                for (i, (e, was)) in entries.iter_mut().zip(&last.entries).enumerate() {
                    if e.kind != was.kind {
                        Arc::make_mut(e).kind = was.kind;
                        marked.push((i, e.clone()));
                    }
                }
                (last.dropped, last.problems)
            }
            None => {
                for i in super::mark_intros(&mut entries) {
                    marked.push((i, entries[i].clone()));
                }
                let mut problems = Vec::new();
                let dropped = check_unique(&entries, &mut problems);
                let kept = without(&entries, &dropped);
                check_references(&kept, glossary, &failed, &mut problems);
                (dropped, problems)
            }
        };
        let kept = without(&entries, &dropped);
        self.across = Some(Across {
            entries,
            failed,
            glossary: glossary.to_string(),
            dropped,
            problems: problems.clone(),
        });
        (kept, marked, problems)
    }
}

/// The entries kept, the entries whose kind marking changed (by position among those
/// given), and the problems.
type Acrossed = (Vec<Arc<Entry>>, Vec<(usize, Arc<Entry>)>, Vec<Diagnostic>);

/// Whether two versions of an entry look the same to the checks across entries: file,
/// place, name, references, and the lines their problems would name.
fn same(a: &Entry, b: &Entry) -> bool {
    a.file == b.file
        && a.section == b.section
        && a.slug == b.slug
        && a.meta.slug == b.meta.slug
        && a.meta.related == b.meta.related
        && a.meta.appears_in == b.meta.appears_in
        && a.lines == b.lines
}

/// `entries` less those at the positions `dropped` (ascending).
fn without(entries: &[Arc<Entry>], dropped: &[usize]) -> Vec<Arc<Entry>> {
    let mut dropped = dropped.iter().peekable();
    (entries.iter().enumerate())
        .filter(|(i, _)| dropped.next_if_eq(&i).is_none())
        .map(|(_, e)| e.clone())
        .collect()
}

/// Whether `paths` names `rel` or a folder above it.
fn names(paths: &BTreeSet<PathBuf>, rel: &Path) -> bool {
    rel.ancestors().any(|a| paths.contains(a))
}

/// The kept walk with each changed path looked at again: a file removed leaves the lists,
/// a file added or changed is placed again (and read again). Anything a walk would treat
/// otherwise than a plain file gives the list back (`Err`) for a walk: a folder (added,
/// removed or renamed), a symbolic link, a path under a link, `content/` itself.
fn patch(root: &Path, mut w: Walked, paths: &BTreeSet<PathBuf>) -> Result<Walked, Walked> {
    for p in paths {
        let mut parts = p.components();
        if parts.next() != Some(Component::Normal("content".as_ref())) {
            continue; // not the walk's (static/ changes come along)
        }
        let mut names = Vec::new();
        for part in parts {
            match part {
                Component::Normal(name) => names.push(name),
                _ => return Err(w),
            }
        }
        if names.is_empty() {
            return Err(w);
        }
        if names.iter().any(|n| is_hidden(n)) {
            continue; // the walk never goes there
        }
        if w.lists_under(p) {
            return Err(w); // was a folder
        }
        // The walk does not follow links to folders: a path under one is not listed.
        for folder in p.ancestors().skip(1) {
            if folder == Path::new("content") {
                break;
            }
            match std::fs::symlink_metadata(root.join(folder)) {
                Ok(m) if m.is_dir() => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                _ => return Err(w),
            }
        }
        w.remove(p);
        let abs = root.join(p);
        match std::fs::symlink_metadata(&abs) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {} // removed
            Ok(m) if !m.is_dir() && !m.file_type().is_symlink() => {
                w.add(classify(p.clone(), abs));
            }
            _ => return Err(w),
        }
    }
    Ok(w)
}

impl Walked {
    /// Whether something listed lies under `folder`.
    fn lists_under(&self, folder: &Path) -> bool {
        let folder = bytes(folder);
        let under = |p: &Path| {
            let p = bytes(p);
            p.len() > folder.len()
                && p.starts_with(folder)
                && std::path::is_separator(p[folder.len()].into())
        };
        (self.files.iter()).any(|s| under(&s.rel))
            || self.assets.iter().any(|(rel, _)| under(rel))
            || (self.problems.iter().chain(&self.skipped)).any(|d| under(&d.file))
    }

    /// Drops whatever is listed at `rel`.
    fn remove(&mut self, rel: &Path) {
        let rel = bytes(rel);
        self.files.retain(|s| bytes(&s.rel) != rel);
        self.assets.retain(|(r, _)| bytes(r) != rel);
        self.problems.retain(|d| bytes(&d.file) != rel);
        self.skipped.retain(|d| bytes(&d.file) != rel);
    }

    /// Lists a file where a sorted walk would.
    fn add(&mut self, found: Found) {
        match found {
            Found::Entry(rel, abs) => {
                let i = self.files.partition_point(|s| before(&s.rel, &rel));
                let slot = Slot {
                    rel,
                    abs,
                    link: false,
                    result: None,
                };
                self.files.insert(i, slot);
            }
            Found::Asset(rel, abs) => {
                let i = self.assets.partition_point(|(p, _)| before(p, &rel));
                self.assets.insert(i, (rel, abs));
            }
            Found::Skipped(d) => {
                let i = self.skipped.partition_point(|s| before(&s.file, &d.file));
                self.skipped.insert(i, d);
            }
        }
    }
}

/// A path's bytes: the walk's paths are built by joining names, so equal paths have equal
/// bytes (and comparing bytes does not take the paths apart).
fn bytes(p: &Path) -> &[u8] {
    p.as_os_str().as_encoded_bytes()
}

/// Whether a walk sorted by name lists `a` before `b`.
fn before(a: &Path, b: &Path) -> bool {
    walk_key(a).lt(walk_key(b))
}
