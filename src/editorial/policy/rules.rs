//! What the editorial rule is applied with: the date, the review expiry, the kind of build,
//! the signers and the fields a published glossary entry must fill in.
use super::pin;
use super::signatures;
use crate::content::Meta;
use jiff::civil::Date;
use std::sync::Arc;

/// What the rule is applied with: the date, the review expiry, and the kind of build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rules {
    /// Today, for expiry and for dates in the future.
    pub(crate) today: Date,
    /// A review older than this many days has expired.
    pub(crate) review_max_age_days: u32,
    /// `--strict`: published entries need a pinned review that has not expired.
    pub(crate) strict: bool,
    /// `--drafts`: an entry edited since its review is shown as a draft instead of stopping the build.
    pub(crate) preview: bool,
    /// The allowed signers and whether signatures are required (`None`: no file).
    pub(crate) signatures: Option<Arc<signatures::SignatureRules>>,
    /// The fields a published glossary entry must fill in (`[glossary] required`).
    pub(crate) required: Required,
    /// The glossary's folder under `content/` (`[glossary] folder`): its entries are the
    /// ones `required` applies to.
    pub(crate) glossary: std::borrow::Cow<'static, str>,
    /// The repository files pages show, which their pins cover (`None`: nothing beside the
    /// entries can be read, as if every file shown were missing).
    pub(crate) files: Option<Arc<pin::Files>>,
}

/// A set of the glossary fields a published entry must fill in: `[glossary] required` in
/// coursegen.toml, all of [`Required::FIELDS`] unless the course says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Required(u8);

impl Required {
    /// The fields a course may require, in the order findings name them (`cc` is for GPU
    /// courses: a course on another subject leaves it out).
    pub(crate) const FIELDS: [&'static str; 5] = ["term", "category", "cc", "summary", "sources"];

    /// Every field: today's rule.
    pub(crate) const ALL: Required = Required(0b1_1111);

    /// None of them.
    pub(crate) const NONE: Required = Required(0);

    /// This set with `field` added; `None` when it is not one of [`Required::FIELDS`].
    pub(crate) fn with(self, field: &str) -> Option<Required> {
        let i = Self::FIELDS.iter().position(|f| *f == field)?;
        Some(Required(self.0 | 1 << i))
    }

    /// Whether `field` is required.
    pub(crate) fn contains(self, field: &str) -> bool {
        (Self::FIELDS.iter().position(|f| *f == field)).is_some_and(|i| self.0 & 1 << i != 0)
    }

    /// The required fields that `meta` leaves empty, in the order of [`Required::FIELDS`].
    pub(crate) fn unfilled(self, meta: &Meta) -> impl Iterator<Item = &'static str> {
        let filled = [
            meta.term.is_some(),
            meta.category.is_some(),
            meta.cc.is_some(),
            meta.summary.is_some(),
            !meta.sources.is_empty(),
        ];
        (Self::FIELDS.into_iter().zip(filled).enumerate())
            .filter(move |(i, (_, filled))| !filled && self.0 & 1 << i != 0)
            .map(|(_, (field, _))| field)
    }
}
