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
    // SAFETY: dlopens libcuda by its candidate names and closes it again, running only the
    // library's own initialisers; nothing in it is called.
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
    // Counters are tested on their own (below); here the sweep alone.
    let only = ["--gpu", "--kernel", "bank_conflicts", "--no-counters"];
    let out = measure(root.path(), &only);
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
    let header = coursegen::measurement::contract::HEADER.as_bytes();
    assert_eq!(r.freshness(&source, &manifest, header), Freshness::Fresh);
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
    let out = measure(root.path(), &["--gpu", "--kernel", "bank_conflicts"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("disagree with the reference kernel"),
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

/// The repository's folder (templates/, static/ and benches/ are read from there).
fn repo() -> PathBuf {
    kernels_dir().parent().unwrap().to_owned()
}

/// Starts `benches/competing_load.py` (a PyTorch bf16 matmul loop) on device 0 and waits
/// until it has the GPU busy.
fn competing_load() -> std::process::Child {
    use std::io::BufRead;
    let mut child = std::process::Command::new("python3")
        .arg(repo().join("benches/competing_load.py"))
        .args(["--device", "0", "--seconds", "300"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 with torch runs the competing load");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "ready", "the competing load did not start");
    child
}

fn only_record(dir: &Path) -> PathBuf {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

#[test]
#[ignore = "needs an NVIDIA GPU and python3 with torch (the competing load)"]
fn a_run_under_a_competing_load_exits_1_keeps_the_record_and_noisy_records_fail_strict() {
    let root = site_with_kernels(str::to_owned);
    // No counters: ncu would count the noisy run's rows under the load too, and what is
    // tested here is the refusal.
    let only = [
        "--gpu",
        "--kernel",
        "bank_conflicts",
        "--device",
        "0",
        "--no-counters",
    ];
    let out = measure(root.path(), &only);
    assert_eq!(out.status.code(), Some(0), "quiet run: {}", stderr(&out));
    let path = only_record(&root.path().join("measurements/bank_conflicts"));
    let quiet = std::fs::read(&path).unwrap();
    let mut load = competing_load();
    let out = measure(root.path(), &only);
    let kept = std::fs::read(&path).unwrap();
    let refused = stderr(&out);
    let noisy_args = [&only[..], &["--accept-noisy"]].concat();
    let accepted = measure(root.path(), &noisy_args);
    load.kill().unwrap();
    load.wait().unwrap();
    eprintln!("under load, refused run:\n{refused}");
    assert_eq!(out.status.code(), Some(1), "{refused}");
    assert!(
        refused.contains("the run was disturbed") && refused.contains("another compute process"),
        "{refused}"
    );
    assert!(refused.contains("is kept as it was"), "{refused}");
    assert!(kept == quiet, "the refused run changed the record");

    eprintln!("under load, --accept-noisy:\n{}", stderr(&accepted));
    assert_eq!(accepted.status.code(), Some(0), "{}", stderr(&accepted));
    assert_eq!(
        only_record(&root.path().join("measurements/bank_conflicts")),
        path
    );
    let record = records::load(&path).unwrap();
    assert!(record.noisy(), "{:?}", record.run);
    assert!(
        record
            .run
            .noise
            .iter()
            .any(|n| n.contains("another compute process")),
        "{:?}",
        record.run.noise
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o644, "{mode:o}");
    }

    // The noisy record on a published page: the preview says so, --strict refuses.
    for dir in ["templates", "static"] {
        copy_dir(&repo().join(dir), &root.path().join(dir));
    }
    let entry = root.path().join("content/glossary/bank-conflict.md");
    std::fs::create_dir_all(entry.parent().unwrap()).unwrap();
    std::fs::write(&entry, ENTRY).unwrap();
    let build = |strict: bool| {
        let mut cmd = std::process::Command::new(bin());
        cmd.args(["build", "--drafts", "--root"]).arg(root.path());
        cmd.arg("--out").arg(root.path().join("public"));
        if strict {
            cmd.arg("--strict");
        }
        cmd.output().unwrap()
    };
    let preview = build(false);
    assert_eq!(preview.status.code(), Some(0), "{}", stderr(&preview));
    let page =
        std::fs::read_to_string(root.path().join("public/glossary/bank-conflict/index.html"))
            .unwrap();
    assert!(page.contains("This run was disturbed"), "{page}");
    let strict = build(true);
    assert_eq!(strict.status.code(), Some(1), "{}", stderr(&strict));
    assert!(
        stderr(&strict).contains("marked noisy"),
        "{}",
        stderr(&strict)
    );
}

const ENTRY: &str = "---
title: What is a bank conflict?
term: bank conflict
category: Memory
cc: \"9.0\"
summary: Lanes of a warp asking one bank for different words.
measure: bank_conflicts
sources: [{title: CUDA guide, url: \"https://docs.nvidia.com/cuda/\"}]
status: draft
---
Body.
";

fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// What the view accepts as "the counter agrees with the model" (see `view::table`).
const COUNTER_TOLERANCE: f64 = 0.005;

#[test]
#[ignore = "needs an NVIDIA GPU and Nsight Compute (ncu on the PATH)"]
fn counters_agree_with_every_model_exactly() {
    let root = site_with_kernels(str::to_owned);
    // Retries: the coalescing kernel's witness thread lives a few microseconds, and its
    // clock reading once fell under the 5% margin on a quiet GPU (1869 MHz on S1,
    // reports/gpu-runs/2026-12-01-issue29-gpu-tests.log), which refuses that run.
    let out = measure(
        root.path(),
        &["--gpu", "--device", "0", "--counters", "--retries", "2"],
    );
    // Printed either way (seen with --nocapture): the rows, counters and any tolerated
    // power cap are the evidence the device log keeps.
    eprintln!("measure --counters:\n{}", stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let set = records::load_all(&root.path().join("measurements")).unwrap();
    let per = |kernel: &str, label: &str| {
        let r = &set.for_kernel(kernel)[0].record;
        r.row(label)
            .unwrap()
            .counters
            .as_ref()
            .unwrap()
            .per_request()
    };
    for (label, want) in [
        ("L", 1.0),
        ("2L", 2.0),
        ("4L", 4.0),
        ("8L", 8.0),
        ("32L", 32.0),
        ("33L", 1.0),
    ] {
        let got = per("bank_conflicts", label);
        assert!((got - want).abs() <= COUNTER_TOLERANCE, "{label}: {got}");
    }
    for (label, want) in [
        ("S1", 4.0),
        ("S2", 8.0),
        ("S4", 16.0),
        ("S8", 32.0),
        ("S32", 32.0),
    ] {
        let got = per("coalescing", label);
        assert!((got - want).abs() <= COUNTER_TOLERANCE, "{label}: {got}");
    }
    // Threads active per executed instruction: 32 / paths (bank::divergence).
    for (label, want) in [
        ("P1", 32.0),
        ("P2", 16.0),
        ("P4", 8.0),
        ("P8", 4.0),
        ("P16", 2.0),
        ("P32", 1.0),
    ] {
        let got = per("warp_divergence", label);
        assert!((got - want).abs() <= COUNTER_TOLERANCE, "{label}: {got}");
    }
    // The two concepts added as course files only: wavefronts per load, counted by hand.
    for (kernel, label, want) in [
        ("swizzled_tile", "naive", 32.0),
        ("swizzled_tile", "padded", 1.0),
        ("swizzled_tile", "swizzled", 1.0),
        ("vector_loads", "float", 1.0),
        ("vector_loads", "float2", 2.0),
        ("vector_loads", "float4", 4.0),
    ] {
        let got = per(kernel, label);
        assert!(
            (got - want).abs() <= COUNTER_TOLERANCE,
            "{kernel} {label}: {got}"
        );
    }
    // And every row of every kernel equals what its manifest's declared map predicts.
    for entry in std::fs::read_dir(root.path().join("kernels")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let m = coursegen::measurement::manifest::Manifest::load(&path).unwrap();
        for (label, &value) in m.axis.labels.iter().zip(&m.axis.values) {
            let want = m
                .predict(value, coursegen::bank::model::Geometry::STANDARD)
                .unwrap()
                .counter();
            let got = per(&m.kernel, label);
            assert!(
                (got - want).abs() <= COUNTER_TOLERANCE,
                "{} {label}: counted {got}, the model {want}",
                m.kernel
            );
        }
    }
}

/// A draft entry that shows `warp_divergence`'s table (with its counter column) and quotes a
/// counter in prose.
const DIVERGENCE_ENTRY: &str = "---
title: What is warp divergence?
term: warp divergence
category: Execution
cc: \"9.0\"
summary: Lanes of one warp on different paths.
measure: warp_divergence
sources: [{title: CUDA guide, url: \"https://docs.nvidia.com/cuda/\"}]
status: draft
---
Body.

## Measured

With 32 paths ncu counted {{% counter P32 %}} threads per instruction.
";

/// `build --drafts` of `root`, with `--strict` when asked.
fn build(root: &Path, strict: bool) -> Output {
    let mut cmd = std::process::Command::new(bin());
    cmd.args(["build", "--drafts", "--root"]).arg(root);
    cmd.arg("--out").arg(root.join("public"));
    if strict {
        cmd.arg("--strict");
    }
    cmd.output().unwrap()
}

#[test]
#[ignore = "needs an NVIDIA GPU and Nsight Compute (ncu on the PATH)"]
fn a_run_without_counters_keeps_the_record_whose_counters_the_pages_show() {
    let root = site_with_kernels(str::to_owned);
    for dir in ["templates", "static"] {
        copy_dir(&repo().join(dir), &root.path().join(dir));
    }
    let entry = root.path().join("content/glossary/warp-divergence.md");
    std::fs::create_dir_all(entry.parent().unwrap()).unwrap();
    std::fs::write(&entry, DIVERGENCE_ENTRY).unwrap();
    let only = ["--gpu", "--kernel", "warp_divergence", "--device", "0"];
    // Counters are read by default where ncu is on the PATH.
    let out = measure(root.path(), &only);
    eprintln!("measure (counters by default):\n{}", stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let path = only_record(&root.path().join("measurements/warp_divergence"));
    let counted = std::fs::read(&path).unwrap();
    let record = records::load(&path).unwrap();
    assert!(
        record.rows.iter().all(|r| r.counters.is_some()),
        "{:?}",
        record.rows
    );
    for strict in [false, true] {
        let b = build(root.path(), strict);
        assert_eq!(b.status.code(), Some(0), "strict {strict}: {}", stderr(&b));
    }

    // Without counters: refused before any GPU time, the record byte for byte as it was.
    let no = [&only[..], &["--no-counters"]].concat();
    let out = measure(root.path(), &no);
    let refused = stderr(&out);
    eprintln!("measure --no-counters:\n{refused}");
    assert_eq!(out.status.code(), Some(1), "{refused}");
    assert!(
        refused.contains("hardware counters on rows P1, P2, P4, P8, P16, P32")
            && refused.contains("--force")
            && refused.contains("the old records are kept"),
        "{refused}"
    );
    assert!(
        std::fs::read(&path).unwrap() == counted,
        "the record changed"
    );
    for strict in [false, true] {
        let b = build(root.path(), strict);
        assert_eq!(b.status.code(), Some(0), "strict {strict}: {}", stderr(&b));
    }

    // --force replaces it: the preview shows "not measured" with a warning, --strict
    // refuses it with one line for the record and one for the binding.
    let forced = [&no[..], &["--force"]].concat();
    let out = measure(root.path(), &forced);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let record = records::load(&path).unwrap();
    assert!(record.rows.iter().all(|r| r.counters.is_none()));
    let preview = build(root.path(), false);
    assert_eq!(preview.status.code(), Some(0), "{}", stderr(&preview));
    assert!(
        stderr(&preview).contains("has no hardware counters"),
        "{}",
        stderr(&preview)
    );
    let page = std::fs::read_to_string(
        root.path()
            .join("public/glossary/warp-divergence/index.html"),
    )
    .unwrap();
    assert!(
        page.contains("ncu counted (not measured yet) threads"),
        "{page}"
    );
    let strict = build(root.path(), true);
    assert_eq!(strict.status.code(), Some(1), "{}", stderr(&strict));
    let errors: Vec<String> = stderr(&strict)
        .lines()
        .filter(|l| l.contains("error"))
        .map(str::to_owned)
        .collect();
    eprintln!("build --strict after --force:\n{}", stderr(&strict));
    assert!(errors.len() <= 3, "{errors:#?}");
}
