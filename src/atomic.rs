//! Writing a file whole: a temporary file in the same folder, flushed to disk, then renamed
//! over the old one, so a reader or a crash sees the old file or the new one, never half of
//! either. Records, `sign`'s edits and `init`'s files are written so.
use std::io::Write;
use std::path::Path;

/// The mode the new file gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// 0644, an ordinary file others read (a temporary file is created 0600).
    Ordinary,
    /// The mode of the file it replaces (an entry `sign` edits), else the temporary's.
    Kept,
}

/// Writes `bytes` to `path` atomically, with the mode `mode` says.
pub(crate) fn write(path: &Path, bytes: &[u8], mode: Mode) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    match mode {
        Mode::Kept => {
            if let Ok(meta) = std::fs::metadata(path) {
                tmp.as_file().set_permissions(meta.permissions())?;
            }
        }
        #[cfg(unix)]
        Mode::Ordinary => {
            use std::os::unix::fs::PermissionsExt;
            tmp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644))?;
        }
        #[cfg(not(unix))]
        Mode::Ordinary => {}
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
