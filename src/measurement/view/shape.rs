//! What a Measured section is once read: the values `templates/measured.html` renders.
use serde::Serialize;

use crate::bank::access::AccessKind;
use crate::measurement::manifest::ColumnId;
use crate::measurement::record::{Loaded, Record};

/// A measured ratio agrees with the model when it lies within this fraction of the predicted
/// slowdown (conflict degree over the best row's). Why 15%: the model counts only serialized
/// shared-memory passes, while a launch also pays fixed costs (launch, filling the tile, loop
/// and store instructions) that the slow rows dilute, so measured ratios sit a little under
/// the degree — by as much as the best row falls short of the hardware limit: 1% on the H200
/// record, 3% in the seed's T4 figures (31.10 for a predicted 32). Clock drift between rows
/// adds well under 1%. 15% is several times that slack, yet a real disagreement — a 2-way
/// conflict priced at 1, 4-byte banks being 8-byte, a kernel that stopped exercising the
/// stride — shows as 50% or more, far outside it.
pub(crate) const MODEL_BAND: f64 = 0.15;

/// The Measured section of one entry: what `templates/measured.html` renders as `measured`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct MeasuredView {
    /// Kernel name (`kernels/<kernel>.cu`).
    pub(crate) kernel: String,
    /// Column headings of every table, from the manifest.
    pub(crate) columns: Vec<ColumnView>,
    /// Every row label of the sweep (bindings may quote any, the table shows some).
    pub(crate) labels: Vec<String>,
    /// One table per GPU with a record, sorted by device slug; empty when not measured.
    pub(crate) devices: Vec<DeviceView>,
    /// The notice shown when `devices` is empty.
    pub(crate) not_measured: String,
}

/// A column of the table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ColumnView {
    /// `access`, `banks`, `time`, `ratio`, `model` or `bandwidth`.
    pub(crate) id: ColumnId,
    /// Its heading.
    pub(crate) heading: String,
}

/// One GPU's record, ready to render.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct DeviceView {
    /// File-name form of the device, e.g. `nvidia-h200`.
    pub(crate) slug: String,
    /// Device name, e.g. `NVIDIA H200`.
    pub(crate) name: String,
    /// "On an NVIDIA H200, driver …, CUDA …, built with …, <manifest summary>"
    pub(crate) sentence: String,
    /// Date, tool, SM clock and record file, for readers who want to check.
    pub(crate) provenance: String,
    /// The kernel or manifest changed since this record was made.
    pub(crate) stale: bool,
    /// Why it is stale and how to refresh it (empty when fresh).
    pub(crate) stale_note: String,
    /// The table's rows (the manifest's `table.rows`), cells in column order.
    pub(crate) rows: Vec<RowView>,
    /// Every row of the sweep, for bindings.
    pub(crate) sweep: Vec<RowView>,
    /// Model-versus-measurement disagreements, one line each.
    pub(crate) warnings: Vec<String>,
    /// The run was disturbed and written with `--accept-noisy`: why, one line each.
    pub(crate) noise: Vec<String>,
    /// Rows whose sampling stopped before the spread was small enough, one line each.
    pub(crate) unsettled: Vec<String>,
    /// GPUs of this model whose records the table merges (1 unless several were measured).
    pub(crate) gpus: usize,
    /// The kind of access model the rows are checked against.
    pub(crate) model: AccessKind,
    /// Highest fraction of the shared-memory limit (SMs × bytes per clock × SM clock) a row reached.
    pub(crate) best_fraction_of_limit: f64,
    #[serde(skip)]
    pub(crate) record: Record,
    /// The records merged into this table, as loaded (one unless several GPUs).
    #[serde(skip)]
    pub(crate) sources: Vec<Loaded>,
    /// Rows the manifest's table shows that the record lacks.
    #[serde(skip)]
    pub(crate) missing_rows: Vec<String>,
}

/// One row of a device's table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct RowView {
    /// Row label, e.g. `32L`.
    pub(crate) label: String,
    /// Axis value, e.g. stride 32.
    pub(crate) value: u32,
    /// Banks the 32 lanes cover (bank model).
    pub(crate) banks: u32,
    /// Predicted conflict degree (bank model).
    pub(crate) degree: u32,
    /// Sectors one warp-wide global load touches (coalescing model).
    pub(crate) sectors: u32,
    /// Useful bytes over fetched bytes (coalescing model).
    pub(crate) efficiency: f64,
    /// What the kernel's model says one request costs (degree, sectors or passes).
    pub(crate) model_cost: u32,
    /// Lanes switched on in each pass (divergence model).
    pub(crate) active: u32,
    /// Bytes the lanes move per load instruction (`shared` and `global` maps).
    pub(crate) bytes_per_instruction: u64,
    /// What the model says the hardware counter reads per request.
    pub(crate) counter_model: f64,
    /// The model's predicted time over the best row's.
    pub(crate) predicted_ratio: f64,
    /// Median time per launch, ms.
    pub(crate) median_ms: f64,
    /// Relative standard deviation of the samples.
    pub(crate) rel_stdev: f64,
    /// Whether sampling stopped because the spread was small enough.
    pub(crate) converged: bool,
    /// Hardware counter per request (`measure --counters`), when counted.
    pub(crate) counted: Option<f64>,
    /// What the counter counts, e.g. `global sectors per load request`.
    pub(crate) counter_what: String,
    /// Median over the best row's median.
    pub(crate) ratio: f64,
    /// Achieved shared-memory bandwidth, GB/s.
    pub(crate) bandwidth_gb_s: f64,
    /// Display text per column, in the order of [`MeasuredView::columns`].
    pub(crate) cells: Vec<String>,
    /// Why the measured ratio or counter disagrees with the model, or empty.
    pub(crate) warning: String,
    /// The same reasons without the row and device in front, one each.
    #[serde(skip)]
    pub(crate) reasons: Vec<String>,
    /// (max − min) / median of this row's time across the GPUs of this model (0 for one).
    pub(crate) gpu_spread: f64,
}
