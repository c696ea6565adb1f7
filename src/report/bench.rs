//! The benchmark: a standard workload, timed runs on 1, 2, 4, … threads (or GPUs), statistics and scores.
//!
//! A benchmark is only worth comparing if everyone runs the same work, so the workload is fixed: one board
//! ([`STANDARD_N`]; on the GPU [`STANDARD_GPU_N`], whose run is the GPU's where the CPU's board is mostly the
//! host's) in the full symmetry mode, with one plan (split depth and work units) shared by every thread
//! count, so that 1 thread and 16 threads count exactly the same units. A benchmark of the GPU backend sweeps
//! the GPUs instead: 1, 2, 4, … and all of those in use, the host's cores cutting their tasks in every run.
//! Planning happens once and is not timed; each timed run counts the plan's units on a fresh pool and is
//! checked against the published value, and a wrong count ends the benchmark. Runs are interleaved (round 1 on every thread count, then
//! round 2, …) so that a machine that slows down or speeds up during the benchmark skews every thread count
//! alike instead of one. Times come from a [`Clock`], which tests replace with a [`FakeClock`] so that
//! reports are exactly reproducible.

use crate::engine::count::Count;
use crate::engine::exec::{self, Backend, Progress};
use crate::engine::plan::{Plan, Split};
use crate::engine::symmetry::Symmetry;
use crate::error::Error;
use crate::report::known;
use crate::report::machine::{GpuDescription, Machine, Program};
use crate::report::Check;
use crate::CountRequest;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The version of the bench JSON layout; raised whenever a field changes meaning or disappears.
pub const BENCH_SCHEMA_VERSION: u32 = 1;

/// The board of the standard workload (the board of the Phoronix Test Suite's N-Queens test too). n = 18 takes
/// about 21 s on one core of a 2.3 GHz Xeon with the AVX-512 loop, and about 1.5 s on 16 such cores: long
/// enough that start-up and timer noise do not matter, short enough to repeat. (Up to version 0.1 of the
/// benchmark, before the vector loops, it was n = 17.)
pub const STANDARD_N: u32 = 18;
/// The board of `--quick`: about half a second on one core of the same Xeon.
pub const QUICK_N: u32 = 16;
/// The board of the standard workload on the GPU (`--backend gpu`). An H200 with its context open counts
/// n = 18 in 0.13 s, mostly the host's plan, cut and copies and the batches' tails, at 133 G nodes a second
/// of its own time, where it counts n = 21 in 7.6 s (7.4 s of kernels) at 1.16 T, within 2% of n = 22's rate
/// (results/gpu.md, the thirty-eighth session): n = 18's rate says little of the GPU. A small GPU takes some
/// minutes for n = 21.
pub const STANDARD_GPU_N: u32 = 21;
/// The board of `--quick` on the GPU: 0.2 s on an H200 with its context open, at a third of its large runs' rate.
pub const QUICK_GPU_N: u32 = 19;
/// The units a benchmark's plan on the CPU aims for, whatever the machine: the plan is that of the shallowest
/// split with at least so many ([`Split::Units`]; split depth 2 for both [`STANDARD_N`] and [`QUICK_N`], 302,517
/// and 103,487 units: some 1,200 and 400 a thread on a machine of 256 threads), so that every machine counts
/// the same units and none waits long on the last ones.
pub const PLAN_UNITS: usize = 65_536;
/// Timed runs per thread count, by default.
pub const STANDARD_RUNS: usize = 3;
/// The version of the standard workloads, raised whenever their work changes, so that a report says which
/// scores it may be compared with: 1 was n = 17 on the CPU (up to version 0.1 of the program), 2 is
/// [`STANDARD_N`] and [`QUICK_N`] on the CPU, [`STANDARD_GPU_N`] and [`QUICK_GPU_N`] on the GPU, all in the
/// full symmetry mode, the CPU's plan split for the machine's threads (up to version 0.3.0); 3, from 0.4.0, is
/// the same boards with the CPU's plan the same on every machine ([`PLAN_UNITS`]).
pub const WORKLOAD_VERSION: u32 = 3;

/// What to benchmark: a validated request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchRequest {
    /// Board side.
    pub n: u32,
    /// Symmetry reduction; the standard workload uses [`Symmetry::Full`].
    pub symmetry: Symmetry,
    /// Timed runs per thread count.
    pub runs: usize,
    /// Untimed runs on all threads before the first timed one, to bring the processor to its working clock
    /// and the program's pages into memory.
    pub warmup: usize,
    /// The most threads measured ("all threads"); the scaling table goes 1, 2, 4, … up to it.
    pub max_threads: usize,
    /// What counts: the CPU, or the GPU (timed on all threads only, which cut its tasks).
    pub backend: Backend,
    /// Pin every run on one thread to one processor ([`crate::report::pin`]), so that the baseline of the
    /// speedups is a core's own speed, not that of a thread the scheduler moves about.
    pub pin: bool,
}

/// Why a benchmark cannot start.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BenchError {
    /// The board has no published count to check against.
    #[error("n = {n} has no published count to check against: use n up to {largest}")]
    Unpublished {
        /// The side asked for.
        n: u32,
        /// The largest published side.
        largest: u32,
    },
    /// Zero timed runs.
    #[error("a benchmark needs at least one timed run")]
    NoRuns,
    /// The board or threads were refused.
    #[error(transparent)]
    Count(#[from] Error),
}

impl BenchRequest {
    /// The standard workload on every available core.
    pub fn standard() -> BenchRequest {
        BenchRequest::standard_on(Backend::Cpu)
    }

    /// The quick workload: the same measurement on a smaller board, a few seconds in all.
    pub fn quick() -> BenchRequest {
        BenchRequest::quick_on(Backend::Cpu)
    }

    /// The standard workload of `backend`: [`STANDARD_N`] on the CPU's cores, [`STANDARD_GPU_N`] on the GPUs.
    pub fn standard_on(backend: Backend) -> BenchRequest {
        BenchRequest {
            n: match backend {
                Backend::Cpu => STANDARD_N,
                Backend::Gpu => STANDARD_GPU_N,
            },
            symmetry: Symmetry::Full,
            runs: STANDARD_RUNS,
            warmup: 1,
            max_threads: num_cpus::get(),
            backend,
            pin: true,
        }
    }

    /// The quick workload of `backend`: [`QUICK_N`] on the CPU's cores, [`QUICK_GPU_N`] on the GPUs.
    pub fn quick_on(backend: Backend) -> BenchRequest {
        BenchRequest {
            n: match backend {
                Backend::Cpu => QUICK_N,
                Backend::Gpu => QUICK_GPU_N,
            },
            ..BenchRequest::standard_on(backend)
        }
    }

    /// `standard` or `quick` where the request's work is that of the standard workload of its backend or of
    /// `--quick`'s (whatever its runs and threads), `None` for another board or symmetry.
    pub fn standard_name(&self) -> Option<&'static str> {
        let standard = BenchRequest::standard_on(self.backend);
        let quick = BenchRequest::quick_on(self.backend);
        match self.symmetry == standard.symmetry {
            true if self.n == standard.n => Some("standard"),
            true if self.n == quick.n => Some("quick"),
            _ => None,
        }
    }

    /// The thread counts measured: powers of two below `max_threads`, then `max_threads` itself.
    pub fn thread_counts(&self) -> Vec<usize> {
        if self.backend == Backend::Gpu {
            return vec![self.max_threads.max(1)];
        }
        doubling(self.max_threads.max(1))
    }

    /// Checks the request and makes its plan, split for `max_threads` and used for every thread count (on the
    /// GPU, every GPU count, among the GPUs in use: [`crate::gpu::use_gpus`]).
    pub fn workload(&self) -> Result<Workload, BenchError> {
        self.workload_on(|| match self.backend {
            Backend::Cpu => Ok(None),
            Backend::Gpu => GpuDescription::in_use().map(Some),
        })
    }

    /// [`BenchRequest::workload`] on the GPUs `gpus` gives, once the request is checked (in the order a sweep
    /// takes them): for a benchmark of the GPU backend, or on the CPU for `None`.
    fn workload_on(
        &self,
        gpus: impl FnOnce() -> Result<Option<Vec<GpuDescription>>, Error>,
    ) -> Result<Workload, BenchError> {
        if self.runs == 0 {
            return Err(BenchError::NoRuns);
        }
        if self.max_threads == 0 {
            return Err(Error::NoThreads.into());
        }
        let published = known::lookup(self.n).ok_or(BenchError::Unpublished {
            n: self.n,
            largest: known::largest(),
        })?;
        let request = CountRequest::new(self.n)?
            .symmetry(self.symmetry)
            .threads(self.max_threads);
        // A missing GPU is found before the plan is made.
        let gpus = gpus()?;
        let cuda_driver = gpus.as_ref().and_then(|_| crate::gpu::cuda_driver().ok());
        let gpu_numbers: Vec<usize> = gpus.iter().flatten().map(|g| g.gpu).collect();
        let gpu = gpus.as_ref().map(|g| {
            g.iter()
                .map(|g| g.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        });
        // The CPU's plan is the same on every machine, as the work of a workload must be: split for this
        // machine's threads, n = 18 was 46,597 units on 2 threads, 302,517 on 4 to 16 and 1,586,945 on 32 or
        // more, each with its own nodes. The GPU's plan is its backend's, whose tasks are cut on the host.
        let plan = match self.backend {
            Backend::Cpu => Plan::new(request.board, request.symmetry, Split::Units(PLAN_UNITS)),
            Backend::Gpu => request.plan(),
        };
        Ok(Workload {
            spec: WorkloadSpec {
                standard: self.standard_name().map(str::to_string),
                workload_version: self.standard_name().map(|_| WORKLOAD_VERSION),
                n: self.n,
                symmetry: self.symmetry.name().to_string(),
                kernel: match self.backend {
                    Backend::Cpu => request.kernel().name().to_string(),
                    Backend::Gpu => Backend::Gpu.name().to_string(),
                },
                gpu,
                split_depth: plan.depth(),
                units: plan.units().len() as u64,
                expected_total: published.total,
                expected_unique: (self.symmetry == Symmetry::Full)
                    .then_some(published.unique)
                    .flatten(),
                runs: self.runs,
                warmup: self.warmup,
                thread_counts: self.thread_counts(),
                gpu_counts: doubling(gpu_numbers.len()),
                gpu_numbers,
                pin_single_thread: self.pin && self.backend == Backend::Cpu,
            },
            plan,
            gpus: gpus.unwrap_or_default(),
            cuda_driver,
            count_on_gpus: Box::new(|plan, gpus, progress| {
                let stop = std::sync::atomic::AtomicBool::new(false);
                crate::gpu::run_on(plan, None, gpus, &stop, progress)
            }),
        })
    }
}

/// 1, 2, 4, … below `all`, then `all`; none for none.
fn doubling(all: usize) -> Vec<usize> {
    if all == 0 {
        return Vec::new();
    }
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |t| t.checked_mul(2))
        .take_while(|&t| t < all)
        .collect();
    counts.push(all);
    counts
}

/// A checked request with its plan, ready to run.
pub struct Workload {
    /// What the report says about it.
    pub spec: WorkloadSpec,
    plan: Plan,
    /// The GPUs in use, for a benchmark of the GPU backend.
    gpus: Vec<GpuDescription>,
    /// The CUDA version of their driver, where it said.
    cuda_driver: Option<String>,
    /// How a run counts the plan on some of the GPUs (on the GPU backend, [`crate::gpu::run_on`]; host
    /// devices in tests).
    count_on_gpus: Box<CountOnGpus>,
}

impl std::fmt::Debug for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workload")
            .field("spec", &self.spec)
            .field("plan", &self.plan)
            .field("gpus", &self.gpus)
            .field("cuda_driver", &self.cuda_driver)
            .finish_non_exhaustive()
    }
}

impl Workload {
    /// `machine` with the GPUs that count the workload described (none on the CPU).
    pub fn describe_gpus(&self, machine: Machine) -> Machine {
        Machine {
            gpus: self.gpus.clone(),
            cuda_driver: self.cuda_driver.clone(),
            ..machine
        }
    }
}

/// Counts all of a plan's units on the GPUs numbered in the slice, telling the progress of each.
type CountOnGpus =
    dyn Fn(&Plan, &[usize], &dyn Progress) -> Result<(Count, crate::gpu::GpuRun), Error> + Sync;

/// One step of a benchmark's sweep: the runs on so many threads, or (on the GPU backend) so many GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Worker threads: those that count on the CPU, those that cut the GPUs' tasks on the GPU.
    pub threads: usize,
    /// For a benchmark of the GPU backend, the GPUs that count: the first so many of those in use.
    pub gpus: Option<usize>,
}

impl Step {
    /// What the step is a number of: its GPUs, else its threads.
    pub fn workers(&self) -> usize {
        self.gpus.unwrap_or(self.threads)
    }

    /// "4 threads", "1 GPU".
    pub fn describe(&self) -> String {
        let (n, what) = match self.gpus {
            Some(g) => (g, "GPU"),
            None => (self.threads, "thread"),
        };
        format!("{n} {what}{}", if n == 1 { "" } else { "s" })
    }
}

/// The workload as recorded in a report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadSpec {
    /// `standard` or `quick` where the work is that of the standard workload of its backend or of `--quick`'s
    /// ([`BenchRequest::standard_name`]); absent for another board or symmetry, and in reports written before it
    /// was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard: Option<String>,
    /// With `standard`, [`WORKLOAD_VERSION`]: scores compare with those of the same name and version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_version: Option<u32>,
    /// Board side.
    pub n: u32,
    /// Symmetry reduction.
    pub symmetry: String,
    /// The search loop ([`crate::engine::kernel::Kernel`]); empty in reports written before it was recorded.
    #[serde(default)]
    pub kernel: String,
    /// Rows placed by the plan before the kernel takes over.
    pub split_depth: u32,
    /// Work units in the plan, counted by every run.
    pub units: u64,
    /// The published total every run must reproduce.
    pub expected_total: u128,
    /// The published unique count, where the mode counts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_unique: Option<u128>,
    /// Timed runs per thread count.
    pub runs: usize,
    /// Untimed warm-up runs on all threads.
    pub warmup: usize,
    /// Thread counts measured, in order.
    pub thread_counts: Vec<usize>,
    /// The GPU that counted, for a benchmark of the GPU backend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// For a benchmark of the GPU backend, the GPUs in use by the driver's numbers, in the order named: a run
    /// on `k` GPUs counts on the first `k`. Empty in reports written before the sweep of the GPUs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_numbers: Vec<usize>,
    /// For a benchmark of the GPU backend, the GPU counts measured, in order: 1, 2, 4, … and all of
    /// `gpu_numbers`. Empty in reports written before the sweep, whose runs are all on every GPU in use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_counts: Vec<usize>,
    /// Whether runs on one thread were pinned to one processor (each run says which, `pinned_cpu`); runs on
    /// more threads are left to the scheduler. False in reports written before pinning.
    #[serde(default)]
    pub pin_single_thread: bool,
}

/// One run of the workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// Worker threads.
    pub threads: usize,
    /// 1, 2, … among the timed runs on this thread count; 1, 2, … among the warm-up runs for those.
    pub run: usize,
    /// A warm-up run, not used in the statistics.
    pub warmup: bool,
    /// Seconds spent counting the units.
    pub seconds: f64,
    /// Processor seconds used meanwhile, all threads together ([`Timing::cpu_seconds`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<f64>,
    /// The processor a run on one thread was pinned to; absent for a run left to the scheduler.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned_cpu: Option<usize>,
    /// For a GPU run: seconds from its first kernel's start to its last one's end, on the GPU's clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_seconds: Option<f64>,
    /// For a run on several GPUs: each one's share, in the order named. Absent for one GPU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<crate::report::GpuShareRecord>,
    /// For a GPU run of a sweep: how many GPUs counted it, the first so many of `workload.gpu_numbers`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_count: Option<usize>,
    /// All solutions.
    pub total: u128,
    /// Unique solutions, where the mode counts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique: Option<u128>,
    /// Queens placed by the search.
    pub nodes: u128,
    /// Work units counted.
    pub units: u64,
    /// `total / seconds`.
    pub solutions_per_second: f64,
    /// `nodes / seconds`.
    pub nodes_per_second: f64,
    /// The counts compared with the published values.
    pub check: Check,
}

impl Run {
    /// The step of the sweep the run belongs to.
    pub fn step(&self) -> Step {
        Step {
            threads: self.threads,
            gpus: self.gpu_count,
        }
    }

    /// Processor seconds per second: how many cores the run had.
    pub fn cores_used(&self) -> Option<f64> {
        self.cpu_seconds
            .filter(|_| self.seconds > 0.0)
            .map(|cpu| cpu / self.seconds)
    }
}

/// The timed runs of one thread count (or GPU count), summarised.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scaling {
    /// Worker threads.
    pub threads: usize,
    /// For a benchmark of the GPU backend's sweep: the GPUs of the row's runs. Its speedup and efficiency
    /// are then over the runs on one GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<usize>,
    /// Timed runs summarised.
    pub runs: usize,
    /// Median seconds (the mean of the middle two for an even number of runs).
    pub median_seconds: f64,
    /// Fastest run.
    pub min_seconds: f64,
    /// Slowest run.
    pub max_seconds: f64,
    /// Solutions per second at the median time.
    pub solutions_per_second: f64,
    /// Nodes per second at the median time.
    pub nodes_per_second: f64,
    /// Median time on 1 thread (1 GPU) over the median time on this many; NaN without such a run (a GPU
    /// benchmark written before the sweep), which JSON writes as `null`.
    #[serde(deserialize_with = "nan_if_null")]
    pub speedup: f64,
    /// `speedup / threads` (`/ gpus`): 1 is perfect scaling.
    #[serde(deserialize_with = "nan_if_null")]
    pub efficiency: f64,
    /// The median over the runs of processor seconds per second: the cores the runs really had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores_used: Option<f64>,
}

/// Reads back the `null` that serde_json writes for a NaN as NaN.
fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

impl Scaling {
    /// The step of the sweep the row summarises.
    pub fn step(&self) -> Step {
        Step {
            threads: self.threads,
            gpus: self.gpus,
        }
    }
}

/// The headline figures: rates at the median time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// Worker threads.
    pub threads: usize,
    /// Solutions per second.
    pub solutions_per_second: f64,
    /// Nodes (queens placed) per second.
    pub nodes_per_second: f64,
}

/// The scores of a benchmark.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// On one thread.
    pub single_thread: Score,
    /// On all threads measured.
    pub multi_thread: Score,
}

/// The GPUs' headline figures in a benchmark of the GPU backend: rates over the GPUs' own time (their kernels,
/// from the first's start to the last's end, on the GPU's clock), the median of the timed runs' on all the
/// GPUs in use. Beside the whole run's rate (the last scaling row's), which holds the host's plan, cut and
/// copies too.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuScore {
    /// The GPUs that counted, as the workload names them.
    pub gpus: String,
    /// The median of the timed runs' kernel seconds.
    pub kernel_seconds: f64,
    /// Solutions per second of that time.
    pub solutions_per_second: f64,
    /// Nodes (queens placed) per second of that time.
    pub nodes_per_second: f64,
    /// Where several GPUs counted, each one's figures, in the order named; absent for one GPU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub each: Vec<GpuEach>,
}

/// One GPU's figures in a benchmark on several ([`GpuScore::each`]): medians of the timed runs', so that a
/// slow one among them shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuEach {
    /// The GPU, by the driver's number.
    pub gpu: usize,
    /// Its name.
    pub device: String,
    /// The median of its share of each run's tasks, 0 to 1.
    pub task_share: f64,
    /// The median of its kernel seconds.
    pub kernel_seconds: f64,
    /// The median of its nodes a second of its kernels' time, where its nodes were counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes_per_second: Option<f64>,
}

/// How far a benchmark got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Still running, or interrupted: the report holds the runs measured so far.
    Running,
    /// Every run done and every count correct.
    Complete,
    /// A count differed from the published value; the benchmark stopped there.
    Failed,
}

/// A benchmark report: the build, the machine, the workload, every run and the summaries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// [`BENCH_SCHEMA_VERSION`] when written.
    pub schema_version: u32,
    /// Always `"bench"`, which tells a bench report from a count report.
    pub kind: String,
    /// How far it got.
    pub status: Status,
    /// The build that measured.
    pub program: Program,
    /// The machine measured on.
    pub machine: Machine,
    /// When the benchmark started, RFC 3339 in UTC.
    pub timestamp: String,
    /// What was run.
    pub workload: WorkloadSpec,
    /// Every run, warm-up included, in the order run.
    pub runs: Vec<Run>,
    /// One row per thread count with timed runs, in the order of `workload.thread_counts`.
    pub scaling: Vec<Scaling>,
    /// The headline figures of a CPU benchmark, once a run on 1 thread and one on all threads exist: `null`
    /// until then (and in a GPU benchmark's report), never absent, so that a script reading it finds it.
    #[serde(default)]
    pub scores: Option<Scores>,
    /// A GPU benchmark's headline figures ([`BenchReport::gpu_score_of_runs`]), once a timed run has its
    /// kernel time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_score: Option<GpuScore>,
    /// What makes the figures less than a measure of the machine ([`BenchReport::warnings_now`]), said with
    /// them; an empty list for a steady benchmark of an optimised build (absent in reports written before they
    /// were).
    #[serde(default)]
    pub warnings: Vec<Warning>,
}

/// Something that makes a benchmark's figures less than a measure of the machine: a build without
/// optimisation, runs too short to time, runs that differ, runs that had fewer cores than threads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// What it is: `unoptimised_build`, `single_run`, `short_runs`, `unsteady`, `more_threads_than_cores` or
    /// `shared_cores`.
    pub kind: String,
    /// The threads of the runs it is about; absent for the build's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// For a benchmark of the GPU backend, the GPUs of the runs it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<usize>,
    /// What it is, for people, in one sentence.
    pub message: String,
}

/// A step's median time below this is mostly start-up and the timer's noise.
pub const SHORT_RUN_SECONDS: f64 = 0.1;
/// Timed runs of one step that differ by more than this share of their median (max − min over median) were
/// not measured on a steady machine.
pub const UNSTEADY_SPREAD: f64 = 0.05;
/// Runs whose processor seconds per second are below this share of the cores they could use had fewer cores
/// than threads: something else ran.
pub const SHARED_CORES: f64 = 0.9;

impl BenchReport {
    /// An empty report for `workload`.
    pub fn new(spec: WorkloadSpec, machine: Machine, program: Program, timestamp: String) -> Self {
        BenchReport {
            schema_version: BENCH_SCHEMA_VERSION,
            kind: "bench".to_string(),
            status: Status::Running,
            program,
            machine,
            timestamp,
            workload: spec,
            runs: Vec::new(),
            scaling: Vec::new(),
            scores: None,
            gpu_score: None,
            warnings: Vec::new(),
        }
        .with_warnings()
    }

    fn with_warnings(mut self) -> Self {
        self.warnings = self.warnings_now();
        self
    }

    /// What makes the figures so far less than a measure of the machine: the build's lack of optimisation
    /// ([`Program::unoptimised`]), one timed run per step (no measure of the noise), and for each step of the
    /// sweep, runs under [`SHORT_RUN_SECONDS`] at the median, runs that differ by more than
    /// [`UNSTEADY_SPREAD`], and on the CPU runs on more threads than the logical cores and runs with fewer than
    /// [`SHARED_CORES`] of the cores they could use.
    pub fn warnings_now(&self) -> Vec<Warning> {
        let mut warnings = Vec::new();
        let mut warn = |kind: &str, step: Option<Step>, message: String| {
            warnings.push(Warning {
                kind: kind.to_string(),
                threads: step.map(|s| s.threads),
                gpus: step.and_then(|s| s.gpus),
                message,
            })
        };
        if let Some(why) = self.program.unoptimised() {
            warn("unoptimised_build", None, why);
        }
        if self.workload.runs == 1 && !self.scaling.is_empty() {
            warn(
                "single_run",
                None,
                format!(
                    "one timed run per {} count: a step's min and max are that run, and say nothing of the \
                     noise; use --runs 3 or more",
                    if self.workload.gpu.is_some() { "GPU" } else { "thread" }
                ),
            );
        }
        let cpu = self.workload.gpu.is_none();
        for s in &self.scaling {
            let step = s.step();
            let who = step.describe();
            // Runs too short to time say nothing of the machine's steadiness or of its cores' sharing (their
            // spread and their processor seconds are mostly start-up), but threads beyond the cores are a
            // fact of the run whatever its length.
            let short = s.median_seconds < SHORT_RUN_SECONDS;
            if short {
                warn(
                    "short_runs",
                    Some(step),
                    format!(
                        "{who}: the runs took {:.4} s at the median, too short to time: their figures are mostly \
                         start-up and the timer's noise; benchmark a larger board (--n)",
                        s.median_seconds
                    ),
                );
            }
            let spread = (s.max_seconds - s.min_seconds) / s.median_seconds;
            if !short && s.runs > 1 && spread > UNSTEADY_SPREAD {
                warn(
                    "unsteady",
                    Some(step),
                    format!(
                        "{who}: the runs differ by {:.1}% of their median ({:.3} s to {:.3} s), more than {:.0}%: \
                         the machine was not steady (other work, a clock that changed); trust these figures less, \
                         or run again with more --runs",
                        100.0 * spread,
                        s.min_seconds,
                        s.max_seconds,
                        100.0 * UNSTEADY_SPREAD
                    ),
                );
            }
            let logical = self.machine.logical_cores.max(1);
            if cpu && s.threads > logical {
                warn(
                    "more_threads_than_cores",
                    Some(step),
                    format!(
                        "{who}: more than the {logical} logical core{} this process may use, so they took turns: \
                         their speedup and efficiency are not the processor's scaling",
                        if logical == 1 { "" } else { "s" }
                    ),
                );
            }
            let could = s.threads.min(logical);
            if let (true, false, Some(cores)) = (cpu, short, s.cores_used) {
                if cores < SHARED_CORES * could as f64 {
                    warn(
                        "shared_cores",
                        Some(step),
                        format!(
                            "{who}: the runs had {cores:.2} of {could} core{} (processor seconds per second): \
                             something else was using the processors, so these figures are of a share of the \
                             machine",
                            if could == 1 { "" } else { "s" }
                        ),
                    );
                }
            }
        }
        warnings
    }

    /// A GPU benchmark's headline figures, from its timed runs with a kernel time (a report written before
    /// [`BenchReport::gpu_score`] was has them too); `None` for a CPU benchmark or before such a run.
    pub fn gpu_score_of_runs(&self) -> Option<GpuScore> {
        let gpus = self.workload.gpu.clone()?;
        // The runs on every GPU in use: the sweep's last step (every run, before the sweep).
        let all = self.workload.steps().last().copied();
        let timed: Vec<&Run> = self
            .runs
            .iter()
            .filter(|r| !r.warmup && r.gpu_seconds.is_some() && Some(r.step()) == all)
            .collect();
        let first = timed.first()?;
        let kernel_seconds = median(timed.iter().filter_map(|r| r.gpu_seconds));
        Some(GpuScore {
            gpus,
            kernel_seconds,
            // Every run counts the same plan, so the first run's counts stand for all of them.
            solutions_per_second: per_second(first.total, kernel_seconds),
            nodes_per_second: per_second(first.nodes, kernel_seconds),
            each: each_gpu(&timed),
        })
    }

    /// Timed runs planned in all, and done so far.
    pub fn timed_progress(&self) -> (usize, usize) {
        let planned = self.workload.runs * self.workload.steps().len();
        let done = self.runs.iter().filter(|r| !r.warmup).count();
        (done, planned)
    }

    /// Recomputes the scaling rows and the scores (the GPUs' too) from the timed runs.
    fn summarise(&mut self) {
        let rows: Vec<(Step, Vec<&Run>)> = self
            .workload
            .steps()
            .into_iter()
            .map(|step| {
                let runs = self
                    .runs
                    .iter()
                    .filter(|r| !r.warmup && r.step() == step)
                    .collect();
                (step, runs)
            })
            .filter(|(_, runs): &(Step, Vec<&Run>)| !runs.is_empty())
            .collect();
        // The baseline: the runs on one thread, or on one GPU.
        let single = rows
            .iter()
            .find(|(step, _)| step.workers() == 1)
            .map(|(_, runs)| median(runs.iter().map(|r| r.seconds)));
        self.scaling = rows
            .iter()
            .map(|(step, runs)| {
                let seconds: Vec<f64> = runs.iter().map(|r| r.seconds).collect();
                let median_seconds = median(seconds.iter().copied());
                // Every run counts the same plan, so the first run's counts stand for all of them.
                let rate = |x: u128| per_second(x, median_seconds);
                let speedup = single.map_or(f64::NAN, |s| s / median_seconds);
                Scaling {
                    threads: step.threads,
                    gpus: step.gpus,
                    runs: runs.len(),
                    median_seconds,
                    min_seconds: seconds.iter().copied().fold(f64::INFINITY, f64::min),
                    max_seconds: seconds.iter().copied().fold(0.0, f64::max),
                    solutions_per_second: rate(runs[0].total),
                    nodes_per_second: rate(runs[0].nodes),
                    speedup,
                    efficiency: speedup / step.workers() as f64,
                    cores_used: runs
                        .iter()
                        .map(|r| r.cores_used())
                        .collect::<Option<Vec<f64>>>()
                        .map(median),
                }
            })
            .collect();
        let score = |row: &Scaling| Score {
            threads: row.threads,
            solutions_per_second: row.solutions_per_second,
            nodes_per_second: row.nodes_per_second,
        };
        let max_threads = self.workload.thread_counts.last().copied();
        // A GPU benchmark's runs are all on the host's every thread: its scores are the GPUs'.
        let cpu = self.workload.gpu.is_none();
        let first = self.scaling.first().filter(|r| cpu && r.threads == 1);
        let last = self
            .scaling
            .last()
            .filter(|r| Some(r.threads) == max_threads);
        self.scores = match (first, last) {
            (Some(first), Some(last)) => Some(Scores {
                single_thread: score(first),
                multi_thread: score(last),
            }),
            _ => None,
        };
        self.gpu_score = self.gpu_score_of_runs();
        self.warnings = self.warnings_now();
    }
}

fn per_second(x: u128, seconds: f64) -> f64 {
    if seconds > 0.0 {
        x as f64 / seconds
    } else {
        0.0
    }
}

/// The median of some numbers (the mean of the middle two for an even count); NaN for none.
pub fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.into_iter().collect();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        len if len % 2 == 1 => v[len / 2],
        len => (v[len / 2 - 1] + v[len / 2]) / 2.0,
    }
}

/// How long a run took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Processor seconds used by the whole process meanwhile (all threads), where the system says. Divided by
    /// `seconds` it is the number of cores the run really had: below the thread count, the run waited for a
    /// processor that something else was using.
    pub cpu_seconds: Option<f64>,
}

/// Where times come from.
pub trait Clock: Sync {
    /// Runs `run` (a count on `workers` threads, or GPUs: [`Step::workers`]) and says how long it took.
    fn time(
        &self,
        workers: usize,
        run: &mut dyn FnMut() -> Result<Count, Error>,
    ) -> Result<(Count, Timing), Error>;

    /// The time now, RFC 3339 in UTC.
    fn timestamp(&self) -> String;
}

/// The real clock: a monotonic timer around each run.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn time(
        &self,
        _workers: usize,
        run: &mut dyn FnMut() -> Result<Count, Error>,
    ) -> Result<(Count, Timing), Error> {
        let cpu_before = process_cpu_seconds();
        let started = Instant::now();
        let count = run()?;
        let seconds = started.elapsed().as_secs_f64();
        let cpu_seconds = match (cpu_before, process_cpu_seconds()) {
            (Some(before), Some(after)) => Some(after - before),
            _ => None,
        };
        Ok((
            count,
            Timing {
                seconds,
                cpu_seconds,
            },
        ))
    }

    fn timestamp(&self) -> String {
        humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
    }
}

/// User and system time of this process, all threads, by the system's process clock
/// (`CLOCK_PROCESS_CPUTIME_ID`; none where there is none): to the nanosecond on Linux, where
/// `/proc/self/stat`'s ticks of 10 ms made the cores of a run of a few milliseconds noise (a 20 ms run read as
/// 0, 0.5 or 1 core on 2 threads).
pub fn process_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime only writes the timespec it is given.
        if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) } != 0 {
            return None;
        }
        Some(now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A clock for tests: the counting is real, but each run is said to take the time a made-up machine would
/// need for its nodes (a slow one, so that small test boards show times in seconds: 100,000 nodes per second
/// per thread or GPU, losing 2% per extra one), give or take a fixed cycle of +0%, +2%, −1% and +1%. Reports
/// made with it are the same on every machine.
#[derive(Debug, Default)]
pub struct FakeClock {
    calls: AtomicUsize,
}

impl FakeClock {
    /// Nodes per second on one thread of the made-up machine.
    pub const NODES_PER_SECOND: f64 = 1e5;
    /// The timestamp every report made with it carries.
    pub const TIMESTAMP: &'static str = "2026-01-01T00:00:00Z";
}

impl Clock for FakeClock {
    fn time(
        &self,
        workers: usize,
        run: &mut dyn FnMut() -> Result<Count, Error>,
    ) -> Result<(Count, Timing), Error> {
        let count = run()?;
        let jitter = [1.0, 1.02, 0.99, 1.01][self.calls.fetch_add(1, Ordering::Relaxed) % 4];
        let t = workers as f64;
        let seconds =
            count.nodes as f64 / (Self::NODES_PER_SECOND * t) * (1.0 + 0.02 * (t - 1.0)) * jitter;
        // The made-up machine gives every worker a whole core.
        let cpu_seconds = Some(seconds * t);
        Ok((
            count,
            Timing {
                seconds,
                cpu_seconds,
            },
        ))
    }

    fn timestamp(&self) -> String {
        Self::TIMESTAMP.to_string()
    }
}

/// What just happened, for whoever watches the benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The report is set up; no run yet.
    Started,
    /// One more run is in the report (its last entry).
    RunDone,
    /// The report is final: complete, or failed on a wrong count.
    Finished,
}

/// Each GPU's medians over `timed` runs on several GPUs: the `k`th share of each run is the same GPU's (the
/// GPUs in use are the same in every run). Empty where the runs have no shares, or differ in their GPUs.
fn each_gpu(timed: &[&Run]) -> Vec<GpuEach> {
    let Some(first) = timed.first() else {
        return Vec::new();
    };
    let same = |r: &&&Run| {
        r.gpus.len() == first.gpus.len()
            && r.gpus.iter().zip(&first.gpus).all(|(a, b)| a.gpu == b.gpu)
    };
    if !timed.iter().all(|r| same(&r)) {
        return Vec::new();
    }
    first
        .gpus
        .iter()
        .enumerate()
        .map(|(k, gpu)| {
            let shares = timed.iter().map(|r| {
                let tasks: u64 = r.gpus.iter().map(|g| g.tasks).sum();
                (&r.gpus[k], tasks)
            });
            let rates: Vec<f64> = shares
                .clone()
                .filter_map(|(g, _)| g.nodes_per_second())
                .collect();
            GpuEach {
                gpu: gpu.gpu,
                device: gpu.device.clone(),
                task_share: median(
                    shares
                        .clone()
                        .map(|(g, all)| g.tasks as f64 / all.max(1) as f64),
                ),
                kernel_seconds: median(shares.map(|(g, _)| g.kernel_seconds)),
                nodes_per_second: (rates.len() == timed.len()).then(|| median(rates)),
            }
        })
        .collect()
}

/// An error where a GPU failed during a benchmark's run: the others counted the run, and what it left again,
/// so its time is neither the machine's GPUs' nor the GPUs' left.
fn every_gpu_counted(run: &crate::gpu::GpuRun) -> Result<(), Error> {
    if run.failed.is_empty() {
        Ok(())
    } else {
        Err(Error::Gpu(format!(
            "a GPU failed during the benchmark ({}): the others counted the run without it, so its time is \
             not the machine's; benchmark the others alone",
            run.failed
        )))
    }
}

/// Runs the benchmark: warm-up, then `runs` rounds over the thread counts, each run checked.
///
/// `observe` sees the report after every event, so that a caller can write it out as it grows; an error from
/// it stops the benchmark. `progress` is told about the work units of every run. A wrong count is not an
/// error: the run is recorded, the report's status becomes [`Status::Failed`] and the benchmark stops.
pub fn run<E: From<Error>>(
    workload: &Workload,
    mut report: BenchReport,
    clock: &dyn Clock,
    progress: &dyn Progress,
    observe: &mut dyn FnMut(&BenchReport, Event) -> Result<(), E>,
) -> Result<BenchReport, E> {
    let spec = &workload.spec;
    let steps = spec.steps();
    let all = *steps.last().expect("at least one thread count");
    let warmups = (1..=spec.warmup).map(|r| (all, r, true));
    let rounds = (1..=spec.runs).flat_map(|r| steps.iter().map(move |&step| (step, r, false)));
    observe(&report, Event::Started)?;
    for (step, round, warmup) in warmups.chain(rounds) {
        let threads = step.threads;
        let gpu_seconds = std::cell::Cell::new(None);
        let gpu_shares = std::cell::Cell::new(Vec::new());
        // The pool is built inside the timed run by this thread, so its one worker inherits the pinning.
        let pinned = (threads == 1 && spec.pin_single_thread)
            .then(crate::report::pin::Pinned::here)
            .flatten();
        let (count, timing) = clock.time(step.workers(), &mut || match spec.gpu {
            None => exec::run_parallel(&workload.plan, threads, progress),
            Some(_) => {
                // A run on k GPUs counts on the first k in use; one of a report before the sweep, on all.
                let gpus = &spec.gpu_numbers[..step.gpus.unwrap_or(spec.gpu_numbers.len())];
                let (count, run) = (workload.count_on_gpus)(&workload.plan, gpus, progress)?;
                every_gpu_counted(&run)?;
                gpu_seconds.set(Some(run.kernel_seconds));
                gpu_shares.set(crate::report::GpuRecord::from(&run).gpus);
                Ok(count)
            }
        })?;
        let mut run = spec.record(threads, round, warmup, count, timing);
        run.gpu_count = step.gpus;
        run.gpu_seconds = gpu_seconds.get();
        run.gpus = gpu_shares.take();
        run.pinned_cpu = pinned.as_ref().map(|p| p.cpu);
        drop(pinned);
        let failed = matches!(run.check, Check::Mismatch { .. });
        report.runs.push(run);
        report.summarise();
        if failed {
            report.status = Status::Failed;
            observe(&report, Event::RunDone)?;
            break;
        }
        observe(&report, Event::RunDone)?;
    }
    if report.status == Status::Running {
        report.status = Status::Complete;
    }
    observe(&report, Event::Finished)?;
    Ok(report)
}

impl WorkloadSpec {
    /// The steps of the sweep, in the order measured: the thread counts, or on the GPU backend the GPU
    /// counts, each on every thread (before the GPUs' sweep, its one thread count).
    pub fn steps(&self) -> Vec<Step> {
        let threads = self.thread_counts.last().copied().unwrap_or(1);
        if self.gpu.is_some() && !self.gpu_counts.is_empty() {
            return self
                .gpu_counts
                .iter()
                .map(|&g| Step {
                    threads,
                    gpus: Some(g),
                })
                .collect();
        }
        self.thread_counts
            .iter()
            .map(|&threads| Step {
                threads,
                gpus: None,
            })
            .collect()
    }

    /// The record of one run, checked against the published values.
    fn record(
        &self,
        threads: usize,
        run: usize,
        warmup: bool,
        count: Count,
        timing: Timing,
    ) -> Run {
        let seconds = timing.seconds;
        let unique = self.expected_unique.map(|_| count.unique);
        let check_total = if count.total == self.expected_total {
            Check::Match
        } else {
            Check::Mismatch {
                expected: self.expected_total,
            }
        };
        let check_unique = match (unique, self.expected_unique) {
            (Some(u), Some(expected)) if u != expected => Some(Check::Mismatch { expected }),
            (Some(_), Some(_)) => Some(Check::Match),
            _ => None,
        };
        Run {
            threads,
            run,
            warmup,
            seconds,
            cpu_seconds: timing.cpu_seconds,
            pinned_cpu: None,
            gpu_seconds: None,
            gpus: Vec::new(),
            gpu_count: None,
            total: count.total,
            unique,
            nodes: count.nodes,
            units: count.units,
            solutions_per_second: per_second(count.total, seconds),
            nodes_per_second: per_second(count.nodes, seconds),
            check: check_total.worst(check_unique),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::exec::NoProgress;

    fn small(max_threads: usize) -> BenchRequest {
        BenchRequest {
            n: 8,
            symmetry: Symmetry::Full,
            runs: 3,
            warmup: 1,
            max_threads,
            backend: Backend::Cpu,
            pin: false,
        }
    }

    fn bench(request: &BenchRequest, clock: &dyn Clock) -> (BenchReport, Vec<Event>) {
        let workload = request.workload().unwrap();
        let report = BenchReport::new(
            workload.spec.clone(),
            Machine::placeholder(),
            Program::placeholder(),
            clock.timestamp(),
        );
        let mut events = Vec::new();
        let report = run::<Error>(&workload, report, clock, &NoProgress, &mut |_, e| {
            events.push(e);
            Ok(())
        })
        .unwrap();
        (report, events)
    }

    /// A clock whose runs take the seconds `seconds` gives for each call (in the order run), on `cores`
    /// processors each, whatever their threads.
    struct Scripted {
        seconds: Vec<f64>,
        cores: f64,
        calls: AtomicUsize,
    }

    impl Clock for Scripted {
        fn time(
            &self,
            _workers: usize,
            run: &mut dyn FnMut() -> Result<Count, Error>,
        ) -> Result<(Count, Timing), Error> {
            let count = run()?;
            let seconds = self.seconds[self.calls.fetch_add(1, Ordering::Relaxed)];
            let cpu_seconds = Some(seconds * self.cores);
            Ok((
                count,
                Timing {
                    seconds,
                    cpu_seconds,
                },
            ))
        }

        fn timestamp(&self) -> String {
            FakeClock::TIMESTAMP.to_string()
        }
    }

    fn kinds(report: &BenchReport) -> Vec<(&str, Option<usize>)> {
        report
            .warnings
            .iter()
            .map(|w| (w.kind.as_str(), w.threads))
            .collect()
    }

    #[test]
    fn a_steady_benchmark_of_an_optimised_build_has_no_warnings() {
        // n = 12's runs take seconds on the fake clock's machine, n = 8's milliseconds.
        let (report, _) = bench(&BenchRequest { n: 12, ..small(4) }, &FakeClock::default());
        assert_eq!(report.warnings, []);
    }

    #[test]
    fn runs_that_differ_or_lack_cores_are_warned_of_step_by_step() {
        // A warm-up, then rounds over 1 and 2 threads: the 2-thread runs differ by 10% of their median.
        let clock = Scripted {
            seconds: vec![1.0, 2.0, 1.0, 2.02, 1.1, 1.98, 1.05],
            cores: 1.0,
            calls: AtomicUsize::new(0),
        };
        let (report, _) = bench(&small(2), &clock);
        assert_eq!(
            kinds(&report),
            [("unsteady", Some(2)), ("shared_cores", Some(2))]
        );
        assert_eq!(
            report.warnings[0].message,
            "2 threads: the runs differ by 9.5% of their median (1.000 s to 1.100 s), more than 5%: the machine \
             was not steady (other work, a clock that changed); trust these figures less, or run again with more \
             --runs"
        );
        assert_eq!(
            report.warnings[1].message,
            "2 threads: the runs had 1.00 of 2 cores (processor seconds per second): something else was using \
             the processors, so these figures are of a share of the machine"
        );
        // Half a core for the one thread; the two threads' figures are within 5% and on their two cores.
        let clock = Scripted {
            seconds: vec![1.0, 2.0, 1.0, 2.02, 1.02, 1.98, 1.01],
            cores: 0.5,
            calls: AtomicUsize::new(0),
        };
        let mut request = small(2);
        request.runs = 3;
        let (report, _) = bench(&request, &clock);
        assert_eq!(
            kinds(&report),
            [("shared_cores", Some(1)), ("shared_cores", Some(2))]
        );
        assert!(report.warnings[0]
            .message
            .starts_with("1 thread: the runs had 0.50 of 1 core "));
        // More threads than the machine's logical cores could use no more than those: said so.
        let mut report = report;
        report.machine.logical_cores = 1;
        report.summarise();
        assert_eq!(
            kinds(&report),
            [
                ("shared_cores", Some(1)),
                ("more_threads_than_cores", Some(2)),
                ("shared_cores", Some(2))
            ]
        );
        assert_eq!(
            report.warnings[1].message,
            "2 threads: more than the 1 logical core this process may use, so they took turns: their speedup \
             and efficiency are not the processor's scaling"
        );
        assert!(report.warnings[2].message.contains(" 0.50 of 1 core "));
    }

    #[test]
    fn short_runs_are_warned_of_and_of_threads_beyond_the_cores_but_not_of_their_spread_or_sharing()
    {
        // Runs of hundredths of a second that differ by half and had half their cores: start-up and noise,
        // said once as short; but 2 threads on 1 logical core took turns however long they ran.
        let clock = Scripted {
            seconds: vec![0.01, 0.02, 0.01, 0.02, 0.015, 0.03, 0.01],
            cores: 0.5,
            calls: AtomicUsize::new(0),
        };
        let (mut report, _) = bench(&small(2), &clock);
        assert_eq!(
            kinds(&report),
            [("short_runs", Some(1)), ("short_runs", Some(2))]
        );
        report.machine.logical_cores = 1;
        report.summarise();
        assert_eq!(
            kinds(&report),
            [
                ("short_runs", Some(1)),
                ("short_runs", Some(2)),
                ("more_threads_than_cores", Some(2))
            ]
        );
    }

    #[test]
    fn an_unoptimised_build_and_a_single_run_are_warned_of() {
        let (mut report, _) = bench(
            &BenchRequest {
                n: 12,
                runs: 1,
                ..small(1)
            },
            &FakeClock::default(),
        );
        assert_eq!(kinds(&report), [("single_run", None)]);
        report.program.opt_level = "0".into();
        report.program.debug_assertions = true;
        report.summarise();
        assert_eq!(
            kinds(&report),
            [("unoptimised_build", None), ("single_run", None)]
        );
        assert_eq!(
            report.warnings[0].message,
            "this nqueens is unoptimised (opt-level 0) and with debug assertions, so its figures are many times \
             lower than an optimised build's and say little of the machine: build it with `cargo build --release`"
        );
        // Said from the start, before any run.
        let fresh = BenchReport::new(
            report.workload.clone(),
            report.machine.clone(),
            report.program.clone(),
            String::new(),
        );
        assert_eq!(kinds(&fresh), [("unoptimised_build", None)]);
    }

    #[test]
    fn thread_counts_double_and_end_at_all_threads() {
        let counts = |max| small(max).thread_counts();
        assert_eq!(counts(1), [1]);
        assert_eq!(counts(2), [1, 2]);
        assert_eq!(counts(6), [1, 2, 4, 6]);
        assert_eq!(counts(8), [1, 2, 4, 8]);
        assert_eq!(counts(16), [1, 2, 4, 8, 16]);
    }

    #[cfg(unix)]
    #[test]
    fn processor_time_advances_by_less_than_a_millisecond() {
        // A thread that spins sees the process clock move in steps far finer than /proc's 10 ms ticks, and
        // never back.
        let mut last = process_cpu_seconds().expect("a process clock");
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        let mut steps = Vec::new();
        while steps.len() < 100 && Instant::now() < deadline {
            let now = process_cpu_seconds().unwrap();
            assert!(now >= last, "the process clock went back: {last} -> {now}");
            if now > last {
                steps.push(now - last);
            }
            last = now;
        }
        steps.sort_by(f64::total_cmp);
        let median = steps[steps.len() / 2];
        assert!(
            median < 1e-3,
            "median step {median} s of {} steps",
            steps.len()
        );
    }

    #[test]
    fn a_gpu_that_fails_during_a_benchmark_fails_it() {
        let mut run = crate::gpu::GpuRun::default();
        assert!(every_gpu_counted(&run).is_ok());
        run.failed = "GPU 1: GPU backend: cannot open GPU 1".into();
        let err = every_gpu_counted(&run).unwrap_err().to_string();
        assert!(
            err.contains(
                "a GPU failed during the benchmark (GPU 1: GPU backend: cannot open GPU 1)"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_gpu_benchmark_scores_the_median_kernel_time_and_a_cpu_one_has_no_gpu_score() {
        let (mut report, _) = bench(
            &BenchRequest {
                runs: 4,
                ..small(4)
            },
            &FakeClock::default(),
        );
        assert_eq!(
            (report.gpu_score.as_ref(), report.gpu_score_of_runs()),
            (None, None)
        );
        // The same runs, as if on two GPUs whose kernels took 100 s in the warm-up and 4, 1, 3 and 2 s in the
        // timed runs: their median is 2.5 s, whatever the order.
        report.workload.gpu = Some("GPU A, GPU B".to_string());
        // Runs on all of the host's threads alone, as a GPU benchmark's before the sweep of its GPUs.
        report.workload.thread_counts = vec![4];
        report.runs.retain(|r| r.threads == 4);
        let mut kernel = [4.0, 1.0, 3.0, 2.0].into_iter();
        for run in &mut report.runs {
            run.gpu_seconds = Some(if run.warmup {
                100.0
            } else {
                kernel.next().unwrap_or(50.0)
            });
        }
        report
            .runs
            .retain(|r| r.warmup || r.gpu_seconds != Some(50.0));
        report.summarise();
        let score = report.gpu_score.clone().expect("a GPU score");
        assert_eq!(Some(&score), report.gpu_score_of_runs().as_ref());
        assert_eq!(
            (score.gpus.as_str(), score.kernel_seconds),
            ("GPU A, GPU B", 2.5)
        );
        let run = &report.runs[1];
        assert_eq!(score.solutions_per_second, run.total as f64 / 2.5);
        assert_eq!(score.nodes_per_second, run.nodes as f64 / 2.5);
        // Written with the report and read back.
        assert!(score.each.is_empty());
        let json = serde_json::to_string(&report).unwrap();
        let back: BenchReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back.gpu_score, Some(score));
        // Each GPU's share of the four timed runs: its medians. GPU 3's nodes a second: 2, 8, 6 and 4 G (its
        // tasks' share 0.25, 0.5, 0.75 and 0.5); GPU 1's nodes uncounted in one run, so none.
        let share = |gpu: usize, tasks: u64, nodes: Option<u64>, kernel_seconds: f64| {
            crate::report::GpuShareRecord {
                gpu,
                device: format!("GPU {gpu}"),
                tasks,
                nodes,
                kernel_seconds,
            }
        };
        let mut timed = [
            (1, 2_000_000_000, 3, Some(4_000_000_000)),
            (2, 8_000_000_000, 2, None),
            (3, 6_000_000_000, 1, Some(1_000_000_000)),
            (2, 4_000_000_000, 2, Some(1_000_000_000)),
        ]
        .into_iter();
        assert_eq!(report.runs.iter().filter(|r| !r.warmup).count(), 4);
        for run in report.runs.iter_mut().filter(|r| !r.warmup) {
            let (tasks, nodes, other, other_nodes) = timed.next().expect("four timed runs");
            run.gpus = vec![
                share(3, tasks, Some(nodes), 1.0),
                share(1, other, other_nodes, 2.0),
            ];
        }
        report.summarise();
        let each = report.gpu_score.clone().expect("a GPU score").each;
        assert_eq!(
            each,
            [
                GpuEach {
                    gpu: 3,
                    device: "GPU 3".into(),
                    task_share: 0.5,
                    kernel_seconds: 1.0,
                    nodes_per_second: Some(5e9),
                },
                GpuEach {
                    gpu: 1,
                    device: "GPU 1".into(),
                    task_share: 0.5,
                    kernel_seconds: 2.0,
                    nodes_per_second: None,
                },
            ]
        );
        let json = serde_json::to_string(&report).unwrap();
        let back: BenchReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back.gpu_score.unwrap().each, each);
        // Runs on different GPUs give no GPU's figures.
        report.runs[2].gpus[0].gpu = 0;
        report.summarise();
        assert!(report.gpu_score.clone().unwrap().each.is_empty());
        // A run without a kernel time (none measured) leaves no score.
        for run in &mut report.runs {
            run.gpu_seconds = None;
        }
        report.summarise();
        assert_eq!(report.gpu_score, None);
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median([3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median([4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median([]).is_nan());
    }

    #[test]
    fn every_run_is_recorded_checked_and_summarised() {
        let (report, events) = bench(&small(4), &FakeClock::default());
        assert_eq!(report.status, Status::Complete);
        // One warm-up, then 3 rounds over 1, 2 and 4 threads, interleaved.
        let order: Vec<(usize, usize, bool)> = report
            .runs
            .iter()
            .map(|r| (r.threads, r.run, r.warmup))
            .collect();
        assert_eq!(order[0], (4, 1, true));
        assert_eq!(&order[1..4], [(1, 1, false), (2, 1, false), (4, 1, false)]);
        assert_eq!(order.len(), 10);
        assert_eq!(events.len(), 12, "started, 10 runs, finished");
        for run in &report.runs {
            assert_eq!((run.total, run.unique), (92, Some(12)));
            assert_eq!(run.check, Check::Match);
            assert_eq!(run.units, report.workload.units, "the same plan every time");
        }
        let threads: Vec<usize> = report.scaling.iter().map(|s| s.threads).collect();
        assert_eq!(threads, [1, 2, 4]);
        let one = &report.scaling[0];
        assert_eq!(one.speedup, 1.0);
        assert!(one.min_seconds <= one.median_seconds && one.median_seconds <= one.max_seconds);
        let four = &report.scaling[2];
        let medians = |t: usize| {
            median(
                report
                    .runs
                    .iter()
                    .filter(|r| !r.warmup && r.threads == t)
                    .map(|r| r.seconds),
            )
        };
        assert_eq!(four.speedup, medians(1) / medians(4));
        assert_eq!(four.efficiency, four.speedup / 4.0);
        // The fake machine loses 2% per extra thread (4 threads run 4 / 1.06 times as fast), give or take
        // its jitter of a few percent.
        assert!(
            (four.speedup / (4.0 / 1.06) - 1.0).abs() < 0.025,
            "{}",
            four.speedup
        );
        let scores = report.scores.unwrap();
        assert_eq!(scores.single_thread.threads, 1);
        assert_eq!(scores.multi_thread.threads, 4);
        assert_eq!(
            scores.multi_thread.solutions_per_second,
            92.0 / four.median_seconds
        );
    }

    #[test]
    fn a_wrong_count_fails_the_benchmark_at_once() {
        /// Counts for real, then adds one solution: an engine with a bug.
        struct OffByOne;
        impl Clock for OffByOne {
            fn time(
                &self,
                threads: usize,
                run: &mut dyn FnMut() -> Result<Count, Error>,
            ) -> Result<(Count, Timing), Error> {
                let (mut count, timing) = SystemClock.time(threads, run)?;
                count.total += 1;
                Ok((count, timing))
            }
            fn timestamp(&self) -> String {
                String::new()
            }
        }
        let (report, events) = bench(&small(2), &OffByOne);
        assert_eq!(report.status, Status::Failed);
        assert_eq!(report.runs.len(), 1, "stopped after the first wrong count");
        assert_eq!(report.runs[0].check, Check::Mismatch { expected: 92 });
        assert_eq!(events.last(), Some(&Event::Finished));
    }

    #[test]
    fn unpublished_boards_and_zero_runs_are_refused() {
        let request = BenchRequest { n: 28, ..small(2) };
        assert_eq!(
            request.workload().err(),
            Some(BenchError::Unpublished { n: 28, largest: 27 })
        );
        let request = BenchRequest {
            runs: 0,
            ..small(2)
        };
        assert_eq!(request.workload().err(), Some(BenchError::NoRuns));
    }

    #[test]
    fn a_gpu_benchmark_times_one_two_four_and_all_of_its_gpus() {
        // Five GPUs named (GPU 3 twice), counted by host devices; 2 timed runs a step after a warm-up on all.
        let request = BenchRequest {
            n: 10,
            runs: 2,
            max_threads: 2,
            backend: Backend::Gpu,
            ..small(2)
        };
        let named = [(3, "A"), (1, "B"), (3, "A"), (0, "C"), (2, "D")];
        let described: Vec<GpuDescription> = named
            .iter()
            .map(|&(gpu, name)| GpuDescription {
                gpu,
                name: name.to_string(),
                compute_capability: "9.0".into(),
                multiprocessors: 132,
                memory_bytes: 80 << 30,
                pci_bus_id: format!("0000:{:02X}:00.0", 0x18 + gpu),
            })
            .collect();
        let mut workload = request.workload_on(|| Ok(Some(described))).unwrap();
        assert_eq!(workload.spec.gpu_numbers, [3, 1, 3, 0, 2]);
        assert_eq!(workload.spec.gpu_counts, [1, 2, 4, 5]);
        assert_eq!(workload.spec.gpu.as_deref(), Some("A, B, A, C, D"));
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let told = asked.clone();
        workload.count_on_gpus = Box::new(move |plan, gpus, progress| {
            told.lock().unwrap().push(gpus.to_vec());
            crate::gpu::testing::count_on_host(plan, gpus, progress)
        });
        let clock = FakeClock::default();
        let report = BenchReport::new(
            workload.spec.clone(),
            workload.describe_gpus(Machine::placeholder()),
            Program::placeholder(),
            clock.timestamp(),
        );
        let report =
            run::<Error>(&workload, report, &clock, &NoProgress, &mut |_, _| Ok(())).unwrap();
        // The machine describes each GPU once, in the order named (and the driver, where there is one).
        let gpus: Vec<(String, String)> = report.machine.gpu_lines();
        let keys: Vec<&str> = gpus.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys[..4], ["gpu 3", "gpu 1", "gpu 0", "gpu 2"]);
        assert_eq!(
            keys.len(),
            4 + usize::from(report.machine.cuda_driver.is_some())
        );
        assert_eq!(
            gpus[0].1,
            "A, compute 9.0, 132 multiprocessors, 80.0 GiB, PCI 0000:1B:00.0"
        );
        assert_eq!(report.status, Status::Complete);
        // The warm-up on all of them, then rounds of 1, 2, 4 and 5: each run on the first so many named.
        let first = |k: usize| named[..k].iter().map(|g| g.0).collect::<Vec<usize>>();
        let rounds = [1, 2, 4, 5, 1, 2, 4, 5];
        let expected: Vec<Vec<usize>> = std::iter::once(5).chain(rounds).map(first).collect();
        assert_eq!(*asked.lock().unwrap(), expected);
        assert_eq!(report.timed_progress(), (8, 8));
        for (run, k) in report.runs.iter().zip(std::iter::once(5).chain(rounds)) {
            assert_eq!(
                (run.total, run.unique, run.check),
                (724, Some(92), Check::Match)
            );
            assert_eq!((run.gpu_count, run.threads), (Some(k), 2));
            // The shares of a run on several name its GPUs, in order, and cover its tasks.
            let shares: Vec<usize> = run.gpus.iter().map(|g| g.gpu).collect();
            assert_eq!(shares, if k == 1 { vec![] } else { first(k) });
            assert!(run.gpu_seconds.is_some_and(|s| s > 0.0));
        }
        // A row a step, its speedup over the runs on one GPU: the made-up machine loses 2% a GPU more.
        let rows: Vec<(usize, Option<usize>, usize)> = report
            .scaling
            .iter()
            .map(|s| (s.threads, s.gpus, s.runs))
            .collect();
        assert_eq!(
            rows,
            [
                (2, Some(1), 2),
                (2, Some(2), 2),
                (2, Some(4), 2),
                (2, Some(5), 2)
            ]
        );
        assert_eq!(report.scaling[0].speedup, 1.0);
        for s in &report.scaling {
            let k = s.gpus.unwrap() as f64;
            assert_eq!(s.efficiency, s.speedup / k);
            let model = k / (1.0 + 0.02 * (k - 1.0));
            assert!((s.speedup / model - 1.0).abs() < 0.035, "{s:?}");
        }
        // No thread scores; the GPUs' score and each one's figures are of the runs on all five.
        assert_eq!(report.scores, None);
        let score = report.gpu_score.clone().expect("a GPU score");
        let on_all: Vec<f64> = report
            .runs
            .iter()
            .filter(|r| !r.warmup && r.gpu_count == Some(5))
            .map(|r| r.gpu_seconds.unwrap())
            .collect();
        assert_eq!(score.kernel_seconds, median(on_all));
        let each: Vec<usize> = score.each.iter().map(|e| e.gpu).collect();
        assert_eq!(each, [3, 1, 3, 0, 2]);
        let json = serde_json::to_string(&report).unwrap();
        let back: BenchReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back, report);
        // The reports name the GPUs' sweep where they named threads.
        use crate::report::export::{bench::exporter, Format};
        let text = |f| String::from_utf8(exporter(f).document(&report)).unwrap();
        let table = text(Format::Table);
        assert!(
            table.contains(
                "2 timed runs per GPU count after 1 warm-up, on GPUs 3, 1, 3, 0, 2 and the host's 2 threads"
            ),
            "{table}"
        );
        let header = |t: &str| {
            t.lines()
                .find(|l| l.contains("median s"))
                .map(str::to_owned)
        };
        assert!(
            header(&table).is_some_and(|h| h.trim_start().starts_with("gpus")),
            "{table}"
        );
        let markdown = text(Format::Markdown);
        assert!(
            markdown.contains("## GPU scaling\n\n| gpus | runs |"),
            "{markdown}"
        );
        assert!(markdown.contains("\n| 4 | 2 | "), "{markdown}");
        let csv = text(Format::Csv);
        let column = crate::report::export::bench::CSV_HEADER
            .iter()
            .position(|h| *h == "gpu_count")
            .unwrap();
        let counts: Vec<String> = csv::Reader::from_reader(csv.as_bytes())
            .records()
            .map(|r| r.unwrap()[column].to_string())
            .collect();
        assert_eq!(counts, ["5", "1", "2", "4", "5", "1", "2", "4", "5"]);
    }

    #[test]
    fn the_plan_is_the_same_on_every_machine_and_shared_by_every_thread_count() {
        // One plan whatever the threads: n = 16 on one thread was split at depth 1 (20,652 units), on two at
        // depth 2 (103,487), under the one name of the quick workload.
        let plans: Vec<(u32, u64)> = [1, 2, 3, 64, 4096]
            .into_iter()
            .map(|threads| {
                let request = BenchRequest {
                    max_threads: threads,
                    ..BenchRequest::quick()
                };
                let spec = request.workload().unwrap().spec;
                (spec.split_depth, spec.units)
            })
            .collect();
        assert_eq!(plans, [(2, 103_487); 5]);
        let standard = BenchRequest {
            max_threads: 1,
            ..BenchRequest::standard()
        };
        let spec = standard.workload().unwrap().spec;
        assert_eq!((spec.split_depth, spec.units), (2, 302_517));
        assert_eq!(
            spec.units,
            crate::engine::plan::Plan::new(
                crate::Board::new(STANDARD_N).unwrap(),
                Symmetry::Full,
                Split::durable(Symmetry::Full),
            )
            .units()
            .len() as u64
        );
        // Another board or mode has one plan too, on one thread as on many.
        let mirror = |max_threads| {
            let spec = BenchRequest {
                n: 15,
                symmetry: Symmetry::Mirror,
                max_threads,
                ..BenchRequest::quick()
            }
            .workload()
            .unwrap()
            .spec;
            (spec.split_depth, spec.units)
        };
        assert_eq!(mirror(1), mirror(256));
        assert!(mirror(1).1 >= PLAN_UNITS as u64, "{:?}", mirror(1));
    }
}
