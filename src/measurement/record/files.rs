//! The kernels' sources and manifests (`kernels/<name>.cu` and `.yaml`) as one build sees
//! them: each file read from disk once, however many parts of the build need it (the
//! Measured view and the staleness check both hash them), so both judge the same bytes.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What reading one file gave: its bytes, or the error (kept as kind and message, since an
/// `io::Error` cannot be shared).
type Read = Result<Arc<[u8]>, (std::io::ErrorKind, String)>;

/// The files of `kernels/`, read on first use and kept.
#[derive(Debug)]
pub(crate) struct KernelFiles {
    dir: PathBuf,
    read: Mutex<HashMap<PathBuf, Read>>,
}

impl KernelFiles {
    /// The kernels in `dir` (a site's `kernels/`); nothing is read yet.
    pub(crate) fn new(dir: &Path) -> KernelFiles {
        KernelFiles {
            dir: dir.to_path_buf(),
            read: Mutex::new(HashMap::new()),
        }
    }

    /// The path of `kernels/<kernel>.<ext>`.
    pub(crate) fn path(&self, kernel: &str, ext: &str) -> PathBuf {
        self.dir.join(format!("{kernel}.{ext}"))
    }

    /// The names of the folder's `*.<ext>` files (`cu`: the kernels, `yaml`: the manifests),
    /// without the extension, sorted; none when the folder is missing.
    pub(crate) fn names(&self, ext: &str) -> std::io::Result<Vec<String>> {
        let items = match std::fs::read_dir(&self.dir) {
            Ok(items) => items,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut names: Vec<String> = items
            .filter_map(|i| i.ok().map(|i| i.path()))
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_owned))
            .collect();
        names.sort();
        Ok(names)
    }

    /// The bytes of `kernels/<kernel>.<ext>`, read from disk the first time only.
    pub(crate) fn read(&self, kernel: &str, ext: &str) -> std::io::Result<Arc<[u8]>> {
        let path = self.path(kernel, ext);
        let mut read = self.read.lock().unwrap_or_else(|e| e.into_inner());
        let dir = self.dir.clone();
        let got = read.entry(path).or_insert_with_key(|path| {
            own_file(&dir)
                .and_then(|()| own_file(path))
                .and_then(|()| std::fs::read(path))
                .map(Arc::from)
                .map_err(|e| (e.kind(), e.to_string()))
        });
        got.clone()
            .map_err(|(kind, message)| std::io::Error::new(kind, message))
    }
}

/// A kernel, its manifest and `kernels/` itself are the site's own: not a link (whose
/// target, a token outside the root, would be hashed and quoted in an error), and a file
/// or folder, never a FIFO (which would block the read).
pub(crate) fn own_file(path: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Err(std::io::Error::other(
            "is a symbolic link: kernels, manifests and measurement records are files of their own",
        ));
    }
    if !meta.is_file() && !meta.is_dir() {
        return Err(std::io::Error::other(
            "is not a regular file (a FIFO, device or socket)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_is_read_once_and_errors_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("k.cu"), "source").unwrap();
        let files = KernelFiles::new(dir.path());
        assert_eq!(&*files.read("k", "cu").unwrap(), b"source");
        // Changed on disk after the first read: the build keeps judging what it read.
        std::fs::write(dir.path().join("k.cu"), "edited").unwrap();
        assert_eq!(&*files.read("k", "cu").unwrap(), b"source");
        let missing = files.read("k", "yaml").unwrap_err();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
        std::fs::write(dir.path().join("k.yaml"), "manifest").unwrap();
        assert!(files.read("k", "yaml").is_err(), "the error is kept too");
        // A new build reads afresh.
        assert_eq!(
            &*KernelFiles::new(dir.path()).read("k", "cu").unwrap(),
            b"edited"
        );
    }
}
