//! Orchestrates a build (stub).
use std::path::Path;

use crate::cli::{BuildArgs, CheckArgs, Failure, ServeArgs};

/// Runs `coursegen build`.
pub fn cli_build(_root: &Path, _args: &BuildArgs) -> Result<(), Failure> {
    Err(Failure::Usage(anyhow::anyhow!("not built yet")))
}
/// Runs `coursegen check`.
pub fn cli_check(_root: &Path, _args: &CheckArgs) -> Result<(), Failure> {
    Err(Failure::Usage(anyhow::anyhow!("not built yet")))
}
/// Runs `coursegen serve`.
pub fn cli_serve(_root: &Path, _args: &ServeArgs) -> Result<(), Failure> {
    Err(Failure::Usage(anyhow::anyhow!("not built yet")))
}
