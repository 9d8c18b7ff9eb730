use super::*;
use crate::measurement::record::fixture;

fn quiet() -> GpuState {
    GpuState {
        sm_clock_mhz: 1980,
        max_sm_clock_mhz: 1980,
        temperature_c: 40,
        throttle_reasons: vec!["gpu_idle".into()],
        other_processes: vec![],
        power_w: Some(250.0),
        power_limit_w: Some(700.0),
        default_power_limit_w: Some(700.0),
        mem_clock_mhz: Some(3201),
        max_mem_clock_mhz: Some(3201),
    }
}

fn sampling() -> Sampling {
    crate::measurement::manifest::Manifest::parse(
        std::path::Path::new("k.yaml"),
        crate::measurement::manifest::FIXTURE,
    )
    .unwrap()
    .sampling
}

#[track_caller]
fn check(got: &[String], want: &[&str]) {
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(want) {
        assert!(g.contains(w), "{g:?} lacks {w:?}");
    }
}

fn texts(v: &Verdict) -> Vec<String> {
    v.noise.iter().map(|p| p.text.clone()).collect()
}

/// Judges `rows` of a kernel bound by `bound` after `before`, and checks the noise.
#[track_caller]
fn case_of(bound: Bound, before: GpuState, rows: Vec<Row>, want: &[&str]) -> Verdict {
    let got = judge(&before, &quiet(), &rows, &sampling(), Some(1980.0), bound);
    check(&texts(&got), want);
    got
}

#[track_caller]
fn case(before: GpuState, rows: Vec<Row>, want: &[&str]) {
    let got = case_of(Bound::SharedMemory, before, rows, want);
    assert!(got.tolerated.is_empty(), "{got:?}");
}

#[test]
fn a_quiet_run_has_no_noise_and_each_disturbance_is_named() {
    let row = |label| fixture::row(label, 1, 1.0);
    case(quiet(), vec![row("L")], &[]);
    let mut busy = quiet();
    busy.other_processes = vec![4242];
    case(
        busy,
        vec![row("L")],
        &["another compute process was on the GPU before the sweep (pid 4242)"],
    );
    let mut unsettled = row("32L");
    unsettled.stop = StopReason::TimeLimit;
    unsettled.rel_stdev = 0.029;
    case(
        quiet(),
        vec![unsettled],
        &[
            "a row did not converge to the target rsd of 0.50%: 32L (rsd 2.90% after 3 samples, stopped by the 5 s time limit)",
        ],
    );
    let mut slow = row("2L");
    slow.sm_clock_mhz = 1700.0;
    case(
        quiet(),
        vec![slow],
        &[
            "the SM clock was more than 5% below the rated 1980 MHz on rows whose time \
               follows it: 2L at 1700 MHz",
        ],
    );
    let mut within = row("4L");
    within.sm_clock_mhz = 1900.0;
    case(quiet(), vec![within], &[]);
    let mut throttled = row("8L");
    throttled.gpu = Some(GpuState {
        throttle_reasons: vec!["hw_slowdown".into(), "applications_clocks_setting".into()],
        ..quiet()
    });
    case(
        quiet(),
        vec![throttled],
        &["NVML reported the clock held down (hw_slowdown) on row 8L"],
    );
}

/// A row of the coalescing sweep as NVML saw it: `reasons` during the row, NVML's SM
/// clock `nvml_mhz`, the kernel's own clock `kernel_mhz`, and `pids` on the GPU.
fn sampled(label: &str, kernel_mhz: f64, reasons: &[&str], pids: &[u32]) -> Row {
    let mut row = fixture::row(label, 2, 1.56);
    row.sm_clock_mhz = kernel_mhz;
    row.gpu = Some(GpuState {
        sm_clock_mhz: kernel_mhz as u32,
        temperature_c: 47,
        throttle_reasons: reasons.iter().map(|r| (*r).to_owned()).collect(),
        other_processes: pids.to_vec(),
        power_w: Some(698.4),
        ..quiet()
    });
    row
}

#[test]
fn a_memory_bound_row_below_the_rated_clock_is_not_refused() {
    // Issue 38: the first run on a quiet H200 refused coalescing S1 at 1858 MHz, the
    // board at its power limit; its time follows the memory clock.
    let rows = vec![
        sampled("S1", 1858.0, &["sw_power_cap"], &[]),
        sampled("S2", 1960.0, &["sw_power_cap"], &[]),
    ];
    let got = case_of(Bound::DeviceMemory, quiet(), rows.clone(), &[]);
    check(
        &got.tolerated,
        &[
            "the kernel read the SM clock more than 5% below the rated 1980 MHz on rows \
                 bound by device memory (S1 at 1858 MHz), whose time the memory clock sets: \
                 recorded, not counted",
            "NVML reported sw_power_cap on all 2 rows (the board drew up to 698 of 700 W)",
        ],
    );
    // The lowest clock seen beside a competing job, with the job gone: still its time.
    let got = case_of(
        Bound::DeviceMemory,
        quiet(),
        vec![sampled("S1", 1455.0, &[], &[])],
        &[],
    );
    check(&got.tolerated, &["(S1 at 1455 MHz)"]);
    // The same clock on a row that follows the SM clock is refused.
    case_of(
        Bound::SharedMemory,
        quiet(),
        rows,
        &[
            "the SM clock was more than 5% below the rated 1980 MHz on rows whose time \
               follows it: S1 at 1858 MHz",
        ],
    );
    case_of(
        Bound::Issue,
        quiet(),
        vec![sampled("P1", 0.0, &[], &[])],
        &["P1 (the kernel reported no clock)"],
    );
    // The memory clock is what a memory-bound row needs.
    let mut row = sampled("S1", 1958.0, &[], &[]);
    row.gpu.as_mut().unwrap().mem_clock_mhz = Some(1593);
    case_of(
        Bound::DeviceMemory,
        quiet(),
        vec![row.clone()],
        &[
            "the memory clock was more than 5% below its maximum, and these rows' time \
               follows it: S1 at 1593 of 3201 MHz",
        ],
    );
    // Rows that follow the SM clock are not held to the memory clock.
    case_of(Bound::SharedMemory, quiet(), vec![row], &[]);
}

#[test]
fn a_software_power_cap_alone_is_recorded_but_not_interference() {
    let row = sampled("S2", 1960.0, &["sw_power_cap"], &[]);
    let got = case_of(Bound::SharedMemory, quiet(), vec![row], &[]);
    check(
        &got.tolerated,
        &[
            "NVML reported sw_power_cap on row S2 (the board drew up to 698 of 700 W) with \
               nothing a competing job would also show",
        ],
    );
    // Exactly at the margin (1980 × 0.95 = 1881 MHz) still holds; a megahertz under
    // does not.
    let edge = sampled("S2", 1881.0, &["sw_power_cap", "gpu_idle"], &[]);
    let got = case_of(Bound::SharedMemory, quiet(), vec![edge], &[]);
    assert_eq!(got.tolerated.len(), 1, "{got:?}");
    let under = sampled("S2", 1880.0, &["sw_power_cap"], &[]);
    let got = case_of(
        Bound::SharedMemory,
        quiet(),
        vec![under],
        &["S2 at 1880 MHz"],
    );
    assert!(got.tolerated.is_empty(), "{got:?}");

    // Without a rated clock from the driver, NVML's maximum clock is the yardstick.
    let row = sampled("S2", 1960.0, &["sw_power_cap"], &[]);
    let got = judge(
        &quiet(),
        &quiet(),
        &[row],
        &sampling(),
        None,
        Bound::SharedMemory,
    );
    assert!(got.noise.is_empty() && got.tolerated.len() == 1, "{got:?}");
    let mut blind = sampled("S2", 1960.0, &["sw_power_cap"], &[]);
    blind.gpu.as_mut().unwrap().max_sm_clock_mhz = 0;
    let got = judge(
        &quiet(),
        &quiet(),
        &[blind],
        &sampling(),
        None,
        Bound::SharedMemory,
    );
    check(
        &texts(&got),
        &["neither the driver nor NVML gave a rated SM clock"],
    );
    assert!(got.tolerated.is_empty());
}

#[test]
fn a_power_limit_set_below_the_default_is_interference() {
    let mut capped = quiet();
    capped.power_limit_w = Some(400.0);
    for bound in [Bound::SharedMemory, Bound::DeviceMemory, Bound::Issue] {
        case_of(
            bound,
            capped.clone(),
            vec![sampled("S1", 1970.0, &["sw_power_cap"], &[])],
            &["the board's power limit was set to 400 W, below its default 700 W"],
        );
    }
}

#[test]
fn a_competing_job_is_named_once_with_every_row_it_touched() {
    // The competing-load run: pid 1464 before, during every row and after; rows
    // unsettled; the SM clock down; the cap — each problem one line.
    let mut busy = quiet();
    busy.other_processes = vec![1464];
    let mut rows: Vec<Row> = ["S1", "S2", "S4"]
        .iter()
        .map(|l| sampled(l, 1805.0, &["sw_power_cap"], &[1464]))
        .collect();
    rows[0].stop = StopReason::TimeLimit;
    rows[0].rel_stdev = 0.07;
    let got = judge(
        &busy,
        &busy,
        &rows,
        &sampling(),
        Some(1980.0),
        Bound::SharedMemory,
    );
    assert!(got.tolerated.is_empty(), "{got:?}");
    check(
        &texts(&got),
        &[
            "another compute process was on the GPU before the sweep, during all 3 rows \
                 and after the sweep (pid 1464)",
            "a row did not converge to the target rsd of 0.50%: S1 (rsd 7.00% after 3 samples",
            "S1 at 1805 MHz, S2 at 1805 MHz, S4 at 1805 MHz",
        ],
    );
    let causes: Vec<&str> = got.noise.iter().map(|p| p.cause).collect();
    assert_eq!(causes, ["other process", "not converged", "clock"]);
    // A memory-bound sweep beside the same job is refused as well, by the process.
    let got = judge(
        &busy,
        &busy,
        &rows,
        &sampling(),
        Some(1980.0),
        Bound::DeviceMemory,
    );
    assert_eq!(got.noise[0].cause, "other process");
    assert!(
        !got.tolerated.iter().any(|t| t.contains("sw_power_cap")),
        "{got:?}"
    );
}

#[test]
fn hardware_and_thermal_slowdowns_stay_fatal_with_or_without_the_cap() {
    for reasons in [
        &["hw_slowdown"][..],
        &["sw_thermal_slowdown"],
        &["hw_thermal_slowdown"],
        &["hw_power_brake_slowdown"],
        &["sw_power_cap", "hw_slowdown"],
        &["sw_power_cap", "sw_thermal_slowdown"],
    ] {
        for bound in [Bound::SharedMemory, Bound::DeviceMemory] {
            let row = sampled("S2", 1960.0, reasons, &[]);
            case_of(
                bound,
                quiet(),
                vec![row],
                &[&format!(
                    "NVML reported the clock held down ({}) on row S2",
                    reasons.join(", ")
                )],
            );
        }
    }
    // Benign reasons alone are neither noise nor worth a note.
    let row = sampled(
        "S2",
        1960.0,
        &["gpu_idle", "applications_clocks_setting"],
        &[],
    );
    case(quiet(), vec![row], &[]);
}
