//! `coursegen measure` without a GPU: `--compare OLD NEW` on committed records, `--plan`
//! (what a run would do) on this course, an `init`'d one and broken ones, and the command
//! line's refusals. (Runs on a GPU are `tests/gpu.rs`, `--ignored`.)
use std::path::PathBuf;

use coursegen::measurement::manifest::Manifest;

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

/// A record is content: the GPU name it carries reaches the terminal inert, its escape
/// written out rather than obeyed.
#[test]
fn compare_prints_what_a_record_says_without_its_control_characters() {
    let site = measured_site(true);
    let mut record: serde_json::Value = serde_json::from_str(&site.read(NEW)).unwrap();
    record["device"]["name"] = "NVIDIA H200\u{1b}]0;owned\u{7}\n::error::x".into();
    let odd: PathBuf = site.root().join("odd.json");
    std::fs::write(&odd, sealed(record)).unwrap();
    let o = site.run(&[
        "measure",
        "--compare",
        &path(&site, OLD),
        &odd.display().to_string(),
    ]);
    assert_code(&o, 0);
    let out = stdout(&o);
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{7}') && !out.contains("\n::error::"),
        "{out:?}"
    );
    assert!(out.contains("NVIDIA H200\\u{1b}]0;owned"), "{out}");
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

/// The kernels of the course at `root`, each with its manifest as the library reads it.
fn manifests(root: &std::path::Path) -> Vec<(String, Manifest)> {
    let mut kernels: Vec<(String, Manifest)> = std::fs::read_dir(root.join("kernels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, Manifest::load(&p).unwrap())
        })
        .collect();
    kernels.sort_by(|a, b| a.0.cmp(&b.0));
    kernels
}

/// The part of `--plan`'s output about kernel `name`: from its heading to the next.
#[track_caller]
fn plan_of<'o>(out: &'o str, name: &str) -> &'o str {
    let start = out
        .find(&format!("\nkernel {name}\n"))
        .unwrap_or_else(|| panic!("no kernel {name} in:\n{out}"));
    let rest = &out[start + 1..];
    let end = rest[1..].find("\n\n").map_or(rest.len(), |i| i + 2);
    &rest[..end]
}

/// Each of the kernel's rows (label and value) and each of its records (file, GPU, id) is
/// in its part of the plan.
#[track_caller]
fn assert_plan_lists(out: &str, root: &std::path::Path, name: &str, manifest: &Manifest) {
    let part = plan_of(out, name);
    for (label, value) in manifest.axis.labels.iter().zip(&manifest.axis.values) {
        assert!(
            part.lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>()
                    == [label.as_str(), "=", &value.to_string()]),
            "{name}: no row {label} = {value} in:\n{part}"
        );
    }
    assert!(
        part.contains(&format!("  manifest   kernels/{name}.yaml\n"))
            && part.contains(&format!(
                "kernels/{name}.cu, entry point `{}`",
                manifest.kernel
            ))
            && part.contains(&format!("  reference  `{}`", manifest.reference.kernel)),
        "{part}"
    );
    let dir = root.join("measurements").join(name);
    for record in std::fs::read_dir(&dir).into_iter().flatten() {
        let path = record.unwrap().path();
        let r = coursegen::measurement::record::load(&path).unwrap();
        let line = format!(
            "measurements/{name}/{}: {}, id {}, measured {}, fresh",
            path.file_name().unwrap().to_string_lossy(),
            r.device.name,
            r.device.gpu_id.as_deref().unwrap(),
            &r.run.date[..10]
        );
        assert!(part.contains(&line), "{name}: no `{line}` in:\n{part}");
    }
}

/// `--plan` on this repository's course: every kernel, its rows and its committed records,
/// read with no GPU; nothing is written.
#[test]
fn plan_lists_each_kernel_of_this_course_with_its_rows_and_records() {
    let site = Site::new();
    let o = site.run_in(repo(), &["measure", "--plan"]);
    assert_code(&o, 0);
    let out = stdout(&o);
    let kernels = manifests(repo());
    assert_eq!(kernels.len(), 5);
    let names: Vec<&str> = kernels.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        out.contains(&format!("\n5 kernels: {}\n", names.join(", "))),
        "{out}"
    );
    for (name, manifest) in &kernels {
        assert_plan_lists(&out, repo(), name, manifest);
    }
    // The counters the model of each kind is checked by, and what the pages bind.
    assert!(
        plan_of(&out, "coalescing").contains("global sectors per load request")
            && plan_of(&out, "warp_divergence").contains("smsp__thread_inst_executed.sum"),
        "{out}"
    );
    assert!(
        plan_of(&out, "bank_conflicts").contains("  pages show rows L, "),
        "{out}"
    );
    assert!(out.contains("of sampling per GPU"), "{out}");
}

/// `--plan` on a course `init` wrote: its one kernel, never measured yet.
#[test]
fn plan_lists_the_kernel_of_an_initd_course_and_that_it_has_no_record() {
    let site = Site::new();
    let course = site.root().join("course");
    assert_code(&site.run(&["init", course.to_str().unwrap()]), 0);
    let o = site.run_in(&course, &["measure", "--plan"]);
    assert_code(&o, 0);
    let out = stdout(&o);
    let kernels = manifests(&course);
    assert_eq!(kernels.len(), 1, "{out}");
    let (name, manifest) = &kernels[0];
    assert!(out.contains(&format!("\n1 kernel: {name}\n")), "{out}");
    assert_plan_lists(&out, &course, name, manifest);
    assert!(
        plan_of(&out, name).contains(&format!(
            "  records    none yet: a run writes `measurements/{name}/<gpu>-<id>.json`"
        )),
        "{out}"
    );
    assert!(!course.join("measurements").exists());
}

/// `--kernel` may be given several times: the plan (and a run) takes those kernels alone.
#[test]
fn kernel_may_be_given_several_times() {
    let site = measured_site(true);
    // A run takes them all: with no GPU here it stops at the driver, not at the flag.
    let o = site.run(&["measure", "--gpu", "--kernel", "a", "--kernel", "b"]);
    assert_code(&o, 2);
    assert_stderr_lacks(&o, &["cannot be used multiple times"]);
    let o = site.run(&[
        "measure",
        "--plan",
        "--kernel",
        "warp_divergence",
        "--kernel",
        "bank_conflicts",
    ]);
    assert_code(&o, 0);
    let out = stdout(&o);
    assert!(
        out.contains("\n2 kernels: bank_conflicts, warp_divergence\n"),
        "{out}"
    );
    let kernels = manifests(site.root());
    for (name, manifest) in &kernels {
        if name == "bank_conflicts" || name == "warp_divergence" {
            assert_plan_lists(&out, site.root(), name, manifest);
        } else {
            assert!(!out.contains(&format!("\nkernel {name}\n")), "{out}");
        }
    }
    // The three fixture records, one line each.
    for id in H200_IDS {
        assert!(
            out.contains(&format!("nvidia-h200-{id}.json: NVIDIA H200, id {id}")),
            "{out}"
        );
    }
}

/// Every `--kernel` that names no kernel is reported in one error, with the kernels there.
#[test]
fn unknown_kernels_are_reported_together_with_the_kernels_there() {
    let site = measured_site(false);
    let o = site.run(&[
        "measure",
        "--plan",
        "--kernel",
        "nope",
        "--kernel",
        "coalescing",
        "--kernel",
        "gone",
    ]);
    assert_code(&o, 2);
    assert_stderr_has(
        &o,
        &[
            "no kernels `nope` and `gone` in `",
            "kernels there: bank_conflicts, coalescing, swizzled_tile, vector_loads, warp_divergence",
        ],
    );
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
}

/// Manifests that do not load are each reported at their file and line, all at once, and
/// there is no plan (exit 1).
#[test]
fn broken_manifests_are_reported_with_their_files_and_lines() {
    let site = measured_site(false);
    let coalescing = "kernels/coalescing.yaml";
    site.write(
        coalescing,
        site.read(coalescing)
            .replace("rows: [S1, S2, S4, S8, S16, S32]", "rows: [S1, S64]"),
    );
    let rows = line_of(&site, coalescing, "rows");
    let divergence = "kernels/warp_divergence.yaml";
    site.write(
        divergence,
        site.read(divergence)
            .replace("labels: [P1,", "labels: [P1,,\n  oops: ["),
    );
    let o = site.run(&["measure", "--plan"]);
    assert_fails_at(
        &o,
        &format!("{coalescing}:{rows}"),
        "field `table.rows`: `S64` is not an axis label",
    );
    assert_stderr_has(&o, &["kernels/warp_divergence.yaml:", "2 problems found"]);
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
}

/// Unknown fields in a manifest's sub-sections (`model`, `sampling`, a table column) are
/// each reported in one run at the manifest's own line, with the dotted path and the field
/// meant, once each.
#[test]
fn every_unknown_nested_field_of_a_manifest_is_reported_in_one_run() {
    let site = measured_site(false);
    let manifest = "kernels/bank_conflicts.yaml";
    site.write(
        manifest,
        site.read(manifest)
            .replacen(
                "  word: lane * stride\n",
                "  word: lane * stride\n  wrod: lane\n",
                1,
            )
            .replacen("  min_samples: 10\n", "  min_sampels: 10\n", 1)
            .replacen(
                "{ id: time, heading: \"Time\" }",
                "{ id: time, heding: \"Time\" }",
                1,
            ),
    );
    let o = site.run(&["measure", "--plan"]);
    assert_code(&o, 1);
    let err = stderr(&o);
    let text = site.read(manifest);
    let line = |name: &str| {
        1 + (text.lines())
            .position(|l| l.contains(&format!("{name}:")))
            .unwrap()
    };
    for (field, name, meant) in [
        ("model.wrod", "wrod", "word"),
        ("sampling.min_sampels", "min_sampels", "min_samples"),
        ("table.columns[3].heding", "heding", "heading"),
    ] {
        let said = format!(
            "{manifest}:{}: field `{field}`: unknown field `{name}`",
            line(name)
        );
        assert_eq!(err.matches(&said).count(), 1, "{said}\n{err}");
        assert!(err.contains(&format!("did you mean `{meant}`?")), "{err}");
    }
    assert_eq!(err.matches("unknown field").count(), 3, "{err}");
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
}

#[test]
fn plan_conflicts_with_gpu_and_compare() {
    let site = measured_site(true);
    for with in [&["--gpu"][..], &["--compare", OLD, NEW]] {
        let mut args = vec!["measure", "--plan"];
        args.extend_from_slice(with);
        let o = site.run(&args);
        assert_code(&o, 2);
        assert_stderr_has(&o, &["cannot be used with"]);
    }
    let o = site.run(&["measure", "--help"]);
    assert!(
        stdout(&o).contains("coursegen measure --plan"),
        "{}",
        stdout(&o)
    );
}

/// A kernel's records folder linked to one outside the course is refused by `measure`
/// (here `--plan`, which reads what a run compares with) as by `build`: both list a
/// kernel's records through one function, so neither reads the records it leads to.
#[cfg(unix)]
#[test]
fn a_records_folder_linked_outside_the_course_is_refused_by_measure_as_by_build() {
    let site = measured_site(true);
    let outside = tempfile::tempdir().unwrap();
    let folder = site.root().join("measurements/bank_conflicts");
    copy_dir(&folder, outside.path());
    std::fs::remove_dir_all(&folder).unwrap();
    std::os::unix::fs::symlink(outside.path(), &folder).unwrap();
    for args in [&["measure", "--plan"][..], &["build"]] {
        let o = site.run(args);
        assert_code(&o, 1);
        assert_stderr_has(&o, &["measurements/bank_conflicts`", "is a symbolic link"]);
        assert!(!stdout(&o).contains("nvidia-h200-"), "{}", stdout(&o));
    }
}
