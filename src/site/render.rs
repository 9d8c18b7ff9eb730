//! The render stage: a checked page becomes its output files (HTML through the templates,
//! the diagram's social card). Pure — reads nothing, writes nothing — so pages render in parallel
//! and the write stage stores each as soon as it is done.
use std::path::Path;

use super::BuildOptions;
use super::build_cache::BuildCache;
use super::check::CheckedSite;
use super::diagrams::{self, DIAGRAM_PNG, DIAGRAM_SVG, SITE_CARD_PNG};
use super::output::OutFile;
use super::page::Page;
use super::pages::{self, DiagramCtx, EntryCtx, SiteInfo};
use super::plan::page_path;
use super::urls::Urls;
use super::{generated, search};
use crate::content::{self, Entry};
use crate::templates::{TemplateError, Templates};

/// Why a checked page could not be rendered (templates or the rasteriser, not content).
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A template failed on a page.
    #[error("{file}: {error}")]
    Template {
        /// The entry being rendered.
        file: std::path::PathBuf,
        /// The template's error.
        error: TemplateError,
    },
    /// The diagram could not be rasterised.
    #[error("{file}: cannot rasterise the diagram: {error}")]
    Raster {
        /// The entry being rendered.
        file: std::path::PathBuf,
        /// The rasteriser's error.
        error: crate::bank::RasterError,
    },
}

/// What every page render shares.
#[derive(Clone, Copy)]
pub(crate) struct RenderCtx<'a> {
    /// Site-wide values.
    pub(crate) info: &'a SiteInfo,
    /// The compiled templates.
    pub(crate) templates: &'a Templates,
    /// The checked site.
    pub(crate) checked: &'a CheckedSite,
    /// Build options.
    pub(crate) opts: &'a BuildOptions,
    /// The reading order (sidebar, breadcrumbs, previous/next).
    pub(crate) nav: &'a super::nav::Nav,
    /// Where diagram images rendered by earlier builds are kept.
    pub(crate) build_cache: &'a BuildCache,
}

/// The search record of a page the build writes: published pages, and drafts in the
/// preview (marked). `None` when the build writes no search index.
pub(crate) fn record(p: &Page, rc: RenderCtx<'_>) -> Option<search::Record> {
    let RenderCtx {
        templates,
        opts,
        nav,
        ..
    } = rc;
    if !opts.search || opts.out.is_none() {
        return None;
    }
    let (entry, m) = (&*p.entry, &p.entry.meta);
    let heading = m.term.as_deref().unwrap_or(&m.title);
    let url = super::urls::href(templates.root(), &entry.url);
    let summary = m.summary.as_deref().unwrap_or("");
    let text = search::text_of(&p.bodies.main);
    let parts = [heading, m.title.as_str(), summary, text.as_str()];
    let section_title = nav.names().title(&entry.section);
    let mut r = search::Record::new(url, heading, &section_title, &parts);
    r.draft = p.draft_reason.is_some();
    Some(r)
}

/// Renders one entry page: its HTML, and the PNG and full-size SVG of its diagram and the
/// Markdown copy (published pages) when writing files.
pub(crate) fn page(p: &Page, rc: RenderCtx<'_>) -> Result<Vec<OutFile>, RenderError> {
    let RenderCtx {
        info,
        templates,
        checked,
        opts,
        nav,
        build_cache,
    } = rc;
    let entry = &*p.entry;
    let urls = Urls::new(&opts.config);
    let content =
        |html: &Option<String>| html.as_deref().map(|h| urls.content_html(h).into_owned());
    let mut files = Vec::new();
    let diagram = match &p.diagram {
        None => None,
        Some(d) => {
            let png = if opts.out.is_some() {
                let kicker = format!("{} · {}", info.title, nav.names().title(&entry.section));
                let bytes =
                    diagrams::card_of(&d.svg, entry, &kicker, build_cache).map_err(|error| {
                        RenderError::Raster {
                            file: entry.file.clone(),
                            error,
                        }
                    })?;
                files.push(OutFile {
                    path: Path::new(entry.url.trim_matches('/')).join(DIAGRAM_PNG),
                    bytes,
                });
                Some(DIAGRAM_PNG.to_string())
            } else {
                None
            };
            // The same drawing on its own, which a tap on the inline one opens full size.
            let full = opts.out.is_some().then(|| {
                files.push(OutFile {
                    path: Path::new(entry.url.trim_matches('/')).join(DIAGRAM_SVG),
                    bytes: d.svg.clone().into_bytes(),
                });
                DIAGRAM_SVG.to_string()
            });
            let alt = entry.meta.diagram.as_ref().map(|m| m.alt.clone());
            Some(DiagramCtx {
                svg_html: crate::bank::themed(&d.svg),
                alt: alt.unwrap_or_default(),
                preset: d.preset.to_string(),
                prose_html: content(&p.bodies.diagram).unwrap_or_default(),
                png,
                full,
            })
        }
    };
    let measured = checked
        .measurements
        .section(entry, content(&p.bodies.measured));
    let m = &entry.meta;
    let lookup = &checked.lookup;
    let term_of = |e: &Entry| e.meta.term.clone().unwrap_or_else(|| e.meta.title.clone());
    let published = p.draft_reason.is_none() && opts.out.is_some();
    let section_title = nav.names().title(&entry.section);
    let byline = pages::byline(entry);
    if published {
        // From the text the check stage parsed: links moved under the base path where it
        // found them, then the bound values written in.
        let source = &p.bodies.source;
        let text = source.bound.as_ref().map_or(&entry.body, |b| &b.markdown);
        let marked = generated::mark_included(text, &source.included, &source.site_paths);
        let moved = urls.content_markdown(&marked.text, &marked.site_paths);
        let body = match &source.bound {
            Some(bound) => bound.text_of(&moved),
            None => moved.into_owned(),
        };
        let body = generated::fill_included(body, &marked.code);
        let shown = generated::Shown {
            measured: measured.as_ref(),
            diagram: diagram
                .as_ref()
                .map(|d| (d.alt.as_str(), d.full.as_deref())),
        };
        files.push(OutFile {
            path: Path::new(entry.url.trim_matches('/')).join(generated::MARKDOWN),
            bytes: generated::markdown_copy(entry, &body, shown, &byline).into_bytes(),
        });
    }
    let ctx = EntryCtx {
        site: info,
        url: &entry.url,
        section: &entry.section,
        section_url: format!("/{}/", entry.section),
        section_title,
        title: &m.title,
        term: m.term.as_deref(),
        category: m.category.as_deref(),
        cc: m.cc.as_deref(),
        summary: m.summary.as_deref(),
        body_html: urls.content_html(&p.bodies.main),
        og_image: match diagram.as_ref().and_then(|d| d.png.as_ref()) {
            Some(png) => {
                let path = format!("{}{png}", entry.url);
                Some(urls.absolute(&path).unwrap_or_else(|| urls.page(&path)))
            }
            // The site's card, which a build with an address writes (`site::build`).
            None if opts.out.is_some() => urls.absolute(&format!("/{SITE_CARD_PNG}")),
            None => None,
        },
        edit_url: opts.config.edit_link(&entry.file),
        measured,
        diagram,
        related: m
            .related
            .iter()
            .map(|s| {
                pages::link(
                    lookup,
                    content::load::GLOSSARY,
                    s,
                    templates.root(),
                    term_of,
                )
            })
            .collect(),
        appears_in: m
            .appears_in
            .iter()
            .map(|s| {
                pages::link(lookup, content::load::DAYS, s, templates.root(), |e| {
                    e.meta.title.clone()
                })
            })
            .collect(),
        sources: &m.sources,
        byline,
        draft_reason: p.draft_reason.clone(),
        nav: nav.page(&entry.url, &m.title),
        markdown: published.then(|| generated::MARKDOWN.to_string()),
    };
    let html = templates
        .render("entry.html", &ctx)
        .map_err(|error| RenderError::Template {
            file: entry.file.clone(),
            error,
        })?;
    files.push(OutFile {
        path: page_path(&entry.url),
        bytes: html.into_bytes(),
    });
    Ok(files)
}
