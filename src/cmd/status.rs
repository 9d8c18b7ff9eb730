//! `coursegen status`: every entry's editorial state from `status::report`, as a table or
//! JSON.
use std::path::Path;

use clap::Args;

use super::{Failure, ReviewArgs, load_config, today};
use crate::content::{self, Diagnostics};
use crate::editorial::policy;
use crate::site::SiteError;

/// Arguments of `coursegen status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub review: ReviewArgs,
}

/// Runs `coursegen status`.
pub(crate) fn run_status(
    root: &Path,
    args: StatusArgs,
    config_file: Option<&Path>,
) -> Result<(), Failure> {
    let config = load_config(root, config_file)?;
    if !root.join("content").is_dir() {
        return Err(Failure::Usage(
            SiteError::NoContent(root.to_path_buf()).into(),
        ));
    }
    let site = content::load(root, &config.glossary_folder);
    let rules = policy::Rules {
        today: today()?,
        review_max_age_days: args.review.max_age_days(config.review_max_age_days),
        strict: false,
        preview: false,
        signatures: policy::signatures::rules_for(
            root,
            &config.allowed_signers,
            config.require_signatures,
            false,
            policy::signatures::now(),
        )
        .map_err(|d| Failure::Problems(Diagnostics(d)))?,
        required: config.glossary_required,
        glossary: config.glossary_folder.clone().into(),
        files: Some(std::sync::Arc::new(policy::pin::Files::new(root))),
    };
    let report = crate::editorial::status::report(&site.entries, &rules);
    let text = if args.json {
        let json = serde_json::to_string_pretty(&report).map_err(|e| Failure::Usage(e.into()))?;
        super::printable_json(&json) + "\n"
    } else {
        crate::editorial::status::table(&report)
    };
    // `coursegen status | head` closes the pipe early: that is not an error.
    match super::try_emit(&mut std::io::stdout().lock(), &text) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(Failure::Usage(e.into()));
        }
        _ => {}
    }
    if site.problems.is_empty() {
        return Ok(());
    }
    super::emit_err(&format!("{}\n", Diagnostics(site.problems.clone())));
    Err(Failure::Content(anyhow::anyhow!(
        "the files above could not be read as entries, so the table leaves them out"
    )))
}
