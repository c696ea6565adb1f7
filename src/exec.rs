//! Executors: running a plan's work units and summing their counts.
//!
//! An executor knows nothing of how a unit is counted (the plan turns a unit into a kernel start, the kernel
//! counts it) and the kernel knows nothing of executors. Every worker runs one kernel stream that takes the
//! next unnumbered unit from a shared counter whenever one of its lanes is free, so work is balanced to the
//! unit without any lock. The serial executor is the same worker on the calling thread. Both report each
//! finished unit to a [`Progress`].

use crate::count::Count;
use crate::error::Error;
use crate::kernel;
use crate::plan::{Plan, WorkUnit};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Told about the progress of a run, from any worker thread. The library draws nothing itself: the binary
/// puts a progress bar behind this.
pub trait Progress: Sync {
    /// The run starts with `units` units to count.
    fn start(&self, _units: usize) {}
    /// One more unit was counted.
    fn unit_done(&self, _unit: &WorkUnit, _count: &Count) {}
}

/// Progress that nobody watches.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// Counts every unit of `plan` on the calling thread.
pub fn run_serial(plan: &Plan, progress: &dyn Progress) -> Count {
    progress.start(plan.units().len());
    work(plan, &AtomicUsize::new(0), progress)
}

/// Counts every unit of `plan` on a pool of `threads` worker threads.
pub fn run_parallel(plan: &Plan, threads: usize, progress: &dyn Progress) -> Result<Count, Error> {
    if threads == 0 {
        return Err(Error::NoThreads);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("nqueens-worker-{i}"))
        .build()
        .map_err(|e| Error::ThreadPool {
            threads,
            reason: e.to_string(),
        })?;
    progress.start(plan.units().len());
    let next = AtomicUsize::new(0);
    Ok(pool
        .broadcast(|_| work(plan, &next, progress))
        .into_iter()
        .sum())
}

/// One worker: counts units taken from `next` until none are left.
fn work(plan: &Plan, next: &AtomicUsize, progress: &dyn Progress) -> Count {
    let units = plan.units();
    // Units the kernel cannot count (those enumerated for Burnside's lemma) are counted as they are drawn.
    let mut drawn = Count::default();
    let mut sum = Count::default();
    kernel::count_stream_lines(
        plan.board().width(),
        plan.board().lines(),
        || loop {
            let unit = units.get(next.fetch_add(1, Ordering::Relaxed))?;
            match plan.start(unit) {
                Some(start) => return Some((unit, start)),
                None => {
                    let count = plan.count_unit(unit);
                    progress.unit_done(unit, &count);
                    drawn += count;
                }
            }
        },
        |unit, tally| {
            let count = plan.weigh(unit, tally);
            progress.unit_done(unit, &count);
            sum += count;
        },
    );
    sum + drawn
}
