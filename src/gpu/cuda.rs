//! The CUDA side of the GPU backend: the driver and NVRTC through `cudarc`, loaded at run time.

use super::task::Task;
use super::{Batch, DeviceInfo, GpuRun};
use crate::engine::count::Count;
use crate::engine::exec::Progress;
use crate::engine::kernel::Tally;
use crate::engine::plan::Plan;
use crate::error::Error;
use cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

// SAFETY: `Task` is `repr(C)`, sixteen `u32`s, with no padding and no pointers: the kernel's `Task`.
unsafe impl DeviceRepr for Task {}
// SAFETY: all zeros is a valid `Task` (sixteen zero words).
unsafe impl cudarc::driver::ValidAsZeroBits for Task {}

/// The kernel's source.
const SOURCE: &str = include_str!("count.cu");

/// Batches in flight, each on its own stream, so that one batch's last tasks run beside the next ones' first.
/// On an H100 at n = 21 (52 million tasks in 8 batches), 4 streams and the look-ahead together took 38.0 s,
/// 2 streams without it 40.7 s; see `results/gpu.md`.
const STREAMS: usize = 4;

/// Threads per block, unless `NQUEENS_GPU_THREADS` says otherwise (for measuring).
const THREADS: u32 = 256;

fn threads_per_block() -> u32 {
    std::env::var("NQUEENS_GPU_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .filter(|t| (32..=1024).contains(t))
        .unwrap_or(THREADS)
}

fn gpu_error(what: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| Error::Gpu(format!("{what}: {e}"))
}

/// The compile-time switches of the kernel (`NQ_*` in `count.cu`) from the environment, for measuring
/// variants side by side: `NQUEENS_GPU_DEFINES="NQ_AHEAD=0"`.
fn defines() -> Vec<String> {
    std::env::var("NQUEENS_GPU_DEFINES")
        .unwrap_or_default()
        .split_whitespace()
        .map(|d| format!("-D{d}"))
        .collect()
}

/// The kernel compiled by NVRTC for compute capability `(major, minor)`.
pub fn compile((major, minor): (i32, i32)) -> Result<cudarc::nvrtc::Ptx, Error> {
    // SAFETY: only probes for the shared library.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(Error::Gpu(
            "NVRTC (libnvrtc) not found: install the CUDA toolkit or put its lib64 folder on LD_LIBRARY_PATH"
                .into(),
        ));
    }
    let mut options = vec![format!("--gpu-architecture=sm_{major}{minor}")];
    options.extend(defines());
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

/// An open GPU with the kernel loaded.
pub struct Gpu {
    _context: Arc<CudaContext>,
    streams: Vec<Arc<CudaStream>>,
    function: CudaFunction,
    info: DeviceInfo,
}

impl Gpu {
    /// Opens the first GPU and compiles the kernel for it.
    pub fn open() -> Result<Gpu, Error> {
        // SAFETY: only probes for the shared libraries.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(Error::Gpu(
                "no CUDA driver found (libcuda): this machine has no NVIDIA GPU, or its driver is not installed"
                    .into(),
            ));
        }
        let count = CudaContext::device_count().map_err(gpu_error("cannot count the GPUs"))?;
        if count < 1 {
            return Err(Error::Gpu("the CUDA driver sees no GPU".into()));
        }
        let context = CudaContext::new(0).map_err(gpu_error("cannot open GPU 0"))?;
        let attribute = |a| {
            context
                .attribute(a)
                .map_err(gpu_error("cannot query the GPU"))
        };
        let info = DeviceInfo {
            name: context.name().map_err(gpu_error("cannot query the GPU"))?,
            compute_capability: context
                .compute_capability()
                .map_err(gpu_error("cannot query the GPU"))?,
            multiprocessors: attribute(
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )? as u32,
            memory_bytes: context
                .total_mem()
                .map_err(gpu_error("cannot query the GPU"))? as u64,
        };
        let ptx = compile(info.compute_capability)?;
        let module = context
            .load_module(ptx)
            .map_err(gpu_error("cannot load the kernel"))?;
        let function = module
            .load_function("count_tasks")
            .map_err(gpu_error("cannot find the kernel"))?;
        let streams = (0..STREAMS)
            .map(|_| {
                context
                    .new_stream()
                    .map_err(gpu_error("cannot make a stream"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Gpu {
            _context: context,
            streams,
            function,
            info,
        })
    }

    /// What the GPU is.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// See [`super::run`].
    pub fn run(
        &self,
        plan: &Plan,
        units: Option<&[usize]>,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<(Count, GpuRun), Error> {
        let all: Vec<usize>;
        let units = match units {
            Some(units) => units,
            None => {
                all = (0..plan.units().len()).collect();
                &all
            }
        };
        progress.start(units.len());
        let cut = super::cut(plan, units);
        let board = plan.board();
        let wide = u32::from(
            super::task::Closing::of(board.width(), board.lines()) == super::task::Closing::Wide,
        );
        let squares = crate::engine::kernel::full_mask(board.width().min(32)) as u32;
        let mut run = GpuRun {
            device: self.info.name.clone(),
            extra_rows: cut.extra_rows,
            ..GpuRun::default()
        };
        let mut sum = Count::default();
        let mut first: Option<CudaEvent> = None;
        let mut last: Vec<CudaEvent> = Vec::new();
        let mut in_flight: std::collections::VecDeque<InFlight> = Default::default();
        for (i, chunk) in super::batches(units, cut).enumerate() {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let batch = super::prepare(plan, chunk, cut.extra_rows);
            let stream = &self.streams[i % STREAMS];
            run.tasks += batch.tasks.len() as u64;
            let mut launched = self.launch(stream, batch, wide, squares)?;
            if first.is_none() {
                first = launched.start.take();
            }
            in_flight.push_back(launched);
            if in_flight.len() == STREAMS {
                let oldest = in_flight.pop_front().expect("a batch in flight");
                sum += self.collect(plan, oldest, progress, &mut last)?;
            }
        }
        while let Some(oldest) = in_flight.pop_front() {
            sum += self.collect(plan, oldest, progress, &mut last)?;
        }
        if let Some(first) = &first {
            for end in &last {
                let ms = first
                    .elapsed_ms(end)
                    .map_err(gpu_error("cannot read the GPU's clock"))?;
                run.kernel_seconds = run.kernel_seconds.max(f64::from(ms) / 1e3);
            }
        }
        Ok((sum, run))
    }

    /// Copies `batch` to the GPU and starts counting it on `stream`.
    fn launch(
        &self,
        stream: &Arc<CudaStream>,
        mut batch: Batch,
        wide: u32,
        squares: u32,
    ) -> Result<InFlight, Error> {
        let slots = batch.units.len().max(1);
        let tasks: CudaSlice<Task> = if batch.tasks.is_empty() {
            stream.alloc_zeros(1)
        } else {
            stream.clone_htod(&batch.tasks)
        }
        .map_err(gpu_error("cannot copy the tasks to the GPU"))?;
        let next: CudaSlice<u32> = stream
            .alloc_zeros(1)
            .map_err(gpu_error("cannot allocate on the GPU"))?;
        let solutions: CudaSlice<u64> = stream
            .alloc_zeros(slots)
            .map_err(gpu_error("cannot allocate on the GPU"))?;
        let nodes: CudaSlice<u64> = stream
            .alloc_zeros(slots)
            .map_err(gpu_error("cannot allocate on the GPU"))?;
        let count = u32::try_from(batch.tasks.len())
            .map_err(|_| Error::Gpu("a batch holds more than 2^32 tasks".into()))?;
        // The GPU has its copy: the host's is not needed while the batch runs (up to four at a time).
        batch.tasks = Vec::new();
        let threads = threads_per_block();
        // Three words a level, and one more level than any task stores: a flat loop may read the slot of the
        // row it is on, stored or not.
        let shared = threads * (batch.levels + 1) * 3 * 4;
        let per_multiprocessor = self
            .function
            .occupancy_max_active_blocks_per_multiprocessor(threads, shared as usize, None)
            .map_err(gpu_error("cannot size the launch"))?
            .max(1);
        if std::env::var_os("NQUEENS_GPU_VERBOSE").is_some() {
            eprintln!(
                "gpu: {count} tasks, {threads} threads a block, {per_multiprocessor} blocks a multiprocessor, \
                 {} registers a thread, {shared} bytes of shared memory a block",
                self.function.num_regs().unwrap_or(-1)
            );
        }
        let config = LaunchConfig {
            grid_dim: (self.info.multiprocessors * per_multiprocessor, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: shared,
        };
        let start = stream
            .record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(gpu_error("cannot record an event"))?;
        if count > 0 {
            let mut launch = stream.launch_builder(&self.function);
            launch
                .arg(&tasks)
                .arg(&count)
                .arg(&next)
                .arg(&solutions)
                .arg(&nodes)
                .arg(&wide)
                .arg(&squares);
            // SAFETY: the arguments match the kernel's parameters in number, order and type; `tasks` holds
            // `count` tasks, and every task's slot is below `slots`, the length of `solutions` and `nodes`.
            unsafe { launch.launch(config) }.map_err(gpu_error("cannot start the kernel"))?;
        }
        let end = stream
            .record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(gpu_error("cannot record an event"))?;
        Ok(InFlight {
            batch,
            stream: stream.clone(),
            _tasks: tasks,
            solutions,
            nodes,
            start: Some(start),
            end,
        })
    }

    /// Waits for a batch, reports its units and returns their sum.
    fn collect(
        &self,
        plan: &Plan,
        flight: InFlight,
        progress: &dyn Progress,
        last: &mut Vec<CudaEvent>,
    ) -> Result<Count, Error> {
        let solutions = flight
            .stream
            .clone_dtoh(&flight.solutions)
            .map_err(gpu_error("the kernel failed"))?;
        let nodes = flight
            .stream
            .clone_dtoh(&flight.nodes)
            .map_err(gpu_error("the kernel failed"))?;
        let device: Vec<Tally> = solutions
            .into_iter()
            .zip(nodes)
            .map(|(solutions, nodes)| Tally { solutions, nodes })
            .collect();
        let mut sum = Count::default();
        for (index, count) in super::finish(plan, &flight.batch, &device) {
            progress.unit_done(&plan.units()[index], &count);
            sum += count;
        }
        last.push(flight.end);
        Ok(sum)
    }
}

/// A batch the GPU is counting, with the memory it uses.
struct InFlight {
    batch: Batch,
    stream: Arc<CudaStream>,
    _tasks: CudaSlice<Task>,
    solutions: CudaSlice<u64>,
    nodes: CudaSlice<u64>,
    /// When the GPU got to the batch; taken by the run for its first batch.
    start: Option<CudaEvent>,
    end: CudaEvent,
}
