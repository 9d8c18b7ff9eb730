//! Measurements a reader can trust: noisy and unsettled records, model and counter
//! disagreements fail `build --strict` naming the row and why; the page states each row's
//! spread, the counted value, the GPUs merged and a compute-capability mismatch.
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
    site.write(A, serde_json::to_string_pretty(&record).unwrap());
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
    let err = stderr(&o);
    for needle in needles {
        assert!(err.contains(needle), "{needle:?} missing from: {err}");
    }
    assert!(err.contains("bank.md:"), "names the entry: {err}");
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
    assert!(stderr(&o).contains("warning:") && stderr(&o).contains("marked noisy"));
    let html = site.read("public/glossary/bank/index.html");
    assert!(html.contains("This run was disturbed"), "{html}");
    assert!(
        html.contains("another compute process was on the GPU"),
        "{html}"
    );
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
            "row `32L` on NVIDIA H200 did not settle: its samples spread ±2.90%, more than the manifest's target of 0.50%",
        ],
    );
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    let html = site.read("public/glossary/bank/index.html");
    assert!(html.contains("<td>±2.90% (did not settle)</td>"), "{html}");
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
        &["32L on NVIDIA H200: measured 1.00× the best row, the model predicts 32× (outside ±15%)"],
    );
    // Without --strict it is a warning and the row is marked.
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    assert!(stderr(&o).contains("warning:"), "{}", stderr(&o));
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
            "2L on NVIDIA H200: ncu counted 3.000 shared-memory wavefronts per load instruction",
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
        html.contains("<td>32.00</td>"),
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
        html.contains("This entry is written against compute capability 8.0; the table was measured on 9.0. The bank model&#x27;s geometry, 32 banks of 4 bytes, is the same for both"),
        "{html}"
    );
    assert!(html.contains("counters read by Nsight Compute"), "{html}");
}
