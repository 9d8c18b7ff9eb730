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
pub(crate) fn run_completions(
    mut command: clap::Command,
    args: CompletionsArgs,
) -> Result<(), Failure> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "coursegen", &mut out);
    print(&out)
}

/// Writes the man page, `coursegen(1)` with a section per subcommand, to stdout, e.g.
/// `coursegen man > ~/.local/share/man/man1/coursegen.1`. One page holds every command, so
/// it lists them by name (clap_mangen's own list would name `coursegen-build(1)` and the
/// like, pages that do not exist) and its SEE ALSO names the guide.
pub(crate) fn run_man(command: clap::Command) -> Result<(), Failure> {
    print(&man_page(command)?)
}

/// The man page as roff.
fn man_page(command: clap::Command) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    let man = clap_mangen::Man::new(command.clone());
    let io = |e: std::io::Error| Failure::Usage(anyhow::anyhow!("cannot write the man page: {e}"));
    man.render_title(&mut out).map_err(io)?;
    man.render_name_section(&mut out).map_err(io)?;
    man.render_synopsis_section(&mut out).map_err(io)?;
    man.render_description_section(&mut out).map_err(io)?;
    man.render_options_section(&mut out).map_err(io)?;
    let shown = || command.get_subcommands().filter(|s| !s.is_hide_set());
    out.extend_from_slice(b".SH SUBCOMMANDS\n");
    for sub in shown() {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        let line = format!(".TP\n\\fB{}\\fR\n{}\n", sub.get_name(), roff_text(&about));
        out.extend_from_slice(line.as_bytes());
    }
    // One section per subcommand, with its own options, after the page's own sections.
    for sub in shown() {
        let name = sub.get_name();
        out.extend_from_slice(format!(".SH \"COURSEGEN {}\"\n", name.to_uppercase()).as_bytes());
        let page = clap_mangen::Man::new(sub.clone().bin_name(format!("coursegen {name}")));
        page.render_description_section(&mut out).map_err(io)?;
        page.render_synopsis_section(&mut out).map_err(io)?;
        page.render_options_section(&mut out).map_err(io)?;
    }
    out.extend_from_slice(
        b".SH \"SEE ALSO\"\nThe coursegen guide, published beside the course under /guide/ \
          and in the guide/ folder of https://github.com/coursegen/coursegen\n",
    );
    man.render_version_section(&mut out).map_err(io)?;
    Ok(out)
}

/// `text` as roff body text: backslashes doubled, no line taken for a request.
fn roff_text(text: &str) -> String {
    let text = text.replace('\\', "\\e").replace('\n', " ");
    match text.chars().next() {
        Some('.' | '\'') => format!("\\&{text}"),
        _ => text,
    }
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

#[cfg(test)]
mod tests {
    /// Every page the man page refers to (`name(N)`) exists: only coursegen(1) itself.
    #[test]
    fn the_man_page_names_only_pages_that_exist() {
        let command = <crate::cli::Cli as clap::CommandFactory>::command();
        let page = super::man_page(command).unwrap();
        let text = String::from_utf8(page).unwrap().replace("\\-", "-");
        let refs: Vec<&str> = (text.match_indices("(1)"))
            .map(|(i, _)| {
                let start = text[..i]
                    .rfind(|c: char| c.is_whitespace())
                    .map_or(0, |s| s + 1);
                &text[start..i]
            })
            .filter(|name| *name != "coursegen" && !name.is_empty())
            .collect();
        assert!(refs.is_empty(), "pages that do not exist: {refs:?}");
        assert!(text.contains(".SH \"SEE ALSO\""));
        for sub in ["build", "sign", "measure", "init"] {
            assert!(
                text.contains(&format!("\\fB{sub}\\fR")),
                "{sub} missing from SUBCOMMANDS"
            );
        }
    }
}
