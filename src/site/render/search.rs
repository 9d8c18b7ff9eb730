//! The search index: every published entry's term, title, summary and body text, indexed by
//! Pagefind into `pagefind/` (a chunked index the browser loads a piece at a time, so a
//! query on a 10,000-entry course fetches tens of kilobytes, not the whole index).
//!
//! Pagefind indexes on one core and is the dearest part of a build (BENCHMARKS.md, Search,
//! `benches/build.sh`), so the records are cut into shards by a hash of their URL
//! ([`SHARD_RECORDS`] a shard): shards are indexed in parallel, and each is kept in the build cache under the hash of its records, so a rebuild indexes
//! only the shards whose pages changed. Shard 0 is the primary bundle (`pagefind/`, with
//! Pagefind's script and WebAssembly); shard *i* is `pagefind/shard-i/` (index only), listed
//! in `pagefind/shards.json`, which the site's script merges with Pagefind's `mergeIndex`.
//! Uses `output` for the files it returns and `build_cache` as the cache.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::build_cache::BuildCache;
use crate::canonical::sha256_hex;
use crate::site::write::OutFile;

/// Folder of the index, under the site root; the search script loads `pagefind.js` from it.
pub(crate) const BUNDLE: &str = "pagefind";

/// The list of merged shards, beside the primary bundle.
pub(crate) const SHARDS: &str = "shards.json";

/// About how many records one shard holds: small enough that a one-entry change re-indexes
/// a fraction of a second's worth, large enough that a query fetches few files per shard.
pub(crate) const SHARD_RECORDS: usize = 400;

/// At most this many shards, whatever the size of the course (each adds two small fetches
/// to a reader's first query).
const MAX_SHARDS: usize = 32;

/// Pages whose result fragments (title, URL, text for the excerpt) share one file. One file
/// per page made the bundle 10,000 small files at 10,000 entries, which every build with
/// search wrote; four to a file makes a quarter as many, for a larger fetch per result
/// (`benches/search/pagefind.py`; BENCHMARKS.md, Search).
const PAGES_PER_FRAGMENT_FILE: usize = 4;

/// Part of every cache key: the indexer's version and the shape of our records and bundle.
/// A test checks the version against Cargo.lock.
const PAGEFIND_VERSION: &str = "1.6.0";
const PIPELINE_VERSION: u32 = 3;

/// Why the search index could not be built.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SearchError {
    /// Pagefind refused a record or failed to build the index.
    #[error("cannot build the search index: {message}")]
    Pagefind {
        /// Pagefind's message chain.
        message: String,
    },
}

/// One page as the index holds it.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    /// URL as the browser should open it (with the site's base path).
    pub(crate) url: String,
    /// Shown as the result's heading: the term, or the title.
    pub(crate) title: String,
    /// The section's title, shown beside the result.
    pub(crate) section: String,
    /// Everything searchable: term, title, summary and body text.
    pub(crate) content: String,
    /// A draft, indexed only in the preview and marked in results.
    pub(crate) draft: bool,
}

impl Record {
    /// A record from an entry's parts (term, title, summary, body text), each a sentence
    /// of its own: a full stop after a part that does not end in one, and an empty part or
    /// one that repeats the part before it (a title that is also the term) left out, so an
    /// excerpt reads "Bank conflict. What is a bank conflict? Two…", not "?." or "..".
    pub(crate) fn new(url: String, heading: &str, section: &str, parts: &[&str]) -> Self {
        let mut content = String::new();
        let mut last = "";
        for part in parts.iter().map(|p| p.trim()) {
            if part.is_empty() || part == last {
                continue;
            }
            if !content.is_empty() {
                content.push(' ');
            }
            content.push_str(part);
            if !part.ends_with(['.', '?', '!', ':', ';', '…']) {
                content.push('.');
            }
            last = part;
        }
        Record {
            url,
            title: heading.to_string(),
            section: section.to_string(),
            content,
            draft: false,
        }
    }
}

/// How many shards `records` records make.
pub(crate) fn shard_count(records: usize) -> usize {
    records.div_ceil(SHARD_RECORDS).clamp(1, MAX_SHARDS)
}

/// Builds the index of `records` and returns its files, under [`BUNDLE`]: each shard from
/// `cache` when its records are unchanged, else indexed (shards in parallel) and stored.
pub(crate) fn index(
    mut records: Vec<Record>,
    cache: &BuildCache,
) -> Result<Vec<OutFile>, SearchError> {
    let count = shard_count(records.len());
    let mut shards: Vec<Vec<Record>> = (0..count).map(|_| Vec::new()).collect();
    records.sort_by(|a, b| a.url.cmp(&b.url));
    for r in records {
        shards[shard_of(&r.url, count)].push(r);
    }
    let built = shards
        .into_par_iter()
        .enumerate()
        .map(|(i, records)| {
            let input = cache_input(i, count, &records);
            let blob = cache.get_or_make("search", "search", &input, |_| {
                pagefind_bundle(records, i == 0).map(|files| encode(&files))
            })?;
            let dir = match i {
                0 => PathBuf::from(BUNDLE),
                _ => Path::new(BUNDLE).join(format!("shard-{i}")),
            };
            let files = decode(&blob).ok_or_else(|| SearchError::Pagefind {
                message: "a cached search shard could not be read back".into(),
            })?;
            Ok(files
                .into_iter()
                .map(|(name, bytes)| OutFile {
                    path: dir.join(name),
                    bytes,
                })
                .collect::<Vec<_>>())
        })
        .collect::<Result<Vec<_>, SearchError>>()?;
    let merged: Vec<String> = (1..count).map(|i| format!("shard-{i}/")).collect();
    let mut files: Vec<OutFile> = built.into_iter().flatten().collect();
    files.push(OutFile {
        path: Path::new(BUNDLE).join(SHARDS),
        bytes: serde_json::to_vec(&merged).expect("a list of strings serialises"),
    });
    Ok(files)
}

/// The shard of the page at `url`: stable for a given shard count, whatever else changes.
fn shard_of(url: &str, count: usize) -> usize {
    let hash = sha256_hex(url.as_bytes());
    let n = u64::from_str_radix(&hash[..16], 16).expect("sha256_hex writes hex");
    (n % count as u64) as usize
}

/// What a shard's index is made from, as the cache key's input: lengths before each field,
/// so no two different record lists read the same.
fn cache_input(shard: usize, count: usize, records: &[Record]) -> String {
    let mut input = format!(
        "pagefind {PAGEFIND_VERSION}\nsearch pipeline {PIPELINE_VERSION}\nshard {shard} of {count}\n"
    );
    for r in records {
        for field in [&r.url, &r.title, &r.section, &r.content] {
            input.push_str(&format!("{}:", field.len()));
            input.push_str(field);
        }
        input.push_str(if r.draft { "D\n" } else { "P\n" });
    }
    input
}

/// Indexes one shard with Pagefind; the primary shard keeps Pagefind's script and
/// WebAssembly, the others only their index (merged shards use the primary's).
fn pagefind_bundle(
    records: Vec<Record>,
    primary: bool,
) -> Result<Vec<(String, Vec<u8>)>, SearchError> {
    let fail = |e: anyhow::Error| SearchError::Pagefind {
        message: format!("{e:#}"),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| fail(e.into()))?;
    runtime.block_on(async {
        let fragment_files = records.len().div_ceil(PAGES_PER_FRAGMENT_FILE).max(1);
        let options = pagefind::options::PagefindServiceConfig::builder()
            .force_language("en".to_string())
            .max_fragments(u32::try_from(fragment_files).unwrap_or(u32::MAX))
            .build();
        let mut index = pagefind::api::PagefindIndex::new(Some(options)).map_err(fail)?;
        for r in records {
            let mut meta = BTreeMap::from([
                ("title".to_string(), r.title),
                ("section".to_string(), r.section),
            ]);
            if r.draft {
                meta.insert("draft".into(), "draft".into());
            }
            index
                .add_custom_record(r.url, r.content, "en".into(), Some(meta), None, None)
                .await
                .map_err(fail)?;
        }
        let files = index.get_files().await.map_err(fail)?;
        Ok(files
            .into_iter()
            // The UI bundles are Pagefind's own search widgets; the site has its own.
            .filter(|f| !is_unused_ui(&f.filename))
            .filter(|f| primary || is_index_data(&f.filename))
            .map(|f| (f.filename.to_string_lossy().into_owned(), f.contents))
            .collect())
    })
}

/// What a merged shard needs: its entry file, metadata, and index, fragment and filter
/// chunks (not the script or the WebAssembly, which come from the primary bundle).
fn is_index_data(name: &Path) -> bool {
    let name = name.to_string_lossy();
    name == "pagefind-entry.json"
        || name.ends_with(".pf_meta")
        || ["index/", "fragment/", "filter/"]
            .iter()
            .any(|d| name.starts_with(d))
}

/// A shard's files as one cache entry: for each file, its name and length on a line, then
/// its bytes.
fn encode(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, bytes) in files {
        out.extend_from_slice(format!("{name}\n{}\n", bytes.len()).as_bytes());
        out.extend_from_slice(bytes);
    }
    out
}

/// [`encode`] read back; `None` if the bytes are not what it writes.
fn decode(mut blob: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut files = Vec::new();
    let line = |blob: &mut &[u8]| -> Option<String> {
        let end = blob.iter().position(|&b| b == b'\n')?;
        let text = std::str::from_utf8(&blob[..end]).ok()?.to_string();
        *blob = &blob[end + 1..];
        Some(text)
    };
    while !blob.is_empty() {
        let name = line(&mut blob)?;
        let len: usize = line(&mut blob)?.parse().ok()?;
        let (bytes, rest) = blob.split_at_checked(len)?;
        files.push((name, bytes.to_vec()));
        blob = rest;
    }
    Some(files)
}

fn is_unused_ui(name: &Path) -> bool {
    let name = name.to_string_lossy();
    name.starts_with("pagefind-ui")
        || name.starts_with("pagefind-modular-ui")
        || name.starts_with("pagefind-component-ui")
        || name.starts_with("playground")
}

/// The text of an HTML fragment that our own renderer produced: tags dropped, the common
/// entities decoded, blocks separated by spaces. Inline tags (emphasis, links, the
/// highlighter's spans) join their text to its neighbours', so a word reads the same
/// whether or not code was highlighted; text hidden from screen readers (code-line
/// numbers) is left out.
pub(crate) fn text_of(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    // Depth of spans inside a hidden one, while skipping it.
    let mut hidden: Option<usize> = None;
    // Inside a formula's MathML but outside its TeX annotation: the TeX is what is indexed.
    let mut in_math = false;
    while let Some(lt) = rest.find('<') {
        if hidden.is_none() && !in_math {
            push_decoded(&mut out, &rest[..lt]);
        }
        let Some(gt) = rest[lt..].find('>') else {
            rest = "";
            break;
        };
        let tag = &rest[lt + 1..lt + gt];
        rest = &rest[lt + gt + 1..];
        let closing = tag.starts_with('/');
        let name = tag
            .trim_start_matches('/')
            .split(|c: char| c.is_ascii_whitespace() || c == '/')
            .next()
            .unwrap_or("");
        if name == "math" || name == "annotation" {
            // `<math>` and `</annotation>` start the skipped part, `<annotation>` and
            // `</math>` end it.
            in_math = (name == "math") != closing;
            out.push(' ');
            continue;
        }
        if let Some(depth) = hidden.as_mut() {
            if name.eq_ignore_ascii_case("span") {
                match (closing, *depth) {
                    (true, 0) => hidden = None,
                    (true, _) => *depth -= 1,
                    (false, _) => *depth += 1,
                }
            }
            continue;
        }
        if !closing && !tag.ends_with('/') && name.eq_ignore_ascii_case("span") && hides(tag) {
            hidden = Some(0);
        } else if !INLINE.iter().any(|t| name.eq_ignore_ascii_case(t)) {
            out.push(' ');
        }
    }
    if hidden.is_none() {
        push_decoded(&mut out, rest);
    }
    out
}

/// Whether a tag's element is hidden from reading: `aria-hidden="true"` (a code block's line
/// numbers) or `hidden` (a term's preview).
fn hides(tag: &str) -> bool {
    tag.contains("aria-hidden=\"true\"")
        || (tag.split_ascii_whitespace()).any(|a| a == "hidden" || a.starts_with("hidden="))
}

/// Elements whose tags do not separate words.
/// `sub` and `sup` are left out: a footnote's number is a `sup` after a word.
const INLINE: [&str; 25] = [
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "i", "ins", "kbd",
    "mark", "q", "s", "samp", "small", "span", "strong", "time", "u", "var", "wbr",
];

fn push_decoded(out: &mut String, text: &str) {
    if !text.contains('&') {
        out.push_str(text);
        return;
    }
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let decoded = [
            ("&amp;", '&'),
            ("&lt;", '<'),
            ("&gt;", '>'),
            ("&quot;", '"'),
            ("&#39;", '\''),
            ("&#x27;", '\''),
            ("&nbsp;", ' '),
        ]
        .iter()
        .find(|(entity, _)| tail.starts_with(entity));
        match decoded {
            Some((entity, ch)) => {
                out.push(*ch);
                rest = &tail[entity.len()..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests;
