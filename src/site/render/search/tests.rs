//! Tests of the search index: a page's text, records, Pagefind's files, shards and their
//! cache, the Pagefind version in the keys.
use super::*;

#[track_caller]
fn case(html: &str, text: &str) {
    assert_eq!(
        text_of(html)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        text
    );
}

#[test]
fn a_formula_is_indexed_as_its_tex() {
    let html = crate::markdown::math::mathml(r"\frac{a}{b} < 1", false).unwrap();
    let text = text_of(&format!("<p>So {html} holds.</p>"));
    assert_eq!(
        text.split_whitespace().collect::<Vec<_>>().join(" "),
        r"So \frac{a}{b} < 1 holds."
    );
}

#[test]
fn text_of_drops_tags_and_decodes_entities() {
    case(
        "<p>A <em>warp</em> is 32 threads.</p>",
        "A warp is 32 threads.",
    );
    case("<p>a &lt; b &amp;&amp; c</p><p>next</p>", "a < b && c next");
    case(
        "<code>x&quot;</code> &unknown; tail <",
        "x\" &unknown; tail",
    );
}

/// What a reader searches for in code reads the same with and without highlighting,
/// and line numbers are not text.
#[test]
fn code_text_is_the_same_highlighted_or_not() {
    let md = "Use `threadIdx.x` and **bank**s.[^1]\n\n```cuda {linenos}\n\
              int x = threadIdx.x * 33; // stride\n__syncthreads();\n```\n\n\
              [^1]: A note.\n";
    let text = |highlight| {
        let opts = crate::markdown::RenderOptions { highlight };
        let html = crate::markdown::render(md, opts, &mut Default::default()).html;
        text_of(&html)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (on, off) = (text(true), text(false));
    assert_eq!(on, off);
    assert_eq!(
        on,
        "Use threadIdx.x and banks. 1 int x = threadIdx.x * 33; // stride __syncthreads(); 1 A note."
    );
}

/// Regression (issue 28): the indexed text read "conflict?. Two" and "passes.. A".
#[test]
fn record_parts_are_sentences_without_doubled_stops() {
    let r = Record::new(
        "/glossary/bank-conflict/".into(),
        "Bank conflict",
        "Glossary",
        &[
            "Bank conflict",
            "What is a bank conflict?",
            "Two lanes, one bank.",
            " Body text",
        ],
    );
    assert_eq!(
        r.content,
        "Bank conflict. What is a bank conflict? Two lanes, one bank. Body text."
    );
    let day = Record::new(
        "/days/day-1/".into(),
        "Day 1",
        "Days",
        &["Day 1", "Day 1", "", "x"],
    );
    assert_eq!(day.content, "Day 1. x.");
}

#[test]
fn hidden_spans_are_skipped_to_their_own_end() {
    case(
        "<p>a<span aria-hidden=\"true\">1<span>2</span>3</span>b <span>c</span>d</p><p>e</p>",
        "ab cd e",
    );
    case("<td>1</td><td>2</td>x<br>y", "1 2 x y");
    case("a<span aria-hidden=\"true\"/>b", "ab");
    // A term's preview.
    case(
        "a <a class=\"term\">warp</a><span class=\"tip\" id=\"term-1\" hidden=\"\">A <code>group</code>.</span> b",
        "a warp b",
    );
}

#[test]
fn index_holds_every_record_in_pagefind_files() {
    let records = vec![Record::new(
        "/glossary/warp/".into(),
        "Warp",
        "Glossary",
        &["Warp", "thirty-two lanes in lockstep"],
    )];
    let files = index(records, &BuildCache::new(None)).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.path.to_string_lossy().into_owned())
        .collect();
    assert!(
        names.contains(&"pagefind/pagefind.js".to_string()),
        "{names:?}"
    );
    assert!(
        names.iter().any(|n| n.ends_with(".pf_fragment")),
        "{names:?}"
    );
    assert!(names.iter().any(|n| n.ends_with(".pf_index")), "{names:?}");
    assert!(
        !names.iter().any(|n| n.contains("pagefind-ui")),
        "{names:?}"
    );
}

fn records(n: usize) -> Vec<Record> {
    (0..n)
        .map(|i| {
            Record::new(
                format!("/glossary/term-{i}/"),
                &format!("Term {i}"),
                "Glossary",
                &[&format!("word{i} shared")],
            )
        })
        .collect()
}

/// The page URLs in one of Pagefind's fragment files: gzip of a marker and either one
/// fragment or a map of several (grouped).
fn fragment_urls(gz: &[u8]) -> Vec<String> {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_string(&mut text)
        .expect("a fragment file is gzip of UTF-8");
    let json = text
        .strip_prefix("pagefind_dcd")
        .expect("Pagefind's marker");
    let value: serde_json::Value = serde_json::from_str(json).expect("a fragment is JSON");
    let url = |v: &serde_json::Value| v["url"].as_str().expect("a fragment's URL").to_string();
    match value.get("url") {
        Some(_) => vec![url(&value)],
        None => (value.as_object().expect("grouped fragments").values())
            .map(url)
            .collect(),
    }
}

fn cached_entries(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("search")).map_or(0, |d| d.count())
}

#[test]
fn shards_split_the_records_and_a_rebuild_indexes_only_the_changed_one() {
    let n = 2 * SHARD_RECORDS + 1;
    assert_eq!(shard_count(n), 3);
    let dir = tempfile::tempdir().unwrap();
    let cache = BuildCache::new(Some(dir.path().to_path_buf()));
    let files = index(records(n), &cache).unwrap();
    let named = |name: &str| files.iter().find(|f| f.path == Path::new(name));
    let list = named("pagefind/shards.json").expect("the shard list");
    assert_eq!(list.bytes, br#"["shard-1/","shard-2/"]"#);
    for shard in ["pagefind/", "pagefind/shard-1/", "pagefind/shard-2/"] {
        assert!(
            named(&format!("{shard}pagefind-entry.json")).is_some(),
            "{shard}"
        );
    }
    assert!(named("pagefind/pagefind.js").is_some());
    assert!(
        named("pagefind/shard-1/pagefind.js").is_none(),
        "merged shards use the primary's script"
    );
    // Every record is in exactly one shard and one fragment file, which holds up to
    // PAGES_PER_FRAGMENT_FILE pages' fragments.
    let fragment_files: Vec<&OutFile> = (files.iter())
        .filter(|f| f.path.extension().is_some_and(|e| e == "pf_fragment"))
        .collect();
    let mut urls: Vec<String> = fragment_files
        .iter()
        .flat_map(|f| fragment_urls(&f.bytes))
        .collect();
    urls.sort();
    let mut expected: Vec<String> = records(n).into_iter().map(|r| r.url).collect();
    expected.sort();
    assert_eq!(urls, expected);
    assert!(
        fragment_files.len() <= n.div_ceil(PAGES_PER_FRAGMENT_FILE) + 3,
        "{} fragment files for {n} pages",
        fragment_files.len()
    );
    assert_eq!(cached_entries(dir.path()), 3);

    // The same records again: every shard from the cache, the same bytes.
    let again = index(records(n), &BuildCache::new(Some(dir.path().to_path_buf()))).unwrap();
    let bytes = |fs: &[OutFile]| {
        fs.iter()
            .map(|f| (f.path.clone(), f.bytes.clone()))
            .collect::<BTreeMap<_, _>>()
    };
    assert_eq!(bytes(&again), bytes(&files));
    assert_eq!(cached_entries(dir.path()), 3);

    // One record changed: one shard indexed again, and the change is in the output.
    let mut changed = records(n);
    changed[7].content.push_str("zanzibar");
    let third = index(changed, &BuildCache::new(Some(dir.path().to_path_buf()))).unwrap();
    assert_eq!(
        cached_entries(dir.path()),
        4,
        "only the changed shard was indexed"
    );
    assert_ne!(bytes(&third), bytes(&files));
}

#[test]
fn a_shard_reads_back_as_written_and_damage_is_refused() {
    let files = vec![
        ("pagefind-entry.json".to_string(), b"{}".to_vec()),
        ("index/en_1.pf_index".to_string(), vec![0, 10, 255, b'\n']),
        ("empty".to_string(), Vec::new()),
    ];
    let blob = encode(&files);
    assert_eq!(decode(&blob), Some(files));
    assert_eq!(decode(&blob[..blob.len() - 1]), None);
    assert_eq!(decode(b"name\nnot a length\n"), None);
}

#[test]
fn the_pagefind_version_in_keys_is_the_one_in_cargo_lock() {
    let lock = include_str!("../../../../Cargo.lock");
    let package = lock
        .split("[[package]]")
        .find(|p| p.contains("\nname = \"pagefind\"\n"))
        .expect("pagefind is in Cargo.lock");
    assert!(package.contains(&format!("\nversion = \"{PAGEFIND_VERSION}\"\n")));
}
