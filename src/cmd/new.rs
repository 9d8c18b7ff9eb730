//! `coursegen new <section> <slug>`: scaffolds an entry through `content::create_entry`.
use std::path::Path;

use clap::Args;

use super::{Failure, emit};
use crate::content;

/// Arguments of `coursegen new`.
#[derive(Debug, Args)]
pub struct NewArgs {
    /// Section under content/: `glossary` (a glossary entry; the folder `[glossary] folder`
    /// names, if set), `days` (a day page), a sub-folder such as `glossary/memory`, or
    /// another existing section.
    pub section: String,
    /// Slug of the new entry, e.g. `warp-divergence` or `day-16`; unique in its top-level
    /// section, sub-folders included, ignoring case.
    pub slug: String,
    /// Allow a top-level section that does not exist yet (else a typo such as `glosary`
    /// would quietly start one).
    #[arg(long)]
    pub new_section: bool,
}

/// Runs `coursegen new`: a glossary entry's fields come from `[new]` in the config.
pub(crate) fn run_new(
    root: &Path,
    args: NewArgs,
    config_file: Option<&Path>,
) -> Result<(), Failure> {
    let config = super::load_config(root, config_file)?;
    let path = content::create_entry(
        root,
        &args.section,
        &args.slug,
        args.new_section,
        &config.glossary_folder,
        &config.new_entry,
    )
    .map_err(|e| Failure::Usage(e.into()))?;
    let text = format!(
        "created {} (a draft: replace the placeholder text, then ask a reviewer to run `coursegen sign`)\n",
        path.display()
    );
    emit(&mut std::io::stdout(), &text);
    Ok(())
}
