//! Making a review signature: with `ssh-key` for a plain (unencrypted) Ed25519 or ECDSA
//! P-256 key file, and through `ssh-keygen -Y sign` for everything else — a public key
//! whose private half is in ssh-agent, a passphrase-protected key (ssh-keygen asks for it),
//! a hardware (`sk-`) key — which only OpenSSH can reach.
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::editorial::policy::signatures::{self, NAMESPACE};

/// The largest key file read (an OpenSSH private key is a few KiB).
const MAX_KEY_BYTES: u64 = 64 * 1024;

/// Signs `msg` with the key at `key` under the review namespace: the one-line base64 of the
/// SSHSIG, as the byline holds it.
pub(crate) fn sign_message(key: &Path, msg: &str) -> Result<String, String> {
    let meta = std::fs::metadata(key)
        .map_err(|e| format!("cannot read the key {}: {e}", key.display()))?;
    if !meta.is_file() || meta.len() > MAX_KEY_BYTES {
        return Err(format!("{} is not an SSH key file", key.display()));
    }
    let text = std::fs::read_to_string(key).unwrap_or_default();
    if let Ok(private) = ssh_key::PrivateKey::from_openssh(&text) {
        let plain = !private.is_encrypted()
            && matches!(
                private.algorithm(),
                ssh_key::Algorithm::Ed25519
                    | ssh_key::Algorithm::Ecdsa {
                        curve: ssh_key::EcdsaCurve::NistP256
                    }
            );
        if plain {
            let sig = private
                .sign(NAMESPACE, ssh_key::HashAlg::Sha512, msg.as_bytes())
                .map_err(|e| format!("cannot sign with {}: {e}", key.display()))?;
            let pem = sig
                .to_pem(ssh_key::LineEnding::LF)
                .map_err(|e| format!("cannot encode the signature: {e}"))?;
            return Ok(signatures::one_line(&pem));
        }
    }
    with_ssh_keygen(key, msg)
}

/// `ssh-keygen -Y sign -n coursegen-review -f KEY`, the message on stdin, the armored
/// signature on stdout; ssh-keygen talks to the agent or asks for a passphrase itself.
/// Also the tests' way to make a signature with OpenSSH itself.
pub(crate) fn with_ssh_keygen(key: &Path, msg: &str) -> Result<String, String> {
    let mut child = Command::new("ssh-keygen")
        .args(["-q", "-Y", "sign", "-n", NAMESPACE, "-f"])
        .arg(key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| {
            format!(
                "{} needs ssh-keygen (an agent-held, passphrase-protected or hardware key), which cannot be run: {e}",
                key.display()
            )
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(msg.as_bytes())
            .map_err(|e| format!("cannot talk to ssh-keygen: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("ssh-keygen failed: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "ssh-keygen -Y sign with {} failed ({}); is the key (or its agent) there?",
            key.display(),
            out.status
        ));
    }
    let pem = String::from_utf8_lossy(&out.stdout);
    let line = signatures::one_line(&pem);
    signatures::decode(&line).map_err(|e| format!("ssh-keygen wrote no signature: {e}"))?;
    Ok(line)
}

/// Refuses a private key inside the course (judged by where it resolves to) or tracked by
/// git: `signers add` and `sign` use it on the key they are given, and on the private half
/// beside a `.pub`. A key in the course folder is one `git add -A` from being published,
/// and a published private key lets anyone sign as its owner; a key git already tracks
/// counts as leaked. The message says where a key belongs instead (`~/.ssh/`).
pub(crate) fn refuse_private_key_in_course(root: &Path, key: &Path) -> Result<(), String> {
    let Some(private) = private_key_of(key) else {
        return Ok(());
    };
    let Ok(resolved) = std::fs::canonicalize(&private) else {
        return Ok(());
    };
    let course = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let file_name = |p: &Path| {
        p.file_name()
            .map_or_else(|| "KEY".into(), |n| n.to_string_lossy().into_owned())
    };
    // A link is judged, and named, by the file it leads to.
    let private = match std::fs::symlink_metadata(&private) {
        Ok(m) if m.file_type().is_symlink() => resolved.clone(),
        _ => private,
    };
    let name = file_name(&private);
    let shown = private.display();
    // Given a `.pub`, the pair moves together and `--key` names the `.pub` again.
    let (also, moved, given) = if private != key {
        (
            format!(" (the private half of {})", key.display()),
            format!("{shown} {}", key.display()),
            file_name(key),
        )
    } else {
        (String::new(), shown.to_string(), name.clone())
    };
    if tracked_by_git(&resolved) {
        return Err(format!(
            "{shown}{also} is a private key that git tracks: once pushed, anyone who reads the repository can sign as its owner, so count it as leaked. Untrack it (`git rm --cached {shown}`, and remove it from the history if it was pushed), make a new key in ~/.ssh/ (`ssh-keygen -t ed25519 -f ~/.ssh/{name}`), and replace the old key in the allowed-signers file (`coursegen signers remove NAME`, then `coursegen signers add NAME --key ~/.ssh/{name}.pub`); nothing was written"
        ));
    }
    if resolved.starts_with(&course) {
        return Err(format!(
            "{shown}{also} is a private key inside the course folder ({}), one `git add -A` from being published: keep it in ~/.ssh/ (`mkdir -p ~/.ssh && mv {moved} ~/.ssh/ && chmod 600 ~/.ssh/{name}`) and pass `--key ~/.ssh/{given}`; nothing was written",
            course.display()
        ));
    }
    Ok(())
}

/// The private key file `key` names: itself when it is one, else the file beside a `.pub`
/// (`ada.pub` → `ada`) when that is one.
fn private_key_of(key: &Path) -> Option<std::path::PathBuf> {
    let is_private = |p: &Path| {
        let Ok(meta) = std::fs::metadata(p) else {
            return false;
        };
        if !meta.is_file() || meta.len() > MAX_KEY_BYTES {
            return false;
        }
        std::fs::read(p).is_ok_and(|b| {
            let text = String::from_utf8_lossy(&b);
            let text = text.trim_start();
            text.starts_with("-----BEGIN") && text.contains("PRIVATE KEY")
        })
    };
    if is_private(key) {
        return Some(key.to_path_buf());
    }
    let beside = key
        .to_string_lossy()
        .strip_suffix(".pub")
        .map(std::path::PathBuf::from)?;
    is_private(&beside).then_some(beside)
}

/// Whether the git repository around `file` (if any) tracks it, staged included. git runs
/// with the repository's own file-system monitor switched off (a repository's config may
/// name a program for it).
fn tracked_by_git(file: &Path) -> bool {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return false;
    };
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "core.fsmonitor=false",
            "ls-files",
            "--error-unmatch",
            "--",
        ])
        .arg(name)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
