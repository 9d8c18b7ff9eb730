//! The text of a device's table and sentence: each row's cost from its model (bank conflict
//! degree, global sectors or divergent passes) beside its measured ratio and counted value,
//! the cells in column order, and the provenance lines.
use super::shape::{MODEL_BAND, RowView};
use crate::bank::access::Prediction;
use crate::bank::model as bank_model;
use crate::measurement::manifest::{ColumnId, Manifest};
use crate::measurement::record::{Loaded, Record, Row, StopReason};

/// What the manifest's lane map predicts for the row of axis value `value` on the record's
/// GPU (its bank geometry; the standard one for a CC the bank model does not know).
pub(super) fn prediction(m: &Manifest, r: &Record, value: u32) -> Option<Prediction> {
    let geometry = bank_model::geometry(&r.device.compute_capability)
        .unwrap_or(bank_model::Geometry::STANDARD);
    m.predict(value, geometry)
}

/// Every row of the record, with model columns, ratio to the best row, the counted value,
/// and a warning when the ratio leaves the model's band ([`MODEL_BAND`]) or the counter
/// differs from the model at all.
pub(super) fn sweep_rows(m: &Manifest, r: &Record) -> Vec<RowView> {
    let best = r
        .rows
        .iter()
        .map(|row| row.median_ms)
        .fold(f64::INFINITY, f64::min);
    let time_cost = |value| prediction(m, r, value).map_or(1.0, |p| p.time_cost());
    // Ratios are to the best row, so the prediction is too: cost over the best row's.
    let best_cost = r
        .rows
        .iter()
        .filter(|row| row.median_ms == best)
        .map(|row| time_cost(row.value))
        .fold(f64::INFINITY, f64::min);
    let best_cost = if best_cost.is_finite() && best_cost > 0.0 {
        best_cost
    } else {
        1.0
    };
    r.rows
        .iter()
        .map(|row| {
            let predicts = prediction(m, r, row.value);
            let ratio = row.median_ms / best;
            let predicted = time_cost(row.value) / best_cost;
            let counted = row.counters.as_ref().map(|c| c.per_request());
            let counter_model = predicts.as_ref().map_or(0.0, Prediction::counter);
            let reasons: Vec<String> = [
                disagreement(r, ratio, predicted),
                counter_disagreement(row, counted, counter_model),
            ]
            .into_iter()
            .flatten()
            .collect();
            let c = model_columns(predicts.as_ref());
            let mut view = RowView {
                label: row.label.clone(),
                value: row.value,
                model_cost: predicts.as_ref().map_or(0, Prediction::cost),
                banks: c.banks,
                degree: c.degree,
                sectors: c.sectors,
                efficiency: c.efficiency,
                active: c.active,
                bytes_per_instruction: c.bytes,
                counter_model,
                predicted_ratio: predicted,
                median_ms: row.median_ms,
                rel_stdev: row.rel_stdev,
                converged: row.stop == StopReason::Converged,
                ratio,
                bandwidth_gb_s: row.bandwidth_gb_s,
                counted,
                counter_what: row
                    .counters
                    .as_ref()
                    .map(|c| c.what.clone())
                    .unwrap_or_default(),
                gpu_spread: 0.0,
                cells: Vec::new(),
                warning: if reasons.is_empty() {
                    String::new()
                } else {
                    format!("{} on {}: {}", row.label, r.device.name, reasons.join("; "))
                },
                reasons,
            };
            view.cells = m.table.columns.iter().map(|c| cell(c.id, &view)).collect();
            view
        })
        .collect()
}

/// The model's columns of a row.
#[derive(Default)]
struct ModelColumns {
    banks: u32,
    degree: u32,
    sectors: u32,
    efficiency: f64,
    active: u32,
    bytes: u64,
}

/// The columns each kind of prediction fills; the others read 0.
fn model_columns(p: Option<&Prediction>) -> ModelColumns {
    let mut c = ModelColumns::default();
    match p {
        Some(Prediction::Shared(s)) => {
            c.banks = s.banks_covered;
            c.degree = s.wavefronts;
            c.bytes = s.bytes_per_instruction();
        }
        Some(Prediction::Global(g)) => {
            c.sectors = g.sectors_per_request();
            c.efficiency = g.efficiency();
            c.bytes = g.bytes_per_instruction();
        }
        Some(Prediction::Branch(b)) => {
            c.active = b.active_per_pass().first().copied().unwrap_or(0);
        }
        None => {}
    }
    c
}

/// Why a row's ratio to the best row is off the model, if it is.
fn disagreement(r: &Record, ratio: f64, predicted: f64) -> Option<String> {
    if (ratio / predicted - 1.0).abs() <= MODEL_BAND {
        return None;
    }
    Some(format!(
        "measured {ratio:.2}× the best row, the model predicts {} (outside ±{:.0}%): check \
         the kernel and the model's geometry for CC {}",
        times(predicted),
        MODEL_BAND * 100.0,
        r.device.compute_capability
    ))
}

/// How far a counted value per request may sit from the model's whole number: the page shows
/// two decimals, and the counter must read exactly the model there. On the H200 the shared
/// wavefront counter holds some 14,000–19,000 wavefronts per launch beyond the measured loads'
/// (5 × 10⁻⁵ of 277 M requests, whatever the stride), far inside this; one request in 200
/// served at the wrong cost is outside it.
pub(crate) const COUNTER_TOLERANCE: f64 = 0.005;

/// Counters count what the model counts, so they must agree to the digits the page shows.
fn counter_disagreement(row: &Row, counted: Option<f64>, model: f64) -> Option<String> {
    match (counted, &row.counters) {
        (Some(n), Some(c)) if (n - model).abs() > COUNTER_TOLERANCE => Some(format!(
            "ncu counted {n:.3} {} ({} / {}), the model predicts exactly {}",
            c.what,
            c.count,
            c.requests,
            number(model)
        )),
        _ => None,
    }
}

/// `2`, `10.67`: a model's value without needless decimals.
fn number(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round())
    } else {
        format!("{x:.2}")
    }
}

/// `8×`, `2.50×`: a predicted ratio without needless decimals.
fn times(x: f64) -> String {
    format!("{}×", number(x))
}

fn cell(id: ColumnId, v: &RowView) -> String {
    match id {
        ColumnId::Access => v.label.clone(),
        ColumnId::Banks => v.banks.to_string(),
        ColumnId::Time => format!("{:.3} ms", v.median_ms),
        ColumnId::Ratio => format!("{:.2}", v.ratio),
        ColumnId::Model => times(v.predicted_ratio),
        ColumnId::Bandwidth => format!("{:.2} TB/s", v.bandwidth_gb_s / 1000.0),
        ColumnId::Spread => {
            let rsd = format!("±{:.2}%", v.rel_stdev * 100.0);
            if v.converged {
                rsd
            } else {
                format!("{rsd} (did not settle)")
            }
        }
        ColumnId::Counter => v
            .counted
            .map_or_else(|| "not counted".to_owned(), |n| format!("{n:.2}")),
        ColumnId::Sectors => v.sectors.to_string(),
        ColumnId::Efficiency => format!("{:.1}%", v.efficiency * 100.0),
        ColumnId::Active => v.active.to_string(),
        ColumnId::Bytes => v.bytes_per_instruction.to_string(),
        ColumnId::Expected => number(v.counter_model),
    }
}

/// The seed's sentence, from the record: device, driver, CUDA, compiler and options.
pub(super) fn sentence(r: &Record, summary: &str) -> String {
    let s = &r.software;
    let driver = s.driver_version.as_deref().unwrap_or("unknown");
    format!(
        "On {} {}, driver {driver}, CUDA {} (NVRTC {}), built with NVRTC {}, {}",
        article(&r.device.name),
        r.device.name,
        s.cuda_driver_api,
        s.nvrtc_version,
        r.build.compile_options.join(" "),
        summary.trim()
    )
}

pub(super) fn provenance(loaded: &Loaded) -> String {
    let r = &loaded.record;
    let date = r.run.date.get(..10).unwrap_or(&r.run.date);
    let file = loaded.path.iter().rev().take(3).collect::<Vec<_>>();
    let file: std::path::PathBuf = file.into_iter().rev().collect();
    format!(
        "Measured {date} by coursegen {}{}: compute capability {}, {} SMs at {:.0} MHz during the run, \
         median of at least {} timed launches per row, every thread checked against a reference kernel{}. \
         Record: {}.",
        r.run.coursegen_version,
        commit(r),
        r.device.compute_capability,
        r.device.sm_count,
        r.device.sm_clock_mhz,
        r.run.min_samples,
        counters_tool(r),
        file.display()
    )
}

/// The provenance of a table merged from several GPUs of one model.
pub(super) fn provenance_of_several(group: &[&Loaded], d: &super::DeviceView) -> String {
    let r = &group[0].record;
    let ids: Vec<String> = group
        .iter()
        .map(|l| {
            l.record
                .device
                .gpu_id
                .clone()
                .unwrap_or_else(|| "unknown".into())
        })
        .collect();
    let (label, worst) = d
        .sweep
        .iter()
        .map(|v| (v.label.as_str(), v.gpu_spread))
        .fold(("", 0.0), |a, b| if b.1 > a.1 { b } else { a });
    let mut dates: Vec<&str> = group
        .iter()
        .map(|l| l.record.run.date.get(..10).unwrap_or(&l.record.run.date))
        .collect();
    dates.sort_unstable();
    dates.dedup();
    format!(
        "Measured {} by coursegen {}{} on {} {}s (GPU ids {}): each time is the median of the \
         GPUs' medians, which differ by at most {:.2}% (row {label}); compute capability {}, \
         {} SMs, median of at least {} timed launches per row, every thread checked against a \
         reference kernel{}.",
        dates.join(", "),
        r.run.coursegen_version,
        commit(r),
        group.len(),
        r.device.name,
        ids.join(", "),
        worst * 100.0,
        r.device.compute_capability,
        r.device.sm_count,
        r.run.min_samples,
        counters_tool(r)
    )
}

fn commit(r: &Record) -> String {
    match (&r.run.git_commit, r.run.git_dirty) {
        (Some(c), Some(true)) => format!(
            " at commit {} (with uncommitted changes)",
            &c[..c.len().min(12)]
        ),
        (Some(c), _) => format!(" at commit {}", &c[..c.len().min(12)]),
        _ => String::new(),
    }
}

fn counters_tool(r: &Record) -> String {
    r.run
        .counters_tool
        .as_ref()
        .map_or(String::new(), |t| format!(", counters read by {t}"))
}

/// "a" or "an" before a device name, by its sound: an NVIDIA, an RTX, a Tesla, an A100.
pub(super) fn article(name: &str) -> &'static str {
    let word = name.split_whitespace().next().unwrap_or("");
    let first = word.chars().next().unwrap_or('x').to_ascii_uppercase();
    let acronym = word.len() > 1
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    let vowel_sound =
        if acronym || word.len() == 1 || word.chars().nth(1).is_some_and(|c| c.is_ascii_digit()) {
            "AEFHILMNORSX".contains(first)
        } else {
            "AEIOU".contains(first)
        };
    if vowel_sound { "an" } else { "a" }
}
