//! The warp-divergence model, pure like the bank and coalescing models beside it: each of a
//! warp's 32 lanes is on a path, and the warp runs every distinct path in a pass of its own
//! with only that path's lanes switched on. Lanes on one path run together; paths are
//! serialised. So a branch that splits a warp into P paths of equal work costs P passes,
//! and the lanes active per executed instruction fall from 32 to 32 / P.

use super::model::WARP_SIZE;

/// Lanes of a warp, as a count.
pub(crate) const LANES: u32 = WARP_SIZE as u32;

/// One pass of a divergent warp: the path it runs and the lanes switched on for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pass {
    /// The path this pass runs.
    pub(crate) path: i64,
    /// The lanes on that path, bit L for lane L.
    pub(crate) lanes: u32,
}

impl Pass {
    /// Lanes switched on in this pass.
    pub(crate) fn active(&self) -> u32 {
        self.lanes.count_ones()
    }

    /// Whether lane `lane` does work in this pass.
    pub(crate) fn has(&self, lane: u32) -> bool {
        lane < LANES && self.lanes & (1 << lane) != 0
    }
}

/// How one warp runs a branch whose lanes are on the paths given: one pass per distinct
/// path, in path order (the order the course's kernel runs them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    /// The passes, one per distinct path.
    pub(crate) passes: Vec<Pass>,
}

impl Divergence {
    /// Passes the warp makes: the number of distinct paths its lanes are on.
    pub(crate) fn passes(&self) -> u32 {
        self.passes.len() as u32
    }

    /// Lanes switched on in each pass, in pass order.
    pub(crate) fn active_per_pass(&self) -> Vec<u32> {
        self.passes.iter().map(Pass::active).collect()
    }

    /// What Nsight Compute's `smsp__thread_inst_executed_per_inst_executed` reads for the
    /// branch's work: lanes active per executed warp instruction, 32 when all lanes run
    /// together. Every lane runs one path's work once, spread over `passes` passes.
    pub(crate) fn threads_per_instruction(&self) -> f64 {
        let active: u32 = self.passes.iter().map(Pass::active).sum();
        f64::from(active) / f64::from(self.passes().max(1))
    }

    /// Lane slots that do work: active lanes over 32 × passes (1.0 without divergence).
    pub(crate) fn efficiency(&self) -> f64 {
        self.threads_per_instruction() / f64::from(LANES)
    }
}

/// How a warp runs when lane L is on path `path_of_lane[L]`.
pub(crate) fn analyze(path_of_lane: &[i64; WARP_SIZE]) -> Divergence {
    let mut passes: Vec<Pass> = Vec::new();
    for (lane, &path) in (0u32..).zip(path_of_lane) {
        match passes.iter_mut().find(|p| p.path == path) {
            Some(pass) => pass.lanes |= 1 << lane,
            None => passes.push(Pass {
                path,
                lanes: 1 << lane,
            }),
        }
    }
    passes.sort_by_key(|p| p.path);
    Divergence { passes }
}

/// Lanes in `paths` groups of neighbours, group k on path k: with 4 paths lanes 0–7 take
/// path 0, lanes 8–15 path 1, and so on (the course's kernel for warp 0). `paths` is clamped
/// to 1..=32; when it does not divide 32 the last group is smaller.
pub(crate) fn grouped_paths(paths: u32) -> [i64; WARP_SIZE] {
    let per_path = LANES.div_ceil(paths.clamp(1, LANES));
    std::array::from_fn(|lane| i64::from(lane as u32 / per_path))
}

/// Lanes dealt round `paths` paths: lane L on path L mod `paths` (`if (lane % 2 == 0)` is
/// two paths dealt this way). `paths` is clamped to 1..=32.
#[cfg(test)]
pub(crate) fn interleaved_paths(paths: u32) -> [i64; WARP_SIZE] {
    let paths = paths.clamp(1, LANES);
    std::array::from_fn(|lane| i64::from(lane as u32 % paths))
}

/// How a warp runs with its lanes in `paths` groups of neighbours ([`grouped_paths`]).
pub(crate) fn grouped(paths: u32) -> Divergence {
    analyze(&grouped_paths(paths))
}

/// Lanes per path when a warp splits into `paths` groups of neighbours (1..=32 paths).
pub(crate) fn lanes_per_path(paths: u32) -> u32 {
    LANES.div_ceil(paths.clamp(1, LANES))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(paths: u32, passes: u32, active: u32, threads: f64, efficiency: f64) {
        let d = grouped(paths);
        assert_eq!(d.passes(), passes, "{paths} paths");
        assert!(
            d.active_per_pass().iter().all(|&a| a == active),
            "{paths} paths: {:?}",
            d.active_per_pass()
        );
        assert_eq!(d.threads_per_instruction(), threads, "{paths} paths");
        assert_eq!(d.efficiency(), efficiency, "{paths} paths");
    }

    /// Every number the warp-divergence entry states of the model: P paths of equal work
    /// cost P passes of 32 / P lanes each, so the counter reads 32 / P threads per
    /// instruction and a warp on 32 paths does a 32nd of its possible work per instruction.
    #[test]
    fn paths_cost_what_the_glossary_says() {
        case(1, 1, 32, 32.0, 1.0);
        case(2, 2, 16, 16.0, 0.5);
        case(4, 4, 8, 8.0, 0.25);
        case(8, 8, 4, 4.0, 0.125);
        case(16, 16, 2, 2.0, 0.0625);
        case(32, 32, 1, 1.0, 0.03125);
    }

    /// Four paths: lanes 0–7 run in the first pass, 8–15 in the second, and so on.
    #[test]
    fn each_pass_switches_on_the_lanes_of_its_path() {
        let d = grouped(4);
        let lanes: Vec<u32> = d.passes.iter().map(|p| p.lanes).collect();
        assert_eq!(lanes, [0x0000_00ff, 0x0000_ff00, 0x00ff_0000, 0xff00_0000]);
        assert!(d.passes[1].has(8) && d.passes[1].has(15) && !d.passes[1].has(16));
        assert!(!d.passes[0].has(32), "no lane 32");
        assert_eq!(lanes_per_path(4), 8);
    }

    /// Only the number of paths matters, not which lanes take them: `lane % 4` costs what
    /// four groups of eight neighbours cost.
    #[test]
    fn interleaved_lanes_cost_what_grouped_lanes_cost() {
        for paths in [1, 2, 4, 8, 16, 32] {
            let spread = analyze(&interleaved_paths(paths));
            let grouped = grouped(paths);
            assert_eq!(spread.passes(), grouped.passes(), "{paths}");
            assert_eq!(
                spread.active_per_pass(),
                grouped.active_per_pass(),
                "{paths}"
            );
        }
        assert_eq!(analyze(&interleaved_paths(2)).passes[0].lanes, 0x5555_5555);
    }

    /// Unequal paths: 3 groups of 11, 11 and 10 lanes still cost three passes, and the
    /// counter reads the mean of the passes' lanes.
    #[test]
    fn paths_that_do_not_divide_the_warp_still_cost_a_pass_each() {
        let d = grouped(3);
        assert_eq!(d.active_per_pass(), [11, 11, 10]);
        assert_eq!(d.threads_per_instruction(), 32.0 / 3.0);
        // Any labels: paths are told apart, not counted from 0.
        let mut lanes = [7i64; WARP_SIZE];
        lanes[31] = 1_000;
        let d = analyze(&lanes);
        assert_eq!((d.passes(), d.active_per_pass()), (2, vec![31, 1]));
        assert_eq!(grouped(0), grouped(1), "clamped");
        assert_eq!(grouped(64), grouped(32), "clamped");
    }
}
