//! The command line: `build | check | measure | serve | new | sign | status`, parsed with clap, each mapped to
//! the module that does the work, each module's error mapped to the exit codes of the
//! contract. The only module besides `main` that uses anyhow.
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};

use crate::config::{Config, ConfigError};
use crate::content::{self, Diagnostics};
use crate::measurement::run::{self as measure, MeasureOptions};
use crate::policy;
use crate::sign::{self, SignOptions};
use crate::site::{self, BuildOptions, Report, SiteError};

/// How a command failed, which decides the exit code of the contract.
#[derive(Debug)]
pub enum Failure {
    /// The problems of a site, each already an `error:` line, compiler style: exit 1.
    Problems(content::Diagnostics),
    /// Another content or validation error (a bad manifest, a kernel that fails its check): exit 1.
    Content(anyhow::Error),
    /// Usage or environment error (bad flag, no GPU, unwritable output): exit 2.
    Usage(anyhow::Error),
}

impl Failure {
    /// The exit code the README gives this kind of failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Problems(_) | Failure::Content(_) => 1,
            Failure::Usage(_) => 2,
        }
    }
}

/// coursegen builds the "100 Days of GPU" course site: glossary entries in Markdown with
/// YAML front matter become a static site whose diagrams come from the shared-memory bank
/// model and whose tables come from kernels measured on a real GPU.
#[derive(Debug, Parser)]
#[command(name = "coursegen", version, about, long_about = None)]
pub struct Cli {
    /// Site root: the folder holding content/, templates/, static/, kernels/ and measurements/.
    #[arg(long, global = true, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// Site config (default: <root>/coursegen.toml when it exists): title, base_url,
    /// repository, language, review expiry, links.external_prefixes. Flags override it.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands of the contract (README, "Commands").
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render content/ through templates/ into public/ (only signed, published entries unless --drafts).
    Build(BuildArgs),
    /// Validate everything `build` validates and write nothing: the same load and check
    /// stages, every problem of the site reported at once, sorted by file and line.
    Check(CheckArgs),
    /// Compile kernels/*.cu with NVRTC, run their sweeps on a GPU and write measurement records.
    Measure(MeasureArgs),
    /// Serve a preview of the site on 127.0.0.1, rebuilding when content changes.
    Serve(ServeArgs),
    /// Scaffold a new entry with every front-matter field: `coursegen new glossary warp-divergence`,
    /// `coursegen new days day-16`.
    New(NewArgs),
    /// Sign an entry as its reviewer: writes `reviewed_by`, `last_checked_on` and the
    /// `reviewed_hash` that pins the review to the text as it is now.
    Sign(SignArgs),
    /// List every entry with its editorial state, author, reviewer and what it still needs.
    Status(StatusArgs),
}

/// How long a review stays valid, shared by the commands that apply the editorial rule.
#[derive(Debug, Clone, Copy, Args)]
pub struct ReviewArgs {
    /// Days after `last_checked_on` at which a review expires: a warning, and an error
    /// under --strict [default: 365]
    #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(u32).range(1..))]
    pub review_max_age: Option<u32>,
}

impl ReviewArgs {
    /// The flag's value, else the site config's `review_max_age_days`, else the default.
    pub fn max_age_days(&self, configured: Option<u32>) -> u32 {
        self.review_max_age
            .or(configured)
            .unwrap_or(policy::DEFAULT_REVIEW_MAX_AGE_DAYS)
    }
}

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
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Where the build cache (diagram images, search-index shards) is kept between builds.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// Build cache folder: diagram images and search-index shards made by earlier builds
    /// are reused from it, so an unchanged diagram is rasterised once and an unchanged shard
    /// indexed once (default: <root>/.coursegen-cache). Safe to delete; safe to share
    /// between builds running at once.
    #[arg(long, value_name = "DIR", env = "COURSEGEN_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Render every diagram and index every search shard afresh; keep nothing between
    /// builds.
    #[arg(long, conflicts_with = "cache_dir")]
    pub no_cache: bool,
}

impl CacheArgs {
    /// The cache folder this run uses, or `None` for no cache.
    pub fn dir(&self, root: &Path) -> Option<PathBuf> {
        if self.no_cache {
            return None;
        }
        Some(
            self.cache_dir
                .clone()
                .unwrap_or_else(|| root.join(site::build_cache::DEFAULT_DIR)),
        )
    }
}

/// Flags of `coursegen check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Check as the preview would (drafts rendered); by default checks as the publish build.
    #[arg(long)]
    pub drafts: bool,
    /// Check as `build --strict` would: stale or missing records, unpinned and expired reviews are errors.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub review: ReviewArgs,
}

/// Flags of `coursegen measure`.
#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// Run on the GPU (required: measuring always means a real run).
    #[arg(long)]
    pub gpu: bool,
    /// Measure only this kernel (the name of kernels/<NAME>.cu).
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// CUDA device to run on: an ordinal, or `all` to measure every GPU of the host in
    /// parallel (one record per physical GPU).
    #[arg(long, default_value = "0", value_name = "N|all")]
    pub device: String,
    /// Write the record even when the run was disturbed (another process on the GPU, a
    /// clock below rated, a row that did not converge); it is marked noisy, and the page and
    /// `build --strict` say so. Without it a disturbed run exits 1 and keeps the old record.
    #[arg(long)]
    pub accept_noisy: bool,
    /// Re-run a disturbed kernel up to N more times, after a pause of 20 s each.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub retries: u32,
    /// Also run each row once under Nsight Compute (`ncu` on the PATH) and record the
    /// hardware counters the model predicts.
    #[arg(long)]
    pub counters: bool,
    /// Internal: launch one row once and exit (what `--counters` runs under ncu).
    #[arg(long, hide = true, value_name = "LABEL")]
    pub launch_once: Option<String>,
}

/// Flags of `coursegen serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1.
    #[arg(long, default_value_t = 1111)]
    pub port: u16,
    /// Serve the publish build instead of the preview with drafts.
    #[arg(long)]
    pub no_drafts: bool,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Arguments of `coursegen new`.
#[derive(Debug, Args)]
pub struct NewArgs {
    /// Section under content/: `glossary` (a glossary entry), `days` (a day page), a
    /// sub-folder such as `glossary/memory`, or another existing section.
    pub section: String,
    /// Slug of the new entry, e.g. `warp-divergence` or `day-16`; unique in its top-level
    /// section, sub-folders included, ignoring case.
    pub slug: String,
    /// Allow a top-level section that does not exist yet (else a typo such as `glosary`
    /// would quietly start one).
    #[arg(long)]
    pub new_section: bool,
}

/// Arguments of `coursegen sign`.
#[derive(Debug, Args)]
#[command(
    after_help = "In a pull request: the author writes or edits the entry; the reviewer reads the \
change, runs `coursegen sign content/glossary/warp.md --reviewer \"Grace Hopper\"` and commits the \
result. Any later edit makes the hash stale, and the publish build holds the entry back until \
a reviewer signs again."
)]
pub struct SignArgs {
    /// The entry file, e.g. content/glossary/warp.md.
    pub file: PathBuf,
    /// The reviewer's name (repeat for several); replaces `reviewed_by`. Must not be an author.
    #[arg(long, value_name = "NAME", required = true)]
    pub reviewer: Vec<String>,
    /// The author's name (repeat for several); replaces `written_by`, and sets
    /// `written_on` to today when it is pending.
    #[arg(long, value_name = "NAME")]
    pub author: Vec<String>,
    /// Also set `status: published`.
    #[arg(long)]
    pub publish: bool,
}

/// Arguments of `coursegen status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub review: ReviewArgs,
}

/// Entry point used by `main`: parse, run, report, exit.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            let text = match &failure {
                Failure::Problems(problems) => format!("{problems}; nothing was written\n"),
                // Problems found by `sign` print one `error:` line each, compiler style.
                Failure::Content(err) if err.downcast_ref::<sign::SignError>().is_some() => {
                    format!("{err:#}\n")
                }
                Failure::Content(err) | Failure::Usage(err) => format!("error: {err:#}\n"),
            };
            emit(&mut std::io::stderr(), &text);
            ExitCode::from(failure.exit_code())
        }
    }
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> Result<(), Failure> {
    let root = &cli.root;
    let config_file = cli.config.as_deref();
    match cli.command {
        Command::Build(args) => {
            let mut config = load_config(root, config_file)?;
            if let Some(url) = &args.base_url {
                config.override_base_url(url).map_err(|m| {
                    Failure::Usage(anyhow::anyhow!(
                        "{m}; write it like https://course.example.org or https://user.github.io/course/"
                    ))
                })?;
            }
            let out = args.out.clone().unwrap_or_else(|| root.join("public"));
            let opts = BuildOptions {
                drafts: args.drafts,
                strict: args.strict,
                highlight: !args.no_highlight,
                search: !args.no_search,
                out: Some(out.clone()),
                review_max_age_days: args.review.max_age_days(config.review_max_age_days),
                config,
                today: Some(today()?),
                cache_dir: args.cache.dir(root),
            };
            let report = build(root, &opts, &format!("built {} with", out.display()))?;
            if let Some(file) = &args.summary {
                std::fs::write(file, report.markdown(opts.drafts)).map_err(|e| {
                    Failure::Usage(anyhow::anyhow!(
                        "cannot write the summary {}: {e}",
                        file.display()
                    ))
                })?;
            }
            Ok(())
        }
        Command::Check(args) => {
            let config = load_config(root, config_file)?;
            let opts = BuildOptions {
                drafts: args.drafts,
                strict: args.strict,
                highlight: false,
                search: false,
                out: None,
                review_max_age_days: args.review.max_age_days(config.review_max_age_days),
                config,
                today: Some(today()?),
                cache_dir: None,
            };
            build(root, &opts, "checked, nothing written:").map(drop)
        }
        Command::Measure(args) => {
            let device =
                measure::DeviceChoice::parse(&args.device).map_err(|e| Failure::Usage(e.into()))?;
            let opts = MeasureOptions {
                gpu: args.gpu,
                kernel: args.kernel,
                device,
                accept_noisy: args.accept_noisy,
                retries: args.retries,
                counters: args.counters,
                launch_once: args.launch_once,
            };
            measure::measure(root, &opts).map_err(|e| {
                if e.is_content() {
                    Failure::Content(e.into())
                } else {
                    Failure::Usage(e.into())
                }
            })
        }
        Command::Serve(args) => {
            load_config(root, config_file)?;
            crate::serve::serve(
                root,
                args.port,
                !args.no_drafts,
                cli.config.clone(),
                args.cache.dir(root),
            )
            .map_err(|e| Failure::Usage(e.into()))
        }
        Command::New(args) => {
            let path = content::create_entry(root, &args.section, &args.slug, args.new_section)
                .map_err(|e| Failure::Usage(e.into()))?;
            let text = format!(
                "created {} (a draft: replace the placeholder text, then ask a reviewer to run `coursegen sign`)\n",
                path.display()
            );
            emit(&mut std::io::stdout(), &text);
            Ok(())
        }
        Command::Sign(args) => run_sign(root, args),
        Command::Status(args) => run_status(root, args, config_file),
    }
}

/// The site config; a broken file is a content error (exit 1), an unreadable one a usage error.
fn load_config(root: &Path, file: Option<&Path>) -> Result<Config, Failure> {
    Config::load(root, file).map_err(|e| match e {
        ConfigError::Invalid(problems) => Failure::Problems(Diagnostics(problems)),
        ConfigError::Io { .. } => Failure::Usage(e.into()),
    })
}

fn today() -> Result<jiff::civil::Date, Failure> {
    policy::today().map_err(|e| Failure::Usage(e.into()))
}

fn run_sign(root: &Path, args: SignArgs) -> Result<(), Failure> {
    let opts = SignOptions {
        reviewers: args.reviewer,
        authors: args.author,
        publish: args.publish,
        today: today()?,
    };
    let signed = sign::sign(root, &args.file, &opts).map_err(|e| {
        if e.is_content() {
            Failure::Content(e.into())
        } else {
            Failure::Usage(e.into())
        }
    })?;
    println!(
        "signed {} as reviewed by {} on {} ({})",
        signed.file.display(),
        opts.reviewers.join(" and "),
        opts.today,
        signed.hash
    );
    for note in &signed.notes {
        println!("note: still keeps it from being published: {note}");
    }
    Ok(())
}

fn run_status(root: &Path, args: StatusArgs, config_file: Option<&Path>) -> Result<(), Failure> {
    let config = load_config(root, config_file)?;
    if !root.join("content").is_dir() {
        return Err(Failure::Usage(
            SiteError::NoContent(root.to_path_buf()).into(),
        ));
    }
    let site = content::load(root);
    let rules = policy::Rules {
        today: today()?,
        review_max_age_days: args.review.max_age_days(config.review_max_age_days),
        strict: false,
        preview: false,
    };
    let report = crate::status::report(&site.entries, &rules);
    let text = if args.json {
        let json = serde_json::to_string_pretty(&report).map_err(|e| Failure::Usage(e.into()))?;
        json + "\n"
    } else {
        crate::status::table(&report)
    };
    // `coursegen status | head` closes the pipe early: that is not an error.
    match std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(Failure::Usage(e.into()));
        }
        _ => {}
    }
    if site.problems.is_empty() {
        return Ok(());
    }
    eprintln!("{}", Diagnostics(site.problems.clone()));
    Err(Failure::Content(anyhow::anyhow!(
        "the files above could not be read as entries, so the table leaves them out"
    )))
}

fn build(root: &Path, opts: &BuildOptions, verb: &str) -> Result<Report, Failure> {
    let start = Instant::now();
    let report = site::build(root, opts).map_err(|err| match err {
        SiteError::Content(problems) => Failure::Problems(problems),
        SiteError::NoContent(_)
        | SiteError::Templates(_)
        | SiteError::Output(_)
        | SiteError::Render(_)
        | SiteError::Search(_) => Failure::Usage(err.into()),
    })?;
    print_report(&report, opts, verb, start.elapsed());
    Ok(report)
}

/// Writes to stdout or stderr and ignores failure: a reader that went away
/// (`coursegen build | head`) is no reason to panic or to fail a finished build.
fn emit(stream: &mut impl std::io::Write, text: &str) {
    let _ = stream.write_all(text.as_bytes());
    let _ = stream.flush();
}

fn print_report(report: &Report, opts: &BuildOptions, verb: &str, elapsed: std::time::Duration) {
    use std::fmt::Write as _;
    let mut err = String::new();
    for w in &report.warnings {
        let _ = writeln!(err, "warning: {w}");
    }
    emit(&mut std::io::stderr(), &err);
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
        let _ = writeln!(out, "  draft {}: {reason}", file.display());
    }
    emit(&mut std::io::stdout(), &out);
}
