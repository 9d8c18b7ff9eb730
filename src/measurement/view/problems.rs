//! What a build says about a kernel's records, grouped so that a bad record reads as one
//! account rather than a line per reason: first a line per record that is refused and why
//! (its checksum broken or missing; marked noisy, with the reasons that belong to no row;
//! no hardware counters where its table shows them), then a line per row with all of that row's reasons (did not settle,
//! disturbed, off the model, a counter off the model or missing, no such row). `build
//! --strict` refuses each of them; the preview prints them as warnings.
use std::collections::BTreeMap;

use super::shape::{DeviceView, MeasuredView, RowView};
use crate::measurement::manifest::ColumnId;
use crate::measurement::record::{Loaded, Seal};

impl MeasuredView {
    /// What `build --strict` refuses besides stale records (which `record::stale_records`
    /// reports): no record at all, or [`MeasuredView::warnings`].
    pub(crate) fn strict_problems(&self) -> Vec<String> {
        if self.devices.is_empty() {
            return vec![format!(
                "kernel `{}` has no measurement record. {}",
                self.kernel, self.not_measured
            )];
        }
        self.warnings()
    }

    /// What a build without `--strict` prints as warnings: per table, a line for each record
    /// that is noisy or lacks the counters its table shows, then a line for each row with
    /// something wrong, all of its reasons on it (stale records are reported with the
    /// records).
    pub(crate) fn warnings(&self) -> Vec<String> {
        let counted = self.columns.iter().any(|c| c.id == ColumnId::Counter);
        self.devices
            .iter()
            .flat_map(|d| Lines::of(self, d, counted).into_lines())
            .collect()
    }
}

/// The lines of one table: the records' and the rows'.
struct Lines<'v> {
    kernel: &'v str,
    device: &'v DeviceView,
    records: Vec<String>,
    /// Row label → its reasons, in the sweep's order once written out.
    rows: BTreeMap<&'v str, Vec<String>>,
}

impl<'v> Lines<'v> {
    fn of(view: &'v MeasuredView, d: &'v DeviceView, counted: bool) -> Lines<'v> {
        let mut lines = Lines {
            kernel: &view.kernel,
            device: d,
            records: Vec::new(),
            rows: BTreeMap::new(),
        };
        for row in &d.sweep {
            if !row.converged {
                lines.row(&row.label, unsettled(row, d));
            }
            for reason in &row.reasons {
                lines.row(&row.label, reason.clone());
            }
        }
        for label in &d.missing_rows {
            lines.row(
                label,
                "the record has no such row: the manifest changed since; re-measure".into(),
            );
        }
        let several = d.sources.len() > 1;
        for source in &d.sources {
            lines.record(source, several, counted);
        }
        lines
    }

    fn row(&mut self, label: &str, reason: String) {
        // Labels come from the sweep or the manifest, both of which the view holds.
        let label = self
            .device
            .sweep
            .iter()
            .map(|r| r.label.as_str())
            .chain(self.device.missing_rows.iter().map(String::as_str))
            .find(|l| *l == label);
        if let Some(label) = label {
            let reasons = self.rows.entry(label).or_default();
            if !reasons.contains(&reason) {
                reasons.push(reason);
            }
        }
    }

    /// One record's own line (noise that belongs to no row, counters missing from every
    /// row the table shows), and its noise that belongs to a row onto that row's line.
    fn record(&mut self, source: &Loaded, several: bool, counted: bool) {
        let r = &source.record;
        let gpu = match (&r.device.gpu_id, several) {
            (Some(id), true) => format!(" (GPU {id})"),
            _ => String::new(),
        };
        let mut own = Vec::new();
        match r.seal_state() {
            Seal::Sealed => {}
            Seal::Broken => own.push(
                "its checksum does not match its content, so it was changed after `measure` \
                 wrote it: restore the file (`git checkout`) or re-measure"
                    .into(),
            ),
            Seal::Unsealed => own.push(format!(
                "it carries no checksum (format {}; `measure` seals what it writes since \
                 format 3), so an edit by hand would not show: re-measure to seal it",
                r.format
            )),
        }
        if r.noisy() {
            let general: Vec<&str> = r
                .run
                .noise
                .iter()
                .filter(|n| row_of(n).is_none())
                .map(String::as_str)
                .collect();
            own.push(if general.is_empty() {
                "it is marked noisy (written with --accept-noisy); its rows below say why".into()
            } else {
                format!(
                    "it is marked noisy (written with --accept-noisy): {}",
                    general.join("; ")
                )
            });
            for (label, reason) in r.run.noise.iter().filter_map(|n| row_of(n)) {
                let settled = self
                    .device
                    .sweep
                    .iter()
                    .find(|v| v.label == label)
                    .is_none_or(|v| v.converged);
                // "did not converge" is the row's "did not settle", said once.
                if settled || !reason.starts_with("did not converge") {
                    self.row(label, format!("{reason}{gpu}"));
                }
            }
        }
        if counted {
            let shown: Vec<&str> = self
                .device
                .rows
                .iter()
                .map(|v| v.label.as_str())
                .filter(|l| r.row(l).is_some())
                .collect();
            let uncounted: Vec<&str> = shown
                .iter()
                .copied()
                .filter(|l| r.row(l).is_some_and(|row| row.counters.is_none()))
                .collect();
            let missing = "has no hardware counters, which the table's counter column shows: \
                           re-measure where ncu is on the PATH (`coursegen measure --gpu` \
                           counts by default)";
            if !uncounted.is_empty() && uncounted.len() == shown.len() {
                own.push(format!("it {missing}"));
            } else {
                for label in uncounted {
                    self.row(label, format!("{missing}{gpu}"));
                }
            }
        }
        if !own.is_empty() {
            self.records.push(format!(
                "the record `{}` of `{}` on {}: {}",
                short_path(source),
                self.kernel,
                r.device.name,
                own.join("; and ")
            ));
        }
    }

    fn into_lines(self) -> Vec<String> {
        let Lines {
            kernel,
            device,
            mut records,
            mut rows,
        } = self;
        let order = device
            .sweep
            .iter()
            .map(|r| r.label.as_str())
            .chain(device.missing_rows.iter().map(String::as_str));
        for label in order {
            if let Some(reasons) = rows.remove(label) {
                records.push(format!(
                    "row `{label}` of `{kernel}` on {}: {}",
                    device.name,
                    reasons.join("; ")
                ));
            }
        }
        records
    }
}

fn unsettled(row: &RowView, d: &DeviceView) -> String {
    format!(
        "did not settle: its samples spread ±{:.2}%, more than the manifest's target of \
         {:.2}%; re-measure on a quiet GPU",
        row.rel_stdev * 100.0,
        d.record.run.target_rel_stdev * 100.0
    )
}

/// The row a noise reason of `measure` names, and the rest of it: "row `L` ran at 1805 MHz"
/// → (`L`, "ran at 1805 MHz"); "row `L`: NVML reported …" → (`L`, "NVML reported …").
fn row_of(reason: &str) -> Option<(&str, &str)> {
    let rest = reason.strip_prefix("row `")?;
    let (label, rest) = rest.split_once('`')?;
    let rest = rest.strip_prefix(':').unwrap_or(rest).trim_start();
    (!label.is_empty() && !rest.is_empty()).then_some((label, rest))
}

/// `measurements/<kernel>/<file>.json`, however the record's path was given.
fn short_path(source: &Loaded) -> String {
    let parts: Vec<_> = source.path.iter().collect();
    let tail = &parts[parts.len().saturating_sub(3)..];
    tail.iter()
        .map(|p| p.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::row_of;

    #[test]
    fn noise_reasons_name_their_row() {
        assert_eq!(
            row_of("row `32L` ran at 1805 MHz, more than 5% below the rated 1980 MHz"),
            Some((
                "32L",
                "ran at 1805 MHz, more than 5% below the rated 1980 MHz"
            ))
        );
        assert_eq!(
            row_of("row `L`: NVML reported the clock held down (hw_slowdown)"),
            Some(("L", "NVML reported the clock held down (hw_slowdown)"))
        );
        assert_eq!(
            row_of("another compute process was on the GPU before the sweep (pid 9)"),
            None
        );
        assert_eq!(row_of("row `` odd"), None);
    }
}
