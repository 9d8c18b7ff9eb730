//! `coursegen check`'s kernel check, with no GPU: every `kernels/NAME.cu` whose manifest
//! reads is compiled by NVRTC to PTX for [`ARCH`], with the contract header and the
//! manifest's options, and the manifest's `kernel` and `reference.kernel` must be entry
//! points with the contract's parameters (`contract::keeps_contract`). Compile errors are
//! reported at the `.cu` file's line, a missing entry point at the manifest's field, wrong
//! parameters at the kernel's line. A kernel that includes any file but the contract header,
//! or a manifest whose options name paths, is refused before NVRTC runs (`contract::refused`:
//! kernels are content, and the compiler would read, and quote, any file of the machine). A
//! manifest that does not read is the check stage's to report (it reads every manifest); it
//! is skipped here.
use std::path::Path;

use super::nvrtc;
use crate::content::Diagnostic;
use crate::measurement::contract::{self, Broken};
use crate::measurement::manifest::{self, Manifest};
use crate::measurement::record::KernelFiles;

/// The architecture kernels are compiled for when no GPU says which: Hopper's, the course's
/// measuring GPUs. PTX needs no GPU; a kernel that compiles for it may still need a newer
/// one only where it says so itself.
pub(crate) const ARCH: u32 = 90;

/// What the kernel check did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KernelCheck {
    /// The course has no kernels.
    NoKernels,
    /// NVRTC cannot be loaded: nothing was compiled (`how` says how to get it).
    NoNvrtc {
        /// The kernels that were not compiled.
        kernels: usize,
    },
    /// Every kernel whose manifest reads was compiled.
    Checked {
        /// How many.
        kernels: usize,
        /// NVRTC's version, e.g. `13.0`.
        nvrtc: String,
        /// Compile errors and broken entry points, by file and line.
        problems: Vec<Diagnostic>,
    },
}

/// How to make NVRTC loadable, for the message that says kernels were not compiled.
pub(crate) const HOW_TO_GET_NVRTC: &str = "install the CUDA toolkit, or NVRTC alone from PyPI \
    (`python3 -m pip install --target ~/.local/nvrtc 'nvidia-cuda-nvrtc>=13.0,<13.1'`) and put \
    ~/.local/nvrtc/nvidia/cu13/lib on LD_LIBRARY_PATH (the guide's \"The kernel contract\")";

/// Compiles the kernels of `root/kernels` that `only` names (every one when it is empty) and
/// checks their entry points.
pub(crate) fn check_kernels(root: &Path, only: &[String]) -> KernelCheck {
    let dir = root.join("kernels");
    let files = KernelFiles::new(&dir);
    let mut names = files.names("yaml").unwrap_or_default();
    if !only.is_empty() {
        names.retain(|n| only.contains(n));
    }
    if names.is_empty() {
        return KernelCheck::NoKernels;
    }
    if !nvrtc::present() {
        return KernelCheck::NoNvrtc {
            kernels: names.len(),
        };
    }
    let header = match contract::header(&files) {
        Ok(h) => h,
        // The check stage reports a course header that cannot be read; nothing compiles
        // without it.
        Err(_) => {
            return KernelCheck::Checked {
                kernels: 0,
                nvrtc: version(),
                problems: Vec::new(),
            };
        }
    };
    let mut problems = Vec::new();
    let mut kernels = 0;
    for name in &names {
        let (Ok(source), Ok(text)) = (files.read(name, "cu"), files.read(name, "yaml")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&text);
        let yaml = format!("kernels/{name}.yaml");
        let Ok(manifest) = Manifest::parse(Path::new(&yaml), &text) else {
            continue;
        };
        kernels += 1;
        let source = String::from_utf8_lossy(&source);
        let file = format!("kernels/{name}.cu");
        problems.extend(check_one(
            &Kernel {
                file: &file,
                source: &source,
                yaml: &yaml,
                manifest_text: &text,
                manifest: &manifest,
            },
            &header,
        ));
    }
    KernelCheck::Checked {
        kernels,
        nvrtc: version(),
        problems,
    }
}

/// What `measure` refuses before touching a GPU: the problems of the kernels it was asked
/// for (`only`; every kernel when empty). Call only when NVRTC is present.
pub(crate) fn contract_problems(root: &Path, only: &[String]) -> Vec<Diagnostic> {
    match check_kernels(root, only) {
        KernelCheck::Checked { problems, .. } => problems,
        KernelCheck::NoKernels | KernelCheck::NoNvrtc { .. } => Vec::new(),
    }
}

fn version() -> String {
    nvrtc::version().unwrap_or_else(|_| "(unknown version)".to_owned())
}

/// One kernel as the check reads it.
struct Kernel<'a> {
    file: &'a str,
    source: &'a str,
    yaml: &'a str,
    manifest_text: &'a str,
    manifest: &'a Manifest,
}

fn check_one(k: &Kernel<'_>, header: &[u8]) -> Vec<Diagnostic> {
    // Nothing is compiled that would make NVRTC read a file outside the kernel and the header.
    let header_name = format!("kernels/{}", contract::HEADER_NAME);
    let header_text = String::from_utf8_lossy(header);
    let refusals: Vec<Diagnostic> = (contract::refused(k.source, &k.manifest.compile_options))
        .into_iter()
        .map(|(line, why)| match line {
            0 => Diagnostic::new(
                k.yaml,
                manifest::line_of(k.manifest_text, "compile_options"),
                why,
            )
            .field("compile_options"),
            _ => Diagnostic::new(k.file, line, why),
        })
        .chain(
            (contract::refused(&header_text, &[]).into_iter())
                .map(|(line, why)| Diagnostic::new(&header_name, line, why)),
        )
        .collect();
    if !refusals.is_empty() {
        return refusals;
    }
    let options = contract::options(k.manifest);
    let unit = nvrtc::Unit {
        source: k.source,
        file: k.file,
        header,
        options: &options,
    };
    let compiled = match nvrtc::ptx(&unit, ARCH) {
        Ok(c) => c,
        Err(super::error::MeasureError::Compile { options, log, .. }) => {
            return compile_errors(k.file, &log, &options);
        }
        Err(e) => return vec![Diagnostic::new(k.file, 0, e.to_string())],
    };
    let nvrtc::Binary::Ptx(ptx) = &compiled.binary else {
        return Vec::new();
    };
    let entries = contract::entries(ptx);
    let mut problems = Vec::new();
    for (field, name) in [
        ("kernel", &k.manifest.kernel),
        ("reference.kernel", &k.manifest.reference.kernel),
    ] {
        match contract::keeps_contract(&entries, name) {
            Ok(()) => {}
            Err(broken @ Broken::Params(_)) => problems.push(
                Diagnostic::new(
                    k.file,
                    contract::line_of_function(k.source, name),
                    format!("kernel `{name}` (the manifest's `{field}`) {broken}"),
                )
                .help(format!(
                    "measure launches it as {name}{}",
                    contract::PARAMS_C
                )),
            ),
            Err(broken) => problems.push(
                Diagnostic::new(
                    k.yaml,
                    manifest::line_of(k.manifest_text, field),
                    format!("`{name}` {broken} (`{}`)", k.file),
                )
                .field(field),
            ),
        }
    }
    problems
}

/// NVRTC's errors as diagnostics at their file and line (the kernel's, or the header's);
/// a log with no located error is one diagnostic at the file.
fn compile_errors(file: &str, log: &str, options: &str) -> Vec<Diagnostic> {
    let help = format!("NVRTC {} compiled it with: {options}", version());
    let found: Vec<Diagnostic> = contract::log_lines(log)
        .into_iter()
        .filter(|l| l.message.starts_with("error") || l.message.starts_with("catastrophic"))
        .map(|l| {
            let first = l.message.lines().next().unwrap_or_default();
            let at = if l.file == contract::HEADER_NAME {
                format!("kernels/{}", contract::HEADER_NAME)
            } else {
                l.file
            };
            Diagnostic::new(at, l.line, format!("does not compile: {first}")).help(help.clone())
        })
        .collect();
    if found.is_empty() {
        let first = log.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return vec![Diagnostic::new(file, 0, format!("does not compile: {first}")).help(help)];
    }
    found
}
