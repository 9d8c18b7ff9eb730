//! `coursegen verify`'s judgement of a published site: each page's bytes against the digest
//! its provenance records, and each published entry's two signatures over its recorded pin,
//! with the keys of the recorded allowed-signers file, by the build's own rule
//! (`policy::signed::byline_signatures`: one key, one person, named in its role). The pin
//! itself is computed from the source, so a built site alone cannot recompute it: a page
//! edited together with its digest is caught only by rebuilding (`cmd::verify`, `--rebuild`).
//! Pure: the command reads the files and hands them here.
use std::collections::BTreeMap;
use std::path::Path;

use super::policy::names;
use super::policy::signatures::{self, AllowedSigners, Role, SignatureRules, Verified};
use super::policy::{RoleSignature, byline_signatures};
use super::provenance::{NOT_REVIEWED, PageRecord, Provenance, REVIEWED, Review, Signature};
use crate::content::meta::Byline;

/// What verify found for one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Bytes match; both signatures verify, by two people whose keys the file lists.
    Signed {
        /// The author's name and key fingerprint.
        author: (String, String),
        /// The reviewer's.
        reviewer: (String, String),
    },
    /// Bytes match; a published entry of a course that lists no keys: reviewed by name only.
    Unsigned {
        /// The byline's authors and reviewers.
        names: (String, String),
    },
    /// Bytes match; not an entry (home, an index, search): no one signs it, nor is it claimed.
    NotReviewed,
    /// Does not verify, and why.
    Refused(String),
}

/// One page's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageResult {
    /// The page's file in the site.
    pub(crate) file: String,
    /// Its URL.
    pub(crate) url: String,
    /// What was found.
    pub(crate) outcome: Outcome,
}

/// The reader's own copy of the trusted allowed-signers file (`--signers`), when given:
/// the recorded file must be that file.
pub(crate) struct Anchor<'a> {
    /// Its text.
    pub(crate) signers: Option<&'a str>,
}

/// Verifies the pages of `prov` that `wanted` lets through (every page when it says so),
/// reading each page's bytes with `read` (its file relative to the site, or why it could
/// not be read).
pub(crate) fn verify(
    prov: &Provenance,
    anchor: &Anchor<'_>,
    wanted: impl Fn(&PageRecord) -> bool,
    read: impl Fn(&str) -> Result<Vec<u8>, String> + Sync,
) -> Vec<PageResult> {
    let rules = rules_of(prov, anchor);
    // A pin covers its entry's file and URL, so no two pages can share one.
    let mut by_pin: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_file: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &prov.pages {
        *by_file.entry(&p.file).or_default() += 1;
        if let Some(pin) = p.review.as_ref().and_then(|r| r.pin.as_deref()) {
            *by_pin.entry(pin).or_default() += 1;
        }
    }
    let pages: Vec<&PageRecord> = prov.pages.iter().filter(|p| wanted(p)).collect();
    use rayon::prelude::*;
    pages
        .par_iter()
        .map(|p| {
            let outcome = (|| {
                if by_file[p.file.as_str()] > 1 {
                    return Err(format!("{} is listed twice in the provenance", p.file));
                }
                place(prov, p)?;
                let bytes = read(&p.file)?;
                let served = crate::canonical::sha256_hex(&bytes);
                if !served.eq_ignore_ascii_case(&p.sha256) {
                    return Err(format!(
                        "page bytes differ from the provenance: sha256 {} served, {} recorded (edited after the build, or from another build)",
                        short(&served),
                        short(&p.sha256)
                    ));
                }
                match (p.status.as_str(), &p.review) {
                    (NOT_REVIEWED, None) => Ok(Outcome::NotReviewed),
                    (REVIEWED, Some(r)) => {
                        if let Some(pin) = &r.pin
                            && by_pin[pin.as_str()] > 1
                        {
                            return Err(format!(
                                "its pin {} is claimed by more than one page; a pin covers its entry's file and URL (a page copied to another URL)",
                                short(pin)
                            ));
                        }
                        review(r, &rules)
                    }
                    (status, _) => Err(format!(
                        "status `{}` with{} a review: the provenance is malformed",
                        status.escape_debug(),
                        if p.review.is_some() { "" } else { "out" }
                    )),
                }
            })();
            PageResult {
                file: p.file.clone(),
                url: p.url.clone(),
                outcome: outcome.unwrap_or_else(Outcome::Refused),
            }
        })
        .collect()
}

/// The signature rules the recorded file makes, judged at the build's recorded time; `Ok(None)`
/// when the course lists no keys.
fn rules_of(prov: &Provenance, anchor: &Anchor<'_>) -> Result<Option<SignatureRules>, String> {
    let Some(s) = &prov.signers else {
        if anchor.signers.is_some() {
            return Err(
                "the provenance records no allowed-signers file, but you gave one (--signers): the site claims no signatures"
                    .into(),
            );
        }
        return Ok(None);
    };
    if let Some(mine) = anchor.signers
        && mine != s.text
    {
        return Err(format!(
            "the provenance's allowed-signers file ({}) is not the one you gave (--signers): keys not listed by the trusted revision",
            s.file.escape_debug()
        ));
    }
    let file = Path::new(&s.file);
    let signers: AllowedSigners = signatures::parse(file, &s.text).map_err(|d| {
        format!(
            "the provenance's allowed-signers file does not parse: {}",
            d.first().map(|d| d.message.clone()).unwrap_or_default()
        )
    })?;
    Ok(Some(SignatureRules {
        signers,
        required: true,
        now: prov.source_date_epoch.unwrap_or_else(signatures::now),
        pending: None,
    }))
}

/// The page's file and URL agree with each other and the base path, and stay in the site.
fn place(prov: &Provenance, p: &PageRecord) -> Result<(), String> {
    let f = &p.file;
    let bad = f.is_empty()
        || f.starts_with('/')
        || f.contains('\\')
        || f.contains('\0')
        || f.split('/').any(|c| c.is_empty() || c == "." || c == "..")
        || !f.ends_with(".html");
    if bad {
        return Err(format!(
            "the provenance names the file `{}`, which is not a page of the site",
            f.escape_debug()
        ));
    }
    let base = &prov.settings.base_path;
    let url = match f.strip_suffix("index.html") {
        Some(dir) => format!("{base}{dir}"),
        None => format!("{base}{f}"),
    };
    if p.url != url {
        return Err(format!(
            "the provenance gives {} the URL `{}`; it is served at `{url}`",
            f,
            p.url.escape_debug()
        ));
    }
    Ok(())
}

/// A published entry's recorded review, by the build's rule.
fn review(r: &Review, rules: &Result<Option<SignatureRules>, String>) -> Result<Outcome, String> {
    let rules = match rules {
        Err(why) => return Err(why.clone()),
        Ok(None) => {
            return Ok(Outcome::Unsigned {
                names: (r.written_by.join(", "), r.reviewed_by.join(", ")),
            });
        }
        Ok(Some(rules)) => rules,
    };
    let pin = r
        .pin
        .as_deref()
        .ok_or("claimed as reviewed without a pin (`reviewed_hash`): not a published entry")?;
    if !pin.starts_with(super::policy::pin::PREFIX) && !pin.starts_with("v3:sha256:") {
        return Err(format!(
            "its pin `{}` is of no scheme that pins a review",
            short(pin)
        ));
    }
    let byline = Byline {
        written_by: r.written_by.clone(),
        reviewed_by: r.reviewed_by.clone(),
        written_on: None,
        last_checked_on: None,
        reviewed_hash: Some(pin.to_owned()),
        author_signature: r.author.as_ref().map(|s| s.sshsig.clone()),
        reviewer_signature: r.reviewer.as_ref().map(|s| s.sshsig.clone()),
    };
    let [(_, author), (_, reviewer)] = byline_signatures(&byline, pin, rules);
    let judged = |role: Role, sig: RoleSignature, recorded: &Option<Signature>| match sig {
        RoleSignature::Missing => Err(format!(
            "no {} signature: claimed as reviewed, but not signed (a draft, or an entry of a course that signs nothing)",
            role.as_str()
        )),
        RoleSignature::Invalid(why) => Err(format!("{} signature refused: {why}", role.as_str())),
        RoleSignature::Valid(v) => {
            let rec = recorded.as_ref().expect("a valid signature was recorded");
            if rec.fingerprint != v.fingerprint || rec.principals != v.signer.principals {
                return Err(format!(
                    "the provenance says the {} key is {} ({}); the signature is by {}",
                    role.as_str(),
                    rec.fingerprint.escape_debug(),
                    rec.principals.join(",").escape_debug(),
                    v.fingerprint
                ));
            }
            Ok(who(&v, &byline, role))
        }
    };
    let author = judged(Role::Author, author, &r.author)?;
    let reviewer = judged(Role::Reviewer, reviewer, &r.reviewer)?;
    Ok(Outcome::Signed { author, reviewer })
}

/// The signer's name as the byline writes it (one of the key's principals), and the key.
fn who(v: &Verified, b: &Byline, role: Role) -> (String, String) {
    let list = match role {
        Role::Author => &b.written_by,
        Role::Reviewer => &b.reviewed_by,
    };
    let principals: Vec<String> = (v.signer.principals.iter())
        .map(|p| names::canonical_name(p))
        .collect();
    let name = (list.iter())
        .find(|n| principals.contains(&names::canonical_name(n)))
        .cloned()
        .unwrap_or_default();
    (name, v.fingerprint.clone())
}

/// A hash shortened for a message.
fn short(hash: &str) -> String {
    hash.chars()
        .take(24)
        .collect::<String>()
        .escape_debug()
        .to_string()
}
