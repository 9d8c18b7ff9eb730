//! Turns `RawFrontMatter` (what the file says) into `Meta` (what the program trusts):
//! statuses, dates, URLs and the byline are checked here; the editorial rule is `policy`'s.
use super::diagnostic::Diagnostic;
use super::front_matter::{FieldLines, Names, RawByline, RawDiagram, RawFrontMatter, Scalar};
use super::limits::MAX_TERM_BYTES;
use std::path::Path;

/// Where an entry stands editorially, as its front matter claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Status {
    /// Work in progress (the default).
    Draft,
    /// Waiting for its reviewer.
    InReview,
    /// Claims to be published; `policy` decides whether it is.
    Published,
}

impl Status {
    /// The word used in front matter.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Draft => "draft",
            Status::InReview => "in-review",
            Status::Published => "published",
        }
    }
}

/// A cited source.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Source {
    /// Link text.
    pub(crate) title: String,
    /// An http(s) URL.
    pub(crate) url: String,
}

/// A diagram declaration with its alt text present and one of `preset`, `kernel` (with
/// `row`) and `map` given (the preset, the kernel's row and the map are checked by the
/// check stage against `diagram` and the kernel's manifest). The fields added for
/// `kernel`, `row` and `map` are left out of the review hash when absent, so the hashes of
/// entries that draw a preset stay as they were.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct DiagramMeta {
    /// Preset name as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) preset: Option<String>,
    /// The kernel whose model's lanes are drawn (a kernel name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) kernel: Option<String>,
    /// The row of the kernel's sweep drawn (an axis label).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) row: Option<String>,
    /// A lane map written in the front matter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) map: Option<LaneMapMeta>,
    /// Row and column to pick out.
    pub(crate) highlight: Option<(u32, u32)>,
    /// Declared row width in words.
    pub(crate) width: Option<u32>,
    /// Lane stride in words.
    pub(crate) stride: Option<u32>,
    /// Paths a warp's lanes take.
    pub(crate) paths: Option<u32>,
    /// The alt text.
    pub(crate) alt: String,
}

/// `diagram.map` as written (its kind and expressions are checked by the check stage).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct LaneMapMeta {
    /// `shared`, `global` or `branch`, as written.
    pub(crate) kind: String,
    /// The word each lane reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) word: Option<String>,
    /// The byte address each lane reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) address: Option<String>,
    /// The path each lane takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) path: Option<String>,
    /// Bytes each lane reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) width: Option<u32>,
}

/// The byline, names as written ("pending" and friends kept: `policy` judges them).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Byline {
    /// Author names as written.
    pub(crate) written_by: Vec<String>,
    /// Reviewer names as written.
    pub(crate) reviewed_by: Vec<String>,
    /// Date written, when given as a date.
    pub(crate) written_on: Option<jiff::civil::Date>,
    /// Date last checked, when given as a date.
    pub(crate) last_checked_on: Option<jiff::civil::Date>,
    /// `sha256:…` of the entry as reviewed, written by `coursegen sign`.
    pub(crate) reviewed_hash: Option<String>,
    /// The author's SSHSIG over the pin, as written (judged by `policy::signatures`); not
    /// part of the pin it signs.
    pub(crate) author_signature: Option<String>,
    /// The reviewer's SSHSIG over the pin, as written; not part of the pin either.
    pub(crate) reviewer_signature: Option<String>,
}

/// Checked front matter. Serialised (as JSON) only to pin a review to what was reviewed:
/// field names are part of every `reviewed_hash`, so renaming one invalidates all reviews.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct Meta {
    /// The page heading.
    pub(crate) title: String,
    /// Slug override.
    pub(crate) slug: Option<String>,
    /// Term defined.
    pub(crate) term: Option<String>,
    /// Index group.
    pub(crate) category: Option<String>,
    /// Compute capability as "X.Y" (checked against known CCs by the site).
    pub(crate) cc: Option<String>,
    /// One-line definition.
    pub(crate) summary: Option<String>,
    /// Other words for `term`, linked like it (`aliases:`).
    pub(crate) aliases: Vec<String>,
    /// Whether the prose links glossary terms (`link_terms: false` turns it off). Left out
    /// of the review pin when true, as before the field existed.
    #[serde(skip_serializing_if = "is_true")]
    pub(crate) link_terms: bool,
    /// Related glossary slugs.
    pub(crate) related: Vec<String>,
    /// Day slugs.
    pub(crate) appears_in: Vec<String>,
    /// Sources.
    pub(crate) sources: Vec<Source>,
    /// Diagram.
    pub(crate) diagram: Option<DiagramMeta>,
    /// Kernel name.
    pub(crate) measure: Option<String>,
    /// Claimed status.
    pub(crate) status: Status,
    /// Byline.
    pub(crate) byline: Byline,
}

/// Words that mean "not yet" in a byline date (names are judged by `policy::names`).
pub(crate) const UNSIGNED: &[&str] = &["pending", "tbd", ""];

/// Checks one entry's raw front matter; every problem found is pushed to `out`.
pub(crate) fn check_meta(
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
    let sources = sources(raw.sources.unwrap_or_default(), &at, out);
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
    let words = raw.term.iter().map(|t| ("term", t));
    for (field, word) in words.chain(raw.aliases.iter().flatten().map(|a| ("aliases", a))) {
        let word = word.trim();
        if word.len() > MAX_TERM_BYTES {
            let what = if field == "term" {
                "the term"
            } else {
                "an alias"
            };
            out.push(Diagnostic {
                message: format!(
                    "{what} is {} bytes long: a term or alias may be at most {MAX_TERM_BYTES} bytes",
                    word.len()
                ),
                help: Some("name the term in a few words; the summary and body say the rest".into()),
                ..at(field)
            });
        }
    }
    let meta = Meta {
        title,
        slug: raw.slug,
        term: non_empty(raw.term),
        category: non_empty(raw.category),
        cc,
        summary: non_empty(raw.summary),
        aliases: (raw.aliases.unwrap_or_default().into_iter())
            .filter_map(|a| non_empty(Some(a)))
            .collect(),
        link_terms: raw.link_terms.unwrap_or(true),
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
pub(crate) fn is_kernel_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn is_true(b: &bool) -> bool {
    *b
}

fn non_empty(s: Option<String>) -> Option<String> {
    s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// The cited sources, each with an http(s) URL.
fn sources(
    raw: Vec<super::front_matter::RawSource>,
    at: &dyn Fn(&str) -> Diagnostic,
    out: &mut Vec<Diagnostic>,
) -> Vec<Source> {
    (raw.into_iter().enumerate())
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
        .collect()
}

fn diagram(
    d: RawDiagram,
    at: &dyn Fn(&str) -> Diagnostic,
    out: &mut Vec<Diagnostic>,
) -> Option<DiagramMeta> {
    let before = out.len();
    let alt = non_empty(d.alt);
    if alt.is_none() {
        out.push(Diagnostic {
            message: "a diagram needs alt text: readers on screen readers get nothing else".into(),
            help: Some("add `alt: …` under `diagram:`, describing what the picture shows".into()),
            ..at("diagram.alt")
        });
    }
    let forms = [d.preset.is_some(), d.kernel.is_some(), d.map.is_some()];
    if forms.iter().filter(|&&given| given).count() != 1 {
        out.push(Diagnostic {
            message: "a diagram draws a preset, the lanes of a kernel's row, or a lane map: \
                      give exactly one of `preset`, `kernel` (with `row`) and `map`"
                .into(),
            help: Some(
                "e.g. `preset: lane-banks`, `kernel: swizzled_tile` with `row: naive`, or \
                 `map: { kind: shared, word: \"lane * 33\" }`"
                    .into(),
            ),
            ..at("diagram")
        });
    }
    match (&d.kernel, &d.row) {
        (Some(kernel), _) if !is_kernel_name(kernel) => out.push(Diagnostic {
            message: format!(
                "`{}` is not a kernel name: it names kernels/<name>.yaml, so it may hold only \
                 ASCII letters, digits, `-` and `_`",
                kernel.escape_debug()
            ),
            help: Some(
                "write the file name without folder or extension, e.g. `kernel: swizzled_tile`"
                    .into(),
            ),
            ..at("diagram.kernel")
        }),
        (Some(_), None) => out.push(Diagnostic {
            message: "`kernel` needs `row`: the label of the row of its sweep to draw".into(),
            help: Some("add e.g. `row: naive` (a label of the manifest's `axis.labels`)".into()),
            ..at("diagram.kernel")
        }),
        (None, Some(_)) => out.push(Diagnostic {
            message: "`row` names a row of a kernel's sweep: it needs `kernel`".into(),
            help: Some("add `kernel: <name>` (a manifest in kernels/)".into()),
            ..at("diagram.row")
        }),
        _ => {}
    }
    if d.preset.is_none() {
        for (option, given) in [
            ("highlight", d.highlight.is_some()),
            ("width", d.width.is_some()),
            ("stride", d.stride.is_some()),
            ("paths", d.paths.is_some()),
        ] {
            if given {
                out.push(Diagnostic {
                    message: format!(
                        "`{option}` is an option of a preset; a kernel's row or a map says \
                         itself what each lane touches"
                    ),
                    help: Some(format!("remove `{option}`, or draw a `preset`")),
                    ..at(&format!("diagram.{option}"))
                });
            }
        }
    }
    if out.len() != before {
        return None;
    }
    Some(DiagramMeta {
        preset: d.preset,
        kernel: d.kernel,
        row: d.row,
        map: d.map.map(|m| LaneMapMeta {
            kind: m.kind,
            word: m.word,
            address: m.address,
            path: m.path,
            width: m.width,
        }),
        highlight: d.highlight.map(|c| (c.row, c.column)),
        width: d.width,
        stride: d.stride,
        paths: d.paths,
        alt: alt?,
    })
}

/// `v4:sha256:` (or, from the older schemes, `v3:sha256:`, `v2:sha256:` or `sha256:`) and
/// 64 lowercase hex digits, as `coursegen sign` writes it.
fn is_review_hash(value: &str) -> bool {
    let version = ["v4:", "v3:", "v2:"]
        .iter()
        .find_map(|v| value.strip_prefix(v));
    let hex = version.unwrap_or(value);
    hex.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    })
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
    let names = |value: Option<Names>| value.as_ref().map(Names::to_vec).unwrap_or_default();
    let reviewed_hash = raw.reviewed_hash.map(|h| h.trim().to_string());
    if let Some(h) = reviewed_hash.as_deref().filter(|h| !is_review_hash(h)) {
        out.push(Diagnostic {
            message: format!("`{h}` is not a review hash (`v4:sha256:` and 64 hex digits)"),
            help: Some("remove the line: `coursegen sign`, run by the reviewer, writes it".into()),
            ..at("byline.reviewed_hash")
        });
    }
    Byline {
        written_by: names(raw.written_by),
        reviewed_by: names(raw.reviewed_by),
        written_on,
        last_checked_on,
        reviewed_hash,
        author_signature: non_empty(raw.author_signature),
        reviewer_signature: non_empty(raw.reviewer_signature),
    }
}
