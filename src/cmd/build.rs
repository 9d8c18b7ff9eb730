//! `coursegen build` and `coursegen check`: the site config with the flags' overrides,
//! `site::build`, the report on the terminal and the summary file.
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;

use super::{
    CacheArgs, Failure, ReviewArgs, TrustArgs, build_epoch, emit, emit_err, load_config,
    override_base_url, printable_json,
};
use crate::content::diagnostic::{printable, printable_lines};
use crate::content::{Diagnostic, Diagnostics};
use crate::editorial::policy;
use crate::measurement::run::kernel_check::{self, KernelCheck};
use crate::site::options::{BuildOptions, Report};
use crate::site::{self, SiteError};

/// Flags of `coursegen build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Course preview: render drafts too, each with a draft banner and `noindex`.
    #[arg(long)]
    pub drafts: bool,
    /// What CI publishes with: fail on stale or missing measurement records, on published
    /// entries without a `reviewed_hash`, and on expired reviews.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub review: ReviewArgs,
    #[command(flatten)]
    pub trust: TrustArgs,
    /// Skip build-time code highlighting (code is still escaped and shown plainly).
    #[arg(long)]
    pub no_highlight: bool,
    /// Skip the search index (pagefind/): the search box then finds nothing. Saves build time
    /// while drafting; published builds should keep search on.
    #[arg(long)]
    pub no_search: bool,
    /// Public address of the site, which may carry a sub-path (e.g.
    /// https://user.github.io/course/: every URL the site emits then starts with /course/);
    /// overrides `base_url` in coursegen.toml. The publish build also writes sitemap.xml.
    #[arg(long, value_name = "URL", env = "COURSEGEN_BASE_URL")]
    pub base_url: Option<String>,
    /// Output folder (default: <root>/public). It is replaced whole, atomically.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Also write the build summary as Markdown to FILE (pages, published entries, what
    /// keeps each draft back), for a pull-request comment or a CI job summary.
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    /// Print only problems and warnings: no summary line and no list of drafts.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Also print, on stderr, what the build used and how long each stage took: the config
    /// file, which theme files are the site's own, what the build cache held.
    #[arg(short, long)]
    pub verbose: bool,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Flags of `coursegen check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Check only as the preview would (drafts rendered). By default `check` applies both
    /// the publish build's rules and the preview's, and each problem says which it blocks:
    /// the published site, the preview (a draft's problem), or both.
    #[arg(long)]
    pub drafts: bool,
    /// Check as `build --strict` would: stale or missing records, unpinned and expired reviews are errors.
    #[arg(long)]
    pub strict: bool,
    /// `json` also prints the result on stdout for editors and tools:
    /// `{"ok", "problems": [{"file", "line", "field", "message", "help"}], "warnings"}`
    /// (line 0: the file as a whole). The exit code and stderr are as with `text`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print only problems and warnings: no summary line and no list of drafts.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Also print, on stderr, what the check used and how long each stage took.
    #[arg(short, long)]
    pub verbose: bool,
    /// Do not compile the course's kernels. By default, where NVRTC can be loaded (a CUDA
    /// toolkit, or PyPI's nvidia-cuda-nvrtc), every kernels/NAME.cu is compiled for compute_90
    /// with no GPU and its manifest's `kernel` and `reference.kernel` must be entry points
    /// with the kernel contract's parameters.
    #[arg(long)]
    pub no_kernels: bool,
    /// Check the site as `build --base-url URL` would build it (e.g.
    /// https://user.github.io/course/: a link written with its path `/course/` is then an
    /// error that says to drop it); overrides `base_url` in coursegen.toml.
    #[arg(long, value_name = "URL", env = "COURSEGEN_BASE_URL")]
    pub base_url: Option<String>,
    #[command(flatten)]
    pub review: ReviewArgs,
    #[command(flatten)]
    pub trust: TrustArgs,
}

/// How `check` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Compiler-style lines on stderr.
    Text,
    /// The same, and one JSON object on stdout.
    Json,
}

/// Runs `coursegen build`.
pub(crate) fn run_build(
    root: &Path,
    config_file: Option<&Path>,
    args: BuildArgs,
) -> Result<(), Failure> {
    let mut config = load_config(root, config_file)?;
    override_base_url(&mut config, args.base_url.as_deref())?;
    let out = args.out.clone().unwrap_or_else(|| root.join("public"));
    let opts = BuildOptions {
        drafts: args.drafts,
        strict: args.strict,
        highlight: !args.no_highlight,
        search: !args.no_search,
        out: Some(out.clone()),
        review_max_age_days: args.review.max_age_days(config.review_max_age_days),
        config,
        epoch: build_epoch(root, args.drafts)?,
        trusted_ref: args.trust.trusted_ref.clone(),
        cache_dir: args.cache.dir(root)?,
        check_signatures: true,
    };
    let summary = if args.quiet {
        Summary::Off
    } else {
        Summary::Stdout
    };
    let report = build(
        root,
        &opts,
        &format!("built {} with", out.display()),
        summary,
    )?;
    if args.verbose {
        emit_err(&verbose(root, config_file, &opts, &report));
    }
    if let Some(file) = &args.summary {
        // Posted as a pull-request comment and a job summary: no character in it may act.
        let markdown = report.markdown(opts.drafts);
        std::fs::write(file, &*printable_lines(&markdown)).map_err(|e| {
            Failure::Usage(anyhow::anyhow!(
                "cannot write the summary {}: {e}",
                file.display()
            ))
        })?;
    }
    Ok(())
}

/// Runs `coursegen check`.
pub(crate) fn run_check(
    root: &Path,
    config_file: Option<&Path>,
    args: CheckArgs,
) -> Result<(), Failure> {
    let mut config = load_config(root, config_file)?;
    override_base_url(&mut config, args.base_url.as_deref())?;
    let opts = BuildOptions {
        drafts: args.drafts,
        strict: args.strict,
        highlight: false,
        search: false,
        out: None,
        review_max_age_days: args.review.max_age_days(config.review_max_age_days),
        config,
        // Judged at the clock (or SOURCE_DATE_EPOCH): a check is at least as strict as
        // the publish build of the same commit, whose time is the commit's.
        epoch: policy::source_date_epoch().map_err(|e| Failure::Usage(e.into()))?,
        trusted_ref: args.trust.trusted_ref.clone(),
        cache_dir: None,
        check_signatures: true,
    };
    let json = args.format == Format::Json;
    let summary = match (args.quiet, json) {
        (true, _) => Summary::Off,
        (false, true) => Summary::Stderr,
        (false, false) => Summary::Stdout,
    };
    let verb = "checked, nothing written:";
    let start = Instant::now();
    // The kernels are compiled (no GPU) before anything is printed: their problems are
    // reported with the content's, sorted by file and line.
    let kernels = match args.no_kernels {
        true => KernelCheck::NoKernels,
        false => kernel_check::check_kernels(root, &[]),
    };
    // Said first, where the summary goes: whether the kernels were compiled.
    match (summary, kernel_note(&kernels)) {
        (Summary::Stdout, Some(note)) => emit(&mut std::io::stdout(), &note),
        (Summary::Stderr, Some(note)) => emit_err(&note),
        _ => {}
    }
    let result = if opts.drafts {
        let built = with_kernel_problems(site::build(root, &opts), &kernels);
        reported(built, &opts, verb, start, summary)
    } else {
        // One load for both checks: the content read once, checked as published and as
        // the preview.
        match site::check_published_and_preview(root, &opts) {
            Ok(site::Checks { published, preview }) => {
                // The kernels block both builds, as any content problem of both does.
                let published = with_kernel_problems(published, &kernels);
                let preview = with_kernel_problems(preview, &kernels);
                with_preview_problems(preview, reported(published, &opts, verb, start, summary))
            }
            Err(err) => reported(Err(err), &opts, verb, start, summary),
        }
    };

    if let (true, Ok(report)) = (args.verbose, &result) {
        emit_err(&verbose(root, config_file, &opts, report));
    }
    if json {
        let (problems, warnings) = match &result {
            Ok(report) => (&[][..], report.warnings.as_slice()),
            Err(Failure::Problems(problems)) => (problems.0.as_slice(), &[][..]),
            Err(_) => return result.map(drop),
        };
        let json = serde_json::json!({
            "ok": problems.is_empty(),
            "problems": problems,
            "warnings": warnings,
        });
        emit(
            &mut std::io::stdout(),
            &printable_json(&format!("{json}\n")),
        );
    }
    result.map(drop)
}

/// A check's `result` with the kernel check's problems added, sorted with the rest.
fn with_kernel_problems(
    result: Result<Report, SiteError>,
    kernels: &KernelCheck,
) -> Result<Report, SiteError> {
    let KernelCheck::Checked { problems, .. } = kernels else {
        return result;
    };
    if problems.is_empty() {
        return result;
    }
    let mut all = match result {
        Ok(_) => Vec::new(),
        Err(SiteError::Content(Diagnostics(found))) => found,
        Err(other) => return Err(other),
    };
    all.extend(problems.iter().cloned());
    all.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    Err(SiteError::Content(Diagnostics(all)))
}

/// The line `check` prints about the kernels: how many compiled, or that none could be.
fn kernel_note(kernels: &KernelCheck) -> Option<String> {
    match kernels {
        KernelCheck::NoKernels => None,
        KernelCheck::NoNvrtc { kernels } => Some(format!(
            "note: {kernels} kernel{} not compiled: no NVRTC (libnvrtc) found. To check kernels \
             without a GPU, {}\n",
            if *kernels == 1 { " was" } else { "s were" },
            kernel_check::HOW_TO_GET_NVRTC
        )),
        KernelCheck::Checked {
            kernels,
            nvrtc,
            problems,
        } if problems.is_empty() => Some(format!(
            "kernels: {kernels} compiled with NVRTC {nvrtc} for compute_{}, entry points as the \
             contract says\n",
            kernel_check::ARCH
        )),
        KernelCheck::Checked { .. } => None,
    }
}

/// The publish check's `result` joined with the preview's problems (drafts rendered), a
/// problem that blocks only one of the two builds saying which: a draft's broken link
/// stops only the preview, a published entry's missing signature only the published site.
fn with_preview_problems(
    preview: Result<Report, SiteError>,
    result: Result<Report, Failure>,
) -> Result<Report, Failure> {
    let preview = match preview {
        Ok(_) => Vec::new(),
        Err(SiteError::Content(problems)) => problems.0,
        // Not a content problem (no content/, templates): the publish check said it.
        Err(_) => return result,
    };
    let publish = match result {
        Err(Failure::Problems(problems)) => problems.0,
        Ok(_) if preview.is_empty() => return result,
        Ok(_) => Vec::new(),
        Err(other) => return Err(other),
    };
    let blocks = |d: &Diagnostic, what: &str| {
        let mut d = d.clone();
        d.message.push_str(" (");
        d.message.push_str(what);
        d.message.push(')');
        d
    };
    // What blocks both builds (most problems) is said as it is; the rest say which.
    let mut all: Vec<Diagnostic> = (publish.iter())
        .map(|d| match preview.contains(d) {
            true => d.clone(),
            false => blocks(d, "blocks the published site only"),
        })
        .collect();
    all.extend(
        (preview.iter())
            .filter(|d| !publish.contains(d))
            .map(|d| blocks(d, "blocks the preview only, where this entry is a draft")),
    );
    all.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    Err(Failure::Problems(Diagnostics(all)))
}

/// Where the summary of a build (its line and its drafts) goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Summary {
    /// On stdout, the default.
    Stdout,
    /// On stderr, so that stdout holds only what `check --format json` prints.
    Stderr,
    /// Nowhere (`--quiet`).
    Off,
}

/// Builds (or checks) and prints the report, its summary where `summary` says.
fn build(
    root: &Path,
    opts: &BuildOptions,
    verb: &str,
    summary: Summary,
) -> Result<Report, Failure> {
    let start = Instant::now();
    reported(site::build(root, opts), opts, verb, start, summary)
}

/// A build's (or check's) result, begun at `start`, as the command reports it: the report
/// printed, content problems apart from the failures that are not the content's.
fn reported(
    result: Result<Report, SiteError>,
    opts: &BuildOptions,
    verb: &str,
    start: Instant,
    summary: Summary,
) -> Result<Report, Failure> {
    let report = result.map_err(|err| match err {
        SiteError::Content(problems) => Failure::Problems(problems),
        SiteError::NoContent(_)
        | SiteError::Templates(_)
        | SiteError::Output(_)
        | SiteError::Render(_)
        | SiteError::Search(_) => Failure::Usage(err.into()),
    })?;
    print_report(&report, opts, verb, start.elapsed(), summary);
    Ok(report)
}

fn print_report(
    report: &Report,
    opts: &BuildOptions,
    verb: &str,
    elapsed: std::time::Duration,
    summary: Summary,
) {
    use std::fmt::Write as _;
    let mut err = String::new();
    for w in &report.warnings {
        let _ = writeln!(err, "warning: {w}");
    }
    emit_err(&err);
    let ms = elapsed.as_secs_f64() * 1000.0;
    let drafts = report.drafts.len();
    let what = if opts.drafts {
        "rendered with a draft banner"
    } else {
        "left out"
    };
    let mut out = format!(
        "{verb} {} page{} in {ms:.0} ms: {} published entr{}, {drafts} draft{} {what}\n",
        report.pages,
        if report.pages == 1 { "" } else { "s" },
        report.published,
        if report.published == 1 { "y" } else { "ies" },
        if drafts == 1 { "" } else { "s" },
    );
    for (file, reason) in &report.drafts {
        let _ = writeln!(
            out,
            "  draft {}: {}",
            printable(&file.to_string_lossy()),
            printable(reason)
        );
    }
    match summary {
        Summary::Stdout => emit(&mut std::io::stdout(), &out),
        Summary::Stderr => emit(&mut std::io::stderr(), &out),
        Summary::Off => {}
    }
}

/// `--verbose`: what a build used (config, theme, cache) and how long each stage took.
fn verbose(
    root: &Path,
    config_file: Option<&Path>,
    opts: &BuildOptions,
    report: &Report,
) -> String {
    let ms = |d: std::time::Duration| format!("{:.0} ms", d.as_secs_f64() * 1000.0);
    let default = root.join(crate::config::FILE);
    let config = match config_file {
        Some(f) => f.display().to_string(),
        None if default.exists() => crate::config::FILE.to_string(),
        None => format!("none ({} absent: the defaults)", crate::config::FILE),
    };
    let mut out = format!("config: {config}; base path {}\n", opts.config.root);
    out.push_str(&format!("theme: {}\n", theme_line(root)));
    match (&report.cache, &opts.cache_dir, opts.out.is_some()) {
        (_, _, false) => {}
        (Some(c), Some(dir), true) => out.push_str(&format!(
            "cache: {} (diagrams: {} reused, {} rendered; search shards: {} reused, {} indexed)\n",
            dir.display(),
            c.images_reused,
            c.images_made,
            c.shards_reused,
            c.shards_made
        )),
        _ => out.push_str("cache: off (--no-cache): every diagram rendered, every shard indexed\n"),
    }
    let t = report.timings;
    // A build without search renders and writes each page as the check passes it, so the
    // pages' time is the check's.
    let (check, rest) = match (&opts.out, opts.search) {
        (None, _) => ("check", None),
        (Some(_), false) => ("check and pages", Some("site files and write")),
        (Some(_), true) => ("check", Some("render and write")),
    };
    out.push_str(&format!(
        "stages: load {} ({} entr{}), {check} {}",
        ms(t.load),
        report.entries,
        if report.entries == 1 { "y" } else { "ies" },
        ms(t.check)
    ));
    if let Some(rest) = rest {
        out.push_str(&format!(", {rest} {}", ms(t.write)));
    }
    out.push('\n');
    out
}

/// Which theme files the site has of its own, against the built-in theme.
fn theme_line(root: &Path) -> String {
    use crate::theme::{self, Source};
    let (mut overriding, mut added, mut same) = (Vec::new(), Vec::new(), 0);
    for folder in theme::FOLDERS {
        let Ok((files, _)) = theme::files(root, folder, None) else {
            continue;
        };
        let builtin: std::collections::HashMap<&str, &[u8]> =
            theme::builtin(folder).into_iter().collect();
        for (rel, source) in files {
            let Source::File(path) = source else { continue };
            let name = format!("{folder}/{rel}");
            match builtin.get(rel.as_str()) {
                None => added.push(name),
                // Lengths first: a large site file is not read to learn it differs.
                Some(b)
                    if std::fs::metadata(&path).is_ok_and(|m| m.len() == b.len() as u64)
                        && std::fs::read(&path).is_ok_and(|own| own == *b) =>
                {
                    same += 1
                }
                Some(_) => overriding.push(name),
            }
        }
    }
    if overriding.is_empty() && added.is_empty() && same == 0 {
        return "built-in (the site has no templates/ or static/ files)".into();
    }
    let list = |names: &[String]| {
        let mut shown = names.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
        if names.len() > 5 {
            shown.push_str(&format!(" and {} more", names.len() - 5));
        }
        shown
    };
    let mut parts = Vec::new();
    if !overriding.is_empty() {
        parts.push(format!(
            "{} overriding the built-in one ({})",
            overriding.len(),
            list(&overriding)
        ));
    }
    if !added.is_empty() {
        parts.push(format!("{} added ({})", added.len(), list(&added)));
    }
    if same > 0 {
        parts.push(format!("{same} the same as the built-in one"));
    }
    format!("built-in, with the site's own files: {}", parts.join("; "))
}
