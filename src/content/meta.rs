//! Turns `RawFrontMatter` (what the file says) into `Meta` (what the program trusts):
//! statuses, dates, URLs and the byline are checked here; the editorial rule is `policy`'s.
use super::diagnostic::Diagnostic;
use super::front_matter::{FieldLines, Names, RawByline, RawDiagram, RawFrontMatter, Scalar};
use std::path::Path;

/// Where an entry stands editorially, as its front matter claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Work in progress (the default).
    Draft,
    /// Waiting for its reviewer.
    InReview,
    /// Claims to be published; `policy` decides whether it is.
    Published,
}

impl Status {
    /// The word used in front matter.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Draft => "draft",
            Status::InReview => "in-review",
            Status::Published => "published",
        }
    }
}

/// A cited source.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Source {
    /// Link text.
    pub title: String,
    /// An http(s) URL.
    pub url: String,
}

/// A diagram declaration with its alt text present (the preset is checked by `bank::diagram`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiagramMeta {
    /// Preset name as written.
    pub preset: String,
    /// Row and column to pick out.
    pub highlight: Option<(u32, u32)>,
    /// Declared row width in words.
    pub width: Option<u32>,
    /// Lane stride in words.
    pub stride: Option<u32>,
    /// The alt text.
    pub alt: String,
}

/// The byline, names as written ("pending" and friends kept: `policy` judges them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Byline {
    /// Author names as written.
    pub written_by: Vec<String>,
    /// Reviewer names as written.
    pub reviewed_by: Vec<String>,
    /// Date written, when given as a date.
    pub written_on: Option<jiff::civil::Date>,
    /// Date last checked, when given as a date.
    pub last_checked_on: Option<jiff::civil::Date>,
}

/// Checked front matter.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    /// The page heading.
    pub title: String,
    /// Slug override.
    pub slug: Option<String>,
    /// Term defined.
    pub term: Option<String>,
    /// Index group.
    pub category: Option<String>,
    /// Compute capability as "X.Y" (checked against known CCs by the site).
    pub cc: Option<String>,
    /// One-line definition.
    pub summary: Option<String>,
    /// Related glossary slugs.
    pub related: Vec<String>,
    /// Day slugs.
    pub appears_in: Vec<String>,
    /// Sources.
    pub sources: Vec<Source>,
    /// Diagram.
    pub diagram: Option<DiagramMeta>,
    /// Kernel name.
    pub measure: Option<String>,
    /// Claimed status.
    pub status: Status,
    /// Byline.
    pub byline: Byline,
}

/// Words that mean "nobody has signed yet".
pub const UNSIGNED: &[&str] = &["pending", "tbd", ""];

/// Checks one entry's raw front matter; every problem found is pushed to `out`.
pub fn check(
    raw: RawFrontMatter,
    file: &Path,
    lines: &FieldLines,
    out: &mut Vec<Diagnostic>,
) -> Option<Meta> {
    let before = out.len();
    let at = |field: &str| Diagnostic::new(file, lines.of(field), "").field(field);
    let title = match raw.title.as_deref().map(str::trim) {
        Some(t) if !t.is_empty() => t.to_string(),
        _ => {
            out.push(Diagnostic {
                message: "every entry needs a title".into(),
                help: Some("add `title: What is …?` to the front matter".into()),
                ..at("title")
            });
            String::new()
        }
    };
    let status = match raw.status.as_deref().map(str::trim) {
        None | Some("draft") => Status::Draft,
        Some("in-review") => Status::InReview,
        Some("published") => Status::Published,
        Some(other) => {
            out.push(Diagnostic {
                message: format!("unknown status `{other}`"),
                help: Some("use one of: draft, in-review, published".into()),
                ..at("status")
            });
            Status::Draft
        }
    };
    let cc = raw.cc.map(|cc| match cc {
        Scalar::Text(t) => t.trim().to_string(),
        Scalar::Number(n) => format!("{n:.1}"),
    });
    let sources = raw
        .sources
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let url = s.url.trim();
            if url.starts_with("https://") || url.starts_with("http://") {
                Some(Source {
                    title: s.title,
                    url: url.to_string(),
                })
            } else {
                out.push(Diagnostic {
                    message: format!("source {} has URL `{url}`, which is not http(s)", i + 1),
                    help: Some("cite sources by their https:// address".into()),
                    ..at("sources")
                });
                None
            }
        })
        .collect();
    let diagram = raw.diagram.and_then(|d| diagram(d, &at, out));
    let measure = non_empty(raw.measure).filter(|name| {
        let ok = is_kernel_name(name);
        if !ok {
            out.push(Diagnostic {
                message: format!(
                    "`{}` is not a kernel name: it names kernels/<name>.cu, so it may hold only \
                     ASCII letters, digits, `-` and `_`",
                    name.escape_debug()
                ),
                help: Some("write the file name without folder or extension, e.g. `measure: bank_conflicts`".into()),
                ..at("measure")
            });
        }
        ok
    });
    let byline = byline(raw.byline.unwrap_or_default(), &at, out);
    let meta = Meta {
        title,
        slug: raw.slug,
        term: non_empty(raw.term),
        category: non_empty(raw.category),
        cc,
        summary: non_empty(raw.summary),
        related: raw.related.unwrap_or_default(),
        appears_in: raw.appears_in.unwrap_or_default(),
        sources,
        diagram,
        measure,
        status,
        byline,
    };
    (out.len() == before).then_some(meta)
}

/// A kernel is named by its file stem: no folders, no `..`, nothing a path could hide in.
pub fn is_kernel_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn non_empty(s: Option<String>) -> Option<String> {
    s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

fn diagram(
    d: RawDiagram,
    at: &dyn Fn(&str) -> Diagnostic,
    out: &mut Vec<Diagnostic>,
) -> Option<DiagramMeta> {
    let alt = non_empty(d.alt);
    if alt.is_none() {
        out.push(Diagnostic {
            message: "a diagram needs alt text: readers on screen readers get nothing else".into(),
            help: Some("add `alt: …` under `diagram:`, describing what the picture shows".into()),
            ..at("diagram.alt")
        });
    }
    Some(DiagramMeta {
        preset: d.preset,
        highlight: d.highlight.map(|c| (c.row, c.column)),
        width: d.width,
        stride: d.stride,
        alt: alt?,
    })
}

/// "Ada, Grace", "Ada & Grace", "Ada and Grace": one string naming several people, which
/// would let a reviewer who is also an author slip past the editorial rule.
fn looks_like_several(name: &str) -> bool {
    let lower = format!(" {} ", name.to_lowercase());
    name.contains([',', ';', '&', '/', '+']) || lower.contains(" and ")
}

fn byline(raw: RawByline, at: &dyn Fn(&str) -> Diagnostic, out: &mut Vec<Diagnostic>) -> Byline {
    let mut date = |field: &str, value: Option<String>| -> Option<jiff::civil::Date> {
        let value = value?;
        let v = value.trim();
        if UNSIGNED.contains(&v.to_lowercase().as_str()) {
            return None;
        }
        match v.parse::<jiff::civil::Date>() {
            Ok(d) if v.len() == 10 => Some(d),
            _ => {
                out.push(Diagnostic {
                    message: format!("`{v}` is not a date"),
                    help: Some("write dates as YYYY-MM-DD, or `pending`".into()),
                    ..at(field)
                });
                None
            }
        }
    };
    let written_on = date("byline.written_on", raw.written_on);
    let last_checked_on = date("byline.last_checked_on", raw.last_checked_on);
    let mut names = |field: &str, value: Option<Names>| -> Vec<String> {
        let names = value.as_ref().map(Names::to_vec).unwrap_or_default();
        for name in names.iter().filter(|n| looks_like_several(n)) {
            out.push(Diagnostic {
                message: format!("`{name}` looks like several names in one"),
                help: Some(format!(
                    "write a list, one name each: `{}: [Ada Lovelace, Grace Hopper]`",
                    field.trim_start_matches("byline.")
                )),
                ..at(field)
            });
        }
        names
    };
    Byline {
        written_by: names("byline.written_by", raw.written_by),
        reviewed_by: names("byline.reviewed_by", raw.reviewed_by),
        written_on,
        last_checked_on,
    }
}
