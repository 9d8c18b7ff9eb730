//! Splits an entry file into YAML front matter and Markdown body, and parses the YAML into
//! `RawFrontMatter`: exactly what the file says, unknown fields refused. Line numbers are
//! of the whole file, not of the YAML block: an author's editor shows whole-file lines.

use serde::Deserialize;

use field_tree::FieldTree;

pub(crate) mod field_tree;

/// An entry file cut in two.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split<'a> {
    /// The YAML between the `---` lines.
    pub(crate) yaml: &'a str,
    /// Whole-file line number of the YAML's first line.
    pub(crate) yaml_line: usize,
    /// The Markdown after the closing `---`.
    pub(crate) body: &'a str,
    /// Whole-file line number of the body's first line.
    pub(crate) body_line: usize,
}

/// Why a file could not be cut into front matter and body.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SplitError {
    /// The file does not start with a `---` line.
    #[error("no front matter: the file must start with a line `---`")]
    NoOpening,
    /// The opening `---` has no partner.
    #[error("front matter opened on line 1 is never closed")]
    NoClosing,
}

/// Cuts `text` (BOM removed, line endings normalised to `\n`) into YAML and body.
pub(crate) fn split(text: &str) -> Result<Split<'_>, SplitError> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| (text.trim_end() == "---").then_some(""))
        .ok_or(SplitError::NoOpening)?;
    let mut offset = 0;
    for (i, line) in rest.split_inclusive('\n').enumerate() {
        if line.trim_end() == "---" {
            let body = &rest[offset + line.len()..];
            return Ok(Split {
                yaml: &rest[..offset],
                yaml_line: 2,
                body,
                body_line: i + 3,
            });
        }
        offset += line.len();
    }
    Err(SplitError::NoClosing)
}

/// A list of names, or one name: `written_by: Ada` and `written_by: [Ada, Grace]` both work.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub(crate) enum Names {
    /// A single name (or "pending").
    One(String),
    /// Several names.
    Many(Vec<String>),
}

impl Names {
    /// The names as a list, in the order written.
    pub(crate) fn to_vec(&self) -> Vec<String> {
        match self {
            Names::One(name) => vec![name.clone()],
            Names::Many(names) => names.clone(),
        }
    }
}

/// A scalar that authors may write as text or as a number (`cc: 7.5` as well as `cc: "7.5"`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub(crate) enum Scalar {
    /// Written as text.
    Text(String),
    /// Written as a number.
    Number(f64),
}

/// A source the page cites.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSource {
    /// Link text.
    pub(crate) title: String,
    /// Where it lives (http or https).
    pub(crate) url: String,
}

/// `diagram.highlight`: the row and column the diagram picks out.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCell {
    /// Tile row.
    pub(crate) row: u32,
    /// Tile column.
    pub(crate) column: u32,
}

/// `diagram.map`: a lane map written in the front matter, as a manifest's `model` writes one.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawLaneMap {
    /// The access model: `shared`, `global` or `branch`.
    pub(crate) kind: String,
    /// `shared`: the 4-byte word lane `lane` reads.
    pub(crate) word: Option<String>,
    /// `shared`, `global`: the byte address lane `lane` reads.
    pub(crate) address: Option<String>,
    /// `branch`: the path lane `lane` takes.
    pub(crate) path: Option<String>,
    /// Bytes each lane reads: 4 (default), 8 or 16.
    pub(crate) width: Option<u32>,
}

/// `diagram:` as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDiagram {
    /// Which drawing (`bank-map`, `lane-banks`); or `kernel` and `row`, or `map`.
    pub(crate) preset: Option<String>,
    /// The kernel (`kernels/<name>.yaml`) whose model's lanes are drawn, at `row`.
    pub(crate) kernel: Option<String>,
    /// The row of `kernel`'s sweep drawn (a label of its `axis.labels`).
    pub(crate) row: Option<String>,
    /// A lane map drawn as it stands.
    pub(crate) map: Option<RawLaneMap>,
    /// The row and column to pick out.
    pub(crate) highlight: Option<RawCell>,
    /// Declared row width in words (32, or 33 for the padded tile).
    pub(crate) width: Option<u32>,
    /// Word stride between lanes, for `lane-banks`.
    pub(crate) stride: Option<u32>,
    /// Paths a warp's lanes take, for `lane-paths`.
    pub(crate) paths: Option<u32>,
    /// Alt text: required, it is the diagram's caption and `<desc>`.
    pub(crate) alt: Option<String>,
}

/// `byline:` as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawByline {
    /// Author name(s), or "pending".
    pub(crate) written_by: Option<Names>,
    /// Reviewer name(s), or "pending".
    pub(crate) reviewed_by: Option<Names>,
    /// YYYY-MM-DD, or "pending".
    pub(crate) written_on: Option<String>,
    /// YYYY-MM-DD, or "pending".
    pub(crate) last_checked_on: Option<String>,
    /// `sha256:…` of the entry as reviewed (written by `coursegen sign`).
    pub(crate) reviewed_hash: Option<String>,
    /// The author's SSH signature over `reviewed_hash` (one line of base64).
    pub(crate) author_signature: Option<String>,
    /// The reviewer's SSH signature over `reviewed_hash` (one line of base64).
    pub(crate) reviewer_signature: Option<String>,
}

/// The front matter exactly as the file says it; see `meta::check_meta` for what we trust.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFrontMatter {
    /// The question, as the page heading.
    pub(crate) title: Option<String>,
    /// URL slug, when it should differ from the file name.
    pub(crate) slug: Option<String>,
    /// The term being defined.
    pub(crate) term: Option<String>,
    /// Groups the glossary index.
    pub(crate) category: Option<String>,
    /// Compute capability the entry is written against.
    pub(crate) cc: Option<Scalar>,
    /// The one-line definition.
    pub(crate) summary: Option<String>,
    /// Other words for the term, each linked to the entry like the term itself.
    pub(crate) aliases: Option<Vec<String>>,
    /// `false`: this page's prose links no glossary terms.
    pub(crate) link_terms: Option<bool>,
    /// Slugs of related glossary entries.
    pub(crate) related: Option<Vec<String>>,
    /// Slugs of day pages where the term is used.
    pub(crate) appears_in: Option<Vec<String>>,
    /// Cited sources.
    pub(crate) sources: Option<Vec<RawSource>>,
    /// The diagram drawn from the bank model.
    pub(crate) diagram: Option<RawDiagram>,
    /// Name of the kernel in kernels/ whose record fills the Measured section.
    pub(crate) measure: Option<String>,
    /// draft | in-review | published.
    pub(crate) status: Option<String>,
    /// Who wrote and reviewed it, and when.
    pub(crate) byline: Option<RawByline>,
}

/// Whole-file line numbers of the front-matter keys, dotted for nested keys. Keeps the
/// front matter's text and its keys, read once, and finds a key's line when asked
/// (diagnostics, the byline's names, and a few fields such as `slug` for every entry that
/// has them). Two are equal when they have the same keys on the same lines, whatever the
/// values.
#[derive(Debug, Clone, Default)]
pub(crate) struct FieldLines {
    yaml: String,
    first_line: usize,
    /// The keys in file order. Read when the text is kept, not when asked: every entry's
    /// byline asks three times (`benches/build.sh`).
    keys: Vec<Key>,
}

/// A key of the front matter, as offsets in its text (which is at most
/// `limits::MAX_FRONT_MATTER_BYTES` long).
#[derive(Debug, Clone)]
struct Key {
    /// Where its line starts.
    line_start: u32,
    /// Where the key's name starts and ends.
    name: (u32, u32),
    /// The key whose map it sits in (an index into `keys`), `None` for a top-level key.
    parent: Option<u32>,
    /// Its line within the text, from 0.
    line: u32,
    /// Whether it starts a list item (`- title: …`, or the first key of `- {title: …}`).
    item: bool,
    /// Whether it is a key of a flow mapping (`{row: 1}`).
    flow: bool,
}

impl PartialEq for FieldLines {
    fn eq(&self, other: &Self) -> bool {
        fn keys(f: &FieldLines) -> impl Iterator<Item = (Option<u32>, &str, u32)> {
            (f.keys.iter()).map(move |k| (k.parent, f.name(k), k.line))
        }
        self.first_line == other.first_line && keys(self).eq(keys(other))
    }
}

impl Eq for FieldLines {}

impl FieldLines {
    /// The keys of `yaml`, whose first line is whole-file line `first_line`. A key sits in
    /// the map of the nearest key above it that starts further left; a flow mapping's keys
    /// (`highlight: {row: 1}`, `- {id: time}`) are read when it closes on its line.
    pub(crate) fn index(yaml: &str, first_line: usize) -> Self {
        let mut keys = Vec::new();
        // The keys whose maps are open: each one's column and index, leftmost first.
        let mut open: Vec<(usize, u32)> = Vec::new();
        for (i, line) in yaml.lines().enumerate() {
            let at = |s: &str| s.as_ptr() as usize - yaml.as_ptr() as usize;
            let line_start = at(line);
            let mut trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            let mut item = false;
            while let Some(rest) = trimmed.strip_prefix("- ") {
                trimmed = rest;
                item = true;
            }
            // A key is the key characters before the line's first `:`.
            let len = key_len(trimmed.as_bytes());
            let is_key = len > 0 && trimmed.as_bytes().get(len) == Some(&b':');
            let flow_item = item && trimmed.starts_with('{');
            if !(is_key || flow_item) {
                continue;
            }
            let column = at(trimmed) - line_start;
            let parent = if indent == 0 {
                if !is_key {
                    continue;
                }
                open.clear();
                None
            } else {
                // The top-level key stays open: a nested key is never a top-level one.
                while open.len() > 1 && open.last().is_some_and(|&(c, _)| c >= column) {
                    open.pop();
                }
                match open.last() {
                    Some(&(_, p)) => Some(p),
                    // A nested key before any top-level one has no parent and is left out.
                    None => continue,
                }
            };
            let key = |start: usize, len: usize, parent, item, flow| Key {
                line_start: line_start as u32,
                name: (start as u32, (start + len) as u32),
                parent,
                line: i as u32,
                item,
                flow,
            };
            // A flow mapping on the line: the key's value, or the list item itself.
            let (flow, parent, item) = if is_key {
                open.push((column, keys.len() as u32));
                keys.push(key(at(trimmed), len, parent, item, false));
                let value = trimmed[len + 1..].trim_start();
                (value, Some(keys.len() as u32 - 1), false)
            } else {
                (trimmed, parent, item)
            };
            if flow.starts_with('{') {
                for (n, (start, len)) in flow_keys(flow).into_iter().enumerate() {
                    keys.push(key(at(flow) + start, len, parent, item && n == 0, true));
                }
            }
        }
        FieldLines {
            yaml: yaml.to_string(),
            first_line,
            keys,
        }
    }

    /// The line of `field` (dotted), else of its parent, else of the opening `---`.
    pub(crate) fn of(&self, field: &str) -> usize {
        let mut name = field;
        loop {
            if let Some(key) = self.key(name) {
                return self.first_line + key.line as usize;
            }
            match name.rsplit_once('.') {
                Some((parent, _)) => name = parent,
                None => return self.first_line.saturating_sub(1).max(1),
            }
        }
    }

    /// Whether the value of `field` (dotted) runs on over more lines than its list items
    /// start on: a scalar that YAML folds (`written_by: Ada Lovelace` and, indented on the
    /// next line, `Grace Hopper`, read as one name `Ada Lovelace Grace Hopper`), a quoted
    /// one broken over lines, or a block scalar (`>`, `|`).
    pub(crate) fn folds(&self, field: &str) -> bool {
        let Some(key) = self.key(field).filter(|k| !k.flow) else {
            return false;
        };
        let mut lines = self.yaml[key.line_start as usize..].lines();
        let Some(own_line) = lines.next() else {
            return false;
        };
        let indent = |l: &str| l.len() - l.trim_start().len();
        let own = own_line.trim_start().trim_start_matches("- ");
        let value = own[self.name(key).len() + 1..].trim();
        let key_indent = indent(own_line);
        let mut open_item = !value.is_empty();
        for l in lines {
            let t = l.trim_start();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            if indent(l) <= key_indent {
                break;
            }
            if let Some(item) = t.strip_prefix("- ").or_else(|| (t == "-").then_some("")) {
                open_item = !item.trim().is_empty();
            } else if open_item || value.starts_with(['>', '|']) {
                return true;
            } else {
                open_item = true;
            }
        }
        false
    }

    /// The first key `field` (dotted, at any depth; a list index such as `sources[1]` is
    /// not told apart from the list's first item) names.
    fn key(&self, field: &str) -> Option<&Key> {
        self.keys.iter().find(|k| self.is_at(k, field))
    }

    /// Whether `key` is the one `field` (dotted) names, its parents included.
    fn is_at<'a>(&'a self, mut key: &'a Key, mut field: &str) -> bool {
        loop {
            let (up, last) = match field.rsplit_once('.') {
                Some((up, last)) => (Some(up), last),
                None => (None, field),
            };
            let last = last.split_once('[').map_or(last, |(name, _)| name);
            if last != self.name(key) {
                return false;
            }
            match (key.parent, up) {
                (None, None) => return true,
                (Some(p), Some(up)) => (key, field) = (&self.keys[p as usize], up),
                _ => return false,
            }
        }
    }

    fn name(&self, key: &Key) -> &str {
        &self.yaml[key.name.0 as usize..key.name.1 as usize]
    }

    /// Each key with the top-level key it sits under (`None` for a top-level key) and its
    /// whole-file line, in file order.
    #[cfg(test)]
    fn keys(&self) -> impl Iterator<Item = (Option<&str>, &str, usize)> {
        self.keys.iter().map(|k| {
            let mut top = k.parent;
            while let Some(up) = top.and_then(|p| self.keys[p as usize].parent) {
                top = Some(up);
            }
            let top = top.map(|p| self.name(&self.keys[p as usize]));
            (top, self.name(k), self.first_line + k.line as usize)
        })
    }
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// How many key characters `text` starts with.
fn key_len(text: &[u8]) -> usize {
    text.iter().take_while(|&&b| is_key_char(b.into())).count()
}

/// The keys of the flow mapping `text` starts with (`{id: time, heading: "Time"}`), as
/// offsets into `text`: its own keys, not those of a mapping inside it (a quoted key is not
/// read); none when it does not close on the line.
fn flow_keys(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut keys = Vec::new();
    let (mut depth, mut quote, mut expect_key) = (0usize, None, false);
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        match (quote, c) {
            (Some(b'"'), b'\\') => i += 1,
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => (quote, expect_key) = (Some(c), false),
            (None, b'{' | b'[') => (depth, expect_key) = (depth + 1, depth == 0),
            (None, b'}' | b']') if depth == 1 => return keys,
            (None, b'}' | b']') => depth = depth.saturating_sub(1),
            (None, b',') => expect_key = depth == 1,
            (None, b' ' | b'\t') => {}
            (None, _) if expect_key => {
                let len = key_len(&bytes[i..]);
                if len > 0 && bytes.get(i + len) == Some(&b':') {
                    keys.push((i, len));
                }
                expect_key = false;
                i += len.max(1);
                continue;
            }
            (None, _) => {}
        }
        i += 1;
    }
    Vec::new()
}

/// A YAML problem, located in the whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct YamlProblem {
    /// Whole-file line.
    pub(crate) line: usize,
    /// The field it concerns, when the parser says.
    pub(crate) field: Option<String>,
    /// The parser's message, without its own location.
    pub(crate) message: String,
    /// A suggested fix.
    pub(crate) help: Option<String>,
}

/// Parses the YAML of a split file into `RawFrontMatter`. An unknown field is reported with
/// every other unknown field of the file, at any depth, each once at its line, so a file
/// with three typos takes one run, not three.
pub(crate) fn parse(split: &Split<'_>) -> Result<RawFrontMatter, Vec<YamlProblem>> {
    parse_one(split).map_err(|first| {
        if unknown_field_name(&first.message).is_none() {
            return vec![first];
        }
        let mut all = unknown_fields(split);
        // serde's own report, unless the scan found it too (it reads no flow mapping that
        // runs over several lines).
        if !(all.iter()).any(|p| p.line == first.line || p.field == first.field) {
            all.push(first);
        }
        all.sort_by_key(|p| p.line);
        all
    })
}

/// Every key of the front matter, at any depth, that `RawFrontMatter` does not have.
fn unknown_fields(split: &Split<'_>) -> Vec<YamlProblem> {
    let known = FieldTree::of::<RawFrontMatter>();
    (unknown_keys(split.yaml, split.yaml_line, &known).into_iter())
        .map(|unknown| YamlProblem {
            line: unknown.line,
            message: format!("unknown field `{}`", unknown.name),
            field: Some(unknown.path),
            help: Some(unknown.help),
        })
        .collect()
}

/// A key that the struct reading its map does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnknownKey {
    /// Whole-file line.
    pub(crate) line: usize,
    /// The key as written.
    pub(crate) name: String,
    /// Its dotted path, list items numbered from 0: `sources[1].titel`.
    pub(crate) path: String,
    /// Names the nearest key its map allows, or all of them.
    pub(crate) help: String,
}

/// Each key of `yaml` (whose first line is whole-file line `first_line`), at any depth, that
/// the struct `known` describes for its map does not have, from the key index (a line scan:
/// no second YAML parse). For a file serde stopped at the first unknown key of (front matter,
/// a kernel manifest). Keys under an unknown key, or in a map no struct reads (a manifest's
/// `constants`), are not judged.
pub(crate) fn unknown_keys(yaml: &str, first_line: usize, known: &FieldTree) -> Vec<UnknownKey> {
    let lines = FieldLines::index(yaml, first_line);
    // Per key: the fields its value's map allows (when a struct reads it), its dotted path,
    // and the list item of its value that its children are in.
    let mut maps: Vec<Option<&FieldTree>> = Vec::with_capacity(lines.keys.len());
    let mut paths: Vec<String> = Vec::with_capacity(lines.keys.len());
    let mut items: Vec<Option<u32>> = vec![None; lines.keys.len()];
    let mut unknown = Vec::new();
    for key in &lines.keys {
        let name = lines.name(key);
        let (within, path) = match key.parent {
            None => (Some(known), name.to_string()),
            Some(p) => {
                let p = p as usize;
                if key.item {
                    items[p] = Some(items[p].map_or(0, |i| i + 1));
                }
                let item = items[p].map(|i| format!("[{i}]")).unwrap_or_default();
                (maps[p], format!("{}{item}.{name}", paths[p]))
            }
        };
        let map = within.and_then(|m| {
            if !m.names.contains(&name) {
                unknown.push(UnknownKey {
                    line: first_line + key.line as usize,
                    name: name.to_string(),
                    help: nearest_field(name, m.names),
                    path: path.clone(),
                });
            }
            m.nested(name)
        });
        maps.push(map);
        paths.push(path);
    }
    unknown
}

/// The help for an unknown key `name` where `allowed` are the keys: the nearest, or all.
fn nearest_field(name: &str, allowed: &[&str]) -> String {
    let closest = (allowed.iter())
        .min_by_key(|c| strsim::levenshtein(name, c))
        .filter(|c| strsim::levenshtein(name, c) <= 3);
    match closest {
        Some(c) => format!("did you mean `{c}`?"),
        None => format!(
            "the fields allowed here are {}",
            (allowed.iter().map(|f| format!("`{f}`")))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn parse_one(split: &Split<'_>) -> Result<RawFrontMatter, YamlProblem> {
    super::limits::check_yaml(split.yaml).map_err(|limit| YamlProblem {
        line: split.yaml_line + limit.line - 1,
        field: limit.field,
        message: limit.message,
        help: Some("front matter holds a few short fields; see README, Security".into()),
    })?;
    if split.yaml.trim().is_empty() {
        return Ok(RawFrontMatter::default());
    }
    // One parse, whatever the file holds: a failed parse is never run again to explain
    // itself (a hostile file would cost twice).
    match serde_norway::from_str::<TopLevel>(split.yaml) {
        Ok(TopLevel::Fields(raw)) => Ok(*raw),
        Ok(TopLevel::Empty) => Ok(RawFrontMatter::default()),
        Ok(TopLevel::Other(kind)) => Err(YamlProblem {
            line: split.yaml_line,
            field: None,
            message: format!(
                "front matter must be a mapping of `field: value` lines, found {kind}"
            ),
            help: Some("write it as `title: What is a warp?` on its own line".into()),
        }),
        Err(err) => Err(problem(split, &err)),
    }
}

/// What the front matter's top level is: its fields, nothing (only comments, or `~`), or
/// something that is not a mapping, named for the message.
enum TopLevel {
    Fields(Box<RawFrontMatter>),
    Empty,
    Other(&'static str),
}

impl<'de> Deserialize<'de> for TopLevel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TopLevelVisitor)
    }
}

struct TopLevelVisitor;

impl<'de> serde::de::Visitor<'de> for TopLevelVisitor {
    type Value = TopLevel;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a mapping of front-matter fields")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<TopLevel, A::Error> {
        let fields = serde::de::value::MapAccessDeserializer::new(map);
        RawFrontMatter::deserialize(fields).map(|raw| TopLevel::Fields(Box::new(raw)))
    }
    fn visit_unit<E>(self) -> Result<TopLevel, E> {
        Ok(TopLevel::Empty)
    }
    fn visit_none<E>(self) -> Result<TopLevel, E> {
        Ok(TopLevel::Empty)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<TopLevel, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(TopLevel::Other("a list"))
    }
    fn visit_str<E>(self, _: &str) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a single string"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a number"))
    }
    fn visit_bool<E>(self, _: bool) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a boolean"))
    }
}

fn problem(split: &Split<'_>, err: &serde_norway::Error) -> YamlProblem {
    let full = err.to_string();
    // libyaml says "found a tab character that violates indentation" at the line before;
    // the author needs the line with the tab, and to hear that YAML indents with spaces.
    if full.contains("tab character") {
        let tabbed = (split.yaml.lines()).position(|l| {
            l.starts_with([' ', '\t']) && l.trim_start_matches(' ').starts_with('\t')
        });
        if let Some(i) = tabbed {
            return YamlProblem {
                line: split.yaml_line + i,
                field: None,
                message: "a tab indents this line: YAML indents with spaces only".into(),
                help: Some(
                    "replace the tab with spaces (two per level, as the other lines)".into(),
                ),
            };
        }
    }
    let message = match full.find(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full,
    };
    // libyaml reports where it gave up and, after "while parsing", where the construct it
    // could not finish began: the earlier line is where the author has to look.
    let context = full_message_lines(&err.to_string()).min();
    let line = err
        .location()
        .map(|l| l.line())
        .into_iter()
        .chain(context)
        .min()
        .map_or(split.yaml_line, |l| split.yaml_line + l.saturating_sub(1));
    // serde_norway prefixes nested errors with the path ("byline: unknown field ...").
    let (field, message) = match message.split_once(": ") {
        Some((path, rest))
            if path
                .chars()
                .all(|c| is_key_char(c) || c == '.' || c == '[' || c == ']') =>
        {
            (Some(path.to_string()), rest.to_string())
        }
        _ => (None, message),
    };
    let help = unknown_field_help(&message).or_else(|| general_help(field.as_deref(), &message));
    // The help lists the allowed fields; don't repeat them in the message.
    let message = match (help.is_some(), message.find(", expected one of")) {
        (true, Some(i)) => message[..i].to_string(),
        _ => message,
    };
    let field = match (field, unknown_field_name(&message)) {
        (Some(path), Some(name)) => Some(format!("{path}.{name}")),
        (path, name) => path.or_else(|| name.map(str::to_string)),
    };
    YamlProblem {
        line,
        field,
        message,
        help,
    }
}

/// The line numbers a libyaml message mentions ("… at line 3 column 1, while parsing … at line 2 …").
fn full_message_lines(message: &str) -> impl Iterator<Item = usize> + '_ {
    message.split(" at line ").skip(1).filter_map(|rest| {
        rest.split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    })
}

/// A suggested fix for type, duplicate and syntax errors, by field where it matters.
fn general_help(field: Option<&str>, message: &str) -> Option<String> {
    let help = if message.contains("duplicate") {
        "each field may appear only once: remove one of them"
    } else if message.contains("invalid type: sequence, expected a string")
        || message.contains("invalid type: map, expected a string")
    {
        "in YAML a value that starts with `[` is a list and one with `{` a mapping: put text \
         in quotes"
    } else if message.contains("invalid type") || message.contains("invalid value") {
        match field.unwrap_or("") {
            "related" | "appears_in" => "write a list of slugs: `related: [warp, bank-conflict]`",
            "sources" => "write a list of items, each with `title:` and `url:` (see README)",
            "byline" => {
                "byline holds written_by, reviewed_by, written_on, last_checked_on, reviewed_hash, author_signature and reviewer_signature"
            }
            f if f.starts_with("diagram.") => {
                "diagram sizes and positions are whole numbers, e.g. `width: 33`"
            }
            "diagram" => {
                "diagram holds preset, highlight, width, stride, paths, kernel, row, map and alt \
                 (see the guide's Diagram options)"
            }
            _ => "see the front-matter reference in README.md for the type of each field",
        }
    } else if field.is_none() {
        "the YAML does not parse near here: brackets and quotes must close, and a value that \
         contains `: ` or starts with `[`, `{`, `*`, `&`, `!`, `%` or `@` needs quotes"
    } else {
        return None;
    };
    Some(help.to_string())
}

fn unknown_field_name(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    rest.split_once('`').map(|(name, _)| name)
}

fn unknown_field_help(message: &str) -> Option<String> {
    let name = unknown_field_name(message)?;
    let candidates = message.split_once("expected one of ").map(|(_, c)| c)?;
    let closest = candidates
        .split(", ")
        .map(|c| c.trim_matches('`'))
        .min_by_key(|c| strsim::levenshtein(name, c))?;
    if strsim::levenshtein(name, closest) <= 3 {
        Some(format!("did you mean `{closest}`?"))
    } else {
        Some(format!("the fields allowed here are {candidates}"))
    }
}

#[cfg(test)]
mod tests;
