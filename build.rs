//! Build-time facts the binary carries:
//! - the commit in `coursegen --version`: COURSEGEN_COMMIT when set (the release workflow
//!   sets it), else `git rev-parse` of the checkout, else the version alone (a build from
//!   crates.io has no git);
//! - a rebuild when a file of the built-in theme (`templates/`, `static/`) or of `init/` or
//!   `init-gpu/` is added or removed: `include_dir!` alone sees only edits of files it embedded.
use std::process::Command;

fn main() {
    for dir in ["templates", "static", "init", "init-gpu"] {
        println!("cargo:rerun-if-changed={dir}");
    }
    println!("cargo:rerun-if-env-changed=COURSEGEN_COMMIT");
    let commit = std::env::var("COURSEGEN_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(git_commit);
    let version = env!("CARGO_PKG_VERSION");
    let long = match commit {
        Some(c) if c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') => {
            format!("{version} ({c})")
        }
        _ => version.to_string(),
    };
    println!("cargo:rustc-env=COURSEGEN_LONG_VERSION={long}");
}

/// The checkout's short commit; `None` outside git. (Whether the tree is dirty is left out:
/// nothing here would rebuild when a file is edited, so it could not stay true.)
fn git_commit() -> Option<String> {
    let run = |args: &[&str]| {
        let o = Command::new("git").args(args).output().ok()?;
        let text = String::from_utf8(o.stdout).ok()?;
        o.status.success().then(|| text.trim().to_string())
    };
    // A new commit moves HEAD or the branch it names; rebuild then. Asked of git, not read
    // from `.git/HEAD`: in a worktree `.git` is a file, and HEAD lives elsewhere.
    let head = run(&["rev-parse", "--git-path", "HEAD"])?;
    println!("cargo:rerun-if-changed={head}");
    if let Ok(text) = std::fs::read_to_string(&head)
        && let Some(branch) = text.strip_prefix("ref: ")
        && let Some(path) = run(&["rev-parse", "--git-path", branch.trim()])
    {
        println!("cargo:rerun-if-changed={path}");
    }
    run(&["rev-parse", "--short=12", "HEAD"])
}
