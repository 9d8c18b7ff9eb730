//! Kernel manifests: `kernels/<name>.yaml` beside `kernels/<name>.cu`, declaring the sweep,
//! launch shape, sampling policy, reference kernel and glossary table as data. Pure (serde only),
//! read by `measure` to run a kernel and by `view` to lay out its table.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::content::Diagnostic;

use crate::bank::access::{AccessKind, LaneMap, Prediction};
use crate::bank::model::Geometry;

mod model;
#[cfg(test)]
pub(crate) use model::default_counters;
pub(crate) use model::line_of;
pub(crate) use model::{CounterNames, Model};

/// What can be wrong with a manifest; each variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file could not be read.
    #[error("cannot read manifest `{path}`: {error}")]
    Read {
        /// The manifest file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The YAML does not match the manifest format.
    #[error("manifest `{path}` is not valid: {error}")]
    Parse {
        /// The manifest file.
        path: PathBuf,
        /// The YAML error, with its line and column.
        error: serde_norway::Error,
    },
    /// The YAML parsed but a field is inconsistent.
    #[error("manifest `{path}`{}, field `{field}`: {message}", at_line(*line))]
    Field {
        /// The manifest file.
        path: PathBuf,
        /// The 1-based line of the field in the file (0 when it cannot be found).
        line: usize,
        /// The dotted field name, e.g. `table.rows`.
        field: String,
        /// What is wrong and how to fix it.
        message: String,
    },
}

impl ManifestError {
    /// The problems as `check`, `build` and `measure --plan` report them, at `file`'s lines
    /// and fields (`text` is the manifest's text): an unknown field comes with every other
    /// unknown field of the file, at any depth, each once at its line with its dotted path
    /// and the nearest field's name.
    pub(crate) fn diagnostics(self, file: &Path, text: &str) -> Vec<Diagnostic> {
        use crate::content::front_matter::{field_tree::FieldTree, unknown_keys};
        let ManifestError::Parse { error, .. } = &self else {
            return vec![self.diagnostic(file, text)];
        };
        // serde_norway prefixes a nested field's error with its path: "model: unknown field".
        let message = error.to_string();
        if !(message.starts_with("unknown field `") || message.contains(": unknown field `")) {
            return vec![self.diagnostic(file, text)];
        }
        let serde_line = error.location().map(|l| l.line());
        let unknown = unknown_keys(text, 1, &FieldTree::of::<Manifest>());
        let mut all: Vec<Diagnostic> = (unknown.iter())
            .map(|u| {
                Diagnostic::new(file, u.line, format!("unknown field `{}`", u.name))
                    .field(u.path.clone())
                    .help(u.help.clone())
            })
            .collect();
        // serde's own report, unless the scan found it too (it reads no flow mapping that
        // runs over several lines).
        if !unknown.iter().any(|u| Some(u.line) == serde_line) {
            all.push(self.diagnostic(file, text));
        }
        all
    }

    /// The problem as one diagnostic at `file`'s line and field (`text` is the manifest's
    /// text, to find the line of an unknown field).
    fn diagnostic(self, file: &Path, text: &str) -> Diagnostic {
        match self {
            ManifestError::Field {
                line,
                field,
                message,
                ..
            } => Diagnostic::new(file, line, message).field(field),
            ManifestError::Parse { error, .. } => {
                let message = error.to_string();
                // serde names an unknown field: point at its line when the parser did not.
                let unknown = message
                    .strip_prefix("unknown field `")
                    .and_then(|m| m.split('`').next());
                let line = match (error.location().map(|l| l.line()), unknown) {
                    (Some(line), _) if line > 0 => line,
                    (_, Some(field)) => line_of(text, field),
                    _ => 0,
                };
                Diagnostic::new(file, line, format!("not a valid manifest: {message}"))
            }
            ManifestError::Read { error, .. } => {
                Diagnostic::new(file, 0, format!("cannot be read: {error}"))
            }
        }
    }
}

fn at_line(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(", line {line}")
    }
}

/// `bytes_per_thread`: a number, or an expression of the axis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum PerThread {
    /// The same for every row.
    Bytes(u64),
    /// Per row, e.g. `64 * width` for a sweep over float, float2 and float4.
    Expr(String),
}

/// A kernel's manifest, as the YAML file says it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The `extern "C"` entry point in the `.cu` file.
    pub kernel: String,
    /// End of the generated sentence: what the experiment did ("day 15 read a …").
    pub(crate) summary: String,
    /// NVRTC options besides the target architecture, which `measure` picks per device.
    #[serde(default)]
    pub(crate) compile_options: Vec<String>,
    /// The access model that predicts the rows: a lane map (`model::Model`).
    pub(crate) model: Model,
    /// The model's lane map, checked by [`Manifest::parse`].
    #[serde(skip)]
    pub(crate) lane_map: Option<LaneMap>,
    /// The one swept runtime argument and its row labels.
    pub axis: Axis,
    /// Block size and how many logical blocks one launch runs.
    pub(crate) launch: Launch,
    /// Words of the input buffer (the tile's words, the buffer read, or the lanes' seeds).
    pub(crate) input_words: u32,
    /// Bytes each logical thread reads per launch (bytes per launch is this times the
    /// logical threads, which depend on the device: see [`Launch::waves`]); a number, or an
    /// expression of the axis when the rows read different amounts.
    pub(crate) bytes_per_thread: PerThread,
    /// The reference kernel every row's output is checked against.
    pub reference: Reference,
    /// When to stop sampling a row.
    pub(crate) sampling: Sampling,
    /// Which rows and columns the glossary table shows.
    pub(crate) table: Table,
    /// How `measure` compares a new record with the committed one.
    #[serde(default)]
    pub(crate) compare: Compare,
}

/// How a re-measurement is compared with the record before it (`measurement::compare`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Compare {
    /// The change of a row's median (0.02 = 2%) under which a row reads `same` even when
    /// the statistical test finds a difference.
    pub(crate) threshold: f64,
}

/// The change of a row's median that counts when the manifest sets none. Two runs on one
/// H200 differ by at most 0.3% on any row (issue 38's logs), so a re-measurement of the
/// same GPU reads `same` unless something changed; two H200s differ by up to 4% on a
/// memory-bound row, which a comparison with another GPU's record then calls a change.
pub(crate) const DEFAULT_COMPARE_THRESHOLD: f64 = 0.02;

impl Default for Compare {
    fn default() -> Compare {
        Compare {
            threshold: DEFAULT_COMPARE_THRESHOLD,
        }
    }
}

/// The swept argument: one row per value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Axis {
    /// Argument name, e.g. `stride`.
    pub(crate) name: String,
    /// Unit of the values, e.g. `words`.
    pub(crate) unit: String,
    /// The values, in row order.
    pub values: Vec<u32>,
    /// One label per value (e.g. `32L`), used by the table and by prose bindings.
    pub labels: Vec<String>,
}

/// What limits a model's rows, which decides what `measure` prints and judges of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// Shared-memory bandwidth: bytes per SM clock, so the SM clock sets the time.
    SharedMemory,
    /// Device-memory (HBM) bandwidth: the memory clock sets the time, the SM clock does not.
    DeviceMemory,
    /// Instruction issue: the SM clock sets the time and no bytes to speak of move.
    Issue,
}

/// What limits the rows of a kernel whose access is of `kind`: the kernels are written so
/// that one resource does.
pub(crate) fn bound(kind: AccessKind) -> Bound {
    match kind {
        AccessKind::Shared => Bound::SharedMemory,
        AccessKind::Global => Bound::DeviceMemory,
        AccessKind::Branch => Bound::Issue,
    }
}

impl Bound {
    /// Whether the rows move bytes, so that bytes per launch and GB/s mean something.
    pub(crate) fn moves_bytes(self) -> bool {
        self != Bound::Issue
    }

    /// Whether the rows' time follows the SM clock, so that a clock below rated changes it.
    pub(crate) fn follows_sm_clock(self) -> bool {
        self != Bound::DeviceMemory
    }
}

/// Launch shape. The grid is sized from the device so every SM gets the same work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Launch {
    /// Threads per block.
    pub(crate) block_threads: u32,
    /// Logical blocks per launch = `waves` × (SMs × blocks resident per SM).
    pub(crate) waves: u32,
    /// `true`: the grid is one resident wave and each block loops over `waves` logical
    /// blocks; `false`: one block per logical block.
    pub(crate) persistent: bool,
}

/// The reference the kernel's output is checked against before any time counts: a plain
/// kernel of the same `.cu` file, launched with the same arguments and grid, whose output
/// must equal the measured kernel's word for word (ARCHITECTURE.md, `measurement`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// The reference kernel's `extern "C"` entry point, in the same file as `kernel`.
    pub kernel: String,
}

/// Sampling policy (after nvbench): warm up, then sample until converged or out of time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Sampling {
    /// Untimed launches before sampling a row.
    pub(crate) warmup_launches: u32,
    /// Samples always taken.
    pub(crate) min_samples: u32,
    /// Samples never exceeded.
    pub(crate) max_samples: u32,
    /// Stop once the relative standard deviation is at or below this (0.005 = 0.5%).
    pub(crate) target_rel_stdev: f64,
    /// Stop a row after this many seconds of sampling even if not converged.
    pub(crate) time_limit_s: f64,
}

/// The glossary table: which rows, which columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Table {
    /// Row labels shown, in order (a subset of `axis.labels`).
    pub(crate) rows: Vec<String>,
    /// Columns shown, in order.
    pub(crate) columns: Vec<Column>,
}

/// One column of the glossary table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Column {
    /// What the column shows.
    pub(crate) id: ColumnId,
    /// Its heading.
    pub(crate) heading: String,
}

/// The kinds of column the measured table can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ColumnId {
    /// The row label, e.g. `32L`.
    Access,
    /// Banks the 32 lanes cover, from the bank model.
    Banks,
    /// Median time per launch.
    Time,
    /// Median time over the best row's.
    Ratio,
    /// The bank model's predicted conflict degree.
    Model,
    /// Achieved bandwidth (shared memory, or useful global bytes).
    Bandwidth,
    /// Spread of the row's samples (relative standard deviation).
    Spread,
    /// The hardware counter's value per request (`measure --counters`).
    Counter,
    /// Sectors one request touches, from the coalescing model.
    Sectors,
    /// Useful bytes over fetched bytes, from the coalescing model.
    Efficiency,
    /// Lanes switched on in each pass, from a `branch` model.
    Active,
    /// Bytes the lanes move per load instruction, from a `shared` or `global` model.
    Bytes,
    /// What the model says the hardware counter reads per request (wavefronts, sectors or
    /// threads per instruction).
    Expected,
}

impl Manifest {
    /// Reads and checks `kernels/<name>.yaml`.
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let text = std::fs::read_to_string(path).map_err(|error| ManifestError::Read {
            path: path.to_owned(),
            error,
        })?;
        Manifest::parse(path, &text)
    }

    /// Parses and checks manifest text; `path` is only used in messages.
    pub(crate) fn parse(path: &Path, text: &str) -> Result<Manifest, ManifestError> {
        let mut manifest: Manifest =
            serde_norway::from_str(text).map_err(|error| ManifestError::Parse {
                path: path.to_owned(),
                error,
            })?;
        let field_error = |field: String, message: String| ManifestError::Field {
            path: path.to_owned(),
            line: model::line_of(text, &field),
            field,
            message,
        };
        manifest
            .check_sweep()
            .map_err(|(field, message)| field_error(field.to_owned(), message))?;
        let map = (manifest.model)
            .check(&manifest.axis.name, &manifest.axis.values)
            .map_err(|(field, message)| field_error(field, message))?;
        manifest.lane_map = Some(map);
        Ok(manifest)
    }

    /// The access kind of the model.
    pub(crate) fn kind(&self) -> AccessKind {
        self.model.kind
    }

    /// What limits the rows (see [`bound`]).
    pub(crate) fn bound(&self) -> Bound {
        bound(self.kind())
    }

    /// The Nsight Compute metrics that check the model.
    pub(crate) fn counter_names(&self) -> CounterNames {
        self.model.counter_names()
    }

    /// What the model predicts for the row of axis value `value`, with `geometry`'s banks.
    pub fn predict(&self, value: u32, geometry: Geometry) -> Option<Prediction> {
        let map = self.lane_map.as_ref()?;
        model::predict(map, &self.axis.name, value, geometry)
    }

    /// Bytes each logical thread reads per launch in the row of axis value `value`.
    pub(crate) fn bytes_per_thread_at(&self, value: u32) -> Result<u64, String> {
        let text = match &self.bytes_per_thread {
            PerThread::Bytes(b) => return Ok(*b),
            PerThread::Expr(text) => text,
        };
        let name = self.axis.name.as_str();
        let expr = crate::bank::expr::Expr::parse(text, &[name]).map_err(|e| e.to_string())?;
        let got = expr.eval(&[i64::from(value)]).map_err(|e| e.to_string())?;
        u64::try_from(got)
            .ok()
            .filter(|b| *b > 0)
            .ok_or_else(|| format!("is {got} where {name} = {value}: a row reads some bytes"))
    }

    /// The axis value of a row label, if the sweep has that row.
    pub(crate) fn value_of(&self, label: &str) -> Option<u32> {
        let i = self.axis.labels.iter().position(|l| l == label)?;
        self.axis.values.get(i).copied()
    }

    fn check_sweep(&self) -> Result<(), (&'static str, String)> {
        let axis = &self.axis;
        if axis.values.is_empty() {
            return Err(("axis.values", "the sweep needs at least one value".into()));
        }
        if axis.labels.len() != axis.values.len() {
            return Err((
                "axis.labels",
                format!(
                    "{} labels for {} values: give exactly one label per value",
                    axis.labels.len(),
                    axis.values.len()
                ),
            ));
        }
        let unique: BTreeSet<&String> = axis.labels.iter().collect();
        if unique.len() != axis.labels.len() {
            return Err(("axis.labels", "labels must be unique".into()));
        }
        if let Some(bad) = self.table.rows.iter().find(|r| !unique.contains(r)) {
            return Err((
                "table.rows",
                format!(
                    "`{bad}` is not an axis label; labels are {}",
                    axis.labels.join(", ")
                ),
            ));
        }
        if self.launch.block_threads == 0 || !self.launch.block_threads.is_multiple_of(32) {
            return Err((
                "launch.block_threads",
                "must be a positive multiple of 32".into(),
            ));
        }
        if self.launch.waves == 0 {
            return Err(("launch.waves", "must be at least 1".into()));
        }
        for &v in &axis.values {
            self.bytes_per_thread_at(v)
                .map_err(|why| ("bytes_per_thread", why))?;
        }
        let s = &self.sampling;
        if s.min_samples < 2 || s.max_samples < s.min_samples {
            return Err((
                "sampling.min_samples",
                "need 2 ≤ min_samples ≤ max_samples".into(),
            ));
        }
        if !(s.target_rel_stdev > 0.0 && s.time_limit_s > 0.0) {
            return Err((
                "sampling.target_rel_stdev",
                "target_rel_stdev and time_limit_s must be positive".into(),
            ));
        }
        if !(self.compare.threshold >= 0.0 && self.compare.threshold < 1.0) {
            return Err((
                "compare.threshold",
                "a fraction of the median from 0 (every significant change counts) up to, \
                 not including, 1; e.g. 0.02 for 2%"
                    .into(),
            ));
        }
        let bandwidth = self
            .table
            .columns
            .iter()
            .any(|c| c.id == ColumnId::Bandwidth);
        if bandwidth && !self.bound().moves_bytes() {
            return Err((
                "table.columns",
                format!(
                    "a `{}` kernel is bound by instruction issue and moves no bytes to speak \
                     of: its table has no `bandwidth` column",
                    self.kind().name()
                ),
            ));
        }
        self.check_reference()
    }

    /// Entry points are C identifiers, and the reference is another kernel than the one
    /// measured (a kernel checked against itself would check nothing).
    fn check_reference(&self) -> Result<(), (&'static str, String)> {
        let identifier = |name: &str| {
            name.len() <= 200
                && name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if !identifier(&self.kernel) {
            return Err((
                "kernel",
                "an `extern \"C\"` entry point: letters, digits and `_`".into(),
            ));
        }
        if !identifier(&self.reference.kernel) {
            return Err((
                "reference.kernel",
                "an `extern \"C\"` entry point: letters, digits and `_`".into(),
            ));
        }
        if self.reference.kernel == self.kernel {
            return Err((
                "reference.kernel",
                format!(
                    "`{}` is the kernel measured: name a plain kernel of the same file that \
                     computes the same result",
                    self.kernel
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) const FIXTURE: &str = include_str!("../../kernels/bank_conflicts.yaml");

#[cfg(test)]
mod tests;
