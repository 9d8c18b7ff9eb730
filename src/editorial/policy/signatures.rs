//! Signed reviews: the allowed-signers file (git's format: principals, options, key) and
//! the SSHSIG signatures in a byline (`author_signature`, `reviewer_signature`), each over
//! the message [`message`] binds — the role and the v2 pin. Verified with RustCrypto's
//! `ssh-key`.
use std::path::{Path, PathBuf};

use base64::Engine;
use ssh_key::{PublicKey, SshSig, public::KeyData};

use super::names;
use crate::content::Diagnostic;

mod options;

/// The SSHSIG namespace of every review signature (`ssh-keygen -Y sign -n coursegen-review`).
pub(crate) const NAMESPACE: &str = "coursegen-review";

/// The largest allowed-signers file read (a team's keys fit many times over).
pub(crate) const MAX_SIGNERS_BYTES: u64 = 256 * 1024;

/// The longest signature field judged (an Ed25519 SSHSIG is under 300 characters).
pub(crate) const MAX_SIGNATURE_CHARS: usize = 4096;

/// The shortest RSA modulus trusted (NIST SP 800-57's floor; OpenSSH refuses less than
/// 1024 to sign, and anything under 2048 is within reach of a well-funded attacker).
pub(crate) const MIN_RSA_BITS: usize = 2048;

/// The longest RSA modulus verified: the `rsa` crate that `ssh-key` verifies with refuses
/// larger public keys (a bound on the cost of one verification).
pub(crate) const MAX_RSA_BITS: usize = 4096;

/// The size of an RSA key's modulus, in bits.
fn rsa_bits(k: &ssh_key::public::RsaPublicKey) -> usize {
    let bytes = k.n.as_positive_bytes().unwrap_or_default();
    bytes.first().map_or(0, |&top| {
        (bytes.len() - 1) * 8 + (8 - top.leading_zeros() as usize)
    })
}

/// Which byline role a signature speaks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The author, `byline.author_signature`.
    Author,
    /// The reviewer, `byline.reviewer_signature`.
    Reviewer,
}

impl Role {
    /// The word in the signed message.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Role::Author => "author",
            Role::Reviewer => "reviewer",
        }
    }
    /// The byline field holding the signature.
    pub(crate) fn field(self) -> &'static str {
        match self {
            Role::Author => "byline.author_signature",
            Role::Reviewer => "byline.reviewer_signature",
        }
    }
    /// The other role.
    pub(crate) fn other(self) -> Role {
        match self {
            Role::Author => Role::Reviewer,
            Role::Reviewer => Role::Author,
        }
    }
}

/// The exact bytes a signature of `role` signs for the pin `hash`: binding the role means a
/// reviewer's signature pasted into the author's field fails, and binding the hash means
/// one copied from another entry (or made before an edit) fails.
pub(crate) fn message(role: Role, hash: &str) -> String {
    format!(
        "coursegen review v2\nrole: {}\nhash: {hash}\n",
        role.as_str()
    )
}

/// One key line of the allowed-signers file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Signer {
    /// 1-based line in the file.
    pub(crate) line: usize,
    /// Principals as written (emails, and the name the byline uses).
    pub(crate) principals: Vec<String>,
    /// The public key.
    pub(crate) key: KeyData,
    /// `valid-after`, as a Unix time (UTC).
    pub(crate) valid_after: Option<i64>,
    /// `valid-before`, as a Unix time (UTC).
    pub(crate) valid_before: Option<i64>,
    /// `namespaces="…"`, when the line restricts them.
    pub(crate) namespaces: Option<Vec<String>>,
}

/// The parsed allowed-signers file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AllowedSigners {
    /// The file, relative to the site root, for diagnostics.
    pub(crate) file: PathBuf,
    /// Its key lines, in order.
    pub(crate) signers: Vec<Signer>,
    /// The maintainers' statements that names the identity rule would fold into one are
    /// different people (`# coursegen: different-people "Li Wei" "Wei Li"`), each a group
    /// of canonical names.
    pub(crate) different_people: Vec<Vec<String>>,
    /// The file's text as read: the keys and statements a published site's provenance
    /// records (`editorial::provenance`).
    pub(crate) text: String,
    /// The commit it was read from (`--trusted-ref`); `None`: the working tree's.
    pub(crate) revision: Option<String>,
}

/// The comment that states that names are different people; ssh-keygen and git read it as
/// a comment.
const DIFFERENT_PEOPLE: &str = "coursegen: different-people";

impl AllowedSigners {
    /// Whether a statement of the file says that `a` and `b` (names or principals) are two
    /// people: both in one group, and not one name.
    pub(crate) fn said_different(&self, a: &str, b: &str) -> bool {
        let (a, b) = (names::canonical_name(a), names::canonical_name(b));
        a != b
            && (self.different_people.iter()).any(|group| group.contains(&a) && group.contains(&b))
    }
}

/// What the build requires of signatures, and what it checks them against.
#[derive(Debug, Clone, Eq)]
pub(crate) struct SignatureRules {
    /// The allowed signers.
    pub(crate) signers: AllowedSigners,
    /// A published entry needs both signatures.
    pub(crate) required: bool,
    /// The time keys' validity is judged at (Unix seconds).
    pub(crate) now: i64,
    /// Why signatures may not verify, said beside every refused or missing one: the file
    /// lists nobody yet, or a key the working tree lists does not count yet (`--trusted-ref`,
    /// and the change edits the file).
    pub(crate) pending: Option<String>,
}

impl SignatureRules {
    /// How many of the file's `valid-after` / `valid-before` times `now` has reached: the
    /// only thing about `now` that a signature's verdict depends on.
    fn bounds_passed(&self) -> usize {
        (self.signers.signers.iter())
            .flat_map(|s| [s.valid_after, s.valid_before])
            .flatten()
            .filter(|&t| t <= self.now)
            .count()
    }
}

impl PartialEq for SignatureRules {
    /// Rules judge every signature alike when they hold the same signers and requirement
    /// and their times lie between the same validity bounds: so serve's verdict memo keeps
    /// its verdicts from one rebuild to the next when only the clock moved.
    fn eq(&self, other: &Self) -> bool {
        self.signers == other.signers
            && self.required == other.required
            && self.bounds_passed() == other.bounds_passed()
    }
}

/// Reads the allowed-signers file `rel` under `root`: `Ok(None)` when there is none; the
/// path is judged by what it resolves to (inside the root, a regular file, size-limited).
pub(crate) fn load(root: &Path, rel: &Path) -> Result<Option<AllowedSigners>, Vec<Diagnostic>> {
    let path = root.join(rel);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let refuse = |why: String| vec![Diagnostic::new(rel, 0, why).field("review.allowed_signers")];
    let site = crate::content::admit::SiteRoot::new(root);
    let resolved = site
        .admit(&path, crate::content::admit::Purpose::Signers)
        .map_err(|why| refuse(format!("the allowed-signers file {why}")))?;
    let meta = std::fs::metadata(&resolved).map_err(|e| refuse(e.to_string()))?;
    if meta.len() > MAX_SIGNERS_BYTES {
        return Err(refuse(format!(
            "the allowed-signers file is {} KiB; at most {} KiB is read",
            meta.len() >> 10,
            MAX_SIGNERS_BYTES >> 10
        )));
    }
    let bytes = std::fs::read(&resolved).map_err(|e| refuse(e.to_string()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| refuse("the allowed-signers file is not UTF-8 text".into()))?;
    parse(rel, &text).map(Some)
}

/// The signature rules of a build: the file at `rel` when there is one; required when the
/// config says so, or under `--strict` once the file exists; keys judged valid at `now`.
pub(crate) fn rules_for(
    root: &Path,
    rel: &Path,
    require: bool,
    strict: bool,
    now: i64,
) -> Result<Option<std::sync::Arc<SignatureRules>>, Vec<Diagnostic>> {
    match load(root, rel)? {
        Some(signers) => Ok(Some(std::sync::Arc::new(SignatureRules {
            pending: nobody_listed(&signers),
            signers,
            required: require || strict,
            now,
        }))),
        None if require => Err(vec![
            Diagnostic::new(Path::new("coursegen.toml"), 0, format!(
                "`require_signatures = true`, but there is no allowed-signers file at {}",
                rel.display()
            ))
            .field("review.require_signatures")
            .help("add the file (see \"Signed reviews\" in README.md), or point `[review] allowed_signers` at it"),
        ]),
        None => Ok(None),
    }
}

/// What a refused or missing signature's help adds when the file lists nobody: a course
/// that requires signatures and has listed no keys yet publishes nothing.
pub(crate) fn nobody_listed(signers: &AllowedSigners) -> Option<String> {
    signers.signers.is_empty().then(|| {
        format!(
            "{} lists nobody yet: list the author's and the reviewer's public keys, each with `coursegen signers add \"Their Name\" --key ~/.ssh/id_ed25519.pub`",
            signers.file.display()
        )
    })
}

/// Now, in Unix seconds: `SOURCE_DATE_EPOCH` when set (tests, reproducible builds), else the clock.
pub(crate) fn now() -> i64 {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
        .unwrap_or_else(|| jiff::Timestamp::now().as_second())
}

/// Parses the text of an allowed-signers file; every bad line is reported.
pub(crate) fn parse(file: &Path, text: &str) -> Result<AllowedSigners, Vec<Diagnostic>> {
    let mut signers = Vec::new();
    let mut problems = Vec::new();
    let mut different_people = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(statement) = line.strip_prefix('#').map(str::trim)
            && statement.starts_with("coursegen:")
        {
            match different(statement) {
                Ok(group) => different_people.push(group),
                Err(why) => problems.push(Diagnostic::new(file, i + 1, why).help(
                    "write `# coursegen: different-people \"Li Wei\" \"Wei Li\"`: the names, \
                     quoted, of people the identity rule would take for one",
                )),
            }
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_line(i + 1, line) {
            Ok(s) => signers.push(s),
            Err(why) => problems.push(
                Diagnostic::new(file, i + 1, why)
                    .help("each line is `principals [options] key-type base64-key`, as git's gpg.ssh.allowedSignersFile"),
            ),
        }
    }
    if problems.is_empty() {
        Ok(AllowedSigners {
            file: file.to_path_buf(),
            signers,
            different_people,
            text: text.to_owned(),
            revision: None,
        })
    } else {
        Err(problems)
    }
}

/// The names of a `# coursegen: different-people` statement, canonical, or why it is not
/// one.
fn different(statement: &str) -> Result<Vec<String>, String> {
    let Some(mut rest) = statement.strip_prefix(DIFFERENT_PEOPLE) else {
        return Err(format!(
            "`{}` is not a statement coursegen knows: the one it reads is `# {DIFFERENT_PEOPLE}`",
            statement.escape_debug()
        ));
    };
    let mut group: Vec<String> = Vec::new();
    while !rest.trim().is_empty() {
        let (name, after) = token(rest)?;
        rest = after;
        if names::classify(&name) == names::Name::Unsigned || name.contains('@') {
            return Err(format!(
                "`{}` is not a person's name: a statement names people as bylines and \
                 principals write them (emails are compared whole already)",
                name.escape_debug()
            ));
        }
        let name = names::canonical_name(&name);
        if !group.contains(&name) {
            group.push(name);
        }
        if group.len() > MAX_PRINCIPALS {
            return Err(format!("a statement names at most {MAX_PRINCIPALS} people"));
        }
    }
    if group.len() < 2 {
        return Err("a different-people statement names at least two people".into());
    }
    Ok(group)
}

/// Splits off one whitespace-separated token, with `"…"` quoting (as OpenSSH reads it).
fn token(rest: &str) -> Result<(String, &str), String> {
    let rest = rest.trim_start();
    let mut out = String::new();
    let mut quoted = false;
    for (i, c) in rest.char_indices() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => return Ok((out, &rest[i..])),
            c => out.push(c),
        }
    }
    if quoted {
        return Err("a quote is not closed".into());
    }
    Ok((out, ""))
}

/// Splits off the options field as written, quotes kept: it ends at white space outside
/// double quotes (`\"` inside them is a quote), as OpenSSH's `sshkey_advance_past_options`.
fn raw_token(rest: &str) -> (&str, &str) {
    let rest = rest.trim_start();
    let (mut quoted, mut escaped) = (false, false);
    for (i, c) in rest.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if rest[i + 1..].starts_with('"') => escaped = true,
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => return (&rest[..i], &rest[i..]),
            _ => {}
        }
    }
    (rest, "")
}

fn is_key_type(t: &str) -> bool {
    t.starts_with("ssh-") || t.starts_with("ecdsa-sha2-") || t.starts_with("sk-")
}

/// The most principals one line of the allowed-signers file may list.
pub(crate) const MAX_PRINCIPALS: usize = 16;

fn parse_line(line: usize, text: &str) -> Result<Signer, String> {
    if text.chars().any(|c| c.is_control() && c != '\t') {
        return Err("the line holds control characters".into());
    }
    let (principals, rest) = token(text)?;
    let principals: Vec<String> = principals
        .split(',')
        .map(|p| p.trim().to_string())
        .collect();
    // Every principal of one key is compared with every principal of another, once per
    // signed entry: a line names one person, in a few spellings.
    if principals.len() > MAX_PRINCIPALS {
        return Err(format!(
            "{} principals on one line: a line lists one person's names and emails, at most {MAX_PRINCIPALS}",
            principals.len()
        ));
    }
    if let Some(p) = principals
        .iter()
        .find(|p| p.is_empty() || p.contains(['*', '?', '!']))
    {
        return Err(format!(
            "`{}` is not a principal coursegen accepts: principals are matched literally, so no patterns and none empty",
            p.escape_debug()
        ));
    }
    let (field, after) = raw_token(rest);
    let mut signer = Signer {
        line,
        principals,
        key: KeyData::Ed25519(ssh_key::public::Ed25519PublicKey([0; 32])),
        valid_after: None,
        valid_before: None,
        namespaces: None,
    };
    let (next, rest) = if is_key_type(field) {
        (field.to_string(), after)
    } else {
        let read = options::parse(field)?;
        (signer.valid_after, signer.valid_before) = (read.valid_after, read.valid_before);
        signer.namespaces = read.namespaces;
        token(after)?
    };
    let (blob, _comment) = token(rest)?;
    let key = PublicKey::from_openssh(&format!("{next} {blob}"))
        .map_err(|e| format!("the key `{}` cannot be read: {e}", next.escape_debug()))?;
    // ssh-keygen reads only uncompressed points ("invalid key"); listed in both forms, one
    // key would be two signers.
    if let KeyData::Ecdsa(ec) = key.key_data()
        && ec.as_sec1_bytes().first().is_some_and(|&tag| tag != 4)
    {
        return Err(
            "the ECDSA key is written with its point compressed, which ssh-keygen does not read (\"invalid key\"): copy the key as ssh-keygen prints it (`ssh-keygen -y -f KEY`)"
                .into(),
        );
    }
    signer.key = key.key_data().clone();
    Ok(signer)
}

/// One key, one value: a P-256 point written compressed is decoded to the uncompressed
/// form that `ssh-keygen` writes (the only form the allowed-signers file may list), so a
/// signature that carries a listed key in the other form is by that key; every other kind
/// has one encoding already (`ssh-key` refuses a non-minimal RSA integer). A point that
/// does not decode is left as written, and so matches nothing.
pub(crate) fn canonical_key(key: &KeyData) -> KeyData {
    use ssh_key::public::EcdsaPublicKey;
    match key {
        KeyData::Ecdsa(ec @ EcdsaPublicKey::NistP256(point)) if point.is_compressed() => {
            match p256::ecdsa::VerifyingKey::try_from(ec) {
                Ok(decoded) => KeyData::Ecdsa(EcdsaPublicKey::from(&decoded)),
                Err(_) => key.clone(),
            }
        }
        _ => key.clone(),
    }
}

/// A signature that verified: by whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verified {
    /// The allowed-signers line of the key.
    pub(crate) signer: Signer,
    /// The key's SHA-256 fingerprint, as ssh-keygen prints it.
    pub(crate) fingerprint: String,
}

/// Decodes the one-line base64 of a byline signature field into an SSHSIG.
pub fn decode(field: &str) -> Result<SshSig, String> {
    if field.len() > MAX_SIGNATURE_CHARS {
        return Err(format!(
            "malformed signature: {} characters, more than the {MAX_SIGNATURE_CHARS} a signature takes",
            field.len()
        ));
    }
    let compact: String = field.split_whitespace().collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .map_err(|e| format!("malformed signature: not base64 ({e})"))?;
    let pem = armor(&bytes);
    SshSig::from_pem(pem.as_bytes())
        .map_err(|e| format!("malformed signature: not an SSH signature ({e})"))
}

/// The armored form `ssh-keygen -Y verify -s` reads, for the raw SSHSIG `bytes`.
pub(crate) fn armor(bytes: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut pem = String::from("-----BEGIN SSH SIGNATURE-----\n");
    for chunk in b64.as_bytes().chunks(70) {
        pem.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        pem.push('\n');
    }
    pem.push_str("-----END SSH SIGNATURE-----\n");
    pem
}

/// The one-line base64 written into a byline, for an armored signature.
pub fn one_line(pem: &str) -> String {
    pem.lines()
        .filter(|l| !l.starts_with("-----"))
        .map(str::trim)
        .collect()
}

/// Whether coursegen verifies signatures by `key`: Ed25519, ECDSA P-256, and RSA of
/// `MIN_RSA_BITS` to `MAX_RSA_BITS` bits; else why not (`coursegen signers add` lists no
/// key this refuses).
pub(crate) fn key_supported(key: &KeyData) -> Result<(), String> {
    match key {
        KeyData::Ed25519(_) => Ok(()),
        KeyData::Ecdsa(k) if k.curve() == ssh_key::EcdsaCurve::NistP256 => Ok(()),
        KeyData::Rsa(k) => {
            let bits = rsa_bits(k);
            if bits < MIN_RSA_BITS {
                Err(format!(
                    "weak key: a {bits}-bit RSA key; an RSA key must have at least {MIN_RSA_BITS} bits (make one with `ssh-keygen -t ed25519`)"
                ))
            } else if bits > MAX_RSA_BITS {
                Err(format!(
                    "unsupported key: a {bits}-bit RSA key; coursegen verifies RSA keys of at most {MAX_RSA_BITS} bits (make an Ed25519 key: `ssh-keygen -t ed25519`)"
                ))
            } else {
                Ok(())
            }
        }
        other => Err(format!(
            "unsupported key: a `{}` key, which coursegen does not verify (Ed25519, ECDSA P-256 and RSA of {MIN_RSA_BITS} to {MAX_RSA_BITS} bits only; make one with `ssh-keygen -t ed25519`)",
            other.algorithm()
        )),
    }
}

/// Checks the signature `field` for `role` over `hash`: by a known key, valid at `now`,
/// under our namespace, over this role and hash. `old_hash` (the entry's stale pin, if
/// any) only sharpens the message.
pub(crate) fn verify(
    rules: &SignatureRules,
    field: &str,
    role: Role,
    hash: &str,
) -> Result<Verified, String> {
    let sig = decode(field)?;
    let canonical = canonical_key(sig.public_key());
    let key = &canonical;
    let fingerprint = PublicKey::new(key.clone(), "")
        .fingerprint(ssh_key::HashAlg::Sha256)
        .to_string();
    let file = rules.signers.file.display();
    key_supported(key)?;
    if sig.namespace() != NAMESPACE {
        return Err(format!(
            "wrong namespace: the signature is for `{}`, not `{NAMESPACE}`",
            sig.namespace().escape_debug()
        ));
    }
    let lines: Vec<&Signer> = rules
        .signers
        .signers
        .iter()
        .filter(|s| &s.key == key)
        .collect();
    if lines.is_empty() {
        return Err(format!("unknown key: {fingerprint} is not in {file}"));
    }
    let valid = lines.iter().find(|s| {
        s.valid_after.is_none_or(|t| rules.now >= t) && s.valid_before.is_none_or(|t| rules.now < t)
    });
    let Some(signer) = valid else {
        return Err(format!(
            "key outside its validity: {fingerprint} is not valid now by line {} of {file} (valid-after / valid-before)",
            lines[0].line
        ));
    };
    if signer
        .namespaces
        .as_ref()
        .is_some_and(|n| !options::namespace_allowed(NAMESPACE, n))
    {
        return Err(format!(
            "wrong namespace: line {} of {file} does not allow {fingerprint} to sign `{NAMESPACE}`",
            signer.line
        ));
    }
    if sig.signed_data_ok(&message(role, hash)) {
        return Ok(Verified {
            signer: (*signer).clone(),
            fingerprint,
        });
    }
    if sig.signed_data_ok(&message(role.other(), hash)) {
        return Err(format!(
            "this is the {}'s signature, in the {}'s field",
            role.other().as_str(),
            role.as_str()
        ));
    }
    Err(format!(
        "signature over another hash: it does not sign this entry as it is now ({hash}) — copied from another entry, or made before an edit"
    ))
}

trait SignedData {
    fn signed_data_ok(&self, msg: &str) -> bool;
}

impl SignedData for SshSig {
    fn signed_data_ok(&self, msg: &str) -> bool {
        PublicKey::new(self.public_key().clone(), "")
            .verify(NAMESPACE, msg.as_bytes(), self)
            .is_ok()
    }
}

#[cfg(test)]
mod tests;
