//! One `measure` over several GPUs: a thread per GPU (so `--device all` measures the host's
//! GPUs in parallel), and on each, every kernel in turn — NVML read before and after, the
//! verdict on interference, retries, counters under ncu, the record saved or the old one kept
//! (disturbed, or lacking what the pages show of it), the new record compared with the one
//! before it — then one summary table for all of them (`report`).
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{MultiProgress, ProgressDrawTarget};

use super::counters::{self, Job};
use super::error::MeasureError;
use super::gpu::Gpu;
use super::interference::{self, Verdict};
use super::nvml::Monitor;
use super::options::{CounterChoice, KernelToMeasure, MeasureOptions};
use super::report::{self, Outcome, Sweep, Written};
use super::sweep;
use crate::canonical;
use crate::measurement::compare;
use crate::measurement::needs::Needs;
use crate::measurement::record::{self as records, Record};

/// How long a disturbed run waits before `--retries` tries again.
const RETRY_PAUSE: Duration = Duration::from_secs(20);

/// Measures every kernel on every GPU of `ordinals`, saving a record per kernel and GPU.
pub(super) fn measure_all(
    root: &Path,
    kernels: &[KernelToMeasure],
    ordinals: &[usize],
    args: &MeasureOptions,
) -> Result<(), MeasureError> {
    let monitor = Monitor::open()?;
    let ncu = match args.counters {
        CounterChoice::Always => Some(counters::find_ncu()?),
        CounterChoice::Never => None,
        CounterChoice::WhenNcu => {
            let found = counters::find_ncu().ok();
            if found.is_none() {
                eprintln!(
                    "note: no `ncu` on the PATH, so no hardware counters are read; a record \
                     whose counters the pages show is kept rather than replaced (--force \
                     replaces it)"
                );
            }
            found
        }
    };
    // Read once: the first record saved would otherwise make the tree look dirty.
    let git = git_state(root);
    // The records as they were before this run, so that every GPU's thread compares with
    // those and never with one another thread has just written.
    let before = records_before(root, kernels)?;
    // One set of bars for all GPUs: each thread adding bars to a MultiProgress of its own
    // would redraw over the others' lines when `--device all` runs on a terminal.
    let progress = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
    let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = ordinals
            .iter()
            .map(|&ordinal| {
                let (monitor, ncu, git, progress) = (&monitor, ncu.as_deref(), &git, &progress);
                let before = &before;
                scope.spawn(move || {
                    let gpu = match Gpu::open(ordinal) {
                        Ok(gpu) => gpu,
                        Err(e) => {
                            progress.suspend(|| eprintln!("error: device {ordinal}: {e}"));
                            return vec![Outcome {
                                kernel: "*".into(),
                                device: format!("device {ordinal}"),
                                sweep: None,
                                result: Err(e),
                            }];
                        }
                    };
                    let ctx = Ctx {
                        root,
                        progress,
                        gpu: &gpu,
                        monitor,
                        ncu,
                        git,
                        args,
                        before,
                    };
                    kernels.iter().map(|k| ctx.measure(k)).collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a measuring thread panicked"))
            .collect()
    });
    eprint!("{}", report::summary(&outcomes));
    report::result(outcomes)
}

/// Every record of each kernel as it is on disk before the run, by kernel; a file that
/// does not load is left out here (`build` reports it), a folder `build` refuses is refused.
fn records_before(
    root: &Path,
    kernels: &[KernelToMeasure],
) -> Result<BTreeMap<String, Vec<Record>>, MeasureError> {
    let measurements = root.join("measurements");
    kernels
        .iter()
        .map(|k| {
            let paths = records::kernel_records(&measurements, &k.name)?;
            let loaded = paths.iter().filter_map(|p| records::load(p).ok()).collect();
            Ok((k.name.clone(), loaded))
        })
        .collect()
}

/// Launches one row once (what ncu profiles for `--counters`).
pub(super) fn launch_once(
    kernels: &[KernelToMeasure],
    ordinal: usize,
    label: &str,
) -> Result<(), MeasureError> {
    let gpu = Gpu::open(ordinal)?;
    for k in kernels {
        sweep::launch_once(&gpu, k, label)?;
    }
    Ok(())
}

struct Ctx<'a> {
    root: &'a Path,
    /// The progress bars of every GPU's thread, drawn together.
    progress: &'a MultiProgress,
    gpu: &'a Gpu,
    monitor: &'a Monitor,
    ncu: Option<&'a Path>,
    git: &'a (Option<String>, Option<bool>),
    args: &'a MeasureOptions,
    /// The records before this run, by kernel.
    before: &'a BTreeMap<String, Vec<Record>>,
}

impl Ctx<'_> {
    /// One line on stderr, above the progress bars of every GPU rather than through them.
    fn say(&self, line: String) {
        self.progress.suspend(|| eprintln!("{line}"));
    }

    fn measure(&self, k: &KernelToMeasure) -> Outcome {
        let gpu = self.gpu;
        let id = &canonical::sha256_hex(gpu.uuid.as_bytes())[..8];
        let device = format!("{} (device {}, id {id})", gpu.name, gpu.ordinal);
        let mut sweep = None;
        let result = self.measure_kernel(k, &device, &mut sweep);
        // Said once, here, under the kernel: the summary table gives the cause in a few
        // words and the last line only counts.
        if let Err(e) = &result {
            self.say(format!("error: {e}"));
        }
        Outcome {
            kernel: k.name.clone(),
            device,
            sweep,
            result,
        }
    }

    /// The record this run's record is compared with: the same GPU's, else the first of
    /// another GPU of the same model (`.ci/measure` picks the same for the pull request).
    fn baseline(&self, k: &KernelToMeasure, new: &Record) -> Option<&Record> {
        let before = self.before.get(&k.name)?;
        (before.iter())
            .find(|r| r.file_stem() == new.file_stem())
            .or_else(|| before.iter().find(|r| r.device.slug == new.device.slug))
    }

    /// Compares the new record with its baseline, prints the rows, and says it in a few
    /// words for the summary table.
    fn compare(&self, k: &KernelToMeasure, new: &Record) -> String {
        let Some(old) = self.baseline(k, new) else {
            self.say(format!(
                "{}: no earlier record of {} to compare with",
                k.name, new.device.name
            ));
            return "new".into();
        };
        let cmp = compare::records(old, new, k.manifest.compare.threshold);
        let which = if old.file_stem() == new.file_stem() {
            "the record it replaced".to_owned()
        } else {
            format!("`{}.json`, another {}", old.file_stem(), old.device.name)
        };
        self.say(format!(
            "{}: compared with {which} (measured {}): {}\n{}",
            k.name,
            old.run.date.get(..10).unwrap_or(&old.run.date),
            cmp.tally(),
            cmp.to_string().trim_end()
        ));
        cmp.tally()
    }

    /// What the pages need of this kernel's records: its table, and what prose binds.
    fn needs(&self, k: &KernelToMeasure) -> Needs {
        let mut needs = Needs::of_table(&k.manifest);
        if let Some(prose) = self.args.prose.get(&k.name) {
            needs.add(prose);
        }
        needs
    }

    /// A record of `k` whose rows or counters the pages show and a record with `has_row` and
    /// `has_counters` would not, and what they would lose: this GPU's own record first, then
    /// any other GPU's, since a table merges every GPU of a model and a counter that one GPU
    /// lacks is missing from the page (and `build --strict` refuses that record).
    fn would_lose(
        &self,
        k: &KernelToMeasure,
        own: &Path,
        has_row: impl Fn(&str) -> bool,
        has_counters: impl Fn(&str) -> bool,
    ) -> Option<(PathBuf, Vec<String>)> {
        let needs = self.needs(k);
        // The folder was listed before the run: a folder refused now was changed since.
        let measurements = self.root.join("measurements");
        let mut paths = records::kernel_records(&measurements, &k.name).unwrap_or_default();
        paths.sort_by_key(|p| p != own);
        paths.into_iter().find_map(|path| {
            let old = records::load(&path).ok()?;
            let lost = needs.lost_by(&old, &has_row, &has_counters);
            (!lost.is_empty()).then_some((path, lost))
        })
    }

    /// Without ncu, a record of `k` whose counters the pages show is refused before any GPU
    /// time is spent on a run that could not keep them.
    fn refuse_early(&self, k: &KernelToMeasure, device: &str) -> Result<(), MeasureError> {
        if self.ncu.is_some() || self.args.force {
            return Ok(());
        }
        let id = &canonical::sha256_hex(self.gpu.uuid.as_bytes())[..8];
        let stem = format!("{}-{id}", records::device_slug(&self.gpu.name));
        let own = records::record_path(&self.root.join("measurements"), &k.name, &stem);
        let has_row = |l: &str| k.manifest.value_of(l).is_some();
        match self.would_lose(k, &own, has_row, |_| false) {
            None => Ok(()),
            Some((path, lost)) => Err(MeasureError::WouldLose {
                kernel: k.name.clone(),
                device: device.to_owned(),
                path,
                lost,
                why: self.no_counters_why(),
            }),
        }
    }

    fn no_counters_why(&self) -> String {
        match self.args.counters {
            CounterChoice::Never => "it is measured with --no-counters".into(),
            _ => "no `ncu` on the PATH reads its counters".into(),
        }
    }

    /// Sweeps `k`, and again after a pause while the run is disturbed and `--retries`
    /// allows: the record, with the GPU's state before and after, and the last verdict.
    fn sweep_until_quiet(&self, k: &KernelToMeasure) -> Result<(Record, Verdict), MeasureError> {
        let (gpu, monitor) = (self.gpu, self.monitor);
        let read = || monitor.state(&gpu.uuid);
        let mut attempt = 0;
        loop {
            let before = read()?;
            let mut record = sweep::measure_kernel(gpu, k, &read, self.progress)?;
            let after = read()?;
            let verdict = interference::judge(
                &before,
                &after,
                &record.rows,
                &k.manifest.sampling,
                gpu.rated_clock_mhz,
                k.manifest.bound(),
            );
            record.run.gpu_before = Some(before);
            record.run.gpu_after = Some(after);
            if verdict.noise.is_empty() || attempt >= self.args.retries {
                return Ok((record, verdict));
            }
            attempt += 1;
            // The causes only: the last attempt's reasons are said in full, once.
            self.say(format!(
                "{}: disturbed ({}); retry {attempt} of {} in {} s",
                k.name,
                causes(&verdict.noise).join(", "),
                self.args.retries,
                RETRY_PAUSE.as_secs()
            ));
            std::thread::sleep(RETRY_PAUSE);
        }
    }

    fn measure_kernel(
        &self,
        k: &KernelToMeasure,
        device: &str,
        sweep_seen: &mut Option<Sweep>,
    ) -> Result<Written, MeasureError> {
        self.refuse_early(k, device)?;
        let gpu = self.gpu;
        let (mut record, Verdict { noise, tolerated }) = self.sweep_until_quiet(k)?;
        *sweep_seen = Some(Sweep::of(&record));
        for note in &tolerated {
            self.say(format!("note: {}: {note}", k.name));
        }
        let measurements = self.root.join("measurements");
        let path = records::record_path(&measurements, &k.name, &record.file_stem());
        if !noise.is_empty() && !self.args.accept_noisy {
            let kept = if path.exists() {
                format!("`{}` is kept as it was", path.display())
            } else {
                format!("there was no `{}` before", path.display())
            };
            return Err(MeasureError::Noisy {
                kernel: k.name.clone(),
                device: device.to_owned(),
                causes: causes(&noise),
                reasons: noise.into_iter().map(|p| p.text).collect(),
                kept,
            });
        }
        let noise: Vec<String> = noise.into_iter().map(|p| p.text).collect();
        record.run.noise = noise;
        record.run.tolerated = tolerated;
        (record.run.git_commit, record.run.git_dirty) = self.git.clone();
        if let Some(ncu) = self.ncu {
            let job = Job {
                ncu,
                root: self.root,
                kernel: &k.name,
                entry: &k.manifest.kernel,
                device: gpu.ordinal,
                counters: k.manifest.counter_names(),
            };
            for row in &mut record.rows {
                let c = counters::count_row(&job, &row.label)?;
                self.say(format!(
                    "{:>6}: {} = {} / {} = {:.3} (ncu, device {})",
                    row.label,
                    c.what,
                    c.count,
                    c.requests,
                    c.per_request(),
                    gpu.ordinal
                ));
                row.counters = Some(c);
            }
            *sweep_seen = Some(Sweep::of(&record));
            record.run.counters_tool = Some(format!("Nsight Compute {}", counters::version(ncu)));
        }
        let has_row = |l: &str| record.row(l).is_some();
        let has_counters = |l: &str| record.row(l).is_some_and(|r| r.counters.is_some());
        if !self.args.force
            && let Some((kept, lost)) = self.would_lose(k, &path, has_row, has_counters)
        {
            return Err(MeasureError::WouldLose {
                kernel: k.name.clone(),
                device: device.to_owned(),
                path: kept,
                lost,
                why: if self.ncu.is_none() {
                    self.no_counters_why()
                } else {
                    "the manifest changed since".into()
                },
            });
        }
        let path = records::save(&measurements, &record)?;
        self.say(format!("wrote {}", path.display()));
        Ok(Written {
            file: path.display().to_string(),
            noisy: record.noisy(),
            versus: self.compare(k, &record),
        })
    }
}

/// The short causes of a verdict's problems, each once, in order.
fn causes(noise: &[interference::Problem]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for p in noise {
        if !out.contains(&p.cause) {
            out.push(p.cause);
        }
    }
    out
}

/// The project's git commit and whether its tree was dirty, when `root` is a git checkout.
fn git_state(root: &Path) -> (Option<String>, Option<bool>) {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    match git(&["rev-parse", "HEAD"]) {
        Some(commit) if !commit.is_empty() => {
            let dirty = git(&["status", "--porcelain"]).map(|s| !s.is_empty());
            (Some(commit), dirty)
        }
        _ => (None, None),
    }
}
