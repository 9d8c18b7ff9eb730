//! Tests of the measured view, its template and prose bindings, on fixture records (made up
//! in `record::fixture`, never under measurements/).
use std::path::{Path, PathBuf};

use super::shape::MODEL_BAND;
use super::*;
use crate::measurement::manifest::FIXTURE;
use crate::measurement::record::fixture;

pub(crate) const SOURCE: &[u8] = b"kernel source";

pub(crate) fn manifest() -> Manifest {
    Manifest::parse(Path::new("kernels/bank_conflicts.yaml"), FIXTURE).unwrap()
}

pub(crate) fn loaded(name: &str) -> Loaded {
    let record = fixture::record(name, SOURCE, FIXTURE.as_bytes());
    let path = PathBuf::from(format!(
        "measurements/bank_conflicts/{}.json",
        record.device.slug
    ));
    Loaded { path, record }
}

/// The view of `records` as `measure` would have written them: each is sealed first, so a
/// test's edits to a fixture stand for a run that measured so (see
/// [`view_of_files`] for records taken as they are).
pub(crate) fn view_of(records: &[Loaded]) -> MeasuredView {
    let sealed: Vec<Loaded> = records
        .iter()
        .cloned()
        .map(|mut l| {
            l.record.seal();
            l
        })
        .collect();
    view_of_files(&sealed)
}

/// The view of `records` as they are, checksum and all.
pub(crate) fn view_of_files(records: &[Loaded]) -> MeasuredView {
    let m = manifest();
    let kernel = Kernel {
        name: "bank_conflicts",
        manifest: &m,
        source: SOURCE,
        manifest_bytes: FIXTURE.as_bytes(),
        header: b"",
    };
    view(kernel, records)
}

#[test]
fn the_table_shows_the_manifest_rows_with_model_and_ratio() {
    let v = view_of(&[loaded("Fixture GPU")]);
    let headings: Vec<&str> = v.columns.iter().map(|c| c.heading.as_str()).collect();
    assert_eq!(
        headings,
        [
            "Lane L reads word",
            "Banks the 32 lanes cover",
            "Wavefronts per load (ncu)",
            "Time",
            "Spread",
            "vs the best row",
            "Model predicts"
        ]
    );
    let d = &v.devices[0];
    let cells: Vec<Vec<&str>> = d
        .rows
        .iter()
        .map(|r| r.cells.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        cells,
        [
            ["L", "32", "1.00", "1.100 ms", "±0.10%", "1.00", "1×"],
            ["32L", "1", "32.00", "35.200 ms", "±0.10%", "32.00", "32×"],
            ["33L", "32", "1.00", "1.100 ms", "±0.10%", "1.00", "1×"],
        ]
    );
    assert_eq!(d.sweep.len(), 7);
    assert!(d.warnings.is_empty() && !d.stale, "{d:?}");
    // 4224 × 1024 × 8192 B in 1.1 ms against 132 SMs × 128 B × 1980 MHz.
    assert!(
        (d.best_fraction_of_limit - 0.9629).abs() < 1e-3,
        "{}",
        d.best_fraction_of_limit
    );
}

#[test]
fn the_sentence_names_device_driver_cuda_and_options() {
    let v = view_of(&[loaded("NVIDIA Fixture")]);
    assert_eq!(
        v.devices[0].sentence,
        "On an NVIDIA Fixture, driver 580.0.0-fixture, CUDA 13.0 (NVRTC 13.0), built with NVRTC \
         --gpu-architecture=sm_90 --std=c++17, day 15 read a 2048-word shared tile 2048 times per \
         thread and varied one runtime argument: the word stride between neighbouring lanes."
    );
    let p = &v.devices[0].provenance;
    assert!(
        p.starts_with("Measured 2026-01-01 by coursegen 0.0.0-fixture")
            && p.contains("132 SMs at 1980 MHz"),
        "{p}"
    );
    assert!(
        p.contains("measurements/bank_conflicts/nvidia-fixture.json"),
        "{p}"
    );
}

#[test]
fn articles_follow_the_sound_of_the_name() {
    for (name, a) in [
        ("NVIDIA H200", "an"),
        ("Tesla T4", "a"),
        ("A100", "an"),
        ("H100", "an"),
        ("GeForce RTX", "a"),
        ("RTX 4090", "an"),
    ] {
        assert_eq!(table::article(name), a, "{name}");
    }
}

#[test]
fn several_gpus_sit_side_by_side_sorted_by_slug() {
    let v = view_of(&[loaded("Fixture B"), loaded("Fixture A")]);
    let slugs: Vec<&str> = v.devices.iter().map(|d| d.slug.as_str()).collect();
    assert_eq!(slugs, ["fixture-a", "fixture-b"]);
}

#[test]
fn a_ratio_outside_the_band_warns_and_inside_does_not() {
    let mut l = loaded("Fixture GPU");
    l.record.rows[1].median_ms = 1.1 * 2.0 * (1.0 + MODEL_BAND * 0.9); // 2L: 2× predicted, within band
    assert!(view_of(std::slice::from_ref(&l)).warnings().is_empty());
    l.record.rows[1].median_ms = 1.1; // 2L as fast as L: the model says 2×
    let v = view_of(&[l]);
    let w = v.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(
            "row `2L` of `bank_conflicts` on Fixture GPU: measured 1.00× the best row, the \
             model predicts 2×"
        ),
        "{}",
        w[0]
    );
}

#[test]
fn an_edited_kernel_makes_the_record_stale_and_strict_refuses_it() {
    let m = manifest();
    let kernel = Kernel {
        name: "bank_conflicts",
        manifest: &m,
        source: b"edited",
        manifest_bytes: FIXTURE.as_bytes(),
        header: b"",
    };
    let v = view(kernel, &[loaded("Fixture GPU")]);
    assert!(v.devices[0].stale);
    // Stale records are reported once, by `record::stale_records`, not again per entry.
    assert!(v.strict_problems().is_empty());
    let note = &v.devices[0].stale_note;
    assert!(
        note.contains("is stale") && note.contains("kernels/bank_conflicts.cu has changed"),
        "{note}"
    );
    assert!(
        view_of(&[loaded("Fixture GPU")])
            .strict_problems()
            .is_empty()
    );
}

#[test]
fn no_record_means_not_measured_and_strict_refuses_it() {
    let v = view_of(&[]);
    assert!(v.devices.is_empty());
    assert!(
        v.not_measured
            .contains("coursegen measure --gpu --kernel bank_conflicts")
    );
    assert!(v.strict_problems()[0].contains("no measurement record"));
}

#[test]
fn load_reads_the_kernel_files_and_names_a_missing_one() {
    let root = tempfile::tempdir().unwrap();
    let err = load(
        &KernelFiles::new(&root.path().join("kernels")),
        "nope",
        &RecordSet::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("kernels/nope.cu") && err.contains("measure: nope"),
        "{err}"
    );
    let kernels = root.path().join("kernels");
    std::fs::create_dir_all(&kernels).unwrap();
    std::fs::write(kernels.join("bank_conflicts.cu"), SOURCE).unwrap();
    std::fs::write(kernels.join("bank_conflicts.yaml"), FIXTURE).unwrap();
    let mut set = RecordSet::default();
    set.by_kernel
        .insert("bank_conflicts".into(), vec![loaded("Fixture GPU")]);
    let v = load(
        &KernelFiles::new(&root.path().join("kernels")),
        "bank_conflicts",
        &set,
    )
    .unwrap();
    assert_eq!(v.devices.len(), 1);
    assert!(!v.devices[0].stale);
}

fn render(view: &MeasuredView) -> String {
    render_in(view, true)
}

fn render_in(view: &MeasuredView, preview: bool) -> String {
    let mut tera = tera::Tera::new();
    tera.add_raw_template(
        "measured.html",
        include_str!("../../../templates/measured.html"),
    )
    .unwrap();
    let mut ctx = tera::Context::new();
    ctx.insert("measured", view);
    ctx.insert("site", &serde_json::json!({ "preview": preview }));
    tera.render("measured.html", &ctx).unwrap()
}

#[test]
fn the_partial_renders_a_table_per_gpu_with_its_sentence() {
    let view = view_of(&[loaded("Fixture <GPU>")]);
    let html = render(&view);
    assert!(html.contains("<table class=\"measured-table\">"), "{html}");
    assert!(
        html.contains("<th scope=\"col\" class=\"col-banks\">Banks the 32 lanes cover</th>"),
        "{html}"
    );
    // Each cell names its column, which a phone shows beside the value (the row reflows).
    let cells = ["1", "32.00", "35.200 ms", "±0.10%", "32.00", "32×"];
    let row: String = (view.columns[1..].iter().zip(cells))
        .map(|(c, v)| format!("<td data-label=\"{}\">{v}</td>", c.heading))
        .collect();
    assert!(
        html.contains(&format!("<tr><th scope=\"row\">32L</th>{row}</tr>")),
        "{html}"
    );
    assert!(
        html.contains("On a Fixture &lt;GPU&gt;, driver"),
        "autoescaped: {html}"
    );
    assert!(
        !html.contains("not-measured")
            && !html.contains("stale-record")
            && !html.contains("model-warnings")
    );
}

#[test]
fn the_partial_says_not_measured_without_a_record_and_flags_stale_ones() {
    let html = render(&view_of(&[]));
    assert!(
        html.contains("<p class=\"not-measured\">Not measured yet. <span class=\"author-hint\">Run coursegen measure --gpu"),
        "{html}"
    );
    let published = render_in(&view_of(&[]), false);
    assert!(
        published.contains("<p class=\"not-measured\">Not measured yet.</p>"),
        "readers are not told to run the tool: {published}"
    );
    assert!(!html.contains("<table"));
    let m = manifest();
    let kernel = Kernel {
        name: "bank_conflicts",
        manifest: &m,
        source: b"edited",
        manifest_bytes: FIXTURE.as_bytes(),
        header: b"",
    };
    let mut l = loaded("Fixture GPU");
    l.record.rows[5].median_ms = 1.1; // 32L: warns against the model
    let html = render(&view(kernel, &[l]));
    assert!(
        html.contains("measured-device stale")
            && html.contains("<p class=\"stale-record\" role=\"note\">"),
        "{html}"
    );
    assert!(
        html.contains("<tr class=\"model-disagrees\" title=\"32L on Fixture GPU"),
        "{html}"
    );
    assert!(
        html.contains("<ul class=\"model-warnings\"><li>32L on Fixture GPU"),
        "{html}"
    );
}

#[test]
fn the_committed_record_is_fresh_and_renders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let set = crate::measurement::record::load_all(&root.join("measurements")).unwrap();
    let v = load(
        &KernelFiles::new(&root.join("kernels")),
        "bank_conflicts",
        &set,
    )
    .unwrap();
    let h200 = v
        .devices
        .iter()
        .find(|d| d.slug == "nvidia-h200")
        .expect("the committed H200 record");
    assert!(!h200.stale, "{}", h200.stale_note);
    assert!(h200.warnings.is_empty(), "{:?}", h200.warnings);
    let labels: Vec<&str> = h200.rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["L", "32L", "33L"]);
    assert!(render(&v).contains("On an NVIDIA H200, driver 580.159.04, CUDA 13.0 (NVRTC 13.0)"));
    // What reports/measurements.md claims of the committed record (issue 37's run 6: L at
    // 99 % of the limit).
    assert!(
        h200.best_fraction_of_limit >= 0.95,
        "{}",
        h200.best_fraction_of_limit
    );
    let quoted = crate::measurement::bindings::expand_bindings(
        "{{% limit L %}}, a factor of {{% ratio 32L L digits=0 %}}",
        &v,
    );
    assert_eq!(quoted.unwrap().text(), "99%, a factor of 32");
}

#[test]
fn another_cc_with_the_same_geometry_is_stated_and_an_unknown_one_is_refused() {
    let v = view_of(&[loaded("Fixture GPU")]);
    assert_eq!(v.cc_note("9.0").unwrap(), "");
    let note = v.cc_note("7.5").unwrap();
    assert!(
        note.starts_with("This entry is written against compute capability 7.5; the table was measured on 9.0. The bank model’s geometry, 32 banks of 4 bytes, is the same for both"),
        "{note}"
    );
    let mut odd = loaded("Fixture GPU");
    odd.record.device.compute_capability = "1.0".into();
    let err = view_of(&[odd]).cc_note("7.5").unwrap_err();
    assert!(
        err.contains("compute capability 1.0, which the bank model does not know"),
        "{err}"
    );
    assert_eq!(view_of(&[]).cc_note("7.5").unwrap(), "");
}

#[test]
fn noisy_and_unsettled_records_are_strict_problems_naming_the_row() {
    let mut l = loaded("Fixture GPU");
    l.record.run.noise = vec!["another compute process was on the GPU (pid 7)".into()];
    l.record.rows[5].stop = crate::measurement::record::StopReason::TimeLimit;
    l.record.rows[5].rel_stdev = 0.02;
    let problems = view_of(&[l]).strict_problems();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(
        problems[0],
        "the record `measurements/bank_conflicts/fixture-gpu.json` of `bank_conflicts` on \
         Fixture GPU: it is marked noisy (written with --accept-noisy): another compute \
         process was on the GPU (pid 7)"
    );
    assert_eq!(
        problems[1],
        "row `32L` of `bank_conflicts` on Fixture GPU: did not settle: its samples spread \
         ±2.00%, more than the manifest's target of 0.50%; re-measure on a quiet GPU"
    );
}

/// What a run under a competing load writes with --accept-noisy: reasons for the sweep and
/// several for each row. A line for the record and one per row, each row's reasons on it,
/// its "did not converge" said once as "did not settle".
#[test]
fn a_noisy_record_is_one_line_and_one_line_per_row() {
    let mut l = loaded("Fixture GPU");
    let mut noise = vec![
        "another compute process was on the GPU before the sweep (pid 1464)".to_owned(),
        "another compute process was on the GPU after the sweep (pid 1464)".to_owned(),
    ];
    for row in &mut l.record.rows {
        row.stop = crate::measurement::record::StopReason::TimeLimit;
        row.rel_stdev = 0.03;
        row.median_ms *= 3.0;
        let label = &row.label;
        noise.extend([
            format!("row `{label}` did not converge: rsd 3.00% after 500 samples (stopped by the 5 s time limit), target 0.50%"),
            format!("row `{label}` ran at 1805 MHz, more than 5% below the rated 1980 MHz"),
            format!("row `{label}`: NVML reported the clock held down (sw_power_cap, 690 W of 700 W), and not by a power cap alone: the row did not converge"),
            format!("row `{label}`: another compute process was on the GPU (pid 1464)"),
        ]);
    }
    // And one row off the model and its counter: 2L as fast as L, counted 3 wavefronts.
    l.record.rows[1].median_ms = l.record.rows[0].median_ms;
    l.record.rows[1].counters = Some(fixture::counters(3));
    l.record.run.noise = noise;
    let problems = view_of(&[l]).strict_problems();
    assert_eq!(problems.len(), 1 + 7, "{problems:#?}");
    assert!(
        problems[0].starts_with(
            "the record `measurements/bank_conflicts/fixture-gpu.json` of `bank_conflicts` on \
             Fixture GPU: it is marked noisy (written with --accept-noisy): another compute \
             process was on the GPU before the sweep (pid 1464); another compute process was on \
             the GPU after the sweep (pid 1464)"
        ),
        "{}",
        problems[0]
    );
    let rows: Vec<&str> = problems[1..]
        .iter()
        .map(|p| p.split('`').nth(1).unwrap())
        .collect();
    assert_eq!(rows, ["L", "2L", "4L", "8L", "16L", "32L", "33L"]);
    let two = &problems[2];
    for reason in [
        "did not settle: its samples spread ±3.00%",
        "ran at 1805 MHz",
        "NVML reported the clock held down",
        "another compute process was on the GPU (pid 1464)",
        "measured 1.00× the best row, the model predicts 2×",
        "ncu counted 3.000 shared-memory wavefronts per load instruction",
    ] {
        assert_eq!(two.matches(reason).count(), 1, "{reason:?} once in {two}");
    }
    assert!(!two.contains("did not converge: rsd"), "{two}");
}

/// A record edited after `measure` sealed it, and one that carries no checksum (format 2, or
/// the checksum removed), are each one line that strict refuses and a preview prints.
#[test]
fn an_edited_or_unsealed_record_is_a_strict_problem() {
    let path = "the record `measurements/bank_conflicts/fixture-gpu.json` of `bank_conflicts` \
                on Fixture GPU: ";
    let sealed = loaded("Fixture GPU");
    assert!(
        view_of_files(std::slice::from_ref(&sealed))
            .strict_problems()
            .is_empty()
    );
    let mut scaled = sealed.clone();
    for row in &mut scaled.record.rows {
        row.median_ms *= 2.0;
    }
    let problems = view_of_files(&[scaled]).strict_problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with(path), "{}", problems[0]);
    assert!(
        problems[0].contains("its checksum does not match its content"),
        "{}",
        problems[0]
    );
    let mut bare = sealed.clone();
    bare.record.checksum = None;
    bare.record.format = 2;
    let v = view_of_files(&[bare]);
    assert_eq!(v.warnings(), v.strict_problems());
    let problems = v.strict_problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with(&format!("{path}it carries no checksum (format 2;")),
        "{}",
        problems[0]
    );
}

#[test]
fn a_record_without_the_counters_its_table_shows_is_a_problem() {
    let mut l = loaded("Fixture GPU");
    for row in &mut l.record.rows {
        row.counters = None;
    }
    let problems = view_of(std::slice::from_ref(&l)).strict_problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with(
            "the record `measurements/bank_conflicts/fixture-gpu.json` of `bank_conflicts` on \
             Fixture GPU: it has no hardware counters, which the table's counter column shows"
        ),
        "{}",
        problems[0]
    );
    // One row without: that row's line says so.
    let mut one = loaded("Fixture GPU");
    one.record.rows[6].counters = None; // 33L, shown in the table
    let problems = view_of(&[one]).strict_problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .starts_with("row `33L` of `bank_conflicts` on Fixture GPU: has no hardware counters"),
        "{}",
        problems[0]
    );
    // A row the table does not show needs none.
    let mut hidden = loaded("Fixture GPU");
    hidden.record.rows[1].counters = None; // 2L
    assert!(view_of(&[hidden]).strict_problems().is_empty());
}

/// The committed divergence record: fresh, inside the model's band on every row, and its
/// counters read the model's 32 / paths threads per instruction to the page's two decimals.
#[test]
fn the_committed_divergence_record_agrees_with_the_model() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let set = crate::measurement::record::load_all(&root.join("measurements")).unwrap();
    let v = load(
        &KernelFiles::new(&root.join("kernels")),
        "warp_divergence",
        &set,
    )
    .unwrap();
    assert!(!v.devices.is_empty(), "no committed warp_divergence record");
    assert!(v.strict_problems().is_empty(), "{:?}", v.strict_problems());
    for d in &v.devices {
        assert!(!d.stale, "{}", d.stale_note);
        for row in &d.sweep {
            let paths = row.value;
            assert_eq!(row.model_cost, paths, "{}", row.label);
            assert_eq!(row.counter_model, 32.0 / f64::from(paths), "{}", row.label);
            let counted = row.counted.expect("counted");
            assert!(
                (counted - row.counter_model).abs() <= table::COUNTER_TOLERANCE,
                "{}: {counted}",
                row.label
            );
            assert!(row.warning.is_empty(), "{}", row.warning);
        }
    }
    let quoted = crate::measurement::bindings::expand_bindings(
        "{{% counter P4 %}} with {{% active P4 %}} lanes in each of {{% model P4 %}} passes",
        &v,
    );
    assert_eq!(
        quoted.unwrap().text(),
        "8.00 with 8 lanes in each of 4 passes"
    );
}
