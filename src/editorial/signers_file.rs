//! `coursegen signers`: the allowed-signers file as a course edits it. `add` appends a
//! person's public keys — from a `.pub` file, or from `https://github.com/USER.keys` saved
//! to a file (one key a line) — as git's allowed-signers lines restricted to the review
//! namespace, after judging every key by the rule verification uses; `list` reads who is
//! listed; `remove` takes out a person's key lines (or one key's). The file is read through `policy::signatures` (untrusted input, bounded) and
//! written whole through `atomic`.
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ssh_key::PublicKey;
use ssh_key::public::KeyData;

use crate::content::{Diagnostic, Diagnostics};
use crate::editorial::policy::names::{self, Name};
use crate::editorial::policy::signatures::{
    self, AllowedSigners, MAX_SIGNERS_BYTES, NAMESPACE, Signer, key_supported,
};

/// The largest keys file read (GitHub's `USER.keys` of a person with many keys is a few KiB).
pub(crate) const MAX_KEYS_FILE_BYTES: u64 = 64 * 1024;

/// What a new file starts with, so that whoever opens it knows what it is.
const HEADER: &str = "# The keys that may sign reviews of this course, one line a key (git's allowed-signers\n\
# format). Add a person with `coursegen signers add \"Their Name\" --key their_key.pub`.\n";

/// Who is added: the name the byline uses, and optionally an email.
#[derive(Debug, Clone)]
pub(crate) struct NewSigner {
    /// The name as `written_by` / `reviewed_by` write it.
    pub(crate) name: String,
    /// An email, the first principal (as git's own use of the file has it).
    pub(crate) email: Option<String>,
}

/// Why nothing was added; the file is unchanged.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SignersError {
    /// The name or email cannot be a principal of the file.
    #[error("{0}; nothing was written")]
    BadPrincipal(String),
    /// The keys file cannot be read.
    #[error("{}: {why}; nothing was written", .path.display())]
    KeysFile {
        /// The file given to `--key`.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// Keys that cannot be added, each with its line in the keys file.
    #[error("{}; nothing was written", .0.join("\nerror: "))]
    Keys(Vec<String>),
    /// The allowed-signers file itself has problems (or cannot be written).
    #[error("{0}; nothing was written")]
    SignersFile(Diagnostics),
    /// The key file is (or sits beside) a private key inside the course, or one git tracks.
    #[error("{0}")]
    KeyInCourse(String),
    /// `remove` names nobody the file lists (or there is no file).
    #[error("{0}; nothing was written")]
    NotListed(String),
}

impl SignersError {
    /// Content problems (exit 1), as opposed to a bad argument or an unreadable file (exit 2).
    pub(crate) fn is_content(&self) -> bool {
        matches!(self, SignersError::Keys(_) | SignersError::SignersFile(_))
    }
}

/// One key `add` wrote.
#[derive(Debug, Clone)]
pub(crate) struct AddedKey {
    /// Its line in the allowed-signers file.
    pub(crate) line: usize,
    /// Its type (`ssh-ed25519`).
    pub(crate) algorithm: String,
    /// Its SHA-256 fingerprint, as ssh-keygen prints it.
    pub(crate) fingerprint: String,
}

/// What `add` did.
#[derive(Debug, Clone)]
pub(crate) struct Added {
    /// The allowed-signers file, relative to the root.
    pub(crate) file: PathBuf,
    /// Whether `add` created it.
    pub(crate) created: bool,
    /// The keys added, in order.
    pub(crate) keys: Vec<AddedKey>,
    /// How many keys the file listed for the same name before.
    pub(crate) earlier_keys_of_name: usize,
}

/// Checks a name or email before it becomes a principal: the file's principals are a
/// comma-separated list in double quotes, matched literally, so none of `,"*?!`, no control
/// character; a name must be one person's name, not a placeholder.
fn principal(what: &str, value: &str) -> Result<String, SignersError> {
    let value = names::without_invisible(value.trim());
    let shown = value.escape_debug().to_string();
    let bad = |why: String| {
        Err(SignersError::BadPrincipal(format!(
            "the {what} `{shown}` {why}"
        )))
    };
    if value.is_empty() {
        return bad("is empty".into());
    }
    if let Some(c) = value
        .chars()
        .find(|c| c.is_control() || matches!(c, ',' | '"' | '*' | '?' | '!'))
    {
        return bad(format!(
            "holds `{}`, which the allowed-signers file cannot hold in a principal (a comma separates principals, a quote ends them, `*`, `?` and `!` are patterns)",
            c.escape_debug()
        ));
    }
    if what == "email" {
        if value.chars().any(char::is_whitespace) {
            return bad("holds white space".into());
        }
        return Ok(value);
    }
    match names::classify(&value) {
        Name::Unsigned => bad(
            "counts as a placeholder, not a person's name (`Reviewer`, `Author`, `pending`, `TBD` … count as nobody): give the name the byline writes"
                .into(),
        ),
        Name::Several => bad("looks like several names in one: add each person on their own".into()),
        Name::NoLetters => bad("is not a name: a name must contain letters".into()),
        _ => Ok(value),
    }
}

/// The public keys in the text of a `.pub` or `USER.keys` file, each with its line;
/// every line that is not a usable key is reported.
fn read_keys(path: &Path, text: &str) -> Result<Vec<(usize, KeyData)>, SignersError> {
    let mut keys: Vec<(usize, KeyData)> = Vec::new();
    let mut problems = Vec::new();
    let shown = path.display();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with("-----BEGIN") {
            return Err(SignersError::KeysFile {
                path: path.to_path_buf(),
                why: "it is a private key: give its public half (the `.pub` file beside it); never commit a private key".into(),
            });
        }
        let key = match PublicKey::from_openssh(line) {
            Ok(k) => k.key_data().clone(),
            Err(e) => {
                problems.push(format!(
                    "{shown}:{}: not an SSH public key ({e}): each line is `TYPE BASE64 [comment]`, as in a `.pub` file",
                    i + 1
                ));
                continue;
            }
        };
        if let Err(why) = key_supported(&key) {
            problems.push(format!("{shown}:{}: {why}", i + 1));
            continue;
        }
        if let Some((first, _)) = keys.iter().find(|(_, k)| *k == key) {
            problems.push(format!("{shown}:{}: the same key as line {first}", i + 1));
            continue;
        }
        keys.push((i + 1, key));
    }
    if !problems.is_empty() {
        return Err(SignersError::Keys(problems));
    }
    if keys.is_empty() {
        return Err(SignersError::KeysFile {
            path: path.to_path_buf(),
            why: "it holds no public key".into(),
        });
    }
    Ok(keys)
}

fn fingerprint(key: &KeyData) -> String {
    PublicKey::new(key.clone(), "")
        .fingerprint(ssh_key::HashAlg::Sha256)
        .to_string()
}

/// The allowed-signers line of `key` for `principals` (already checked).
fn line_for(principals: &str, key: &KeyData) -> Result<String, SignersError> {
    let openssh = PublicKey::new(key.clone(), "")
        .to_openssh()
        .map_err(|e| SignersError::Keys(vec![format!("cannot write the key: {e}")]))?;
    Ok(format!(
        "\"{principals}\" namespaces=\"{NAMESPACE}\" {}",
        openssh.trim()
    ))
}

/// Refuses every key of the file `keys` that the allowed-signers file `rel` already lists.
fn refuse_listed(
    (keys, new_keys): (&Path, &[(usize, KeyData)]),
    rel: &Path,
    listed: &[Signer],
) -> Result<(), SignersError> {
    let mut problems = Vec::new();
    for (line, key) in new_keys {
        if let Some(s) = listed.iter().find(|s| &s.key == key) {
            problems.push(format!(
                "{}:{line}: this key ({}) is already listed, on line {} of {} for `{}`",
                keys.display(),
                fingerprint(key),
                s.line,
                rel.display(),
                s.principals.join(",").escape_debug()
            ));
        }
    }
    match problems.is_empty() {
        true => Ok(()),
        false => Err(SignersError::Keys(problems)),
    }
}

/// Adds `who`'s keys from the file `keys` to the allowed-signers file `rel` under `root`
/// (created when missing): all of them or, on any problem, none.
pub(crate) fn add(
    root: &Path,
    rel: &Path,
    who: &NewSigner,
    keys: &Path,
) -> Result<Added, SignersError> {
    let name = principal("name", &who.name)?;
    let email = who
        .email
        .as_deref()
        .map(|e| principal("email", e))
        .transpose()?;
    crate::editorial::sign::key::refuse_private_key_in_course(root, keys)
        .map_err(SignersError::KeyInCourse)?;
    let text = read_bounded(keys).map_err(|why| SignersError::KeysFile {
        path: keys.to_path_buf(),
        why,
    })?;
    let new_keys = read_keys(keys, &text)?;
    let path = editable(root, rel)?;
    let file_error = |why: String| file_error(rel, why);
    let existing: Option<AllowedSigners> =
        signatures::load(root, rel).map_err(|d| SignersError::SignersFile(Diagnostics(d)))?;
    let mut old_text = match &existing {
        Some(_) => std::fs::read_to_string(&path)
            .map_err(|e| file_error(format!("cannot read it: {e}")))?,
        None => HEADER.to_string(),
    };
    let listed = existing.as_ref().map_or(&[][..], |s| &s.signers[..]);
    refuse_listed((keys, &new_keys), rel, listed)?;
    let canonical = names::canonical_name(&name);
    let earlier_keys_of_name = listed
        .iter()
        .filter(|s| {
            s.principals
                .iter()
                .any(|p| names::canonical_name(p) == canonical)
        })
        .count();
    let principals = match &email {
        Some(e) => format!("{e},{name}"),
        None => name.clone(),
    };
    if !old_text.is_empty() && !old_text.ends_with('\n') {
        old_text.push('\n');
    }
    let first_line = old_text.lines().count() + 1;
    let mut added = Vec::new();
    for (i, (_, key)) in new_keys.iter().enumerate() {
        old_text.push_str(&line_for(&principals, key)?);
        old_text.push('\n');
        added.push(AddedKey {
            line: first_line + i,
            algorithm: key.algorithm().to_string(),
            fingerprint: fingerprint(key),
        });
    }
    // What is written must read back as the file plus exactly these keys, for this name.
    let reread =
        signatures::parse(rel, &old_text).map_err(|d| SignersError::SignersFile(Diagnostics(d)))?;
    let grown = reread.signers.len() == listed.len() + new_keys.len();
    let tail = &reread.signers[listed.len().min(reread.signers.len())..];
    if !grown
        || tail.iter().zip(&new_keys).any(|(s, (_, k))| {
            &s.key != k || !s.principals.contains(&name) || s.namespaces.is_none()
        })
    {
        return Err(file_error(
            "the new lines would not read back as written (a bug in coursegen: please report it)"
                .into(),
        ));
    }
    if old_text.len() as u64 > MAX_SIGNERS_BYTES {
        return Err(file_error(format!(
            "it would grow past the {} KiB coursegen reads",
            MAX_SIGNERS_BYTES >> 10
        )));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| file_error(format!("cannot make its folder: {e}")))?;
    }
    let mode = match existing {
        Some(_) => crate::atomic::Mode::Kept,
        None => crate::atomic::Mode::Ordinary,
    };
    crate::atomic::write(&path, old_text.as_bytes(), mode)
        .map_err(|e| file_error(format!("cannot write it: {e}")))?;
    Ok(Added {
        file: rel.to_path_buf(),
        created: existing.is_none(),
        keys: added,
        earlier_keys_of_name,
    })
}

/// A problem with the allowed-signers file `rel` itself, at its `review.allowed_signers`.
fn file_error(rel: &Path, why: String) -> SignersError {
    SignersError::SignersFile(Diagnostics(vec![
        Diagnostic::new(rel, 0, why).field("review.allowed_signers"),
    ]))
}

/// The allowed-signers file `rel` under `root`, refused when it is a symbolic link (its
/// edits would land wherever the link points).
fn editable(root: &Path, rel: &Path) -> Result<std::path::PathBuf, SignersError> {
    let path = root.join(rel);
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(file_error(
            rel,
            "the allowed-signers file is a symbolic link: coursegen edits only a regular file"
                .into(),
        ));
    }
    Ok(path)
}

/// Removes from the allowed-signers file `rel` under `root` every key line of `who`: a
/// name or email among the line's principals (compared ignoring case, spacing and Unicode
/// form, as `names::canonical_name` compares), or a key's fingerprint (`SHA256:…`, as
/// `signers list` shows it). Lines of others, comments and statements stay as they are.
pub(crate) fn remove(root: &Path, rel: &Path, who: &str) -> Result<Vec<ListedKey>, SignersError> {
    let path = editable(root, rel)?;
    let file_error = |why: String| file_error(rel, why);
    let Some(existing) =
        signatures::load(root, rel).map_err(|d| SignersError::SignersFile(Diagnostics(d)))?
    else {
        return Err(SignersError::NotListed(format!(
            "there is no allowed-signers file at {}, so nobody is listed to remove",
            rel.display()
        )));
    };
    let wanted = names::canonical_name(who.trim());
    let by_key = who.trim().starts_with("SHA256:");
    let matches = |s: &signatures::Signer| {
        if by_key {
            fingerprint(&s.key) == who.trim()
        } else {
            (s.principals.iter()).any(|p| names::canonical_name(p) == wanted)
        }
    };
    let gone: Vec<&signatures::Signer> = existing.signers.iter().filter(|s| matches(s)).collect();
    if gone.is_empty() {
        return Err(SignersError::NotListed(not_listed(rel, who, &existing)));
    }
    let text =
        std::fs::read_to_string(&path).map_err(|e| file_error(format!("cannot read it: {e}")))?;
    let lines: HashSet<usize> = gone.iter().map(|s| s.line).collect();
    let kept: String = (text.split_inclusive('\n').enumerate())
        .filter(|(i, _)| !lines.contains(&(i + 1)))
        .map(|(_, l)| l)
        .collect();
    // What is written must read back as the file less exactly these keys.
    let reread =
        signatures::parse(rel, &kept).map_err(|d| SignersError::SignersFile(Diagnostics(d)))?;
    if reread.signers.len() + gone.len() != existing.signers.len()
        || reread.signers.iter().any(matches)
    {
        return Err(file_error(
            "the file without those lines would not read back as meant (a bug in coursegen: please report it)"
                .into(),
        ));
    }
    crate::atomic::write(&path, kept.as_bytes(), crate::atomic::Mode::Kept)
        .map_err(|e| file_error(format!("cannot write it: {e}")))?;
    Ok(gone.into_iter().map(ListedKey::of).collect())
}

/// Why `who` matched no line of `file`, with the nearest listed name (or who is listed).
fn not_listed(rel: &Path, who: &str, file: &AllowedSigners) -> String {
    let mut listed: Vec<&str> = (file.signers.iter())
        .flat_map(|s| s.principals.iter().map(String::as_str))
        .collect();
    listed.sort_unstable();
    listed.dedup();
    let shown = who.escape_debug();
    let near =
        crate::content::diagnostic::closest(who.trim(), listed.iter().copied()).or_else(|| {
            // A name typed in another case or spacing is found above; here, a part of one.
            let lower = who.trim().to_lowercase();
            (listed.iter().copied())
                .find(|p| !lower.is_empty() && p.to_lowercase().contains(&lower))
        });
    let what = if who.trim().starts_with("SHA256:") {
        "no key of that fingerprint"
    } else {
        "nobody of that name or email"
    };
    let hint = match (near, listed.len()) {
        (Some(n), _) => format!(": did you mean `{}`?", n.escape_debug()),
        (None, 0) => ": it lists nobody yet".to_string(),
        (None, n) if n <= 8 => format!(
            ": it lists {}",
            listed
                .iter()
                .map(|p| format!("`{}`", p.escape_debug()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (None, _) => String::new(),
    };
    format!(
        "`{shown}`: {} lists {what}{hint} (`coursegen signers list` shows every key, with its fingerprint)",
        rel.display()
    )
}

/// The text of the keys file at `path`: a regular file of at most `MAX_KEYS_FILE_BYTES`.
fn read_bounded(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > MAX_KEYS_FILE_BYTES {
        return Err(format!(
            "{} KiB, more than the {} KiB a keys file takes",
            meta.len() >> 10,
            MAX_KEYS_FILE_BYTES >> 10
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".into())
}

/// One listed key, as `signers list` shows it (and `signers remove` says it took out).
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct ListedKey {
    /// Its line in the file (before a removal).
    pub(crate) line: usize,
    /// Its principals as written.
    pub(crate) principals: Vec<String>,
    /// Its type (`ssh-ed25519`).
    pub(crate) algorithm: String,
    /// Its SHA-256 fingerprint, as ssh-keygen prints it.
    pub(crate) fingerprint: String,
    /// Why its signatures would be refused whatever they sign (a key type not verified).
    pub(crate) problem: Option<String>,
}

impl ListedKey {
    /// The key line `s` as listed.
    fn of(s: &Signer) -> Self {
        ListedKey {
            line: s.line,
            principals: s.principals.clone(),
            algorithm: s.key.algorithm().to_string(),
            fingerprint: fingerprint(&s.key),
            problem: key_supported(&s.key).err(),
        }
    }
}

/// Every key of the allowed-signers file `rel`, or `None` when there is no file.
pub(crate) fn list(root: &Path, rel: &Path) -> Result<Option<Vec<ListedKey>>, Vec<Diagnostic>> {
    let Some(file) = signatures::load(root, rel)? else {
        return Ok(None);
    };
    Ok(Some(file.signers.iter().map(ListedKey::of).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn refused(what: &str, value: &str, want: &str) {
        match principal(what, value) {
            Err(SignersError::BadPrincipal(m)) => assert!(m.contains(want), "{value:?}: {m}"),
            other => panic!("{value:?}: {other:?}"),
        }
    }

    #[test]
    fn principals_the_file_can_hold() {
        assert_eq!(principal("name", " Ada Lovelace ").unwrap(), "Ada Lovelace");
        assert_eq!(
            principal("email", "ada@example.org").unwrap(),
            "ada@example.org"
        );
        refused("name", "Ada, Grace", "holds `,`");
        refused("name", "Ada\nGrace", "holds `\\n`");
        refused("name", "Ada \"the\" L", "holds `\\\"`");
        refused("name", "Ada*", "holds `*`");
        refused("name", "Reviewer", "counts as a placeholder");
        refused("name", "pending", "counts as a placeholder");
        refused("name", "Ada and Grace", "several names");
        refused("name", "42", "not a name");
        refused("name", "  ", "is empty");
        refused("email", "a b@c", "white space");
    }

    /// `signers add` accepts a key exactly when verification would accept a signature made
    /// with it: each kind of key signs a review message with ssh-keygen, and
    /// `signatures::verify` (the key listed) judges it.
    #[test]
    fn key_supported_agrees_with_verification() {
        use crate::editorial::policy::signatures::{Role, SignatureRules, message};
        use crate::editorial::sign::key::with_ssh_keygen;
        use std::process::Command;
        let dir = tempfile::tempdir().unwrap();
        let hash = "v2:sha256:00";
        let msg = message(Role::Author, hash);
        for (kind, bits) in [
            ("ed25519", ""),
            ("ecdsa", "256"),
            ("ecdsa", "384"),
            ("ecdsa", "521"),
            ("rsa", "1024"),
            ("rsa", "2048"),
        ] {
            let key = dir.path().join(format!("{kind}{bits}"));
            let mut keygen = Command::new("ssh-keygen");
            keygen.args(["-q", "-t", kind, "-N", "", "-f"]).arg(&key);
            if !bits.is_empty() {
                keygen.args(["-b", bits]);
            }
            assert!(
                keygen.status().is_ok_and(|s| s.success()),
                "needs ssh-keygen"
            );
            let field = with_ssh_keygen(&key, &msg).unwrap();
            let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
            let data = PublicKey::from_openssh(public.trim())
                .unwrap()
                .key_data()
                .clone();
            let signers =
                signatures::parse(Path::new("s"), &format!("ada {}", public.trim())).unwrap();
            let rules = SignatureRules {
                signers,
                required: true,
                now: 0,
                pending: None,
            };
            let verified = signatures::verify(&rules, &field, Role::Author, hash);
            assert_eq!(
                key_supported(&data).is_ok(),
                verified.is_ok(),
                "{kind} {bits}: add says {:?}, verify says {verified:?}",
                key_supported(&data)
            );
        }
    }
}
