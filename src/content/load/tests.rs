//! The load through its cache against a fresh load, after edits of every kind.
use std::collections::BTreeSet;
use std::path::PathBuf;

use super::*;

fn entry(title: &str, extra: &str) -> String {
    format!("---\ntitle: {title}\n{extra}---\nBody of {title}.\n")
}

struct Dir {
    dir: tempfile::TempDir,
}

impl Dir {
    fn new() -> Dir {
        Dir {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.root().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        PathBuf::from(rel)
    }

    fn remove(&self, rel: &str) -> PathBuf {
        std::fs::remove_file(self.root().join(rel)).unwrap();
        PathBuf::from(rel)
    }

    fn rename(&self, from: &str, to: &str) -> Vec<PathBuf> {
        std::fs::rename(self.root().join(from), self.root().join(to)).unwrap();
        vec![PathBuf::from(from), PathBuf::from(to)]
    }
}

/// Everything two loads say is the same (entries with their kind, problems, warnings…).
#[track_caller]
fn assert_same(a: &Site, b: &Site, what: &str) {
    let entries = |s: &Site| s.entries.iter().map(|e| (**e).clone()).collect::<Vec<_>>();
    assert_eq!(entries(a), entries(b), "{what}");
    assert_eq!(a.assets, b.assets, "{what}");
    assert_eq!(a.warnings, b.warnings, "{what}");
    assert_eq!(a.problems, b.problems, "{what}");
    assert_eq!(a.unloaded, b.unloaded, "{what}");
}

type Step = Box<dyn Fn(&Dir) -> Vec<PathBuf>>;

/// After each change, a load through the cache equals a fresh load; entries it was not
/// told changed keep their allocation (they were not read again), those it was told
/// changed are new; and a plain edit makes no walk of `content/`.
#[test]
fn a_load_through_the_cache_equals_a_fresh_load() {
    let dir = Dir::new();
    let root = dir.root();
    dir.write(
        "content/glossary/warp.md",
        &entry("Warp", "related: [lane]\n"),
    );
    dir.write("content/glossary/lane.md", &entry("Lane", ""));
    dir.write("content/days/day-1.md", &entry("Day 1", ""));
    dir.write("content/glossary/img.png", "png");
    let mut cache = LoadCache::default();
    let first = load_changed(root, DEFAULT_GLOSSARY, &mut cache, &Changed::All);
    assert_same(&first, &load(root, DEFAULT_GLOSSARY), "first");
    let mut before = first;
    // (what, the edit, whether it may walk)
    let steps: Vec<(&str, Step, bool)> = vec![
        (
            "a body",
            Box::new(|d| vec![d.write("content/glossary/lane.md", &entry("Lane", "term: L\n"))]),
            false,
        ),
        (
            "a front matter broken (a reference to it is not reported again)",
            Box::new(|d| vec![d.write("content/glossary/lane.md", "---\ntitle: [\n---\n")]),
            false,
        ),
        (
            "fixed",
            Box::new(|d| vec![d.write("content/glossary/lane.md", &entry("Lane", ""))]),
            false,
        ),
        (
            "an entry added",
            Box::new(|d| vec![d.write("content/glossary/bank.md", &entry("Bank", ""))]),
            false,
        ),
        (
            "an intro for the glossary",
            Box::new(|d| vec![d.write("content/glossary.md", &entry("Glossary", ""))]),
            false,
        ),
        (
            "the intro edited: still an intro",
            Box::new(|d| vec![d.write("content/glossary.md", &entry("Glossary!", ""))]),
            false,
        ),
        (
            "a reference to a missing day, then one added",
            Box::new(|d| {
                vec![d.write(
                    "content/glossary/bank.md",
                    &entry("Bank", "appears_in: [day-9]\n"),
                )]
            }),
            false,
        ),
        (
            "the day added",
            Box::new(|d| vec![d.write("content/days/day-9.md", &entry("Day 9", ""))]),
            false,
        ),
        (
            "the reference changed on its line, to a day that does not exist",
            Box::new(|d| {
                vec![d.write(
                    "content/glossary/bank.md",
                    &entry("Bank", "appears_in: [day-7]\n"),
                )]
            }),
            false,
        ),
        (
            "and a glossary reference on the same line",
            Box::new(|d| {
                vec![d.write(
                    "content/glossary/bank.md",
                    &entry("Bank", "related: [nope]\n"),
                )]
            }),
            false,
        ),
        (
            "a duplicate slug",
            Box::new(|d| vec![d.write("content/days/x.md", &entry("X", "slug: DAY-1\n"))]),
            false,
        ),
        (
            "the first of the pair gone: the second is kept",
            Box::new(|d| vec![d.remove("content/days/day-1.md")]),
            false,
        ),
        (
            "an asset, a file left out and a hidden file",
            Box::new(|d| {
                vec![
                    d.write("content/glossary/figure.svg", "<svg/>"),
                    d.write("content/glossary/notes.md~", "backup"),
                    d.write("content/glossary/.lane.md.swp", "swap"),
                ]
            }),
            false,
        ),
        (
            "the asset removed, the backup kept",
            Box::new(|d| vec![d.remove("content/glossary/figure.svg")]),
            false,
        ),
        (
            "a new folder with an entry (the folder named, as the watcher names it)",
            Box::new(|d| {
                let file = d.write("content/glossary/memory/sector.md", &entry("Sector", ""));
                vec![PathBuf::from("content/glossary/memory"), file]
            }),
            true,
        ),
        (
            "the folder renamed",
            Box::new(|d| d.rename("content/glossary/memory", "content/glossary/mem")),
            true,
        ),
        (
            "the section goes: the intro is a page again, unread",
            Box::new(|d| {
                let mut gone = Vec::new();
                for f in ["warp", "lane", "bank", "mem/sector"] {
                    gone.push(d.remove(&format!("content/glossary/{f}.md")));
                }
                gone
            }),
            false,
        ),
        (
            "a folder named as changed stands for the files under it",
            Box::new(|d| {
                d.write("content/days/x.md", &entry("Day one", ""));
                vec![PathBuf::from("content/days")]
            }),
            true,
        ),
        (
            "paths outside content/ change nothing",
            Box::new(|_| {
                vec![
                    PathBuf::from("static/style.css"),
                    PathBuf::from("templates"),
                ]
            }),
            false,
        ),
    ];
    for (what, step, may_walk) in steps {
        let changed = step(&dir);
        let walks = cache.walks;
        let next = load_changed(
            root,
            DEFAULT_GLOSSARY,
            &mut cache,
            &Changed::Paths(changed.iter().cloned().collect()),
        );
        assert_same(&next, &load(root, DEFAULT_GLOSSARY), what);
        if !may_walk {
            assert_eq!(cache.walks, walks, "{what}: walked content/ again");
        }
        for e in &next.entries {
            let told = changed.iter().any(|c| e.file.starts_with(c));
            let was = before.entries.iter().find(|b| b.file == e.file);
            match was {
                Some(was) if !told && was.kind == e.kind => {
                    assert!(
                        Arc::ptr_eq(was, e),
                        "{what}: {} read again",
                        e.file.display()
                    );
                }
                Some(was) if told => {
                    assert!(
                        !Arc::ptr_eq(was, e),
                        "{what}: {} not read again",
                        e.file.display()
                    );
                }
                _ => {}
            }
        }
        before = next;
    }
}

#[cfg(unix)]
#[test]
fn symbolic_links_are_read_every_time_and_walked_as_a_walk_does() {
    let dir = Dir::new();
    let root = dir.root();
    dir.write("notes/lane.md", &entry("Lane", ""));
    dir.write("content/glossary/warp.md", &entry("Warp", ""));
    std::os::unix::fs::symlink(
        root.join("notes/lane.md"),
        root.join("content/glossary/lane.md"),
    )
    .unwrap();
    let mut cache = LoadCache::default();
    load_changed(root, DEFAULT_GLOSSARY, &mut cache, &Changed::All);
    // The link's target changes: the watcher of content/ does not see it.
    dir.write("notes/lane.md", &entry("Lane, edited", ""));
    let next = load_changed(
        root,
        DEFAULT_GLOSSARY,
        &mut cache,
        &Changed::Paths(BTreeSet::new()),
    );
    assert_same(&next, &load(root, DEFAULT_GLOSSARY), "target edited");
    assert!(next.entries.iter().any(|e| e.meta.title == "Lane, edited"));
    // A link named as changed, and a link to a folder added: walked.
    std::os::unix::fs::symlink(root.join("notes"), root.join("content/notes")).unwrap();
    let changed = [PathBuf::from("content/notes")].into();
    let next = load_changed(root, DEFAULT_GLOSSARY, &mut cache, &Changed::Paths(changed));
    assert_same(&next, &load(root, DEFAULT_GLOSSARY), "link to a folder");
    assert!(
        next.problems
            .iter()
            .any(|d| d.message.contains("not followed")),
        "{:?}",
        next.problems
    );
}

/// The cache relies on being told: a file changed without saying so keeps its old entry
/// (after a watcher event is lost, `serve` loads with `Changed::All`).
#[test]
fn only_the_files_named_are_read_again() {
    let dir = Dir::new();
    let root = dir.root();
    dir.write("content/glossary/lane.md", &entry("Lane", ""));
    let mut cache = LoadCache::default();
    load_changed(root, DEFAULT_GLOSSARY, &mut cache, &Changed::All);
    dir.write("content/glossary/lane.md", &entry("Renamed", ""));
    let quiet = load_changed(
        root,
        DEFAULT_GLOSSARY,
        &mut cache,
        &Changed::Paths(BTreeSet::new()),
    );
    assert_eq!(quiet.entries[0].meta.title, "Lane");
    let all = load_changed(root, DEFAULT_GLOSSARY, &mut cache, &Changed::All);
    assert_eq!(all.entries[0].meta.title, "Renamed");
}

/// `related:` names entries of the folder the config calls the glossary, and a load
/// through the cache with another folder (the config changed under `serve`) resolves the
/// references again instead of keeping what the last folder found.
#[test]
fn related_names_the_configured_glossary_folder_and_the_cache_follows_it() {
    let dir = Dir::new();
    let root = dir.root();
    dir.write("content/terms/tide.md", &entry("Tide", ""));
    dir.write("content/about.md", &entry("About", "related: [tide]\n"));
    let problems = |site: &Site| -> Vec<String> {
        (site.problems.iter())
            .map(|d| format!("{}: {}", d.message, d.help.as_deref().unwrap_or("")))
            .collect()
    };
    assert_eq!(problems(&load(root, "terms")), Vec::<String>::new());
    let missing = problems(&load(root, DEFAULT_GLOSSARY));
    assert_eq!(
        missing,
        [
            "`tide` is not a glossary entry: create content/glossary/tide.md (`coursegen new glossary tide`) or remove it"
        ]
    );
    let mut cache = LoadCache::default();
    let first = load_changed(root, DEFAULT_GLOSSARY, &mut cache, &Changed::All);
    assert_eq!(problems(&first), missing);
    let moved = load_changed(root, "terms", &mut cache, &Changed::Paths(BTreeSet::new()));
    assert_eq!(problems(&moved), Vec::<String>::new());
}
