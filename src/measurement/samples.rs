//! Statistics of timed samples, shared by the GPU run, the page's view and `measure
//! --compare`: the median (one definition for all three), and the Mann–Whitney U test that
//! says whether two runs' samples of one row differ by more than chance (what Google
//! Benchmark's `compare.py` uses). Pure; a leaf: depends on nothing else of ours.

/// The median of `values` (the mean of the middle two for an even count); `None` when empty.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    Some(if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    })
}

/// Two-sided p-value of the Mann–Whitney U test that samples `a` and `b` come from the same
/// distribution, by the normal approximation with a continuity and tie correction (good
/// from about 8 samples a side; a row has at least `min_samples`, 10 in every manifest).
/// `None` when either side is empty. 1.0 when every sample of both sides is equal.
pub(crate) fn mann_whitney_p(a: &[f64], b: &[f64]) -> Option<f64> {
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    if a.is_empty() || b.is_empty() {
        return None;
    }
    // Rank the pooled samples, ties getting the mean of their ranks.
    let mut pooled: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    let (mut rank_sum_a, mut tie_term) = (0.0, 0.0);
    let mut i = 0;
    while i < pooled.len() {
        let mut j = i;
        while j + 1 < pooled.len() && pooled[j + 1].0 == pooled[i].0 {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        let tied = (j - i + 1) as f64;
        tie_term += tied.powi(3) - tied;
        rank_sum_a += rank * pooled[i..=j].iter().filter(|p| p.1).count() as f64;
        i = j + 1;
    }
    let u = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    let mean = n1 * n2 / 2.0;
    let n = n1 + n2;
    let var = n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    if var <= 0.0 {
        return Some(1.0);
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / var.sqrt();
    Some((2.0 * normal_upper_tail(z)).min(1.0))
}

/// P(Z > z) for a standard normal Z, from the complementary error function.
fn normal_upper_tail(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// The complementary error function (Numerical Recipes' `erfcc`, fractional error under
/// 1.2 × 10⁻⁷ everywhere: far finer than any significance level a comparison uses).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_no_values() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[7.0]), Some(7.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn the_normal_tail_matches_tables() {
        for (z, p) in [
            (0.0, 0.5),
            (1.0, 0.158_655),
            (1.959_964, 0.025),
            (3.0, 0.001_350),
        ] {
            assert!((normal_upper_tail(z) - p).abs() < 1e-6, "z = {z}");
        }
        assert!((erfc(-1.0) - 1.842_700_8).abs() < 1e-6);
    }

    #[test]
    fn mann_whitney_against_a_worked_example() {
        // No ties: `a`'s ranks sum to 16, so U = 1 of 25, mean 12.5, variance 25 · 11 / 12;
        // z = (11.5 − 0.5) / 4.787 = 2.298 with the continuity correction, p = 2 · 0.01078.
        let a = [1.0, 2.0, 3.0, 4.0, 6.0];
        let b = [5.0, 7.0, 8.0, 9.0, 10.0];
        let p = mann_whitney_p(&a, &b).unwrap();
        assert!((p - 0.02157).abs() < 1e-4, "{p}");
        // Symmetric in its arguments; identical samples are the same distribution.
        assert_eq!(mann_whitney_p(&b, &a), Some(p));
        assert_eq!(mann_whitney_p(&[2.0; 10], &[2.0; 10]), Some(1.0));
        assert_eq!(mann_whitney_p(&[], &[1.0]), None);
    }
}
