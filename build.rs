//! Build-time facts the binary carries:
//! - the commit in `coursegen --version`: COURSEGEN_COMMIT when set (the release workflow
//!   sets it), else `git rev-parse` of the checkout, else the version alone (a build from
//!   crates.io has no git);
//! - a rebuild when a file of the built-in theme (`templates/`, `static/`) or of `init/` or
//!   `init-gpu/` is added or removed: `include_dir!` alone sees only edits of files it embedded;
//! - the built-in scripts and stylesheets as the output ships them: each `static/*.js` and
//!   `static/*.css` minified into `$OUT_DIR/shipped/` (`theme::shipped`), while `static/`
//!   keeps the readable source that authors read and `coursegen eject` writes.
use std::path::Path;
use std::process::Command;

fn main() {
    for dir in ["templates", "static", "init", "init-gpu"] {
        println!("cargo:rerun-if-changed={dir}");
    }
    println!("cargo:rerun-if-env-changed=COURSEGEN_COMMIT");
    minify_static(&Path::new(&std::env::var("OUT_DIR").unwrap()).join("shipped"));
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

/// Writes each built-in script and stylesheet minified into `out`: comments and whitespace
/// removed, every token kept (rustdoc's minifier, as rustdoc ships its own files; names are
/// not shortened, so a reader's stack trace names the source's functions). A file it refuses
/// fails the compile, naming the file.
fn minify_static(out: &Path) {
    // Afresh, so that a script removed from static/ is not shipped from an older build.
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out).unwrap();
    let mut names: Vec<_> = std::fs::read_dir("static")
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".js") || n.ends_with(".css"))
        .collect();
    names.sort();
    for name in names {
        let source = std::fs::read_to_string(Path::new("static").join(&name)).unwrap();
        let minified = if name.ends_with(".js") {
            minifier::js::minify(&source).map(|m| m.to_string())
        } else {
            minifier::css::minify(&source).map(|m| m.to_string())
        };
        let minified =
            minified.unwrap_or_else(|e| panic!("static/{name}: the minifier refused it: {e}"));
        std::fs::write(out.join(&name), minified).unwrap();
    }
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
