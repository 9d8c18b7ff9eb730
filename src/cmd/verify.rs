//! `coursegen verify`: reads a published site (a folder, or one page of it; or fetches
//! them, `remote`) and the provenance its publish build wrote, and says of each page
//! whether it verifies (`editorial::verify`); `--rebuild REPO` rebuilds the recorded commit
//! and compares bytes. Exit 0: every page verifies; 1: one does not; 2: usage or environment.
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, anyhow};
use clap::Args;

use super::{Failure, emit};
use crate::editorial::provenance::{self, PageRecord, Provenance};
use crate::editorial::verify::{self, Anchor, Outcome, PageResult};
use published::Published;

mod published;
mod remote;

/// `coursegen verify`'s flags.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A published site's folder (every page its provenance lists), or one page of it (an
    /// HTML file; the provenance is looked for in its folder and the folders above); or the
    /// URL of a page, or of the site's root (every page): see URLs above
    #[arg(value_name = "FOLDER|FILE|URL")]
    pub target: String,
    /// Print the results as JSON, one object a page
    #[arg(long)]
    pub json: bool,
    /// The trusted allowed-signers file, your own copy (from the course's default branch):
    /// the keys the site's provenance records must be this file's
    #[arg(long, value_name = "FILE")]
    pub signers: Option<PathBuf>,
    /// A clone of the course's repository: rebuild the recorded commit and compare every
    /// page's bytes and review with the rebuilt ones (ties the pin to the source)
    #[arg(long, value_name = "REPO")]
    pub rebuild: Option<PathBuf>,
}

/// Runs `coursegen verify`.
pub(crate) fn run_verify(args: VerifyArgs) -> Result<(), Failure> {
    let usage = Failure::Usage;
    let mine = match &args.signers {
        Some(f) => Some(read_bounded(f, 256 * 1024).map_err(usage).and_then(|b| {
            String::from_utf8(b).map_err(|_| usage(anyhow!("{} is not UTF-8 text", f.display())))
        })?),
        None => None,
    };
    let site = match remote::url_of(&args.target) {
        Some(url) => remote::open(url)?,
        None => open_folder(Path::new(&args.target))?,
    };
    let prov = &site.prov;
    if let Some(f) = &site.only
        && !prov.pages.iter().any(|p| &p.file == f)
    {
        return Err(Failure::Content(anyhow!(
            "{f} is not listed in {}: not a page this build published",
            site.prov_at
        )));
    }
    let wanted = |p: &PageRecord| site.only.as_ref().is_none_or(|f| &p.file == f);
    let anchor = Anchor {
        signers: mine.as_deref(),
    };
    let check = || verify::verify(prov, &anchor, wanted, &site.read);
    let mut results = match site.threads {
        None => check(),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| usage(anyhow!("cannot start {n} threads: {e}")))?
            .install(check),
    };
    if let Some(repo) = &args.rebuild {
        let rebuilt = rebuild(repo, prov).map_err(usage)?;
        compare_with_rebuild(&mut results, prov, &rebuilt);
    }
    let refused = results
        .iter()
        .any(|r| matches!(r.outcome, Outcome::Refused(_)));
    let text = match args.json {
        true => json(&results, prov),
        false => lines(&results, prov),
    };
    emit(&mut std::io::stdout().lock(), &text);
    match refused {
        true => Err(Failure::Content(anyhow!(
            "{} of {} pages do not verify",
            results
                .iter()
                .filter(|r| matches!(r.outcome, Outcome::Refused(_)))
                .count(),
            results.len()
        ))),
        false => Ok(()),
    }
}

/// The site in the folder `target`, or the site above the page `target`.
fn open_folder(target: &Path) -> Result<Published, Failure> {
    let meta = std::fs::metadata(target)
        .with_context(|| format!("cannot read {}", target.display()))
        .map_err(Failure::Usage)?;
    let (site, only) = if meta.is_dir() {
        (target.to_path_buf(), None)
    } else {
        // No provenance above the page: it does not verify (exit 1), as for a folder.
        site_of(target).map_err(Failure::Content)?
    };
    let prov_path = site.join(provenance::FILE);
    let prov = match read_bounded(&prov_path, provenance::MAX_BYTES) {
        Ok(bytes) => Provenance::parse(&bytes)
            .map_err(|e| Failure::Content(anyhow!("{}: {e}", prov_path.display())))?,
        Err(_) => {
            return Err(Failure::Content(anyhow!(
                "{} has no {}: the site carries no provenance (removed, or not a coursegen publish build); nothing can be verified",
                site.display(),
                provenance::FILE
            )));
        }
    };
    let read = move |file: &str| {
        read_bounded(&site.join(file), provenance::MAX_PAGE_BYTES).map_err(|e| format!("{e:#}"))
    };
    Ok(Published {
        prov,
        prov_at: prov_path.display().to_string(),
        only,
        read: Box::new(read),
        threads: None,
    })
}

/// The site folder holding `page`'s provenance (its folder or one above), and the page's
/// file relative to it.
fn site_of(page: &Path) -> anyhow::Result<(PathBuf, Option<String>)> {
    let page = std::path::absolute(page)?;
    let mut dir = page.parent();
    for _ in 0..64 {
        let Some(d) = dir else { break };
        if d.join(provenance::FILE).is_file() {
            let rel = page.strip_prefix(d)?;
            let rel = (rel.components())
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            return Ok((d.to_path_buf(), Some(rel)));
        }
        dir = d.parent();
    }
    Err(anyhow!(
        "no {} in the folder of {} or above it: the site carries no provenance (removed, or not a coursegen publish build)",
        provenance::FILE,
        page.display()
    ))
}

/// A regular file (not a link) of at most `max` bytes.
fn read_bounded(path: &Path, max: u64) -> anyhow::Result<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if !meta.is_file() {
        return Err(anyhow!("{} is not a regular file", path.display()));
    }
    if meta.len() > max {
        return Err(anyhow!(
            "{} is {} bytes; at most {max} are read",
            path.display(),
            meta.len()
        ));
    }
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Rebuilds the recorded commit of the repository at `repo` with the recorded settings into
/// a temporary folder: its provenance and its folder.
fn rebuild(repo: &Path, prov: &Provenance) -> anyhow::Result<(Provenance, tempfile::TempDir)> {
    let commit = (prov.commit.as_deref())
        .filter(|c| c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| anyhow!("the provenance records no commit to rebuild"))?;
    let tmp = tempfile::tempdir()?;
    let src = tmp.path().join("src");
    let git = |args: &[&std::ffi::OsStr]| -> anyhow::Result<()> {
        let ok = Command::new("git")
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()?
            .success();
        ok.then_some(())
            .ok_or_else(|| anyhow!("git {:?} failed", args))
    };
    git(&[
        "clone".as_ref(),
        "--quiet".as_ref(),
        "--no-checkout".as_ref(),
        repo.as_os_str(),
        src.as_os_str(),
    ])?;
    git(&[
        "-C".as_ref(),
        src.as_os_str(),
        "checkout".as_ref(),
        "--quiet".as_ref(),
        "--detach".as_ref(),
        commit.as_ref(),
    ])?;
    let out = tmp.path().join("out");
    let mut build = Command::new(std::env::current_exe()?);
    build.arg("--root").arg(&src).arg("build").arg("--quiet");
    build.arg("--out").arg(&out).arg("--no-cache");
    let s = &prov.settings;
    if s.strict {
        build.arg("--strict");
    }
    if !s.highlight {
        build.arg("--no-highlight");
    }
    if !s.search {
        build.arg("--no-search");
    }
    if let Some(url) = &s.base_url {
        build.arg("--base-url").arg(url);
    }
    if let Some(rev) = prov.signers.as_ref().and_then(|s| s.revision.as_ref()) {
        build.arg("--trusted-ref").arg(rev);
    }
    if let Some(t) = prov.source_date_epoch {
        build.env("SOURCE_DATE_EPOCH", t.to_string());
    }
    let status = build.env_remove("COURSEGEN_TRUSTED_REF").status()?;
    if !status.success() {
        return Err(anyhow!("the rebuild of commit {commit} failed"));
    }
    let bytes = std::fs::read(out.join(provenance::FILE))?;
    Ok((Provenance::parse(&bytes)?, tmp))
}

/// Refuses each page whose bytes or review differ from the rebuild's.
fn compare_with_rebuild(
    results: &mut [PageResult],
    prov: &Provenance,
    (rebuilt, _dir): &(Provenance, tempfile::TempDir),
) {
    let commit = prov.commit.as_deref().unwrap_or("").get(..7).unwrap_or("");
    for r in results.iter_mut() {
        if matches!(r.outcome, Outcome::Refused(_)) {
            continue;
        }
        let theirs = rebuilt.pages.iter().find(|p| p.file == r.file);
        let ours = prov.pages.iter().find(|p| p.file == r.file);
        // Not refused: the served bytes are the recorded digest's.
        let served = ours.map(|o| o.sha256.as_str()).unwrap_or_default();
        let why = match (theirs, ours) {
            (None, _) => Some(format!("a rebuild of commit {commit} has no such page")),
            (Some(t), _) if !t.sha256.eq_ignore_ascii_case(served) => Some(format!(
                "page bytes differ from a rebuild of commit {commit} (the provenance was edited to match an edited page, or the page is from another commit)"
            )),
            (Some(t), Some(o)) if t.review != o.review || t.status != o.status => Some(format!(
                "its review differs from a rebuild of commit {commit}'s"
            )),
            _ => None,
        };
        if let Some(why) = why {
            r.outcome = Outcome::Refused(why);
        }
    }
}

/// One line a page.
fn lines(results: &[PageResult], prov: &Provenance) -> String {
    let commit = prov.commit.as_deref().unwrap_or("(none)");
    let commit = commit.get(..7).unwrap_or(commit);
    let mut out = String::new();
    for r in results {
        let line = match &r.outcome {
            Outcome::Signed { author, reviewer } => format!(
                "{}: signed by {} (author, {}) and {} (reviewer, {}) at commit {commit}; bytes match",
                r.url, author.0, author.1, reviewer.0, reviewer.1
            ),
            Outcome::Unsigned { names } => format!(
                "{}: written by {}, reviewed by {}, at commit {commit}; not signed (the course lists no keys); bytes match",
                r.url, names.0, names.1
            ),
            Outcome::NotReviewed => format!("{}: not reviewed (not an entry); bytes match", r.url),
            Outcome::Refused(why) => format!("{}: does not verify: {why}", r.url),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The results as JSON.
fn json(results: &[PageResult], prov: &Provenance) -> String {
    let pages: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            let mut v = serde_json::json!({"url": r.url, "file": r.file, "commit": prov.commit});
            let (result, extra) = match &r.outcome {
                Outcome::Signed { author, reviewer } => (
                    "signed",
                    serde_json::json!({
                        "author": {"name": author.0, "fingerprint": author.1},
                        "reviewer": {"name": reviewer.0, "fingerprint": reviewer.1},
                    }),
                ),
                Outcome::Unsigned { names } => (
                    "unsigned",
                    serde_json::json!({"written_by": names.0, "reviewed_by": names.1}),
                ),
                Outcome::NotReviewed => ("not reviewed", serde_json::json!({})),
                Outcome::Refused(why) => ("refused", serde_json::json!({"reason": why})),
            };
            v["result"] = result.into();
            if let (Some(v), Some(e)) = (v.as_object_mut(), extra.as_object()) {
                v.extend(e.clone());
            }
            v
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&pages).unwrap_or_default();
    text.push('\n');
    text
}
