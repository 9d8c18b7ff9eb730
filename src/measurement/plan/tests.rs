use std::path::Path;

use super::*;
use crate::measurement::manifest::FIXTURE;

/// The record of `bank_conflicts` this repository commits (one H200's).
const RECORD: &str = "measurements/bank_conflicts/nvidia-h200-52952016.json";

/// A course with this repository's `bank_conflicts` kernel, manifest and record.
fn course() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
    std::fs::create_dir_all(dir.path().join("measurements/bank_conflicts")).unwrap();
    for file in [
        "kernels/bank_conflicts.cu",
        "kernels/bank_conflicts.yaml",
        RECORD,
    ] {
        std::fs::copy(repo.join(file), dir.path().join(file)).unwrap();
    }
    dir
}

fn options(kernels: &[&str], counters: CounterChoice) -> PlanOptions {
    PlanOptions {
        kernels: kernels.iter().map(|k| (*k).to_owned()).collect(),
        counters,
        ..PlanOptions::default()
    }
}

fn text(root: &Path, opts: &PlanOptions) -> String {
    plan(root, opts).unwrap().to_string()
}

#[track_caller]
fn has(text: &str, parts: &[&str]) {
    let missing: Vec<&&str> = parts.iter().filter(|p| !text.contains(**p)).collect();
    assert!(missing.is_empty(), "lacks {missing:?}:\n{text}");
}

#[test]
fn a_plan_lists_files_reference_rows_launch_sampling_and_the_fresh_record() {
    let dir = course();
    let out = text(dir.path(), &options(&[], CounterChoice::Never));
    has(
        &out,
        &[
            "1 kernel: bank_conflicts\n",
            "hardware counters: none: --no-counters\n",
            "kernel bank_conflicts\n",
            "  manifest   kernels/bank_conflicts.yaml\n",
            "  source     kernels/bank_conflicts.cu, entry point `bank_conflicts`; NVRTC options --std=c++17",
            "  reference  `bank_conflicts_reference`",
            "  axis       stride (words), 7 rows: label = value\n",
            "               L   = 1\n",
            "               33L = 33\n",
            "  launch     1024 threads a block, 16 waves; persistent",
            "logical blocks = 16 waves × SMs × resident blocks per SM",
            "e.g. NVIDIA H200: 16 × 132 SMs × 2 = 4224 logical blocks",
            "per row 5 warm-up launches, then 10 to 500 samples, until the relative standard \
             deviation is at most 0.5% or 5 s have passed",
            "at most about 7 rows × 5 s = 35 s of sampling",
            "  counters   shared-memory wavefronts per load instruction: \
             `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum` over \
             `smsp__sass_inst_executed_op_shared_ld.sum` (not read)",
            "  pages show rows L, 32L, 33L; counters of rows L, 32L, 33L\n",
            "  records    measurements/bank_conflicts/nvidia-h200-52952016.json: NVIDIA H200, \
             id 52952016, measured 2026-12-02, fresh\n",
            "In all: at most about 35 s of sampling per GPU",
        ],
    );
}

#[test]
fn an_edited_manifest_or_source_makes_the_record_stale() {
    let dir = course();
    let yaml = dir.path().join("kernels/bank_conflicts.yaml");
    std::fs::write(&yaml, format!("{FIXTURE}# edited\n")).unwrap();
    let out = text(dir.path(), &options(&[], CounterChoice::Never));
    has(&out, &[", stale (the manifest changed since)"]);
    std::fs::write(dir.path().join("kernels/bank_conflicts.cu"), "// edited").unwrap();
    let out = text(dir.path(), &options(&[], CounterChoice::Never));
    has(
        &out,
        &[", stale (the source and the manifest changed since)"],
    );
    assert!(!out.contains(", fresh"), "{out}");
}

/// Without counters, a record whose counters the table shows would be lost: the run
/// refuses the kernel before measuring it, and the plan says so (not with --force).
#[test]
fn without_counters_the_plan_says_the_run_would_keep_the_counted_record() {
    let dir = course();
    let out = text(dir.path(), &options(&[], CounterChoice::Never));
    has(
        &out,
        &["so this run would be refused before measuring: \
           `measurements/bank_conflicts/nvidia-h200-52952016.json` holds hardware counters on \
           rows L, 32L, 33L, which the pages show, and --no-counters reads none; --force \
           replaces it anyway"],
    );
    let forced = PlanOptions {
        force: true,
        ..options(&[], CounterChoice::Never)
    };
    assert!(!text(dir.path(), &forced).contains("refused"));
}

#[test]
fn what_the_prose_binds_is_shown_beside_the_table() {
    let dir = course();
    let prose = Needs {
        rows: ["2L".to_owned()].into(),
        counters: ["4L".to_owned()].into(),
    };
    let opts = PlanOptions {
        prose: [("bank_conflicts".to_owned(), prose)].into(),
        ..options(&[], CounterChoice::Never)
    };
    has(
        &text(dir.path(), &opts),
        &[
            "pages show rows L, 2L, 4L, 32L, 33L; counters of rows L, 4L, 32L, 33L\n",
            "(of these, the prose binds rows 2L, 4L)",
        ],
    );
}

#[test]
fn a_kernel_never_measured_says_where_its_record_goes() {
    let dir = course();
    std::fs::remove_file(dir.path().join(RECORD)).unwrap();
    let out = text(
        dir.path(),
        &options(&["bank_conflicts"], CounterChoice::Never),
    );
    has(
        &out,
        &["  records    none yet: a run writes `measurements/bank_conflicts/<gpu>-<id>.json`"],
    );
    assert!(!out.contains("e.g. "), "{out}");
}

/// Every bad manifest of the kernels asked for, at once, each at its file and line: a field
/// that fails its check, YAML that does not parse, a `.cu` without a manifest.
#[test]
fn every_bad_manifest_is_reported_at_its_file_and_line() {
    let dir = course();
    let kernels = dir.path().join("kernels");
    let wrong_row = FIXTURE.replace("rows: [L, 32L, 33L]", "rows: [L, 64L]");
    std::fs::write(kernels.join("a.yaml"), &wrong_row).unwrap();
    std::fs::write(kernels.join("b.yaml"), "kernel: [unclosed\n").unwrap();
    for k in ["a", "b", "c"] {
        std::fs::write(kernels.join(format!("{k}.cu")), "// k").unwrap();
    }
    let err = plan(dir.path(), &PlanOptions::default()).unwrap_err();
    assert!(err.is_content());
    let PlanError::Manifests(Diagnostics(problems)) = &err else {
        panic!("{err}");
    };
    let rows_line = wrong_row.lines().position(|l| l.contains("rows:")).unwrap() + 1;
    let places: Vec<(String, usize, Option<&str>)> = (problems.iter())
        .map(|d| (d.file.display().to_string(), d.line, d.field.as_deref()))
        .collect();
    assert_eq!(
        places,
        [
            ("kernels/a.yaml".to_owned(), rows_line, Some("table.rows")),
            ("kernels/b.yaml".to_owned(), 1, None),
            ("kernels/c.yaml".to_owned(), 0, None),
        ],
        "{err}"
    );
    let text = err.to_string();
    has(
        &text,
        &[
            "`64L` is not an axis label",
            "not a valid manifest",
            "missing: `kernels/c.cu` has no manifest",
            "3 problems found",
        ],
    );
    // The kernels asked for only: the good one alone plans.
    assert!(
        plan(
            dir.path(),
            &options(&["bank_conflicts"], CounterChoice::Never)
        )
        .is_ok()
    );
}

#[test]
fn unknown_kernels_are_named_together_as_a_usage_error() {
    let dir = course();
    let err = plan(
        dir.path(),
        &options(&["nope", "bank_conflicts", "gone"], CounterChoice::Never),
    )
    .unwrap_err();
    assert!(!err.is_content());
    let text = err.to_string();
    has(
        &text,
        &[
            "no kernels `nope` and `gone` in",
            "kernels there: bank_conflicts",
        ],
    );
}

/// What the manifest and the record say is content: a label that carries a control
/// character or a newline is printed escaped, on its own line.
#[test]
fn content_cannot_put_control_characters_or_lines_into_the_plan() {
    let dir = course();
    let yaml = FIXTURE.replace(
        "labels: [L, 2L, 4L, 8L, 16L, 32L, 33L]",
        "labels: [\"L\\e[31m\", \"2L\\nfake line\", 4L, 8L, 16L, 32L, 33L]",
    );
    let yaml = yaml.replace("rows: [L, 32L, 33L]", "rows: [32L, 33L]");
    std::fs::write(dir.path().join("kernels/bank_conflicts.yaml"), yaml).unwrap();
    let out = text(dir.path(), &options(&[], CounterChoice::Never));
    assert!(
        !out.contains('\u{1b}') && !out.contains("\nfake line"),
        "{out}"
    );
    has(&out, &["L\\u{1b}[31m", "2L\\nfake line"]);
}

#[test]
fn seconds_read_as_a_person_says_them() {
    for (s, want) in [
        (5.0, "5 s"),
        (0.25, "0.25 s"),
        (35.0, "35 s"),
        (60.0, "1 min"),
        (150.0, "2 min 30 s"),
    ] {
        assert_eq!(seconds(s), want, "{s}");
    }
    assert_eq!([waves(1), waves(16)], ["1 wave", "16 waves"]);
}

/// What the counter flags and `ncu` on the PATH (or not) make of a run, in the head and
/// under each kernel; with ncu, no record is at risk.
#[test]
fn the_counters_follow_the_flags_and_ncu() {
    let dir = course();
    let mut p = plan(dir.path(), &options(&[], CounterChoice::WhenNcu)).unwrap();
    for (counters, ncu, head, read) in [
        (
            CounterChoice::Never,
            Some("/opt/ncu"),
            "none: --no-counters",
            false,
        ),
        (
            CounterChoice::WhenNcu,
            None,
            "none: no `ncu` on the PATH now",
            false,
        ),
        (
            CounterChoice::Always,
            None,
            "--counters, but no `ncu` is on the PATH now: the run would stop",
            false,
        ),
        (
            CounterChoice::WhenNcu,
            Some("/opt/ncu"),
            "read under `/opt/ncu`",
            true,
        ),
        (
            CounterChoice::Always,
            Some("/opt/ncu"),
            "read under `/opt/ncu`",
            true,
        ),
    ] {
        p.counters = counters;
        p.ncu = ncu.map(PathBuf::from);
        let out = p.to_string();
        has(&out, &[&format!("\nhardware counters: {head}")]);
        assert_eq!(
            out.contains("`smsp__sass_inst_executed_op_shared_ld.sum` (read)"),
            read,
            "{out}"
        );
        assert_eq!(out.contains("refused before measuring"), !read, "{out}");
        assert_eq!(out.contains("and one ncu launch per row."), read, "{out}");
    }
}
