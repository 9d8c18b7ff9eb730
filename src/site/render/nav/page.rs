//! What one page shows of the reading order: the sidebar tree (in a large section only a
//! window round the page), breadcrumbs and previous/next, as plain data or with the parts
//! many pages show alike prepared once for the templates.
use serde::Serialize;

use super::order::{Group, Item, Nav, Place, Section};
use crate::templates::Prepared;

/// Above this many entries in a section, the sidebar lists only the current category's
/// neighbourhood: listing every entry on every page would make a 10,000-entry site's pages
/// megabytes each. The section index always lists them all.
pub(crate) const FULL_TREE: usize = 300;

/// Entries of the current category shown on each side of the current page in a large section.
const WINDOW: usize = 12;

/// A page as navigation shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct NavLink {
    /// Link text: the term for glossary entries, the title otherwise.
    pub(crate) text: String,
    /// Page URL, a site path (`/glossary/warp/`).
    pub(crate) url: String,
    /// The same with the base path, as a link writes it (`/course/glossary/warp/`).
    pub(crate) href: String,
    /// A draft (only in the preview), marked.
    pub(crate) draft: bool,
    /// The page being rendered.
    pub(crate) current: bool,
}

/// One crumb of the breadcrumb trail; the last is the page itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Crumb {
    /// Text.
    pub(crate) text: String,
    /// URL (a site path), `None` for the page itself.
    pub(crate) url: Option<String>,
    /// The same with the base path.
    pub(crate) href: Option<String>,
}

/// A category of a section in the sidebar; its links are [`NavLink`]s, or the same
/// prepared for the templates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct NavGroup<L = NavLink> {
    /// Category name, or `None` for a section read in order (days).
    pub(crate) name: Option<String>,
    /// Where the section index lists this group.
    pub(crate) url: String,
    /// The same with the base path.
    pub(crate) href: String,
    /// Expanded: the current page is in it.
    pub(crate) open: bool,
    /// Its pages (in a large section, only a window round the current one).
    pub(crate) items: Vec<L>,
    /// Pages of the group not listed here.
    pub(crate) more: usize,
    /// Total pages of the group.
    pub(crate) count: usize,
}

/// A section in the sidebar; its groups are [`NavGroup`]s, or the same prepared for the
/// templates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct NavSection<G = NavGroup> {
    /// Heading ("Days", "Glossary").
    pub(crate) title: String,
    /// Section index URL.
    pub(crate) url: String,
    /// The same with the base path.
    pub(crate) href: String,
    /// Expanded: the current page is in it.
    pub(crate) open: bool,
    /// Its groups, in reading order.
    pub(crate) groups: Vec<G>,
}

/// What one page shows of the navigation: as plain data, or with its sections and links
/// prepared for the templates ([`Nav::page_for_templates`]).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub(crate) struct PageNav<S = NavSection, L = NavLink> {
    /// The sidebar tree.
    pub(crate) sections: Vec<S>,
    /// Breadcrumb trail from the home page.
    pub(crate) crumbs: Vec<Crumb>,
    /// Previous page in reading order (same category for glossary entries).
    pub(crate) prev: Option<L>,
    /// Next page in reading order.
    pub(crate) next: Option<L>,
}

/// A page's navigation as the entry template receives it.
pub(crate) type PreparedNav = PageNav<Prepared, Prepared>;

impl Nav {
    /// Whether `self` and `old` have the same frame: the sections and groups every page
    /// shows, with the same counts, and the same pages in every section small enough to be
    /// listed whole. When they do not, every page's navigation differs.
    pub(crate) fn same_frame(&self, old: &Nav) -> bool {
        self.sections.len() == old.sections.len()
            && self.sections.iter().zip(&old.sections).all(|(a, b)| {
                a.name == b.name
                    && a.title == b.title
                    && a.len == b.len
                    && a.groups.len() == b.groups.len()
                    && a.groups.iter().zip(&b.groups).all(|(ga, gb)| {
                        ga.name == gb.name
                            && ga.items.len() == gb.items.len()
                            && (a.len > FULL_TREE || ga.items == gb.items)
                    })
            })
    }

    /// Whether the page at `url` shows the same navigation (sidebar, breadcrumbs,
    /// previous/next) in `self` as in `old`, whose frames are the same
    /// ([`Nav::same_frame`]): the page sits in the same group, and the window of that
    /// group it lists holds the same pages.
    pub(crate) fn same_page(&self, old: &Nav, url: &str) -> bool {
        match (self.at.get(url), old.at.get(url)) {
            (None, None) => true,
            (Some(&(s, g, i)), Some(&(os, og, oi))) if (s, g) == (os, og) => {
                fn group(nav: &Nav, s: usize, g: usize) -> Option<(usize, &[Item])> {
                    let section = nav.sections.get(s)?;
                    Some((section.len, &section.groups.get(g)?.items))
                }
                let (Some((len, new)), Some((old_len, was))) =
                    (group(self, s, g), group(old, s, g))
                else {
                    return false;
                };
                new[listed(len, Some(i), new.len(), false)]
                    == was[listed(old_len, Some(oi), was.len(), false)]
                    && self.neighbours(s, g, i) == old.neighbours(os, og, oi)
            }
            _ => false,
        }
    }

    /// The navigation of the page at `url` (the home page and section indexes too).
    pub(crate) fn page(&self, url: &str, title: &str) -> PageNav {
        self.page_with(url, title, false)
    }

    /// Every section with every page listed, whatever the section's size (for llms.txt).
    pub(crate) fn overview_all(&self) -> Vec<NavSection> {
        self.page_with("", "", true).sections
    }

    fn page_with(&self, url: &str, title: &str, full: bool) -> PageNav {
        let here = self.at.get(url).copied();
        let section_here = self.section_here(url, here);
        // A page opens its own section; the others stay open only while the whole course is
        // small enough to list, so a glossary page of a large course does not open below the
        // whole list of days.
        let small = self.small();
        let sections = self
            .sections
            .iter()
            .enumerate()
            .map(|(s, section)| {
                let open = section_here == Some(s) || (small && section.len <= FULL_TREE);
                let groups = (section.groups.iter().enumerate())
                    .map(|(g, group)| {
                        let current = here.filter(|h| (h.0, h.1) == (s, g)).map(|h| h.2);
                        nav_group(section, group, current, full, |k| {
                            link(&group.items[k], group.items[k].url == url)
                        })
                    })
                    .collect();
                nav_section(section, open, groups)
            })
            .collect();
        let (before, after) = here.map_or((None, None), |(s, g, i)| self.neighbours(s, g, i));
        PageNav {
            sections,
            crumbs: self.crumbs(url, title, here),
            prev: before.map(|item| link(item, false)),
            next: after.map(|item| link(item, false)),
        }
    }

    /// What [`Nav::page`] gives, with the parts other pages show alike prepared once for
    /// the templates and shared: the same values in the template.
    pub(crate) fn page_for_templates(&self, url: &str, title: &str) -> PreparedNav {
        let here = self.at.get(url).copied();
        let section_here = self.section_here(url, here);
        let small = self.small();
        let sections = (self.sections.iter().enumerate())
            .map(|(s, section)| {
                let open = section_here == Some(s) || (small && section.len <= FULL_TREE);
                match here.filter(|h| h.0 == s) {
                    Some((_, g, i)) => {
                        let groups = (0..section.groups.len())
                            .map(|k| match k == g {
                                true => self.open_group(s, g, i),
                                false => self.closed_group(s, k),
                            })
                            .collect();
                        Prepared::new(&nav_section(section, open, groups))
                    }
                    None => (self.prepared.sections[s][usize::from(open)])
                        .get_or_init(|| {
                            let closed = (0..section.groups.len()).map(|k| self.closed_group(s, k));
                            Prepared::new(&nav_section(section, open, closed.collect()))
                        })
                        .clone(),
                }
            })
            .collect();
        let (before, after) = here.map_or((None, None), |(s, g, i)| self.neighbours_at(s, g, i));
        let prepared = |(s, g, i): Place| self.prepared_link(s, g, i);
        PageNav {
            sections,
            crumbs: self.crumbs(url, title, here),
            prev: before.map(prepared),
            next: after.map(prepared),
        }
    }

    /// The section the page at `url` is in, or whose index it is.
    fn section_here(&self, url: &str, here: Option<Place>) -> Option<usize> {
        here.map(|(s, _, _)| s)
            .or_else(|| (self.sections.iter()).position(|s| s.url == url))
    }

    /// Whether the whole course is small enough to list.
    fn small(&self) -> bool {
        self.sections.iter().map(|s| s.len).sum::<usize>() <= FULL_TREE
    }

    /// Group `g` of section `s` as a page outside it shows it, prepared.
    fn closed_group(&self, s: usize, g: usize) -> Prepared {
        (self.prepared.groups[s][g])
            .get_or_init(|| {
                let section = &self.sections[s];
                let group = &section.groups[g];
                Prepared::new(&nav_group(section, group, None, false, |k| {
                    link(&group.items[k], false)
                }))
            })
            .clone()
    }

    /// Group `g` of section `s` as its item `i` shows it, prepared, its other items shared.
    fn open_group(&self, s: usize, g: usize, i: usize) -> Prepared {
        let section = &self.sections[s];
        let group = &section.groups[g];
        Prepared::new(&nav_group(section, group, Some(i), false, |k| {
            match k == i {
                true => Prepared::new(&link(&group.items[k], true)),
                false => self.prepared_link(s, g, k),
            }
        }))
    }

    /// Item `i` of group `g` of section `s`, as the pages other than its own link it.
    fn prepared_link(&self, s: usize, g: usize, i: usize) -> Prepared {
        (self.prepared.links[s][g][i])
            .get_or_init(|| Prepared::new(&link(&self.sections[s].groups[g].items[i], false)))
            .clone()
    }

    /// The breadcrumb trail of the page at `url`.
    fn crumbs(&self, url: &str, title: &str, here: Option<Place>) -> Vec<Crumb> {
        // Each crumb's URL and link, as the section and group carry them.
        let crumb = |text: String, link: Option<(&str, &str)>| Crumb {
            text,
            url: link.map(|(url, _)| url.to_string()),
            href: link.map(|(_, href)| href.to_string()),
        };
        let home = (url != "/").then_some(("/", self.home_href.as_str()));
        let mut crumbs = vec![crumb("Home".into(), home)];
        if let Some((s, g, _)) = here {
            let section = &self.sections[s];
            crumbs.push(crumb(
                section.title.clone(),
                Some((&section.url, &section.href)),
            ));
            let group = &section.groups[g];
            if let Some(name) = &group.name {
                crumbs.push(crumb(name.clone(), Some((&group.url, &group.href))));
            }
        }
        if url != "/" {
            crumbs.push(crumb(title.to_string(), None));
        }
        crumbs
    }

    /// The pages before and after item `i` of group `g` of section `s` in reading order:
    /// across the end of a category into the next (a section's last page has no next).
    pub(super) fn neighbours(
        &self,
        s: usize,
        g: usize,
        i: usize,
    ) -> (Option<&Item>, Option<&Item>) {
        let item = |(s, g, i): Place| &self.sections[s].groups[g].items[i];
        let (before, after) = self.neighbours_at(s, g, i);
        (before.map(item), after.map(item))
    }

    /// Where the pages before and after item `i` of group `g` of section `s` are
    /// ([`Nav::neighbours`]).
    fn neighbours_at(&self, s: usize, g: usize, i: usize) -> (Option<Place>, Option<Place>) {
        let groups = &self.sections[s].groups;
        let before = match i.checked_sub(1) {
            Some(p) => Some((s, g, p)),
            None => (0..g).rev().find_map(|k| {
                groups[k]
                    .items
                    .len()
                    .checked_sub(1)
                    .map(|last| (s, k, last))
            }),
        };
        let after = match i + 1 < groups[g].items.len() {
            true => Some((s, g, i + 1)),
            false => (g + 1..groups.len())
                .find(|&k| !groups[k].items.is_empty())
                .map(|k| (s, k, 0)),
        };
        (before, after)
    }

    /// Every section with its groups and counts, for the home page.
    pub(crate) fn overview(&self) -> Vec<NavSection> {
        self.page("", "").sections
    }
}

/// `section` as a page shows it, `open` or closed, with `groups`.
fn nav_section<G>(section: &Section, open: bool, groups: Vec<G>) -> NavSection<G> {
    NavSection {
        title: section.title.clone(),
        url: section.url.clone(),
        href: section.href.clone(),
        open,
        groups,
    }
}

/// Group `group` of `section` as a page shows it, `current` being the page's item in it;
/// `link` makes the link of each item listed, by its index.
fn nav_group<L>(
    section: &Section,
    group: &Group,
    current: Option<usize>,
    full: bool,
    link: impl FnMut(usize) -> L,
) -> NavGroup<L> {
    let count = group.items.len();
    let range = listed(section.len, current, count, full);
    let more = count - range.len();
    NavGroup {
        name: group.name.clone(),
        url: group.url.clone(),
        href: group.href.clone(),
        open: current.is_some() || group.name.is_none(),
        items: range.map(link).collect(),
        more,
        count,
    }
}

/// Which of a group's `count` pages the sidebar lists, in a section of `section_len` pages:
/// all of them in a small section (or with `full`), else a window round the `current` one.
pub(super) fn listed(
    section_len: usize,
    current: Option<usize>,
    count: usize,
    full: bool,
) -> std::ops::Range<usize> {
    if full || section_len <= FULL_TREE {
        0..count
    } else if let Some(i) = current {
        i.saturating_sub(WINDOW)..(i + WINDOW + 1).min(count)
    } else {
        0..0
    }
}

fn link(item: &Item, current: bool) -> NavLink {
    NavLink {
        text: item.text.clone(),
        url: item.url.clone(),
        href: item.href.clone(),
        draft: item.draft,
        current,
    }
}
