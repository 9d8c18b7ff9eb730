//! Page contexts: the plain data each template receives, built from checked entries.
//! Everything here is escaped by the templates except fields named `*_html`, which are
//! produced by our own renderers (Markdown, diagrams, measured tables).
use std::collections::BTreeMap;

use serde::Serialize;

use crate::content::Entry;
use crate::site::check::page::Lookup;
use crate::site::urls::Urls;

/// Site-wide values every template sees.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SiteInfo {
    /// Shown in the header and `<title>`.
    pub(crate) title: String,
    /// True in the course preview (`--drafts`).
    pub(crate) preview: bool,
    /// `<html lang>`.
    pub(crate) language: String,
    /// The course's source repository, linked from the footer, when configured.
    pub(crate) repository: Option<String>,
    /// The site's public address ending in `/` (`--base-url`), when known: pages name
    /// their canonical address (`<link rel="canonical">`, `og:url`) under it.
    pub(crate) base_url: Option<String>,
    /// One sentence about the course (`description` in coursegen.toml).
    pub(crate) description: Option<String>,
    /// The home page's text, rendered from `home` in coursegen.toml (sanitised as entries
    /// are); only the home page shows it.
    #[serde(skip)]
    pub(crate) home_html: Option<String>,
    /// The footer's text, rendered from `footer` in coursegen.toml with its links under
    /// the base path (`None`: the template's own sentence).
    pub(crate) footer_html: Option<String>,
}

impl SiteInfo {
    /// The values of `config` that templates show, with the home text as the check stage
    /// rendered it.
    pub(crate) fn new(
        config: &crate::config::Config,
        preview: bool,
        home_html: Option<String>,
        footer_html: Option<String>,
    ) -> Self {
        SiteInfo {
            title: config.title.clone(),
            preview,
            language: config.language.clone(),
            repository: config.repository.clone(),
            base_url: config.base_url.clone(),
            description: config.description.clone(),
            home_html,
            footer_html,
        }
    }
}

/// A link to another page, as related terms and days show it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LinkCtx {
    /// Link text.
    pub(crate) text: String,
    /// Target URL, or `None` when the target is not part of this build (a draft in publish mode).
    pub(crate) url: Option<String>,
    /// The same with the base path, as the link writes it.
    pub(crate) href: Option<String>,
    /// The target is a draft (marked in the preview).
    pub(crate) draft: bool,
}

/// The byline as the page prints it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BylineCtx {
    /// "Ada Lovelace and Grace Hopper", or "pending".
    pub(crate) written_by: String,
    /// Reviewer name(s), or "pending".
    pub(crate) reviewed_by: String,
    /// YYYY-MM-DD or "pending".
    pub(crate) written_on: String,
    /// YYYY-MM-DD or "pending".
    pub(crate) last_checked_on: String,
    /// Both roles' signatures are in the byline: the page says "Reviewed and signed" and
    /// links to how a reader checks it.
    pub(crate) signed: bool,
}

/// The Diagram section.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DiagramCtx {
    /// Inline SVG, drawn by `diagram`.
    pub(crate) svg_html: String,
    /// Alt text, shown as the caption.
    pub(crate) alt: String,
    /// The preset's name.
    pub(crate) preset: String,
    /// Author prose under `## Diagram`.
    pub(crate) prose_html: String,
    /// PNG beside the page (file name).
    pub(crate) png: Option<String>,
    /// The SVG on its own beside the page (file name), opened full size by a tap.
    pub(crate) full: Option<String>,
}

/// Everything the entry template shows.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct EntryCtx<'a> {
    /// Site values.
    pub(crate) site: &'a SiteInfo,
    /// Page URL.
    pub(crate) url: &'a str,
    /// Section name (`glossary`, `days`).
    pub(crate) section: &'a str,
    /// Section index URL (`/glossary/`).
    pub(crate) section_url: String,
    /// Back-link text ("Glossary").
    pub(crate) section_title: String,
    /// The question.
    pub(crate) title: &'a str,
    /// Term defined.
    pub(crate) term: Option<&'a str>,
    /// Index group.
    pub(crate) category: Option<&'a str>,
    /// Compute capability.
    pub(crate) cc: Option<&'a str>,
    /// One-line definition.
    pub(crate) summary: Option<&'a str>,
    /// Rendered body.
    pub(crate) body_html: std::borrow::Cow<'a, str>,
    /// Measured section, when the entry declares `measure:` or has prose for it.
    pub(crate) measured: Option<crate::site::check::measurements::MeasuredCtx>,
    /// Diagram section.
    pub(crate) diagram: Option<DiagramCtx>,
    /// Related terms.
    pub(crate) related: Vec<LinkCtx>,
    /// Day pages.
    pub(crate) appears_in: Vec<LinkCtx>,
    /// Sources.
    pub(crate) sources: &'a [crate::content::meta::Source],
    /// Byline.
    pub(crate) byline: BylineCtx,
    /// Why it is a draft (preview only), else null.
    pub(crate) draft_reason: Option<String>,
    /// Social-card image URL.
    pub(crate) og_image: Option<String>,
    /// Sidebar, breadcrumbs, previous/next.
    pub(crate) nav: super::nav::PreparedNav,
    /// The Markdown copy beside the page (published pages only).
    pub(crate) markdown: Option<String>,
    /// "Edit this page": the source file in the repository, when `repository` is configured.
    pub(crate) edit_url: Option<String>,
    /// "On this page": the headings to list (none when the page has fewer than three).
    pub(crate) contents: Vec<crate::markdown::Heading>,
}

/// The contents list of an entry: the main text's headings of levels 2 and 3, then the
/// sections the page shows after it (`sections`: id and heading of each); empty below
/// three, where a list would not help.
pub(crate) fn contents(
    main: &[crate::markdown::Heading],
    sections: &[(&str, &str)],
) -> Vec<crate::markdown::Heading> {
    let mut list: Vec<_> = main.iter().filter(|h| h.level <= 3).cloned().collect();
    list.extend(sections.iter().map(|(id, text)| crate::markdown::Heading {
        level: 2,
        id: (*id).into(),
        text: (*text).into(),
    }));
    if list.len() < 3 {
        list.clear();
    }
    list
}

/// One line of a section index.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct IndexItem {
    /// Term (or title when there is no term).
    pub(crate) term: String,
    /// The question.
    pub(crate) title: String,
    /// One-line definition.
    pub(crate) summary: Option<String>,
    /// Page URL.
    pub(crate) url: String,
    /// The same with the base path; left out of `search-index.json`, whose `url` has it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(crate) href: String,
    /// Marked in the preview.
    pub(crate) draft: bool,
}

/// A category and its entries.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Group {
    /// Category name ("Uncategorised" when missing; empty for a section read in order).
    pub(crate) name: String,
    /// Its heading's id on the section index.
    pub(crate) anchor: String,
    /// Its entries, by term.
    pub(crate) items: Vec<IndexItem>,
}

/// A section index page.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SectionCtx {
    /// Site values.
    pub(crate) site: SiteInfo,
    /// Section name.
    pub(crate) section: String,
    /// Heading.
    pub(crate) title: String,
    /// Page URL.
    pub(crate) url: String,
    /// What search engines show for it: the introduction's summary, or what it lists.
    pub(crate) description: String,
    /// Introduction from `content/<section>.md`, when there is one.
    pub(crate) intro_html: Option<String>,
    /// Why the introduction is a draft (preview only), else null.
    pub(crate) intro_draft_reason: Option<String>,
    /// Groups by category, alphabetical.
    pub(crate) groups: Vec<Group>,
    /// Sidebar and breadcrumbs.
    pub(crate) nav: super::nav::PageNav,
}

/// The site's home page.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HomeCtx {
    /// Site values.
    pub(crate) site: SiteInfo,
    /// Page URL (`/`).
    pub(crate) url: String,
    /// Every section with its entry count.
    pub(crate) sections: Vec<SectionLink>,
    /// Top-level pages (`content/<slug>.md`), by title.
    pub(crate) pages: Vec<IndexItem>,
    /// Sidebar.
    pub(crate) nav: super::nav::PageNav,
    /// Every section in reading order with its groups (days listed, categories counted).
    pub(crate) overview: Vec<super::nav::NavSection>,
    /// The course's home text (HTML, from `home` in coursegen.toml).
    pub(crate) home_html: Option<String>,
}

/// A page that belongs to no entry: 404.html and the search page.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PlainCtx {
    /// Site values.
    pub(crate) site: SiteInfo,
    /// Page URL.
    pub(crate) url: String,
    /// Sidebar.
    pub(crate) nav: super::nav::PageNav,
}

/// A section as the home page lists it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SectionLink {
    /// Heading.
    pub(crate) title: String,
    /// Index URL.
    pub(crate) url: String,
    /// The same with the base path.
    pub(crate) href: String,
    /// Entries shown in this build.
    pub(crate) count: usize,
}

/// The link to `slug` of `section`, unlinked when the target is left out of this build;
/// its `href` is made by `urls`.
pub(crate) fn link(
    lookup: &Lookup,
    section: &str,
    slug: &str,
    urls: Urls<'_>,
    text: impl Fn(&Entry) -> String,
) -> LinkCtx {
    match lookup.target(section, slug) {
        Some((e, draft)) => {
            let url = (lookup.preview || !draft).then(|| e.url.clone());
            LinkCtx {
                text: text(e),
                href: url.as_deref().map(|u| urls.page(u)),
                url,
                draft,
            }
        }
        None => LinkCtx {
            text: slug.into(),
            url: None,
            href: None,
            draft: false,
        },
    }
}

/// Prints a byline list of names: "A", "A and B", "A, B and C"; "pending" when nobody.
fn names(list: &[String]) -> String {
    let named = crate::editorial::policy::names::named_people(list);
    match named.as_slice() {
        [] => "pending".into(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Builds the byline context.
pub(crate) fn byline(entry: &Entry) -> BylineCtx {
    let b = &entry.meta.byline;
    let date = |d: Option<jiff::civil::Date>| d.map_or_else(|| "pending".into(), |d| d.to_string());
    BylineCtx {
        written_by: names(&b.written_by),
        reviewed_by: names(&b.reviewed_by),
        written_on: date(b.written_on),
        last_checked_on: date(b.last_checked_on),
        signed: b.author_signature.is_some() && b.reviewer_signature.is_some(),
    }
}

/// Groups index items by category (alphabetical, "Uncategorised" last), items by term; a
/// section read in order (days) is one unnamed group ordered by the numbers in its URLs.
pub(crate) fn groups(items: Vec<(Option<String>, IndexItem)>, in_order: bool) -> Vec<Group> {
    if in_order {
        let mut items: Vec<IndexItem> = items.into_iter().map(|(_, i)| i).collect();
        items.sort_by_cached_key(|i| (super::nav::natural_key(&i.url), i.url.clone()));
        return vec![Group {
            name: String::new(),
            anchor: String::new(),
            items,
        }];
    }
    let mut map: BTreeMap<(bool, String), Vec<IndexItem>> = BTreeMap::new();
    for (cat, item) in items {
        let key = cat.map_or_else(|| (true, "Uncategorised".into()), |c| (false, c));
        map.entry(key).or_default().push(item);
    }
    map.into_iter()
        .map(|((_, name), mut items)| {
            items.sort_by_cached_key(|i| (i.term.to_lowercase(), i.url.clone()));
            Group {
                anchor: super::nav::anchor(&name),
                name,
                items,
            }
        })
        .collect()
}
