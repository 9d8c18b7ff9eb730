//! Measurement records: the JSON files `measurements/<kernel>/<device-slug>.json` that
//! `measure` writes and `build` reads — types, loading, atomic saving, the checksum that
//! seals a record, staleness. Depends on `canonical` and `atomic` only.
mod files;
mod stale;

pub(crate) use files::KernelFiles;
pub use stale::Freshness;
pub(crate) use stale::{StaleRecord, stale_records};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::canonical;

/// The record format this version writes: 3, sealed with a [`Record::checksum`]. Formats 1
/// (before GPU state, counters and per-GPU ids were recorded) and 2 (before the checksum)
/// are still read: their new fields are absent, and they count as unsealed ([`Seal`]).
pub(crate) const FORMAT: u32 = 3;

/// What a record's `checksum` starts with; the rest is 64 lowercase hex digits.
pub(crate) const CHECKSUM_PREFIX: &str = "sha256:";

/// What can go wrong reading or writing records; each variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum RecordsError {
    /// Reading, listing or writing failed.
    #[error("I/O error at `{path}`: {error}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The file is not a record of this format.
    #[error("record `{path}` is not valid JSON for format {FORMAT}: {error}")]
    Parse {
        /// The record file.
        path: PathBuf,
        /// The JSON error, with line and column.
        error: serde_json::Error,
    },
    /// A kernel's name that is no one folder's under `measurements/` (`..`, a path, not
    /// UTF-8): its records would lie elsewhere.
    #[error("`{path}` is no kernel's records folder: a kernel's name is one folder's name")]
    NotAFolder {
        /// The folder it would name.
        path: PathBuf,
    },
    /// The file parsed but its content is inconsistent.
    #[error("record `{path}`: {message}")]
    Invalid {
        /// The record file.
        path: PathBuf,
        /// What is wrong and how to fix it.
        message: String,
    },
}

impl RecordsError {
    /// What an I/O error at `path` is.
    fn io(path: &Path) -> impl Fn(std::io::Error) -> RecordsError + use<> {
        let path = path.to_owned();
        move |error| RecordsError::Io {
            path: path.clone(),
            error,
        }
    }
}

/// One kernel measured on one GPU, with everything a reader needs to trust the numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Record format, [`FORMAT`].
    pub(crate) format: u32,
    /// Kernel name (`kernels/<kernel>.cu`).
    pub(crate) kernel: String,
    /// Name of the swept argument, e.g. `stride`.
    pub(crate) axis: String,
    /// The GPU.
    pub device: Device,
    /// Driver, CUDA and NVRTC versions.
    pub(crate) software: Software,
    /// How the kernel was compiled, and the hashes that decide staleness.
    pub(crate) build: Build,
    /// When and how the sweep ran.
    pub run: Run,
    /// One row per axis value, in manifest order.
    pub rows: Vec<Row>,
    /// SHA-256 of everything above, written by `measure` ([`Record::seal`]), so that an
    /// edit by hand shows as one ([`Record::seal_state`]). Absent before format 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) checksum: Option<String>,
}

/// Whether a record still holds what `measure` wrote, as far as its checksum can tell.
///
/// A checksum is not a signature: whoever edits a record and knows the scheme can compute
/// a new one. What it does is make a hand edit (a time scaled, a row pasted from another
/// run) visible unless it is made on purpose to hide, and make a record's history something
/// to read in review: `measure` is the only writer that seals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seal {
    /// The checksum matches the record.
    Sealed,
    /// The record carries no checksum (format 1 or 2, or the checksum was removed).
    Unsealed,
    /// The checksum does not match: the record was changed after `measure` wrote it.
    Broken,
}

/// The GPU a record was measured on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    /// As the driver names it, e.g. `NVIDIA H200`.
    pub name: String,
    /// File-name form of the name, e.g. `nvidia-h200`.
    pub(crate) slug: String,
    /// Compute capability, e.g. `9.0`.
    pub(crate) compute_capability: String,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// SM clock during the run (MHz): cycles over nanoseconds read inside the timed launches.
    pub sm_clock_mhz: f64,
    /// The driver's rated maximum SM clock (MHz), when it reports one.
    pub(crate) rated_sm_clock_mhz: Option<f64>,
    /// Shared-memory bytes one SM can serve per clock (banks × bank width).
    pub(crate) shared_bytes_per_clock_per_sm: u32,
    /// Short stable id of this physical GPU: the first 8 hex digits of the SHA-256 of its
    /// UUID (never the serial number), so two GPUs of one model keep two records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_id: Option<String>,
    /// Peak device-memory bandwidth (GB/s): 2 × memory clock × bus width, from the driver.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dram_peak_gb_s: Option<f64>,
}

/// What NVML said about the GPU at one moment of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GpuState {
    /// SM clock (MHz).
    pub(crate) sm_clock_mhz: u32,
    /// The highest SM clock the GPU may run at (MHz).
    pub(crate) max_sm_clock_mhz: u32,
    /// GPU temperature (°C).
    pub(crate) temperature_c: u32,
    /// Why the clock is held down, as NVML names it (`gpu_idle`, `sw_power_cap`, …).
    pub(crate) throttle_reasons: Vec<String>,
    /// Process ids of other compute processes on this GPU.
    pub(crate) other_processes: Vec<u32>,
    /// Board power draw (W), when the GPU reports it (NVML averages it over about a second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) power_w: Option<f64>,
    /// The power limit the driver enforces (W), when the GPU reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) power_limit_w: Option<f64>,
    /// The board's default power limit (W): a lower enforced limit is a cap someone set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) default_power_limit_w: Option<f64>,
    /// Device-memory clock (MHz), when the GPU reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mem_clock_mhz: Option<u32>,
    /// The highest device-memory clock the GPU may run at (MHz), when it reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_mem_clock_mhz: Option<u32>,
}

/// Hardware counters of one row, read by Nsight Compute on one extra launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counters {
    /// What is counted per request, e.g. `shared-memory wavefronts`.
    pub(crate) what: String,
    /// The ncu metric counted (numerator).
    pub(crate) metric: String,
    /// Its total over the launch.
    pub(crate) count: u64,
    /// The ncu metric of requests (denominator).
    pub(crate) requests_metric: String,
    /// Requests (load instructions) in the launch.
    pub(crate) requests: u64,
}

impl Counters {
    /// Counted units per request, e.g. 2.0 wavefronts per shared load at stride 2.
    pub fn per_request(&self) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.count as f64 / self.requests as f64
        }
    }
}

/// Software the record was made with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Software {
    /// NVIDIA driver version, e.g. `580.159.04`, when the system reports it.
    pub(crate) driver_version: Option<String>,
    /// CUDA version the driver API supports, e.g. `13.0`.
    pub(crate) cuda_driver_api: String,
    /// NVRTC version, e.g. `13.0`.
    pub(crate) nvrtc_version: String,
}

/// How the kernel was built.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Build {
    /// The `.cu` file, relative to the site root.
    pub(crate) source_file: String,
    /// Every option passed to NVRTC, target included.
    pub(crate) compile_options: Vec<String>,
    /// `cubin` (machine code for the device) or `ptx` (the driver compiled it).
    pub(crate) binary: String,
    /// SHA-256 (hex) of the kernel source as measured.
    pub(crate) source_sha256: String,
    /// SHA-256 (hex) of the manifest as measured.
    pub(crate) manifest_sha256: String,
    /// SHA-256 (hex) of the contract header `coursegen.cuh` as compiled, when the kernel
    /// includes it (absent otherwise, and in records made before the header existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) header_sha256: Option<String>,
}

/// When and how the sweep ran. `Default` leaves every field empty: a sweep fills in what
/// it set up and leaves the observations (git, NVML, noise, counters) to the steps after it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// Start of the run, RFC 3339 in UTC.
    pub date: String,
    /// Version of coursegen that measured.
    pub(crate) coursegen_version: String,
    /// Threads per block.
    pub(crate) block_threads: u32,
    /// Blocks launched.
    pub(crate) grid_blocks: u32,
    /// Logical blocks the grid worked through.
    pub(crate) logical_blocks: u32,
    /// Warm-up launches per row.
    pub(crate) warmup_launches: u32,
    /// Minimum samples per row.
    pub(crate) min_samples: u32,
    /// Relative standard deviation at which a row stops.
    pub(crate) target_rel_stdev: f64,
    /// Seconds after which a row stops regardless.
    pub(crate) time_limit_s: f64,
    /// Wall-clock seconds for this kernel's whole sweep, compile and checks included.
    pub(crate) sweep_seconds: f64,
    /// The project's git commit when measured, if it is a git checkout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) git_commit: Option<String>,
    /// Whether the working tree had uncommitted changes then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) git_dirty: Option<bool>,
    /// NVML's reading before the sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) gpu_before: Option<GpuState>,
    /// NVML's reading after the sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) gpu_after: Option<GpuState>,
    /// Why this run is not trustworthy (written only with `--accept-noisy`); empty when quiet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub noise: Vec<String>,
    /// What NVML reported that was judged not to be interference (a software power cap
    /// alone, the clock within the margin, the row converged, no other process), one
    /// sentence each; empty when there was nothing of the kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) tolerated: Vec<String>,
    /// The Nsight Compute version that read the counters, when `--counters` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) counters_tool: Option<String>,
}

/// Why sampling a row stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StopReason {
    /// The relative standard deviation reached the target.
    Converged,
    /// The time limit passed first.
    TimeLimit,
    /// The sample cap was reached first.
    MaxSamples,
}

/// One row of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// Row label from the manifest, e.g. `32L`.
    pub label: String,
    /// Axis value, e.g. the stride 32.
    pub(crate) value: u32,
    /// Every timed launch, milliseconds, in order.
    pub samples_ms: Vec<f64>,
    /// Median of the samples.
    pub median_ms: f64,
    /// Fastest sample.
    pub min_ms: f64,
    /// Slowest sample.
    pub max_ms: f64,
    /// Sample standard deviation over the mean.
    pub(crate) rel_stdev: f64,
    /// Why sampling stopped.
    pub(crate) stop: StopReason,
    /// Shared-memory bytes read per launch.
    pub(crate) bytes_per_launch: u64,
    /// Bytes per launch over the median time, GB/s (10⁹ bytes).
    pub(crate) bandwidth_gb_s: f64,
    /// SM clock during this row's samples (MHz), median of the in-kernel clock reads.
    pub(crate) sm_clock_mhz: f64,
    /// Threads whose result matched the reference kernel's (every thread, or no record).
    pub threads_checked: u64,
    /// NVML's reading right after this row's samples, while the GPU was still busy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) gpu: Option<GpuState>,
    /// Hardware counters of one launch of this row (`measure --counters`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<Counters>,
}

/// A record and the file it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The JSON file.
    pub(crate) path: PathBuf,
    /// Its content.
    pub record: Record,
}

/// Every record under `measurements/`, by kernel name, each kernel's records by device slug.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordSet {
    /// Kernel name → records of that kernel, sorted by device slug.
    pub(crate) by_kernel: BTreeMap<String, Vec<Loaded>>,
}

impl RecordSet {
    /// The records of one kernel (empty when it was never measured).
    pub fn for_kernel(&self, kernel: &str) -> &[Loaded] {
        self.by_kernel.get(kernel).map_or(&[], Vec::as_slice)
    }
}

impl Record {
    /// The row with this label.
    pub fn row(&self, label: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.label == label)
    }

    /// The record's file name without `.json`: the device slug, and the GPU's id when known.
    pub(crate) fn file_stem(&self) -> String {
        match &self.device.gpu_id {
            Some(id) => format!("{}-{id}", self.device.slug),
            None => self.device.slug.clone(),
        }
    }

    /// The checksum of this record's content: everything but the `checksum` field, as
    /// canonical JSON (keys sorted, empty members left out, numbers in their shortest
    /// round-trip spelling), so formatting, key order and line endings do not count as edits.
    pub(crate) fn content_checksum(&self) -> String {
        let mut value = serde_json::to_value(self).expect("a record serialises to JSON");
        if let Some(map) = value.as_object_mut() {
            map.remove("checksum");
        }
        let mut text = String::from("coursegen record\n");
        canonical::write_json(&value, &mut text);
        let hash = canonical::sha256_hex(text.as_bytes());
        format!("{CHECKSUM_PREFIX}{hash}")
    }

    /// Marks the record as this version writes it: format [`FORMAT`], with its checksum.
    /// [`save`] seals every record it writes.
    pub fn seal(&mut self) {
        self.format = FORMAT;
        self.checksum = Some(self.content_checksum());
    }

    /// Whether the checksum matches ([`Seal`]).
    pub(crate) fn seal_state(&self) -> Seal {
        match &self.checksum {
            None => Seal::Unsealed,
            Some(sum) if *sum == self.content_checksum() => Seal::Sealed,
            Some(_) => Seal::Broken,
        }
    }

    /// Whether the run was marked noisy (`--accept-noisy` wrote it despite interference).
    pub fn noisy(&self) -> bool {
        !self.run.noise.is_empty()
    }

    /// Checks what serde cannot: format, rows present, finite positive times. `path` is
    /// the record's file, named in the error.
    pub(crate) fn validate(&self, path: &Path) -> Result<(), RecordsError> {
        let invalid = |message: String| {
            Err(RecordsError::Invalid {
                path: path.to_owned(),
                message,
            })
        };
        if !(1..=FORMAT).contains(&self.format) {
            return invalid(format!(
                "format {} is not one this coursegen reads (1 to {FORMAT}): re-measure with this coursegen",
                self.format
            ));
        }
        if let Some(id) = &self.device.gpu_id
            && (id.is_empty() || !id.chars().all(|c| c.is_ascii_hexdigit()))
        {
            return invalid(format!("device.gpu_id `{id}` is not a short hex id"));
        }
        if let Some(sum) = &self.checksum {
            let hex = sum.strip_prefix(CHECKSUM_PREFIX).unwrap_or("");
            if hex.len() != 64 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
                return invalid(format!(
                    "`checksum` is not `{CHECKSUM_PREFIX}` and 64 lowercase hex digits"
                ));
            }
        }
        if self.rows.is_empty() {
            return invalid("no rows: a record holds a whole sweep".into());
        }
        for row in &self.rows {
            let times = [row.median_ms, row.min_ms, row.max_ms];
            if row.samples_ms.is_empty() || times.iter().any(|t| !t.is_finite() || *t <= 0.0) {
                return invalid(format!("row `{}` has no valid samples", row.label));
            }
        }
        Ok(())
    }
}

/// File-name form of a device name: `NVIDIA H200` → `nvidia-h200`.
pub(crate) fn device_slug(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_owned()
}

/// Where the record of `kernel` with file stem `stem` ([`Record::file_stem`]) lives under
/// `measurements`.
pub(crate) fn record_path(measurements: &Path, kernel: &str, stem: &str) -> PathBuf {
    measurements.join(kernel).join(format!("{stem}.json"))
}

/// Reads one record and checks that it sits where its kernel and device say it should.
pub fn load(path: &Path) -> Result<Record, RecordsError> {
    files::own_file(path).map_err(RecordsError::io(path))?;
    let record = read_anywhere(path)?;
    let invalid = |message: String| RecordsError::Invalid {
        path: path.to_owned(),
        message,
    };
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let folder = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|s| s.to_str());
    let want = record.file_stem();
    if stem != want || folder != Some(record.kernel.as_str()) {
        return Err(invalid(format!(
            "it records kernel `{}` on `{want}`, so it belongs at `{}/{want}.json`",
            record.kernel, record.kernel
        )));
    }
    Ok(record)
}

/// Reads and checks one record wherever it lies (`measure --compare` takes an old version
/// from `git show`, in a temporary file); [`load`] also checks its place under
/// `measurements/`.
pub(crate) fn read_anywhere(path: &Path) -> Result<Record, RecordsError> {
    let text = std::fs::read_to_string(path).map_err(RecordsError::io(path))?;
    let record: Record = serde_json::from_str(&text).map_err(|error| RecordsError::Parse {
        path: path.to_owned(),
        error,
    })?;
    record.validate(path)?;
    Ok(record)
}

/// Loads every `*.json` under `measurements/<kernel>/`, reporting all bad files together.
/// A missing `measurements/` folder is an empty set.
pub fn load_all(measurements: &Path) -> Result<RecordSet, Vec<RecordsError>> {
    let mut set = RecordSet::default();
    let mut errors = Vec::new();
    for path in json_files(measurements).map_err(|e| vec![e])? {
        match load(&path) {
            Ok(record) => set
                .by_kernel
                .entry(record.kernel.clone())
                .or_default()
                .push(Loaded { path, record }),
            Err(e) => errors.push(e),
        }
    }
    for records in set.by_kernel.values_mut() {
        records.sort_by_key(|l| l.record.file_stem());
    }
    if errors.is_empty() {
        Ok(set)
    } else {
        Err(errors)
    }
}

/// The records of `kernel`, `measurements/<kernel>/*.json`, sorted; none when either folder
/// is missing. The one lister of a kernel's records (`build`, `measure` and `measure --plan`
/// ask it), with one set of refusals: `kernel` is one folder's name (never `..` or a path),
/// and `measurements/` and the kernel's folder are the site's own ([`files::own_file`]: not
/// a link, which could lead outside the site). Each file is judged as [`load`] reads it.
pub(crate) fn kernel_records(
    measurements: &Path,
    kernel: &str,
) -> Result<Vec<PathBuf>, RecordsError> {
    let dir = measurements.join(kernel);
    if Path::new(kernel).file_name() != Some(std::ffi::OsStr::new(kernel)) {
        return Err(RecordsError::NotAFolder { path: dir });
    }
    if !own(measurements)? || !own(&dir)? || !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut files = sorted_entries(&dir)?;
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    Ok(files)
}

/// The records of every kernel's folder in `measurements/` ([`kernel_records`]), sorted;
/// none when it is missing. Every entry there is the site's own ([`files::own_file`]), and
/// one that is not a folder is skipped.
fn json_files(measurements: &Path) -> Result<Vec<PathBuf>, RecordsError> {
    let mut files = Vec::new();
    if !own(measurements)? {
        return Ok(files);
    }
    for path in sorted_entries(measurements)? {
        if own(&path)? && path.is_dir() {
            let name = path.file_name().and_then(|n| n.to_str());
            let name = name.ok_or_else(|| RecordsError::NotAFolder { path: path.clone() })?;
            files.extend(kernel_records(measurements, name)?);
        }
    }
    Ok(files)
}

/// Whether `path` is there, refusing it when it is not the site's own ([`files::own_file`]).
fn own(path: &Path) -> Result<bool, RecordsError> {
    match files::own_file(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(RecordsError::io(path)(error)),
        Ok(()) => Ok(true),
    }
}

/// What folder `dir` holds, sorted.
fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, RecordsError> {
    let io = RecordsError::io(dir);
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(&io)? {
        paths.push(entry.map_err(&io)?.path());
    }
    paths.sort();
    Ok(paths)
}

/// Writes a record to `measurements/<kernel>/<slug>.json` atomically: a temporary file in
/// the same folder, flushed, then renamed over the old one, so a reader or a crash sees
/// either the old record or the new one, never half of either. Refuses an invalid record.
/// The record written is sealed ([`Record::seal`]).
pub(crate) fn save(measurements: &Path, record: &Record) -> Result<PathBuf, RecordsError> {
    let path = record_path(measurements, &record.kernel, &record.file_stem());
    let mut record = record.clone();
    record.seal();
    let record = &record;
    record.validate(&path)?;
    let dir = path.parent().unwrap_or(measurements).to_owned();
    let io = RecordsError::io(&path);
    std::fs::create_dir_all(&dir).map_err(&io)?;
    let mut json = serde_json::to_string_pretty(record).map_err(|error| RecordsError::Parse {
        path: path.clone(),
        error,
    })?;
    json.push('\n');
    // A record is an ordinary file others read (0644).
    crate::atomic::write(&path, json.as_bytes(), crate::atomic::Mode::Ordinary).map_err(&io)?;
    Ok(path)
}

#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod tests;
