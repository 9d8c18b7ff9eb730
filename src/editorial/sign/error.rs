//! Why `coursegen sign` refused: the one error of signing, each variant saying what to do.
use std::path::PathBuf;

use crate::content::Diagnostics;

/// Why an entry could not be signed; the file is unchanged.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SignError {
    /// The path is not an entry file under `<root>/content`.
    #[error(
        "{0} is not an entry under content/ of the site root; pass the .md file (and --root DIR if the site is elsewhere)"
    )]
    NotAnEntry(PathBuf),
    /// Reading or writing failed.
    #[error("cannot {what} {path}: {error}")]
    Io {
        /// read / write.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The entry has problems that signing cannot fix, or the signature would break the rule.
    #[error("{0}; the file was not changed")]
    Content(Diagnostics),
    /// `--publish`, but the entry could not be published as signed.
    #[error(
        "{problems}: --publish refused, since the publish build (`build --strict`) would refuse {} as signed; fix the above and sign again with --publish (or sign without it to record the review now{}); the file was not changed",
        .file.display(),
        allow_hint(.allowable)
    )]
    CannotPublish {
        /// The entry, relative to the root.
        file: PathBuf,
        /// What a publish build would refuse.
        problems: Diagnostics,
        /// None of them is in the entry's own fields: `--allow-problems` would sign it.
        allowable: bool,
    },
    /// The publish build's check of the signed entry could not run (templates that do
    /// not load, say).
    #[error("cannot check the entry as the publish build would: {0}; the file was not changed")]
    PublishCheck(String),
    /// The course checks signatures, and no key was given.
    #[error(
        "this course checks review signatures against {file}, so a review signed without a key would be refused by `build --strict`: sign with your SSH key, `--key ~/.ssh/id_ed25519`, listed in {file} (`coursegen signers add \"Your Name\" --key ~/.ssh/id_ed25519.pub` lists it); the file was not changed",
        file = .0.display()
    )]
    NeedsKey(PathBuf),
    /// The key is a private key inside the course, or one git tracks.
    #[error("{0}")]
    KeyInCourse(String),
}

/// How `--allow-problems` would sign an entry anyway, where it would.
fn allow_hint(allowable: &bool) -> &'static str {
    match allowable {
        true => {
            ", or pass --allow-problems when they are fixed elsewhere, e.g. a linked draft published in the same change"
        }
        false => "",
    }
}

impl SignError {
    /// Content problems (exit 1) as opposed to usage or I/O errors (exit 2).
    pub(crate) fn is_content(&self) -> bool {
        matches!(
            self,
            SignError::Content(_) | SignError::CannotPublish { .. }
        )
    }
}
