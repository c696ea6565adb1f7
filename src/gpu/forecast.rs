//! How fast the GPUs at hand count a board, measured on a sample of the tasks its run would give them
//! ([`sample_on`]; the program's, `gpu::sample_rate`): with the CPU's estimate of the board's nodes (`engine::forecast`), how long a count on them
//! would take (`nqueens estimate --backend gpu`). For deciding whether a board is worth its months of GPUs,
//! and how many, before any of them starts: n = 28's count is years of one GPU.
//!
//! The sample is a uniform one of the run's tasks, cut as the run cuts them ([`Drawing`]): the same rows below
//! the units, a batch's tasks largest first. Units of the plan are drawn at random, and where a unit holds more
//! tasks than the sample wants of it, each of its branches some rows below its start is kept with the same
//! chance, as a [`Part`] of one branch. So every task of the run has the same chance to be in the sample, and a
//! GPU's nodes over its seconds on the sample is its rate on the run's tasks. The units counted by Burnside's
//! lemma are drawn only where units are drawn whole: a run cuts them alone, and at n = 28 they are 169 of
//! 788,882 units.
//!
//! Each GPU counts on a thread of its own, as in a run. Its first batch is counted after a trial of the
//! kernel's loops where a run would time them (`trial.rs`; none by default), with the loop the run would
//! count with. The batches after it are each cut while the GPU counts those under way, as many under way as
//! the GPU takes ([`Device::depth`]: four on a CUDA GPU), as in a run: one at least, more while the sample's
//! time lasts. The rate is the whole time of those counts, copies and launches included, over their nodes.
//!
//! Each GPU's opening and batches are watched as a count's are (`watchdog.rs`): one whose driver hangs in its
//! opening, or that keeps a sampled batch far past the bounds, is said through the progress's notes, with
//! what to do, and said again when it opens or comes back.
//!
//! **The sampled batches are as large as the run's** (`gpu::batch_tasks`: 2^23 tasks on large boards), so
//! that a batch's largest tasks, which one thread counts for seconds, run beside its others, as in the run.
//! n = 22's tasks of up to 35 million nodes take 2.7 s each on an H200's thread (`examples/gpu_task_sizes`),
//! where a batch of 2^21 tasks holds about 1.4 s of the whole GPU's work: with such batches, the sample
//! counted at 455 to 631 G nodes a second (8 and 30 s of sample) a board whose run counts at 1,161 G
//! (results/gpu.md, the thirty-eighth session).

use super::batch::{nodes_vouched, Batch, Part};
use super::dispatch::Device;
use super::prepare::{prepare, prepare_parts};
use super::sizing::Cut;
use super::trial::{self, Trial};
use super::watchdog::{self, Finished, SetsFinished, StallBounds, Watch, Watched, Watching};
use crate::engine::exec::{Progress, Run};
use crate::engine::plan::Plan;
use crate::error::Error;
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// Units drawn for a batch whose units are too large to take whole: as many units as the sample's branches,
/// about.
pub const DRAWN_UNITS: usize = 256;

/// Rows below a drawn unit's start of the branches kept at random, at most: the frontier's rows near the top have
/// ten squares or so each, so four rows give a unit some ten thousand branches to find, twice (for the draw and
/// for the cut). Six rows, which the cut's growth of its last row asked for at n = 27, gave a million a unit and
/// took a batch 23 to 33 s of two cores to cut, where four take under a second.
pub const MOST_BRANCH_ROWS: u32 = 4;

/// Batches counted after the first, at most: with a run's batches of 2^23 tasks, a minute or more of an H200
/// on the frontier's boards. The host holds those under way and the next one, 256 MB each at most.
pub const MOST_BATCHES: usize = 8;

/// The seed of the program's samples: the same batches on every run, so that two machines' rates are of the
/// same tasks (the GPUs of one run each draw their own: the first from this seed, the next from the one after).
pub const SEED: u64 = 0x6e71_7565_656e_7321;

/// How a sampled batch is drawn from a run's units ([`Drawing::new`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drawing {
    /// Units drawn at random, each once.
    pub units: usize,
    /// Rows below a unit's start of the branches kept at random; 0 where units are taken whole.
    pub branch_rows: u32,
    /// The chance each branch has to be kept (1 where units are taken whole).
    pub keep: f64,
    /// Rows below a unit's start of the tasks: the run's.
    pub extra_rows: u32,
    /// Tasks a batch is drawn to hold, about.
    pub tasks: usize,
}

impl Drawing {
    /// How to draw batches of about `tasks` tasks from a run of `units` units cut as `cut`:
    /// - all of them where the run holds no more (the sample is the run);
    /// - else units whole, as many as hold that, where the units are small: [`DRAWN_UNITS`] hold more, or the
    ///   tasks lie fewer than two rows below the units;
    /// - else [`DRAWN_UNITS`] units, each of whose branches some rows below the start (the fewest that leave a
    ///   branch about its share of the batch, by the cut's growth a row, and [`MOST_BRANCH_ROWS`] at most) is
    ///   kept with the chance that makes the batch's tasks about `tasks`.
    pub fn new(cut: Cut, units: usize, tasks: usize) -> Drawing {
        let units = units.max(1);
        let per_unit = (cut.tasks / units as f64).max(1.0);
        let whole = |drawn: usize| Drawing {
            units: drawn.clamp(1, units),
            branch_rows: 0,
            keep: 1.0,
            extra_rows: cut.extra_rows,
            tasks,
        };
        if cut.tasks <= tasks as f64 {
            return whole(units);
        }
        let drawn = DRAWN_UNITS.min(units);
        let share = tasks as f64 / drawn as f64;
        if per_unit <= share || cut.extra_rows < 2 {
            return whole((tasks as f64 / per_unit).ceil() as usize);
        }
        let growth = cut.growth.max(2.0);
        let branch_rows = (1..cut.extra_rows)
            .find(|&rows| per_unit / growth.powi(rows as i32) <= share)
            .unwrap_or(cut.extra_rows - 1)
            .min(MOST_BRANCH_ROWS);
        Drawing {
            units: drawn,
            branch_rows,
            keep: (share / per_unit).min(1.0),
            extra_rows: cut.extra_rows,
            tasks,
        }
    }

    /// This drawing with its chance to keep a branch (or its units, where they are taken whole, of `of`) scaled
    /// so that a batch that held `held` tasks would hold the tasks asked for: the cut's estimate of the run's
    /// tasks, which the drawing is made from, is an estimate (0.8 to 1.35 times the samples' count on
    /// boards 24 to 28, results/gpu.md). Every batch is still a uniform sample of the run's tasks.
    pub fn resized(self, held: usize, of: usize) -> Drawing {
        if held == 0 {
            return self;
        }
        let scale = self.tasks as f64 / held as f64;
        if self.whole() {
            let units = ((self.units as f64 * scale).round() as usize).clamp(1, of.max(1));
            Drawing { units, ..self }
        } else {
            Drawing {
                keep: (self.keep * scale).min(1.0),
                ..self
            }
        }
    }

    /// Whether units are taken whole.
    pub fn whole(&self) -> bool {
        self.branch_rows == 0
    }

    /// Batch number `number` of this drawing from `plan`, seeded by `seed` and `number`: the same batch on every
    /// run and thread count. Its units (the plan's numbers, in order) and the batch.
    pub fn batch(&self, plan: &Plan, seed: u64, number: u64) -> (Vec<usize>, Batch) {
        self.batch_of(plan, None, seed, number)
    }

    /// Batch number `number` of this drawing from the units of `plan` numbered in `units` (a shard's run's), or
    /// from all of them for `None`, as [`Drawing::batch`] draws from the whole plan: the units are drawn among
    /// those alone, in the same way.
    pub fn batch_of(
        &self,
        plan: &Plan,
        units: Option<&[usize]>,
        seed: u64,
        number: u64,
    ) -> (Vec<usize>, Batch) {
        let mut random =
            fastrand::Rng::with_seed(seed ^ number.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let of = units.map_or(plan.units().len(), <[usize]>::len);
        let mut units: Vec<usize> = match units {
            None => draw(of, self.units, &mut random),
            Some(selected) => draw(of, self.units, &mut random)
                .into_iter()
                .map(|i| selected[i])
                .collect(),
        };
        // In the plan's order, as the whole plan's draw gives them (a selection need not be in order).
        units.sort_unstable();
        if self.whole() {
            let batch = prepare(plan, &units, self.extra_rows);
            return (units, batch);
        }
        // Each unit's kept branches, seeded by the unit, on all cores.
        let unit_seed = random.u64(..);
        let parts: Vec<Part> = units
            .par_iter()
            .flat_map_iter(|&unit| self.kept(plan, unit, unit_seed))
            .collect();
        let batch = prepare_parts(plan, &parts);
        (units, batch)
    }

    /// The branches of `plan`'s unit `unit` kept at random (seeded by `seed` and the unit), each a part of its
    /// own; none for a unit with no start of its own (a Burnside unit's) or no row left to the GPU.
    fn kept(&self, plan: &Plan, unit: usize, seed: u64) -> Vec<Part> {
        let width = plan.board().width();
        let Some(start) = plan.start(&plan.units()[unit]) else {
            return Vec::new();
        };
        if super::task::table_of(&start, width).is_none() {
            return Vec::new();
        }
        let (branches, _) = super::task::branches(&start, self.branch_rows);
        let mut random =
            fastrand::Rng::with_seed(seed ^ (unit as u64).wrapping_mul(0xff51_afd7_ed55_8ccd));
        let of = branches.len() as u32;
        (0..of)
            .filter(|_| random.f64() < self.keep)
            .map(|first| Part {
                unit,
                extra_rows: self.extra_rows,
                branch_rows: self.branch_rows,
                first,
                end: first + 1,
                of,
            })
            .collect()
    }
}

/// `count` distinct numbers below `of`, drawn at random, in order.
fn draw(of: usize, count: usize, random: &mut fastrand::Rng) -> Vec<usize> {
    let count = count.min(of);
    let mut drawn: Vec<usize> = if count * 2 >= of {
        let mut all: Vec<usize> = (0..of).collect();
        random.shuffle(&mut all);
        all.truncate(count);
        all
    } else {
        let mut seen = std::collections::HashSet::with_capacity(count);
        while seen.len() < count {
            seen.insert(random.usize(..of));
        }
        seen.into_iter().collect()
    };
    drawn.sort_unstable();
    drawn
}

/// What one GPU measured on its sample.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuRate {
    /// The GPU, by the driver's number.
    pub ordinal: usize,
    /// The GPU, by name.
    pub device: String,
    /// The loop that counted the timed tasks ([`Device::loops`]; empty where the device names none).
    pub loop_name: String,
    /// The trial of the loops on the first batch, where there was one.
    pub trial: Option<Trial>,
    /// Batches counted.
    pub batches: usize,
    /// Tasks timed (the first batch's trial sample aside).
    pub tasks: u64,
    /// Nodes the GPU counted in them.
    pub nodes: u64,
    /// Seconds they took, from their batches' submission to their results, copies and launches included.
    pub seconds: f64,
}

impl GpuRate {
    /// Nodes a second; 0 where nothing was timed.
    pub fn rate(&self) -> f64 {
        if self.seconds > 0.0 {
            self.nodes as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// What the GPUs of a run measured on samples of its tasks ([`sample_on`]).
#[derive(Clone, Debug, PartialEq)]
pub struct GpuSample {
    /// The run's cut: its rows below the units, its tasks.
    pub cut: Cut,
    /// How its batches were drawn.
    pub drawing: Drawing,
    /// Each GPU's measure, in the order of the ordinals: those that did not fail.
    pub gpus: Vec<GpuRate>,
    /// The GPUs that failed, each with its error (`GPU 3: ...`), joined by "; ": the rate is the others'.
    /// Empty where none did.
    pub failed: String,
}

impl GpuSample {
    /// Nodes a second of all the GPUs together.
    pub fn rate(&self) -> f64 {
        self.gpus.iter().map(GpuRate::rate).sum()
    }

    /// Seconds the GPUs would take to count `nodes` nodes at their sampled rate (the host's planning, the
    /// GPUs' start and the last batches' tail aside); `None` where no rate was measured.
    pub fn seconds(&self, nodes: f64) -> Option<f64> {
        let rate = self.rate();
        (rate > 0.0).then(|| nodes / rate)
    }
}

/// Counts batches of the tasks of `run` (a plan's units, all or a shard's) drawn as `drawing` says on the devices
/// `open` opens for `ordinals`, each on a thread of its own, for about `budget` of each device's time once open (its first two batches however long),
/// and returns each device's measure. Device `k` draws from seed `seed + k`.
///
/// A device that fails (or cannot be opened) leaves the measure to the others, as it would leave a count to
/// them ([`super::dispatch`]): the sample names it with its error. It fails only where every device does,
/// with the first one's error.
///
/// A device that does not open, or keeps a batch, past the environment's bounds (as a count's,
/// `NQUEENS_GPU_OPEN_SECONDS` and `NQUEENS_GPU_STALL_SECONDS` among them) is said to `progress`'s notes, and
/// so is its return.
#[allow(clippy::too_many_arguments)]
pub fn sample_on<D: Device>(
    run: Run<'_>,
    cut: Cut,
    drawing: Drawing,
    ordinals: &[usize],
    open: &(dyn Fn(usize) -> Result<D, Error> + Sync),
    budget: Duration,
    seed: u64,
    progress: &dyn Progress,
) -> Result<GpuSample, Error> {
    sample_watched(
        run,
        cut,
        drawing,
        (ordinals, open, &super::known_name),
        budget,
        seed,
        StallBounds::from_environment(),
        progress,
    )
}

/// The devices of a sample: their numbers, how one opens, and its name where known before it opens.
type Sampled<'d, D> = (
    &'d [usize],
    &'d (dyn Fn(usize) -> Result<D, Error> + Sync),
    &'d (dyn Fn(usize) -> Option<String> + Sync),
);

/// [`sample_on`], watched by `bounds`.
#[allow(clippy::too_many_arguments)]
fn sample_watched<D: Device>(
    run: Run<'_>,
    cut: Cut,
    drawing: Drawing,
    (ordinals, open, named): Sampled<'_, D>,
    budget: Duration,
    seed: u64,
    bounds: StallBounds,
    progress: &dyn Progress,
) -> Result<GpuSample, Error> {
    let watches: Vec<Watch> = ordinals.iter().map(|&o| Watch::new(o)).collect();
    let finished = Finished::default();
    let measured: Vec<Result<GpuRate, Error>> = std::thread::scope(|scope| {
        let (watches, finished) = (&watches, &finished);
        scope.spawn(move || {
            watchdog::watch(watches, bounds, Watching::Estimate, progress, finished)
        });
        // However the devices' threads end, the watchdog ends with them.
        let _finishes = SetsFinished(finished);
        let threads: Vec<_> = ordinals
            .iter()
            .zip(watches)
            .enumerate()
            .map(|(k, (&ordinal, watch))| {
                scope.spawn(move || {
                    let opened = || {
                        let device = watch.opening(
                            progress,
                            named,
                            || open(ordinal),
                            |device| Some(device.name()),
                        )?;
                        Ok(Watched::new(device, watch, progress))
                    };
                    measure(
                        run,
                        drawing,
                        ordinal,
                        opened,
                        budget,
                        seed.wrapping_add(k as u64),
                    )
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let (mut gpus, mut failed) = (Vec::new(), Vec::new());
    for (&ordinal, outcome) in ordinals.iter().zip(measured) {
        match outcome {
            Ok(rate) => gpus.push(rate),
            Err(e) => failed.push((ordinal, e)),
        }
    }
    if gpus.is_empty() && !failed.is_empty() {
        return Err(failed.swap_remove(0).1);
    }
    Ok(GpuSample {
        cut,
        drawing,
        gpus,
        failed: failed
            .iter()
            .map(|(ordinal, e)| format!("GPU {ordinal}: {e}"))
            .collect::<Vec<_>>()
            .join("; "),
    })
}

/// One device's measure ([`sample_on`]): opened by `open` while its first batch is cut.
fn measure<D: Device>(
    Run { plan, units }: Run<'_>,
    drawing: Drawing,
    ordinal: usize,
    open: impl FnOnce() -> Result<D, Error> + Send,
    budget: Duration,
    seed: u64,
) -> Result<GpuRate, Error> {
    let (device, (_, first)) = std::thread::scope(|scope| {
        let cut = scope.spawn(|| drawing.batch_of(plan, units, seed, 0));
        let device = open();
        (
            device,
            cut.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
        )
    });
    let mut device = device?;
    let held = first.tasks.len();
    if !device.counts_nodes() {
        return Err(Error::Gpu(
            "the GPU's kernel leaves the nodes uncounted (NQ_UNCOUNTED), and a rate is of nodes"
                .into(),
        ));
    }
    let began = Instant::now();
    let mut rate = GpuRate {
        ordinal,
        device: device.name(),
        loop_name: String::new(),
        trial: None,
        batches: 1,
        tasks: 0,
        nodes: 0,
        seconds: 0.0,
    };
    // The first batch: the loops timed on its sample where there are several, the rest with the chosen one.
    let loops = device.loops();
    let rest = if loops.len() > 1 && first.tasks.len() >= 2 {
        let (rest, timed) = trial::trial(&mut device, first)?;
        rate.loop_name = loops[timed.chosen].clone();
        rate.trial = Some(timed);
        rest
    } else {
        rate.loop_name = loops.first().cloned().unwrap_or_default();
        first
    };
    // The first batch's rest, then the batches after it, each cut while the GPU counts those under way, as
    // many under way as the GPU takes (`Device::depth`), as in a run: one batch's last tasks run beside the
    // next ones' first. One batch after the first at least, then more while the budget lasts (checked as a
    // batch is due to be cut, after one ends where the GPU is full). The rate is their whole time over their
    // nodes.
    rate.tasks += rest.tasks.len() as u64;
    let later = drawing.resized(held, units.map_or(plan.units().len(), <[usize]>::len));
    let in_flight = device.depth().max(1);
    let counted = Instant::now();
    device.submit(rest)?;
    let mut under_way = 1;
    for number in 1..=MOST_BATCHES as u64 {
        if under_way == in_flight {
            let (_, tallies) = device.collect()?;
            rate.nodes += nodes_vouched(&tallies);
            under_way -= 1;
        }
        if number > 1 && began.elapsed() >= budget {
            break;
        }
        let (_, batch) = later.batch_of(plan, units, seed, number);
        rate.batches += 1;
        rate.tasks += batch.tasks.len() as u64;
        device.submit(batch)?;
        under_way += 1;
    }
    for _ in 0..under_way {
        let (_, tallies) = device.collect()?;
        rate.nodes += nodes_vouched(&tallies);
    }
    rate.seconds = counted.elapsed().as_secs_f64();
    Ok(rate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Board;
    use crate::engine::kernel::Tally;
    use crate::engine::plan::Split;
    use crate::engine::symmetry::Symmetry;
    use crate::gpu::sizing::cut;
    use crate::gpu::testing::tallies_of;
    use std::collections::{HashSet, VecDeque};

    /// A device that counts on the host, as the kernel would, with the loops named `loops`, the clock of each
    /// saying a batch took a nanosecond a node times its `pace`.
    struct HostDevice {
        loops: Vec<(String, f64)>,
        using: usize,
        queue: VecDeque<(Batch, f64)>,
        last: Option<f64>,
    }

    impl HostDevice {
        fn new(loops: &[(&str, f64)]) -> HostDevice {
            HostDevice {
                loops: loops.iter().map(|(n, p)| (n.to_string(), *p)).collect(),
                using: 0,
                queue: VecDeque::new(),
                last: None,
            }
        }
    }

    impl Device for HostDevice {
        fn name(&self) -> String {
            "host".into()
        }
        fn depth(&self) -> usize {
            2
        }
        fn submit(&mut self, batch: Batch) -> Result<(), Error> {
            assert!(
                self.queue.len() < self.depth(),
                "more batches under way than the device takes"
            );
            let pace = self.loops.get(self.using).map_or(1.0, |l| l.1);
            self.queue.push_back((batch, pace));
            Ok(())
        }
        fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
            let (batch, pace) = self.queue.pop_front().expect("a batch under way");
            let tallies = tallies_of(&batch);
            let nodes: u64 = tallies.iter().map(|t| t.nodes).sum();
            self.last = Some(nodes as f64 * 1e-9 * pace);
            Ok((batch, tallies.into_iter().map(Some).collect()))
        }
        fn loops(&self) -> Vec<String> {
            self.loops.iter().map(|l| l.0.clone()).collect()
        }
        fn use_loop(&mut self, index: usize) -> Result<(), Error> {
            self.using = index;
            Ok(())
        }
        fn last_seconds(&mut self) -> Result<Option<f64>, Error> {
            Ok(self.last)
        }
    }

    fn plan(n: u32) -> Plan {
        Plan::new(Board::new(n).unwrap(), Symmetry::Full, Split::Depth(2))
    }

    /// The tasks of `plan`'s unit `unit`, cut `rows` rows below its start as a run cuts them, each as its
    /// masks (its slot aside).
    fn tasks_of(plan: &Plan, unit: usize, rows: u32) -> Vec<(u32, u32, u32)> {
        let batch = prepare(plan, &[unit], rows);
        batch.tasks.iter().map(|t| (t.fc, t.ld, t.rd)).collect()
    }

    #[test]
    fn a_run_that_fits_a_sample_is_sampled_whole_and_small_units_are_drawn_whole() {
        let cut = |tasks: f64, extra_rows: u32| Cut {
            extra_rows,
            tasks,
            growth: 4.0,
            ..Cut::default()
        };
        // The whole run.
        let d = Drawing::new(cut(1000.0, 3), 100, 4096);
        assert_eq!((d.units, d.branch_rows, d.keep), (100, 0, 1.0));
        // Units of 10 tasks: 410 of them make 4096.
        let d = Drawing::new(cut(10_000.0, 3), 1000, 4096);
        assert_eq!((d.units, d.branch_rows, d.keep), (410, 0, 1.0));
        // Large units one row below: whole, one at least.
        let d = Drawing::new(cut(1e9, 1), 1000, 4096);
        assert_eq!((d.units, d.whole()), (1, true));
        let d = Drawing::new(cut(4e6, 1), 1000, 40_000);
        assert_eq!((d.units, d.whole()), (10, true));
        // Units of a million tasks, 3 rows below: branches two rows down hold 62,500 tasks, each kept with a
        // chance of 16 / 1e6, for 256 units.
        let d = Drawing::new(cut(1e9, 3), 1000, 4096);
        assert_eq!((d.units, d.branch_rows), (DRAWN_UNITS, 2));
        assert!((d.keep - 16.0 / 1e6).abs() < 1e-12);
        // A batch that came out half the size asked for: twice the chance for the next; units whole, half as many
        // for one twice the size, and no more than the run's.
        let r = d.resized(2048, 1000);
        assert!((r.keep - 2.0 * d.keep).abs() < 1e-15 && r.branch_rows == d.branch_rows);
        assert_eq!(d.resized(0, 1000), d);
        let w = Drawing::new(cut(10_000.0, 3), 1000, 4096);
        assert_eq!(
            (w.resized(8192, 1000).units, w.resized(1, 1000).units),
            (205, 1000)
        );
        // Branches a row above the tasks at most, and MOST_BRANCH_ROWS.
        let d = Drawing::new(cut(1e15, 3), 1000, 4096);
        assert_eq!(d.branch_rows, 2);
        let d = Drawing::new(cut(1e15, 9), 1000, 4096);
        assert_eq!(d.branch_rows, MOST_BRANCH_ROWS);
    }

    #[test]
    fn units_are_drawn_distinct_in_order_and_the_same_for_the_same_seed() {
        for (of, count) in [(10, 10), (10, 4), (1000, 7), (5, 9)] {
            let drawn = draw(of, count, &mut fastrand::Rng::with_seed(3));
            assert_eq!(drawn.len(), count.min(of));
            assert!(drawn.windows(2).all(|w| w[0] < w[1]) && drawn.iter().all(|&u| u < of));
            assert_eq!(drawn, draw(of, count, &mut fastrand::Rng::with_seed(3)));
        }
        assert_ne!(
            draw(1000, 7, &mut fastrand::Rng::with_seed(3)),
            draw(1000, 7, &mut fastrand::Rng::with_seed(4))
        );
    }

    #[test]
    fn a_sampled_batch_holds_tasks_of_the_run_each_once_and_its_units_branches_add_up_to_the_units()
    {
        let plan = plan(13);
        // Branches a row below the units, each kept with a chance of a tenth.
        let drawing = Drawing {
            units: 64,
            branch_rows: 1,
            keep: 0.1,
            extra_rows: 4,
            tasks: 1 << 20,
        };
        let (units, batch) = drawing.batch(&plan, 7, 0);
        assert_eq!(units.len(), 64);
        assert!(!batch.tasks.is_empty() && !batch.parts.is_empty());
        assert_eq!(drawing.batch(&plan, 7, 0).1.tasks, batch.tasks);
        assert_ne!(drawing.batch(&plan, 7, 1).1.tasks, batch.tasks);
        let mut seen = HashSet::new();
        for t in &batch.tasks {
            let (_, part) = batch.parts[t.slot() as usize];
            assert!(units.contains(&part.unit) && part.end == part.first + 1);
            // Each task is one of its unit's, once.
            assert!(tasks_of(&plan, part.unit, 4).contains(&(t.fc, t.ld, t.rd)));
            assert!(seen.insert((part.unit, t.fc, t.ld, t.rd)));
        }
        // Every branch kept, each a part of its own: the drawn units' tasks and tallies, whole.
        let keep_all = Drawing {
            keep: 1.0,
            ..drawing
        };
        let (units, batch) = keep_all.batch(&plan, 7, 0);
        let mut per_unit = std::collections::HashMap::<usize, Tally>::new();
        for ((slot, part), tally) in batch.parts.iter().zip(tallies_of(&batch)) {
            *per_unit.entry(part.unit).or_default() += tally + batch.host[*slot];
        }
        let mut drawn_with_start = 0;
        for &unit in &units {
            if plan.start(&plan.units()[unit]).is_none() {
                assert!(
                    !per_unit.contains_key(&unit),
                    "a Burnside unit is never parted"
                );
                continue;
            }
            drawn_with_start += 1;
            let whole = prepare(&plan, &[unit], 4);
            let tally = tallies_of(&whole)[0] + whole.host[0];
            assert_eq!(
                per_unit.get(&unit).copied().unwrap_or_default(),
                tally,
                "unit {unit}"
            );
        }
        assert!(drawn_with_start > 32);
    }

    #[test]
    fn a_shards_sample_is_drawn_from_the_shards_units_alone() {
        // `estimate --backend gpu --shard 1/3`: the GPUs count tasks of the shard's units, as its run would.
        let plan = plan(13);
        let shard: Vec<usize> = (0..plan.units().len()).filter(|u| u % 3 == 1).collect();
        let drawing = Drawing {
            units: 64,
            branch_rows: 1,
            keep: 0.1,
            extra_rows: 4,
            tasks: 1 << 20,
        };
        for drawing in [
            drawing,
            Drawing {
                branch_rows: 0,
                keep: 1.0,
                ..drawing
            },
        ] {
            let (units, batch) = drawing.batch_of(&plan, Some(&shard), 7, 0);
            assert_eq!(units.len(), 64);
            assert!(units.windows(2).all(|w| w[0] < w[1]), "{units:?}");
            assert!(units.iter().all(|u| u % 3 == 1), "{units:?}");
            assert!(!batch.tasks.is_empty());
            assert!(batch.parts.iter().all(|(_, part)| part.unit % 3 == 1));
            // All the units selected: the whole plan's draw.
            let all: Vec<usize> = (0..plan.units().len()).collect();
            assert_eq!(
                drawing.batch_of(&plan, Some(&all), 7, 0).1.tasks,
                drawing.batch(&plan, 7, 0).1.tasks
            );
        }
        // A GPU's sample of the shard counts the shard's batches.
        let open = |_: usize| Ok(HostDevice::new(&[("only", 1.0)]));
        let run_cut = Cut {
            extra_rows: 4,
            ..cut(&plan, &shard)
        };
        let sample = sample_on(
            Run {
                plan: &plan,
                units: Some(&shard),
            },
            run_cut,
            drawing,
            &[0],
            &open,
            Duration::ZERO,
            3,
            &crate::engine::exec::NoProgress,
        )
        .unwrap();
        let first = drawing.batch_of(&plan, Some(&shard), 3, 0).1;
        let later = drawing.resized(first.tasks.len(), shard.len());
        let second = later.batch_of(&plan, Some(&shard), 3, 1).1;
        let nodes = |batch: &Batch| tallies_of(batch).iter().map(|t| t.nodes).sum::<u64>();
        assert_eq!(sample.gpus[0].nodes, nodes(&first) + nodes(&second));
    }

    #[test]
    fn every_task_of_the_run_is_as_likely_to_be_sampled() {
        // The run's tasks four rows below n = 13's units but the Burnside ones (never parted), and their nodes
        // on the device.
        let plan = plan(13);
        let with_start: Vec<usize> = (0..plan.units().len())
            .filter(|&u| plan.start(&plan.units()[u]).is_some())
            .collect();
        let run = prepare(&plan, &with_start, 4);
        let nodes: u64 = tallies_of(&run).iter().map(|t| t.nodes).sum();
        let tasks = run.tasks.len() as f64;
        // Samples of 64 units, a quarter of their branches two rows down: each task with a chance of
        // 64 / units * 1/4, so the samples' mean, scaled by it, is the run's.
        let drawing = Drawing {
            units: 64,
            branch_rows: 2,
            keep: 0.25,
            extra_rows: 4,
            tasks: 1 << 20,
        };
        let chance = 64.0 / plan.units().len() as f64 * 0.25;
        let samples = 60;
        let (mut sampled_tasks, mut sampled_nodes) = (0.0, 0.0);
        for number in 0..samples {
            let (_, batch) = drawing.batch(&plan, 11, number);
            sampled_tasks += batch.tasks.len() as f64;
            sampled_nodes += tallies_of(&batch).iter().map(|t| t.nodes).sum::<u64>() as f64;
        }
        let scale = 1.0 / (chance * samples as f64);
        let (tasks_seen, nodes_seen) = (sampled_tasks * scale, sampled_nodes * scale);
        assert!(
            (tasks_seen / tasks - 1.0).abs() < 0.1,
            "{tasks_seen} tasks for {tasks}"
        );
        assert!(
            (nodes_seen / nodes as f64 - 1.0).abs() < 0.1,
            "{nodes_seen} nodes for {nodes}"
        );
        // A drawing of the program's, from the run's own cut, keeps the batch near its size.
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let run_cut = Cut {
            extra_rows: 4,
            tasks: prepare(&plan, &all, 4).tasks.len() as f64,
            ..cut(&plan, &all)
        };
        let drawing = Drawing::new(run_cut, all.len(), 1024);
        assert!(!drawing.whole(), "{drawing:?}");
        let sizes: Vec<usize> = (0..8)
            .map(|k| drawing.batch(&plan, 5, k).1.tasks.len())
            .collect();
        let mean = sizes.iter().sum::<usize>() as f64 / sizes.len() as f64;
        assert!((512.0..2048.0).contains(&mean), "{sizes:?} {drawing:?}");
    }

    #[test]
    fn each_gpu_counts_its_own_batches_with_the_loop_its_trial_chose() {
        let plan = plan(13);
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let run_cut = Cut {
            extra_rows: 4,
            ..cut(&plan, &all)
        };
        let drawing = Drawing {
            units: 64,
            branch_rows: 2,
            keep: 0.5,
            extra_rows: 4,
            tasks: 2000,
        };
        let open = |_: usize| Ok(HostDevice::new(&[("slow", 1.0), ("fast", 0.5)]));
        // No time but the first two batches': the first's tasks less the trial's sample, and the next one's,
        // each GPU its own.
        let sample = sample_on(
            Run {
                plan: &plan,
                units: None,
            },
            run_cut,
            drawing,
            &[0, 1],
            &open,
            Duration::ZERO,
            3,
            &crate::engine::exec::NoProgress,
        )
        .unwrap();
        assert_eq!(sample.gpus.len(), 2);
        for (k, gpu) in sample.gpus.iter().enumerate() {
            let seed = 3 + k as u64;
            let first = drawing.batch(&plan, seed, 0).1;
            let later = drawing.resized(first.tasks.len(), plan.units().len());
            let (_, rest) = trial::split(first, trial::SAMPLE_SHARE);
            let second = later.batch(&plan, seed, 1).1;
            assert_eq!(gpu.batches, 2);
            assert_eq!(gpu.tasks, (rest.tasks.len() + second.tasks.len()) as u64);
            assert_eq!(
                gpu.nodes,
                tallies_of(&rest)
                    .iter()
                    .chain(&tallies_of(&second))
                    .map(|t| t.nodes)
                    .sum::<u64>()
            );
            assert_eq!(gpu.loop_name, "fast");
            assert_eq!(gpu.trial.as_ref().map(|t| t.chosen), Some(1));
            assert!(gpu.seconds > 0.0 && gpu.rate() > 0.0);
        }
        assert_ne!(sample.gpus[0].nodes, sample.gpus[1].nodes);
        assert!((sample.rate() - sample.gpus[0].rate() - sample.gpus[1].rate()).abs() < 1e-6);
        assert_eq!(sample.seconds(sample.rate() * 2.0), Some(2.0));
        // With time for more, more batches, back to back, to MOST_BATCHES after the first.
        let open = |_: usize| Ok(HostDevice::new(&[("only", 1.0)]));
        let sample = sample_on(
            Run {
                plan: &plan,
                units: None,
            },
            run_cut,
            drawing,
            &[0],
            &open,
            Duration::from_secs(60),
            3,
            &crate::engine::exec::NoProgress,
        )
        .unwrap();
        let gpu = &sample.gpus[0];
        assert_eq!(
            (gpu.batches, gpu.loop_name.as_str(), gpu.trial.is_none()),
            (1 + MOST_BATCHES, "only", true)
        );
        // The batches after the first drawn to the size asked for, by the first's.
        let first = drawing.batch(&plan, 3, 0).1.tasks.len();
        let later = drawing.resized(first, plan.units().len());
        assert!(later.keep != drawing.keep, "{first} tasks for 2000");
        let tasks: usize = first
            + (1..=MOST_BATCHES as u64)
                .map(|k| later.batch(&plan, 3, k).1.tasks.len())
                .sum::<usize>();
        assert_eq!(gpu.tasks, tasks as u64);
    }

    #[test]
    fn a_gpu_of_an_estimate_that_does_not_open_or_keeps_its_batch_is_said_and_its_return_too() {
        // GPU 0's driver hangs in its opening, GPU 1 keeps its first batch, each until the estimate has said
        // so: each said once, by name, then its return; both measure the same nodes as GPUs that did not hang.
        use crate::gpu::testing::{open_stalling, Stalling};
        use std::sync::atomic::AtomicUsize;
        let plan = plan(12);
        let drawing = Drawing {
            units: 16,
            branch_rows: 0,
            keep: 1.0,
            extra_rows: 2,
            tasks: 1 << 20,
        };
        let bounds = StallBounds {
            paces: 10.0,
            floor: Duration::from_millis(300),
            first: Duration::from_millis(300),
            open: Duration::from_millis(300),
        };
        let run = Run {
            plan: &plan,
            units: None,
        };
        let heard = Heard::default();
        let said = |what: &str| heard.0.lock().unwrap().iter().any(|n| n.contains(what));
        let release = |_: usize| said(" may be hung: ");
        let given_back = AtomicUsize::new(0);
        let open = |ordinal: usize| {
            if ordinal == 0 {
                open_stalling(&|| said(" has not opened after "));
            }
            Ok(Stalling {
                device: HostDevice::new(&[("only", 1.0)]),
                pace: Duration::ZERO,
                stalls_at: (ordinal == 1).then_some(0),
                release: &release,
                given_back: &given_back,
                collected: 0,
            })
        };
        let named = |ordinal: usize| Some(format!("model {ordinal}"));
        let sample = sample_watched(
            run,
            Cut::default(),
            drawing,
            (&[0, 1], &open, &named),
            Duration::ZERO,
            0,
            bounds,
            &heard,
        )
        .unwrap();
        let notes = heard.0.lock().unwrap().clone();
        let about = |start: &str| notes.iter().filter(|n| n.starts_with(start)).count();
        assert_eq!(
            (
                about("gpu 0 (model 0) has not opened after "),
                about("gpu 0 (host) opened after "),
                about("gpu 1 (host) may be hung: the estimate has waited "),
                about("gpu 1 (host) came back after "),
            ),
            (1, 1, 1, 1),
            "{notes:?}"
        );
        assert_eq!(notes.len(), 4, "{notes:?}");
        assert!(
            notes
                .iter()
                .any(|n| n.contains("; the other GPUs sample, and the estimate waits for it; ")),
            "{notes:?}"
        );
        let steady = |_: usize| Ok(HostDevice::new(&[("only", 1.0)]));
        let unhung = sample_watched(
            run,
            Cut::default(),
            drawing,
            (&[0, 1], &steady, &named),
            Duration::ZERO,
            0,
            bounds,
            &crate::engine::exec::NoProgress,
        )
        .unwrap();
        assert_eq!(sample.failed, "");
        let nodes = |s: &GpuSample| {
            s.gpus
                .iter()
                .map(|g| (g.ordinal, g.nodes))
                .collect::<Vec<_>>()
        };
        assert_eq!(nodes(&sample), nodes(&unhung));
    }

    /// Notes heard.
    #[derive(Default)]
    struct Heard(std::sync::Mutex<Vec<String>>);

    impl Progress for Heard {
        fn note(&self, line: &str) {
            self.0.lock().unwrap().push(line.to_string());
        }
    }

    #[test]
    fn a_device_that_cannot_open_or_leaves_the_nodes_uncounted_gives_no_rate_and_the_others_go_on()
    {
        let plan = plan(12);
        let drawing = Drawing {
            units: 16,
            branch_rows: 0,
            keep: 1.0,
            extra_rows: 2,
            tasks: 1 << 20,
        };
        let open = |_: usize| -> Result<HostDevice, Error> { Err(Error::Gpu("no GPU 3".into())) };
        let err = sample_on(
            Run {
                plan: &plan,
                units: None,
            },
            Cut::default(),
            drawing,
            &[3],
            &open,
            Duration::ZERO,
            0,
            &crate::engine::exec::NoProgress,
        )
        .unwrap_err();
        assert!(err.to_string().contains("no GPU 3"), "{err}");
        // Beside one that opens, it is named with its error, and the rate is the other's.
        let open = |ordinal: usize| -> Result<HostDevice, Error> {
            match ordinal {
                3 => Err(Error::Gpu("cannot open GPU 3".into())),
                _ => Ok(HostDevice::new(&[("only", 1.0)])),
            }
        };
        let sample = sample_on(
            Run {
                plan: &plan,
                units: None,
            },
            Cut::default(),
            drawing,
            &[3, 1],
            &open,
            Duration::ZERO,
            0,
            &crate::engine::exec::NoProgress,
        )
        .unwrap();
        assert_eq!(sample.failed, "GPU 3: GPU backend: cannot open GPU 3");
        assert_eq!(sample.gpus.len(), 1);
        assert_eq!(sample.gpus[0].ordinal, 1);
        assert!(sample.rate() > 0.0 && sample.rate() == sample.gpus[0].rate());
        struct Uncounted(HostDevice);
        impl Device for Uncounted {
            fn name(&self) -> String {
                self.0.name()
            }
            fn depth(&self) -> usize {
                1
            }
            fn submit(&mut self, batch: Batch) -> Result<(), Error> {
                self.0.submit(batch)
            }
            fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
                self.0.collect()
            }
            fn counts_nodes(&self) -> bool {
                false
            }
        }
        let open = |_: usize| Ok(Uncounted(HostDevice::new(&[])));
        let err = sample_on(
            Run {
                plan: &plan,
                units: None,
            },
            Cut::default(),
            drawing,
            &[0],
            &open,
            Duration::ZERO,
            0,
            &crate::engine::exec::NoProgress,
        )
        .unwrap_err();
        assert!(err.to_string().contains("uncounted"), "{err}");
    }
}
