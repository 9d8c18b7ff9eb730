//! `coursegen.toml`, the optional site config: title, public address (which may carry a
//! sub-path), repository for edit links, language, review expiry, and site-absolute paths
//! that live outside the site. Parsed with the toml crate into `raw::RawConfig` (what the
//! file says, each key described where it is declared; unknown keys refused), then checked
//! value by value (`values`) into `Config` (what the build trusts).
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;

use self::raw::RawConfig;
use crate::content::Diagnostic;
use crate::editorial::policy::Required;

pub(crate) mod raw;
mod values;

pub(crate) use self::values::Prose;

/// The config file's name at the site root.
pub(crate) const FILE: &str = "coursegen.toml";

/// The site title when the config does not name one.
pub(crate) const DEFAULT_TITLE: &str = "Untitled course";

/// The site config the build trusts: checked, normalised, defaults filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Config {
    /// Shown in the header and every `<title>`.
    pub(crate) title: String,
    /// One sentence about the course: the home page's lede and meta description, and the
    /// summary line of llms.txt.
    pub(crate) description: Option<String>,
    /// The home page's text, in Markdown (rendered as entries are, raw HTML cleaned).
    pub(crate) home: Option<Prose>,
    /// `footer`: the sentence under every page, in Markdown (`None`: coursegen's own, about
    /// diagrams and measurements).
    pub(crate) footer: Option<Prose>,
    /// `[glossary] required`: the fields a published glossary entry must fill in.
    pub(crate) glossary_required: Required,
    /// `[glossary] folder`: the section under `content/` that is the glossary (whose
    /// entries `related:` names, grouped by category, with the required fields).
    pub(crate) glossary_folder: String,
    /// `[new]`: what `coursegen new` writes into a new glossary entry.
    pub(crate) new_entry: crate::content::scaffold::Defaults,
    /// Public address, ending in `/` (`https://example.org/course/`), when known.
    pub(crate) base_url: Option<String>,
    /// The base path of every site-absolute URL the site emits: `/`, or `/course/`.
    pub(crate) root: String,
    /// The course's source repository, linked from the footer.
    pub(crate) repository: Option<String>,
    /// Prefix that a source file's path (relative to the site root) is appended to for
    /// its "Edit this page" link; ends in `/`.
    pub(crate) edit_url: Option<String>,
    /// `<html lang>`, a BCP 47 tag.
    pub(crate) language: String,
    /// A review older than this many days has expired (`None`: the build's default).
    pub(crate) review_max_age_days: Option<u32>,
    /// Site-absolute path prefixes outside this site (`/docs`), without a trailing `/`:
    /// neither link-checked nor moved under the base path.
    pub(crate) external_prefixes: Vec<String>,
    /// `[review] allowed_signers`: the allowed-signers file, relative to the site root.
    pub(crate) allowed_signers: PathBuf,
    /// `[review] require_signatures`: a published entry needs both SSH signatures.
    pub(crate) require_signatures: bool,
    /// `sections`: the sections in reading order, each with the name navigation shows.
    /// Sections not listed follow them (days, then glossary, then the others by name).
    pub(crate) sections: Vec<SectionConfig>,
    /// The config file as problems name it (`coursegen.toml`, or `--config`'s path).
    pub(crate) file: PathBuf,
}

/// One section as `sections` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SectionConfig {
    /// Its folder under `content/` (`days`).
    pub(crate) name: String,
    /// What the sidebar, breadcrumbs, search results and cards call it (default: from the
    /// folder name, `days` → "Days").
    pub(crate) title: Option<String>,
    /// The config's line that lists it.
    pub(crate) line: usize,
}

/// Where the allowed-signers file is unless `[review] allowed_signers` says otherwise.
pub(crate) const DEFAULT_ALLOWED_SIGNERS: &str = ".coursegen/allowed_signers";

impl Default for Config {
    fn default() -> Self {
        Config {
            title: DEFAULT_TITLE.into(),
            description: None,
            home: None,
            footer: None,
            glossary_required: Required::ALL,
            glossary_folder: crate::content::load::DEFAULT_GLOSSARY.into(),
            new_entry: crate::content::scaffold::Defaults::default(),
            base_url: None,
            root: "/".into(),
            repository: None,
            edit_url: None,
            language: "en".into(),
            review_max_age_days: None,
            external_prefixes: Vec::new(),
            allowed_signers: PathBuf::from(DEFAULT_ALLOWED_SIGNERS),
            require_signatures: false,
            sections: Vec::new(),
            file: PathBuf::from(FILE),
        }
    }
}

/// Why the config could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    /// `--config FILE` names a file that cannot be read (a missing default file is fine).
    #[error("cannot read the config {path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The file has problems: every one of them, each with its line.
    #[error("{}; nothing was written", crate::content::Diagnostics(.0.clone()))]
    Invalid(Vec<Diagnostic>),
}

impl Config {
    /// Reads `explicit` (which must exist) or else `<root>/coursegen.toml` (defaults when absent).
    pub(crate) fn load(root: &Path, explicit: Option<&Path>) -> Result<Config, ConfigError> {
        let path = explicit.map_or_else(|| root.join(FILE), Path::to_path_buf);
        let shown = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        let refuse = |why: String| {
            ConfigError::Invalid(vec![
                Diagnostic::new(&shown, 0, why).help("write the config as a file of its own"),
            ])
        };
        // The site's own file is judged by what it resolves to, before a byte is read
        // (a link to a token would be quoted in a parse error); `--config` is the user's.
        if explicit.is_none() && std::fs::symlink_metadata(&path).is_ok() {
            let site = crate::content::admit::SiteRoot::new(root);
            site.admit(&path, crate::content::admit::Purpose::Config)
                .map_err(|why| refuse(why.to_string()))?;
        }
        if let Ok(meta) = std::fs::metadata(&path) {
            if !meta.is_file() {
                return Err(refuse(
                    "is not a regular file (a FIFO, device or socket)".into(),
                ));
            }
            if meta.len() > MAX_FILE_BYTES {
                return Err(refuse(format!(
                    "is {} KiB; a site config is at most {} KiB",
                    meta.len() >> 10,
                    MAX_FILE_BYTES >> 10
                )));
            }
        }
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if explicit.is_none() && e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Config::default());
            }
            Err(error) => return Err(ConfigError::Io { path, error }),
        };
        Config::parse(&text, &shown).map_err(ConfigError::Invalid)
    }

    /// Parses and checks the text of a config file; `file` names it in diagnostics.
    pub(crate) fn parse(text: &str, file: &Path) -> Result<Config, Vec<Diagnostic>> {
        let mut checks = Checks {
            text,
            file,
            problems: Vec::new(),
        };
        let unknown = raw::unknown_keys(text, &|span, key, m| checks.at(span, key, m));
        if !unknown.is_empty() {
            return Err(unknown);
        }
        let raw = raw::read(text, file)?;
        let mut config = Config {
            file: file.to_path_buf(),
            ..Config::default()
        };
        checks.sections(&raw.sections, &mut config);
        checks.site(&raw, &mut config);
        checks.glossary_and_new(&raw, &mut config);
        checks.review_max_age(&raw.review_max_age_days, &mut config);
        match checks.problems.is_empty() {
            true => Ok(config),
            false => Err(checks.problems),
        }
    }

    /// Sets the public address from `--base-url`, which overrides the config's.
    pub(crate) fn override_base_url(&mut self, url: &str) -> Result<(), String> {
        let url = values::base_url(url).map_err(|m| format!("--base-url: {m}"))?;
        self.set_checked_base_url(url);
        Ok(())
    }

    /// Builds for the domain root (what `serve` does: it always serves at `/`).
    pub(crate) fn at_domain_root(mut self) -> Self {
        self.base_url = None;
        self.root = "/".into();
        self
    }

    fn set_checked_base_url(&mut self, url: String) {
        let path_start = url.find("://").map_or(0, |i| i + 3);
        self.root = url[path_start..]
            .find('/')
            .map_or_else(|| "/".into(), |i| url[path_start + i..].to_string());
        self.base_url = Some(url);
    }

    /// The "Edit this page" link of a source file (a path relative to the site root).
    pub(crate) fn edit_link(&self, file: &Path) -> Option<String> {
        let prefix = self.edit_url.as_deref()?;
        let rel = file.to_string_lossy().replace('\\', "/");
        let encoded: Vec<String> = rel.split('/').map(values::percent_encode).collect();
        Some(format!("{prefix}{}", encoded.join("/")))
    }

    /// Whether a site-absolute path lives outside this site (`links.external_prefixes`).
    pub(crate) fn is_external(&self, path: &str) -> bool {
        self.external_prefixes.iter().any(|p| {
            path.strip_prefix(p.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '?', '#']))
        })
    }
}

/// A config file's values checked into a [`Config`], every problem kept with its key and line.
struct Checks<'t> {
    text: &'t str,
    file: &'t Path,
    problems: Vec<Diagnostic>,
}

impl Checks<'_> {
    /// A problem with the value at `span` of the key `key`.
    fn at(&self, span: Range<usize>, key: &str, message: String) -> Diagnostic {
        Diagnostic::new(self.file, raw::line_of(self.text, span.start), message).field(key)
    }

    /// Keeps the problem [`Checks::at`] makes, with `help`.
    fn refuse(&mut self, span: Range<usize>, key: &str, message: String, help: &str) {
        self.problems.push(self.at(span, key, message).help(help));
    }

    /// `v` (if the file has it) as `f` checks it, or `None` and its problem kept.
    fn check(
        &mut self,
        key: &str,
        v: Option<&Spanned<String>>,
        f: fn(&str) -> Result<String, String>,
    ) -> Option<String> {
        let v = v?;
        f(v.get_ref())
            .map_err(|m| self.problems.push(self.at(v.span(), key, m)))
            .ok()
    }

    /// A Markdown value (`home`, `footer`) with the line its text starts on.
    fn prose(&mut self, key: &str, v: &Option<Spanned<String>>) -> Option<Prose> {
        let text = self.check(key, v.as_ref(), values::markdown_text)?;
        Some(values::prose(self.text, v.as_ref()?, text))
    }

    /// `sections`, in the order listed, each once.
    fn sections(&mut self, items: &[Spanned<toml::Value>], config: &mut Config) {
        for item in items {
            let line = raw::line_of(self.text, item.span().start);
            match values::section(item.get_ref()) {
                Ok((name, _)) if config.sections.iter().any(|s| s.name == name) => {
                    let m = format!("`{name}` is listed twice");
                    self.refuse(
                        item.span(),
                        "sections",
                        m,
                        "list each section once, in reading order",
                    );
                }
                Ok((name, title)) => config.sections.push(SectionConfig { name, title, line }),
                Err(m) => self.refuse(
                    item.span(),
                    "sections",
                    m,
                    "write `sections = [\"days\", { name = \"glossary\", title = \"Terms\" }]`",
                ),
            }
        }
    }

    /// The course's words and addresses: title, description, home and footer text, the
    /// public address, the repository and its edit links, the language, and the site paths
    /// outside the site.
    fn site(&mut self, raw: &RawConfig, config: &mut Config) {
        if let Some(t) = self.check("title", raw.title.as_ref(), values::title) {
            config.title = t;
        }
        config.description =
            self.check("description", raw.description.as_ref(), values::description);
        config.home = self.prose("home", &raw.home);
        config.footer = self.prose("footer", &raw.footer);
        if let Some(b) = self.check("base_url", raw.base_url.as_ref(), values::base_url) {
            config.set_checked_base_url(b);
        }
        config.repository = self.check("repository", raw.repository.as_ref(), values::web_url);
        config.edit_url = match &raw.edit_url {
            Some(v) => (self.check("edit_url", Some(v), values::web_url))
                .map(|u| format!("{}/", u.trim_end_matches('/'))),
            None => config.repository.as_deref().map(values::default_edit_url),
        };
        if let Some(l) = self.check("language", raw.language.as_ref(), values::language) {
            config.language = l;
        }
        for p in &raw.links.external_prefixes {
            if let Some(p) = self.check("links.external_prefixes", Some(p), values::external_prefix)
            {
                config.external_prefixes.push(p);
            }
        }
    }

    /// `[review]`'s signers, `[glossary]` and `[new]`; an unknown required field is reported
    /// after `[new]`'s `cc` and `category`.
    fn glossary_and_new(&mut self, raw: &RawConfig, config: &mut Config) {
        let signers = raw.review.allowed_signers.as_ref();
        if let Some(p) = self.check("review.allowed_signers", signers, values::signers_path) {
            config.allowed_signers = PathBuf::from(p);
        }
        config.require_signatures = raw.review.require_signatures.unwrap_or(false);
        let folder = raw.glossary.folder.as_ref();
        if let Some(f) = self.check("glossary.folder", folder, values::glossary_folder) {
            config.glossary_folder = f;
        }
        let mut unknown_fields = Vec::new();
        if let Some(list) = &raw.glossary.required {
            config.glossary_required = Required::NONE;
            for f in list {
                match config.glossary_required.with(f.get_ref()) {
                    Some(set) => config.glossary_required = set,
                    None => unknown_fields.push(self.at(
                        f.span(),
                        "glossary.required",
                        values::not_a_field(f.get_ref()),
                    )),
                }
            }
        }
        let new = &raw.new;
        if let Some(cc) = &new.cc {
            // `cc = ""`: new entries name no compute capability.
            config.new_entry.cc = match cc.get_ref().trim() {
                "" => None,
                _ => self.check("new.cc", Some(cc), values::compute_capability),
            };
        } else if !config.glossary_required.contains("cc") {
            config.new_entry.cc = None;
        }
        if let Some(c) = self.check("new.category", new.category.as_ref(), values::title) {
            config.new_entry.category = c;
        }
        self.problems.extend(unknown_fields);
        if let Some(sources) = &new.sources {
            config.new_entry.sources.clear();
            for s in sources {
                let (t, u) = (&s.get_ref().title, &s.get_ref().url);
                match values::one_line(t, "source's title", values::MAX_TITLE_CHARS)
                    .and_then(|t| Ok((t, values::web_url(u)?)))
                {
                    Ok(pair) => config.new_entry.sources.push(pair),
                    Err(m) => self.problems.push(self.at(s.span(), "new.sources", m)),
                }
            }
        }
    }

    /// `review_max_age_days`: a review must expire, within the editorial rule's limit.
    fn review_max_age(&mut self, days: &Option<Spanned<i64>>, config: &mut Config) {
        let Some(days) = days else { return };
        let max = crate::editorial::policy::MAX_REVIEW_MAX_AGE_DAYS;
        match u32::try_from(*days.get_ref()) {
            Ok(d) if (1..=max).contains(&d) => config.review_max_age_days = Some(d),
            _ => {
                let m = format!("{} is not a number of days from 1 to {max}", days.get_ref());
                self.refuse(days.span(), "review_max_age_days", m,
                    "write a whole number of days, e.g. `review_max_age_days = 365`; a review must expire");
            }
        }
    }
}

/// Largest config file: a complete one is a few hundred bytes.
pub(crate) const MAX_FILE_BYTES: u64 = 64 << 10;

#[cfg(test)]
mod tests;
