//! One kernel's sweep: compile for the device, size the grid from the SM count, and for each
//! row check the output against the reference kernel's, warm up, sample until the stopping rule
//! says so, check again — then assemble the record. Progress goes to stderr (indicatif).
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use super::error::MeasureError;
use super::gpu::{self, Gpu, Launcher};
use super::nvrtc;
use super::options::KernelToMeasure;
use super::reference;
use super::stats::{self, Summary};
use crate::canonical;
use crate::measurement::contract;
use crate::measurement::record::{
    self as records, Build, Device, GpuState, Record, Row, Run, Software, StopReason,
};

/// Banks × bank width: the shared-memory bytes one SM serves per clock (32 × 4 B).
const SHARED_BYTES_PER_CLOCK: u32 = 128;

/// Launch shape on this device.
pub(crate) struct Shape {
    grid: u32,
    logical: u32,
    block: u32,
    /// Logical threads per launch: bytes per launch is this times a row's bytes per thread.
    threads: u64,
}

/// Reads the GPU's state (NVML) right after a row's samples.
pub(crate) type ReadState<'a> = &'a (dyn Fn() -> Result<GpuState, MeasureError> + Sync);

/// Measures every row of one kernel and returns its record; saves nothing.
pub(crate) fn measure_kernel(
    gpu: &Gpu,
    k: &KernelToMeasure,
    read_state: ReadState<'_>,
    bars: &MultiProgress,
) -> Result<Record, MeasureError> {
    let started = Instant::now();
    let date = jiff::Timestamp::now().to_string();
    let m = &k.manifest;
    let file = format!("kernels/{}.cu", k.name);
    let options = contract::options(m);
    let compiled = nvrtc::compile(&k.unit(&file, &options), gpu.cc)?;
    let say = |line: String| bars.suspend(|| eprintln!("{line}"));
    if !compiled.log.is_empty() {
        say(format!("{file}: NVRTC says:\n{}", compiled.log));
    }
    let (mut launcher, shape) = prepare(gpu, k, &compiled)?;
    // Bytes and GB/s only for a kernel that moves bytes: a divergence kernel's few bytes
    // of seeds would read as a throughput it never had.
    let moves_bytes = m.bound().moves_bytes();
    say(format!(
        "{}: {} on {} (device {}, sm_{}{}), {} blocks × {} threads, {} logical blocks{}",
        k.name,
        compiled.kind(),
        gpu.name,
        gpu.ordinal,
        gpu.cc.0,
        gpu.cc.1,
        shape.grid,
        shape.block,
        shape.logical,
        if moves_bytes {
            format!(", {} threads per launch", shape.threads)
        } else {
            String::new()
        }
    ));
    let progress = Progress::new(
        bars,
        &k.name,
        gpu.ordinal,
        m.axis.labels.len(),
        m.sampling.max_samples,
        moves_bytes,
    );
    let mut rows = Vec::new();
    for (label, &value) in m.axis.labels.iter().zip(&m.axis.values) {
        let row = measure_row(
            &mut launcher,
            k,
            (label, value),
            &shape,
            &progress,
            read_state,
        )?;
        progress.row_done(&row);
        rows.push(row);
    }
    drop(progress);
    Ok(assemble(
        gpu,
        k,
        &compiled,
        rows,
        &shape,
        date,
        started.elapsed(),
    ))
}

/// Compiles nothing: loads the compiled kernel, sizes the grid from the device and uploads
/// fresh random input. Shared by the sweep and by `--launch-once`.
pub(crate) fn prepare<'g>(
    gpu: &'g Gpu,
    k: &KernelToMeasure,
    compiled: &nvrtc::Compiled,
) -> Result<(Launcher<'g>, Shape), MeasureError> {
    let m = &k.manifest;
    let func = gpu.load(compiled, &m.kernel)?;
    let reference = gpu.load(compiled, &m.reference.kernel)?;
    let block = m.launch.block_threads;
    let per_sm = gpu::resident_blocks(&func, block)?;
    // The reference runs with the same grid: it must fit a block of this size too.
    for (name, per_sm) in [
        (&k.name, per_sm),
        (
            &m.reference.kernel,
            gpu::resident_blocks(&reference, block)?,
        ),
    ] {
        if per_sm == 0 {
            return Err(MeasureError::NoOccupancy {
                kernel: name.clone(),
                block_threads: block,
            });
        }
    }
    let resident = per_sm * gpu.sm_count;
    let logical = m.launch.waves * resident;
    let shape = Shape {
        grid: if m.launch.persistent {
            resident
        } else {
            logical
        },
        logical,
        block,
        threads: u64::from(logical) * u64::from(block),
    };
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let input = reference::input(m.input_words, seed);
    let launcher = Launcher::new(
        gpu,
        (func, reference),
        &input,
        (shape.grid, shape.logical, shape.block),
    )?;
    Ok((launcher, shape))
}

/// Launches row `label` once and waits: what ncu counts under `--counters`.
pub(crate) fn launch_once(gpu: &Gpu, k: &KernelToMeasure, label: &str) -> Result<(), MeasureError> {
    let m = &k.manifest;
    let value = m.value_of(label).ok_or_else(|| MeasureError::Counters {
        label: label.to_owned(),
        message: format!("no such row; rows are {}", m.axis.labels.join(", ")),
    })?;
    let (file, options) = (format!("kernels/{}.cu", k.name), contract::options(m));
    let compiled = nvrtc::compile(&k.unit(&file, &options), gpu.cc)?;
    let (mut launcher, _) = prepare(gpu, k, &compiled)?;
    launcher.launch(value)?;
    launcher.sync()
}

fn measure_row(
    l: &mut Launcher<'_>,
    k: &KernelToMeasure,
    (label, value): (&str, u32),
    shape: &Shape,
    progress: &Progress,
    read_state: ReadState<'_>,
) -> Result<Row, MeasureError> {
    let policy = &k.manifest.sampling;
    progress.start_row(label);
    let expected = l.reference(value)?;
    let threads_checked = check_against_reference(l, k, label, value, &expected)?;
    for _ in 0..policy.warmup_launches {
        l.launch(value)?;
    }
    l.sync()?;
    let (mut samples, mut clocks) = (Vec::new(), Vec::new());
    let began = Instant::now();
    let stop = loop {
        let sample = l.timed(value)?;
        samples.push(sample.ms);
        clocks.push(sample.sm_clock_mhz);
        progress.sample(&samples);
        if let Some(stop) = stats::stop_reason(&samples, began.elapsed().as_secs_f64(), policy) {
            break stop;
        }
    };
    // Read while the GPU is still busy with this row: its clock and throttle reasons now
    // are the ones the samples saw.
    let gpu_state = read_state()?;
    // Checked again after the timed launches, so a result that goes wrong under sustained
    // load cannot hide behind a first good launch.
    check_against_reference(l, k, label, value, &expected)?;
    let Summary {
        median,
        min,
        max,
        rel_stdev,
    } = stats::summarize(&samples).expect("the stopping rule takes at least two samples");
    let sm_clock = stats::summarize(&clocks).map_or(0.0, |s| s.median);
    // Checked with the manifest: every row's value gives a positive number.
    let bytes = shape.threads * k.manifest.bytes_per_thread_at(value).unwrap_or(0);
    Ok(Row {
        label: label.to_owned(),
        value,
        bandwidth_gb_s: bytes as f64 / (median * 1e6),
        samples_ms: samples,
        median_ms: median,
        min_ms: min,
        max_ms: max,
        rel_stdev,
        stop,
        bytes_per_launch: bytes,
        sm_clock_mhz: sm_clock,
        threads_checked,
        gpu: Some(gpu_state),
        counters: None,
    })
}

fn check_against_reference(
    l: &mut Launcher<'_>,
    k: &KernelToMeasure,
    label: &str,
    value: u32,
    expected: &[u32],
) -> Result<u64, MeasureError> {
    l.checked(value, expected)?
        .map_err(|m| MeasureError::Mismatch {
            kernel: k.name.clone(),
            label: label.to_owned(),
            thread: m.thread,
            expected: m.expected,
            got: m.got,
            wrong: m.wrong,
            total: m.total,
        })
}

fn assemble(
    gpu: &Gpu,
    k: &KernelToMeasure,
    compiled: &nvrtc::Compiled,
    rows: Vec<Row>,
    shape: &Shape,
    date: String,
    elapsed: Duration,
) -> Record {
    let m = &k.manifest;
    let clocks: Vec<f64> = rows.iter().map(|r| r.sm_clock_mhz).collect();
    Record {
        format: records::FORMAT,
        kernel: k.name.clone(),
        axis: m.axis.name.clone(),
        device: Device {
            name: gpu.name.clone(),
            slug: records::device_slug(&gpu.name),
            compute_capability: format!("{}.{}", gpu.cc.0, gpu.cc.1),
            sm_count: gpu.sm_count,
            sm_clock_mhz: stats::summarize(&clocks).map_or(0.0, |s| s.median),
            rated_sm_clock_mhz: gpu.rated_clock_mhz,
            shared_bytes_per_clock_per_sm: SHARED_BYTES_PER_CLOCK,
            gpu_id: Some(canonical::sha256_hex(gpu.uuid.as_bytes())[..8].to_owned()),
            dram_peak_gb_s: gpu.dram_peak_gb_s,
        },
        software: Software {
            driver_version: gpu::driver_version(),
            cuda_driver_api: gpu.cuda_driver_api.clone(),
            nvrtc_version: nvrtc::version().unwrap_or_else(|e| format!("unknown ({e})")),
        },
        build: Build {
            source_file: format!("kernels/{}.cu", k.name),
            compile_options: compiled.options.clone(),
            binary: compiled.kind().to_owned(),
            source_sha256: canonical::sha256_hex(k.source.as_bytes()),
            manifest_sha256: canonical::sha256_hex(&k.manifest_bytes),
            header_sha256: contract::includes_header(k.source.as_bytes())
                .then(|| canonical::sha256_hex(&k.header)),
        },
        run: Run {
            date,
            coursegen_version: env!("CARGO_PKG_VERSION").to_owned(),
            block_threads: shape.block,
            grid_blocks: shape.grid,
            logical_blocks: shape.logical,
            warmup_launches: m.sampling.warmup_launches,
            min_samples: m.sampling.min_samples,
            target_rel_stdev: m.sampling.target_rel_stdev,
            time_limit_s: m.sampling.time_limit_s,
            sweep_seconds: elapsed.as_secs_f64(),
            ..Run::default()
        },
        rows,
        checksum: None,
    }
}

/// Two bars on stderr: rows of the kernel, samples of the current row, added to the
/// `MultiProgress` that every GPU's thread shares (so `--device all` draws one bar pair per
/// GPU, none over another). Hidden when stderr is not a terminal; the one-line row
/// summaries are printed either way.
struct Progress {
    multi: MultiProgress,
    kernel: ProgressBar,
    row: ProgressBar,
    /// Whether a row's line gives its throughput.
    moves_bytes: bool,
}

impl Progress {
    fn new(
        multi: &MultiProgress,
        name: &str,
        device: usize,
        rows: usize,
        max_samples: u32,
        moves_bytes: bool,
    ) -> Progress {
        let multi = multi.clone();
        let style = |t: &str| ProgressStyle::with_template(t).expect("a valid progress template");
        let kernel = multi.add(ProgressBar::new(rows as u64));
        kernel.set_style(style("{prefix:>16} [{bar:30}] {pos}/{len} rows"));
        kernel.set_prefix(format!("{name} @{device}"));
        let row = multi.add(ProgressBar::new(u64::from(max_samples)));
        row.set_style(style("{prefix:>16} [{bar:30}] {pos} samples {msg}"));
        Progress {
            multi,
            kernel,
            row,
            moves_bytes,
        }
    }

    fn start_row(&self, label: &str) {
        self.row.reset();
        self.row.set_prefix(label.to_owned());
        self.row
            .set_message("checking against the reference kernel");
    }

    fn sample(&self, samples: &[f64]) {
        self.row.set_position(samples.len() as u64);
        if let Some(s) = stats::summarize(samples) {
            self.row.set_message(format!(
                "median {:.4} ms, rsd {:.2}%",
                s.median,
                s.rel_stdev * 100.0
            ));
        }
    }

    fn row_done(&self, r: &Row) {
        self.kernel.inc(1);
        let line = format!(
            "{:>6}: median {:.4} ms, {} samples, rsd {:.3}%, {}{}, SM {:.0} MHz, {} threads checked",
            r.label,
            r.median_ms,
            r.samples_ms.len(),
            r.rel_stdev * 100.0,
            match r.stop {
                StopReason::Converged => "converged",
                StopReason::TimeLimit => "time limit",
                StopReason::MaxSamples => "max samples",
            },
            if self.moves_bytes {
                format!(", {:.1} GB/s", r.bandwidth_gb_s)
            } else {
                String::new()
            },
            r.sm_clock_mhz,
            r.threads_checked
        );
        self.multi.suspend(|| eprintln!("{line}"));
    }
}

/// Clears and removes the bars however the sweep ends (a failed check too), so a GPU whose
/// sweep stopped leaves no stale bars among the others'.
impl Drop for Progress {
    fn drop(&mut self) {
        for bar in [&self.row, &self.kernel] {
            bar.finish_and_clear();
            self.multi.remove(bar);
        }
    }
}
