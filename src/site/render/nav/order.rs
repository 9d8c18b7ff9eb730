//! The reading order of one build, `Nav`, and how it is made: sections as the config lists
//! them (then days, the glossary and the others by name), days by the number in their slug,
//! the glossary by category and term, other sections by title; what navigation calls each
//! section and category; and the slots where the parts many pages show are kept once made.
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use crate::content::Entry;
use crate::content::load::{DAYS, DEFAULT_GLOSSARY};
use crate::site::urls::Urls;
use crate::templates::Prepared;

#[derive(PartialEq)]
pub(super) struct Item {
    pub(super) text: String,
    pub(super) url: String,
    /// `url` with the base path, made once per build.
    pub(super) href: String,
    pub(super) draft: bool,
}

pub(super) struct Group {
    pub(super) name: Option<String>,
    /// Where the section index lists it, and the same with the base path.
    pub(super) url: String,
    pub(super) href: String,
    pub(super) items: Vec<Item>,
}

pub(super) struct Section {
    pub(super) name: String,
    pub(super) title: String,
    /// The section index's URL, and the same with the base path.
    pub(super) url: String,
    pub(super) href: String,
    pub(super) groups: Vec<Group>,
    pub(super) len: usize,
}

/// Where a page is listed: its section, group and item.
pub(super) type Place = (usize, usize, usize);

/// The reading order of one build.
pub(crate) struct Nav {
    pub(super) sections: Vec<Section>,
    pub(super) names: SectionNames,
    /// Page URL → where it is listed.
    pub(super) at: HashMap<String, Place>,
    /// The home page's link (the breadcrumbs' first).
    pub(super) home_href: String,
    /// What pages show alike, prepared for the templates when a page first shows it.
    pub(super) prepared: PreparedParts,
}

impl Nav {
    /// The sections' order and names.
    pub(crate) fn names(&self) -> &SectionNames {
        &self.names
    }
}

/// The parts of the navigation that many pages show alike, each prepared for the
/// templates once: a page's sidebar is mostly groups and sections it is not in, and links
/// that other pages list too (`benches/build.sh`: serialised for every page, they were
/// the largest part of its context). Filled as pages ask, so a `serve` rebuild that
/// renders one page prepares what that page shows.
#[derive(Default)]
pub(super) struct PreparedParts {
    /// Each item's link as the pages other than its own show it: by section, group, item.
    pub(super) links: Vec<Vec<Vec<OnceLock<Prepared>>>>,
    /// Each group as a page outside it shows it: by section and group.
    pub(super) groups: Vec<Vec<OnceLock<Prepared>>>,
    /// Each section as a page outside it shows it, closed and open.
    pub(super) sections: Vec<[OnceLock<Prepared>; 2]>,
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

pub(super) fn section_url(name: &str) -> String {
    format!("/{name}/")
}

pub(super) fn group_url(section: &str, name: &str) -> String {
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
pub(super) fn categories(
    entries: Vec<(&Entry, bool)>,
    section: &str,
    urls: Urls<'_>,
) -> Vec<Group> {
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
pub(super) fn in_order(
    entries: Vec<(&Entry, bool)>,
    section: &str,
    by_slug: bool,
    urls: Urls<'_>,
) -> Group {
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
