use std::path::Path;

use super::*;
use crate::measurement::manifest::Manifest;
use crate::measurement::record::{GpuState, Row, fixture};
use crate::measurement::run::interference::{self, Problem};

const DEVICE: &str = "NVIDIA H200 (device 0, id f0ce4302)";

fn coalescing() -> Manifest {
    Manifest::parse(
        Path::new("kernels/coalescing.yaml"),
        include_str!("../../../../kernels/coalescing.yaml"),
    )
    .unwrap()
}

fn state(pids: &[u32], reasons: &[&str]) -> GpuState {
    GpuState {
        sm_clock_mhz: 1755,
        max_sm_clock_mhz: 1980,
        temperature_c: 52,
        throttle_reasons: reasons.iter().map(|r| (*r).to_owned()).collect(),
        other_processes: pids.to_vec(),
        power_w: Some(699.0),
        power_limit_w: Some(700.0),
        default_power_limit_w: Some(700.0),
        mem_clock_mhz: Some(3201),
        max_mem_clock_mhz: Some(3201),
    }
}

/// The coalescing sweep as a run beside `benches/competing_load.py` sees it: pid 1036 on
/// the GPU before, during every row and after; two rows unsettled; the SM clock far down
/// (which a memory-bound row's time does not follow: not a problem of its own).
fn disturbed_rows() -> Vec<Row> {
    ["S1", "S2", "S4", "S8", "S16", "S32"]
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let mut row = fixture::row(label, 1 << i, 0.8 * f64::from(1u32 << i));
            row.sm_clock_mhz = 1650.0 + 10.0 * i as f64;
            row.gpu = Some(state(&[1036], &["sw_power_cap"]));
            if i < 2 {
                row.stop = StopReason::TimeLimit;
                row.rel_stdev = 0.031 + 0.01 * i as f64;
            }
            row
        })
        .collect()
}

/// Everything `measure` prints after the sweeps' own lines for a run of three kernels: one
/// refused (another process), one kept (no counters), one written.
fn refused_run_output() -> String {
    let m = coalescing();
    let rows = disturbed_rows();
    let busy = state(&[1036], &[]);
    let verdict = interference::judge(&busy, &busy, &rows, &m.sampling, Some(1980.0), m.bound());
    let causes: Vec<&'static str> = verdict.noise.iter().map(|p: &Problem| p.cause).collect();
    let mut refused_record = fixture::record("NVIDIA H200", b"k", b"m");
    refused_record.rows = rows;
    let noisy = MeasureError::Noisy {
        kernel: "coalescing".into(),
        device: DEVICE.into(),
        reasons: verdict.noise.into_iter().map(|p| p.text).collect(),
        causes,
        kept: "`measurements/coalescing/nvidia-h200-f0ce4302.json` is kept as it was".into(),
    };
    let kept = MeasureError::WouldLose {
        kernel: "bank_conflicts".into(),
        device: DEVICE.into(),
        path: "measurements/bank_conflicts/nvidia-h200-412f3331.json".into(),
        lost: vec!["hardware counters on rows L, 32L, 33L".into()],
        why: "it is measured with --no-counters".into(),
    };
    let mut written = fixture::record("NVIDIA H200", b"k", b"m");
    written.rows.truncate(6);
    // What `per_gpu` prints under each kernel that wrote no record, then the table and the
    // error `cli` prints last.
    let mut out = String::new();
    for e in [&noisy, &kept] {
        out.push_str(&format!("error: {e}\n"));
    }
    let outcomes = vec![
        Outcome {
            kernel: "bank_conflicts".into(),
            device: DEVICE.into(),
            sweep: None,
            result: Err(kept),
        },
        Outcome {
            kernel: "coalescing".into(),
            device: DEVICE.into(),
            sweep: Some(Sweep::of(&refused_record)),
            result: Err(noisy),
        },
        Outcome {
            kernel: "warp_divergence".into(),
            device: DEVICE.into(),
            sweep: Some(Sweep::of(&written)),
            result: Ok(Written {
                file: "measurements/warp_divergence/nvidia-h200-f0ce4302.json".into(),
                noisy: false,
                versus: "6 same".into(),
            }),
        },
    ];
    out.push_str(&summary(&outcomes));
    let last = result(outcomes).unwrap_err();
    assert!(last.is_content(), "a refused run exits 1");
    out.push_str(&format!("error: {last}\n"));
    out
}

#[test]
fn a_refused_run_says_each_problem_once() {
    let out = refused_run_output();
    insta::assert_snapshot!(out);
    // Each problem, and each fact in it, appears once in the whole output.
    for once in [
        "another compute process was on the GPU",
        "pid 1036",
        "did not converge",
        "holds hardware counters",
        "Re-run on a quiet GPU",
    ] {
        assert_eq!(out.matches(once).count(), 1, "{once:?} in:\n{out}");
    }
    // Per-row causes are grouped: one line names all six rows.
    assert!(out.contains("during all 6 rows"), "{out}");
    // The table says the cause in a few words; the last line only counts.
    assert!(
        out.contains("refused: other process, not converged"),
        "{out}"
    );
    assert!(out.contains("kept: counters"), "{out}");
    assert!(
        out.ends_with("error: 2 of 3 kernel runs wrote no record; each says why above, and the records they would have replaced are kept\n"),
        "{out}"
    );
}

#[test]
fn short_results_name_the_cause() {
    let noisy = MeasureError::Noisy {
        kernel: "k".into(),
        device: DEVICE.into(),
        reasons: vec![],
        causes: vec!["clock", "clock", "throttled"],
        kept: String::new(),
    };
    assert_eq!(noisy.short(), "refused: clock, throttled");
    let rows = MeasureError::WouldLose {
        kernel: "k".into(),
        device: DEVICE.into(),
        path: "p".into(),
        lost: vec!["rows S1, S2".into(), "hardware counters on row S4".into()],
        why: String::new(),
    };
    assert_eq!(rows.short(), "kept: rows, counters");
    assert_eq!(MeasureError::NoNcu.short(), "failed: ncu");
    // Every run wrote its record: no error at all.
    assert!(result(Vec::new()).is_ok());
}
