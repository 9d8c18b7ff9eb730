//! The output folder's layout: the path each page and generated file is written to,
//! relative to the output root, and the files copied in. The check stage plans it (two
//! outputs at one path are refused), render and write follow it; what a link says is the
//! base path's business (`render::urls`). A leaf of `site`: imports none of its stages.
use std::path::{Path, PathBuf};

/// `/glossary/warp/` → `glossary/warp/index.html`.
pub(crate) fn page_path(url: &str) -> PathBuf {
    Path::new(url.trim_matches('/')).join("index.html")
}

/// File name of the social card written beside a page that has a diagram.
pub(crate) const DIAGRAM_PNG: &str = "diagram.png";

/// File name of the full-size SVG written beside a page that has a diagram.
pub(crate) const DIAGRAM_SVG: &str = "diagram.svg";

/// File name of the site's own card, at the root: the `og:image` of pages without a
/// diagram.
pub(crate) const SITE_CARD_PNG: &str = "card.png";

/// Written into every output folder, so that a later build knows it may replace it.
pub(crate) const MARKER: &str = ".coursegen-output";

/// Files the build may generate at the site root whatever its options (a sitemap only with
/// --base-url, but `check` must find the clash without it).
pub(crate) const GENERATED: &[&str] = &[
    "sitemap.xml",
    "search-index.json",
    "404.html",
    "feed.xml",
    "llms.txt",
    "robots.txt",
    SITE_CARD_PNG,
    MARKER,
];

/// Where the static files come from (relative path in the output, source: a file, or one
/// of the built-in theme).
pub(crate) type Copies = Vec<(PathBuf, crate::theme::Source)>;
