//! The verdict on whether a run was disturbed ([`judge`]), from what `nvml` read and the SM
//! clock each row's kernel read itself. Pure, so it is tested without a GPU, on crafted readings.
use super::nvml::is_slowdown;
use crate::measurement::manifest::{Bound, Sampling};
use crate::measurement::record::{GpuState, Row, StopReason};

/// A row whose time follows the SM clock (shared memory, instruction issue) and whose median
/// SM clock, read in the kernel, is more than this fraction below the rated clock was not
/// measured on the GPU the record names: the H200's quiet runs hold 1978–1980 MHz of 1980
/// on such rows, while a power-capped or shared GPU drops by 10% or more. 5% sits between.
/// The same margin holds a memory-bound row's memory clock to its maximum.
///
/// A row bound by device memory is not judged by its SM clock (issue 38, logs
/// `reports/gpu-runs/2026-12-02-issue38-diag-*`): on a quiet H200, with NVML reading 1980
/// MHz and no throttle reason all through, the kernel's own reading on the coalescing rows
/// ran 1872–1978 MHz (its witness block lives a few microseconds there, against the whole
/// launch in the other kernels), and over 2,200 samples beside a competing job, at 1455–1887
/// MHz, the rows' times did not follow it (correlation −0.08 to +0.07 per row).
pub(crate) const CLOCK_MARGIN: f64 = 0.05;

/// NVML's name for the driver lowering the clocks to keep the board under its power limit.
const SW_POWER_CAP: &str = "sw_power_cap";

/// One reason a run cannot be trusted: a short cause for the summary table ("clock") and
/// the sentence that says it once, every row it concerns grouped in it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Problem {
    pub(crate) cause: &'static str,
    pub(crate) text: String,
}

/// The judgement on one run: why it cannot be trusted (`noise`, empty when it was quiet) and
/// what NVML reported that was judged harmless (`tolerated`), one sentence each.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Verdict {
    pub(crate) noise: Vec<Problem>,
    pub(crate) tolerated: Vec<String>,
}

/// Judges a run of a kernel whose rows are bound by `bound`. `rated_mhz` is the GPU's rated
/// SM clock (NVML's maximum SM clock stands in when the driver reports none).
///
/// Always interference: another compute process before, during or after the sweep; a row
/// that did not converge; a hardware, thermal or power-brake slowdown; a power limit set
/// below the board's default. The clocks count where they set a row's time, within
/// [`CLOCK_MARGIN`]: the SM clock for rows that follow it (shared memory, instruction
/// issue), the memory clock for rows bound by device memory. A software power cap with
/// none of that is the board at its own limit (a memory-bound row takes an H200 there by
/// itself): recorded, not counted.
pub(crate) fn judge(
    before: &GpuState,
    after: &GpuState,
    rows: &[Row],
    sampling: &Sampling,
    rated_mhz: Option<f64>,
    bound: Bound,
) -> Verdict {
    let mut verdict = Verdict::default();
    let shared = other_processes(before, after, rows);
    verdict.noise.extend(shared.clone());
    verdict.noise.extend(unconverged(rows, sampling));
    let rated = rated_mhz.filter(|r| *r > 0.0).or_else(|| {
        (rows.iter().filter_map(|r| r.gpu.as_ref()))
            .map(|s| s.max_sm_clock_mhz)
            .find(|m| *m > 0)
            .map(f64::from)
    });
    let (clock, clock_notes) = sm_clock(rows, rated, bound);
    verdict.noise.extend(clock.clone());
    verdict.tolerated.extend(clock_notes);
    if !bound.follows_sm_clock() {
        verdict.noise.extend(memory_clock(rows));
    }
    verdict.noise.extend(power_limit(before, after, rows));
    verdict.noise.extend(slowdowns(rows));
    // The power cap alone, on rows with nothing against them.
    let against = |row: &Row| {
        row.stop != StopReason::Converged
            || shared.is_some()
            || rated.is_some_and(|rated| !clock_holds(row, rated, bound))
    };
    let capped: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            r.gpu
                .as_ref()
                .is_some_and(|s| slowdown_names(s) == [SW_POWER_CAP])
        })
        .collect();
    if !capped.is_empty() && rated.is_none() {
        verdict.noise.push(Problem {
            cause: "clock",
            text: format!(
                "NVML reported {SW_POWER_CAP} on {}, and neither the driver nor NVML gave a \
                 rated SM clock to tell whether it slowed them",
                row_list(&labels(&capped), rows.len())
            ),
        });
    } else if capped.iter().any(|r| !against(r)) {
        let alone: Vec<&Row> = capped.into_iter().filter(|r| !against(r)).collect();
        let drew = alone
            .iter()
            .filter_map(|r| r.gpu.as_ref())
            .max_by(|a, b| {
                a.power_w
                    .unwrap_or(0.0)
                    .total_cmp(&b.power_w.unwrap_or(0.0))
            })
            .and_then(power)
            .map_or(String::new(), |p| format!(" (the board drew up to {p})"));
        verdict.tolerated.push(format!(
            "NVML reported {SW_POWER_CAP} on {}{drew} with nothing a competing job would also \
             show (no other process, every clock within its margin, the rows converged): the \
             board at its own power limit, recorded and not counted as interference",
            row_list(&labels(&alone), rows.len())
        ));
    }
    verdict
}

/// Another compute process before, during (which rows) or after the sweep, said once.
fn other_processes(before: &GpuState, after: &GpuState, rows: &[Row]) -> Option<Problem> {
    let mut when = Vec::new();
    let mut pids = std::collections::BTreeSet::new();
    if !before.other_processes.is_empty() {
        when.push("before the sweep".to_owned());
        pids.extend(&before.other_processes);
    }
    let busy: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            r.gpu
                .as_ref()
                .is_some_and(|s| !s.other_processes.is_empty())
        })
        .collect();
    for row in &busy {
        pids.extend(&row.gpu.as_ref().expect("filtered on it").other_processes);
    }
    if !busy.is_empty() {
        when.push(format!("during {}", row_list(&labels(&busy), rows.len())));
    }
    if !after.other_processes.is_empty() {
        when.push("after the sweep".to_owned());
        pids.extend(&after.other_processes);
    }
    (!when.is_empty()).then(|| Problem {
        cause: "other process",
        text: format!(
            "another compute process was on the GPU {} (pid {})",
            and_list(&when),
            join(&pids.into_iter().copied().collect::<Vec<_>>())
        ),
    })
}

fn unconverged(rows: &[Row], sampling: &Sampling) -> Option<Problem> {
    let each: Vec<String> = rows
        .iter()
        .filter(|r| r.stop != StopReason::Converged)
        .map(|r| {
            format!(
                "{} (rsd {:.2}% after {} samples, stopped by {})",
                r.label,
                r.rel_stdev * 100.0,
                r.samples_ms.len(),
                match r.stop {
                    StopReason::TimeLimit => format!("the {} s time limit", sampling.time_limit_s),
                    _ => format!("max_samples = {}", sampling.max_samples),
                }
            )
        })
        .collect();
    (!each.is_empty()).then(|| Problem {
        cause: "not converged",
        text: format!(
            "{} not converge to the target rsd of {:.2}%: {}",
            if each.len() == 1 {
                "a row did"
            } else {
                "rows did"
            },
            sampling.target_rel_stdev * 100.0,
            each.join(", ")
        ),
    })
}

/// The kernel's own SM clock against the rated one, on rows whose time follows it; for rows
/// bound by device memory, a reading below the margin is only recorded.
fn sm_clock(rows: &[Row], rated: Option<f64>, bound: Bound) -> (Option<Problem>, Option<String>) {
    let Some(rated) = rated else {
        return (None, None);
    };
    let at = |r: &Row| format!("{} at {:.0} MHz", r.label, r.sm_clock_mhz);
    if !bound.follows_sm_clock() {
        let low: Vec<String> = rows
            .iter()
            .filter(|r| r.sm_clock_mhz > 0.0 && r.sm_clock_mhz < rated * (1.0 - CLOCK_MARGIN))
            .map(at)
            .collect();
        let note = format!(
            "the kernel read the SM clock more than {:.0}% below the rated {rated:.0} MHz on \
             rows bound by device memory ({}), whose time the memory clock sets: recorded, \
             not counted",
            CLOCK_MARGIN * 100.0,
            low.join(", ")
        );
        return (None, (!low.is_empty()).then_some(note));
    }
    let low: Vec<String> = rows
        .iter()
        .filter(|r| !clock_holds(r, rated, bound))
        .map(|r| {
            if r.sm_clock_mhz > 0.0 {
                at(r)
            } else {
                format!("{} (the kernel reported no clock)", r.label)
            }
        })
        .collect();
    let problem = (!low.is_empty()).then(|| Problem {
        cause: "clock",
        text: format!(
            "the SM clock was more than {:.0}% below the rated {rated:.0} MHz on rows whose \
             time follows it: {}",
            CLOCK_MARGIN * 100.0,
            low.join(", ")
        ),
    });
    (problem, None)
}

/// Whether a row's SM clock, read in the kernel, is where the row's time needs it.
fn clock_holds(row: &Row, rated: f64, bound: Bound) -> bool {
    !bound.follows_sm_clock()
        || (row.sm_clock_mhz > 0.0 && row.sm_clock_mhz >= rated * (1.0 - CLOCK_MARGIN))
}

/// For rows bound by device memory: NVML's memory clock against its maximum.
fn memory_clock(rows: &[Row]) -> Option<Problem> {
    let low: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            let s = r.gpu.as_ref()?;
            let (mhz, max) = (s.mem_clock_mhz?, s.max_mem_clock_mhz?);
            (max > 0 && f64::from(mhz) < f64::from(max) * (1.0 - CLOCK_MARGIN))
                .then(|| format!("{} at {mhz} of {max} MHz", r.label))
        })
        .collect();
    (!low.is_empty()).then(|| Problem {
        cause: "memory clock",
        text: format!(
            "the memory clock was more than {:.0}% below its maximum, and these rows' time \
             follows it: {}",
            CLOCK_MARGIN * 100.0,
            low.join(", ")
        ),
    })
}

/// A power limit below the board's default, read at any moment of the sweep, said once.
fn power_limit(before: &GpuState, after: &GpuState, rows: &[Row]) -> Option<Problem> {
    let states = std::iter::once(before)
        .chain(rows.iter().filter_map(|r| r.gpu.as_ref()))
        .chain(std::iter::once(after));
    let (limit, default) = states
        .filter_map(|s| Some((s.power_limit_w?, s.default_power_limit_w?)))
        .filter(|(limit, default)| limit + 1.0 < *default)
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    Some(Problem {
        cause: "power cap",
        text: format!(
            "the board's power limit was set to {limit:.0} W, below its default {default:.0} W: \
             a cap that slows what reaches it"
        ),
    })
}

/// Hardware, thermal and power-brake slowdowns, grouped by what NVML named.
fn slowdowns(rows: &[Row]) -> Vec<Problem> {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for row in rows {
        let Some(state) = &row.gpu else { continue };
        let slow: Vec<&str> = slowdown_names(state)
            .into_iter()
            .filter(|n| *n != SW_POWER_CAP || slowdown_names(state).len() > 1)
            .collect();
        if slow.is_empty() {
            continue;
        }
        let key = slow.join(", ");
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, labels)) => labels.push(&row.label),
            None => groups.push((key, vec![&row.label])),
        }
    }
    groups
        .into_iter()
        .map(|(reasons, labels)| Problem {
            cause: "throttled",
            text: format!(
                "NVML reported the clock held down ({reasons}) on {}",
                row_list(&labels, rows.len())
            ),
        })
        .collect()
}

fn slowdown_names(state: &GpuState) -> Vec<&str> {
    (state.throttle_reasons.iter())
        .map(String::as_str)
        .filter(|n| is_slowdown(n))
        .collect()
}

fn labels<'r>(rows: &[&'r Row]) -> Vec<&'r str> {
    rows.iter().map(|r| r.label.as_str()).collect()
}

/// `row S1`, `rows S1, S2`, or `all 6 rows` when they are every row of the sweep.
fn row_list(labels: &[&str], total: usize) -> String {
    match labels {
        [one] => format!("row {one}"),
        _ if labels.len() == total => format!("all {total} rows"),
        _ => format!("rows {}", labels.join(", ")),
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// `698 of 700 W` when NVML reported the power draw and the limit.
fn power(state: &GpuState) -> Option<String> {
    match (state.power_w, state.power_limit_w) {
        (Some(w), Some(limit)) => Some(format!("{w:.0} of {limit:.0} W")),
        (Some(w), None) => Some(format!("{w:.0} W")),
        _ => None,
    }
}

fn join(pids: &[u32]) -> String {
    pids.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
