//! A test fixture, not a measurement: a record shaped like the H200 run, with made-up
//! round numbers and a device name that says so. Never written under `measurements/`.
use super::{Build, Counters, Device, FORMAT, Record, Row, Run, Software, StopReason};

/// The fixture's bytes per launch (4224 logical blocks × 1024 threads × 8192 bytes).
pub(crate) const BYTES: u64 = 4224 * 1024 * 8192;

/// Shared load instructions per launch, as ncu counted them on the H200.
pub(crate) const REQUESTS: u64 = 276_824_064;

/// Counters of a row whose load instructions each took `wavefronts` wavefronts.
pub(crate) fn counters(wavefronts: u64) -> Counters {
    Counters {
        what: "shared-memory wavefronts per load instruction".into(),
        metric: "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum".into(),
        count: wavefronts * REQUESTS,
        requests_metric: "smsp__sass_inst_executed_op_shared_ld.sum".into(),
        requests: REQUESTS,
    }
}

/// A fixture row with `n` identical-ish samples around `median_ms`.
pub(crate) fn row(label: &str, value: u32, median_ms: f64) -> Row {
    let samples_ms = vec![median_ms * 0.999, median_ms, median_ms * 1.001];
    Row {
        label: label.into(),
        value,
        median_ms,
        min_ms: samples_ms[0],
        max_ms: samples_ms[2],
        samples_ms,
        rel_stdev: 0.001,
        stop: StopReason::Converged,
        bytes_per_launch: BYTES,
        bandwidth_gb_s: BYTES as f64 / (median_ms * 1e6),
        sm_clock_mhz: 1980.0,
        threads_checked: 4224 * 1024,
        gpu: None,
        counters: None,
    }
}

/// The fixture record of `bank_conflicts` on a pretend GPU named `name`, counters read as
/// the bank model says; `source` and `manifest` are the bytes whose hashes it records.
pub(crate) fn record(name: &str, source: &[u8], manifest: &[u8]) -> Record {
    let counted = |mut row: Row, degree: u64| {
        row.counters = Some(counters(degree));
        row
    };
    let rows = [1u32, 2, 4, 8, 16, 32]
        .iter()
        .map(|&s| counted(row(&label(s), s, 1.1 * f64::from(s)), u64::from(s)))
        .chain([counted(row("33L", 33, 1.1), 1)])
        .collect();
    let mut record = Record {
        format: FORMAT,
        kernel: "bank_conflicts".into(),
        axis: "stride".into(),
        device: Device {
            name: name.into(),
            slug: super::device_slug(name),
            compute_capability: "9.0".into(),
            sm_count: 132,
            sm_clock_mhz: 1980.0,
            rated_sm_clock_mhz: Some(1980.0),
            shared_bytes_per_clock_per_sm: 128,
            gpu_id: None,
            dram_peak_gb_s: None,
        },
        software: Software {
            driver_version: Some("580.0.0-fixture".into()),
            cuda_driver_api: "13.0".into(),
            nvrtc_version: "13.0".into(),
        },
        build: Build {
            source_file: "kernels/bank_conflicts.cu".into(),
            compile_options: vec!["--gpu-architecture=sm_90".into(), "--std=c++17".into()],
            binary: "cubin".into(),
            source_sha256: crate::canonical::sha256_hex(source),
            manifest_sha256: crate::canonical::sha256_hex(manifest),
            header_sha256: None,
        },
        run: Run {
            date: "2026-01-01T00:00:00Z".into(),
            coursegen_version: "0.0.0-fixture".into(),
            block_threads: 1024,
            grid_blocks: 264,
            logical_blocks: 4224,
            warmup_launches: 5,
            min_samples: 10,
            target_rel_stdev: 0.005,
            time_limit_s: 5.0,
            sweep_seconds: 2.0,
            counters_tool: Some("Nsight Compute 2025.3.1.0 (fixture)".into()),
            ..Run::default()
        },
        rows,
        checksum: None,
    };
    record.seal();
    record
}

fn label(stride: u32) -> String {
    if stride == 1 {
        "L".into()
    } else {
        format!("{stride}L")
    }
}
