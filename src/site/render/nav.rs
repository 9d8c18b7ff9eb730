//! Navigation: the course's reading order (days by number, glossary by category and term),
//! and what each page shows of it — sidebar tree, breadcrumbs, previous/next. Built once per
//! build from the pages shown (drafts only in the preview), then queried per page.
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use serde::Serialize;

use crate::content::Entry;
use crate::content::load::{DAYS, DEFAULT_GLOSSARY};
use crate::site::urls::Urls;
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

#[derive(PartialEq)]
struct Item {
    text: String,
    url: String,
    /// `url` with the base path, made once per build.
    href: String,
    draft: bool,
}

impl Item {
    /// `e` listed as `text`, its `href` made by `urls`.
    fn new(text: String, e: &Entry, draft: bool, urls: Urls<'_>) -> Self {
        Item {
            text,
            href: urls.page(&e.url),
            url: e.url.clone(),
            draft,
        }
    }
}

struct Group {
    name: Option<String>,
    /// Where the section index lists it, and the same with the base path.
    url: String,
    href: String,
    items: Vec<Item>,
}

struct Section {
    name: String,
    title: String,
    /// The section index's URL, and the same with the base path.
    url: String,
    href: String,
    groups: Vec<Group>,
    len: usize,
}

/// The sections' order and names as the config gives them (`sections`), and which one is
/// the glossary (`[glossary] folder`).
#[derive(Debug, Clone)]
pub(crate) struct SectionNames {
    /// Listed sections, in reading order, each with the title it was given, if any.
    listed: Vec<(String, Option<String>)>,
    /// The glossary's folder: its entries are grouped by category and ordered by term.
    glossary: String,
}

impl Default for SectionNames {
    fn default() -> Self {
        SectionNames::new(&[], DEFAULT_GLOSSARY)
    }
}

impl SectionNames {
    /// The config's `sections`, and its glossary folder.
    pub(crate) fn new(config: &[crate::config::SectionConfig], glossary: &str) -> Self {
        SectionNames {
            listed: config
                .iter()
                .map(|s| (s.name.clone(), s.title.clone()))
                .collect(),
            glossary: glossary.to_string(),
        }
    }

    /// Where `section` comes in reading order: the listed ones as listed, then days, the
    /// glossary, and any other by name.
    pub(crate) fn rank<'a>(&self, section: &'a str) -> (usize, usize, &'a str) {
        let listed = self.listed.iter().position(|(n, _)| n == section);
        let built_in = match section {
            DAYS => 0,
            s if s == self.glossary => 1,
            _ => 2,
        };
        (listed.unwrap_or(self.listed.len()), built_in, section)
    }

    /// What navigation calls `section`: its configured title, or one made from its name.
    pub(crate) fn title(&self, section: &str) -> String {
        (self.listed.iter())
            .find(|(n, _)| n == section)
            .and_then(|(_, t)| t.clone())
            .unwrap_or_else(|| section_title(section))
    }
}

/// Where a page is listed: its section, group and item.
type Place = (usize, usize, usize);

/// The reading order of one build.
pub(crate) struct Nav {
    sections: Vec<Section>,
    names: SectionNames,
    /// Page URL → where it is listed.
    at: HashMap<String, Place>,
    /// The home page's link (the breadcrumbs' first).
    home_href: String,
    /// What pages show alike, prepared for the templates when a page first shows it.
    prepared: PreparedParts,
}

/// The parts of the navigation that many pages show alike, each prepared for the
/// templates once: a page's sidebar is mostly groups and sections it is not in, and links
/// that other pages list too (`benches/build.sh`: serialised for every page, they were
/// the largest part of its context). Filled as pages ask, so a `serve` rebuild that
/// renders one page prepares what that page shows.
#[derive(Default)]
struct PreparedParts {
    /// Each item's link as the pages other than its own show it: by section, group, item.
    links: Vec<Vec<Vec<OnceLock<Prepared>>>>,
    /// Each group as a page outside it shows it: by section and group.
    groups: Vec<Vec<OnceLock<Prepared>>>,
    /// Each section as a page outside it shows it, closed and open.
    sections: Vec<[OnceLock<Prepared>; 2]>,
}

impl PreparedParts {
    fn new(sections: &[Section]) -> Self {
        PreparedParts {
            links: (sections.iter())
                .map(|s| s.groups.iter().map(|g| slots(g.items.len())).collect())
                .collect(),
            groups: sections.iter().map(|s| slots(s.groups.len())).collect(),
            sections: sections.iter().map(|_| Default::default()).collect(),
        }
    }
}

fn slots(n: usize) -> Vec<OnceLock<Prepared>> {
    (0..n).map(|_| OnceLock::new()).collect()
}

impl Nav {
    /// Orders the pages shown: the sections `names` lists, in its order, then days, the
    /// glossary and any other section by name; days by the number in their slug, the
    /// glossary by category and term, any other section by title. Top-level pages are left
    /// out. Every link's `href` is made by `urls`, here.
    pub(crate) fn new<'e>(
        shown: impl IntoIterator<Item = (&'e Entry, bool)>,
        urls: Urls<'_>,
        names: SectionNames,
    ) -> Self {
        let mut by_section: BTreeMap<&str, Vec<(&Entry, bool)>> = BTreeMap::new();
        for (e, draft) in shown {
            if !e.section.is_empty() {
                by_section
                    .entry(e.section.as_str())
                    .or_default()
                    .push((e, draft));
            }
        }
        let mut order: Vec<&str> = by_section.keys().copied().collect();
        order.sort_by_key(|s| names.rank(s));
        let mut sections = Vec::new();
        for name in order {
            let entries = by_section.remove(name).unwrap_or_default();
            let len = entries.len();
            let groups = if name == names.glossary {
                categories(entries, name, urls)
            } else {
                vec![in_order(entries, name, name == DAYS, urls)]
            };
            sections.push(Section {
                name: name.to_string(),
                title: names.title(name),
                url: section_url(name),
                href: urls.page(&section_url(name)),
                groups,
                len,
            });
        }
        let mut at = HashMap::new();
        for (s, section) in sections.iter().enumerate() {
            for (g, group) in section.groups.iter().enumerate() {
                for (i, item) in group.items.iter().enumerate() {
                    at.insert(item.url.clone(), (s, g, i));
                }
            }
        }
        Nav {
            prepared: PreparedParts::new(&sections),
            sections,
            names,
            at,
            home_href: urls.page("/"),
        }
    }

    /// The sections' order and names.
    pub(crate) fn names(&self) -> &SectionNames {
        &self.names
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
            .map(|(s, section)| NavSection {
                title: section.title.clone(),
                url: section.url.clone(),
                href: section.href.clone(),
                open: section_here == Some(s) || (small && section.len <= FULL_TREE),
                groups: section
                    .groups
                    .iter()
                    .enumerate()
                    .map(|(g, group)| {
                        let current = here.filter(|h| (h.0, h.1) == (s, g)).map(|h| h.2);
                        nav_group(section, group, current, full, |k| {
                            link(&group.items[k], group.items[k].url == url)
                        })
                    })
                    .collect(),
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
                    Some((_, g, i)) => Prepared::new(&NavSection {
                        title: section.title.clone(),
                        url: section.url.clone(),
                        href: section.href.clone(),
                        open,
                        groups: (0..section.groups.len())
                            .map(|k| match k == g {
                                true => self.open_group(s, g, i),
                                false => self.closed_group(s, k),
                            })
                            .collect(),
                    }),
                    None => (self.prepared.sections[s][usize::from(open)])
                        .get_or_init(|| {
                            Prepared::new(&NavSection {
                                title: section.title.clone(),
                                url: section.url.clone(),
                                href: section.href.clone(),
                                open,
                                groups: (0..section.groups.len())
                                    .map(|k| self.closed_group(s, k))
                                    .collect(),
                            })
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
    fn neighbours(&self, s: usize, g: usize, i: usize) -> (Option<&Item>, Option<&Item>) {
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
fn listed(
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

fn section_url(name: &str) -> String {
    format!("/{name}/")
}

fn group_url(section: &str, name: &str) -> String {
    format!("/{section}/#{}", anchor(name))
}

/// Human title of a section folder.
fn section_title(section: &str) -> String {
    match section {
        "glossary" => "Glossary".into(),
        "days" => "Days".into(),
        "" => "Home".into(),
        other => {
            let mut c = other.replace(['-', '_'], " ");
            if let Some(first) = c.get(0..1) {
                c.replace_range(0..1, &first.to_uppercase());
            }
            c
        }
    }
}

/// The id a category's heading gets on the section index: lower case, spaces as hyphens.
pub(crate) fn anchor(name: &str) -> String {
    name.to_lowercase().replace(' ', "-")
}

/// Glossary entries by category (alphabetical; "Uncategorised" last), each by term.
fn categories(entries: Vec<(&Entry, bool)>, section: &str, urls: Urls<'_>) -> Vec<Group> {
    let mut map: BTreeMap<(bool, String), Vec<Item>> = BTreeMap::new();
    for (e, draft) in entries {
        let key = match &e.meta.category {
            Some(c) => (false, c.clone()),
            None => (true, "Uncategorised".to_string()),
        };
        let term = e.meta.term.clone().unwrap_or_else(|| e.meta.title.clone());
        map.entry(key)
            .or_default()
            .push(Item::new(term, e, draft, urls));
    }
    map.into_iter()
        .map(|((_, name), mut items)| {
            items.sort_by_cached_key(|i| (i.text.to_lowercase(), i.url.clone()));
            let url = group_url(section, &name);
            Group {
                href: urls.page(&url),
                url,
                name: Some(name),
                items,
            }
        })
        .collect()
}

/// A section read in order: days by the numbers in their slugs ("day-2" before "day-15"),
/// other sections by title.
fn in_order(entries: Vec<(&Entry, bool)>, section: &str, by_slug: bool, urls: Urls<'_>) -> Group {
    let mut keyed: Vec<(Vec<Part>, Item)> = entries
        .into_iter()
        .map(|(e, draft)| {
            let key = natural_key(if by_slug { &e.slug } else { &e.meta.title });
            (key, Item::new(e.meta.title.clone(), e, draft, urls))
        })
        .collect();
    keyed.sort_by(|a, b| (&a.0, &a.1.url).cmp(&(&b.0, &b.1.url)));
    Group {
        name: None,
        url: section_url(section),
        href: urls.page(&section_url(section)),
        items: keyed.into_iter().map(|(_, i)| i).collect(),
    }
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Hash)]
pub(crate) enum Part {
    Number(u128),
    Text(String),
}

/// "day-15" → [Text("day-"), Number(15)], so numbers compare by value.
pub(crate) fn natural_key(s: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let digits = c.is_ascii_digit();
        let end = rest
            .find(|ch: char| ch.is_ascii_digit() != digits)
            .unwrap_or(rest.len());
        let (run, tail) = rest.split_at(end);
        parts.push(match run.parse::<u128>() {
            Ok(n) if digits => Part::Number(n),
            _ => Part::Text(run.to_lowercase()),
        });
        rest = tail;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(mut names: Vec<&str>, sorted: &[&str]) {
        names.sort_by_key(|n| natural_key(n));
        assert_eq!(names, sorted);
    }

    #[test]
    fn days_sort_by_number() {
        case(
            vec!["day-15", "day-2", "day-100", "day-1"],
            &["day-1", "day-2", "day-15", "day-100"],
        );
        case(vec!["b", "A", "a1"], &["A", "a1", "b"]);
        case(
            vec!["x-99999999999999999999999999999999999999999", "x-1"],
            &["x-1", "x-99999999999999999999999999999999999999999"],
        );
    }

    /// A site as (section, category, term, draft) per page, its pages built from one
    /// parsed entry.
    fn nav_of(site: &[(String, Option<String>, String, bool)]) -> (Nav, Vec<String>) {
        let template = crate::content::load::parse_entry(
            std::path::Path::new("content/glossary/x.md"),
            "---\ntitle: X\n---\nBody.\n",
        )
        .unwrap();
        let entries: Vec<Entry> = site
            .iter()
            .map(|(section, category, term, _)| {
                let mut e = template.clone();
                let slug = term.to_lowercase().replace(' ', "-");
                e.url = format!("/{section}/{slug}/");
                e.section = section.clone();
                e.slug = slug;
                e.meta.title = format!("Title of {term}");
                e.meta.term = (section == DEFAULT_GLOSSARY).then(|| term.clone());
                e.meta.category = category.clone();
                e
            })
            .collect();
        let urls = entries.iter().map(|e| e.url.clone()).collect();
        let pages = entries.iter().zip(site).map(|(e, (.., draft))| (e, *draft));
        let mut config = crate::config::Config::default();
        config
            .override_base_url("https://example.org/course/")
            .unwrap();
        let nav = Nav::new(pages, Urls::new(&config), SectionNames::default());
        (nav, urls)
    }

    /// `same_frame` and `same_page` never call a page's navigation unchanged when it
    /// changed: checked against the whole `PageNav` of every page (and the home page, an
    /// index and a page outside the sections) after random edits of a site whose glossary
    /// is windowed and whose days are listed whole. They must also find unchanged pages,
    /// or serve would render everything.
    #[test]
    fn same_page_only_when_the_navigation_is_unchanged() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let categories = [
            None,
            Some("Memory".to_string()),
            Some("Execution".to_string()),
        ];
        let mut site: Vec<(String, Option<String>, String, bool)> = (0..FULL_TREE + 30)
            .map(|i| {
                (
                    DEFAULT_GLOSSARY.to_string(),
                    categories[i % 3].clone(),
                    format!("term {i:03}"),
                    false,
                )
            })
            .chain((1..=8).map(|d| (DAYS.to_string(), None, format!("day {d}"), false)))
            .collect();
        let (mut unchanged, mut compared) = (0, 0);
        for round in 0..60 {
            let (old, old_urls) = nav_of(&site);
            for _ in 0..1 + next(3) {
                let i = next(site.len());
                match next(6) {
                    0 => site[i].2 = format!("term {} {round} {i}", next(400)),
                    1 => site[i].1 = categories[next(3)].clone(),
                    2 => site[i].3 = !site[i].3,
                    3 if site.len() > FULL_TREE - 5 => {
                        site.remove(i);
                    }
                    4 => site.push((
                        site[i].0.clone(),
                        categories[next(3)].clone(),
                        format!("new {round} {i}"),
                        false,
                    )),
                    _ => {} // nothing changes
                }
            }
            let (new, new_urls) = nav_of(&site);
            let frame = new.same_frame(&old);
            let mut urls: Vec<String> = old_urls.into_iter().chain(new_urls).collect();
            urls.extend(["/".into(), "/glossary/".into(), "/about/".into()]);
            urls.sort();
            urls.dedup();
            for url in &urls {
                let same = frame && new.same_page(&old, url);
                let equal = new.page(url, "t") == old.page(url, "t");
                assert!(
                    !same || equal,
                    "round {round}: {url} called unchanged, but changed"
                );
                compared += 1;
                unchanged += usize::from(same);
            }
        }
        assert!(
            unchanged * 10 > compared,
            "{unchanged} of {compared} pages found unchanged"
        );
    }

    /// What the entry template receives is what it would receive from `page`, for every
    /// page (the home page, an index and a page outside the sections too), asked once and
    /// again (the shared parts then made), in sites large and small, with drafts.
    #[test]
    fn the_prepared_navigation_is_the_navigation() {
        let categories = [None, Some("Memory".to_string()), Some("Ex".to_string())];
        for (glossary, days) in [(FULL_TREE + 30, 8), (20, 5), (FULL_TREE - 5, 5), (3, 0)] {
            let site: Vec<(String, Option<String>, String, bool)> = (0..glossary)
                .map(|i| {
                    let category = categories[i * 7 % 3].clone();
                    (
                        DEFAULT_GLOSSARY.into(),
                        category,
                        format!("term {i:03}"),
                        i % 11 == 0,
                    )
                })
                .chain((1..=days).map(|d| (DAYS.into(), None, format!("day {d}"), d == 2)))
                .collect();
            let (nav, mut urls) = nav_of(&site);
            urls.extend([
                "/".into(),
                "/glossary/".into(),
                "/days/".into(),
                "/about/".into(),
            ]);
            for round in 0..2 {
                for url in &urls {
                    assert_eq!(
                        Prepared::new(&nav.page_for_templates(url, "t")),
                        Prepared::new(&nav.page(url, "t")),
                        "{glossary} entries, round {round}: {url}"
                    );
                }
            }
        }
    }

    #[test]
    fn anchors_match_the_section_index() {
        assert_eq!(anchor("Memory"), "memory");
        assert_eq!(anchor("Device Software"), "device-software");
    }
}
