//! The GPU side of `measure`, through cudarc's driver API: open a device and read what the
//! record states about it, load a compiled kernel, and launch it — checked against its
//! reference kernel, or timed with CUDA events created with timing enabled.
use std::sync::Arc;

use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use super::error::MeasureError;
use super::nvrtc::{Binary, Compiled};
use super::reference::{self, Mismatch, POISON, REFERENCE_POISON};

/// An open device and what the record says about it.
pub(crate) struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    pub(crate) name: String,
    pub(crate) cc: (u32, u32),
    pub(crate) sm_count: u32,
    pub(crate) rated_clock_mhz: Option<f64>,
    pub(crate) cuda_driver_api: String,
    /// `GPU-xxxxxxxx-…`, as NVML names the same device.
    pub(crate) uuid: String,
    /// 2 × memory clock × bus width, GB/s.
    pub(crate) dram_peak_gb_s: Option<f64>,
    /// CUDA ordinal.
    pub(crate) ordinal: usize,
}

fn driver(what: &'static str) -> impl Fn(DriverError) -> MeasureError {
    move |error| MeasureError::Driver { what, error }
}

impl Gpu {
    /// Opens device `ordinal`. The driver library must be present (checked by the caller).
    pub(crate) fn open(ordinal: usize) -> Result<Gpu, MeasureError> {
        cudarc::driver::result::init().map_err(driver("initialising the CUDA driver"))?;
        let count = CudaContext::device_count().map_err(driver("counting devices"))?;
        if ordinal >= count.max(0) as usize {
            return Err(MeasureError::NoDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal).map_err(driver("creating a context"))?;
        // One stream, so cudarc's per-slice events would only add work between our events.
        // SAFETY: the duty it leaves us is ordering between streams, and there is one: every
        // slice of this context is allocated, used and freed on `stream` alone (each thread
        // opens its own device), and tracking is off before the first slice exists.
        unsafe { ctx.disable_event_tracking() };
        let attr = |a| {
            ctx.attribute(a)
                .map_err(driver("reading a device attribute"))
        };
        let cc = (
            attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? as u32,
            attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)? as u32,
        );
        let sm_count = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        let rated_khz = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?;
        let name = ctx.name().map_err(driver("reading the device name"))?;
        let mem_khz = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?;
        let bus_bits = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?;
        let uuid = ctx.uuid().map_err(driver("reading the device UUID"))?;
        let mut version = 0;
        // SAFETY: `version` is a live, writable `c_int`, all cuDriverGetVersion writes; the
        // library is loaded (the caller checked, and cuInit above succeeded).
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }
            .result()
            .map_err(driver("reading the driver's CUDA version"))?;
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            name: name.trim().to_owned(),
            cc,
            sm_count,
            rated_clock_mhz: (rated_khz > 0).then(|| f64::from(rated_khz) / 1000.0),
            cuda_driver_api: format!("{}.{}", version / 1000, (version % 1000) / 10),
            uuid: uuid_string(&uuid.bytes.map(|b| b as u8)),
            // Double data rate: two transfers per memory clock over the whole bus.
            dram_peak_gb_s: (mem_khz > 0 && bus_bits > 0)
                .then(|| 2.0 * f64::from(mem_khz) * 1e3 * f64::from(bus_bits) / 8.0 / 1e9),
            ordinal,
        })
    }

    /// Loads a compiled kernel's entry point.
    pub(crate) fn load(
        &self,
        compiled: &Compiled,
        entry: &str,
    ) -> Result<CudaFunction, MeasureError> {
        let ptx = match &compiled.binary {
            Binary::Cubin(bytes) => Ptx::from_binary(bytes.clone()),
            Binary::Ptx(text) => Ptx::from_src(text.clone()),
        };
        let module = self
            .ctx
            .load_module(ptx)
            .map_err(driver("loading the compiled module"))?;
        module
            .load_function(entry)
            .map_err(|error| MeasureError::Entry {
                entry: entry.to_owned(),
                error,
            })
    }
}

/// CUDA's 16 UUID bytes in NVML's spelling, `GPU-8-4-4-4-12` hex digits.
pub(crate) fn uuid_string(b: &[u8; 16]) -> String {
    let hex =
        |r: std::ops::Range<usize>| b[r].iter().map(|x| format!("{x:02x}")).collect::<String>();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        hex(0..4),
        hex(4..6),
        hex(6..8),
        hex(8..10),
        hex(10..16)
    )
}

/// One timed launch: event time and the SM clock read inside it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sample {
    pub(crate) ms: f64,
    pub(crate) sm_clock_mhz: f64,
}

/// Device buffers and launch shape of one kernel; launches it for one axis value at a time.
pub(crate) struct Launcher<'g> {
    gpu: &'g Gpu,
    func: CudaFunction,
    /// The manifest's reference kernel, launched with the same arguments and grid.
    reference: CudaFunction,
    input: CudaSlice<u32>,
    output: CudaSlice<u32>,
    /// The reference kernel's output.
    expected: CudaSlice<u32>,
    clock: CudaSlice<u64>,
    cfg: LaunchConfig,
    logical_blocks: u32,
    start: CudaEvent,
    end: CudaEvent,
}

impl<'g> Launcher<'g> {
    /// Allocates buffers and uploads `input`; the grid is `grid_blocks` blocks working through
    /// `logical_blocks` of `block_threads` threads each. `funcs` are the measured kernel and
    /// its reference.
    pub(crate) fn new(
        gpu: &'g Gpu,
        funcs: (CudaFunction, CudaFunction),
        input: &[u32],
        shape: (u32, u32, u32),
    ) -> Result<Launcher<'g>, MeasureError> {
        let (grid_blocks, logical_blocks, block_threads) = shape;
        let alloc = driver("allocating device memory");
        let s = &gpu.stream;
        let threads = logical_blocks as usize * block_threads as usize;
        let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let event = driver("creating a timing event");
        let (func, reference) = funcs;
        Ok(Launcher {
            gpu,
            func,
            reference,
            input: s.clone_htod(input).map_err(&alloc)?,
            output: s.alloc_zeros(threads).map_err(&alloc)?,
            expected: s.alloc_zeros(threads).map_err(&alloc)?,
            clock: s.alloc_zeros(2).map_err(&alloc)?,
            cfg: LaunchConfig {
                grid_dim: (grid_blocks, 1, 1),
                block_dim: (block_threads, 1, 1),
                shared_mem_bytes: 0,
            },
            logical_blocks,
            start: gpu.ctx.new_event(timing).map_err(&event)?,
            end: gpu.ctx.new_event(timing).map_err(&event)?,
        })
    }

    /// Queues one launch of the measured kernel for axis value `value`.
    pub(crate) fn launch(&mut self, value: u32) -> Result<(), MeasureError> {
        let (func, output) = (&self.func, &mut self.output);
        launch_into(
            self.gpu,
            func,
            (&self.input, output, &mut self.clock),
            self.cfg,
            value,
            self.logical_blocks,
        )
    }

    /// Poisons the reference kernel's output, runs it once for `value` and returns every
    /// thread's expected word.
    pub(crate) fn reference(&mut self, value: u32) -> Result<Vec<u32>, MeasureError> {
        let s = self.gpu.stream.clone();
        let poison = vec![REFERENCE_POISON; self.expected.len()];
        s.memcpy_htod(&poison, &mut self.expected)
            .map_err(driver("poisoning the reference's output"))?;
        let (func, output) = (&self.reference, &mut self.expected);
        launch_into(
            self.gpu,
            func,
            (&self.input, output, &mut self.clock),
            self.cfg,
            value,
            self.logical_blocks,
        )?;
        let out = s
            .clone_dtoh(&self.expected)
            .map_err(driver("running the reference kernel"))?;
        s.synchronize()
            .map_err(driver("running the reference kernel"))?;
        Ok(out)
    }

    /// Poisons the output, launches once and compares every thread with `expected` (the
    /// reference kernel's output for the same `value`).
    pub(crate) fn checked(
        &mut self,
        value: u32,
        expected: &[u32],
    ) -> Result<Result<u64, Mismatch>, MeasureError> {
        let s = self.gpu.stream.clone();
        let poison = vec![POISON; self.output.len()];
        s.memcpy_htod(&poison, &mut self.output)
            .map_err(driver("poisoning the output"))?;
        self.launch(value)?;
        let out = s
            .clone_dtoh(&self.output)
            .map_err(driver("running the checked launch"))?;
        s.synchronize()
            .map_err(driver("running the checked launch"))?;
        Ok(reference::compare(expected, &out))
    }

    /// One launch between two events, and the SM clock its block 0 saw.
    pub(crate) fn timed(&mut self, value: u32) -> Result<Sample, MeasureError> {
        let s = self.gpu.stream.clone();
        let timing = driver("timing a launch");
        self.start.record(&s).map_err(&timing)?;
        self.launch(value)?;
        self.end.record(&s).map_err(&timing)?;
        let ms = f64::from(self.start.elapsed_ms(&self.end).map_err(&timing)?);
        let clock = s.clone_dtoh(&self.clock).map_err(&timing)?;
        s.synchronize().map_err(&timing)?;
        // clock[0] SM cycles over clock[1] nanoseconds = GHz; ×1000 for MHz.
        let sm_clock_mhz = if clock[1] > 0 {
            clock[0] as f64 / clock[1] as f64 * 1000.0
        } else {
            0.0
        };
        Ok(Sample { ms, sm_clock_mhz })
    }

    /// Waits for queued launches (the warm-up).
    pub(crate) fn sync(&self) -> Result<(), MeasureError> {
        self.gpu.stream.synchronize().map_err(driver("warming up"))
    }
}

/// Queues one launch of `func` with the kernel ABI of kernels/*.cu.
fn launch_into(
    gpu: &Gpu,
    func: &CudaFunction,
    (input, output, clock): (&CudaSlice<u32>, &mut CudaSlice<u32>, &mut CudaSlice<u64>),
    cfg: LaunchConfig,
    value: u32,
    logical_blocks: u32,
) -> Result<(), MeasureError> {
    let value = value as i32;
    let logical = logical_blocks as i32;
    let mut args = gpu.stream.launch_builder(func);
    args.arg(input)
        .arg(output)
        .arg(&value)
        .arg(&logical)
        .arg(clock);
    // SAFETY: the driver reads one argument per parameter the kernel declares, and these
    // five are the kernel ABI (run.rs's header, `contract::PARAMS_C`) that the measured
    // kernel and its reference declare and `coursegen check` holds every `.cu` to: device
    // pointers of this context, then two ints. The slices outlive the launch (freed on the
    // same stream), and what the kernel does with them stays in device memory.
    unsafe { args.launch(cfg) }.map_err(driver("launching the kernel"))?;
    Ok(())
}

/// Blocks of `block_threads` resident per SM for this kernel (the occupancy calculator).
pub(crate) fn resident_blocks(
    func: &CudaFunction,
    block_threads: u32,
) -> Result<u32, MeasureError> {
    func.occupancy_max_active_blocks_per_multiprocessor(block_threads, 0, None)
        .map_err(driver("computing occupancy"))
}

/// The NVIDIA driver version (e.g. `580.159.04`) from the kernel module or nvidia-smi.
pub(crate) fn driver_version() -> Option<String> {
    let from_proc = std::fs::read_to_string("/proc/driver/nvidia/version")
        .ok()
        .and_then(|t| {
            t.split_whitespace()
                .find(|w| {
                    w.split('.').count() >= 2
                        && w.split('.')
                            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                })
                .map(str::to_owned)
        });
    from_proc.or_else(|| {
        let out = std::process::Command::new("nvidia-smi")
            .args(["--query-gpu=driver_version", "--format=csv,noheader"])
            .output()
            .ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        text.lines()
            .next()
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty())
    })
}

/// How many CUDA devices the driver sees (the driver library must be present).
pub(crate) fn device_count() -> Result<usize, MeasureError> {
    cudarc::driver::result::init().map_err(driver("initialising the CUDA driver"))?;
    let count = CudaContext::device_count().map_err(driver("counting devices"))?;
    Ok(count.max(0) as usize)
}
