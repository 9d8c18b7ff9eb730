use super::*;

#[track_caller]
fn split_case(text: &str, yaml: &str, body: &str, body_line: usize) {
    let s = split(text).expect("splits");
    assert_eq!((s.yaml, s.body, s.body_line), (yaml, body, body_line));
}

#[test]
fn splits() {
    split_case("---\ntitle: a\n---\nbody\n", "title: a\n", "body\n", 4);
    split_case("---\n---\n", "", "", 3);
    split_case("---\ntitle: a\n---", "title: a\n", "", 4);
    split_case("---\na: 1\nb: 2\n---  \n\nx", "a: 1\nb: 2\n", "\nx", 5);
}

#[test]
fn split_errors() {
    assert_eq!(split("title: a\n"), Err(SplitError::NoOpening));
    assert_eq!(split("---\ntitle: a\nbody"), Err(SplitError::NoClosing));
}

#[track_caller]
fn yaml_case(yaml: &str, line: usize, field: Option<&str>, contains: &str) {
    let text = format!("---\n{yaml}---\nbody\n");
    let s = split(&text).unwrap();
    let p = parse(&s).expect_err("must fail").remove(0);
    assert_eq!(p.line, line, "{p:?}");
    assert_eq!(p.field.as_deref(), field, "{p:?}");
    assert!(p.message.contains(contains), "{p:?}");
}

#[test]
fn every_unknown_field_is_said_in_one_run_each_at_its_line() {
    let text =
        "---\ntitel: a\nterm: b\nsumary: c\nbyline:\n  written_by: x\nzzzzzzzz: d\n---\nbody\n";
    let problems = parse(&split(text).unwrap()).expect_err("must fail");
    let said: Vec<_> = (problems.iter())
        .map(|p| {
            (
                p.line,
                p.field.as_deref().unwrap(),
                p.help.as_deref().unwrap(),
            )
        })
        .collect();
    assert_eq!(said.len(), 3, "{problems:?}");
    assert_eq!(said[0], (2, "titel", "did you mean `title`?"));
    assert_eq!(
        (said[1].0, said[1].1, said[1].2),
        (4, "sumary", "did you mean `summary`?")
    );
    assert_eq!((said[2].0, said[2].1), (7, "zzzzzzzz"));
    assert!(
        said[2].2.starts_with("the fields allowed here are `title`"),
        "{}",
        said[2].2
    );
}

#[test]
fn every_unknown_field_at_any_depth_is_said_once_with_its_path() {
    let text = "---\ntitle: a\nbyline:\n  writen_by: x\ndiagram:\n  map:\n    knd: shared\n  \
                highlight: {row: 1, colum: 2}\n  wdth: 3\nsources:\n  - {title: t, url: u}\n  \
                - title: t\n    ulr: u\nbyline2:\n  zz: 1\n---\nbody\n";
    let problems = parse(&split(text).unwrap()).expect_err("must fail");
    let said: Vec<_> = (problems.iter())
        .map(|p| {
            (
                p.line,
                p.field.as_deref().unwrap(),
                p.help.as_deref().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        said[..5],
        [
            (4, "byline.writen_by", "did you mean `written_by`?"),
            (7, "diagram.map.knd", "did you mean `kind`?"),
            (8, "diagram.highlight.colum", "did you mean `column`?"),
            (9, "diagram.wdth", "did you mean `width`?"),
            (13, "sources[1].ulr", "did you mean `url`?"),
        ],
        "{problems:?}"
    );
    // An unknown map's own keys are not judged.
    assert_eq!(said.len(), 6, "{problems:?}");
    assert_eq!(said[5].1, "byline2");
}

#[test]
fn the_field_tree_reaches_every_nested_struct() {
    let tree = FieldTree::of::<RawFrontMatter>();
    let at = |path: &str| {
        (path.split('.'))
            .try_fold(&tree, |t, f| t.nested(f))
            .map(|t| t.names)
    };
    assert!(tree.names.contains(&"byline"), "{tree:?}");
    assert!(at("byline").unwrap().contains(&"reviewed_by"), "{tree:?}");
    assert!(at("diagram").unwrap().contains(&"alt"), "{tree:?}");
    assert!(at("diagram.map").unwrap().contains(&"kind"), "{tree:?}");
    assert!(
        at("diagram.highlight").unwrap().contains(&"column"),
        "{tree:?}"
    );
    assert!(at("sources").unwrap().contains(&"url"), "{tree:?}");
    assert_eq!(at("title"), None);
    assert_eq!(at("byline.written_by"), None, "an untagged enum is a leaf");
}

#[track_caller]
fn flow_case(text: &str, keys: &[&str]) {
    let found: Vec<_> = (flow_keys(text).into_iter())
        .map(|(start, len)| &text[start..start + len])
        .collect();
    assert_eq!(found, keys, "{text}");
}

#[test]
fn a_flow_mapping_s_own_keys_are_read() {
    flow_case("{a: 1, b: [x, y: 2], c: {d: 1}}", &["a", "b", "c"]);
    flow_case(
        "{ id: time, heading: \"a, e: b\" }  # c: d",
        &["id", "heading"],
    );
    flow_case("{'q': 1, \"r\\\": s\": 2, b: 2}", &["b"]);
    flow_case("{a: 1, b: 2", &[]);
    flow_case("{é: 1, ü-x: 2, ok: 3}", &["ok"]);
}

#[test]
fn a_tab_is_called_a_tab_at_its_line() {
    let p = parse(&split("---\ntitle: Tab\n\tterm: x\n---\nbody\n").unwrap())
        .expect_err("must fail")
        .remove(0);
    assert_eq!(p.line, 3, "{p:?}");
    assert!(p.message.contains("a tab indents this line"), "{p:?}");
}

#[test]
fn yaml_problems_name_whole_file_lines_and_fields() {
    yaml_case("title: a\ntitel: b\n", 3, Some("titel"), "unknown field");
    yaml_case(
        "title: a\nrelated: warp\n",
        3,
        Some("related"),
        "invalid type",
    );
    yaml_case(
        "title: a\nbyline:\n  writen_by: x\n",
        4,
        Some("byline.writen_by"),
        "unknown field",
    );
    // One parse: the type error the parse meets first is the one reported, with a help
    // that explains the bracket.
    yaml_case("title: [a\n", 2, Some("title"), "invalid type: sequence");
    yaml_case("title: a\nsummary: \"b\n", 3, None, "end of stream");
    yaml_case("- a\n- b\n", 2, None, "mapping");
}

#[test]
fn unknown_field_suggests_the_closest() {
    let s = split("---\ntitel: x\n---\n").unwrap();
    let p = parse(&s).unwrap_err().remove(0);
    assert_eq!(p.help.as_deref(), Some("did you mean `title`?"));
}

#[test]
fn field_lines_are_whole_file_lines() {
    let lines = FieldLines::index("title: a\nbyline:\n  written_by: x\n", 2);
    assert_eq!(lines.of("title"), 2);
    assert_eq!(lines.of("byline.written_by"), 4);
    assert_eq!(lines.of("byline.reviewed_by"), 3);
    assert_eq!(lines.of("summary"), 1);
    let lines = FieldLines::index(
        "sources:\n  - title: t\n    url: u\nbyline:\n  url: v\n# note: x\nurl: w\n",
        5,
    );
    assert_eq!(lines.of("sources.url"), 7);
    assert_eq!(lines.of("byline.url"), 9);
    assert_eq!(lines.of("url"), 11, "a nested key is not a top-level one");
    assert_eq!(lines.of("note"), 4, "a comment is not a key");
    let lines = FieldLines::index(
        "diagram:\n  map:\n    kind: shared\n  highlight: {row: 1, column: 2}\n  kind: x\n",
        2,
    );
    assert_eq!(lines.of("diagram.map.kind"), 4);
    assert_eq!(lines.of("diagram.kind"), 6);
    assert_eq!(lines.of("diagram.highlight.column"), 5);
    assert_eq!(lines.of("diagram.map.word"), 3);
}

/// The keys as they were read before `keys` read them byte by byte: the same keys,
/// parents and lines for any text.
fn keys_as_searched(yaml: &str, first_line: usize) -> Vec<(Option<&str>, &str, usize)> {
    let mut parent: Option<&str> = None;
    (yaml.lines().enumerate())
        .filter_map(|(i, line)| {
            let indent = line.len() - line.trim_start().len();
            let trimmed = line.trim_start().trim_start_matches("- ");
            let (key, _) = trimmed.split_once(':')?;
            if key.is_empty() || key.starts_with('#') || !key.chars().all(is_key_char) {
                return None;
            }
            if indent == 0 {
                parent = Some(key);
                Some((None, key, first_line + i))
            } else {
                Some((Some(parent?), key, first_line + i))
            }
        })
        .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, failure_persistence: None, ..Default::default() })]
    #[test]
    fn keys_are_read_as_they_were_searched(
        picks in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..40),
    ) {
        const PIECES: &[&str] = &[
            "a", "b_c", "x-y", "7", ":", ": v", "- ", "- - ", "-", " ", "  ", "\t", "\n",
            "\n", "\n- ", "#", "é", "\u{3000}", "\r\n", "\"q:\"", ".",
        ];
        let yaml: String = picks.iter().map(|p| *p.get(PIECES)).collect();
        let lines = FieldLines::index(&yaml, 2);
        proptest::prop_assert_eq!(lines.keys().collect::<Vec<_>>(), keys_as_searched(&yaml, 2));
    }
}

/// What `serve` compares to know whether checks across entries must run again.
#[test]
fn field_lines_are_equal_when_the_keys_sit_on_the_same_lines() {
    let lines = |yaml| FieldLines::index(yaml, 2);
    assert_eq!(lines("title: a\nslug: x\n"), lines("title: b c\nslug: x\n"));
    assert_ne!(lines("title: a\nslug: x\n"), lines("title: a\n\nslug: x\n"));
    assert_ne!(lines("title: a\nslug: x\n"), lines("title: a\nslugs: x\n"));
    assert_ne!(lines("a:\n  b: 1\n"), lines("a:\nb: 1\n"));
}
