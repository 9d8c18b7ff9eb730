//! `coursegen eject`: writes the built-in theme (`theme::builtin`) into the site's
//! `templates/` and `static/`, to customise. Refuses to replace a file that is there unless
//! `--force`; writes through `init::write_files`.
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use clap::Args;

use super::{Failure, emit};
use crate::theme;

/// Arguments of `coursegen eject`.
#[derive(Debug, Args)]
pub struct EjectArgs {
    /// Replace files that are already in templates/ or static/.
    #[arg(long)]
    pub force: bool,
}

/// Runs `coursegen eject`.
pub(crate) fn run_eject(root: &Path, args: EjectArgs) -> Result<(), Failure> {
    let files: Vec<(PathBuf, &[u8])> = theme::FOLDERS
        .iter()
        .flat_map(|folder| {
            theme::builtin(folder)
                .into_iter()
                .map(move |(rel, bytes)| (Path::new(folder).join(rel), bytes))
        })
        .collect();
    super::init::write_files(root, &files, args.force)
        .map_err(|e| Failure::Usage(anyhow!("{e}")))?;
    let text = format!(
        "wrote the built-in theme ({} files) into templates/ and static/ of {}: edit any of \
         them; a file you delete falls back to the built-in one\n",
        files.len(),
        root.display()
    );
    emit(&mut std::io::stdout(), &text);
    Ok(())
}
