//! `coursegen serve`: checks the config once, then hands over to `serve`.
use std::path::{Path, PathBuf};

use clap::Args;

use super::{CacheArgs, Failure, load_config};

/// Flags of `coursegen serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1.
    #[arg(long, default_value_t = 1111)]
    pub port: u16,
    /// Serve the publish build instead of the preview with drafts.
    #[arg(long)]
    pub no_drafts: bool,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Runs `coursegen serve` until Ctrl-C.
pub fn run_serve(
    root: &Path,
    config_file: Option<PathBuf>,
    args: ServeArgs,
) -> Result<(), Failure> {
    load_config(root, config_file.as_deref())?;
    crate::serve::serve(
        root,
        args.port,
        !args.no_drafts,
        config_file,
        args.cache.dir(root)?,
    )
    .map_err(|e| Failure::Usage(e.into()))
}
