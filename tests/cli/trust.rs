//! Measurements a reader can trust: noisy and unsettled records, model and counter
//! disagreements and missing counters fail `build --strict` naming the record and the row and
//! why, a line for the record and at most one per row; the page states each row's spread, the
//! counted value, the GPUs merged and a compute-capability mismatch.
use crate::util::*;

const A: &str = "measurements/bank_conflicts/nvidia-h200-412f3331.json";
/// The other committed H200 records.
const OTHERS: [&str; 2] = [
    "measurements/bank_conflicts/nvidia-h200-912094be.json",
    "measurements/bank_conflicts/nvidia-h200-febe8072.json",
];

/// The seed site with one H200 record, edited by `edit` (the kernel is unchanged, so the
/// record stays fresh: only what it says changes).
fn site_with(edit: impl Fn(&mut serde_json::Value)) -> Site {
    let site = measured_site(true);
    for other in OTHERS {
        std::fs::remove_file(site.root().join(other)).unwrap();
    }
    let mut record: serde_json::Value = serde_json::from_str(&site.read(A)).unwrap();
    edit(&mut record);
    site.write(A, sealed(record));
    // Pinned, so a --strict failure here is about the record, not the review.
    sign_bank(&site);
    site
}

fn row<'a>(record: &'a mut serde_json::Value, label: &str) -> &'a mut serde_json::Value {
    record["rows"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["label"] == label)
        .unwrap()
}

#[track_caller]
fn strict_fails_with(site: &Site, needles: &[&str]) {
    let o = site.run(&["build", "--strict"]);
    assert_code(&o, 1);
    assert_stderr_has(&o, needles);
    // names the entry
    assert_stderr_has(&o, &["bank.md:"]);
    assert!(!site.exists("public"), "nothing written");
}

#[test]
fn a_noisy_record_fails_strict_and_the_preview_says_so() {
    let site = site_with(|r| {
        r["run"]["noise"] = serde_json::json!([
            "another compute process was on the GPU before the sweep (pid 1272)"
        ]);
    });
    strict_fails_with(
        &site,
        &[
            "marked noisy (written with --accept-noisy): another compute process was on the GPU before the sweep (pid 1272)",
        ],
    );
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    assert_stderr_has(&o, &["warning:", "marked noisy"]);
    let html = site.read("public/glossary/bank/index.html");
    assert!(html.contains("This run was disturbed"), "{html}");
    assert!(
        html.contains("another compute process was on the GPU"),
        "{html}"
    );
}

/// The seed site with the committed H200 record changed by hand (`edit` on its text), not
/// resealed, and the entry pinned.
fn site_edited_by_hand(edit: impl Fn(&str) -> String) -> Site {
    let site = measured_site(true);
    for other in OTHERS {
        std::fs::remove_file(site.root().join(other)).unwrap();
    }
    let text = site.read(A);
    let edited = edit(&text);
    assert_ne!(edited, text, "the edit changed the file");
    site.write(A, edited);
    sign_bank(&site);
    site
}

/// Issue 24: every time of a record scaled by 2 by hand used to pass `--strict`. The
/// checksum `measure` writes no longer matches: strict refuses naming the record, and the
/// preview warns. A record with its checksum taken out (or from before format 3) is refused
/// too, so removing the seal is no way around it.
#[test]
fn a_record_edited_by_hand_or_unsealed_fails_strict_naming_the_record() {
    let scaled = site_edited_by_hand(|text| {
        let mut r: serde_json::Value = serde_json::from_str(text).unwrap();
        for row in r["rows"].as_array_mut().unwrap() {
            for key in ["median_ms", "min_ms", "max_ms"] {
                row[key] = (row[key].as_f64().unwrap() * 2.0).into();
            }
            for s in row["samples_ms"].as_array_mut().unwrap() {
                *s = (s.as_f64().unwrap() * 2.0).into();
            }
        }
        serde_json::to_string_pretty(&r).unwrap()
    });
    let record = "the record `measurements/bank_conflicts/nvidia-h200-412f3331.json` of `bank_conflicts` on NVIDIA H200: ";
    strict_fails_with(
        &scaled,
        &[&format!(
            "{record}its checksum does not match its content, so it was changed after `measure` wrote it"
        )],
    );
    let o = scaled.run(&["build"]);
    assert_code(&o, 0);
    assert_stderr_has(&o, &["warning:", "its checksum does not match"]);
    let unsealed = site_edited_by_hand(|text| {
        let mut r: serde_json::Value = serde_json::from_str(text).unwrap();
        r.as_object_mut().unwrap().remove("checksum");
        serde_json::to_string_pretty(&r).unwrap()
    });
    strict_fails_with(
        &unsealed,
        &[&format!("{record}it carries no checksum (format 3;")],
    );
    // Reformatting is not an edit: the same record on one line still passes.
    let reformatted = site_edited_by_hand(|text| {
        let r: serde_json::Value = serde_json::from_str(text).unwrap();
        serde_json::to_string(&r).unwrap()
    });
    assert_code(&reformatted.run(&["build", "--strict"]), 0);
}

#[test]
fn a_row_that_did_not_settle_fails_strict_naming_the_row_and_its_spread() {
    let site = site_with(|r| {
        let row = row(r, "32L");
        row["stop"] = "time_limit".into();
        row["rel_stdev"] = 0.029.into();
    });
    strict_fails_with(
        &site,
        &[
            "row `32L` of `bank_conflicts` on NVIDIA H200: did not settle: its samples spread ±2.90%, more than the manifest's target of 0.50%",
        ],
    );
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    let html = site.read("public/glossary/bank/index.html");
    assert!(html.contains("\">±2.90% (did not settle)</td>"), "{html}");
}

#[test]
fn a_time_that_disagrees_with_the_model_fails_strict() {
    // 32L as fast as L: the bank model says 32 times slower.
    let site = site_with(|r| {
        let l = row(r, "L")["median_ms"].clone();
        row(r, "32L")["median_ms"] = l;
    });
    strict_fails_with(
        &site,
        &[
            // 1.00× or 1.01×: the page merges the test's three H200 records (util.rs).
            "row `32L` of `bank_conflicts` on NVIDIA H200: measured 1.0",
            "× the best row, the model predicts 32× (outside ±15%)",
        ],
    );
    // Without --strict it is a warning and the row is marked.
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    assert_stderr_has(&o, &["warning:"]);
    assert!(
        site.read("public/glossary/bank/index.html")
            .contains("model-disagrees")
    );
}

#[test]
fn a_counter_that_disagrees_with_the_model_fails_strict() {
    let site = site_with(|r| {
        let requests = row(r, "2L")["counters"]["requests"].as_u64().unwrap();
        row(r, "2L")["counters"]["count"] = (3 * requests).into();
    });
    strict_fails_with(
        &site,
        &[
            "row `2L` of `bank_conflicts` on NVIDIA H200: ncu counted 3.000 shared-memory wavefronts per load instruction",
            "the model predicts exactly 2",
        ],
    );
}

#[test]
fn the_page_shows_counters_spread_the_gpus_merged_and_the_cc_sentence() {
    let site = measured_site(true);
    let body = "\n## Measured\n\nNsight counted {{% counter 32L digits=0 %}} wavefronts per load at stride 32, \
                the model {{% model 32L %}}; {{% gpus %}} GPUs differ by {{% gpu_spread 32L %}}.\n";
    site.write(
        "content/glossary/bank.md",
        format!("{}{body}", published("Bank", "measure: bank_conflicts\n")),
    );
    sign_bank(&site);
    let o = site.run(&["build", "--strict"]);
    assert_code(&o, 0);
    let html = site.read("public/glossary/bank/index.html");
    assert!(
        html.contains(
            "Nsight counted 32 wavefronts per load at stride 32, the model 32; 3 GPUs differ by"
        ),
        "{html}"
    );
    assert!(
        html.contains("<th scope=\"col\" class=\"col-counter\">Wavefronts per load (ncu)</th>"),
        "{html}"
    );
    assert!(
        html.contains("<td data-label=\"Wavefronts per load (ncu)\">32.00</td>"),
        "counted value in the table: {html}"
    );
    assert!(
        html.contains("on 3 NVIDIA H200s (GPU ids 412f3331, 912094be, febe8072)"),
        "{html}"
    );
    assert_eq!(
        html.matches("<figure class=\"measured-device").count(),
        1,
        "one table per model: {html}"
    );
    // `published` writes cc 8.0 and the records are 9.0: the page says why that is fine.
    assert!(
        html.contains("This entry is written against compute capability 8.0; the table was measured on 9.0. The bank model’s geometry, 32 banks of 4 bytes, is the same for both"),
        "{html}"
    );
    assert!(html.contains("counters read by Nsight Compute"), "{html}");
}

/// The `error:` lines of a failed build's stderr (each problem is one).
fn error_lines(o: &std::process::Output) -> Vec<String> {
    stderr(o)
        .lines()
        .filter(|l| l.starts_with("error:"))
        .map(str::to_owned)
        .collect()
}

/// Regression: one record written with --accept-noisy under load gave `build --strict` a line
/// per row and per reason (33 on the bank kernel), each prefixed again with "the record … is
/// marked noisy". Now: a line for the record, then one per row with all its reasons.
#[test]
fn a_noisy_record_under_load_is_one_line_and_at_most_one_per_row() {
    let labels = ["L", "2L", "4L", "8L", "16L", "32L", "33L"];
    let site = site_with(|r| {
        let mut noise = vec![
            serde_json::json!("another compute process was on the GPU before the sweep (pid 1464)"),
            serde_json::json!("another compute process was on the GPU after the sweep (pid 1464)"),
        ];
        for label in labels {
            let row = row(r, label);
            row["stop"] = "time_limit".into();
            row["rel_stdev"] = 0.031.into();
            let slower = row["median_ms"].as_f64().unwrap() * 3.3;
            row["median_ms"] = slower.into();
            noise.extend([
                format!("row `{label}` did not converge: rsd 3.10% after 500 samples (stopped by the 5 s time limit), target 0.50%"),
                format!("row `{label}` ran at 1805 MHz, more than 5% below the rated 1980 MHz"),
                format!("row `{label}`: NVML reported the clock held down (sw_power_cap, 680 W of 700 W), and not by a power cap alone: the row did not converge; another compute process was on the GPU"),
                format!("row `{label}`: another compute process was on the GPU (pid 1464)"),
            ].map(serde_json::Value::from));
        }
        // One row also far off the model: 32L as fast as L.
        let l = row(r, "L")["median_ms"].clone();
        row(r, "32L")["median_ms"] = l;
        r["run"]["noise"] = noise.into();
    });
    let o = site.run(&["build", "--strict"]);
    assert_code(&o, 1);
    let errors = error_lines(&o);
    assert_eq!(errors.len(), 1 + labels.len(), "{errors:#?}");
    assert!(
        errors[0].contains(
            "the record `measurements/bank_conflicts/nvidia-h200-412f3331.json` of `bank_conflicts` on NVIDIA H200: it is marked noisy (written with --accept-noisy): another compute process was on the GPU before the sweep (pid 1464); another compute process was on the GPU after the sweep (pid 1464)"
        ),
        "{errors:#?}"
    );
    for (line, label) in errors[1..].iter().zip(labels) {
        assert!(
            line.contains(&format!(
                "row `{label}` of `bank_conflicts` on NVIDIA H200: did not settle"
            )),
            "{line}"
        );
        assert_eq!(line.matches("is marked noisy").count(), 0, "{line}");
        assert_eq!(
            line.matches("did not converge: rsd").count(),
            0,
            "said once: {line}"
        );
        assert_eq!(line.matches("ran at 1805 MHz").count(), 1, "{line}");
    }
    assert!(
        errors[6].contains("the model predicts 32×"),
        "{}",
        errors[6]
    );
    // The preview builds, with the same lines as warnings.
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    let warnings = stderr(&o)
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .count();
    assert_eq!(warnings, 1 + labels.len(), "{}", stderr(&o));
}

/// Regression: `measure --counters`, then a plain `measure`, replaced records that had
/// counters with records without, and then even the preview failed ("row S1 on NVIDIA
/// H200 has no hardware counters"). Now a binding whose data is missing shows "not
/// measured" in the preview with a warning, and `--strict` refuses it.
#[test]
fn a_counter_the_record_lacks_is_not_measured_in_the_preview_and_refused_by_strict() {
    let site = site_with(|r| {
        for row in r["rows"].as_array_mut().unwrap() {
            row.as_object_mut().unwrap().remove("counters");
        }
        r["run"].as_object_mut().unwrap().remove("counters_tool");
    });
    let body = "\n## Measured\n\nA factor of {{% ratio 32L L digits=0 %}}; ncu counted \
                {{% counter 32L digits=0 %}} wavefronts per load.\n";
    site.write(
        "content/glossary/bank.md",
        format!("{}{body}", published("Bank", "measure: bank_conflicts\n")),
    );
    sign_bank(&site);
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    assert_stderr_has(
        &o,
        &[
            "warning: content/glossary/bank.md:",
            "row `32L` on NVIDIA H200 has no hardware counters",
            "it has no hardware counters, which the table's counter column shows",
        ],
    );
    let html = site.read("public/glossary/bank/index.html");
    assert!(
        html.contains("ncu counted (not measured yet) wavefronts per load."),
        "{html}"
    );
    assert!(html.contains("\">not counted</td>"), "{html}");
    let o = site.run(&["build", "--strict"]);
    assert_code(&o, 1);
    let errors = error_lines(&o);
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(
        errors.iter().any(|e| e.contains(
            "`{{% counter 32L digits=0 %}}`: row `32L` on NVIDIA H200 has no hardware counters"
        )),
        "{errors:#?}"
    );
    assert!(errors.iter().any(|e| e.contains("the record `measurements/bank_conflicts/nvidia-h200-412f3331.json` of `bank_conflicts` on NVIDIA H200: it has no hardware counters")), "{errors:#?}");
}
