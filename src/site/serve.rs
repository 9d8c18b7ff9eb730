//! `coursegen serve` (placeholder).
use std::path::Path;

use crate::cli::{Failure, ServeArgs};

/// Runs `coursegen serve`.
pub fn cli_serve(_root: &Path, _args: &ServeArgs) -> Result<(), Failure> {
    Err(Failure::Usage(anyhow::anyhow!(
        "serve is not available yet; use `coursegen build --drafts` and open public/"
    )))
}
