//! Every command of the command line, one file each under `cmd/` — `build` (and `check`),
//! `measure`, `serve`, `new`, `init`, `eject`, `sign`, `signers`, `status`, `verify` — each a thin layer over the library: its
//! flags (clap), the options it hands the module that does the work, what it prints, and
//! each failure mapped to the exit codes of the contract (0 ok, 1 content, 2
//! usage/environment). What they share is here. With `cli`, the only code that uses anyhow.
use std::path::{Path, PathBuf};

use clap::Args;

use crate::config::{Config, ConfigError};
use crate::content::Diagnostics;
use crate::editorial::policy;

pub(crate) mod build;
pub(crate) mod eject;
pub(crate) mod init;
pub(crate) mod measure;
pub(crate) mod new;
pub(crate) mod serve;
pub(crate) mod shell;
pub(crate) mod sign;
pub(crate) mod signers;
pub(crate) mod status;
pub(crate) mod verify;

/// How a command failed, which decides the exit code of the contract.
#[derive(Debug)]
pub enum Failure {
    /// The problems of a site, each already an `error:` line, compiler style: exit 1.
    Problems(Diagnostics),
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

    /// `e` as the content's failure (exit 1) when `content`, else as usage (exit 2).
    fn of(content: bool, e: impl Into<anyhow::Error>) -> Failure {
        match content {
            true => Failure::Content(e.into()),
            false => Failure::Usage(e.into()),
        }
    }
}

/// How long a review stays valid, shared by the commands that apply the editorial rule.
#[derive(Debug, Clone, Copy, Args)]
pub struct ReviewArgs {
    /// Days after `last_checked_on` at which a review expires: a warning, and an error
    /// under --strict [default: 365]
    #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(u32).range(1..=i64::from(crate::editorial::policy::MAX_REVIEW_MAX_AGE_DAYS)))]
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

/// Whose allowed-signers file a build trusts, shared by `build` and `check`.
#[derive(Debug, Clone, Args)]
pub struct TrustArgs {
    /// Check signatures against the allowed-signers file and the `[review]` settings as
    /// this git revision has them (in CI: the default branch, named in full, e.g.
    /// refs/remotes/origin/main), not as the working tree has them: a change cannot sign its
    /// own entries with keys it adds, delete the file or switch the requirement off. A short
    /// name that names several refs (a tag beside the branch) is refused
    #[arg(long, value_name = "REV", env = "COURSEGEN_TRUSTED_REF")]
    pub trusted_ref: Option<String>,
}

/// Where the build cache (diagram images, search-index shards) is kept between builds.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// Build cache folder: diagram images and search-index shards made by earlier builds
    /// are reused from it, so an unchanged diagram is rasterised once and an unchanged shard
    /// indexed once (default: a folder of this site's under $XDG_CACHE_HOME/coursegen, or
    /// ~/.cache/coursegen). Never inside the site root. Safe to delete; safe to share
    /// between builds running at once.
    #[arg(long, value_name = "DIR", env = "COURSEGEN_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Render every diagram and index every search shard afresh; keep nothing between
    /// builds.
    #[arg(long, conflicts_with = "cache_dir")]
    pub no_cache: bool,
}

impl CacheArgs {
    /// The cache folder this run uses, or `None` for no cache; one inside the site root is
    /// a usage error.
    pub fn dir(&self, root: &Path) -> Result<Option<PathBuf>, Failure> {
        if self.no_cache {
            return Ok(None);
        }
        crate::site::render::build_cache::cache_dir(root, self.cache_dir.as_deref())
            .map_err(|e| Failure::Usage(e.into()))
    }
}

/// The site config; a broken file is a content error (exit 1), an unreadable one a usage error.
pub(crate) fn load_config(root: &Path, file: Option<&Path>) -> Result<Config, Failure> {
    Config::load(root, file).map_err(|e| match e {
        ConfigError::Invalid(problems) => Failure::Problems(Diagnostics(problems)),
        ConfigError::Io { .. } => Failure::Usage(e.into()),
    })
}

/// The config with `--base-url`'s address in place of `base_url`, when given (`build`,
/// `check` and `serve`); a bad address is a usage error.
pub(crate) fn override_base_url(config: &mut Config, url: Option<&str>) -> Result<(), Failure> {
    let Some(url) = url else { return Ok(()) };
    config.override_base_url(url).map_err(|m| {
        Failure::Usage(anyhow::anyhow!(
            "{m}; write it like https://course.example.org or https://user.github.io/course/"
        ))
    })
}

/// A build's time (`BuildOptions::epoch`): `SOURCE_DATE_EPOCH` when set; else, for a
/// publish build (not `--drafts`) of a git work tree, the checked-out commit's committer
/// time, so that two builds of one commit write the same bytes on any machine at any hour;
/// else `None`, the clock.
pub(crate) fn build_epoch(root: &Path, drafts: bool) -> Result<Option<i64>, Failure> {
    let set = policy::source_date_epoch().map_err(|e| Failure::Usage(e.into()))?;
    Ok(set.or_else(|| match drafts {
        true => None,
        false => policy::trusted::head_commit_time(root),
    }))
}

/// Today for the editorial rule: `SOURCE_DATE_EPOCH` when set, else the clock.
pub(crate) fn today() -> Result<jiff::civil::Date, Failure> {
    policy::today().map_err(|e| Failure::Usage(e.into()))
}

/// Writes `text` to stderr with its `error:`, `warning:` and `help:` labels in colour when
/// stderr is a terminal (anstream: none under `NO_COLOR`, in a pipe or a file, forced by
/// `CLICOLOR_FORCE`), as compilers do. Made printable first, as [`emit`] does.
pub(crate) fn emit_err(text: &str) {
    use anstyle::{AnsiColor, Style};
    let mut stderr = anstream::stderr();
    let text = printable_lines(text);
    // Uncoloured (a pipe, a file, CI): the text as it is, in one write. anstream would strip
    // the labels' escape codes by writing the text between them piece by piece: four
    // system calls a warning, 40,000 for a course whose 10,000 reviews have expired.
    if stderr.current_choice() == anstream::ColorChoice::Never {
        write_ignoring_failure(&mut std::io::stderr(), &text);
        return;
    }
    let paint =
        |style: Style, label: &str| format!("{}{label}{}", style.render(), style.render_reset());
    let error = Style::new().bold().fg_color(Some(AnsiColor::Red.into()));
    let warning = Style::new().bold().fg_color(Some(AnsiColor::Yellow.into()));
    let help = Style::new().bold().fg_color(Some(AnsiColor::Cyan.into()));
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("error:") {
            out.push_str(&paint(error, "error:"));
            out.push_str(rest);
        } else if let Some(rest) = line.strip_prefix("warning:") {
            out.push_str(&paint(warning, "warning:"));
            out.push_str(rest);
        } else if let Some(rest) = line.strip_prefix("  help:") {
            out.push_str("  ");
            out.push_str(&paint(help, "help:"));
            out.push_str(rest);
        } else {
            out.push_str(line);
        }
    }
    write_ignoring_failure(&mut stderr, &out);
}

/// Writes to stdout or stderr and ignores failure: a reader that went away
/// (`coursegen build | head`) is no reason to panic or to fail a finished build. Every
/// output of a command goes through here, [`emit_err`] or [`try_emit`], made printable on
/// the way (`content::diagnostic::printable_lines`): whatever a message quotes — a file
/// name, a value, a reason — cannot drive the terminal or be a GitHub workflow command.
pub(crate) fn emit(stream: &mut impl std::io::Write, text: &str) {
    let _ = try_emit(stream, text);
}

/// [`emit`], for a command whose output is the point (`status`): the caller decides what a
/// failed write means.
pub(crate) fn try_emit(stream: &mut impl std::io::Write, text: &str) -> std::io::Result<()> {
    stream.write_all(printable_lines(text).as_bytes())?;
    stream.flush()
}

/// A JSON document with what [`emit`] would escape written as JSON escapes instead
/// (`\u202e`; `#` as `\u0023`, which breaks up a `##[` command), so that it passes through
/// unchanged, stays valid and means the same. `#` occurs in JSON only inside strings.
pub(crate) fn printable_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '#' => out.push_str("\\u0023"),
            c if crate::content::diagnostic::hidden(c) => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// Writes GitHub workflow commands (`Diagnostics::github_annotations`, whose data is
/// escaped there): the one output that may start a line with `::`.
pub(crate) fn emit_workflow_commands(commands: &str) {
    write_ignoring_failure(&mut std::io::stderr(), commands);
}

fn printable_lines(text: &str) -> std::borrow::Cow<'_, str> {
    crate::content::diagnostic::printable_lines(text)
}

fn write_ignoring_failure(stream: &mut impl std::io::Write, text: &str) {
    let _ = stream.write_all(text.as_bytes());
    let _ = stream.flush();
}

#[cfg(test)]
mod tests {
    #[test]
    fn json_stays_valid_and_inert() {
        let value = serde_json::json!({"file": "a\u{202e}\u{9b}b##[error]x.md\n::error::y"});
        let json = super::printable_json(&value.to_string());
        assert!(!json.contains("##[") && !json.chars().any(crate::content::diagnostic::hidden));
        assert_eq!(super::printable_lines(&json), json);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&json).unwrap(),
            value
        );
    }
}
