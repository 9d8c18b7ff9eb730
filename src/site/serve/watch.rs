//! Watches the site's source folders with the platform's file watcher (`notify`: inotify,
//! FSEvents, ReadDirectoryChangesW) and hands over changes in debounced batches, so an
//! editor's save — often several events (write to a temporary file, rename, chmod) —
//! triggers one rebuild. Uses `notify` only.
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
    _watcher: notify::RecommendedWatcher,
    rx: Receiver<notify::Result<notify::Event>>,
}

impl Changes {
    /// Starts watching the folders of [`WATCHED`] that exist under `root`.
    pub(super) fn watch(root: &Path) -> Result<Self, WatchError> {
        let (tx, rx) = channel();
        let fail = |path: &Path| {
            let path = path.to_path_buf();
            move |error| WatchError { path, error }
        };
        let mut watcher = notify::recommended_watcher(move |ev| {
            let _ = tx.send(ev);
        })
        .map_err(fail(root))?;
        for dir in WATCHED.iter().map(|d| root.join(d)).filter(|d| d.is_dir()) {
            watcher
                .watch(&dir, RecursiveMode::Recursive)
                .map_err(fail(&dir))?;
        }
        Ok(Changes {
            _watcher: watcher,
            rx,
        })
    }

    /// Blocks until something changed, then returns every path touched until the folders
    /// are quiet again; `None` when the watcher stopped.
    pub(super) fn next_batch(&self) -> Option<BTreeSet<PathBuf>> {
        let mut paths = BTreeSet::new();
        loop {
            let first = self.rx.recv().ok()?;
            add(&mut paths, first);
            if !paths.is_empty() {
                break;
            }
        }
        let start = Instant::now();
        while start.elapsed() < LONGEST {
            match self.rx.recv_timeout(QUIET) {
                Ok(ev) => add(&mut paths, ev),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        Some(paths)
    }
}

fn add(paths: &mut BTreeSet<PathBuf>, ev: notify::Result<notify::Event>) {
    match ev {
        // Reads do not change the site.
        Ok(ev) if matches!(ev.kind, EventKind::Access(_)) => {}
        Ok(ev) => paths.extend(ev.paths),
        // The watcher lost events (queue overflow): treat everything as changed.
        Err(_) => {
            paths.insert(PathBuf::new());
        }
    }
}
