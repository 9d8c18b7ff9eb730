//! Tests of the corpus generator: determinism, and that every entry is what the README's
//! front-matter reference asks of a published glossary entry (parsed back with serde_norway).
use std::collections::HashSet;

use serde::Deserialize;

use super::{Corpus, MARKER, prepare_out};

/// The front matter as the README's front-matter reference spells it, unknown fields refused.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // Fields are read by the deserializer's checks, not all by the tests.
struct FrontMatter {
    title: String,
    term: String,
    category: String,
    cc: String,
    summary: String,
    related: Vec<String>,
    appears_in: Vec<String>,
    sources: Vec<Source>,
    status: String,
    byline: Byline,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Source {
    title: String,
    url: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Byline {
    written_by: String,
    reviewed_by: String,
    written_on: String,
    last_checked_on: String,
}

/// Splits an entry into its YAML and its Markdown body.
fn split(entry: &str) -> (&str, &str) {
    let rest = entry.strip_prefix("---\n").expect("opens with ---");
    let end = rest.find("\n---\n").expect("a closing ---");
    (&rest[..end], &rest[end + 5..])
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

#[test]
fn the_same_seed_gives_the_same_corpus() {
    let (a, b, c) = (Corpus::new(30, 7), Corpus::new(30, 7), Corpus::new(30, 8));
    assert_eq!(a.slugs, b.slugs);
    for i in 0..30 {
        assert_eq!(a.entry(i, 850), b.entry(i, 850));
    }
    assert_ne!(a.entry(0, 850), c.entry(0, 850));
}

#[test]
fn entries_are_published_glossary_entries() {
    let n = 60;
    let corpus = Corpus::new(n, 42);
    let slugs: HashSet<&str> = corpus.slugs.iter().map(String::as_str).collect();
    assert_eq!(slugs.len(), n, "slugs are unique");
    for (i, slug) in corpus.slugs.iter().enumerate() {
        assert!(
            slug.bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        );
        let entry = corpus.entry(i, 850);
        let (yaml, body) = split(&entry);
        let fm: FrontMatter =
            serde_norway::from_str(yaml).unwrap_or_else(|e| panic!("entry {slug}: {e}\n{yaml}"));
        assert_eq!(fm.status, "published");
        assert_eq!(fm.term, corpus.terms[i]);
        assert!(fm.title.ends_with('?'));
        assert!(["7.0", "7.5", "8.0", "8.6", "8.9", "9.0"].contains(&fm.cc.as_str()));
        assert!(fm.appears_in.is_empty());
        assert_eq!(fm.related.len(), 3);
        let distinct: HashSet<&String> = fm.related.iter().collect();
        assert_eq!(distinct.len(), 3, "{slug}: related terms repeat");
        for r in &fm.related {
            assert!(
                slugs.contains(r.as_str()) && r != slug,
                "{slug}: related {r}"
            );
            assert!(
                body.contains(&format!("](/glossary/{r}/)")),
                "{slug}: no link to {r}"
            );
        }
        let by = &fm.byline;
        assert_ne!(by.written_by.to_lowercase(), by.reviewed_by.to_lowercase());
        assert!(
            is_date(&by.written_on) && is_date(&by.last_checked_on),
            "{by:?}"
        );
        assert!(by.written_on <= by.last_checked_on);
        check_body(slug, body);
    }
}

/// ~850 words of prose, one CUDA block of 10–30 lines, one table.
fn check_body(slug: &str, body: &str) {
    let fences: Vec<usize> = body.match_indices("```").map(|(i, _)| i).collect();
    assert_eq!(fences.len(), 2, "{slug}: one fenced block");
    assert!(
        body[fences[0]..].starts_with("```cuda\n"),
        "{slug}: a cuda block"
    );
    let code_lines = body[fences[0]..fences[1]].lines().count() - 1;
    assert!(
        (10..=30).contains(&code_lines),
        "{slug}: {code_lines} lines of code"
    );
    let rows = body.lines().filter(|l| l.starts_with('|')).count();
    assert!((6..=8).contains(&rows), "{slug}: {rows} table rows");
    assert_eq!(body.matches("| --- |").count(), 1, "{slug}: one table");
    let prose: usize = body[..fences[0]]
        .lines()
        .chain(body[fences[1]..].lines().skip(1))
        .filter(|l| !l.starts_with('|'))
        .map(|l| l.split_whitespace().count())
        .sum();
    assert!(
        (800..=950).contains(&prose),
        "{slug}: {prose} words of prose"
    );
}

#[test]
fn a_folder_not_written_by_us_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("site");
    prepare_out(&out).expect("a new folder");
    assert!(out.join(MARKER).exists());
    fs_write(&out.join("content.md"), "x");
    prepare_out(&out).expect("an earlier corpus is cleared");
    assert!(!out.join("content.md").exists());
    let foreign = dir.path().join("mine");
    fs_write(&foreign.join("notes.md"), "keep me");
    let err = prepare_out(&foreign).expect_err("refused");
    assert!(
        err.to_string().contains("not written by gen_corpus"),
        "{err}"
    );
    assert!(foreign.join("notes.md").exists());
}

fn fs_write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}
