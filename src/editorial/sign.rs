//! `coursegen sign`: a reviewer signs an entry — the byline gets their name, today's date
//! and the `reviewed_hash` of the entry as reviewed — by editing only those lines of the
//! file, and only after the result was checked. It writes nothing the publish build would
//! only refuse: not `status: published` on an entry that cannot be published, not a review
//! without a key where keys are checked, not a signature over an old pin (removed, and said).
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiff::civil::Date;

use crate::content::{self, Diagnostic, Diagnostics, Entry};
use crate::editorial::policy::names::{self, Name};
use crate::editorial::policy::signatures::{Role, SignatureRules};
use crate::editorial::policy::{self, FindingKind, RoleSignature, Rules, pin};

pub(crate) mod edit;
mod entry_file;
mod error;
pub(crate) mod key;

pub(crate) use self::error::SignError;

use self::entry_file::{edit_yaml, parse};

/// What to sign, and as whom.
#[derive(Debug, Clone)]
pub(crate) struct SignOptions {
    /// The reviewers (at least one); they replace `reviewed_by`.
    pub(crate) reviewers: Vec<String>,
    /// The authors, when given; they replace `written_by`.
    pub(crate) authors: Vec<String>,
    /// Also set `status: published`.
    pub(crate) publish: bool,
    /// The date written as `last_checked_on` (and `written_on` when it is pending).
    pub(crate) today: Date,
    /// The reviewer's SSH key: also writes `reviewer_signature` over the new pin.
    pub(crate) key: Option<PathBuf>,
    /// The allowed signers, when the site has the file: a new signature must verify, and
    /// a review needs a key.
    pub(crate) signers: Option<std::sync::Arc<SignatureRules>>,
    /// The fields a published glossary entry must fill in (`[glossary] required`).
    pub(crate) required: policy::Required,
    /// The glossary's folder under `content/` (`[glossary] folder`).
    pub(crate) glossary: String,
    /// `--allow-problems`: with `publish`, sign even though the publish build would report
    /// problems outside the rule's own fields.
    pub(crate) allow_problems: bool,
}

/// What signing did.
#[derive(Debug)]
pub(crate) struct Signed {
    /// The entry file, relative to the root.
    pub(crate) file: PathBuf,
    /// The hash written.
    pub(crate) hash: String,
    /// What still keeps it from being published (status, missing fields, scaffold text).
    pub(crate) notes: Vec<Diagnostic>,
    /// Signatures removed because they signed the entry as it was before this review, with
    /// who signs again and how.
    pub(crate) removed: Vec<String>,
    /// What the publish build would still report, signed anyway with `--allow-problems`.
    pub(crate) warnings: Vec<Diagnostic>,
}

/// Signs the entry `file` (relative to `root`, or as the user typed it); with `--publish`,
/// also asks `publish_problems` what the publish build would report in the entry as signed
/// (given its path relative to the root and its new text; an `Err` says why it could not
/// tell). The rule's own findings (missing fields, placeholders, nobody named) always refuse
/// `--publish`: fixing them edits the entry, which voids the signature. The build's other problems (a link to a draft, a record not yet
/// measured) refuse it too unless `opts.allow_problems`, which signs and hands them back as
/// [`Signed::warnings`].
pub(crate) fn sign_checked(
    root: &Path,
    file: &Path,
    opts: &SignOptions,
    publish_problems: impl FnOnce(&Path, &str) -> Result<Vec<Diagnostic>, String>,
) -> Result<Signed, SignError> {
    if let Some(key) = &opts.key {
        key::refuse_private_key_in_course(root, key).map_err(SignError::KeyInCourse)?;
    }
    let (rel, abs, text, spelling) = entry_file::read(root, file)?;
    let before = parse(&rel, &text)?;
    // Invisible characters are not written into the file; the rest is judged as given.
    let clean = |list: &[String]| -> Vec<String> {
        list.iter()
            .map(|n| policy::names::without_invisible(n))
            .collect()
    };
    let (reviewers, authors) = (clean(&opts.reviewers), clean(&opts.authors));
    refuse_placeholders(&before, &reviewers, &authors)?;
    if let (None, Some(rules)) = (&opts.key, &opts.signers) {
        return Err(SignError::NeedsKey(rules.signers.file.clone()));
    }
    let mut signed = edit_byline(&rel, &text, opts, (&reviewers, &authors))?;
    let entry = parse(&rel, &signed)?;
    refuse_bad_signatures(&entry, opts)?;
    let files = pin::Files::new(root);
    let hash = pin::review_hash(&entry, &files.shown(&entry));
    signed = edit_yaml(&rel, &signed, |y| {
        edit::set_byline(y, "reviewed_hash", &hash)
    })?;
    let (unsigned, removed) = without_stale_signatures(&rel, &signed, &before, &hash, opts)?;
    signed = unsigned;
    let entry = parse(&rel, &signed)?;
    // The edit must read back as exactly what was meant, or nothing is written.
    let b = &entry.meta.byline;
    if b.reviewed_hash.as_deref() != Some(hash.as_str())
        || pin::review_hash(&entry, &files.shown(&entry)) != hash
        || b.reviewed_by != reviewers
    {
        return Err(misread(&rel, &entry));
    }
    let notes = still_blocking(&entry, opts);
    let mut warnings = Vec::new();
    if opts.publish {
        let build = publish_problems(&rel, &signed).map_err(SignError::PublishCheck)?;
        // The build reports the rule's findings too: each once.
        let build: Vec<Diagnostic> = (build.into_iter())
            .filter(|d| !notes.iter().any(|n| n.line == d.line && n.field == d.field))
            .collect();
        if !notes.is_empty() || (!build.is_empty() && !opts.allow_problems) {
            let allowable = notes.is_empty();
            let mut problems = notes;
            problems.extend(build);
            // The file stays as it is: each problem at its line there.
            for d in &mut problems {
                d.line = line_in(d, (&signed, &text), &before);
            }
            problems.sort_by_key(|d| d.line);
            return Err(SignError::CannotPublish {
                file: rel,
                problems: Diagnostics(problems),
                allowable,
            });
        }
        warnings = build;
    }
    if let Some(key) = &opts.key {
        let signers = opts.signers.as_deref();
        let unsigned = signed.clone();
        signed = add_signature(&rel, &signed, Role::Reviewer, key, (signers, &files))?;
        // The warnings are of the text before the signature line: at their lines in the file.
        if !warnings.is_empty() {
            let written = parse(&rel, &signed)?;
            for d in &mut warnings {
                d.line = line_in(d, (&unsigned, &signed), &written);
            }
        }
    }
    entry_file::write(&abs, signed, spelling)?;
    Ok(Signed {
        file: rel,
        hash,
        notes,
        removed,
        warnings,
    })
}

/// `text` with the byline edits made before the pin: the authors (when given), the pending
/// `written_on`, `status: published` with `--publish`, the reviewers and today's check.
fn edit_byline(
    rel: &Path,
    text: &str,
    opts: &SignOptions,
    (reviewers, authors): (&[String], &[String]),
) -> Result<String, SignError> {
    let mut signed = text.to_string();
    let byline =
        |t: &str, key: &str, value: &str| edit_yaml(rel, t, |y| edit::set_byline(y, key, value));
    if !authors.is_empty() {
        signed = byline(&signed, "written_by", &edit::names(authors))?;
    }
    // The scaffold leaves `written_on: pending` for the signing to fill in.
    if parse(rel, &signed)?.meta.byline.written_on.is_none() {
        signed = byline(&signed, "written_on", &opts.today.to_string())?;
    }
    if opts.publish {
        signed = edit_yaml(rel, &signed, |y| {
            Ok(edit::set_top(y, "status", "published"))
        })?;
    }
    signed = byline(&signed, "reviewed_by", &edit::names(reviewers))?;
    byline(&signed, "last_checked_on", &opts.today.to_string())
}

/// The line in `to` (whose entry is `entry`) of `d`, a problem at a line of `from`, the
/// same entry with its status and byline edited: lines above and below the edited ones
/// move with the lines the byline gained or lost; one among them goes to its field's line.
fn line_in(d: &Diagnostic, (from, to): (&str, &str), entry: &Entry) -> usize {
    let (new, old): (Vec<&str>, Vec<&str>) = (from.lines().collect(), to.lines().collect());
    let same_above = new.iter().zip(&old).take_while(|(a, b)| a == b).count();
    let same_below = (new.iter().rev().zip(old.iter().rev()))
        .take_while(|(a, b)| a == b)
        .count()
        .min(new.len().min(old.len()) - same_above);
    match d.line {
        0 => 0,
        line if line <= same_above => line,
        line if line > new.len() - same_below => line + old.len() - new.len(),
        line => d
            .field
            .as_deref()
            .map_or(line.min(old.len()), |f| entry.lines.of(f)),
    }
}

/// Signs the entry `file` as its author with `key`: adds `author_signature` over the pin the
/// reviewer wrote, and changes nothing else.
pub(crate) fn sign_as_author(
    root: &Path,
    file: &Path,
    key: &Path,
    signers: Option<&SignatureRules>,
) -> Result<Signed, SignError> {
    key::refuse_private_key_in_course(root, key).map_err(SignError::KeyInCourse)?;
    let (rel, abs, text, spelling) = entry_file::read(root, file)?;
    let files = pin::Files::new(root);
    let signed = add_signature(&rel, &text, Role::Author, key, (signers, &files))?;
    let entry = parse(&rel, &signed)?;
    let hash = pin::expected(&entry, &files.shown(&entry));
    entry_file::write(&abs, signed, spelling)?;
    Ok(Signed {
        file: rel,
        hash,
        notes: Vec::new(),
        removed: Vec::new(),
        warnings: Vec::new(),
    })
}

/// `signed` (pinned to `hash`) without the signatures `before` carried over another pin:
/// they sign the entry as it was, so they could only be refused. The author's goes whenever
/// the pin moved (the author signs again); the reviewer's when no key replaces it.
fn without_stale_signatures(
    rel: &Path,
    signed: &str,
    before: &Entry,
    hash: &str,
    opts: &SignOptions,
) -> Result<(String, Vec<String>), SignError> {
    let old = &before.meta.byline;
    let mut out = signed.to_string();
    let mut removed = Vec::new();
    if old.reviewed_hash.as_deref() == Some(hash) {
        return Ok((out, removed));
    }
    let file = rel.display();
    if old.author_signature.is_some() {
        out = edit_yaml(rel, &out, |y| {
            Ok(edit::remove_byline(y, "author_signature"))
        })?;
        removed.push(format!(
            "removed the author's signature, made over the entry before this review: the author signs again, `coursegen sign {file} --role author --key ~/.ssh/id_ed25519`"
        ));
    }
    if old.reviewer_signature.is_some() && opts.key.is_none() {
        out = edit_yaml(rel, &out, |y| {
            Ok(edit::remove_byline(y, "reviewer_signature"))
        })?;
        removed.push(
            "removed the reviewer's signature, made over the entry before this review: sign with `--key ~/.ssh/id_ed25519` to sign it again"
                .to_string(),
        );
    }
    Ok((out, removed))
}

/// A name given on the command line that counts as nobody (`Reviewer`, `pending`) is
/// refused as such: the rule would only say that nobody signed.
fn refuse_placeholders(
    entry: &Entry,
    reviewers: &[String],
    authors: &[String],
) -> Result<(), SignError> {
    let mut bad = Vec::new();
    for (list, field, flag, role) in [
        (reviewers, "byline.reviewed_by", "--reviewer", "reviewer"),
        (authors, "byline.written_by", "--author", "author"),
    ] {
        for name in list.iter().filter(|n| names::classify(n) == Name::Unsigned) {
            bad.push(
                Diagnostic::new(&entry.file, entry.lines.of(field), format!(
                    "{flag} `{}` counts as a placeholder, not a person's name: `Reviewer`, `Author`, `pending`, `TBD` and the like count as nobody",
                    name.escape_debug()
                ))
                .field(field)
                .help(format!("give the {role}'s own name, as the allowed-signers file lists it")),
            );
        }
    }
    refused(bad)
}

/// Nothing when `bad` is empty, else its problems.
fn refused(bad: Vec<Diagnostic>) -> Result<(), SignError> {
    match bad.is_empty() {
        true => Ok(()),
        false => Err(SignError::Content(Diagnostics(bad))),
    }
}

/// The edit did not read back as meant: nothing is written.
fn misread(rel: &Path, entry: &Entry) -> SignError {
    let why = "the signed byline would not read back as written (a bug in coursegen: please report it with the file)";
    content_error(rel, entry.lines.of("byline"), "byline", why.into())
}

fn content_error(rel: &Path, line: usize, field: &str, message: String) -> SignError {
    SignError::Content(Diagnostics(vec![
        Diagnostic::new(rel, line, message).field(field),
    ]))
}

/// `text` with the signature of `role` over its current pin added; refused when the pin is
/// stale, when one key would sign both roles, or when the signature would not verify.
fn add_signature(
    rel: &Path,
    text: &str,
    role: Role,
    key: &Path,
    (signers, files): (Option<&SignatureRules>, &pin::Files),
) -> Result<String, SignError> {
    let entry = parse(rel, text)?;
    let shown = files.shown(&entry);
    let hash = pin::expected(&entry, &shown);
    let b = &entry.meta.byline;
    if b.reviewed_hash.as_deref() != Some(hash.as_str()) {
        return Err(content_error(
            rel,
            entry.lines.of("byline.reviewed_hash"),
            "byline.reviewed_hash",
            format!(
                "the entry does not match its `reviewed_hash` (or has none): the reviewer signs it first, with `coursegen sign {} --reviewer \"{}\" --key ~/.ssh/id_ed25519`",
                rel.display(),
                policy::reviewer_or_name(&entry).replace('"', "\\\"")
            ),
        ));
    }
    let line = key::sign_message(key, &policy::signatures::message(role, &hash))
        .map_err(|why| content_error(rel, entry.lines.of(role.field()), role.field(), why))?;
    let other = match role.other() {
        Role::Author => &b.author_signature,
        Role::Reviewer => &b.reviewer_signature,
    };
    let mine = policy::signatures::decode(&line)
        .map_err(|why| content_error(rel, 0, role.field(), why))?;
    if let Some(theirs) = other
        .as_deref()
        .and_then(|o| policy::signatures::decode(o).ok())
        && theirs.public_key() == mine.public_key()
    {
        return Err(content_error(
            rel,
            entry.lines.of(role.other().field()),
            role.field(),
            format!(
                "same person twice: this key already signed the {} role; the {} signs with their own key",
                role.other().as_str(),
                role.as_str()
            ),
        ));
    }
    let name = role.field().trim_start_matches("byline.");
    let signed = edit_yaml(rel, text, |y| {
        edit::set_byline(y, name, &edit::scalar(&line))
    })?;
    let entry = parse(rel, &signed)?;
    let field = match role {
        Role::Author => &entry.meta.byline.author_signature,
        Role::Reviewer => &entry.meta.byline.reviewer_signature,
    };
    if pin::expected(&entry, &shown) != hash || field.as_deref() != Some(line.as_str()) {
        return Err(misread(rel, &entry));
    }
    if let Some(rules) = signers {
        for (r, sig) in policy::entry_signatures(&entry, &hash, rules) {
            if let (true, RoleSignature::Invalid(why)) = (r == role, sig) {
                return Err(content_error(
                    rel,
                    entry.lines.of(role.field()),
                    role.field(),
                    format!(
                        "the new {} signature would be refused: {why}",
                        role.as_str()
                    ),
                ));
            }
        }
    }
    Ok(signed)
}

/// The signature itself must satisfy the rule: real names, one per person, and a
/// reviewer who is none of the authors.
fn refuse_bad_signatures(entry: &Entry, opts: &SignOptions) -> Result<(), SignError> {
    // The allowed-signers file's statements of who is two people count; its signature
    // requirement does not (nothing is signed yet).
    let statements = (opts.signers.as_deref()).map(|s| {
        Arc::new(SignatureRules {
            required: false,
            ..s.clone()
        })
    });
    let bad: Vec<Diagnostic> = policy::assess(entry, &rules(opts, false, statements))
        .into_iter()
        .filter(|f| {
            matches!(f.kind, FindingKind::Invalid)
                || (f.kind == FindingKind::Unsigned
                    && f.diagnostic.field.as_deref() == Some("byline.reviewed_by"))
        })
        .map(|f| f.diagnostic)
        .collect();
    refused(bad)
}

/// The editorial rule as `sign` asks it: today's, with the course's fields and glossary.
fn rules(opts: &SignOptions, strict: bool, signatures: Option<Arc<SignatureRules>>) -> Rules {
    Rules {
        today: opts.today,
        review_max_age_days: policy::DEFAULT_REVIEW_MAX_AGE_DAYS,
        strict,
        preview: false,
        signatures,
        required: opts.required,
        glossary: opts.glossary.clone().into(),
        files: None,
    }
}

/// What a publish build would still refuse, once signed.
fn still_blocking(entry: &Entry, opts: &SignOptions) -> Vec<Diagnostic> {
    // The help lines name `--key` where the course checks signatures.
    let rules = rules(opts, true, opts.signers.clone());
    let mut notes: Vec<Diagnostic> = policy::assess(entry, &rules)
        .into_iter()
        .filter(|f| {
            matches!(
                f.kind,
                FindingKind::Unsigned | FindingKind::Incomplete | FindingKind::Placeholder
            )
        })
        .map(|f| f.diagnostic)
        .collect();
    if entry.meta.status != content::Status::Published {
        notes.push(
            Diagnostic::new(
                &entry.file,
                entry.lines.of("status"),
                format!(
                    "status is {}, so the entry is not published yet",
                    entry.meta.status.as_str()
                ),
            )
            .field("status")
            .help(format!(
                "when it should go out, the reviewer signs with --publish: `coursegen sign {} --reviewer \"{}\" --publish{}`; the review pins the status too, so setting `status: published` by hand voids it",
                entry.file.display(),
                policy::reviewer_or_name(entry).replace('"', "\\\""),
                if opts.signers.is_some() { " --key ~/.ssh/id_ed25519" } else { "" }
            )),
        );
    }
    notes
}
