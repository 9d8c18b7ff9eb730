//! `coursegen sign <file> --reviewer NAME`: the flags as `sign::sign`'s options, and what
//! the signature still leaves undone.
use std::path::{Path, PathBuf};

use clap::Args;

use super::{Failure, today};
use crate::sign::{self, SignOptions};

/// Arguments of `coursegen sign`.
#[derive(Debug, Args)]
#[command(
    after_help = "In a pull request: the author writes or edits the entry; the reviewer reads the \
change, runs `coursegen sign content/glossary/warp.md --reviewer \"Grace Hopper\"` and commits the \
result. Any later edit makes the hash stale, and the publish build holds the entry back until \
a reviewer signs again."
)]
pub struct SignArgs {
    /// The entry file, e.g. content/glossary/warp.md.
    pub file: PathBuf,
    /// The reviewer's name (repeat for several); replaces `reviewed_by`. Must not be an author.
    #[arg(long, value_name = "NAME", required = true)]
    pub reviewer: Vec<String>,
    /// The author's name (repeat for several); replaces `written_by`, and sets
    /// `written_on` to today when it is pending.
    #[arg(long, value_name = "NAME")]
    pub author: Vec<String>,
    /// Also set `status: published`.
    #[arg(long)]
    pub publish: bool,
}

/// Runs `coursegen sign`.
pub fn run_sign(root: &Path, args: SignArgs) -> Result<(), Failure> {
    let opts = SignOptions {
        reviewers: args.reviewer,
        authors: args.author,
        publish: args.publish,
        today: today()?,
    };
    let signed = sign::sign(root, &args.file, &opts).map_err(|e| {
        if e.is_content() {
            Failure::Content(e.into())
        } else {
            Failure::Usage(e.into())
        }
    })?;
    println!(
        "signed {} as reviewed by {} on {} ({})",
        signed.file.display(),
        opts.reviewers.join(" and "),
        opts.today,
        signed.hash
    );
    for note in &signed.notes {
        println!("note: still keeps it from being published: {note}");
    }
    Ok(())
}
