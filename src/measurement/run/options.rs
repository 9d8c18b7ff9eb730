//! What `coursegen measure` was asked to do (GPUs, counters, kernels) and each kernel's files
//! as read before any GPU work.
use std::collections::BTreeMap;

use super::error::MeasureError;
use super::nvrtc;
use crate::measurement::manifest::Manifest;
use crate::measurement::needs::Needs;

/// Which GPUs `--device` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum DeviceChoice {
    /// One CUDA ordinal.
    #[default]
    First,
    /// This ordinal.
    One(usize),
    /// Every GPU of the host, in parallel.
    All,
}

impl DeviceChoice {
    /// Parses `--device`: an ordinal or `all`.
    pub(crate) fn parse(text: &str) -> Result<DeviceChoice, MeasureError> {
        match text.trim() {
            "all" => Ok(DeviceChoice::All),
            n => n
                .parse()
                .map(DeviceChoice::One)
                .map_err(|_| MeasureError::BadDevice(text.to_owned())),
        }
    }
}

/// A kernel to measure: its files, as read before any GPU work.
#[derive(Debug)]
pub(crate) struct KernelToMeasure {
    pub(crate) name: String,
    pub(crate) source: String,
    pub(crate) manifest_bytes: Vec<u8>,
    pub(crate) manifest: Manifest,
    /// The contract header `#include <coursegen.cuh>` reads (`contract::header`).
    pub(crate) header: std::sync::Arc<[u8]>,
}

impl KernelToMeasure {
    /// What NVRTC compiles for this kernel, named `file` in its messages.
    pub(crate) fn unit<'a>(&'a self, file: &'a str, options: &'a [String]) -> nvrtc::Unit<'a> {
        nvrtc::Unit {
            source: &self.source,
            file,
            header: &self.header,
            options,
        }
    }
}

/// What `coursegen measure` was asked to do.
#[derive(Debug, Clone, Default)]
pub(crate) struct MeasureOptions {
    /// `--gpu` was given (measuring always means a real run).
    pub(crate) gpu: bool,
    /// Only these kernels (`--kernel`, any number of times); empty: every kernel.
    pub(crate) kernels: Vec<String>,
    /// Which GPUs.
    pub(crate) device: DeviceChoice,
    /// Write a disturbed run's record anyway, marked noisy.
    pub(crate) accept_noisy: bool,
    /// Re-runs of a disturbed kernel.
    pub(crate) retries: u32,
    /// Whether to read hardware counters under ncu.
    pub(crate) counters: CounterChoice,
    /// Replace a record even with one that lacks what the pages show of it.
    pub(crate) force: bool,
    /// What the course's prose binds of each kernel's records (its tables' needs come from
    /// the manifests); `measure` keeps a record that has what these and the table need.
    pub(crate) prose: BTreeMap<String, Needs>,
    /// Internal: launch this row once and exit (run under ncu by `counters`).
    pub(crate) launch_once: Option<String>,
}

/// Whether `measure` reads hardware counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum CounterChoice {
    /// When `ncu` is on the PATH (the default), saying so when it is not.
    #[default]
    WhenNcu,
    /// Always: no `ncu` is an error (`--counters`).
    Always,
    /// Never (`--no-counters`).
    Never,
}
