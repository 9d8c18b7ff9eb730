//! What the check stage hands the render stage for each page: a [`Page`] (its entry, HTML
//! fragments and drawn diagram) and the [`Lookup`] that resolves `related:` and
//! `appears_in:`. Plain data: the stages after check, and `coursegen serve`, read it.
use std::sync::Arc;

use super::bodies::Bodies;
use super::diagrams::Drawn;
use crate::content::Entry;
use crate::editorial::policy::Verdict;

/// A page that passed every check: its entry, body fragments and drawn diagram.
pub(crate) struct Page {
    /// The entry (the load stage's allocation: unchanged entries keep it between serve's
    /// rebuilds, which is how serve tells that they are unchanged).
    pub(crate) entry: Arc<Entry>,
    /// Why it is a draft (preview only); `None` when published.
    pub(crate) draft_reason: Option<String>,
    /// The body as HTML, cut at `## Measured` and `## Diagram` (intros: whole).
    pub(crate) bodies: Arc<Bodies>,
    /// The diagram, when the entry declares one.
    pub(crate) diagram: Option<Arc<Drawn>>,
}

/// The pages of one build, by section and slug, for resolving `related:` and `appears_in:`.
pub(crate) struct Lookup {
    /// Sorted by section and slug (the load stage's path order mostly is already).
    by_section: Vec<(Arc<Entry>, bool)>,
    /// The preview links drafts; the publish build leaves them unlinked.
    pub(crate) preview: bool,
}

impl Lookup {
    /// Indexes the verdicts (drafts marked; refused entries never reach here).
    pub(crate) fn new(verdicts: &[Verdict], preview: bool) -> Self {
        let mut by_section: Vec<(Arc<Entry>, bool)> = (verdicts.iter())
            .filter_map(|v| match v {
                Verdict::Publish(p) => Some((Arc::clone(p.entry()), false)),
                Verdict::Draft(d) => Some((Arc::clone(d.entry()), true)),
                Verdict::Refused(_) => None,
            })
            .collect();
        by_section.sort_by(|(a, _), (b, _)| key(a).cmp(&key(b)));
        Lookup {
            by_section,
            preview,
        }
    }

    /// The entry `slug` of `section` names, and whether it is a draft.
    pub(crate) fn target(&self, section: &str, slug: &str) -> Option<(&Arc<Entry>, bool)> {
        let i = (self.by_section)
            .binary_search_by(|(e, _)| key(e).cmp(&(section, slug)))
            .ok()?;
        let (e, draft) = &self.by_section[i];
        Some((e, *draft))
    }
}

fn key(e: &Entry) -> (&str, &str) {
    (&e.section, &e.slug)
}
