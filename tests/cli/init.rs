//! `coursegen init`, the built-in theme and `coursegen eject`: a new course builds with no
//! templates/ or static/ of its own; a site's file overrides the built-in one of the same
//! path and nothing else; an ejected theme builds what the built-in one builds.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::util::{
    Site, assert_code, assert_stderr_has, assert_stderr_lacks, copy_dir, published, repo,
};

/// A fixture site with no theme folders of its own (the built-in theme only).
fn bare() -> Site {
    let site = Site::new();
    for d in ["templates", "static"] {
        std::fs::remove_dir_all(site.root().join(d)).unwrap();
    }
    site
}

/// Every file under `dir`, by path relative to it.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// Builds `site` into a fresh folder outside it and returns what was written.
fn built(site: &Site, extra: &[&str]) -> BTreeMap<PathBuf, Vec<u8>> {
    let out = tempfile::tempdir().unwrap();
    let public = out.path().join("public");
    let mut args = vec!["build", "--out", public.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = site.run(&args);
    assert_code(&o, 0);
    tree(&public)
}

/// The paths whose bytes differ between two builds (or that only one has).
fn differing(a: &BTreeMap<PathBuf, Vec<u8>>, b: &BTreeMap<PathBuf, Vec<u8>>) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = a.keys().chain(b.keys()).cloned().collect();
    paths.sort();
    paths.dedup();
    // The provenance records every page's digest, so it changes with any page.
    paths.retain(|p| a.get(p) != b.get(p) && p != Path::new("coursegen-provenance.json"));
    paths
}

#[test]
fn init_makes_a_course_that_checks_and_builds_with_the_built_in_theme() {
    let site = bare();
    let course = site.root().join("course");
    let o = site.run(&["init", course.to_str().unwrap()]);
    assert_code(&o, 0);
    for f in [
        "coursegen.toml",
        "content/glossary/warp.md",
        "content/glossary.md",
        "kernels/warp_divergence.cu",
        "kernels/warp_divergence.yaml",
        ".github/workflows/site.yml",
        ".github/workflows/site-deploy.yml",
        ".github/CODEOWNERS",
        ".coursegen/allowed_signers",
        ".gitignore",
        "README.md",
    ] {
        assert!(course.join(f).is_file(), "{f} missing");
    }
    assert!(!course.join("templates").exists() && !course.join("static").exists());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(course.join("README.md"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o644);
    }
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_coursegen"))
            .env("XDG_CACHE_HOME", site.cache_home())
            .args(args)
            .arg("--root")
            .arg(&course)
            .output()
            .unwrap()
    };
    assert_code(&run(&["check"]), 0);
    assert_code(&run(&["check", "--drafts"]), 0);
    let out = site.root().join("out");
    assert_code(
        &run(&["build", "--drafts", "--out", out.to_str().unwrap()]),
        0,
    );
    let home = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(home.contains("<h1>My GPU course</h1>"), "{home}");
    assert!(
        home.contains("<meta name=\"description\" content=\"A course on GPU programming.\">"),
        "{home}"
    );
    assert!(home.contains("Start with the glossary"), "{home}");
    assert!(out.join("style.css").is_file() && out.join("glossary/warp/index.html").is_file());
    let llms = std::fs::read_to_string(out.join("llms.txt")).unwrap();
    assert!(
        llms.starts_with("# My GPU course\n\n> A course on GPU programming.\n"),
        "{llms}"
    );
}

/// A new course starts with the two-person rule in force: init writes the allowed-signers
/// file (no key yet, its format explained) and the CODEOWNERS lines that put it and the
/// measurement records under a maintainer's review. The course requires signatures: the
/// publish build refuses an entry whose byline merely types two names, file or no file.
#[test]
fn init_sets_up_the_allowed_signers_file_and_its_code_owners() {
    let site = bare();
    let course = site.root().join("course");
    assert_code(&site.run(&["init", course.to_str().unwrap()]), 0);
    let signers = std::fs::read_to_string(course.join(".coursegen/allowed_signers")).unwrap();
    assert!(
        signers
            .lines()
            .all(|l| l.trim().is_empty() || l.starts_with('#')),
        "{signers}"
    );
    assert!(
        signers.contains("\"ada@example.org,Ada Lovelace\"  ssh-ed25519"),
        "{signers}"
    );
    let owners = std::fs::read_to_string(course.join(".github/CODEOWNERS")).unwrap();
    for path in ["/.coursegen/allowed_signers", "/measurements/"] {
        assert!(
            owners
                .lines()
                .any(|l| l.split_whitespace().next() == Some(path)),
            "no CODEOWNERS line for {path}:\n{owners}"
        );
    }
    for f in [
        ".github/workflows/site.yml",
        ".github/workflows/site-deploy.yml",
    ] {
        assert!(course.join(f).is_file(), "{f} missing");
    }
    let out = site.root().join("out");
    let strict = ["build", "--strict", "--out", out.to_str().unwrap()];
    assert_code(&site.run_in(&course, &strict), 0);
    // An entry whose byline merely types two names: an init'd course requires signatures, so
    // `sign` without a key is refused up front (it checks keys against the file), the build
    // refuses the entry, naming it; deleting the keys file does not let it through (no
    // silent downgrade).
    std::fs::write(
        course.join("content/glossary/lane.md"),
        published("Lane", ""),
    )
    .unwrap();
    let sign = [
        "sign",
        "content/glossary/lane.md",
        "--reviewer",
        "Grace Hopper",
        "--author",
        "Ada Lovelace",
    ];
    let o = site.run_in(&course, &sign);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["--key"]);
    let o = site.run_in(&course, &strict);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["content/glossary/lane.md", "no author signature"]);
    std::fs::remove_file(course.join(".coursegen/allowed_signers")).unwrap();
    let o = site.run_in(&course, &strict);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &["`require_signatures = true`, but there is no allowed-signers file"],
    );
}

#[test]
fn init_refuses_a_folder_that_is_not_empty_and_writes_nothing() {
    let site = bare();
    let course = site.root().join("course");
    std::fs::create_dir_all(&course).unwrap();
    std::fs::write(course.join("notes.txt"), "mine").unwrap();
    let o = site.run(&["init", course.to_str().unwrap()]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["is not empty", "--force", "nothing was written"]);
    assert_eq!(tree(&course).len(), 1);
    // --force writes beside what is there.
    let o = site.run(&["init", course.to_str().unwrap(), "--force"]);
    assert_code(&o, 0);
    assert_eq!(
        std::fs::read_to_string(course.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(course.join("coursegen.toml").is_file());
}

/// `git init` (or a clone of an empty repository), then `coursegen init` in it: the folder
/// holds only `.git`, which counts as empty and is left as it was.
#[test]
fn init_starts_a_course_in_a_new_git_repository() {
    let site = bare();
    let course = site.root().join("course");
    std::fs::create_dir_all(course.join(".git")).unwrap();
    std::fs::write(course.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let o = site.run_in(&course, &["init"]);
    assert_code(&o, 0);
    assert!(course.join("coursegen.toml").is_file());
    assert_eq!(
        std::fs::read_to_string(course.join(".git/HEAD")).unwrap(),
        "ref: refs/heads/main\n"
    );
    assert_eq!(tree(&course.join(".git")).len(), 1);
}

#[cfg(unix)]
#[test]
fn init_writes_through_no_symbolic_link() {
    let site = bare();
    let elsewhere = tempfile::tempdir().unwrap();
    let link = site.root().join("course");
    std::os::unix::fs::symlink(elsewhere.path(), &link).unwrap();
    let o = site.run(&["init", link.to_str().unwrap()]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["symbolic link"]);
    // A link inside the folder, even with --force: refused before anything is written.
    let course = site.root().join("course2");
    std::fs::create_dir_all(&course).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), course.join("content")).unwrap();
    let o = site.run(&["init", course.to_str().unwrap(), "--force"]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["symbolic link"]);
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    assert!(!course.join("coursegen.toml").exists());
}

fn with_entries(site: &Site) -> &Site {
    site.write("content/glossary/warp.md", published("Warp", ""))
        .write("content/glossary/bank.md", published("Bank", ""))
}

#[test]
fn a_site_template_overrides_that_template_only() {
    let site = bare();
    with_entries(&site);
    let before = built(&site, &[]);
    site.write(
        "templates/404.html",
        "{% extends \"base.html\" %}{% block content %}<p>Lost here.</p>{% endblock content %}",
    );
    let after = built(&site, &[]);
    assert_eq!(differing(&before, &after), [PathBuf::from("404.html")]);
    assert!(String::from_utf8_lossy(&after[Path::new("404.html")]).contains("Lost here."));
    // A static file likewise.
    site.write("static/print.css", "body { color: black }\n");
    let css = built(&site, &[]);
    assert_eq!(differing(&after, &css), [PathBuf::from("print.css")]);
}

#[cfg(unix)]
#[test]
fn an_override_that_links_out_of_the_site_is_refused() {
    let site = bare();
    with_entries(&site);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.css"), "secret").unwrap();
    std::fs::create_dir_all(site.root().join("static")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.css"),
        site.root().join("static/style.css"),
    )
    .unwrap();
    let o = site.run(&["check"]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["static/style.css", "outside the site root"]);
    std::fs::remove_file(site.root().join("static/style.css")).unwrap();
    std::fs::create_dir_all(site.root().join("templates")).unwrap();
    std::fs::write(outside.path().join("x.html"), "<html><head></head></html>").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("x.html"),
        site.root().join("templates/404.html"),
    )
    .unwrap();
    let o = site.run(&["build", "--out", outside.path().join("p").to_str().unwrap()]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["templates/404.html"]);
}

#[test]
fn an_ejected_theme_builds_what_the_built_in_one_builds() {
    let site = bare();
    with_entries(&site);
    let builtin = built(&site, &[]);
    let o = site.run(&["eject"]);
    assert_code(&o, 0);
    assert!(site.exists("templates/base.html") && site.exists("static/style.css"));
    assert_eq!(
        tree(&site.root().join("templates")),
        tree(&repo().join("templates"))
    );
    assert_eq!(
        tree(&site.root().join("static")),
        tree(&repo().join("static"))
    );
    assert!(differing(&builtin, &built(&site, &[])).is_empty());
    // A second eject would replace the files: refused, unless --force.
    site.write("templates/404.html", "changed");
    let o = site.run(&["eject"]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["already exist"]);
    assert_eq!(site.read("templates/404.html"), "changed");
    assert_code(&site.run(&["eject", "--force"]), 0);
    assert_ne!(site.read("templates/404.html"), "changed");
}

/// The built-in scripts and stylesheets ship minified (issue 51): no comment or line break
/// left, at most two thirds (scripts) or three quarters (stylesheets) of the source's bytes,
/// every named function kept; `eject` (above) still writes the readable source, and a site's
/// edited copy ships as the site wrote it. That the minified files lay pages out as their
/// source does is a browser check (tests/browser/previews.py, `check_shipped_as_source`).
#[test]
fn the_built_in_scripts_and_stylesheets_ship_minified_and_an_edited_copy_as_written() {
    let site = bare();
    with_entries(&site);
    let out = built(&site, &[]);
    for name in ["style.css", "highlight.css", "print.css"] {
        let source = std::fs::read_to_string(repo().join("static").join(name)).unwrap();
        let shipped = std::str::from_utf8(&out[Path::new(name)]).unwrap();
        assert!(
            shipped.len() * 4 <= source.len() * 3,
            "{name}: {} bytes shipped of the source's {}",
            shipped.len(),
            source.len()
        );
        assert!(
            source.contains("/*") && !shipped.contains("/*"),
            "{name} ships comments"
        );
        assert!(!shipped.contains('\n'), "{name} ships its line breaks");
    }
    for name in ["site.js", "copy.js"] {
        let source = std::fs::read_to_string(repo().join("static").join(name)).unwrap();
        let shipped = std::str::from_utf8(&out[Path::new(name)]).unwrap();
        assert!(
            shipped.len() * 3 <= source.len() * 2,
            "{name}: {} bytes shipped of the source's {}",
            shipped.len(),
            source.len()
        );
        assert!(!shipped.contains('\n'), "{name} ships its line breaks");
        let comment = source.lines().find_map(|l| l.trim().strip_prefix("// "));
        assert!(
            !shipped.contains(comment.unwrap()),
            "{name} ships {comment:?}"
        );
        let names = source
            .split("function ")
            .skip(1)
            .filter_map(|rest| rest.split_once('(').map(|(n, _)| n))
            .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_'));
        for f in names {
            let call = format!("function {f}(");
            assert!(shipped.contains(&call), "{name} lost `{call}`");
        }
    }
    let source = std::fs::read_to_string(repo().join("static/site.js")).unwrap();
    let edited = format!("{source}\n// The course's own line.\n");
    site.write("static/site.js", &edited);
    assert_eq!(built(&site, &[])[Path::new("site.js")], edited.as_bytes());
}

/// This repository's course, built with its own templates/ and static/ and with the
/// built-in theme alone: the same bytes.
#[test]
fn this_course_builds_the_same_with_the_built_in_theme() {
    let own = Site::new();
    let bare = bare();
    for site in [&own, &bare] {
        std::fs::remove_dir_all(site.root().join("content")).unwrap();
        for d in ["content", "kernels", "measurements"] {
            copy_dir(&repo().join(d), &site.root().join(d));
        }
        std::fs::copy(
            repo().join("coursegen.toml"),
            site.root().join("coursegen.toml"),
        )
        .unwrap();
    }
    let a = built(&own, &["--drafts"]);
    let b = built(&bare, &["--drafts"]);
    assert!(a.contains_key(Path::new("index.html")));
    assert!(differing(&a, &b).is_empty(), "{:?}", differing(&a, &b));
}

/// What `coursegen init --gpu` adds: the measure workflow and the Slurm script.
const GPU_FILES: [&str; 2] = [".github/workflows/measure.yml", ".coursegen/measure.sbatch"];

/// `init --gpu` in a new folder: the whole course and its measure CI, which builds as the
/// course does.
#[test]
fn init_gpu_writes_a_course_with_its_measure_ci() {
    let site = bare();
    let course = site.root().join("course");
    let o = site.run(&["init", "--gpu", course.to_str().unwrap()]);
    assert_code(&o, 0);
    for f in GPU_FILES
        .iter()
        .chain(&["coursegen.toml", ".github/workflows/site.yml"])
    {
        assert!(course.join(f).is_file(), "{f} missing");
    }
    let workflow = std::fs::read_to_string(course.join(GPU_FILES[0])).unwrap();
    assert!(
        workflow.contains("uses: coursegen/coursegen@v1"),
        "{workflow}"
    );
    assert!(workflow.contains("self-hosted"), "{workflow}");
    // Without --gpu: no measure CI.
    let plain = site.root().join("plain");
    assert_code(&site.run(&["init", plain.to_str().unwrap()]), 0);
    for f in GPU_FILES {
        assert!(!plain.join(f).exists(), "plain init wrote {f}");
    }
    let out = site.root().join("out");
    let o = site.run_in(
        &course,
        &["build", "--drafts", "--out", out.to_str().unwrap()],
    );
    assert_code(&o, 0);
}

/// `init --gpu` in a course (a folder with coursegen.toml) adds the GPU files alone, leaving
/// every file there as it was; a second time it refuses, writing nothing, unless --force.
#[test]
fn init_gpu_in_an_existing_course_adds_only_the_gpu_files_and_refuses_to_overwrite() {
    let site = bare();
    let course = site.root().join("course");
    assert_code(&site.run(&["init", course.to_str().unwrap()]), 0);
    std::fs::write(course.join("coursegen.toml"), "title = \"Mine\"\n").unwrap();
    std::fs::remove_file(course.join("README.md")).unwrap();
    let before = tree(&course);
    let o = site.run_in(&course, &["init", "--gpu"]);
    assert_code(&o, 0);
    let after = tree(&course);
    let added: Vec<PathBuf> = after
        .keys()
        .filter(|p| !before.contains_key(*p))
        .cloned()
        .collect();
    let mut expected: Vec<PathBuf> = GPU_FILES.iter().map(PathBuf::from).collect();
    expected.sort();
    assert_eq!(added, expected, "init --gpu added {added:?}");
    assert!(
        before.iter().all(|(p, b)| after.get(p) == Some(b)),
        "init --gpu changed a file"
    );
    assert!(
        !course.join("README.md").exists(),
        "init --gpu wrote the course again"
    );

    // Again: both files are there; refused, naming them, nothing written.
    std::fs::write(course.join(GPU_FILES[0]), "mine").unwrap();
    let o = site.run_in(&course, &["init", "--gpu"]);
    assert_code(&o, 2);
    assert_stderr_has(
        &o,
        &[
            "measure.yml",
            "measure.sbatch",
            "--force",
            "nothing was written",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(course.join(GPU_FILES[0])).unwrap(),
        "mine"
    );
    // One there and one missing: still refused before the missing one is written.
    std::fs::remove_file(course.join(GPU_FILES[1])).unwrap();
    let o = site.run_in(&course, &["init", "--gpu"]);
    assert_code(&o, 2);
    assert!(
        !course.join(GPU_FILES[1]).exists(),
        "written before the refusal"
    );
    // --force replaces them, and still writes nothing else.
    let o = site.run_in(&course, &["init", "--gpu", "--force"]);
    assert_code(&o, 0);
    assert_ne!(
        std::fs::read_to_string(course.join(GPU_FILES[0])).unwrap(),
        "mine"
    );
    assert!(course.join(GPU_FILES[1]).is_file());
    assert!(!course.join("README.md").exists());
    assert_eq!(
        std::fs::read_to_string(course.join("coursegen.toml")).unwrap(),
        "title = \"Mine\"\n"
    );
}

/// The action's `version:` in every workflow init writes is this coursegen's release (the
/// tag its release workflow publishes), never `latest`: a new release cannot change a
/// course's CI unasked (issue 52, item 5).
#[test]
fn init_pins_every_workflow_to_its_own_release() {
    let site = bare();
    let course = site.root().join("course");
    assert_code(&site.run(&["init", "--gpu", course.to_str().unwrap()]), 0);
    let pinned = concat!("version: v", env!("CARGO_PKG_VERSION"));
    for f in [
        ".github/workflows/site.yml",
        ".github/workflows/site-deploy.yml",
        ".github/workflows/measure.yml",
    ] {
        let text = std::fs::read_to_string(course.join(f)).unwrap();
        let versions: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("version:"))
            .collect();
        let uses = text.matches("uses: coursegen/coursegen@v1").count();
        assert!(
            uses > 0 && versions.len() == uses && versions.iter().all(|v| *v == pinned),
            "{f}: {uses} uses of the action, versions {versions:?} (want {pinned})"
        );
    }
}

/// A glossary entry of an init'd course, complete but for its byline: `status` as given,
/// its `category` line (or none) and `extra` front matter.
fn glossary_entry(term: &str, category: &str, status: &str, extra: &str) -> String {
    format!(
        "---\ntitle: What is a {term}?\nterm: {term}\n{category}cc: \"9.0\"\n\
         summary: One sentence about the {term}.\n{extra}sources:\n  - title: A guide\n    \
         url: https://example.org/guide/\nstatus: {status}\nbyline:\n  written_by: Ada Lovelace\n  \
         reviewed_by: pending\n  written_on: pending\n  last_checked_on: pending\n---\n\nBody.\n"
    )
}

/// Issue 52: an init'd course whose glossary lives in `content/terms/` (`[glossary] folder
/// = "terms"`) has a glossary as `content/glossary/` is one: `new` writes a glossary entry
/// there, `related:` links to its entries, the sidebar groups them by category, and a
/// published entry needs the required fields.
#[test]
fn a_glossary_in_the_folder_the_config_names_is_the_glossary() {
    let site = Site::new();
    let course = site.root().join("course");
    assert_code(&site.run(&["init", course.to_str().unwrap()]), 0);
    let move_to = |from: &str, to: &str| {
        std::fs::rename(course.join(from), course.join(to)).unwrap();
    };
    move_to("content/glossary", "content/terms");
    move_to("content/glossary.md", "content/terms.md");
    let write = |rel: &str, text: &str| std::fs::write(course.join(rel), text).unwrap();
    let read = |rel: &str| std::fs::read_to_string(course.join(rel)).unwrap();
    let config = read("coursegen.toml");
    write(
        "coursegen.toml",
        &format!("{config}[glossary]\nfolder = \"terms\"\n"),
    );
    assert_code(&site.run_in(&course, &["new", "terms", "tide"]), 0);
    let tide = read("content/terms/tide.md");
    assert!(
        tide.contains("term: tide") && tide.contains("category:"),
        "`new terms tide` wrote no glossary entry:\n{tide}"
    );
    let bank = glossary_entry(
        "bank",
        "category: Memory\n",
        "draft",
        "related: [warp, tide]\n",
    );
    write("content/terms/bank.md", &bank);
    let built = site.run_in(&course, &["build", "--drafts"]);
    assert_code(&built, 0);
    assert_stderr_lacks(&built, &["error", "not a glossary entry"]);
    let page = read("public/terms/bank/index.html");
    let related = &page[page
        .find("id=\"related-terms\"")
        .expect("a related section")..];
    let related = &related[..related.find("</section>").unwrap()];
    for link in ["<a href=\"/terms/warp/\">", "<a href=\"/terms/tide/\">"] {
        assert!(related.contains(link), "{link} missing in {related}");
    }
    assert!(
        page.contains("<details class=\"nav-group\"") && page.contains("<summary>Memory <span"),
        "the sidebar does not group the terms by category:\n{page}"
    );
    write(
        "content/terms/lone.md",
        &glossary_entry("lone", "", "published", ""),
    );
    let checked = site.run_in(&course, &["check"]);
    assert_code(&checked, 1);
    assert_stderr_has(
        &checked,
        &[
            "content/terms/lone.md",
            "field `category`: a published entry needs this field",
        ],
    );
}
