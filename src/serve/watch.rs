//! Watches the site's source folders with the platform's file watcher (`notify`: inotify,
//! FSEvents, ReadDirectoryChangesW) and hands over changes in debounced batches, so an
//! editor's save — often several events (write to a temporary file, rename, chmod) —
//! triggers one rebuild.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind, RenameMode};
use notify::{EventKind, RecursiveMode, Watcher};

/// The folders whose changes rebuild the site.
pub(super) const WATCHED: [&str; 5] = ["content", "templates", "static", "measurements", "kernels"];
/// A batch ends after this long without a new event…
const QUIET: Duration = Duration::from_millis(25);
/// …or, once every file it saw written was closed or renamed into place (the save is
/// done), after this long without one: the attribute change an editor may make right after
/// still joins the batch, and the rebuild does not wait out [`QUIET`]
/// (`benches/serve_latency.sh`). Watchers that report no close (FSEvents) wait [`QUIET`].
const SETTLED: Duration = Duration::from_millis(3);
/// …or this long after its first event, whichever comes first.
const LONGEST: Duration = Duration::from_millis(300);

/// Why the watcher could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot watch {path} for changes: {error}")]
pub(crate) struct WatchError {
    path: PathBuf,
    error: notify::Error,
}

/// The changes of one batch.
#[derive(Default)]
struct Batch {
    /// Every path touched.
    paths: BTreeSet<PathBuf>,
    /// Files written and not yet closed (nor renamed into place).
    writing: BTreeSet<PathBuf>,
}

/// A running watcher; dropping it stops watching.
pub(super) struct Changes {
    watcher: std::cell::RefCell<notify::RecommendedWatcher>,
    /// The folders of [`WATCHED`] not there at the start: watched once they appear (a
    /// `templates/` made to override the built-in theme, say).
    missing: std::cell::RefCell<Vec<PathBuf>>,
    rx: Receiver<notify::Result<notify::Event>>,
    /// Changes elsewhere (say, `public/` beside the config file) are dropped.
    wanted: Vec<PathBuf>,
    config: PathBuf,
}

impl Changes {
    /// Starts watching the folders of [`WATCHED`] that exist under `root`, the config
    /// file (through its folder, so that creating it counts too), and `root` itself, so
    /// that a watched folder made later is watched from then on. An absent folder is no
    /// error.
    pub(super) fn watch(root: &Path, config: &Path) -> Result<Self, WatchError> {
        let (tx, rx) = channel();
        let fail = |path: &Path| {
            let path = path.to_path_buf();
            move |error| WatchError { path, error }
        };
        let mut watcher = notify::recommended_watcher(move |ev| {
            let _ = tx.send(ev);
        })
        .map_err(fail(root))?;
        let (present, missing): (Vec<PathBuf>, Vec<PathBuf>) = WATCHED
            .iter()
            .map(|d| root.join(d))
            .partition(|d| d.is_dir());
        for dir in &present {
            watcher
                .watch(dir, RecursiveMode::Recursive)
                .map_err(fail(dir))?;
        }
        let mut parents = vec![root.to_path_buf()];
        parents.extend(
            config
                .parent()
                .filter(|d| *d != root)
                .map(Path::to_path_buf),
        );
        for dir in parents.iter().filter(|d| d.is_dir()) {
            watcher
                .watch(dir, RecursiveMode::NonRecursive)
                .map_err(fail(dir))?;
        }
        Ok(Changes {
            watcher: std::cell::RefCell::new(watcher),
            missing: std::cell::RefCell::new(missing),
            rx,
            wanted: WATCHED.iter().map(|d| root.join(d)).collect(),
            config: config.to_path_buf(),
        })
    }

    /// Blocks until something changed, then returns every path touched until the folders
    /// are quiet again; `None` when the watcher stopped.
    pub(super) fn next_batch(&self) -> Option<BTreeSet<PathBuf>> {
        let mut batch = Batch::default();
        loop {
            let first = self.rx.recv().ok()?;
            self.add(&mut batch, first);
            if !batch.paths.is_empty() {
                break;
            }
        }
        let start = Instant::now();
        while start.elapsed() < LONGEST {
            let quiet = match batch.writing.is_empty() {
                true => SETTLED,
                false => QUIET,
            };
            match self.rx.recv_timeout(quiet) {
                Ok(ev) => self.add(&mut batch, ev),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        Some(batch.paths)
    }

    fn add(&self, batch: &mut Batch, ev: notify::Result<notify::Event>) {
        if let Ok(ev) = &ev {
            self.watch_new_folders(&ev.paths, &mut batch.paths);
        }
        let ev = match ev {
            Ok(ev) => ev,
            // The watcher lost events (queue overflow): treat everything as changed.
            Err(_) => {
                batch.paths.insert(PathBuf::new());
                return;
            }
        };
        let wanted: Vec<PathBuf> = (ev.paths.into_iter())
            .filter(|p| *p == self.config || self.wanted.iter().any(|w| p.starts_with(w)))
            .collect();
        match ev.kind {
            // Written and closed, or moved into place: that file's save is done.
            EventKind::Access(AccessKind::Close(AccessMode::Write))
            | EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Both)) => {
                for p in &wanted {
                    batch.writing.remove(p);
                }
            }
            // Being written: the batch waits for its close.
            EventKind::Create(CreateKind::File) | EventKind::Modify(ModifyKind::Data(_)) => {
                batch.writing.extend(wanted.iter().cloned());
            }
            _ => {}
        }
        // Reads do not change the site (a close after writing follows a write, counted).
        if !matches!(ev.kind, EventKind::Access(_)) {
            batch.paths.extend(wanted);
        }
    }

    /// Starts watching a folder of [`WATCHED`] that has just appeared; everything in it
    /// counts as changed (it may have been moved in whole). One that cannot be watched is
    /// tried again at its next event.
    fn watch_new_folders(&self, touched: &[PathBuf], paths: &mut BTreeSet<PathBuf>) {
        let mut missing = self.missing.borrow_mut();
        if missing.is_empty() || !touched.iter().any(|p| missing.contains(p)) {
            return;
        }
        missing.retain(|dir| {
            if !touched.contains(dir) || !dir.is_dir() {
                return true;
            }
            let ok = (self.watcher.borrow_mut())
                .watch(dir, RecursiveMode::Recursive)
                .is_ok();
            if ok {
                paths.insert(dir.clone());
            }
            !ok
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next batch, or `None` after five seconds without one.
    fn batch(changes: Changes) -> (Option<BTreeSet<PathBuf>>, Changes) {
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let b = changes.next_batch();
            let _ = tx.send((b, changes));
        });
        match rx.recv_timeout(Duration::from_secs(5)) {
            Ok(got) => got,
            Err(_) => panic!("no change reported within five seconds"),
        }
    }

    #[test]
    fn a_theme_folder_made_after_the_start_is_watched_from_then_on() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("content")).unwrap();
        let changes = Changes::watch(root, &root.join("coursegen.toml")).unwrap();
        std::fs::create_dir_all(root.join("templates")).unwrap();
        let (got, changes) = batch(changes);
        assert!(got.unwrap().contains(&root.join("templates")));
        std::fs::write(root.join("templates/404.html"), "x").unwrap();
        let (got, _) = batch(changes);
        assert!(got.unwrap().contains(&root.join("templates/404.html")));
    }

    #[test]
    fn a_batch_settles_once_every_file_written_is_closed_or_renamed_into_place() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("content")).unwrap();
        let changes = Changes::watch(root, &root.join("coursegen.toml")).unwrap();
        let (a, b) = (root.join("content/a.md"), root.join("content/b.md"));
        let ev = |kind: EventKind, path: &Path| Ok(notify::Event::new(kind).add_path(path.into()));
        let mut batch = Batch::default();
        // Written in place: open until closed.
        changes.add(
            &mut batch,
            ev(
                EventKind::Modify(ModifyKind::Data(notify::event::DataChange::Any)),
                &a,
            ),
        );
        assert!(batch.writing.contains(&a));
        changes.add(
            &mut batch,
            ev(EventKind::Access(AccessKind::Close(AccessMode::Write)), &a),
        );
        assert!(batch.writing.is_empty());
        // An editor's save: a temporary file written, closed, renamed over the entry.
        let tmp = root.join("content/.b.md.swp");
        changes.add(&mut batch, ev(EventKind::Create(CreateKind::File), &tmp));
        changes.add(&mut batch, ev(EventKind::Create(CreateKind::File), &b));
        assert_eq!(batch.writing.len(), 2);
        changes.add(
            &mut batch,
            ev(
                EventKind::Access(AccessKind::Close(AccessMode::Write)),
                &tmp,
            ),
        );
        changes.add(
            &mut batch,
            ev(EventKind::Modify(ModifyKind::Name(RenameMode::To)), &b),
        );
        assert!(batch.writing.is_empty());
        // Every written path is in the batch; a close alone adds nothing, and nothing
        // outside the watched folders counts.
        changes.add(
            &mut batch,
            ev(
                EventKind::Modify(ModifyKind::Data(notify::event::DataChange::Any)),
                &root.join("public/x.html"),
            ),
        );
        assert!(batch.writing.is_empty());
        assert_eq!(batch.paths, BTreeSet::from([a, b, tmp]));
    }
}
