//! The text of a device's table and sentence: each row's banks and predicted degree from the
//! bank model beside its measured ratio, the cells in column order, and the provenance lines.
use super::{MODEL_BAND, RowView, bank_model};
use crate::measurement::manifest::{ColumnId, Manifest};
use crate::measurement::record::{Loaded, Record, Row};

/// Every row of the record, with model columns, ratio to the best row and a warning when the
/// ratio leaves the model's band ([`MODEL_BAND`]).
pub(super) fn sweep_rows(m: &Manifest, r: &Record) -> Vec<RowView> {
    let geometry = bank_model::geometry(&r.device.compute_capability)
        .unwrap_or(bank_model::Geometry::STANDARD);
    let best = r
        .rows
        .iter()
        .map(|row| row.median_ms)
        .fold(f64::INFINITY, f64::min);
    // Ratios are to the best row, so the prediction is too: degree over the best row's.
    let best_degree = r
        .rows
        .iter()
        .filter(|row| row.median_ms == best)
        .map(|row| bank_model::conflict_degree_for_stride(row.value, geometry))
        .min()
        .unwrap_or(1);
    r.rows
        .iter()
        .map(|row| {
            let degree = bank_model::conflict_degree_for_stride(row.value, geometry);
            let ratio = row.median_ms / best;
            let predicted = f64::from(degree) / f64::from(best_degree);
            let mut view = RowView {
                label: row.label.clone(),
                value: row.value,
                banks: bank_model::banks_covered_by_stride(row.value, geometry),
                degree,
                median_ms: row.median_ms,
                ratio,
                bandwidth_gb_s: row.bandwidth_gb_s,
                cells: Vec::new(),
                warning: disagreement(row, r, ratio, predicted),
            };
            view.cells = m.table.columns.iter().map(|c| cell(c.id, &view)).collect();
            view
        })
        .collect()
}

fn disagreement(row: &Row, r: &Record, ratio: f64, predicted: f64) -> String {
    if (ratio / predicted - 1.0).abs() <= MODEL_BAND {
        return String::new();
    }
    format!(
        "{} on {}: measured {ratio:.2}× the best row, the bank model predicts {predicted:.0}× \
         (outside ±{:.0}%): check the kernel and the bank geometry of CC {}",
        row.label,
        r.device.name,
        MODEL_BAND * 100.0,
        r.device.compute_capability
    )
}

fn cell(id: ColumnId, v: &RowView) -> String {
    match id {
        ColumnId::Access => v.label.clone(),
        ColumnId::Banks => v.banks.to_string(),
        ColumnId::Time => format!("{:.3} ms", v.median_ms),
        ColumnId::Ratio => format!("{:.2}", v.ratio),
        ColumnId::Model => format!("{}×", v.degree),
        ColumnId::Bandwidth => format!("{:.1} TB/s", v.bandwidth_gb_s / 1000.0),
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
        "Measured {date} by coursegen {}: compute capability {}, {} SMs at {:.0} MHz during the run, \
         median of at least {} timed launches per row, every thread checked against a CPU reference. \
         Record: {}.",
        r.run.coursegen_version,
        r.device.compute_capability,
        r.device.sm_count,
        r.device.sm_clock_mhz,
        r.run.min_samples,
        file.display()
    )
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
