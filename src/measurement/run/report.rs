//! What `measure` prints after every kernel has run: one summary table with a short result
//! per kernel and GPU ("wrote", "refused: clock", "kept: counters"), then one line saying how
//! many wrote nothing. Why a run was refused is said once, under its kernel, as the run goes
//! ([`MeasureError`]'s message); this table and the last line never repeat it. Pure text.
use super::error::MeasureError;
use crate::measurement::record::{Record, StopReason};

/// One kernel on one GPU, as the summary table shows it.
pub(crate) struct Outcome {
    pub(crate) kernel: String,
    pub(crate) device: String,
    /// The sweep's rows, when it got that far (a refused run has them too).
    pub(crate) sweep: Option<Sweep>,
    /// The record written (and how it compares with the one before), or why none was.
    pub(crate) result: Result<Written, MeasureError>,
}

/// What the sweep's rows were like.
pub(crate) struct Sweep {
    rows: usize,
    converged: usize,
    worst_rsd: f64,
    counters: bool,
}

impl Sweep {
    /// The table's figures of a record, written or refused.
    pub(crate) fn of(r: &Record) -> Sweep {
        Sweep {
            rows: r.rows.len(),
            converged: (r.rows.iter())
                .filter(|row| row.stop == StopReason::Converged)
                .count(),
            worst_rsd: r.rows.iter().map(|row| row.rel_stdev).fold(0.0, f64::max),
            counters: r.rows.iter().all(|row| row.counters.is_some()),
        }
    }
}

/// A record that was written.
pub(crate) struct Written {
    pub(crate) file: String,
    pub(crate) noisy: bool,
    /// `6 same`, `1 slower, 5 same`, or `new` when there was no record to compare with.
    pub(crate) versus: String,
}

/// The summary table, one line per kernel and GPU.
pub(crate) fn summary(outcomes: &[Outcome]) -> String {
    let mut out = format!(
        "\n{:<16} {:<38} {:>9} {:>9} {:>8}  {:<18} result\n",
        "kernel", "GPU", "converged", "worst rsd", "counters", "vs before"
    );
    for o in outcomes {
        let (converged, rsd, counters) = match &o.sweep {
            Some(s) => (
                format!("{}/{}", s.converged, s.rows),
                format!("{:.2}%", s.worst_rsd * 100.0),
                if s.counters { "yes" } else { "no" },
            ),
            None => ("-".into(), "-".into(), "-"),
        };
        let (versus, result) = match &o.result {
            Ok(w) => (
                w.versus.as_str(),
                format!(
                    "{}{}",
                    if w.noisy { "wrote NOISY " } else { "wrote " },
                    w.file
                ),
            ),
            Err(e) => ("-", e.short()),
        };
        out.push_str(&format!(
            "{:<16} {:<38} {converged:>9} {rsd:>9} {counters:>8}  {versus:<18} {result}\n",
            o.kernel, o.device
        ));
    }
    out
}

/// What `measure` returns: nothing when every run wrote its record, else one error that
/// counts the others (each already said why).
pub(crate) fn result(outcomes: Vec<Outcome>) -> Result<(), MeasureError> {
    let total = outcomes.len();
    let failures: Vec<MeasureError> = outcomes
        .into_iter()
        .filter_map(|o| o.result.err())
        .collect();
    if failures.is_empty() {
        return Ok(());
    }
    Err(MeasureError::Reported {
        failed: failures.len(),
        total,
        content: failures.iter().any(MeasureError::is_content),
    })
}

#[cfg(test)]
mod tests;
