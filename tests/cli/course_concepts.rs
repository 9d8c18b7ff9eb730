//! A measured concept added as course files only (issue 37): a kernel, its manifest with a
//! lane map and a reference kernel, a draft entry bound to the record, and the record. The
//! course below is written at test time, with no concept of it known to coursegen, and
//! `build` lays out its tables, model columns and bindings from the declared maps.
use coursegen::canonical::sha256_hex;

use crate::util::*;

/// A shared-memory kernel of the course ABI (only its text matters here: it is hashed into
/// the record, as `measure` hashes it).
fn kernel(name: &str) -> String {
    format!(
        "extern \"C\" __global__ void {name}(const unsigned* input, unsigned* output, int v,\n\
         int logical_blocks, unsigned long long* clock) {{}}\n\
         extern \"C\" __global__ void {name}_reference(const unsigned* input, unsigned* output,\n\
         int v, int logical_blocks, unsigned long long* clock) {{}}\n"
    )
}

/// A manifest: `model` under `model:`, the axis, and a table with the model's columns.
fn manifest(
    name: &str,
    model: &str,
    axis: &str,
    values: &str,
    labels: &str,
    first: &str,
) -> String {
    format!(
        "kernel: {name}\n\
         model:\n{model}\
         summary: every thread read a shared tile.\n\
         compile_options: [\"--std=c++17\"]\n\
         axis: {{ name: {axis}, unit: layout, values: {values}, labels: {labels} }}\n\
         launch: {{ block_threads: 1024, waves: 16, persistent: true }}\n\
         input_words: 4096\n\
         bytes_per_thread: 8192\n\
         reference: {{ kernel: {name}_reference }}\n\
         sampling: {{ warmup_launches: 5, min_samples: 10, max_samples: 500, target_rel_stdev: 0.005, time_limit_s: 5.0 }}\n\
         table:\n\
         \x20 rows: {labels}\n\
         \x20 columns:\n\
         \x20   - {{ id: access, heading: \"{first}\" }}\n\
         \x20   - {{ id: banks, heading: \"Banks\" }}\n\
         \x20   - {{ id: bytes, heading: \"Bytes per load\" }}\n\
         \x20   - {{ id: expected, heading: \"Wavefronts (model)\" }}\n\
         \x20   - {{ id: counter, heading: \"Wavefronts (ncu)\" }}\n\
         \x20   - {{ id: time, heading: \"Time\" }}\n\
         \x20   - {{ id: model, heading: \"Model predicts\" }}\n"
    )
}

/// A draft entry bound to `kernel`'s record, quoting counters and a ratio.
/// A draft entry bound to `kernel`'s record, its diagram the lanes of the kernel's `row`.
fn entry(title: &str, kernel: &str, row: &str, prose: &str) -> String {
    format!(
        "---\ntitle: {title}\nterm: {title}\ncategory: Memory\nsummary: A term.\n\
         sources:\n  - title: Guide\n    url: https://docs.nvidia.com/\nmeasure: {kernel}\n\
         diagram:\n  kernel: {kernel}\n  row: {row}\n  alt: The lanes of the {row} row.\n\
         status: draft\n---\n\nBody of {title}.\n\n## Measured\n\n{prose}\n"
    )
}

/// Writes a record of `kernel` as `measure` writes it, sealed: the committed H200 record's
/// device, software and run, this course's hashes, and per row (label, value, median ms,
/// counted wavefronts, load instructions).
fn record(site: &Site, kernel: &str, axis: &str, rows: &[(&str, u32, f64, u64, u64)]) {
    let template = repo().join(committed_record("bank_conflicts"));
    let mut r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(template).unwrap()).unwrap();
    let row0 = r["rows"][0].clone();
    r["kernel"] = kernel.into();
    r["axis"] = axis.into();
    r["build"]["source_file"] = format!("kernels/{kernel}.cu").into();
    r["build"]["source_sha256"] =
        sha256_hex(site.read(&format!("kernels/{kernel}.cu")).as_bytes()).into();
    r["build"]["manifest_sha256"] =
        sha256_hex(site.read(&format!("kernels/{kernel}.yaml")).as_bytes()).into();
    r["rows"] = rows
        .iter()
        .map(|&(label, value, ms, count, requests)| {
            let mut row = row0.clone();
            row["label"] = label.into();
            row["value"] = value.into();
            row["samples_ms"] = serde_json::json!([ms, ms, ms, ms, ms, ms, ms, ms, ms, ms]);
            row["median_ms"] = ms.into();
            row["min_ms"] = ms.into();
            row["max_ms"] = ms.into();
            row["rel_stdev"] = 0.0.into();
            row["counters"]["count"] = count.into();
            row["counters"]["requests"] = requests.into();
            row
        })
        .collect();
    let file = format!(
        "measurements/{kernel}/nvidia-h200-{}.json",
        r["device"]["gpu_id"].as_str().unwrap()
    );
    site.write(&file, sealed(r));
}

/// The cells of the table row whose first cell is `label`, as text.
fn cells(html: &str, label: &str) -> Vec<String> {
    let start = html
        .find(&format!(">{label}</t"))
        .unwrap_or_else(|| panic!("no row `{label}`: {html}"));
    let row = &html[start..html[start..].find("</tr>").unwrap() + start];
    row.split("</t")
        .filter_map(|c| c.rsplit_once('>').map(|(_, text)| text.to_owned()))
        .filter(|t| !t.is_empty())
        .collect()
}

#[test]
fn two_concepts_written_as_files_build_with_their_tables_and_model_columns() {
    let site = Site::new();
    let swizzle_model = "  kind: shared\n  word: lane * (32 + (layout == 1)) + (COL ^ (lane * (layout == 2)))\n  constants: { COL: 5 }\n";
    let vector_model = "  kind: shared\n  address: lane * width\n  width: width\n";
    site.write("kernels/swizzled_tile.cu", kernel("swizzled_tile"))
        .write(
            "kernels/swizzled_tile.yaml",
            manifest(
                "swizzled_tile",
                swizzle_model,
                "layout",
                "[0, 1, 2]",
                "[naive, padded, swizzled]",
                "Layout",
            ),
        )
        .write("kernels/vector_loads.cu", kernel("vector_loads"))
        .write(
            "kernels/vector_loads.yaml",
            manifest(
                "vector_loads",
                vector_model,
                "width",
                "[4, 8, 16]",
                "[float, float2, float4]",
                "Each lane reads",
            ),
        )
        .write(
            "content/glossary/swizzle.md",
            entry(
                "Swizzle",
                "swizzled_tile",
                "swizzled",
                "Naive {{% counter naive digits=0 %}}, swizzled {{% counter swizzled digits=0 %}}, \
                 {{% ratio naive swizzled digits=0 %}} times as long.",
            ),
        )
        .write(
            "content/glossary/vector.md",
            entry(
                "Vector",
                "vector_loads",
                "float4",
                "float4: {{% counter float4 digits=0 %}} wavefronts, {{% ratio float4 float digits=1 %}} times.",
            ),
        );
    let n = 1_000_000;
    record(
        &site,
        "swizzled_tile",
        "layout",
        &[
            ("naive", 0, 32.4, 32 * n + 7, n),
            ("padded", 1, 1.1, n + 3, n),
            ("swizzled", 2, 1.2, n, n),
        ],
    );
    record(
        &site,
        "vector_loads",
        "width",
        &[
            ("float", 4, 1.0, n, n),
            ("float2", 8, 2.0, 2 * n, n),
            ("float4", 16, 4.1, 4 * n, n),
        ],
    );

    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 0);
    // Each page's diagram is drawn from its kernel's model, with no change to coursegen.
    let swizzle_svg = site.read("public/glossary/swizzle/diagram.svg");
    assert!(
        swizzle_svg.contains("1 wavefront per request; the lanes cover 32 of the 32 banks"),
        "{swizzle_svg}"
    );
    let vector_svg = site.read("public/glossary/vector/diagram.svg");
    assert!(
        vector_svg.contains("4 wavefronts per request; the lanes cover 32 of the 32 banks"),
        "{vector_svg}"
    );
    let html = site.read("public/glossary/swizzle/index.html");
    // Layout, banks a column covers, bytes per load, wavefronts the map predicts, counted,
    // time, and the time the map predicts against the best row.
    assert_eq!(
        cells(&html, "naive"),
        ["naive", "1", "128", "32", "32.00", "32.400 ms", "32×"],
        "{html}"
    );
    assert_eq!(
        cells(&html, "padded"),
        ["padded", "32", "128", "1", "1.00", "1.100 ms", "1×"]
    );
    assert_eq!(
        cells(&html, "swizzled"),
        ["swizzled", "32", "128", "1", "1.00", "1.200 ms", "1×"]
    );
    assert!(
        html.contains("Naive 32, swizzled 1, 27 times as long."),
        "{html}"
    );
    let html = site.read("public/glossary/vector/index.html");
    assert_eq!(
        cells(&html, "float"),
        ["float", "32", "128", "1", "1.00", "1.000 ms", "1×"],
        "{html}"
    );
    assert_eq!(
        cells(&html, "float2"),
        ["float2", "32", "256", "2", "2.00", "2.000 ms", "2×"]
    );
    assert_eq!(
        cells(&html, "float4"),
        ["float4", "32", "512", "4", "4.00", "4.100 ms", "4×"]
    );
    assert!(html.contains("float4: 4 wavefronts, 4.1 times."), "{html}");
}

/// Every manifest is read, whether an entry measures its kernel or not (issue 48): a
/// broken manifest no entry uses fails `check` and `build` at its own line and field, a
/// kernel source without a manifest (code a page may show) is no problem, and a manifest an
/// entry does use is reported once, at the manifest, not again at the entry.
#[test]
fn every_manifest_is_checked_at_its_own_line_used_or_not() {
    let site = Site::new();
    let model = "  kind: shared\n  word: lane * stride\n";
    let good = manifest(
        "unused",
        model,
        "stride",
        "[1, 32]",
        "[L, 32L]",
        "Lane reads",
    );
    site.write("kernels/unused.cu", kernel("unused"))
        .write(
            "kernels/unused.yaml",
            good.replace("rows: [L, 32L]", "rows: [L, 64L]"),
        )
        .write("kernels/orphan.cu", kernel("orphan"))
        .write("kernels/used.cu", kernel("used"))
        .write(
            "kernels/used.yaml",
            manifest("used", model, "stride", "[1, 32]", "[L, 32L]", "Lane reads")
                .replace("bytes_per_thread: 8192", "bytes_per_thread: 8192\nextra: 1"),
        )
        .write(
            "content/glossary/used.md",
            entry("Used", "used", "L", "No numbers."),
        );
    let rows_line = line_of(&site, "kernels/unused.yaml", "rows");
    let extra_line = line_of(&site, "kernels/used.yaml", "extra");
    for args in [&["check", "--no-kernels"][..], &["build", "--drafts"][..]] {
        let o = site.run(args);
        assert_code(&o, 1);
        assert_stderr_has(
            &o,
            &[
                &format!("error: kernels/unused.yaml:{rows_line}: field `table.rows`:"),
                &format!(
                    "error: kernels/used.yaml:{extra_line}: field `extra`: unknown field `extra`"
                ),
            ],
        );
        let err = stderr(&o);
        assert_eq!(
            err.matches("unknown field `extra`").count(),
            1,
            "once: {err}"
        );
        assert!(
            !err.contains("content/glossary/used.md"),
            "not at the entry: {err}"
        );
    }
}

/// `coursegen eject --kernel-header` writes the contract header NVRTC gets, which the
/// guide's kernel contract describes; a second eject refuses to replace it.
#[test]
fn eject_writes_the_kernel_contract_header() {
    let site = Site::new();
    let o = site.run(&["eject", "--kernel-header"]);
    assert_code(&o, 0);
    let header = site.read("kernels/coursegen.cuh");
    assert_eq!(
        header,
        std::fs::read_to_string(repo().join("assets/cuda/coursegen.cuh")).unwrap()
    );
    for promised in [
        "COURSEGEN_PARAMS",
        "class Witness",
        "blocks(int logical_blocks)",
        "thread_of",
        "load_tile",
        "input_words",
        "block_threads",
    ] {
        assert!(header.contains(promised), "{promised}");
    }
    assert!(
        stdout(&o).contains("kernels/coursegen.cuh"),
        "{}",
        stdout(&o)
    );
    site.write("kernels/coursegen.cuh", "// edited");
    assert_code(&site.run(&["eject", "--kernel-header"]), 2);
    assert_eq!(site.read("kernels/coursegen.cuh"), "// edited");
}

/// Without NVRTC, `check` says once that the kernels were not compiled and how to get NVRTC
/// (where the machine has a system NVRTC, it says how many it compiled instead).
#[test]
fn check_says_whether_kernels_were_compiled() {
    let site = Site::new();
    site.write("kernels/used.cu", kernel("used")).write(
        "kernels/used.yaml",
        manifest(
            "used",
            "  kind: shared\n  word: lane\n",
            "stride",
            "[1]",
            "[L]",
            "Lane",
        ),
    );
    let mut command = site.command(&["check"]);
    command.env_remove("LD_LIBRARY_PATH");
    let o = command.output().unwrap();
    let out = format!("{}{}", stdout(&o), stderr(&o));
    if out.contains("not compiled") {
        assert_eq!(out.matches("not compiled").count(), 1, "{out}");
        assert!(
            out.contains("1 kernel was not compiled: no NVRTC (libnvrtc) found")
                && out.contains("pip install --target ~/.local/nvrtc"),
            "{out}"
        );
    } else {
        assert!(out.contains("kernels: 1 compiled with NVRTC"), "{out}");
    }
    // `--no-kernels` says nothing of them; a course with no kernels neither.
    let o = site.run(&["check", "--no-kernels"]);
    assert!(!stdout(&o).contains("kernel"), "{}", stdout(&o));
    std::fs::remove_dir_all(site.root().join("kernels")).unwrap();
    let o = site.run(&["check"]);
    assert!(!stdout(&o).contains("kernel"), "{}", stdout(&o));
}
