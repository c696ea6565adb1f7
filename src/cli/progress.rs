//! Progress on standard error: a bar with an ETA for a person at a terminal, or a plain line at intervals for a
//! log (a batch job's output file, `nohup`), counting work units done and left.
//!
//! The library reports progress through [`nqueens::engine::exec::Progress`] and draws nothing; this is the binary's
//! drawing of it, the bar with indicatif. The bar is drawn only when standard error is a terminal; elsewhere a
//! run writes a line every [`LOG_INTERVAL`] (or `--progress-every`), so a run of hours leaves a trace in its
//! log without any animation. With `--quiet` there is neither, and the workers' callbacks cost one branch.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens::engine::count::Count;
use nqueens::engine::exec::Progress;
use nqueens::WorkUnit;
use std::cell::Cell;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a run whose standard error is not a terminal writes a line of progress, unless told otherwise.
pub const LOG_INTERVAL: Duration = Duration::from_secs(600);

/// A progress bar over work units, lines of progress at intervals, or nothing.
pub struct Bar {
    bar: Option<ProgressBar>,
    log: Option<Log>,
    /// Whether each run restarts the bar (a sweep of counts) or adds to one bar sized in advance (a bench).
    restart_each_run: bool,
}

/// Lines of progress: written by whichever worker finishes a unit once the interval has passed.
///
/// Every run whose standard error is not a terminal keeps one (the benchmark workload of other suites among
/// them), so the workers' part is kept off shared cache lines: each thread counts its units in a slot of its
/// own, and reads the clock only after some [`CHECK_NODES`] nodes of work, against a deadline it only reads.
struct Log {
    every: Duration,
    /// The words before the figures ("n = 17").
    message: Mutex<String>,
    /// Units of the run.
    units: AtomicU64,
    /// Units counted, summed over the slots.
    tally: [Slot; SLOTS],
    /// The clock's origin: deadlines are nanoseconds after it.
    epoch: Instant,
    /// When the run started, in nanoseconds after `epoch`.
    started: AtomicU64,
    /// When the next line is due, in nanoseconds after `epoch`; `u64::MAX`: never.
    due: AtomicU64,
    /// Taken by the worker that writes a due line; the others go on counting.
    writing: Mutex<()>,
}

/// Slots of the units' tally: threads beyond these share one, which is correct, only slower.
const SLOTS: usize = 64;

/// Work (nodes, and one for each unit) a thread does between two looks at the clock: some milliseconds.
const CHECK_NODES: u64 = 1 << 22;

/// A counter on a cache line of its own.
#[derive(Default)]
#[repr(align(128))]
struct Slot(AtomicU64);

thread_local! {
    /// This thread's slot of a tally.
    static SLOT: usize = {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        NEXT.fetch_add(1, Ordering::Relaxed) % SLOTS
    };
    /// The work this thread has done since it last read the clock.
    static SINCE_CLOCK: Cell<u64> = const { Cell::new(0) };
}

impl Log {
    fn new(every: Duration) -> Log {
        let log = Log {
            every,
            message: Mutex::new(String::new()),
            units: AtomicU64::new(0),
            tally: std::array::from_fn(|_| Slot::default()),
            epoch: Instant::now(),
            started: AtomicU64::new(0),
            due: AtomicU64::new(u64::MAX),
            writing: Mutex::new(()),
        };
        log.start(0);
        log
    }

    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    fn start(&self, units: usize) {
        self.units.store(units as u64, Ordering::Relaxed);
        for slot in &self.tally {
            slot.0.store(0, Ordering::Relaxed);
        }
        let now = self.now();
        self.started.store(now, Ordering::Relaxed);
        self.due.store(self.after(now), Ordering::Relaxed);
    }

    /// The deadline one interval after `now`, or never where that is beyond the clock.
    fn after(&self, now: u64) -> u64 {
        u64::try_from(self.every.as_nanos())
            .ok()
            .and_then(|every| now.checked_add(every))
            .unwrap_or(u64::MAX)
    }

    fn done(&self) -> u64 {
        self.tally.iter().map(|s| s.0.load(Ordering::Relaxed)).sum()
    }

    fn unit_done(&self, nodes: u128) {
        self.tally[SLOT.with(|s| *s)]
            .0
            .fetch_add(1, Ordering::Relaxed);
        let work = SINCE_CLOCK.with(|w| {
            let work = w
                .get()
                .saturating_add(u64::try_from(nodes).unwrap_or(u64::MAX))
                .saturating_add(1);
            w.set(if work >= CHECK_NODES { 0 } else { work });
            work
        });
        if work < CHECK_NODES {
            return;
        }
        let now = self.now();
        if now < self.due.load(Ordering::Relaxed) {
            return;
        }
        let Ok(_writing) = self.writing.try_lock() else {
            return;
        };
        // Another worker may have written the line between the look at the deadline and the lock.
        if now < self.due.load(Ordering::Relaxed) {
            return;
        }
        self.due.store(self.after(now), Ordering::Relaxed);
        let message = self.message.lock().map(|m| m.clone()).unwrap_or_default();
        let elapsed =
            Duration::from_nanos(now.saturating_sub(self.started.load(Ordering::Relaxed)));
        eprintln!(
            "{}",
            progress_line(
                &message,
                self.done(),
                self.units.load(Ordering::Relaxed),
                elapsed
            )
        );
    }
}

/// A line of progress: `n = 22: 250 of 1000 units counted (25.0%) in 1h 2m 3s, about 3h 6m 11s left`.
fn progress_line(message: &str, done: u64, units: u64, elapsed: Duration) -> String {
    let mut line = format!("{message}: {done} of {units} units counted");
    if units > 0 {
        line += &format!(" ({:.1}%)", 100.0 * done as f64 / units as f64);
    }
    line += &format!(" in {}", span(elapsed.as_secs_f64()));
    // Units differ in size, so the time left is a rough guide, from the rate of the units so far.
    if done > 0 && done < units {
        let left = elapsed.as_secs_f64() * (units - done) as f64 / done as f64;
        line += &format!(", about {} left", span(left));
    }
    line
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
    /// `every` (by default [`LOG_INTERVAL`] where standard error is not a terminal); `every` of zero, or
    /// `quiet`, writes no lines.
    pub fn per_count(quiet: bool, every: Option<Duration>) -> Bar {
        let terminal = std::io::stderr().is_terminal();
        let every = match every {
            Some(every) => every,
            None if terminal => Duration::ZERO,
            None => LOG_INTERVAL,
        };
        let lines = !quiet && !every.is_zero();
        Bar {
            bar: (!lines && visible(quiet)).then(|| new_bar(0)),
            log: lines.then(|| Log::new(every)),
            restart_each_run: true,
        }
    }

    /// One bar over `units` units in all, for a benchmark whose runs count the same plan again and again.
    pub fn total(quiet: bool, units: u64) -> Bar {
        Bar {
            bar: visible(quiet).then(|| new_bar(units)),
            log: None,
            restart_each_run: false,
        }
    }

    /// Sets the words before the bar ("n = 17", "2 threads, run 1 of 3").
    pub fn set_message(&self, message: String) {
        if let Some(log) = &self.log {
            *log.message.lock().unwrap_or_else(|e| e.into_inner()) = message.clone();
        }
        if let Some(bar) = &self.bar {
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

/// Animation only for a person watching: standard error is a terminal and nobody asked for quiet.
fn visible(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

fn new_bar(units: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(units), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:24} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} units, ETA {eta}",
        )
        .expect("the template is valid"),
    );
    bar
}

impl Progress for Bar {
    fn start(&self, units: usize) {
        if let Some(log) = &self.log {
            log.start(units);
        }
        if let (Some(bar), true) = (&self.bar, self.restart_each_run) {
            bar.set_length(units as u64);
            bar.set_position(0);
            bar.reset_eta();
        }
    }

    fn unit_done(&self, _unit: &WorkUnit, count: &Count) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        if let Some(log) = &self.log {
            log.unit_done(count.nodes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_gives_the_units_the_share_the_time_and_the_time_left() {
        for (message, done, units, millis, line) in [
            (
                "n = 16",
                1,
                4,
                2_500,
                "n = 16: 1 of 4 units counted (25.0%) in 2.5s, about 7.5s left",
            ),
            (
                "n = 22",
                250,
                1000,
                3_723_900,
                "n = 22: 250 of 1000 units counted (25.0%) in 1h 2m 3s, about 3h 6m 11s left",
            ),
            // Nothing done yet, or all of it: no guess of the time left.
            (
                "n = 8",
                0,
                10,
                5_000,
                "n = 8: 0 of 10 units counted (0.0%) in 5.0s",
            ),
            (
                "n = 8",
                10,
                10,
                5_000,
                "n = 8: 10 of 10 units counted (100.0%) in 5.0s",
            ),
        ] {
            assert_eq!(
                progress_line(message, done, units, Duration::from_millis(millis)),
                line
            );
        }
    }

    #[test]
    fn a_line_is_due_once_the_interval_has_passed_and_every_unit_is_tallied() {
        let log = Log::new(Duration::from_secs(3600));
        log.start(10);
        // Enough work to look at the clock: an hour has not passed, so the deadline stays.
        let due = log.due.load(Ordering::Relaxed);
        log.unit_done(u128::from(CHECK_NODES));
        assert_eq!(log.due.load(Ordering::Relaxed), due);
        // Units counted on other threads land in their own slots and are all summed.
        std::thread::scope(|scope| {
            for _ in 0..3 {
                scope.spawn(|| log.unit_done(0));
            }
        });
        assert_eq!(log.done(), 4);
        // Once due, the next look at the clock moves the deadline an interval on.
        log.due.store(0, Ordering::Relaxed);
        log.unit_done(u128::from(CHECK_NODES));
        assert!(log.due.load(Ordering::Relaxed) >= log.now() + 3_000_000_000_000);
        // A new run starts the tally again.
        log.start(5);
        assert_eq!(log.done(), 0);
        // An interval beyond any clock: never due, and no overflow.
        let never = Log::new(Duration::MAX);
        never.unit_done(u128::MAX);
        assert_eq!(never.due.load(Ordering::Relaxed), u64::MAX);
        assert_eq!(never.done(), 1);
    }
}
