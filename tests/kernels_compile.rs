//! Compile check of every `kernels/*.cu` with NVRTC alone (no GPU): for the course's free T4
//! (sm_75) and for Hopper (sm_90), with the options its manifest declares. Ignored by
//! default, since it needs libnvrtc: `. .ci/nvrtc.sh` provides it, then
//! `cargo test --test kernels_compile -- --ignored` (what `.ci/run` does). Without NVRTC
//! it fails: an ignored test is reported as ignored, never as a pass.
use std::path::Path;

use coursegen::measurement::manifest::Manifest;
use coursegen::measurement::run::nvrtc::{self, Binary};

/// Architectures every kernel must compile for: Turing (T4) and Hopper (H100/H200).
const TARGETS: [(u32, u32); 2] = [(7, 5), (9, 0)];

#[test]
#[ignore = "needs libnvrtc: `. .ci/nvrtc.sh`, then `cargo test --test kernels_compile -- --ignored`"]
fn every_kernel_compiles_with_nvrtc() {
    assert!(
        nvrtc::present(),
        "libnvrtc not found: kernels cannot be compile-checked (`. .ci/nvrtc.sh` provides it)"
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let cu = entry.unwrap().path();
        if cu.extension().is_none_or(|e| e != "cu") {
            continue;
        }
        let manifest = Manifest::load(&cu.with_extension("yaml")).unwrap();
        let source = std::fs::read_to_string(&cu).unwrap();
        let file = cu.file_name().unwrap().to_string_lossy().into_owned();
        for cc in TARGETS {
            let compiled = nvrtc::compile(&source, &file, cc, &manifest.compile_options)
                .unwrap_or_else(|e| panic!("{e}"));
            let Binary::Cubin(cubin) = compiled.binary else {
                panic!(
                    "{file}: NVRTC {} gave PTX, not CUBIN, for sm_{}{}",
                    nvrtc::version().unwrap(),
                    cc.0,
                    cc.1
                )
            };
            // An unmangled kernel has an ELF section named .text.<entry>; the reference
            // kernel the manifest names must be there too.
            for entry in [&manifest.kernel, &manifest.reference.kernel] {
                let section = format!(".text.{entry}\0");
                assert!(
                    cubin
                        .windows(section.len())
                        .any(|w| w == section.as_bytes()),
                    "{file}: no unmangled entry `{entry}` for sm_{}{}: declare it extern \"C\"",
                    cc.0,
                    cc.1
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no kernels under {}", dir.display());
    eprintln!(
        "compiled {checked} kernel × target pairs with NVRTC {}",
        nvrtc::version().unwrap()
    );
}
