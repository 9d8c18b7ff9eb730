//! Measured tables and prose bindings from committed records; staleness and `--strict`.
use crate::util::*;

/// The committed records: two H200s of one host and one of another.
const H200S: [&str; 3] = [
    "measurements/bank_conflicts/nvidia-h200-412f3331.json",
    "measurements/bank_conflicts/nvidia-h200-912094be.json",
    "measurements/bank_conflicts/nvidia-h200-febe8072.json",
];

#[test]
fn measured_tables_and_bindings_come_from_the_record() {
    let site = measured_site(true);
    sign_bank(&site);
    let o = site.run(&["build", "--strict"]);
    assert_code(&o, 0);
    let html = site.read("public/glossary/bank/index.html");
    // Three GPUs of one model: each row is the median of their medians (the middle one).
    let records: Vec<serde_json::Value> = H200S
        .iter()
        .map(|f| serde_json::from_str(&site.read(f)).unwrap())
        .collect();
    let record = &records[0];
    let median = |label: &str| {
        let of = |r: &serde_json::Value| {
            r["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["label"] == label)
                .unwrap()["median_ms"]
                .as_f64()
                .unwrap()
        };
        let mut medians: Vec<f64> = records.iter().map(of).collect();
        medians.sort_by(f64::total_cmp);
        medians[1]
    };
    let ratio = median("32L") / median("L");
    assert!(
        html.contains(&format!("A factor of {} between the rows.", ratio.round())),
        "{html}"
    );
    // The table's ratio is to the fastest row of the sweep.
    let best = ["L", "2L", "4L", "8L", "16L", "32L", "33L"]
        .map(median)
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    assert!(
        html.contains(&format!("\">{:.2}</td>", median("32L") / best)),
        "table ratio from the record: {html}"
    );
    assert!(html.contains("On an NVIDIA H200, driver "), "{html}");
    assert!(html.contains(record["software"]["driver_version"].as_str().unwrap()));
}

#[test]
fn editing_the_kernel_makes_strict_builds_fail_as_stale() {
    let site = measured_site(true);
    let cu = site.root().join("kernels/bank_conflicts.cu");
    let mut source = std::fs::read_to_string(&cu).unwrap();
    source.push_str("\n// an edit\n");
    std::fs::write(&cu, source).unwrap();
    let o = site.run(&["build", "--strict"]);
    assert_code(&o, 1);
    for file in H200S {
        assert_stderr_has(&o, &[file, "`bank_conflicts` is stale"]);
    }
    let o = site.run(&["check"]);
    assert_code(&o, 0);
    // check warns
    assert_stderr_has(&o, &["warning:", "stale"]);
}

#[test]
fn without_a_record_the_preview_says_not_measured_and_strict_fails() {
    let site = measured_site(false);
    site.write(
        "content/glossary/bank.md",
        site.read("content/glossary/bank.md")
            .replace("status: published", "status: draft"),
    );
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let html = site.read("public/glossary/bank/index.html");
    assert!(html.contains("class=\"not-measured\""), "{html}");
    assert!(
        html.contains("A factor of (not measured yet) between the rows."),
        "{html}"
    );
    let o = site.run(&["build", "--drafts", "--strict"]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["field `measure`", "no measurement record"]);
}

#[test]
fn unknown_bindings_are_errors_with_lines() {
    let site = measured_site(true);
    site.write(
        "content/glossary/bank.md",
        site.read("content/glossary/bank.md")
            .replace("ratio 32L L", "ratio 64L L"),
    );
    let o = site.run(&["build"]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["bank.md:23:", "64L"]);
    let site = Site::new();
    site.write(
        "content/glossary/x.md",
        "---\ntitle: x\n---\n\nA {{% ratio 32L L %}}.\n",
    );
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    // a binding needs `measure:`
    assert_stderr_has(&o, &["x.md:5:"]);
}

#[test]
fn records_of_several_gpus_render_side_by_side() {
    let site = measured_site(true);
    // One H200 record, so its table is that record's.
    for other in &H200S[1..] {
        std::fs::remove_file(site.root().join(other)).unwrap();
    }
    // The second GPU is 10% slower on the padded row only (inside the model's band): the
    // ratio the prose quotes (32L / L) agrees on both, the tables differ.
    second_record(&site, "second-gpu", "Second GPU", |r| {
        let row = r["rows"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|row| row["label"] == "33L")
            .unwrap();
        let slower = row["median_ms"].as_f64().unwrap() * 1.1;
        row["median_ms"] = slower.into();
    });
    sign_bank(&site);
    let o = site.run(&["build", "--strict"]);
    assert_code(&o, 0);
    let html = site.read("public/glossary/bank/index.html");
    let table = |slug: &str| {
        let start = html.find(&format!("id=\"measured-{slug}\"")).expect(slug);
        let rest = &html[start..];
        rest[..rest.find("</table>").expect("table ends")].to_string()
    };
    let (h200, second) = (table("nvidia-h200"), table("second-gpu"));
    assert_ne!(h200, second, "each GPU's table shows its own record");
    let record: serde_json::Value = serde_json::from_str(&site.read(H200S[0])).unwrap();
    let median = |label: &str| {
        record["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["label"] == label)
            .unwrap()["median_ms"]
            .as_f64()
            .unwrap()
    };
    // The ratio column divides by the table's fastest row.
    let (l, padded) = (median("L"), median("33L"));
    let ratio = padded / l.min(padded);
    let ratio2 = padded * 1.1 / l.min(padded * 1.1);
    assert!(h200.contains(&format!("\">{ratio:.2}</td>")), "{h200}");
    assert!(second.contains(&format!("\">{ratio2:.2}</td>")), "{second}");
    assert!(
        html.contains("On a Second GPU,") || html.contains("On an Second GPU,"),
        "{html}"
    );
    assert!(html.contains("A factor of 32 between the rows."), "{html}");
}

/// A second GPU's record beside the committed H200 ones, edited by `edit`; it keeps the
/// first H200's GPU id, so its file is `<slug>-412f3331.json`.
fn second_record(site: &Site, slug: &str, name: &str, edit: impl Fn(&mut serde_json::Value)) {
    let h200 = site.read(H200S[0]);
    let mut other: serde_json::Value = serde_json::from_str(&h200).unwrap();
    other["device"]["name"] = name.into();
    other["device"]["slug"] = slug.into();
    edit(&mut other);
    site.write(
        &format!("measurements/bank_conflicts/{slug}-412f3331.json"),
        sealed(other),
    );
}

#[test]
fn a_stale_record_beside_a_fresh_one_fails_strict_builds() {
    let site = measured_site(true);
    // Sorted after the nvidia-h200-*.json, so a check that stops at a kernel's first record
    // misses it.
    second_record(&site, "tesla-t4", "Tesla T4", |r| {
        r["build"]["source_sha256"] = "0".repeat(64).into();
    });
    let o = site.run(&["build", "--strict"]);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &[
            "measurements/bank_conflicts/tesla-t4-412f3331.json",
            "`bank_conflicts` is stale",
        ],
    );
    // the H200 record is fresh
    assert_stderr_lacks(&o, &["nvidia-h200-"]);
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    assert_stderr_has(
        &o,
        &[
            "warning: measurements/bank_conflicts/tesla-t4-412f3331.json: record `measurements/bank_conflicts/tesla-t4-412f3331.json`",
        ],
    );
}

/// The repository's divergence entry on its committed record: `--strict` passes, the table
/// has the model's lanes per pass and the counted threads per instruction, and the prose
/// quotes the record.
#[test]
fn the_divergence_entry_builds_strict_from_its_committed_record() {
    let site = Site::new();
    copy_dir(&repo().join("kernels"), &site.root().join("kernels"));
    copy_dir(
        &repo().join("measurements/warp_divergence"),
        &site.root().join("measurements/warp_divergence"),
    );
    let entry = std::fs::read_to_string(repo().join("content/glossary/warp-divergence.md"))
        .unwrap()
        .replace("related: [warp]\n", "");
    site.write("content/glossary/warp-divergence.md", entry);
    let o = site.run(&["build", "--drafts", "--strict"]);
    assert_code(&o, 0);
    let html = site.read("public/glossary/warp-divergence/index.html");
    assert!(
        html.contains("<tr><th scope=\"row\">P4</th><td data-label=\"Lanes per pass (model)\">8</td><td data-label=\"Threads per instruction (ncu)\">8.00</td>"),
        "{html}"
    );
    assert!(
        html.contains("the model’s 8 lanes in each of 4 passes, and\n1 in each of 32"),
        "{html}"
    );
    assert!(
        html.contains("class=\"diagram"),
        "the lane-paths diagram: {html}"
    );
    // `limit` and `bandwidth` have no meaning for work in registers.
    let body = "---\ntitle: T\nmeasure: warp_divergence\n---\n{{% limit P1 %}}\n";
    site.write("content/glossary/t.md", body);
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["`limit` has no meaning for a divergence kernel"]);
}

/// `check --strict` converts each body once for its two checks, but an entry with bindings
/// is bound again for the preview, which is not strict: a binding without a record blocks
/// the published site only (regression: handing the preview the published check's parts).
#[test]
fn check_strict_binds_the_preview_without_strict() {
    let site = measured_site(false);
    sign_bank(&site);
    let o = site.run(&["check", "--strict"]);
    assert_fails_at(
        &o,
        "content/glossary/bank.md:24",
        "`{{% ratio 32L L digits=0 %}}`: kernel bank_conflicts has no measurement record yet",
    );
    assert_stderr_has(
        &o,
        &["(the preview shows “(not measured yet)”) (blocks the published site only)"],
    );
}
