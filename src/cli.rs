//! The command line: `build | check | measure | serve | new`, parsed with clap, each mapped to
//! the module that does the work, each module's error mapped to the exit codes of the
//! contract. The only module besides `main` that uses anyhow.
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};

use crate::content;
use crate::measurement::run::{self as measure, MeasureOptions};
use crate::site::{self, BuildOptions, Report, SiteError};

/// How a command failed, which decides the exit code of the contract.
#[derive(Debug)]
pub enum Failure {
    /// Content or validation error: exit 1.
    Content(anyhow::Error),
    /// Usage or environment error (bad flag, no GPU, unwritable output): exit 2.
    Usage(anyhow::Error),
}

impl Failure {
    /// The exit code SPEC assigns to this kind of failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Content(_) => 1,
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
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands of the contract (SPEC, "Commands").
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render content/ through templates/ into public/ (only signed, published entries unless --drafts).
    Build(BuildArgs),
    /// Validate everything `build` validates and write nothing.
    Check(CheckArgs),
    /// Compile kernels/*.cu with NVRTC, run their sweeps on a GPU and write measurement records.
    Measure(MeasureArgs),
    /// Serve a preview of the site on 127.0.0.1, rebuilding when content changes.
    Serve(ServeArgs),
    /// Scaffold a new entry with every front-matter field: `coursegen new glossary warp-divergence`.
    New(NewArgs),
}

/// Flags of `coursegen build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Course preview: render drafts too, each with a draft banner and `noindex`.
    #[arg(long)]
    pub drafts: bool,
    /// Fail on stale or missing measurement records (what CI publishes with).
    #[arg(long)]
    pub strict: bool,
    /// Skip build-time code highlighting (code is still escaped and shown plainly).
    #[arg(long)]
    pub no_highlight: bool,
    /// Skip the search index (pagefind/): the search box then finds nothing. Saves build time
    /// while drafting; published builds should keep search on.
    #[arg(long)]
    pub no_search: bool,
    /// Public address of the site (e.g. https://course.example.org); when given, the publish
    /// build writes sitemap.xml with absolute URLs of the published pages.
    #[arg(long, value_name = "URL", env = "COURSEGEN_BASE_URL")]
    pub base_url: Option<String>,
    /// Output folder (default: <root>/public). It is replaced whole, atomically.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Flags of `coursegen check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Check as the preview would (drafts rendered); by default checks as the publish build.
    #[arg(long)]
    pub drafts: bool,
    /// Treat stale or missing measurement records as errors.
    #[arg(long)]
    pub strict: bool,
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
    /// CUDA device ordinal to run on.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub device: usize,
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
}

/// Arguments of `coursegen new`.
#[derive(Debug, Args)]
pub struct NewArgs {
    /// Section under content/, e.g. `glossary` or `days`.
    pub section: String,
    /// Slug of the new entry, e.g. `warp-divergence`.
    pub slug: String,
}

/// Entry point used by `main`: parse, run, report, exit.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            match &failure {
                // Content problems print one `error:` line each, compiler style.
                Failure::Content(err) if err.downcast_ref::<SiteError>().is_some() => {
                    eprintln!("{err:#}")
                }
                Failure::Content(err) | Failure::Usage(err) => eprintln!("error: {err:#}"),
            }
            ExitCode::from(failure.exit_code())
        }
    }
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> Result<(), Failure> {
    let root = &cli.root;
    match cli.command {
        Command::Build(args) => {
            if let Some(url) = &args.base_url {
                check_base_url(url)?;
            }
            let out = args.out.clone().unwrap_or_else(|| root.join("public"));
            let opts = BuildOptions {
                drafts: args.drafts,
                strict: args.strict,
                highlight: !args.no_highlight,
                search: !args.no_search,
                out: Some(out.clone()),
                base_url: args.base_url.clone(),
            };
            build(root, &opts, &format!("built {} with", out.display()))
        }
        Command::Check(args) => {
            let opts = BuildOptions {
                drafts: args.drafts,
                strict: args.strict,
                highlight: false,
                search: false,
                out: None,
                base_url: None,
            };
            build(root, &opts, "checked, nothing written:")
        }
        Command::Measure(args) => {
            let opts = MeasureOptions {
                gpu: args.gpu,
                kernel: args.kernel,
                device: args.device,
            };
            measure::measure(root, &opts).map_err(|e| {
                if e.is_content() {
                    Failure::Content(e.into())
                } else {
                    Failure::Usage(e.into())
                }
            })
        }
        Command::Serve(args) => site::serve::serve(root, args.port, !args.no_drafts)
            .map_err(|e| Failure::Usage(e.into())),
        Command::New(args) => {
            let path = content::create_entry(root, &args.section, &args.slug)
                .map_err(|e| Failure::Usage(e.into()))?;
            println!(
                "created {} (a draft: fill in the fields, then ask a reviewer to sign it)",
                path.display()
            );
            Ok(())
        }
    }
}

fn check_base_url(url: &str) -> Result<(), Failure> {
    let ok = (url.starts_with("https://") || url.starts_with("http://"))
        && url
            .split("://")
            .nth(1)
            .is_some_and(|rest| !rest.is_empty() && !rest.contains(char::is_whitespace));
    if ok {
        Ok(())
    } else {
        Err(Failure::Usage(anyhow::anyhow!(
            "--base-url `{url}` is not an http(s) address; write it like https://course.example.org"
        )))
    }
}

fn build(root: &Path, opts: &BuildOptions, verb: &str) -> Result<(), Failure> {
    let start = Instant::now();
    let report = site::build(root, opts).map_err(|err| match err {
        SiteError::Content(_) => Failure::Content(err.into()),
        SiteError::NoContent(_)
        | SiteError::Templates(_)
        | SiteError::Output(_)
        | SiteError::Search(_) => Failure::Usage(err.into()),
    })?;
    print_report(&report, opts, verb, start.elapsed());
    Ok(())
}

fn print_report(report: &Report, opts: &BuildOptions, verb: &str, elapsed: std::time::Duration) {
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    let ms = elapsed.as_secs_f64() * 1000.0;
    let drafts = report.drafts.len();
    let what = if opts.drafts {
        "rendered with a draft banner"
    } else {
        "left out"
    };
    println!(
        "{verb} {} page{} in {ms:.0} ms: {} published entr{}, {drafts} draft{} {what}",
        report.pages,
        if report.pages == 1 { "" } else { "s" },
        report.published,
        if report.published == 1 { "y" } else { "ies" },
        if drafts == 1 { "" } else { "s" },
    );
    for (file, reason) in &report.drafts {
        println!("  draft {}: {reason}", file.display());
    }
}
