//! `coursegen verify` and the provenance the publish build writes (issue 53): the tamper
//! suite — each way of passing off a page as reviewed, refused with what failed — and the
//! reproducible publish build. Keys are made with ssh-keygen, as in `signed`.
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::util::*;

pub(crate) const WARP: &str = "content/glossary/warp.md";
pub(crate) const BANK: &str = "content/glossary/bank.md";
pub(crate) const WARP_PAGE: &str = "public/glossary/warp/index.html";
pub(crate) const PROVENANCE: &str = "public/coursegen-provenance.json";

/// Ada (two keys) and Grace.
pub(crate) fn signers(keys: &Keys) -> String {
    format!(
        "\"ada@example.org,Ada Lovelace\" {}\n\"Ada Lovelace\" {}\n\"grace@example.org,Grace Hopper\" {}\n",
        keys.public_line("ada"),
        keys.public_line("ada2"),
        keys.public_line("grace")
    )
}

pub(crate) fn sign(site: &Site, keys: &Keys, file: &str) {
    let o = site.run(&[
        "sign",
        file,
        "--reviewer",
        "Grace Hopper",
        "--key",
        &keys.arg("grace"),
    ]);
    assert_code(&o, 0);
    let o = site.run(&["sign", file, "--role", "author", "--key", &keys.arg("ada")]);
    assert_code(&o, 0);
}

/// A course of two signed entries, committed, built into public/.
pub(crate) fn built(keys: &Keys) -> Site {
    let site = course_requiring_signatures(&signers(keys));
    for (file, title) in [(WARP, "Warp"), (BANK, "Bank")] {
        site.write(file, published(title, ""));
        sign(&site, keys, file);
    }
    site.write(".gitignore", "public/\npreview/\nout/\n");
    git(&site, &["init", "-q"]);
    commit(&site);
    assert_code(&site.run(&["build"]), 0);
    site
}

pub(crate) fn commit(site: &Site) {
    git(site, &["add", "-A", "."]);
    git(site, &["commit", "-q", "-m", "course"]);
}

pub(crate) fn verify(site: &Site, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .arg("verify")
        .args(args)
        .env("SOURCE_DATE_EPOCH", TODAY_EPOCH)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("XDG_CACHE_HOME", site.root().join("../cache-of-verify"))
        .output()
        .unwrap()
}

fn public(site: &Site) -> String {
    site.root().join("public").to_string_lossy().into_owned()
}

pub(crate) fn provenance(site: &Site) -> Value {
    serde_json::from_str(&site.read(PROVENANCE)).unwrap()
}

fn set_provenance(site: &Site, v: &Value) {
    site.write(PROVENANCE, serde_json::to_vec_pretty(v).unwrap());
}

/// The provenance's record of the page in `file` (relative to public/).
fn page<'a>(v: &'a mut Value, file: &str) -> &'a mut Value {
    (v["pages"].as_array_mut().unwrap().iter_mut())
        .find(|p| p["file"] == file)
        .unwrap_or_else(|| panic!("no {file} in the provenance"))
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("{:x}", sha2::Sha256::digest(bytes))
}

/// `verify` refuses (exit 1) with `what` on its output.
#[track_caller]
pub(crate) fn refused(o: &Output, what: &str) {
    let out = format!("{}{}", stdout(o), stderr(o));
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains(what), "expected `{what}` in:\n{out}");
}

fn sshsig(keys: &Keys, key: &str, role: &str, pin: &str) -> String {
    let msg = format!("coursegen review v2\nrole: {role}\nhash: {pin}\n");
    ssh_keygen_sign(&keys.path(key), "coursegen-review", &msg)
}

#[test]
fn every_page_of_a_signed_site_verifies_one_line_each_and_as_json() {
    let keys = team();
    let site = built(&keys);
    let o = verify(&site, &[&public(&site)]);
    assert_code(&o, 0);
    let out = stdout(&o);
    assert!(
        out.contains("/glossary/warp/: signed by Ada Lovelace (author, SHA256:")
            && out.contains("and Grace Hopper (reviewer, SHA256:")
            && out.contains("; bytes match"),
        "{out}"
    );
    assert!(
        out.contains("/: not reviewed (not an entry); bytes match"),
        "{out}"
    );
    // One page, by its file.
    let o = verify(&site, &[&site.root().join(WARP_PAGE).to_string_lossy()]);
    assert_code(&o, 0);
    assert_eq!(stdout(&o).lines().count(), 1, "{}", stdout(&o));
    let o = verify(&site, &["--json", &public(&site)]);
    assert_code(&o, 0);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let warp = (v.as_array().unwrap().iter())
        .find(|p| p["url"] == "/glossary/warp/")
        .unwrap();
    assert_eq!(warp["result"], "signed");
    assert_eq!(warp["author"]["name"], "Ada Lovelace");
    // The rebuild of the recorded commit gives the same bytes.
    let root = site.root().to_string_lossy().into_owned();
    assert_code(&verify(&site, &["--rebuild", &root, &public(&site)]), 0);
}

#[test]
fn tamper_1_page_html_edited_after_the_build() {
    let site = built(&team());
    let mut html = site.read(WARP_PAGE);
    html.push_str("<p>edited</p>");
    site.write(WARP_PAGE, html);
    refused(
        &verify(&site, &[&public(&site)]),
        "/glossary/warp/: does not verify: page bytes differ from the provenance",
    );
}

#[test]
fn tamper_2_provenance_edited_to_match_an_edited_page_is_refused_by_the_rebuild() {
    let site = built(&team());
    let html = site.read(WARP_PAGE).replace("Warp", "Wrap");
    site.write(WARP_PAGE, &html);
    let mut v = provenance(&site);
    page(&mut v, "glossary/warp/index.html")["sha256"] = sha256(html.as_bytes()).into();
    set_provenance(&site, &v);
    let root = site.root().to_string_lossy().into_owned();
    refused(
        &verify(&site, &["--rebuild", &root, &public(&site)]),
        "/glossary/warp/: does not verify: page bytes differ from a rebuild of commit",
    );
}

#[test]
fn tamper_3_a_signature_swapped_between_entries() {
    let site = built(&team());
    let mut v = provenance(&site);
    let bank = page(&mut v, "glossary/bank/index.html")["review"]["reviewer"].clone();
    page(&mut v, "glossary/warp/index.html")["review"]["reviewer"] = bank;
    set_provenance(&site, &v);
    refused(
        &verify(&site, &[&public(&site)]),
        "reviewer signature refused: signature over another hash",
    );
}

#[test]
fn tamper_4_the_reviewers_signature_replaced_by_a_second_key_of_the_author() {
    let keys = team();
    let site = built(&keys);
    let mut v = provenance(&site);
    let warp = page(&mut v, "glossary/warp/index.html");
    let pin = warp["review"]["pin"].as_str().unwrap().to_owned();
    warp["review"]["reviewer"]["sshsig"] = sshsig(&keys, "ada2", "reviewer", &pin).into();
    warp["review"]["reviewed_by"] = serde_json::json!(["Ada Lovelace"]);
    set_provenance(&site, &v);
    refused(
        &verify(&site, &[&public(&site)]),
        "reviewer signature refused: same person twice",
    );
}

#[test]
fn tamper_5_a_key_not_listed_by_the_trusted_revision() {
    let keys = team();
    let site = built(&keys);
    let mut v = provenance(&site);
    let warp = page(&mut v, "glossary/warp/index.html");
    let pin = warp["review"]["pin"].as_str().unwrap().to_owned();
    warp["review"]["reviewer"]["sshsig"] = sshsig(&keys, "mallory", "reviewer", &pin).into();
    set_provenance(&site, &v);
    refused(
        &verify(&site, &[&public(&site)]),
        "reviewer signature refused: unknown key",
    );
    // Listing Mallory in the provenance's own copy of the file passes the site alone; the
    // reader's copy of the trusted file (--signers) refuses it.
    let trusted = site.root().join(SIGNERS).to_string_lossy().into_owned();
    let text = format!(
        "{}\"Grace Hopper\" {}\n",
        signers(&keys),
        keys.public_line("mallory")
    );
    v["signers"]["text"] = text.into();
    set_provenance(&site, &v);
    refused(
        &verify(&site, &["--signers", &trusted, &public(&site)]),
        "is not the one you gave (--signers): keys not listed by the trusted revision",
    );
}

#[test]
fn tamper_6_a_signature_over_an_older_pin_replayed_on_edited_text() {
    let keys = team();
    let site = built(&keys);
    let old = provenance(&site);
    site.write(WARP, site.read(WARP).replace("Warp", "Wrap"));
    sign(&site, &keys, WARP);
    commit(&site);
    assert_code(&site.run(&["build"]), 0);
    let mut v = provenance(&site);
    let mut old = old;
    let old_review = page(&mut old, "glossary/warp/index.html")["review"].clone();
    let warp = page(&mut v, "glossary/warp/index.html");
    warp["review"]["author"] = old_review["author"].clone();
    warp["review"]["reviewer"] = old_review["reviewer"].clone();
    set_provenance(&site, &v);
    refused(
        &verify(&site, &[&public(&site)]),
        "signature refused: signature over another hash",
    );
}

#[test]
fn tamper_7_a_page_copied_to_another_url() {
    let site = built(&team());
    let html = site.read(WARP_PAGE);
    // Over another page: its bytes are not that page's.
    site.write("public/glossary/bank/index.html", &html);
    refused(
        &verify(&site, &[&public(&site)]),
        "/glossary/bank/: does not verify: page bytes differ",
    );
    // At a new URL, its review claimed there too: one pin, two pages.
    let site = built(&team());
    site.write("public/glossary/warp-copy/index.html", &html);
    let mut v = provenance(&site);
    let mut copy = page(&mut v, "glossary/warp/index.html").clone();
    copy["file"] = "glossary/warp-copy/index.html".into();
    copy["url"] = "/glossary/warp-copy/".into();
    v["pages"].as_array_mut().unwrap().push(copy);
    set_provenance(&site, &v);
    refused(
        &verify(&site, &[&public(&site)]),
        "is claimed by more than one page",
    );
}

#[test]
fn tamper_8_a_page_from_another_commit() {
    let keys = team();
    let site = built(&keys);
    let old = site.read(WARP_PAGE);
    site.write(WARP, site.read(WARP).replace("Warp", "Wrap"));
    sign(&site, &keys, WARP);
    commit(&site);
    assert_code(&site.run(&["build"]), 0);
    site.write(WARP_PAGE, old);
    refused(
        &verify(&site, &[&public(&site)]),
        "/glossary/warp/: does not verify: page bytes differ",
    );
}

#[test]
fn tamper_9_the_provenance_file_removed() {
    let site = built(&team());
    std::fs::remove_file(site.root().join(PROVENANCE)).unwrap();
    refused(
        &verify(&site, &[&public(&site)]),
        "has no coursegen-provenance.json",
    );
    refused(
        &verify(&site, &[&site.root().join(WARP_PAGE).to_string_lossy()]),
        "no coursegen-provenance.json in the folder of",
    );
}

#[test]
fn tamper_10_an_entry_claimed_as_reviewed_that_was_a_draft() {
    let keys = team();
    let site = built(&keys);
    site.write("content/glossary/late.md", draft("Late"));
    let preview = site.root().join("preview").to_string_lossy().into_owned();
    assert_code(&site.run(&["build", "--drafts", "--out", &preview]), 0);
    let html = site.read("preview/glossary/late/index.html");
    site.write("public/glossary/late/index.html", &html);
    let mut v = provenance(&site);
    let mut late = page(&mut v, "glossary/warp/index.html").clone();
    late["file"] = "glossary/late/index.html".into();
    late["url"] = "/glossary/late/".into();
    late["sha256"] = sha256(html.as_bytes()).into();
    late["review"]["source"] = "content/glossary/late.md".into();
    late["review"]["pin"] = Value::Null;
    late["review"]["author"] = Value::Null;
    late["review"]["reviewer"] = Value::Null;
    v["pages"].as_array_mut().unwrap().push(late);
    set_provenance(&site, &v);
    refused(
        &verify(&site, &[&public(&site)]),
        "/glossary/late/: does not verify: claimed as reviewed without a pin",
    );
}

#[test]
fn a_hostile_provenance_is_refused_without_a_panic() {
    let site = built(&team());
    for text in [
        "",
        "{",
        "[]",
        "{\"format\":\"coursegen-provenance/9\"}",
        "{\"format\":1}",
    ] {
        site.write(PROVENANCE, text);
        refused(
            &verify(&site, &[&public(&site)]),
            "coursegen-provenance.json",
        );
    }
    let site = built(&team());
    let mut v = provenance(&site);
    page(&mut v, "glossary/warp/index.html")["file"] = "../../etc/passwd.html".into();
    set_provenance(&site, &v);
    refused(
        &verify(&site, &[&public(&site)]),
        "which is not a page of the site",
    );
}

/// Two publish builds of one commit, in two folders (a clone), on 1 and 8 threads and with
/// no SOURCE_DATE_EPOCH: every file the same, the provenance too, and the time they record
/// is the commit's (so a build next week or on another machine agrees). SOURCE_DATE_EPOCH
/// set wins.
#[test]
fn two_publish_builds_of_one_commit_in_different_folders_and_thread_counts_are_byte_identical() {
    let keys = team();
    let a = built(&keys);
    // Committed at 2026-12-01T12:00:00Z, days before the clock of any run of this test.
    let committed_at = 1_796_126_400;
    a.write(
        "content/glossary/warp.md",
        a.read(WARP) + "One more line.\n",
    );
    sign(&a, &keys, WARP);
    git_with(
        &a,
        &["commit", "-q", "-a", "-m", "in the past"],
        &[("GIT_COMMITTER_DATE", &format!("{committed_at} +0000"))],
    );
    // b: the same commit, checked out in another folder.
    let b = Site::new();
    git(&b, &["init", "-q"]);
    git(&b, &["fetch", "-q", &a.root().to_string_lossy(), "HEAD"]);
    git(&b, &["reset", "-q", "--hard", "FETCH_HEAD"]);
    let build = |s: &Site, threads: &str, epoch: Option<&str>| {
        let out = s.root().join("out").to_string_lossy().into_owned();
        let mut command = s.command(&["build", "--out", &out]);
        command.env("RAYON_NUM_THREADS", threads);
        match epoch {
            Some(e) => command.env("SOURCE_DATE_EPOCH", e),
            None => command.env_remove("SOURCE_DATE_EPOCH"),
        };
        assert_code(&command.output().unwrap(), 0);
    };
    build(&a, "1", None);
    build(&b, "8", None);
    let files = |root: &Path| {
        let mut out = std::collections::BTreeMap::new();
        for e in walkdir::WalkDir::new(root.join("out")) {
            let e = e.unwrap();
            if e.file_type().is_file() {
                let rel = e.path().strip_prefix(root).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
        out
    };
    let (fa, fb) = (files(a.root()), files(b.root()));
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    for (path, bytes) in &fa {
        assert!(&fb[path] == bytes, "{} differs", path.display());
    }
    let recorded = |files: &std::collections::BTreeMap<std::path::PathBuf, Vec<u8>>| {
        let v: Value =
            serde_json::from_slice(&files[Path::new("out/coursegen-provenance.json")]).unwrap();
        (v["source_date_epoch"].clone(), v["dirty"].clone())
    };
    assert_eq!(recorded(&fa), (committed_at.into(), false.into()));
    // SOURCE_DATE_EPOCH set wins over the commit.
    build(&a, "1", Some(TODAY_EPOCH));
    let epoch: i64 = TODAY_EPOCH.parse().unwrap();
    assert_eq!(recorded(&files(a.root())).0, epoch);
}
