//! The allowed-signers file as a trusted revision has it (`--trusted-ref`, the default
//! branch in CI), read with git rather than from the working tree: the change under review
//! cannot add its own keys, delete the file or switch the requirement off. This is git's
//! own stance — `gpg.ssh.allowedSignersFile` lives outside the repository it judges — for a
//! file that must travel with the course. Also the checked-out commit's time, which a
//! publish build takes as its clock.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use super::signatures::{self, MAX_SIGNERS_BYTES, SignatureRules};
use crate::content::Diagnostic;

/// A commit of the site's repository whose files are trusted.
#[derive(Debug, Clone)]
pub(crate) struct Revision {
    /// The repository's work tree (the site root or a folder above it).
    root: PathBuf,
    /// The revision as given (`origin/main`), for messages.
    name: String,
    /// Its commit.
    commit: String,
    /// The site root's path inside the repository (`""` at the top, `course/`).
    prefix: String,
}

/// The review settings a trusted revision's `coursegen.toml` holds.
#[derive(Debug, Clone)]
pub(crate) struct TrustedReview {
    /// `[review] allowed_signers`, relative to the site root.
    pub(crate) allowed_signers: PathBuf,
    /// `[review] require_signatures`.
    pub(crate) require_signatures: bool,
}

impl Revision {
    /// The commit `rev` names in the repository that holds `root`. Refused: a name that
    /// could be read as an option, or that names no commit (not fetched).
    pub(crate) fn open(root: &Path, rev: &str) -> Result<Self, String> {
        let valid = !rev.is_empty()
            && !rev.starts_with('-')
            && rev.len() <= 200
            && rev
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._-^~@{}".contains(&b));
        if !valid {
            return Err(format!(
                "`{}` is not a git revision name (letters, digits and / . _ - ^ ~ @ only)",
                rev.escape_debug()
            ));
        }
        refuse_ambiguous(root, rev)?;
        let commit = git(
            root,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{rev}^{{commit}}"),
            ],
        )
        .map_err(|e| format!("cannot ask git about `{rev}`: {e}"))?
        .ok_or_else(|| {
            format!(
                "`{rev}` names no commit of this repository: fetch it first (in GitHub \
                     Actions, `actions/checkout` with `fetch-depth: 0`)"
            )
        })?;
        let prefix = git(root, &["rev-parse", "--show-prefix"])
            .map_err(|e| format!("cannot ask git where the site is: {e}"))?
            .unwrap_or_default();
        Ok(Revision {
            root: root.to_path_buf(),
            name: rev.to_string(),
            commit: String::from_utf8_lossy(&commit).trim().to_string(),
            prefix: String::from_utf8_lossy(&prefix).trim().to_string(),
        })
    }

    /// The revision as the user named it.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The text of the file `rel` (relative to the site root) in this revision: `None` when
    /// it has none; refused when it is no regular file there (a symbolic link, a folder), is
    /// larger than `max` bytes, or is not UTF-8.
    pub(crate) fn read(&self, rel: &Path, max: u64) -> Result<Option<String>, String> {
        let rel = rel.to_string_lossy();
        if rel.split('/').any(|c| c == "..") || rel.starts_with('/') {
            return Err(format!("`{rel}` leaves the site root"));
        }
        let path = format!("{}{rel}", self.prefix);
        let listing = git(
            &self.root,
            &["ls-tree", "-z", "--long", &self.commit, "--", &path],
        )
        .map_err(|e| e.to_string())?
        .unwrap_or_default();
        // `<mode> <type> <object> <size>\t<path>\0`
        let listing = String::from_utf8_lossy(&listing);
        let Some(entry) = listing.split('\0').find(|e| !e.is_empty()) else {
            return Ok(None);
        };
        let fields: Vec<&str> = entry
            .split('\t')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let [mode, kind, object, size] = fields[..] else {
            return Err(format!(
                "git listed `{path}` in a form coursegen does not read"
            ));
        };
        if kind != "blob" || !matches!(mode, "100644" | "100755") {
            return Err(format!(
                "`{path}` is no regular file in {} (mode {mode})",
                self.name
            ));
        }
        if size.parse::<u64>().map_or(true, |s| s > max) {
            return Err(format!(
                "`{path}` is larger than {} KiB in {}",
                max >> 10,
                self.name
            ));
        }
        let bytes = git(&self.root, &["cat-file", "blob", object])
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("git could not read `{path}` in {}", self.name))?;
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("`{path}` is not UTF-8 text in {}", self.name))
    }
}

/// Refuses a short ref name that names several refs (a tag `origin/main` beside the
/// remote branch): git would pick one by its own order, and a change that pushes such a tag
/// would choose which signers judge it. A full name (`refs/remotes/origin/main`), a commit
/// or a name with operators (`main~1`) is taken as git reads it.
fn refuse_ambiguous(root: &Path, rev: &str) -> Result<(), String> {
    if rev.starts_with("refs/") || rev.bytes().any(|b| b"^~@{}".contains(&b)) {
        return Ok(());
    }
    // Where git looks for a short name, in its order (git-rev-parse(1), "SPECIFYING
    // REVISIONS").
    let places = [
        format!("refs/{rev}"),
        format!("refs/tags/{rev}"),
        format!("refs/heads/{rev}"),
        format!("refs/remotes/{rev}"),
        format!("refs/remotes/{rev}/HEAD"),
    ];
    let mut args = vec!["for-each-ref", "--format=%(refname)"];
    args.extend(places.iter().map(String::as_str));
    let listed = git(root, &args)
        .map_err(|e| format!("cannot ask git about `{rev}`: {e}"))?
        .unwrap_or_default();
    let listed = String::from_utf8_lossy(&listed);
    let found: Vec<&str> = (places.iter())
        .map(String::as_str)
        .filter(|p| listed.lines().any(|r| r == *p))
        .collect();
    if found.len() > 1 {
        return Err(format!(
            "`{rev}` is ambiguous: it names {}; name the one you mean in full (`{}`)",
            found.join(" and "),
            found
                .iter()
                .find(|r| r.starts_with("refs/remotes/"))
                .unwrap_or(&found[0])
        ));
    }
    Ok(())
}

/// The committer time (Unix seconds) of the commit checked out in the repository that holds
/// `root`; `None` outside a git work tree, before the first commit, or without git. A
/// publish build takes it as its clock (`cmd::build_epoch`), so two builds of one commit
/// agree on every date whenever and wherever they run.
pub(crate) fn head_commit_time(root: &Path) -> Option<i64> {
    // `--no-show-signature`: a user's `log.showSignature` would print gpg's lines first.
    let out = git(
        root,
        &["log", "-1", "--no-show-signature", "--format=%ct", "HEAD"],
    )
    .ok()??;
    String::from_utf8_lossy(&out).trim().parse().ok()
}

/// Runs git in `dir`: its stdout when it succeeded, `None` when it failed.
fn git(dir: &Path, args: &[&str]) -> std::io::Result<Option<Vec<u8>>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()?;
    Ok(out.status.success().then_some(out.stdout))
}

/// The signature rules a trusted revision makes (`None`: no file, nothing required), with
/// the warnings of reading them.
pub(crate) type Trusted = (Option<Arc<SignatureRules>>, Vec<Diagnostic>);

/// The signature rules of a build that trusts `revision`: signatures are checked against
/// the allowed-signers file as `revision` has it, and are required when `revision`'s config
/// requires them, when the working tree's does (a change may add the requirement, never
/// remove it), or under `--strict` once `revision` has the file. Required with no file in
/// `revision` is an error; an empty one publishes nothing signed. The warnings say when the working tree's file differs from the trusted one:
/// keys a change adds count once that change is merged.
pub(crate) fn rules_for(
    root: &Path,
    revision: &Revision,
    trusted: &TrustedReview,
    require_here: bool,
    strict: bool,
    now: i64,
) -> Result<Trusted, Vec<Diagnostic>> {
    let rel = &trusted.allowed_signers;
    let label = PathBuf::from(format!("{}:{}", revision.name(), rel.display()));
    let refuse = |why: String| {
        vec![
            Diagnostic::new(&label, 0, why)
                .field("review.allowed_signers")
                .help("the allowed-signers file is read from the trusted revision (--trusted-ref); change it there in a reviewed change of its own"),
        ]
    };
    let text = revision.read(rel, MAX_SIGNERS_BYTES).map_err(refuse)?;
    let signers = match &text {
        Some(text) => Some(signatures::AllowedSigners {
            revision: Some(revision.commit.clone()),
            ..signatures::parse(&label, text)?
        }),
        None => None,
    };
    let required = trusted.require_signatures || require_here || (strict && signers.is_some());
    if required && signers.is_none() {
        return Err(vec![
            Diagnostic::new(Path::new("coursegen.toml"), 0, format!(
                "signatures are required, but {} has no allowed-signers file at {}",
                revision.name(),
                rel.display()
            ))
            .field("review.require_signatures")
            .help("add the reviewers' keys (git's allowed-signers format) in a change of their own, and merge it first"),
        ]);
    }
    let mut warnings = Vec::new();
    // The working tree's file, only to say whether the change edits it: read as untrusted
    // (a regular file within the size limit; a link, a FIFO or /dev/zero is "edited").
    let here = std::fs::symlink_metadata(root.join(rel))
        .ok()
        .filter(|m| m.is_file() && m.len() <= MAX_SIGNERS_BYTES)
        .and_then(|_| std::fs::read(root.join(rel)).ok());
    let edited = (here.as_deref() != text.as_deref().map(str::as_bytes)).then(|| {
        format!(
            "this change edits {}, whose keys count once that change is merged on its own",
            rel.display()
        )
    });
    if edited.is_some() {
        warnings.push(
            Diagnostic::new(rel, 0, format!(
                "this change edits the allowed-signers file: signatures are checked against the file as {} has it",
                revision.name()
            ))
            .field("review.allowed_signers")
            .help("keys this change adds count once it is merged: add a person's key in a change of its own, reviewed by someone already listed"),
        );
    }
    let rules = signers.map(|signers| {
        let pending = match (signatures::nobody_listed(&signers), edited) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        };
        Arc::new(SignatureRules {
            signers,
            required,
            now,
            pending,
        })
    });
    Ok((rules, warnings))
}
