//! `coursegen new`: writes the scaffold of a glossary entry or a day page, and names the
//! placeholder text it inserts so that `policy` can refuse to publish it unchanged.
use std::path::{Path, PathBuf};

use super::front_matter;
use super::load::{self, DAYS};

/// Front-matter text a scaffold inserts for the author to replace: (field, text). A
/// field whose value still contains the text (ignoring case) blocks publishing.
pub(crate) const PLACEHOLDERS: &[(&str, &str)] = &[
    ("title", "the day's topic"),
    ("category", "Uncategorised"),
    ("summary", "One sentence that defines the term."),
    ("summary", "What the reader builds today, in one sentence."),
    ("summary", "What this page covers, in one sentence."),
    (
        "diagram.alt",
        "Describe what the picture shows, for readers who cannot see it.",
    ),
];

const GLOSSARY_BODY: &str = "The body, in Markdown. Explain the term from first principles.

With `measure:` set, prose under a `## Measured` heading goes under the measured table and
may quote the record: `{{% ratio 32L L digits=0 %}}`. With `diagram:` set, prose under a
`## Diagram` heading goes under the drawing.
";

const DAY_BODY: &str = "What the reader builds today, and why it matters for the days that follow.

Name the glossary entries the day relies on in `related:`, and end with something to run.
";

const PAGE_BODY: &str = "The body, in Markdown. Write what this page is for.
";

/// The sentences of the body a scaffold inserts; a body still holding one of them, however
/// re-wrapped, is not ready.
pub(crate) fn body_sentences() -> impl Iterator<Item = &'static str> {
    [GLOSSARY_BODY, DAY_BODY, PAGE_BODY]
        .into_iter()
        .flat_map(|body| {
            body.split_inclusive(". ")
                .flat_map(|s| s.split_inclusive(".\n"))
                .map(str::trim)
                .filter(|s| !s.is_empty())
        })
}

/// What `coursegen new` writes into a glossary entry where the course says nothing else
/// (`[new]` in coursegen.toml).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Defaults {
    /// `cc`: the compute capability a new entry is written against (`None`: no `cc` line).
    pub(crate) cc: Option<String>,
    /// `category`: "Uncategorised", a placeholder publishing refuses.
    pub(crate) category: String,
    /// `sources`: (title, address) pairs.
    pub(crate) sources: Vec<(String, String)>,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            cc: Some("7.5".into()),
            category: "Uncategorised".into(),
            sources: vec![(
                "CUDA C++ Programming Guide".into(),
                "https://docs.nvidia.com/cuda/cuda-c-programming-guide/".into(),
            )],
        }
    }
}

/// `s` as a YAML scalar: plain when it is words, else double-quoted (JSON's escapes are
/// YAML's).
fn scalar(s: &str) -> String {
    let plain = (s.chars()).all(|c| c.is_alphanumeric() || " -./:?=&%_~+".contains(c))
        && s.starts_with(char::is_alphanumeric)
        && !s.ends_with([' ', ':'])
        && !s.contains(": ");
    if plain {
        s.to_string()
    } else {
        serde_json::Value::String(s.into()).to_string()
    }
}

/// The glossary front-matter lines that come from [`Defaults`].
fn glossary_defaults(d: &Defaults) -> String {
    let mut out = format!(
        "category: {:<23} # groups the glossary index, e.g. Memory, Execution\n",
        scalar(&d.category)
    );
    if let Some(cc) = &d.cc {
        let cc = serde_json::Value::String(cc.clone()).to_string();
        out.push_str(&format!(
            "cc: {cc:<29} # compute capability the entry is written against\n"
        ));
    }
    out.push_str("summary: One sentence that defines the term.\n");
    out.push_str(
        "related: []                       # slugs of glossary entries, e.g. [warp, bank-conflict]\n",
    );
    out.push_str("appears_in: []                    # day pages (content/days/), e.g. [day-15]\n");
    if d.sources.is_empty() {
        out.push_str("sources: []\n");
    } else {
        out.push_str("sources:\n");
        for (title, url) in &d.sources {
            out.push_str(&format!(
                "  - title: {}\n    url: {}\n",
                scalar(title),
                scalar(url)
            ));
        }
    }
    out
}

const BYLINE: &str = "status: draft                     # draft | in-review | published
byline:
  written_by: pending             # a name, or a list of names
  reviewed_by: pending            # a named reviewer who is none of the authors
  written_on: pending             # YYYY-MM-DD once signed
  last_checked_on: pending        # set by `coursegen sign` with the review hash
";

/// Which scaffold `coursegen new` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Template {
    /// A glossary entry: in the course's glossary folder (`[glossary] folder`).
    Glossary,
    /// A day page: in `days/`.
    Day,
    /// A plain page: anywhere else.
    Page,
}

impl Template {
    /// The scaffold of top-level section `section` in a course whose glossary is the
    /// folder `glossary`.
    pub(crate) fn of(section: &str, glossary: &str) -> Template {
        match section {
            s if s == glossary => Template::Glossary,
            DAYS => Template::Day,
            _ => Template::Page,
        }
    }
}

/// The file `coursegen new <section> <slug>` writes: every field, with a note on each.
pub(crate) fn scaffold(template: Template, slug: &str, defaults: &Defaults) -> String {
    let term = slug.replace('-', " ");
    // Padded so that the notes line up with the other fields' (one space at least).
    let question = format!("What is {term}?");
    match template {
        Template::Glossary => format!(
            r#"---
title: {question:<26} # the question, as the page heading
term: {term:<27} # the term, as the glossary index lists it
{defaults}# diagram:                        # drawn from the bank model
#   preset: bank-map              # bank-map | lane-banks | lane-sectors | lane-paths
#   highlight: {{ row: 0, column: 5 }}
#   alt: Describe what the picture shows, for readers who cannot see it.
# measure: bank_conflicts         # kernels/<name>.cu whose record fills "Measured"
{BYLINE}---

{GLOSSARY_BODY}"#,
            defaults = glossary_defaults(defaults)
        ),
        Template::Day => {
            let day = match slug.strip_prefix("day-") {
                Some(n) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => {
                    format!("Day {n}")
                }
                _ => capitalise(&term),
            };
            format!(
                r#"---
title: "{day}: the day's topic"
summary: What the reader builds today, in one sentence.
related: []                       # glossary entries this day uses, e.g. [warp, bank-conflict]
# measure: bank_conflicts         # kernels/<name>.cu whose record fills "Measured"
{BYLINE}---

{DAY_BODY}"#
            )
        }
        Template::Page => format!(
            r#"---
title: {title}
summary: What this page covers, in one sentence.
related: []                       # glossary entries it uses, e.g. [warp, bank-conflict]
{BYLINE}---

{PAGE_BODY}"#,
            title = capitalise(&term)
        ),
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Why `coursegen new` could not create an entry.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NewError {
    /// A section folder or the slug is not a valid URL segment.
    #[error("`{part}` cannot be part of a URL: {why}; use lowercase letters, digits and hyphens")]
    BadSegment {
        /// The offending segment.
        part: String,
        /// What is wrong with it.
        why: load::SlugError,
    },
    /// The top-level section does not exist yet, and `--new-section` was not given.
    #[error(
        "there is no section `{section}` under content/ (sections now: {known}); {hint}pass \
         --new-section to start a new one"
    )]
    UnknownSection {
        /// The section asked for.
        section: String,
        /// "did you mean `glossary`? Else " when one is close, else empty.
        hint: String,
        /// The sections there are, comma separated.
        known: String,
    },
    /// An entry with that slug exists already (compared ignoring case).
    #[error("{0} already exists (slugs are compared ignoring case); not overwriting it")]
    Exists(PathBuf),
    /// Another entry of the same top-level section uses the slug.
    #[error(
        "slug `{slug}` is already used by {file} (slugs are unique across the whole \
         `{section}/` section, sub-folders included, ignoring case); pick another slug"
    )]
    SlugTaken {
        /// The slug asked for.
        slug: String,
        /// The entry that has it.
        file: PathBuf,
        /// The top-level section.
        section: String,
    },
    /// Writing failed.
    #[error("cannot write {path}: {error}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

/// Writes the scaffold of a new draft at `content/<section>/<slug>.md` (section may nest:
/// `glossary/memory`), never over an existing entry, and never with a slug another entry
/// of the same top-level section uses. A top-level section that does not exist yet is
/// refused unless `new_section`. An entry of the folder `glossary` (the config's
/// `[glossary] folder`) is a glossary entry, whose fields come from `defaults`.
pub(crate) fn create_entry(
    root: &Path,
    section: &str,
    slug: &str,
    new_section: bool,
    glossary: &str,
    defaults: &Defaults,
) -> Result<PathBuf, NewError> {
    let parts: Vec<&str> = section.split('/').filter(|p| !p.is_empty()).collect();
    for part in parts.iter().chain(std::iter::once(&slug)) {
        load::check_slug(part).map_err(|why| NewError::BadSegment {
            part: part.to_string(),
            why,
        })?;
    }
    let content = root.join("content");
    let top = parts.first().copied().unwrap_or("");
    let known = sections(&content, glossary);
    if !top.is_empty() && !new_section && !known.iter().any(|k| k == top) {
        let hint = known
            .iter()
            .min_by_key(|k| strsim::levenshtein(top, k))
            .filter(|k| strsim::levenshtein(top, k) <= 2)
            .map_or_else(String::new, |k| format!("did you mean `{k}`? Else "));
        return Err(NewError::UnknownSection {
            section: top.to_string(),
            hint,
            known: known.join(", "),
        });
    }
    let dir = parts.iter().fold(content.clone(), |d, p| d.join(p));
    let path = dir.join(format!("{slug}.md"));
    if let Some(file) = slug_owner(&content, top, slug) {
        let rel = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
        return Err(if file.parent() == Some(dir.as_path()) {
            NewError::Exists(file)
        } else {
            NewError::SlugTaken {
                slug: slug.to_string(),
                file: rel,
                section: top.to_string(),
            }
        });
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| NewError::Io { path, error }
    };
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::AlreadyExists => NewError::Exists(path.clone()),
            _ => NewError::Io {
                path: path.clone(),
                error,
            },
        })?;
    std::io::Write::write_all(
        &mut file,
        scaffold(Template::of(top, glossary), slug, defaults).as_bytes(),
    )
    .map_err(io(&path))?;
    Ok(path)
}

/// The top-level sections: the glossary's folder, `days`, and every folder under content/.
fn sections(content: &Path, glossary: &str) -> Vec<String> {
    let mut known: Vec<String> = vec![glossary.into(), DAYS.into()];
    if let Ok(items) = std::fs::read_dir(content) {
        for item in items.flatten() {
            let name = item.file_name().to_string_lossy().into_owned();
            if item.path().is_dir() && !name.starts_with('.') && !known.contains(&name) {
                known.push(name);
            }
        }
    }
    known.sort();
    known
}

/// The entry of top-level section `top` (content/ itself when empty) whose slug — its
/// `slug:` field, else its file name — is `slug`, ignoring case.
fn slug_owner(content: &Path, top: &str, slug: &str) -> Option<PathBuf> {
    let wanted = slug.to_lowercase();
    let base = content.join(top);
    let depth = if top.is_empty() { 1 } else { usize::MAX };
    walkdir::WalkDir::new(&base)
        .max_depth(depth)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("md")))
        .find(|p| entry_slug(p).is_some_and(|s| s.to_lowercase() == wanted))
}

/// An entry file's slug as the build will see it (`slug:` wins over the file name).
fn entry_slug(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).ok();
    let declared = text.as_deref().and_then(|t| {
        let split = front_matter::split(t.strip_prefix('\u{feff}').unwrap_or(t)).ok()?;
        front_matter::parse(&split).ok()?.slug
    });
    Some(declared.unwrap_or(stem))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_placeholder_is_in_a_scaffold() {
        let all = [
            scaffold(Template::Glossary, "warp", &Defaults::default()),
            scaffold(Template::Day, "day-16", &Defaults::default()),
            scaffold(Template::Page, "x", &Defaults::default()),
        ]
        .join("\n");
        for (field, text) in PLACEHOLDERS {
            assert!(all.contains(text), "{field}: {text}");
        }
        for line in body_sentences() {
            assert!(all.contains(line), "{line}");
        }
    }

    #[test]
    fn day_pages_are_numbered_from_their_slug() {
        assert!(
            scaffold(Template::Day, "day-16", &Defaults::default())
                .contains("title: \"Day 16: the day's topic\"")
        );
        assert!(
            scaffold(Template::Day, "warm-up", &Defaults::default())
                .contains("title: \"Warm up: the day's topic\"")
        );
        assert!(!scaffold(Template::Day, "day-16", &Defaults::default()).contains("term:"));
        assert!(scaffold(Template::Glossary, "warp", &Defaults::default()).contains("term: warp"));
    }

    #[test]
    fn the_notes_on_the_fields_line_up_whatever_the_term() {
        for slug in [
            "warp",
            "tensor-core",
            "asynchronous-transaction-barrier-arrival",
        ] {
            let text = scaffold(Template::Glossary, slug, &Defaults::default());
            let columns: Vec<usize> = (text.lines())
                .filter(|l| !l.starts_with(['#', ' ']))
                .filter_map(|l| l.find(" # ").map(|i| i + 1))
                .collect();
            assert!(columns.len() >= 7, "{slug}: {columns:?}");
            let short = slug.len() < 20;
            assert!(
                !short || columns.iter().all(|&c| c == columns[0]),
                "{slug}: {columns:?}\n{text}"
            );
            let fm = text.split("---").nth(1).expect("front matter");
            let yaml: serde_norway::Value = serde_norway::from_str(fm).expect("scaffold is YAML");
            assert_eq!(yaml["term"].as_str(), Some(slug.replace('-', " ").as_str()));
            let title = format!("What is {}?", slug.replace('-', " "));
            assert_eq!(yaml["title"].as_str(), Some(title.as_str()));
        }
    }

    #[test]
    fn a_course_of_another_subject_sets_its_own_defaults() {
        let d = Defaults {
            cc: None,
            category: "Tides: basics".into(),
            sources: vec![("Ocean \"Atlas\"".into(), "https://example.org/a?b=1".into())],
        };
        let text = scaffold(Template::Glossary, "tide", &d);
        let fm = text.split("---").nth(1).expect("front matter");
        let yaml: serde_norway::Value = serde_norway::from_str(fm).expect("scaffold is YAML");
        assert!(yaml.get("cc").is_none(), "{text}");
        assert_eq!(yaml["category"].as_str(), Some("Tides: basics"));
        assert_eq!(
            yaml["sources"][0]["title"].as_str(),
            Some("Ocean \"Atlas\"")
        );
        assert_eq!(
            yaml["sources"][0]["url"].as_str(),
            Some("https://example.org/a?b=1")
        );
        let none = Defaults {
            sources: Vec::new(),
            ..Defaults::default()
        };
        let fm = scaffold(Template::Glossary, "warp", &none);
        assert!(fm.contains("sources: []\n"), "{fm}");
    }
}
