//! `coursegen measure --gpu`: compiles `kernels/*.cu` with NVRTC, runs each manifest's sweep
//! on a GPU, checks every launch against its reference kernel and writes records — never one that
//! lacks what the pages need of the record it replaces (`needs`). The only module that
//! touches cudarc; uses `record`, `manifest` and `needs` and nothing else of ours.
//!
//! Kernel ABI: every measured kernel is `extern "C" __global__` and takes
//! `(const unsigned* input, unsigned* output, int axis_value, int logical_blocks,
//! unsigned long long* clock)`, thread 0 of block 0 writing `[SM cycles, ns]` to `clock`.
pub(crate) mod counters;
mod gpu;
mod interference;
pub(crate) mod kernel_check;
mod nvml;
pub mod nvrtc;
mod per_gpu;
mod reference;
mod report;
mod stats;
mod sweep;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cudarc::driver::DriverError;

use crate::measurement::contract;
use crate::measurement::manifest::{Manifest, ManifestError};
use crate::measurement::needs::Needs;
use crate::measurement::record::KernelFiles;
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

/// Runs `coursegen measure`: every kernel (or one) on every chosen GPU, a record each.
pub(crate) fn measure(root: &Path, args: &MeasureOptions) -> Result<(), MeasureError> {
    if !args.gpu {
        return Err(MeasureError::NoGpuFlag);
    }
    // A kernel that breaks the contract is the course's problem, found with NVRTC alone and
    // said before anything about this machine's GPU (the child ncu counts was checked by its
    // parent).
    if args.launch_once.is_none() && nvrtc::present() {
        let problems = kernel_check::contract_problems(root, &args.kernels);
        if !problems.is_empty() {
            return Err(MeasureError::Contract(problems));
        }
    }
    // cudarc panics on the first call into a library it cannot load: look first.
    // SAFETY: dlopens libcuda by its candidate names and closes it again: that runs only the
    // library's own initialisers, as any use of the driver would, and calls nothing in it.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(MeasureError::NoDriver);
    }
    if !nvrtc::present() {
        return Err(MeasureError::NoNvrtc);
    }
    let kernels = discover(&root.join("kernels"), &args.kernels)?;
    let count = gpu::device_count()?;
    let ordinals = match args.device {
        DeviceChoice::All => (0..count).collect(),
        DeviceChoice::First => vec![0],
        DeviceChoice::One(n) => vec![n],
    };
    if let Some(&bad) = ordinals.iter().find(|&&n| n >= count) {
        return Err(MeasureError::NoDevice {
            ordinal: bad,
            count: count as i32,
        });
    }
    if let Some(label) = &args.launch_once {
        return per_gpu::launch_once(&kernels, ordinals[0], label);
    }
    per_gpu::measure_all(root, &kernels, &ordinals, args)
}

/// Lists `kernels/*.cu` (or just the kernels `only` names) and reads each with its manifest.
fn discover(dir: &Path, only: &[String]) -> Result<Vec<KernelToMeasure>, MeasureError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |error| MeasureError::Io { path, error }
    };
    let names = kernel_names(dir, only)?;
    let header =
        contract::header(&KernelFiles::new(dir)).map_err(io(&dir.join(contract::HEADER_NAME)))?;
    names
        .into_iter()
        .map(|name| {
            let cu = dir.join(format!("{name}.cu"));
            let yaml = dir.join(format!("{name}.yaml"));
            if !yaml.is_file() {
                return Err(MeasureError::NoManifest { cu, yaml });
            }
            let source = std::fs::read_to_string(&cu).map_err(io(&cu))?;
            let manifest_bytes = std::fs::read(&yaml).map_err(io(&yaml))?;
            let manifest = Manifest::load(&yaml)?;
            Ok(KernelToMeasure {
                name,
                source,
                manifest_bytes,
                manifest,
                header: header.clone(),
            })
        })
        .collect()
}

/// The kernels a run takes: every `kernels/*.cu`, or those `only` names (in the order of the
/// folder, each once); every name that is not there is reported in one error, with the
/// kernels that are. Reads no file but the folder (`measure --plan` lists the same kernels).
pub(crate) fn kernel_names(dir: &Path, only: &[String]) -> Result<Vec<String>, MeasureError> {
    let mut names = KernelFiles::new(dir)
        .names("cu")
        .map_err(|error| MeasureError::Io {
            path: dir.to_owned(),
            error,
        })?;
    let available = if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    };
    let mut unknown: Vec<String> = Vec::new();
    for name in only {
        if !names.contains(name) && !unknown.contains(name) {
            unknown.push(name.clone());
        }
    }
    if only.is_empty() && names.is_empty() {
        unknown.push("*.cu".to_owned());
    }
    if !unknown.is_empty() {
        return Err(MeasureError::UnknownKernel {
            names: unknown,
            dir: dir.to_owned(),
            available,
        });
    }
    if !only.is_empty() {
        names.retain(|n| only.contains(n));
    }
    Ok(names)
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_choices_and_the_range_a_two_gpu_host_names() {
        assert_eq!(DeviceChoice::parse("all").unwrap(), DeviceChoice::All);
        assert_eq!(DeviceChoice::parse("1").unwrap(), DeviceChoice::One(1));
        assert!(
            DeviceChoice::parse("gpu1")
                .unwrap_err()
                .to_string()
                .contains("`gpu1`")
        );
        let two = MeasureError::NoDevice {
            ordinal: 7,
            count: 2,
        }
        .to_string();
        assert!(two.contains("sees 2; pick one with --device 0..1"), "{two}");
        let one = MeasureError::NoDevice {
            ordinal: 1,
            count: 1,
        }
        .to_string();
        assert!(one.contains("sees one, device 0"), "{one}");
    }

    fn args(gpu: bool) -> MeasureOptions {
        MeasureOptions {
            gpu,
            ..MeasureOptions::default()
        }
    }

    #[test]
    fn without_gpu_flag_it_is_a_usage_error() {
        let err = measure(Path::new("."), &args(false)).unwrap_err();
        assert!(matches!(err, MeasureError::NoGpuFlag) && !err.is_content());
        assert!(err.to_string().contains("--gpu"));
    }

    #[test]
    fn discover_reads_kernels_and_names_missing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let err = discover(dir.path(), &[]).unwrap_err().to_string();
        assert!(err.contains("kernels there: none"), "{err}");
        std::fs::write(dir.path().join("a.cu"), "// a").unwrap();
        let err = discover(dir.path(), &[]).unwrap_err();
        assert!(
            err.is_content() && err.to_string().contains("a.yaml"),
            "{err}"
        );
        std::fs::write(
            dir.path().join("a.yaml"),
            crate::measurement::manifest::FIXTURE,
        )
        .unwrap();
        assert_eq!(discover(dir.path(), &[]).unwrap()[0].name, "a");
        let err = discover(dir.path(), &["b".into()]).unwrap_err().to_string();
        assert!(
            err.contains("no kernel `b` in") && err.contains("kernels there: a"),
            "{err}"
        );
    }

    #[test]
    fn kernel_names_takes_each_named_kernel_and_names_every_unknown_one() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a", "b", "c"] {
            std::fs::write(dir.path().join(format!("{name}.cu")), "// k").unwrap();
        }
        let names = |only: &[&str]| {
            let only: Vec<String> = only.iter().map(|n| (*n).to_owned()).collect();
            kernel_names(dir.path(), &only)
        };
        assert_eq!(names(&[]).unwrap(), ["a", "b", "c"]);
        assert_eq!(names(&["c", "a", "c"]).unwrap(), ["a", "c"]);
        let err = names(&["x", "a", "y", "x", "z"]).unwrap_err().to_string();
        assert!(
            err.starts_with("no kernels `x`, `y` and `z` in `")
                && err.ends_with("kernels there: a, b, c"),
            "{err}"
        );
        let err = names(&["x", "y"]).unwrap_err().to_string();
        assert!(err.starts_with("no kernels `x` and `y` in"), "{err}");
    }
}
