//! The render stage: a checked page becomes its output files (HTML through the templates,
//! the diagram's social card). Pure — reads nothing, writes nothing — so pages render in parallel
//! and the write stage stores each as soon as it is done.
use std::path::Path;

use self::build_cache::BuildCache;
use self::nav::{Nav, SectionNames};
use self::pages::{DiagramCtx, EntryCtx, SiteInfo};
use crate::content::{self, Diagnostic, Entry};
use crate::site::check::diagrams::Drawn;
use crate::site::check::measurements::MeasuredCtx;
use crate::site::check::page::Page;
use crate::site::check::{CheckedSite, Facts};
use crate::site::layout::{DIAGRAM_PNG, DIAGRAM_SVG, SITE_CARD_PNG, page_path};
use crate::site::options::{BuildOptions, CacheCounts};
use crate::site::urls::Urls;
use crate::site::write::OutFile;
use crate::templates::{TemplateError, Templates};

pub(crate) mod build_cache;
mod cards;
pub(crate) mod generated;
mod indexes;
pub(crate) mod nav;
pub(crate) mod pages;
pub(crate) mod search;

/// Why a checked page could not be rendered (templates or the rasteriser, not content).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RenderError {
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
        error: crate::diagram::raster::RasterError,
    },
    /// A template failed on a page made from the whole site (an index, the feed, 404).
    #[error(transparent)]
    SiteTemplate(#[from] TemplateError),
}

/// The render stage's one entry, for `build` and `serve` alike: made from what every page
/// renders with, the templates, the options and the reading order, it renders a page, a
/// page's search record and the files made from the whole checked site.
pub(crate) struct Renderer<'a> {
    /// Site-wide values.
    info: SiteInfo,
    /// The compiled templates.
    templates: &'a Templates,
    /// What every page renders with.
    facts: &'a Facts,
    /// Build options.
    opts: &'a BuildOptions,
    /// The reading order (sidebar, breadcrumbs, previous/next).
    nav: &'a Nav,
    /// Where the site lives: every link and address is made by it.
    urls: Urls<'a>,
    /// Where diagram images and search shards rendered by earlier builds are kept.
    build_cache: BuildCache,
}

impl<'a> Renderer<'a> {
    /// A renderer for one build (or one rebuild of `serve`).
    pub(crate) fn new(
        facts: &'a Facts,
        templates: &'a Templates,
        opts: &'a BuildOptions,
        nav: &'a Nav,
    ) -> Self {
        let urls = Urls::new(&opts.config);
        Renderer {
            info: SiteInfo::new(
                &opts.config,
                opts.drafts,
                facts.home_html.clone(),
                (facts.footer_html.as_deref()).map(|f| urls.content_html(f).into_owned()),
            ),
            templates,
            facts,
            opts,
            nav,
            urls,
            build_cache: BuildCache::new(opts.cache_dir.clone()),
        }
    }

    /// The reading order of the entry pages of a site (each with whether it is a draft),
    /// which a renderer is made with (`serve` keeps the last one to see what a change
    /// moved).
    pub(crate) fn nav_of<'e>(
        pages: impl IntoIterator<Item = (&'e Entry, bool)>,
        opts: &BuildOptions,
    ) -> Nav {
        Nav::new(
            pages,
            Urls::new(&opts.config),
            SectionNames::new(&opts.config.sections, &opts.config.glossary_folder),
        )
    }

    /// Renders one entry page: its HTML, the PNG and full-size SVG of its diagram, and the
    /// Markdown copy (published pages).
    pub(crate) fn page(&self, p: &Page) -> Result<Vec<OutFile>, RenderError> {
        let (entry, urls) = (&*p.entry, self.urls);
        let mut files = Vec::new();
        let diagram = match &p.diagram {
            Some(d) => Some(diagram_section(p, d, self, &mut files)?),
            None => None,
        };
        let prose = (p.bodies.measured.as_deref()).map(|h| urls.content_html(h).into_owned());
        let measured = self.facts.measurements.section(entry, prose);
        let byline = pages::byline(entry);
        if p.draft_reason.is_none() {
            let (m, d) = (measured.as_ref(), diagram.as_ref());
            files.push(markdown_copy(p, urls, m, d, &byline));
        }
        let ctx = entry_ctx(p, self, measured, diagram, byline);
        let html = self.templates.render("entry.html", &ctx, urls.root());
        let html = html.map_err(|error| RenderError::Template {
            file: entry.file.clone(),
            error,
        })?;
        files.push(OutFile {
            path: page_path(&entry.url),
            bytes: html.into_bytes(),
        });
        Ok(files)
    }

    /// The search record of a page: published pages, and drafts in the preview (marked).
    /// `None` when the build writes no search index.
    pub(crate) fn record(&self, p: &Page) -> Option<search::Record> {
        if !self.opts.search {
            return None;
        }
        let (entry, m) = (&*p.entry, &p.entry.meta);
        let heading = m.term.as_deref().unwrap_or(&m.title);
        let url = self.urls.page(&entry.url);
        let summary = m.summary.as_deref().unwrap_or("");
        let text = search::text_of(&p.bodies.main);
        let parts = [heading, m.title.as_str(), summary, text.as_str()];
        let section_title = self.nav.names().title(&entry.section);
        let mut r = search::Record::new(url, heading, &section_title, &parts);
        r.draft = p.draft_reason.is_some();
        Some(r)
    }

    /// The search index of the records, through the build cache (nothing without search).
    pub(crate) fn search_index(
        &self,
        records: Vec<search::Record>,
    ) -> Result<Vec<OutFile>, search::SearchError> {
        match self.opts.search {
            true => search::index(records, &self.build_cache),
            false => Ok(Vec::new()),
        }
    }

    /// The files made from the whole site rather than one page: home page and section
    /// indexes (with `search-index.json`), the sitemap (publish build with an address),
    /// `404.html` and the search page, `feed.xml`, `robots.txt` and `llms.txt`, and the
    /// site's card (with an address: pages without a diagram name it as their og:image).
    pub(crate) fn site_files(&self, checked: &CheckedSite) -> Result<Vec<OutFile>, RenderError> {
        let (info, templates, nav, opts) = (&self.info, self.templates, self.nav, self.opts);
        let urls = self.urls;
        let mut files =
            indexes::indexes(&checked.pages, &checked.intros, info, templates, nav, urls)?;
        if opts.config.base_url.is_some() && opts.writes_sitemap() {
            files.push(indexes::sitemap(urls, &checked.pages, &checked.intros));
        }
        files.extend(generated::plain_pages(info, templates, nav, urls)?);
        let published: Vec<&Entry> = (checked.pages.iter())
            .filter(|p| p.draft_reason.is_none())
            .map(|p| &*p.entry)
            .collect();
        files.push(generated::feed(&published, info, urls, opts.today()));
        files.push(generated::robots_txt(opts, urls));
        files.push(generated::llms_txt(&published, info, nav, urls));
        Ok(files)
    }

    /// The site's card (`card.png`), written only with an address: pages without a diagram
    /// name it as their og:image, which only an absolute address can.
    pub(crate) fn site_card(&self) -> Result<Option<OutFile>, RenderError> {
        if self.opts.config.base_url.is_none() {
            return Ok(None);
        }
        let bytes = cards::site_card(&self.info.title, &self.build_cache).map_err(|error| {
            RenderError::Raster {
                file: SITE_CARD_PNG.into(),
                error,
            }
        })?;
        Ok(Some(OutFile {
            path: SITE_CARD_PNG.into(),
            bytes,
        }))
    }

    /// What the build cache could not keep, and what it held and made.
    pub(crate) fn cache_report(&self) -> (Option<Diagnostic>, Option<CacheCounts>) {
        (self.build_cache.warning(), self.build_cache.counts())
    }
}

/// The diagram section of page `p`: its card (PNG) and its drawing on its own (SVG),
/// pushed onto `files`, and what the template shows.
fn diagram_section(
    p: &Page,
    d: &Drawn,
    r: &Renderer<'_>,
    files: &mut Vec<OutFile>,
) -> Result<DiagramCtx, RenderError> {
    let entry = &*p.entry;
    let kicker = format!("{} · {}", r.info.title, r.nav.names().title(&entry.section));
    let bytes = cards::card_of(&d.svg, entry, &kicker, &r.build_cache).map_err(|error| {
        RenderError::Raster {
            file: entry.file.clone(),
            error,
        }
    })?;
    let folder = Path::new(entry.url.trim_matches('/'));
    files.push(OutFile {
        path: folder.join(DIAGRAM_PNG),
        bytes,
    });
    // The same drawing on its own, which a tap on the inline one opens full size.
    files.push(OutFile {
        path: folder.join(DIAGRAM_SVG),
        bytes: d.svg.clone().into_bytes(),
    });
    let alt = entry.meta.diagram.as_ref().map(|m| m.alt.clone());
    let prose = (p.bodies.diagram.as_deref()).map(|h| r.urls.content_html(h).into_owned());
    Ok(DiagramCtx {
        svg_html: named_by_title(crate::diagram::svg::themed(&d.svg)),
        alt: alt.unwrap_or_default(),
        preset: d.preset.to_string(),
        prose_html: prose.unwrap_or_default(),
        png: Some(DIAGRAM_PNG.to_string()),
        full: Some(DIAGRAM_SVG.to_string()),
    })
}

/// The Markdown copy of a published page (`index.md`), from the text the check stage
/// parsed: links moved under the base path where it found them, then the bound values
/// written in.
fn markdown_copy(
    p: &Page,
    urls: Urls<'_>,
    measured: Option<&MeasuredCtx>,
    diagram: Option<&DiagramCtx>,
    byline: &pages::BylineCtx,
) -> OutFile {
    let (entry, source) = (&*p.entry, &p.bodies.source);
    let text = source.bound.as_ref().map_or(&entry.body, |b| &b.markdown);
    let marked = generated::mark_included(text, &source.included, &source.site_paths);
    let moved = urls.content_markdown(&marked.text, &marked.site_paths);
    let body = match &source.bound {
        Some(bound) => bound.text_of(&moved),
        None => moved.into_owned(),
    };
    let body = generated::fill_included(body, &marked.code);
    let shown = generated::Shown {
        measured,
        diagram: diagram.map(|d| (d.alt.as_str(), d.full.as_deref())),
    };
    OutFile {
        path: Path::new(entry.url.trim_matches('/')).join(generated::MARKDOWN),
        bytes: generated::markdown_copy(entry, &body, shown, byline).into_bytes(),
    }
}

/// What the entry template shows of page `p`.
fn entry_ctx<'p>(
    p: &'p Page,
    r: &'p Renderer<'_>,
    measured: Option<MeasuredCtx>,
    diagram: Option<DiagramCtx>,
    byline: pages::BylineCtx,
) -> EntryCtx<'p> {
    let (entry, urls) = (&*p.entry, r.urls);
    let m = &entry.meta;
    let lookup = &r.facts.lookup;
    let term_of = |e: &Entry| e.meta.term.clone().unwrap_or_else(|| e.meta.title.clone());
    let shown = [
        ("measured", "Measured", measured.is_some()),
        ("diagram", "Diagram", diagram.is_some()),
        ("related-terms", "Related terms", !m.related.is_empty()),
        (
            "where-you-meet-this",
            "Where you meet this",
            !m.appears_in.is_empty(),
        ),
        ("sources", "Sources", !m.sources.is_empty()),
    ];
    let sections: Vec<_> = (shown.into_iter())
        .filter_map(|(id, text, shown)| shown.then_some((id, text)))
        .collect();
    EntryCtx {
        site: &r.info,
        url: &entry.url,
        section: &entry.section,
        section_url: format!("/{}/", entry.section),
        section_title: r.nav.names().title(&entry.section),
        title: &m.title,
        term: m.term.as_deref(),
        category: m.category.as_deref(),
        cc: m.cc.as_deref(),
        summary: m.summary.as_deref(),
        body_html: urls.content_html(&p.bodies.main),
        og_image: match diagram.as_ref().and_then(|d| d.png.as_ref()) {
            Some(png) => Some(urls.address(&format!("{}{png}", entry.url))),
            // The site's card, which a build with an address writes (`Renderer::site_card`).
            None => urls.absolute(&format!("/{SITE_CARD_PNG}")),
        },
        edit_url: r.opts.config.edit_link(&entry.file),
        contents: pages::contents(&p.bodies.headings, &sections),
        measured,
        diagram,
        related: (m.related.iter())
            .map(|s| pages::link(lookup, &r.opts.config.glossary_folder, s, urls, term_of))
            .collect(),
        appears_in: (m.appears_in.iter())
            .map(|s| {
                pages::link(lookup, content::load::DAYS, s, urls, |e| {
                    e.meta.title.clone()
                })
            })
            .collect(),
        sources: &m.sources,
        byline,
        draft_reason: p.draft_reason.clone(),
        nav: r.nav.page_for_templates(&entry.url, &m.title),
        markdown: (p.draft_reason.is_none()).then(|| generated::MARKDOWN.to_string()),
    }
}

/// The diagram named by its title alone (`aria-labelledby="…-title …-desc"` becomes
/// `"…-title"`) and without its `<desc>`: its description is the alt text the caption
/// prints, and read from the picture (which a browser describes by its `<desc>`), the link
/// around it and the caption, a screen reader said it three times. `diagram.svg`, opened
/// alone, keeps both.
fn named_by_title(svg: String) -> String {
    let key = "aria-labelledby=\"";
    let Some(start) = svg.find(key).map(|i| i + key.len()) else {
        return svg;
    };
    let Some(end) = svg[start..].find('"').map(|e| start + e) else {
        return svg;
    };
    let Some((title, desc)) = svg[start..end].split_once(' ') else {
        return svg;
    };
    if !(title.ends_with("-title") && desc.ends_with("-desc")) {
        return svg;
    }
    let named = format!("{}{}{}", &svg[..start], title, &svg[end..]);
    let open = format!("<desc id=\"{desc}\">");
    match named
        .find(&open)
        .and_then(|i| Some((i, i + named[i..].find("</desc>")? + 7)))
    {
        Some((from, to)) => {
            let to = to + usize::from(named[to..].starts_with('\n'));
            format!("{}{}", &named[..from], &named[to..])
        }
        None => named,
    }
}
