//! Stand-in for `crate::bank::model` until that branch is merged: the same names and
//! signatures, computed in closed form for 32 banks of 4 bytes.
// replace with bank::model once merged: `use crate::bank::model as bank_model;` in measured.rs

/// Shared-memory geometry of a compute capability (mirrors `bank::model::Geometry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Geometry {
    banks: u32,
}

impl Geometry {
    /// 32 banks of 4 bytes, as on every CC the course covers.
    pub(super) const STANDARD: Geometry = Geometry { banks: 32 };
}

/// Geometry of `cc`; `None` for a CC the course does not know.
pub(super) fn geometry(cc: &str) -> Option<Geometry> {
    const KNOWN: [&str; 11] = [
        "5.0", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "12.0",
    ];
    KNOWN.contains(&cc).then_some(Geometry::STANDARD)
}

/// Banks the 32 lanes cover when lane L reads word `stride_words · L`.
pub(super) fn banks_covered_by_stride(stride_words: u32, geometry: Geometry) -> u32 {
    geometry.banks / gcd(stride_words, geometry.banks)
}

/// Conflict degree when lane L reads word `stride_words · L` (distinct words per bank).
pub(super) fn conflict_degree_for_stride(stride_words: u32, geometry: Geometry) -> u32 {
    if stride_words == 0 {
        1
    } else {
        gcd(stride_words, geometry.banks)
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_of_the_sweep() {
        let g = Geometry::STANDARD;
        let cases = [
            (1, 32, 1),
            (2, 16, 2),
            (4, 8, 4),
            (8, 4, 8),
            (16, 2, 16),
            (32, 1, 32),
            (33, 32, 1),
            (0, 1, 1),
        ];
        for (stride, banks, degree) in cases {
            assert_eq!(banks_covered_by_stride(stride, g), banks, "{stride}");
            assert_eq!(conflict_degree_for_stride(stride, g), degree, "{stride}");
        }
        assert_eq!(geometry("9.0"), Some(g));
        assert_eq!(geometry("1.0"), None);
    }
}
