use super::*;

fn parse(text: &str) -> Result<Manifest, ManifestError> {
    Manifest::parse(Path::new("kernels/x.yaml"), text)
}

#[test]
fn the_committed_manifest_parses() {
    let m = parse(FIXTURE).unwrap();
    assert_eq!(m.axis.values, [1, 2, 4, 8, 16, 32, 33]);
    assert_eq!(m.table.rows, ["L", "32L", "33L"]);
    assert_eq!(m.value_of("33L"), Some(33));
    assert_eq!(m.value_of("64L"), None);
}

#[test]
fn unknown_fields_are_an_error_naming_the_file() {
    let text = format!("{FIXTURE}\nstrides: [1]\n");
    let err = parse(&text).unwrap_err().to_string();
    assert!(
        err.contains("kernels/x.yaml") && err.contains("strides"),
        "{err}"
    );
}

#[test]
fn bytes_per_thread_may_follow_the_axis_and_must_be_positive_in_every_row() {
    let per_row = FIXTURE.replace("bytes_per_thread: 8192", "bytes_per_thread: 2048 * stride");
    let m = parse(&per_row).unwrap();
    let bytes: Vec<u64> = (m.axis.values.iter())
        .map(|&v| m.bytes_per_thread_at(v).unwrap())
        .collect();
    assert_eq!(bytes, [2048, 4096, 8192, 16384, 32768, 65536, 67584]);
    assert_eq!(parse(FIXTURE).unwrap().bytes_per_thread_at(33), Ok(8192));
    for (bad, want) in [
        ("bytes_per_thread: 8192", "bytes_per_thread: 32 - stride"),
        (
            "bytes_per_thread: 8192",
            "bytes_per_thread: 1 / (stride - 1)",
        ),
        ("bytes_per_thread: 8192", "bytes_per_thread: strid * 4"),
    ] {
        let err = parse(&FIXTURE.replace(bad, want)).unwrap_err().to_string();
        assert!(err.contains("bytes_per_thread"), "{want}: {err}");
    }
}

#[test]
fn a_table_row_must_be_an_axis_label() {
    let text = FIXTURE.replace("rows: [L, 32L, 33L]", "rows: [L, 64L]");
    let err = parse(&text).unwrap_err().to_string();
    assert!(err.contains("table.rows") && err.contains("`64L`"), "{err}");
}

#[test]
fn the_three_manifests_parse_and_name_their_reference_kernels() {
    for (text, kind, reference) in [
        (FIXTURE, AccessKind::Shared, "bank_conflicts_reference"),
        (
            include_str!("../../../kernels/coalescing.yaml"),
            AccessKind::Global,
            "coalescing_reference",
        ),
        (
            include_str!("../../../kernels/warp_divergence.yaml"),
            AccessKind::Branch,
            "warp_divergence_reference",
        ),
    ] {
        let m = parse(text).unwrap();
        assert_eq!((m.kind(), m.reference.kernel.as_str()), (kind, reference));
    }
}

/// The reference is named at its line: missing, not an identifier, the measured kernel
/// itself, or with a field the format does not have.
#[test]
fn a_bad_reference_is_refused_at_its_line_and_field() {
    const REF: &str = "reference:\n  kernel: bank_conflicts_reference\n";
    assert!(FIXTURE.contains(REF));
    let line = FIXTURE[..FIXTURE.find(REF).unwrap()].lines().count() + 2;
    for (to, says) in [
        (
            "reference:\n  kernel: \"x; rm -rf /\"\n",
            "letters, digits and `_`",
        ),
        (
            "reference:\n  kernel: bank_conflicts\n",
            "`bank_conflicts` is the kernel measured",
        ),
    ] {
        let err = parse(&FIXTURE.replace(REF, to)).unwrap_err().to_string();
        let at = format!("manifest `kernels/x.yaml`, line {line}, field `reference.kernel`: ");
        assert!(err.starts_with(&at) && err.contains(says), "{to}: {err}");
    }
    let err = parse(&FIXTURE.replace(REF, "reference:\n  kind: lane_window_sum\n"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown field `kind`, expected `kernel`"),
        "{err}"
    );
    let err = parse(&FIXTURE.replace(REF, "")).unwrap_err().to_string();
    assert!(err.contains("missing field `reference`"), "{err}");
}

#[test]
fn the_compare_threshold_defaults_and_can_be_set() {
    assert_eq!(
        parse(FIXTURE).unwrap().compare.threshold,
        DEFAULT_COMPARE_THRESHOLD
    );
    let set = parse(&format!("{FIXTURE}\ncompare:\n  threshold: 0.05\n")).unwrap();
    assert_eq!(set.compare.threshold, 0.05);
    let err = parse(&format!("{FIXTURE}\ncompare:\n  threshold: 5\n"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("compare.threshold"), "{err}");
}

#[test]
fn only_kernels_that_move_bytes_have_a_bandwidth_column() {
    let with = |text: &str, heading: &str| {
        text.replace(
            "    - { id: time, heading: \"Time\" }",
            &format!("    - {{ id: bandwidth, heading: \"{heading}\" }}\n    - {{ id: time, heading: \"Time\" }}"),
        )
    };
    assert!(parse(&with(FIXTURE, "Bandwidth")).is_ok());
    let path = Path::new("kernels/warp_divergence.yaml");
    let text = with(
        include_str!("../../../kernels/warp_divergence.yaml"),
        "GB/s",
    );
    let err = Manifest::parse(path, &text).unwrap_err().to_string();
    assert!(
        err.contains("table.columns") && err.contains("moves no bytes"),
        "{err}"
    );
    assert!(!bound(AccessKind::Branch).moves_bytes());
    assert!(bound(AccessKind::Global).moves_bytes());
    assert!(!bound(AccessKind::Global).follows_sm_clock());
    assert!(bound(AccessKind::Shared).follows_sm_clock());
}

/// The committed manifest's model, as it stands in the file.
const MODEL: &str = "model:\n  kind: shared\n  word: lane * stride\n";

/// The committed manifest without its model.
fn bare() -> String {
    assert!(FIXTURE.contains(MODEL));
    FIXTURE.replace(MODEL, "")
}

fn with_model(model: &str) -> Result<Manifest, ManifestError> {
    parse(&format!("{}\nmodel:\n{model}", bare()))
}

/// The line `offset` lines under `model:` in the fixture with a model appended.
fn model_line(offset: usize) -> usize {
    bare().lines().count() + 2 + offset
}

#[track_caller]
fn refused(model: &str, line: usize, field: &str, says: &str) {
    let err = with_model(model).unwrap_err().to_string();
    let at = format!("manifest `kernels/x.yaml`, line {line}, field `{field}`: ");
    assert!(err.starts_with(&at) && err.contains(says), "{model}: {err}");
}

/// A declared map predicts the rows: the committed stride map, a swizzle, a float4.
#[test]
fn a_declared_lane_map_predicts_each_row() {
    let committed = parse(FIXTURE).unwrap();
    let declared = with_model("  kind: shared\n  word: lane * stride\n").unwrap();
    for m in [&committed, &declared] {
        let cost = |v| m.predict(v, Geometry::STANDARD).unwrap().cost();
        assert_eq!([cost(1), cost(2), cost(32), cost(33)], [1, 2, 32, 1]);
        assert_eq!(m.model.word.as_deref(), Some("lane * stride"));
    }
    let swizzled = with_model(
        "  kind: shared\n  word: lane * COLS + (stride ^ lane)\n  constants: { COLS: 32 }\n",
    )
    .unwrap();
    assert_eq!(swizzled.predict(5, Geometry::STANDARD).unwrap().cost(), 1);
    let wide = with_model("  kind: shared\n  address: lane * 16\n  width: 16\n").unwrap();
    assert_eq!(wide.predict(1, Geometry::STANDARD).unwrap().cost(), 4);
    assert_eq!(wide.counter_names(), default_counters(AccessKind::Shared));
    let err = parse(&FIXTURE.replace(MODEL, "model: shared_banks\n"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("invalid type: string \"shared_banks\""),
        "{err}"
    );
    let err = parse(&bare()).unwrap_err().to_string();
    assert!(err.contains("missing field `model`"), "{err}");
}

/// A sweep over access widths: the width is an expression of the axis (here named
/// `stride`, the fixture's), and each row is predicted at its own width.
#[test]
fn a_width_per_row_predicts_float_float2_float4() {
    let m = with_model(
        "  kind: shared\n  address: lane * (4 << (stride % 3))\n  width: 4 << (stride % 3)\n",
    )
    .unwrap();
    let at = |v| match m.predict(v, Geometry::STANDARD).unwrap() {
        Prediction::Shared(s) => (s.wavefronts, s.bytes_per_instruction()),
        other => panic!("{other:?}"),
    };
    // stride 33: 33 % 3 = 0, 4 bytes; 1: 8 bytes; 2: 16 bytes.
    assert_eq!([at(33), at(1), at(2)], [(1, 128), (2, 256), (4, 512)]);
    refused(
        "  kind: shared\n  address: lane * 4\n  width: lane * 4\n",
        model_line(3),
        "model.width",
        "cannot depend on `lane`",
    );
    refused(
        "  kind: shared\n  address: lane * 4\n  width: stride * 4\n",
        model_line(3),
        "model.width",
        "at stride = 8: width 32 is not supported",
    );
}

/// Every problem of a map names the manifest, the line and the field.
#[test]
fn a_bad_lane_map_is_refused_at_its_line_and_field() {
    refused(
        "  kind: shared\n  word: lane * warp\n",
        model_line(2),
        "model.word",
        "column 8: unknown name `warp`",
    );
    refused(
        "  kind: shared\n  word: lane / (stride / 2)\n",
        model_line(2),
        "model.word",
        "lane 0 at stride = 1: `/` by zero",
    );
    refused(
        "  kind: shared\n  word: lane - 1\n",
        model_line(2),
        "model.word",
        "lane 0 at stride = 1: the word is -1",
    );
    refused(
        "  kind: shared\n  word: lane * 4611686018427387904 * 4\n",
        model_line(2),
        "model.word",
        "overflows 64 bits",
    );
    refused(
        "  kind: shared\n  word: lane\n  address: lane\n",
        model_line(3),
        "model.address",
        "one of `word` or `address`",
    );
    refused(
        "  kind: global\n  word: lane\n",
        model_line(2),
        "model.word",
        "one of `address`",
    );
    refused(
        "  kind: branch\n",
        model_line(0),
        "model",
        "a `branch` model needs `path`",
    );
    refused(
        "  kind: shared\n  address: lane * 12\n  width: 12\n",
        model_line(3),
        "model.width",
        "width 12 is not supported",
    );
    refused(
        "  kind: branch\n  path: lane\n  width: 4\n",
        model_line(3),
        "model.width",
        "reads no bytes",
    );
    refused(
        "  kind: shared\n  word: lane\n  constants: { lane: 3 }\n",
        model_line(3),
        "model.constants",
        "constant `lane` cannot be used",
    );
    refused(
        "  kind: shared\n  word: lane\n  counters: { what: w, count: \"--launch-skip\", requests: a.sum }\n",
        model_line(3),
        "model.counters.count",
        "an Nsight Compute metric name",
    );
    let deep = format!(
        "  kind: shared\n  word: \"{}lane{}\"\n",
        "(".repeat(500),
        ")".repeat(500)
    );
    refused(
        &deep,
        model_line(2),
        "model.word",
        "nests more than 64 levels deep",
    );
    let huge = format!("  kind: shared\n  word: \"{}\"\n", "1+".repeat(1 << 19));
    refused(
        &huge,
        model_line(2),
        "model.word",
        "1048576 bytes long; at most 4096",
    );
    let err = with_model("  kind: bandwidth\n  word: lane\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown variant `bandwidth`, expected one of `shared`, `global`, `branch`"),
        "{err}"
    );
    let err = with_model("  kind: shared\n  words: lane\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `words`"), "{err}");
}
