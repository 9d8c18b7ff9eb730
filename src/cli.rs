//! The command line: `build | check | measure | serve | new | init | eject | sign | signers |
//! status | completions | man`, parsed with
//! clap and handed to its command under `cmd/`; a failure is printed and becomes the exit
//! code of the contract.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::cmd::build::{BuildArgs, CheckArgs};
use crate::cmd::eject::EjectArgs;
use crate::cmd::init::InitArgs;
use crate::cmd::measure::MeasureArgs;
use crate::cmd::new::NewArgs;
use crate::cmd::serve::ServeArgs;
use crate::cmd::shell::CompletionsArgs;
use crate::cmd::sign::SignArgs;
use crate::cmd::signers::{AddArgs, RemoveArgs};
use crate::cmd::status::StatusArgs;
use crate::cmd::verify::VerifyArgs;
use crate::cmd::{self, Failure, emit_err};
use crate::editorial::sign;

/// coursegen builds a course's website: pages in Markdown with YAML front matter become a
/// static site that publishes an entry only once its author and a different reviewer have
/// signed it. A GPU course may also draw diagrams from a model of the hardware and fill
/// tables from its own kernels, measured on a real GPU.
#[derive(Debug, Parser)]
#[command(name = "coursegen", version = env!("COURSEGEN_LONG_VERSION"), about, long_about = None)]
pub struct Cli {
    /// `--root` before the subcommand (`coursegen --root DIR build`), as it was once
    /// global; hidden, since each command that reads a site shows its own.
    #[arg(long = "root", value_name = "DIR", hide = true)]
    pub root_before: Option<PathBuf>,
    /// `--config` before the subcommand; hidden, as `--root`.
    #[arg(long = "config", value_name = "FILE", hide = true)]
    pub config_before: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// `--root`, on the commands that read or write a site.
#[derive(Debug, Args)]
pub struct RootArg {
    /// Site root: the folder holding content/, templates/, static/, kernels/ and
    /// measurements/ [default: .]
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

/// `--config`, on the commands that read the site config.
#[derive(Debug, Args)]
pub struct ConfigArg {
    /// Site config (default: <root>/coursegen.toml when it exists): title, base_url,
    /// repository, language, review expiry, links.external_prefixes. Flags override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// `init`'s `--root`: accepted as before and hidden, since DIR names the new course's folder.
#[derive(Debug, Args)]
pub struct HiddenRootArg {
    /// The folder `init` writes into when DIR is not given.
    #[arg(long, value_name = "DIR", hide = true)]
    pub root: Option<PathBuf>,
}

/// The subcommands of the contract (the guide's "Commands").
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render content/ through templates/ into public/ (only signed, published entries unless --drafts).
    ///
    /// Dates: a publish build (without --drafts) of a git repository takes its "today" (when
    /// reviews expire, when signing keys are valid, the time the provenance records) from the
    /// checked-out commit's committer date, not the clock, so two builds of one commit are
    /// byte-identical wherever and whenever they run. SOURCE_DATE_EPOCH, when set, wins;
    /// --drafts and a course outside git use the clock.
    Build {
        #[command(flatten)]
        root: RootArg,
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        args: BuildArgs,
    },
    /// Validate everything `build` validates and write nothing: the same load and check
    /// stages, every problem of the site reported at once, sorted by file and line.
    Check {
        #[command(flatten)]
        root: RootArg,
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        args: CheckArgs,
    },
    /// Compile kernels/*.cu with NVRTC, run their sweeps on a GPU and write measurement records,
    /// each compared with the one before it; `--compare OLD NEW` compares two records.
    Measure {
        #[command(flatten)]
        root: RootArg,
        #[command(flatten)]
        args: MeasureArgs,
    },
    /// Serve a preview of the site (on 127.0.0.1 unless --interface), rebuilding when content
    /// changes; --open opens it in the browser.
    Serve {
        #[command(flatten)]
        root: RootArg,
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        args: ServeArgs,
    },
    /// Scaffold a new entry with every front-matter field: `coursegen new glossary warp-divergence`,
    /// `coursegen new days day-16`.
    New {
        #[command(flatten)]
        root: RootArg,
        #[command(flatten)]
        args: NewArgs,
    },
    /// Start a new course in DIR (default: the current folder), which must be empty (a `.git`
    /// is allowed):
    /// coursegen.toml, an example entry and kernel, a GitHub workflow, a README for authors.
    Init {
        #[command(flatten)]
        root: HiddenRootArg,
        #[command(flatten)]
        args: InitArgs,
    },
    /// Write the built-in theme into templates/ and static/ to customise it (a site's own
    /// file overrides the built-in one of the same path).
    Eject {
        #[command(flatten)]
        root: RootArg,
        #[command(flatten)]
        args: EjectArgs,
    },
    /// Sign an entry as its reviewer: writes `reviewed_by`, `last_checked_on` and the
    /// `reviewed_hash` that pins the review to the text as it is now.
    Sign {
        #[command(flatten)]
        root: RootArg,
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        args: SignArgs,
    },
    /// Add a person's public SSH key to the allowed-signers file (`signers add NAME --key
    /// FILE.pub`), remove it (`signers remove NAME`), or list who may sign reviews
    /// (`signers list`).
    Signers {
        #[command(subcommand)]
        command: SignersCommand,
    },
    /// List every entry with its editorial state, author, reviewer and what it still needs.
    Status {
        #[command(flatten)]
        root: RootArg,
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        args: StatusArgs,
    },
    /// Check a published site, or one page of it, against the provenance its publish build
    /// wrote: each page's bytes, and each entry's author and reviewer signatures over its
    /// review pin, by two people whose keys the trusted allowed-signers file lists. One line
    /// a page. Exit 0: every page verifies; 1: one does not (or the site has no
    /// provenance); 2: usage or environment (a file that cannot be read, a failed rebuild,
    /// a URL refused or not reached).
    ///
    /// URLs: coursegen fetches the page named and the site's coursegen-provenance.json
    /// (looked for in the page's folder and those above it), and nothing else; for the
    /// site's root, every page the provenance lists (4 at a time, at most 20,000).
    /// https:// only; http:// only to this machine (localhost, 127.0.0.1, [::1]). Each
    /// answer is bounded: the provenance 64 MiB, a page 32 MiB; 10 s to connect, 30 s to
    /// answer, 120 s in all; 5 redirects, each checked as the URL given. A page that answers
    /// other than 200 or too large does not verify (exit 1); a URL refused, or not reached
    /// (no connection, a timeout), is exit 2. A proxy in ALL_PROXY, HTTPS_PROXY or
    /// HTTP_PROXY (with NO_PROXY) is used, never for this machine.
    Verify(VerifyArgs),
    /// Print the completion script for a shell: `coursegen completions bash >
    /// ~/.local/share/bash-completion/completions/coursegen` (zsh, fish, powershell, elvish).
    Completions(CompletionsArgs),
    /// Print the man page: `coursegen man > ~/.local/share/man/man1/coursegen.1`.
    Man,
}

/// The subcommands of `coursegen signers`.
#[derive(Debug, Subcommand)]
pub enum SignersCommand {
    /// Add a person's public SSH keys to the allowed-signers file (created when missing),
    /// one line a key, allowed to sign reviews only.
    #[command(after_help = "Examples:\n  \
coursegen signers add \"Ada Lovelace\" --email ada@example.org --key ~/.ssh/id_ed25519.pub\n  \
curl -fsSL https://github.com/USERNAME.keys > ada.keys   # their keys on GitHub, one a line\n  \
coursegen signers add \"Ada Lovelace\" --key ada.keys\n\n\
Adding a key is adding a person who may publish: commit it in a pull request of its own, which \
a maintainer approves (.github/CODEOWNERS); on a pull request a key counts once it is on the \
default branch. A key coursegen would not verify (DSA, ECDSA other than P-256, RSA under 2048 \
or over 4096 bits, hardware `sk-` keys), a key already listed, a private key, or a name that \
is a placeholder (`Reviewer`) or holds a comma is refused, and then nothing is written.")]
    Add {
        #[command(flatten)]
        root: RootArg,
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        args: AddArgs,
    },
    /// Remove a person's keys (or one key) from the allowed-signers file: every line whose
    /// principals name them, or the line of the key with that fingerprint.
    #[command(after_help = "Examples:\n  \
coursegen signers remove \"Ada Lovelace\"\n  \
coursegen signers remove SHA256:QpWJ0m3Yq2mFhPTbN4PZq3eL4ojOeFZ4pTzbQ3Zk6Jk   # one key, from `signers list`\n\n\
Removing a key is a change of who may publish: commit it in a pull request of its own, which a \
maintainer approves. Once it is on the default branch, entries signed with a removed key are held \
back until signed again. A name the file does not list is refused with the nearest one it does.")]
    Remove {
        #[command(flatten)]
        root: RootArg,
        #[command(flatten)]
        config: ConfigArg,
        #[command(flatten)]
        args: RemoveArgs,
    },
    /// List the keys of the allowed-signers file: line, who, key type and fingerprint.
    List {
        #[command(flatten)]
        root: RootArg,
        #[command(flatten)]
        config: ConfigArg,
    },
}

impl SignersCommand {
    /// `--root` and `--config` as given after the subcommand.
    fn root_and_config(&self) -> (&RootArg, &ConfigArg) {
        match self {
            SignersCommand::Add { root, config, .. }
            | SignersCommand::Remove { root, config, .. }
            | SignersCommand::List { root, config } => (root, config),
        }
    }
}

impl Cli {
    /// The site root: `--root` after the subcommand, else before it, else the current folder.
    pub fn site_root(&self) -> &Path {
        let after = match &self.command {
            Command::Build { root, .. }
            | Command::Check { root, .. }
            | Command::Measure { root, .. }
            | Command::Serve { root, .. }
            | Command::New { root, .. }
            | Command::Eject { root, .. }
            | Command::Sign { root, .. }
            | Command::Status { root, .. } => root.root.as_deref(),
            Command::Init { root, .. } => root.root.as_deref(),
            Command::Signers { command } => command.root_and_config().0.root.as_deref(),
            Command::Completions(_) | Command::Man | Command::Verify(_) => None,
        };
        after
            .or(self.root_before.as_deref())
            .unwrap_or(Path::new("."))
    }

    /// The config file named by `--config`, after the subcommand or before it.
    pub fn config_file(&self) -> Option<&Path> {
        let after = match &self.command {
            Command::Build { config, .. }
            | Command::Check { config, .. }
            | Command::Serve { config, .. }
            | Command::Sign { config, .. }
            | Command::Status { config, .. } => config.config.as_deref(),
            Command::Signers { command } => command.root_and_config().1.config.as_deref(),
            _ => None,
        };
        after.or(self.config_before.as_deref())
    }
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
    let root = &cli.site_root().to_path_buf();
    let config_file = cli.config_file().map(Path::to_path_buf);
    let config_file = config_file.as_deref();
    match cli.command {
        Command::Build { args, .. } => cmd::build::run_build(root, config_file, args),
        Command::Check { args, .. } => cmd::build::run_check(root, config_file, args),
        Command::Measure { args, .. } => cmd::measure::run_measure(root, args),
        Command::Serve { args, .. } => {
            cmd::serve::run_serve(root, config_file.map(Path::to_path_buf), args)
        }
        Command::New { args, .. } => cmd::new::run_new(root, args, config_file),
        Command::Init { args, .. } => cmd::init::run_init(root, args),
        Command::Eject { args, .. } => cmd::eject::run_eject(root, args),
        Command::Sign { args, .. } => cmd::sign::run_sign(root, args, config_file),
        Command::Status { args, .. } => cmd::status::run_status(root, args, config_file),
        Command::Signers { command } => match command {
            SignersCommand::Add { args, .. } => cmd::signers::run_add(root, args, config_file),
            SignersCommand::Remove { args, .. } => {
                cmd::signers::run_remove(root, args, config_file)
            }
            SignersCommand::List { .. } => cmd::signers::run_list(root, config_file),
        },
        Command::Verify(args) => cmd::verify::run_verify(args),
        Command::Completions(args) => cmd::shell::run_completions(Cli::command(), args),
        Command::Man => cmd::shell::run_man(Cli::command()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The long flags `coursegen help SUB` and the man page show for a subcommand.
    fn shown_flags(sub: &str) -> Vec<String> {
        let mut cli = Cli::command();
        cli.build();
        let sub = cli.find_subcommand(sub).unwrap();
        sub.get_arguments()
            .filter(|a| !a.is_hide_set())
            .filter_map(|a| a.get_long().map(str::to_owned))
            .collect()
    }

    #[test]
    fn root_and_config_show_only_on_the_commands_that_read_them() {
        for (sub, root, config) in [
            ("build", true, true),
            ("check", true, true),
            ("serve", true, true),
            ("sign", true, true),
            ("status", true, true),
            ("measure", true, false),
            ("new", true, false),
            ("eject", true, false),
            ("init", false, false),
            ("man", false, false),
            ("completions", false, false),
        ] {
            let flags = shown_flags(sub);
            assert_eq!(
                flags.iter().any(|f| f == "root"),
                root,
                "{sub}: --root {flags:?}"
            );
            assert_eq!(
                flags.iter().any(|f| f == "config"),
                config,
                "{sub}: --config {flags:?}"
            );
        }
    }

    /// The flag works after the subcommand and, as it always has, before it.
    #[test]
    fn root_is_read_before_or_after_the_subcommand() {
        let after = Cli::try_parse_from(["coursegen", "build", "--root", "a"]).unwrap();
        let before = Cli::try_parse_from(["coursegen", "--root", "b", "build"]).unwrap();
        let none = Cli::try_parse_from(["coursegen", "status"]).unwrap();
        assert_eq!(after.site_root(), std::path::Path::new("a"));
        assert_eq!(before.site_root(), std::path::Path::new("b"));
        assert_eq!(none.site_root(), std::path::Path::new("."));
        // `init DIR` names its folder; a `--root` after it is still accepted (hidden).
        assert!(Cli::try_parse_from(["coursegen", "init", "x", "--root", "r"]).is_ok());
        assert!(Cli::try_parse_from(["coursegen", "man", "--root", "r"]).is_err());
        assert!(
            Cli::try_parse_from(["coursegen", "completions", "bash", "--config", "c"]).is_err()
        );
    }
}
