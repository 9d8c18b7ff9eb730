//! `coursegen measure --gpu`: compiles `kernels/*.cu` with NVRTC, runs each manifest's sweep
//! on a GPU, checks every launch against a CPU reference and writes records. The only module
//! that touches cudarc; uses `record` and `manifest` and nothing else of ours.
//!
//! Kernel ABI: every measured kernel is `extern "C" __global__` and takes
//! `(const unsigned* input, unsigned* output, int axis_value, int logical_blocks,
//! unsigned long long* clock)`, thread 0 of block 0 writing `[SM cycles, ns]` to `clock`.
mod gpu;
pub mod nvrtc;
mod reference;
mod stats;
mod sweep;

use std::path::{Path, PathBuf};

use cudarc::driver::DriverError;

use crate::measurement::manifest::{Manifest, ManifestError};
use crate::measurement::record::{self as records, RecordsError};

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
    #[error("no CUDA device {ordinal}: the driver sees {count}; pick one with --device 0..{count}")]
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
    /// A launch's output disagrees with the CPU reference.
    #[error(
        "kernel `{kernel}`, row `{label}`: {wrong} of {total} threads disagree with the CPU \
         reference (first: thread {thread} returned {got:#010x}, expected {expected:#010x}); \
         the kernel or its manifest's `reference` is wrong, so no time was recorded"
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
    /// `--kernel` names no kernel, or there are none.
    #[error("no kernel `{name}` in `{dir}`; kernels there: {available}")]
    UnknownKernel {
        /// The name asked for (`*` for any).
        name: String,
        /// The kernels folder.
        dir: PathBuf,
        /// What is there.
        available: String,
    },
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
}

impl MeasureError {
    /// Whether this is the content's fault (exit 1) rather than usage or environment (exit 2).
    pub fn is_content(&self) -> bool {
        matches!(
            self,
            MeasureError::Compile { .. }
                | MeasureError::Entry { .. }
                | MeasureError::Mismatch { .. }
                | MeasureError::NoManifest { .. }
                | MeasureError::Manifest(_)
        )
    }
}

/// A kernel to measure: its files, as read before any GPU work.
#[derive(Debug)]
pub(crate) struct KernelFiles {
    pub(crate) name: String,
    pub(crate) source: String,
    pub(crate) manifest_bytes: Vec<u8>,
    pub(crate) manifest: Manifest,
}

/// What `coursegen measure` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct MeasureOptions {
    /// `--gpu` was given (measuring always means a real run).
    pub gpu: bool,
    /// Only this kernel.
    pub kernel: Option<String>,
    /// CUDA device ordinal.
    pub device: usize,
}

/// Runs `coursegen measure`: every kernel (or one), a record each.
pub fn measure(root: &Path, args: &MeasureOptions) -> Result<(), MeasureError> {
    if !args.gpu {
        return Err(MeasureError::NoGpuFlag);
    }
    // cudarc panics on the first call into a library it cannot load: look first.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(MeasureError::NoDriver);
    }
    if !nvrtc::present() {
        return Err(MeasureError::NoNvrtc);
    }
    let kernels = discover(&root.join("kernels"), args.kernel.as_deref())?;
    let gpu = gpu::Gpu::open(args.device)?;
    let measurements = root.join("measurements");
    for kernel in &kernels {
        // A record is saved only after its whole sweep ran and checked out, so a failed run
        // leaves the previous record in place.
        let record = sweep::measure_kernel(&gpu, kernel)?;
        let path = records::save(&measurements, &record)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Lists `kernels/*.cu` (or just `only`) and reads each with its manifest.
fn discover(dir: &Path, only: Option<&str>) -> Result<Vec<KernelFiles>, MeasureError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |error| MeasureError::Io { path, error }
    };
    let mut names: Vec<String> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "cu"))
            .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_owned))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(io(dir)(e)),
    };
    names.sort();
    let available = if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    };
    if let Some(only) = only {
        names.retain(|n| n == only);
    }
    if names.is_empty() {
        return Err(MeasureError::UnknownKernel {
            name: only.unwrap_or("*.cu").to_owned(),
            dir: dir.to_owned(),
            available,
        });
    }
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
            Ok(KernelFiles {
                name,
                source,
                manifest_bytes,
                manifest,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(gpu: bool) -> MeasureOptions {
        MeasureOptions {
            gpu,
            kernel: None,
            device: 0,
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
        let err = discover(dir.path(), None).unwrap_err().to_string();
        assert!(err.contains("kernels there: none"), "{err}");
        std::fs::write(dir.path().join("a.cu"), "// a").unwrap();
        let err = discover(dir.path(), None).unwrap_err();
        assert!(
            err.is_content() && err.to_string().contains("a.yaml"),
            "{err}"
        );
        std::fs::write(
            dir.path().join("a.yaml"),
            crate::measurement::manifest::FIXTURE,
        )
        .unwrap();
        assert_eq!(discover(dir.path(), None).unwrap()[0].name, "a");
        let err = discover(dir.path(), Some("b")).unwrap_err().to_string();
        assert!(
            err.contains("no kernel `b`") && err.contains("kernels there: a"),
            "{err}"
        );
    }
}
