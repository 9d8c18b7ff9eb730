//! Watches the site's source folders with the platform's file watcher (`notify`: inotify,
//! FSEvents, ReadDirectoryChangesW) and hands over changes in debounced batches, so an
//! editor's save — often several events (write to a temporary file, rename, chmod) —
//! triggers one rebuild.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher};

/// The folders whose changes rebuild the site.
pub(super) const WATCHED: [&str; 5] = ["content", "templates", "static", "measurements", "kernels"];
/// A batch ends after this long without a new event…
const QUIET: Duration = Duration::from_millis(25);
/// …or this long after its first event, whichever comes first.
const LONGEST: Duration = Duration::from_millis(300);

/// Why the watcher could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot watch {path} for changes: {error}")]
pub struct WatchError {
    path: PathBuf,
    error: notify::Error,
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
        let mut paths = BTreeSet::new();
        loop {
            let first = self.rx.recv().ok()?;
            self.add(&mut paths, first);
            if !paths.is_empty() {
                break;
            }
        }
        let start = Instant::now();
        while start.elapsed() < LONGEST {
            match self.rx.recv_timeout(QUIET) {
                Ok(ev) => self.add(&mut paths, ev),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        Some(paths)
    }

    fn add(&self, paths: &mut BTreeSet<PathBuf>, ev: notify::Result<notify::Event>) {
        if let Ok(ev) = &ev {
            self.watch_new_folders(&ev.paths, paths);
        }
        match ev {
            // Reads do not change the site.
            Ok(ev) if matches!(ev.kind, EventKind::Access(_)) => {}
            Ok(ev) => paths.extend(
                ev.paths
                    .into_iter()
                    .filter(|p| *p == self.config || self.wanted.iter().any(|w| p.starts_with(w))),
            ),
            // The watcher lost events (queue overflow): treat everything as changed.
            Err(_) => {
                paths.insert(PathBuf::new());
            }
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
}
