//! `coursegen eject`: writes the built-in theme (`theme::builtin`) into the site's
//! `templates/` and `static/`, to customise, or with `--kernel-header` the kernel contract
//! header into `kernels/coursegen.cuh`. Refuses to replace a file that is there unless
//! `--force`; writes through `init::write_files`.
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use clap::Args;

use super::{Failure, emit};
use crate::measurement::contract;
use crate::theme;

/// Arguments of `coursegen eject`.
#[derive(Debug, Args)]
pub struct EjectArgs {
    /// Replace files that are already in templates/ or static/.
    #[arg(long)]
    pub force: bool,
    /// Write the kernel contract header (what `#include <coursegen.cuh>` reads) to
    /// kernels/coursegen.cuh instead of the theme: to read it, or to give an editor. The
    /// course's copy is then compiled in place of the built-in one, also after an upgrade of
    /// coursegen; delete it to go back to the built-in header.
    #[arg(long)]
    pub kernel_header: bool,
}

/// Runs `coursegen eject`.
pub(crate) fn run_eject(root: &Path, args: EjectArgs) -> Result<(), Failure> {
    if args.kernel_header {
        let rel = Path::new("kernels").join(contract::HEADER_NAME);
        let files = [(rel.clone(), contract::HEADER.as_bytes())];
        super::init::write_files(root, &files, args.force)
            .map_err(|e| Failure::Usage(anyhow!("{e}")))?;
        let text = format!(
            "wrote the kernel contract header to {}: kernels compile with this copy now \
             (delete it to go back to the built-in one)\n",
            root.join(rel).display()
        );
        emit(&mut std::io::stdout(), &text);
        return Ok(());
    }
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
