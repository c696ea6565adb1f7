//! The watchdog of a run's GPUs: a GPU that keeps the run waiting far longer than its pace says is said, with
//! what to do, and said again when it comes back.
//!
//! A kernel or a driver call that never returns (a hung GPU, an Xid fault, a stuck driver) would otherwise leave
//! a run of weeks waiting without a word: its progress would just stop. Each GPU's host thread calls its device
//! through [`Watched`], which keeps in the GPU's [`Watch`] how long the thread has waited in the device's
//! `submit` and `collect` since the GPU last gave a batch back, and the GPU's pace: the seconds from its first
//! batch sent to its last one back, over the batches it gave back (the pace a stop's wind-down is told at,
//! `dispatch::winding_down`). A thread of the run's ([`watch`]) looks at every GPU's watch once a second, and
//! says, through the progress's notes (so that it does not garble a progress bar), a GPU whose wait has passed
//! its [`StallBounds`]: once, with the GPU's number and name, how long the run has waited, how long its
//! batches have taken, and what the user can do. If the call then returns, the GPU came back, said once too;
//! a GPU that stalls again later is said again.
//!
//! Nothing is taken from a GPU said to be stalled. A batch it has begun cannot be cancelled through CUDA, and
//! counting its units elsewhere while it may still give them back would report them twice (a unit in parts
//! half here, half there); its thread, stuck in the driver, could not be left behind either, since the run's
//! threads are scoped. What it has not been handed yet already goes to the others: each GPU takes the plan's
//! next batch as it has room (`dispatch`), so a GPU stuck in a call takes none, and the others count the rest
//! of the run; the run then waits for the stuck one's batches under way, and those cut ahead for it.
//! Only the time the host thread spends in the device's calls counts, so a host slow to cut the next batch (or
//! a trial's kernel compiled) is never taken for a hung GPU.
//!
//! **A GPU's opening is watched too** ([`Watch::opening`]): making its context, loading (or on a first run
//! compiling) the kernel, which take a fraction of a second when the GPU is well. A driver that never returns
//! from them is said once the opening has passed its own bound ([`OPEN_STALL`]), with what to do, and said
//! again when it opens. Meanwhile the run goes on as it does for a GPU that cannot be opened: the others count
//! (the driver's contexts and kernels are made a GPU at a time, so that one GPU's hang holds up no other's),
//! and the run waits for the hung one at its end, for the batch cut ahead for it. Three places open GPUs, and
//! each is watched, in its own words ([`Watching`]): a count's run (`dispatch`), the opening ahead of a
//! checkpointed count, before anything is written (`gpu::open_ahead`, through [`open_all`]), and
//! `estimate --backend gpu`'s samples (`forecast`), whose batches are watched as a count's are.

use super::dispatch::Device;
use super::options::knob;
use super::Batch;
use crate::engine::exec::Progress;
use crate::engine::kernel::Tally;
use crate::error::Error;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A GPU whose batches have come back is said to be stalled once the run has waited for its next one this many
/// times its pace, and [`STALL_FLOOR`] at least. A GPU's batches are cut alike (a lone GPU's first ones from
/// [`FIRST_BATCH_TASKS`](super::FIRST_BATCH_TASKS) tasks, each next twice as many up to
/// [`BATCH_TASKS`](super::BATCH_TASKS), sixteen times as many; the last ones a row deeper, so smaller), so a
/// healthy GPU gives them back at a steady pace: the doubling batches make the next one at most about 4.3 times
/// the average of those before it (16 against the first four's 15 / 4), which ten times leaves more than twice
/// over.
pub const STALL_PACES: f64 = 10.0;

/// The least wait that says a GPU is stalled, whatever its pace: a small board's batches take a fraction of a
/// second (n = 17: 0.3 s on an H200), where a desktop's display, a driver's pause or a host that swaps can hold
/// a GPU for seconds, and a run that goes on for weeks loses little by being told in a minute. Four times the
/// longest batch measured at the frontier (5 to 15 s on an H200, results/gpu.md).
pub const STALL_FLOOR: Duration = Duration::from_secs(60);

/// The wait that says a GPU is stalled before any of its batches has come back (there is no pace yet): ten
/// minutes, where a first batch is the run's smallest (a lone GPU's holds
/// [`FIRST_BATCH_TASKS`](super::FIRST_BATCH_TASKS) tasks, a sixteenth of a full batch, which takes 5 to 15 s of
/// an H200 at the frontier), so that a GPU forty times slower than an H200 counting a full batch is still not
/// taken for a hung one.
pub const FIRST_BATCH_STALL: Duration = Duration::from_secs(600);

/// The wait that says a GPU has not opened: two minutes. A GPU opens in a fraction of a second when it is well
/// (0.22 s on an H200, its kernel compiled by NVRTC at 0.23 s and loaded at 0.32 s on a first run,
/// results/gpu.md); a driver without its persistence daemon starting several GPUs, or a slow host's first
/// compile, may take some tens of seconds, which two minutes leaves more than twice over, where a run of weeks
/// loses nothing by being told then.
pub const OPEN_STALL: Duration = Duration::from_secs(120);

/// The most time between two looks at the GPUs: a second, against a minute at least before one is said stalled.
const MOST_POLL: Duration = Duration::from_secs(1);

/// The least: bounds of milliseconds (the tests', or the environment's for measuring) are looked at this often.
const LEAST_POLL: Duration = Duration::from_millis(5);

/// When a GPU is said to be stalled: [`STALL_PACES`], [`STALL_FLOOR`] and [`FIRST_BATCH_STALL`], and not to
/// have opened: [`OPEN_STALL`]; unless the environment says otherwise ([`StallBounds::from_environment`]), or
/// a test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StallBounds {
    /// Times its pace the run waits for a GPU's next batch before it says so.
    pub paces: f64,
    /// The least wait it says, whatever the pace.
    pub floor: Duration,
    /// The wait it says before any batch came back.
    pub first: Duration,
    /// The opening it says.
    pub open: Duration,
}

impl StallBounds {
    /// The program's bounds.
    pub const DEFAULT: StallBounds = StallBounds {
        paces: STALL_PACES,
        floor: STALL_FLOOR,
        first: FIRST_BATCH_STALL,
        open: OPEN_STALL,
    };

    /// The program's bounds, unless `NQUEENS_GPU_STALL_SECONDS` (both the floor and the first batch's bound, 0
    /// to 10^9 seconds) or `NQUEENS_GPU_STALL_PACES` (above 0, to 10^6) say otherwise: for seeing the warning
    /// on a GPU that does not hang (`NQUEENS_GPU_STALL_SECONDS=0 NQUEENS_GPU_STALL_PACES=0.5` says a batch
    /// that takes half its GPU's pace, and its return), or `NQUEENS_GPU_OPEN_SECONDS` (the opening's bound, 0
    /// to 10^9 seconds: 0 says every GPU's opening, and that it opened).
    pub fn from_environment() -> StallBounds {
        StallBounds::asked(
            knob("NQUEENS_GPU_STALL_SECONDS", |_: &f64| true),
            knob("NQUEENS_GPU_STALL_PACES", |_: &f64| true),
            knob("NQUEENS_GPU_OPEN_SECONDS", |_: &f64| true),
        )
    }

    /// The program's bounds with the floor and the first batch's bound `seconds`, the pace's multiple `paces`
    /// and the opening's bound `open`, where given and valid (else the program's, as if not given).
    fn asked(seconds: Option<f64>, paces: Option<f64>, open: Option<f64>) -> StallBounds {
        let mut bounds = StallBounds::DEFAULT;
        let valid = |s: &f64| (0.0..=1e9).contains(s);
        if let Some(seconds) = seconds.filter(valid) {
            bounds.floor = Duration::from_secs_f64(seconds);
            bounds.first = bounds.floor;
        }
        if let Some(open) = open.filter(valid) {
            bounds.open = Duration::from_secs_f64(open);
        }
        if let Some(paces) = paces.filter(|p| *p > 0.0 && *p <= 1e6) {
            bounds.paces = paces;
        }
        bounds
    }

    /// The wait that says a GPU of pace `pace` (seconds a batch; `None` before any came back) is stalled.
    fn bound(&self, pace: Option<f64>) -> Duration {
        match pace {
            None => self.first,
            Some(pace) => self.floor.max(Duration::from_secs_f64(
                (pace * self.paces).clamp(0.0, 1e12),
            )),
        }
    }

    /// How often the watchdog looks: a quarter of the least bound, within [`LEAST_POLL`] and [`MOST_POLL`].
    fn poll(&self) -> Duration {
        (self.floor.min(self.first).min(self.open) / 4).clamp(LEAST_POLL, MOST_POLL)
    }
}

/// What the GPUs are watched for, which says what the run does while one keeps it waiting, and what the user
/// can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Watching {
    /// A count's run: the other GPUs count meanwhile.
    Count,
    /// The opening ahead of a count that writes a journal: nothing is written, nor counted, until it ends.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    Start,
    /// `estimate --backend gpu`'s samples: each GPU its own.
    Estimate,
}

/// What a GPU's host thread tells the watchdog of its GPU ([`Watched`]), one a device of a round of the run.
pub(crate) struct Watch {
    ordinal: usize,
    state: Mutex<WatchState>,
}

/// A GPU's [`Watch`], at one time.
#[derive(Clone, Debug, Default)]
struct WatchState {
    /// The GPU's name, once it opened.
    name: String,
    /// Its batches under way: submitted (from the call's start) and not given back.
    under_way: usize,
    /// When its first batch was sent (the call's start), and when the last came back.
    first_sent: Option<Instant>,
    last_back: Option<Instant>,
    /// Its batches given back.
    back: usize,
    /// The time the host thread has spent in calls to the device (ended) since the GPU last gave a batch back,
    /// or since it was sent a batch with none under way.
    waited: Duration,
    /// When the call to the device under way began, if one is.
    calling_since: Option<Instant>,
    /// Whether it has been said stalled and has not come back since.
    said: bool,
    /// When its opening began, while it has not ended.
    opening_since: Option<Instant>,
    /// Whether its opening has been said, while it has not ended.
    open_said: bool,
}

impl WatchState {
    /// How long the run has waited for the GPU at `now`: in its calls since it last gave a batch back.
    fn waited(&self, now: Instant) -> Duration {
        self.waited
            + self
                .calling_since
                .map_or(Duration::ZERO, |since| now.saturating_duration_since(since))
    }

    /// Its pace: the seconds from its first batch sent to its last back, over its batches back; `None` before
    /// one came back. (As of its last batch back, not of now: a pace that grew with the wait it is held to
    /// would never be passed.)
    fn pace(&self) -> Option<f64> {
        match (self.first_sent, self.last_back) {
            (Some(sent), Some(back)) if self.back > 0 => {
                Some(back.saturating_duration_since(sent).as_secs_f64() / self.back as f64)
            }
            _ => None,
        }
    }

    /// How long the GPU has kept the run waiting at `now`, with its pace, where that passes `bounds` and it has
    /// not been said: a GPU is judged only while its host thread is in a call to it with a batch under way.
    fn stalled(&self, now: Instant, bounds: StallBounds) -> Option<(Duration, Option<f64>)> {
        if self.said || self.under_way == 0 || self.calling_since.is_none() {
            return None;
        }
        let (waited, pace) = (self.waited(now), self.pace());
        (waited > bounds.bound(pace)).then_some((waited, pace))
    }

    /// How long the GPU's opening has taken at `now`, where that passes `bounds` and it has not been said.
    fn unopened(&self, now: Instant, bounds: StallBounds) -> Option<Duration> {
        let since = self.opening_since.filter(|_| !self.open_said)?;
        let waited = now.saturating_duration_since(since);
        (waited > bounds.open).then_some(waited)
    }
}

impl Watch {
    /// The watch of GPU `ordinal` (the driver's number), before it opens.
    pub fn new(ordinal: usize) -> Watch {
        Watch {
            ordinal,
            state: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, WatchState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The seconds from its first batch sent to `now`, and its batches back since, for a stop's wind-down
    /// (`dispatch::winding_down`); `None` before any was sent.
    pub fn since_first(&self, now: Instant) -> Option<(f64, usize)> {
        let state = self.lock();
        state.first_sent.map(|sent| {
            (
                now.saturating_duration_since(sent).as_secs_f64(),
                state.back,
            )
        })
    }

    /// Its name, where it is known before it opens.
    pub fn named(&self, name: String) {
        self.lock().name = name;
    }

    /// Runs `open`, the GPU's opening, watched: the GPU is named first by `named` (the driver names a GPU
    /// without opening it, so that a hang in the opening is said by its name), and one that the watchdog said
    /// has not opened is said to `progress` once it has, by the name `name_of` gives what opened, if it gives
    /// one. (One that failed is said by whoever gets its error.)
    pub fn opening<D>(
        &self,
        progress: &dyn Progress,
        named: &(dyn Fn(usize) -> Option<String> + Sync),
        open: impl FnOnce() -> Result<D, Error>,
        name_of: impl FnOnce(&D) -> Option<String>,
    ) -> Result<D, Error> {
        let began = Instant::now();
        self.lock().opening_since = Some(began);
        if let Some(name) = named(self.ordinal) {
            self.named(name);
        }
        let opened = open();
        let name = opened.as_ref().ok().and_then(name_of);
        let mut state = self.lock();
        state.opening_since = None;
        if let Some(name) = name {
            state.name = name;
        }
        if std::mem::take(&mut state.open_said) && opened.is_ok() {
            progress.note(&opened_words(self.ordinal, &state.name, began.elapsed()));
        }
        opened
    }

    /// Says the GPU stalled at `now`, by `bounds`, if it is and has not been said (`several`: other GPUs
    /// share the run, `watching` what for), or its opening. Said under the watch's lock, so that its return
    /// cannot be said before it.
    fn judge(
        &self,
        now: Instant,
        bounds: StallBounds,
        several: bool,
        watching: Watching,
        progress: &dyn Progress,
    ) {
        let mut state = self.lock();
        if let Some(waited) = state.unopened(now, bounds) {
            state.open_said = true;
            progress.note(&unopened_words(
                self.ordinal,
                &state.name,
                waited,
                several,
                watching,
            ));
        }
        if let Some((waited, pace)) = state.stalled(now, bounds) {
            state.said = true;
            progress.note(&stalled_words(
                self.ordinal,
                &state.name,
                waited,
                pace,
                state.under_way,
                several,
                watching,
            ));
        }
    }
}

/// A device whose calls are timed in its GPU's [`Watch`], and whose return after it was said stalled is said
/// to `progress`.
pub(crate) struct Watched<'w, D> {
    device: D,
    watch: &'w Watch,
    progress: &'w dyn Progress,
}

impl<'w, D: Device> Watched<'w, D> {
    /// `device`, just opened, watched in `watch`.
    pub fn new(device: D, watch: &'w Watch, progress: &'w dyn Progress) -> Watched<'w, D> {
        watch.named(device.name());
        Watched {
            device,
            watch,
            progress,
        }
    }

    /// The device, no longer watched.
    pub fn into_inner(self) -> D {
        self.device
    }

    /// Runs `call` on the device as a wait for the GPU; `gives_back`: it returns a batch, whose return ends
    /// the wait.
    fn waiting<T>(
        &mut self,
        gives_back: bool,
        call: impl FnOnce(&mut D) -> Result<T, Error>,
    ) -> Result<T, Error> {
        {
            let mut state = self.watch.lock();
            let now = Instant::now();
            if !gives_back {
                // A batch sent with none under way: the GPU owed the run nothing until now.
                if state.under_way == 0 {
                    state.waited = Duration::ZERO;
                }
                state.under_way += 1;
                state.first_sent.get_or_insert(now);
            }
            state.calling_since = Some(now);
        }
        let result = call(&mut self.device);
        let mut state = self.watch.lock();
        let now = Instant::now();
        state.waited = state.waited(now);
        state.calling_since = None;
        if result.is_ok() {
            if state.said {
                state.said = false;
                self.progress
                    .note(&back_words(self.watch.ordinal, &state.name, state.waited));
            }
            if gives_back {
                state.under_way = state.under_way.saturating_sub(1);
                state.back += 1;
                state.last_back = Some(now);
                state.waited = Duration::ZERO;
            }
        }
        result
    }
}

impl<D: Device> Device for Watched<'_, D> {
    fn name(&self) -> String {
        self.device.name()
    }
    fn depth(&self) -> usize {
        self.device.depth()
    }
    fn submit(&mut self, batch: Batch) -> Result<(), Error> {
        self.waiting(false, |device| device.submit(batch))
    }
    fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
        self.waiting(true, |device| device.collect())
    }
    fn kernel_seconds(&mut self) -> Result<f64, Error> {
        self.device.kernel_seconds()
    }
    fn counts_nodes(&self) -> bool {
        self.device.counts_nodes()
    }
    fn loops(&self) -> Vec<String> {
        self.device.loops()
    }
    // Untimed: loading another loop compiles a kernel, with no batch owed.
    fn use_loop(&mut self, index: usize) -> Result<(), Error> {
        self.device.use_loop(index)
    }
    fn last_seconds(&mut self) -> Result<Option<f64>, Error> {
        self.device.last_seconds()
    }
}

/// Whether the round's devices have all ended, for [`watch`] to end with them at once.
#[derive(Default)]
pub(crate) struct Finished {
    done: Mutex<bool>,
    changed: Condvar,
}

impl Finished {
    /// The devices have ended.
    pub fn set(&self) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.changed.notify_all();
    }

    /// Waits `most` at most, or until they have ended: whether they have.
    fn wait(&self, most: Duration) -> bool {
        let done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        let (done, _) = self
            .changed
            .wait_timeout_while(done, most, |done| !*done)
            .unwrap_or_else(|e| e.into_inner());
        *done
    }
}

/// Sets [`Finished`] when dropped: as the round's devices are all joined, or a panic unwinds past them, so
/// that [`watch`] never keeps a scope waiting.
pub(crate) struct SetsFinished<'f>(pub &'f Finished);

impl Drop for SetsFinished<'_> {
    fn drop(&mut self) {
        self.0.set();
    }
}

/// The watchdog's thread: looks at `watches` (the round's GPUs, watched for `watching`) until `finished`, and
/// says to `progress` each GPU that stalls or does not open by `bounds` ([`Watch`]).
pub(crate) fn watch(
    watches: &[Watch],
    bounds: StallBounds,
    watching: Watching,
    progress: &dyn Progress,
    finished: &Finished,
) {
    let several = watches.len() > 1;
    while !finished.wait(bounds.poll()) {
        let now = Instant::now();
        for watch in watches {
            watch.judge(now, bounds, several, watching, progress);
        }
    }
}

/// Opens the GPUs `ordinals` at once, each on a thread of its own (`named` gives a GPU's name where it is
/// known before it opens), and gives each one's outcome, in order: the opening ahead of a count that writes a
/// journal (`gpu::open_ahead`), watched for `watching` by `bounds`, a GPU that does not open said to
/// `progress` where there is one. (Where there is none, the run's own opening of the same GPUs, which waits
/// for this one, is watched.)
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn open_all(
    ordinals: &[usize],
    named: &(dyn Fn(usize) -> Option<String> + Sync),
    open: &(dyn Fn(usize) -> Result<(), Error> + Sync),
    bounds: StallBounds,
    watching: Watching,
    progress: Option<&dyn Progress>,
) -> Vec<Result<(), Error>> {
    let watches: Vec<Watch> = ordinals.iter().map(|&o| Watch::new(o)).collect();
    let finished = Finished::default();
    std::thread::scope(|scope| {
        let (watches, finished) = (&watches, &finished);
        if let Some(progress) = progress {
            scope.spawn(move || watch(watches, bounds, watching, progress, finished));
        }
        let _finishes = SetsFinished(finished);
        let opening: Vec<_> = ordinals
            .iter()
            .zip(watches)
            .map(|(&ordinal, watch)| {
                scope.spawn(move || {
                    let silent = crate::engine::exec::NoProgress;
                    watch.opening(
                        progress.unwrap_or(&silent),
                        named,
                        || open(ordinal),
                        |_| None,
                    )
                })
            })
            .collect();
        opening
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// A span of time as a note gives it: "0.012 s", "5.6 s", "45 s", "2 min 10 s", "3 h 5 min".
fn span(time: Duration) -> String {
    let seconds = time.as_secs_f64();
    if seconds < 1.0 {
        return format!("{seconds:.3} s");
    }
    if seconds < 10.0 {
        return format!("{seconds:.1} s");
    }
    let whole = seconds.round() as u64;
    let (hours, minutes, seconds) = (whole / 3600, whole / 60 % 60, whole % 60);
    if whole < 120 {
        format!("{whole} s")
    } else if whole < 7200 {
        match seconds {
            0 => format!("{} min", whole / 60),
            s => format!("{} min {s} s", whole / 60),
        }
    } else {
        match minutes {
            0 => format!("{hours} h"),
            m => format!("{hours} h {m} min"),
        }
    }
}

/// GPU `ordinal` as a note names it: "gpu 1 (NVIDIA H200)", or "gpu 1" before its name is known.
fn gpu_named(ordinal: usize, name: &str) -> String {
    match name {
        "" => format!("gpu {ordinal}"),
        name => format!("gpu {ordinal} ({name})"),
    }
}

/// Where to look at a GPU that keeps the run waiting.
const LOOK: &str =
    "look at `nvidia-smi`, and for Xid errors in the kernel log (`sudo dmesg | grep -i xid`)";

/// What the run says of GPU `ordinal`, `name`, stalled: it has `waited` for it, whose pace is `pace` (seconds a
/// batch, `None` before one came back), with `under_way` batches under way; `several`: other GPUs share the run,
/// `watching` what for.
fn stalled_words(
    ordinal: usize,
    name: &str,
    waited: Duration,
    pace: Option<f64>,
    under_way: usize,
    several: bool,
    watching: Watching,
) -> String {
    if watching == Watching::Estimate {
        return format!(
            "{} may be hung: the estimate has waited {} for its sample's batch; it keeps waiting for it{}; \
             {LOOK}; if it does not come back, Ctrl-C stops the estimate, and --gpus naming the other GPUs \
             estimates without it",
            gpu_named(ordinal, name),
            span(waited),
            if several { ", while the other GPUs sample" } else { "" }
        );
    }
    let waited = span(waited);
    let how = match pace {
        Some(pace) => format!(
            "the run has waited {waited} for its oldest batch under way, where it gave one back every {} so far",
            span(Duration::from_secs_f64(pace.clamp(0.0, 1e12)))
        ),
        None => format!("the run has waited {waited} for its first batch, and none has come back yet"),
    };
    let batches = match under_way {
        1 => "its batch".to_string(),
        n => format!("its {n} batches"),
    };
    let others = if several {
        "; the other GPUs count the batches not yet handed out"
    } else {
        ""
    };
    format!(
        "{} may be hung: {how}; the run keeps waiting for {batches} under way, which cannot be taken back from a \
         GPU{others}; {LOOK}; if it does not come back, Ctrl-C stops a run with --checkpoint keeping every unit \
         it finished, and says how to resume",
        gpu_named(ordinal, name)
    )
}

/// What the run says of GPU `ordinal`, `name` (empty where it is not known), whose opening has taken `waited`
/// so far; `several`: other GPUs share the run, `watching` what for.
fn unopened_words(
    ordinal: usize,
    name: &str,
    waited: Duration,
    several: bool,
    watching: Watching,
) -> String {
    let meanwhile = match (watching, several) {
        (Watching::Count, true) => {
            "the other GPUs count the run without it, and the run waits for it at its end"
        }
        (Watching::Count, false) => "the run waits for it",
        (Watching::Start, _) => "the run waits for it before it writes or counts anything",
        (Watching::Estimate, true) => "the other GPUs sample, and the estimate waits for it",
        (Watching::Estimate, false) => "the estimate waits for it",
    };
    let stop = match watching {
        Watching::Count => {
            "Ctrl-C stops the run (one with --checkpoint keeping every unit it finished, and saying how to \
             resume), and --gpus naming other GPUs, or --backend cpu, counts without it"
        }
        Watching::Start => {
            "Ctrl-C stops the run, which has written nothing, and --gpus naming other GPUs, or --backend cpu, \
             counts without it"
        }
        Watching::Estimate => {
            "Ctrl-C stops the estimate, and --gpus naming other GPUs, or --backend cpu, estimates without it"
        }
    };
    format!(
        "{} has not opened after {}, where a GPU opens in seconds: its driver has not made its context or loaded \
         the kernel yet; {meanwhile}; {LOOK}; if it does not open, {stop}",
        gpu_named(ordinal, name),
        span(waited)
    )
}

/// What the run says of GPU `ordinal`, `name`, opened after `waited`, once it was said not to have.
fn opened_words(ordinal: usize, name: &str, waited: Duration) -> String {
    format!(
        "{} opened after {}: it counts from now on",
        gpu_named(ordinal, name),
        span(waited)
    )
}

/// What the run says of GPU `ordinal`, `name`, back from a stall after `waited`.
fn back_words(ordinal: usize, name: &str, waited: Duration) -> String {
    format!(
        "{} came back after {}: the run goes on",
        gpu_named(ordinal, name),
        span(waited)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_is_stalled_past_ten_times_its_pace_and_a_minute_or_ten_minutes_before_its_first_batch()
    {
        let bounds = StallBounds::DEFAULT;
        assert_eq!(bounds.bound(None), Duration::from_secs(600));
        // A small board's pace: the minute.
        assert_eq!(bounds.bound(Some(0.3)), Duration::from_secs(60));
        assert_eq!(bounds.bound(Some(6.0)), Duration::from_secs(60));
        // A large board's: ten times it.
        assert_eq!(bounds.bound(Some(15.0)), Duration::from_secs(150));
        assert_eq!(bounds.poll(), Duration::from_secs(1));
        // The environment's, for measuring: the floor and the first batch's bound together, and the pace's
        // multiple; a value out of range is the program's.
        let asked = StallBounds::asked(Some(0.0), Some(0.5), None);
        assert_eq!(
            (asked.floor, asked.first, asked.paces),
            (Duration::ZERO, Duration::ZERO, 0.5)
        );
        assert_eq!(asked.bound(Some(2.0)), Duration::from_secs(1));
        assert_eq!(asked.poll(), LEAST_POLL);
        assert_eq!(
            StallBounds::asked(Some(-1.0), Some(0.0), Some(-3.0)),
            bounds
        );
        assert_eq!(
            StallBounds::asked(Some(f64::NAN), Some(f64::INFINITY), Some(f64::NAN)),
            bounds
        );
        assert_eq!(StallBounds::asked(None, None, None), bounds);
        assert_eq!(
            StallBounds::asked(Some(2.0), None, None).bound(None),
            Duration::from_secs(2)
        );
        // The opening's bound: two minutes, the environment's alone, and looked at a quarter of it.
        assert_eq!(bounds.open, Duration::from_secs(120));
        let open = StallBounds::asked(None, None, Some(0.2));
        assert_eq!(
            (open.open, open.floor, open.first),
            (Duration::from_millis(200), bounds.floor, bounds.first)
        );
        assert_eq!(open.poll(), Duration::from_millis(50));
    }

    #[test]
    fn a_gpu_is_judged_on_the_time_spent_in_its_calls_with_a_batch_under_way() {
        let bounds = StallBounds::DEFAULT;
        let t0 = Instant::now();
        let at = |seconds: u64| t0 + Duration::from_secs(seconds);
        // Ten batches back in 50 s: a pace of 5 s, so a minute's wait says it; 20 s waited before the call now
        // under way began at 100 s.
        let state = WatchState {
            name: "H200".into(),
            under_way: 4,
            first_sent: Some(t0),
            last_back: Some(at(50)),
            back: 10,
            waited: Duration::from_secs(20),
            calling_since: Some(at(100)),
            said: false,
            ..Default::default()
        };
        assert_eq!(state.pace(), Some(5.0));
        assert_eq!(state.stalled(at(140), bounds), None);
        assert_eq!(
            state.stalled(at(141), bounds),
            Some((Duration::from_secs(61), Some(5.0)))
        );
        // Not in a call (cutting, say), nothing under way, or said already: not judged.
        for quiet in [
            WatchState {
                calling_since: None,
                ..state.clone()
            },
            WatchState {
                under_way: 0,
                ..state.clone()
            },
            WatchState {
                said: true,
                ..state.clone()
            },
        ] {
            assert_eq!(quiet.stalled(at(10_000), bounds), None, "{quiet:?}");
        }
        // No batch back yet: ten minutes.
        let first = WatchState {
            under_way: 1,
            first_sent: Some(t0),
            calling_since: Some(t0),
            ..Default::default()
        };
        assert_eq!(first.pace(), None);
        assert_eq!(first.stalled(at(600), bounds), None);
        assert_eq!(
            first.stalled(at(601), bounds),
            Some((Duration::from_secs(601), None))
        );
    }

    #[test]
    fn a_span_of_time_reads_as_people_say_it() {
        for (seconds, said) in [
            (0.0123, "0.012 s"),
            (5.63, "5.6 s"),
            (45.2, "45 s"),
            (119.6, "2 min"),
            (130.0, "2 min 10 s"),
            (7200.0, "2 h"),
            (11_100.0, "3 h 5 min"),
            (1_209_600.0, "336 h"),
        ] {
            assert_eq!(span(Duration::from_secs_f64(seconds)), said, "{seconds}");
        }
    }

    #[test]
    fn a_stalled_gpu_is_said_with_its_wait_its_pace_and_what_to_do() {
        let advice = "look at `nvidia-smi`, and for Xid errors in the kernel log (`sudo dmesg | grep -i xid`); if \
                      it does not come back, Ctrl-C stops a run with --checkpoint keeping every unit it finished, \
                      and says how to resume";
        assert_eq!(
            stalled_words(1, "NVIDIA H200", Duration::from_secs(664), Some(5.6), 4, true, Watching::Count),
            format!(
                "gpu 1 (NVIDIA H200) may be hung: the run has waited 11 min 4 s for its oldest batch under way, \
                 where it gave one back every 5.6 s so far; the run keeps waiting for its 4 batches under way, \
                 which cannot be taken back from a GPU; the other GPUs count the batches not yet handed out; \
                 {advice}"
            )
        );
        assert_eq!(
            stalled_words(0, "NVIDIA H100", Duration::from_secs(601), None, 1, false, Watching::Count),
            format!(
                "gpu 0 (NVIDIA H100) may be hung: the run has waited 10 min 1 s for its first batch, and none \
                 has come back yet; the run keeps waiting for its batch under way, which cannot be taken back \
                 from a GPU; {advice}"
            )
        );
        assert_eq!(
            back_words(1, "NVIDIA H200", Duration::from_secs(843)),
            "gpu 1 (NVIDIA H200) came back after 14 min 3 s: the run goes on"
        );
        // An estimate's sample waits for its batch alone.
        assert_eq!(
            stalled_words(2, "NVIDIA H200", Duration::from_secs(61), None, 1, true, Watching::Estimate),
            "gpu 2 (NVIDIA H200) may be hung: the estimate has waited 61 s for its sample's batch; it keeps \
             waiting for it, while the other GPUs sample; look at `nvidia-smi`, and for Xid errors in the \
             kernel log (`sudo dmesg | grep -i xid`); if it does not come back, Ctrl-C stops the estimate, and \
             --gpus naming the other GPUs estimates without it"
        );
    }

    #[test]
    fn a_gpu_that_does_not_open_is_said_with_what_the_run_does_meanwhile_and_what_to_do() {
        let look = "look at `nvidia-smi`, and for Xid errors in the kernel log (`sudo dmesg | grep -i xid`)";
        let said = |name, several, watching| {
            unopened_words(1, name, Duration::from_secs(125), several, watching)
        };
        let opening = "has not opened after 2 min 5 s, where a GPU opens in seconds: its driver has not made \
                       its context or loaded the kernel yet";
        assert_eq!(
            said("NVIDIA H200", true, Watching::Count),
            format!(
                "gpu 1 (NVIDIA H200) {opening}; the other GPUs count the run without it, and the run waits for \
                 it at its end; {look}; if it does not open, Ctrl-C stops the run (one with --checkpoint keeping \
                 every unit it finished, and saying how to resume), and --gpus naming other GPUs, or --backend \
                 cpu, counts without it"
            )
        );
        // Its name not known yet: its number alone.
        assert_eq!(
            said("", false, Watching::Start),
            format!(
                "gpu 1 {opening}; the run waits for it before it writes or counts anything; {look}; if it does \
                 not open, Ctrl-C stops the run, which has written nothing, and --gpus naming other GPUs, or \
                 --backend cpu, counts without it"
            )
        );
        assert_eq!(
            said("NVIDIA H200", true, Watching::Estimate),
            format!(
                "gpu 1 (NVIDIA H200) {opening}; the other GPUs sample, and the estimate waits for it; {look}; \
                 if it does not open, Ctrl-C stops the estimate, and --gpus naming other GPUs, or --backend cpu, \
                 estimates without it"
            )
        );
        assert!(said("", false, Watching::Count).contains("; the run waits for it; "));
        assert!(said("", false, Watching::Estimate).contains("; the estimate waits for it; "));
        assert_eq!(
            opened_words(1, "NVIDIA H200", Duration::from_secs(190)),
            "gpu 1 (NVIDIA H200) opened after 3 min 10 s: it counts from now on"
        );
    }

    /// Notes heard.
    #[derive(Default)]
    struct Heard(Mutex<Vec<String>>);

    impl Progress for Heard {
        fn note(&self, line: &str) {
            self.0.lock().unwrap().push(line.to_string());
        }
    }

    #[test]
    fn the_opening_ahead_of_a_run_says_a_gpu_that_does_not_open_then_that_it_opened() {
        // GPU 2's driver hangs until the opening has said so; GPU 0 opens, GPU 5 cannot be opened.
        let heard = Heard::default();
        let bounds = StallBounds {
            open: Duration::from_millis(300),
            ..StallBounds::DEFAULT
        };
        let open = |ordinal: usize| match ordinal {
            2 => {
                super::super::testing::open_stalling(&|| {
                    heard
                        .0
                        .lock()
                        .unwrap()
                        .iter()
                        .any(|n| n.contains("not opened"))
                });
                Ok(())
            }
            5 => Err(Error::Gpu("cannot open GPU 5".into())),
            _ => Ok(()),
        };
        let named = |ordinal: usize| (ordinal == 2).then(|| "NVIDIA H200".to_string());
        let outcomes = open_all(
            &[0, 2, 5],
            &named,
            &open,
            bounds,
            Watching::Start,
            Some(&heard),
        );
        assert!(outcomes[0].is_ok() && outcomes[1].is_ok() && outcomes[2].is_err());
        let notes = heard.0.lock().unwrap().clone();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with("gpu 2 (NVIDIA H200) has not opened after ")
                && notes[0]
                    .contains("; the run waits for it before it writes or counts anything; "),
            "{notes:?}"
        );
        assert!(
            notes[1].starts_with("gpu 2 (NVIDIA H200) opened after ")
                && notes[1].ends_with(": it counts from now on"),
            "{notes:?}"
        );
        // Without notes to say it to, nothing is watched, and the GPUs open all the same.
        let outcomes = open_all(&[0, 5], &named, &open, bounds, Watching::Start, None);
        assert!(outcomes[0].is_ok() && outcomes[1].is_err());
    }

    #[test]
    fn an_opening_is_judged_on_its_own_bound_once() {
        let bounds = StallBounds::DEFAULT;
        let t0 = Instant::now();
        let at = |seconds: u64| t0 + Duration::from_secs(seconds);
        let opening = WatchState {
            opening_since: Some(t0),
            ..Default::default()
        };
        assert_eq!(opening.unopened(at(120), bounds), None);
        assert_eq!(
            opening.unopened(at(121), bounds),
            Some(Duration::from_secs(121))
        );
        // Not opening, or said already: not judged; and an opening is no batch's stall.
        for quiet in [
            WatchState::default(),
            WatchState {
                open_said: true,
                ..opening.clone()
            },
        ] {
            assert_eq!(quiet.unopened(at(10_000), bounds), None, "{quiet:?}");
        }
        assert_eq!(opening.stalled(at(10_000), bounds), None);
    }
}
