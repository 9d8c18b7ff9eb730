//! Several GPUs of one model: their records merge into one table, each row's time the median
//! of the GPUs' medians, with the spread across GPUs kept for the page and for bindings.
use std::collections::BTreeMap;

use crate::measurement::record::{Loaded, StopReason};
use crate::measurement::samples;

/// Records grouped by device model (slug), in slug order; each group in file order.
pub(super) fn by_model(records: &[Loaded]) -> Vec<Vec<&Loaded>> {
    let mut groups: BTreeMap<&str, Vec<&Loaded>> = BTreeMap::new();
    for l in records {
        groups.entry(&l.record.device.slug).or_default().push(l);
    }
    groups.into_values().collect()
}

/// One GPU model's records as one: the first record with each row's median replaced by the
/// median of the GPUs' medians, its spread by the largest, its stop by the worst, the noise
/// of all of them, and (per row label) the spread across GPUs, (max − min) / median.
pub(super) fn merge(group: &[&Loaded]) -> (Loaded, BTreeMap<String, f64>) {
    let mut merged = group[0].clone();
    let mut spread = BTreeMap::new();
    for row in &mut merged.record.rows {
        let same: Vec<_> = group
            .iter()
            .filter_map(|l| l.record.row(&row.label))
            .collect();
        let medians: Vec<f64> = same.iter().map(|r| r.median_ms).collect();
        // `same` holds at least this row of the first record.
        let median = samples::median(&medians).unwrap_or(row.median_ms);
        let (lo, hi) = (medians.iter().copied())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), m| {
                (lo.min(m), hi.max(m))
            });
        spread.insert(row.label.clone(), (hi - lo) / median);
        row.bandwidth_gb_s *= row.median_ms / median;
        row.median_ms = median;
        row.rel_stdev = same.iter().map(|r| r.rel_stdev).fold(0.0, f64::max);
        if let Some(worse) = same.iter().find(|r| r.stop != StopReason::Converged) {
            row.stop = worse.stop;
        }
        // A counter that differs on another GPU must not hide behind the first one's.
        if let Some(other) = same.iter().find(|r| {
            r.counters.as_ref().map(|c| c.per_request())
                != row.counters.as_ref().map(|c| c.per_request())
        }) {
            row.counters.clone_from(&other.counters);
        }
    }
    for l in &group[1..] {
        merged
            .record
            .run
            .noise
            .extend(l.record.run.noise.iter().cloned());
    }
    (merged, spread)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measurement::record::fixture;

    fn loaded(id: &str, scale: f64) -> Loaded {
        let mut record = fixture::record("Fixture GPU", b"s", b"m");
        record.device.gpu_id = Some(id.into());
        for row in &mut record.rows {
            row.median_ms *= scale;
        }
        Loaded {
            path: format!("measurements/bank_conflicts/fixture-gpu-{id}.json").into(),
            record,
        }
    }

    #[test]
    fn two_gpus_of_a_model_merge_into_one_table_with_their_spread() {
        let records = [loaded("aaaa0001", 1.0), loaded("aaaa0002", 1.02)];
        let groups = by_model(&records);
        assert_eq!(groups.len(), 1);
        let (merged, spread) = merge(&groups[0]);
        let l = merged.record.row("L").unwrap();
        assert!((l.median_ms - 1.1 * 1.01).abs() < 1e-12, "{}", l.median_ms);
        assert!((spread["L"] - 0.02 / 1.01).abs() < 1e-12, "{spread:?}");
        let mut noisy = loaded("aaaa0002", 1.0);
        noisy.record.run.noise = vec!["another compute process".into()];
        noisy.record.rows[0].stop = StopReason::TimeLimit;
        let (merged, _) = merge(&[&records[0], &noisy]);
        assert_eq!(merged.record.run.noise, ["another compute process"]);
        assert_eq!(merged.record.rows[0].stop, StopReason::TimeLimit);
    }
}
