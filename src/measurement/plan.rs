//! `coursegen measure --plan`: what a `measure --gpu` run would do, read from the course's
//! files alone — the kernels it takes, each one's files, reference kernel, rows, launch
//! shape, sampling (and so a bound on its time), the hardware counters it would read, what
//! the pages show of its records and the records it would replace, fresh or stale. Loads
//! no GPU library: it asks `run` only which kernels a run takes, where `ncu` is and what
//! the counter flags mean, none of which touches cudarc, NVML or NVRTC. Uses `manifest`,
//! `record`, `needs`, `run` and `content` (a bad manifest is a `Diagnostic`).
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

use crate::content::diagnostic::{Diagnostic, Diagnostics, printable};
use crate::measurement::contract;
use crate::measurement::manifest::Manifest;
use crate::measurement::needs::Needs;
use crate::measurement::record::{self, Freshness, KernelFiles, Record};
use crate::measurement::run::{self, CounterChoice, MeasureError};

/// Why there is no plan: the kernels asked for are not there (usage), or manifests do not
/// load (content, every one reported).
#[derive(Debug, thiserror::Error)]
pub(crate) enum PlanError {
    /// `--kernel` names kernels that are not there, or `kernels/` cannot be listed (boxed:
    /// `MeasureError` is large, and this is the rare way out).
    #[error(transparent)]
    Kernels(Box<MeasureError>),
    /// Manifests (or kernel sources) that do not load, each at its file and line.
    #[error("{0}")]
    Manifests(Diagnostics),
}

impl PlanError {
    /// Whether this is the content's fault (exit 1) rather than usage (exit 2).
    #[cfg(test)]
    pub(crate) fn is_content(&self) -> bool {
        matches!(self, PlanError::Manifests(_))
    }
}

/// What `measure --plan` was asked about: the flags of the run it plans.
#[derive(Debug, Clone, Default)]
pub(crate) struct PlanOptions {
    /// `--kernel` names; empty: every kernel.
    pub(crate) kernels: Vec<String>,
    /// What the course's prose binds of each kernel's records (as `measure --gpu` is told).
    pub(crate) prose: BTreeMap<String, Needs>,
    /// `--counters`, `--no-counters` or neither.
    pub(crate) counters: CounterChoice,
    /// `--force`: replace a record even with one that lacks what the pages show.
    pub(crate) force: bool,
}

/// What a `measure --gpu` run would do; `Display` is the text `measure --plan` prints.
#[derive(Debug)]
pub(crate) struct Plan {
    /// Each kernel the run takes, in its order.
    pub(crate) kernels: Vec<KernelPlan>,
    /// `ncu` on the PATH now, if any.
    pub(crate) ncu: Option<PathBuf>,
    /// The counter flags.
    pub(crate) counters: CounterChoice,
    /// `--force` was given.
    pub(crate) force: bool,
}

/// One kernel of the plan.
#[derive(Debug)]
pub(crate) struct KernelPlan {
    /// Its name (`kernels/<name>.cu`).
    pub(crate) name: String,
    /// Its manifest, checked.
    pub(crate) manifest: Manifest,
    /// What the pages show of its records: its table's and the prose's.
    pub(crate) needs: Needs,
    /// Rows and counters the prose alone binds.
    pub(crate) prose: Needs,
    /// Its records under `measurements/<name>/`, by file name.
    pub(crate) records: Vec<RecordPlan>,
}

/// One existing record of a kernel.
#[derive(Debug)]
pub(crate) struct RecordPlan {
    /// The file, relative to the site root.
    pub(crate) path: PathBuf,
    /// The record and whether it still describes the kernel, or why it does not load.
    pub(crate) state: Result<(Record, Freshness), String>,
}

/// The plan of `measure --gpu` with `opts` for the course at `root`: every bad manifest is
/// reported at once.
pub(crate) fn plan(root: &Path, opts: &PlanOptions) -> Result<Plan, PlanError> {
    let names = run::kernel_names(&root.join("kernels"), &opts.kernels)
        .map_err(|e| PlanError::Kernels(Box::new(e)))?;
    let files = KernelFiles::new(&root.join("kernels"));
    let mut kernels = Vec::new();
    let mut problems = Vec::new();
    for name in names {
        match kernel_plan(root, &files, &name, opts) {
            Ok(k) => kernels.push(k),
            Err(found) => problems.extend(found),
        }
    }
    if !problems.is_empty() {
        return Err(PlanError::Manifests(Diagnostics(problems)));
    }
    Ok(Plan {
        kernels,
        ncu: run::counters::find_ncu().ok(),
        counters: opts.counters,
        force: opts.force,
    })
}

/// The file `kernels/<name>.<ext>`, as messages name it (relative to the site root).
fn kernel_file(name: &str, ext: &str) -> PathBuf {
    Path::new("kernels").join(format!("{name}.{ext}"))
}

fn kernel_plan(
    root: &Path,
    files: &KernelFiles,
    name: &str,
    opts: &PlanOptions,
) -> Result<KernelPlan, Vec<Diagnostic>> {
    let yaml = kernel_file(name, "yaml");
    let unreadable =
        |file: PathBuf, e: std::io::Error| Diagnostic::new(file, 0, format!("cannot be read: {e}"));
    let manifest_bytes = files
        .read(name, "yaml")
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Diagnostic::new(
                &yaml,
                0,
                format!("missing: `kernels/{name}.cu` has no manifest"),
            )
            .help(format!(
                "add `{}` declaring its sweep (its fields: the guide's \"Kernel manifest fields\")",
                yaml.display()
            ))
            } else {
                unreadable(yaml.clone(), e)
            }
        })
        .map_err(|d| vec![d])?;
    let source = files
        .read(name, "cu")
        .map_err(|e| vec![unreadable(kernel_file(name, "cu"), e)])?;
    let text = std::str::from_utf8(&manifest_bytes)
        .map_err(|_| vec![Diagnostic::new(&yaml, 0, "is not UTF-8 text")])?;
    let manifest = Manifest::parse(&yaml, text).map_err(|e| e.diagnostics(&yaml, text))?;
    let prose = opts.prose.get(name).cloned().unwrap_or_default();
    let mut needs = Needs::of_table(&manifest);
    needs.add(&prose);
    // A course header that cannot be read: `check` names it; staleness judges by the
    // built-in one.
    let header = contract::header(files).unwrap_or_else(|_| contract::HEADER.as_bytes().into());
    // A folder `build` refuses is refused as `build` says it.
    let records = record::kernel_records(&root.join("measurements"), name)
        .map_err(|e| vec![Diagnostic::new("measurements", 0, e.to_string())])?
        .into_iter()
        .map(|file| {
            let state = record::load(&file)
                .map(|r| {
                    let freshness = r.freshness(&source, &manifest_bytes, &header);
                    (r, freshness)
                })
                .map_err(|e| e.to_string());
            let path = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
            RecordPlan { path, state }
        })
        .collect();
    Ok(KernelPlan {
        name: name.to_owned(),
        manifest,
        needs,
        prose,
        records,
    })
}

/// Row labels of `m`'s sweep that `set` holds, in the sweep's order.
fn in_sweep_order(m: &Manifest, set: &std::collections::BTreeSet<String>) -> String {
    let labels: Vec<String> = (m.axis.labels.iter())
        .filter(|l| set.contains(*l))
        .map(|l| printable(l).into_owned())
        .collect();
    if labels.is_empty() {
        "none".to_owned()
    } else {
        labels.join(", ")
    }
}

/// `1 wave`, `16 waves`.
fn waves(n: u32) -> String {
    if n == 1 {
        "1 wave".to_owned()
    } else {
        format!("{n} waves")
    }
}

/// Seconds as a person reads them: `5 s`, `0.5 s`, `2 min 30 s`.
fn seconds(s: f64) -> String {
    if s < 60.0 {
        format!("{} s", trim(s))
    } else {
        let whole = s.round() as u64;
        match whole % 60 {
            0 => format!("{} min", whole / 60),
            rest => format!("{} min {rest} s", whole / 60),
        }
    }
}

/// A number without trailing zeros: `5`, `0.25`.
fn trim(x: f64) -> String {
    let text = format!("{x:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Labels of the plan's text, padded so the values line up.
const LABEL: usize = 11;

/// One line of a kernel's part of the plan: its label, padded, and its text.
fn line(f: &mut fmt::Formatter<'_>, label: &str, text: &str) -> fmt::Result {
    writeln!(f, "  {label:<LABEL$}{text}")
}

/// One more line of the label above.
fn more(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    line(f, "", text)
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = (self.kernels.iter())
            .map(|k| printable(&k.name).into_owned())
            .collect();
        writeln!(
            f,
            "What `coursegen measure --gpu` would do (nothing is run, compiled or written):"
        )?;
        writeln!(
            f,
            "{} kernel{}: {}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        )?;
        writeln!(f, "hardware counters: {}", self.counting())?;
        let mut total = 0.0;
        for k in &self.kernels {
            writeln!(f)?;
            k.write(f, self)?;
            total += k.sampling_bound();
        }
        writeln!(f)?;
        writeln!(
            f,
            "In all: at most about {} of sampling per GPU, plus the warm-up launches, the \
             reference checks and the compiles{}.",
            seconds(total),
            if self.reads_counters() {
                " and one ncu launch per row"
            } else {
                ""
            }
        )
    }
}

impl Plan {
    /// Whether the run would read counters under ncu.
    fn reads_counters(&self) -> bool {
        self.counters != CounterChoice::Never && self.ncu.is_some()
    }

    /// The counters line of the head: what the flags and the PATH decide.
    fn counting(&self) -> String {
        let ncu = |p: &Path| printable(&p.to_string_lossy()).into_owned();
        match (self.counters, &self.ncu) {
            (CounterChoice::Never, _) => "none: --no-counters".to_owned(),
            (_, Some(path)) => format!("read under `{}`, one more launch of each row", ncu(path)),
            (CounterChoice::Always, None) => "--counters, but no `ncu` is on the PATH now: \
                 the run would stop before measuring; add Nsight Compute's folder to PATH"
                .to_owned(),
            (CounterChoice::WhenNcu, None) => "none: no `ncu` on the PATH now (with it, \
                 each row is counted once more under it)"
                .to_owned(),
        }
    }
}

impl KernelPlan {
    /// Seconds of sampling at most, if no row's minimum samples outlast its time limit.
    fn sampling_bound(&self) -> f64 {
        self.manifest.axis.values.len() as f64 * self.manifest.sampling.time_limit_s
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, plan: &Plan) -> fmt::Result {
        let m = &self.manifest;
        let p = |s: &str| printable(s).into_owned();
        writeln!(f, "kernel {}", p(&self.name))?;
        line(
            f,
            "manifest",
            &kernel_file(&self.name, "yaml").display().to_string(),
        )?;
        // The manifest's options and the contract header's constants, as `measure` passes them.
        let options = p(&contract::options(m).join(" "));
        line(
            f,
            "source",
            &format!(
                "{}, entry point `{}`; NVRTC options {options}, and the GPU's architecture",
                kernel_file(&self.name, "cu").display(),
                p(&m.kernel)
            ),
        )?;
        line(
            f,
            "reference",
            &format!(
                "`{}`: run once per row with the same input and grid; the output must equal \
                 it word for word, before and after the timed launches",
                p(&m.reference.kernel)
            ),
        )?;
        self.write_rows(f)?;
        self.write_launch(f)?;
        let s = &m.sampling;
        line(
            f,
            "sampling",
            &format!(
                "per row {} warm-up launches, then {} to {} samples, until the relative \
                 standard deviation is at most {}% or {} have passed",
                s.warmup_launches,
                s.min_samples,
                s.max_samples,
                trim(s.target_rel_stdev * 100.0),
                seconds(s.time_limit_s)
            ),
        )?;
        more(
            f,
            &format!(
                "at most about {} rows × {} = {} of sampling (a row takes its {} samples even \
                 past the limit)",
                m.axis.values.len(),
                seconds(s.time_limit_s),
                seconds(self.sampling_bound()),
                s.min_samples
            ),
        )?;
        let c = m.counter_names();
        line(
            f,
            "counters",
            &format!(
                "{}: `{}` over `{}` ({})",
                p(&c.what),
                p(&c.count),
                p(&c.requests),
                if plan.reads_counters() {
                    "read"
                } else {
                    "not read"
                }
            ),
        )?;
        line(
            f,
            "pages show",
            &format!(
                "rows {}; counters of rows {}",
                in_sweep_order(m, &self.needs.rows),
                in_sweep_order(m, &self.needs.counters)
            ),
        )?;
        if !self.prose.rows.is_empty() || !self.prose.counters.is_empty() {
            let mut bound = self.prose.rows.clone();
            bound.extend(self.prose.counters.iter().cloned());
            more(
                f,
                &format!(
                    "(of these, the prose binds rows {})",
                    in_sweep_order(m, &bound)
                ),
            )?;
        }
        self.write_records(f, plan)
    }

    fn write_rows(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let axis = &self.manifest.axis;
        line(
            f,
            "axis",
            &format!(
                "{} ({}), {} rows: label = value",
                printable(&axis.name),
                printable(&axis.unit),
                axis.values.len()
            ),
        )?;
        let width = (axis.labels.iter())
            .map(|l| printable(l).chars().count())
            .max()
            .unwrap_or(0);
        for (label, value) in axis.labels.iter().zip(&axis.values) {
            more(f, &format!("  {:<width$} = {value}", printable(label)))?;
        }
        Ok(())
    }

    fn write_launch(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let launch = &self.manifest.launch;
        let grid = if launch.persistent {
            "persistent: a grid of one resident wave, each block looping over logical blocks"
        } else {
            "not persistent: one block per logical block"
        };
        line(
            f,
            "launch",
            &format!(
                "{} threads a block, {}; {grid}",
                launch.block_threads,
                waves(launch.waves)
            ),
        )?;
        more(
            f,
            &format!(
                "logical blocks = {} × SMs × resident blocks per SM (both the GPU's, known \
                 at run time)",
                waves(launch.waves)
            ),
        )?;
        // What the same shape came to on a GPU a record was measured on.
        let seen = (self.records.iter())
            .filter_map(|r| r.state.as_ref().ok())
            .map(|(r, _)| r)
            .find(|r| r.run.block_threads == launch.block_threads && r.device.sm_count > 0);
        if let Some(r) = seen {
            let per_sm = r.run.logical_blocks / launch.waves.max(1) / r.device.sm_count;
            more(
                f,
                &format!(
                    "e.g. {}: {} × {} SMs × {per_sm} = {} logical blocks",
                    printable(&r.device.name),
                    launch.waves,
                    r.device.sm_count,
                    r.run.logical_blocks
                ),
            )?;
        }
        Ok(())
    }

    fn write_records(&self, f: &mut fmt::Formatter<'_>, plan: &Plan) -> fmt::Result {
        if self.records.is_empty() {
            let file = Path::new("measurements")
                .join(&self.name)
                .join("<gpu>-<id>.json");
            return line(
                f,
                "records",
                &format!(
                    "none yet: a run writes `{}`",
                    printable(&file.to_string_lossy())
                ),
            );
        }
        for (i, r) in self.records.iter().enumerate() {
            let label = if i == 0 { "records" } else { "" };
            line(f, label, &describe(r))?;
        }
        more(
            f,
            "a run replaces the record of the GPU it runs on (same name and id); another \
             GPU's record is a new file beside these",
        )?;
        if let Some(refusal) = self.refusal(plan) {
            more(f, &refusal)?;
        }
        Ok(())
    }

    /// Why the run would refuse this kernel before measuring it: without counters, a
    /// record whose counters (or rows) the pages show would be lost (`run`'s `WouldLose`).
    fn refusal(&self, plan: &Plan) -> Option<String> {
        if plan.reads_counters() || plan.force {
            return None;
        }
        let m = &self.manifest;
        self.records.iter().find_map(|r| {
            let (old, _) = r.state.as_ref().ok()?;
            let lost = self
                .needs
                .lost_by(old, |l| m.value_of(l).is_some(), |_| false);
            (!lost.is_empty()).then(|| {
                let why = match plan.counters {
                    CounterChoice::Never => "--no-counters reads none",
                    _ => "with no `ncu` on the PATH it would read none",
                };
                format!(
                    "so this run would be refused before measuring: `{}` holds {}, which the \
                     pages show, and {why}; --force replaces it anyway",
                    printable(&r.path.to_string_lossy()),
                    printable(&lost.join(" and "))
                )
            })
        })
    }
}

/// One record's line: its file, GPU, id, date and freshness.
fn describe(r: &RecordPlan) -> String {
    let file = printable(&r.path.to_string_lossy()).into_owned();
    let (record, freshness) = match &r.state {
        Ok(state) => state,
        Err(why) => {
            return format!(
                "{file}: does not load, so a run neither compares with it nor keeps it: {}",
                printable(why)
            );
        }
    };
    let mut out = format!(
        "{file}: {}, id {}, measured {}",
        printable(&record.device.name),
        printable(record.device.gpu_id.as_deref().unwrap_or("none")),
        printable(record.run.date.get(..10).unwrap_or(&record.run.date))
    );
    let _ = match freshness {
        Freshness::Fresh => write!(out, ", fresh"),
        Freshness::Stale {
            source_changed,
            manifest_changed,
            header_changed,
        } => {
            let changed: Vec<&str> = [
                (source_changed, "the source"),
                (manifest_changed, "the manifest"),
                (header_changed, "the contract header"),
            ]
            .into_iter()
            .filter_map(|(changed, what)| changed.then_some(what))
            .collect();
            write!(out, ", stale ({} changed since)", changed.join(" and "))
        }
    };
    if record.noisy() {
        out.push_str(", noisy");
    }
    out
}

#[cfg(test)]
mod tests;
