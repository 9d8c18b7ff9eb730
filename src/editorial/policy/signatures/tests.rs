use super::*;

const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGm8lW5f0S0OuKfRWFp3WGdn/jtE2I2iVYvLFxYiOQ3z";

#[track_caller]
fn refused(line: &str, want: &str) {
    let err = parse(Path::new("s"), line).expect_err(line);
    assert!(err[0].message.contains(want), "{line}: {}", err[0].message);
    assert_eq!(err[0].line, 1);
}

/// Rules at two times are equal exactly when no `valid-after` / `valid-before` lies
/// between them (serve's memo then keeps its verdicts), and unequal across one, where
/// a key's validity, and so a verdict, can change.
#[test]
fn rules_at_two_times_are_equal_unless_a_validity_bound_lies_between() {
    let text =
        format!("a@b valid-after=\"20260101Z\",valid-before=\"20270101Z\" {KEY}\nc@d {KEY}\n");
    let signers = parse(Path::new("s"), &text).unwrap();
    let (after, before) = (1_767_225_600, 1_798_761_600);
    let at = |now: i64| SignatureRules {
        signers: signers.clone(),
        required: true,
        now,
        pending: None,
    };
    let valid = |r: &SignatureRules| {
        let s = &r.signers.signers[0];
        s.valid_after.is_none_or(|t| r.now >= t) && s.valid_before.is_none_or(|t| r.now < t)
    };
    for (a, b, same) in [
        (after + 10, after + 86_400, true),
        (after - 1, after - 3_600, true),
        (before, before + 1, true),
        (after - 1, after, false),
        (before - 1, before, false),
        (after - 1, before, false),
    ] {
        assert_eq!(at(a) == at(b), same, "{a} {b}");
        if same {
            assert_eq!(valid(&at(a)), valid(&at(b)), "{a} {b}");
        }
    }
    let other = SignatureRules {
        required: false,
        ..at(after + 10)
    };
    assert_ne!(other, at(after + 10));
}

#[test]
fn allowed_signers_lines() {
    let text = format!(
        "# comment\n\n\"ada@example.org,Ada Lovelace\" valid-after=\"20260101Z\",namespaces=\"git,coursegen-review\" {KEY} ada@laptop\ngrace@example.org {KEY}\n"
    );
    let s = parse(Path::new("s"), &text).unwrap();
    assert_eq!(s.signers.len(), 2);
    assert_eq!(s.signers[0].line, 3);
    assert_eq!(s.signers[0].principals, ["ada@example.org", "Ada Lovelace"]);
    assert_eq!(s.signers[0].valid_after, Some(1_767_225_600));
    assert_eq!(
        s.signers[0].namespaces.as_deref(),
        Some(&["git".to_string(), "coursegen-review".to_string()][..])
    );
    assert_eq!(s.signers[1].principals, ["grace@example.org"]);
    refused(&format!("*@example.org {KEY}"), "no patterns");
    refused(&format!("a@b valid-before=\"2026\" {KEY}"), "is not a time");
    refused(&format!("a@b cert-authority {KEY}"), "not supported");
    refused(&format!("a@b frobnicate {KEY}"), "unknown option");
    refused("a@b ssh-ed25519 AAAA!!", "cannot be read");
    refused(&format!("\"a@b {KEY}"), "quote is not closed");
    refused(&format!("a@b\u{1b}[2J {KEY}"), "control characters");
}

#[test]
fn signatures_that_are_not_ones() {
    assert!(decode("%%%").unwrap_err().contains("not base64"));
    assert!(
        decode("aGVsbG8=")
            .unwrap_err()
            .contains("not an SSH signature")
    );
    assert!(
        decode(&"A".repeat(MAX_SIGNATURE_CHARS + 1))
            .unwrap_err()
            .contains("more than")
    );
}

/// The options of an allowed-signers line answered as `ssh-keygen -Y verify` answers
/// them: both judge the same line and the same signature (ssh-keygen's own, over a
/// review message, in our namespace), with ssh-keygen reading times as UTC. The rows
/// are each option form coursegen once read differently, and their neighbours.
#[test]
fn options_mean_what_ssh_keygen_says_they_mean() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k");
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "k", "-f"])
        .arg(&key)
        .status();
    assert!(
        made.is_ok_and(|s| s.success()),
        "needs ssh-keygen (openssh-client)"
    );
    let public = std::fs::read_to_string(dir.path().join("k.pub")).unwrap();
    let public: Vec<&str> = public.split_whitespace().take(2).collect();
    let hash = "v2:sha256:4f1d";
    let msg = dir.path().join("msg");
    std::fs::write(&msg, message(Role::Author, hash)).unwrap();
    let signed = Command::new("ssh-keygen")
        .args(["-Y", "sign", "-n", NAMESPACE, "-f"])
        .arg(&key)
        .arg(&msg)
        .stderr(Stdio::null())
        .status();
    assert!(signed.is_ok_and(|s| s.success()));
    let sig = dir.path().join("msg.sig");
    let armored = std::fs::read_to_string(&sig).unwrap();
    let field: String = armored
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect();
    let now = jiff::Timestamp::now().as_second();
    let forms = [
        "",
        "namespaces=\"coursegen-review\"",
        "NAMESPACES=\"git,coursegen-review\"",
        "namespaces=\"coursegen-*\"",
        "namespaces=\"coursegen-review,!coursegen-review\"",
        "namespaces=\"*,!coursegen-*\"",
        "namespaces=\" coursegen-review\"",
        "namespaces=\"coursegen-review \"",
        "namespaces=\"git\"",
        "namespaces=coursegen-review",
        "namespaces=\"coursegen-review\",namespaces=\"coursegen-review\"",
        "valid-after=\"20000101\"",
        "valid-after=20000101",
        "valid-after=\"20000101Z\",valid-before=\"99991231Z\"",
        "valid-before=\"99991231\"",
        "valid-before=\"20300101\",valid-before=\"20000101\"",
        "valid-before=\"20000101\",valid-before=\"20300101\"",
        "valid-before=\"20000101Z\"",
        "valid-after=\"20991231Z\"",
        "valid-after=\"202001011200\"",
        "valid-after=\"20200101120000Z\"",
        "valid-after=\"2020010112\"",
        "valid-after=\"20200230\"",
        "valid-after=\"20201301\"",
        "valid-after=\"20200132\"",
        "valid-after=\"202001012400\"",
        "valid-after=\"20300101\",valid-before=\"20200101\"",
        "valid-after=\"20200101\" ,namespaces=\"git\"",
        "valid-after=\"20200101\";namespaces=\"git\"",
        "cert-authority",
        "frobnicate",
        "namespaces=\"coursegen-review",
    ];
    for options in forms {
        let line = format!("ada {options} {} {}\n", public[0], public[1]);
        let file = dir.path().join("allowed_signers");
        std::fs::write(&file, &line).unwrap();
        let theirs = Command::new("ssh-keygen")
            .env("TZ", "UTC")
            .args(["-Y", "verify", "-I", "ada", "-n", NAMESPACE, "-f"])
            .arg(&file)
            .arg("-s")
            .arg(&sig)
            .stdin(std::fs::File::open(&msg).unwrap())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success();
        let ours = parse(Path::new("allowed_signers"), &line).map(|signers| {
            let rules = SignatureRules {
                signers,
                required: true,
                now,
                pending: None,
            };
            verify(&rules, &field, Role::Author, hash)
        });
        assert_eq!(
            matches!(ours, Ok(Ok(_))),
            theirs,
            "{line:?}: ssh-keygen {}, coursegen {ours:?}",
            if theirs { "accepts" } else { "refuses" }
        );
    }
}
