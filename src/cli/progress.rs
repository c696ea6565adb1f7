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
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
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
    /// What the bar's line shows beside indicatif's own state.
    face: Arc<Face>,
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
        let bar = (!lines && visible(quiet)).then(Terminal::stderr);
        Bar::counting(bar, lines.then(|| Log::new(every)), quiet)
    }

    /// Progress that starts over with each count: the bar drawn on `bar`, or the lines of `log`.
    fn counting(bar: Option<Terminal>, log: Option<Log>, quiet: bool) -> Bar {
        let (target, face) = Face::of(bar);
        Bar {
            bar: target.map(|target| work_bar(target, &face)),
            log,
            restart_each_run: true,
            work: ArcSwapOption::empty(),
            face,
            quiet,
        }
    }

    /// One bar over `units` units in all, for a benchmark whose runs count the same plan again and again.
    pub fn total(quiet: bool, units: u64) -> Bar {
        Bar::summing(visible(quiet).then(Terminal::stderr), units, quiet)
    }

    /// One bar over `units` units in all, drawn on `bar`.
    fn summing(bar: Option<Terminal>, units: u64, quiet: bool) -> Bar {
        let (target, face) = Face::of(bar);
        Bar {
            bar: target.map(|target| units_bar(target, units, &face)),
            log: None,
            restart_each_run: false,
            work: ArcSwapOption::empty(),
            face,
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
            self.face.set_message(&message);
            if self.restart_each_run {
                bar.set_style(line_style(&self.face, Shows::Planning));
                bar.reset_elapsed();
            }
            // Not drawn by indicatif's template, but its change draws the bar again, with the new words.
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

    /// What removes the bar from another thread, a signal's (while the bar lasts); it says whether there was a
    /// bar drawn to remove.
    pub fn eraser(&self) -> impl Fn() -> bool + Send + 'static {
        let bar = self.bar.as_ref().map(ProgressBar::downgrade);
        move || match bar.as_ref().and_then(indicatif::WeakProgressBar::upgrade) {
            Some(bar) if !bar.is_finished() => {
                bar.finish_and_clear();
                true
            }
            _ => false,
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

/// Where a bar is drawn: standard error, or a test's terminal, and how wide it is now.
struct Terminal {
    target: ProgressDrawTarget,
    columns: Columns,
}

/// The terminal's width in columns, asked at each frame: a terminal made narrower while a run goes on gets a
/// line that fits it from the next frame on.
type Columns = Box<dyn Fn() -> u16 + Send + Sync>;

impl Terminal {
    fn stderr() -> Terminal {
        Terminal {
            target: ProgressDrawTarget::stderr(),
            // The size indicatif's own target measures standard error by: both agree on the width.
            columns: Box::new(|| console::Term::stderr().size().1),
        }
    }
}

/// What the bar's line shows beside indicatif's own state, shared with the style's key that draws it: the
/// words before it, the units of a run whose bar shows its work, and the terminal's width.
struct Face {
    message: Mutex<String>,
    /// Units of the run, done and in all, for the bar that shows work.
    units: [AtomicU64; 2],
    columns: Columns,
}

impl Face {
    /// Where a bar on `terminal` is drawn, and its face; without a terminal, a face that nothing draws.
    fn of(terminal: Option<Terminal>) -> (Option<ProgressDrawTarget>, Arc<Face>) {
        let (target, columns) = match terminal {
            Some(Terminal { target, columns }) => (Some(target), columns),
            None => (None, Box::new(|| 0u16) as Columns),
        };
        let face = Face {
            message: Mutex::default(),
            units: Default::default(),
            columns,
        };
        (target, Arc::new(face))
    }

    fn set_message(&self, message: &str) {
        let mut words = self.message.lock().unwrap_or_else(|e| e.into_inner());
        message.clone_into(&mut words);
    }
}

/// What a bar's line shows: a count's plan being built, a run's work, or a benchmark's units.
#[derive(Clone, Copy)]
enum Shows {
    Planning,
    Work,
    Units,
}

/// The style of a bar whose whole line is [`fit`] to the terminal at each frame: indicatif's `{wide_bar}`
/// only fills the room left, and a line whose other fields were wider than the terminal wrapped, each frame
/// leaving a line behind.
fn line_style(face: &Arc<Face>, shows: Shows) -> ProgressStyle {
    let face = face.clone();
    ProgressStyle::with_template("{line}")
        .expect("the template is valid")
        .with_key(
            "line",
            move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                let doing = match shows {
                    Shows::Planning => Doing::Planning,
                    Shows::Work => Doing::Counting {
                        fraction: state.fraction(),
                        units: [0, 1].map(|i| face.units[i].load(Ordering::Relaxed)),
                        left: time_left(state),
                    },
                    Shows::Units => Doing::Counting {
                        fraction: state.fraction(),
                        units: [state.pos(), state.len().unwrap_or(state.pos())],
                        left: time_left(state),
                    },
                };
                let message = face.message.lock().map(|m| m.clone()).unwrap_or_default();
                let shown = Shown {
                    message: &message,
                    elapsed: state.elapsed(),
                    doing,
                };
                let _ = out.write_str(&fit((face.columns)().into(), &shown));
            },
        )
}

/// The time left, or none until some work is done (indicatif's estimate would say 0s).
fn time_left(state: &ProgressState) -> Option<Duration> {
    (state.pos() > 0).then(|| state.eta())
}

/// What a bar's line says, for [`fit`] to lay out.
struct Shown<'a> {
    /// The words before the bar ("n = 17").
    message: &'a str,
    elapsed: Duration,
    doing: Doing,
}

enum Doing {
    /// A count's plan is being built: no bar, which would show a run of no units as all done.
    Planning,
    /// A run: the share of its work done, its units done and in all, and the time left (none: not known yet).
    Counting {
        fraction: f32,
        units: [u64; 2],
        left: Option<Duration>,
    },
}

/// The narrowest bar drawn: narrower, it says less than the percent beside it.
const MIN_BAR: usize = 10;

/// The columns the words before the bar are padded to where there is room, so that a sweep's bars line up.
const MESSAGE_COLUMNS: usize = 24;

/// A field of the bar's line: words, or the bar, which takes the room the words leave.
enum Field {
    Text(String),
    Bar,
}

/// The bar's line for a terminal `width` columns wide: never wider, since a wider line wraps and each frame
/// then leaves a line behind. The fields go, least needed first, until the rest fit: the words' padding, the
/// units, the time spent, the bar (which shrinks to [`MIN_BAR`] columns first), the words; the percent and the
/// time left stay longest, and the percent alone, cut to the width, is the last resort.
fn fit(width: usize, shown: &Shown<'_>) -> String {
    use Field::{Bar, Text};
    let message = || Text(shown.message.to_owned());
    let padded = || Text(format!("{:MESSAGE_COLUMNS$}", shown.message));
    let elapsed = || Text(format!("[{}]", indicatif::FormattedDuration(shown.elapsed)));
    let (fraction, layouts) = match shown.doing {
        Doing::Planning => {
            let planning = || Text("planning the work units".into());
            let short = || Text("planning".into());
            (
                0.0,
                vec![
                    vec![padded(), elapsed(), planning()],
                    vec![message(), elapsed(), planning()],
                    vec![message(), elapsed(), short()],
                    vec![message(), short()],
                    vec![short()],
                ],
            )
        }
        Doing::Counting {
            fraction,
            units: [done, all],
            left,
        } => {
            // Every unit counted is the whole bar: the units' work is tallied in whole ticks, each unit's
            // rounded down, so their sum falls short of the run's (n = 16 on one thread ended at 99.6%, its
            // bar a column short). Until then the share never reads 100%.
            let fraction = match (done >= all && all > 0, fraction.clamp(0.0, 1.0)) {
                (true, _) => 1.0,
                (false, f) => f.min(0.99),
            };
            let share = || Text(percent(f64::from(fraction)));
            let units = || {
                Text(format!(
                    "{}/{} units,",
                    indicatif::HumanCount(done),
                    indicatif::HumanCount(all)
                ))
            };
            let left = match left {
                Some(left) => format!("{:#}", indicatif::HumanDuration(left)),
                None => "unknown".into(),
            };
            let eta = || Text(format!("ETA {left}"));
            (
                fraction,
                vec![
                    vec![padded(), elapsed(), Bar, share(), units(), eta()],
                    vec![message(), elapsed(), Bar, share(), units(), eta()],
                    vec![message(), elapsed(), Bar, share(), eta()],
                    vec![message(), Bar, share(), eta()],
                    vec![message(), share(), eta()],
                    vec![share(), eta()],
                    vec![share()],
                ],
            )
        }
    };
    let last = layouts.len() - 1;
    for (i, layout) in layouts.into_iter().enumerate() {
        // No words (a bar given none): no field for them, nor a blank between.
        let fields: Vec<Field> = layout
            .into_iter()
            .filter(|f| !matches!(f, Text(t) if t.trim().is_empty()))
            .collect();
        let words: usize = fields
            .iter()
            .map(|f| match f {
                Text(t) => console::measure_text_width(t),
                Bar => 0,
            })
            .sum::<usize>()
            + fields.len().saturating_sub(1);
        let has_bar = fields.iter().any(|f| matches!(f, Bar));
        let room = width.saturating_sub(words);
        let fits = words <= width && (!has_bar || room >= MIN_BAR);
        if fits || i == last {
            let line = fields
                .iter()
                .map(|f| match f {
                    Text(t) => t.clone(),
                    Bar => bar_of(fraction, room),
                })
                .collect::<Vec<_>>()
                .join(" ");
            return console::truncate_str(&line, width, "").into_owned();
        }
    }
    unreachable!("the last layout is always taken")
}

/// A bar `columns` wide, `fraction` of it full, drawn as indicatif draws its own by default.
fn bar_of(fraction: f32, columns: usize) -> String {
    let full = ((fraction.clamp(0.0, 1.0) * columns as f32) as usize).min(columns);
    "█".repeat(full) + &"░".repeat(columns - full)
}

/// `bar`, drawn again every second: its clock moves while no unit is counted (the largest boards' units take
/// minutes each).
fn ticking(bar: ProgressBar) -> ProgressBar {
    bar.enable_steady_tick(Duration::from_secs(1));
    bar
}

/// The bar of counts, drawn on `target`: it says the plan is being built until the run starts
/// ([`Shows::Work`]).
fn work_bar(target: ProgressDrawTarget, face: &Arc<Face>) -> ProgressBar {
    // Styled before its clock starts: the clock's first frame, drawn at once in indicatif's own style (a full
    // bar and `0/0`), stayed on the terminal above a note written next.
    let bar = ProgressBar::with_draw_target(Some(0), target)
        .with_style(line_style(face, Shows::Planning));
    ticking(bar)
}

/// The benchmark's bar of `units` units, drawn on `target`.
fn units_bar(target: ProgressDrawTarget, units: u64, face: &Arc<Face>) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(units), target)
        .with_style(line_style(face, Shows::Units));
    ticking(bar)
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
            self.face.units[0].store(0, Ordering::Relaxed);
            self.face.units[1].store(units as u64, Ordering::Relaxed);
            bar.set_style(line_style(&self.face, Shows::Work));
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
                self.face.units[0].fetch_add(1, Ordering::Relaxed);
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
        assert_eq!(quiet.face.units[0].load(Ordering::Relaxed), 0);
    }

    /// A terminal `width` columns wide that keeps what is shown on its one line, and the widest line drawn.
    #[derive(Clone, Debug)]
    struct Screen {
        line: Arc<Mutex<String>>,
        widest: Arc<AtomicUsize>,
        width: u16,
    }

    impl Default for Screen {
        fn default() -> Screen {
            Screen::wide(100)
        }
    }

    impl Screen {
        fn wide(width: u16) -> Screen {
            Screen {
                line: Arc::default(),
                widest: Arc::default(),
                width,
            }
        }

        /// The bar's terminal, drawn on this screen.
        fn terminal(&self) -> Terminal {
            let width = self.width;
            Terminal {
                target: ProgressDrawTarget::term_like(Box::new(self.clone())),
                columns: Box::new(move || width),
            }
        }

        fn shown(&self) -> String {
            self.line.lock().unwrap().trim_end().to_owned()
        }

        /// The most columns a line drawn so far took.
        fn widest(&self) -> usize {
            self.widest.load(Ordering::Relaxed)
        }
    }

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            self.width
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
            let mut line = self.line.lock().unwrap();
            line.push_str(s.trim_start_matches('\r'));
            let columns = console::measure_text_width(&line);
            self.widest.fetch_max(columns, Ordering::Relaxed);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            self.line.lock().unwrap().clear();
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
        let bar = Bar::counting(Some(screen.terminal()), None, false);
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
    fn the_bar_fits_the_terminal_however_narrow() {
        // indicatif wraps a line wider than the terminal, and each redraw left a trail of lines.
        use nqueens::{Board, Plan, Split, Symmetry};
        let plan = Plan::new(
            Board::new(12).unwrap(),
            Symmetry::Full,
            Split::durable(Symmetry::Full),
        );
        for width in [20, 40, 60, 80, 200] {
            let screen = Screen::wide(width);
            let bar = Bar::counting(Some(screen.terminal()), None, false);
            let progress = bar.bar.as_ref().unwrap();
            progress.disable_steady_tick();
            let mut shown = Vec::new();
            let mut draw = || {
                progress.tick();
                shown.push(screen.shown());
            };
            // While the plan is built, at the run's start (no time left yet), and under way.
            bar.set_message("n = 12".into());
            draw();
            bar.start(Run {
                plan: &plan,
                units: None,
            });
            draw();
            for unit in &plan.units()[..20_000] {
                bar.unit_done(unit, &Count::default());
            }
            draw();
            assert!(
                screen.widest() <= width.into(),
                "{width} columns: {} drawn\n{}",
                screen.widest(),
                shown.join("\n")
            );
            // Still a bar where there is room for one, and always the time left.
            let last = shown.last().unwrap();
            assert!(
                last.contains('%') && last.contains("ETA "),
                "{width} columns: {last}"
            );
            assert_eq!(last.contains('░'), width >= 40, "{width} columns: {last}");
            bar.finish();

            // The benchmark's bar, over its units, and its words longer than a board's.
            let screen = Screen::wide(width);
            let bar = Bar::summing(Some(screen.terminal()), 3 * 1000, false);
            let progress = bar.bar.as_ref().unwrap();
            progress.disable_steady_tick();
            bar.set_message("16 threads, run 12 of 30".into());
            progress.inc(1000);
            progress.tick();
            assert!(
                screen.widest() <= width.into(),
                "{width}: {}",
                screen.shown()
            );
            assert!(
                screen.shown().contains("33% "),
                "{width}: {}",
                screen.shown()
            );
            bar.finish();
        }
    }

    #[test]
    fn the_line_gives_up_its_fields_least_needed_first() {
        let counting = |message, left| Shown {
            message,
            elapsed: Duration::from_secs(3723),
            doing: Doing::Counting {
                fraction: 0.41,
                units: [1000, 62437],
                left,
            },
        };
        let shown = counting("n = 12", Some(Duration::from_secs(200)));
        let line = |width| fit(width, &shown);
        // Room for all of it: the words padded, and the bar takes what is left.
        let wide = line(100);
        assert_eq!(console::measure_text_width(&wide), 100);
        assert!(wide.starts_with(&format!("n = 12{}[01:02:03] █", " ".repeat(19))));
        assert!(wide.ends_with("░ 41% 1,000/62,437 units, ETA 3m"), "{wide}");
        assert_eq!(wide.matches('█').count() + wide.matches('░').count(), 33);
        // Narrower: the padding goes, then the units, the time spent, the bar, the words, and the time left.
        for (width, expected) in [
            (
                70,
                "n = 12 [01:02:03] ████████░░░░░░░░░░░░░ 41% 1,000/62,437 units, ETA 3m",
            ),
            (40, "n = 12 [01:02:03] ████░░░░░░░ 41% ETA 3m"),
            (30, "n = 12 ████░░░░░░░░ 41% ETA 3m"),
            (20, "n = 12 41% ETA 3m"),
            (12, "41% ETA 3m"),
            (5, "41%"),
            (2, "41"),
            (0, ""),
        ] {
            assert_eq!(line(width), expected, "{width} columns");
        }
        // No time left known yet, or no words: the same order.
        let unknown = counting("n = 12", None);
        assert_eq!(fit(20, &unknown), "41% ETA unknown");
        assert_eq!(
            fit(30, &counting("", None)),
            "█████░░░░░░░░░ 41% ETA unknown"
        );
        // While the plan is built.
        let planning = Shown {
            message: "n = 12",
            elapsed: Duration::from_secs(5),
            doing: Doing::Planning,
        };
        for (width, expected) in [
            (
                60,
                format!("{:24} [00:00:05] planning the work units", "n = 12").as_str(),
            ),
            (41, "n = 12 [00:00:05] planning the work units"),
            (40, "n = 12 [00:00:05] planning"),
            (30, "n = 12 [00:00:05] planning"),
            (20, "n = 12 planning"),
            (10, "planning"),
            (4, "plan"),
        ] {
            assert_eq!(fit(width, &planning), expected, "{width} columns");
        }
    }

    #[test]
    fn the_bar_is_full_when_every_unit_is_counted_and_reads_100_percent_only_then() {
        // The units' work tallied in whole ticks falls short of the run's: n = 16 ended at 99.6%.
        let at = |done| Shown {
            message: "n = 16",
            elapsed: Duration::from_secs(1),
            doing: Doing::Counting {
                fraction: 0.996,
                units: [done, 20652],
                left: Some(Duration::ZERO),
            },
        };
        let done = fit(60, &at(20652));
        assert!(done.contains(" 100% ") && !done.contains('░'), "{done}");
        let short = fit(60, &at(20651));
        assert!(short.contains(" 99% ") && short.contains('░'), "{short}");
    }

    #[test]
    fn the_bar_clock_moves_while_no_unit_ends() {
        let screen = Screen::default();
        let bar = Bar::counting(Some(screen.terminal()), None, false);
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
