//! The GPU backend: counts a plan's units on an NVIDIA GPU.
//!
//! It runs the same plans as the CPU engine (same units, same symmetry, same weights) and gives every unit the
//! same count, nodes included, so checkpoints, shards and merges work with either backend and a journal can
//! be finished on the other. Without a split asked for, a GPU run's plan is no deeper than [`SPLIT_DEPTH`].
//!
//! # How
//! - **Tasks.** The host cuts each unit into small searches by placing a few more rows ([`task::split`]). It
//!   places the fewest rows that give at least [`TARGET_TASKS`] tasks in the run and leave no task more than
//!   [`MAX_TASK_ROWS`] rows, where its tasks keep [`MIN_TASK_NODES`] each on average ([`cut`]). What it decides
//!   on the way goes into the unit's tally. A unit of more than [`UNIT_TASKS`] tasks is counted in parts, each
//!   the tasks below a run of its branches, which may go to several batches and GPUs ([`Part`]). Each unit's
//!   rows go with its tasks as a table of their open squares ([`task::Table`]), so the kernel takes any frame.
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
//!   - A unit's count is reported once its batch is done (a unit in parts: its last part's). So a stop leaves
//!     every reported unit whole, and a journal lags a long run by a few batches a GPU at most.
//!   - **A GPU that hangs is said** (`watchdog.rs`): once the run has waited for a GPU's next batch
//!     [`STALL_PACES`] times its pace and [`STALL_FLOOR`] at least ([`FIRST_BATCH_STALL`] before its first
//!     came back), the run says so through the progress's notes, with what to do, and again when it comes
//!     back. It takes nothing from it: a batch a GPU has begun cannot be cancelled, and the others already
//!     take every batch not yet handed out.
//!     A GPU whose opening has taken [`OPEN_STALL`] is said too, and again when it opens; the others count
//!     meanwhile. The estimate's samples are watched the same way.
//!   - **A run that asks for it times the kernel's loops** on each GPU before it counts with one
//!     (`NQUEENS_GPU_TRIAL`; [`Trial`], [`When`]): the program's loop and the look-ahead's row taken with its
//!     frame count the same sample of the GPU's first large batch, their tallies must agree, and the faster
//!     counts the rest. No run does by default: the sample's time is its largest task's (`trial.rs`).
//! - The few units counted by Burnside's lemma (a border that a symmetry fixes) go to the GPU as their parts,
//!   each in a slot of its own ([`BurnsideSlots`]); the host adds the solutions each symmetry fixes, which a
//!   small search finds. Any start with no row left to search is counted on the host by the CPU kernel, and
//!   so is a unit whose tally the GPU cannot vouch for.
//!
//! The CUDA part is behind the cargo feature `cuda` (the `cudarc` crate, loading the driver and NVRTC at run
//! time), so a build without it, or a machine without CUDA, builds and tests everything else; there, asking
//! for the GPU is an error that says so.
//!
//! This file holds the backend's entry points ([`run`], [`device`], [`open_ahead`]). What the user chose for it
//! is in `options.rs`, how many tasks a run is cut into in `sizing.rs`, its batches and their units' counts in
//! `batch.rs`, the threads that hand them to the GPUs in `dispatch.rs`, the watchdog that says a GPU that keeps
//! a run waiting in `watchdog.rs`, and the trial of the kernel's loops in `trial.rs`; the tasks are cut in `task.rs` and `prepare.rs`, and the GPU driven by `cuda.rs`.

mod batch;
pub mod cache;
mod dispatch;
pub mod forecast;
mod options;
mod prepare;
mod sizing;
pub mod task;
#[cfg(test)]
pub(crate) mod testing;
mod trial;
mod watchdog;

#[cfg(feature = "cuda")]
mod cuda;

pub use batch::{
    batch_tasks, batches, finish, merge, tail_deeper, Batch, BurnsideSlots, Part, Unfinished,
    BATCHES, BATCH_TASKS, FIRST_BATCH_TASKS, TAIL_PIECES,
};
pub use dispatch::{dispatch, dispatch_with, run_batches, Device, CUT_AHEAD_TASKS};
pub use forecast::{Drawing, GpuRate, GpuSample};
pub use options::{
    leave_nodes_uncounted, loop_name, loops, nodes_uncounted, parse_gpus, selected_gpus,
    switches_agree, turns, use_gpus, verbose, DEFAULT_NAMES, KERNEL_SWITCHES,
};
pub use prepare::{drop_spares, parts_of, prepare, prepare_parts, recycle, PART_ROWS};
pub use sizing::{
    cut, cut_with, split_for, Cut, MAX_TASK_ROWS, MIN_TASK_NODES, SPLIT_DEPTH, TARGET_TASKS,
    UNIT_TASKS,
};
pub use task::Turns;
pub use trial::{
    Trial, When, MARGIN, SAMPLE_SHARE, TRIAL_AGAIN_TASKS, TRIAL_BATCH_TASKS, TRIAL_FROM_TASKS,
};
pub use watchdog::{FIRST_BATCH_STALL, OPEN_STALL, STALL_FLOOR, STALL_PACES};

use crate::engine::board::Board;
use crate::engine::count::Count;
use crate::engine::exec::Progress;
use crate::engine::kernel;
use crate::engine::plan::Plan;
use crate::error::Error;
use std::sync::atomic::AtomicBool;

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
    /// The kernel's loop that counted the run (after its trial, if it had one), by name; one for each GPU,
    /// joined by ", " as [`GpuRun::device`]. Empty where the devices do not say.
    pub kernel_loop: String,
    /// What each GPU's trial of the loops measured ([`Trial::describe`]), joined by "; "; empty for a run
    /// without one.
    pub loop_trial: String,
    /// The GPUs that failed during the run, each with its error (`GPU 3: ...`), joined by "; ": the others
    /// counted what they left. Empty where none did.
    pub failed: String,
    /// Each GPU's share of the run, in the order they were named (a GPU named twice has two): of the rounds
    /// it finished (a GPU that failed in the first is left out).
    pub gpus: Vec<GpuShare>,
}

/// What one GPU of a run counted ([`GpuRun::gpus`]), so that a slow or idle one among several shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuShare {
    /// The GPU, by the driver's number.
    pub ordinal: usize,
    /// Its name.
    pub device: String,
    /// Tasks its kernel counted.
    pub tasks: u64,
    /// Nodes of the tasks it counted, of the units it could vouch for; `None` where it left them uncounted
    /// ([`leave_nodes_uncounted`]).
    pub nodes: Option<u64>,
    /// Seconds from its first kernel's start to its last one's end, on its clock.
    pub kernel_seconds: f64,
}

impl GpuShare {
    /// Adds what the same GPU counted in a later round of the run.
    fn add(&mut self, later: &GpuShare) {
        self.tasks += later.tasks;
        self.nodes = self.nodes.zip(later.nodes).map(|(a, b)| a + b);
        self.kernel_seconds += later.kernel_seconds;
    }
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
    /// Its PCI address ("0000:1B:00.0"), or empty where the driver did not say.
    pub pci_bus_id: String,
}

/// The version of CUDA the GPUs' driver provides, "13.0" (the driver's own number, 580.65 say, is NVML's to
/// give, which this program does not load).
pub fn cuda_driver() -> Result<String, Error> {
    #[cfg(feature = "cuda")]
    {
        cuda::driver_version().map(cuda_version)
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(not_built())
    }
}

/// A CUDA version as the driver gives it (12040) the way people write it ("12.4").
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
fn cuda_version(version: i32) -> String {
    format!("{}.{}", version / 1000, version % 1000 / 10)
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
/// small run does not wait for the two one after the other, or before anything is written. An error where a
/// GPU named is not there, or where none could be opened; a run counts on those that could (see [`run`]).
///
/// A GPU that takes longer to open than [`OPEN_STALL`] (or `NQUEENS_GPU_OPEN_SECONDS`) is said to `progress`'s
/// notes, where there is one, and so is its opening once it ends: for an opening before anything is written.
/// Without one, nothing is said: an opening beside the run's, whose own opening of the same GPUs waits for
/// this one, is watched there.
pub fn open_ahead(board: Board, progress: Option<&dyn Progress>) -> Result<(), Error> {
    #[cfg(feature = "cuda")]
    {
        let turns = turns(board)?;
        let ordinals = in_use()?;
        opened_any(watchdog::open_all(
            &ordinals,
            &known_name,
            &|ordinal| cuda::open_ahead(ordinal, turns),
            watchdog::StallBounds::from_environment(),
            watchdog::Watching::Start,
            progress,
        ))
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (board, progress);
        Err(not_built())
    }
}

/// GPU `ordinal`'s name, asked of the driver without making a context, where it gives one: for saying a GPU
/// that does not open (`watchdog.rs`).
fn known_name(ordinal: usize) -> Option<String> {
    #[cfg(feature = "cuda")]
    {
        cuda::info(ordinal).ok().map(|info| info.name)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = ordinal;
        None
    }
}

/// The GPUs in use ([`use_gpus`]), each by the driver's number with what it is, in the order named (a GPU
/// named twice twice).
pub fn described_in_use() -> Result<Vec<(usize, DeviceInfo)>, Error> {
    #[cfg(feature = "cuda")]
    {
        in_use()?
            .into_iter()
            .map(|o| cuda::info(o).map(|i| (o, i)))
            .collect()
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
        count_on(plan, units, &in_use, stop, progress)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (plan, units, stop, progress);
        Err(not_built())
    }
}

/// [`run`] on the GPUs numbered `gpus` (the driver's numbers, as [`described_in_use`] gives them) rather than those
/// in use: what a benchmark's runs on 1, 2, 4, … of its GPUs count with.
pub fn run_on(
    plan: &Plan,
    units: Option<&[usize]>,
    gpus: &[usize],
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<(Count, GpuRun), Error> {
    #[cfg(feature = "cuda")]
    {
        count_on(plan, units, &|| Ok(gpus.to_vec()), stop, progress)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (plan, units, gpus, stop, progress);
        Err(not_built())
    }
}

/// [`run`] on the GPUs `ordinals` gives.
#[cfg(feature = "cuda")]
fn count_on(
    plan: &Plan,
    units: Option<&[usize]>,
    ordinals: &(dyn Fn() -> Result<Vec<usize>, Error> + Sync),
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<(Count, GpuRun), Error> {
    let loops = loops(plan.board())?;
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
        ordinals,
        &|ordinal| cuda::GpuDevice::open(ordinal, loops.clone()),
        stop,
        progress,
    )
}

/// Measures the GPUs in use ([`use_gpus`]) on samples of the tasks a count of `plan`'s units numbered in `units`
/// (all of them for `None`; a shard's run's otherwise) would give them, cut as that run cuts them, each for
/// about `budget` once open (its first batch however long), each with the loop such a run would count with: the
/// rate `nqueens estimate --backend gpu` forecasts with ([`forecast`]).
///
/// A GPU that does not open, or keeps a sampled batch, far past the bounds a count's run is held to
/// (`watchdog.rs`) is said to `progress`'s notes, and so is its return.
pub fn sample_rate(
    plan: &Plan,
    units: Option<&[usize]>,
    budget: std::time::Duration,
    progress: &dyn Progress,
) -> Result<GpuSample, Error> {
    #[cfg(feature = "cuda")]
    {
        let ordinals = in_use()?;
        let all: Vec<usize> = match units {
            Some(units) => units.to_vec(),
            None => (0..plan.units().len()).collect(),
        };
        // A run's cut is of the units it counts (`run`'s `units`): a shard's, fewer, may be cut deeper.
        let cut = cut(plan, &all);
        // The loops the run would time against each other: the program's alone where it would not.
        let mut loops = loops(plan.board())?;
        if !When::from_environment().wanted(&cut, ordinals.len()) {
            loops.truncate(1);
        }
        let drawing = Drawing::new(cut, all.len(), batch_tasks(cut, ordinals.len()));
        forecast::sample_on(
            crate::engine::exec::Run { plan, units },
            cut,
            drawing,
            &ordinals,
            &|ordinal| cuda::GpuDevice::open(ordinal, loops.clone()),
            budget,
            forecast::SEED,
            progress,
        )
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (plan, units, budget, progress);
        Err(not_built())
    }
}

/// The driver's numbers of the GPUs in use ([`use_gpus`]): those named, or every one it sees.
#[cfg(feature = "cuda")]
fn in_use() -> Result<Vec<usize>, Error> {
    gpus_in_use(selected_gpus(), cuda::visible()?)
}

/// The GPUs a run uses where the driver sees `visible`: those `selected` names, or all of them. A GPU named
/// that the driver does not have is a mistake to say before anything is counted, where a GPU it has that
/// cannot be opened leaves the run to the others ([`opened_any`]).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
fn gpus_in_use(selected: Option<Vec<usize>>, visible: usize) -> Result<Vec<usize>, Error> {
    match selected {
        None => Ok((0..visible).collect()),
        Some(gpus) => match gpus.iter().find(|&&ordinal| ordinal >= visible) {
            Some(missing) => Err(Error::Gpu(format!(
                "there is no GPU {missing}: the driver sees {visible} (numbered from 0)"
            ))),
            None => Ok(gpus),
        },
    }
}

/// How the opening of the GPUs in use went, from each one's outcome: fine where one at least opened, else
/// the first one's error. A run counts on those that opened: it tries the others again, and says why they
/// could not be opened as it goes on without them ([`dispatch`]).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
fn opened_any(outcomes: Vec<Result<(), Error>>) -> Result<(), Error> {
    if outcomes.iter().any(Result::is_ok) {
        return Ok(());
    }
    outcomes
        .into_iter()
        .find_map(Result::err)
        .map_or(Ok(()), Err)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_named_must_be_one_the_driver_sees() {
        assert_eq!(gpus_in_use(None, 3).unwrap(), vec![0, 1, 2]);
        assert_eq!(gpus_in_use(Some(vec![2, 0, 2]), 3).unwrap(), vec![2, 0, 2]);
        let err = gpus_in_use(Some(vec![0, 3, 5]), 3).unwrap_err();
        assert_eq!(
            err.to_string(),
            "GPU backend: there is no GPU 3: the driver sees 3 (numbered from 0)"
        );
    }

    #[test]
    fn a_cuda_version_is_written_as_people_write_it() {
        assert_eq!(cuda_version(13000), "13.0");
        assert_eq!(cuda_version(12040), "12.4");
        assert_eq!(cuda_version(11080), "11.8");
    }

    #[test]
    fn the_gpus_open_where_one_at_least_does_else_with_the_first_error() {
        let broken = |o: usize| Err(Error::Gpu(format!("cannot open GPU {o}")));
        assert!(opened_any(vec![broken(0), Ok(()), broken(2)]).is_ok());
        assert!(opened_any(vec![Ok(())]).is_ok());
        let err = opened_any(vec![broken(1), broken(0)]).unwrap_err();
        assert_eq!(err.to_string(), "GPU backend: cannot open GPU 1");
    }

    #[cfg(not(feature = "cuda"))]
    #[test]
    fn without_the_feature_the_gpu_is_refused_with_a_message() {
        let err = device().unwrap_err().to_string();
        assert!(err.contains("--features cuda"), "{err}");
    }
}
