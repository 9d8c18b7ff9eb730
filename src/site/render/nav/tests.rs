//! Tests of the reading order and of what pages show of it, against random edits.
use super::*;
use crate::content::Entry;
use crate::content::load::{DAYS, DEFAULT_GLOSSARY};
use crate::site::urls::Urls;
use crate::templates::Prepared;

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
