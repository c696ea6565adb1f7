//! The GPU backend: counts a plan's units on an NVIDIA GPU.
//!
//! It runs the same plans as the CPU engine (same units, same symmetry, same weights) and gives every unit the
//! same count, nodes included, so checkpoints, shards and merges work with either backend and a journal can
//! be finished on the other.
//!
//! # How
//! - **Tasks.** The host cuts each unit into small searches by placing a few more rows ([`task::split`]),
//!   choosing the depth so that the run has tens of millions of them ([`TARGET_TASKS`]); what it decides on the
//!   way goes into the unit's tally.
//! - **The kernel** (`src/gpu/count.cu`, compiled at run time by NVRTC for the GPU at hand) runs one task per
//!   thread, every thread taking its next task from an atomic counter, and adds each task's counts to its
//!   unit's slot. Its loop is described in the source.
//! - **Batches.** Units go to the GPU in batches: while the GPU counts one batch, the
//!   host cuts the next (on all its cores), and up to four batches run at once on their own streams, so that
//!   one batch's last tasks run beside the next ones' first. A
//!   unit's count is reported once its batch is done, so a stop leaves every reported unit whole.
//! - Units the kernel does not take are counted on the host by the CPU kernel: the few whose solutions are
//!   enumerated for Burnside's lemma, and any whose frame does not fit the kernel's rule.
//!
//! The CUDA part is behind the cargo feature `cuda` (the `cudarc` crate, loading the driver and NVRTC at run
//! time), so a build without it, or a machine without CUDA, builds and tests everything else; there, asking
//! for the GPU is an error that says so.

pub mod task;

#[cfg(feature = "cuda")]
mod cuda;

use crate::count::Count;
use crate::error::Error;
use crate::exec::Progress;
use crate::kernel::{self, Kernel, Tally};
use crate::plan::{Plan, WorkUnit};
use rayon::prelude::*;
use std::sync::atomic::AtomicBool;
use task::{Closing, Rows, Task};

/// The tasks a run aims for, at least: enough that every thread of a large GPU (200,000 in flight on an H100)
/// takes dozens, so that the last to finish are small against the run. Measured on an H100 at n = 21: 8.6
/// million tasks took 95 s, 52 million 41 s. Not many more: the host cuts them, and at n = 20 cutting 125
/// million took longer than counting them (7.5 s against 6.1 s with 28 million).
pub const TARGET_TASKS: usize = 1 << 24;

/// The most rows the host places below a unit's start.
const MAX_EXTRA_ROWS: u32 = 8;

/// Batches a run is cut into, at least: the host prepares one while the GPU counts another.
const BATCHES: usize = 8;

/// What a GPU run measured, beside its counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuRun {
    /// The GPU's name, as its driver gives it.
    pub device: String,
    /// Seconds from the first kernel's start to the last one's end, on the GPU's clock.
    pub kernel_seconds: f64,
    /// Tasks the kernel counted.
    pub tasks: u64,
    /// Rows the host placed below each unit's start to cut it into tasks.
    pub extra_rows: u32,
}

/// A GPU as the driver describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Its name.
    pub name: String,
    /// Its compute capability, major and minor.
    pub compute_capability: (i32, i32),
    /// Its multiprocessors.
    pub multiprocessors: u32,
    /// Its memory in bytes.
    pub memory_bytes: u64,
}

/// The first GPU, if this build has the backend and the machine has a GPU and its driver.
pub fn device() -> Result<DeviceInfo, Error> {
    #[cfg(feature = "cuda")]
    {
        cuda::Gpu::open().map(|gpu| gpu.info().clone())
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(not_built())
    }
}

/// The kernel's PTX for compute capability `(major, minor)`, as NVRTC compiles it (with the `NQ_*` switches
/// of `NQUEENS_GPU_DEFINES`, if set); needs NVRTC but no GPU.
#[cfg(feature = "cuda")]
pub fn kernel_ptx(capability: (i32, i32)) -> Result<String, Error> {
    cuda::compile(capability).map(|ptx| ptx.to_src())
}

/// Counts the units of `plan` numbered in `units` (all of them for `None`) on the GPU, until they are done or
/// `stop` is set, reporting each finished unit to `progress`. The count covers exactly the units reported.
pub fn run(
    plan: &Plan,
    units: Option<&[usize]>,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<(Count, GpuRun), Error> {
    #[cfg(feature = "cuda")]
    {
        let gpu = cuda::Gpu::open()?;
        gpu.run(plan, units, stop, progress)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (plan, units, stop, progress);
        Err(not_built())
    }
}

#[cfg(not(feature = "cuda"))]
fn not_built() -> Error {
    Error::Gpu(
        "this nqueens was built without the GPU backend; build it with `cargo build --release --features cuda`"
            .into(),
    )
}

/// Whether the GPU kernel takes boards of `lines` lines of `width` squares.
pub fn handles(width: u32, lines: u32) -> bool {
    width <= task::MAX_SIDE && lines <= task::MAX_SIDE
}

/// A batch of units prepared for the GPU: their tasks, and what the host counted itself.
#[derive(Debug, Default)]
pub struct Batch {
    /// The plan's numbers of the units, by slot.
    pub units: Vec<usize>,
    /// The tally the host found for each slot (of a unit counted on the GPU: the rows it placed itself).
    pub host: Vec<Tally>,
    /// Slots counted wholly on the host (Burnside units), with their counts.
    pub whole: Vec<(usize, Count)>,
    /// The tasks, each naming its slot.
    pub tasks: Vec<Task>,
    /// The most levels of stack any task needs.
    pub levels: u32,
}

/// What one unit becomes.
enum Prepared {
    /// A count made on the host.
    Whole(Count),
    /// A tally made on the host, and tasks for the GPU.
    Tasks(Tally, Vec<Task>),
}

/// Cuts `units` of `plan` into tasks `extra_rows` rows below their starts, on all cores.
pub fn prepare(plan: &Plan, units: &[usize], extra_rows: u32) -> Batch {
    let board = plan.board();
    let closing = Closing::of(board.width(), board.lines());
    let prepared: Vec<Prepared> = units
        .par_iter()
        .enumerate()
        .map(|(slot, &index)| {
            let unit = &plan.units()[index];
            prepare_unit(plan, unit, closing, extra_rows, slot as u32)
        })
        .collect();
    let mut batch = Batch {
        units: units.to_vec(),
        host: Vec::with_capacity(units.len()),
        levels: 1,
        ..Batch::default()
    };
    batch.tasks.reserve(
        prepared
            .iter()
            .map(|p| match p {
                Prepared::Tasks(_, t) => t.len(),
                Prepared::Whole(_) => 0,
            })
            .sum(),
    );
    for (slot, p) in prepared.into_iter().enumerate() {
        match p {
            Prepared::Whole(count) => {
                batch.host.push(Tally::default());
                batch.whole.push((slot, count));
            }
            Prepared::Tasks(tally, tasks) => {
                batch.host.push(tally);
                for t in &tasks {
                    batch.levels = batch.levels.max(t.end() - 2 - t.row());
                }
                batch.tasks.extend(tasks);
            }
        }
    }
    batch
}

/// What the host does with one unit: see [`prepare`].
fn prepare_unit(
    plan: &Plan,
    unit: &WorkUnit,
    closing: Closing,
    extra_rows: u32,
    slot: u32,
) -> Prepared {
    let board = plan.board();
    let Some(start) = plan.start(unit) else {
        return Prepared::Whole(plan.count_unit(unit));
    };
    let end = start.frame.end;
    let rows = (start.row + 2 <= end && handles(board.width(), board.lines()))
        .then(|| Rows::of(&start.frame, start.row + 1..end))
        .flatten();
    match rows {
        Some(rows) => {
            let mut tasks = Vec::new();
            let tally = task::split(&start, &rows, closing, extra_rows, slot, &mut |t| {
                tasks.push(t)
            });
            Prepared::Tasks(tally, tasks)
        }
        // Too short to search, or a frame the kernel's rule does not give: the CPU kernel counts it.
        None => {
            let tally = kernel::count_start_with(Kernel::preferred(), board.width(), start);
            Prepared::Tasks(tally, Vec::new())
        }
    }
}

/// The rows to place below the starts of `units` so that they make about [`TARGET_TASKS`] tasks, estimated
/// from a sample of them: the fewest that reach the target, or the most that still leave tasks to search.
pub fn extra_rows(plan: &Plan, units: &[usize]) -> u32 {
    let board = plan.board();
    let closing = Closing::of(board.width(), board.lines());
    let step = (units.len() / 256).max(1);
    let sample: Vec<_> = units
        .iter()
        .step_by(step)
        .filter_map(|&i| plan.start(&plan.units()[i]))
        .filter(|s| s.row + 2 <= s.frame.end)
        .filter_map(|s| Some((Rows::of(&s.frame, s.row + 1..s.frame.end)?, s)))
        .collect();
    if sample.is_empty() || !handles(board.width(), board.lines()) {
        return 0;
    }
    let scale = units.len() as f64 / sample.len() as f64;
    let mut previous = 0.0;
    for depth in 0..=MAX_EXTRA_ROWS {
        let tasks: usize = sample
            .par_iter()
            .map(|(rows, start)| task::tasks_at(start, rows, closing, depth))
            .sum();
        let estimate = tasks as f64 * scale;
        // Past the rows that can be searched the tasks stop growing: go no deeper.
        if estimate >= TARGET_TASKS as f64 || (depth > 0 && estimate <= previous) {
            return if estimate <= previous {
                depth - 1
            } else {
                depth
            };
        }
        previous = estimate;
    }
    MAX_EXTRA_ROWS
}

/// The units of a run cut into batches of about equal numbers of units, in order.
pub fn batches(units: &[usize]) -> impl Iterator<Item = &[usize]> {
    let size = units.len().div_ceil(BATCHES).max(1);
    units.chunks(size)
}

/// The count of each unit of `batch`, from the GPU's per-slot tallies `device`.
pub fn finish(plan: &Plan, batch: &Batch, device: &[Tally]) -> Vec<(usize, Count)> {
    let mut whole = batch.whole.iter().peekable();
    (0..batch.units.len())
        .map(|slot| {
            let unit = &plan.units()[batch.units[slot]];
            if let Some(&&(s, count)) = whole.peek() {
                if s == slot {
                    whole.next();
                    return (batch.units[slot], count);
                }
            }
            let tally = Tally {
                solutions: batch.host[slot].solutions + device[slot].solutions,
                nodes: batch.host[slot].nodes + device[slot].nodes,
            };
            (batch.units[slot], plan.weigh(unit, tally))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::exec;
    use crate::plan::Split;
    use crate::symmetry::Symmetry;

    /// The host's side of a run, with the tasks counted by the plain search the kernel mirrors: every unit's
    /// count is the CPU engine's.
    fn run_on_host(plan: &Plan) -> Vec<(usize, Count)> {
        let board = plan.board();
        let closing = Closing::of(board.width(), board.lines());
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let rows = extra_rows(plan, &all);
        let mut counts = Vec::new();
        for units in batches(&all) {
            let batch = prepare(plan, units, rows);
            let mut device = vec![Tally::default(); units.len()];
            for t in &batch.tasks {
                let tally = task::count_task(t, closing);
                device[t.slot as usize].solutions += tally.solutions;
                device[t.slot as usize].nodes += tally.nodes;
            }
            counts.extend(finish(plan, &batch, &device));
        }
        counts
    }

    #[test]
    fn every_unit_counts_as_on_the_cpu() {
        for (board, symmetry) in [
            (Board::new(1).unwrap(), Symmetry::Full),
            (Board::new(6).unwrap(), Symmetry::Full),
            (Board::new(10).unwrap(), Symmetry::Full),
            (Board::new(11).unwrap(), Symmetry::Mirror),
            (Board::new(9).unwrap(), Symmetry::None),
            (Board::rect(8, 5).unwrap(), Symmetry::Mirror),
        ] {
            let plan = Plan::new(board, symmetry, Split::Auto { threads: 2 });
            let counts = run_on_host(&plan);
            assert_eq!(counts.len(), plan.units().len());
            for (index, count) in counts {
                assert_eq!(
                    count,
                    plan.count_unit(&plan.units()[index]),
                    "{board} {symmetry:?} unit {index}"
                );
            }
            let total: Count = run_on_host(&plan).into_iter().map(|(_, c)| c).sum();
            assert_eq!(total, exec::run_serial(&plan, &exec::NoProgress));
        }
    }

    #[test]
    fn the_split_aims_at_the_target_and_stops_where_rows_run_out() {
        let plan = Plan::new(Board::new(8).unwrap(), Symmetry::Full, Split::Depth(1));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        // Eight rows cannot make 2^25 tasks: the split goes as deep as the rows allow and no further.
        let rows = extra_rows(&plan, &all);
        assert!(rows < MAX_EXTRA_ROWS, "{rows}");
        let deeper = prepare(&plan, &all, rows + 1).tasks.len();
        assert!(deeper <= prepare(&plan, &all, rows).tasks.len());
        let plan = Plan::new(Board::new(19).unwrap(), Symmetry::Full, Split::Depth(1));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let rows = extra_rows(&plan, &all);
        assert!((1..=MAX_EXTRA_ROWS).contains(&rows), "{rows}");
    }

    #[test]
    fn batches_cover_the_units_in_order() {
        let units: Vec<usize> = (0..1001).collect();
        let joined: Vec<usize> = batches(&units).flatten().copied().collect();
        assert_eq!(joined, units);
        assert_eq!(batches(&units).count(), BATCHES);
        assert_eq!(batches(&[]).count(), 0);
    }

    #[cfg(not(feature = "cuda"))]
    #[test]
    fn without_the_feature_the_gpu_is_refused_with_a_message() {
        let err = device().unwrap_err().to_string();
        assert!(err.contains("--features cuda"), "{err}");
    }
}
