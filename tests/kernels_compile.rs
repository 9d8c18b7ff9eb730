//! Compile check of every `kernels/*.cu` with NVRTC alone (no GPU): for the course's free T4
//! (sm_75) and for Hopper (sm_90), with the options its manifest declares. Ignored by
//! default, since it needs libnvrtc: `. .ci/nvrtc.sh` provides it, then
//! `cargo test --test kernels_compile -- --ignored` (what `.ci/run` does). Without NVRTC
//! it fails: an ignored test is reported as ignored, never as a pass.
use std::path::Path;

use coursegen::measurement::contract;
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
        let options = contract::options(&manifest);
        let unit = nvrtc::Unit {
            source: &source,
            file: &file,
            header: contract::HEADER.as_bytes(),
            options: &options,
        };
        for cc in TARGETS {
            let compiled = nvrtc::compile(&unit, cc).unwrap_or_else(|e| panic!("{e}"));
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

/// The five kernels rewritten on the contract header (tests/fixtures/kernels-on-header/,
/// issue 48), to replace kernels/ when they are re-measured: each compiles, for Hopper, to
/// the same instructions in the same order as the measured kernel it replaces, entry point
/// by entry point (the register allocator may pick other registers for the witness's two
/// clock reads), and is at least a fifth shorter: the header costs the timed code nothing.
#[test]
#[ignore = "needs libnvrtc: `. .ci/nvrtc.sh`, then `cargo test --test kernels_compile -- --ignored`"]
fn the_kernels_on_the_header_compile_to_the_measured_machine_code() {
    assert!(
        nvrtc::present(),
        "libnvrtc not found (`. .ci/nvrtc.sh` provides it)"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixtures = root.join("tests/fixtures/kernels-on-header");
    let (mut compared, mut differs) = (0, Vec::new());
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let rewritten = entry.unwrap().path();
        let name = rewritten
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let manifest = Manifest::load(&root.join(format!("kernels/{name}.yaml"))).unwrap();
        let measured = std::fs::read_to_string(root.join(format!("kernels/{name}.cu"))).unwrap();
        let rewritten = std::fs::read_to_string(&rewritten).unwrap();
        let source = rewritten.as_str();
        assert!(
            source.lines().count() * 5 <= measured.lines().count() * 4,
            "{name}.cu on the header is not a fifth shorter"
        );
        let file = format!("kernels/{name}.cu");
        let sass = |source: &str| {
            let options = contract::options(&manifest);
            let unit = nvrtc::Unit {
                source,
                file: &file,
                header: contract::HEADER.as_bytes(),
                options: &options,
            };
            match nvrtc::compile(&unit, (9, 0))
                .unwrap_or_else(|e| panic!("{e}"))
                .binary
            {
                Binary::Cubin(c) => c,
                Binary::Ptx(_) => panic!("no CUBIN for sm_90"),
            }
        };
        let (old, new) = (sass(&measured), sass(&rewritten));
        for entry in [&manifest.kernel, &manifest.reference.kernel] {
            let (a, b) = (text_section(&old, entry), text_section(&new, entry));
            if let Some(dir) = std::env::var_os("DUMP") {
                let dir = Path::new(&dir);
                std::fs::write(dir.join(format!("{entry}.old")), &a).unwrap();
                std::fs::write(dir.join(format!("{entry}.new")), &b).unwrap();
            }
            let differ = a
                .chunks(16)
                .zip(b.chunks(16))
                .filter(|(x, y)| !same_but_registers(x, y))
                .count();
            if a.len() != b.len() || differ > 0 {
                differs.push(format!(
                    "{name}: `{entry}` compiles to other machine code on the header ({} \
                     instructions measured, {} on the header, {differ} differ)",
                    a.len() / 16,
                    b.len() / 16
                ));
            }
        }
        compared += 1;
    }
    assert_eq!(compared, 5, "one rewrite per measured kernel");
    assert!(differs.is_empty(), "{}", differs.join("\n"));
}

/// Whether two 16-byte Hopper instructions are the same but for the registers they name:
/// bytes 2, 3, 4 and 8 hold the destination and the source registers (where a register
/// allocator's choice shows); every other byte (opcode, modifiers, immediates, the
/// scheduling bits) must be equal.
fn same_but_registers(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && (0..a.len()).all(|i| matches!(i, 2 | 3 | 4 | 8) || a[i] == b[i])
}

/// The bytes of ELF section `.text.<entry>` of a CUBIN.
fn text_section(elf: &[u8], entry: &str) -> Vec<u8> {
    let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28), u16_at(0x3A), u16_at(0x3C), u16_at(0x3E));
    let header = |i: usize| shoff + i * shentsize;
    let names = u64_at(header(shstrndx) + 0x18);
    let wanted = format!(".text.{entry}");
    for i in 0..shnum {
        let h = header(i);
        let name_at = names + u32::from_le_bytes(elf[h..h + 4].try_into().unwrap()) as usize;
        let end = name_at + elf[name_at..].iter().position(|&b| b == 0).unwrap();
        if elf[name_at..end] == *wanted.as_bytes() {
            let (offset, size) = (u64_at(h + 0x18), u64_at(h + 0x20));
            return elf[offset..offset + size].to_vec();
        }
    }
    panic!("no section {wanted}")
}

/// The guide's "Add a measured concept" page (guide/src/measuring/new-concept.md).
fn guide_page() -> String {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("guide/src/measuring/new-concept.md");
    std::fs::read_to_string(page).unwrap()
}

/// The guide page's code blocks marked `<!-- file: PATH -->`, by path.
fn guide_concept_files() -> Vec<(String, String)> {
    let page = guide_page();
    let mut files = Vec::new();
    let mut rest = page.as_str();
    while let Some(at) = rest.find("<!-- file: ") {
        rest = &rest[at + "<!-- file: ".len()..];
        let path = rest[..rest.find(" -->").unwrap()].to_owned();
        let fence = rest.find("```").unwrap();
        let body_at = fence + rest[fence..].find('\n').unwrap() + 1;
        let end = body_at + rest[body_at..].find("\n```").unwrap();
        files.push((path, format!("{}\n", &rest[body_at..end])));
        rest = &rest[end..];
    }
    files
}

/// A course made by `coursegen init` in `course/` of a temporary folder (its build cache in
/// `cache/` beside it), with the guide's new concept written into it; NVRTC must load.
fn course_with_the_guide_s_concept() -> tempfile::TempDir {
    assert!(
        nvrtc::present(),
        "libnvrtc not found (`. .ci/nvrtc.sh` provides it)"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("course")).unwrap();
    let init = coursegen(&dir.path().join("course"), &["init"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let files = guide_concept_files();
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "kernels/misaligned.cu",
            "kernels/misaligned.yaml",
            "content/glossary/misaligned-access.md"
        ]
    );
    for (path, text) in files {
        std::fs::write(dir.path().join("course").join(path), text).unwrap();
    }
    dir
}

fn coursegen(root: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .args(args)
        .arg("--root")
        .arg(root)
        .env("XDG_CACHE_HOME", root.with_file_name("cache"))
        .output()
        .unwrap()
}

/// What `check` printed, both streams.
fn said(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
#[ignore = "needs libnvrtc: `. .ci/nvrtc.sh`, then `cargo test --test kernels_compile -- --ignored`"]
fn the_guide_s_new_concept_passes_check_in_an_init_d_course() {
    let dir = course_with_the_guide_s_concept();
    let course = dir.path().join("course");
    let check = coursegen(&course, &["check"]);
    let out = said(&check);
    assert!(check.status.success(), "{out}");
    assert!(
        out.contains("kernels: 2 compiled with NVRTC") && out.contains("as the contract says"),
        "{out}"
    );
    // The preview draws the diagram from the manifest's model; the binding waits for a record.
    let build = coursegen(course.as_path(), &["build", "--drafts", "--no-search"]);
    assert!(build.status.success(), "{}", said(&build));
    let page = std::fs::read_to_string(course.join("public/glossary/misaligned-access/index.html"))
        .unwrap();
    assert!(
        page.contains("<svg") && page.contains("lane-sectors"),
        "no diagram"
    );
    assert!(
        page.contains("(not measured yet) times the aligned load"),
        "no binding"
    );
}

/// Each planted defect fails `check` at the file and line the page or the manifest says,
/// and the errors the guide page quotes are the ones `check` prints.
#[test]
#[ignore = "needs libnvrtc: `. .ci/nvrtc.sh`, then `cargo test --test kernels_compile -- --ignored`"]
fn planted_kernel_defects_fail_check_at_their_file_and_line() {
    let dir = course_with_the_guide_s_concept();
    let course = dir.path().join("course");
    let cu = course.join("kernels/misaligned.cu");
    let yaml = course.join("kernels/misaligned.yaml");
    let (source, manifest) = (
        std::fs::read_to_string(&cu).unwrap(),
        std::fs::read_to_string(&yaml).unwrap(),
    );
    let page = guide_page();
    let line_of =
        |text: &str, needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let cases: [(&str, &Path, String, String); 7] = [
        (
            "an include of a file of the machine (a hostile contributor)",
            &cu,
            source.replace(
                "#include <coursegen.cuh>",
                "#include <coursegen.cuh>\n#include \"/etc/passwd\"",
            ),
            format!(
                "kernels/misaligned.cu:{}: includes `\"/etc/passwd\"`: a kernel may include only <coursegen.cuh>",
                line_of(&source, "#include <coursegen.cuh>") + 1
            ),
        ),
        (
            "a compile option that names a path",
            &yaml,
            manifest.replace("[\"--std=c++17\"]", "[\"--std=c++17\", \"--pre-include=/etc/passwd\"]"),
            format!(
                "kernels/misaligned.yaml:{}: field `compile_options`: compile option `--pre-include=/etc/passwd` is not one a course may pass",
                line_of(&manifest, "compile_options:")
            ),
        ),
        (
            "a syntax error",
            &cu,
            source.replace("+ offset + lane;", "+ ofset + lane;"),
            format!(
                "kernels/misaligned.cu:{}: does not compile: error: identifier \"ofset\" is undefined",
                line_of(&source, "+ offset + lane;")
            ),
        ),
        (
            "a missing reference kernel",
            &cu,
            source.replace("misaligned_reference(COURSEGEN", "misaligned_ref(COURSEGEN"),
            format!(
                "kernels/misaligned.yaml:{}: field `reference.kernel`: `misaligned_reference` is not a kernel of the source",
                line_of(&manifest, "kernel: misaligned_reference")
            ),
        ),
        (
            "parameters that differ from the contract",
            &cu,
            source.replace(
                "misaligned_reference(COURSEGEN_PARAMS(offset))",
                "misaligned_reference(const unsigned int* input, unsigned int* output, unsigned long long offset, int logical_blocks, unsigned long long* clock)",
            ),
            format!(
                "kernels/misaligned.cu:{}: kernel `misaligned_reference` (the manifest's `reference.kernel`) takes 5 parameters (u64, u64, u64, u32, u64)",
                line_of(&source, "misaligned_reference(COURSEGEN")
            ),
        ),
        (
            "a manifest naming a kernel the source lacks",
            &yaml,
            manifest.replace("kernel: misaligned\n", "kernel: misalignd\n"),
            "kernels/misaligned.yaml:1: field `kernel`: `misalignd` is not a kernel of the source; its `extern \"C\" __global__` kernels are `misaligned`, `misaligned_reference`".to_owned(),
        ),
        (
            "a kernel without extern \"C\"",
            &cu,
            source.replacen("extern \"C\" __global__", "__global__", 1),
            "kernels/misaligned.yaml:1: field `kernel`: `misaligned` is compiled as the C++ symbol".to_owned(),
        ),
    ];
    for (what, file, planted, expected) in cases {
        let original = std::fs::read_to_string(file).unwrap();
        assert_ne!(original, planted, "{what}: nothing planted");
        std::fs::write(file, &planted).unwrap();
        let check = coursegen(&course, &["check"]);
        let out = said(&check);
        assert_eq!(check.status.code(), Some(1), "{what}: {out}");
        assert!(
            out.contains(&format!("error: {expected}")),
            "{what}: wanted `{expected}` in:\n{out}"
        );
        let errors = out.lines().filter(|l| l.starts_with("error: ")).count();
        assert_eq!(errors, 1, "{what}: said once:\n{out}");
        std::fs::write(file, original).unwrap();
    }
    // The page quotes the syntax error as check prints it.
    let quoted = format!(
        "`kernels/misaligned.cu:{}: does not compile: error: identifier \"ofset\" is undefined`",
        line_of(&source, "+ offset + lane;")
    );
    assert!(page.contains(&quoted), "the guide should quote {quoted}");
}

/// `measure --gpu` refuses a kernel whose entry points break the contract before it touches
/// any GPU (the driver would read past the five arguments it passes), at the kernel's line,
/// as `check` does: on a machine with NVRTC and no GPU, that is what it says, exit 1.
#[test]
#[ignore = "needs libnvrtc: `. .ci/nvrtc.sh`, then `cargo test --test kernels_compile -- --ignored`"]
fn measure_refuses_a_kernel_that_breaks_the_contract_before_any_gpu() {
    let dir = course_with_the_guide_s_concept();
    let course = dir.path().join("course");
    let cu = course.join("kernels/misaligned.cu");
    let source = std::fs::read_to_string(&cu).unwrap();
    let line = source
        .lines()
        .position(|l| l.contains("misaligned(COURSEGEN_PARAMS"))
        .unwrap()
        + 1;
    std::fs::write(
        &cu,
        source.replace(
            "misaligned(COURSEGEN_PARAMS(offset))",
            "misaligned(const unsigned int* input, unsigned int* output, int offset, int logical_blocks)",
        )
        .replace("coursegen::Witness witness(clock);", ""),
    )
    .unwrap();
    let run = coursegen(&course, &["measure", "--gpu", "--kernel", "misaligned"]);
    let out = said(&run);
    assert_eq!(run.status.code(), Some(1), "{out}");
    assert!(
        out.contains("break the kernel contract, so nothing was launched")
            && out.contains(&format!(
                "kernels/misaligned.cu:{line}: kernel `misaligned` (the manifest's `kernel`) takes 4 parameters"
            )),
        "{out}"
    );
}
