//! Content loading (stub).
use std::path::Path;

use crate::cli::{Failure, NewArgs};

/// Runs `coursegen new`.
pub fn cli_new(_root: &Path, _args: &NewArgs) -> Result<(), Failure> {
    Err(Failure::Usage(anyhow::anyhow!("not built yet")))
}
