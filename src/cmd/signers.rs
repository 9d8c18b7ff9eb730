//! `coursegen signers add NAME --key FILE`, `coursegen signers remove NAME` and
//! `coursegen signers list`: the flags as `signers_file`'s arguments, and what was added,
//! removed or is listed.
use std::path::{Path, PathBuf};

use clap::Args;

use super::{Failure, emit, load_config};
use crate::content::diagnostic::printable;
use crate::editorial::signers_file::{self, NewSigner, SignersError};

/// Arguments of `coursegen signers add`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// The person's name exactly as the byline writes it (`written_by`, `reviewed_by`):
    /// a signature counts only for the name its key is listed under.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Their public key file: a `.pub` (e.g. ~/.ssh/id_ed25519.pub), or a file of several
    /// keys one a line, such as https://github.com/USERNAME.keys saved with curl. Every key
    /// in it is added.
    #[arg(long, value_name = "FILE")]
    pub key: PathBuf,
    /// Their email, listed beside the name (as git's own signing lists people).
    #[arg(long, value_name = "EMAIL")]
    pub email: Option<String>,
}

/// Runs `coursegen signers add`.
pub(crate) fn run_add(
    root: &Path,
    args: AddArgs,
    config_file: Option<&Path>,
) -> Result<(), Failure> {
    let config = load_config(root, config_file)?;
    let rel = &config.allowed_signers;
    let who = NewSigner {
        name: args.name,
        email: args.email,
    };
    let added = signers_file::add(root, rel, &who, &args.key).map_err(|e| match e {
        // Each problem of the file is already an `error:` line.
        SignersError::SignersFile(problems) => Failure::Problems(problems),
        e => Failure::of(e.is_content(), e),
    })?;
    let file = printable(&added.file.to_string_lossy()).into_owned();
    let mut text = String::new();
    if added.created {
        text.push_str(&format!("created {file}\n"));
    }
    for k in &added.keys {
        text.push_str(&format!(
            "added {} key {} for {} to {file}:{}\n",
            k.algorithm,
            k.fingerprint,
            printable(&who.name),
            k.line
        ));
    }
    if added.earlier_keys_of_name > 0 {
        text.push_str(&format!(
            "note: {} was already listed with {} other key(s); each key signs for them\n",
            printable(&who.name),
            added.earlier_keys_of_name
        ));
    }
    text.push_str(
        "next: commit the file in a pull request of its own, for a maintainer to approve; \
                 a key counts on a pull request once it is on the default branch\n",
    );
    emit(&mut std::io::stdout(), &text);
    Ok(())
}

/// Arguments of `coursegen signers remove`.
#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// Whose keys to remove: a name or email as the file lists it (case and spacing do not
    /// matter), or one key's fingerprint as `signers list` shows it (`SHA256:…`).
    #[arg(value_name = "NAME|FINGERPRINT")]
    pub who: String,
}

/// Runs `coursegen signers remove`.
pub(crate) fn run_remove(
    root: &Path,
    args: RemoveArgs,
    config_file: Option<&Path>,
) -> Result<(), Failure> {
    let config = load_config(root, config_file)?;
    let rel = &config.allowed_signers;
    let removed = signers_file::remove(root, rel, &args.who).map_err(|e| match e {
        SignersError::SignersFile(problems) => Failure::Problems(problems),
        e => Failure::Usage(e.into()),
    })?;
    let file = printable(&rel.to_string_lossy()).into_owned();
    let mut text = String::new();
    for k in &removed {
        text.push_str(&format!(
            "removed {} key {} of {} from {file} (line {})\n",
            k.algorithm,
            k.fingerprint,
            printable(&k.principals.join(",")),
            k.line
        ));
    }
    text.push_str(
        "next: commit the file in a pull request of its own, for a maintainer to approve; \
         once it is on the default branch, a signature made with a removed key no longer \
         counts, so entries signed with it are held back until signed again (`coursegen status` \
         lists what each entry needs)\n",
    );
    emit(&mut std::io::stdout(), &text);
    Ok(())
}

/// Runs `coursegen signers list`.
pub(crate) fn run_list(root: &Path, config_file: Option<&Path>) -> Result<(), Failure> {
    let config = load_config(root, config_file)?;
    let rel = &config.allowed_signers;
    let listed = signers_file::list(root, rel)
        .map_err(|d| Failure::Problems(crate::content::Diagnostics(d)))?;
    let file = printable(&rel.to_string_lossy()).into_owned();
    let Some(keys) = listed else {
        emit(
            &mut std::io::stdout(),
            &format!(
                "no allowed-signers file at {file}: nothing checks signatures; add a person with `coursegen signers add NAME --key FILE.pub`\n"
            ),
        );
        return Ok(());
    };
    let mut text = String::new();
    if keys.is_empty() {
        text.push_str(&format!(
                    "{file} lists nobody yet: add a person with `coursegen signers add NAME --key FILE.pub`\n"
                ));
    }
    for k in &keys {
        text.push_str(&format!(
            "{file}:{}: {}  {} {}{}\n",
            k.line,
            k.principals.join(","),
            k.algorithm,
            k.fingerprint,
            k.problem
                .as_deref()
                .map(|p| format!("  (refused: {p})"))
                .unwrap_or_default()
        ));
    }
    emit(&mut std::io::stdout(), &text);
    Ok(())
}
