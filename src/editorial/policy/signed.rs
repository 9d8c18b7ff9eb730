//! The signature rule: a published entry (when signatures are required) carries an author
//! signature and a reviewer signature over its current pin, by keys of two different people
//! in the allowed-signers file, whose principals include the byline's names.
//!
//! One identity rule: two keys are one person when they are one key (compared decoded, so a
//! P-256 key written compressed is the key written uncompressed), or when any principal of
//! one line and any principal of the other are the same person by
//! [`names::same_principal`] — case, spacing, invisible characters, Unicode form,
//! look-alike letters, titles, initials and word order folded; an email compared whole.
use crate::content::Entry;
use crate::content::meta::Byline;

use super::names;
use super::pin;
use super::signatures::{self, Role, SignatureRules, Verified};

/// What one role's signature is, for `coursegen status` and the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RoleSignature {
    /// No signature in the field.
    Missing,
    /// Verified, by this signer.
    Valid(Box<Verified>),
    /// Present but refused, and why.
    Invalid(String),
}

/// Both roles' signatures of `entry`, over `hash` (the pin it must have, `pin::expected`),
/// judged against `rules` and each other.
pub(crate) fn entry_signatures(
    entry: &Entry,
    hash: &str,
    rules: &SignatureRules,
) -> [(Role, RoleSignature); 2] {
    byline_signatures(&entry.meta.byline, hash, rules)
}

/// [`entry_signatures`] from a byline alone: what `coursegen verify` judges a published
/// page's recorded byline with, so that the build and the reader apply one rule.
pub(crate) fn byline_signatures(
    b: &Byline,
    hash: &str,
    rules: &SignatureRules,
) -> [(Role, RoleSignature); 2] {
    let one = |field: &Option<String>, role: Role| match field {
        None => RoleSignature::Missing,
        Some(f) => match signatures::verify(rules, f, role, hash) {
            Ok(v) => RoleSignature::Valid(Box::new(v)),
            Err(why) => RoleSignature::Invalid(why),
        },
    };
    let mut author = one(&b.author_signature, Role::Author);
    let mut reviewer = one(&b.reviewer_signature, Role::Reviewer);
    // A signature over a pin of an older scheme says so, not "another hash".
    // (Not one the entry is still judged by: a v3 pin of an entry that shows no file.)
    let old = (b.reviewed_hash.as_deref())
        .and_then(|old| Some((old, pin::scheme_of(old)?)))
        .filter(|(_, (prefix, _, _))| !hash.starts_with(prefix));
    if let Some((old, (_, scheme, _))) = old {
        for (field, role, sig) in [
            (&b.author_signature, Role::Author, &mut author),
            (&b.reviewer_signature, Role::Reviewer, &mut reviewer),
        ] {
            if let (Some(f), RoleSignature::Invalid(_)) = (field, &*sig)
                && signatures::verify(rules, f, role, old).is_ok()
            {
                *sig = RoleSignature::Invalid(format!(
                    "signed over {scheme}, which no longer pins a review: the reviewer signs the entry again (a `{}` pin), then the author",
                    pin::PREFIX
                ));
            }
        }
    }
    // Two people first: one key (or one person's two keys) in both roles is refused
    // whatever the byline says.
    if let (RoleSignature::Valid(a), RoleSignature::Valid(r)) = (&author, &reviewer) {
        let file = rules.signers.file.display();
        if a.signer.key == r.signer.key {
            reviewer = RoleSignature::Invalid(format!(
                "same person twice: one key ({}) signed both roles",
                r.fingerprint
            ));
        } else if let Some((p, q)) = (a.signer.principals.iter())
            .flat_map(|p| r.signer.principals.iter().map(move |q| (p, q)))
            .find(|(p, q)| names::same_principal(p, q))
            // Two keys whose lines a maintainer said are two people's are two people.
            && !(a.signer.principals.iter()).any(|p| {
                (r.signer.principals.iter()).any(|q| rules.signers.said_different(p, q))
            })
        {
            let whom = if p == q {
                format!("`{}`", p.escape_debug())
            } else {
                format!(
                    "`{}` and `{}`, one person",
                    p.escape_debug(),
                    q.escape_debug()
                )
            };
            reviewer = RoleSignature::Invalid(format!(
                "same person twice: both keys belong to {whom} (lines {} and {} of {file}; principals are compared ignoring case, spacing, invisible characters, look-alike letters, titles, initials and word order; if they are two people, a maintainer says so in that file: `# coursegen: different-people \"{}\" \"{}\"`)",
                a.signer.line,
                r.signer.line,
                p.escape_debug(),
                q.escape_debug()
            ));
        }
    }
    for (role, sig) in [(Role::Author, &mut author), (Role::Reviewer, &mut reviewer)] {
        if let RoleSignature::Valid(v) = sig
            && let Err(why) = named(b, role, v, rules)
        {
            *sig = RoleSignature::Invalid(why);
        }
    }
    [(Role::Author, author), (Role::Reviewer, reviewer)]
}

/// The byline must name the signer in the role signed: a principal of the key's line is
/// one of the role's names.
fn named(b: &Byline, role: Role, v: &Verified, rules: &SignatureRules) -> Result<(), String> {
    let list = match role {
        Role::Author => &b.written_by,
        Role::Reviewer => &b.reviewed_by,
    };
    let principals: Vec<String> = v
        .signer
        .principals
        .iter()
        .map(|p| names::canonical_name(p))
        .collect();
    if list
        .iter()
        .any(|n| principals.contains(&names::canonical_name(n)))
    {
        return Ok(());
    }
    Err(format!(
        "the key belongs to `{}` (line {} of {}), who is not named in byline.{}",
        v.signer.principals.join(",").escape_debug(),
        v.signer.line,
        rules.signers.file.display(),
        match role {
            Role::Author => "written_by",
            Role::Reviewer => "reviewed_by",
        }
    ))
}
