//! Tests of records: round trip, atomic save, loading errors, staleness.
use super::*;
use crate::canonical::sha256_hex;

fn fixture() -> Record {
    fixture::record("Fixture GPU", b"kernel source", b"manifest")
}

#[test]
fn a_record_round_trips_through_save_and_load() {
    let dir = tempfile::tempdir().unwrap();
    let record = fixture();
    let path = save(dir.path(), &record).unwrap();
    assert_eq!(path, dir.path().join("bank_conflicts/fixture-gpu.json"));
    assert_eq!(load(&path).unwrap(), record);
    let set = load_all(dir.path()).unwrap();
    assert_eq!(set.for_kernel("bank_conflicts").len(), 1);
    assert!(set.for_kernel("other").is_empty());
}

/// `save` seals what it writes; the checksum survives a reformatting of the file (another
/// indentation, keys reordered) but not a changed number, and a malformed one is refused.
#[test]
fn a_saved_record_is_sealed_and_an_edit_breaks_the_seal() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = fixture();
    record.checksum = None;
    record.format = 2;
    assert_eq!(record.seal_state(), Seal::Unsealed);
    let path = save(dir.path(), &record).unwrap();
    let saved = load(&path).unwrap();
    assert_eq!(saved.format, FORMAT);
    assert_eq!(saved.seal_state(), Seal::Sealed);
    let text = std::fs::read_to_string(&path).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    std::fs::write(&path, serde_json::to_string(&value).unwrap()).unwrap();
    assert_eq!(
        load(&path).unwrap().seal_state(),
        Seal::Sealed,
        "reformatted"
    );
    let scaled = text.replacen("\"median_ms\": 1.1,", "\"median_ms\": 2.2,", 1);
    assert_ne!(scaled, text);
    std::fs::write(&path, scaled).unwrap();
    assert_eq!(load(&path).unwrap().seal_state(), Seal::Broken);
    let bad = text.replacen("\"checksum\": \"sha256:", "\"checksum\": \"md5:", 1);
    std::fs::write(&path, bad).unwrap();
    let err = load(&path).unwrap_err().to_string();
    assert!(
        err.contains("`checksum` is not `sha256:` and 64 lowercase hex digits"),
        "{err}"
    );
}

/// The committed records read back bit for bit (numbers parsed exactly), so they are sealed.
#[test]
fn the_committed_records_are_sealed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("measurements");
    let set = load_all(&root).unwrap();
    assert!(set.by_kernel.len() >= 3);
    for loaded in set.by_kernel.values().flatten() {
        assert_eq!(
            loaded.record.seal_state(),
            Seal::Sealed,
            "{}",
            loaded.path.display()
        );
    }
}

#[test]
fn save_replaces_the_old_record_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = fixture();
    save(dir.path(), &record).unwrap();
    record.run.date = "2026-02-02T00:00:00Z".into();
    let path = save(dir.path(), &record).unwrap();
    assert_eq!(load(&path).unwrap().run.date, "2026-02-02T00:00:00Z");
    let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["fixture-gpu.json"]);
}

#[test]
fn save_refuses_an_invalid_record_and_keeps_the_good_one() {
    let dir = tempfile::tempdir().unwrap();
    let good = fixture();
    let path = save(dir.path(), &good).unwrap();
    let mut bad = good.clone();
    bad.rows[0].median_ms = f64::NAN;
    let err = save(dir.path(), &bad).unwrap_err().to_string();
    assert!(
        err.contains("fixture-gpu.json") && err.contains("row `L`"),
        "{err}"
    );
    assert_eq!(load(&path).unwrap(), good);
}

#[test]
fn load_all_reports_every_bad_file_by_name() {
    let dir = tempfile::tempdir().unwrap();
    save(dir.path(), &fixture()).unwrap();
    let kernel_dir = dir.path().join("bank_conflicts");
    std::fs::write(kernel_dir.join("broken.json"), "{ not json").unwrap();
    std::fs::write(kernel_dir.join("notes.txt"), "ignored").unwrap();
    let moved = serde_json::to_string(&fixture()).unwrap();
    std::fs::write(kernel_dir.join("elsewhere.json"), moved).unwrap();
    let errors = load_all(dir.path()).unwrap_err();
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 2, "{text:?}");
    assert!(
        text[0].contains("broken.json") && text[0].contains("line 1"),
        "{}",
        text[0]
    );
    assert!(
        text[1].contains("elsewhere.json") && text[1].contains("bank_conflicts/fixture-gpu.json")
    );
}

/// One lister, one set of refusals: a kernel's records are its folder's `*.json`, sorted;
/// a missing folder has none; a name that is not one folder's, and a linked folder, are
/// refused whichever command asks.
#[cfg(unix)]
#[test]
fn a_kernels_records_are_listed_from_its_own_folder_only() {
    let dir = tempfile::tempdir().unwrap();
    let measurements = dir.path().join("measurements");
    let saved = save(&measurements, &fixture()).unwrap();
    let folder = saved.parent().unwrap();
    std::fs::write(folder.join("a.json"), "{}").unwrap();
    std::fs::write(folder.join("notes.txt"), "").unwrap();
    std::fs::write(dir.path().join("outside.json"), "{}").unwrap();
    let list = |kernel: &str| kernel_records(&measurements, kernel);
    assert_eq!(
        list("bank_conflicts").unwrap(),
        [folder.join("a.json"), saved.clone()]
    );
    assert!(list("none").unwrap().is_empty());
    assert!(
        kernel_records(&dir.path().join("none"), "k")
            .unwrap()
            .is_empty()
    );
    for odd in ["..", ".", "", "a/b", "/tmp"] {
        let err = list(odd).unwrap_err().to_string();
        assert!(
            err.contains("is no kernel's records folder"),
            "{odd}: {err}"
        );
    }
    std::os::unix::fs::symlink(folder, measurements.join("linked")).unwrap();
    let err = list("linked").unwrap_err().to_string();
    assert!(err.contains("is a symbolic link"), "{err}");
    assert!(load_all(&measurements).is_err(), "build refuses it too");
}

#[test]
fn a_missing_measurements_folder_is_an_empty_set() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        load_all(&dir.path().join("none")).unwrap(),
        RecordSet::default()
    );
}

#[test]
fn unknown_fields_in_a_record_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = save(dir.path(), &fixture()).unwrap();
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replacen('{', "{\"extra\": 1,", 1);
    std::fs::write(&path, text).unwrap();
    let err = load(&path).unwrap_err().to_string();
    assert!(err.contains("unknown field `extra`"), "{err}");
}

/// A record of a kernel that included the contract header states the header's hash, and a
/// coursegen (or a course copy) whose header differs makes it stale; a record without the
/// hash is judged by source and manifest alone.
#[test]
fn staleness_compares_the_contract_header_when_the_record_states_it() {
    let mut record = fixture();
    assert_eq!(
        record.freshness(b"kernel source", b"manifest", b"any header"),
        Freshness::Fresh
    );
    record.build.header_sha256 = Some(sha256_hex(b"header v1"));
    assert_eq!(
        record.freshness(b"kernel source", b"manifest", b"header v1"),
        Freshness::Fresh
    );
    assert_eq!(
        record.freshness(b"kernel source", b"manifest", b"header v2"),
        Freshness::Stale {
            source_changed: false,
            manifest_changed: false,
            header_changed: true,
        }
    );
    let said = StaleRecord {
        kernel: "k".into(),
        path: "measurements/k/gpu.json".into(),
        source_changed: false,
        manifest_changed: false,
        header_changed: true,
    }
    .to_string();
    assert!(
        said.contains("the contract header coursegen.cuh it includes has changed"),
        "{said}"
    );
}

#[test]
fn staleness_compares_source_and_manifest_hashes() {
    let record = fixture();
    assert_eq!(
        record.freshness(b"kernel source", b"manifest", b"header"),
        Freshness::Fresh
    );
    let cases = [
        (
            &b"kernel source // edited"[..],
            &b"manifest"[..],
            true,
            false,
        ),
        (b"kernel source", b"manifest: edited", false, true),
        (b"x", b"y", true, true),
    ];
    for (source, manifest, source_changed, manifest_changed) in cases {
        assert_eq!(
            record.freshness(source, manifest, b"header"),
            Freshness::Stale {
                source_changed,
                manifest_changed,
                header_changed: false,
            }
        );
    }
}

#[test]
fn slugs_are_lowercase_words_joined_by_dashes() {
    for (name, slug) in [
        ("NVIDIA H200", "nvidia-h200"),
        ("Tesla T4", "tesla-t4"),
        ("NVIDIA GeForce RTX 4090 ", "nvidia-geforce-rtx-4090"),
        ("NVIDIA H100 80GB HBM3", "nvidia-h100-80gb-hbm3"),
    ] {
        assert_eq!(device_slug(name), slug);
    }
}

#[test]
fn stale_records_names_kernel_record_and_the_changed_file() {
    let root = tempfile::tempdir().unwrap();
    let (kernels, measurements) = (
        root.path().join("kernels"),
        root.path().join("measurements"),
    );
    std::fs::create_dir_all(&kernels).unwrap();
    std::fs::write(kernels.join("bank_conflicts.cu"), "kernel source").unwrap();
    std::fs::write(kernels.join("bank_conflicts.yaml"), "manifest").unwrap();
    save(&measurements, &fixture()).unwrap();
    let set = load_all(&measurements).unwrap();
    assert_eq!(
        stale_records(&KernelFiles::new(&kernels), &set, b"header").unwrap(),
        []
    );

    std::fs::write(kernels.join("bank_conflicts.cu"), "kernel source, edited").unwrap();
    let stale = stale_records(&KernelFiles::new(&kernels), &set, b"header").unwrap();
    let message = stale[0].to_string();
    assert!(
        message.contains("bank_conflicts/fixture-gpu.json"),
        "{message}"
    );
    assert!(
        message.contains("kernels/bank_conflicts.cu has changed"),
        "{message}"
    );
    assert!(
        message.contains("coursegen measure --gpu --kernel bank_conflicts"),
        "{message}"
    );

    std::fs::remove_file(kernels.join("bank_conflicts.yaml")).unwrap();
    let errors = stale_records(&KernelFiles::new(&kernels), &set, b"header").unwrap_err();
    assert!(
        errors[0].to_string().contains("fixture-gpu.json"),
        "{}",
        errors[0]
    );
}

#[cfg(unix)]
#[test]
fn records_are_saved_as_ordinary_files_named_by_gpu() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let mut record = fixture();
    record.device.gpu_id = Some("1a2b3c4d".into());
    let path = save(dir.path(), &record).unwrap();
    assert_eq!(
        path,
        dir.path().join("bank_conflicts/fixture-gpu-1a2b3c4d.json")
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o644, "{mode:o}");
    record.seal();
    assert_eq!(load(&path).unwrap(), record);
}
