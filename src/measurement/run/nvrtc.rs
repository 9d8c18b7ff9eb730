//! NVRTC through cudarc: compiles a kernel's source for one GPU — CUBIN for the device's own
//! `sm_XY`, or PTX for the newest `compute_XY` this NVRTC knows when it cannot target the
//! device (the driver then compiles it) — or PTX for a default architecture, with no GPU at
//! all (`coursegen check`). Every program gets the contract header `coursegen.cuh` in
//! memory. Used by `measure`, by `check`'s kernel check and by the kernel compile test.
use std::ffi::{CStr, CString, c_char, c_int};

use cudarc::nvrtc::{result, sys};

use super::error::MeasureError;
use crate::measurement::contract;

/// Whether libnvrtc can be loaded; cudarc panics on first use when it cannot.
pub fn present() -> bool {
    // SAFETY: dlopens libnvrtc by its candidate names and closes it again: that runs only
    // the library's own initialisers, as any use of NVRTC would, and calls nothing in it.
    unsafe { sys::is_culib_present() }
}

/// NVRTC's version as `major.minor`, e.g. `13.0`. Call only when [`present`].
pub fn version() -> Result<String, MeasureError> {
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: `major` and `minor` are live, writable `c_int`s, all nvrtcVersion writes.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| MeasureError::Nvrtc(format!("nvrtcVersion failed: {e}")))?;
    Ok(format!("{major}.{minor}"))
}

/// The compiled kernel, ready for the driver.
#[derive(Debug, Clone)]
pub enum Binary {
    /// Machine code for the device's architecture.
    Cubin(Vec<u8>),
    /// PTX text, compiled by the driver at load.
    Ptx(String),
}

/// A compiled kernel and the exact options it was compiled with.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// CUBIN or PTX.
    pub binary: Binary,
    /// Every option passed to NVRTC, target first.
    pub(crate) options: Vec<String>,
    /// NVRTC's log (warnings), possibly empty.
    pub(crate) log: String,
}

impl Compiled {
    /// `cubin` or `ptx`, as records say it.
    pub(crate) fn kind(&self) -> &'static str {
        match self.binary {
            Binary::Cubin(_) => "cubin",
            Binary::Ptx(_) => "ptx",
        }
    }
}

/// What NVRTC compiles: a kernel's source, named `file` in messages, the contract header it
/// may `#include <coursegen.cuh>`, and the options that follow the target
/// (`measurement::contract::options`).
#[derive(Debug, Clone, Copy)]
pub struct Unit<'a> {
    /// The `.cu` text.
    pub source: &'a str,
    /// Its name in NVRTC's messages, e.g. `kernels/coalescing.cu`.
    pub file: &'a str,
    /// The bytes `#include <coursegen.cuh>` reads.
    pub header: &'a [u8],
    /// Options after the target architecture.
    pub options: &'a [String],
}

/// Compiles `unit` for compute capability `cc`. Call only when [`present`].
pub fn compile(unit: &Unit<'_>, cc: (u32, u32)) -> Result<Compiled, MeasureError> {
    let wanted = cc.0 * 10 + cc.1;
    let archs = supported_archs()?;
    let target = if archs.contains(&wanted) {
        format!("--gpu-architecture=sm_{wanted}")
    } else if let Some(best) = archs.iter().copied().filter(|&a| a <= wanted).max() {
        format!("--gpu-architecture=compute_{best}")
    } else {
        return Err(MeasureError::Nvrtc(format!(
            "this NVRTC targets sm_{:?} and nothing at or below the device's sm_{wanted}; \
             use an NVRTC that supports it",
            archs
        )));
    };
    run(unit, target)
}

/// Compiles `unit` to PTX for `compute_<arch>` (e.g. 90), which needs no GPU: what `check`
/// reads the entry points from. Call only when [`present`].
pub(crate) fn ptx(unit: &Unit<'_>, arch: u32) -> Result<Compiled, MeasureError> {
    run(unit, format!("--gpu-architecture=compute_{arch}"))
}

fn run(unit: &Unit<'_>, target: String) -> Result<Compiled, MeasureError> {
    let mut all = vec![target];
    all.extend(unit.options.iter().cloned());
    let program = Program::new(unit)?;
    // SAFETY: `program.0` came from nvrtcCreateProgram and is destroyed only when `program`
    // drops, after this call; cudarc passes the options as CStrings that live through it.
    let compiled = unsafe { result::compile_program(program.0, &all) };
    let log = program.log();
    if let Err(e) = compiled {
        return Err(MeasureError::Compile {
            file: unit.file.to_owned(),
            options: all.join(" "),
            log: format!("{e}\n{log}"),
        });
    }
    let binary = if all[0].contains("=sm_") {
        Binary::Cubin(program.cubin()?)
    } else {
        // SAFETY: `program.0` is live (destroyed only on drop) and compiled without error.
        let ptx = unsafe { result::get_ptx(program.0) }
            .map_err(|e| MeasureError::Nvrtc(format!("nvrtcGetPTX failed: {e}")))?;
        // SAFETY: NVRTC's PTX size counts the closing NUL and `get_ptx` sized the buffer by
        // it, so `ptx` is a NUL-terminated string; `text` borrows it only until it is copied.
        let text = unsafe { CStr::from_ptr(ptx.as_ptr()) };
        Binary::Ptx(text.to_string_lossy().into_owned())
    };
    Ok(Compiled {
        binary,
        options: all,
        log,
    })
}

fn supported_archs() -> Result<Vec<u32>, MeasureError> {
    let failed = |e: sys::nvrtcResult| MeasureError::Nvrtc(format!("listing architectures: {e:?}"));
    let mut n: c_int = 0;
    // SAFETY: `n` is a live, writable `c_int`, the one value the call writes.
    unsafe { sys::nvrtcGetNumSupportedArchs(&mut n) }
        .result()
        .map_err(|e| failed(e.0))?;
    let mut archs = vec![0 as c_int; n.max(0) as usize];
    // SAFETY: `archs` holds the `n` ints NVRTC just said this call writes.
    unsafe { sys::nvrtcGetSupportedArchs(archs.as_mut_ptr()) }
        .result()
        .map_err(|e| failed(e.0))?;
    Ok(archs.into_iter().map(|a| a as u32).collect())
}

/// An NVRTC program, destroyed on drop; holds the strings NVRTC was given until then.
struct Program(sys::nvrtcProgram, #[allow(dead_code)] [CString; 4]);

impl Program {
    /// The program of `unit`, with the contract header as an in-memory header.
    fn new(unit: &Unit<'_>) -> Result<Program, MeasureError> {
        let file = unit.file;
        let nul =
            |what: &str| MeasureError::Nvrtc(format!("{what} of `{file}` contains a NUL byte"));
        let src = CString::new(unit.source).map_err(|_| nul("the source"))?;
        let name = CString::new(file).map_err(|_| nul("the name"))?;
        let header = CString::new(unit.header).map_err(|_| nul("the header coursegen.cuh"))?;
        let header_name = CString::new(contract::HEADER_NAME).map_err(|_| nul("a name"))?;
        let headers = [header.as_ptr()];
        let names = [header_name.as_ptr()];
        let mut prog = std::mem::MaybeUninit::uninit();
        // SAFETY: `prog` is a slot for the handle; every other pointer is a NUL-terminated
        // string that lives as long as the program (kept in `Program`); one header, one name.
        unsafe {
            sys::nvrtcCreateProgram(
                prog.as_mut_ptr(),
                src.as_ptr(),
                name.as_ptr(),
                1,
                headers.as_ptr(),
                names.as_ptr(),
            )
        }
        .result()
        .map_err(|e| MeasureError::Nvrtc(format!("nvrtcCreateProgram failed: {e:?}")))?;
        // SAFETY: nvrtcCreateProgram succeeded and wrote the program.
        let prog = unsafe { prog.assume_init() };
        Ok(Program(prog, [src, name, header, header_name]))
    }

    fn log(&self) -> String {
        // SAFETY: `self.0` came from nvrtcCreateProgram and is destroyed only by `drop`.
        match unsafe { result::get_program_log(self.0) } {
            // SAFETY: NVRTC's log size counts the closing NUL and `get_program_log` sized
            // `raw` by it; the borrow ends when the text is copied out.
            Ok(raw) => unsafe { CStr::from_ptr(raw.as_ptr()) }
                .to_string_lossy()
                .trim()
                .to_owned(),
            Err(e) => format!("(no log: {e})"),
        }
    }

    fn cubin(&self) -> Result<Vec<u8>, MeasureError> {
        let failed =
            |e: result::NvrtcError| MeasureError::Nvrtc(format!("nvrtcGetCUBIN failed: {e}"));
        let mut size = 0usize;
        // SAFETY: `self.0` is live (destroyed only by `drop`); `size` is a writable usize.
        unsafe { sys::nvrtcGetCUBINSize(self.0, &mut size) }
            .result()
            .map_err(failed)?;
        let mut buf = vec![0 as c_char; size];
        // SAFETY: the program compiled for an `sm_` target, so it has a CUBIN, and `buf`
        // holds the `size` bytes NVRTC just reported for it.
        unsafe { sys::nvrtcGetCUBIN(self.0, buf.as_mut_ptr()) }
            .result()
            .map_err(failed)?;
        Ok(buf.into_iter().map(|c| c as u8).collect())
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by nvrtcCreateProgram, and `Program` is neither Clone nor Copy,
        // so this drop is the only destroy: no use after it, no double free.
        let _ = unsafe { result::destroy_program(self.0) };
    }
}
