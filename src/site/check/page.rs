//! What the check stage hands the render stage for each page: a [`Page`] (its entry, HTML
//! fragments and drawn diagram) and the [`Lookup`] that resolves `related:` and
//! `appears_in:`. Plain data: the stages after check, and `coursegen serve`, read it.
use std::collections::HashMap;
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
    /// The body as HTML, cut at `## Measured` and `## Diagram` (intros: whole). Empty in a
    /// build's checked site: the build rendered the page as soon as it passed its own
    /// checks (`check::Checking::convert`).
    pub(crate) bodies: Arc<Bodies>,
    /// The diagram, when the entry declares one.
    pub(crate) diagram: Option<Arc<Drawn>>,
}

impl Page {
    /// Its entry, and whether it is a draft: what the reading order lists.
    pub(crate) fn listed(&self) -> (&Entry, bool) {
        (&self.entry, self.draft_reason.is_some())
    }
}

/// The pages of one build, by section and slug, for resolving `related:` and `appears_in:`.
pub(crate) struct Lookup {
    /// Section → slug → entry, and whether it is a draft (the load stage refuses a slug
    /// used twice in a section). Hashed: every page resolves its links here, and a binary
    /// search went through a dozen entries each (`benches/build.sh`).
    by_section: HashMap<String, HashMap<String, (Arc<Entry>, bool)>>,
    /// The preview links drafts; the publish build leaves them unlinked.
    pub(crate) preview: bool,
}

impl Lookup {
    /// Indexes the verdicts (drafts marked; refused entries never reach here).
    pub(crate) fn new(verdicts: &[Verdict], preview: bool) -> Self {
        let mut by_section: HashMap<String, HashMap<String, (Arc<Entry>, bool)>> = HashMap::new();
        for v in verdicts {
            let (e, draft) = match v {
                Verdict::Publish(p) => (p.entry(), false),
                Verdict::Draft(d) => (d.entry(), true),
                Verdict::Refused(_) => continue,
            };
            (by_section.entry(e.section.clone()).or_default())
                .insert(e.slug.clone(), (Arc::clone(e), draft));
        }
        Lookup {
            by_section,
            preview,
        }
    }

    /// The entry `slug` of `section` names, and whether it is a draft.
    pub(crate) fn target(&self, section: &str, slug: &str) -> Option<(&Arc<Entry>, bool)> {
        let (e, draft) = self.by_section.get(section)?.get(slug)?;
        Some((e, *draft))
    }
}
