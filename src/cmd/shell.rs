//! `coursegen completions SHELL` and `coursegen man`: the shell's completion script and the
//! man page, generated from the same clap definition that parses the command line, so they
//! cannot drift from it.
use clap::Args;

use super::Failure;

/// Arguments of `coursegen completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Writes the completion script of `args.shell` to stdout, e.g.
/// `coursegen completions bash > ~/.local/share/bash-completion/completions/coursegen`.
/// `command` is the whole command line's definition (`cli::Cli`), which `cli` passes in.
pub fn run_completions(mut command: clap::Command, args: CompletionsArgs) -> Result<(), Failure> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "coursegen", &mut out);
    print(&out)
}

/// Writes the man page, `coursegen(1)` with a section per subcommand, to stdout, e.g.
/// `coursegen man > ~/.local/share/man/man1/coursegen.1`.
pub fn run_man(command: clap::Command) -> Result<(), Failure> {
    let mut out = Vec::new();
    let man = clap_mangen::Man::new(command.clone());
    let io = |e: std::io::Error| Failure::Usage(anyhow::anyhow!("cannot write the man page: {e}"));
    man.render(&mut out).map_err(io)?;
    // One section per subcommand, with its own options, after the page's own sections.
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name();
        out.extend_from_slice(format!(".SH \"COURSEGEN {}\"\n", name.to_uppercase()).as_bytes());
        let page = clap_mangen::Man::new(sub.clone().bin_name(format!("coursegen {name}")));
        page.render_description_section(&mut out).map_err(io)?;
        page.render_synopsis_section(&mut out).map_err(io)?;
        page.render_options_section(&mut out).map_err(io)?;
    }
    print(&out)
}

/// Writes `bytes` to stdout; a reader that stops early (`| head`) is no error.
fn print(bytes: &[u8]) -> Result<(), Failure> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::Usage(
            anyhow::anyhow!("cannot write to stdout: {e}"),
        )),
        _ => Ok(()),
    }
}
