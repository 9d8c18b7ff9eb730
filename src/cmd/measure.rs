//! `coursegen measure --gpu`: the flags as `measurement::run`'s options, and its errors
//! as exit codes (a kernel or manifest that fails its check is content, 1; no GPU, 2).
use std::path::Path;

use clap::Args;

use super::Failure;
use crate::measurement::run::{self as measure, MeasureOptions};

/// Flags of `coursegen measure`.
#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// Run on the GPU (required: measuring always means a real run).
    #[arg(long)]
    pub gpu: bool,
    /// Measure only this kernel (the name of kernels/<NAME>.cu).
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// CUDA device to run on: an ordinal, or `all` to measure every GPU of the host in
    /// parallel (one record per physical GPU).
    #[arg(long, default_value = "0", value_name = "N|all")]
    pub device: String,
    /// Write the record even when the run was disturbed (another process on the GPU, a
    /// clock below rated, a row that did not converge); it is marked noisy, and the page and
    /// `build --strict` say so. Without it a disturbed run exits 1 and keeps the old record.
    #[arg(long)]
    pub accept_noisy: bool,
    /// Re-run a disturbed kernel up to N more times, after a pause of 20 s each.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub retries: u32,
    /// Also run each row once under Nsight Compute (`ncu` on the PATH) and record the
    /// hardware counters the model predicts.
    #[arg(long)]
    pub counters: bool,
    /// Internal: launch one row once and exit (what `--counters` runs under ncu).
    #[arg(long, hide = true, value_name = "LABEL")]
    pub launch_once: Option<String>,
}

/// Runs `coursegen measure`.
pub fn run_measure(root: &Path, args: MeasureArgs) -> Result<(), Failure> {
    let device =
        measure::DeviceChoice::parse(&args.device).map_err(|e| Failure::Usage(e.into()))?;
    let opts = MeasureOptions {
        gpu: args.gpu,
        kernel: args.kernel,
        device,
        accept_noisy: args.accept_noisy,
        retries: args.retries,
        counters: args.counters,
        launch_once: args.launch_once,
    };
    measure::measure(root, &opts).map_err(|e| {
        if e.is_content() {
            Failure::Content(e.into())
        } else {
            Failure::Usage(e.into())
        }
    })
}
