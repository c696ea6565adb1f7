//! The GPU backend: counts a plan's units on an NVIDIA GPU.
//!
//! It runs the same plans as the CPU engine (same units, same symmetry, same weights) and gives every unit the
//! same count, nodes included, so checkpoints, shards and merges work with either backend and a journal can
//! be finished on the other. Without a split asked for, a GPU run's plan is no deeper than [`SPLIT_DEPTH`].
//!
//! # How
//! - **Tasks.** The host cuts each unit into small searches by placing a few more rows ([`task::split`]). It
//!   places the fewest rows that give at least [`TARGET_TASKS`] tasks in the run and leave no task more than
//!   [`MAX_TASK_ROWS`] rows, but no more rows than keep each unit within a batch of [`UNIT_TASKS`] ([`cut`]).
//!   What it decides on the way goes into the unit's tally. Each unit's rows go with its tasks as a table of
//!   their open squares ([`task::Table`]), so the kernel takes any frame.
//! - **The kernel** (`src/gpu/count.cu`, compiled at run time by NVRTC for the GPU at hand, and kept on disk
//!   by `cache` so later runs start at once) runs one task per thread, every thread taking its next task
//!   from an atomic counter, and adds each task's counts to its unit's slot. Its loop is described in the
//!   source.
//! - **Batches.** Units go to the GPUs in batches of at most [`BATCH_TASKS`] tasks ([`batches`]).
//!   - Every GPU in use ([`use_gpus`]; all visible by default) has a host thread that opens it and hands it
//!     the plan's next batches ([`dispatch`], generic over the [`Device`] that counts), and a thread that
//!     cuts them on all the host's cores, ahead of it ([`CUT_AHEAD_TASKS`] alone, a batch each of several
//!     GPUs): while the GPU opens (its context is made on a thread of its own while the plan is built), and
//!     while its thread copies a batch to it or waits for a result. Before that, the first batches are cut
//!     while the driver starts and finds the GPUs, so that a small run's cut and the GPUs' opening overlap.
//!   - Up to four batches run at once on a GPU, on their own streams, so that one batch's last tasks run
//!     beside the next ones' first.
//!   - A unit's count is reported once its batch is done. So a stop leaves every reported unit whole, and a
//!     journal lags a long run by a few batches a GPU at most.
//! - The few units counted by Burnside's lemma (a border that a symmetry fixes) go to the GPU as their parts,
//!   each in a slot of its own ([`BurnsideSlots`]); the host adds the solutions each symmetry fixes, which a
//!   small search finds. Any start with no row left to search is counted on the host by the CPU kernel, and
//!   so is a unit whose tally the GPU cannot vouch for.
//!
//! The CUDA part is behind the cargo feature `cuda` (the `cudarc` crate, loading the driver and NVRTC at run
//! time), so a build without it, or a machine without CUDA, builds and tests everything else; there, asking
//! for the GPU is an error that says so.

pub mod cache;
mod prepare;
pub mod task;

#[cfg(feature = "cuda")]
mod cuda;

use crate::engine::board::Board;
use crate::engine::count::Count;
use crate::engine::estimate;
use crate::engine::exec::{Progress, Run};
use crate::engine::kernel::{self, Start, Tally};
use crate::engine::plan::{BurnsideParts, Plan, Split};
use crate::error::Error;
pub use prepare::{drop_spares, prepare, recycle};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
pub use task::Turns;
use task::{Table, Task};

/// The deepest split of a GPU run's plan when none is asked for (the CPU's automatic split goes to 3 rows
/// at n = 17 to 19 for 16 threads). The host does work for each unit, and the GPU's tasks are cut below them
/// anyway: on an H200 with 16 cores (2026-11-26), 2 rows rather than 3 took n = 17 from 0.53 to 0.44 s and
/// n = 19 from 1.47 to 1.06 s, whole commands (results/gpu.md).
pub const SPLIT_DEPTH: u32 = 2;

/// The split of a GPU run's plan when none is asked for, for `threads` host threads: the CPU's automatic
/// split, no deeper than [`SPLIT_DEPTH`].
pub fn split_for(threads: usize) -> Split {
    Split::AutoWithin {
        threads,
        depth: SPLIT_DEPTH,
    }
}

/// The tasks a large run aims for, at least: enough that every thread of a large GPU (85,000 to 200,000 in
/// flight on an H100) takes dozens, so that the last to finish are small against the run. Measured on an H100
/// at n = 21: 8.6 million tasks took 95 s, 52 million 41 s. Not many more: the host cuts them, and at n = 20
/// cutting 125 million took longer than counting them (7.5 s against 6.1 s with 28 million). A smaller run
/// aims for fewer: the square root of its nodes times 1,800, where the last tasks' wait costs what cutting
/// more would (results/gpu.md).
pub const TARGET_TASKS: usize = 1 << 24;

/// A smaller run aims for `sqrt(nodes * TASK_BALANCE)` tasks (up to [`TARGET_TASKS`]), where the time the last
/// tasks take alone equals the host's time to cut them: the tail costs about `threads * k * nodes / (rate *
/// tasks)` (the largest task is `k` times the mean), the cut `tasks * c / cores`. With an H100's 84,480 threads
/// in flight, `k` = 40 (n = 17, `examples/gpu_cut.rs`), 300 G nodes/s, 16 host cores and 100 ns a task to cut
/// and copy, that is 1,800. At n = 17 (2.4 G nodes) it asks for 2 million tasks where 2^24 made 26.7 million,
/// which took the 2-core development machine 3.6 s to cut against 0.3 s for 3.1 million (results/gpu.md).
const TASK_BALANCE: f64 = 1800.0;

/// A knob for measuring: environment variable `name` read as a `T`, if it is one that `valid` takes (else the
/// program's own value is used, as if it were not set).
fn knob<T: std::str::FromStr>(name: &str, valid: impl Fn(&T) -> bool) -> Option<T> {
    knob_value(std::env::var(name).ok().as_deref(), valid)
}

/// [`knob`] of the variable's value, `None` where it is not set.
fn knob_value<T: std::str::FromStr>(value: Option<&str>, valid: impl Fn(&T) -> bool) -> Option<T> {
    value.and_then(|v| v.trim().parse().ok()).filter(valid)
}

/// [`TASK_BALANCE`], unless `NQUEENS_GPU_TASK_BALANCE` says otherwise (for measuring: the host's cut of the
/// eleventh session's H100 machine took 740 ns a task on a core, where the constant assumes 100).
fn task_balance() -> f64 {
    knob("NQUEENS_GPU_TASK_BALANCE", |b: &f64| {
        b.is_finite() && *b > 0.0
    })
    .unwrap_or(TASK_BALANCE)
}

/// Units of the cut's sample whose nodes are counted (with a budget) to size the run.
const SIZING_UNITS: usize = 64;

/// The nodes counted below a start of that sample at most: about a millisecond of one core. Past them its nodes are
/// estimated instead ([`SIZING_DESCENTS`] of Knuth's random descents), so that sizing a run of a few large
/// units is quick: counting as far as the target needs (up to 7.8e10 nodes a unit for four units of n = 26,
/// 1.4e12 nodes each) took the host longer than the GPU's count of them.
const SIZING_BUDGET: u64 = 1 << 20;

/// Random descents that estimate a start of the sample past [`SIZING_BUDGET`]: an estimate within a few
/// times the truth is enough, the target being the square root of the run's nodes, or [`TARGET_TASKS`].
const SIZING_DESCENTS: u32 = 1024;

/// The most rows the host places below a unit's start.
const MAX_EXTRA_ROWS: u32 = 16;

/// The most rows a task leaves to search, so that tasks stay small on large boards: n = 21 leaves 16 at the
/// target's depth (its measured runs), n = 27 would leave 22 without this bound. Unless a unit would then have
/// more than [`UNIT_TASKS`] tasks (see [`cut`]).
pub const MAX_TASK_ROWS: u32 = 16;

/// Tasks the estimate of [`cut`] enumerates at most; deeper, it extrapolates.
const SAMPLE_TASKS: usize = 1 << 22;

/// Tasks a batch holds at most (by the estimate), but for a batch of one unit, which holds all its tasks (up
/// to [`UNIT_TASKS`]). Four batches in flight keep an H100 busy; a checkpointed run records a batch's units
/// once it is done, so a batch is also what a crash can lose. The host holds two batches a GPU at most: the
/// one its thread copies to it, and the next, cut ahead ([`dispatch`]).
pub const BATCH_TASKS: usize = 1 << 23;

/// Tasks a lone GPU's first batch holds at most, of the batches cut before it opened (merged, see
/// [`dispatch`]), each next one twice as many up to [`BATCH_TASKS`]: the GPU starts counting once the first
/// is copied, and the next ones are copied while it counts. Copied from memory the driver does not pin, 2^23
/// tasks (then 32 bytes each) took n = 19's first batch 0.08 s on an H200's host, the GPU idle meanwhile. On
/// an H200 (2026-11-27, `NQUEENS_GPU_FIRST_BATCH_TASKS`, interleaved), n = 17 took 0.359 to 0.376 s with 2^19
/// (five runs) where 2^21 took 0.387 to 0.474 s, and 2^20 0.381 to 0.400 s; n = 18 and 19, whose early
/// batches are larger than 2^19 tasks each (a batch alone larger goes alone), were unchanged within the
/// runs' spread (results/gpu.md).
pub const FIRST_BATCH_TASKS: usize = 1 << 19;

/// [`FIRST_BATCH_TASKS`], unless `NQUEENS_GPU_FIRST_BATCH_TASKS` says otherwise (1 to [`BATCH_TASKS`], for
/// measuring).
fn first_batch_tasks() -> usize {
    knob("NQUEENS_GPU_FIRST_BATCH_TASKS", |t| {
        (1..=BATCH_TASKS).contains(t)
    })
    .unwrap_or(FIRST_BATCH_TASKS)
}

/// Tasks a unit is cut into at most ([`cut`]): a unit's tasks go to the GPU in one batch, which holds them all
/// in the host's memory and the GPU's (16 bytes a task: 512 MiB). Four times [`BATCH_TASKS`], so that the
/// units of n = 27 and 28 take 6 rows, not 5: with 5, a task of n = 27 is 4.7e8 nodes on average (the
/// largest of 48 counted, 1.15e9), about a minute of a GPU thread, near the bound past which the kernel does
/// not trust its 32-bit counters (2^32 turns; results/gpu.md); with 6, about ten times fewer.
pub const UNIT_TASKS: usize = 1 << 25;

/// Batches a run is cut into, at least: the host prepares one while the GPU counts another.
pub const BATCHES: usize = 8;

/// [`BATCHES`], unless `NQUEENS_GPU_BATCHES` says otherwise (1 to 64, for measuring: at n = 19 each batch's end
/// waits for its slowest tasks, results/gpu.md).
fn batches_at_least() -> usize {
    knob("NQUEENS_GPU_BATCHES", |b| (1..=64).contains(b)).unwrap_or(BATCHES)
}

/// Tasks a lone GPU's batches may hold that are cut and not yet taken by its host thread: at least one batch
/// (several GPUs: one batch each). Its batches are cut on a thread of their own from the time its thread
/// starts to open it: a batch ahead of a large run (at most [`BATCH_TASKS`]), and in a small run all of its
/// batches while the GPU opens (n = 17's 3.3 million tasks, 53 MB), so that the GPU's thread need not wait
/// for a cut once it has opened it.
pub const CUT_AHEAD_TASKS: usize = BATCH_TASKS;

/// Tasks cut at most while the driver starts and finds the GPUs, before any can take one (about 270 MB): the
/// whole of a run up to n = 18, whose cut takes less time than the driver's start on a 16-core host.
const EARLY_TASKS: usize = 1 << 23;

/// The batches the run's last batch for each GPU is cut into, a row deeper than the others ([`tail_deeper`]):
/// a row multiplies the tasks by several, and a batch's tasks stay about as many as another's.
pub const TAIL_PIECES: usize = 4;

/// The GPUs the first batches are sized for, cut before the GPUs are known (see [`dispatch`]): small enough
/// that up to this many share them.
const EARLY_DEVICES: usize = 4;

/// What a GPU run measured, beside its counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuRun {
    /// The GPUs' names, as their driver gives them: one name, or several joined by ", " (a name repeated for
    /// a GPU used twice).
    pub device: String,
    /// Seconds from the first kernel's start to the last one's end, on the GPU's clock (the longest of the
    /// GPUs in use).
    pub kernel_seconds: f64,
    /// Tasks the kernel counted.
    pub tasks: u64,
    /// Rows the host placed below each unit's start to cut it into tasks.
    pub extra_rows: u32,
    /// Batches the host cut while the driver started and found the GPUs: at least one if any units were
    /// left, and up to about 8 million tasks.
    pub cut_ahead: usize,
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

/// Whether `NQUEENS_GPU_VERBOSE` asks for what a run did, phase by phase, on standard error: a measuring aid
/// (results/gpu.md), like the launch's figures the driver part prints.
pub fn verbose() -> bool {
    std::env::var_os("NQUEENS_GPU_VERBOSE").is_some()
}

/// The GPUs a run uses, by the driver's numbers; `None` for all visible.
static SELECTED: Mutex<Option<Vec<usize>>> = Mutex::new(None);

/// Uses the GPUs `ordinals` (the driver's numbers; one named twice gets two host threads and two
/// queues of batches) in the runs that follow, or all visible ones for `None`, the default.
pub fn use_gpus(ordinals: Option<Vec<usize>>) {
    *SELECTED.lock().unwrap_or_else(|e| e.into_inner()) = ordinals;
}

/// The GPUs set by [`use_gpus`], or `None` for all visible.
pub fn selected_gpus() -> Option<Vec<usize>> {
    SELECTED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Whether the kernel leaves the search's nodes uncounted ([`leave_nodes_uncounted`]).
static NODES_UNCOUNTED: AtomicBool = AtomicBool::new(false);

/// Has the GPUs' kernel leave the search's nodes uncounted in the runs that follow (`true`), for a faster
/// count: its units' counts then say so ([`Count::uncounted`]), and so do the reports, journals and merges
/// made of them. A unit the host counts (whole, or again where the GPU could not vouch for it) still counts
/// its nodes. The default counts them.
pub fn leave_nodes_uncounted(uncounted: bool) {
    NODES_UNCOUNTED.store(uncounted, Ordering::Relaxed);
}

/// Whether the GPUs' kernel leaves the nodes uncounted: [`leave_nodes_uncounted`] asked for it, or the
/// environment's switches name the kernel's `NQ_UNCOUNTED` (`NQUEENS_GPU_DEFINES`, for measuring).
pub fn nodes_uncounted() -> bool {
    NODES_UNCOUNTED.load(Ordering::Relaxed)
        || std::env::var("NQUEENS_GPU_DEFINES")
            .unwrap_or_default()
            .split_whitespace()
            .any(|d| d == "NQ_UNCOUNTED")
}

/// Reads a list of GPUs as `--gpus` takes it: the driver's numbers, separated by commas (`0,1`, `0,0`).
pub fn parse_gpus(s: &str) -> Result<Vec<usize>, String> {
    let gpus: Vec<usize> = s
        .split(',')
        .map(|g| {
            g.trim()
                .parse()
                .map_err(|_| format!("'{g}' is not a GPU number: give them as 0,1,2"))
        })
        .collect::<Result<_, _>>()?;
    if gpus.is_empty() || gpus.len() > 64 {
        return Err("give between 1 and 64 GPU numbers, as 0,1,2".into());
    }
    Ok(gpus)
}

/// The switches of the kernel (`count.cu`) that `NQUEENS_GPU_DEFINES` may name, for measuring variants side by
/// side, besides `NQ_UNROLL=`: the loop without the look-ahead, the turn's shared accesses in C, the nodes not
/// counted, and the look-ahead's forms that wait for a GPU to time them (results/gpu.md). `NQ_AHEAD` and
/// `NQ_TURN_PTX` name what is the default now, and change nothing.
pub const KERNEL_SWITCHES: [&str; 10] = [
    "NQ_PLAIN",
    "NQ_TURN_C",
    "NQ_UNCOUNTED",
    "NQ_AHEAD_XOR",
    "NQ_AHEAD_CHILDREN",
    "NQ_AHEAD_LAST",
    "NQ_AHEAD_KEPT_FIRST",
    "NQ_PUSH_LAST",
    "NQ_AHEAD",
    "NQ_TURN_PTX",
];

/// How the kernel's loop is built for `board`: [`Turns::for_width`], unless `NQUEENS_GPU_DEFINES` asks for
/// `NQ_UNROLL=` 1, 2, 4, 8 or 16 turns between tests for a task's end, for measuring. The sentinels' squares are
/// the program's to choose by the board: asking for them is refused, and so is any name that is not one of
/// [`KERNEL_SWITCHES`] (a variant that was measured slower and removed, or a misspelt one, would otherwise build
/// the default under another name). The loop that closes the last row without a turn (`NQ_AHEAD_LAST`) gets
/// its stack sized without that row on a square board ([`Turns::unpushed_last`]); that is the program's to
/// choose too.
pub fn turns(board: Board) -> Result<Turns, Error> {
    turns_asked(
        &std::env::var("NQUEENS_GPU_DEFINES").unwrap_or_default(),
        board,
    )
}

/// [`turns`] with `NQUEENS_GPU_DEFINES` reading `asked`.
fn turns_asked(asked: &str, board: Board) -> Result<Turns, Error> {
    let width = board.width();
    if let Some(d) = asked
        .split_whitespace()
        .find(|d| d.starts_with("NQ_SENTINEL_SQUARES"))
    {
        return Err(Error::Gpu(format!(
            "{d}: the program gives the sentinels the squares the board leaves room for; ask for the turns \
             (NQ_UNROLL) alone"
        )));
    }
    let named = |switch: &str| asked.split_whitespace().any(|d| d == switch);
    if named("NQ_LAST_UNPUSHED") {
        return Err(Error::Gpu(
            "NQ_LAST_UNPUSHED: the program sizes the stack without the last row where the board takes it \
             (NQ_AHEAD_LAST on a square board); ask for NQ_AHEAD_LAST alone"
                .into(),
        ));
    }
    if let Some(d) = asked
        .split_whitespace()
        .find(|d| !d.starts_with("NQ_UNROLL=") && !KERNEL_SWITCHES.contains(d))
    {
        return Err(Error::Gpu(format!(
            "{d}: not a switch of the kernel; NQUEENS_GPU_DEFINES takes NQ_UNROLL=1u, 2u, 4u, 8u or 16u and {} \
             (variants measured slower were removed: results/gpu.md)",
            KERNEL_SWITCHES.join(", ")
        )));
    }
    // A rectangle's tasks end with free columns left, and their last row may be pushed.
    let unpushed_last = named("NQ_AHEAD_LAST") && board.is_square();
    Ok(turns_between_tests(asked, width)?.with_unpushed_last(unpushed_last))
}

/// The turns `asked` names for boards `width` wide (see [`turns`]).
fn turns_between_tests(asked: &str, width: u32) -> Result<Turns, Error> {
    let Some(turns) = asked
        .split_whitespace()
        .find_map(|d| d.strip_prefix("NQ_UNROLL="))
    else {
        return Ok(Turns::for_width(width));
    };
    let between = match turns.trim_end_matches('u') {
        "1" => 1,
        "2" => 2,
        "4" => 4,
        "8" => 8,
        "16" => 16,
        _ => {
            return Err(Error::Gpu(format!(
                "NQ_UNROLL={turns}: the kernel tests for a task's end every 1, 2, 4, 8 or 16 turns"
            )))
        }
    };
    Ok(Turns::asked(between, width))
}

/// The first GPU in use ([`use_gpus`]), if this build has the backend and the machine has a GPU and its
/// driver.
pub fn device() -> Result<DeviceInfo, Error> {
    #[cfg(feature = "cuda")]
    {
        let first = selected_gpus()
            .and_then(|g| g.first().copied())
            .unwrap_or(0);
        cuda::info(first)
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(not_built())
    }
}

/// Makes the contexts of the GPUs in use ([`use_gpus`]) and loads the kernel for `board` on them,
/// as a run will, or says why it cannot: on a thread of its own while the host builds the plan, so that a
/// small run does not wait for the two one after the other, or before anything is written.
pub fn open_ahead(board: Board) -> Result<(), Error> {
    #[cfg(feature = "cuda")]
    {
        let turns = turns(board)?;
        let ordinals = match selected_gpus() {
            Some(gpus) => gpus,
            None => (0..cuda::visible()?).collect(),
        };
        std::thread::scope(|scope| {
            let opening: Vec<_> = ordinals
                .into_iter()
                .map(|ordinal| scope.spawn(move || cuda::open_ahead(ordinal, turns)))
                .collect();
            // The scope waits for every thread; the first error is the run's.
            opening
                .into_iter()
                .try_for_each(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
        })
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = board;
        Err(not_built())
    }
}

/// The names of the GPUs in use ([`use_gpus`]), joined by ", ", as [`GpuRun::device`] gives them.
pub fn names_in_use() -> Result<String, Error> {
    #[cfg(feature = "cuda")]
    {
        let ordinals = match selected_gpus() {
            Some(gpus) => gpus,
            None => (0..cuda::visible()?).collect(),
        };
        let names = ordinals
            .iter()
            .map(|&o| cuda::info(o).map(|i| i.name))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(names.join(", "))
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(not_built())
    }
}

/// The kernel's PTX for compute capability `(major, minor)` and `board`, as NVRTC compiles it (with the
/// `NQ_*` switches of `NQUEENS_GPU_DEFINES`, if set); needs NVRTC but no GPU, and does not use the cache.
#[cfg(feature = "cuda")]
pub fn kernel_ptx(capability: (i32, i32), board: Board) -> Result<String, Error> {
    cuda::compile(capability, turns(board)?).map(|ptx| ptx.to_src())
}

/// The kernel's PTX for compute capability `(major, minor)`, its loop built as `turns` says, for blocks of
/// `threads` threads, with the switches `switches` (`NQ_*` names, as `NQUEENS_GPU_DEFINES` takes them) and no
/// others: what `tests/gpu_ptx.rs` runs through its interpreter of PTX. Needs NVRTC but no GPU; not cached.
#[cfg(feature = "cuda")]
pub fn kernel_ptx_as(
    capability: (i32, i32),
    turns: Turns,
    threads: u32,
    switches: &[&str],
) -> Result<String, Error> {
    cuda::compile_as(capability, turns, threads, switches).map(|ptx| ptx.to_src())
}

/// Counts the units of `plan` numbered in `units` (all of them for `None`) on the GPUs in use ([`use_gpus`]),
/// until they are done or `stop` is set, reporting each finished unit to `progress`. The count covers exactly
/// the units reported.
pub fn run(
    plan: &Plan,
    units: Option<&[usize]>,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<(Count, GpuRun), Error> {
    #[cfg(feature = "cuda")]
    {
        // Found on a thread of dispatch's while the first batches are cut.
        let ordinals = || match selected_gpus() {
            Some(gpus) => Ok(gpus),
            None => Ok((0..cuda::visible()?).collect()),
        };
        let turns = turns(plan.board())?;
        let all: Vec<usize>;
        let units = match units {
            Some(units) => units,
            None => {
                all = (0..plan.units().len()).collect();
                &all
            }
        };
        dispatch(
            plan,
            units,
            &ordinals,
            &|ordinal| cuda::GpuDevice::open(ordinal, turns),
            stop,
            progress,
        )
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
    width <= task::MAX_SIDE && lines <= kernel::MAX_N
}

/// A batch of units prepared for the GPU: their tasks, and what the host counted itself.
///
/// Its slots are first its units, one each, then the parts of its Burnside units (see [`BurnsideSlots`]).
#[derive(Debug, Default)]
pub struct Batch {
    /// The plan's numbers of the units, by slot.
    pub units: Vec<usize>,
    /// The tally the host found for each slot (of a unit counted on the GPU: the rows it placed itself).
    pub host: Vec<Tally>,
    /// Each slot's table of rows (all zero for a slot with no tasks).
    pub tables: Vec<Table>,
    /// Slots counted wholly on the host, with their counts.
    pub whole: Vec<(usize, Count)>,
    /// The units counted by Burnside's lemma: their slots, and the slots of their parts.
    pub burnside: Vec<BurnsideSlots>,
    /// The tasks, each naming its slot.
    pub tasks: Vec<Task>,
    /// The most levels of stack any task needs.
    pub levels: u32,
}

impl Batch {
    /// The batch's slots, its units' and their parts': what the device keeps a tally for.
    pub fn slots(&self) -> usize {
        self.tables.len()
    }
}

/// A unit of a batch counted by Burnside's lemma ([`Plan::burnside_parts`]): the GPU counts the solutions of
/// its parts, each in a slot of its own (their frames differ), and the host what each symmetry fixes.
#[derive(Clone, Debug)]
pub struct BurnsideSlots {
    /// The unit's slot.
    pub slot: usize,
    /// The slots of its parts.
    pub parts: std::ops::Range<usize>,
    /// The unit's parts, but for their starts.
    pub weight: BurnsideParts,
}

/// `batches` as one, in their order: its slots are all their units', then all their parts' (the layout
/// [`finish`] reads), and its tasks largest first by the host's guess, as [`prepare`] puts a batch's.
///
/// A small run is cut in many small batches before the driver has said how many GPUs there are (so that
/// several can share them), and each batch's kernel ends with its largest task: by the tasks' sizes counted
/// on the host (`examples/gpu_cut.rs`, n = 17 as the program cuts it, 84,480 threads), the last thread of
/// the program's batches ends 49% after a perfect share if they overlapped perfectly and 392% after it if
/// they ran one by one, where all of them as one ends 14% after it. One GPU takes what it has in hand as
/// one batch, or as a few growing ones where they are many (see [`FIRST_BATCH_TASKS`] and [`dispatch`]).
pub fn merge(batches: Vec<Batch>) -> Batch {
    if batches.len() < 2 {
        return batches.into_iter().next().unwrap_or_default();
    }
    let units: usize = batches.iter().map(|b| b.units.len()).sum();
    let mut merged = Batch {
        levels: batches.iter().map(|b| b.levels).max().unwrap_or(1),
        ..Batch::default()
    };
    // Where each batch's units and parts go.
    let mut unit_at = 0;
    let mut part_at = units;
    let mut shifts = Vec::with_capacity(batches.len());
    for b in &batches {
        shifts.push((unit_at, part_at));
        unit_at += b.units.len();
        part_at += b.slots() - b.units.len();
    }
    let slot = |(unit_at, part_at): (usize, usize), units: usize, s: usize| {
        if s < units {
            unit_at + s
        } else {
            part_at + s - units
        }
    };
    for (b, &shift) in batches.iter().zip(&shifts) {
        let n = b.units.len();
        merged.units.extend(&b.units);
        merged
            .whole
            .extend(b.whole.iter().map(|&(s, c)| (slot(shift, n, s), c)));
        merged
            .burnside
            .extend(b.burnside.iter().map(|u| BurnsideSlots {
                slot: slot(shift, n, u.slot),
                parts: slot(shift, n, u.parts.start)..slot(shift, n, u.parts.end),
                weight: u.weight.clone(),
            }));
    }
    assert!(part_at <= task::MAX_SLOTS, "a batch of {part_at} slots");
    merged.host = vec![Tally::default(); part_at];
    merged.tables = vec![[0; 32]; part_at];
    for (b, &shift) in batches.iter().zip(&shifts) {
        for s in 0..b.slots() {
            let to = slot(shift, b.units.len(), s);
            merged.host[to] = b.host[s];
            merged.tables[to] = b.tables[s];
        }
    }
    // The tasks laid out as `prepare` lays out a batch's, each batch a piece: no sort (which took n = 17's
    // early batches, 3.3 M tasks, 0.13 s on two cores, as long as their cut; now 0.06 s).
    let counts: Vec<Vec<usize>> = batches.par_iter().map(prepare::counts_by_guess).collect();
    let counts: Vec<&[usize]> = counts.iter().map(Vec::as_slice).collect();
    let mut tasks = prepare::buffer(counts.iter().flat_map(|c| c.iter()).sum());
    let places = prepare::places(&mut tasks, &counts);
    batches
        .par_iter()
        .zip(&shifts)
        .zip(places)
        .for_each(|((b, &shift), mut places)| {
            for t in &b.tasks {
                let guess = t.size_guess(&b.tables[t.slot() as usize]);
                let slot = slot(shift, b.units.len(), t.slot() as usize) as u32;
                prepare::put(
                    &mut places,
                    Task::new(t.fc, t.ld, t.rd, slot, t.low()),
                    guess,
                );
            }
        });
    merged.tasks = tasks;
    for b in batches {
        recycle(b.tasks);
    }
    merged
}

/// `batches` in order, each run of them [`merge`]d into one: the first run with at most `first` tasks in all,
/// each next one with at most twice the one before, up to `most` (where a batch alone has more, it goes
/// alone).
fn coalesce(batches: VecDeque<Batch>, first: usize, most: usize) -> VecDeque<Batch> {
    let mut out = VecDeque::new();
    let mut run: Vec<Batch> = Vec::new();
    let mut tasks = 0;
    // The tasks the run being gathered may hold.
    let mut room = first.min(most);
    for batch in batches {
        if !run.is_empty() && tasks + batch.tasks.len() > room {
            out.push_back(merge(std::mem::take(&mut run)));
            tasks = 0;
            room = room.saturating_mul(2).min(most);
        }
        tasks += batch.tasks.len();
        run.push(batch);
    }
    if !run.is_empty() {
        out.push_back(merge(run));
    }
    out
}

/// How a run's units are cut into tasks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cut {
    /// Rows placed below each unit's start.
    pub extra_rows: u32,
    /// The tasks that makes, estimated from a sample of the units.
    pub tasks: f64,
    /// Rows placed below the units of the run's last batches ([`tail_deeper`]): one more than `extra_rows`,
    /// unless a unit's tasks would then be more than a batch holds ([`UNIT_TASKS`]).
    pub tail_rows: u32,
}

impl Cut {
    /// The cut of `part` of a run's `whole` units: the same rows, its share of the tasks.
    pub fn part(self, part: usize, whole: usize) -> Cut {
        Cut {
            tasks: self.tasks * part as f64 / whole.max(1) as f64,
            ..self
        }
    }
}

/// How to cut `units` of `plan`: the fewest extra rows that make at least the run's target of tasks (its
/// size's: see [`TARGET_TASKS`]; for a run smaller than that of [`TARGET_TASKS`], the depth whose tasks are
/// nearer its target, on a log scale) and
/// leave none more than [`MAX_TASK_ROWS`] rows to search, or the most that still leave tasks to search.
/// Estimated from a sample of the units.
///
/// But never so many rows that a unit of the sample has more than [`UNIT_TASKS`] tasks: a unit's tasks go to
/// the GPU in one batch, which holds them all in the host's memory and the GPU's. At n = 26, the rows bound
/// asked for 8 rows below the first unit: 518 million tasks (16.6 GB), which took one core of the
/// development machine 57 s to cut; it now takes 6 (8.3 million tasks).
pub fn cut(plan: &Plan, units: &[usize]) -> Cut {
    let sample = sample(plan, units);
    let starts: Vec<&Start> = sample
        .iter()
        .step_by((sample.len() / SIZING_UNITS).max(1))
        .map(|(_, s)| s)
        .collect();
    cut_for(plan, units, &sample, target_tasks(&starts, units.len()))
}

/// About 256 of `units` spread over them, with their starts and tables (those the kernel takes).
fn sample(plan: &Plan, units: &[usize]) -> Vec<(Table, Start)> {
    let width = plan.board().width();
    let step = (units.len() / 256).max(1);
    units
        .iter()
        .step_by(step)
        .filter_map(|&i| plan.start(&plan.units()[i]))
        .filter_map(|s| Some((task::table_of(&s, width)?, s)))
        .collect()
}

/// The tasks a run of `units` units aims for, from the nodes below `starts`, a sample of their starts: see
/// [`TASK_BALANCE`]. The count stops early on large units: past [`TARGET_TASKS`]'s size, the target is that.
/// A start with more than [`SIZING_BUDGET`] nodes is estimated rather than counted.
fn target_tasks(starts: &[&Start], units: usize) -> f64 {
    target_tasks_within(starts, units, SIZING_BUDGET)
}

/// [`target_tasks`], counting at most `sizing_budget` nodes below a start.
fn target_tasks_within(starts: &[&Start], units: usize, sizing_budget: u64) -> f64 {
    if starts.is_empty() {
        return TARGET_TASKS as f64;
    }
    // The run's nodes from which the target is TARGET_TASKS; a unit twice the mean of such a run is counted
    // no further.
    let balance = task_balance();
    let large = (TARGET_TASKS as f64).powi(2) / balance;
    let enough = (2.0 * large / units.max(1) as f64).ceil() as u64;
    let budget = enough.min(sizing_budget);
    let nodes: f64 = starts
        .par_iter()
        .enumerate()
        .map(|(i, s)| match task::nodes_below(s, budget) {
            Some(nodes) => nodes as f64,
            None if budget < enough => {
                let mut random = fastrand::Rng::with_seed(i as u64);
                estimate::nodes_below(s, SIZING_DESCENTS, &mut random).max(budget as f64)
            }
            None => budget as f64,
        })
        .sum();
    let run = nodes * units as f64 / starts.len() as f64;
    (run * balance).sqrt().min(TARGET_TASKS as f64)
}

/// [`cut`] with its target and sample given.
fn cut_for(plan: &Plan, units: &[usize], sample: &[(Table, Start)], target: f64) -> Cut {
    let width = plan.board().width();
    if sample.is_empty() {
        return Cut {
            extra_rows: 0,
            tasks: units.len() as f64,
            tail_rows: 1,
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
    // The most tasks a unit of the sample has.
    let mut largest = 1.0;
    for depth in 0..=MAX_EXTRA_ROWS {
        let estimate = if sampled <= SAMPLE_TASKS {
            let each: Vec<usize> = sample
                .par_iter()
                .map(|(table, start)| task::tasks_at(start, table, width, depth))
                .collect();
            sampled = each.iter().sum();
            largest = each.iter().copied().max().unwrap_or(0) as f64;
            let estimate = sampled as f64 * scale;
            if previous > 0.0 {
                growth = estimate / previous;
            }
            estimate
        } else {
            // The sample is too large to enumerate again: each row multiplies the tasks as the last did.
            largest *= growth;
            previous * growth
        };
        // Past the rows that can be searched the tasks fall away: go no deeper. (As many tasks as a row
        // before is a row with one square open, a border queen's: the rows below it still multiply them.)
        if depth > 0 && estimate < previous {
            return Cut {
                extra_rows: depth - 1,
                tasks: previous,
                tail_rows: depth,
            };
        }
        // Past UNIT_TASKS a unit is too large for a batch: go no deeper, not even for the last batches.
        let within_a_batch = |largest: f64| largest <= UNIT_TASKS as f64;
        if depth > 0 && !within_a_batch(largest) {
            return Cut {
                extra_rows: depth - 1,
                tasks: previous,
                tail_rows: depth - 1,
            };
        }
        if estimate >= target && depth >= deep_enough {
            // A smaller run takes the depth nearer its target, a row less if need be: its tasks multiply by
            // several a row, and its target weighs the tail against the cut. A large one takes at least
            // TARGET_TASKS, as measured.
            let nearer = target / previous < estimate / target;
            if target < TARGET_TASKS as f64 && depth > deep_enough && nearer {
                return Cut {
                    extra_rows: depth - 1,
                    tasks: previous,
                    tail_rows: depth,
                };
            }
            // A row deeper, the largest unit's tasks would multiply as the run's did in this row.
            let deeper = if within_a_batch(largest * growth) {
                depth + 1
            } else {
                depth
            };
            return Cut {
                extra_rows: depth,
                tasks: estimate,
                tail_rows: deeper.min(MAX_EXTRA_ROWS),
            };
        }
        previous = estimate;
    }
    Cut {
        extra_rows: MAX_EXTRA_ROWS,
        tasks: previous,
        tail_rows: MAX_EXTRA_ROWS,
    }
}

/// The units of a run cut into batches, in order: at least [`BATCHES`] for each of `devices`, and small enough
/// that each holds about [`BATCH_TASKS`] tasks at most, given `cut`'s estimate.
pub fn batches(units: &[usize], cut: Cut, devices: usize) -> impl Iterator<Item = &[usize]> {
    let even = units.len().div_ceil(batches_at_least() * devices.max(1));
    let by_tasks = (units.len() as f64 * BATCH_TASKS as f64 / cut.tasks.max(1.0)) as usize;
    units.chunks(even.min(by_tasks).max(1))
}

/// `chunks` of a run with the rows `cut` places below their units, the last one for each of `devices` (the
/// batches that end the run) cut a row deeper, in [`TAIL_PIECES`] batches of a part of it each: the last
/// tasks to start are then the smallest (with [`prepare`]'s order, largest first in each batch), so that the
/// GPUs end together. By the tasks' sizes counted on the host (`examples/gpu_cut.rs`, n = 19 with 101,376
/// threads), the last thread to end does so 27.8% after a perfect share with the tasks in the order cut,
/// 18.0% with each batch's largest first, and 3.2% with the last batch cut a row deeper in four too
/// (results/gpu.md; a model in which every node takes the same time, which overstates the tail).
pub fn tail_deeper(chunks: Vec<&[usize]>, cut: Cut, devices: usize) -> Vec<(&[usize], u32)> {
    let tail = chunks.len().saturating_sub(devices.max(1));
    let deeper = cut.tail_rows;
    chunks
        .iter()
        .enumerate()
        .flat_map(|(i, &chunk)| {
            if i >= tail && deeper > cut.extra_rows {
                chunk
                    .chunks(chunk.len().div_ceil(TAIL_PIECES).max(1))
                    .map(|piece| (piece, deeper))
                    .collect()
            } else {
                vec![(chunk, cut.extra_rows)]
            }
        })
        .collect()
}

/// The count of each unit of `batch`, from the device's per-slot tallies `device`; a unit whose tally the
/// device could not vouch for (`None`, for its slot or one of its parts') is counted again by the CPU kernel.
/// Where the device leaves the nodes uncounted (`counts_nodes` false), so are those of the units it counted
/// (but for the units fixed by a symmetry, which report no nodes on any backend: [`BurnsideParts::count`]).
pub fn finish(
    plan: &Plan,
    batch: &Batch,
    device: &[Option<Tally>],
    counts_nodes: bool,
) -> Vec<(usize, Count)> {
    let mut whole = batch.whole.iter().peekable();
    let mut burnside = batch.burnside.iter().peekable();
    let tally = |slot: usize| {
        device[slot].map(|d| Tally {
            solutions: batch.host[slot].solutions + d.solutions,
            nodes: batch.host[slot].nodes + d.nodes,
        })
    };
    (0..batch.units.len())
        .map(|slot| {
            let unit = &plan.units()[batch.units[slot]];
            if let Some(&&(s, count)) = whole.peek() {
                if s == slot {
                    whole.next();
                    return (batch.units[slot], count);
                }
            }
            if let Some(&b) = burnside.peek() {
                if b.slot == slot {
                    burnside.next();
                    let solutions: Option<u128> = b
                        .parts
                        .clone()
                        .map(|part| tally(part).map(|t| u128::from(t.solutions)))
                        .sum();
                    let count = match solutions {
                        Some(solutions) => b.weight.count(solutions),
                        None => plan.count_unit(unit),
                    };
                    return (batch.units[slot], count);
                }
            }
            let count = match tally(slot) {
                Some(tally) if counts_nodes => plan.weigh(unit, tally),
                Some(tally) => plan.weigh(unit, tally).without_nodes(),
                None => plan.count_unit(unit),
            };
            (batch.units[slot], count)
        })
        .collect()
}

/// What counts batches for [`dispatch`]: a GPU, or in the tests the host. One host thread drives each.
pub trait Device {
    /// Its name, for reports.
    fn name(&self) -> String;
    /// The batches it keeps in flight at most.
    fn depth(&self) -> usize;
    /// Starts counting `batch`; returns once it is under way.
    fn submit(&mut self, batch: Batch) -> Result<(), Error>;
    /// Waits for the oldest batch under way: returns it with each of its slots' tallies, `None` for a slot
    /// whose tally the device cannot vouch for (the host then counts that unit itself).
    fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error>;
    /// Seconds from its first kernel's start to its last one's end, once all are collected.
    fn kernel_seconds(&mut self) -> Result<f64, Error> {
        Ok(0.0)
    }
    /// Whether its tallies count the nodes; a device whose kernel leaves them uncounted
    /// ([`leave_nodes_uncounted`]) says no, and its units' counts say so.
    fn counts_nodes(&self) -> bool {
        true
    }
}

/// The batches of `chunk`'s size (its cut) that fit in [`EARLY_TASKS`]: one at least.
fn early_most(chunk: Cut) -> usize {
    ((EARLY_TASKS as f64 / chunk.tasks.max(1.0)) as usize).max(1)
}

/// Runs `open` on a thread of its own and meanwhile `cut` batches, while it has not returned: at least one
/// (if any is left), at most `most`. Returns what `open` gave, and the batches in order.
fn while_opening<D: Send, B>(
    open: impl FnOnce() -> D + Send,
    mut cut: impl FnMut() -> Option<B>,
    most: usize,
) -> (D, VecDeque<B>) {
    std::thread::scope(|scope| {
        let opening = scope.spawn(open);
        let mut ahead = VecDeque::new();
        while ahead.is_empty() || (ahead.len() < most && !opening.is_finished()) {
            let Some(batch) = cut() else { break };
            ahead.push_back(batch);
        }
        let opened = opening
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (opened, ahead)
    })
}

/// Gives `body` the batches `cut` makes, in order, cut on a thread of its own while `body` works: ahead of
/// `body` by `budget` tasks (by `size`) at most, and by one batch at least. So a GPU's host thread copies a
/// batch to its GPU, waits for a result, or waits for the GPU to open, while the next batches are cut, rather
/// than one after the other: at n = 19 on an H200, the thread spent 0.17 s cutting and about 0.1 s copying,
/// one after the other, while the kernels needed 0.145 s (results/gpu.md). Once `body` has returned (or
/// unwound) no batch is begun; one being cut then is dropped.
fn cut_ahead<B: Send, R>(
    budget: usize,
    size: impl Fn(&B) -> usize + Sync,
    mut cut: impl FnMut() -> Option<B> + Send,
    body: impl FnOnce(&mut dyn Iterator<Item = B>) -> R,
) -> R {
    let ahead = Ahead {
        state: Mutex::new(AheadState {
            batches: VecDeque::new(),
            tasks: 0,
            cut_all: false,
            stopped: false,
        }),
        changed: std::sync::Condvar::new(),
    };
    std::thread::scope(|scope| {
        let (ahead, size) = (&ahead, &size);
        scope.spawn(move || {
            // However the cutter ends (its last batch cut, or a panic in `cut`), `body` is told: it would wait
            // for it without end otherwise.
            let _told = Told(ahead);
            loop {
                {
                    let mut state = ahead.lock();
                    while !state.stopped && !state.batches.is_empty() && state.tasks >= budget {
                        state = ahead.wait(state);
                    }
                    if state.stopped {
                        return;
                    }
                }
                let Some(batch) = cut() else { return };
                let mut state = ahead.lock();
                state.tasks += size(&batch);
                state.batches.push_back(batch);
                ahead.changed.notify_all();
            }
        });
        // Dropped as `body` returns or unwinds, before the scope waits for the cutter: it stops the cutter.
        let mut taker = Taker { ahead, size };
        body(&mut taker)
    })
}

/// The batches [`cut_ahead`]'s cutter has cut and its body not yet taken.
struct Ahead<B> {
    state: Mutex<AheadState<B>>,
    changed: std::sync::Condvar,
}

struct AheadState<B> {
    batches: VecDeque<B>,
    /// Their tasks.
    tasks: usize,
    /// Whether the cutter has ended.
    cut_all: bool,
    /// Whether the body has.
    stopped: bool,
}

impl<B> Ahead<B> {
    fn lock(&self) -> std::sync::MutexGuard<'_, AheadState<B>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(
        &self,
        state: std::sync::MutexGuard<'a, AheadState<B>>,
    ) -> std::sync::MutexGuard<'a, AheadState<B>> {
        self.changed.wait(state).unwrap_or_else(|e| e.into_inner())
    }
}

/// Tells [`cut_ahead`]'s body that its cutter has ended, when dropped.
struct Told<'a, B>(&'a Ahead<B>);

impl<B> Drop for Told<'_, B> {
    fn drop(&mut self) {
        self.0.lock().cut_all = true;
        self.0.changed.notify_all();
    }
}

/// [`cut_ahead`]'s body's batches: each as soon as it is cut. Stops the cutter when dropped.
struct Taker<'a, B, S> {
    ahead: &'a Ahead<B>,
    size: &'a S,
}

impl<B, S: Fn(&B) -> usize> Iterator for Taker<'_, B, S> {
    type Item = B;

    fn next(&mut self) -> Option<B> {
        let mut state = self.ahead.lock();
        loop {
            if let Some(batch) = state.batches.pop_front() {
                state.tasks -= (self.size)(&batch);
                self.ahead.changed.notify_all();
                return Some(batch);
            }
            if state.cut_all {
                return None;
            }
            state = self.ahead.wait(state);
        }
    }
}

impl<B, S> Drop for Taker<'_, B, S> {
    fn drop(&mut self) {
        self.ahead.lock().stopped = true;
        self.ahead.changed.notify_all();
    }
}

/// Counts `units` of `plan` on one device of each of the GPUs `ordinals` names (the driver's numbers, opened
/// by `open`, each on a host thread of its own), until they are done or `stop` is set, reporting each finished
/// unit to `progress`. The devices take the plan's batches in order, each the next one left when it has room,
/// so a faster device takes more. The count covers exactly the units reported; on an error, the devices stop
/// taking batches, and the first error is returned.
///
/// `ordinals` is called on a thread of its own while the host cuts the first batches: finding the GPUs starts
/// the driver, which in a small run takes longer than cutting all of it.
pub fn dispatch<D: Device + Send>(
    plan: &Plan,
    units: &[usize],
    ordinals: &(dyn Fn() -> Result<Vec<usize>, Error> + Sync),
    open: &(dyn Fn(usize) -> Result<D, Error> + Sync),
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<(Count, GpuRun), Error> {
    progress.start(Run {
        plan,
        units: Some(units),
    });
    let began = std::time::Instant::now();
    let since = move || began.elapsed().as_secs_f64();
    let failed = AtomicBool::new(false);
    let going = || !stop.load(Ordering::Relaxed) && !failed.load(Ordering::Relaxed);
    let cut = cut(plan, units);
    if verbose() {
        let _ = writeln!(
            std::io::stderr(),
            "gpu: cut planned at {:.3} s: {} rows below the units, about {:.0} tasks",
            since(),
            cut.extra_rows,
            cut.tasks
        );
    }
    // The first batches, cut while the driver finds the GPUs; as small as for EARLY_DEVICES GPUs, so that
    // several can share them.
    let early: Vec<&[usize]> = batches(units, cut, EARLY_DEVICES).collect();
    let mut taken = 0;
    let early_from = since();
    let most = early_most(cut.part(early.first().map_or(0, |c| c.len()), units.len()));
    let (ordinals, early_batches) = while_opening(
        ordinals,
        || {
            let chunk = early.get(taken).filter(|_| going())?;
            taken += 1;
            Some(prepare(plan, chunk, cut.extra_rows))
        },
        most,
    );
    let ordinals = ordinals?;
    if ordinals.is_empty() {
        return Err(Error::Gpu("no GPU to count on".into()));
    }
    let early_cutting = since() - early_from;
    if verbose() {
        let _ = writeln!(
            std::io::stderr(),
            "gpu: {} GPUs found by {:.3} s, {} batches cut by then ({early_cutting:.3} s)",
            ordinals.len(),
            since(),
            early_batches.len()
        );
    }
    let cut_early = early_batches.len();
    let early_batches = Mutex::new(early_batches);
    // The rest of the units, in batches for the GPUs found.
    let covered: usize = early[..taken].iter().map(|c| c.len()).sum();
    let rest = &units[covered..];
    let chunks = tail_deeper(
        batches(rest, cut.part(rest.len(), units.len()), ordinals.len()).collect(),
        cut,
        ordinals.len(),
    );
    let next = AtomicUsize::new(0);
    // A device's next batch: one cut early, else the next chunk, cut here (`cutting` adds the seconds).
    let take = |cutting: &mut f64| -> Option<Batch> {
        if !going() {
            return None;
        }
        if let Some(batch) = early_batches
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front()
        {
            return Some(batch);
        }
        let &(chunk, rows) = chunks.get(next.fetch_add(1, Ordering::Relaxed))?;
        let cut_from = since();
        let batch = prepare(plan, chunk, rows);
        *cutting += since() - cut_from;
        Some(batch)
    };
    // Each device's thread: what it counted, and its part of the report (its name, kernel time, tasks, and
    // batches cut while it opened).
    let drive = |ordinal: usize| -> Result<(Count, GpuRun), Error> {
        // Seconds: cutting batches on the host, waiting for them, waiting for the device's results; and when
        // the device opened, the batches in hand then, and when the first was sent.
        let (mut cutting, mut waiting_for_cut, mut waiting) = (0.0, 0.0, 0.0);
        let (mut opened, mut ahead, mut first) = (0.0, 0, None);
        let mut sum = Count::default();
        let mut tasks = 0u64;
        // Alone, a GPU takes the early batches (cut small, for several) as a few, merged while it opens (see
        // `merge`; after it opened, their merge held back n = 17's first batch by 0.06 s of its 0.47 s,
        // results/gpu.md). Taken here, before its cutter starts, which would take them one by one.
        let alone = ordinals.len() == 1;
        let early = if alone {
            std::mem::take(&mut *early_batches.lock().unwrap_or_else(|e| e.into_inner()))
        } else {
            VecDeque::new()
        };
        // The device's batches are cut on a thread of their own from now on, while it opens too (its context
        // may still be in the making: `open_ahead`, on a thread of its own): up to CUT_AHEAD_TASKS ahead of a
        // lone GPU, one batch ahead of each of several, so that a batch cut for one is not held from a faster
        // one at the run's end. (A batch counts as one task at least, so that batches of units all counted on
        // the host are not cut ahead without bound.)
        let mut device = cut_ahead(
            if alone { CUT_AHEAD_TASKS } else { 1 },
            |batch: &Batch| batch.tasks.len().max(1),
            || take(&mut cutting),
            |batches_cut| -> Result<D, Error> {
                let (device, mut pending) = std::thread::scope(|scope| {
                    let opening = scope.spawn(|| open(ordinal));
                    let merged = coalesce(early, first_batch_tasks(), BATCH_TASKS);
                    let device = opening
                        .join()
                        .unwrap_or_else(|p| std::panic::resume_unwind(p));
                    (device, merged)
                });
                let mut device = device?;
                let counts_nodes = device.counts_nodes();
                opened = since();
                ahead = pending.len();
                let mut report = |batch: Batch, tallies: Vec<Option<Tally>>| {
                    for (index, count) in finish(plan, &batch, &tallies, counts_nodes) {
                        progress.unit_done(&plan.units()[index], &count);
                        sum += count;
                    }
                };
                let mut in_flight = 0usize;
                // A stop (or another device's error) leaves the batches in hand and cut ahead uncounted.
                while going() {
                    let batch = match pending.pop_front() {
                        Some(batch) => batch,
                        None => {
                            let wait_from = since();
                            let next = batches_cut.next();
                            waiting_for_cut += since() - wait_from;
                            match next {
                                Some(batch) => batch,
                                None => break,
                            }
                        }
                    };
                    tasks += batch.tasks.len() as u64;
                    device.submit(batch)?;
                    first.get_or_insert_with(&since);
                    in_flight += 1;
                    if in_flight >= device.depth().max(1) {
                        let wait_from = since();
                        let (batch, tallies) = device.collect()?;
                        waiting += since() - wait_from;
                        in_flight -= 1;
                        report(batch, tallies);
                    }
                }
                let wait_from = since();
                for _ in 0..in_flight {
                    let (batch, tallies) = device.collect()?;
                    report(batch, tallies);
                }
                waiting += since() - wait_from;
                Ok(device)
            },
        )?;
        let kernel = device.kernel_seconds()?;
        let done = since();
        let name = device.name();
        drop(device);
        if verbose() {
            let _ = writeln!(std::io::stderr(),
                "gpu {ordinal}: opened at {opened:.3} s ({ahead} batches merged by then), first batch sent at \
                 {:.3} s; {cutting:.3} s cutting {tasks} tasks (on a thread of its own), {waiting_for_cut:.3} s \
                 waiting for them, {waiting:.3} s waiting for results, {kernel:.3} s of \
                 kernels; done at {done:.3} s, closed at {:.3} s",
                first.unwrap_or(0.0),
                since()
            );
        }
        Ok((
            sum,
            GpuRun {
                device: name,
                kernel_seconds: kernel,
                tasks,
                extra_rows: cut.extra_rows,
                cut_ahead: 0,
            },
        ))
    };
    let results: Vec<Result<(Count, GpuRun), Error>> = std::thread::scope(|scope| {
        let handles: Vec<_> = ordinals
            .iter()
            .map(|&ordinal| {
                let drive = &drive;
                let failed = &failed;
                scope.spawn(move || {
                    let result = drive(ordinal);
                    if result.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    result
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    // The run's buffers of tasks are not needed any more.
    drop_spares();
    if verbose() {
        let _ = writeln!(
            std::io::stderr(),
            "gpu: the buffers of tasks freed at {:.3} s",
            since()
        );
    }
    let mut sum = Count::default();
    let mut run = GpuRun {
        extra_rows: cut.extra_rows,
        cut_ahead: cut_early,
        ..GpuRun::default()
    };
    let mut names = Vec::new();
    for result in results {
        let (count, device) = result?;
        sum += count;
        run.tasks += device.tasks;
        run.kernel_seconds = run.kernel_seconds.max(device.kernel_seconds);
        names.push(device.device);
    }
    run.device = names.join(", ");
    Ok((sum, run))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Board;
    use crate::engine::exec;
    use crate::engine::plan::WorkUnit;
    use crate::engine::symmetry::Symmetry;
    use std::sync::{Arc, Barrier};

    /// The batches the host devices counted: which device (in the order opened), the batch's units, its tasks
    /// and how many batches the device held at once, this one included.
    type Batches = Vec<(usize, Vec<usize>, usize, usize)>;
    type Counted = Arc<Mutex<Batches>>;

    /// A device that counts each task on the host with the plain search the kernel mirrors. Devices opened
    /// for one run may wait for each other at their first batch, so that each is sure to count one.
    struct HostDevice {
        ordinal: usize,
        /// Which of the run's devices this is, in the order they were opened.
        opened: usize,
        /// Whether it gives up every third slot's tally.
        doubtful: bool,
        queue: VecDeque<Batch>,
        meet: Option<Arc<Barrier>>,
        batches: Counted,
    }

    impl HostDevice {
        /// A device alone in its run, vouching for every slot, recording its batches in `batches`.
        fn plain(ordinal: usize, batches: Counted) -> HostDevice {
            HostDevice {
                ordinal,
                opened: 0,
                doubtful: false,
                queue: VecDeque::new(),
                meet: None,
                batches,
            }
        }
    }

    impl Device for HostDevice {
        fn name(&self) -> String {
            format!("host {}", self.ordinal)
        }
        fn depth(&self) -> usize {
            2
        }
        fn submit(&mut self, batch: Batch) -> Result<(), Error> {
            if let Some(meet) = self.meet.take() {
                meet.wait();
            }
            self.queue.push_back(batch);
            Ok(())
        }
        fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
            let batch = self.queue.pop_front().expect("a batch under way");
            let tallies = tallies_of(&batch);
            self.batches.lock().unwrap().push((
                self.opened,
                batch.units.clone(),
                batch.tasks.len(),
                self.queue.len() + 1,
            ));
            // A device that cannot vouch for every third slot: the host counts those units again.
            let tallies = tallies
                .into_iter()
                .enumerate()
                .map(|(slot, t)| (!self.doubtful || slot % 3 != 0).then_some(t))
                .collect();
            Ok((batch, tallies))
        }
    }

    /// A host device whose kernel leaves the nodes uncounted, as `--uncounted-nodes` builds the GPU's.
    struct Uncounted(HostDevice);

    impl Device for Uncounted {
        fn name(&self) -> String {
            self.0.name()
        }
        fn depth(&self) -> usize {
            self.0.depth()
        }
        fn submit(&mut self, batch: Batch) -> Result<(), Error> {
            self.0.submit(batch)
        }
        fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
            // The kernel reports no node; the host's part of a unit still counts its own.
            let (batch, tallies) = self.0.collect()?;
            let tallies = tallies
                .into_iter()
                .map(|t| t.map(|t| Tally { nodes: 0, ..t }))
                .collect();
            Ok((batch, tallies))
        }
        fn counts_nodes(&self) -> bool {
            false
        }
    }

    #[test]
    fn a_device_that_leaves_the_nodes_uncounted_gives_the_same_solutions_and_says_whose_nodes_it_left(
    ) {
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let seen = Seen::default();
        let (sum, _) = dispatch(
            &plan,
            &all,
            &|| Ok(vec![0]),
            &|ordinal| Ok(Uncounted(HostDevice::plain(ordinal, Counted::default()))),
            &AtomicBool::new(false),
            &seen,
        )
        .expect("the host device counts");
        let cpu = exec::run_serial(&plan, &exec::NoProgress);
        assert_eq!(
            (sum.total, sum.unique, sum.units),
            (cpu.total, cpu.unique, cpu.units)
        );
        assert_eq!(sum.nodes(), None);
        // Each unit the device counted is its CPU count without the nodes; the units the host counted whole,
        // and those fixed by a symmetry (which report no nodes anywhere), are as the CPU counts them.
        let mut left = 0;
        for (index, count) in seen.0.into_inner().unwrap() {
            let expected = plan.count_unit(&plan.units()[index]);
            if count.uncounted == 1 {
                assert_eq!(count, expected.without_nodes(), "unit {index}");
                left += 1;
            } else {
                assert_eq!(count, expected, "unit {index}");
            }
        }
        assert_eq!(left, sum.uncounted);
        assert!(
            0 < left && left < sum.units,
            "{left} of {} units",
            sum.units
        );
    }

    /// Records each unit's count as it is reported.
    #[derive(Default)]
    struct Seen(Mutex<Vec<(usize, Count)>>);

    impl Progress for Seen {
        fn unit_done(&self, unit: &WorkUnit, count: &Count) {
            self.0.lock().unwrap().push((unit.index, *count));
        }
    }

    /// Runs `plan` through [`dispatch`] on host devices numbered `ordinals` (`doubtful` ones, if asked): the
    /// units reported, sorted, and the batches each device counted.
    fn run_on_host(
        plan: &Plan,
        ordinals: &[usize],
        doubtful: bool,
    ) -> (Vec<(usize, Count)>, Count, Batches) {
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let meet = Arc::new(Barrier::new(ordinals.len()));
        let enough = batches(&all, cut(plan, &all), ordinals.len()).count() >= ordinals.len();
        let batches = Arc::new(Mutex::new(Vec::new()));
        let opened = AtomicUsize::new(0);
        let open = |ordinal| {
            Ok(HostDevice {
                ordinal,
                opened: opened.fetch_add(1, Ordering::Relaxed),
                doubtful,
                queue: VecDeque::new(),
                meet: enough.then(|| meet.clone()),
                batches: batches.clone(),
            })
        };
        let seen = Seen::default();
        let (sum, run) = dispatch(
            plan,
            &all,
            &|| Ok(ordinals.to_vec()),
            &open,
            &AtomicBool::new(false),
            &seen,
        )
        .expect("the host devices count");
        assert_eq!(run.device.split(", ").count(), ordinals.len());
        // The report says how deep the units were cut, and how many tasks the devices counted.
        assert_eq!(run.extra_rows, cut(plan, &all).extra_rows);
        let mut seen = seen.0.into_inner().unwrap();
        seen.sort_by_key(|&(i, _)| i);
        let batches = batches.lock().unwrap().clone();
        assert_eq!(run.tasks, batches.iter().map(|b| b.2 as u64).sum::<u64>());
        // A device is given as many batches as it keeps in flight (2) before it is asked for one back.
        if batches.len() > ordinals.len() {
            assert!(batches.iter().any(|b| b.3 == 2), "{batches:?}");
        }
        assert!(batches.iter().all(|b| b.3 <= 2), "{batches:?}");
        (seen, sum, batches)
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
            // A device that vouches for every unit, and one that leaves a third of them to the host.
            for doubtful in [false, true] {
                let (counts, sum, _) = run_on_host(&plan, &[0], doubtful);
                assert_eq!(counts.len(), plan.units().len());
                for (index, count) in counts {
                    assert_eq!(
                        count,
                        plan.count_unit(&plan.units()[index]),
                        "{board} {symmetry:?} unit {index}"
                    );
                }
                assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
            }
        }
    }

    /// n = 12's plan (two rows deep), its units, and its units in `pieces` batches cut a row below them.
    fn n12_in_batches(pieces: usize) -> (Plan, Vec<usize>, VecDeque<Batch>) {
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let batches = all
            .chunks(all.len().div_ceil(pieces))
            .map(|c| prepare(&plan, c, 1))
            .collect();
        (plan, all, batches)
    }

    #[test]
    fn batches_coalesce_in_order_up_to_the_most_tasks() {
        let (plan, all, batches) = n12_in_batches(6);
        let sizes: Vec<usize> = batches.iter().map(|b| b.tasks.len()).collect();
        assert!(sizes.iter().all(|&t| t > 1), "{sizes:?}");
        // The first two fit exactly, the third does not.
        let most = sizes[0] + sizes[1];
        assert!(most < sizes[0] + sizes[1] + sizes[2]);
        let merged = coalesce(batches, most, most);
        let merged_sizes: Vec<usize> = merged.iter().map(|b| b.tasks.len()).collect();
        assert_eq!(merged_sizes[0], most, "{sizes:?} into {merged_sizes:?}");
        assert!(
            merged.len() > 1 && merged.len() < sizes.len(),
            "{merged_sizes:?}"
        );
        assert!(
            merged_sizes.iter().all(|&t| t > 0 && t <= most),
            "{merged_sizes:?}"
        );
        assert_eq!(
            merged_sizes.iter().sum::<usize>(),
            sizes.iter().sum::<usize>()
        );
        let units: Vec<usize> = merged.iter().flat_map(|b| b.units.clone()).collect();
        assert_eq!(units, all);
        // A batch larger than the most goes alone, not after an empty one.
        let one: VecDeque<Batch> = [prepare(&plan, &all, 1)].into();
        let alone = coalesce(one, 1, 1);
        assert_eq!(alone.len(), 1);
        assert_eq!(alone[0].units, all);
    }

    #[test]
    fn merged_batches_grow_from_the_first_size_to_the_most() {
        // Each merged batch takes as many of the batches, in order, as its size allows: the first's, twice it,
        // four times it, which is the most, and the most from then on.
        let (_, _, batches) = n12_in_batches(40);
        let sizes: Vec<usize> = batches.iter().map(|b| b.tasks.len()).collect();
        let units: Vec<Vec<usize>> = batches.iter().map(|b| b.units.clone()).collect();
        let first = sizes[0] + sizes[1];
        let most = 4 * first;
        let merged = coalesce(batches, first, most);
        assert!(merged.len() >= 5, "{sizes:?} into {} batches", merged.len());
        let mut at = 0;
        for (i, batch) in merged.iter().enumerate() {
            let size = [first, 2 * first, most][i.min(2)];
            let (mut tasks, mut end) = (sizes[at], at + 1);
            while end < sizes.len() && tasks + sizes[end] <= size {
                tasks += sizes[end];
                end += 1;
            }
            assert_eq!(batch.tasks.len(), tasks, "batch {i} of {sizes:?}");
            assert_eq!(batch.units, units[at..end].concat(), "batch {i}");
            at = end;
        }
        assert_eq!(at, sizes.len());
    }

    #[test]
    fn a_lone_gpu_takes_the_early_batches_as_one() {
        // The first batches are cut for several GPUs while the driver finds them (here it takes 500 ms, so
        // all of them are cut by then): one GPU alone takes them as one batch, and counts every unit.
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let cut = cut(&plan, &all);
        let early = batches(&all, cut, EARLY_DEVICES).count();
        assert!(early >= 4, "{early}");
        let recorded: Counted = Arc::new(Mutex::new(Vec::new()));
        let slow_driver = || {
            std::thread::sleep(std::time::Duration::from_millis(500));
            Ok(vec![0])
        };
        let (sum, _) = dispatch(
            &plan,
            &all,
            &slow_driver,
            &|ordinal| Ok(HostDevice::plain(ordinal, recorded.clone())),
            &AtomicBool::new(false),
            &exec::NoProgress,
        )
        .expect("the host device counts");
        assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
        let counted = recorded.lock().unwrap();
        let sizes: Vec<usize> = counted.iter().map(|b| b.1.len()).collect();
        assert!(
            counted.len() < early,
            "{} batches of {sizes:?} units",
            counted.len()
        );
        let first_early = batches(&all, cut, EARLY_DEVICES).next().unwrap().len();
        assert!(
            sizes[0] > first_early,
            "{sizes:?}: the first early batch had {first_early}"
        );
        // Its first batch is the early ones merged, all of them (the driver gave them time to be cut).
        let early_chunks: Vec<&[usize]> = batches(&all, cut, EARLY_DEVICES).collect();
        let most = early_most(cut.part(early_chunks[0].len(), all.len()));
        let covered: usize = early_chunks.iter().take(most).map(|c| c.len()).sum();
        assert_eq!(counted[0].1, (0..covered).collect::<Vec<_>>());
    }

    #[test]
    fn a_lone_gpu_merges_the_early_batches_while_it_opens_and_counts_them_first() {
        // The driver finds the GPU at once (so few early batches are cut, and the run has more to cut); the
        // GPU takes 200 ms to open, while its cutter cuts the next batches. Its first batch is the early ones
        // merged, from the run's first unit: had the cutter taken an early batch, it would have come later.
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let recorded: Counted = Arc::new(Mutex::new(Vec::new()));
        let slow_open = |ordinal| {
            std::thread::sleep(std::time::Duration::from_millis(200));
            Ok(HostDevice::plain(ordinal, recorded.clone()))
        };
        let (sum, _) = dispatch(
            &plan,
            &all,
            &|| Ok(vec![0]),
            &slow_open,
            &AtomicBool::new(false),
            &exec::NoProgress,
        )
        .expect("the host device counts");
        assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
        let counted = recorded.lock().unwrap();
        assert!(counted.len() > 1, "the run had more than its early batches");
        let first = &counted[0].1;
        assert_eq!(*first, (0..first.len()).collect::<Vec<_>>());
    }

    /// Each slot's tally of `batch`, counted on the host as the kernel would.
    fn tallies_of(batch: &Batch) -> Vec<Tally> {
        let mut tallies = vec![Tally::default(); batch.slots()];
        for t in &batch.tasks {
            let slot = t.slot() as usize;
            let tally = task::count_task(t, &batch.tables[slot]);
            tallies[slot].solutions += tally.solutions;
            tallies[slot].nodes += tally.nodes;
        }
        tallies
    }

    #[test]
    fn batches_merged_count_every_unit_as_the_plan_does() {
        // Every unit of n = 12 in three batches: units with tasks, units fixed by a symmetry (counted from
        // their parts' slots, after all the units'), and units counted whole on the host.
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let thirds: Vec<&[usize]> = all.chunks(all.len().div_ceil(3)).collect();
        let batches: Vec<Batch> = thirds.iter().map(|c| prepare(&plan, c, 1)).collect();
        assert!(batches.iter().any(|b| !b.burnside.is_empty()));
        assert!(batches.iter().any(|b| b.slots() > b.units.len()));
        let tasks: usize = batches.iter().map(|b| b.tasks.len()).sum();
        let slots: usize = batches.iter().map(Batch::slots).sum();
        let levels = batches.iter().map(|b| b.levels).max();
        let merged = merge(batches);
        assert_eq!(merged.units, all);
        assert_eq!(merged.tasks.len(), tasks);
        // No slot more than theirs, and the stack its deepest task needs (the kernel's shared memory).
        assert_eq!(merged.slots(), slots);
        assert_eq!(Some(merged.levels), levels);
        let key = |t: &Task| t.size_guess(&merged.tables[t.slot() as usize]);
        assert!(merged.tasks.windows(2).all(|w| key(&w[0]) >= key(&w[1])));
        let device: Vec<Option<Tally>> = tallies_of(&merged).into_iter().map(Some).collect();
        let counted = finish(&plan, &merged, &device, true);
        let expected: Vec<(usize, Count)> = all
            .iter()
            .map(|&i| (i, plan.count_unit(&plan.units()[i])))
            .collect();
        assert_eq!(counted, expected);
    }

    #[test]
    fn a_burnside_unit_is_counted_from_its_parts_on_the_device() {
        // The units fixed by a symmetry: the GPU counts their parts' solutions, the host what each symmetry
        // fixes, and nothing of them is counted whole on the host any more.
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let burnside: Vec<usize> = (0..plan.units().len())
            .filter(|&i| plan.start(&plan.units()[i]).is_none())
            .collect();
        assert!(!burnside.is_empty());
        let batch = prepare(&plan, &burnside, 1);
        assert!(batch.whole.is_empty());
        assert_eq!(batch.burnside.len(), burnside.len());
        assert!(batch.slots() > batch.units.len() && !batch.tasks.is_empty());
        let tallies = tallies_of(&batch);
        let mut device: Vec<Option<Tally>> = tallies.iter().copied().map(Some).collect();
        let expected: Vec<(usize, Count)> = burnside
            .iter()
            .map(|&i| (i, plan.count_unit(&plan.units()[i])))
            .collect();
        assert_eq!(finish(&plan, &batch, &device, true), expected);
        // A part the device cannot vouch for (the one with the most solutions): its unit is counted again on
        // the host, the same.
        let doubtful = (batch.units.len()..batch.slots())
            .max_by_key(|&slot| tallies[slot].solutions)
            .unwrap();
        assert!(tallies[doubtful].solutions > 0);
        device[doubtful] = None;
        assert_eq!(finish(&plan, &batch, &device, true), expected);
    }

    #[test]
    fn two_devices_share_the_batches_and_count_each_unit_once() {
        // One GPU named twice (`--gpus 0,0`) and two GPUs: every unit counted once, by one of them, and both
        // took batches.
        for ordinals in [[0, 0], [0, 1]] {
            let plan = Plan::new(
                Board::new(11).unwrap(),
                Symmetry::Full,
                Split::Auto { threads: 2 },
            );
            let (counts, sum, batches) = run_on_host(&plan, &ordinals, false);
            let units: Vec<usize> = counts.iter().map(|&(i, _)| i).collect();
            assert_eq!(units, (0..plan.units().len()).collect::<Vec<_>>());
            assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
            let mut counted: Vec<usize> =
                batches.iter().flat_map(|(_, u, _, _)| u.clone()).collect();
            counted.sort();
            assert_eq!(counted, units);
            // Each device (told apart by the order they were opened in) counted a batch at least.
            for device in 0..2 {
                assert!(batches.iter().any(|&(d, ..)| d == device), "{batches:?}");
            }
        }
    }

    #[test]
    fn batches_are_cut_while_the_driver_starts() {
        // A driver that takes its time to start finds batches cut, up to the most asked for: this one answers
        // only once the fourth is cut, and no fifth is.
        let most = 4;
        let (sender, receiver) = std::sync::mpsc::channel();
        let mut cut = 0;
        let (opened, ahead) = while_opening(
            move || receiver.recv().unwrap(),
            || {
                cut += 1;
                if cut == most {
                    sender.send("open").unwrap();
                }
                Some(cut)
            },
            most,
        );
        assert_eq!(opened, "open");
        assert_eq!(ahead, (1..=most).collect::<Vec<_>>());
        // One that answers at once finds one at least; with none left to cut, none.
        let (_, ahead) = while_opening(|| (), || Some(()), most);
        assert!((1..=most).contains(&ahead.len()));
        let (_, ahead) = while_opening(|| (), || None::<()>, most);
        assert!(ahead.is_empty());
        // A run whose driver is slow to find the GPUs, and whose device is slow to open, counts as any
        // other, and says how many batches were cut while the driver started.
        let plan = Plan::new(
            Board::new(11).unwrap(),
            Symmetry::Full,
            Split::Auto { threads: 2 },
        );
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let pause = || std::thread::sleep(std::time::Duration::from_millis(100));
        let open = |ordinal| {
            pause();
            Ok(HostDevice::plain(ordinal, Counted::default()))
        };
        let ordinals = || {
            pause();
            Ok(vec![0, 0])
        };
        let seen = Seen::default();
        let (sum, run) = dispatch(
            &plan,
            &all,
            &ordinals,
            &open,
            &AtomicBool::new(false),
            &seen,
        )
        .unwrap();
        assert!(run.cut_ahead >= 1, "{run:?}");
        assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
        let mut seen: Vec<usize> = seen
            .0
            .into_inner()
            .unwrap()
            .iter()
            .map(|&(i, _)| i)
            .collect();
        seen.sort();
        assert_eq!(seen, all);
    }

    #[test]
    fn the_next_batch_is_cut_while_the_device_takes_the_last_one_ahead_at_most() {
        use std::sync::mpsc;
        use std::time::Duration;
        // The cutter says which batch it cut; the body, holding the first batch, hears of the second: cut while
        // the body works (a cut that waited for the body would leave it waiting here for a minute, and fail).
        // Batches of one task each, one task ahead: one batch ahead.
        let (said, heard) = mpsc::channel();
        let mut made = 0;
        let taken = cut_ahead(
            1,
            |_: &u32| 1,
            move || {
                (made < 4).then(|| {
                    made += 1;
                    said.send(made).unwrap();
                    made
                })
            },
            |batches| {
                let first = batches.next();
                assert_eq!(first, Some(1));
                let minute = Duration::from_secs(60);
                assert_eq!(heard.recv_timeout(minute), Ok(1));
                assert_eq!(heard.recv_timeout(minute), Ok(2));
                // One batch ahead at most: the third is cut only once the second is taken.
                assert!(heard.recv_timeout(Duration::from_millis(200)).is_err());
                let mut all = vec![1];
                all.extend(batches);
                assert_eq!(heard.recv_timeout(minute), Ok(3));
                all
            },
        );
        assert_eq!(taken, vec![1, 2, 3, 4]);
        // A body that stops early (a stop, a device's error) stops the cutter, which would otherwise wait for it
        // without end: it begins no batch after the one it may be cutting then. (On a thread of its own, so
        // that a cutter that never stops fails the test rather than hangs it.)
        let (said, heard) = mpsc::channel();
        std::thread::spawn(move || {
            let made = AtomicUsize::new(0);
            let first = cut_ahead(
                1,
                |_| 1,
                || Some(made.fetch_add(1, Ordering::Relaxed)),
                |batches| batches.next(),
            );
            said.send((first, made.load(Ordering::Relaxed))).unwrap();
        });
        let (first, made) = heard.recv_timeout(Duration::from_secs(60)).unwrap();
        assert_eq!(first, Some(0));
        assert!((1..=2).contains(&made), "{made} batches cut");
        // A cut that fails ends the body's batches, and the failure is the caller's, not a wait without end.
        let (said, heard) = mpsc::channel();
        std::thread::spawn(move || {
            let failed = std::panic::catch_unwind(|| {
                cut_ahead(
                    1,
                    |_| 1,
                    || -> Option<u32> { panic!("a cut failed") },
                    |b| b.count(),
                )
            });
            said.send(failed.is_err()).unwrap();
        });
        assert_eq!(heard.recv_timeout(Duration::from_secs(60)), Ok(true));
    }

    #[test]
    fn batches_are_cut_ahead_up_to_the_tasks_asked_for() {
        use std::sync::mpsc;
        use std::time::Duration;
        // Batches of 1, 2, 3 and 4 tasks, 5 ahead at most: the cutter cuts the third (holding 3, fewer than 5),
        // then waits (holding 6); it cuts the fourth once the body has taken enough to leave fewer than 5.
        let (said, heard) = mpsc::channel();
        let mut sizes = 1..=4u32;
        let taken = cut_ahead(
            5,
            |&tasks| tasks as usize,
            move || {
                let next = sizes.next()?;
                said.send(next).unwrap();
                Some(next)
            },
            |batches| {
                let minute = Duration::from_secs(60);
                let quickly = Duration::from_millis(200);
                for cut in 1..=3 {
                    assert_eq!(heard.recv_timeout(minute), Ok(cut));
                }
                assert!(heard.recv_timeout(quickly).is_err());
                // 6 less 1: 5 held, nothing more cut; less 2 more: 3.
                assert_eq!(batches.next(), Some(1));
                assert!(heard.recv_timeout(quickly).is_err());
                assert_eq!(batches.next(), Some(2));
                assert_eq!(heard.recv_timeout(minute), Ok(4));
                batches.collect::<Vec<_>>()
            },
        );
        assert_eq!(taken, vec![3, 4]);
    }

    #[test]
    fn a_failing_device_fails_the_run_and_a_stop_reports_nothing() {
        let plan = Plan::new(
            Board::new(9).unwrap(),
            Symmetry::Full,
            Split::Auto { threads: 2 },
        );
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let open = |_| -> Result<HostDevice, Error> { Err(Error::Gpu("no such GPU".into())) };
        let err = dispatch(
            &plan,
            &all,
            &|| Ok(vec![0, 1]),
            &open,
            &AtomicBool::new(false),
            &exec::NoProgress,
        )
        .unwrap_err();
        assert!(err.to_string().contains("no such GPU"), "{err}");
        // A driver that finds no GPU, or cannot be asked.
        for (ordinals, says) in [
            (Ok(vec![]), "no GPU to count on"),
            (
                Err(Error::Gpu("no CUDA driver found".into())),
                "no CUDA driver",
            ),
        ] {
            let found = Mutex::new(Some(ordinals));
            let err = dispatch(
                &plan,
                &all,
                &|| found.lock().unwrap().take().unwrap(),
                &open,
                &AtomicBool::new(false),
                &exec::NoProgress,
            )
            .unwrap_err();
            assert!(err.to_string().contains(says), "{err}");
        }
        let batches = Arc::new(Mutex::new(Vec::new()));
        let open = |ordinal| Ok(HostDevice::plain(ordinal, batches.clone()));
        let seen = Seen::default();
        let (sum, _) = dispatch(
            &plan,
            &all,
            &|| Ok(vec![0]),
            &open,
            &AtomicBool::new(true),
            &seen,
        )
        .unwrap();
        assert_eq!(sum, Count::default());
        assert!(seen.0.into_inner().unwrap().is_empty());
    }

    #[test]
    fn a_batch_puts_the_tasks_that_look_largest_first() {
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let batch = prepare(&plan, &all, 2);
        let key = |t: &Task| t.size_guess(&batch.tables[t.slot() as usize]);
        assert!(batch.tasks.windows(2).all(|w| key(&w[0]) >= key(&w[1])));
        // Rows left and squares on the first row both vary, so the order is not the one cut.
        assert!(batch.tasks.first().map(key) > batch.tasks.last().map(key));
    }

    #[test]
    fn a_part_of_a_run_has_its_share_of_the_tasks() {
        let cut = Cut {
            extra_rows: 3,
            tasks: 1000.0,
            tail_rows: 4,
        };
        assert_eq!(
            cut.part(250, 1000),
            Cut {
                extra_rows: 3,
                tasks: 250.0,
                tail_rows: 4,
            }
        );
        assert_eq!(cut.part(0, 0).tasks, 0.0);
        // The batches cut while the driver starts hold 2^23 tasks at most, and there is one at least.
        let chunk = |tasks: f64| Cut {
            extra_rows: 3,
            tasks,
            tail_rows: 4,
        };
        assert_eq!(early_most(chunk(EARLY_TASKS as f64 / 10.0)), 10);
        assert_eq!(early_most(chunk(EARLY_TASKS as f64 / 2.5)), 2);
        assert_eq!(early_most(chunk(EARLY_TASKS as f64 * 3.0)), 1);
        assert_eq!(early_most(chunk(0.0)), EARLY_TASKS);
    }

    #[test]
    fn the_last_batch_of_each_gpu_is_cut_a_row_deeper_in_pieces() {
        let units: Vec<usize> = (0..100).collect();
        let chunks: Vec<&[usize]> = units.chunks(10).collect();
        let cut = Cut {
            extra_rows: 3,
            tasks: 1e6,
            tail_rows: 4,
        };
        for devices in [1, 2] {
            let batches = tail_deeper(chunks.clone(), cut, devices);
            // Every unit once, in order.
            let covered: Vec<usize> = batches
                .iter()
                .flat_map(|(c, _)| c.iter().copied())
                .collect();
            assert_eq!(covered, units);
            // The first chunks as they were, then the last `devices` in TAIL_PIECES pieces, a row deeper.
            let kept = 10 - devices;
            assert!(batches[..kept]
                .iter()
                .all(|&(c, rows)| c.len() == 10 && rows == 3));
            assert_eq!(batches.len(), kept + devices * TAIL_PIECES.min(10));
            assert!(batches[kept..].iter().all(|&(_, rows)| rows == 4));
        }
        // No deeper than the cut may go; and a run of one batch is all tail.
        let deepest = Cut {
            tail_rows: 3,
            ..cut
        };
        assert_eq!(
            tail_deeper(chunks.clone(), deepest, 1),
            tail_deeper(chunks.clone(), deepest, 2)
        );
        assert!(tail_deeper(chunks.clone(), deepest, 1)
            .iter()
            .zip(&chunks)
            .all(|(&(c, rows), &chunk)| c == chunk && rows == 3));
        let one = tail_deeper(vec![&units[..]], cut, 1);
        assert!(one.len() == TAIL_PIECES && one.iter().all(|&(_, rows)| rows == 4));
    }

    #[test]
    fn gpus_are_read_as_the_command_line_gives_them() {
        assert_eq!(parse_gpus("0"), Ok(vec![0]));
        assert_eq!(parse_gpus("0,0"), Ok(vec![0, 0]));
        assert_eq!(parse_gpus("1, 3"), Ok(vec![1, 3]));
        assert!(parse_gpus("").is_err());
        assert!(parse_gpus("0,x").unwrap_err().contains("'x'"));
        assert!(parse_gpus("-1").is_err());
    }

    #[test]
    fn the_cut_aims_at_the_target_and_stops_where_rows_run_out() {
        let plan = Plan::new(Board::new(8).unwrap(), Symmetry::Full, Split::Depth(1));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        // Eight rows cannot make 2^24 tasks: the cut goes as deep as the rows allow and no further.
        let c = cut_for(&plan, &all, &sample(&plan, &all), TARGET_TASKS as f64);
        assert!(c.extra_rows < MAX_EXTRA_ROWS, "{c:?}");
        let deeper = prepare(&plan, &all, c.extra_rows + 1).tasks.len();
        assert!(deeper <= prepare(&plan, &all, c.extra_rows).tasks.len());
    }

    #[test]
    fn a_small_run_is_cut_into_the_tasks_its_size_asks_for() {
        // n = 17, 2.4 G nodes: about 2 million tasks, one row below the units, where 2^24 made 26.7 million
        // three rows below (results/gpu.md).
        let plan = Plan::new(
            Board::new(17).unwrap(),
            Symmetry::Full,
            Split::Auto { threads: 16 },
        );
        let all: Vec<usize> = (0..plan.units().len()).collect();
        // Against one unit in 16: the sizing's 64 units must give about the same target.
        let starts: Vec<Start> = all
            .iter()
            .step_by(16)
            .filter_map(|&i| plan.start(&plan.units()[i]))
            .collect();
        let sampled = sample(&plan, &all);
        let target = target_tasks(
            &sampled.iter().map(|(_, s)| s).collect::<Vec<_>>(),
            all.len(),
        );
        let every = target_tasks(&starts.iter().collect::<Vec<_>>(), all.len());
        assert!((1.5e6..2.5e6).contains(&every), "{every}");
        assert!(
            (target / every - 1.0).abs() < 0.25,
            "{target} against {every}"
        );
        let c = cut(&plan, &all);
        assert_eq!(c.extra_rows, 1, "{c:?}");
        assert!((2e6..5e6).contains(&c.tasks), "{c:?}");
    }

    #[test]
    fn a_run_cut_at_its_target_takes_a_deeper_tail_only_where_a_unit_still_fits_a_batch() {
        // One whole border of n = 20 and of n = 24 (the first), cut for a target that rows 4 and 7 reach.
        let cut_one = |n: u32, target: f64| {
            let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, Split::Depth(0));
            let sample = sample(&plan, &[0]);
            (cut_for(&plan, &[0], &sample, target), sample)
        };
        // n = 20: 1,721 tasks at row 4, a few ten thousand a row deeper: the last batches take it.
        let (c, _) = cut_one(20, 1000.0);
        assert_eq!((c.extra_rows, c.tail_rows), (4, 5), "{c:?}");
        // n = 24: 3.6 million tasks at row 7, 25 million a row deeper: the last batches take it.
        let (c, sample) = cut_one(24, 3e6);
        assert_eq!((c.extra_rows, c.tail_rows), (7, 8), "{c:?}");
        let (table, start) = &sample[0];
        assert!(task::tasks_at(start, table, 24, 8) <= UNIT_TASKS);
        // Cut at row 8 for a larger target, a row deeper would be more than a batch of one unit holds.
        let (c, _) = cut_one(24, 2e7);
        assert_eq!((c.extra_rows, c.tail_rows), (8, 8), "{c:?}");
        assert!(task::tasks_at(start, table, 24, 9) > UNIT_TASKS);
    }

    #[test]
    fn a_run_of_a_few_large_units_is_sized_by_estimate_past_the_budget() {
        // Four units of n = 16 (full symmetry, one row: 289 k nodes the first) stand for a few of n = 26
        // (1.4e12 nodes each), whose count as far as the target needs took the host minutes. With a budget
        // of 4,096 nodes a start, the units are estimated, and the target is about the counted one.
        let plan = Plan::new(Board::new(16).unwrap(), Symmetry::Full, Split::Depth(0));
        let starts: Vec<Start> = (0..4)
            .filter_map(|i| plan.start(&plan.units()[i]))
            .collect();
        let starts: Vec<&Start> = starts.iter().collect();
        assert_eq!(starts.len(), 4);
        assert!(
            task::nodes_below(starts[0], 4096).is_none(),
            "past the budget"
        );
        let counted = target_tasks_within(&starts, 4, u64::MAX);
        let estimated = target_tasks_within(&starts, 4, 4096);
        assert!(
            (estimated / counted - 1.0).abs() < 0.25,
            "{estimated} against {counted}"
        );
        // Not the budget's own figure: sqrt(4,096 * 1,800) = 2,715.
        assert!(estimated > 10_000.0, "{estimated}");
    }

    #[test]
    fn the_cut_of_n_21_is_the_measured_one_and_large_boards_get_small_tasks_in_units_a_batch_holds()
    {
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
        // n = 24, the GPU's plan: the target is reached long before the tasks are small; the bound on rows
        // decides.
        let plan = Plan::new(Board::new(24).unwrap(), Symmetry::Full, split_for(16));
        let first: Vec<usize> = (0..1000).collect();
        let c = cut(&plan, &first);
        let start = plan.start(&plan.units()[0]).unwrap();
        assert_eq!(
            start.frame.end - start.row - c.extra_rows,
            MAX_TASK_ROWS,
            "{c:?}"
        );
        assert!(c.tasks > 2.0 * TARGET_TASKS as f64, "{c:?}");
        // A row more keeps every unit within a batch: the last batches take it.
        assert_eq!(c.tail_rows, c.extra_rows + 1, "{c:?}");
        // n = 26: so many rows would make a unit too large for a batch. The cut stops a row before that.
        let plan = Plan::new(Board::new(26).unwrap(), Symmetry::Full, split_for(16));
        let c = cut(&plan, &[0]);
        let start = plan.start(&plan.units()[0]).unwrap();
        let table = task::table_of(&start, 26).unwrap();
        assert!(
            start.frame.end - start.row - c.extra_rows > MAX_TASK_ROWS,
            "{c:?}"
        );
        let tasks = task::tasks_at(&start, &table, 26, c.extra_rows);
        assert!(
            (tasks as f64 - c.tasks).abs() < 1.0,
            "{c:?} against {tasks}"
        );
        assert!(tasks <= UNIT_TASKS && tasks > UNIT_TASKS / 32, "{tasks}");
        // Nor are the last batches cut deeper: a row more makes the unit too large.
        assert_eq!(c.tail_rows, c.extra_rows, "{c:?}");
        assert!(task::tasks_at(&start, &table, 26, c.extra_rows + 1) > UNIT_TASKS);
    }

    #[test]
    fn batches_cover_the_units_in_order_and_hold_a_bounded_number_of_tasks() {
        let units: Vec<usize> = (0..1001).collect();
        let few = Cut {
            extra_rows: 1,
            tasks: 1e6,
            tail_rows: 2,
        };
        let joined: Vec<usize> = batches(&units, few, 1).flatten().copied().collect();
        assert_eq!(joined, units);
        assert_eq!(batches(&units, few, 1).count(), BATCHES);
        assert_eq!(batches(&units, few, 3).count(), 3 * BATCHES);
        assert_eq!(batches(&[], few, 1).count(), 0);
        let many = Cut {
            extra_rows: 5,
            tasks: 100.0 * BATCH_TASKS as f64,
            tail_rows: 6,
        };
        let count = batches(&units, many, 1).count();
        assert!((100..=112).contains(&count), "{count}");
        let huge = Cut {
            extra_rows: 9,
            tasks: 1e15,
            tail_rows: 10,
        };
        assert_eq!(batches(&units, huge, 1).count(), units.len());
    }

    #[cfg(not(feature = "cuda"))]
    #[test]
    fn without_the_feature_the_gpu_is_refused_with_a_message() {
        let err = device().unwrap_err().to_string();
        assert!(err.contains("--features cuda"), "{err}");
    }

    #[test]
    fn a_knob_takes_a_valid_value_and_ignores_anything_else() {
        let tasks = |t: &usize| (1..=BATCH_TASKS).contains(t);
        assert_eq!(knob_value(Some("524288"), tasks), Some(524_288));
        assert_eq!(knob_value(Some(" 64 "), tasks), Some(64));
        // Out of range, not a number, or not set: the program's own value.
        assert_eq!(knob_value(Some("0"), tasks), None);
        assert_eq!(
            knob_value(Some(&(BATCH_TASKS + 1).to_string()), tasks),
            None
        );
        assert_eq!(knob_value(Some("2^19"), tasks), None);
        assert_eq!(knob_value(None, tasks), None);
        let balance = |b: &f64| b.is_finite() && *b > 0.0;
        assert_eq!(knob_value(Some("450"), balance), Some(450.0));
        assert_eq!(knob_value(Some("inf"), balance), None);
        assert_eq!(knob_value(Some("-1"), balance), None);
    }

    #[test]
    fn the_turns_between_tests_are_the_programs_unless_asked() {
        assert_eq!(
            turns_asked("", Board::new(19).unwrap()).unwrap(),
            Turns::for_width(19)
        );
        // Sixteen turns on boards 19 to 24 wide, eight elsewhere, unless asked for: eight to measure against.
        assert_eq!(
            turns_asked("", Board::new(21).unwrap())
                .unwrap()
                .between_tests,
            16
        );
        assert_eq!(
            turns_asked("", Board::new(18).unwrap())
                .unwrap()
                .between_tests,
            8
        );
        assert_eq!(
            turns_asked("NQ_UNROLL=8u", Board::new(21).unwrap()).unwrap(),
            Turns::asked(8, 21)
        );
        // Other switches leave the turns as they are.
        assert_eq!(
            turns_asked("NQ_PLAIN", Board::new(27).unwrap()).unwrap(),
            Turns::for_width(27)
        );
        let two = turns_asked("NQ_PLAIN NQ_UNROLL=2u", Board::new(28).unwrap()).unwrap();
        assert_eq!((two.between_tests, two.sentinel_squares), (2, 2));
        assert_eq!(
            turns_asked("NQ_UNROLL=8", Board::new(24).unwrap())
                .unwrap()
                .sentinels(),
            1
        );
        // Eight turns on a board too wide for a sentinel of eight squares: two of four.
        let wide = turns_asked("NQ_UNROLL=8u", Board::new(25).unwrap()).unwrap();
        assert_eq!((wide.sentinel_squares, wide.sentinels()), (4, 2));
        assert_eq!(
            turns_asked("NQ_UNROLL=4u", Board::new(28).unwrap()).unwrap(),
            Turns::asked(4, 28)
        );
        assert_eq!(
            turns_asked("NQ_UNROLL=1u NQ_TURN_C", Board::new(28).unwrap())
                .unwrap()
                .between_tests,
            1
        );
        // Sixteen turns: one sentinel of sixteen squares where the board leaves room, else two of eight, else
        // four of four.
        for (width, squares, sentinels) in
            [(16, 16, 1), (17, 8, 2), (24, 8, 2), (25, 4, 4), (28, 4, 4)]
        {
            let sixteen = turns_asked("NQ_UNROLL=16u", Board::new(width).unwrap()).unwrap();
            assert_eq!(
                (
                    sixteen.between_tests,
                    sixteen.sentinel_squares,
                    sixteen.sentinels()
                ),
                (16, squares, sentinels),
                "{width} wide"
            );
        }
        let odd = turns_asked("NQ_UNROLL=3u", Board::new(12).unwrap())
            .unwrap_err()
            .to_string();
        assert!(odd.contains("1, 2, 4, 8 or 16"), "{odd}");
        let chosen = turns_asked("NQ_SENTINEL_SQUARES=8u", Board::new(12).unwrap())
            .unwrap_err()
            .to_string();
        assert!(chosen.contains("NQ_UNROLL"), "{chosen}");
    }

    #[test]
    fn a_switch_the_kernel_does_not_have_is_refused() {
        // Every switch named as a switch takes the board; the layouts and probes measured slower and removed
        // (the twenty-seventh session), and a misspelt name, are refused with the list of those it takes.
        for switch in KERNEL_SWITCHES {
            assert!(
                turns_asked(switch, Board::new(20).unwrap()).is_ok(),
                "{switch}"
            );
        }
        for gone in [
            "NQ_SOA",
            "NQ_PACKED",
            "NQ_AHEAD_BOTTOM",
            "NQ_PROBE_ALU",
            "NQ_AHEAD_XR",
        ] {
            let message = turns_asked(&format!("NQ_AHEAD_XOR {gone}"), Board::new(20).unwrap())
                .unwrap_err()
                .to_string();
            assert!(
                message.contains(&format!("{gone}: not a switch")),
                "{message}"
            );
            assert!(message.contains("NQ_AHEAD_LAST"), "{message}");
        }
    }

    #[test]
    fn the_last_row_gets_no_stack_where_the_loop_never_pushes_it() {
        let last = "NQ_AHEAD_XOR NQ_AHEAD_CHILDREN NQ_AHEAD_LAST";
        let square = turns_asked(last, Board::new(20).unwrap()).unwrap();
        assert!(square.unpushed_last);
        assert!(square.defines().iter().any(|d| d == "-DNQ_LAST_UNPUSHED"));
        // n = 20's tasks of 14 levels: a sixth block of 128 threads on an H100 or H200 multiprocessor.
        let full = Turns::for_width(20);
        assert_eq!(full.shared_per_thread(14), 316);
        assert_eq!(square.shared_per_thread(14), 292);
        assert_eq!(task::hopper_blocks(full, 128, 14), 5);
        assert_eq!(task::hopper_blocks(square, 128, 14), 6);
        // A rectangle's last row may be pushed, and so may that of any other loop.
        let rect = Board::rect(20, 12).unwrap();
        assert!(!turns_asked(last, rect).unwrap().unpushed_last);
        assert!(
            !turns_asked("", Board::new(20).unwrap())
                .unwrap()
                .unpushed_last
        );
        assert!(
            !turns_asked("NQ_AHEAD_XOR", Board::new(20).unwrap())
                .unwrap()
                .unpushed_last
        );
        // The program's to choose, not the environment's.
        let asked = turns_asked("NQ_AHEAD_LAST NQ_LAST_UNPUSHED", rect)
            .unwrap_err()
            .to_string();
        assert!(asked.contains("NQ_AHEAD_LAST alone"), "{asked}");
    }
}
