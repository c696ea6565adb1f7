//! Progress on standard error: a bar with an ETA for a person at a terminal, or a plain line at intervals for a
//! log (a batch job's output file, `nohup`), counting work units done and left.
//!
//! The bar's length and the time left follow the units' estimated work ([`WorkEstimate`]), not their number:
//! units differ in size, in an order that made a time left from units several times too long.
//!
//! The library reports progress through [`nqueens::engine::exec::Progress`] and draws nothing; this is the binary's
//! drawing of it, the bar with indicatif. The bar is drawn only when standard error is a terminal; elsewhere a
//! run writes a line every [`LOG_INTERVAL`] (or `--progress-every`), so a run of hours leaves a trace in its
//! log without any animation. With `--quiet` there is neither (but the lines `--progress-every` asks for by
//! name), and the workers' callbacks cost one branch.

use arc_swap::ArcSwapOption;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens::engine::count::Count;
use nqueens::engine::estimate::WorkEstimate;
use nqueens::engine::exec::{Progress, Run};
use nqueens::WorkUnit;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How often a run whose standard error is not a terminal writes a line of progress, unless told otherwise.
pub const LOG_INTERVAL: Duration = Duration::from_secs(600);

/// The shortest interval between two lines, and the least the writer waits after each: shorter is never meant
/// (`1ns` for `1s`), and the wait is the run's turn at the clock, which the writer must never keep from it.
pub const MIN_INTERVAL: Duration = Duration::from_millis(1);

/// A progress bar over work units, lines of progress at intervals, or nothing.
pub struct Bar {
    bar: Option<ProgressBar>,
    log: Option<Log>,
    /// Whether each run restarts the bar (a sweep of counts) or adds to one bar sized in advance (a bench).
    restart_each_run: bool,
    /// The run's estimated work, and the nodes of work a tick of the bar and the log's tally stands for; none
    /// for a bar of units.
    work: ArcSwapOption<(WorkEstimate, f64)>,
    /// Units of the run, done and in all, for the bar that shows work.
    units: Arc<[AtomicU64; 2]>,
    /// `--quiet`: the library's notes (a GPU that fails or keeps its batch) are not said, even where lines of
    /// progress are written because `--progress-every` asked for them.
    quiet: bool,
}

/// Lines of progress, written by a thread of their own at each interval of a run.
///
/// Every run whose standard error is not a terminal keeps one (the benchmark workload of other suites among
/// them), so the workers' part is two additions on a cache line of their own thread: each thread counts its
/// units in a slot, and the writer sums the slots. The writer keeps the time itself, so a run whose units each
/// take longer than the interval (the largest boards) still writes its lines on time, with no unit counted.
struct Log {
    every: Duration,
    /// What the workers, the run's start and the writer share.
    shared: Arc<LogShared>,
    /// The writer, stopped and joined when the log is dropped.
    writer: Option<std::thread::JoinHandle<()>>,
}

struct LogShared {
    /// The words before the figures ("n = 17").
    message: Mutex<String>,
    /// Units of the run.
    units: AtomicU64,
    /// The run's estimated work, in ticks; 0 where it has no estimate.
    work: AtomicU64,
    /// Units counted and their estimated work, summed over the slots.
    tally: [Slot; SLOTS],
    /// When the run started and the next line is due; the writer waits on `wake` for them to change.
    clock: Mutex<Clock>,
    wake: Condvar,
    /// Where the lines go: standard error, or a test's buffer.
    sink: Box<dyn Fn(&str) + Send + Sync>,
}

#[derive(Default)]
struct Clock {
    /// When the run started; none before the first run.
    started: Option<Instant>,
    /// When the next line is due; none: never (no run yet, or an interval beyond the clock).
    due: Option<Instant>,
    /// The log was dropped: the writer ends.
    stopped: bool,
}

/// Slots of the units' tally: threads beyond these share one, which is correct, only slower.
const SLOTS: usize = 64;

/// A thread's counters, on a cache line of their own: units counted and their estimated work in ticks.
#[derive(Default)]
#[repr(align(128))]
struct Slot {
    units: AtomicU64,
    work: AtomicU64,
}

thread_local! {
    /// This thread's slot of a tally.
    static SLOT: usize = {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        NEXT.fetch_add(1, Ordering::Relaxed) % SLOTS
    };
}

impl Log {
    /// Lines at `every` on standard error.
    fn new(every: Duration) -> Log {
        Log::writing_to(every, |line| note!("{line}"))
    }

    /// Lines at `every`, each handed to `sink`.
    fn writing_to(every: Duration, sink: impl Fn(&str) + Send + Sync + 'static) -> Log {
        let shared = Arc::new(LogShared {
            message: Mutex::new(String::new()),
            units: AtomicU64::new(0),
            work: AtomicU64::new(0),
            tally: std::array::from_fn(|_| Slot::default()),
            clock: Mutex::new(Clock::default()),
            wake: Condvar::new(),
            sink: Box::new(sink),
        });
        let writer = {
            let shared = shared.clone();
            // Without a thread (the system refuses one) the run goes on without lines.
            std::thread::Builder::new()
                .name("progress lines".into())
                .spawn(move || shared.write_lines(every))
                .ok()
        };
        Log {
            every,
            shared,
            writer,
        }
    }

    /// A run of `units` units and `work` ticks of estimated work (0: not estimated) starts.
    fn start(&self, units: usize, work: u64) {
        let shared = &self.shared;
        let mut clock = shared.lock_clock();
        shared.units.store(units as u64, Ordering::Relaxed);
        shared.work.store(work, Ordering::Relaxed);
        for slot in &shared.tally {
            slot.units.store(0, Ordering::Relaxed);
            slot.work.store(0, Ordering::Relaxed);
        }
        let now = Instant::now();
        clock.started = Some(now);
        clock.due = now.checked_add(self.every);
        shared.wake.notify_all();
    }

    /// A unit of `work` ticks of estimated work was counted.
    fn unit_done(&self, work: u64) {
        let slot = &self.shared.tally[SLOT.with(|s| *s)];
        slot.units.fetch_add(1, Ordering::Relaxed);
        if work > 0 {
            slot.work.fetch_add(work, Ordering::Relaxed);
        }
    }

    fn set_message(&self, message: &str) {
        let mut words = self
            .shared
            .message
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        message.clone_into(&mut words);
    }
}

impl Drop for Log {
    fn drop(&mut self) {
        self.shared.lock_clock().stopped = true;
        self.shared.wake.notify_all();
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

impl LogShared {
    fn lock_clock(&self) -> std::sync::MutexGuard<'_, Clock> {
        self.clock.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Units counted so far in this run.
    fn done(&self) -> u64 {
        self.tally
            .iter()
            .map(|s| s.units.load(Ordering::Relaxed))
            .sum()
    }

    /// Their estimated work, in ticks.
    fn work_done(&self) -> u64 {
        self.tally
            .iter()
            .map(|s| s.work.load(Ordering::Relaxed))
            .sum()
    }

    /// The writer's loop: a line each time one is due, until the log is dropped. A run whose units are all
    /// counted gets no more lines (its result follows, or the next board of a sweep starts the clock again).
    ///
    /// Every pass ends in a wait of at least [`MIN_INTERVAL`], which lets go of the clock: the run's start and
    /// the log's drop take it too. A writer that went from a line straight to the next whenever the next was
    /// already due (an interval shorter than a line takes to write) never let go, and the count printed its
    /// result and then waited for the clock for ever.
    fn write_lines(&self, every: Duration) {
        let mut clock = self.lock_clock();
        while !clock.stopped {
            let (Some(started), Some(due)) = (clock.started, clock.due) else {
                clock = self.wake.wait(clock).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            let now = Instant::now();
            if now >= due {
                clock.due = now.checked_add(every);
                let (done, units) = (self.done(), self.units.load(Ordering::Relaxed));
                if done < units {
                    let message = self.message.lock().map(|m| m.clone()).unwrap_or_default();
                    let line = progress_line(
                        &message,
                        (done, units),
                        (self.work_done(), self.work.load(Ordering::Relaxed)),
                        now - started,
                    );
                    // A slow standard error holds up the next run's start, never a worker.
                    (self.sink)(&line);
                }
            }
            let Some(due) = clock.due else {
                // No line is ever due again (an interval beyond the clock): wait for the next run or the drop.
                continue;
            };
            let pause = due
                .saturating_duration_since(Instant::now())
                .max(MIN_INTERVAL);
            clock = self
                .wake
                .wait_timeout(clock, pause)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// A line of progress from the units done and in all, and their estimated work done and in all (0 in all:
/// not estimated): `n = 22: 250 of 1000 units counted (25.0%, about 41% of the work) in 1h 2m 3s, about
/// 1h 29m left`.
fn progress_line(
    message: &str,
    (done, units): (u64, u64),
    (work_done, work): (u64, u64),
    elapsed: Duration,
) -> String {
    let mut line = format!(
        "{message}: {done} of {} counted",
        nqueens::engine::plan::unit_words(units as usize)
    );
    if units > 0 {
        line += &format!(" ({:.1}%", 100.0 * done as f64 / units as f64);
        if work > 0 {
            line += &format!(", about {} of the work", share(work_done, work));
        }
        line += ")";
    }
    line += &format!(" in {}", span(elapsed.as_secs_f64()));
    // The time left at this run's rate: of the estimated work where there is an estimate, else of units.
    let (done, all) = if work > 0 {
        (work_done.min(work), work)
    } else {
        (done, units)
    };
    if done > 0 && done < all {
        let left = elapsed.as_secs_f64() * (all - done) as f64 / done as f64;
        line += &format!(", about {} left", span(left));
    }
    line
}

/// An estimated share, rounded as far as an estimate deserves: whole percents, with one decimal under 10%.
fn share(part: u64, all: u64) -> String {
    percent(part.min(all) as f64 / all as f64)
}

/// A share from 0 to 1 as [`share`] writes it: `41%`, `7.3%`.
pub fn percent(share: f64) -> String {
    let percent = 100.0 * share;
    if percent < 10.0 {
        format!("{percent:.1}%")
    } else {
        format!("{percent:.0}%")
    }
}

/// A time span for a person: `4.2s` under a minute, then whole seconds as `1h 2m 3s` or `5days 2h`.
fn span(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{seconds:.1}s")
    } else {
        humantime::format_duration(Duration::from_secs(seconds.min(1e12) as u64)).to_string()
    }
}

impl Bar {
    /// Progress that starts over with each count, for `count` and `verify`: the bar on a terminal, lines at
    /// `every` (by default [`LOG_INTERVAL`] where standard error is not a terminal); `every` of zero writes no
    /// lines, and so does `quiet` unless `every` was given: a run asked for both (`-q --progress-every 30m`,
    /// a batch job's log) wants its lines and nothing else, so the one asked for by name wins.
    pub fn per_count(quiet: bool, every: Option<Duration>) -> Bar {
        let terminal = std::io::stderr().is_terminal();
        let (every, asked) = match every {
            Some(every) => (every, true),
            None if terminal => (Duration::ZERO, false),
            None => (LOG_INTERVAL, false),
        };
        let lines = (asked || !quiet) && !every.is_zero();
        let bar = (!lines && visible(quiet)).then(ProgressDrawTarget::stderr);
        Bar::counting(bar, lines.then(|| Log::new(every)), quiet)
    }

    /// Progress that starts over with each count: the bar drawn on `bar`, or the lines of `log`.
    fn counting(bar: Option<ProgressDrawTarget>, log: Option<Log>, quiet: bool) -> Bar {
        Bar {
            bar: bar.map(work_bar),
            log,
            restart_each_run: true,
            work: ArcSwapOption::empty(),
            units: Arc::new([AtomicU64::new(0), AtomicU64::new(0)]),
            quiet,
        }
    }

    /// One bar over `units` units in all, for a benchmark whose runs count the same plan again and again.
    pub fn total(quiet: bool, units: u64) -> Bar {
        Bar {
            bar: visible(quiet).then(|| new_bar(units)),
            log: None,
            restart_each_run: false,
            work: ArcSwapOption::empty(),
            units: Arc::new([AtomicU64::new(0), AtomicU64::new(0)]),
            quiet,
        }
    }

    /// Sets the words before the bar ("n = 17", "2 threads, run 1 of 3").
    /// For a count, that is its start: its plan is built next, and the bar says so until the run starts.
    pub fn set_message(&self, message: String) {
        if let Some(log) = &self.log {
            log.set_message(&message);
        }
        if let Some(bar) = &self.bar {
            if self.restart_each_run {
                bar.set_style(planning_style());
                bar.reset_elapsed();
            }
            bar.set_message(message);
        }
    }

    /// Runs `f` (which writes to the terminal) with the bar out of the way, so the two do not mix.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Bar {
    /// A bar that goes (an error ends the command) is erased: indicatif's leaves it drawn, and the error's
    /// words went on its line.
    fn drop(&mut self) {
        self.finish();
    }
}

/// Animation only for a person watching: standard error is a terminal and nobody asked for quiet.
fn visible(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

fn new_bar(units: u64) -> ProgressBar {
    let bar = ticking(ProgressBar::with_draw_target(
        Some(units),
        ProgressDrawTarget::stderr(),
    ));
    bar.set_style(with_time_left(
        ProgressStyle::with_template(
            "{msg:24} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} units, ETA {left}",
        )
        .expect("the template is valid"),
    ));
    bar
}

/// `style` with its key `left`: the time left, or `unknown` until some work is done (indicatif's `eta` would
/// say 0s).
fn with_time_left(style: ProgressStyle) -> ProgressStyle {
    style.with_key(
        "left",
        |state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
            let _ = if state.pos() == 0 {
                write!(out, "unknown")
            } else {
                write!(out, "{:#}", indicatif::HumanDuration(state.eta()))
            };
        },
    )
}

/// `bar`, drawn again every second: its clock moves while no unit is counted (the largest boards' units take
/// minutes each).
fn ticking(bar: ProgressBar) -> ProgressBar {
    bar.enable_steady_tick(Duration::from_secs(1));
    bar
}

/// The bar of counts, drawn on `target`: it says the plan is being built until the run starts
/// ([`work_style`]).
fn work_bar(target: ProgressDrawTarget) -> ProgressBar {
    // Styled before its clock starts: the clock's first frame, drawn at once in indicatif's own style (a full
    // bar and `0/0`), stayed on the terminal above a note written next.
    let bar = ProgressBar::with_draw_target(Some(0), target).with_style(planning_style());
    ticking(bar)
}

/// While a count's plan is built: how long it has taken (a plan of a large board takes seconds), and no bar,
/// which would show a run of no units as all done.
fn planning_style() -> ProgressStyle {
    ProgressStyle::with_template("{msg:24} [{elapsed_precise}] planning the work units")
        .expect("the template is valid")
}

/// A bar whose length is the run's estimated work, with its units done and in all (`units`) beside it, and no
/// time left until some work is done (indicatif's would say 0s).
fn work_style(units: Arc<[AtomicU64; 2]>) -> ProgressStyle {
    with_time_left(
        ProgressStyle::with_template(
            "{msg:24} [{elapsed_precise}] {wide_bar} {units} units, ETA {left}",
        )
        .expect("the template is valid")
        .with_key(
            "units",
            move |_: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
                let [done, all] = &*units;
                let _ = write!(
                    out,
                    "{}/{}",
                    indicatif::HumanCount(done.load(Ordering::Relaxed)),
                    indicatif::HumanCount(all.load(Ordering::Relaxed))
                );
            },
        ),
    )
}

/// Ticks of work at most in a run, so that a tally of them never overflows.
const MAX_TICKS: f64 = (1u64 << 40) as f64;

impl Progress for Bar {
    fn start(&self, run: Run<'_>) {
        let units = run.len();
        if !self.restart_each_run || (self.bar.is_none() && self.log.is_none()) {
            return;
        }
        let estimate = WorkEstimate::of(run.plan);
        let work = estimate.units(run.units);
        let scale = (work / MAX_TICKS).max(1.0);
        let ticks = (work / scale) as u64;
        // A plan with no estimate (units enumerated whole) shows its units instead.
        self.work
            .store((ticks > 0).then(|| Arc::new((estimate, scale))));
        if let Some(log) = &self.log {
            log.start(units, ticks);
        }
        if let Some(bar) = &self.bar {
            self.units[0].store(0, Ordering::Relaxed);
            self.units[1].store(units as u64, Ordering::Relaxed);
            bar.set_style(work_style(self.units.clone()));
            // Back to 0 before the new length: the frame drawn with the new length and the last board's
            // position showed a full bar and `ETA 0s` at 0 units, for a second of a sweep's next board.
            bar.set_position(0);
            bar.set_length(if ticks > 0 { ticks } else { units as u64 });
            bar.reset_eta();
        }
    }

    fn unit_done(&self, unit: &WorkUnit, _count: &Count) {
        if self.bar.is_none() && self.log.is_none() {
            return;
        }
        let work = match &*self.work.load() {
            Some(work) => {
                let (estimate, scale) = &**work;
                Some((estimate.unit(unit.index) / scale) as u64)
            }
            None => None,
        };
        if let Some(bar) = &self.bar {
            if self.restart_each_run {
                self.units[0].fetch_add(1, Ordering::Relaxed);
            }
            bar.inc(work.unwrap_or(1));
        }
        if let Some(log) = &self.log {
            log.unit_done(work.unwrap_or(0));
        }
    }

    fn note(&self, line: &str) {
        // Quiet (asked for, or no bar and no lines of progress): nothing.
        if !self.quiet && (self.bar.is_some() || self.log.is_some()) {
            self.suspend(|| {
                use std::io::Write as _;
                let _ = writeln!(std::io::stderr(), "{line}");
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_gives_the_units_the_share_the_time_and_the_time_left() {
        for (message, units, work, millis, line) in [
            // Without an estimate of the work, the time left is the units' share.
            (
                "n = 16",
                (1, 4),
                (0, 0),
                2_500,
                "n = 16: 1 of 4 units counted (25.0%) in 2.5s, about 7.5s left",
            ),
            (
                "n = 22",
                (250, 1000),
                (0, 0),
                3_723_900,
                "n = 22: 250 of 1000 units counted (25.0%) in 1h 2m 3s, about 3h 6m 11s left",
            ),
            // With one, it is the work's: a quarter of the units held 41% of the work.
            (
                "n = 22",
                (250, 1000),
                (41, 100),
                3_723_900,
                "n = 22: 250 of 1000 units counted (25.0%, about 41% of the work) in 1h 2m 3s, \
                 about 1h 29m 18s left",
            ),
            (
                "n = 18",
                (10, 1000),
                (73, 1000),
                60_000,
                "n = 18: 10 of 1000 units counted (1.0%, about 7.3% of the work) in 1m, about 12m 41s left",
            ),
            // An estimate can fall short of the units' real work: the share stops at all of it.
            (
                "n = 9",
                (9, 10),
                (120, 100),
                5_000,
                "n = 9: 9 of 10 units counted (90.0%, about 100% of the work) in 5.0s",
            ),
            // Exactly a tenth is written as the larger shares are.
            (
                "n = 18",
                (100, 1000),
                (100, 1000),
                60_000,
                "n = 18: 100 of 1000 units counted (10.0%, about 10% of the work) in 1m, about 9m left",
            ),
            // A run of no units (all were counted before a resume): no share of them.
            (
                "n = 18",
                (0, 0),
                (0, 0),
                1_000,
                "n = 18: 0 of 0 units counted in 1.0s",
            ),
            // Nothing done yet, or all of it: no guess of the time left.
            (
                "n = 8",
                (0, 10),
                (0, 0),
                5_000,
                "n = 8: 0 of 10 units counted (0.0%) in 5.0s",
            ),
            (
                "n = 8",
                (10, 10),
                (5, 5),
                5_000,
                "n = 8: 10 of 10 units counted (100.0%, about 100% of the work) in 5.0s",
            ),
        ] {
            assert_eq!(
                progress_line(message, units, work, Duration::from_millis(millis)),
                line
            );
        }
    }

    #[test]
    fn a_log_gets_lines_every_ten_minutes_by_default() {
        // Where standard error is not a terminal (as under CI), a count writes lines at the default interval;
        // on a terminal it draws the bar instead, which a test cannot see.
        if std::io::stderr().is_terminal() {
            return;
        }
        let bar = Bar::per_count(false, None);
        assert!(bar.bar.is_none());
        assert_eq!(bar.log.as_ref().map(|log| log.every), Some(LOG_INTERVAL));
        assert!(Bar::per_count(true, None).log.is_none());
        assert!(Bar::per_count(false, Some(Duration::ZERO)).log.is_none());
    }

    #[test]
    fn quiet_keeps_the_lines_asked_for_by_name_and_nothing_else() {
        // `-q --progress-every 30m`: the lines asked for, on a terminal too, and no bar.
        let asked = Bar::per_count(true, Some(Duration::from_secs(1800)));
        assert!(asked.bar.is_none());
        assert_eq!(
            asked.log.as_ref().map(|log| log.every),
            Some(Duration::from_secs(1800))
        );
        assert!(asked.quiet);
        // `-q --progress-every 0`, and `-q` alone: nothing at all.
        for every in [Some(Duration::ZERO), None] {
            let bar = Bar::per_count(true, every);
            assert!(bar.bar.is_none() && bar.log.is_none());
        }
    }

    #[test]
    fn a_run_is_tallied_in_units_and_in_their_estimated_work() {
        use nqueens::{Board, Plan, Split, Symmetry};
        let plan = Plan::new(
            Board::new(12).unwrap(),
            Symmetry::Full,
            Split::durable(Symmetry::Full),
        );
        let estimate = WorkEstimate::of(&plan);
        // A resumed run: every other unit is left to count.
        let left: Vec<usize> = (0..plan.units().len()).step_by(2).collect();
        let run = Run {
            plan: &plan,
            units: Some(&left),
        };
        let bar = Bar::per_count(false, Some(Duration::from_secs(3600)));
        bar.start(run);
        let log = bar.log.as_ref().expect("lines at an interval asked for");
        let work = estimate.units(Some(&left));
        let log = &log.shared;
        assert_eq!(log.units.load(Ordering::Relaxed), left.len() as u64);
        assert_eq!(log.work.load(Ordering::Relaxed), work as u64);
        assert!(work > 100.0 * left.len() as f64);
        for &i in &left[..10] {
            bar.unit_done(&plan.units()[i], &Count::default());
        }
        let done: u64 = left[..10].iter().map(|&i| estimate.unit(i) as u64).sum();
        assert_eq!((log.done(), log.work_done()), (10, done));
        assert!(done > 0);
        // The next count of a sweep starts both tallies again.
        bar.start(Run {
            plan: &plan,
            units: None,
        });
        assert_eq!((log.done(), log.work_done()), (0, 0));
        assert_eq!(
            log.work.load(Ordering::Relaxed),
            estimate.units(None) as u64
        );
        // Quiet: nothing to show, so nothing is estimated or tallied.
        let quiet = Bar::per_count(true, None);
        quiet.start(run);
        quiet.unit_done(&plan.units()[0], &Count::default());
        assert!(quiet.work.load().is_none());
        assert_eq!(quiet.units[0].load(Ordering::Relaxed), 0);
    }

    /// A terminal that keeps what is shown on its one line.
    #[derive(Clone, Debug, Default)]
    struct Screen(Arc<Mutex<String>>);

    impl Screen {
        fn shown(&self) -> String {
            self.0.lock().unwrap().trim_end().to_owned()
        }
    }

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            100
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(s)
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(s.trim_start_matches('\r'));
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            self.0.lock().unwrap().clear();
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_bar_says_the_plan_is_built_then_shows_the_units_and_the_time_left() {
        use nqueens::{Board, Plan, Split, Symmetry};
        let screen = Screen::default();
        let bar = Bar::counting(
            Some(ProgressDrawTarget::term_like(Box::new(screen.clone()))),
            None,
            false,
        );
        // Drawn when asked here, not by the clock's tick (next test).
        bar.bar.as_ref().unwrap().disable_steady_tick();
        let drawn = || {
            bar.bar.as_ref().unwrap().tick();
            screen.shown()
        };
        // While the plan is built: how long it takes, and no bar that a run of no units would show full.
        bar.set_message("n = 12".into());
        let shown = drawn();
        assert!(
            shown.starts_with("n = 12 ") && shown.ends_with("] planning the work units"),
            "{shown}"
        );
        let plan = Plan::new(
            Board::new(12).unwrap(),
            Symmetry::Full,
            Split::durable(Symmetry::Full),
        );
        let units = plan.units().len();
        bar.start(Run {
            plan: &plan,
            units: None,
        });
        // The bar's length is the estimated work: no time left until some of it is done.
        let progress = bar.bar.as_ref().unwrap();
        let work = WorkEstimate::of(&plan);
        assert_eq!(progress.length(), Some(work.units(None) as u64));
        assert_eq!(progress.position(), 0);
        let shown = drawn();
        assert!(
            shown.contains(&format!(
                " 0/{} units, ETA unknown",
                indicatif::HumanCount(units as u64)
            )),
            "{shown}"
        );
        for unit in &plan.units()[..1000] {
            bar.unit_done(unit, &Count::default());
        }
        let done: u64 = (0..1000).map(|i| work.unit(i) as u64).sum();
        assert_eq!(progress.position(), done);
        let shown = drawn();
        assert!(shown.contains(" 1,000/62,437 units, ETA "), "{shown}");
        assert!(!shown.contains("unknown"), "{shown}");
        // The next board of a sweep is planned in its turn.
        bar.set_message("n = 13".into());
        assert!(drawn().ends_with("planning the work units"));
        bar.finish();
        assert_eq!(screen.shown(), "");
    }

    #[test]
    fn the_bar_clock_moves_while_no_unit_ends() {
        let screen = Screen::default();
        let bar = Bar::counting(
            Some(ProgressDrawTarget::term_like(Box::new(screen.clone()))),
            None,
            false,
        );
        bar.set_message("n = 27".into());
        let deadline = Instant::now() + Duration::from_secs(10);
        let moved = || {
            let shown = screen.shown();
            shown.contains("] planning") && !shown.contains("[00:00:00]")
        };
        while !moved() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(moved(), "{}", screen.shown());
    }

    /// A log whose lines land in a buffer.
    fn log_to_buffer(every: Duration) -> (Log, Arc<Mutex<Vec<String>>>) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let buffer = lines.clone();
        let log = Log::writing_to(every, move |line| {
            buffer.lock().unwrap().push(line.to_owned())
        });
        (log, lines)
    }

    /// Waits up to ten seconds for `lines` to hold `count` lines.
    fn wait_for(lines: &Mutex<Vec<String>>, count: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let now = lines.lock().unwrap().clone();
            if now.len() >= count || Instant::now() > deadline {
                return now;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn lines_keep_time_while_no_unit_is_counted() {
        // The largest boards' units each take longer than the interval: the lines come all the same.
        let (log, lines) = log_to_buffer(Duration::from_millis(20));
        log.set_message("n = 27");
        // No run yet (the plan is being built): no line.
        std::thread::sleep(Duration::from_millis(60));
        assert!(lines.lock().unwrap().is_empty());
        log.start(10, 1000);
        let written = wait_for(&lines, 2);
        assert!(written.len() >= 2, "{written:?}");
        for line in &written {
            assert!(
                line.starts_with(
                    "n = 27: 0 of 10 units counted (0.0%, about 0.0% of the work) in "
                ),
                "{line}"
            );
            assert!(!line.contains("left"), "no rate yet, no time left: {line}");
        }
        // Units counted on other threads land in their own slots and are all summed.
        std::thread::scope(|scope| {
            for _ in 0..3 {
                scope.spawn(|| log.unit_done(7));
            }
        });
        log.unit_done(100);
        assert_eq!((log.shared.done(), log.shared.work_done()), (4, 121));
        // The writer holds the clock while it writes: a line begun before the last unit is out once it is free.
        drop(log.shared.lock_clock());
        let seen = lines.lock().unwrap().len();
        let written = wait_for(&lines, seen + 1);
        let last = written.last().unwrap();
        assert!(
            last.starts_with("n = 27: 4 of 10 units counted (40.0%, about 12% of the work) in ")
                && last.contains(" left"),
            "{last}"
        );
        // Every unit counted: the run is over, and no more lines come.
        for _ in 0..6 {
            log.unit_done(1);
        }
        drop(log.shared.lock_clock());
        let seen = lines.lock().unwrap().len();
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(lines.lock().unwrap().len(), seen);
        // A new run starts the tally and the lines again.
        log.start(5, 0);
        assert_eq!((log.shared.done(), log.shared.work_done()), (0, 0));
        let written = wait_for(&lines, seen + 1);
        assert_eq!(
            written.last().map(|l| l.split(" in ").next().unwrap()),
            Some("n = 27: 0 of 5 units counted (0.0%)")
        );
        // A dropped log's writer is stopped with it, though its run had units left.
        drop(log);
        let seen = lines.lock().unwrap().len();
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(lines.lock().unwrap().len(), seen);
    }

    #[test]
    fn an_interval_shorter_than_a_line_takes_lets_each_run_start_and_the_log_end() {
        // `count 12 --progress-every 1ns` printed its result and never ended: each line was due before the last
        // was out, and the writer kept the clock that the next run's start and the log's drop wait for. Done on
        // a thread of its own, so that the test fails rather than hangs if the writer keeps the clock again.
        let (finished, outcome) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (log, lines) = log_to_buffer(Duration::from_nanos(1));
            log.set_message("n = 12");
            for run in 1..=3 {
                log.start(10, 0);
                wait_for(&lines, run);
            }
            drop(log);
            let written = lines.lock().unwrap().len();
            let _ = finished.send(written);
        });
        let written = outcome
            .recv_timeout(Duration::from_secs(20))
            .expect("runs start and the log ends within seconds, however short the interval");
        assert!(written >= 3, "a line for each run at least: {written}");
    }

    #[test]
    fn an_interval_beyond_the_clock_writes_no_line_and_ends() {
        let (log, lines) = log_to_buffer(Duration::MAX);
        log.start(10, 0);
        log.unit_done(u64::MAX);
        assert_eq!(log.shared.done(), 1);
        std::thread::sleep(Duration::from_millis(50));
        assert!(lines.lock().unwrap().is_empty());
        // Dropping the log stops and joins its writer.
        drop(log);
    }
}
