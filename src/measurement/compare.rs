//! What changed between two records of one kernel, row by row: the same, faster or slower
//! (after nvbench's `nvbench_compare`, SAME / FAST / SLOW). A row changed only when both the
//! Mann–Whitney U test on the two runs' samples says the difference is not chance
//! (p < [`SIGNIFICANCE`]) and its median moved by more than the threshold the manifest sets
//! (`compare.threshold`, 2% by default): the test alone would flag a
//! 0.3 % shift measured over 500 tight samples, the threshold alone a shift inside the
//! noise. Used after `measure --gpu` and by `measure --compare A B`. Pure; uses `record`
//! and `samples`.
use std::fmt;

use crate::measurement::record::Record;
use crate::measurement::samples;

/// The p-value under which the test says two rows' samples differ.
pub(crate) const SIGNIFICANCE: f64 = 0.01;

/// The verdict on one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// No change beyond the noise and the threshold.
    Same,
    /// The new median is lower, significantly and by more than the threshold.
    Faster,
    /// The new median is higher, significantly and by more than the threshold.
    Slower,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Change::Same => "same",
            Change::Faster => "faster",
            Change::Slower => "slower",
        })
    }
}

/// One row of both records compared.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RowChange {
    /// The row's label.
    pub(crate) label: String,
    /// The old record's median (ms).
    pub(crate) old_ms: f64,
    /// The new record's median (ms).
    pub(crate) new_ms: f64,
    /// (new − old) / old.
    pub(crate) relative: f64,
    /// The Mann–Whitney p-value of the two sample sets.
    pub(crate) p: f64,
    /// Same, faster or slower.
    pub(crate) change: Change,
}

/// Two records of one kernel compared.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Comparison {
    /// The threshold used.
    pub(crate) threshold: f64,
    /// Rows in both records, in the new record's order.
    pub(crate) rows: Vec<RowChange>,
    /// Labels of rows only the old record has.
    pub(crate) only_old: Vec<String>,
    /// Labels of rows only the new record has.
    pub(crate) only_new: Vec<String>,
}

/// Compares one row's samples: `old` and `new` in milliseconds.
pub(crate) fn samples(old: &[f64], new: &[f64], threshold: f64) -> Option<(Change, f64, f64)> {
    let (old_ms, new_ms) = (samples::median(old)?, samples::median(new)?);
    let p = samples::mann_whitney_p(old, new)?;
    let relative = (new_ms - old_ms) / old_ms;
    let change = if p >= SIGNIFICANCE || relative.abs() <= threshold {
        Change::Same
    } else if relative > 0.0 {
        Change::Slower
    } else {
        Change::Faster
    };
    Some((change, relative, p))
}

/// Compares every row the two records share.
pub(crate) fn records(old: &Record, new: &Record, threshold: f64) -> Comparison {
    let mut rows = Vec::new();
    for row in &new.rows {
        let Some(before) = old.row(&row.label) else {
            continue;
        };
        // A record holds at least one sample per row (`Record::validate`).
        if let Some((change, relative, p)) = samples(&before.samples_ms, &row.samples_ms, threshold)
        {
            rows.push(RowChange {
                label: row.label.clone(),
                old_ms: before.median_ms,
                new_ms: row.median_ms,
                relative,
                p,
                change,
            });
        }
    }
    let labels = |r: &Record, other: &Record| -> Vec<String> {
        (r.rows.iter())
            .filter(|row| other.row(&row.label).is_none())
            .map(|row| row.label.clone())
            .collect()
    };
    Comparison {
        threshold,
        rows,
        only_old: labels(old, new),
        only_new: labels(new, old),
    }
}

impl Comparison {
    /// `2 slower, 4 same` — the count of each verdict, for a summary line.
    pub(crate) fn tally(&self) -> String {
        let count = |c: Change| self.rows.iter().filter(|r| r.change == c).count();
        let parts: Vec<String> = [Change::Slower, Change::Faster, Change::Same]
            .into_iter()
            .filter(|c| count(*c) > 0)
            .map(|c| format!("{} {c}", count(c)))
            .collect();
        if parts.is_empty() {
            "no row in common".to_owned()
        } else {
            parts.join(", ")
        }
    }
}

/// One line per row: label, old and new median, change, p-value, verdict; then the rows
/// only one side has.
impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:>6} {:>12} {:>12} {:>8} {:>9}  verdict (p < {SIGNIFICANCE} and a change over {:.1}%)",
            "row",
            "old",
            "new",
            "change",
            "p",
            self.threshold * 100.0
        )?;
        for r in &self.rows {
            writeln!(
                f,
                "{:>6} {:>9.4} ms {:>9.4} ms {:>+7.2}% {:>9}  {}",
                r.label,
                r.old_ms,
                r.new_ms,
                r.relative * 100.0,
                p_value(r.p),
                r.change
            )?;
        }
        if !self.only_old.is_empty() {
            writeln!(f, "only in the old record: {}", self.only_old.join(", "))?;
        }
        if !self.only_new.is_empty() {
            writeln!(f, "only in the new record: {}", self.only_new.join(", "))?;
        }
        Ok(())
    }
}

/// A p-value as a reader wants it: `<0.001` rather than a long run of zeros.
fn p_value(p: f64) -> String {
    if p < 0.001 {
        "<0.001".to_owned()
    } else {
        format!("{p:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measurement::manifest::DEFAULT_COMPARE_THRESHOLD as DEFAULT_THRESHOLD;

    /// `n` samples around `median` spread evenly over ± `spread` (a fraction), in an order
    /// that is not sorted, as launches come.
    fn around(median: f64, spread: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| {
                let k = (i * 7) % n; // a permutation of 0..n for n prime to 7
                let at = if n == 1 {
                    0.0
                } else {
                    k as f64 / (n - 1) as f64 * 2.0 - 1.0
                };
                median * (1.0 + spread * at)
            })
            .collect()
    }

    #[track_caller]
    fn case(old: &[f64], new: &[f64], want: Change) {
        let (got, relative, p) = samples(old, new, DEFAULT_THRESHOLD).unwrap();
        assert_eq!(got, want, "change {:+.2}%, p = {p}", relative * 100.0);
    }

    #[test]
    fn equal_samples_are_the_same() {
        let a = around(1.0, 0.005, 20);
        case(&a, &a, Change::Same);
        case(&a, &around(1.0, 0.005, 30), Change::Same);
    }

    #[test]
    fn a_five_percent_shift_with_tight_samples_is_slower_or_faster() {
        // rsd about 0.3 %: the two sets do not overlap at all.
        let old = around(1.0, 0.005, 20);
        case(&old, &around(1.05, 0.005, 20), Change::Slower);
        case(&old, &around(0.95, 0.005, 20), Change::Faster);
        // The fewest samples a manifest allows (10) still tells.
        case(
            &around(1.0, 0.005, 10),
            &around(1.05, 0.005, 10),
            Change::Slower,
        );
    }

    #[test]
    fn a_five_percent_shift_inside_the_noise_is_the_same() {
        // ± 40 % around the median (rsd about 24 %): the shift is well inside it, the
        // ranks interleave and the test finds nothing.
        let old = around(1.0, 0.4, 11);
        let new = around(1.05, 0.4, 11);
        let (change, relative, p) = samples(&old, &new, DEFAULT_THRESHOLD).unwrap();
        assert!((relative - 0.05).abs() < 1e-9);
        assert!(p > 0.5, "{p}");
        assert_eq!(change, Change::Same);
    }

    #[test]
    fn a_significant_shift_under_the_threshold_is_the_same() {
        // 1 % slower over tight samples: real, but under the 2 % that counts.
        let old = around(1.0, 0.001, 50);
        let (change, _, p) = samples(&old, &around(1.01, 0.001, 50), DEFAULT_THRESHOLD).unwrap();
        assert!(p < SIGNIFICANCE, "{p}");
        assert_eq!(change, Change::Same);
        // A manifest that sets 0.5 % sees it.
        let (change, _, _) = samples(&old, &around(1.01, 0.001, 50), 0.005).unwrap();
        assert_eq!(change, Change::Slower);
    }
}
