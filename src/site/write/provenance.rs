//! The publish build's provenance file (`editorial::provenance`): every HTML page the
//! staging folder received, with the SHA-256 of its bytes, and for each published entry
//! what was reviewed and who signed it. Written last, into the staging folder, so it
//! describes exactly the pages swapped in. No absolute path and no clock: two builds of one
//! commit write the same file (the time they record is the build's `epoch`: the commit's).
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::content::Entry;
use crate::editorial::policy::signatures::{self, Role, SignatureRules};
use crate::editorial::provenance::{
    self, NOT_REVIEWED, PageRecord, Provenance, REVIEWED, Review, Settings, Signature, Signers,
};
use crate::site::layout::page_path;
use crate::site::options::BuildOptions;

/// The provenance file's bytes for a publish build of `root`: `written` is every page staged (path →
/// SHA-256), `entries` the published entries, judged by `rules`.
pub(crate) fn file(
    root: &Path,
    opts: &BuildOptions,
    entries: &[&Entry],
    rules: Option<&SignatureRules>,
    written: BTreeMap<String, String>,
) -> Vec<u8> {
    let mut reviews: BTreeMap<PathBuf, Review> = (entries.iter())
        .map(|e| (page_path(&e.url), review_of(e, rules)))
        .collect();
    let urls = crate::site::urls::Urls::new(&opts.config);
    let pages = (written.into_iter())
        .map(|(file, sha256)| {
            let review = reviews.remove(Path::new(&file));
            let url = urls.page(file.strip_suffix("index.html").unwrap_or(&file));
            PageRecord {
                url,
                status: if review.is_some() {
                    REVIEWED
                } else {
                    NOT_REVIEWED
                }
                .into(),
                file,
                sha256,
                review,
            }
        })
        .collect();
    let (commit, dirty) = commit_of(root);
    let record = Provenance {
        format: provenance::FORMAT.into(),
        coursegen: env!("CARGO_PKG_VERSION").into(),
        commit,
        dirty,
        source_date_epoch: opts.epoch,
        settings: Settings {
            base_path: urls.root().to_string(),
            base_url: opts.config.base_url.clone(),
            strict: opts.strict,
            highlight: opts.highlight,
            search: opts.search,
            trusted_ref: opts.trusted_ref.clone(),
        },
        signers: rules.map(|r| Signers {
            file: r.signers.file.to_string_lossy().into_owned(),
            revision: r.signers.revision.clone(),
            text: r.signers.text.clone(),
        }),
        pages,
    };
    record.to_bytes()
}

/// What was reviewed of a published entry, and each role's signature that verifies (one
/// that does not is left out: `verify` then says the page is not signed).
fn review_of(e: &Entry, rules: Option<&SignatureRules>) -> Review {
    let b = &e.meta.byline;
    let signed = |field: &Option<String>, role: Role| {
        let (rules, field, pin) = (rules?, field.as_ref()?, b.reviewed_hash.as_deref()?);
        let v = signatures::verify(rules, field, role, pin).ok()?;
        Some(Signature {
            principals: v.signer.principals,
            fingerprint: v.fingerprint,
            sshsig: field.clone(),
        })
    };
    Review {
        source: crate::canonical::slash_path(&e.file),
        pin: b.reviewed_hash.clone(),
        written_by: b.written_by.clone(),
        reviewed_by: b.reviewed_by.clone(),
        author: signed(&b.author_signature, Role::Author),
        reviewer: signed(&b.reviewer_signature, Role::Reviewer),
    }
}

/// The commit checked out at `root`, and whether the work tree has changes it does not
/// hold; `(None, false)` outside a git work tree.
fn commit_of(root: &Path) -> (Option<String>, bool) {
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    match git(&["rev-parse", "--verify", "--quiet", "HEAD"]) {
        Some(commit) if !commit.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            (Some(commit), dirty)
        }
        _ => (None, false),
    }
}
