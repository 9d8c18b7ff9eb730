//! `coursegen.toml`, the optional site config: title, public address (which may carry a
//! sub-path), repository for edit links, language, review expiry, and site-absolute paths
//! that live outside the site. Parsed with the toml crate into `RawConfig` (what the file
//! says; unknown keys refused), then checked into `Config` (what the build trusts).
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::content::Diagnostic;
use crate::editorial::policy::Required;

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

/// A Markdown value of the file (`home`, `footer`) and where its lines are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Prose {
    /// The text, trimmed.
    pub(crate) text: String,
    /// The file's line where the text begins (its links' lines count from it).
    pub(crate) line: usize,
    /// The text's lines are not the file's (a basic string with escapes such as `\n` or
    /// line-ending backslashes): its problems are reported at `line`, the key's.
    pub(crate) lines_moved: bool,
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

/// What the file says. Every value keeps its span so that problems name their line.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawConfig {
    title: Option<Spanned<String>>,
    description: Option<Spanned<String>>,
    home: Option<Spanned<String>>,
    base_url: Option<Spanned<String>>,
    repository: Option<Spanned<String>>,
    edit_url: Option<Spanned<String>>,
    language: Option<Spanned<String>>,
    review_max_age_days: Option<Spanned<i64>>,
    sections: Vec<Spanned<toml::Value>>,
    footer: Option<Spanned<String>>,
    links: RawLinks,
    review: RawReview,
    glossary: RawGlossary,
    new: RawNew,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawGlossary {
    folder: Option<Spanned<String>>,
    required: Option<Vec<Spanned<String>>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawNew {
    cc: Option<Spanned<String>>,
    category: Option<Spanned<String>>,
    sources: Option<Vec<Spanned<RawSource>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSource {
    title: String,
    url: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawReview {
    allowed_signers: Option<Spanned<String>>,
    require_signatures: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawLinks {
    external_prefixes: Vec<Spanned<String>>,
}

/// The keys of each table, for unknown-key suggestions (kept equal to the structs by a test).
const KEYS: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "title",
            "description",
            "home",
            "base_url",
            "repository",
            "edit_url",
            "language",
            "review_max_age_days",
            "sections",
            "footer",
            "links",
            "review",
            "glossary",
            "new",
        ],
    ),
    ("links", &["external_prefixes"]),
    ("review", &["allowed_signers", "require_signatures"]),
    ("glossary", &["folder", "required"]),
    ("new", &["cc", "category", "sources"]),
];

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
        let at = |span: Range<usize>, key: &str, message: String| {
            Diagnostic::new(file, line_of(text, span.start), message).field(key)
        };
        let unknown = unknown_keys(text, &at);
        if !unknown.is_empty() {
            return Err(unknown);
        }
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(0, |s| line_of(text, s.start));
            let mut d = Diagnostic::new(file, line, e.message().trim().to_string())
                .help("each key and its type: the guide's page \"`coursegen.toml` keys\" (guide/src/reference/config.md)");
            d.field = e.span().and_then(|s| key_at(text, s.start));
            vec![d]
        })?;
        let mut problems = Vec::new();
        let mut config = Config {
            file: file.to_path_buf(),
            ..Config::default()
        };
        for item in &raw.sections {
            let line = line_of(text, item.span().start);
            match section(item.get_ref()) {
                Ok((name, _)) if config.sections.iter().any(|s| s.name == name) => problems.push(
                    at(item.span(), "sections", format!("`{name}` is listed twice"))
                        .help("list each section once, in reading order"),
                ),
                Ok((name, title)) => config.sections.push(SectionConfig { name, title, line }),
                Err(m) => problems.push(at(item.span(), "sections", m).help(
                    "write `sections = [\"days\", { name = \"glossary\", title = \"Terms\" }]`",
                )),
            }
        }
        let mut check = |key: &str, v: &Spanned<String>, f: fn(&str) -> Result<String, String>| {
            f(v.get_ref())
                .map_err(|m| problems.push(at(v.span(), key, m)))
                .ok()
        };
        if let Some(t) = raw.title.as_ref().and_then(|v| check("title", v, title)) {
            config.title = t;
        }
        config.description = raw
            .description
            .as_ref()
            .and_then(|v| check("description", v, description));
        config.home = raw
            .home
            .as_ref()
            .and_then(|v| check("home", v, markdown_text).map(|t| prose(text, v, t)));
        config.footer = raw
            .footer
            .as_ref()
            .and_then(|v| check("footer", v, markdown_text).map(|t| prose(text, v, t)));
        if let Some(b) = raw
            .base_url
            .as_ref()
            .and_then(|v| check("base_url", v, base_url))
        {
            config.set_checked_base_url(b);
        }
        config.repository = raw
            .repository
            .as_ref()
            .and_then(|v| check("repository", v, web_url));
        config.edit_url = match &raw.edit_url {
            Some(v) => {
                check("edit_url", v, web_url).map(|u| format!("{}/", u.trim_end_matches('/')))
            }
            None => config.repository.as_deref().map(default_edit_url),
        };
        if let Some(l) = raw
            .language
            .as_ref()
            .and_then(|v| check("language", v, language))
        {
            config.language = l;
        }
        for p in &raw.links.external_prefixes {
            if let Some(p) = check("links.external_prefixes", p, external_prefix) {
                config.external_prefixes.push(p);
            }
        }
        if let Some(p) = raw
            .review
            .allowed_signers
            .as_ref()
            .and_then(|v| check("review.allowed_signers", v, signers_path))
        {
            config.allowed_signers = PathBuf::from(p);
        }
        config.require_signatures = raw.review.require_signatures.unwrap_or(false);
        if let Some(f) = (raw.glossary.folder.as_ref())
            .and_then(|v| check("glossary.folder", v, glossary_folder))
        {
            config.glossary_folder = f;
        }
        let mut unknown_fields = Vec::new();
        if let Some(list) = &raw.glossary.required {
            config.glossary_required = Required::NONE;
            for f in list {
                match config.glossary_required.with(f.get_ref()) {
                    Some(set) => config.glossary_required = set,
                    None => unknown_fields.push(at(
                        f.span(),
                        "glossary.required",
                        not_a_field(f.get_ref()),
                    )),
                }
            }
        }
        let new = &raw.new;
        if let Some(cc) = &new.cc {
            // `cc = ""`: new entries name no compute capability.
            config.new_entry.cc = match cc.get_ref().trim() {
                "" => None,
                _ => check("new.cc", cc, compute_capability),
            };
        } else if !config.glossary_required.contains("cc") {
            config.new_entry.cc = None;
        }
        if let Some(c) = new
            .category
            .as_ref()
            .and_then(|v| check("new.category", v, title))
        {
            config.new_entry.category = c;
        }
        problems.extend(unknown_fields);
        if let Some(sources) = &new.sources {
            config.new_entry.sources.clear();
            for s in sources {
                let (t, u) = (&s.get_ref().title, &s.get_ref().url);
                match one_line(t, "source's title", MAX_TITLE_CHARS)
                    .and_then(|t| Ok((t, web_url(u)?)))
                {
                    Ok(pair) => config.new_entry.sources.push(pair),
                    Err(m) => problems.push(at(s.span(), "new.sources", m)),
                }
            }
        }
        if let Some(days) = &raw.review_max_age_days {
            match u32::try_from(*days.get_ref()) {
                Ok(d) if (1..=crate::editorial::policy::MAX_REVIEW_MAX_AGE_DAYS).contains(&d) => {
                    config.review_max_age_days = Some(d)
                }
                _ => problems.push(
                    at(
                        days.span(),
                        "review_max_age_days",
                        format!(
                            "{} is not a number of days from 1 to {}",
                            days.get_ref(),
                            crate::editorial::policy::MAX_REVIEW_MAX_AGE_DAYS
                        ),
                    )
                    .help("write a whole number of days, e.g. `review_max_age_days = 365`; a review must expire"),
                ),
            }
        }
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(problems)
        }
    }

    /// Sets the public address from `--base-url`, which overrides the config's.
    pub(crate) fn override_base_url(&mut self, url: &str) -> Result<(), String> {
        let url = base_url(url).map_err(|m| format!("--base-url: {m}"))?;
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
        let encoded: Vec<String> = rel.split('/').map(percent_encode).collect();
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

/// Unknown keys, every one of them, with a suggestion (serde would stop at the first).
fn unknown_keys(
    text: &str,
    at: &impl Fn(Range<usize>, &str, String) -> Diagnostic,
) -> Vec<Diagnostic> {
    // A file that does not parse is reported by the typed pass, with its line.
    let Ok(doc) = toml::de::DeTable::parse(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (table, allowed) in KEYS {
        let entries = if table.is_empty() {
            Some(doc.get_ref())
        } else {
            doc.get_ref()
                .get(*table)
                .and_then(|v| v.get_ref().as_table())
        };
        for (key, _) in entries.into_iter().flatten() {
            let name = key.get_ref().as_ref();
            if allowed.contains(&name) {
                continue;
            }
            let dotted = if table.is_empty() {
                name.to_string()
            } else {
                format!("{table}.{name}")
            };
            let help = match crate::content::diagnostic::closest(name, allowed.iter().copied()) {
                Some(k) => format!("did you mean `{k}`?"),
                _ => format!("the keys allowed here are {}", allowed.join(", ")),
            };
            out.push(at(key.span(), &dotted, "unknown key".into()).help(help));
        }
    }
    out.sort_by_key(|d| d.line);
    out
}

/// The dotted key whose value holds byte `offset`, for type errors.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    let mut found = None;
    for (key, value) in doc.get_ref() {
        if value.span().contains(&offset) {
            found = Some(key.get_ref().to_string());
        }
        // A `[table]`'s own span may cover only its header: look at its keys in any case.
        for (inner, v) in value.get_ref().as_table().into_iter().flatten() {
            if v.span().contains(&offset) {
                found = Some(format!("{}.{}", key.get_ref(), inner.get_ref()));
            }
        }
    }
    found
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// Longest site title: it heads every page, `<title>` and social card.
const MAX_TITLE_CHARS: usize = 200;

/// Longest address: past this, an address is no address but a way to make every page big.
const MAX_URL_BYTES: usize = 2048;

/// Largest config file: a complete one is a few hundred bytes.
pub(crate) const MAX_FILE_BYTES: u64 = 64 << 10;

fn title(s: &str) -> Result<String, String> {
    one_line(s, "title", MAX_TITLE_CHARS)
}

/// Longest description: one sentence, in a meta tag and at the top of llms.txt.
const MAX_DESCRIPTION_CHARS: usize = 1000;

fn description(s: &str) -> Result<String, String> {
    one_line(s, "description", MAX_DESCRIPTION_CHARS)
}

/// `s` trimmed, when it is one line of text of at most `max` characters; `what` names it.
fn one_line(s: &str, what: &str, max: usize) -> Result<String, String> {
    let t = s.trim();
    if t.is_empty() || t.chars().any(char::is_control) {
        Err(format!("the {what} must be one line of text"))
    } else if t.chars().count() > max {
        Err(format!("the {what} is longer than {max} characters"))
    } else {
        Ok(t.into())
    }
}

/// A `sections` item: a folder name, or `{ name = "…", title = "…" }`.
fn section(v: &toml::Value) -> Result<(String, Option<String>), String> {
    let (name, title) = match v {
        toml::Value::String(name) => (name, None),
        toml::Value::Table(t) => {
            if let Some(k) = t.keys().find(|k| !matches!(k.as_str(), "name" | "title")) {
                return Err(format!(
                    "unknown key `{k}` in a section (its keys are name, title)"
                ));
            }
            let Some(toml::Value::String(name)) = t.get("name") else {
                return Err("a section needs a `name`, its folder under content/".into());
            };
            let title = match t.get("title") {
                None => None,
                Some(toml::Value::String(t)) => Some(title(t)?),
                Some(_) => return Err("a section's `title` is text".into()),
            };
            (name, title)
        }
        _ => return Err("a section is its folder's name, or a table with `name`".into()),
    };
    let folder = !name.is_empty()
        && !name.starts_with('.')
        && !name.contains(['/', '\\'])
        && !name.chars().any(char::is_control);
    if !folder {
        return Err(format!(
            "`{}` is not a folder name under content/ (one name, no `/`)",
            name.escape_debug()
        ));
    }
    Ok((name.clone(), title))
}

/// `[glossary] folder`: one folder name under content/, which is also the glossary's URL
/// segment (`/terms/`); not `days`, whose pages `appears_in:` names.
fn glossary_folder(s: &str) -> Result<String, String> {
    let bad = |why: String| {
        Err(format!(
            "`{}` is not a folder name under content/: {why}; write one name, e.g. `folder = \"terms\"`",
            s.escape_debug()
        ))
    };
    if let Err(why) = crate::content::load::check_slug(s) {
        return bad(why.to_string());
    }
    if s == crate::content::load::DAYS {
        return bad("`days` holds the day pages".into());
    }
    Ok(s.to_string())
}

/// Markdown text (`home`, `footer`): any length the file allows, no control characters but
/// line ends.
fn markdown_text(s: &str) -> Result<String, String> {
    if s.chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        Err("the text must be Markdown, with no control characters".into())
    } else {
        Ok(s.trim().to_string())
    }
}

/// `value`'s checked text, with the line its text starts on in `file`.
fn prose(file: &str, value: &Spanned<String>, text: String) -> Prose {
    let literal = &file[value.span()];
    if literal.starts_with('"') && literal.contains('\\') {
        // Escapes and line continuations change the lines: name the key's line.
        return Prose {
            text,
            line: line_of(file, value.span().start),
            lines_moved: true,
        };
    }
    // A multi-line string's text starts on the line after its opening quotes, and the
    // text is trimmed: blank lines at its start are not its first line.
    let opening = ["\"\"\"", "'''"].iter().any(|q| {
        literal
            .strip_prefix(q)
            .is_some_and(|r| r.starts_with(['\n', '\r']))
    });
    let raw = value.get_ref();
    let blank = raw[..raw.len() - raw.trim_start().len()]
        .matches('\n')
        .count();
    Prose {
        text,
        line: line_of(file, value.span().start) + usize::from(opening) + blank,
        lines_moved: false,
    }
}

/// A compute capability as an entry's `cc` writes it (`9.0`); which ones the bank model
/// knows is the check stage's to say, for the entries that use it.
fn compute_capability(s: &str) -> Result<String, String> {
    let t = s.trim();
    let ok = t.split_once('.').is_some_and(|(a, b)| {
        (1..=2).contains(&a.len())
            && (1..=2).contains(&b.len())
            && (a.chars().chain(b.chars())).all(|c| c.is_ascii_digit())
    });
    if ok {
        Ok(t.into())
    } else {
        Err(format!(
            "`{}` is not a compute capability; write it like \"9.0\", or \"\" for none",
            s.escape_debug()
        ))
    }
}

/// Why `s` is not one of [`Required::FIELDS`].
fn not_a_field(s: &str) -> String {
    let hint = match crate::content::diagnostic::closest(s, Required::FIELDS.iter().copied()) {
        Some(k) => format!(" (did you mean `{k}`?)"),
        None => String::new(),
    };
    format!(
        "`{}` is not a field a glossary entry can be required to fill{hint}; the fields are {}",
        s.escape_debug(),
        Required::FIELDS.join(", ")
    )
}

/// An absolute http(s) address with a host and no query, fragment or credentials.
fn web_url(s: &str) -> Result<String, String> {
    if s.len() > MAX_URL_BYTES {
        return Err(format!("the address is longer than {MAX_URL_BYTES} bytes"));
    }
    let bad = |why: &str| format!("`{s}` {why}; write it like https://github.com/your-org/course");
    let url = url::Url::parse(s.trim()).map_err(|e| bad(&format!("is not an address ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err(bad("is not an http(s) address"));
    }
    if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
        return Err(bad("must not carry a query, a #fragment or a user name"));
    }
    Ok(url.to_string())
}

/// A web address, ending in `/`: the site's root. Its path becomes the start of every
/// site-absolute URL the site writes, so it may not hold an empty segment: `//evil.org/`
/// at the start of a URL's path names another host.
fn base_url(s: &str) -> Result<String, String> {
    let url = web_url(s)
        .map_err(|m| m.replace("github.com/your-org/course", "your-org.github.io/course/"))?;
    let url = format!("{}/", url.trim_end_matches('/'));
    let path_start = url.find("://").map_or(0, |i| i + 3);
    let path = url[path_start..]
        .find('/')
        .map_or("/", |i| &url[path_start + i..]);
    if path.contains("//") {
        return Err(format!(
            "`{s}` has an empty segment (`//`) in its path, which would make the site's links \
             name another host; write it like https://your-org.github.io/course/"
        ));
    }
    Ok(url)
}

/// GitHub, Gitea and Forgejo edit at `<repo>/edit/main/`, GitLab at `<repo>/-/edit/main/`.
fn default_edit_url(repository: &str) -> String {
    let repo = repository.trim_end_matches('/').trim_end_matches(".git");
    if repo.contains("://gitlab.") {
        format!("{repo}/-/edit/main/")
    } else {
        format!("{repo}/edit/main/")
    }
}

fn language(s: &str) -> Result<String, String> {
    let mut parts = s.split('-');
    let primary = parts.next().unwrap_or("");
    let ok = (2..=3).contains(&primary.len())
        && primary.chars().all(|c| c.is_ascii_alphabetic())
        && parts
            .all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()));
    if ok {
        Ok(s.into())
    } else {
        Err(format!(
            "`{s}` is not a language tag; write it like `en` or `pt-BR`"
        ))
    }
}

/// `/docs/` → `/docs`: a site-absolute path, compared segment by segment.
fn external_prefix(s: &str) -> Result<String, String> {
    let p = s.trim_end_matches('/');
    let ok = s.starts_with('/')
        && !s.starts_with("//")
        && !p.is_empty()
        && !p.split('/').any(|seg| seg == ".." || seg == ".")
        && !p.contains(['?', '#', '\\'])
        && !p.chars().any(|c| c.is_whitespace() || c.is_control());
    if ok {
        Ok(p.into())
    } else {
        Err(format!(
            "`{s}` is not a site-absolute path prefix; write it like \"/docs/\" (not \"/\", which is the whole domain)"
        ))
    }
}

fn percent_encode(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

#[cfg(test)]
mod tests;

/// A path relative to the site root with no `..` (what it resolves to is judged when read).
fn signers_path(p: &str) -> Result<String, String> {
    let path = Path::new(p);
    let up = path.components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    });
    if p.trim().is_empty() || up || p.chars().any(char::is_control) {
        return Err(format!(
            "`{}` is not a path inside the site: write it relative to the site root, without `..`",
            p.escape_debug()
        ));
    }
    Ok(p.to_string())
}
