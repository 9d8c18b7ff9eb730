//! `coursegen measure --gpu`: compiles `kernels/*.cu` with NVRTC, runs each manifest's sweep
//! on a GPU, checks every launch against its reference kernel and writes records — never one that
//! lacks what the pages need of the record it replaces (`needs`). The only module that
//! touches cudarc; uses `record`, `manifest` and `needs` and nothing else of ours.
//!
//! Kernel ABI: every measured kernel is `extern "C" __global__` and takes
//! `(const unsigned* input, unsigned* output, int axis_value, int logical_blocks,
//! unsigned long long* clock)`, thread 0 of block 0 writing `[SM cycles, ns]` to `clock`.
pub(crate) mod counters;
mod error;
mod gpu;
mod interference;
pub(crate) mod kernel_check;
mod nvml;
pub mod nvrtc;
mod options;
mod per_gpu;
mod reference;
mod report;
mod stats;
mod sweep;

use std::path::Path;

use crate::measurement::contract;
use crate::measurement::manifest::Manifest;
use crate::measurement::record::KernelFiles;

pub use error::MeasureError;
pub(crate) use options::{CounterChoice, DeviceChoice, KernelToMeasure, MeasureOptions};

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
    // Read through `KernelFiles`, which refuses a link or a FIFO as build and `--plan` do.
    let files = KernelFiles::new(dir);
    let header = contract::header(&files).map_err(io(&dir.join(contract::HEADER_NAME)))?;
    let text = |bytes: &[u8], path: &Path| {
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|e| io(path)(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
    };
    names
        .into_iter()
        .map(|name| {
            let cu = files.path(&name, "cu");
            let yaml = files.path(&name, "yaml");
            if !yaml.is_file() {
                return Err(MeasureError::NoManifest { cu, yaml });
            }
            let source = text(&files.read(&name, "cu").map_err(io(&cu))?, &cu)?;
            let manifest_bytes = files.read(&name, "yaml").map_err(io(&yaml))?;
            let manifest = Manifest::parse(&yaml, &text(&manifest_bytes, &yaml)?)?;
            Ok(KernelToMeasure {
                name,
                source,
                manifest_bytes: manifest_bytes.to_vec(),
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
    #[cfg(unix)]
    fn discover_refuses_a_kernel_or_manifest_that_links_outside_as_build_does() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("k.cu"), "// not the course's").unwrap();
        let fixture = crate::measurement::manifest::FIXTURE;
        std::fs::write(outside.path().join("k.yaml"), fixture).unwrap();
        for linked in ["cu", "yaml"] {
            let dir = tempfile::tempdir().unwrap();
            for ext in ["cu", "yaml"] {
                let (at, from) = (dir.path().join(format!("a.{ext}")), outside.path());
                if ext == linked {
                    std::os::unix::fs::symlink(from.join(format!("k.{ext}")), at).unwrap();
                } else {
                    std::fs::copy(from.join(format!("k.{ext}")), at).unwrap();
                }
            }
            let err = discover(dir.path(), &[]).map(|k| k.len()).unwrap_err();
            assert!(
                matches!(err, MeasureError::Io { .. })
                    && err.to_string().contains(&format!("a.{linked}")),
                "{linked}: {err}"
            );
        }
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
