//! Signed reviews (issue 27): SSH signatures by the author and the reviewer, checked against
//! the allowed-signers file; interoperable with `ssh-keygen -Y sign` / `-Y verify` both ways.
//! Keys are made at test time with ssh-keygen in a temp dir.
use std::path::PathBuf;
use std::process::Command;

use crate::util::*;

const WARP: &str = "content/glossary/warp.md";
const BANK: &str = "content/glossary/bank.md";

/// The usual allowed-signers file: Ada and Grace, one key each.
fn team_signers(keys: &Keys) -> String {
    format!(
        "# the team\n\"ada@example.org,Ada Lovelace\" {}\n\"grace@example.org,Grace Hopper\" {}\n",
        keys.public_line("ada"),
        keys.public_line("grace")
    )
}

fn message(role: &str, hash: &str) -> String {
    format!("coursegen review v2\nrole: {role}\nhash: {hash}\n")
}

fn field(site: &Site, file: &str, key: &str) -> String {
    let text = site.read(file);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{key}:")))
        .unwrap_or_else(|| panic!("no {key} in {file}"));
    line.split_once(':')
        .unwrap()
        .1
        .trim()
        .trim_matches('"')
        .to_string()
}

/// Sets (or adds, at the end of the byline) `key: "value"` in the byline of `file`.
fn set_field(site: &Site, file: &str, key: &str, value: &str) {
    let text = site.read(file);
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with(&format!("{key}:")))
        .map(String::from)
        .collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("  reviewed_hash:"))
        .unwrap()
        + 1;
    lines.insert(at, format!("  {key}: \"{value}\""));
    site.write(file, lines.join("\n") + "\n");
}

/// A site that requires signatures, with `file` signed by Grace (reviewer) and Ada (author).
fn signed_site(keys: &Keys) -> Site {
    let site = course_requiring_signatures(&team_signers(keys));
    for (file, title) in [(WARP, "Warp"), (BANK, "Bank")] {
        site.write(file, published(title, ""));
        sign_both(&site, keys, file);
    }
    site
}

fn sign_both(site: &Site, keys: &Keys, file: &str) {
    sign_with_keys(site, keys, file, ("Grace Hopper", "grace"), "ada");
}

/// Ada signs `file` as its author, with her Ed25519 key.
fn sign_as_author(site: &Site, keys: &Keys, file: &str) {
    sign_as_author_with(site, keys, file, "ada");
}

/// `reviewer` (a name and the key of that name in `keys`) signs `file` as its reviewer,
/// then the key `author` signs it as its author.
fn sign_with_keys(site: &Site, keys: &Keys, file: &str, reviewer: (&str, &str), author: &str) {
    let key = keys.arg(reviewer.1);
    let o = site.run(&["sign", file, "--reviewer", reviewer.0, "--key", &key]);
    assert_code(&o, 0);
    sign_as_author_with(site, keys, file, author);
}

fn sign_as_author_with(site: &Site, keys: &Keys, file: &str, author: &str) {
    let o = site.run(&["sign", file, "--role", "author", "--key", &keys.arg(author)]);
    assert_code(&o, 0);
}

#[test]
fn sign_publish_edit_refused_sign_again_published_with_keys() {
    let keys = team();
    let site = signed_site(&keys);
    assert_code(&site.run(&["build"]), 0);
    assert!(
        site.read("public/glossary/warp/index.html")
            .contains("Body of Warp.")
    );

    site.write(
        WARP,
        site.read(WARP).replace("Body of Warp.", "Body of Warps."),
    );
    let o = site.run(&["build"]);
    let line = line_of(&site, WARP, "author_signature");
    assert_fails_at(
        &o,
        &format!("content/glossary/warp.md:{line}"),
        "field `byline.author_signature`: author signature refused: signature over another hash",
    );
    // The site from before the edit stays as it was.
    assert!(
        site.read("public/glossary/warp/index.html")
            .contains("Body of Warp.")
    );

    sign_both(&site, &keys, WARP);
    assert_code(&site.run(&["build"]), 0);
    assert!(
        site.read("public/glossary/warp/index.html")
            .contains("Body of Warps.")
    );
    let status = stdout(&site.run(&["status"]));
    assert!(status.contains("author: valid (Ada Lovelace)"), "{status}");
    assert!(
        status.contains("reviewer: valid (Grace Hopper)"),
        "{status}"
    );
}

#[test]
fn ssh_keygen_signatures_verify_in_coursegen_and_back() {
    let keys = team();
    let site = signed_site(&keys);
    let hash = field(&site, WARP, "reviewed_hash");
    // ssh-keygen's signature, written by hand into the author's field, verifies in coursegen.
    let sig = ssh_keygen_sign(
        &keys.path("ada"),
        "coursegen-review",
        &message("author", &hash),
    );
    set_field(&site, WARP, "author_signature", &sig);
    assert_code(&site.run(&["build", "--strict"]), 0);

    // coursegen's signature (Grace's P-256 key, signed in coursegen) verifies in ssh-keygen,
    // against the same allowed-signers file.
    let theirs = field(&site, WARP, "reviewer_signature");
    let dir = tempfile::tempdir().unwrap();
    let mut armored = String::from("-----BEGIN SSH SIGNATURE-----\n");
    for chunk in theirs.as_bytes().chunks(70) {
        armored.push_str(std::str::from_utf8(chunk).unwrap());
        armored.push('\n');
    }
    armored.push_str("-----END SSH SIGNATURE-----\n");
    std::fs::write(dir.path().join("sig"), armored).unwrap();
    let out = ssh_keygen_verify(
        &site.root().join(SIGNERS),
        "grace@example.org",
        &dir.path().join("sig"),
        &message("reviewer", &hash),
    );
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).contains("Good \"coursegen-review\" signature for grace@example.org"));
}

type Setup = fn(&Site, &Keys);

#[test]
fn signature_refusals_name_file_line_and_field() {
    let cases: &[(&str, Setup, &str, &str)] = &[
        (
            "copied from another entry",
            |s, _| {
                set_field(
                    s,
                    WARP,
                    "author_signature",
                    &field(s, BANK, "author_signature"),
                )
            },
            "byline.author_signature",
            "signature over another hash",
        ),
        (
            "one key in both roles",
            |s, k| {
                let hash = field(s, WARP, "reviewed_hash");
                set_field(
                    s,
                    WARP,
                    "author_signature",
                    &ssh_keygen_sign(
                        &k.path("grace"),
                        "coursegen-review",
                        &message("author", &hash),
                    ),
                )
            },
            "byline.reviewer_signature",
            "same person twice: one key",
        ),
        (
            "two keys of one principal",
            |s, k| {
                s.write(SIGNERS, format!("\"ada@example.org,Ada Lovelace\" {}\n\"ada@example.org,Grace Hopper\" {}\n", k.public_line("ada"), k.public_line("grace")));
            },
            "byline.reviewer_signature",
            "same person twice: both keys belong to `ada@example.org`",
        ),
        (
            "key not in the file",
            |s, k| {
                let hash = field(s, WARP, "reviewed_hash");
                set_field(
                    s,
                    WARP,
                    "reviewer_signature",
                    &ssh_keygen_sign(
                        &k.path("mallory"),
                        "coursegen-review",
                        &message("reviewer", &hash),
                    ),
                )
            },
            "byline.reviewer_signature",
            "unknown key: SHA256:",
        ),
        (
            "key past valid-before",
            |s, k| {
                s.write(SIGNERS, format!("\"ada@example.org,Ada Lovelace\" {}\n\"grace@example.org,Grace Hopper\" valid-before=\"20260101Z\" {}\n", k.public_line("ada"), k.public_line("grace")));
            },
            "byline.reviewer_signature",
            "key outside its validity",
        ),
        (
            "body edited after signing",
            |s, _| {
                s.write(
                    WARP,
                    s.read(WARP).replace("Body of Warp.", "Body of Warps."),
                );
            },
            "byline.author_signature",
            "signature over another hash",
        ),
        (
            "reviewer signature in the author's field",
            |s, _| {
                set_field(
                    s,
                    WARP,
                    "author_signature",
                    &field(s, WARP, "reviewer_signature"),
                )
            },
            "byline.author_signature",
            "this is the reviewer's signature, in the author's field",
        ),
        (
            "bad base64",
            |s, _| set_field(s, WARP, "author_signature", "U1NIU0lH*not-base64"),
            "byline.author_signature",
            "malformed signature: not base64",
        ),
        (
            "another namespace",
            |s, k| {
                let hash = field(s, WARP, "reviewed_hash");
                set_field(
                    s,
                    WARP,
                    "author_signature",
                    &ssh_keygen_sign(&k.path("ada"), "git", &message("author", &hash)),
                )
            },
            "byline.author_signature",
            "wrong namespace: the signature is for `git`",
        ),
    ];
    let keys = team();
    for (name, setup, key, want) in cases {
        let site = signed_site(&keys);
        setup(&site, &keys);
        let o = site.run(&["build"]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        let line = line_of(&site, WARP, key.trim_start_matches("byline."));
        let err = stderr(&o);
        assert!(
            err.contains(&format!("content/glossary/warp.md:{line}: field `{key}`: "))
                && err.contains(want),
            "{name}: wanted line {line}, field {key}, `{want}` in:\n{err}"
        );
        assert!(!site.exists("public"), "{name}: nothing is written");
    }
}

#[test]
fn sign_refuses_one_key_for_both_roles_and_an_unknown_key() {
    let keys = team();
    let site = signed_site(&keys);
    let before = site.read(WARP);
    let o = site.run(&[
        "sign",
        WARP,
        "--role",
        "author",
        "--key",
        &keys.arg("grace"),
    ]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["same person twice"]);
    let mallory = keys.arg("mallory");
    let o = site.run(&[
        "sign",
        WARP,
        "--reviewer",
        "Grace Hopper",
        "--key",
        &mallory,
    ]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["field `byline.reviewer_signature`", "unknown key"]);
    assert_eq!(site.read(WARP), before, "the file is unchanged");
}

#[test]
fn the_allowed_signers_file_is_untrusted_input() {
    let keys = team();
    let site = signed_site(&keys);
    // A bad line is named by its line, and the build stops with nothing written.
    site.write(
        SIGNERS,
        format!(
            "{}*@example.org {}\n",
            team_signers(&keys),
            keys.public_line("mallory")
        ),
    );
    let o = site.run(&["build"]);
    assert_fails_at(&o, ".coursegen/allowed_signers:4", "");
    assert_stderr_has(&o, &["no patterns"]);
    assert!(!site.exists("public"));
    // A link out of the site is judged by what it resolves to.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("signers"), team_signers(&keys)).unwrap();
    std::fs::remove_file(site.root().join(SIGNERS)).unwrap();
    std::os::unix::fs::symlink(outside.path().join("signers"), site.root().join(SIGNERS)).unwrap();
    let o = site.run(&["build"]);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &[
            "field `review.allowed_signers`: the allowed-signers file resolves to a file outside the site root",
        ],
    );
}

/// Kills the ssh-agent a test started, by its pid, when the test ends.
struct Agent {
    pid: String,
    sock: PathBuf,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(&self.pid).status();
    }
}

#[test]
fn a_key_held_by_ssh_agent_signs_through_ssh_keygen() {
    let keys = team();
    let site = course_requiring_signatures(&team_signers(&keys));
    site.write(WARP, published("Warp", ""));
    let sock = keys.dir().join("agent.sock");
    let out = Command::new("ssh-agent")
        .arg("-a")
        .arg(&sock)
        .arg("-s")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let pid = text
        .split("SSH_AGENT_PID=")
        .nth(1)
        .and_then(|r| r.split(';').next())
        .expect("ssh-agent prints its pid")
        .to_string();
    let agent = Agent { pid, sock };
    let add = Command::new("ssh-add")
        .env("SSH_AUTH_SOCK", &agent.sock)
        .arg(keys.path("grace"))
        .output()
        .unwrap();
    assert!(add.status.success());
    // Only the public half is given: the agent holds the private one.
    std::fs::remove_file(keys.path("grace")).unwrap();
    let o = site.run_with(
        &[
            "sign",
            WARP,
            "--reviewer",
            "Grace Hopper",
            "--key",
            &keys.public_arg("grace"),
        ],
        &[("SSH_AUTH_SOCK", agent.sock.to_str().unwrap())],
    );
    assert_code(&o, 0);
    sign_as_author(&site, &keys, WARP);
    assert_code(&site.run(&["build"]), 0);
}

/// An RSA key of 2048 to 4096 bits signs (through ssh-keygen) and verifies in coursegen;
/// a shorter one is refused as weak, a longer one as unsupported, and nothing is written.
#[test]
fn rsa_reviewers_verify_and_short_rsa_keys_are_refused() {
    let keys = team();
    for (name, bits) in [
        ("grace-rsa", "3072"),
        ("weak-rsa", "1024"),
        ("big-rsa", "4160"),
    ] {
        keys.add(name, "rsa", bits);
    }
    let site = course_requiring_signatures(&format!(
        "\"ada@example.org,Ada Lovelace\" {}\n\"grace@example.org,Grace Hopper\" {}\n\"weak@example.org,Weak Key\" {}\n\"big@example.org,Big Key\" {}\n",
        keys.public_line("ada"),
        keys.public_line("grace-rsa"),
        keys.public_line("weak-rsa"),
        keys.public_line("big-rsa")
    ));
    site.write(WARP, published("Warp", ""));
    let sign = |who: &str, key: &str| {
        site.run(&["sign", WARP, "--reviewer", who, "--key", &keys.arg(key)])
    };
    let before = site.read(WARP);
    for (who, key, want) in [
        (
            "Weak Key",
            "weak-rsa",
            "weak key: a 1024-bit RSA key; an RSA key must have at least 2048 bits",
        ),
        (
            "Big Key",
            "big-rsa",
            "unsupported key: a 4160-bit RSA key; coursegen verifies RSA keys of at most 4096 bits",
        ),
    ] {
        let o = sign(who, key);
        assert_code(&o, 1);
        assert_stderr_has(&o, &[want]);
        assert_eq!(site.read(WARP), before, "nothing written");
    }
    assert_code(&sign("Grace Hopper", "grace-rsa"), 0);
    sign_as_author(&site, &keys, WARP);
    assert_code(&site.run(&["build", "--strict"]), 0);
    let status = stdout(&site.run(&["status"]));
    assert!(
        status.contains("reviewer: valid (Grace Hopper)"),
        "{status}"
    );
}

/// git in the site's folder, as a course's CI runs it.
#[test]
fn a_change_cannot_sign_its_own_entry_with_keys_it_adds_until_they_are_merged() {
    let keys = team();
    let site = signed_site(&keys);
    git(&site, &["init", "-q", "-b", "main"]);
    git(&site, &["add", "-A"]);
    git(
        &site,
        &["commit", "-qm", "the course, Ada and Grace listed"],
    );
    let with_them = format!(
        "{}\"Mallory Evil\" {}\n\"Eve Second\" {}\n",
        team_signers(&keys),
        keys.public_line("mallory"),
        keys.public_line("ada2")
    );

    // A change that only lists two keys passes, and says they count once it is merged.
    git(&site, &["checkout", "-qb", "keys"]);
    site.write(SIGNERS, &with_them);
    git(&site, &["commit", "-qam", "list Mallory and Eve"]);
    let o = site.run(&["check", "--strict", "--trusted-ref", "main"]);
    assert_code(&o, 0);
    assert_stderr_has(
        &o,
        &[
            "warning: .coursegen/allowed_signers: field `review.allowed_signers`: this change edits the allowed-signers file: signatures are checked against the file as main has it",
        ],
    );

    // A pull request lists the same keys and signs its own entry with them.
    git(&site, &["checkout", "-q", "main"]);
    git(&site, &["checkout", "-qb", "pr"]);
    let lane = "content/glossary/lane.md";
    site.write(SIGNERS, &with_them);
    site.write(
        lane,
        published("Lane", "").replace(
            "written_by: Ada Lovelace\n  reviewed_by: Grace Hopper",
            "written_by: Eve Second\n  reviewed_by: Mallory Evil",
        ),
    );
    // Eve and Mallory sign with the keys the change itself lists for them.
    sign_with_keys(&site, &keys, lane, ("Mallory Evil", "mallory"), "ada2");
    git(&site, &["add", "-A"]);
    git(
        &site,
        &["commit", "-qm", "lane, signed by the change's own keys"],
    );
    // Judged by its own file, the change publishes: the hole --trusted-ref closes.
    assert_code(&site.run(&["build", "--strict"]), 0);
    let o = site.run(&["check", "--strict", "--trusted-ref", "main"]);
    let line = line_of(&site, lane, "reviewer_signature");
    assert_fails_at(
        &o,
        &format!("{lane}:{line}"),
        "field `byline.reviewer_signature`: reviewer signature refused: unknown key",
    );
    assert_stderr_has(
        &o,
        &[
            "is not in main:.coursegen/allowed_signers",
            "this change edits .coursegen/allowed_signers, whose keys count once that change is merged on its own",
        ],
    );
    // entries signed by listed keys pass
    assert_stderr_lacks(&o, &["warp.md"]);
    // Deleting the file, or switching the requirement off, does not help either.
    std::fs::remove_file(site.root().join(SIGNERS)).unwrap();
    site.write("coursegen.toml", "[review]\nrequire_signatures = false\n");
    assert_code(&site.run(&["build"]), 0);
    let o = site.run(&["build", "--trusted-ref", "main"]);
    let line = line_of(&site, lane, "author_signature");
    assert_fails_at(
        &o,
        &format!("{lane}:{line}"),
        "field `byline.author_signature`: author signature refused: unknown key",
    );
    git(&site, &["checkout", "-q", "--", "."]);

    // The keys merged in a change of their own: then the entry signed with them publishes.
    git(&site, &["checkout", "-q", "main"]);
    git(&site, &["merge", "-q", "--no-edit", "keys"]);
    git(&site, &["merge", "-q", "--no-edit", "pr"]);
    let o = site.run(&["build", "--strict", "--trusted-ref", "main"]);
    assert_code(&o, 0);
    assert_stderr_lacks(&o, &["edits the allowed-signers file"]);
    assert!(
        site.read("public/glossary/lane/index.html")
            .contains("Body of Lane.")
    );
}

#[test]
fn a_trusted_ref_that_names_no_commit_or_no_signers_is_an_error() {
    let keys = team();
    let site = signed_site(&keys);
    git(&site, &["init", "-q", "-b", "main"]);
    // No commit yet, an option in disguise, a name git does not know.
    for (rev, why) in [
        ("main", "names no commit of this repository"),
        ("-output", "is not a git revision name"),
        ("nope", "names no commit of this repository"),
    ] {
        let o = site.run(&["check", &format!("--trusted-ref={rev}")]);
        assert_code(&o, 1);
        assert!(stderr(&o).contains(why), "{rev}: {}", stderr(&o));
    }
    // A trusted branch without the file, though its config requires signatures.
    std::fs::remove_file(site.root().join(SIGNERS)).unwrap();
    git(&site, &["add", "-A"]);
    git(&site, &["commit", "-qm", "no list"]);
    let o = site.run(&["check", "--trusted-ref", "main"]);
    assert_fails_at(
        &o,
        "coursegen.toml",
        "field `review.require_signatures`: signatures are required, but main has no allowed-signers file at .coursegen/allowed_signers",
    );
    // Issue 49, item 3: a tag named like the remote branch cannot choose the signers; the
    // full name is taken as git reads it.
    git(&site, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    git(&site, &["tag", "origin/main", "HEAD"]);
    let o = site.run(&["check", "--trusted-ref", "origin/main"]);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &[
            "`origin/main` is ambiguous: it names refs/tags/origin/main and refs/remotes/origin/main; name the one you mean in full (`refs/remotes/origin/main`)",
        ],
    );
    let o = site.run(&["check", "--trusted-ref", "refs/remotes/origin/main"]);
    assert_fails_at(
        &o,
        "coursegen.toml",
        "field `review.require_signatures`: signatures are required, but refs/remotes/origin/main has no allowed-signers file",
    );
}

/// Issue 49, item 3: two people the identity rule would take for one ("Li Wei" and "Wei
/// Li") are told apart by a maintainer's statement in the allowed-signers file; without
/// it the reviewer is refused as the author.
#[test]
fn the_maintainers_statement_tells_two_people_with_folded_names_apart() {
    let keys = team();
    let statement = "# coursegen: different-people \"Li Wei\" \"Wei Li\"\n";
    let signers = format!(
        "{statement}\"li@example.org,Li Wei\" {}\n\"wei@example.org,Wei Li\" {}\n",
        keys.public_line("ada"),
        keys.public_line("grace")
    );
    let site = course_requiring_signatures(&signers);
    site.write(
        WARP,
        published("Warp", "")
            .replace("Ada Lovelace", "Li Wei")
            .replace("Grace Hopper", "Wei Li"),
    );
    sign_with_keys(&site, &keys, WARP, ("Wei Li", "grace"), "ada");
    assert_code(&site.run(&["build", "--strict"]), 0);
    site.write(SIGNERS, signers.replace(statement, ""));
    let o = site.run(&["build", "--strict"]);
    let line = line_of(&site, WARP, "reviewed_by");
    assert_fails_at(
        &o,
        &format!("{WARP}:{line}"),
        "field `byline.reviewed_by`: reviewer `Wei Li` looks the same as author `Li Wei`",
    );
    assert_stderr_has(&o, &["# coursegen: different-people \"Li Wei\" \"Wei Li\""]);
    // A statement that names one person, or none, is an error at its line.
    site.write(
        SIGNERS,
        format!("# coursegen: different-people \"Li Wei\"\n{signers}"),
    );
    let o = site.run(&["build", "--strict"]);
    assert_fails_at(
        &o,
        &format!("{SIGNERS}:1"),
        "a different-people statement names at least two people",
    );
}

#[test]
fn a_course_that_lists_nobody_yet_publishes_nothing_signed_and_says_why() {
    let keys = team();
    let site = signed_site(&keys);
    site.write(SIGNERS, "# nobody yet\n");
    site.write("content/glossary/lane.md", draft("Lane"));
    let o = site.run(&["check"]);
    let line = line_of(&site, WARP, "reviewer_signature");
    assert_fails_at(
        &o,
        &format!("{WARP}:{line}"),
        "field `byline.reviewer_signature`: reviewer signature refused: unknown key",
    );
    assert_stderr_has(
        &o,
        &[
            ".coursegen/allowed_signers lists nobody yet: list the author's and the reviewer's public keys, each with `coursegen signers add \"Their Name\" --key ~/.ssh/id_ed25519.pub`",
        ],
    );
    // drafts need no signature
    assert_stderr_lacks(&o, &["lane.md"]);
    // With nothing published, a course without keys builds (a new course's first push).
    std::fs::remove_file(site.root().join(WARP)).unwrap();
    std::fs::remove_file(site.root().join(BANK)).unwrap();
    assert_code(&site.run(&["build", "--strict"]), 0);
}

#[test]
fn a_working_tree_signers_file_that_links_to_dev_zero_is_not_read_under_trusted_ref() {
    let keys = team();
    let site = signed_site(&keys);
    git(&site, &["init", "-q", "-b", "main"]);
    git(&site, &["add", "-A"]);
    git(&site, &["commit", "-qm", "the course"]);
    std::fs::remove_file(site.root().join(SIGNERS)).unwrap();
    std::os::unix::fs::symlink("/dev/zero", site.root().join(SIGNERS)).unwrap();
    // Judged by main's file, every entry still publishes; the link is only "an edit".
    let o = site.run(&["check", "--strict", "--trusted-ref", "main"]);
    assert_code(&o, 0);
    assert_stderr_has(&o, &["this change edits the allowed-signers file"]);
}

/// Issue 35, item 2: the pin binds the entry's place. A byte copy of a signed entry — at
/// another slug, in a new section, or as a section's introduction — is not the entry that
/// was reviewed and signed, and does not publish; nor does the entry moved into a
/// sub-folder (a copy there would share its slug).
#[test]
fn a_signed_entry_copied_to_another_place_does_not_publish() {
    let keys = team();
    let site = signed_site(&keys);
    assert_code(&site.run(&["build", "--strict"]), 0);
    let signed = site.read(WARP);
    let line = line_of(&site, WARP, "reviewed_hash");
    for (copy, beside, moved) in [
        ("content/glossary/warp-again.md", None, false),
        ("content/glossary/sub/warp.md", None, true),
        ("content/extra/warp.md", None, false),
        ("content/lanes.md", Some("content/lanes/lane.md"), false),
    ] {
        site.write(copy, &signed);
        if let Some(beside) = beside {
            site.write(beside, draft("Lane"));
        }
        if moved {
            std::fs::remove_file(site.root().join(WARP)).unwrap();
        }
        let o = site.run(&["build", "--strict"]);
        assert_fails_at(
            &o,
            &format!("{copy}:{line}"),
            "field `byline.reviewed_hash`: edited since review",
        );
        // the original still holds
        assert_stderr_lacks(&o, &[&format!("{WARP}:")]);
        for made in [Some(copy), beside].into_iter().flatten() {
            std::fs::remove_file(site.root().join(made)).unwrap();
        }
        site.write(WARP, &signed);
    }
    assert_code(&site.run(&["build", "--strict"]), 0);
}

/// Issue 35, item 3: a second key of the author's, listed under any spelling of her name or
/// email, cannot review her entry: one person, however the allowed-signers file spells her.
#[test]
fn a_second_key_of_the_author_cannot_review_her_entry_however_the_file_spells_her() {
    let keys = team();
    for spelled in [
        "ada lovelace",
        "ADA@EXAMPLE.ORG",
        "\u{410}da Lovelace",
        "Ada\u{200B} Lovelace",
        "Ada  Lovelace",
        "Lovelace Ada",
        "Dr A. Lovelace",
        // Issue 49, item 3: initials alone, and a principal of many words.
        "A. L.",
        "Augusta Ada King Countess of Lovelace née Byron the Enchantress of Numbers",
    ] {
        let site = course_requiring_signatures(&format!(
            "{}\"{spelled},Grace Hopper\" {}\n",
            team_signers(&keys),
            keys.public_line("ada2")
        ));
        site.write(WARP, published("Warp", ""));
        sign_with_keys(&site, &keys, WARP, ("Grace Hopper", "ada2"), "ada");
        let o = site.run(&["build", "--strict"]);
        let line = line_of(&site, WARP, "reviewer_signature");
        assert_fails_at(
            &o,
            &format!("{WARP}:{line}"),
            "field `byline.reviewer_signature`: reviewer signature refused: same person twice: both keys belong to",
        );
        assert!(!site.exists("public/glossary/warp/index.html"), "{spelled}");
    }
}

/// Grace's P-256 key with its point written compressed (`ssh-keygen` writes it
/// uncompressed): another encoding of the same key.
fn compressed(keys: &Keys, name: &str) -> ssh_key::public::KeyData {
    use ssh_key::public::{EcdsaPublicKey, KeyData};
    let public = ssh_key::PublicKey::read_openssh_file(&keys.public_path(name)).unwrap();
    let KeyData::Ecdsa(ec) = public.key_data() else {
        panic!("{name} is a P-256 key")
    };
    let point = p256::ecdsa::VerifyingKey::try_from(ec).unwrap();
    KeyData::Ecdsa(EcdsaPublicKey::NistP256(point.to_encoded_point(true)))
}

/// Issue 35, item 3: one key is one key however it is encoded. Grace's P-256 key listed
/// once as Ada (uncompressed) and once as Grace (compressed) was two signers, with the
/// reviewer's signature made to carry the compressed form: the compressed line is refused,
/// as ssh-keygen refuses it; and a signature that carries the listed key compressed is by
/// that key, so it cannot sign the role the same key signed.
#[test]
fn one_p256_key_listed_compressed_and_uncompressed_cannot_sign_both_roles() {
    use coursegen::editorial::policy::signatures;
    let keys = team();
    let site = Site::new();
    let squeezed = compressed(&keys, "grace");
    let squeezed_line = ssh_key::PublicKey::new(squeezed.clone(), "")
        .to_openssh()
        .unwrap();
    let ada = format!(
        "\"ada@example.org,Ada Lovelace\" {}\n",
        keys.public_line("grace")
    );
    site.write(WARP, published("Warp", ""));
    // The pin first (no file lists keys yet, so a review without a key is taken).
    assert_code(&site.run(&["sign", WARP, "--reviewer", "Grace Hopper"]), 0);
    site.write(SIGNERS, &ada);
    site.write("coursegen.toml", "[review]\nrequire_signatures = true\n");
    site.write(
        SIGNERS,
        format!("{ada}\"grace@example.org,Grace Hopper\" {squeezed_line}\n"),
    );
    let hash = field(&site, WARP, "reviewed_hash");
    let grace = keys.path("grace");
    let author = ssh_keygen_sign(&grace, "coursegen-review", &message("author", &hash));
    let plain = ssh_keygen_sign(&grace, "coursegen-review", &message("reviewer", &hash));
    let sig = signatures::decode(&plain).unwrap();
    let reviewer = ssh_key::SshSig::new(
        squeezed,
        sig.namespace(),
        sig.hash_alg(),
        sig.signature().clone(),
    )
    .unwrap();
    let reviewer = signatures::one_line(&reviewer.to_pem(ssh_key::LineEnding::LF).unwrap());
    set_field(&site, WARP, "author_signature", &author);
    set_field(&site, WARP, "reviewer_signature", &reviewer);
    let o = site.run(&["build", "--strict"]);
    assert_fails_at(
        &o,
        &format!("{SIGNERS}:2"),
        "the ECDSA key is written with its point compressed, which ssh-keygen does not read",
    );
    assert!(!site.exists("public/glossary/warp/index.html"));
    // ssh-keygen refuses the same line: Grace's own signature does not verify by it.
    let sig = keys.dir().join("msg.sig");
    let reviewed = message("reviewer", &hash);
    std::fs::write(
        &sig,
        ssh_keygen_sign_armored(&grace, "coursegen-review", &reviewed),
    )
    .unwrap();
    let o = ssh_keygen_verify(
        &site.root().join(SIGNERS),
        "grace@example.org",
        &sig,
        &reviewed,
    );
    assert!(!o.status.success());
    assert_stderr_has(&o, &[":2: invalid key"]);
    // With the key listed once, as ssh-keygen writes it, the compressed signature is still
    // Grace's key, which signed the author's role.
    site.write(SIGNERS, &ada);
    let o = site.run(&["build", "--strict"]);
    let line = line_of(&site, WARP, "reviewer_signature");
    assert_fails_at(
        &o,
        &format!("{WARP}:{line}"),
        "field `byline.reviewer_signature`: reviewer signature refused: same person twice: one key",
    );
}

/// Issue 49, item 1: a signed page is all of what was reviewed. An entry that includes a
/// file, shows an image in Markdown and one in HTML (one beside it, one from `static/`)
/// publishes once both sign; editing any of the three after the signatures makes
/// `build --strict` refuse the entry, naming the files it shows, and the published site
/// keeps the reviewed version; signing again publishes the new bytes.
#[test]
fn an_included_file_or_an_image_edited_after_the_signatures_unsigns_the_page() {
    let keys = team();
    let site = course_requiring_signatures(&team_signers(&keys));
    site.write("kernels/helper.py", "def helper():\n    return 1\n");
    site.write("content/glossary/lanes.png", "reviewed lanes");
    site.write("static/img/banks.png", "reviewed banks");
    let body = "Body of Warp.\n\n```python file=kernels/helper.py\n```\n\n\
                ![lanes](../lanes.png)\n\n<p><img src=\"/img/banks.png\" alt=\"banks\"></p>\n";
    let entry = published("Warp", "").replace("Body of Warp.\n", body);
    site.write(WARP, &entry);
    sign_both(&site, &keys, WARP);
    assert_code(&site.run(&["build", "--strict"]), 0);
    let line = line_of(&site, WARP, "reviewed_hash");
    let shown = "`content/glossary/lanes.png`, `kernels/helper.py`, `static/img/banks.png`";
    for (file, edited) in [
        ("kernels/helper.py", "def helper():\n    return 2\n"),
        ("content/glossary/lanes.png", "other lanes"),
        ("static/img/banks.png", "other banks"),
    ] {
        let reviewed = site.read(file);
        site.write(file, edited);
        let o = site.run(&["build", "--strict"]);
        assert_fails_at(
            &o,
            &format!("{WARP}:{line}"),
            &format!(
                "field `byline.reviewed_hash`: edited since review: the entry, or a file it \
                 shows ({shown}), no longer matches its `reviewed_hash`"
            ),
        );
        assert_eq!(
            site.read("public/source/kernels/helper.py"),
            "def helper():\n    return 1\n",
            "the site from before the edit stays as it was"
        );
        site.write(file, reviewed);
    }
    assert_code(&site.run(&["build", "--strict"]), 0);
    site.write("kernels/helper.py", "def helper():\n    return 2\n");
    sign_both(&site, &keys, WARP);
    assert_code(&site.run(&["build", "--strict"]), 0);
    assert!(
        site.read("public/source/kernels/helper.py")
            .contains("return 2")
    );
}
