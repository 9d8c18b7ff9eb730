//! The signature rules a build checks against: the allowed-signers file in the working
//! tree, or — with `--trusted-ref` — as the trusted revision has it, with that revision's
//! `[review]` settings (`editorial::policy::trusted`).
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::Config;
use crate::content::Diagnostic;
use crate::editorial::policy::signatures::{self, SignatureRules};
use crate::editorial::policy::trusted::{self, Revision, TrustedReview};
use crate::site::options::BuildOptions;

/// The rules, with the problems (an error stops the build) and warnings of finding them.
pub(crate) fn signature_rules(
    root: &Path,
    opts: &BuildOptions,
    problems: &mut Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
) -> Option<Arc<SignatureRules>> {
    if !opts.check_signatures {
        return None;
    }
    let config = &opts.config;
    let Some(rev) = &opts.trusted_ref else {
        let rules = signatures::rules_for(
            root,
            &config.allowed_signers,
            config.require_signatures,
            opts.strict,
            opts.now(),
        );
        return rules.unwrap_or_else(|d| {
            problems.extend(d);
            None
        });
    };
    let refuse = |why: String| {
        Diagnostic::new(Path::new("--trusted-ref"), 0, why)
            .help("name the branch whose allowed-signers file is trusted, in full, e.g. `--trusted-ref refs/remotes/origin/main`")
    };
    let revision = match Revision::open(root, rev) {
        Ok(r) => r,
        Err(why) => {
            problems.push(refuse(why));
            return None;
        }
    };
    let review = match trusted_review(&revision) {
        Ok(r) => r,
        Err(d) => {
            problems.extend(d);
            return None;
        }
    };
    match trusted::rules_for(
        root,
        &revision,
        &review,
        config.require_signatures,
        opts.strict,
        opts.now(),
    ) {
        Ok((rules, w)) => {
            warnings.extend(w);
            rules
        }
        Err(d) => {
            problems.extend(d);
            None
        }
    }
}

/// The `[review]` settings of the trusted revision's `coursegen.toml` (the defaults when
/// it has none).
fn trusted_review(revision: &Revision) -> Result<TrustedReview, Vec<Diagnostic>> {
    let file = PathBuf::from(format!("{}:coursegen.toml", revision.name()));
    let text = revision
        .read(Path::new("coursegen.toml"), crate::config::MAX_FILE_BYTES)
        .map_err(|why| vec![Diagnostic::new(&file, 0, why)])?;
    let config = match text {
        Some(text) => Config::parse(&text, &file)?,
        None => Config::default(),
    };
    Ok(TrustedReview {
        allowed_signers: config.allowed_signers,
        require_signatures: config.require_signatures,
    })
}
