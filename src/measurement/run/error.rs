//! Everything that can stop a measurement, and what each one means for the exit code and the
//! summary table.
use std::path::PathBuf;

use cudarc::driver::DriverError;

use crate::measurement::manifest::ManifestError;
use crate::measurement::record::RecordsError;

/// Everything that can stop a measurement; [`MeasureError::is_content`] picks the exit code.
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    /// `measure` was run without `--gpu`.
    #[error(
        "measure always runs kernels on a real GPU: run `coursegen measure --gpu` on a machine \
         with an NVIDIA GPU (records land in measurements/ and `build` reads them with no GPU)"
    )]
    NoGpuFlag,
    /// libcuda cannot be loaded.
    #[error(
        "no CUDA driver found: measure --gpu needs an NVIDIA GPU and its driver (libcuda.so), \
         and this machine has neither; run it on a GPU machine and commit the records it writes"
    )]
    NoDriver,
    /// libnvrtc cannot be loaded.
    #[error(
        "no NVRTC found: measure --gpu compiles kernels with libnvrtc.so.13 (CUDA 13); install \
         the CUDA toolkit or `. .ci/nvrtc.sh`, or put its folder on LD_LIBRARY_PATH"
    )]
    NoNvrtc,
    /// `--device` is out of range.
    #[error("{}", no_device(*ordinal, *count))]
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// Devices the driver sees.
        count: i32,
    },
    /// A driver call failed.
    #[error("CUDA driver error while {what}: {error}")]
    Driver {
        /// What was being done.
        what: &'static str,
        /// The driver's error.
        error: DriverError,
    },
    /// NVRTC failed outside compiling (version, architectures, output).
    #[error("NVRTC: {0}")]
    Nvrtc(String),
    /// The kernel does not compile.
    #[error("kernel `{file}` does not compile with NVRTC ({options}):\n{log}")]
    Compile {
        /// The `.cu` file.
        file: String,
        /// The options used.
        options: String,
        /// NVRTC's log.
        log: String,
    },
    /// The manifest's entry point is not in the module.
    #[error(
        "entry point `{entry}` is not in the compiled kernel: declare it \
         `extern \"C\" __global__` so NVRTC does not mangle its name ({error})"
    )]
    Entry {
        /// The manifest's `kernel` field.
        entry: String,
        /// The driver's error.
        error: DriverError,
    },
    /// A launch's output disagrees with the reference kernel's.
    #[error(
        "kernel `{kernel}`, row `{label}`: {wrong} of {total} threads disagree with the \
         reference kernel (first: thread {thread} returned {got:#010x}, the reference \
         {expected:#010x}); the kernel or its manifest's `reference.kernel` is wrong, so no \
         time was recorded"
    )]
    Mismatch {
        /// Kernel name.
        kernel: String,
        /// Row label.
        label: String,
        /// First wrong thread.
        thread: u64,
        /// Its expected result.
        expected: u32,
        /// What it returned.
        got: u32,
        /// Wrong threads.
        wrong: u64,
        /// Threads checked.
        total: u64,
    },
    /// Not one block of the declared size fits on an SM.
    #[error(
        "kernel `{kernel}`: no block of {block_threads} threads fits on an SM of this GPU; lower launch.block_threads"
    )]
    NoOccupancy {
        /// Kernel name.
        kernel: String,
        /// Declared block size.
        block_threads: u32,
    },
    /// A `.cu` file has no manifest beside it.
    #[error("`{cu}` has no manifest: add `{yaml}` declaring its sweep")]
    NoManifest {
        /// The kernel source.
        cu: PathBuf,
        /// Where its manifest belongs.
        yaml: PathBuf,
    },
    /// `--kernel` names kernels that are not there, or there are none.
    #[error("no {} in `{dir}`; kernels there: {available}", unknown_kernels(names))]
    UnknownKernel {
        /// Every name asked for that is not there (`*.cu` for any).
        names: Vec<String>,
        /// The kernels folder.
        dir: PathBuf,
        /// What is there.
        available: String,
    },
    /// A kernel breaks the kernel contract (`kernel_check`, NVRTC alone): found before the
    /// GPU is touched, since the driver would read past the five arguments `measure` passes.
    #[error(
        "{} break the kernel contract, so nothing was launched (`coursegen check` says the same):\n{}",
        if .0.len() == 1 { "a kernel's entry points" } else { "kernels' entry points" },
        .0.iter().map(|d| format!("  {d}")).collect::<Vec<_>>().join("\n")
    )]
    Contract(Vec<crate::content::Diagnostic>),
    /// A kernel file could not be read.
    #[error("cannot read `{path}`: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// A manifest is invalid.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Writing the record failed.
    #[error(transparent)]
    Records(#[from] RecordsError),
    /// `--device` is neither an ordinal nor `all`.
    #[error("--device takes a CUDA ordinal (0, 1, …) or `all`, not `{0}`")]
    BadDevice(String),
    /// NVML could not be loaded or read.
    #[error(
        "NVML: {0}; measure --gpu reads the GPU's clocks and processes through NVML to refuse a disturbed run"
    )]
    Nvml(String),
    /// `--counters` without ncu.
    #[error(
        "--counters needs Nsight Compute: no `ncu` on the PATH; install Nsight Compute (it ships with the \
         CUDA toolkit, e.g. /usr/local/cuda/bin or /opt/nvidia/nsight-compute/<version>) and add its folder \
         to PATH, or measure with --no-counters"
    )]
    NoNcu,
    /// The new record would lack what the pages show of the one it replaces.
    #[error(
        "kernel `{kernel}` on {device}: `{}` holds {}, which the course's pages show, and this \
         run's record would not ({why}), so nothing was written and the old records are kept. \
         Measure where ncu is on the PATH and without --no-counters, or pass --force to \
         replace it anyway (the preview then shows “not measured” and `build --strict` fails)",
        path.display(),
        lost.join(" and ")
    )]
    WouldLose {
        /// Kernel name.
        kernel: String,
        /// The GPU, as in [`MeasureError::Noisy`].
        device: String,
        /// The record kept.
        path: PathBuf,
        /// What it has that the new one lacks, one phrase each.
        lost: Vec<String>,
        /// Why the new one lacks it.
        why: String,
    },
    /// ncu ran but its counters could not be read.
    #[error("counting row `{label}` under ncu failed: {message}")]
    Counters {
        /// Row label.
        label: String,
        /// What went wrong, with ncu's output.
        message: String,
    },
    /// The run was disturbed, so nothing was written.
    #[error(
        "kernel `{kernel}` on {device}: the run was disturbed, so no record was written ({kept}):\n  - {}\n\
         Re-run on a quiet GPU (--retries N pauses and tries again), or pass --accept-noisy to \
         write the record marked noisy (the page says so and `build --strict` refuses it)",
        reasons.join("\n  - ")
    )]
    Noisy {
        /// Kernel name.
        kernel: String,
        /// The GPU, e.g. `NVIDIA H200 (device 0, id 1a2b3c4d)`.
        device: String,
        /// Why, one sentence each, every row it concerns grouped in it.
        reasons: Vec<String>,
        /// The short cause of each reason (`clock`, `other process`), for the summary.
        causes: Vec<&'static str>,
        /// What happened to the existing record.
        kept: String,
    },
    /// Kernels that failed or were refused, each already reported under its kernel and in
    /// the summary table: the last line says how many, not why again.
    #[error(
        "{failed} of {total} kernel runs wrote no record; each says why above, and the records \
         they would have replaced are kept"
    )]
    Reported {
        /// Runs (kernel × GPU) that wrote no record.
        failed: usize,
        /// Runs in all.
        total: usize,
        /// Whether any of them is the content's fault (exit 1) rather than the machine's (2).
        content: bool,
    },
}

/// "kernel `a`", or "kernels `a`, `b` and `c`".
fn unknown_kernels(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            format!("kernels {} and {last}", rest.join(", "))
        }
        _ => format!("kernel {}", quoted.join("")),
    }
}

fn no_device(ordinal: usize, count: i32) -> String {
    match count {
        0 => format!("no CUDA device {ordinal}: the driver sees no device"),
        1 => format!("no CUDA device {ordinal}: the driver sees one, device 0"),
        n => format!(
            "no CUDA device {ordinal}: the driver sees {n}; pick one with --device 0..{} or --device all",
            n - 1
        ),
    }
}

impl MeasureError {
    /// Whether this is the content's fault (exit 1) rather than usage or environment (exit 2).
    pub(crate) fn is_content(&self) -> bool {
        matches!(
            self,
            MeasureError::Compile { .. }
                | MeasureError::Contract(_)
                | MeasureError::Entry { .. }
                | MeasureError::Mismatch { .. }
                | MeasureError::NoManifest { .. }
                | MeasureError::Manifest(_)
                | MeasureError::Noisy { .. }
                | MeasureError::WouldLose { .. }
                | MeasureError::Reported { content: true, .. }
        )
    }

    /// What the summary table's `result` column says of it: a few words, the cause only.
    pub(crate) fn short(&self) -> String {
        let failed = |what: &str| format!("failed: {what}");
        match self {
            MeasureError::Noisy { causes, .. } => {
                let mut causes = causes.clone();
                causes.dedup();
                format!("refused: {}", causes.join(", "))
            }
            MeasureError::WouldLose { lost, .. } => {
                let what: Vec<&str> = [("row", "rows"), ("hardware counters", "counters")]
                    .into_iter()
                    .filter(|(start, _)| lost.iter().any(|l| l.starts_with(start)))
                    .map(|(_, what)| what)
                    .collect();
                format!("kept: {}", what.join(", "))
            }
            MeasureError::Mismatch { .. } => failed("wrong result"),
            MeasureError::Compile { .. } | MeasureError::Entry { .. } => failed("compile"),
            MeasureError::NoOccupancy { .. } => failed("block size"),
            MeasureError::Counters { .. } | MeasureError::NoNcu => failed("ncu"),
            MeasureError::Nvml(_) => failed("NVML"),
            MeasureError::Records(_) | MeasureError::Io { .. } => failed("files"),
            MeasureError::Manifest(_) | MeasureError::NoManifest { .. } => failed("manifest"),
            MeasureError::Contract(_) => failed("contract"),
            _ => failed("CUDA"),
        }
    }
}
