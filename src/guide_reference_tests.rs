//! The guide's reference pages (`guide/src/reference/*.md`), generated from the code so that
//! they cannot drift from it: every command and flag from the clap definition (its doc
//! comments), every `coursegen.toml` key and every front-matter and manifest field from the
//! serde structs that parse them (a config key's description is its field's doc comment in
//! `config::raw`), which front-matter fields publishing needs by asking the
//! editorial rule itself, and the diagram options by asking the diagram check.
//!
//! A key, field or flag without a description fails `every_key_field_and_flag_is_described`.
//! A page that is not what the code generates fails `reference_pages_are_up_to_date`, which
//! then writes the page as it should be (rust-analyzer's sourcegen tests do the same): run
//! `cargo test --lib guide_reference` and commit the pages it rewrote.
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::CommandFactory;
use serde::de::{self, DeserializeOwned, Visitor};

use crate::bank::access::AccessKind;
use crate::config::raw::{RawConfig, RawGlossary, RawLinks, RawNew, RawReview};
use crate::content::front_matter::{
    RawByline, RawCell, RawDiagram, RawFrontMatter, RawLaneMap, RawSource,
};
use crate::diagram::{
    Cell, DiagramError, DiagramSpec, MAX_SECTOR_STRIDE, MAX_STRIDE, PATH_COUNTS, Preset,
    TILE_WIDTHS, render_svg,
};
use crate::editorial::policy::{self, Rules, Verdict};
use crate::measurement::manifest::{
    Axis, ColumnId, CounterNames, Launch, Manifest, Model, Reference, Sampling, Table,
};

/// Where `coursegen.toml`'s keys are described: each field's doc comment in `config::raw`
/// (its meaning, then `- type:` and `- default:` items).
const CONFIG_SOURCE: &str = include_str!("config/raw.rs");

/// The front matter: field (dotted; `[]` for each item of a list), type, meaning.
const FRONT_MATTER_FIELDS: &[(&str, &str, &str)] = &[
    ("title", "text", "the question, as the page heading"),
    (
        "slug",
        "text",
        "URL segment, when it should differ from the file name",
    ),
    (
        "term",
        "text",
        "the term, as the glossary index lists it; at most 64 bytes",
    ),
    (
        "category",
        "text",
        "groups the glossary index (e.g. `Memory`)",
    ),
    (
        "cc",
        "`\"X.Y\"`",
        "compute capability the entry is written against",
    ),
    (
        "summary",
        "text",
        "the one-line definition under the title (and a linked term's preview)",
    ),
    (
        "aliases",
        "list of text",
        "other words for `term` (`[bank, banks]`), linked like it, each at most 64 bytes; two entries may not claim one word",
    ),
    (
        "link_terms",
        "`true` (default) or `false`",
        "`false`: this page's prose links no glossary terms",
    ),
    (
        "related",
        "list of glossary slugs",
        "\"Related terms\"; each must exist",
    ),
    (
        "appears_in",
        "list of day slugs",
        "\"Where you meet this\"; each must exist in `content/days/`",
    ),
    (
        "sources",
        "list of `{title, url}`",
        "\"Sources\"; URLs must be http(s)",
    ),
    ("sources[].title", "text", "the link text of one source"),
    ("sources[].url", "http(s) address", "where the source lives"),
    (
        "diagram",
        "`{preset, highlight: {row, column}, width, stride, paths, alt}`, `{kernel, row, alt}` or `{map: {kind, word, address, path, width}, alt}`",
        "the Diagram section: a preset drawn from the bank, coalescing or divergence model, or the lanes of a kernel's row or of a lane map: [Diagram options](diagrams.md)",
    ),
    (
        "diagram.preset",
        "preset name",
        "which drawing: `bank-map`, `lane-banks`, `lane-sectors` or `lane-paths`; give one of `preset`, `kernel` and `map`",
    ),
    (
        "diagram.kernel",
        "kernel name (letters, digits, `-`, `_`)",
        "draws the lanes of a row of `kernels/<name>.yaml`, from its `model`, with its kind's lane drawing (`lane-banks` for `shared`, `lane-sectors` for `global`, `lane-paths` for `branch`)",
    ),
    (
        "diagram.row",
        "row label",
        "with `kernel`: the row drawn, one of the manifest's `axis.labels`",
    ),
    (
        "diagram.map",
        "`{kind, word, address, path, width}`",
        "draws the lanes of a lane map written here, as a manifest's `model` writes one, without an axis or constants: an expression of `lane` (0 to 31)",
    ),
    (
        "diagram.map.kind",
        "`shared`, `global` or `branch`",
        "the access model, and so the drawing: `lane-banks`, `lane-sectors` or `lane-paths`",
    ),
    (
        "diagram.map.word",
        "expression",
        "`shared`: the 4-byte word lane `lane` reads, e.g. `lane * 33`",
    ),
    (
        "diagram.map.address",
        "expression",
        "`shared`, `global`: the byte address lane `lane` reads, e.g. `lane * 16`",
    ),
    (
        "diagram.map.path",
        "expression",
        "`branch`: the path lane `lane` takes, e.g. `lane % 4`",
    ),
    (
        "diagram.map.width",
        "4, 8 or 16",
        "`shared`, `global`: bytes each lane reads (default 4)",
    ),
    (
        "diagram.highlight",
        "`{row, column}`",
        "`bank-map`: the word whose row and column are outlined",
    ),
    (
        "diagram.highlight.row",
        "whole number",
        "the tile row, from 0",
    ),
    (
        "diagram.highlight.column",
        "whole number",
        "the word within the row, from 0",
    ),
    (
        "diagram.width",
        "32 or 33",
        "`bank-map`: words per tile row (33 draws the padded tile)",
    ),
    (
        "diagram.stride",
        "whole number",
        "`lane-banks`, `lane-sectors`: lane L reads word `stride · L`",
    ),
    (
        "diagram.paths",
        "1, 2, 4, 8, 16 or 32",
        "`lane-paths`: how many paths the warp's lanes take",
    ),
    (
        "diagram.alt",
        "text",
        "the diagram's alt text: its caption and the SVG's `<desc>`",
    ),
    (
        "measure",
        "kernel name (letters, digits, `-`, `_`)",
        "`kernels/<name>.cu` whose record fills the Measured table",
    ),
    (
        "status",
        "`draft` (default) \\| `in-review` \\| `published`",
        "editorial state",
    ),
    (
        "byline",
        "mapping",
        "who wrote and reviewed the entry, and when",
    ),
    (
        "byline.written_by",
        "name or list of names",
        "authors, or `pending`",
    ),
    (
        "byline.reviewed_by",
        "name or list of names",
        "reviewers, or `pending`",
    ),
    (
        "byline.written_on",
        "`YYYY-MM-DD` or `pending`",
        "the date it was written",
    ),
    (
        "byline.last_checked_on",
        "`YYYY-MM-DD` or `pending`",
        "the date of the last review",
    ),
    (
        "byline.reviewed_hash",
        "`v4:sha256:` and 64 hex digits",
        "written by `coursegen sign`; do not edit by hand",
    ),
    (
        "byline.author_signature",
        "one line of base64 (SSHSIG)",
        "the author's SSH signature over `reviewed_hash` (`coursegen sign --role author --key …`); needed when `[review] require_signatures`, and under `build --strict` once the allowed-signers file exists",
    ),
    (
        "byline.reviewer_signature",
        "one line of base64 (SSHSIG)",
        "the reviewer's SSH signature over `reviewed_hash` (`coursegen sign --key …`); needed as the author's is",
    ),
];

/// A kernel's manifest (`kernels/<name>.yaml`): field, type, meaning.
const MANIFEST_FIELDS: &[(&str, &str, &str)] = &[
    (
        "kernel",
        "text",
        "the measured kernel: an `extern \"C\" __global__` entry point of the `.cu` file with the five parameters of [the kernel contract](../measuring/kernel-contract.md#the-arguments); `coursegen check` compiles it with NVRTC and finds it",
    ),
    (
        "summary",
        "text",
        "end of the generated sentence under the table: what the experiment did (\"day 15 read a …\")",
    ),
    (
        "compile_options",
        "list of text",
        "NVRTC options besides the target architecture, which `measure` picks per device: language and code generation only (`--std=`, `--use_fast_math`, `--fmad=`, `--ftz=`, `--prec-div=`, `--prec-sqrt=`, `--maxrregcount=`, `--extra-device-vectorization`, `--generate-line-info`); an option that names a path is refused",
    ),
    (
        "model",
        "mapping",
        "the access model that predicts the rows, as a lane map: what each lane of a warp touches, as an expression of `lane` (0 to 31), the axis's name and `constants` ([the expression language](#the-expression-language)). E.g. `{ kind: shared, word: lane * stride }`, `{ kind: global, address: lane * stride * 4 }`, `{ kind: branch, path: lane / (32 / paths) }`",
    ),
    (
        "model.kind",
        "model kind",
        "`shared`, `global` or `branch` (below)",
    ),
    (
        "model.word",
        "expression",
        "`shared`: the 4-byte word each lane reads, e.g. `lane * stride`",
    ),
    (
        "model.address",
        "expression",
        "`shared` or `global`: the byte address each lane reads, e.g. `lane * stride * 4`",
    ),
    (
        "model.width",
        "4, 8 or 16, or expression",
        "`shared` or `global`: bytes each lane reads (`float`, `float2`, `float4`); 4 by default; or an expression of the axis and the constants (not of `lane`) giving 4, 8 or 16 per row, e.g. the axis of a sweep over access widths",
    ),
    (
        "model.path",
        "expression",
        "`branch`: the path each lane takes, e.g. `lane / (32 / paths)`",
    ),
    (
        "model.constants",
        "mapping of names to whole numbers",
        "named constants the expression may use, e.g. `{ COLS: 32 }`",
    ),
    (
        "model.counters",
        "mapping",
        "the two Nsight Compute metrics whose ratio the model predicts per request; the kind's by default (below)",
    ),
    (
        "model.counters.what",
        "text",
        "what the ratio counts, in words, e.g. `shared-memory wavefronts per load instruction`",
    ),
    ("model.counters.count", "metric name", "the metric counted"),
    (
        "model.counters.requests",
        "metric name",
        "the metric it is counted per",
    ),
    (
        "axis",
        "mapping",
        "the one swept runtime argument: one row per value",
    ),
    ("axis.name", "text", "argument name, e.g. `stride`"),
    ("axis.unit", "text", "unit of the values, e.g. `words`"),
    (
        "axis.values",
        "list of whole numbers",
        "the values, in row order",
    ),
    (
        "axis.labels",
        "list of text",
        "one label per value (e.g. `32L`), used by the table and by prose bindings",
    ),
    (
        "launch",
        "mapping",
        "launch shape; the grid is sized from the device so every SM gets the same work",
    ),
    ("launch.block_threads", "whole number", "threads per block"),
    (
        "launch.waves",
        "whole number",
        "logical blocks per launch = `waves` × (SMs × blocks resident per SM)",
    ),
    (
        "launch.persistent",
        "`true` or `false`",
        "`true`: the grid is one resident wave and each block loops over `waves` logical blocks; `false`: one block per logical block",
    ),
    (
        "input_words",
        "whole number",
        "words of the input buffer (the tile's words, the buffer read, or the lanes' seeds); a kernel that includes `<coursegen.cuh>` reads it as `coursegen::input_words`, so the size is written once, here",
    ),
    (
        "bytes_per_thread",
        "whole number, or an expression of the axis",
        "bytes each logical thread reads per launch (bytes per launch is this times the logical threads); an expression of the axis when rows read different amounts (`4096 * width` for a sweep over 4-, 8- and 16-byte reads)",
    ),
    (
        "reference",
        "mapping with `kernel`",
        "the reference every row's output is checked against before any time counts",
    ),
    (
        "reference.kernel",
        "text",
        "a plain `extern \"C\"` kernel of the same `.cu` file, with the same parameters: it runs once per row on the same input, with the same arguments and grid, and the measured kernel's output must equal its output word for word",
    ),
    (
        "sampling",
        "mapping",
        "when to stop sampling a row (after nvbench): warm up, then sample until converged or out of time",
    ),
    (
        "sampling.warmup_launches",
        "whole number",
        "untimed launches before sampling a row",
    ),
    (
        "sampling.min_samples",
        "whole number",
        "samples always taken",
    ),
    (
        "sampling.max_samples",
        "whole number",
        "samples never exceeded",
    ),
    (
        "sampling.target_rel_stdev",
        "number",
        "stop once the relative standard deviation is at or below this (0.005 = 0.5 %)",
    ),
    (
        "sampling.time_limit_s",
        "number",
        "stop a row after this many seconds of sampling even if not converged",
    ),
    (
        "compare",
        "mapping",
        "how a re-measurement is compared with the record before it (`measure` and `measure --compare`)",
    ),
    (
        "compare.threshold",
        "number",
        "the change of a row's median (0.02 = 2 %, the default) under which a row reads `same` even when the Mann–Whitney test finds a difference",
    ),
    (
        "table",
        "mapping",
        "which rows and columns the glossary table shows",
    ),
    (
        "table.rows",
        "list of labels",
        "row labels shown, in order (a subset of `axis.labels`)",
    ),
    (
        "table.columns",
        "list of `{id, heading}`",
        "columns shown, in order",
    ),
    (
        "table.columns[].id",
        "column name",
        "what the column shows (the names are below)",
    ),
    ("table.columns[].heading", "text", "its heading"),
];

/// `model.kind:` values.
const MODELS: &[(&str, &str)] = &[
    (
        "shared",
        "shared-memory loads: per phase (the warp for 4-byte reads, each half for 8, each quarter for 16) the most distinct 4-byte words asked of one of the 32 banks, summed: wavefronts per request. Lanes on one word share it (multicast)",
    ),
    (
        "global",
        "global-memory loads: the 32-byte sectors and 128-byte lines the lanes' bytes touch: sectors per request; the time follows the 64-byte pieces device memory moves",
    ),
    (
        "branch",
        "a branch: one pass per distinct path, the lanes on it switched on: passes per warp, and threads active per executed instruction (32 / passes for paths of equal size)",
    ),
];

/// The expression language of `model:`, as the manifest reference states it.
const EXPRESSION_LANGUAGE: &str = "\n## The expression language\n\n\
A lane map's expression is evaluated for each lane (`lane`, 0 to 31) and each value of the \
sweep's axis (by the axis's name), over 64-bit integers: numbers (`33`, `0x20`, `1_000`), \
the names `lane`, the axis and `model.constants`, `+ - * / % & | ^ << >>`, comparisons \
(`< <= > >= == !=`, 1 or 0), unary `-` and `~`, `min(a, b)`, `max(a, b)`, `gcd(a, b)` and \
parentheses, with C's precedence; `/` and `%` truncate as in CUDA. Nothing else: no \
loops, no other functions, no text. At most 4096 bytes, 64 levels of nesting and 1024 \
operations. Overflow, division by zero and a shift outside 0 to 63 are errors: the \
manifest is refused with its line, field, the lane and the axis value.\n";

/// `table.columns[].id` values.
const COLUMNS: &[(&str, &str)] = &[
    ("access", "the row label, e.g. `32L`"),
    ("banks", "banks the 32 lanes cover, from a `shared` model"),
    ("time", "median time per launch"),
    ("ratio", "median time over the best row's"),
    (
        "model",
        "the model's predicted time over the best row's (wavefronts, bytes device memory moves, or passes)",
    ),
    (
        "bandwidth",
        "achieved bandwidth (shared memory, or useful global bytes)",
    ),
    (
        "spread",
        "spread of the row's samples (relative standard deviation)",
    ),
    (
        "counter",
        "the hardware counter's value per request (Nsight Compute)",
    ),
    (
        "sectors",
        "sectors one request touches, from a `global` model",
    ),
    (
        "efficiency",
        "useful bytes over fetched bytes, from a `global` model",
    ),
    (
        "active",
        "lanes switched on in each pass, from a `branch` model",
    ),
    (
        "bytes",
        "bytes the lanes move per load instruction (32 × width), from a `shared` or `global` model",
    ),
    (
        "expected",
        "what the model says the counter reads per request (wavefronts, sectors or threads per instruction)",
    ),
];

/// Diagram presets: what each draws.
const PRESETS: &[(&str, &str)] = &[
    (
        "bank-map",
        "a 32×32 `float` tile, each word shaded by its bank and labelled with the bank number; `width: 33` draws the padded tile, where the picked column spreads over all 32 banks",
    ),
    (
        "lane-banks",
        "the 32 lanes of a warp reading at word `stride`, each bank shaded by how many distinct words it must serve",
    ),
    (
        "lane-sectors",
        "the 32 lanes of a warp reading 4-byte words from global memory at word `stride`, each lane connected to its 32-byte sector, the 128-byte lines the warp spans cut into sectors, fetched ones shaded, and the bytes fetched against those used",
    ),
    (
        "lane-paths",
        "the 32 lanes of a warp split into `paths` groups of neighbours, each on a path of its own, and one row per pass the warp makes, with the share of lane slots that do work",
    ),
];

/// The serde field names of a struct, as its `Deserialize` derive hands them to a
/// deserializer: the code's own list of the keys a file may hold.
fn fields_of<T: DeserializeOwned>() -> Vec<&'static str> {
    struct Probe<'a>(&'a mut Vec<&'static str>);
    impl<'de> de::Deserializer<'de> for Probe<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0.extend_from_slice(fields);
            Err(de::Error::custom("fields recorded"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut fields = Vec::new();
    let _ = T::deserialize(Probe(&mut fields));
    assert!(
        !fields.is_empty(),
        "{} is not a struct",
        std::any::type_name::<T>()
    );
    fields
}

/// The names serde lists after "expected" when `yaml` does not parse as `T`: the variants of
/// an enum, or the fields of a tagged variant.
fn expected_by<T: DeserializeOwned + std::fmt::Debug>(yaml: &str) -> Vec<String> {
    let error = serde_norway::from_str::<T>(yaml).unwrap_err().to_string();
    let after = &error[error.find("expected").unwrap_or_else(|| panic!("{error}"))..];
    after
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// Every dotted path the code's structs give, `prefix`ed.
fn dotted(prefix: &str, fields: &[&str]) -> Vec<String> {
    fields.iter().map(|f| format!("{prefix}{f}")).collect()
}

/// A key's description: type, default, meaning.
type KeyDoc = (String, String, String);

/// Every key the config's structs accept, dotted, in the order serde reads them, each with
/// its description from the field's doc comment (`None` where it has none).
fn config_keys() -> Vec<(String, Option<KeyDoc>)> {
    let described = |name: &str, prefix: &str, fields: Vec<&str>| {
        let docs = field_docs(CONFIG_SOURCE, name);
        (fields.into_iter())
            .map(|f| (format!("{prefix}{f}"), doc_of(&docs, f)))
            .collect::<Vec<_>>()
    };
    let top = field_docs(CONFIG_SOURCE, "RawConfig");
    let mut keys = Vec::new();
    for key in fields_of::<RawConfig>() {
        match key {
            "links" => keys.extend(described("RawLinks", "links.", fields_of::<RawLinks>())),
            "review" => keys.extend(described("RawReview", "review.", fields_of::<RawReview>())),
            "glossary" => keys.extend(described(
                "RawGlossary",
                "glossary.",
                fields_of::<RawGlossary>(),
            )),
            "new" => keys.extend(described("RawNew", "new.", fields_of::<RawNew>())),
            _ => keys.push((key.to_owned(), doc_of(&top, key))),
        }
    }
    keys
}

/// The doc comment of each field of `struct name` in `source`, by field name, one string a
/// line (without `///`).
fn field_docs(source: &str, name: &str) -> Vec<(String, Vec<String>)> {
    let start = (source.find(&format!("pub(crate) struct {name} {{")))
        .unwrap_or_else(|| panic!("no struct {name} in src/config/raw.rs"));
    let (mut out, mut doc) = (Vec::new(), Vec::new());
    for line in source[start..].lines().skip(1).map(str::trim) {
        if line == "}" {
            break;
        }
        if let Some(d) = line.strip_prefix("///") {
            doc.push(d.strip_prefix(' ').unwrap_or(d).to_string());
        } else if let Some((field, _)) = line.trim_start_matches("pub(super) ").split_once(':') {
            out.push((field.to_string(), std::mem::take(&mut doc)));
        }
    }
    out
}

/// The description of `field` from its doc comment: its meaning (the lines before the
/// items, joined), then the `- type:` and `- default:` items (an item's lines joined).
fn doc_of(docs: &[(String, Vec<String>)], field: &str) -> Option<KeyDoc> {
    let (_, lines) = docs.iter().find(|(f, _)| f == field)?;
    let mut parts = vec![String::new()];
    for line in lines.iter().filter(|l| !l.is_empty()) {
        match line.strip_prefix("- ") {
            Some(item) => parts.push(item.to_string()),
            None => {
                let last = parts.last_mut().expect("the meaning comes first");
                if !last.is_empty() {
                    last.push(' ');
                }
                last.push_str(line.trim_start());
            }
        }
    }
    let [meaning, ty, default] = <[String; 3]>::try_from(parts).ok()?;
    let ty = ty.strip_prefix("type: ")?.to_string();
    let default = default.strip_prefix("default: ")?.to_string();
    (!meaning.is_empty()).then_some((ty, default, meaning))
}

fn front_matter_fields() -> Vec<String> {
    let mut out = Vec::new();
    for field in fields_of::<RawFrontMatter>() {
        out.push(field.to_owned());
        match field {
            "sources" => out.extend(dotted("sources[].", &fields_of::<RawSource>())),
            "byline" => out.extend(dotted("byline.", &fields_of::<RawByline>())),
            "diagram" => {
                for sub in fields_of::<RawDiagram>() {
                    out.push(format!("diagram.{sub}"));
                    if sub == "highlight" {
                        out.extend(dotted("diagram.highlight.", &fields_of::<RawCell>()));
                    }
                    if sub == "map" {
                        out.extend(dotted("diagram.map.", &fields_of::<RawLaneMap>()));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn manifest_fields() -> Vec<String> {
    let mut out = Vec::new();
    for field in fields_of::<Manifest>() {
        out.push(field.to_owned());
        let sub = match field {
            "axis" => fields_of::<Axis>(),
            "launch" => fields_of::<Launch>(),
            "sampling" => fields_of::<Sampling>(),
            "table" => fields_of::<Table>(),
            "compare" => fields_of::<crate::measurement::manifest::Compare>(),
            "model" => fields_of::<Model>(),
            "reference" => fields_of::<Reference>(),
            _ => continue,
        };
        for s in sub {
            out.push(format!("{field}.{s}"));
            if field == "model" && s == "counters" {
                out.extend(dotted("model.counters.", &fields_of::<CounterNames>()));
            }
            if field == "table" && s == "columns" {
                out.extend(dotted(
                    "table.columns[].",
                    &fields_of::<crate::measurement::manifest::Column>(),
                ));
            }
        }
    }
    out
}

/// What the code has that `described` does not describe, and what `described` describes
/// that the code does not have, as lines of a failure.
fn compare(what: &str, code: &[String], described: &[&str], out: &mut Vec<String>) {
    let code: BTreeSet<&str> = code.iter().map(String::as_str).collect();
    let described: BTreeSet<&str> = described.iter().copied().collect();
    for missing in code.difference(&described) {
        out.push(format!(
            "{what} `{missing}` has no description (src/guide_reference_tests.rs)"
        ));
    }
    for gone in described.difference(&code) {
        out.push(format!(
            "{what} `{gone}` is described but the code has no such thing"
        ));
    }
}

/// Every undescribed key, field, flag, command or value, one line each.
fn undescribed() -> Vec<String> {
    let mut out = Vec::new();
    let names = |t: &[(&'static str, &str)]| t.iter().map(|r| r.0).collect::<Vec<_>>();
    let firsts3 = |t: &[(&'static str, &str, &str)]| t.iter().map(|r| r.0).collect::<Vec<_>>();
    for (key, _) in config_keys().iter().filter(|(_, doc)| doc.is_none()) {
        out.push(format!(
            "config key `{key}` has no description: its field's doc comment in \
             src/config/raw.rs, the meaning, then `- type:` and `- default:` items"
        ));
    }
    compare(
        "front-matter field",
        &front_matter_fields(),
        &firsts3(FRONT_MATTER_FIELDS),
        &mut out,
    );
    compare(
        "manifest field",
        &manifest_fields(),
        &firsts3(MANIFEST_FIELDS),
        &mut out,
    );
    compare(
        "model",
        &expected_by::<AccessKind>("no-such-model"),
        &names(MODELS),
        &mut out,
    );
    compare(
        "column",
        &expected_by::<ColumnId>("no-such-column"),
        &names(COLUMNS),
        &mut out,
    );
    let presets: Vec<String> = Preset::ALL.iter().map(|p| p.name().to_owned()).collect();
    compare("diagram preset", &presets, &names(PRESETS), &mut out);
    let mut cli = crate::cli::Cli::command();
    cli.build();
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_about().is_none() {
            out.push(format!(
                "command `{}` has no description (its doc comment)",
                sub.get_name()
            ));
        }
        for arg in visible_args(sub) {
            if arg.get_help().is_none() {
                out.push(format!(
                    "flag `{}` of `coursegen {}` has no description (its doc comment)",
                    flag_names(arg),
                    sub.get_name()
                ));
            }
        }
    }
    out
}

fn visible_args(cmd: &clap::Command) -> impl Iterator<Item = &clap::Arg> {
    cmd.get_arguments()
        .filter(|a| !a.is_hide_set() && !matches!(a.get_id().as_str(), "help" | "version"))
}

fn flag_names(arg: &clap::Arg) -> String {
    let mut names = Vec::new();
    if let Some(s) = arg.get_short() {
        names.push(format!("-{s}"));
    }
    if let Some(l) = arg.get_long() {
        names.push(format!("--{l}"));
    }
    if names.is_empty() {
        let value = (arg.get_value_names())
            .and_then(|v| v.first())
            .map_or_else(|| arg.get_id().as_str().to_uppercase(), |v| v.to_string());
        names.push(value);
    }
    names.join(", ")
}

/// `text` (help from the code: plain text with `code` spans) as Markdown: `<` outside the
/// code spans escaped, so that `<root>` is not taken for an HTML tag.
fn markdown(text: &str) -> String {
    (text.split('`').enumerate())
        .map(|(i, part)| {
            if i % 2 == 0 {
                part.replace('<', "&lt;")
            } else {
                part.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// `text` fit for one cell of a Markdown table.
fn cell(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // A `|` that is already escaped stays as it is.
    text.replace("\\|", "\u{1}").replace(['|', '\u{1}'], "\\|")
}

const GENERATED: &str = "<!-- Generated from the code by `cargo test --lib guide_reference` \
                         (src/guide_reference_tests.rs): do not edit. -->";

fn commands_page() -> String {
    let mut cli = crate::cli::Cli::command();
    cli.build();
    let mut page = format!("# Commands and flags\n\n{GENERATED}\n\n");
    page.push_str(
        "Every command of `coursegen`, with every flag, from the definition that parses the \
         command line (the same one `coursegen help`, `coursegen man` and the shell \
         completions print). What the commands are for, and the behaviour they share (exit \
         codes, `--quiet` and `--verbose`, where output goes), is in [Commands](../commands.md).\n",
    );
    // Each command, then each of its own subcommands (`signers add`, `signers list`).
    let mut commands: Vec<(String, &clap::Command)> = Vec::new();
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        commands.push((sub.get_name().to_string(), sub));
        if sub.get_name() == "help" {
            continue;
        }
        for child in (sub.get_subcommands()).filter(|c| !c.is_hide_set() && c.get_name() != "help")
        {
            commands.push((format!("{} {}", sub.get_name(), child.get_name()), child));
        }
    }
    for (name, sub) in commands {
        let _ = write!(page, "\n## `coursegen {name}`\n\n");
        let about = sub
            .get_long_about()
            .or(sub.get_about())
            .map(|a| a.to_string());
        if let Some(about) = about {
            let _ = writeln!(page, "{}\n", markdown(about.trim()));
        }
        let usage = sub
            .clone()
            .bin_name(format!("coursegen {name}"))
            .render_usage();
        let usage = usage.to_string();
        let usage = usage.trim_start_matches("Usage: ");
        let _ = writeln!(page, "```text\n{usage}\n```");
        let args: Vec<&clap::Arg> = visible_args(sub).collect();
        if args.is_empty() {
            continue;
        }
        page.push_str("\n| flag | value | default | meaning |\n| --- | --- | --- | --- |\n");
        for arg in args {
            let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
            let value = if takes_value {
                let names = arg
                    .get_value_names()
                    .map(|v| v.iter().map(|n| n.to_string()));
                let name = names
                    .and_then(|mut n| n.next())
                    .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
                let possible: Vec<String> = (arg.get_possible_values().iter())
                    .filter(|p| !p.is_hide_set())
                    .map(|p| format!("`{}`", p.get_name()))
                    .collect();
                if possible.is_empty() {
                    format!("`{name}`")
                } else {
                    possible.join(", ")
                }
            } else {
                String::new()
            };
            let mut default: Vec<String> = (arg.get_default_values().iter())
                .filter(|_| takes_value)
                .map(|d| format!("`{}`", d.to_string_lossy()))
                .collect();
            if let Some(env) = arg.get_env() {
                default.push(format!("env `{}`", env.to_string_lossy()));
            }
            let help = arg
                .get_long_help()
                .or(arg.get_help())
                .map(|h| h.to_string());
            let _ = writeln!(
                page,
                "| `{}` | {} | {} | {} |",
                flag_names(arg),
                value,
                default.join(", "),
                markdown(&cell(&help.unwrap_or_default()))
            );
        }
    }
    page
}

fn config_page() -> String {
    let mut page = format!("# `coursegen.toml` keys\n\n{GENERATED}\n\n");
    page.push_str(
        "Every key the site config may hold, from the structs that parse it. The file is \
         optional and so is every key; an unknown key is an error with a suggestion. How the \
         config is read and what flags override it: [Site config](../config.md).\n\n\
         | key | type | default | meaning |\n| --- | --- | --- | --- |\n",
    );
    for (key, doc) in config_keys() {
        let (ty, default, meaning) = doc.expect("every key is described");
        let _ = writeln!(
            page,
            "| `{key}` | {} | {} | {} |",
            cell(&ty),
            cell(&default),
            cell(&meaning)
        );
    }
    page
}

/// A glossary entry and a day page that a plain build publishes, every field filled in.
const GLOSSARY_ENTRY: &str = "---
title: What is a warp?
slug: warp
term: Warp
category: Execution
cc: \"9.0\"
summary: Thirty-two threads that the GPU schedules together.
related: [lane]
appears_in: [day-1]
sources:
  - title: CUDA C++ Programming Guide
    url: https://docs.nvidia.com/cuda/
diagram:
  preset: bank-map
  highlight: { row: 1, column: 2 }
  width: 33
  alt: A padded tile, each word shaded by its bank.
measure: bank_conflicts
status: published
byline:
  written_by: Ada Lovelace
  reviewed_by: Grace Hopper
  written_on: 2026-11-01
  last_checked_on: 2026-11-20
---
Thirty-two threads run each instruction together.
";

/// Whether `yaml_path` (dotted, `[]` for every item) is in `value`; removes it when `remove`.
fn take(value: &mut serde_norway::Value, path: &[&str], remove: bool) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return false;
    };
    if let Some(key) = first.strip_suffix("[]") {
        let Some(serde_norway::Value::Sequence(items)) = value.get_mut(key) else {
            return false;
        };
        let mut found = false;
        for item in items {
            found |= take(item, rest, remove);
        }
        return found;
    }
    let Some(map) = value.as_mapping_mut() else {
        return false;
    };
    if rest.is_empty() {
        return if remove {
            map.remove(*first).is_some()
        } else {
            map.contains_key(*first)
        };
    }
    map.get_mut(*first).is_some_and(|v| take(v, rest, remove))
}

/// The entry text without `field`, or `None` when it does not have the field.
fn without(entry: &str, field: &str) -> Option<String> {
    let (yaml, body) = entry
        .trim_start_matches("---\n")
        .split_once("---\n")
        .unwrap();
    let mut value: serde_norway::Value = serde_norway::from_str(yaml).unwrap();
    let path: Vec<&str> = field.split('.').collect();
    take(&mut value, &path, true).then(|| {
        let yaml = serde_norway::to_string(&value).unwrap();
        format!("---\n{yaml}---\n{body}")
    })
}

fn rules(strict: bool) -> Rules {
    Rules {
        today: jiff::civil::date(2026, 11, 30),
        review_max_age_days: policy::DEFAULT_REVIEW_MAX_AGE_DAYS,
        strict,
        preview: false,
        signatures: None,
        required: crate::editorial::policy::Required::ALL,
        glossary: crate::content::load::DEFAULT_GLOSSARY.into(),
        files: None,
    }
}

/// What the editorial rule makes of `text` as `file`: `None` when it does not load at all,
/// else whether it is published.
fn publishes(file: &str, text: &str, strict: bool) -> Option<bool> {
    let entry = crate::content::load::parse_entry(Path::new(file), text).ok()?;
    let entry = Arc::new(entry);
    Some(matches!(
        policy::verdict_of(&entry, &rules(strict)),
        Verdict::Publish(_)
    ))
}

/// The same entry as a day page: the fields only a glossary entry has left in, which a day
/// page may carry too.
fn day_page() -> String {
    GLOSSARY_ENTRY.replace("slug: warp\n", "slug: day-1\n")
}

/// Whether publishing needs `field`, asked of the rule: the field is taken out of a
/// glossary entry and a day page that publish, and the verdict compared.
fn needed(field: &str) -> String {
    const GLOSSARY: &str = "content/glossary/warp.md";
    const DAY: &str = "content/days/day-1.md";
    assert_eq!(
        publishes(GLOSSARY, GLOSSARY_ENTRY, false),
        Some(true),
        "the example must publish"
    );
    assert_eq!(
        publishes(DAY, &day_page(), false),
        Some(true),
        "the example must publish"
    );
    if field == "byline.reviewed_hash" {
        // Under --strict the review must be pinned: the example pinned, then not.
        let entry = crate::content::load::parse_entry(Path::new(GLOSSARY), GLOSSARY_ENTRY).unwrap();
        let hash = policy::pin::review_hash(&entry, &[]);
        let pinned = GLOSSARY_ENTRY.replace(
            "  last_checked_on: 2026-11-20\n",
            &format!("  last_checked_on: 2026-11-20\n  reviewed_hash: {hash}\n"),
        );
        assert_eq!(
            publishes(GLOSSARY, &pinned, true),
            Some(true),
            "the pinned example must publish"
        );
        let unpinned = without(&pinned, field).unwrap();
        return match publishes(GLOSSARY, &unpinned, true) {
            Some(false) => "under `--strict`".into(),
            _ => "no".into(),
        };
    }
    let Some(glossary) = without(GLOSSARY_ENTRY, field) else {
        return "no".into();
    };
    let day = without(&day_page(), field).unwrap();
    let (g, d) = (
        publishes(GLOSSARY, &glossary, false),
        publishes(DAY, &day, false),
    );
    let parent = field
        .rsplit_once('.')
        .map(|(p, _)| p.trim_end_matches("[]"));
    match (g, d, parent) {
        (None, None, None) => "always: the file does not load without it".into(),
        (None, None, Some(parent)) => format!("always, in a `{parent}`"),
        (Some(false), Some(false), _) => "every published entry".into(),
        (Some(false), Some(true), _) => "published glossary entries".into(),
        _ => "no".into(),
    }
}

fn front_matter_page() -> String {
    let mut page = format!("# Front-matter fields\n\n{GENERATED}\n\n");
    page.push_str(
        "Every field an entry's front matter may hold, from the structs that parse it. \
         \"Publishing needs it\" is asked of the editorial rule itself: the field is taken out \
         of a glossary entry and a day page that publish, and the verdict compared. A \
         published entry also needs `status: published`, a named author and a different \
         named reviewer, and no placeholder text left ([The editorial \
         rule](../reviewing/editorial-rule.md)). An unknown field is an error with a \
         suggestion. How entries are written: [Entries and pages](../writing/entries.md).\n\n\
         | field | type | publishing needs it | meaning |\n| --- | --- | --- | --- |\n",
    );
    for field in front_matter_fields() {
        let (_, ty, meaning) = FRONT_MATTER_FIELDS.iter().find(|r| r.0 == field).unwrap();
        let _ = writeln!(
            page,
            "| `{field}` | {} | {} | {} |",
            cell(ty),
            needed(&field),
            cell(meaning)
        );
    }
    page
}

/// A manifest of this repository's, every field filled in.
fn example_manifest() -> serde_norway::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/bank_conflicts.yaml");
    serde_norway::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn manifest_page() -> String {
    let mut page = format!("# Kernel manifest fields\n\n{GENERATED}\n\n");
    page.push_str(
        "A kernel `kernels/<name>.cu` has its sweep in `kernels/<name>.yaml`, as data: what \
         `coursegen measure --gpu` runs and what the Measured table shows. Every field, from \
         the structs that parse it; \"required\" is asked of the parser, by taking the field out \
         of `kernels/bank_conflicts.yaml`. Editing a manifest makes the kernel's records stale, \
         as editing the kernel does. What a kernel must do: [The kernel \
         contract](../measuring/kernel-contract.md); a new one from scratch: [Add a measured \
         concept](../measuring/new-concept.md); how it is measured: [On a \
         workstation](../measuring/workstation.md).\n\n\
         | field | type | required | meaning |\n| --- | --- | --- | --- |\n",
    );
    let example = example_manifest();
    for field in manifest_fields() {
        let (_, ty, meaning) = MANIFEST_FIELDS.iter().find(|r| r.0 == field).unwrap();
        let path: Vec<&str> = field.split('.').collect();
        let mut value = example.clone();
        let required = if take(&mut value, &path, true) {
            if serde_norway::from_value::<Manifest>(value).is_ok() {
                "no"
            } else {
                "yes"
            }
        } else {
            "no"
        };
        let _ = writeln!(
            page,
            "| `{field}` | {} | {required} | {} |",
            cell(ty),
            cell(meaning)
        );
    }
    page.push_str("\n## `model.kind`\n\n| kind | what a row costs | counters by default |\n| --- | --- | --- |\n");
    for model in expected_by::<AccessKind>("no-such-model") {
        let (_, meaning) = MODELS.iter().find(|r| r.0 == model).unwrap();
        let kind: AccessKind = serde_norway::from_str(&model).unwrap();
        let c = crate::measurement::manifest::default_counters(kind);
        let counters = format!("{}: `{}` / `{}`", c.what, c.count, c.requests);
        let _ = writeln!(
            page,
            "| `{model}` | {} | {} |",
            cell(meaning),
            cell(&counters)
        );
    }
    page.push_str(EXPRESSION_LANGUAGE);
    page.push_str("\n## `table.columns[].id`\n\n| column | shows |\n| --- | --- |\n");
    for column in expected_by::<ColumnId>("no-such-column") {
        let (_, meaning) = COLUMNS.iter().find(|r| r.0 == column).unwrap();
        let _ = writeln!(page, "| `{column}` | {} |", cell(meaning));
    }
    page
}

/// The options of `diagram:` that `preset` takes, asked of the diagram check: each option
/// is set alone, to a value it accepts, and the check says whether it applies.
fn takes(preset: Preset, option: &str) -> bool {
    let mut spec = DiagramSpec::new(preset);
    match option {
        "highlight" => spec.highlight = Some(Cell { row: 0, column: 0 }),
        "width" => spec.width = Some(TILE_WIDTHS[0]),
        "stride" => spec.stride = Some(1),
        "paths" => spec.paths = Some(PATH_COUNTS[1]),
        _ => unreachable!("{option}"),
    }
    match render_svg(&spec, "t", "d") {
        Ok(_) => true,
        Err(DiagramError::OptionNotApplicable { .. }) => false,
        Err(e) => panic!("{preset} {option}: {e}"),
    }
}

fn diagrams_page() -> String {
    let mut page = format!("# Diagram options\n\n{GENERATED}\n\n");
    page.push_str(
        "`diagram:` in an entry's front matter draws a picture from the bank, coalescing or \
         divergence model. Every preset, and which options each takes, asked of the diagram \
         check itself. `alt` is required in every diagram. How diagrams look and what they \
         are for: [Diagrams](../writing/diagrams.md).\n\n## Presets\n\n\
         | preset | draws |\n| --- | --- |\n",
    );
    for preset in Preset::ALL {
        let (_, meaning) = PRESETS.iter().find(|r| r.0 == preset.name()).unwrap();
        let _ = writeln!(page, "| `{}` | {} |", preset.name(), cell(meaning));
    }
    let options = ["highlight", "width", "stride", "paths"];
    page.push_str("\n## Which preset takes which option\n\n| preset |");
    for o in options {
        let _ = write!(page, " `{o}` |");
    }
    page.push_str("\n| --- |");
    page.push_str(&" --- |".repeat(options.len()));
    page.push('\n');
    for preset in Preset::ALL {
        let _ = write!(page, "| `{}` |", preset.name());
        for o in options {
            page.push_str(if takes(preset, o) { " yes |" } else { " — |" });
        }
        page.push('\n');
    }
    let widths: Vec<String> = TILE_WIDTHS.iter().map(u32::to_string).collect();
    let paths: Vec<String> = PATH_COUNTS.iter().map(u32::to_string).collect();
    let _ = write!(
        page,
        "\n## Values\n\n| option | accepts | default |\n| --- | --- | --- |\n\
         | `highlight` | `{{ row, column }}`, a word of the tile | none |\n\
         | `width` | {} | 32 |\n\
         | `stride` | 0 to {MAX_STRIDE} for `lane-banks`, 0 to {MAX_SECTOR_STRIDE} for `lane-sectors` | 1 |\n\
         | `paths` | {} | 2 |\n",
        widths.join(" or "),
        paths.join(", ")
    );
    page.push_str(
        "\n## The lanes of a kernel's row, or of a lane map\n\n\
         Instead of `preset`, `kernel` with `row` draws the lanes of one row of a kernel's \
         sweep from its manifest's `model` (`diagram: { kernel: swizzled_tile, row: naive, \
         alt: … }`), and `map` draws a lane map written in the front matter, an expression \
         of `lane` (`diagram: { map: { kind: shared, word: \"lane * 33\" }, alt: … }`). \
         The picture follows from what each lane touches alone: a kernel's row and a map \
         that agree on every lane draw the same pixels, however each is written. Each kind \
         is drawn by one preset's drawing:\n\n| `kind` | drawn as |\n| --- | --- |\n",
    );
    for kind in AccessKind::ALL {
        let _ = writeln!(
            page,
            "| `{}` | `{}` |",
            kind.name(),
            crate::diagram::lane_preset(kind)
        );
    }
    let _ = write!(
        page,
        "\nA `global` map whose lanes span more than {} lines of 128 bytes is refused: its \
         sectors would be slivers. An unknown kernel or row, or an expression that does not \
         parse or fails for a lane, is an error naming the entry's file, line and field.\n",
        crate::diagram::MAX_LINES
    );
    page
}

fn pages() -> Vec<(&'static str, String)> {
    vec![
        ("commands.md", commands_page()),
        ("config.md", config_page()),
        ("front-matter.md", front_matter_page()),
        ("manifest.md", manifest_page()),
        ("diagrams.md", diagrams_page()),
    ]
}

fn reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("guide/src/reference")
}

#[test]
fn every_key_field_and_flag_is_described() {
    let missing = undescribed();
    assert!(
        missing.is_empty(),
        "the guide's reference lacks:\n{}",
        missing.join("\n")
    );
}

#[test]
fn reference_pages_are_up_to_date() {
    let dir = reference_dir();
    let mut stale = Vec::new();
    for (name, text) in pages() {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
            stale.push(format!("guide/src/reference/{name}"));
        }
    }
    assert!(
        stale.is_empty(),
        "the reference was not what the code generates; rewritten, commit them: {}",
        stale.join(", ")
    );
}
