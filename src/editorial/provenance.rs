//! The provenance file a publish build writes beside its pages (`coursegen-provenance.json`,
//! format `coursegen-provenance/1`): for each page, its URL, file and the SHA-256 of the
//! bytes served; for each published entry, its source, the review pin, the byline's names,
//! and each role's principals, key fingerprint and SSHSIG; the allowed-signers file that
//! admitted the keys (its text, and the trusted commit it was read from); the coursegen
//! version, the commit and the build settings. Pages that are not entries are listed as
//! `"not reviewed"`, never claimed. The site writes it (`site::write::provenance`);
//! `verify` reads it as hostile input: bounded, every field known, no panic.
use serde::{Deserialize, Serialize};

/// The file's name, at the root of the published site (under the base path).
pub(crate) const FILE: &str = "coursegen-provenance.json";

/// The format this coursegen writes and reads; a later format changes the number.
pub(crate) const FORMAT: &str = "coursegen-provenance/1";

/// The largest provenance file `verify` reads (a 1,000-entry site's is ~2 MiB).
pub(crate) const MAX_BYTES: u64 = 64 << 20;

/// The largest page `verify` reads.
pub(crate) const MAX_PAGE_BYTES: u64 = 32 << 20;

/// A page's status when it is a published entry.
pub(crate) const REVIEWED: &str = "reviewed";

/// A page's status when no one signs it (home, section indexes, search, 404).
pub(crate) const NOT_REVIEWED: &str = "not reviewed";

/// The whole file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Provenance {
    /// [`FORMAT`].
    pub(crate) format: String,
    /// The coursegen version that built the site.
    pub(crate) coursegen: String,
    /// The commit the site was built from (`git rev-parse HEAD` of the site root), when the
    /// root is a git work tree.
    pub(crate) commit: Option<String>,
    /// Whether the work tree had changes `commit` does not hold (`git status`).
    pub(crate) dirty: bool,
    /// `SOURCE_DATE_EPOCH`, the time the build judged key validity at; `None`: the clock's.
    pub(crate) source_date_epoch: Option<i64>,
    /// How the site was built.
    pub(crate) settings: Settings,
    /// The allowed-signers file the build checked signatures against; `None`: the course
    /// lists no keys (bylines name people, nothing signs).
    pub(crate) signers: Option<Signers>,
    /// Every HTML page, by file.
    pub(crate) pages: Vec<PageRecord>,
}

/// The build settings that shape the pages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Settings {
    /// The base path every URL starts with (`/`, `/course/`).
    pub(crate) base_path: String,
    /// The site's address (`base_url`), when configured.
    pub(crate) base_url: Option<String>,
    /// `build --strict`.
    pub(crate) strict: bool,
    /// Syntax highlighting.
    pub(crate) highlight: bool,
    /// The search index.
    pub(crate) search: bool,
    /// `--trusted-ref`, as given.
    pub(crate) trusted_ref: Option<String>,
}

/// The allowed-signers file of the trusted revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Signers {
    /// Where the build read it (`refs/remotes/origin/main:.coursegen/allowed_signers`).
    pub(crate) file: String,
    /// The commit it was read from (`--trusted-ref`); `None`: the built commit's work tree.
    pub(crate) revision: Option<String>,
    /// Its text, whole: the keys and the maintainers' statements.
    pub(crate) text: String,
}

/// One page of the site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PageRecord {
    /// Its URL, base path included (`/glossary/warp/`).
    pub(crate) url: String,
    /// Its file in the site (`glossary/warp/index.html`).
    pub(crate) file: String,
    /// SHA-256 of its bytes, hex.
    pub(crate) sha256: String,
    /// [`REVIEWED`] or [`NOT_REVIEWED`].
    pub(crate) status: String,
    /// What was reviewed, for a published entry.
    pub(crate) review: Option<Review>,
}

/// A published entry's review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Review {
    /// The entry's file, relative to the site root.
    pub(crate) source: String,
    /// `reviewed_hash`, the pin both signatures sign.
    pub(crate) pin: Option<String>,
    /// `byline.written_by`.
    pub(crate) written_by: Vec<String>,
    /// `byline.reviewed_by`.
    pub(crate) reviewed_by: Vec<String>,
    /// The author's signature.
    pub(crate) author: Option<Signature>,
    /// The reviewer's signature.
    pub(crate) reviewer: Option<Signature>,
}

/// One role's signature and the key line that admitted it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Signature {
    /// The principals of the key's line.
    pub(crate) principals: Vec<String>,
    /// `SHA256:…`.
    pub(crate) fingerprint: String,
    /// The SSHSIG, one line of base64, as the byline has it.
    pub(crate) sshsig: String,
}

/// Why a provenance file cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProvenanceError {
    /// Larger than [`MAX_BYTES`].
    #[error("{FILE} is {0} bytes; at most {MAX_BYTES} are read")]
    TooLarge(u64),
    /// Not JSON of this format.
    #[error("{FILE} is not a coursegen provenance file: {0}")]
    Malformed(String),
    /// Another format.
    #[error("{FILE} is of format `{0}`; this coursegen reads `{FORMAT}`")]
    Format(String),
}

impl Provenance {
    /// Reads the file's bytes: bounded, every field known, of [`FORMAT`].
    pub(crate) fn parse(bytes: &[u8]) -> Result<Self, ProvenanceError> {
        if bytes.len() as u64 > MAX_BYTES {
            return Err(ProvenanceError::TooLarge(bytes.len() as u64));
        }
        // The format first, so that a later format says so rather than "unknown field".
        #[derive(Deserialize)]
        struct Head {
            format: String,
        }
        let head: Head =
            serde_json::from_slice(bytes).map_err(|e| ProvenanceError::Malformed(e.to_string()))?;
        if head.format != FORMAT {
            return Err(ProvenanceError::Format(
                head.format
                    .chars()
                    .take(80)
                    .collect::<String>()
                    .escape_debug()
                    .to_string(),
            ));
        }
        serde_json::from_slice(bytes).map_err(|e| ProvenanceError::Malformed(e.to_string()))
    }

    /// The file's bytes: pretty JSON, pages in file order, so a build's is reproducible.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("provenance serialises");
        bytes.push(b'\n');
        bytes
    }
}
