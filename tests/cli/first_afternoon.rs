//! The first afternoon of a new course team (issue 52): a course made by `coursegen init`,
//! each person's keys in a home of their own, commands run through `sh` as a person types
//! them. No private key ends up in the course, every command a help line names runs as
//! written, and `sign --publish` says everything the publish build would refuse.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::util::{Site, TODAY_EPOCH, assert_code, assert_stderr_has, repo, stderr, stdout};

const WARP: &str = "content/glossary/warp.md";

/// A course `init` wrote, in a git repository, and a home folder per person.
struct Course {
    site: Site,
    dir: PathBuf,
    homes: tempfile::TempDir,
}

impl Course {
    fn new() -> Course {
        let site = Site::new();
        let dir = site.root().join("course");
        assert_code(&site.run(&["init", dir.to_str().unwrap()]), 0);
        let course = Course {
            site,
            dir,
            homes: tempfile::tempdir().unwrap(),
        };
        course.git(&["init", "-q"]);
        course
    }

    /// The home folder of `person` (made on first use, with an empty `.ssh/`).
    fn home(&self, person: &str) -> PathBuf {
        let home = self.homes.path().join(person);
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        home
    }

    /// `coursegen ARGS` in the course, as `person` (their home).
    fn run(&self, person: &str, args: &[&str]) -> Output {
        (self.site.command_in(&self.dir, args))
            .env("HOME", self.home(person))
            .current_dir(&self.dir)
            .output()
            .unwrap()
    }

    /// `line` run by `sh` in the course as `person` would type it, `coursegen` on the PATH
    /// (with today and the cache set as for every run).
    fn shell(&self, person: &str, line: &str) -> Output {
        let bin = Path::new(env!("CARGO_BIN_EXE_coursegen")).parent().unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Command::new("sh")
            .args(["-c", line])
            .current_dir(&self.dir)
            .env("HOME", self.home(person))
            .env("PATH", path)
            .env("SOURCE_DATE_EPOCH", TODAY_EPOCH)
            .env("XDG_CACHE_HOME", self.site.cache_home())
            .env_remove("GITHUB_ACTIONS")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("NO_COLOR")
            .output()
            .unwrap()
    }

    /// An unencrypted Ed25519 key `name` in `dir` (`name` and `name.pub`).
    fn keygen(&self, dir: &Path, name: &str) -> PathBuf {
        let key = dir.join(name);
        let ok = Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
            .arg(&key)
            .status()
            .expect("ssh-keygen runs");
        assert!(ok.success(), "ssh-keygen {name}");
        key
    }

    fn git(&self, args: &[&str]) -> String {
        let o = Command::new("git")
            .arg("-C")
            .arg(&self.dir)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git runs");
        assert!(o.status.success(), "git {args:?}: {}", stderr(&o));
        String::from_utf8(o.stdout).unwrap()
    }

    /// The files `git status` offers to commit (untracked ones one by one).
    fn git_status_files(&self) -> Vec<String> {
        self.git(&["status", "--porcelain", "--untracked-files=all"])
            .lines()
            .map(|l| l[3..].trim_matches('"').to_string())
            .collect()
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.join(rel)).unwrap()
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Ada (author) and Grace (reviewer), each with `~/.ssh/id_ed25519` in their own home,
    /// listed in the allowed-signers file.
    fn with_ada_and_grace(self) -> Course {
        for (person, name) in [("ada", "Ada Lovelace"), ("grace", "Grace Hopper")] {
            self.keygen(&self.home(person).join(".ssh"), "id_ed25519");
            let o = self.shell(
                person,
                &format!("coursegen signers add \"{name}\" --key ~/.ssh/id_ed25519.pub"),
            );
            assert_code(&o, 0);
        }
        self
    }
}

/// A glossary entry complete but for its byline, with `extra` front matter and `body`.
fn entry(status: &str, extra: &str, body: &str) -> String {
    format!(
        "---\ntitle: What is a warp?\nterm: warp\ncategory: Execution\ncc: \"9.0\"\n\
         summary: Thirty-two threads that run each instruction together.\n{extra}\
         sources:\n  - title: CUDA C++ Programming Guide\n    url: https://docs.nvidia.com/cuda/cuda-c-programming-guide/\n\
         status: {status}\nbyline:\n  written_by: Ada Lovelace\n  reviewed_by: pending\n\
         written_on: pending\n  last_checked_on: pending\n---\n\n{body}\n"
    )
    .replace("\nwritten_on", "\n  written_on")
}

const BODY: &str = "A warp is the group of 32 threads that an SM schedules as one.";

/// The private key files among `files` (paths relative to the course).
fn private_keys(course: &Course, files: &[String]) -> Vec<String> {
    files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(course.dir.join(f))
                .is_ok_and(|t| t.trim_start().starts_with("-----BEGIN"))
        })
        .cloned()
        .collect()
}

/// The `.gitignore` `init` writes leaves out private keys by their usual names, and keeps
/// their `.pub` halves and the allowed-signers file: before, one `git add -A` committed them.
#[test]
fn the_init_gitignore_keeps_private_keys_out_and_public_keys_in() {
    let course = Course::new();
    for name in ["id_ed25519", "ada_ed25519", "grace_ed25519", "id_work"] {
        course.keygen(&course.dir, name);
    }
    std::fs::create_dir_all(course.dir.join("keys")).unwrap();
    course.keygen(&course.dir.join("keys"), "deploy_rsa");
    let private = std::fs::read_to_string(course.dir.join("id_work")).unwrap();
    course.write("server.pem", &private);
    course.write("keys/old.key", &private);
    let files = course.git_status_files();
    assert_eq!(
        private_keys(&course, &files),
        Vec::<String>::new(),
        "{files:?}"
    );
    for kept in [
        "id_ed25519.pub",
        "ada_ed25519.pub",
        "keys/deploy_rsa.pub",
        ".coursegen/allowed_signers",
        ".gitignore",
        WARP,
    ] {
        assert!(
            files.iter().any(|f| f == kept),
            "{kept} not offered: {files:?}"
        );
    }
}

/// The shell lines of `page` (in ```sh blocks) that start with one of `starts`.
fn shell_lines(page: &str, starts: &[&str]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_sh = false;
    for line in page.lines() {
        match line.trim() {
            "```sh" => in_sh = true,
            "```" => in_sh = false,
            l if in_sh && starts.iter().any(|s| l.starts_with(s)) => {
                // Comments after the command are the page's, not the shell's business.
                lines.push(l.split("  #").next().unwrap().trim().to_string());
            }
            _ => {}
        }
    }
    lines
}

/// The first YAML block of `page` with its body paragraph: the entry the page writes.
fn page_entry(page: &str) -> String {
    let start = page.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let end = start + page[start..].find("```\n").unwrap();
    page[start..end].to_string()
}

/// Your first course, followed literally (the keys made as the page says, each person in
/// their own home; no passphrase, so that nothing asks): every command succeeds, the entry
/// is published, and nothing `git status` offers to commit is a private key.
#[test]
fn following_first_course_literally_leaves_no_private_key_in_git_status() {
    let page =
        std::fs::read_to_string(repo().join("guide/src/getting-started/first-course.md")).unwrap();
    let course = Course::new();
    course.write(WARP, &page_entry(&page));
    for line in shell_lines(
        &page,
        &["mkdir", "ssh-keygen", "coursegen signers", "coursegen sign"],
    ) {
        // One home holds both keys, as the page's one machine does.
        let line = match line.starts_with("ssh-keygen") {
            true => format!("{line} -N ''"),
            false => line,
        };
        let o = course.shell("ada", &line);
        assert!(o.status.success(), "{line}: {}{}", stdout(&o), stderr(&o));
    }
    assert!(course.read(WARP).contains("status: published"));
    assert_code(&course.run("ada", &["build", "--strict"]), 0);
    let files = course.git_status_files();
    assert_eq!(
        private_keys(&course, &files),
        Vec::<String>::new(),
        "{files:?}"
    );
    assert!(course.home("ada").join(".ssh/ada_ed25519").is_file());
}

/// A private key inside the course — given to `signers add` or `sign`, beside the `.pub`
/// given, or reached through a link from `~/.ssh/` — is refused, saying to keep it in
/// `~/.ssh/`; one git tracks is refused as leaked. Nothing is written. Before, all were used.
#[test]
fn a_private_key_inside_the_course_is_refused_with_where_it_belongs() {
    let course = Course::new().with_ada_and_grace();
    course.write(WARP, &entry("in-review", "", BODY));
    let signers = course.read(".coursegen/allowed_signers");
    let entry_before = course.read(WARP);
    course.keygen(&course.dir, "mallory_ed25519");
    for key in ["mallory_ed25519.pub", "mallory_ed25519"] {
        let o = course.run("ada", &["signers", "add", "Mallory Smith", "--key", key]);
        assert_code(&o, 2);
        assert_stderr_has(
            &o,
            &["mallory_ed25519", "inside the course folder", "~/.ssh/"],
        );
    }
    assert_eq!(course.read(".coursegen/allowed_signers"), signers);
    let sign = |key: &str| {
        course.shell(
            "grace",
            &format!("coursegen sign {WARP} --reviewer 'Grace Hopper' --key {key}"),
        )
    };
    let o = sign("mallory_ed25519");
    assert_code(&o, 2);
    assert_stderr_has(
        &o,
        &["inside the course folder", "--key ~/.ssh/mallory_ed25519"],
    );
    // A link in ~/.ssh/ that leads into the course is judged by where it leads.
    std::os::unix::fs::symlink(
        course.dir.join("mallory_ed25519"),
        course.home("grace").join(".ssh/linked"),
    )
    .unwrap();
    let o = sign("~/.ssh/linked");
    assert_code(&o, 2);
    assert_stderr_has(&o, &["inside the course folder"]);
    // Tracked by git: leaked, whatever the .gitignore says.
    course.git(&["add", "-f", "mallory_ed25519"]);
    let o = sign("mallory_ed25519");
    assert_code(&o, 2);
    assert_stderr_has(&o, &["git tracks", "leaked", "git rm --cached"]);
    assert_eq!(course.read(WARP), entry_before);
    // The same person's key in ~/.ssh/ signs.
    assert_code(&sign("~/.ssh/id_ed25519"), 0);
}

/// The commands between backticks in the help lines (and notes) of `text` that start
/// with `coursegen `, in order, each once.
fn suggested_commands(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        if !(line.starts_with("help:") || line.starts_with("note:")) {
            continue;
        }
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 1 && part.starts_with("coursegen ") && !out.iter().any(|c| c == part) {
                out.push(part.to_string());
            }
        }
    }
    out
}

/// Every command a help line of `check` (or a note of `sign`) gives, run as written
/// through the shell — the reviewer's by the reviewer, the author's by the author, a name
/// the tool cannot know (`NAME`) filled in — succeeds, until the course checks clean.
/// Before, the reviewer's `sign … --role reviewer --key …` exited 2 ("name the reviewer"),
/// the pending reviewer's help said to edit `reviewed_by` by hand, which voids the pin,
/// and the status note's `sign … --publish` lacked the `--key` the course requires.
#[test]
fn every_command_a_help_line_names_runs_as_written() {
    let course = Course::new().with_ada_and_grace();
    let run_suggested = |text: &str| {
        let commands = suggested_commands(text);
        assert!(!commands.is_empty(), "no command suggested in:\n{text}");
        for command in commands {
            let person = if command.contains("--role author") {
                "ada"
            } else {
                "grace"
            };
            let line = command
                .replace("\"AUTHOR NAME\"", "\"Ada Lovelace\"")
                .replace("\"NAME\"", "\"Grace Hopper\"");
            let o = course.shell(person, &line);
            assert!(
                o.status.success(),
                "the suggested `{command}` failed:\n{}{}\nafter:\n{text}",
                stdout(&o),
                stderr(&o)
            );
        }
    };
    // A reviewer signs a finished entry without --publish: the note says how to publish.
    course.write(WARP, &entry("in-review", "", BODY));
    let o = course.shell(
        "grace",
        &format!("coursegen sign {WARP} --reviewer 'Grace Hopper' --key ~/.ssh/id_ed25519"),
    );
    assert_code(&o, 0);
    run_suggested(&stdout(&o));
    assert!(course.read(WARP).contains("status: published"));
    // An entry set published by hand, nobody signed: check's help lines, round by round.
    course.write(
        "content/glossary/lane.md",
        &entry("published", "", BODY).replace("warp", "lane"),
    );
    let mut rounds = 0;
    loop {
        let o = course.run("ada", &["check", "--no-kernels", "--strict"]);
        if o.status.success() {
            break;
        }
        rounds += 1;
        assert!(
            rounds <= 3,
            "still failing after the suggested commands:\n{}",
            stderr(&o)
        );
        run_suggested(&stderr(&o));
    }
    assert_code(&course.run("ada", &["build", "--strict"]), 0);
}

/// `sign --publish` checks the entry as signed with the publish build's own check stage:
/// a link to a draft and a `measure:` whose kernel has no record are both reported, at
/// their lines, and the file is left as it was (exit 1). `--allow-problems` signs anyway,
/// with the problems as warnings. Before, it signed and exited 0, and `build --strict`
/// failed afterwards.
#[test]
fn sign_publish_reports_every_problem_the_publish_build_would_have() {
    let course = Course::new().with_ada_and_grace();
    course.write(
        "content/glossary/lane.md",
        "---\ntitle: What is a lane?\nstatus: draft\n---\nDraft body.\n",
    );
    let body = format!("{BODY} Each of its threads is a [lane](/glossary/lane/).");
    course.write(
        WARP,
        &entry("in-review", "measure: warp_divergence\n", &body),
    );
    let before = course.read(WARP);
    let sign = format!(
        "coursegen sign {WARP} --reviewer 'Grace Hopper' --publish --key ~/.ssh/id_ed25519"
    );
    let o = course.shell("grace", &sign);
    assert_code(&o, 1);
    let measure_line = before
        .lines()
        .position(|l| l.starts_with("measure:"))
        .unwrap()
        + 1;
    let link_line = before.lines().position(|l| l.contains("[lane]")).unwrap() + 1;
    assert_stderr_has(
        &o,
        &[
            &format!("{WARP}:{measure_line}: field `measure`"),
            "no measurement record",
            &format!("{WARP}:{link_line}: link to `/glossary/lane/` points at a draft"),
            "--publish refused",
            "--allow-problems",
        ],
    );
    assert_eq!(course.read(WARP), before, "the file was changed");
    let o = course.shell("grace", &format!("{sign} --allow-problems"));
    assert_code(&o, 0);
    // At its line in the file as signed (the byline grew).
    let signed = course.read(WARP);
    let link_line = signed.lines().position(|l| l.contains("[lane]")).unwrap() + 1;
    assert_stderr_has(
        &o,
        &[
            &format!("warning: {WARP}:{link_line}: link to `/glossary/lane/`"),
            "signed with --allow-problems",
        ],
    );
    assert!(course.read(WARP).contains("status: published"));
    // An entry that is fine publishes as before, with no warning.
    course.write(WARP, &entry("in-review", "", BODY));
    let o = course.shell("grace", &sign);
    assert_code(&o, 0);
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
}

/// What `init` writes points at what exists: the config's comment at the guide's page of
/// keys (it named a README section that moved), and the example entry's comment lists
/// every diagram preset (it listed two of four), as `coursegen new` does.
#[test]
fn init_files_point_at_the_config_reference_and_list_every_preset() {
    let course = Course::new();
    let config = course.read("coursegen.toml");
    assert!(!config.contains("README of coursegen"), "{config}");
    assert!(config.contains("guide/src/reference/config.md"), "{config}");
    assert!(repo().join("guide/src/reference/config.md").is_file());
    assert_code(&course.run("ada", &["new", "glossary", "lane"]), 0);
    for file in [WARP, "content/glossary/lane.md"] {
        let text = course.read(file);
        let presets = text
            .lines()
            .find(|l| l.contains("preset:"))
            .unwrap_or_else(|| panic!("{file} names no preset"));
        for preset in ["bank-map", "lane-banks", "lane-sectors", "lane-paths"] {
            assert!(presets.contains(preset), "{file}: {presets}");
        }
    }
}

/// `--help` speaks to any course: a course on ocean models is not told it is a GPU
/// programming course.
#[test]
fn help_does_not_call_every_course_a_gpu_course() {
    let o = Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .arg("--help")
        .output()
        .unwrap();
    assert_code(&o, 0);
    let text = stdout(&o);
    assert!(text.contains("coursegen"), "{text}");
    assert!(!text.contains("GPU programming course"), "{text}");
}

/// Issue 52, item 3: errors that say all and point home. Three unknown fields of an entry
/// and two of a kernel manifest are each said once, in one run, at their own file and line
/// (the manifest's, not the entry that measures it), each with the field it meant; a tab
/// in front matter is called a tab at its line.
#[test]
fn every_unknown_field_of_an_entry_and_a_manifest_in_one_run_at_its_own_line() {
    let c = Course::new();
    let warp = c.dir.join(WARP);
    let text = std::fs::read_to_string(&warp).unwrap();
    let text = text
        .replacen("title:", "titel: x\nsumary: y\ntitle:", 1)
        .replacen("# measure: warp_divergence", "measure: warp_divergence", 1);
    std::fs::write(&warp, text.replacen("\n---\n", "\nzzzzzz: z\n---\n", 1)).unwrap();
    let manifest = c.dir.join("kernels/warp_divergence.yaml");
    let yaml = std::fs::read_to_string(&manifest).unwrap();
    let yaml = yaml
        .replacen("\nkernel:", "\nkernelx:", 1)
        .replacen("\nmodel:", "\nmodelx:", 1);
    std::fs::write(&manifest, yaml).unwrap();
    std::fs::write(
        c.dir.join("content/glossary/tabby.md"),
        "---\ntitle: Tab\n\tterm: x\n---\nBody.\n",
    )
    .unwrap();
    let o = c.run("ada", &["check"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    let line = |file: &str, key: &str| {
        let text = std::fs::read_to_string(c.dir.join(file)).unwrap();
        1 + text
            .lines()
            .position(|l| l.starts_with(&format!("{key}:")))
            .unwrap()
    };
    for (file, key, meant) in [
        (WARP, "titel", "title"),
        (WARP, "sumary", "summary"),
        ("kernels/warp_divergence.yaml", "kernelx", "kernel"),
        ("kernels/warp_divergence.yaml", "modelx", "model"),
    ] {
        let said = format!(
            "{file}:{}: field `{key}`: unknown field `{key}`",
            line(file, key)
        );
        assert_eq!(err.matches(&said).count(), 1, "{said}\n{err}");
        assert!(err.contains(&format!("did you mean `{meant}`?")), "{err}");
    }
    let zzz = format!("{WARP}:{}: field `zzzzzz`", line(WARP, "zzzzzz"));
    assert_eq!(err.matches(&zzz).count(), 1, "{err}");
    assert_stderr_has(
        &o,
        &["content/glossary/tabby.md:3: a tab indents this line: YAML indents with spaces only"],
    );
}

/// Issue 52, item 3: a broken link that names a term by another of its words (a plural, an
/// alias, another case) is told where the term's page is.
#[test]
fn a_broken_link_to_a_term_s_plural_or_alias_names_the_term_s_page() {
    let c = Course::new();
    let warp = c.dir.join(WARP);
    let text = std::fs::read_to_string(&warp).unwrap();
    let text = text.replacen("\n---\n", "\naliases: [thread group]\n---\n", 1);
    std::fs::write(
        &warp,
        format!("{text}\nSee [warps](/glossary/warps/), [a group](/glossary/thread-group/).\n"),
    )
    .unwrap();
    let o = c.run("ada", &["check"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    assert_eq!(
        err.matches("help: `warp` is at `/glossary/warp/`: link there")
            .count(),
        2,
        "{err}"
    );
}

/// Issue 52, item 3: a `related:` that names an entry by one of its words (its term, an
/// alias, a plural) is told the entry's slug.
#[test]
fn a_related_entry_named_by_a_word_of_it_is_told_its_slug() {
    let c = Course::new();
    let warp = c.dir.join(WARP);
    let text = std::fs::read_to_string(&warp).unwrap();
    std::fs::write(
        &warp,
        text.replacen("\n---\n", "\naliases: [thread group]\n---\n", 1),
    )
    .unwrap();
    std::fs::write(
        c.dir.join("content/glossary/lane.md"),
        "---\ntitle: What is a lane?\nterm: lane\nrelated: [warps, thread-groups]\n---\nA lane.\n",
    )
    .unwrap();
    let o = c.run("ada", &["check"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    assert_eq!(
        err.matches("is a word of the entry `warp`: write its slug, `warp`")
            .count(),
        2,
        "{err}"
    );
}
