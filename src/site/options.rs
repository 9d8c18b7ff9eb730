//! What a build is asked to do (`BuildOptions`) and what it reports (`Report`): the
//! types every stage and `coursegen serve` share. A leaf: uses only `config` and
//! `content`'s diagnostics.
use std::path::PathBuf;

use crate::config::Config;
use crate::content::Diagnostic;

/// How to build.
#[derive(Debug, Clone)]
pub(crate) struct BuildOptions {
    /// Preview: drafts rendered with a banner and `noindex`.
    pub(crate) drafts: bool,
    /// Stale or missing measurement records are errors.
    pub(crate) strict: bool,
    /// Highlight fenced code.
    pub(crate) highlight: bool,
    /// Write the search index (`pagefind/`).
    pub(crate) search: bool,
    /// Output folder; `None` for `check` (nothing written).
    pub(crate) out: Option<PathBuf>,
    /// The site config (`coursegen.toml` with the command line's overrides): title,
    /// base path, edit links, external link prefixes.
    pub(crate) config: Config,
    /// A review older than this many days has expired (a warning; an error under `strict`).
    pub(crate) review_max_age_days: u32,
    /// The build's time, Unix seconds: `SOURCE_DATE_EPOCH`, or a publish build's commit
    /// time (`cmd::build_epoch`). Today for the editorial rule, the moment key validity is
    /// judged at, and what the provenance records; `None` reads the clock.
    pub(crate) epoch: Option<i64>,
    /// The git revision whose allowed-signers file and `[review]` settings are trusted
    /// (`--trusted-ref`); `None` trusts the working tree's.
    pub(crate) trusted_ref: Option<String>,
    /// Folder of the persistent build cache (see `build_cache`); `None` renders every
    /// diagram afresh.
    pub(crate) cache_dir: Option<PathBuf>,
    /// Apply the signature rule (the allowed-signers file). Off only for the check of
    /// `coursegen sign --publish`, which verifies the signature it makes itself, before the
    /// author's signature can exist.
    pub(crate) check_signatures: bool,
}

/// What a build did, for the summary.
#[derive(Debug, Default)]
pub(crate) struct Report {
    /// Pages written (or that would be).
    pub(crate) pages: usize,
    /// Entries published.
    pub(crate) published: usize,
    /// Drafts rendered (preview) or left out (publish), with their reasons.
    pub(crate) drafts: Vec<(PathBuf, String)>,
    /// Warnings that did not stop the build.
    pub(crate) warnings: Vec<Diagnostic>,
    /// Entry files loaded (drafts and introductions included).
    pub(crate) entries: usize,
    /// How long each stage took (`build --verbose`).
    pub(crate) timings: Timings,
    /// What the build cache held and what was made afresh; `None` with the cache off or
    /// when nothing was rendered (`check`).
    pub(crate) cache: Option<CacheCounts>,
}

/// How long each stage of a build took.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Timings {
    /// Walking content/ and parsing every entry.
    pub(crate) load: std::time::Duration,
    /// The check stage: the editorial rule, links, diagrams, records, bindings; in a
    /// build without search, with every entry page rendered and staged as the check passed it.
    pub(crate) check: std::time::Duration,
    /// The pages (with search), the files made from the whole site, the search index, and
    /// the output swap.
    pub(crate) write: std::time::Duration,
}

/// Build-cache entries by kind: reused from the cache, or made and stored.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CacheCounts {
    /// Rasterised diagrams and cards found in the cache.
    pub(crate) images_reused: usize,
    /// Rasterised afresh.
    pub(crate) images_made: usize,
    /// Search-index shards found in the cache.
    pub(crate) shards_reused: usize,
    /// Indexed afresh.
    pub(crate) shards_made: usize,
}

impl BuildOptions {
    /// The date (UTC) the editorial rule takes as today: [`Self::epoch`]'s, or the clock's.
    pub(crate) fn today(&self) -> jiff::civil::Date {
        let at = (self.epoch)
            .and_then(|s| jiff::Timestamp::from_second(s).ok())
            .unwrap_or_else(jiff::Timestamp::now);
        at.to_zoned_datetime(jiff::tz::TimeZone::UTC).date()
    }

    /// The moment (Unix seconds) signing keys' validity is judged at: [`Self::epoch`], or now.
    pub(crate) fn now(&self) -> i64 {
        (self.epoch).unwrap_or_else(|| jiff::Timestamp::now().as_second())
    }

    /// The publish build with a known address lists its pages in sitemap.xml; the preview,
    /// whose drafts are `noindex`, has none.
    pub(crate) fn writes_sitemap(&self) -> bool {
        self.config.base_url.is_some() && !self.drafts
    }
}
