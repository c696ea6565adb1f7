//! How many tasks a run is cut into: the rows the host places below each unit's start ([`cut`]).
//!
//! The rows are the fewest that give the run its target of tasks ([`TARGET_TASKS`], less for a smaller run:
//! [`TASK_BALANCE`]) and leave no task more than [`MAX_TASK_ROWS`] rows where the tasks keep
//! [`MIN_TASK_NODES`] each, estimated from a sample of the units. The batches are cut by the tasks this
//! estimates (`batch.rs`), and every unit of them with the rows it chose (`prepare.rs`), a unit of more than
//! [`UNIT_TASKS`] tasks in parts ([`Cut::parted_from`]).

use super::options::knob;
use super::task::{self, Table};
use crate::engine::estimate;
use crate::engine::kernel::Start;
use crate::engine::plan::{Plan, Split};
use rayon::prelude::*;

// Named in the docs alone.
#[cfg(doc)]
use super::{tail_deeper, BATCH_TASKS};

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
/// target's depth (its measured runs), n = 27 would leave 22 without this bound. Unless its tasks would then be
/// smaller than [`MIN_TASK_NODES`] (see [`cut`]).
pub const MAX_TASK_ROWS: u32 = 16;

/// The fewest nodes a task should have on average where the cut goes deeper than its target for the bound on
/// rows ([`MAX_TASK_ROWS`]): each task costs the host its cut (100 to 740 ns of a core) and 16 bytes to copy,
/// so the host keeps up with a GPU whose tasks are large enough. n = 22's, which a 16-core host cuts ahead
/// of an H200, have about 1.2 million (Knuth's estimate of its nodes over its tasks); n = 24's and 25's,
/// at the bound, 740,000 and 830,000, n = 26's and 27's 570,000 and 580,000; n = 28's would have 480,000 at the
/// bound, and stop a row before it with 3.5 million (results/gpu.md).
pub const MIN_TASK_NODES: f64 = 500_000.0;

/// Random descents an estimate of a run's nodes takes below each start of the cut's sample, for
/// [`MIN_TASK_NODES`].
const RUN_DESCENTS: u32 = 1024;

/// [`MAX_TASK_ROWS`], unless `NQUEENS_GPU_TASK_ROWS` says otherwise (3 to 28 rows), for measuring: a batch's
/// tasks of fewer rows need a shallower stack, 20 bytes a thread a row on a square board, so a multiprocessor
/// holds more blocks (n = 22: tasks of 15 rows, 296 bytes a thread, six blocks of 128 threads on an H100 or
/// H200, where 16 rows, 316 bytes, give five), for several times the tasks to cut and copy.
/// The bounds of the program's cut with units of more than `unit_tasks` tasks in parts: [`MAX_TASK_ROWS`] and
/// [`MIN_TASK_NODES`], unless `NQUEENS_GPU_TASK_ROWS` asks for other rows (3 to 28), for measuring; then the
/// tasks are cut to them however small they come.
fn bounds(unit_tasks: usize) -> Bounds {
    let asked = knob("NQUEENS_GPU_TASK_ROWS", |rows: &u32| {
        (3..=task::MAX_SIDE).contains(rows)
    });
    Bounds {
        most_rows: asked.unwrap_or(MAX_TASK_ROWS),
        min_task_nodes: if asked.is_some() { 0.0 } else { MIN_TASK_NODES },
        unit_tasks,
    }
}

/// Tasks the estimate of [`cut`] enumerates at most; deeper, it counts those below a share of the branches
/// at the last depth it enumerated ([`tasks_below_share`]).
const SAMPLE_TASKS: usize = 1 << 22;

/// Tasks a unit goes to a batch with, whole, at most (16 bytes a task: 512 MiB of the host's memory and the
/// GPU's); a larger one is counted in parts, each the tasks below a run of its branches a few rows below its
/// start, of about a quarter of this each (a batch's, [`BATCH_TASKS`]), which may go to different batches
/// and GPUs (`prepare.rs`, [`Cut::parted_from`]). The largest units of n = 26 to 28, cut 7, 8 and 8 rows
/// below their starts, have hundreds of millions of tasks each.
pub const UNIT_TASKS: usize = 1 << 25;

/// [`UNIT_TASKS`], unless `NQUEENS_GPU_UNIT_TASKS` says otherwise (64 to [`UNIT_TASKS`]): for testing the parts
/// of units on a GPU with a board whose count is known (`tests/gpu.rs`).
pub(super) fn unit_tasks() -> usize {
    knob("NQUEENS_GPU_UNIT_TASKS", |t: &usize| {
        (64..=UNIT_TASKS).contains(t)
    })
    .unwrap_or(UNIT_TASKS)
}

/// How a run's units are cut into tasks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cut {
    /// Rows placed below each unit's start.
    pub extra_rows: u32,
    /// The tasks that makes, estimated from a sample of the units.
    pub tasks: f64,
    /// Rows placed below the units of the run's last batches ([`tail_deeper`]): one more than `extra_rows`
    /// where there are rows left.
    pub tail_rows: u32,
    /// The tasks a row more makes of each, about: the sample's last row's growth.
    pub growth: f64,
    /// Units cut this many rows below their starts or more may have more than `unit_tasks` tasks: where they
    /// do, they are counted in parts (`prepare.rs`). `u32::MAX` where none of the sample's would.
    pub parted_from: u32,
    /// The most tasks a unit goes to a batch with, whole ([`UNIT_TASKS`]; fewer in the tests).
    pub unit_tasks: usize,
}

/// The cut of one unit in one task, none of it parted.
impl Default for Cut {
    fn default() -> Self {
        Cut {
            extra_rows: 0,
            tasks: 1.0,
            tail_rows: 0,
            growth: 1.0,
            parted_from: u32::MAX,
            unit_tasks: UNIT_TASKS,
        }
    }
}

impl Cut {
    /// Whether units cut `rows` rows below their starts are to be looked at for parts.
    pub fn parts_at(self, rows: u32) -> bool {
        rows >= self.parted_from
    }

    /// The tasks a part of a unit holds about, and the parts a batch of them (`prepare.rs`): a quarter of
    /// [`Cut::unit_tasks`], the program's [`BATCH_TASKS`].
    pub fn part_tasks(self) -> f64 {
        self.unit_tasks as f64 / 4.0
    }

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
/// leave none more than [`MAX_TASK_ROWS`] rows to search (or what `NQUEENS_GPU_TASK_ROWS` says, for
/// measuring), or the most that still leave tasks to search.
/// Estimated from a sample of the units.
///
/// But the bound on rows takes the cut past its target only while the tasks keep [`MIN_TASK_NODES`] each on
/// average (by an estimate of the run's nodes), so that the host keeps up with the GPU: n = 26 and 27 reach the
/// bound (7 and 8 rows below their units), and n = 28 stops at 8 rows (17 rows left to search) where the bound
/// asks for 9; either way 5 blocks of 128 threads on an H100 or H200 with either loop. A unit with more than
/// [`UNIT_TASKS`] tasks is then counted in parts ([`Cut::parted_from`]).
pub fn cut(plan: &Plan, units: &[usize]) -> Cut {
    cut_with(plan, units, UNIT_TASKS)
}

/// [`cut`], with units of more than `unit_tasks` tasks counted in parts.
pub fn cut_with(plan: &Plan, units: &[usize], unit_tasks: usize) -> Cut {
    let sample = sample(plan, units);
    let starts: Vec<&Start> = sample
        .iter()
        .step_by((sample.len() / SIZING_UNITS).max(1))
        .map(|(_, s)| s)
        .collect();
    let target = target_tasks(&starts, units.len());
    let nodes = || run_nodes(&starts, units.len());
    cut_for(plan, units, &sample, target, &nodes, bounds(unit_tasks))
}

/// Knuth's estimate of the nodes of a run of `units` units of which `starts` are a sample.
fn run_nodes(starts: &[&Start], units: usize) -> f64 {
    let sum: f64 = starts
        .par_iter()
        .enumerate()
        .map(|(i, s)| {
            let mut random = fastrand::Rng::with_seed(i as u64);
            estimate::nodes_below(s, RUN_DESCENTS, &mut random)
        })
        .sum();
    sum * units as f64 / starts.len().max(1) as f64
}

/// What bounds a cut besides its target: the rows a task leaves to search ([`MAX_TASK_ROWS`]), the nodes a task
/// keeps on average where that bound takes the cut past its target ([`MIN_TASK_NODES`]), and the tasks a unit
/// goes to a batch with, whole ([`UNIT_TASKS`]).
#[derive(Clone, Copy, Debug)]
struct Bounds {
    most_rows: u32,
    min_task_nodes: f64,
    unit_tasks: usize,
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

/// [`cut`] with its sample, its target, the run's nodes (asked for only where the bound on rows would take the
/// cut past its target) and its bounds given.
fn cut_for(
    plan: &Plan,
    units: &[usize],
    sample: &[(Table, Start)],
    target: f64,
    nodes: &dyn Fn() -> f64,
    bounds: Bounds,
) -> Cut {
    let width = plan.board().width();
    let of = |extra_rows: u32, tasks: f64, tail_rows: u32| Cut {
        extra_rows,
        tasks,
        tail_rows,
        unit_tasks: bounds.unit_tasks,
        ..Cut::default()
    };
    if sample.is_empty() {
        return of(0, units.len() as f64, 1);
    }
    let scale = units.len() as f64 / sample.len() as f64;
    // Bounded tasks keep a long run's batches short, so its journal keeps up with it.
    let deep_enough = sample
        .iter()
        .map(|(_, s)| (s.frame.end - s.row).saturating_sub(bounds.most_rows))
        .max()
        .unwrap_or(0);
    let mut run_nodes = None;
    let mut previous = 0.0;
    let mut growth = 1.0;
    let mut sampled = 0usize;
    // The last depth whose tasks were enumerated whole.
    let mut whole_rows = 0;
    // The most tasks a unit of the sample has, by depth.
    let mut largest = Vec::new();
    // The cut at `extra_rows` (`tasks` of them), its last batches at `tail_rows`.
    let done = |extra_rows: u32, tasks: f64, tail_rows: u32, growth: f64, largest: &[f64]| {
        // The first depth at which a unit of the sample passes half the bound, or would a row past the
        // sample's depths.
        let half = bounds.unit_tasks as f64 / 2.0;
        let last = largest.len() as u32;
        let parted_from = (0..=tail_rows)
            .find(|&d| {
                let most = match largest.get(d as usize) {
                    Some(&most) => most,
                    None => {
                        largest.last().copied().unwrap_or(1.0) * growth.powi((d + 1 - last) as i32)
                    }
                };
                most > half
            })
            .unwrap_or(u32::MAX);
        Cut {
            growth,
            parted_from,
            ..of(extra_rows, tasks, tail_rows)
        }
    };
    for depth in 0..=MAX_EXTRA_ROWS {
        let estimate = if sampled <= SAMPLE_TASKS {
            let each: Vec<usize> = sample
                .par_iter()
                .map(|(table, start)| task::tasks_at(start, table, width, depth))
                .collect();
            sampled = each.iter().sum();
            largest.push(each.iter().copied().max().unwrap_or(0) as f64);
            let estimate = sampled as f64 * scale;
            if previous > 0.0 {
                growth = estimate / previous;
            }
            whole_rows = depth;
            estimate
        } else {
            // The sample is too large to enumerate again: the tasks below a share of its branches at the last
            // depth enumerated whole, each kept with the same chance, over that chance (where each row
            // multiplying the tasks as the last did took n = 27's and 28's tasks 2.8 and 3.9 times too many:
            // a row's growth falls with the rows left). The largest unit's tasks are still taken to grow
            // so, which rather over-counts them: a unit that may be too large for a batch is looked at.
            let most = largest.last().copied().unwrap_or(1.0);
            largest.push(most * growth);
            let keep = (SAMPLE_TASKS as f64 / (previous / scale * growth)).min(1.0);
            let estimate = tasks_below_share(sample, width, whole_rows, depth, keep) / keep * scale;
            if previous > 0.0 && estimate > 0.0 {
                growth = estimate / previous;
            }
            estimate
        };
        // Past the rows that can be searched the tasks fall away: go no deeper. (As many tasks as a row
        // before is a row with one square open, a border queen's: the rows below it still multiply them.)
        if depth > 0 && estimate < previous {
            return done(depth - 1, previous, depth, growth, &largest);
        }
        // Past its target, the bound on rows takes the cut deeper only while the tasks keep enough nodes.
        if estimate >= target && depth <= deep_enough && depth > 0 && previous >= target {
            let nodes = *run_nodes.get_or_insert_with(nodes);
            if nodes / estimate < bounds.min_task_nodes {
                return done(depth - 1, previous, depth, growth, &largest);
            }
        }
        if estimate >= target && depth >= deep_enough {
            // A smaller run takes the depth nearer its target, a row less if need be: its tasks multiply by
            // several a row, and its target weighs the tail against the cut. A large one takes at least
            // TARGET_TASKS, as measured.
            let nearer = target / previous < estimate / target;
            if target < TARGET_TASKS as f64 && depth > deep_enough && nearer {
                return done(depth - 1, previous, depth, growth, &largest);
            }
            return done(
                depth,
                estimate,
                (depth + 1).min(MAX_EXTRA_ROWS),
                growth,
                &largest,
            );
        }
        previous = estimate;
    }
    done(MAX_EXTRA_ROWS, previous, MAX_EXTRA_ROWS, growth, &largest)
}

/// About `keep` of the tasks of `sample` (its starts with their tables, for a board `width` wide) at `depth`
/// rows below the starts: those below its branches `rows` rows below them (at least one row, and fewer than
/// `depth`; asked for lower, a row above `depth`), each kept at random with the chance `keep`, seeded by its
/// start's place and the depth, so that a cut is the same on every run and thread count.
fn tasks_below_share(
    sample: &[(Table, Start)],
    width: u32,
    rows: u32,
    depth: u32,
    keep: f64,
) -> f64 {
    let rows = rows.clamp(1, depth.saturating_sub(1).max(1));
    if depth <= rows {
        return sample
            .par_iter()
            .map(|(table, start)| task::tasks_at(start, table, width, depth))
            .sum::<usize>() as f64
            * keep;
    }
    sample
        .par_iter()
        .enumerate()
        .map(|(i, (table, start))| {
            let (branches, _) = task::branches(start, rows);
            let mut random = fastrand::Rng::with_seed(u64::from(depth) << 32 | i as u64);
            let kept: Vec<task::Branch> = branches
                .into_iter()
                .filter(|_| random.f64() < keep)
                .collect();
            let mut tasks = 0usize;
            task::split_below(start, table, width, depth, &kept, rows, 0, &mut |_, _| {
                tasks += 1
            });
            tasks
        })
        .sum::<usize>() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Board;
    use crate::engine::symmetry::Symmetry;
    use crate::gpu::prepare;

    /// [`cut_for`] with the program's bound on a unit's tasks, `most_rows` rows left at most, and tasks never
    /// too small.
    fn cut_within(
        plan: &Plan,
        units: &[usize],
        sample: &[(Table, Start)],
        target: f64,
        most_rows: u32,
    ) -> Cut {
        let bounds = Bounds {
            most_rows,
            min_task_nodes: MIN_TASK_NODES,
            unit_tasks: UNIT_TASKS,
        };
        cut_for(plan, units, sample, target, &|| f64::INFINITY, bounds)
    }

    #[test]
    fn a_share_of_the_samples_branches_gives_its_share_of_the_tasks_below() {
        // n = 15's sample, 5 rows below its starts: every branch two rows down gives the tasks exactly, and a
        // quarter of them about a quarter (the same on every call).
        let plan = Plan::new(Board::new(15).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let sample = sample(&plan, &all);
        let width = plan.board().width();
        let exact: usize = sample
            .iter()
            .map(|(table, start)| task::tasks_at(start, table, width, 5))
            .sum();
        assert_eq!(tasks_below_share(&sample, width, 2, 5, 1.0), exact as f64);
        let quarter = tasks_below_share(&sample, width, 2, 5, 0.25);
        assert!(
            (quarter / (exact as f64 / 4.0) - 1.0).abs() < 0.1,
            "{quarter} of {exact}"
        );
        assert_eq!(tasks_below_share(&sample, width, 2, 5, 0.25), quarter);
        assert_ne!(tasks_below_share(&sample, width, 3, 5, 0.25), quarter);
        // Branches asked for at or below the depth are taken a row above it.
        let at_three: usize = sample
            .iter()
            .map(|(table, start)| task::tasks_at(start, table, width, 3))
            .sum();
        assert_eq!(
            tasks_below_share(&sample, width, 4, 3, 1.0),
            at_three as f64
        );
    }

    #[test]
    fn the_cut_aims_at_the_target_and_stops_where_rows_run_out() {
        let plan = Plan::new(Board::new(8).unwrap(), Symmetry::Full, Split::Depth(1));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        // Eight rows cannot make 2^24 tasks: the cut goes as deep as the rows allow and no further.
        let c = cut_within(
            &plan,
            &all,
            &sample(&plan, &all),
            TARGET_TASKS as f64,
            MAX_TASK_ROWS,
        );
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
    fn a_run_cut_at_its_target_takes_a_deeper_tail_and_its_units_too_large_for_a_batch_go_in_parts()
    {
        // One whole border of n = 20 and of n = 24 (the first), cut for a target that rows 4 and 7 reach.
        let cut_one = |n: u32, target: f64| {
            let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, Split::Depth(0));
            let sample = sample(&plan, &[0]);
            (
                cut_within(&plan, &[0], &sample, target, MAX_TASK_ROWS),
                sample,
            )
        };
        // n = 20: 1,721 tasks at row 4, a few ten thousand a row deeper: the last batches take it, the unit
        // whole.
        let (c, _) = cut_one(20, 1000.0);
        assert_eq!((c.extra_rows, c.tail_rows), (4, 5), "{c:?}");
        assert!(
            !c.parts_at(c.tail_rows) && c.parted_from == u32::MAX,
            "{c:?}"
        );
        // n = 24: 3.6 million tasks at row 7, 25 million a row deeper, more than half what a batch holds of a
        // unit: the last batches take it, the unit in parts.
        let (c, sample) = cut_one(24, 3e6);
        assert_eq!((c.extra_rows, c.tail_rows), (7, 8), "{c:?}");
        assert_eq!(c.parted_from, 8, "{c:?}");
        let (table, start) = &sample[0];
        assert!(task::tasks_at(start, table, 24, 7) <= UNIT_TASKS / 2);
        assert!(task::tasks_at(start, table, 24, 8) > UNIT_TASKS / 2);
        // Cut at row 8 for a larger target, the unit goes in parts; its last batches are a row deeper still,
        // 170 million tasks.
        let (c, _) = cut_one(24, 2e7);
        assert_eq!(
            (c.extra_rows, c.tail_rows, c.parted_from),
            (8, 9, 8),
            "{c:?}"
        );
        assert!(task::tasks_at(start, table, 24, 9) > UNIT_TASKS);
        assert!((5.0..10.0).contains(&c.growth), "{c:?}");
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
        // Tasks of a row fewer asked for (NQUEENS_GPU_TASK_ROWS, for measuring): a row deeper, several times
        // the tasks.
        let sampled = sample(&plan, &first);
        let target = TARGET_TASKS as f64;
        let nodes = || {
            run_nodes(
                &sampled.iter().map(|(_, s)| s).collect::<Vec<_>>(),
                first.len(),
            )
        };
        let within = |most_rows, min_task_nodes| {
            let bounds = Bounds {
                most_rows,
                min_task_nodes,
                unit_tasks: UNIT_TASKS,
            };
            cut_for(&plan, &first, &sampled, target, &nodes, bounds)
        };
        assert_eq!(within(MAX_TASK_ROWS, MIN_TASK_NODES), c);
        // (Asked for, however small the tasks then come: these 1,000 units of 3e13 nodes in 700 million
        // tasks.)
        let shorter = within(MAX_TASK_ROWS - 1, 0.0);
        assert!(within(MAX_TASK_ROWS - 1, MIN_TASK_NODES).extra_rows == c.extra_rows);
        assert_eq!(shorter.extra_rows, c.extra_rows + 1, "{shorter:?}");
        assert!(shorter.tasks > 4.0 * c.tasks, "{shorter:?} against {c:?}");
    }

    #[test]
    fn the_frontiers_boards_are_cut_as_deep_as_their_tasks_size_allows_their_largest_units_in_parts(
    ) {
        // Whole runs of n = 24 to 28 (every unit: 300,000 to 790,000 of them): up to n = 27, the bound on
        // rows decides (16 left to search); at n = 28, the tasks' size, with 17 rows left, 8 rows below the
        // units (4.6e13 tasks). The largest units of n = 26 to 28 are counted in parts.
        // (n, rows left to search, units in parts, units of the last batches in parts)
        let boards = [
            (24, 16, false, false),
            (25, 16, false, true),
            (26, 16, true, true),
            (27, 16, true, true),
            (28, 17, true, true),
        ];
        for (n, rows_left, parted, tail_parted) in boards {
            let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, split_for(16));
            let all: Vec<usize> = (0..plan.units().len()).collect();
            let c = cut(&plan, &all);
            let start = plan.start(&plan.units()[0]).unwrap();
            assert_eq!(
                start.frame.end - start.row - c.extra_rows,
                rows_left,
                "n = {n}: {c:?}"
            );
            assert_eq!(c.parts_at(c.extra_rows), parted, "n = {n}: {c:?}");
            assert_eq!(c.parts_at(c.tail_rows), tail_parted, "n = {n}: {c:?}");
            assert_eq!(c.tail_rows, c.extra_rows + 1, "n = {n}: {c:?}");
            // The tasks keep half a million nodes each, and would not a row deeper but where the bound on
            // rows stopped the cut.
            let sampled = sample(&plan, &all);
            let starts: Vec<&Start> = sampled
                .iter()
                .step_by((sampled.len() / SIZING_UNITS).max(1))
                .map(|(_, s)| s)
                .collect();
            let nodes = run_nodes(&starts, all.len());
            assert!(
                nodes / c.tasks >= MIN_TASK_NODES,
                "n = {n}: {nodes:e} nodes, {c:?}"
            );
            if rows_left > MAX_TASK_ROWS {
                let deeper = c.tasks * c.growth;
                assert!(
                    nodes / deeper < MIN_TASK_NODES,
                    "n = {n}: {nodes:e} nodes, {c:?}"
                );
            }
        }
    }
}
