//! `coursegen measure --gpu`: the flags as `measurement::run`'s options, what the course's
//! prose binds of each kernel's records (so a run keeps what the pages show), and its errors
//! as exit codes (a kernel or manifest that fails its check, or a refused record, is
//! content, 1; no GPU, 2). `measure --compare OLD NEW` compares two records and
//! `measure --plan` says what a run would do (`measurement::plan`), no GPU needed.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use clap::Args;

use super::{Failure, emit};
use crate::content;
use crate::content::diagnostic::printable;
use crate::measurement::bindings;
use crate::measurement::compare;
use crate::measurement::manifest::{Compare, Manifest};
use crate::measurement::needs::Needs;
use crate::measurement::plan::{self, PlanError, PlanOptions};
use crate::measurement::record;
use crate::measurement::run::{self as measure, CounterChoice, MeasureOptions};

/// Flags of `coursegen measure`.
#[derive(Debug, Args)]
#[command(after_help = "\
A run measures every kernel (or --kernel NAME) on the GPU, checks each launch against the \
manifest's reference kernel, and writes measurements/<kernel>/<gpu>-<id>.json. A run that another process, a \
clock below what a row's time needs, a throttle or a row that did not converge disturbed is \
refused and the old record kept. Each kernel's lines say why once; the summary table gives \
the result in a few words; a new record is compared with the one before it, row by row: \
same, faster or slower (Mann-Whitney U test, p < 0.01, and a change of the median over the \
manifest's compare.threshold, 2% by default).

Examples:
  coursegen measure --plan                     what a run would do, read from the files (no GPU)
  coursegen measure --gpu                      every kernel on device 0
  coursegen measure --gpu --kernel coalescing  one kernel
  coursegen measure --gpu --kernel coalescing --kernel bank_conflicts
                                               two kernels
  coursegen measure --compare old.json new.json")]
pub struct MeasureArgs {
    /// Run on the GPU (required: measuring always means a real run).
    #[arg(long)]
    pub gpu: bool,
    /// Compare two records of one kernel row by row — same, faster or slower — and exit;
    /// no GPU needed. OLD may be any file holding a record (e.g. from `git show`).
    #[arg(
        long,
        num_args = 2,
        value_names = ["OLD", "NEW"],
        conflicts_with = "gpu"
    )]
    pub compare: Option<Vec<PathBuf>>,
    /// List what `measure --gpu` would do and exit, reading only the course's files (no GPU,
    /// NVRTC or ncu): each kernel's files, reference kernel, rows, launch shape, sampling and
    /// its time bound, the hardware counters it would read, what the pages show of its
    /// records, and the records it would replace, fresh or stale.
    #[arg(long, conflicts_with_all = ["gpu", "compare"])]
    pub plan: bool,
    /// Measure only this kernel (the name of kernels/<NAME>.cu); give it again for more.
    #[arg(long = "kernel", value_name = "NAME")]
    pub kernels: Vec<String>,
    /// CUDA device to run on: an ordinal, or `all` to measure every GPU of the host in
    /// parallel (one record per physical GPU).
    #[arg(long, default_value = "0", value_name = "N|all")]
    pub device: String,
    /// Write the record even when the run was disturbed (another process on the GPU, a
    /// clock below rated, a row that did not converge); it is marked noisy, and the page and
    /// `build --strict` say so. Without it a disturbed run exits 1 and keeps the old record.
    #[arg(long)]
    pub accept_noisy: bool,
    /// Re-run a disturbed kernel up to N more times, after a pause of 20 s each (one by
    /// default: a moment's disturbance on a quiet GPU should not fail a first run).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub retries: u32,
    /// Require hardware counters: fail when Nsight Compute (`ncu`) is not on the PATH. By
    /// default each row is counted once more under ncu whenever it is there.
    #[arg(long, conflicts_with = "no_counters")]
    pub counters: bool,
    /// Read no hardware counters, even with ncu on the PATH. A record whose counters the
    /// pages show is then kept, not replaced (unless --force).
    #[arg(long)]
    pub no_counters: bool,
    /// Replace a record even with one that lacks what the course's pages show of it (its
    /// counters, a row): the preview then shows "not measured" and `build --strict` fails.
    #[arg(long)]
    pub force: bool,
    /// Internal: launch one row once and exit (what counting runs under ncu).
    #[arg(long, hide = true, value_name = "LABEL")]
    pub launch_once: Option<String>,
}

/// Runs `coursegen measure`.
pub(crate) fn run_measure(root: &Path, args: MeasureArgs) -> Result<(), Failure> {
    if let Some(files) = &args.compare {
        return run_compare(root, &files[0], &files[1]);
    }
    let counters = match (args.counters, args.no_counters) {
        (true, _) => CounterChoice::Always,
        (_, true) => CounterChoice::Never,
        _ => CounterChoice::WhenNcu,
    };
    if args.plan {
        return run_plan(root, args, counters);
    }
    let device =
        measure::DeviceChoice::parse(&args.device).map_err(|e| Failure::Usage(e.into()))?;
    // The child that ncu counts launches one row and writes nothing: it needs no pages.
    let prose = if args.gpu && args.launch_once.is_none() {
        prose_needs(root)
    } else {
        BTreeMap::new()
    };
    let opts = MeasureOptions {
        gpu: args.gpu,
        kernels: args.kernels,
        device,
        accept_noisy: args.accept_noisy,
        retries: args.retries,
        counters,
        force: args.force,
        prose,
        launch_once: args.launch_once,
    };
    measure::measure(root, &opts).map_err(|e| Failure::of(e.is_content(), e))
}

/// `measure --plan`: the plan of the run these flags ask for, on stdout; a kernel not there
/// is usage (2), manifests that do not load are content (1), all of them at once.
fn run_plan(root: &Path, args: MeasureArgs, counters: CounterChoice) -> Result<(), Failure> {
    let opts = PlanOptions {
        kernels: args.kernels,
        prose: prose_needs(root),
        counters,
        force: args.force,
    };
    match plan::plan(root, &opts) {
        Ok(plan) => {
            emit(&mut std::io::stdout(), &plan.to_string());
            Ok(())
        }
        Err(PlanError::Manifests(problems)) => Err(Failure::Problems(problems)),
        Err(e) => Err(Failure::Usage(e.into())),
    }
}

/// What the prose of every entry (drafts too: the preview shows them) binds of the kernel it
/// measures. An entry that does not load binds nothing here; `build` reports it.
fn prose_needs(root: &Path) -> BTreeMap<String, Needs> {
    // Which folder is the glossary changes only the problems of `related:`, not read here.
    let site = content::load::load(root, content::load::DEFAULT_GLOSSARY);
    let mut needs: BTreeMap<String, Needs> = BTreeMap::new();
    for entry in &site.entries {
        let Some(kernel) = entry.meta.measure.as_deref() else {
            continue;
        };
        let bound = bindings::bound(&entry.body);
        needs.entry(kernel.to_owned()).or_default().add(&Needs {
            rows: bound.rows,
            counters: bound.counters,
        });
    }
    needs
}

/// `measure --compare OLD NEW`: both records, then one line per row. The threshold is the
/// kernel's manifest's (`kernels/<kernel>.yaml` under the root), else the default.
fn run_compare(root: &Path, old: &Path, new: &Path) -> Result<(), Failure> {
    let read = |path: &Path| record::read_anywhere(path).map_err(|e| Failure::Content(e.into()));
    let (a, b) = (read(old)?, read(new)?);
    if a.kernel != b.kernel {
        return Err(Failure::Usage(anyhow!(
            "`{}` records kernel `{}` and `{}` kernel `{}`: compare two records of one kernel",
            old.display(),
            a.kernel,
            new.display(),
            b.kernel
        )));
    }
    let manifest = root.join("kernels").join(format!("{}.yaml", a.kernel));
    let (threshold, from) = match Manifest::load(&manifest) {
        Ok(m) => (m.compare.threshold, format!("`{}`", manifest.display())),
        Err(_) => (Compare::default().threshold, "the default".to_owned()),
    };
    // What a record says is content: each name on one line, its escapes written out.
    let describe = |r: &record::Record| {
        format!(
            "{} (id {}), measured {}",
            printable(&r.device.name),
            printable(r.device.gpu_id.as_deref().unwrap_or("none")),
            printable(r.run.date.get(..10).unwrap_or(&r.run.date))
        )
    };
    let cmp = compare::records(&a, &b, threshold);
    let text = format!(
        "kernel `{}`, threshold {:.1}% from {from}\nold: {} — {}\nnew: {} — {}\n{}{}\n",
        printable(&a.kernel),
        threshold * 100.0,
        old.display(),
        describe(&a),
        new.display(),
        describe(&b),
        cmp,
        cmp.tally()
    );
    emit(&mut std::io::stdout(), &text);
    Ok(())
}
