//! A manifest's `model:`: the access model its rows are predicted by, declared by the course
//! as a lane map (`bank::access`): the kind (`shared`, `global`, `branch`), one expression of
//! `lane`, the axis and named constants, the width each lane reads, and the Nsight Compute
//! metrics that check it (each kind's by default). Checked here into a `LaneMap` evaluated
//! for every row of the sweep, so a map that fails (division by zero, a negative address)
//! stops the manifest, with its line, before any page or run uses it.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::bank::access::{AccessKind, LaneMap, LaneMapError, LaneValue, Prediction};
use crate::bank::model::Geometry;

/// What the manifest says under `model:`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Model {
    /// `shared`, `global` or `branch`.
    pub(crate) kind: AccessKind,
    /// `shared`: the 4-byte word each lane reads, e.g. `lane * stride`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) word: Option<String>,
    /// `shared` or `global`: the byte address each lane reads, e.g. `lane * stride * 4`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) address: Option<String>,
    /// `shared` or `global`: bytes each lane reads, 4 (the default), 8 or 16; or an
    /// expression of the axis and the constants that gives one of them per row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) width: Option<Width>,
    /// `branch`: the path each lane takes, e.g. `lane / (32 / paths)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) path: Option<String>,
    /// Named whole numbers the expression may use besides `lane` and the axis.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) constants: BTreeMap<String, i64>,
    /// The Nsight Compute metrics that count what the model predicts (the kind's by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) counters: Option<CounterNames>,
}

/// `model.width`: a number of bytes, or an expression of the axis and the constants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Width {
    /// The same width for every row.
    Bytes(u32),
    /// The width per row, e.g. the axis of a sweep over float, float2 and float4.
    Expr(String),
}

/// Two Nsight Compute metrics whose ratio is what a model predicts per request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CounterNames {
    /// What the ratio is, in words: "shared-memory wavefronts per load instruction".
    pub(crate) what: String,
    /// The metric counted.
    pub(crate) count: String,
    /// The metric it is counted per.
    pub(crate) requests: String,
}

/// Each kind's metrics: the ones the course's H200 records were counted with.
pub(crate) fn default_counters(kind: AccessKind) -> CounterNames {
    let (what, count, requests) = match kind {
        AccessKind::Shared => (
            "shared-memory wavefronts per load instruction",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
            "smsp__sass_inst_executed_op_shared_ld.sum",
        ),
        AccessKind::Global => (
            "global sectors per load request",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        ),
        // Their ratio is smsp__thread_inst_executed_per_inst_executed.ratio; the two sums
        // keep the record's counts whole, as for the other kinds.
        AccessKind::Branch => (
            "threads active per executed instruction",
            "smsp__thread_inst_executed.sum",
            "smsp__inst_executed.sum",
        ),
    };
    CounterNames {
        what: what.into(),
        count: count.into(),
        requests: requests.into(),
    }
}

/// Longest metric name or description accepted.
const MAX_COUNTER_TEXT: usize = 200;

/// A problem with `model:`: the dotted field and what is wrong.
pub(super) type Problem = (String, String);

impl Model {
    /// The metrics that check this model.
    pub(crate) fn counter_names(&self) -> CounterNames {
        self.counters
            .clone()
            .unwrap_or_else(|| default_counters(self.kind))
    }

    /// The map checked: the one expression its kind needs, in names `lane`, `axis` and the
    /// constants, evaluated for every value of the sweep.
    pub(super) fn check(&self, axis: &str, values: &[u32]) -> Result<LaneMap, Problem> {
        let field = |name: &str| format!("model.{name}");
        let given = [
            ("word", self.word.as_deref()),
            ("address", self.address.as_deref()),
            ("path", self.path.as_deref()),
        ];
        let allowed: &[&str] = match self.kind {
            AccessKind::Shared => &["word", "address"],
            AccessKind::Global => &["address"],
            AccessKind::Branch => &["path"],
        };
        let mut chosen = None;
        for (name, text) in given {
            let Some(text) = text else { continue };
            if !allowed.contains(&name) || chosen.is_some() {
                return Err((
                    field(name),
                    format!(
                        "a `{}` model gives each lane one of {}",
                        self.kind.name(),
                        allowed
                            .iter()
                            .map(|a| format!("`{a}`"))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ),
                ));
            }
            chosen = Some((name, text));
        }
        let Some((name, text)) = chosen else {
            return Err((
                "model".into(),
                format!(
                    "a `{}` model needs {}: the expression of `lane` and `{axis}` that says \
                     what each lane touches",
                    self.kind.name(),
                    allowed
                        .iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            ));
        };
        if self.kind == AccessKind::Branch && self.width.is_some() {
            return Err((
                field("width"),
                "a branch reads no bytes: leave `width` out".into(),
            ));
        }
        if let Some(counters) = &self.counters {
            check_counters(counters)?;
        }
        let value = match name {
            "word" => LaneValue::Word,
            "address" => LaneValue::Byte,
            _ => LaneValue::Path,
        };
        let constants: Vec<(&str, i64)> = self
            .constants
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        let fixed = match self.width {
            Some(Width::Bytes(bytes)) => bytes,
            _ => 4,
        };
        let mut map =
            LaneMap::new(self.kind, value, fixed, text, axis, &constants).map_err(|e| match e {
                LaneMapError::Width(_) => (field("width"), e.to_string()),
                LaneMapError::ConstantName(_) => (field("constants"), e.to_string()),
                _ => (field(name), e.to_string()),
            })?;
        if let Some(Width::Expr(width)) = &self.width {
            map = (map.width_from(width, axis, &constants))
                .map_err(|e| (field("width"), e.to_string()))?;
        }
        for &v in values {
            let at = i64::from(v);
            map.width_at(at, axis)
                .map_err(|e| (field("width"), e.to_string()))?;
            map.predict(at, axis, Geometry::STANDARD)
                .map_err(|e| (field(name), e.to_string()))?;
        }
        Ok(map)
    }
}

/// Metric names go to `ncu` as arguments: names only (letters, digits, `_` and `.`), so
/// none can read as an option.
fn check_counters(c: &CounterNames) -> Result<(), Problem> {
    for (name, metric) in [("count", &c.count), ("requests", &c.requests)] {
        let ok = metric.len() <= MAX_COUNTER_TEXT
            && metric.starts_with(|ch: char| ch.is_ascii_lowercase())
            && metric
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.');
        if !ok {
            return Err((
                format!("model.counters.{name}"),
                "an Nsight Compute metric name: a lower-case letter, then letters, digits, \
                 `_` and `.` (e.g. `smsp__inst_executed.sum`)"
                    .into(),
            ));
        }
    }
    if c.what.trim().is_empty() || c.what.len() > MAX_COUNTER_TEXT {
        return Err((
            "model.counters.what".into(),
            format!("what the ratio counts, in 1 to {MAX_COUNTER_TEXT} bytes"),
        ));
    }
    Ok(())
}

/// What `map` predicts at axis value `value`; the manifest's check evaluated every value of
/// the sweep, so `None` only for a value outside it.
pub(super) fn predict(
    map: &LaneMap,
    axis: &str,
    value: u32,
    geometry: Geometry,
) -> Option<Prediction> {
    map.predict(i64::from(value), axis, geometry).ok()
}

/// The 1-based line of the dotted `field` (`model.word`) in YAML `text`: the first line of
/// each key in turn, each under the one before; 0 when not found. Good enough for the block
/// and flow styles a manifest uses, and only used to point at a line.
pub(crate) fn line_of(text: &str, field: &str) -> usize {
    let mut from = 0;
    let mut line = 0;
    for key in field.split('.') {
        let key = key.trim_end_matches("[]");
        let found = text
            .lines()
            .enumerate()
            .skip(from)
            .find(|(_, l)| {
                let t = l
                    .trim_start()
                    .trim_start_matches("- ")
                    .trim_start_matches('{');
                t.starts_with(&format!("{key}:"))
                    || l.contains(&format!(" {key}:"))
                    || l.contains(&format!("{{{key}:"))
            })
            .map(|(i, _)| i);
        match found {
            Some(i) => {
                line = i + 1;
                from = i;
            }
            None => return line,
        }
    }
    line
}
