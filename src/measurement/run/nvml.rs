//! The GPU's state through NVML (loaded at run time, like CUDA, from the driver's
//! `libnvidia-ml.so.1`): clocks, throttle reasons, temperature and the other compute processes
//! on the device — read before the sweep, after each row and after the sweep — and the verdict
//! on whether a run was disturbed. The verdict is pure, so it is tested without a GPU.
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
        })
    }
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

/// Why a run cannot be trusted, one sentence each; empty when it was quiet. `rated_mhz` is
/// the GPU's rated SM clock.
pub(crate) fn noise(
    before: &GpuState,
    after: &GpuState,
    rows: &[Row],
    sampling: &Sampling,
    rated_mhz: Option<f64>,
) -> Vec<String> {
    let mut why = Vec::new();
    for (when, state) in [("before", before), ("after", after)] {
        if !state.other_processes.is_empty() {
            why.push(format!(
                "another compute process was on the GPU {when} the sweep (pid {})",
                join(&state.other_processes)
            ));
        }
    }
    for row in rows {
        if row.stop != StopReason::Converged {
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
            && row.sm_clock_mhz < rated * (1.0 - CLOCK_MARGIN)
        {
            why.push(format!(
                "row `{}` ran at {:.0} MHz, more than {:.0}% below the rated {rated:.0} MHz",
                row.label,
                row.sm_clock_mhz,
                CLOCK_MARGIN * 100.0
            ));
        }
        if let Some(state) = &row.gpu {
            let slow: Vec<&str> = state
                .throttle_reasons
                .iter()
                .map(String::as_str)
                .filter(|n| is_slowdown(n))
                .collect();
            if !slow.is_empty() {
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
    }
    why
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
    fn case(before: GpuState, rows: Vec<Row>, want: &[&str]) {
        let got = noise(&before, &quiet(), &rows, &sampling(), Some(1980.0));
        assert_eq!(got.len(), want.len(), "{got:?}");
        for (g, w) in got.iter().zip(want) {
            assert!(g.contains(w), "{g:?} lacks {w:?}");
        }
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
        let mut capped = row("8L");
        capped.gpu = Some(GpuState {
            throttle_reasons: vec!["sw_power_cap".into(), "applications_clocks_setting".into()],
            ..quiet()
        });
        case(quiet(), vec![capped], &["clock held down (sw_power_cap)"]);
    }

    #[test]
    fn throttle_reasons_have_names() {
        let r = ThrottleReasons::GPU_IDLE | ThrottleReasons::HW_SLOWDOWN;
        assert_eq!(reason_names(r), ["hw_slowdown", "gpu_idle"]);
        assert!(reason_names(ThrottleReasons::NONE).is_empty());
    }
}
