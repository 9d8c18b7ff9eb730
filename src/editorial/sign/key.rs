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
pub fn sign_message(key: &Path, msg: &str) -> Result<String, String> {
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
