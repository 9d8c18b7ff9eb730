//! `coursegen measure` run as a real executable. The first tests hold everywhere; the
//! `#[ignore]`d ones need an NVIDIA GPU: `cargo test --test gpu -- --ignored` on the GPU
//! machine. COURSEGEN_BIN overrides the binary (a test executable carried to that machine
//! finds the freshly built one there rather than the path it was compiled with).
use std::path::{Path, PathBuf};
use std::process::Output;

use coursegen::measurement::record::{self as records, Freshness};

fn bin() -> PathBuf {
    std::env::var_os("COURSEGEN_BIN")
        .map_or_else(|| env!("CARGO_BIN_EXE_coursegen").into(), PathBuf::from)
}

fn kernels_dir() -> PathBuf {
    std::env::var_os("COURSEGEN_KERNELS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels"),
        PathBuf::from,
    )
}

/// A site root holding a copy of the repository's kernels, edited by `edit`.
fn site_with_kernels(edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("kernels");
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(kernels_dir()).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let text = if path.extension().is_some_and(|e| e == "cu") {
            edit(&text)
        } else {
            text
        };
        std::fs::write(dir.join(path.file_name().unwrap()), text).unwrap();
    }
    root
}

fn measure(root: &Path, extra: &[&str]) -> Output {
    std::process::Command::new(bin())
        .args(["measure", "--root"])
        .arg(root)
        .args(extra)
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn gpu_present() -> bool {
    unsafe { cudarc::driver::sys::is_culib_present() }
}

#[test]
fn measure_without_the_gpu_flag_is_a_usage_error() {
    let root = site_with_kernels(str::to_owned);
    let out = measure(root.path(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("coursegen measure --gpu"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn measure_on_a_machine_without_a_gpu_exits_2_and_says_so() {
    if gpu_present() {
        eprintln!("skipped: this machine has a CUDA driver");
        return;
    }
    let root = site_with_kernels(str::to_owned);
    let out = measure(root.path(), &["--gpu"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("no CUDA driver found") && err.contains("NVIDIA GPU"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(!root.path().join("measurements").exists());
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn measure_writes_a_checked_fresh_record_for_every_row() {
    let root = site_with_kernels(str::to_owned);
    let out = measure(root.path(), &["--gpu"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let set = records::load_all(&root.path().join("measurements")).unwrap();
    let loaded = &set.for_kernel("bank_conflicts")[0];
    let r = &loaded.record;
    let labels: Vec<&str> = r.rows.iter().map(|row| row.label.as_str()).collect();
    assert_eq!(labels, ["L", "2L", "4L", "8L", "16L", "32L", "33L"]);
    for row in &r.rows {
        assert!(
            row.threads_checked > 0 && row.samples_ms.len() >= 10,
            "{row:?}"
        );
        assert!(
            row.min_ms <= row.median_ms && row.median_ms <= row.max_ms,
            "{row:?}"
        );
    }
    // Conflict-free rows are alike; the 32-way row is far slower.
    let (l, l32) = (
        r.row("L").unwrap().median_ms,
        r.row("32L").unwrap().median_ms,
    );
    assert!(l32 / l > 16.0, "32L/L = {}", l32 / l);
    assert!(
        r.device.sm_clock_mhz > 100.0 && r.device.sm_count > 0,
        "{:?}",
        r.device
    );
    let kernels = root.path().join("kernels");
    let source = std::fs::read(kernels.join("bank_conflicts.cu")).unwrap();
    let manifest = std::fs::read(kernels.join("bank_conflicts.yaml")).unwrap();
    assert_eq!(r.freshness(&source, &manifest), Freshness::Fresh);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn a_kernel_with_a_wrong_result_is_refused_and_the_old_record_stays() {
    let root = site_with_kernels(|cu| cu.replace("= a0 + a1;", "= a0 + a1 + (threadIdx.x == 77);"));
    let dir = root.path().join("measurements/bank_conflicts");
    std::fs::create_dir_all(&dir).unwrap();
    for slug in ["nvidia-h200", "previous"] {
        std::fs::write(dir.join(format!("{slug}.json")), "previous record").unwrap();
    }
    let out = measure(root.path(), &["--gpu"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("disagree with the CPU reference"),
        "{}",
        stderr(&out)
    );
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["nvidia-h200.json", "previous.json"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("nvidia-h200.json")).unwrap(),
        "previous record"
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn an_unknown_device_ordinal_is_a_usage_error() {
    let root = site_with_kernels(str::to_owned);
    let out = measure(root.path(), &["--gpu", "--device", "99"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no CUDA device 99"),
        "{}",
        stderr(&out)
    );
}
