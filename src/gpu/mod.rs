//! The GPU backend: counts a plan's units on an NVIDIA GPU.
//!
//! It runs the same plans as the CPU engine (same units, same symmetry, same weights) and gives every unit the
//! same count, nodes included, so checkpoints, shards and merges work with either backend and a journal can
//! be finished on the other.
//!
//! # How
//! - **Tasks.** The host cuts each unit into small searches by placing a few more rows ([`task::split`]). It
//!   places the fewest rows that give at least [`TARGET_TASKS`] tasks in the run and leave no task more than
//!   [`MAX_TASK_ROWS`] rows ([`cut`]). What it decides on the way goes into the unit's tally.
//! - **The kernel** (`src/gpu/count.cu`, compiled at run time by NVRTC for the GPU at hand) runs one task per
//!   thread, every thread taking its next task from an atomic counter, and adds each task's counts to its
//!   unit's slot. Its loop is described in the source.
//! - **Batches.** Units go to the GPU in batches of at most [`BATCH_TASKS`] tasks ([`batches`]).
//!   - While the GPU counts one batch, the host cuts the next on all its cores.
//!   - Up to four batches run at once on their own streams, so that one batch's last tasks run beside the next
//!     ones' first.
//!   - A unit's count is reported once its batch is done. So a stop leaves every reported unit whole, and a
//!     journal lags a long run by a few batches at most.
//! - Units the kernel does not take are counted on the host by the CPU kernel: the few whose solutions are
//!   enumerated for Burnside's lemma, and any whose frame does not fit the kernel's rule.
//!
//! The CUDA part is behind the cargo feature `cuda` (the `cudarc` crate, loading the driver and NVRTC at run
//! time), so a build without it, or a machine without CUDA, builds and tests everything else; there, asking
//! for the GPU is an error that says so.

pub mod task;

#[cfg(feature = "cuda")]
mod cuda;

use crate::engine::count::Count;
use crate::engine::exec::Progress;
use crate::engine::kernel::{self, Kernel, Tally};
use crate::engine::plan::{Plan, WorkUnit};
use crate::error::Error;
use rayon::prelude::*;
use std::sync::atomic::AtomicBool;
use task::{Closing, Rows, Task};

/// The tasks a run aims for, at least: enough that every thread of a large GPU (200,000 in flight on an H100)
/// takes dozens, so that the last to finish are small against the run. Measured on an H100 at n = 21: 8.6
/// million tasks took 95 s, 52 million 41 s. Not many more: the host cuts them, and at n = 20 cutting 125
/// million took longer than counting them (7.5 s against 6.1 s with 28 million).
pub const TARGET_TASKS: usize = 1 << 24;

/// The most rows the host places below a unit's start.
const MAX_EXTRA_ROWS: u32 = 16;

/// The most rows a task leaves to search, so that tasks stay small on large boards: n = 21 leaves 16 at the
/// target's depth (its measured runs), n = 27 would leave 22 without this bound.
pub const MAX_TASK_ROWS: u32 = 16;

/// Tasks the estimate of [`cut`] enumerates at most; deeper, it extrapolates.
const SAMPLE_TASKS: usize = 1 << 22;

/// Tasks a batch holds at most (by the estimate). Four batches in flight keep an H100 busy; a checkpointed
/// run records a batch's units once it is done, so a batch is also what a crash can lose.
pub const BATCH_TASKS: usize = 1 << 23;

/// Batches a run is cut into, at least: the host prepares one while the GPU counts another.
pub const BATCHES: usize = 8;

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

/// How a run's units are cut into tasks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cut {
    /// Rows placed below each unit's start.
    pub extra_rows: u32,
    /// The tasks that makes, estimated from a sample of the units.
    pub tasks: f64,
}

/// How to cut `units` of `plan`: the fewest extra rows that make at least [`TARGET_TASKS`] tasks and leave
/// none more than [`MAX_TASK_ROWS`] rows to search, or the most that still leave tasks to search. Estimated
/// from a sample of the units.
pub fn cut(plan: &Plan, units: &[usize]) -> Cut {
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
        return Cut {
            extra_rows: 0,
            tasks: units.len() as f64,
        };
    }
    let scale = units.len() as f64 / sample.len() as f64;
    // Bounded tasks keep a long run's batches short, so its journal keeps up with it.
    let deep_enough = sample
        .iter()
        .map(|(_, s)| (s.frame.end - s.row).saturating_sub(MAX_TASK_ROWS))
        .max()
        .unwrap_or(0);
    let mut previous = 0.0;
    let mut growth = 1.0;
    let mut sampled = 0usize;
    for depth in 0..=MAX_EXTRA_ROWS {
        let estimate = if sampled <= SAMPLE_TASKS {
            sampled = sample
                .par_iter()
                .map(|(rows, start)| task::tasks_at(start, rows, closing, depth))
                .sum();
            let estimate = sampled as f64 * scale;
            if previous > 0.0 {
                growth = estimate / previous;
            }
            estimate
        } else {
            // The sample is too large to enumerate again: each row multiplies the tasks as the last did.
            previous * growth
        };
        // Past the rows that can be searched the tasks stop growing: go no deeper.
        if depth > 0 && estimate <= previous {
            return Cut {
                extra_rows: depth - 1,
                tasks: previous,
            };
        }
        if estimate >= TARGET_TASKS as f64 && depth >= deep_enough {
            return Cut {
                extra_rows: depth,
                tasks: estimate,
            };
        }
        previous = estimate;
    }
    Cut {
        extra_rows: MAX_EXTRA_ROWS,
        tasks: previous,
    }
}

/// The units of a run cut into batches, in order: at least [`BATCHES`], and small enough that each holds
/// about [`BATCH_TASKS`] tasks at most, given `cut`'s estimate.
pub fn batches(units: &[usize], cut: Cut) -> impl Iterator<Item = &[usize]> {
    let even = units.len().div_ceil(BATCHES);
    let by_tasks = (units.len() as f64 * BATCH_TASKS as f64 / cut.tasks.max(1.0)) as usize;
    units.chunks(even.min(by_tasks).max(1))
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
    use crate::engine::board::Board;
    use crate::engine::exec;
    use crate::engine::plan::Split;
    use crate::engine::symmetry::Symmetry;

    /// The host's side of a run, with the tasks counted by the plain search the kernel mirrors: every unit's
    /// count is the CPU engine's.
    fn run_on_host(plan: &Plan) -> Vec<(usize, Count)> {
        let board = plan.board();
        let closing = Closing::of(board.width(), board.lines());
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let cut = cut(plan, &all);
        let mut counts = Vec::new();
        for units in batches(&all, cut) {
            let batch = prepare(plan, units, cut.extra_rows);
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
    fn the_cut_aims_at_the_target_and_stops_where_rows_run_out() {
        let plan = Plan::new(Board::new(8).unwrap(), Symmetry::Full, Split::Depth(1));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        // Eight rows cannot make 2^24 tasks: the cut goes as deep as the rows allow and no further.
        let c = cut(&plan, &all);
        assert!(c.extra_rows < MAX_EXTRA_ROWS, "{c:?}");
        let deeper = prepare(&plan, &all, c.extra_rows + 1).tasks.len();
        assert!(deeper <= prepare(&plan, &all, c.extra_rows).tasks.len());
    }

    #[test]
    fn the_cut_of_n_21_is_the_measured_one_and_large_boards_get_small_tasks() {
        // n = 21 as measured in results/gpu.md: two rows, 52 million tasks, 16 rows left to each.
        let plan = Plan::new(
            Board::new(21).unwrap(),
            Symmetry::Full,
            Split::Auto { threads: 16 },
        );
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let c = cut(&plan, &all);
        assert_eq!(c.extra_rows, 2, "{c:?}");
        assert!((40e6..70e6).contains(&c.tasks), "{c:?}");
        // n = 27: the target is reached long before the tasks are small; the bound on rows decides.
        let plan = Plan::new(Board::new(27).unwrap(), Symmetry::Full, Split::Depth(0));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let c = cut(&plan, &all);
        let start = plan.start(&plan.units()[0]).unwrap();
        assert_eq!(
            start.frame.end - start.row - c.extra_rows,
            MAX_TASK_ROWS,
            "{c:?}"
        );
        assert!(c.tasks > 1e9, "{c:?}");
    }

    #[test]
    fn batches_cover_the_units_in_order_and_hold_a_bounded_number_of_tasks() {
        let units: Vec<usize> = (0..1001).collect();
        let few = Cut {
            extra_rows: 1,
            tasks: 1e6,
        };
        let joined: Vec<usize> = batches(&units, few).flatten().copied().collect();
        assert_eq!(joined, units);
        assert_eq!(batches(&units, few).count(), BATCHES);
        assert_eq!(batches(&[], few).count(), 0);
        let many = Cut {
            extra_rows: 5,
            tasks: 100.0 * BATCH_TASKS as f64,
        };
        let count = batches(&units, many).count();
        assert!((100..=112).contains(&count), "{count}");
        let huge = Cut {
            extra_rows: 9,
            tasks: 1e15,
        };
        assert_eq!(batches(&units, huge).count(), units.len());
    }

    #[cfg(not(feature = "cuda"))]
    #[test]
    fn without_the_feature_the_gpu_is_refused_with_a_message() {
        let err = device().unwrap_err().to_string();
        assert!(err.contains("--features cuda"), "{err}");
    }
}
