//! The CUDA side of the GPU backend: the driver and NVRTC through `cudarc`, loaded at run time.

use super::task::{self, Task, Turns};
use super::{cache, verbose, Batch, Device, DeviceInfo};
use crate::engine::kernel::Tally;
use crate::error::Error;
use cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions, Ptx};
use std::collections::VecDeque;
use std::io::Write as _;
use std::sync::{Arc, Mutex};

// SAFETY: `Task` is `repr(C)`, four `u32`s, with no padding and no pointers: the kernel's `Task`.
unsafe impl DeviceRepr for Task {}
// SAFETY: all zeros is a valid `Task` (four zero words).
unsafe impl cudarc::driver::ValidAsZeroBits for Task {}

/// The kernel's source.
const SOURCE: &str = include_str!("count.cu");

/// Batches in flight on a GPU, each on its own stream, so that one batch's last tasks run beside the next
/// ones' first. On an H100 at n = 21 (52 million tasks in 8 batches), 4 streams and the look-ahead together
/// took 38.0 s, 2 streams without it 40.7 s; see `results/gpu.md`.
const STREAMS: usize = 4;

/// Batches in flight, unless `NQUEENS_GPU_STREAMS` says otherwise (1 to 16, for measuring). Eight rather than
/// four did not shorten n = 19 on an H200 (2026-11-27: 0.537 and 0.543 s against 0.529 to 0.554 s), whose
/// GPU waits about 6 ms for its last batch's copy.
fn streams() -> usize {
    super::options::knob("NQUEENS_GPU_STREAMS", |t| (1..=16).contains(t)).unwrap_or(STREAMS)
}

/// Shared memory a block may use without asking for more.
const DEFAULT_SHARED: u32 = 48 * 1024;

/// Threads per block, unless `NQUEENS_GPU_THREADS` says otherwise (for measuring). A thread of the kernel
/// needs 336 bytes of shared memory with 16 rows left to its tasks: 128 threads a block fit 5 blocks (640
/// threads) in an H100's 228 KB, 256 threads only 2 (512). On an H200 at n = 21 (2026-11-26, the stack's four
/// words apart), 64 and 256 threads took 10.41 and 11.05 s of kernels against 10.44 s (results/gpu.md).
const THREADS: u32 = 128;

fn threads_per_block() -> u32 {
    super::options::knob("NQUEENS_GPU_THREADS", |t| (32..=1024).contains(t)).unwrap_or(THREADS)
}

/// Bytes added to each block's shared memory, for measuring how the blocks a multiprocessor holds bound the
/// kernel (`NQUEENS_GPU_SHARED_PAD`).
fn shared_pad() -> u32 {
    super::options::knob("NQUEENS_GPU_SHARED_PAD", |&t: &u32| t <= 128 * 1024).unwrap_or(0)
}

/// The most blocks a multiprocessor may hold, by padding each block's shared memory
/// (`NQUEENS_GPU_MOST_BLOCKS`, 1 to 32; for measuring what the warps a multiprocessor holds are worth:
/// [`task::pad_for_most_blocks`]).
fn most_blocks() -> Option<u32> {
    super::options::knob("NQUEENS_GPU_MOST_BLOCKS", |&b: &u32| (1..=32).contains(&b))
}

/// Whether the GPU's opening ends with an empty launch of the kernel (`NQUEENS_GPU_WARM_LAUNCH=1`, for
/// measuring): a fit of an H200's kernel times at n = 17, 19 and 21 leaves about 16 ms that grow with neither
/// tasks nor nodes (results/gpu.md, the forty-third session), two thirds of n = 17's kernels. If that is the
/// context's first launch, this launch takes it while the host still builds the plan, off the count's clock.
fn warm_launch() -> bool {
    super::options::knob("NQUEENS_GPU_WARM_LAUNCH", |&w: &u32| w <= 1) == Some(1)
}

/// The seconds a launch takes no new task after (`NQUEENS_GPU_LAUNCH_SECONDS`, for measuring and for testing the
/// launches again on any GPU): the host then launches the batch again for the tasks left.
fn launch_seconds() -> Option<f64> {
    super::options::knob("NQUEENS_GPU_LAUNCH_SECONDS", |s: &f64| {
        s.is_finite() && *s > 0.0 && *s <= 3600.0
    })
}

/// A launch's seconds on a GPU whose driver stops kernels that run for more than a few seconds (one that
/// drives a display: two seconds on Windows, a few more under X): half a second, and the tasks under way then
/// (the longest about a second at n = 21 on an H100's threads), well within.
const LIMITED_LAUNCH_SECONDS: f64 = 0.5;

/// The error of a kernel that failed: where the driver stopped it for running too long, what to do.
fn kernel_failed(e: cudarc::driver::DriverError) -> Error {
    if e.0 == sys::CUresult::CUDA_ERROR_LAUNCH_TIMEOUT {
        return Error::Gpu(format!(
            "the kernel failed: {e}. This GPU's driver stops kernels that run for more than a few seconds (it \
             drives a display); the program keeps each launch to about {LIMITED_LAUNCH_SECONDS} s, but a task \
             of a large board can take longer: count on a GPU that drives no display (--gpus), or stop the \
             display server on this one. A checkpointed run resumes from its journal"
        ));
    }
    Error::Gpu(format!("the kernel failed: {e}"))
}

fn gpu_error(what: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| Error::Gpu(format!("{what}: {e}"))
}

/// The compile-time switches of the kernel (`NQ_*` in `count.cu`) from the environment, for measuring
/// variants side by side (`NQUEENS_GPU_DEFINES="NQ_PLAIN"`), but for those that shape the loop's shared memory,
/// `NQ_UNROLL` and `NQ_AHEAD_FRAME`, which [`super::turns`] reads into the [`Turns`] whose defines carry them
/// (and which checks the others against [`super::KERNEL_SWITCHES`]). `NQ_UNCOUNTED` joins them where the run
/// leaves the nodes uncounted ([`super::leave_nodes_uncounted`]).
fn defines() -> Vec<String> {
    super::options::asked_switches()
        .split_whitespace()
        .filter(|d| !d.starts_with("NQ_UNROLL=") && *d != "NQ_AHEAD_FRAME")
        .map(|d| format!("-D{d}"))
        .collect()
}

/// NVRTC's options for compute capability `(major, minor)`, with the loop built as `turns` says.
fn options(capability: (i32, i32), turns: Turns, threads: u32) -> Vec<String> {
    options_with(capability, turns, threads, defines())
}

/// NVRTC's options for compute capability `(major, minor)`, with the loop built as `turns` says, for blocks of
/// `threads` threads (which the kernel takes as a constant), with the switches `defines` (`-DNQ_...`).
fn options_with(
    (major, minor): (i32, i32),
    turns: Turns,
    threads: u32,
    defines: Vec<String>,
) -> Vec<String> {
    let mut options = vec![format!("--gpu-architecture=sm_{major}{minor}")];
    options.extend(turns.defines());
    options.push(format!("-DNQ_THREADS={threads}u"));
    options.extend(defines);
    options
}

fn nvrtc_present() -> Result<(), Error> {
    // SAFETY: only probes for the shared library.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Error::Gpu(
            "NVRTC (libnvrtc) not found: install the CUDA toolkit or put its lib64 folder on LD_LIBRARY_PATH"
                .into(),
        ))
    }
}

/// NVRTC's version, major and minor.
fn nvrtc_version() -> Result<(i32, i32), Error> {
    nvrtc_present()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: NVRTC is present; the call writes two integers.
    let status = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    if status == cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
        Ok((major, minor))
    } else {
        Err(Error::Gpu(format!(
            "cannot read NVRTC's version: {status:?}"
        )))
    }
}

/// The kernel compiled by NVRTC for compute capability `capability`, its loop built as `turns` says.
pub fn compile(capability: (i32, i32), turns: Turns) -> Result<Ptx, Error> {
    compile_with(options(capability, turns, threads_per_block()))
}

/// The kernel compiled by NVRTC with the options `options`.
fn compile_with(options: Vec<String>) -> Result<Ptx, Error> {
    nvrtc_present()?;
    compile_ptx_with_opts(
        SOURCE,
        CompileOptions {
            options,
            name: Some("count.cu".into()),
            ..Default::default()
        },
    )
    .map_err(|e| Error::Gpu(format!("NVRTC could not compile the kernel: {e}")))
}

/// The kernel's PTX for compute capability `capability`, its loop built as `turns` says, for blocks of
/// `threads` threads, with the switches `switches` (`NQ_*`, as `NQUEENS_GPU_DEFINES` names them) rather than
/// the environment's: for checking variants on a machine without a GPU (`tests/gpu_ptx.rs`).
pub fn compile_as(
    capability: (i32, i32),
    turns: Turns,
    threads: u32,
    switches: &[&str],
) -> Result<Ptx, Error> {
    let defines = switches.iter().map(|s| format!("-D{s}")).collect();
    compile_with(options_with(capability, turns, threads, defines))
}

/// The kernel for compute capability `capability` with its loop built as `turns` says, for blocks of `threads`
/// threads: compiled once a process, and kept in the disk cache (`cache`) across runs. A cache that cannot be
/// written only costs the next run its compile.
fn compiled(capability: (i32, i32), turns: Turns, threads: u32) -> Result<String, Error> {
    // The kernel's switches are the environment's, set for the process, and whether it counts the nodes.
    type Compiled = ((i32, i32), Turns, u32, bool);
    static DONE: Mutex<Vec<(Compiled, String)>> = Mutex::new(Vec::new());
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    let compiled = (capability, turns, threads, super::nodes_uncounted());
    if let Some((_, ptx)) = done.iter().find(|(c, _)| *c == compiled) {
        return Ok(ptx.clone());
    }
    let architecture = format!("sm_{}{}", capability.0, capability.1);
    let key = cache::key(
        SOURCE,
        &options(capability, turns, threads),
        &architecture,
        nvrtc_version()?,
    );
    let dir = cache::dir();
    let ptx = match dir.as_deref().and_then(|d| cache::load(d, &key)) {
        Some(ptx) => ptx,
        None => {
            let ptx = compile_with(options(capability, turns, threads))?.to_src();
            if let Some(dir) = &dir {
                if let Err(e) = cache::store(dir, &key, &ptx) {
                    if verbose() {
                        let _ = writeln!(
                            std::io::stderr(),
                            "gpu: cannot keep the kernel in {}: {e}",
                            dir.display()
                        );
                    }
                }
            }
            ptx
        }
    };
    done.push((compiled, ptx.clone()));
    Ok(ptx)
}

/// Checks that the driver is there.
fn driver_present() -> Result<(), Error> {
    // SAFETY: only probes for the shared libraries.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Error::Gpu(
            "no CUDA driver found (libcuda): this machine has no NVIDIA GPU, or its driver is not installed"
                .into(),
        ))
    }
}

/// The GPUs the driver sees.
pub fn visible() -> Result<usize, Error> {
    driver_present()?;
    let count = CudaContext::device_count().map_err(gpu_error("cannot count the GPUs"))?;
    if count < 1 {
        return Err(Error::Gpu("the CUDA driver sees no GPU".into()));
    }
    Ok(count as usize)
}

/// GPU `ordinal`'s context. A context costs a large part of a small run's time to make, so the first made
/// for a GPU is kept for the process: the GPU's name printed before a run, the run itself and the runs after
/// it (a benchmark's) share it.
///
/// Each GPU's context is made under a lock of its own, so that a driver that hangs in making one GPU's
/// holds up no other GPU's (the watchdog says the hung one, `watchdog.rs`, and the others count).
fn context(ordinal: usize) -> Result<Arc<CudaContext>, Error> {
    static OPEN: Mutex<Vec<(usize, Slot<Arc<CudaContext>>)>> = Mutex::new(Vec::new());
    let slot = slot(&OPEN, ordinal);
    let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(context) = &*slot {
        return Ok(context.clone());
    }
    check_ordinal(ordinal)?;
    let context = CudaContext::new(ordinal)
        .map_err(|e| Error::Gpu(format!("cannot open GPU {ordinal}: {e}")))?;
    *slot = Some(context.clone());
    Ok(context)
}

/// What is made once a process for one key (a GPU's context, a kernel loaded on a GPU), under a lock of its
/// own: empty until made.
type Slot<T> = Arc<Mutex<Option<T>>>;

/// The slot of `key` among `slots`, made empty where there is none: the lock of all of them is held only to
/// find it, never while its value is made.
fn slot<K: PartialEq, T>(slots: &Mutex<Vec<(K, Slot<T>)>>, key: K) -> Slot<T> {
    let mut slots = slots.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, slot)) = slots.iter().find(|(k, _)| *k == key) {
        return slot.clone();
    }
    let slot = Slot::default();
    slots.push((key, slot.clone()));
    slot
}

/// An error unless the driver sees a GPU `ordinal`.
fn check_ordinal(ordinal: usize) -> Result<(), Error> {
    let count = visible()?;
    if ordinal >= count {
        return Err(Error::Gpu(format!(
            "there is no GPU {ordinal}: the driver sees {count} (numbered from 0)"
        )));
    }
    Ok(())
}

/// What GPU `ordinal` is, asked of the driver without making a context (which costs a small run much of its
/// time, and is made while the plan is built: [`open_ahead`]).
pub fn info(ordinal: usize) -> Result<DeviceInfo, Error> {
    use cudarc::driver::result::device;
    use sys::CUdevice_attribute as A;
    check_ordinal(ordinal)?;
    let query = gpu_error("cannot query the GPU");
    let dev = device::get(ordinal as i32).map_err(&query)?;
    // SAFETY: `dev` was returned by `device::get`, as these calls require.
    let attribute = |a| unsafe { device::get_attribute(dev, a) }.map_err(&query);
    Ok(DeviceInfo {
        name: device::get_name(dev).map_err(&query)?,
        compute_capability: (
            attribute(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attribute(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        ),
        multiprocessors: attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
        // SAFETY: as above.
        memory_bytes: unsafe { device::total_mem(dev) }.map_err(&query)? as u64,
        pci_bus_id: pci_bus_id(dev),
    })
}

/// GPU `dev`'s PCI address ("0000:1B:00.0"), or empty where the driver does not say.
fn pci_bus_id(dev: sys::CUdevice) -> String {
    // The driver's form is 13 characters and a NUL; room to spare.
    let mut text = [0 as std::ffi::c_char; 32];
    // SAFETY: the driver writes at most `len` bytes, NUL included, into the buffer it is given.
    let asked = unsafe { sys::cuDeviceGetPCIBusId(text.as_mut_ptr(), text.len() as i32, dev) };
    if asked.result().is_err() {
        return String::new();
    }
    let bytes: Vec<u8> = text
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The version of CUDA the driver provides, as it gives it (13000 for 13.0).
pub fn driver_version() -> Result<i32, Error> {
    driver_present()?;
    let mut version = 0;
    // SAFETY: the driver writes one int where it is told; it needs no `cuInit` for this.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(gpu_error("cannot ask the driver its version"))?;
    Ok(version)
}

/// The kernel with its loop built as `turns` says, for blocks of `threads` threads, loaded on GPU `ordinal`,
/// whose context is `context` and compute capability `capability`: loaded once a process, like the context.
fn kernel(
    ordinal: usize,
    context: &Arc<CudaContext>,
    capability: (i32, i32),
    turns: Turns,
    threads: u32,
) -> Result<CudaFunction, Error> {
    // Under a lock of the GPU's own, as its context is made.
    type Loaded = (usize, Turns, u32);
    static LOADED: Mutex<Vec<(Loaded, Slot<CudaFunction>)>> = Mutex::new(Vec::new());
    let slot = slot(&LOADED, (ordinal, turns, threads));
    let mut loaded = slot.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(function) = &*loaded {
        return Ok(function.clone());
    }
    let ptx = compiled(capability, turns, threads)?;
    let module = context
        .load_module(Ptx::from_src(ptx))
        .map_err(gpu_error("cannot load the kernel"))?;
    let function = module
        .load_function("count_tasks")
        .map_err(gpu_error("cannot find the kernel"))?;
    *loaded = Some(function.clone());
    Ok(function)
}

/// Makes GPU `ordinal`'s context and loads the kernel with its loop built as `turns` says on it, as
/// [`GpuDevice::open`] will: called on a thread of its own while the host builds the plan, so that the two
/// overlap.
///
/// The kernel's PTX (NVRTC's library opened and its version read for the disk cache's key, the cache read,
/// or on a first run the source compiled) is made on a thread of its own meanwhile: it needs the GPU's
/// architecture, which the driver gives without a context, and the context does not need it.
pub fn open_ahead(ordinal: usize, turns: Turns) -> Result<(), Error> {
    let began = std::time::Instant::now();
    let capability = info(ordinal)?.compute_capability;
    let asked = began.elapsed().as_secs_f64();
    // Each with the seconds at which it was done.
    let ((context, made), (ptx, ready)) = std::thread::scope(|scope| {
        let ptx = scope.spawn(|| {
            (
                compiled(capability, turns, threads_per_block()),
                began.elapsed().as_secs_f64(),
            )
        });
        let context = (context(ordinal), began.elapsed().as_secs_f64());
        (
            context,
            ptx.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
        )
    });
    let context = context?;
    ptx?;
    let function = kernel(ordinal, &context, capability, turns, threads_per_block())?;
    let loaded = began.elapsed().as_secs_f64();
    let warmed = if warm_launch() {
        launch_empty(&context, function, turns)?;
        format!(", launched empty by {:.3} s", began.elapsed().as_secs_f64())
    } else {
        String::new()
    };
    if verbose() {
        let _ = writeln!(
            std::io::stderr(),
            "gpu {ordinal}: the driver asked at {asked:.3} s, the context made at {made:.3} s, the kernel's \
             PTX ready at {ready:.3} s, loaded at {loaded:.3} s{warmed} (from the start of its opening)"
        );
    }
    Ok(())
}

/// Launches `function` (the kernel built as `turns` says) with no task, one block, and waits for it
/// ([`warm_launch`]): each thread takes a task from the counter, finds none and ends.
fn launch_empty(
    context: &Arc<CudaContext>,
    function: CudaFunction,
    turns: Turns,
) -> Result<(), Error> {
    let stream = context.default_stream();
    let alloc = gpu_error("cannot allocate on the GPU");
    // The fewest levels a task has (two rows), so that the shared memory is as `Launch::run` requires.
    let levels = 2;
    let threads = threads_per_block();
    let launch = Launch {
        function,
        config: LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: threads * turns.shared_per_thread(levels),
        },
        count: 0,
        levels: turns.stack_levels(levels),
        tasks: stream.alloc_zeros(1).map_err(&alloc)?,
        tables: stream.alloc_zeros(32).map_err(&alloc)?,
        next: stream.alloc_zeros(1).map_err(&alloc)?,
        trouble: stream.alloc_zeros(1).map_err(&alloc)?,
        solutions: stream.alloc_zeros(1).map_err(&alloc)?,
        nodes: stream.alloc_zeros(1).map_err(&alloc)?,
    };
    launch.run(&stream, 0)?;
    stream.synchronize().map_err(kernel_failed)
}

/// A GPU with the kernel loaded, counting batches for [`super::dispatch`].
pub struct GpuDevice {
    ordinal: usize,
    context: Arc<CudaContext>,
    streams: Vec<Arc<CudaStream>>,
    /// The kernel for blocks of the threads asked for ([`threads_per_block`]), its loop built as `turns` says.
    function: CudaFunction,
    /// How the kernel's loop is built: its sentinels take levels of the stack.
    turns: Turns,
    /// The loops it may count with ([`super::loops`]), `turns` among them: the program's first.
    loops: Vec<Turns>,
    /// The seconds the last batch collected took on the GPU's clock, if it could be read.
    last_seconds: Option<f64>,
    info: DeviceInfo,
    /// Shared memory a block may have at most, and what each kernel (by its loop and its block's threads) has
    /// been allowed so far.
    max_shared: u32,
    shared_allowed: Vec<((Turns, u32), u32)>,
    /// Where `NQUEENS_GPU_MOST_BLOCKS` asks for at most so many blocks a multiprocessor: that many, the shared
    /// memory of a multiprocessor and what it keeps for each block.
    most_blocks: Option<(u32, u32, u32)>,
    /// Each launch's budget as the kernel takes it (units of 2^16 cycles; 0 for none): set where the GPU's
    /// driver stops long kernels, or `NQUEENS_GPU_LAUNCH_SECONDS` asks for one.
    budget: u32,
    in_flight: VecDeque<InFlight>,
    launched: usize,
    first: Option<CudaEvent>,
    ends: Vec<CudaEvent>,
    /// Whether its kernel counts the nodes ([`super::leave_nodes_uncounted`]).
    counts_nodes: bool,
}

impl GpuDevice {
    /// Opens GPU `ordinal` and loads the kernel with its loop built as the first of `loops` says on it; the
    /// others are loaded if a trial asks for them ([`Device::use_loop`]).
    pub fn open(ordinal: usize, loops: Vec<Turns>) -> Result<GpuDevice, Error> {
        let turns = *loops
            .first()
            .ok_or_else(|| Error::Gpu("no loop of the kernel to count with".into()))?;
        let counts_nodes = !super::nodes_uncounted();
        let context = context(ordinal)?;
        let info = info(ordinal)?;
        let function = kernel(
            ordinal,
            &context,
            info.compute_capability,
            turns,
            threads_per_block(),
        )?;
        let streams = (0..streams())
            .map(|_| {
                context
                    .new_stream()
                    .map_err(gpu_error("cannot make a stream"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let max_shared = context
            .attribute(
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )
            .map_err(gpu_error("cannot query the GPU"))?
            .max(DEFAULT_SHARED as i32) as u32;
        let most_blocks = match most_blocks() {
            Some(most) => {
                use sys::CUdevice_attribute as A;
                let attribute = |a| {
                    context
                        .attribute(a)
                        .map_err(gpu_error("cannot query the GPU"))
                        .map(|v| v.max(0) as u32)
                };
                Some((
                    most,
                    attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
                    attribute(A::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)?,
                ))
            }
            None => None,
        };
        let budget = {
            use sys::CUdevice_attribute as A;
            let attribute = |a| context.attribute(a).ok();
            let limited = attribute(A::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT).unwrap_or(0) != 0;
            match launch_seconds().or(limited.then_some(LIMITED_LAUNCH_SECONDS)) {
                // A clock the driver does not give is taken as 2 GHz: the budget is a bound of seconds, not
                // a measure.
                Some(seconds) => task::launch_budget(
                    seconds,
                    attribute(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)
                        .filter(|&khz| khz > 0)
                        .unwrap_or(2_000_000) as u32,
                ),
                None => 0,
            }
        };
        Ok(GpuDevice {
            ordinal,
            context,
            streams,
            function,
            turns,
            loops,
            last_seconds: None,
            info,
            max_shared,
            shared_allowed: Vec::new(),
            most_blocks,
            budget,
            in_flight: VecDeque::new(),
            launched: 0,
            first: None,
            ends: Vec::new(),
            counts_nodes,
        })
    }
}

impl Device for GpuDevice {
    fn name(&self) -> String {
        self.info.name.clone()
    }

    fn depth(&self) -> usize {
        self.streams.len()
    }

    fn counts_nodes(&self) -> bool {
        self.counts_nodes
    }

    fn loops(&self) -> Vec<String> {
        self.loops.iter().map(|&t| super::loop_name(t)).collect()
    }

    fn use_loop(&mut self, index: usize) -> Result<(), Error> {
        let turns = *self
            .loops
            .get(index)
            .ok_or_else(|| Error::Gpu(format!("no loop {index} of the kernel")))?;
        if turns != self.turns {
            self.function = kernel(
                self.ordinal,
                &self.context,
                self.info.compute_capability,
                turns,
                threads_per_block(),
            )?;
            self.turns = turns;
        }
        Ok(())
    }

    fn last_seconds(&mut self) -> Result<Option<f64>, Error> {
        Ok(self.last_seconds)
    }

    fn submit(&mut self, mut batch: Batch) -> Result<(), Error> {
        let began = std::time::Instant::now();
        let stream = self.streams[self.launched % self.streams.len()].clone();
        self.launched += 1;
        let slots = batch.slots().max(1);
        let alloc = gpu_error("cannot allocate on the GPU");
        let tasks: CudaSlice<Task> = if batch.tasks.is_empty() {
            stream.alloc_zeros(1)
        } else {
            stream.clone_htod(&batch.tasks)
        }
        .map_err(gpu_error("cannot copy the tasks to the GPU"))?;
        let copied = began.elapsed().as_secs_f64();
        // The tables as the kernel reads them: each slot's 32 words, in order, as the batch holds them.
        let words: &[u32] = batch.tables.as_flattened();
        let tables: CudaSlice<u32> = if words.is_empty() {
            stream.alloc_zeros(32)
        } else {
            stream.clone_htod(words)
        }
        .map_err(gpu_error("cannot copy the tables to the GPU"))?;
        let next: CudaSlice<u32> = stream.alloc_zeros(1).map_err(&alloc)?;
        let trouble: CudaSlice<u32> = stream.alloc_zeros(slots).map_err(&alloc)?;
        let solutions: CudaSlice<u64> = stream.alloc_zeros(slots).map_err(&alloc)?;
        let nodes: CudaSlice<u64> = stream.alloc_zeros(slots).map_err(&alloc)?;
        let count = u32::try_from(batch.tasks.len())
            .map_err(|_| Error::Gpu("a batch holds more than 2^32 tasks".into()))?;
        // The GPU has its copy (from memory the driver does not pin, copied before the call returns): the host's
        // is not needed while the batch runs, and its memory takes the next batch's tasks.
        super::recycle(std::mem::take(&mut batch.tasks));
        let levels = batch.levels;
        // Fewer threads a block where a block would not fit, with a kernel compiled for them (it takes a block's
        // threads as a constant: launched with others, it traps).
        let pad = shared_pad();
        let threads = task::block_threads(
            self.turns,
            threads_per_block(),
            levels,
            pad,
            self.max_shared,
        )
        .ok_or_else(|| {
            Error::Gpu(format!(
                "tasks of {levels} rows need {} bytes of shared memory for a block of 32 threads, more than the \
                 GPU's {}",
                32 * self.turns.shared_per_thread(levels) + pad,
                self.max_shared
            ))
        })?;
        let shared = threads * self.turns.shared_per_thread(levels) + pad;
        // Padded further where at most so many blocks a multiprocessor are asked for (and a block may have it).
        let shared = match self.most_blocks {
            Some((most, per_multiprocessor, reserved)) => {
                let padded =
                    shared + task::pad_for_most_blocks(shared, reserved, per_multiprocessor, most);
                if padded <= self.max_shared {
                    padded
                } else {
                    shared
                }
            }
            None => shared,
        };
        let function = if threads == threads_per_block() {
            self.function.clone()
        } else {
            kernel(
                self.ordinal,
                &self.context,
                self.info.compute_capability,
                self.turns,
                threads,
            )?
        };
        // Beyond 48 KB a block, the kernel must ask for it, once for each size it grows to.
        let built = (self.turns, threads);
        let allowed = match self.shared_allowed.iter_mut().find(|(b, _)| *b == built) {
            Some((_, allowed)) => allowed,
            None => {
                self.shared_allowed.push((built, DEFAULT_SHARED));
                &mut self.shared_allowed.last_mut().expect("just pushed").1
            }
        };
        if shared > *allowed {
            function
                .set_attribute(
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    shared as i32,
                )
                .map_err(gpu_error("cannot give the kernel its shared memory"))?;
            *allowed = shared;
        }
        let per_multiprocessor = function
            .occupancy_max_active_blocks_per_multiprocessor(threads, shared as usize, None)
            .map_err(gpu_error("cannot size the launch"))?
            .max(1);
        if verbose() {
            let _ = writeln!(std::io::stderr(),
                "gpu: {count} tasks, {threads} threads a block, {per_multiprocessor} blocks a multiprocessor, \
                 {} registers a thread, {shared} bytes of shared memory a block; tasks copied in {copied:.4} s, \
                 tables and counters by {:.4} s",
                function.num_regs().unwrap_or(-1),
                began.elapsed().as_secs_f64()
            );
        }
        let config = LaunchConfig {
            grid_dim: (self.info.multiprocessors * per_multiprocessor, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: shared,
        };
        let event = || {
            stream
                .record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(gpu_error("cannot record an event"))
        };
        // The run's kernels' time starts where the first batch's kernel does.
        if self.first.is_none() {
            self.first = Some(event()?);
        }
        let start = event()?;
        // `tasks` holds `count` tasks, every task's slot is below `slots` (the length of `solutions`, `nodes`
        // and `trouble`, and of `tables` in tables of 32 words), no task needs more than `levels` levels, and
        // the shared memory holds the sentinels' levels and the stack's and table's for them
        // (`Turns::shared_per_thread`) for every thread, as `count.cu` lays them out for `self.turns`: as
        // `Launch::run` requires. (The kernel takes the levels of stack it keeps, one fewer where the last row
        // is never pushed: `Turns::stack_levels`.)
        let launch = Launch {
            function,
            config,
            count,
            levels: self.turns.stack_levels(levels),
            tasks,
            tables,
            next,
            trouble,
            solutions,
            nodes,
        };
        if count > 0 {
            launch.run(&stream, self.budget)?;
        }
        let end = event()?;
        self.in_flight.push_back(InFlight {
            start,
            batch,
            stream,
            end,
            launch,
        });
        Ok(())
    }

    fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
        let mut flight = self
            .in_flight
            .pop_front()
            .ok_or_else(|| Error::Gpu("no batch under way".into()))?;
        // A launch with a budget ends once it is spent and the tasks under way are done: launched again on
        // the same memory (`next` counts the tasks taken, the counters add up) until every task is taken.
        if self.budget != 0 && flight.launch.count > 0 {
            let mut launches = 1u32;
            loop {
                let taken = flight
                    .stream
                    .clone_dtoh(&flight.launch.next)
                    .map_err(kernel_failed)?;
                if taken.first().is_none_or(|&t| t >= flight.launch.count) {
                    break;
                }
                flight.launch.run(&flight.stream, self.budget)?;
                launches += 1;
            }
            flight.end = flight
                .stream
                .record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(gpu_error("cannot record an event"))?;
            if verbose() {
                let _ = writeln!(
                    std::io::stderr(),
                    "gpu: a batch of {} tasks in {launches} launches of a budget of {} x 2^16 cycles",
                    flight.launch.count,
                    self.budget
                );
            }
        }
        let trouble = flight
            .stream
            .clone_dtoh(&flight.launch.trouble)
            .map_err(kernel_failed)?;
        let solutions = flight
            .stream
            .clone_dtoh(&flight.launch.solutions)
            .map_err(kernel_failed)?;
        let nodes = flight
            .stream
            .clone_dtoh(&flight.launch.nodes)
            .map_err(kernel_failed)?;
        // A unit with a task that ran too long to trust its 32-bit counters is counted again on the host.
        let doubtful = trouble.iter().filter(|&&t| t > 0).count();
        if doubtful > 0 && verbose() {
            let _ = writeln!(
                std::io::stderr(),
                "gpu: {doubtful} units had a task too long to trust; the CPU counts them again"
            );
        }
        let tallies: Vec<Option<Tally>> = solutions
            .into_iter()
            .zip(nodes)
            .zip(trouble)
            .map(|((solutions, nodes), trouble)| {
                (trouble == 0).then_some(Tally { solutions, nodes })
            })
            .collect();
        // The batch's seconds, for a trial of the loops: a clock that cannot be read gives none.
        self.last_seconds = flight
            .start
            .elapsed_ms(&flight.end)
            .ok()
            .map(|ms| f64::from(ms) / 1e3);
        // A measuring aid: a clock that cannot be read leaves the count alone.
        if verbose() {
            if let Err(e) = self.report(&flight, &tallies) {
                let _ = writeln!(std::io::stderr(), "gpu: {e}");
            }
        }
        self.ends.push(flight.end);
        Ok((flight.batch, tallies))
    }

    fn kernel_seconds(&mut self) -> Result<f64, Error> {
        // Batches on different streams may end out of order: the latest end counts.
        let mut seconds: f64 = 0.0;
        if let Some(first) = &self.first {
            for end in &self.ends {
                let ms = first
                    .elapsed_ms(end)
                    .map_err(gpu_error("cannot read the GPU's clock"))?;
                seconds = seconds.max(f64::from(ms) / 1e3);
            }
        }
        Ok(seconds)
    }
}

impl GpuDevice {
    /// Says when a batch's kernel began and ended on the GPU's clock (from the first batch's start), and
    /// at what rate it counted: where a run's kernels lose time (a slow start, a long last batch).
    fn report(&self, flight: &InFlight, tallies: &[Option<Tally>]) -> Result<(), Error> {
        let Some(first) = &self.first else {
            return Ok(());
        };
        let clock = gpu_error("cannot read the GPU's clock");
        let began = f64::from(first.elapsed_ms(&flight.start).map_err(&clock)?) / 1e3;
        let ended = f64::from(first.elapsed_ms(&flight.end).map_err(&clock)?) / 1e3;
        let nodes = super::batch::nodes_vouched(tallies);
        let rate = nodes as f64 / (ended - began).max(1e-9) / 1e9;
        let counted = if self.counts_nodes {
            format!("{nodes} nodes, {rate:.1} G nodes/s")
        } else {
            "nodes not counted".to_string()
        };
        let _ = writeln!(
            std::io::stderr(),
            "gpu: a batch of {} tasks counted from {began:.4} s to {ended:.4} s of the kernels' time: {counted}",
            flight.launch.count
        );
        Ok(())
    }
}

/// A batch the GPU is counting: when its kernel began and ended (recorded on its stream), and its launch.
struct InFlight {
    start: CudaEvent,
    batch: Batch,
    stream: Arc<CudaStream>,
    end: CudaEvent,
    launch: Launch,
}

/// A batch's kernel, its blocks and the memory it counts in: launched once, or again while tasks are left
/// where a launch has a budget (see `collect`).
struct Launch {
    function: CudaFunction,
    config: LaunchConfig,
    /// Its tasks, and the levels of stack the kernel keeps for them (`Turns::stack_levels`).
    count: u32,
    levels: u32,
    tasks: CudaSlice<Task>,
    tables: CudaSlice<u32>,
    /// The tasks taken, across its launches.
    next: CudaSlice<u32>,
    trouble: CudaSlice<u32>,
    solutions: CudaSlice<u64>,
    nodes: CudaSlice<u64>,
}

impl Launch {
    /// Launches the kernel on `stream` with each launch's `budget` (`count.cu`'s; 0 for none). `tasks` must
    /// hold `count` tasks, each with a slot below the length of `solutions`, `nodes` and `trouble` (and of
    /// `tables` in tables of 32 words) and levels that `levels` levels of stack hold, and `config`'s shared
    /// memory the sentinels' and `levels` levels of stack and the rows of table after them for every thread,
    /// as `count.cu` lays them out for the turns `function` was built with (`GpuDevice::submit` sees to it).
    fn run(&self, stream: &CudaStream, budget: u32) -> Result<(), Error> {
        let mut launch = stream.launch_builder(&self.function);
        launch
            .arg(&self.tasks)
            .arg(&self.count)
            .arg(&self.next)
            .arg(&self.tables)
            .arg(&self.solutions)
            .arg(&self.nodes)
            .arg(&self.trouble)
            .arg(&self.levels)
            .arg(&budget);
        // SAFETY: the arguments match the kernel's parameters in number, order and type, and the memory and
        // the shared memory are as the kernel needs them (above).
        unsafe { launch.launch(self.config) }.map_err(gpu_error("cannot start the kernel"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_compiles_the_turns_once_and_the_other_switches_as_given() {
        let options = options((9, 0), Turns::for_width(26), THREADS);
        assert_eq!(
            options[..4],
            [
                "--gpu-architecture=sm_90",
                "-DNQ_UNROLL=16u",
                "-DNQ_SENTINEL_SQUARES=32u",
                &format!("-DNQ_THREADS={THREADS}u")
            ]
        );
    }
}
