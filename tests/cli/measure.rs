//! `coursegen measure` without a GPU: `--compare OLD NEW` on committed records, and the
//! command line's refusals. (Runs on a GPU are `tests/gpu.rs`, `--ignored`.)
use std::path::PathBuf;

use crate::util::*;

const OLD: &str = "measurements/bank_conflicts/nvidia-h200-412f3331.json";
const NEW: &str = "measurements/bank_conflicts/nvidia-h200-912094be.json";

fn path(site: &Site, rel: &str) -> String {
    site.root().join(rel).display().to_string()
}

/// The verdict on row `label` in `--compare`'s output.
#[track_caller]
fn verdict<'o>(out: &'o str, label: &str) -> &'o str {
    let line = out
        .lines()
        .find(|l| l.split_whitespace().next() == Some(label))
        .unwrap_or_else(|| panic!("no row {label} in:\n{out}"));
    line.split_whitespace().last().unwrap()
}

#[test]
fn compare_two_committed_records_row_by_row() {
    let site = measured_site(true);
    let o = site.run(&["measure", "--compare", &path(&site, OLD), &path(&site, NEW)]);
    assert_code(&o, 0);
    let out = String::from_utf8_lossy(&o.stdout);
    // Two H200s differ by at most 0.7% on any row: under the manifest's default 2%.
    assert!(
        out.contains("kernel `bank_conflicts`, threshold 2.0% from `")
            && out.contains("kernels/bank_conflicts.yaml`"),
        "{out}"
    );
    assert!(
        out.contains("NVIDIA H200 (id 412f3331), measured 2026-12-02"),
        "{out}"
    );
    assert!(
        out.contains("NVIDIA H200 (id 912094be), measured 2026-12-02"),
        "{out}"
    );
    for label in ["L", "2L", "4L", "8L", "16L", "32L", "33L"] {
        assert_eq!(verdict(&out, label), "same", "{out}");
    }
    assert!(out.trim_end().ends_with("7 same"), "{out}");
}

#[test]
fn compare_says_slower_and_faster_where_the_samples_moved() {
    let site = measured_site(true);
    // The second GPU's record with row 32L 5% slower and row L 10% faster, every sample.
    let mut record: serde_json::Value = serde_json::from_str(&site.read(NEW)).unwrap();
    for row in record["rows"].as_array_mut().unwrap() {
        let factor = match row["label"].as_str().unwrap() {
            "32L" => 1.05,
            "L" => 0.9,
            _ => continue,
        };
        for key in ["median_ms", "min_ms", "max_ms"] {
            row[key] = (row[key].as_f64().unwrap() * factor).into();
        }
        for s in row["samples_ms"].as_array_mut().unwrap() {
            *s = (s.as_f64().unwrap() * factor).into();
        }
    }
    let moved: PathBuf = site.root().join("moved.json");
    std::fs::write(&moved, sealed(record)).unwrap();
    let o = site.run(&[
        "measure",
        "--compare",
        &path(&site, OLD),
        &moved.display().to_string(),
    ]);
    assert_code(&o, 0);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(verdict(&out, "32L"), "slower", "{out}");
    assert_eq!(verdict(&out, "L"), "faster", "{out}");
    assert_eq!(verdict(&out, "2L"), "same", "{out}");
    assert!(
        out.trim_end().ends_with("1 slower, 1 faster, 5 same"),
        "{out}"
    );
}

#[test]
fn compare_refuses_records_of_two_kernels_and_files_that_are_not_records() {
    let site = measured_site(true);
    copy_dir(
        &repo().join("measurements/coalescing"),
        &site.root().join("measurements/coalescing"),
    );
    let other = path(&site, &committed_record("coalescing"));
    let o = site.run(&["measure", "--compare", &path(&site, OLD), &other]);
    assert_code(&o, 2);
    assert_stderr_has(
        &o,
        &[
            "records kernel `bank_conflicts`",
            "compare two records of one kernel",
        ],
    );
    site.write("not-a-record.json", "{}");
    let o = site.run(&[
        "measure",
        "--compare",
        &path(&site, OLD),
        &path(&site, "not-a-record.json"),
    ]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["not-a-record.json"]);
}

#[test]
fn measure_needs_gpu_or_compare_and_not_both() {
    let site = measured_site(true);
    let o = site.run(&["measure"]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["--gpu"]);
    let o = site.run(&["measure", "--gpu", "--compare", OLD, NEW]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["cannot be used with"]);
    // The help says what a run does and how a re-measurement compares.
    let o = site.run(&["measure", "--help"]);
    assert_code(&o, 0);
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        help.contains("same, faster or slower") && help.contains("--compare <OLD> <NEW>"),
        "{help}"
    );
}
