//! The command line: `build | check | measure | serve | new | init | eject | sign | status |
//! completions | man`, parsed with
//! clap and handed to its command under `cmd/`; a failure is printed and becomes the exit
//! code of the contract.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use crate::cmd::build::{BuildArgs, CheckArgs};
use crate::cmd::eject::EjectArgs;
use crate::cmd::init::InitArgs;
use crate::cmd::measure::MeasureArgs;
use crate::cmd::new::NewArgs;
use crate::cmd::serve::ServeArgs;
use crate::cmd::shell::CompletionsArgs;
use crate::cmd::sign::SignArgs;
use crate::cmd::status::StatusArgs;
use crate::cmd::{self, Failure, emit_err};
use crate::editorial::sign;

/// coursegen builds a GPU programming course: glossary entries and day pages in Markdown
/// with YAML front matter become a static site whose diagrams come from a model of the
/// hardware and whose tables come from the course's kernels measured on a real GPU.
#[derive(Debug, Parser)]
#[command(name = "coursegen", version = env!("COURSEGEN_LONG_VERSION"), about, long_about = None)]
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
    /// Serve a preview of the site (on 127.0.0.1 unless --interface), rebuilding when content
    /// changes; --open opens it in the browser.
    Serve(ServeArgs),
    /// Scaffold a new entry with every front-matter field: `coursegen new glossary warp-divergence`,
    /// `coursegen new days day-16`.
    New(NewArgs),
    /// Start a new course in DIR (default: the current folder), which must be empty:
    /// coursegen.toml, an example entry and kernel, a GitHub workflow, a README for authors.
    Init(InitArgs),
    /// Write the built-in theme into templates/ and static/ to customise it (a site's own
    /// file overrides the built-in one of the same path).
    Eject(EjectArgs),
    /// Sign an entry as its reviewer: writes `reviewed_by`, `last_checked_on` and the
    /// `reviewed_hash` that pins the review to the text as it is now.
    Sign(SignArgs),
    /// List every entry with its editorial state, author, reviewer and what it still needs.
    Status(StatusArgs),
    /// Print the completion script for a shell: `coursegen completions bash >
    /// ~/.local/share/bash-completion/completions/coursegen` (zsh, fish, powershell, elvish).
    Completions(CompletionsArgs),
    /// Print the man page: `coursegen man > ~/.local/share/man/man1/coursegen.1`.
    Man,
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
            emit_err(&text);
            // In GitHub Actions each problem is also an annotation on the diff.
            if let Failure::Problems(problems) = &failure
                && std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true")
            {
                cmd::emit_workflow_commands(&problems.github_annotations());
            }
            ExitCode::from(failure.exit_code())
        }
    }
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> Result<(), Failure> {
    let root = &cli.root;
    let config_file = cli.config.as_deref();
    match cli.command {
        Command::Build(args) => cmd::build::run_build(root, config_file, args),
        Command::Check(args) => cmd::build::run_check(root, config_file, args),
        Command::Measure(args) => cmd::measure::run_measure(root, args),
        Command::Serve(args) => cmd::serve::run_serve(root, cli.config.clone(), args),
        Command::New(args) => cmd::new::run_new(root, args),
        Command::Init(args) => cmd::init::run_init(root, args),
        Command::Eject(args) => cmd::eject::run_eject(root, args),
        Command::Sign(args) => cmd::sign::run_sign(root, args, config_file),
        Command::Status(args) => cmd::status::run_status(root, args, config_file),
        Command::Completions(args) => cmd::shell::run_completions(Cli::command(), args),
        Command::Man => cmd::shell::run_man(Cli::command()),
    }
}
