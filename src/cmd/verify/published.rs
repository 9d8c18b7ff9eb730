//! A published site as `verify` reads it, from a folder or over HTTPS.
use crate::editorial::provenance::Provenance;

/// Reads a page's bytes by its file in the site, or says why it could not.
pub(super) type ReadPage = Box<dyn Fn(&str) -> Result<Vec<u8>, String> + Sync>;

/// A published site as `verify` reads it: its provenance, the one page asked for (`None`:
/// every page the provenance lists), and how a page's bytes are read.
pub(super) struct Published {
    pub(super) prov: Provenance,
    /// Where the provenance was read (a path, a URL), for messages.
    pub(super) prov_at: String,
    /// The page's file, relative to the site.
    pub(super) only: Option<String>,
    /// A page's bytes.
    pub(super) read: ReadPage,
    /// Pages read at once; `None`: one a core.
    pub(super) threads: Option<usize>,
}
