//! Compile check of every `kernels/*.cu` with NVRTC alone (no GPU): for the course's free T4
//! (sm_75) and for Hopper (sm_90), with the options its manifest declares. CI gets libnvrtc
//! from `.ci/nvrtc.sh`; without it the test skips, unless COURSEGEN_REQUIRE_NVRTC=1.
use std::path::Path;

use coursegen::measurement::manifest::Manifest;
use coursegen::measurement::run::nvrtc::{self, Binary};

/// Architectures every kernel must compile for: Turing (T4) and Hopper (H100/H200).
const TARGETS: [(u32, u32); 2] = [(7, 5), (9, 0)];

#[test]
fn every_kernel_compiles_with_nvrtc() {
    if !nvrtc::present() {
        let msg = "libnvrtc not found: kernels not compile-checked (`. .ci/nvrtc.sh` provides it)";
        assert!(
            std::env::var("COURSEGEN_REQUIRE_NVRTC").as_deref() != Ok("1"),
            "{msg}"
        );
        eprintln!("skipped: {msg}");
        return;
    }
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
            // An unmangled kernel has an ELF section named .text.<entry>.
            let section = format!(".text.{}\0", manifest.kernel);
            assert!(
                cubin
                    .windows(section.len())
                    .any(|w| w == section.as_bytes()),
                "{file}: no unmangled entry `{}` for sm_{}{}: declare it extern \"C\"",
                manifest.kernel,
                cc.0,
                cc.1
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "no kernels under {}", dir.display());
    eprintln!(
        "compiled {checked} kernel × target pairs with NVRTC {}",
        nvrtc::version().unwrap()
    );
}
