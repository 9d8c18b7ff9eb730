//! Navigation: the course's reading order (days by number, glossary by category and term),
//! and what each page shows of it — sidebar tree, breadcrumbs, previous/next. Built once per
//! build from the pages shown (drafts only in the preview), then queried per page.
use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::content::Entry;
use crate::content::load::{DAYS, GLOSSARY};

/// Above this many entries in a section, the sidebar lists only the current category's
/// neighbourhood: listing every entry on every page would make a 10,000-entry site's pages
/// megabytes each. The section index always lists them all.
pub(super) const FULL_TREE: usize = 300;

/// Entries of the current category shown on each side of the current page in a large section.
const WINDOW: usize = 12;

/// A page as navigation shows it.
#[derive(Debug, Clone, Serialize)]
pub struct NavLink {
    /// Link text: the term for glossary entries, the title otherwise.
    pub text: String,
    /// Page URL.
    pub url: String,
    /// A draft (only in the preview), marked.
    pub draft: bool,
    /// The page being rendered.
    pub current: bool,
}

/// One crumb of the breadcrumb trail; the last is the page itself.
#[derive(Debug, Clone, Serialize)]
pub struct Crumb {
    /// Text.
    pub text: String,
    /// URL, `None` for the page itself.
    pub url: Option<String>,
}

/// A category of a section in the sidebar.
#[derive(Debug, Clone, Serialize)]
pub struct NavGroup {
    /// Category name, or `None` for a section read in order (days).
    pub name: Option<String>,
    /// Where the section index lists this group.
    pub url: String,
    /// Expanded: the current page is in it.
    pub open: bool,
    /// Its pages (in a large section, only a window round the current one).
    pub items: Vec<NavLink>,
    /// Pages of the group not listed here.
    pub more: usize,
    /// Total pages of the group.
    pub count: usize,
}

/// A section in the sidebar.
#[derive(Debug, Clone, Serialize)]
pub struct NavSection {
    /// Heading ("Days", "Glossary").
    pub title: String,
    /// Section index URL.
    pub url: String,
    /// Expanded: the current page is in it.
    pub open: bool,
    /// Its groups, in reading order.
    pub groups: Vec<NavGroup>,
}

/// What one page shows of the navigation.
#[derive(Debug, Clone, Serialize, Default)]
pub struct PageNav {
    /// The sidebar tree.
    pub sections: Vec<NavSection>,
    /// Breadcrumb trail from the home page.
    pub crumbs: Vec<Crumb>,
    /// Previous page in reading order (same category for glossary entries).
    pub prev: Option<NavLink>,
    /// Next page in reading order.
    pub next: Option<NavLink>,
}

struct Item {
    text: String,
    url: String,
    draft: bool,
}

struct Group {
    name: Option<String>,
    items: Vec<Item>,
}

struct Section {
    name: String,
    title: String,
    groups: Vec<Group>,
    len: usize,
}

/// The reading order of one build.
pub(super) struct Nav {
    sections: Vec<Section>,
    /// Page URL → (section, group, item).
    at: HashMap<String, (usize, usize, usize)>,
}

impl Nav {
    /// Orders the pages shown: days first (by the number in their slug), then the glossary
    /// by category and term, then any other section by title. Top-level pages are left out.
    pub(super) fn new(shown: &[super::pages::Page<'_>]) -> Self {
        let mut by_section: BTreeMap<&str, Vec<(&Entry, bool)>> = BTreeMap::new();
        for p in shown {
            let e = p.entry;
            if !e.section.is_empty() {
                by_section
                    .entry(e.section.as_str())
                    .or_default()
                    .push((e, p.draft_reason.is_some()));
            }
        }
        let rank = |s: &str| match s {
            DAYS => 0,
            GLOSSARY => 1,
            _ => 2,
        };
        let mut names: Vec<&str> = by_section.keys().copied().collect();
        names.sort_by_key(|s| (rank(s), *s));
        let mut sections = Vec::new();
        for name in names {
            let entries = by_section.remove(name).unwrap_or_default();
            let len = entries.len();
            let groups = if name == GLOSSARY {
                categories(entries)
            } else {
                vec![in_order(entries, name == DAYS)]
            };
            sections.push(Section {
                name: name.to_string(),
                title: super::pages::section_title(name),
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
        Nav { sections, at }
    }

    /// The navigation of the page at `url` (the home page and section indexes too).
    pub(super) fn page(&self, url: &str, title: &str) -> PageNav {
        self.page_with(url, title, false)
    }

    /// Every section with every page listed, whatever the section's size (for llms.txt).
    pub(super) fn overview_all(&self) -> Vec<NavSection> {
        self.page_with("", "", true).sections
    }

    fn page_with(&self, url: &str, title: &str, full: bool) -> PageNav {
        let here = self.at.get(url).copied();
        let section_here = here.map(|(s, _, _)| s).or_else(|| {
            self.sections
                .iter()
                .position(|s| section_url(&s.name) == url)
        });
        let sections = self
            .sections
            .iter()
            .enumerate()
            .map(|(s, section)| NavSection {
                title: section.title.clone(),
                url: section_url(&section.name),
                open: section_here == Some(s) || section.len <= FULL_TREE,
                groups: section
                    .groups
                    .iter()
                    .enumerate()
                    .map(|(g, group)| {
                        let current = here.filter(|h| (h.0, h.1) == (s, g)).map(|h| h.2);
                        nav_group(section, group, current, url, full)
                    })
                    .collect(),
            })
            .collect();
        let mut crumbs = vec![Crumb {
            text: "Home".into(),
            url: (url != "/").then(|| "/".to_string()),
        }];
        let (mut prev, mut next) = (None, None);
        if let Some((s, g, i)) = here {
            let section = &self.sections[s];
            crumbs.push(Crumb {
                text: section.title.clone(),
                url: Some(section_url(&section.name)),
            });
            let group = &section.groups[g];
            if let Some(name) = &group.name {
                crumbs.push(Crumb {
                    text: name.clone(),
                    url: Some(group_url(&section.name, name)),
                });
            }
            let link = |item: &Item| link(item, false);
            prev = i.checked_sub(1).map(|p| link(&group.items[p]));
            next = group.items.get(i + 1).map(link);
        }
        if url != "/" {
            crumbs.push(Crumb {
                text: title.to_string(),
                url: None,
            });
        }
        PageNav {
            sections,
            crumbs,
            prev,
            next,
        }
    }

    /// Every section with its groups and counts, for the home page.
    pub(super) fn overview(&self) -> Vec<NavSection> {
        self.page("", "").sections
    }
}

fn nav_group(
    section: &Section,
    group: &Group,
    current: Option<usize>,
    url: &str,
    full: bool,
) -> NavGroup {
    let count = group.items.len();
    let range = if full || section.len <= FULL_TREE {
        0..count
    } else if let Some(i) = current {
        i.saturating_sub(WINDOW)..(i + WINDOW + 1).min(count)
    } else {
        0..0
    };
    let more = count - range.len();
    NavGroup {
        name: group.name.clone(),
        url: group.name.as_deref().map_or_else(
            || section_url(&section.name),
            |n| group_url(&section.name, n),
        ),
        open: current.is_some() || group.name.is_none(),
        items: group.items[range]
            .iter()
            .map(|item| link(item, item.url == url))
            .collect(),
        more,
        count,
    }
}

fn link(item: &Item, current: bool) -> NavLink {
    NavLink {
        text: item.text.clone(),
        url: item.url.clone(),
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

/// The id a category's heading gets on the section index: lower case, spaces as hyphens.
pub(super) fn anchor(name: &str) -> String {
    name.to_lowercase().replace(' ', "-")
}

/// Glossary entries by category (alphabetical; "Uncategorised" last), each by term.
fn categories(entries: Vec<(&Entry, bool)>) -> Vec<Group> {
    let mut map: BTreeMap<(bool, String), Vec<Item>> = BTreeMap::new();
    for (e, draft) in entries {
        let key = match &e.meta.category {
            Some(c) => (false, c.clone()),
            None => (true, "Uncategorised".to_string()),
        };
        map.entry(key).or_default().push(Item {
            text: e.meta.term.clone().unwrap_or_else(|| e.meta.title.clone()),
            url: e.url.clone(),
            draft,
        });
    }
    map.into_iter()
        .map(|((_, name), mut items)| {
            items.sort_by_cached_key(|i| (i.text.to_lowercase(), i.url.clone()));
            Group {
                name: Some(name),
                items,
            }
        })
        .collect()
}

/// A section read in order: days by the numbers in their slugs ("day-2" before "day-15"),
/// other sections by title.
fn in_order(entries: Vec<(&Entry, bool)>, by_slug: bool) -> Group {
    let mut keyed: Vec<(Vec<Part>, Item)> = entries
        .into_iter()
        .map(|(e, draft)| {
            let key = natural_key(if by_slug { &e.slug } else { &e.meta.title });
            let item = Item {
                text: e.meta.title.clone(),
                url: e.url.clone(),
                draft,
            };
            (key, item)
        })
        .collect();
    keyed.sort_by(|a, b| (&a.0, &a.1.url).cmp(&(&b.0, &b.1.url)));
    Group {
        name: None,
        items: keyed.into_iter().map(|(_, i)| i).collect(),
    }
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Hash)]
pub(super) enum Part {
    Number(u128),
    Text(String),
}

/// "day-15" → [Text("day-"), Number(15)], so numbers compare by value.
pub(super) fn natural_key(s: &str) -> Vec<Part> {
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

    #[test]
    fn anchors_match_the_section_index() {
        assert_eq!(anchor("Memory"), "memory");
        assert_eq!(anchor("Device Software"), "device-software");
    }
}
