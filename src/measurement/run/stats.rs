//! Sample statistics and the stopping rule for one row (after nvbench): at least
//! `min_samples`, then stop at the target relative standard deviation, the time limit or the
//! sample cap, whichever comes first — and say which. Pure; no GPU.
use crate::measurement::manifest::Sampling;
use crate::measurement::record::StopReason;
use crate::measurement::samples;

/// Summary of a row's samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Summary {
    pub(crate) median: f64,
    pub(crate) min: f64,
    pub(crate) max: f64,
    /// Sample standard deviation (n − 1) over the mean.
    pub(crate) rel_stdev: f64,
}

/// Median, extremes and relative standard deviation; `None` for no samples.
pub(crate) fn summarize(samples: &[f64]) -> Option<Summary> {
    let median = samples::median(samples)?;
    let n = samples.len();
    let mean = samples.iter().sum::<f64>() / n as f64;
    let rel_stdev = if n < 2 || mean == 0.0 {
        0.0
    } else {
        let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        var.sqrt() / mean
    };
    Some(Summary {
        median,
        min: samples.iter().copied().fold(f64::INFINITY, f64::min),
        max: samples.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        rel_stdev,
    })
}

/// Whether to stop after these samples, taken over `elapsed_s` seconds, and why.
pub(crate) fn stop_reason(
    samples: &[f64],
    elapsed_s: f64,
    policy: &Sampling,
) -> Option<StopReason> {
    let n = samples.len();
    if n < policy.min_samples as usize {
        return None;
    }
    let converged = summarize(samples).is_some_and(|s| s.rel_stdev <= policy.target_rel_stdev);
    if converged {
        Some(StopReason::Converged)
    } else if n >= policy.max_samples as usize {
        Some(StopReason::MaxSamples)
    } else if elapsed_s >= policy.time_limit_s {
        Some(StopReason::TimeLimit)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Sampling {
        Sampling {
            warmup_launches: 1,
            min_samples: 10,
            max_samples: 20,
            target_rel_stdev: 0.005,
            time_limit_s: 1.0,
        }
    }

    #[test]
    fn summary_of_odd_and_even_counts() {
        let s = summarize(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        assert!((s.rel_stdev - 0.5).abs() < 1e-12);
        assert_eq!(summarize(&[4.0, 1.0, 2.0, 3.0]).unwrap().median, 2.5);
        assert_eq!(summarize(&[]), None);
        assert_eq!(summarize(&[7.0]).unwrap().rel_stdev, 0.0);
    }

    #[test]
    fn stopping_rule_cases() {
        let steady = vec![1.0; 10];
        let noisy: Vec<f64> = (0..20)
            .map(|i| if i % 2 == 0 { 1.0 } else { 1.1 })
            .collect();
        let cases: [(&[f64], f64, Option<StopReason>); 5] = [
            (&steady[..9], 0.0, None),
            (&steady, 0.0, Some(StopReason::Converged)),
            (&noisy[..10], 0.5, None),
            (&noisy[..10], 1.0, Some(StopReason::TimeLimit)),
            (&noisy, 0.5, Some(StopReason::MaxSamples)),
        ];
        for (samples, elapsed, want) in cases {
            assert_eq!(
                stop_reason(samples, elapsed, &policy()),
                want,
                "{samples:?} {elapsed}"
            );
        }
    }
}
