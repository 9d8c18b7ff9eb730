//! What a change reaches: the pages one rebuild renders again (an entry, its HTML, its
//! drawing or its draft state changed; or, when something the site's lists show changed,
//! its sidebar, neighbours or related links differ), and whether the site-wide files are.
use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;

use super::{Last, Rebuilder, Rendered};
use crate::content::load::DAYS;
use crate::content::{self, Entry};
use crate::site::check::CheckedSite;
use crate::site::check::bodies::Bodies;
use crate::site::check::diagrams::Drawn;
use crate::site::check::page::Page;
use crate::site::render::Renderer;
use crate::site::render::nav::Nav;

impl Rebuilder {
    /// Decides what to render: the pages a change can affect, and the site-wide files when
    /// something lists show changed.
    pub(super) fn plan<'c>(&self, site: &content::Site, checked: &'c CheckedSite) -> Plan<'c> {
        let Some(last) = self.last.as_ref().filter(|_| !self.pending.all) else {
            return Plan {
                dirty: (checked.pages.iter())
                    .map(|p| (p, links(p, checked, &self.opts.config.glossary_folder)))
                    .collect(),
                site: true,
                listed: true,
                nav: Arc::new(Renderer::nav_of(
                    checked.pages.iter().map(Page::listed),
                    &self.opts,
                )),
            };
        };
        // Each page as the last build rendered it, looked up once.
        let was: Vec<Option<&Rendered>> = (checked.pages.par_iter())
            .map(|p| last.pages.get(&p.entry.url))
            .collect();
        let listed = listings_changed(last, site, checked, &was);
        // Nothing lists show changed: the reading order is the last one.
        let nav = match listed {
            true => Arc::new(Renderer::nav_of(
                checked.pages.iter().map(Page::listed),
                &self.opts,
            )),
            false => Arc::clone(&last.nav),
        };
        let frame = listed && nav.same_frame(&last.nav);
        let dirty = (checked.pages.par_iter().zip(&was))
            .filter_map(|(p, was)| {
                let Some(was) = was else {
                    return Some((p, links(p, checked, &self.opts.config.glossary_folder)));
                };
                let own = !Arc::ptr_eq(&was.entry, &p.entry)
                    || !same_bodies(&was.bodies, &p.bodies)
                    || !same_diagram(&was.diagram, &p.diagram)
                    || was.draft_reason != p.draft_reason;
                if !listed {
                    return own.then(|| (p, was.links.clone()));
                }
                let links = links(p, checked, &self.opts.config.glossary_folder);
                let around = !frame
                    || !nav.same_page(&last.nav, &p.entry.url)
                    || !same_links(&links, &was.links);
                (own || around).then_some((p, links))
            })
            .collect();
        Plan {
            dirty,
            site: listed,
            listed,
            nav,
        }
    }
}

/// What one rebuild renders.
pub(super) struct Plan<'c> {
    /// The pages to render, with what their related links name.
    pub(super) dirty: Vec<(&'c Page, Links)>,
    /// Whether to render the site-wide files.
    pub(super) site: bool,
    /// Whether something lists show may have changed (pages added or gone among them).
    pub(super) listed: bool,
    /// The reading order.
    pub(super) nav: Arc<Nav>,
}

/// What a page's related terms and days name: each target entry, and whether it is a
/// draft; `None` for a name this build does not have. Equal (the same allocations) means
/// the page shows the same links.
pub(super) type Links = Vec<Option<(Arc<Entry>, bool)>>;

/// The [`Links`] of a page in this build, whose glossary is the folder `glossary`.
fn links(p: &Page, checked: &CheckedSite, glossary: &str) -> Links {
    let m = &p.entry.meta;
    let named =
        (m.related.iter().map(|s| (glossary, s))).chain(m.appears_in.iter().map(|s| (DAYS, s)));
    named
        .map(|(section, slug)| {
            let (e, draft) = checked.facts.lookup.target(section, slug)?;
            Some((Arc::clone(e), draft))
        })
        .collect()
}

/// Whether two [`Links`] name the same entries in the same states.
fn same_links(a: &Links, b: &Links) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (None, None) => true,
            (Some((x, dx)), Some((y, dy))) => Arc::ptr_eq(x, y) && dx == dy,
            _ => false,
        })
}

/// The same drawing: the same allocation, or equal SVG.
fn same_diagram(a: &Option<Arc<Drawn>>, b: &Option<Arc<Drawn>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Arc::ptr_eq(a, b) || (a.svg == b.svg && a.preset == b.preset),
        _ => false,
    }
}

/// The same HTML: the same allocation, or equal text.
fn same_bodies(a: &Arc<Bodies>, b: &Arc<Bodies>) -> bool {
    Arc::ptr_eq(a, b) || (a.main == b.main && a.measured == b.measured && a.diagram == b.diagram)
}

/// Whether anything the site's lists show may have changed since `last`: an entry added,
/// removed, or changed in anything but its body and field lines; a page's draft state; a
/// section intro. `was`: each page's last rendering.
fn listings_changed(
    last: &Last,
    site: &content::Site,
    checked: &CheckedSite,
    was: &[Option<&Rendered>],
) -> bool {
    if site.entries.len() != last.entries.len()
        || checked.pages.len() != last.pages.len()
        || checked.intros.len() != last.intros.len()
    {
        return true;
    }
    fn listing(
        e: &Entry,
    ) -> (
        &PathBuf,
        content::EntryKind,
        &str,
        &str,
        &str,
        &content::Meta,
    ) {
        (&e.file, e.kind, &e.section, &e.slug, &e.url, &e.meta)
    }
    // Both in path order: an entry added and another removed differ in `file` somewhere.
    let entries = (site.entries.iter().zip(&last.entries))
        .any(|(e, was)| !Arc::ptr_eq(was, e) && listing(was) != listing(e));
    let pages = (checked.pages.iter().zip(was)).any(|(p, was)| match was {
        None => true,
        Some(was) => was.draft_reason.is_some() != p.draft_reason.is_some(),
    });
    let intros = checked
        .intros
        .iter()
        .any(|p| match last.intros.get(&p.entry.url) {
            None => true,
            Some((bodies, reason)) => !same_bodies(bodies, &p.bodies) || *reason != p.draft_reason,
        });
    entries || pages || intros
}
