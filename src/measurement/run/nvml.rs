//! The GPU's state through NVML (loaded at run time, like CUDA, from the driver's
//! `libnvidia-ml.so.1`): clocks, throttle reasons, temperature and the other compute processes
//! on the device — read before the sweep, after each row and after the sweep — and the verdict
//! on whether a run was disturbed ([`judge`]). The verdict is pure, so it is tested without a
//! GPU, on crafted NVML readings.
use nvml_wrapper::Nvml;
use nvml_wrapper::bitmasks::device::ThrottleReasons;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};

use super::MeasureError;
use crate::measurement::manifest::Sampling;
use crate::measurement::record::{GpuState, Row, StopReason};

/// A row whose median SM clock is more than this fraction below the rated clock was not
/// measured on the GPU the record names: the H200's quiet runs hold 1978–1980 MHz of 1980
/// (0.1% under), while a power-capped or shared GPU drops by 10% or more. 5% sits between.
pub(crate) const CLOCK_MARGIN: f64 = 0.05;

/// Throttle reasons that slow the SMs below what the record claims. Idle, application-clock
/// and sync-boost settings are recorded but are not interference.
const SLOWDOWNS: [(ThrottleReasons, &str); 5] = [
    (ThrottleReasons::SW_POWER_CAP, "sw_power_cap"),
    (ThrottleReasons::HW_SLOWDOWN, "hw_slowdown"),
    (ThrottleReasons::SW_THERMAL_SLOWDOWN, "sw_thermal_slowdown"),
    (ThrottleReasons::HW_THERMAL_SLOWDOWN, "hw_thermal_slowdown"),
    (
        ThrottleReasons::HW_POWER_BRAKE_SLOWDOWN,
        "hw_power_brake_slowdown",
    ),
];

const BENIGN: [(ThrottleReasons, &str); 4] = [
    (ThrottleReasons::GPU_IDLE, "gpu_idle"),
    (
        ThrottleReasons::APPLICATIONS_CLOCKS_SETTING,
        "applications_clocks_setting",
    ),
    (ThrottleReasons::SYNC_BOOST, "sync_boost"),
    (
        ThrottleReasons::DISPLAY_CLOCK_SETTING,
        "display_clock_setting",
    ),
];

/// NVML, opened once per `measure`.
pub(crate) struct Monitor {
    nvml: Nvml,
}

impl Monitor {
    /// Loads NVML from the driver's installation.
    pub(crate) fn open() -> Result<Monitor, MeasureError> {
        let mut builder = Nvml::builder();
        builder.lib_path(std::ffi::OsStr::new("libnvidia-ml.so.1"));
        let nvml = builder.init().map_err(|e| {
            MeasureError::Nvml(format!(
                "cannot load NVML (libnvidia-ml.so.1, part of the NVIDIA driver): {e}"
            ))
        })?;
        Ok(Monitor { nvml })
    }

    /// Reads the state of the GPU with this UUID (`GPU-…`, as CUDA reports it).
    pub(crate) fn state(&self, uuid: &str) -> Result<GpuState, MeasureError> {
        let nvml = |what: &str| {
            let what = what.to_owned();
            move |e: nvml_wrapper::error::NvmlError| {
                MeasureError::Nvml(format!("reading {what} of {uuid}: {e}"))
            }
        };
        let device = self.nvml.device_by_uuid(uuid).map_err(nvml("the device"))?;
        let reasons = device
            .current_throttle_reasons()
            .map_err(nvml("throttle reasons"))?;
        let me = std::process::id();
        let mut other_processes: Vec<u32> = device
            .running_compute_processes()
            .map_err(nvml("compute processes"))?
            .into_iter()
            .map(|p| p.pid)
            .filter(|&pid| pid != me)
            .collect();
        other_processes.sort_unstable();
        other_processes.dedup();
        Ok(GpuState {
            sm_clock_mhz: device.clock_info(Clock::SM).map_err(nvml("the SM clock"))?,
            max_sm_clock_mhz: device
                .max_clock_info(Clock::SM)
                .map_err(nvml("the maximum SM clock"))?,
            temperature_c: device
                .temperature(TemperatureSensor::Gpu)
                .map_err(nvml("the temperature"))?,
            throttle_reasons: reason_names(reasons),
            other_processes,
            // Not every GPU reports power: optional, never a reason to stop.
            power_w: device.power_usage().ok().map(watts),
            power_limit_w: device.enforced_power_limit().ok().map(watts),
        })
    }
}

fn watts(milliwatts: u32) -> f64 {
    f64::from(milliwatts) / 1000.0
}

fn reason_names(reasons: ThrottleReasons) -> Vec<String> {
    SLOWDOWNS
        .iter()
        .chain(&BENIGN)
        .filter(|(flag, _)| reasons.contains(*flag))
        .map(|(_, name)| (*name).to_owned())
        .collect()
}

fn is_slowdown(name: &str) -> bool {
    SLOWDOWNS.iter().any(|(_, n)| *n == name)
}

/// NVML's name for the driver lowering the clocks to keep the board under its power limit.
const SW_POWER_CAP: &str = "sw_power_cap";

/// The judgement on one run: why it cannot be trusted (`noise`, empty when it was quiet) and
/// what NVML reported that was judged harmless (`tolerated`), one sentence each.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Verdict {
    pub(crate) noise: Vec<String>,
    pub(crate) tolerated: Vec<String>,
}

/// Judges a run. `rated_mhz` is the GPU's rated SM clock (NVML's maximum SM clock stands in
/// when the driver reports none).
///
/// A software power cap on its own is not interference: a memory-bound row can take an
/// H200 to its power limit by itself, and the driver then trims the clocks a little. It is
/// tolerated (recorded, not fatal) only when everything that a competing job would also
/// show is absent: the row converged, its SM clock — read inside the timed launches and by
/// NVML — stayed within [`CLOCK_MARGIN`] of the rated clock, and no other compute process
/// was on the GPU before, during or after. Hardware, thermal and power-brake slowdowns are
/// always interference.
pub(crate) fn judge(
    before: &GpuState,
    after: &GpuState,
    rows: &[Row],
    sampling: &Sampling,
    rated_mhz: Option<f64>,
) -> Verdict {
    let mut verdict = Verdict::default();
    let why = &mut verdict.noise;
    let mut sweep_shared = false;
    for (when, state) in [("before", before), ("after", after)] {
        if !state.other_processes.is_empty() {
            sweep_shared = true;
            why.push(format!(
                "another compute process was on the GPU {when} the sweep (pid {})",
                join(&state.other_processes)
            ));
        }
    }
    for row in rows {
        let converged = row.stop == StopReason::Converged;
        if !converged {
            why.push(format!(
                "row `{}` did not converge: rsd {:.2}% after {} samples (stopped by {}), target {:.2}%",
                row.label,
                row.rel_stdev * 100.0,
                row.samples_ms.len(),
                match row.stop {
                    StopReason::TimeLimit => format!("the {} s time limit", sampling.time_limit_s),
                    _ => format!("max_samples = {}", sampling.max_samples),
                },
                sampling.target_rel_stdev * 100.0
            ));
        }
        if let Some(rated) = rated_mhz.filter(|r| *r > 0.0)
            && row.sm_clock_mhz > 0.0
            && below_margin(row.sm_clock_mhz, rated)
        {
            why.push(format!(
                "row `{}` ran at {:.0} MHz, more than {:.0}% below the rated {rated:.0} MHz",
                row.label,
                row.sm_clock_mhz,
                CLOCK_MARGIN * 100.0
            ));
        }
        let Some(state) = &row.gpu else { continue };
        let slow: Vec<&str> = state
            .throttle_reasons
            .iter()
            .map(String::as_str)
            .filter(|n| is_slowdown(n))
            .collect();
        if slow == [SW_POWER_CAP] {
            let rated = rated_mhz.filter(|r| *r > 0.0).or_else(|| {
                (state.max_sm_clock_mhz > 0).then(|| f64::from(state.max_sm_clock_mhz))
            });
            let against = power_cap_against(row, state, converged, sweep_shared, rated);
            match (against.is_empty(), rated) {
                (true, Some(rated)) => verdict.tolerated.push(format!(
                    "row `{}`: NVML reported {SW_POWER_CAP}{} while the SM clock held {:.0} MHz \
                     in the kernel and {} MHz by NVML, within {:.0}% of the rated {rated:.0} MHz, \
                     the row converged and no other process was on the GPU: a power cap alone, \
                     recorded and not counted as interference",
                    row.label,
                    power(state).map_or(String::new(), |p| format!(" (the board drew {p})")),
                    row.sm_clock_mhz,
                    state.sm_clock_mhz,
                    CLOCK_MARGIN * 100.0
                )),
                _ => why.push(format!(
                    "row `{}`: NVML reported the clock held down ({SW_POWER_CAP}{}), and not by \
                     a power cap alone: {}",
                    row.label,
                    power(state).map_or(String::new(), |p| format!(", {p}")),
                    against.join("; ")
                )),
            }
        } else if !slow.is_empty() {
            why.push(format!(
                "row `{}`: NVML reported the clock held down ({})",
                row.label,
                slow.join(", ")
            ));
        }
        if !state.other_processes.is_empty() {
            why.push(format!(
                "row `{}`: another compute process was on the GPU (pid {})",
                row.label,
                join(&state.other_processes)
            ));
        }
    }
    verdict
}

fn below_margin(mhz: f64, rated: f64) -> bool {
    mhz < rated * (1.0 - CLOCK_MARGIN)
}

/// Why a row's `sw_power_cap` is not a power cap alone; empty when it is.
fn power_cap_against(
    row: &Row,
    state: &GpuState,
    converged: bool,
    sweep_shared: bool,
    rated: Option<f64>,
) -> Vec<String> {
    let mut against = Vec::new();
    if !converged {
        against.push("the row did not converge".to_owned());
    }
    if sweep_shared || !state.other_processes.is_empty() {
        against.push("another compute process was on the GPU".to_owned());
    }
    let Some(rated) = rated else {
        against.push("no rated SM clock to compare the clock with".to_owned());
        return against;
    };
    let margin = CLOCK_MARGIN * 100.0;
    if row.sm_clock_mhz <= 0.0 {
        against.push("the kernel reported no SM clock".to_owned());
    } else if below_margin(row.sm_clock_mhz, rated) {
        against.push(format!(
            "the kernel's SM clock was {:.0} MHz, more than {margin:.0}% below the rated {rated:.0} MHz",
            row.sm_clock_mhz
        ));
    }
    if below_margin(f64::from(state.sm_clock_mhz), rated) {
        against.push(format!(
            "NVML read the SM clock at {} MHz, more than {margin:.0}% below the rated {rated:.0} MHz",
            state.sm_clock_mhz
        ));
    }
    against
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
mod tests {
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
        assert_eq!(got.len(), want.len(), "{got:?}");
        for (g, w) in got.iter().zip(want) {
            assert!(g.contains(w), "{g:?} lacks {w:?}");
        }
    }

    #[track_caller]
    fn case(before: GpuState, rows: Vec<Row>, want: &[&str]) {
        let got = judge(&before, &quiet(), &rows, &sampling(), Some(1980.0));
        check(&got.noise, want);
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
            &["row `32L` did not converge: rsd 2.90%"],
        );
        let mut slow = row("2L");
        slow.sm_clock_mhz = 1700.0;
        case(
            quiet(),
            vec![slow],
            &["row `2L` ran at 1700 MHz, more than 5% below"],
        );
        let mut within = row("4L");
        within.sm_clock_mhz = 1900.0;
        case(quiet(), vec![within], &[]);
        let mut throttled = row("8L");
        throttled.gpu = Some(GpuState {
            throttle_reasons: vec!["hw_slowdown".into(), "applications_clocks_setting".into()],
            ..quiet()
        });
        case(quiet(), vec![throttled], &["clock held down (hw_slowdown)"]);
    }

    /// A row of the coalescing sweep as NVML saw it: `reasons` during the row, NVML's SM
    /// clock `nvml_mhz`, the kernel's own clock `kernel_mhz`, and `pids` on the GPU.
    fn sampled(kernel_mhz: f64, nvml_mhz: u32, reasons: &[&str], pids: &[u32]) -> Row {
        let mut row = fixture::row("S2", 2, 1.56);
        row.sm_clock_mhz = kernel_mhz;
        row.gpu = Some(GpuState {
            sm_clock_mhz: nvml_mhz,
            temperature_c: 47,
            throttle_reasons: reasons.iter().map(|r| (*r).to_owned()).collect(),
            other_processes: pids.to_vec(),
            power_w: Some(698.4),
            ..quiet()
        });
        row
    }

    #[test]
    fn a_software_power_cap_alone_is_recorded_but_not_interference() {
        // What the second H200 host showed on coalescing S2: the cap, no one else, the
        // clock where it belongs, the row settled.
        let row = sampled(1960.0, 1980, &["sw_power_cap"], &[]);
        let got = judge(&quiet(), &quiet(), &[row], &sampling(), Some(1980.0));
        assert!(got.noise.is_empty(), "{got:?}");
        check(
            &got.tolerated,
            &[
                "row `S2`: NVML reported sw_power_cap (the board drew 698 of 700 W) while the SM clock held 1960 MHz \
               in the kernel and 1980 MHz by NVML, within 5% of the rated 1980 MHz",
            ],
        );
        assert!(got.tolerated[0].contains("not counted as interference"));

        // Exactly at the margin (1980 × 0.95 = 1881 MHz) still holds; a megahertz under
        // does not.
        let edge = sampled(1881.0, 1881, &["sw_power_cap", "gpu_idle"], &[]);
        let got = judge(&quiet(), &quiet(), &[edge], &sampling(), Some(1980.0));
        assert!(got.noise.is_empty() && got.tolerated.len() == 1, "{got:?}");
        let under = sampled(1881.0, 1880, &["sw_power_cap"], &[]);
        case(
            quiet(),
            vec![under],
            &[
                "(sw_power_cap, 698 of 700 W), and not by a power cap alone: NVML read the SM \
               clock at 1880 MHz, more than 5% below the rated 1980 MHz",
            ],
        );

        // Without a rated clock from the driver, NVML's maximum clock is the yardstick.
        let row = sampled(1960.0, 1980, &["sw_power_cap"], &[]);
        let got = judge(&quiet(), &quiet(), &[row], &sampling(), None);
        assert!(got.noise.is_empty() && got.tolerated.len() == 1, "{got:?}");
        let mut blind = sampled(1960.0, 1980, &["sw_power_cap"], &[]);
        blind.gpu.as_mut().unwrap().max_sm_clock_mhz = 0;
        let got = judge(&quiet(), &quiet(), &[blind], &sampling(), None);
        check(&got.noise, &["no rated SM clock to compare the clock with"]);
        assert!(got.tolerated.is_empty());
    }

    #[test]
    fn a_power_cap_with_anything_a_competing_job_shows_is_interference() {
        // The kernel's clock dropped: both the drop and the cap are named.
        case(
            quiet(),
            vec![sampled(1805.0, 1980, &["sw_power_cap"], &[])],
            &[
                "row `S2` ran at 1805 MHz, more than 5% below the rated 1980 MHz",
                "not by a power cap alone: the kernel's SM clock was 1805 MHz",
            ],
        );
        // Another process during the row.
        case(
            quiet(),
            vec![sampled(1960.0, 1980, &["sw_power_cap"], &[1464])],
            &[
                "not by a power cap alone: another compute process was on the GPU",
                "row `S2`: another compute process was on the GPU (pid 1464)",
            ],
        );
        // Another process before the sweep only (gone by the row).
        let mut busy = quiet();
        busy.other_processes = vec![1464];
        case(
            busy.clone(),
            vec![sampled(1960.0, 1980, &["sw_power_cap"], &[])],
            &[
                "another compute process was on the GPU before the sweep (pid 1464)",
                "not by a power cap alone: another compute process was on the GPU",
            ],
        );
        // The row did not settle.
        let mut unsettled = sampled(1960.0, 1980, &["sw_power_cap"], &[]);
        unsettled.stop = StopReason::MaxSamples;
        unsettled.rel_stdev = 0.02;
        case(
            quiet(),
            vec![unsettled],
            &[
                "row `S2` did not converge: rsd 2.00% after 3 samples (stopped by max_samples = ",
                "not by a power cap alone: the row did not converge",
            ],
        );
        // The kernel read no clock.
        case(
            quiet(),
            vec![sampled(0.0, 1980, &["sw_power_cap"], &[])],
            &["not by a power cap alone: the kernel reported no SM clock"],
        );
        // The competing-load run of issue 13 (run 2): 1805–1905 MHz, the cap, pid 1464,
        // rows unsettled — every reason is listed.
        let mut shared = sampled(1805.0, 1830, &["sw_power_cap"], &[1464]);
        shared.stop = StopReason::TimeLimit;
        shared.rel_stdev = 0.07;
        let got = judge(&busy, &busy, &[shared], &sampling(), Some(1980.0));
        assert!(got.tolerated.is_empty(), "{got:?}");
        check(
            &got.noise,
            &[
                "before the sweep (pid 1464)",
                "after the sweep (pid 1464)",
                "row `S2` did not converge",
                "row `S2` ran at 1805 MHz",
                "not by a power cap alone: the row did not converge; another compute process \
                 was on the GPU; the kernel's SM clock was 1805 MHz, more than 5% below the \
                 rated 1980 MHz; NVML read the SM clock at 1830 MHz",
                "row `S2`: another compute process was on the GPU (pid 1464)",
            ],
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
            let row = sampled(1960.0, 1980, reasons, &[]);
            case(
                quiet(),
                vec![row],
                &[&format!(
                    "row `S2`: NVML reported the clock held down ({})",
                    reasons.join(", ")
                )],
            );
        }
        // Benign reasons alone are neither noise nor worth a note.
        let row = sampled(
            1960.0,
            1980,
            &["gpu_idle", "applications_clocks_setting"],
            &[],
        );
        case(quiet(), vec![row], &[]);
    }

    #[test]
    fn throttle_reasons_have_names() {
        let r = ThrottleReasons::GPU_IDLE | ThrottleReasons::HW_SLOWDOWN;
        assert_eq!(reason_names(r), ["hw_slowdown", "gpu_idle"]);
        assert!(reason_names(ThrottleReasons::NONE).is_empty());
    }
}
