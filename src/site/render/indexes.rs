//! The render stage's pages besides the entries: home page, section indexes (headed by
//! their introductions), search index and sitemap. Pure, like `render`.
use super::pages::{self, HomeCtx, IndexItem, SectionCtx, SiteInfo};
use crate::site::check::page::Page;
use crate::site::check::plan::sections;
use crate::site::layout::page_path;
use crate::site::urls::Urls;
use crate::site::write::OutFile;
use crate::templates::{TemplateError, Templates};

/// The home page, one index per section, and the search index.
pub(crate) fn indexes(
    pages: &[Page],
    intros: &[Page],
    info: &SiteInfo,
    templates: &Templates,
    nav: &super::nav::Nav,
    urls: Urls<'_>,
) -> Result<Vec<OutFile>, TemplateError> {
    let mut by_section: std::collections::BTreeMap<&str, Vec<(Option<String>, IndexItem)>> =
        sections(pages, intros)
            .into_iter()
            .map(|s| (s, Vec::new()))
            .collect();
    let mut pages_at_top = Vec::new();
    for p in pages {
        let e = &*p.entry;
        let item = IndexItem {
            term: e.meta.term.clone().unwrap_or_else(|| e.meta.title.clone()),
            title: e.meta.title.clone(),
            summary: e.meta.summary.clone(),
            url: e.url.clone(),
            href: urls.page(&e.url),
            draft: p.draft_reason.is_some(),
        };
        match by_section.get_mut(e.section.as_str()) {
            Some(items) => items.push((e.meta.category.clone(), item)),
            None => pages_at_top.push(item),
        }
    }
    pages_at_top.sort_by(|a, b| a.title.cmp(&b.title));
    let mut files = Vec::new();
    let mut sections = Vec::new();
    let mut search = Vec::new();
    for (section, items) in by_section {
        let intro = intros.iter().find(|p| p.entry.slug == section);
        let title = intro.map_or_else(
            || nav.names().title(section),
            |p| p.entry.meta.title.clone(),
        );
        let url = format!("/{section}/");
        sections.push(pages::SectionLink {
            title: title.clone(),
            url: url.clone(),
            href: urls.page(&url),
            count: items.len(),
        });
        // Scripts use the search index's URLs as they are: they carry the base path.
        search.extend(items.iter().map(|(_, i)| IndexItem {
            url: urls.page(&i.url),
            href: String::new(),
            ..i.clone()
        }));
        let ctx = SectionCtx {
            site: info.clone(),
            section: section.into(),
            title: title.clone(),
            url: url.clone(),
            description: (intro.and_then(|p| p.entry.meta.summary.clone()))
                .unwrap_or_else(|| section_description(&title, &info.title, &items)),
            intro_html: intro.map(|p| urls.content_html(&p.bodies.main).into_owned()),
            intro_draft_reason: intro.and_then(|p| p.draft_reason.clone()),
            groups: pages::groups(items, section == crate::content::load::DAYS),
            nav: nav.page(&url, &title),
        };
        files.push(OutFile {
            path: page_path(&url),
            bytes: templates
                .render("section.html", &ctx, urls.root())?
                .into_bytes(),
        });
    }
    // The home page lists the sections in reading order, as the sidebar does.
    let names = nav.names();
    sections.sort_by(|a, b| {
        let (a, b) = (a.url.trim_matches('/'), b.url.trim_matches('/'));
        names.rank(a).cmp(&names.rank(b))
    });
    let home = HomeCtx {
        site: info.clone(),
        url: "/".into(),
        sections,
        pages: pages_at_top,
        nav: nav.page("/", &info.title),
        overview: nav.overview(),
        // Site links in the home text move under the base path, as an entry's do.
        home_html: (info.home_html.as_deref()).map(|h| urls.content_html(h).into_owned()),
    };
    files.push(OutFile {
        path: "index.html".into(),
        bytes: templates
            .render("index.html", &home, urls.root())?
            .into_bytes(),
    });
    files.push(search_index(&search));
    Ok(files)
}

/// `search-index.json`: every entry listed on a section index, its URL under the base path
/// (scripts use it as it is).
fn search_index(items: &[IndexItem]) -> OutFile {
    let json = serde_json::to_string(items).expect("index items serialise");
    // `<` and `>` occur only inside JSON strings, where \u003c is the same text: no title
    // can read as a tag to anything that sniffs or embeds the file.
    let json = json
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .into_bytes();
    OutFile {
        path: "search-index.json".into(),
        bytes: json,
    }
}

/// sitemap.xml: the home page, section indexes and every published entry, absolute URLs
/// (for a site with a public address).
pub(crate) fn sitemap(site: Urls<'_>, pages: &[Page], intros: &[Page]) -> OutFile {
    use super::generated::updated;
    // Each URL with the day its page last changed: an entry's own date; an index's, the
    // newest of the pages it lists (the home page lists them all).
    let mut urls: std::collections::BTreeMap<String, Option<jiff::civil::Date>> =
        [("/".to_string(), None)].into();
    urls.extend(
        sections(pages, intros)
            .into_iter()
            .map(|s| (format!("/{s}/"), None)),
    );
    for p in pages.iter().chain(intros) {
        let date = updated(&p.entry);
        let section = match p.entry.section.as_str() {
            "" => p.entry.slug.as_str(),
            s => s,
        };
        for index in [p.entry.url.clone(), "/".to_string(), format!("/{section}/")] {
            let d = urls.entry(index).or_insert(None);
            *d = (*d).max(date);
        }
    }
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for (u, date) in urls {
        let loc = crate::html::escape(&site.address(&u));
        match date {
            Some(d) => xml.push_str(&format!(
                "  <url><loc>{loc}</loc><lastmod>{d}</lastmod></url>\n"
            )),
            None => xml.push_str(&format!("  <url><loc>{loc}</loc></url>\n")),
        }
    }
    xml.push_str("</urlset>\n");
    OutFile {
        path: "sitemap.xml".into(),
        bytes: xml.into_bytes(),
    }
}

/// A section index's description when its introduction has no summary: the section, the
/// site, how many entries, and the first of them by term, within the 160 characters a
/// search result shows (`Glossary of CUDA 101: 8 entries, from Bank conflict, Memory
/// coalescing, Shared memory…`).
fn section_description(title: &str, site: &str, items: &[(Option<String>, IndexItem)]) -> String {
    let mut terms: Vec<&str> = items.iter().map(|(_, i)| i.term.as_str()).collect();
    terms.sort_unstable_by_key(|t| t.to_lowercase());
    let count = match items.len() {
        1 => "1 entry".to_string(),
        n => format!("{n} entries"),
    };
    let mut out = format!("{title} of {site}: {count}");
    for (n, term) in terms.iter().enumerate() {
        let sep = if n == 0 { ", from " } else { ", " };
        if out.chars().count() + sep.len() + term.chars().count() > 155 {
            out.push('…');
            return out;
        }
        out.push_str(sep);
        out.push_str(term);
    }
    out.push('.');
    out
}
