//! `coursegen sign <file> --reviewer NAME`: the flags as `sign::sign`'s options, and what
//! the signature still leaves undone.
use std::path::{Path, PathBuf};

use clap::Args;

use super::{Failure, emit, emit_err, today};
use crate::content::diagnostic::printable;
use crate::editorial::policy::DEFAULT_REVIEW_MAX_AGE_DAYS;
use crate::editorial::sign::{self, SignOptions};
use crate::site::options::BuildOptions;

/// Arguments of `coursegen sign`.
#[derive(Debug, Args)]
#[command(
    after_help = "In a pull request: the author writes or edits the entry; the reviewer reads the \
change, signs it and commits the result:\n  \
coursegen sign content/glossary/warp.md --reviewer \"Grace Hopper\" --publish --key ~/.ssh/id_ed25519\n\
then the author signs the same version:\n  \
coursegen sign content/glossary/warp.md --role author --key ~/.ssh/id_ed25519\n\
Each key must be listed in the allowed-signers file (`coursegen signers add`); a course without \
that file signs by name alone (no --key). Any later edit makes the pin stale, and the publish \
build holds the entry back until both sign again."
)]
pub struct SignArgs {
    /// The entry file, e.g. content/glossary/warp.md.
    pub file: PathBuf,
    /// The reviewer's name (repeat for several); replaces `reviewed_by`. Must not be an author.
    #[arg(long, value_name = "NAME")]
    pub reviewer: Vec<String>,
    /// The author's name (repeat for several); replaces `written_by`. (`written_on` is set
    /// to today whenever it is pending.)
    #[arg(long, value_name = "NAME")]
    pub author: Vec<String>,
    /// Also set `status: published` (the review pins the status: publish by signing, not by
    /// editing it). First the entry as signed is checked as `build --strict` would check
    /// it: every problem it would report in the entry (a link to a draft, a `measure:`
    /// without a record, a missing field) is listed, and the file is left unchanged (exit 1).
    #[arg(long)]
    pub publish: bool,
    /// With --publish: sign and publish even though the publish build would report
    /// problems in the entry, printed as warnings; for problems fixed elsewhere, such as a
    /// linked draft published in the same change. Missing fields and placeholders are still
    /// refused: fixing them edits the entry, which voids the signature.
    #[arg(long, requires = "publish")]
    pub allow_problems: bool,
    /// Your SSH key: a private key file (signed in coursegen), or a `.pub` whose private half
    /// is in ssh-agent, or a passphrase-protected or hardware key (signed by ssh-keygen).
    /// Required once the course has an allowed-signers file listing who may sign.
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// The role you sign: `reviewer` (the default: names, date, pin and signature) or
    /// `author` (adds only your signature over the pin the reviewer wrote; needs --key).
    #[arg(long, value_name = "ROLE", default_value = "reviewer", value_parser = ["reviewer", "author"])]
    pub role: String,
}

/// Runs `coursegen sign`.
pub(crate) fn run_sign(
    root: &Path,
    args: SignArgs,
    config_file: Option<&Path>,
) -> Result<(), Failure> {
    let config = super::load_config(root, config_file)?;
    let signers = crate::editorial::policy::signatures::rules_for(
        root,
        &config.allowed_signers,
        config.require_signatures,
        false,
        crate::editorial::policy::signatures::now(),
    )
    .map_err(|d| Failure::Problems(crate::content::Diagnostics(d)))?;
    // A key signs, but with no allowed-signers file nothing will ever check it: say so.
    if args.key.is_some() && signers.is_none() {
        emit_err(&format!(
            "warning: no allowed-signers file at {}: nothing checks this signature, so any key would pass; list who may sign with `coursegen signers add \"Their Name\" --key THEIR_KEY.pub`\n",
            printable(&config.allowed_signers.to_string_lossy())
        ));
    }
    let fail = |e: sign::SignError| Failure::of(e.is_content(), e);
    if args.role == "author" {
        let (Some(key), true, true, false) = (
            &args.key,
            args.reviewer.is_empty(),
            args.author.is_empty(),
            args.publish,
        ) else {
            return Err(Failure::Usage(anyhow::anyhow!(
                "--role author takes only --key: it adds the author's signature over the pin the reviewer wrote, and changes nothing else"
            )));
        };
        let signed =
            sign::sign_as_author(root, &args.file, key, signers.as_deref()).map_err(fail)?;
        emit(
            &mut std::io::stdout(),
            &format!(
                "signed {} as its author ({})\n",
                printable(&signed.file.to_string_lossy()),
                signed.hash
            ),
        );
        return Ok(());
    }
    if args.reviewer.is_empty() {
        return Err(Failure::Usage(anyhow::anyhow!(
            "name the reviewer: --reviewer NAME (or sign as the author with --role author --key KEY)"
        )));
    }
    let today = today()?;
    let opts = SignOptions {
        key: args.key,
        signers,
        reviewers: args.reviewer,
        authors: args.author,
        publish: args.publish,
        today,
        required: config.glossary_required,
        glossary: config.glossary_folder.clone(),
        allow_problems: args.allow_problems,
    };
    // The publish build's own check stage, run on the site with the entry as signed.
    let build = BuildOptions {
        drafts: false,
        strict: true,
        highlight: false,
        search: false,
        out: None,
        review_max_age_days: config
            .review_max_age_days
            .unwrap_or(DEFAULT_REVIEW_MAX_AGE_DAYS),
        config,
        // Judged at the clock (or SOURCE_DATE_EPOCH), as `today` is: the commit that will
        // carry this signature is not made yet.
        epoch: crate::editorial::policy::source_date_epoch()
            .map_err(|e| Failure::Usage(e.into()))?,
        trusted_ref: None,
        cache_dir: None,
        check_signatures: false,
    };
    let publish_problems = |rel: &Path, text: &str| {
        crate::site::entry_problems_as_published(root, &build, rel, text).map_err(|e| e.to_string())
    };
    let signed = sign::sign_checked(root, &args.file, &opts, publish_problems).map_err(fail)?;
    print_signed(&signed, &opts);
    Ok(())
}

/// Says what signing did: the pin, the signatures it removed, what still keeps the entry
/// from being published, and the problems `--allow-problems` signed it with.
fn print_signed(signed: &sign::Signed, opts: &SignOptions) {
    let mut text = format!(
        "signed {} as reviewed by {} on {} ({})\n",
        printable(&signed.file.to_string_lossy()),
        printable(&opts.reviewers.join(" and ")),
        opts.today,
        signed.hash
    );
    for removed in &signed.removed {
        text.push_str(&format!("note: {removed}\n"));
    }
    for note in &signed.notes {
        // A diagnostic prints its quoted content printable.
        text.push_str(&format!(
            "note: still keeps it from being published: {note}\n"
        ));
    }
    emit(&mut std::io::stdout(), &text);
    if !signed.warnings.is_empty() {
        let mut warnings = String::new();
        for w in &signed.warnings {
            warnings.push_str(&format!("warning: {w}\n"));
        }
        warnings.push_str(&format!(
            "warning: signed with --allow-problems: the publish build (`build --strict`) refuses {} until the {} above {} fixed\n",
            printable(&signed.file.to_string_lossy()),
            if signed.warnings.len() == 1 { "problem" } else { "problems" },
            if signed.warnings.len() == 1 { "is" } else { "are" },
        ));
        emit_err(&warnings);
    }
}
