//! The GPU's state through NVML (loaded at run time, like CUDA, from the driver's
//! `libnvidia-ml.so.1`): clocks, throttle reasons, temperature and the other compute processes
//! on the device, read before the sweep, after each row and after it; `interference` judges it.
use nvml_wrapper::Nvml;
use nvml_wrapper::bitmasks::device::ThrottleReasons;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};

use super::error::MeasureError;
use crate::measurement::record::GpuState;

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
            default_power_limit_w: device.power_management_limit_default().ok().map(watts),
            mem_clock_mhz: device.clock_info(Clock::Memory).ok(),
            max_mem_clock_mhz: device.max_clock_info(Clock::Memory).ok(),
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

/// Whether NVML's throttle reason `name` slows the SMs (one of [`SLOWDOWNS`]).
pub(super) fn is_slowdown(name: &str) -> bool {
    SLOWDOWNS.iter().any(|(_, n)| *n == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttle_reasons_have_names() {
        let r = ThrottleReasons::GPU_IDLE | ThrottleReasons::HW_SLOWDOWN;
        assert_eq!(reason_names(r), ["hw_slowdown", "gpu_idle"]);
        assert!(reason_names(ThrottleReasons::NONE).is_empty());
    }
}
