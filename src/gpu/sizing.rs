//! How many tasks a run is cut into: the rows the host places below each unit's start ([`cut`]).
//!
//! The rows are the fewest that give the run its target of tasks ([`TARGET_TASKS`], less for a smaller run:
//! [`TASK_BALANCE`]) and leave no task more than [`MAX_TASK_ROWS`] rows, estimated from a sample of the units,
//! within what a batch holds of one unit ([`UNIT_TASKS`]). The batches are cut by the tasks this estimates
//! (`batch.rs`), and every unit of them with the rows it chose (`prepare.rs`).

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
/// target's depth (its measured runs), n = 27 would leave 22 without this bound. Unless a unit would then have
/// more than [`UNIT_TASKS`] tasks (see [`cut`]).
pub const MAX_TASK_ROWS: u32 = 16;

/// [`MAX_TASK_ROWS`], unless `NQUEENS_GPU_TASK_ROWS` says otherwise (3 to 28 rows), for measuring: a batch's
/// tasks of fewer rows need a shallower stack, 20 bytes a thread a row on a square board, so a multiprocessor
/// holds more blocks (n = 22: tasks of 15 rows, 296 bytes a thread, six blocks of 128 threads on an H100 or
/// H200, where 16 rows, 316 bytes, give five), for several times the tasks to cut and copy.
fn max_task_rows() -> u32 {
    knob("NQUEENS_GPU_TASK_ROWS", |rows: &u32| {
        (3..=task::MAX_SIDE).contains(rows)
    })
    .unwrap_or(MAX_TASK_ROWS)
}

/// Tasks the estimate of [`cut`] enumerates at most; deeper, it extrapolates.
const SAMPLE_TASKS: usize = 1 << 22;

/// Tasks a unit is cut into at most ([`cut`]): a unit's tasks go to the GPU in one batch, which holds them all
/// in the host's memory and the GPU's (16 bytes a task: 512 MiB). Four times [`BATCH_TASKS`], so that the
/// units of n = 27 and 28 take 6 rows, not 5: with 5, a task of n = 27 is 4.7e8 nodes on average (the
/// largest of 48 counted, 1.15e9), about a minute of a GPU thread, near the bound past which the kernel does
/// not trust its 32-bit counters (2^32 turns; results/gpu.md); with 6, about ten times fewer.
pub const UNIT_TASKS: usize = 1 << 25;

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
/// leave none more than [`MAX_TASK_ROWS`] rows to search (or what `NQUEENS_GPU_TASK_ROWS` says, for
/// measuring), or the most that still leave tasks to search.
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
    let target = target_tasks(&starts, units.len());
    cut_for(plan, units, &sample, target, max_task_rows())
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

/// [`cut`] with its sample, its target and the most rows a task leaves to search given.
fn cut_for(
    plan: &Plan,
    units: &[usize],
    sample: &[(Table, Start)],
    target: f64,
    most_rows: u32,
) -> Cut {
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
        .map(|(_, s)| (s.frame.end - s.row).saturating_sub(most_rows))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Board;
    use crate::engine::symmetry::Symmetry;
    use crate::gpu::prepare;

    #[test]
    fn the_cut_aims_at_the_target_and_stops_where_rows_run_out() {
        let plan = Plan::new(Board::new(8).unwrap(), Symmetry::Full, Split::Depth(1));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        // Eight rows cannot make 2^24 tasks: the cut goes as deep as the rows allow and no further.
        let c = cut_for(
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
    fn a_run_cut_at_its_target_takes_a_deeper_tail_only_where_a_unit_still_fits_a_batch() {
        // One whole border of n = 20 and of n = 24 (the first), cut for a target that rows 4 and 7 reach.
        let cut_one = |n: u32, target: f64| {
            let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, Split::Depth(0));
            let sample = sample(&plan, &[0]);
            (cut_for(&plan, &[0], &sample, target, MAX_TASK_ROWS), sample)
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
        // Tasks of a row fewer asked for (NQUEENS_GPU_TASK_ROWS, for measuring): a row deeper, several times
        // the tasks.
        let sampled = sample(&plan, &first);
        let target = TARGET_TASKS as f64;
        assert_eq!(cut_for(&plan, &first, &sampled, target, MAX_TASK_ROWS), c);
        let shorter = cut_for(&plan, &first, &sampled, target, MAX_TASK_ROWS - 1);
        assert_eq!(shorter.extra_rows, c.extra_rows + 1, "{shorter:?}");
        assert!(shorter.tasks > 4.0 * c.tasks, "{shorter:?} against {c:?}");
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
}
