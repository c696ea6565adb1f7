//! Executors: running a plan's work units and summing their counts.
//!
//! An executor knows nothing of how a unit is counted (the plan turns a unit into a kernel start, the kernel
//! counts it) and the kernel knows nothing of executors. Every worker runs one kernel stream that takes the
//! next unnumbered unit from a shared counter whenever one of its lanes is free, so work is balanced to the
//! unit without any lock. The serial executor is the same worker on the calling thread. Both report each
//! finished unit to a [`Progress`].
//!
//! [`run_selected`] runs only some of the units (those a journal has not recorded, those of one shard) and
//! stops early when asked: the stop flag is read each time a lane asks for its next unit, so the units already
//! in the lanes finish and are reported, and no unit is reported unless it was counted whole.

use crate::engine::count::Count;
use crate::engine::kernel;
use crate::engine::plan::{Plan, WorkUnit};
use crate::error::Error;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// What counts a plan's units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// The CPU kernel on a pool of worker threads.
    #[default]
    Cpu,
    /// The first GPU ([`crate::gpu`]); the host's cores cut its tasks.
    Gpu,
}

impl Backend {
    /// Every backend, in the order the command line lists them.
    pub const ALL: [Backend; 2] = [Backend::Cpu, Backend::Gpu];

    /// Its name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
        }
    }
}

/// Its name, as [`Symmetry`](crate::Symmetry) and the other modes print theirs.
impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A backend name that is not one of [`Backend::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend `{given}` ({})", Backend::ALL.map(Backend::name).join(" or "))]
pub struct UnknownBackend {
    /// The name given.
    pub given: String,
}

impl std::str::FromStr for Backend {
    type Err = UnknownBackend;
    fn from_str(s: &str) -> Result<Backend, UnknownBackend> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| UnknownBackend {
                given: s.to_string(),
            })
    }
}

/// Told about the progress of a run, from any worker thread. The library draws nothing itself: the binary
/// puts a progress bar behind this.
///
/// Every method has a default that does nothing, so a watcher implements what it needs:
///
/// ```
/// use nqueens::engine::exec::Run;
/// use nqueens::engine::plan::WorkUnit;
/// use nqueens::{count, Count, CountRequest, Progress};
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// #[derive(Default)]
/// struct Done { units: AtomicUsize, of: AtomicUsize }
///
/// impl Progress for Done {
///     fn start(&self, run: Run<'_>) {
///         self.of.store(run.len(), Ordering::Relaxed);
///     }
///     fn unit_done(&self, _unit: &WorkUnit, _count: &Count) {
///         self.units.fetch_add(1, Ordering::Relaxed);
///     }
/// }
///
/// let done = Done::default();
/// let result = count(&CountRequest::new(10)?.threads(2), &done)?;
/// assert_eq!(result.total, 724);
/// assert_eq!(done.units.load(Ordering::Relaxed), done.of.load(Ordering::Relaxed));
/// # Ok::<(), nqueens::Error>(())
/// ```
pub trait Progress: Sync {
    /// The run starts: it counts `run`'s units.
    fn start(&self, _run: Run<'_>) {}
    /// One more unit was counted.
    fn unit_done(&self, _unit: &WorkUnit, _count: &Count) {}
    /// A line worth telling whoever watches the run, once, as it goes on: what a GPU's trial of its loops
    /// measured, say. The binary writes it on standard error, out of a progress bar's way.
    fn note(&self, _line: &str) {}
}

/// What a run counts, as it starts: a plan's units, all of them or some.
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    /// The plan whose units are counted.
    pub plan: &'a Plan,
    /// The numbers of the units counted, or `None` for every unit of the plan.
    pub units: Option<&'a [usize]>,
}

impl Run<'_> {
    /// The number of units the run counts.
    pub fn len(&self) -> usize {
        self.units.map_or(self.plan.units().len(), <[usize]>::len)
    }

    /// Whether the run counts nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Refuses a run that names a unit the plan does not have: counted, it would be skipped unsaid, and sampled,
    /// it would be read past the plan's end; or one unit twice: counted twice, its solutions would be in the
    /// total twice (n = 8's units named twice counted 184).
    pub fn check(&self) -> Result<(), Error> {
        let units = self.plan.units().len();
        let Some(asked) = self.units else {
            return Ok(());
        };
        if let Some(&unit) = asked.iter().find(|&&u| u >= units) {
            return Err(Error::UnitOutsidePlan { unit, units });
        }
        let mut named = vec![false; units];
        for &unit in asked {
            if std::mem::replace(&mut named[unit], true) {
                return Err(Error::UnitRepeated { unit });
            }
        }
        Ok(())
    }
}

/// Progress that nobody watches.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// Counts every unit of `plan` on the calling thread.
pub fn run_serial(plan: &Plan, progress: &dyn Progress) -> Count {
    progress.start(Run { plan, units: None });
    work(plan, &Selection::All, &AtomicUsize::new(0), progress)
}

/// Counts every unit of `plan` on a pool of `threads` worker threads.
pub fn run_parallel(plan: &Plan, threads: usize, progress: &dyn Progress) -> Result<Count, Error> {
    run_on_pool(plan, threads, &Selection::All, progress)
}

/// Counts the units of `plan` numbered in `units` on a pool of `threads` worker threads, until they are done
/// or `stop` is set. The count covers exactly the units reported to `progress`.
///
/// # Errors
/// [`Error::UnitOutsidePlan`] for a number that is none of the plan's units, [`Error::UnitRepeated`] for one
/// named twice, before anything is counted.
pub fn run_selected(
    plan: &Plan,
    units: &[usize],
    threads: usize,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<Count, Error> {
    Run {
        plan,
        units: Some(units),
    }
    .check()?;
    run_on_pool(plan, threads, &Selection::Only { units, stop }, progress)
}

/// Which units a run counts.
enum Selection<'a> {
    /// All of them, in order.
    All,
    /// These, in this order, until `stop` is set.
    Only {
        units: &'a [usize],
        stop: &'a AtomicBool,
    },
}

impl Selection<'_> {
    /// The run of `plan` this selects, as its watchers are told of it.
    fn run<'a>(&'a self, plan: &'a Plan) -> Run<'a> {
        Run {
            plan,
            units: match self {
                Selection::All => None,
                Selection::Only { units, .. } => Some(units),
            },
        }
    }

    /// The `i`-th unit to count, or `None` when there are no more or the run is stopping.
    fn get<'p>(&self, plan: &'p Plan, i: usize) -> Option<&'p WorkUnit> {
        match self {
            Selection::All => plan.units().get(i),
            Selection::Only { units, stop } => {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                plan.units().get(*units.get(i)?)
            }
        }
    }
}

/// Counts `selection` on `threads` worker threads, each taking the next unit from one shared counter.
///
/// Plain threads rather than a work-stealing pool: the units are already the shares of the work, and a pool's
/// idle workers keep looking for work to steal, through a list of every worker, so that with many more threads
/// than processors the looking took the processors: `count 4 --threads 4096` took 39 s on 2 cores in a rayon
/// pool, 0.2 s on plain threads. A thread past the number of units would have nothing to count and is not
/// started.
fn run_on_pool(
    plan: &Plan,
    threads: usize,
    selection: &Selection,
    progress: &dyn Progress,
) -> Result<Count, Error> {
    if threads == 0 {
        return Err(Error::NoThreads);
    }
    let run = selection.run(plan);
    let units = run.len();
    progress.start(run);
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let mut workers = Vec::with_capacity(threads.min(units));
        for i in 0..threads.min(units.max(1)) {
            let worker = std::thread::Builder::new()
                .name(format!("nqueens-worker-{i}"))
                .spawn_scoped(scope, || work(plan, selection, &next, progress));
            match worker {
                Ok(worker) => workers.push(worker),
                Err(e) => {
                    // The workers started take no more units; what they finish was reported and is kept.
                    next.store(usize::MAX / 2, Ordering::Relaxed);
                    return Err(Error::ThreadPool {
                        threads,
                        reason: e.to_string(),
                    });
                }
            }
        }
        Ok(workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .sum())
    })
}

/// One worker: counts units taken from `next` until none are left.
fn work(plan: &Plan, selection: &Selection, next: &AtomicUsize, progress: &dyn Progress) -> Count {
    // Units the kernel cannot count (those enumerated for Burnside's lemma) are counted as they are drawn.
    let mut drawn = Count::default();
    let mut sum = Count::default();
    kernel::count_stream_lines(
        plan.board().width(),
        plan.board().lines(),
        || loop {
            let unit = selection.get(plan, next.fetch_add(1, Ordering::Relaxed))?;
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

/// Tells two watchers about the same run: a journal and a progress bar, say.
pub struct Tee<'a>(pub &'a dyn Progress, pub &'a dyn Progress);

impl std::fmt::Debug for Tee<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tee(..)")
    }
}

impl Progress for Tee<'_> {
    fn start(&self, run: Run<'_>) {
        self.0.start(run);
        self.1.start(run);
    }
    fn unit_done(&self, unit: &WorkUnit, count: &Count) {
        self.0.unit_done(unit, count);
        self.1.unit_done(unit, count);
    }
    fn note(&self, line: &str) {
        self.0.note(line);
        self.1.note(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tee_tells_both_watchers_each_note() {
        #[derive(Default)]
        struct Notes(std::sync::Mutex<Vec<String>>);
        impl Progress for Notes {
            fn note(&self, line: &str) {
                self.0.lock().unwrap().push(line.to_string());
            }
        }
        let (a, b) = (Notes::default(), Notes::default());
        Tee(&a, &b).note("gpu 0: the kernel's loops timed");
        NoProgress.note("nobody hears this");
        for notes in [a, b] {
            assert_eq!(
                notes.0.into_inner().unwrap(),
                ["gpu 0: the kernel's loops timed"]
            );
        }
    }

    #[test]
    fn a_backend_is_named_as_the_command_line_spells_it() {
        assert_eq!(Backend::ALL.map(Backend::name), ["cpu", "gpu"]);
        for backend in Backend::ALL {
            assert_eq!(backend.name().parse::<Backend>(), Ok(backend));
        }
        // A caller can tell the mistake from other errors, and has the name given to show or correct.
        let unknown = "GPU".parse::<Backend>().unwrap_err();
        assert_eq!(unknown.given, "GPU");
        assert_eq!(unknown.to_string(), "unknown backend `GPU` (cpu or gpu)");
    }

    /// Progress that remembers what it was told.
    #[derive(Default)]
    struct Seen {
        started: AtomicUsize,
        done: AtomicUsize,
    }

    impl Progress for Seen {
        fn start(&self, run: Run<'_>) {
            self.started.store(run.len(), Ordering::Relaxed);
        }
        fn unit_done(&self, _unit: &WorkUnit, _count: &Count) {
            self.done.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn both_watchers_of_a_tee_hear_of_the_start_and_of_every_unit() {
        use crate::engine::{board::Board, plan::Split, symmetry::Symmetry};
        let plan = Plan::new(Board::new(8).unwrap(), Symmetry::Full, Split::Depth(2));
        let every_other: Vec<usize> = (0..plan.units().len()).step_by(2).collect();
        assert!(every_other.len() > 1);
        let (a, b) = (Seen::default(), Seen::default());
        let count = run_selected(
            &plan,
            &every_other,
            2,
            &AtomicBool::new(false),
            &Tee(&a, &b),
        )
        .unwrap();
        assert_eq!(count.units as usize, every_other.len());
        for seen in [&a, &b] {
            assert_eq!(seen.started.load(Ordering::Relaxed), every_other.len());
            assert_eq!(seen.done.load(Ordering::Relaxed), every_other.len());
        }
        // A run stopped before it starts is still announced, and counts nothing.
        let (a, b) = (Seen::default(), Seen::default());
        let count =
            run_selected(&plan, &every_other, 2, &AtomicBool::new(true), &Tee(&a, &b)).unwrap();
        assert_eq!(count, Count::default());
        for seen in [&a, &b] {
            assert_eq!(seen.started.load(Ordering::Relaxed), every_other.len());
            assert_eq!(seen.done.load(Ordering::Relaxed), 0);
        }
    }

    #[test]
    fn a_unit_the_plan_does_not_have_is_refused_rather_than_skipped() {
        use crate::engine::{board::Board, plan::Split, symmetry::Symmetry};
        let plan = Plan::new(Board::new(8).unwrap(), Symmetry::Full, Split::Depth(1));
        let units = plan.units().len();
        // The 0 of 117 before was skipped unsaid: the count had one unit fewer than asked for.
        let asked: Vec<usize> = std::iter::once(units + 5).chain(0..units).collect();
        let seen = Seen::default();
        assert_eq!(
            run_selected(&plan, &asked, 1, &AtomicBool::new(false), &seen),
            Err(Error::UnitOutsidePlan {
                unit: units + 5,
                units
            })
        );
        assert_eq!(seen.started.load(Ordering::Relaxed), 0, "nothing started");
    }

    #[test]
    fn a_backend_prints_its_name_and_reads_back() {
        for backend in Backend::ALL {
            assert_eq!(backend.to_string().parse::<Backend>(), Ok(backend));
        }
        assert_eq!(Backend::Gpu.to_string(), "gpu");
    }

    #[test]
    fn a_unit_named_twice_is_refused_rather_than_counted_twice() {
        use crate::engine::{board::Board, plan::Split, symmetry::Symmetry};
        let plan = Plan::new(Board::new(8).unwrap(), Symmetry::None, Split::Depth(1));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        // Every unit twice counted 184 solutions of n = 8, which has 92.
        let twice: Vec<usize> = all.iter().chain(&all).copied().collect();
        let seen = Seen::default();
        assert_eq!(
            run_selected(&plan, &twice, 2, &AtomicBool::new(false), &seen),
            Err(Error::UnitRepeated { unit: 0 })
        );
        assert_eq!(
            run_selected(&plan, &[3, 5, 3], 1, &AtomicBool::new(false), &seen),
            Err(Error::UnitRepeated { unit: 3 })
        );
        assert_eq!(seen.started.load(Ordering::Relaxed), 0, "nothing started");
        let once = run_selected(&plan, &all, 2, &AtomicBool::new(false), &seen).unwrap();
        assert_eq!(once.total, 92);
    }
}
