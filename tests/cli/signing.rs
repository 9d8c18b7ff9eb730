//! Signing without traps (issue 36): `sign` says what it cannot do instead of writing
//! something the publish build refuses — `--publish` on an entry that cannot be published,
//! a review without a key where keys are checked, a key nothing checks, a placeholder
//! name — and `signers add` lists a person's keys in the allowed-signers file, from a `.pub`
//! or a GitHub `USER.keys` file. Keys are made at test time with ssh-keygen.
use crate::util::*;

const WARP: &str = "content/glossary/warp.md";

/// A course that requires signatures, with Ada's and Grace's keys listed.
fn course_with_keys(keys: &Keys) -> Site {
    course_requiring_signatures(&format!(
        "\"Ada Lovelace\" {}\n\"Grace Hopper\" {}\n",
        keys.public_line("ada"),
        keys.public_line("grace")
    ))
}

/// `sign --publish` on an entry that could not be published is refused, with what is
/// missing, and writes nothing: before, it set `status: published` and exited 0.
#[test]
fn sign_publish_refuses_an_entry_that_cannot_be_published_yet() {
    let site = Site::new();
    let unfinished = "---\ntitle: Warp\nterm: Warp\nstatus: in-review\nbyline:\n  written_by: Ada Lovelace\n---\n\nBody of Warp.\n";
    site.write(WARP, unfinished);
    let o = site.run(&["sign", WARP, "--reviewer", "Grace Hopper", "--publish"]);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &[
            "content/glossary/warp.md",
            "field `summary`: a published entry needs this field",
            "field `sources`: a published entry needs this field",
            "--publish refused",
            "the file was not changed",
        ],
    );
    assert_eq!(site.read(WARP), unfinished, "nothing written");
    // Complete, it publishes.
    site.write(
        WARP,
        published("Warp", "").replace("status: published", "status: in-review"),
    );
    let o = site.run(&["sign", WARP, "--reviewer", "Grace Hopper", "--publish"]);
    assert_code(&o, 0);
    assert!(site.read(WARP).contains("status: published"));
    assert_code(&site.run(&["build", "--strict"]), 0);
}

/// Where an allowed-signers file exists, a review without `--key` is refused up front
/// (it would only be refused by `build --strict`), and a reviewer who re-signs with their
/// key removes the author's signature over the old pin and says the author signs again:
/// before, both left a stale signature that `--strict` refused.
#[test]
fn re_signing_leaves_no_stale_signature() {
    let keys = Keys::new(&[("ada", "ed25519", ""), ("grace", "ed25519", "")]);
    let site = course_with_keys(&keys);
    site.write(WARP, published("Warp", ""));
    let review = |key: Option<&str>| {
        let mut args = vec!["sign", WARP, "--reviewer", "Grace Hopper"];
        if let Some(k) = key {
            args.extend(["--key", k]);
        }
        site.run(&args)
    };
    let grace = keys.arg("grace");
    assert_code(&review(Some(&grace)), 0);
    let author = ["sign", WARP, "--role", "author", "--key", &keys.arg("ada")];
    assert_code(&site.run(&author), 0);
    assert_code(&site.run(&["build", "--strict"]), 0);

    site.write(
        WARP,
        site.read(WARP).replace("Body of Warp.", "Body of Warps."),
    );
    let before = site.read(WARP);
    let o = review(None);
    assert_code(&o, 2);
    assert_stderr_has(
        &o,
        &[
            "this course checks review signatures against .coursegen/allowed_signers",
            "--key",
        ],
    );
    assert_eq!(site.read(WARP), before, "nothing written");

    let o = review(Some(&grace));
    assert_code(&o, 0);
    assert!(
        stdout(&o).contains("removed the author's signature, made over the entry before this review: the author signs again, `coursegen sign content/glossary/warp.md --role author --key ~/.ssh/id_ed25519`"),
        "{}",
        stdout(&o)
    );
    let text = site.read(WARP);
    assert!(!text.contains("author_signature:"), "{text}");
    assert!(text.contains("reviewer_signature:"), "{text}");
    let o = site.run(&["build", "--strict"]);
    assert_fails_at(
        &o,
        &format!(
            "content/glossary/warp.md:{}",
            line_of(&site, WARP, "byline")
        ),
        "field `byline.author_signature`: no author signature",
    );
    assert_code(&site.run(&author), 0);
    assert_code(&site.run(&["build", "--strict"]), 0);
}

/// With no allowed-signers file, `sign --key` signs but says that nothing checks the key;
/// with `require_signatures = true` and no file, it refuses, naming the setting.
#[test]
fn a_key_that_nothing_checks_is_said_so() {
    let keys = Keys::new(&[("ada", "ed25519", "")]);
    let site = Site::new();
    site.write(WARP, published("Warp", ""));
    let sign = || {
        site.run(&[
            "sign",
            WARP,
            "--reviewer",
            "Grace Hopper",
            "--key",
            &keys.arg("ada"),
        ])
    };
    let o = sign();
    assert_code(&o, 0);
    assert_stderr_has(
        &o,
        &[
            "warning: no allowed-signers file at .coursegen/allowed_signers: nothing checks this signature, so any key would pass",
        ],
    );
    site.write("coursegen.toml", "[review]\nrequire_signatures = true\n");
    let before = site.read(WARP);
    let o = sign();
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &[
            "`require_signatures = true`, but there is no allowed-signers file at .coursegen/allowed_signers",
        ],
    );
    assert_eq!(site.read(WARP), before, "nothing written");
}

/// The review pins the status, so the way to publish a reviewed entry is `sign --publish`:
/// sign's note says so (it used to suggest editing `status: published` by hand, which
/// voids the review), and a hand edit is indeed an edit since review.
#[test]
fn signing_an_entry_in_review_points_at_sign_publish_not_a_hand_edit() {
    let site = Site::new();
    let in_review = published("Warp", "").replace("status: published", "status: in-review");
    site.write(WARP, &in_review);
    let o = site.run(&["sign", WARP, "--reviewer", "Grace Hopper"]);
    assert_code(&o, 0);
    let out = stdout(&o);
    assert!(
        out.contains("the reviewer signs with --publish: `coursegen sign content/glossary/warp.md --reviewer \"Grace Hopper\" --publish`")
            && out.contains("setting `status: published` by hand voids it"),
        "{out}"
    );
    assert!(!out.contains("set `status: published`"), "{out}");
    let signed = site.read(WARP);
    site.write(
        WARP,
        signed.replace("status: in-review", "status: published"),
    );
    let o = site.run(&["build", "--strict"]);
    assert_fails_at(
        &o,
        &format!(
            "content/glossary/warp.md:{}",
            line_of(&site, WARP, "reviewed_hash")
        ),
        "field `byline.reviewed_hash`: edited since review",
    );
    site.write(WARP, signed);
    let o = site.run(&["sign", WARP, "--reviewer", "Grace Hopper", "--publish"]);
    assert_code(&o, 0);
    assert_code(&site.run(&["build", "--strict"]), 0);
}

/// `--reviewer "Reviewer"` is refused as a placeholder, saying so (it used to read "no named
/// reviewer has signed", as if the flag had not been given).
#[test]
fn a_placeholder_name_is_refused_as_a_placeholder() {
    let site = Site::new();
    site.write(WARP, published("Warp", ""));
    let before = site.read(WARP);
    let line = line_of(&site, WARP, "reviewed_by");
    let o = site.run(&["sign", WARP, "--reviewer", "Reviewer"]);
    assert_fails_at(
        &o,
        &format!("content/glossary/warp.md:{line}"),
        "field `byline.reviewed_by`: --reviewer `Reviewer` counts as a placeholder, not a person's name",
    );
    let o = site.run(&[
        "sign",
        WARP,
        "--reviewer",
        "Grace Hopper",
        "--author",
        "Author",
    ]);
    assert_fails_at(
        &o,
        &format!(
            "content/glossary/warp.md:{}",
            line_of(&site, WARP, "written_by")
        ),
        "field `byline.written_by`: --author `Author` counts as a placeholder",
    );
    assert_eq!(site.read(WARP), before, "nothing written");
}

/// `signers add` writes lines `ssh-keygen -Y verify` reads, from a `.pub` and from a
/// GitHub keys file (several keys, one a line), and refuses — writing nothing — a key
/// already listed, a key coursegen would not verify, a private key, and a name the file
/// cannot hold or that counts as nobody. The keys it lists then sign and publish.
#[test]
fn signers_add_lists_keys_that_sign_and_refuses_what_would_not_verify() {
    let keys = Keys::new(&[
        ("ada", "ed25519", ""),
        ("grace", "ecdsa", "256"),
        ("grace2", "ed25519", ""),
        ("p384", "ecdsa", "384"),
        ("weak", "rsa", "1024"),
    ]);
    let site = Site::new();
    site.write("coursegen.toml", "[review]\nrequire_signatures = true\n");
    let add = |args: &[&str]| {
        let mut all = vec!["signers", "add"];
        all.extend(args);
        site.run(&all)
    };
    let o = add(&[
        "Ada Lovelace",
        "--email",
        "ada@example.org",
        "--key",
        &keys.public_arg("ada"),
    ]);
    assert_code(&o, 0);
    assert!(
        stdout(&o).contains("created .coursegen/allowed_signers"),
        "{}",
        stdout(&o)
    );
    let file = site.read(SIGNERS);
    assert!(
        file.lines().any(|l| l
            == format!(
                "\"ada@example.org,Ada Lovelace\" namespaces=\"coursegen-review\" {}",
                keys.public_line("ada")
            )),
        "{file}"
    );
    // GitHub's https://github.com/USER.keys: one key a line, no comments.
    let github = keys.dir().join("grace.keys");
    std::fs::write(
        &github,
        format!(
            "{}\n{}\n",
            keys.public_line("grace"),
            keys.public_line("grace2")
        ),
    )
    .unwrap();
    let o = add(&["Grace Hopper", "--key", github.to_str().unwrap()]);
    assert_code(&o, 0);
    assert_eq!(stdout(&o).matches("added ").count(), 2, "{}", stdout(&o));
    let listed = site.read(SIGNERS);

    let public = |name| keys.public_arg(name);
    for (name, key, code, want) in [
        (
            "Ada Lovelace",
            public("ada"),
            1,
            "is already listed, on line",
        ),
        (
            "Someone Else",
            public("grace2"),
            1,
            "is already listed, on line",
        ),
        (
            "Pat Doe",
            public("p384"),
            1,
            "unsupported key: a `ecdsa-sha2-nistp384` key",
        ),
        ("Pat Doe", public("weak"), 1, "weak key: a 1024-bit RSA key"),
        (
            "Pat Doe",
            keys.arg("weak"),
            2,
            "it is a private key: give its public half",
        ),
        ("Ada, Grace", public("p384"), 2, "holds `,`"),
        ("Reviewer", public("p384"), 2, "counts as a placeholder"),
    ] {
        let o = add(&[name, "--key", &key]);
        assert_code(&o, code);
        assert!(
            stderr(&o).contains(want),
            "{name} {key}: wanted `{want}` in {}",
            stderr(&o)
        );
        assert_stderr_has(&o, &["nothing was written"]);
        assert_eq!(site.read(SIGNERS), listed, "{name} {key} wrote");
    }

    // ssh-keygen reads the file as git's allowed-signers format.
    let msg = "coursegen review v2\nrole: author\nhash: v2:sha256:00\n";
    let sig_file = keys.dir().join("msg.sig");
    std::fs::write(
        &sig_file,
        ssh_keygen_sign_armored(&keys.path("grace2"), "coursegen-review", msg),
    )
    .unwrap();
    let verify = |principal: &str| {
        ssh_keygen_verify(&site.root().join(SIGNERS), principal, &sig_file, msg)
            .status
            .success()
    };
    assert!(
        verify("Grace Hopper"),
        "ssh-keygen refused the line signers add wrote"
    );
    assert!(!verify("Ada Lovelace"));

    let o = site.run(&["signers", "list"]);
    assert_code(&o, 0);
    let out = stdout(&o);
    assert_eq!(out.matches("Grace Hopper").count(), 2, "{out}");
    assert!(
        out.contains("ada@example.org,Ada Lovelace  ssh-ed25519 SHA256:"),
        "{out}"
    );

    site.write(WARP, published("Warp", ""));
    publish_signed(|args| site.run(args), &keys, "grace2");
    assert_code(&site.run(&["build", "--strict"]), 0);
}

/// `init`'s README walks an author and a reviewer through signing with `signers add`; the
/// same steps, on an `init`'d course, end in a `build --strict` that publishes the entry.
#[test]
fn an_init_course_lists_two_keys_signs_and_publishes_as_its_readme_says() {
    let keys = Keys::new(&[("ada", "ed25519", ""), ("grace", "ed25519", "")]);
    let site = Site::new();
    let course = site.root().join("course");
    assert_code(&site.run(&["init", course.to_str().unwrap()]), 0);
    let readme = std::fs::read_to_string(course.join("README.md")).unwrap();
    for step in [
        "coursegen signers add \"Ada Lovelace\"",
        "--reviewer \"Grace Hopper\" --publish --key ~/.ssh/id_ed25519",
        "--role author --key ~/.ssh/id_ed25519",
    ] {
        assert!(readme.contains(step), "README.md lacks `{step}`:\n{readme}");
    }
    let run = |args: &[&str]| site.run_in(&course, args);
    for (name, email, key) in [
        ("Ada Lovelace", "ada@example.org", "ada"),
        ("Grace Hopper", "grace@example.org", "grace"),
    ] {
        let o = run(&[
            "signers",
            "add",
            name,
            "--email",
            email,
            "--key",
            &keys.public_arg(key),
        ]);
        assert_code(&o, 0);
    }
    // The author replaces the scaffold's placeholders, names herself and asks for review,
    // leaving the dates for the signing (as the README says).
    let entry = course.join(WARP);
    let scaffold = std::fs::read_to_string(&entry).unwrap();
    let body_at = scaffold[4..].find("---\n").unwrap() + 8;
    let written = scaffold[..body_at]
        .replace("category: Uncategorised", "category: Execution")
        .replace(
            "summary: One sentence that defines the term.",
            "summary: Thirty-two threads scheduled together.",
        )
        .replace("status: draft ", "status: in-review ")
        .replace("written_by: pending ", "written_by: Ada Lovelace")
        + "\nA warp is the group of 32 threads that an SM schedules as one.\n";
    assert!(written.contains("written_on: pending"), "{written}");
    std::fs::write(&entry, written).unwrap();
    publish_signed(run, &keys, "grace");
    let out = course.join("public");
    let o = run(&["build", "--strict", "--out", out.to_str().unwrap()]);
    assert_code(&o, 0);
    assert!(out.join("glossary/warp/index.html").is_file());
}

/// The README's last steps: Grace reviews and publishes the entry with her key `grace`
/// (a name in `keys`), then Ada signs it as its author; `run` runs coursegen in the course.
fn publish_signed(run: impl Fn(&[&str]) -> std::process::Output, keys: &Keys, grace: &str) {
    let grace = keys.arg(grace);
    let review = [
        "sign",
        WARP,
        "--reviewer",
        "Grace Hopper",
        "--publish",
        "--key",
        &grace,
    ];
    assert_code(&run(&review), 0);
    let author = ["sign", WARP, "--role", "author", "--key", &keys.arg("ada")];
    assert_code(&run(&author), 0);
}

/// `sign --publish` holds an entry to the fields the course requires (`[glossary]
/// required`), as the build does: a course on another subject publishes without `cc`.
#[test]
fn sign_publish_asks_for_the_fields_the_course_requires() {
    let site = Site::new();
    site.write(
        "coursegen.toml",
        "[glossary]\nrequired = [\"term\", \"summary\"]\n",
    );
    let entry = published("Warp", "")
        .replace("status: published", "status: in-review")
        .replace("cc: \"8.0\"\n", "");
    site.write(WARP, &entry);
    let o = site.run(&["sign", WARP, "--reviewer", "Grace Hopper", "--publish"]);
    assert_code(&o, 0);
    assert!(site.read(WARP).contains("status: published"));
    assert_code(&site.run(&["build", "--strict"]), 0);
    // Without the setting, the entry still lacks its `cc`.
    site.write("coursegen.toml", "");
    site.write(WARP, &entry);
    let o = site.run(&["sign", WARP, "--reviewer", "Grace Hopper", "--publish"]);
    assert_fails_at(
        &o,
        &format!("{WARP}:1"),
        "field `cc`: a published entry needs this field",
    );
}

/// The publish build's help for an entry edited since review names the command that works
/// in the course: with `--key` once an allowed-signers file lists who signs (`sign`
/// refuses a review without one there).
#[test]
fn the_help_for_an_edited_entry_names_the_key_where_keys_are_listed() {
    let keys = Keys::new(&[("ada", "ed25519", ""), ("grace", "ed25519", "")]);
    let site = course_with_keys(&keys);
    site.write(WARP, published("Warp", ""));
    let review = [
        "sign",
        WARP,
        "--reviewer",
        "Grace Hopper",
        "--key",
        &keys.arg("grace"),
    ];
    assert_code(&site.run(&review), 0);
    site.write(
        WARP,
        site.read(WARP).replace("Body of Warp.", "Body of Warps."),
    );
    let o = site.run(&["build", "--strict"]);
    assert_code(&o, 1);
    let want =
        format!("run `coursegen sign {WARP} --reviewer \"Grace Hopper\" --key ~/.ssh/id_ed25519`");
    assert_stderr_has(&o, &[&want]);
}

/// `signers remove` takes a person's key lines out (by name, in any case, or by email),
/// or one key's line (by its fingerprint, as `signers list` shows it), says what it
/// removed, and leaves everyone else, the comments and the statements as they were. A
/// name the file does not list is refused with the nearest one it does, writing nothing.
/// Before, there was no way but editing the file by hand.
#[test]
fn signers_remove_takes_out_a_persons_keys_and_suggests_a_near_name() {
    let keys = team();
    let site = Site::new();
    site.write("coursegen.toml", "[review]\nrequire_signatures = true\n");
    for (name, key) in [
        ("Ada Lovelace", "ada"),
        ("Ada Lovelace", "ada2"),
        ("Grace Hopper", "grace"),
        ("Mallory Smith", "mallory"),
    ] {
        let o = site.run(&["signers", "add", name, "--key", &keys.public_arg(key)]);
        assert_code(&o, 0);
    }
    let statement = "# coursegen: different-people \"Ada Lovelace\" \"Ada King\"\n";
    let mut file = site.read(SIGNERS);
    file.push_str(statement);
    site.write(SIGNERS, &file);
    let o = site.run(&["signers", "remove", "ada lovelace"]);
    assert_code(&o, 0);
    assert_eq!(
        stdout(&o)
            .matches("removed ssh-ed25519 key SHA256:")
            .count(),
        2,
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("of Ada Lovelace from .coursegen/allowed_signers"),
        "{}",
        stdout(&o)
    );
    let after = site.read(SIGNERS);
    assert!(!after.contains(&keys.public_line("ada")), "{after}");
    assert!(!after.contains(&keys.public_line("ada2")), "{after}");
    assert!(after.contains(&keys.public_line("grace")), "{after}");
    assert!(after.contains(statement), "{after}");
    // Nothing else changed: the file is the old one less the two lines.
    let expected: String = file
        .lines()
        .filter(|l| !l.contains(&keys.public_line("ada")) && !l.contains(&keys.public_line("ada2")))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(after, expected);
    // One key by its fingerprint, as `signers list` shows it.
    let list = stdout(&site.run(&["signers", "list"]));
    let line = list.lines().find(|l| l.contains("Mallory Smith")).unwrap();
    let fingerprint = line
        .split_whitespace()
        .find(|w| w.starts_with("SHA256:"))
        .unwrap();
    let o = site.run(&["signers", "remove", fingerprint]);
    assert_code(&o, 0);
    assert!(stdout(&o).contains(fingerprint), "{}", stdout(&o));
    assert!(!site.read(SIGNERS).contains(&keys.public_line("mallory")));
    // A typo: refused, with the name it is near; nothing written.
    let before = site.read(SIGNERS);
    let o = site.run(&["signers", "remove", "Grace Hoper"]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["`Grace Hoper`", "did you mean `Grace Hopper`?"]);
    assert_eq!(site.read(SIGNERS), before);
}
