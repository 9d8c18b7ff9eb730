//! Staleness: a record is stale when the SHA-256 of the kernel source or of its manifest no
//! longer matches the hashes recorded when it was measured, or, for a kernel that included
//! the contract header `coursegen.cuh`, the header's.
use std::path::PathBuf;

use super::{KernelFiles, Loaded, Record, RecordSet, RecordsError};
use crate::canonical::sha256_hex;

/// Whether a record still describes the kernel in `kernels/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Source and manifest hash as recorded.
    Fresh,
    /// Something changed since the record was made.
    Stale {
        /// The `.cu` file changed.
        source_changed: bool,
        /// The manifest changed.
        manifest_changed: bool,
        /// The contract header the kernel includes changed (another coursegen, or the
        /// course's own `kernels/coursegen.cuh`).
        header_changed: bool,
    },
}

impl Record {
    /// Compares the recorded hashes with the current kernel source, manifest and contract
    /// header bytes (the header only when the record states its hash).
    pub fn freshness(&self, source: &[u8], manifest: &[u8], header: &[u8]) -> Freshness {
        let source_changed = sha256_hex(source) != self.build.source_sha256;
        let manifest_changed = sha256_hex(manifest) != self.build.manifest_sha256;
        let header_changed =
            (self.build.header_sha256.as_ref()).is_some_and(|h| *h != sha256_hex(header));
        if source_changed || manifest_changed || header_changed {
            Freshness::Stale {
                source_changed,
                manifest_changed,
                header_changed,
            }
        } else {
            Freshness::Fresh
        }
    }
}

/// A record whose kernel changed since it was measured; `Display` is the message `check`
/// and `build` print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StaleRecord {
    /// The kernel's name.
    pub(crate) kernel: String,
    /// The stale record file.
    pub(crate) path: PathBuf,
    /// The `.cu` file changed.
    pub(crate) source_changed: bool,
    /// The manifest changed.
    pub(crate) manifest_changed: bool,
    /// The contract header changed.
    pub(crate) header_changed: bool,
}

impl std::fmt::Display for StaleRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut changed = Vec::new();
        if self.source_changed {
            changed.push(format!("kernels/{}.cu", self.kernel));
        }
        if self.manifest_changed {
            changed.push(format!("kernels/{}.yaml", self.kernel));
        }
        if self.header_changed {
            changed.push("the contract header coursegen.cuh it includes".to_owned());
        }
        let what = match changed.len() {
            1 => format!("{} has", changed[0]),
            _ => format!("{} have", changed.join(" and ")),
        };
        write!(
            f,
            "record `{}` of kernel `{}` is stale: {what} changed since it was measured; \
             re-run `coursegen measure --gpu --kernel {}` on that GPU and commit the record",
            self.path.display(),
            self.kernel,
            self.kernel
        )
    }
}

/// Compares every record in `set` with `kernels/<kernel>.cu` and `.yaml` under `kernels`,
/// and with `header`, the contract header the course compiles with. A record whose kernel
/// files are gone is an error naming the record.
pub(crate) fn stale_records(
    kernels: &KernelFiles,
    set: &RecordSet,
    header: &[u8],
) -> Result<Vec<StaleRecord>, Vec<RecordsError>> {
    let mut stale = Vec::new();
    let mut errors = Vec::new();
    for (kernel, records) in &set.by_kernel {
        let read = |ext: &str| {
            kernels
                .read(kernel, ext)
                .map_err(RecordsError::io(&kernels.path(kernel, ext)))
        };
        let (source, manifest) = match (read("cu"), read("yaml")) {
            (Ok(s), Ok(m)) => (s, m),
            (Err(e), _) | (_, Err(e)) => {
                errors.extend(records.iter().map(|l| orphan(l, &e)));
                continue;
            }
        };
        for Loaded { path, record } in records {
            if let Freshness::Stale {
                source_changed,
                manifest_changed,
                header_changed,
            } = record.freshness(&source, &manifest, header)
            {
                stale.push(StaleRecord {
                    kernel: kernel.clone(),
                    path: path.clone(),
                    source_changed,
                    manifest_changed,
                    header_changed,
                });
            }
        }
    }
    if errors.is_empty() {
        Ok(stale)
    } else {
        Err(errors)
    }
}

fn orphan(loaded: &Loaded, cause: &RecordsError) -> RecordsError {
    RecordsError::Invalid {
        path: loaded.path.clone(),
        message: format!(
            "its kernel cannot be read ({cause}); delete the record if the kernel was removed"
        ),
    }
}
