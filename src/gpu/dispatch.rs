//! The host's part of a run: a thread for each GPU in use that opens it and hands it the plan's next batches
//! ([`dispatch`]), through the [`Device`] trait.
//!
//! Each GPU's batches are cut on a thread of their own, ahead of it ([`cut_ahead`]), and the first ones while
//! the driver starts and finds the GPUs ([`while_opening`]), so that the host's cut overlaps the GPU's opening
//! and its count. Each device's opening and batches go to it through the watchdog (`watchdog.rs`), a thread of
//! the run that says a GPU that keeps the run waiting far longer than its pace, or does not open. The device of a real run is the
//! `cuda` feature's; the tests count on the host instead, and hold the whole path to the CPU engine's counts.

use super::batch::{
    batches, coalesce, finish, first_batch_tasks, nodes_vouched, tail_deeper, Batch, Part,
    Unfinished, BATCH_TASKS,
};
use super::options::verbose;
use super::prepare::{parts_of, prepare_parts};
use super::sizing::{cut_with, unit_tasks, Cut};
use super::trial::{self, Trial, When};
use super::watchdog::{self, Finished, SetsFinished, StallBounds, Watch, Watched, Watching};
use super::{drop_spares, prepare, GpuRun, GpuShare};
use crate::engine::count::Count;
use crate::engine::exec::{Progress, Run};
use crate::engine::kernel::Tally;
use crate::engine::plan::Plan;
use crate::error::Error;
use std::collections::VecDeque;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

// Named in the docs alone.
#[cfg(doc)]
use super::leave_nodes_uncounted;

/// Tasks a lone GPU's batches may hold that are cut and not yet taken by its host thread: at least one batch
/// (several GPUs: one batch each). Its batches are cut on a thread of their own from the time its thread
/// starts to open it: a batch ahead of a large run (at most [`BATCH_TASKS`]), and in a small run all of its
/// batches while the GPU opens (n = 17's 3.3 million tasks, 53 MB), so that the GPU's thread need not wait
/// for a cut once it has opened it.
pub const CUT_AHEAD_TASKS: usize = BATCH_TASKS;

/// Tasks cut at most while the driver starts and finds the GPUs, before any can take one (about 270 MB): the
/// whole of a run up to n = 18, whose cut takes less time than the driver's start on a 16-core host.
const EARLY_TASKS: usize = 1 << 23;

/// The GPUs the first batches are sized for, cut before the GPUs are known (see [`dispatch`]): small enough
/// that up to this many share them.
const EARLY_DEVICES: usize = 4;

/// What counts batches for [`dispatch`]: a GPU, or in the tests the host. One host thread drives each.
pub trait Device {
    /// Its name, for reports.
    fn name(&self) -> String;
    /// The batches it keeps in flight at most.
    fn depth(&self) -> usize;
    /// Starts counting `batch`; returns once it is under way.
    fn submit(&mut self, batch: Batch) -> Result<(), Error>;
    /// Waits for the oldest batch under way: returns it with each of its slots' tallies, `None` for a slot
    /// whose tally the device cannot vouch for (the host then counts that unit itself).
    fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error>;
    /// Seconds from its first kernel's start to its last one's end, once all are collected.
    fn kernel_seconds(&mut self) -> Result<f64, Error> {
        Ok(0.0)
    }
    /// Whether its tallies count the nodes; a device whose kernel leaves them uncounted
    /// ([`leave_nodes_uncounted`]) says no, and its units' counts say so.
    fn counts_nodes(&self) -> bool {
        true
    }
    /// The loops of the kernel it can count with, by name, the one it opened with first: more than one where a
    /// run times them against each other ([`Trial`], where `NQUEENS_GPU_TRIAL` asks). None where it does not
    /// say.
    fn loops(&self) -> Vec<String> {
        Vec::new()
    }
    /// Counts the batches submitted from now on with loop `index` of [`Device::loops`].
    fn use_loop(&mut self, index: usize) -> Result<(), Error> {
        let _ = index;
        Ok(())
    }
    /// The seconds the last batch collected took on its own clock, from its kernel's start to its end; `None`
    /// where it cannot say (a [`Trial`] then keeps the loop it opened with).
    fn last_seconds(&mut self) -> Result<Option<f64>, Error> {
        Ok(None)
    }
}

/// The batches of `chunk`'s size (its cut) that fit in [`EARLY_TASKS`]: one at least.
fn early_most(chunk: Cut) -> usize {
    ((EARLY_TASKS as f64 / chunk.tasks.max(1.0)) as usize).max(1)
}

/// Runs `open` on a thread of its own and meanwhile `cut` batches, while it has not returned: at least one
/// (if any is left), at most `most`. Returns what `open` gave, and the batches in order.
fn while_opening<D: Send, B>(
    open: impl FnOnce() -> D + Send,
    mut cut: impl FnMut() -> Option<B>,
    most: usize,
) -> (D, VecDeque<B>) {
    std::thread::scope(|scope| {
        let opening = scope.spawn(open);
        let mut ahead = VecDeque::new();
        while ahead.is_empty() || (ahead.len() < most && !opening.is_finished()) {
            let Some(batch) = cut() else { break };
            ahead.push_back(batch);
        }
        let opened = opening
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (opened, ahead)
    })
}

/// Gives `body` the batches `cut` makes, in order, cut on a thread of its own while `body` works: ahead of
/// `body` by `budget` tasks (by `size`) at most, and by one batch at least. So a GPU's host thread copies a
/// batch to its GPU, waits for a result, or waits for the GPU to open, while the next batches are cut, rather
/// than one after the other: at n = 19 on an H200, the thread spent 0.17 s cutting and about 0.1 s copying,
/// one after the other, while the kernels needed 0.145 s (results/gpu.md). Once `body` has returned (or
/// unwound) no batch is begun; one being cut then is dropped.
fn cut_ahead<B: Send, R>(
    budget: usize,
    size: impl Fn(&B) -> usize + Sync,
    mut cut: impl FnMut() -> Option<B> + Send,
    body: impl FnOnce(&mut dyn Iterator<Item = B>) -> R,
) -> R {
    let ahead = Ahead {
        state: Mutex::new(AheadState {
            batches: VecDeque::new(),
            tasks: 0,
            cut_all: false,
            stopped: false,
        }),
        changed: std::sync::Condvar::new(),
    };
    std::thread::scope(|scope| {
        let (ahead, size) = (&ahead, &size);
        scope.spawn(move || {
            // However the cutter ends (its last batch cut, or a panic in `cut`), `body` is told: it would wait
            // for it without end otherwise.
            let _told = Told(ahead);
            loop {
                {
                    let mut state = ahead.lock();
                    while !state.stopped && !state.batches.is_empty() && state.tasks >= budget {
                        state = ahead.wait(state);
                    }
                    if state.stopped {
                        return;
                    }
                }
                let Some(batch) = cut() else { return };
                let mut state = ahead.lock();
                state.tasks += size(&batch);
                state.batches.push_back(batch);
                ahead.changed.notify_all();
            }
        });
        // Dropped as `body` returns or unwinds, before the scope waits for the cutter: it stops the cutter.
        let mut taker = Taker { ahead, size };
        body(&mut taker)
    })
}

/// The batches [`cut_ahead`]'s cutter has cut and its body not yet taken.
struct Ahead<B> {
    state: Mutex<AheadState<B>>,
    changed: std::sync::Condvar,
}

struct AheadState<B> {
    batches: VecDeque<B>,
    /// Their tasks.
    tasks: usize,
    /// Whether the cutter has ended.
    cut_all: bool,
    /// Whether the body has.
    stopped: bool,
}

impl<B> Ahead<B> {
    fn lock(&self) -> std::sync::MutexGuard<'_, AheadState<B>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(
        &self,
        state: std::sync::MutexGuard<'a, AheadState<B>>,
    ) -> std::sync::MutexGuard<'a, AheadState<B>> {
        self.changed.wait(state).unwrap_or_else(|e| e.into_inner())
    }
}

/// Tells [`cut_ahead`]'s body that its cutter has ended, when dropped.
struct Told<'a, B>(&'a Ahead<B>);

impl<B> Drop for Told<'_, B> {
    fn drop(&mut self) {
        self.0.lock().cut_all = true;
        self.0.changed.notify_all();
    }
}

/// [`cut_ahead`]'s body's batches: each as soon as it is cut. Stops the cutter when dropped.
struct Taker<'a, B, S> {
    ahead: &'a Ahead<B>,
    size: &'a S,
}

impl<B, S: Fn(&B) -> usize> Iterator for Taker<'_, B, S> {
    type Item = B;

    fn next(&mut self) -> Option<B> {
        let mut state = self.ahead.lock();
        loop {
            if let Some(batch) = state.batches.pop_front() {
                state.tasks -= (self.size)(&batch);
                self.ahead.changed.notify_all();
                return Some(batch);
            }
            if state.cut_all {
                return None;
            }
            state = self.ahead.wait(state);
        }
    }
}

impl<B, S> Drop for Taker<'_, B, S> {
    fn drop(&mut self) {
        self.ahead.lock().stopped = true;
        self.ahead.changed.notify_all();
    }
}

/// Counts `units` of `plan` on one device of each of the GPUs `ordinals` names (the driver's numbers, opened
/// by `open`, each on a host thread of its own), until they are done or `stop` is set, reporting each finished
/// unit to `progress`. The devices take the plan's batches in order, each the next one left when it has room,
/// so a faster device takes more. The count covers exactly the units reported. A device that fails leaves the
/// others going, and they count the units it left once they are done; the run fails only when every device
/// has, with the first one's error. A device that keeps the run waiting for its next batch far longer than its
/// pace says (by [`STALL_PACES`](super::STALL_PACES), [`STALL_FLOOR`](super::STALL_FLOOR) and
/// [`FIRST_BATCH_STALL`](super::FIRST_BATCH_STALL), or `NQUEENS_GPU_STALL_SECONDS` and
/// `NQUEENS_GPU_STALL_PACES`) is said to `progress`, once, and so is its return; the run waits for it.
///
/// `ordinals` is called on a thread of its own while the host cuts the first batches: finding the GPUs starts
/// the driver, which in a small run takes longer than cutting all of it.
///
/// The devices time their loops first where `NQUEENS_GPU_TRIAL` asks for it ([`Trial`]; see
/// [`When::from_environment`]).
pub fn dispatch<D: Device + Send>(
    plan: &Plan,
    units: &[usize],
    ordinals: &(dyn Fn() -> Result<Vec<usize>, Error> + Sync),
    open: &(dyn Fn(usize) -> Result<D, Error> + Sync),
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<(Count, GpuRun), Error> {
    dispatch_with(
        plan,
        units,
        ordinals,
        open,
        stop,
        progress,
        When::from_environment(),
    )
}

/// [`dispatch`], with the devices' loops timed `when` says rather than as the environment says.
pub fn dispatch_with<D: Device + Send>(
    plan: &Plan,
    units: &[usize],
    ordinals: &(dyn Fn() -> Result<Vec<usize>, Error> + Sync),
    open: &(dyn Fn(usize) -> Result<D, Error> + Sync),
    stop: &AtomicBool,
    progress: &dyn Progress,
    when: When,
) -> Result<(Count, GpuRun), Error> {
    let devices = Devices {
        ordinals,
        open,
        named: &super::known_name,
        stall: StallBounds::from_environment(),
    };
    dispatch_within(plan, units, devices, stop, progress, when, unit_tasks())
}

/// How [`dispatch`] finds its devices, opens one, and tells one that keeps the run waiting.
struct Devices<'d, D> {
    ordinals: &'d (dyn Fn() -> Result<Vec<usize>, Error> + Sync),
    open: &'d (dyn Fn(usize) -> Result<D, Error> + Sync),
    /// A device's name, where it is known before it opens: for saying one that does not open.
    named: &'d (dyn Fn(usize) -> Option<String> + Sync),
    /// When a device's wait, or its opening, is said ([`watchdog`]).
    stall: StallBounds,
}

/// What waits to be cut in batches of its own ([`parts_of`]): a part of a unit, with its tasks' estimate, or a
/// unit counted by Burnside's lemma to be cut alone, with its rows.
#[derive(Clone, Copy, Debug)]
enum Aside {
    Part(Part, f64),
    Alone(usize, u32),
}

/// What waits to be cut, shared by the run's devices.
type Waiting = Mutex<VecDeque<Aside>>;

/// The next batch of what waits in `waiting`, if anything does: a unit alone, or the parts that come first,
/// about `most` tasks of them, one at least.
fn next_aside(plan: &Plan, waiting: &Waiting, most: f64) -> Option<Batch> {
    let mut waiting = waiting.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&Aside::Alone(unit, rows)) = waiting.front() {
        waiting.pop_front();
        drop(waiting);
        return Some(prepare(plan, &[unit], rows));
    }
    let mut parts = Vec::new();
    let mut tasks = 0.0;
    while let Some(&Aside::Part(part, guess)) = waiting.front() {
        if !parts.is_empty() && tasks + guess > most {
            break;
        }
        parts.push(part);
        tasks += guess;
        waiting.pop_front();
    }
    drop(waiting);
    (!parts.is_empty()).then(|| prepare_parts(plan, &parts))
}

/// The next batch of a run: what waits to be cut in batches of its own first, then the units of the next of
/// `chunks` (each with the rows to cut it to) that the cut leaves whole, its units' parts and those to be cut
/// alone left waiting for the batches after it; `None` once all are taken.
fn next_batch<'c>(
    plan: &Plan,
    cut: Cut,
    waiting: &Waiting,
    mut chunks: impl FnMut() -> Option<(&'c [usize], u32)>,
) -> Option<Batch> {
    loop {
        if let Some(batch) = next_aside(plan, waiting, cut.part_tasks()) {
            return Some(batch);
        }
        let (chunk, rows) = chunks()?;
        let cutting = parts_of(plan, chunk, rows, cut);
        let mut aside = waiting.lock().unwrap_or_else(|e| e.into_inner());
        aside.extend(cutting.parts.into_iter().map(|(p, t)| Aside::Part(p, t)));
        aside.extend(cutting.alone.into_iter().map(|(u, r)| Aside::Alone(u, r)));
        drop(aside);
        if !cutting.whole.is_empty() {
            return Some(prepare(plan, &cutting.whole, rows));
        }
    }
}

/// The batches of a run of `units` of `plan` cut as `cut` says for `devices` GPUs, in the order its GPUs take
/// them but for the first ones (which [`dispatch`] cuts smaller while the driver starts, and may merge): the
/// units' batches, the last ones a row deeper ([`tail_deeper`]), and the parts of units too large for a batch
/// ([`parts_of`]) in batches of their own. For weighing a run's batches without a GPU (the examples).
pub fn run_batches<'p>(
    plan: &'p Plan,
    units: &'p [usize],
    cut: Cut,
    devices: usize,
) -> impl Iterator<Item = Batch> + 'p {
    let chunks = tail_deeper(batches(units, cut, devices).collect(), cut, devices);
    let waiting: Waiting = Mutex::new(VecDeque::new());
    let mut next = 0;
    std::iter::from_fn(move || {
        next_batch(plan, cut, &waiting, || {
            let chunk = chunks.get(next).copied();
            next += 1;
            chunk
        })
    })
}

/// [`dispatch_with`], counting units of more than `unit_tasks` tasks in parts.
///
/// A device that fails (its driver's error, a kernel's fault) leaves the others going: the units it left
/// uncounted (those of its batches under way or cut ahead for it, and the units in parts some of which it
/// held) are counted again once the others are done, on them, in as many rounds as failures ask for. The run
/// fails only when no device is left, with the first failed device's error. The count still covers exactly
/// the units reported, each once.
fn dispatch_within<D: Device + Send>(
    plan: &Plan,
    units: &[usize],
    devices: Devices<'_, D>,
    stop: &AtomicBool,
    progress: &dyn Progress,
    when: When,
    unit_tasks: usize,
) -> Result<(Count, GpuRun), Error> {
    let Devices {
        ordinals,
        open,
        named,
        stall,
    } = devices;
    let devices = (open, named);
    progress.start(Run {
        plan,
        units: Some(units),
    });
    let first = count_round(
        plan, units, ordinals, devices, stop, progress, when, unit_tasks, stall,
    )?;
    let (mut sum, mut run) = (first.sum, first.run);
    let mut round = (first.failed, first.survivors, first.left);
    // Each failed GPU with its error, for the report.
    let mut failures: Vec<String> = Vec::new();
    loop {
        let (mut failed, survivors, left) = round;
        failures.extend(failed.iter().map(|(o, e)| format!("GPU {o}: {e}")));
        if failed.is_empty() || left.is_empty() || stop.load(Ordering::Relaxed) {
            run.failed = failures.join("; ");
            return Ok((sum, run));
        }
        if survivors.is_empty() {
            let (_, error) = failed.swap_remove(0);
            return Err(error);
        }
        progress.note(&format!(
            "gpu: counting again the {} unit{} that {} left, on {}",
            left.len(),
            if left.len() == 1 { "" } else { "s" },
            gpus_named(failed.iter().map(|(ordinal, _)| *ordinal)),
            gpus_named(survivors.iter().copied())
        ));
        let found = survivors.clone();
        let next = count_round(
            plan,
            &left,
            &|| Ok(found.clone()),
            devices,
            stop,
            progress,
            When::Never,
            unit_tasks,
            stall,
        )?;
        sum += next.sum;
        run.tasks += next.run.tasks;
        run.kernel_seconds += next.run.kernel_seconds;
        add_shares(&mut run.gpus, &next.run.gpus);
        round = (next.failed, next.survivors, next.left);
    }
}

/// Adds each GPU's share of a later round to its share of the run so far: the `k`th share of a GPU in the
/// round to its `k`th in the run (a GPU named twice has two).
fn add_shares(run: &mut [GpuShare], round: &[GpuShare]) {
    for (at, later) in round.iter().enumerate() {
        let k = round[..at]
            .iter()
            .filter(|s| s.ordinal == later.ordinal)
            .count();
        if let Some(share) = run.iter_mut().filter(|s| s.ordinal == later.ordinal).nth(k) {
            share.add(later);
        }
    }
}

/// "GPU 3", "GPUs 1 and 3" or "GPUs 0, 2 and 5", by the driver's numbers.
fn gpus_named(ordinals: impl Iterator<Item = usize>) -> String {
    let names: Vec<String> = ordinals.map(|o| o.to_string()).collect();
    match names.as_slice() {
        [] => "no GPU".to_string(),
        [one] => format!("GPU {one}"),
        [rest @ .., last] => format!("GPUs {} and {last}", rest.join(", ")),
    }
}

/// A device's failure in a round of [`dispatch_within`]: its error, and whether the device had opened.
struct Failure {
    error: Error,
    opened: bool,
}

/// What a round of [`dispatch_within`] counted, and what it left.
struct Round {
    /// The units reported, counted.
    sum: Count,
    /// The devices that did not fail, together.
    run: GpuRun,
    /// The devices that failed, by the driver's numbers, each with its error, in the order found.
    failed: Vec<(usize, Error)>,
    /// The devices that did not.
    survivors: Vec<usize>,
    /// The round's units left unreported, in order: none unless a device failed or the run was stopped.
    left: Vec<usize>,
}

/// What a stopped GPU says of its `in_flight` batches under way: how many, and, where `pace` gives the seconds
/// since its first batch was sent and the batches it has collected since, about how long they take at that
/// pace (the batches under way finish one after the other as those before did).
fn winding_down(ordinal: usize, in_flight: usize, pace: Option<(f64, usize)>) -> String {
    let batches = if in_flight == 1 {
        "its batch".to_string()
    } else {
        format!("its {in_flight} batches")
    };
    match pace {
        Some((seconds, collected)) if collected > 0 => format!(
            "gpu {ordinal}: stopping; finishing {batches} under way, about {:.0} s at its pace so far",
            (seconds / collected as f64 * in_flight as f64).ceil()
        ),
        _ => format!("gpu {ordinal}: stopping; finishing {batches} under way"),
    }
}

/// How a round opens a device, and names it before it opens ([`Devices`]).
type Opening<'d, D> = (
    &'d (dyn Fn(usize) -> Result<D, Error> + Sync),
    &'d (dyn Fn(usize) -> Option<String> + Sync),
);

/// One round of [`dispatch_within`]: `units` counted on the devices `ordinals` finds, opened by `opening`, a
/// device's failure left to the caller, with the units it left, and a device that keeps the round waiting
/// past `stall`, or does not open within it, said ([`watchdog`]).
#[allow(clippy::too_many_arguments)]
fn count_round<D: Device + Send>(
    plan: &Plan,
    units: &[usize],
    ordinals: &(dyn Fn() -> Result<Vec<usize>, Error> + Sync),
    (open, named): Opening<'_, D>,
    stop: &AtomicBool,
    progress: &dyn Progress,
    when: When,
    unit_tasks: usize,
    stall: StallBounds,
) -> Result<Round, Error> {
    let began = std::time::Instant::now();
    let since = move || began.elapsed().as_secs_f64();
    // A device's failure stops it alone: the others go on.
    let going = || !stop.load(Ordering::Relaxed);
    // The units reported, by the plan's numbers, and what they counted.
    let reported: Vec<AtomicBool> = (0..plan.units().len())
        .map(|_| AtomicBool::new(false))
        .collect();
    let counted = Mutex::new(Count::default());
    let cut = cut_with(plan, units, unit_tasks);
    // Parts of units too large for a batch, waiting to be cut; and the units some of whose parts are counted.
    let waiting: Waiting = Mutex::new(VecDeque::new());
    let unfinished = Unfinished::default();
    if verbose() {
        let _ = writeln!(
            std::io::stderr(),
            "gpu: cut planned at {:.3} s: {} rows below the units (the last batches {}), about {:.0} tasks{}",
            since(),
            cut.extra_rows,
            cut.tail_rows,
            cut.tasks,
            if cut.parts_at(cut.tail_rows) {
                format!(
                    "; units of more than {} tasks in parts from {} rows on",
                    cut.unit_tasks, cut.parted_from
                )
            } else {
                String::new()
            }
        );
    }
    // The first batches, cut while the driver finds the GPUs; as small as for EARLY_DEVICES GPUs, so that
    // several can share them.
    let early: Vec<&[usize]> = batches(units, cut, EARLY_DEVICES).collect();
    let mut taken = 0;
    let early_from = since();
    let most = early_most(cut.part(early.first().map_or(0, |c| c.len()), units.len()));
    let (ordinals, early_batches) = while_opening(
        ordinals,
        || {
            next_batch(plan, cut, &waiting, || {
                let chunk = early.get(taken).filter(|_| going())?;
                taken += 1;
                Some((*chunk, cut.extra_rows))
            })
        },
        most,
    );
    let ordinals = ordinals?;
    if ordinals.is_empty() {
        return Err(Error::Gpu("no GPU to count on".into()));
    }
    let early_cutting = since() - early_from;
    if verbose() {
        let _ = writeln!(
            std::io::stderr(),
            "gpu: {} GPUs found by {:.3} s, {} batches cut by then ({early_cutting:.3} s)",
            ordinals.len(),
            since(),
            early_batches.len()
        );
    }
    let cut_early = early_batches.len();
    let early_batches = Mutex::new(early_batches);
    // Each device's wait for its GPU, in the order named (a GPU named twice has two), for the watchdog.
    let watches: Vec<Watch> = ordinals.iter().map(|&o| Watch::new(o)).collect();
    // The rest of the units, in batches for the GPUs found.
    let covered: usize = early[..taken].iter().map(|c| c.len()).sum();
    let rest = &units[covered..];
    let chunks = tail_deeper(
        batches(rest, cut.part(rest.len(), units.len()), ordinals.len()).collect(),
        cut,
        ordinals.len(),
    );
    let next = AtomicUsize::new(0);
    // A device's next batch: one cut early, else the next chunk, cut here (`cutting` adds the seconds).
    let take = |cutting: &mut f64| -> Option<Batch> {
        if !going() {
            return None;
        }
        if let Some(batch) = early_batches
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front()
        {
            return Some(batch);
        }
        let cut_from = since();
        let batch = next_batch(plan, cut, &waiting, || {
            chunks.get(next.fetch_add(1, Ordering::Relaxed)).copied()
        });
        *cutting += since() - cut_from;
        batch
    };
    // Each device's thread: its part of the report (its name, kernel time, tasks, and batches cut while it
    // opened). What it counts goes to `counted` as each unit is reported, so that a device that fails keeps it.
    let drive = |ordinal: usize, watch: &Watch| -> Result<GpuRun, Failure> {
        // Whether the device opened: one that could not is said so.
        let mut is_open = false;
        // Seconds: cutting batches on the host, waiting for them, waiting for the device's results; and when
        // the device opened, the batches in hand then, and when the first was sent.
        let (mut cutting, mut waiting_for_cut, mut waiting) = (0.0, 0.0, 0.0);
        let (mut opened, mut ahead, mut first) = (0.0, 0, None);
        // The device's loops, what their trials measured, and the tasks each loop counted.
        let mut loops: Vec<String> = Vec::new();
        let mut trials: Vec<Trial> = Vec::new();
        let mut by_loop: Vec<u64> = Vec::new();
        let mut tasks = 0u64;
        // The nodes of the tasks it counted, and whether its kernel counts them.
        let nodes = std::cell::Cell::new(0u64);
        let mut counts_nodes = true;
        // Alone, a GPU takes the early batches (cut small, for several) as a few, merged while it opens (see
        // `merge`; after it opened, their merge held back n = 17's first batch by 0.06 s of its 0.47 s,
        // results/gpu.md). Taken here, before its cutter starts, which would take them one by one.
        let alone = ordinals.len() == 1;
        let early = if alone {
            std::mem::take(&mut *early_batches.lock().unwrap_or_else(|e| e.into_inner()))
        } else {
            VecDeque::new()
        };
        // The device's batches are cut on a thread of their own from now on, while it opens too (its context
        // may still be in the making: `open_ahead`, on a thread of its own): up to CUT_AHEAD_TASKS ahead of a
        // lone GPU, one batch ahead of each of several, so that a batch cut for one is not held from a faster
        // one at the run's end. (A batch counts as one task at least, so that batches of units all counted on
        // the host are not cut ahead without bound.)
        let mut device = cut_ahead(
            if alone { CUT_AHEAD_TASKS } else { 1 },
            |batch: &Batch| batch.tasks.len().max(1),
            || take(&mut cutting),
            |batches_cut| -> Result<D, Error> {
                let (device, mut pending) = std::thread::scope(|scope| {
                    // Watched: a driver that hangs in making the context or loading the kernel is said.
                    let opening = scope.spawn(|| {
                        watch.opening(progress, named, || open(ordinal), |device| {
                            Some(device.name())
                        })
                    });
                    let merged = coalesce(early, first_batch_tasks(), BATCH_TASKS);
                    let device = opening
                        .join()
                        .unwrap_or_else(|p| std::panic::resume_unwind(p));
                    (device, merged)
                });
                // Its calls timed for the watchdog from now on: a GPU's opening is no batch's wait.
                let mut device = Watched::new(device?, watch, progress);
                is_open = true;
                counts_nodes = device.counts_nodes();
                opened = since();
                ahead = pending.len();
                loops = device.loops();
                by_loop = vec![0; loops.len()];
                // The loops are timed on the device's first batch large enough, if the run is large enough,
                // and again after a while (`When::again`): the loop chosen and the tasks since the last trial.
                let to_try = loops.len() > 1 && when.wanted(&cut, ordinals.len());
                let (mut chosen, mut since_trial) = (0usize, 0u64);
                let report = |batch: Batch, mut tallies: Vec<Option<Tally>>| {
                    trial::add_sampled(&batch, &mut tallies);
                    nodes.set(nodes.get() + nodes_vouched(&tallies));
                    let mut sum = Count::default();
                    for (index, count) in finish(plan, &batch, &tallies, counts_nodes, &unfinished)
                    {
                        progress.unit_done(&plan.units()[index], &count);
                        sum += count;
                        reported[index].store(true, Ordering::Relaxed);
                    }
                    *counted.lock().unwrap_or_else(|e| e.into_inner()) += sum;
                };
                let mut in_flight = 0usize;
                // A stop leaves the batches in hand and cut ahead uncounted, as this device's failure does (a
                // later round counts those).
                while going() {
                    let batch = match pending.pop_front() {
                        Some(batch) => batch,
                        None => {
                            let wait_from = since();
                            let next = batches_cut.next();
                            waiting_for_cut += since() - wait_from;
                            match next {
                                Some(batch) => batch,
                                None => break,
                            }
                        }
                    };
                    tasks += batch.tasks.len() as u64;
                    let due = to_try
                        && when.takes(&batch)
                        && (trials.is_empty() || when.again(since_trial));
                    since_trial += batch.tasks.len() as u64;
                    let batch = if due {
                        since_trial = 0;
                        // The device alone with the trial: the batches under way are collected first.
                        let wait_from = since();
                        for _ in 0..in_flight {
                            let (batch, tallies) = device.collect()?;
                            report(batch, tallies);
                        }
                        in_flight = 0;
                        waiting += since() - wait_from;
                        let trial_from = since();
                        let (rest, measured) = trial::trial(&mut device, batch)?;
                        let line = format!(
                            "gpu {ordinal}: the kernel's loops timed in {:.3} s: {}; counting with {}",
                            since() - trial_from,
                            measured.describe(),
                            measured.loops[measured.chosen]
                        );
                        // Measuring (verbose), said however quiet the run; else as its progress says, the
                        // first trial and any that changes the loop.
                        if verbose() {
                            let _ = writeln!(std::io::stderr(), "{line}");
                        } else if trials.is_empty() || measured.chosen != chosen {
                            progress.note(&line);
                        }
                        // The sample was counted with the program's loop, the rest with the one chosen.
                        if let Some(program) = by_loop.first_mut() {
                            *program += measured.tasks as u64;
                        }
                        chosen = measured.chosen;
                        trials.push(measured);
                        rest
                    } else {
                        batch
                    };
                    if let Some(counted) = by_loop.get_mut(chosen) {
                        *counted += batch.tasks.len() as u64;
                    }
                    device.submit(batch)?;
                    first.get_or_insert_with(&since);
                    in_flight += 1;
                    if in_flight >= device.depth().max(1) {
                        let wait_from = since();
                        let (batch, tallies) = device.collect()?;
                        waiting += since() - wait_from;
                        in_flight -= 1;
                        report(batch, tallies);
                    }
                }
                // Stopped (a signal): the batches under way are counted to their end, which takes seconds
                // each on large boards; whoever waits is told how many, and about how long by the pace so far
                // (the watchdog's: the seconds since its first batch was sent, over the batches it gave back).
                if !going() && in_flight > 0 {
                    progress.note(&winding_down(
                        ordinal,
                        in_flight,
                        watch.since_first(std::time::Instant::now()),
                    ));
                }
                let wait_from = since();
                for _ in 0..in_flight {
                    let (batch, tallies) = device.collect()?;
                    report(batch, tallies);
                }
                waiting += since() - wait_from;
                Ok(device.into_inner())
            },
        )
        .map_err(|error| Failure {
            error,
            opened: is_open,
        })?;
        let kernel = device.kernel_seconds().map_err(|error| Failure {
            error,
            opened: true,
        })?;
        let done = since();
        let name = device.name();
        drop(device);
        if verbose() {
            let _ = writeln!(std::io::stderr(),
                "gpu {ordinal}: opened at {opened:.3} s ({ahead} batches merged by then), first batch sent at \
                 {:.3} s; {cutting:.3} s cutting {tasks} tasks (on a thread of its own), {waiting_for_cut:.3} s \
                 waiting for them, {waiting:.3} s waiting for results, {kernel:.3} s of \
                 kernels; done at {done:.3} s, closed at {:.3} s",
                first.unwrap_or(0.0),
                since()
            );
        }
        Ok(GpuRun {
            device: name.clone(),
            kernel_seconds: kernel,
            tasks,
            extra_rows: cut.extra_rows,
            cut_ahead: 0,
            kernel_loop: trial::counted_with(&loops, &by_loop),
            loop_trial: trial::summary(&trials),
            failed: String::new(),
            gpus: vec![GpuShare {
                ordinal,
                device: name,
                tasks,
                nodes: counts_nodes.then(|| nodes.get()),
                kernel_seconds: kernel,
            }],
        })
    };
    let several = ordinals.len() > 1;
    let finished = Finished::default();
    let results: Vec<Result<GpuRun, Error>> = std::thread::scope(|scope| {
        let (watches, finished) = (&watches, &finished);
        scope.spawn(move || watchdog::watch(watches, stall, Watching::Count, progress, finished));
        // However the devices' threads end (a panic too), the watchdog ends with them, or the scope would wait
        // for it without end.
        let _finishes = SetsFinished(finished);
        let handles: Vec<_> = ordinals
            .iter()
            .zip(watches)
            .map(|(&ordinal, watch)| {
                let drive = &drive;
                scope.spawn(move || {
                    let result = drive(ordinal, watch);
                    // Said as it happens: the others may go on for months.
                    match (&result, several) {
                        (Err(Failure { error, opened: true }), true) => progress.note(&format!(
                            "gpu {ordinal} failed: {error}; the other GPUs go on, and count what it left \
                             once they are done"
                        )),
                        (Err(Failure { error, opened: false }), true) => progress.note(&format!(
                            "gpu {ordinal} could not be opened: {error}; the other GPUs count the run \
                             without it"
                        )),
                        _ => {}
                    }
                    result.map_err(|f| f.error)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    // The run's buffers of tasks are not needed any more.
    drop_spares();
    if verbose() {
        let _ = writeln!(
            std::io::stderr(),
            "gpu: the buffers of tasks freed at {:.3} s",
            since()
        );
    }
    let (mut failed, mut survived) = (Vec::new(), Vec::new());
    for (&ordinal, result) in ordinals.iter().zip(results) {
        match result {
            Ok(device) => survived.push((ordinal, device)),
            Err(e) => failed.push((ordinal, e)),
        }
    }
    // A unit some of whose parts were counted and others not: a stop's, or a failed device's.
    let parted = waiting.lock().unwrap_or_else(|e| e.into_inner()).len() + unfinished.units();
    if parted != 0 && !stop.load(Ordering::Relaxed) && failed.is_empty() {
        return Err(Error::Gpu(format!(
            "{parted} parts or units in parts left uncounted by a run that was not stopped"
        )));
    }
    let mut run = GpuRun {
        extra_rows: cut.extra_rows,
        cut_ahead: cut_early,
        ..GpuRun::default()
    };
    let (mut names, mut kernel_loops, mut trials) = (Vec::new(), Vec::new(), Vec::new());
    let mut survivors = Vec::new();
    for (ordinal, device) in survived {
        survivors.push(ordinal);
        run.tasks += device.tasks;
        run.kernel_seconds = run.kernel_seconds.max(device.kernel_seconds);
        names.push(device.device);
        run.gpus.extend(device.gpus);
        if !device.kernel_loop.is_empty() {
            kernel_loops.push(device.kernel_loop);
        }
        if !device.loop_trial.is_empty() {
            trials.push(device.loop_trial);
        }
    }
    run.device = names.join(", ");
    run.kernel_loop = kernel_loops.join(", ");
    run.loop_trial = trials.join("; ");
    let left = units
        .iter()
        .copied()
        .filter(|&u| !reported[u].load(Ordering::Relaxed))
        .collect();
    Ok(Round {
        sum: counted.into_inner().unwrap_or_else(|e| e.into_inner()),
        run,
        failed,
        survivors,
        left,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Board;
    use crate::engine::exec;
    use crate::engine::plan::{Split, WorkUnit};
    use crate::engine::symmetry::Symmetry;
    use crate::gpu::cut;
    use crate::gpu::testing::tallies_of;
    use std::sync::{Arc, Barrier};

    /// Each batch a host device counted: the device (in the order opened), the batch's units, its tasks, the
    /// batches under way then, and the nodes of the tallies the device vouched for.
    type Batches = Vec<(usize, Vec<usize>, usize, usize, u64)>;
    type Counted = Arc<Mutex<Batches>>;

    /// A device that counts each task on the host with the plain search the kernel mirrors. Devices opened
    /// for one run may wait for each other at their first batch, so that each is sure to count one.
    struct HostDevice {
        ordinal: usize,
        /// Which of the run's devices this is, in the order they were opened.
        opened: usize,
        /// Whether it gives up every third slot's tally.
        doubtful: bool,
        queue: VecDeque<Batch>,
        meet: Option<Arc<Barrier>>,
        batches: Counted,
    }

    impl HostDevice {
        /// A device alone in its run, vouching for every slot, recording its batches in `batches`.
        fn plain(ordinal: usize, batches: Counted) -> HostDevice {
            HostDevice {
                ordinal,
                opened: 0,
                doubtful: false,
                queue: VecDeque::new(),
                meet: None,
                batches,
            }
        }
    }

    impl Device for HostDevice {
        fn name(&self) -> String {
            format!("host {}", self.ordinal)
        }
        fn depth(&self) -> usize {
            2
        }
        fn submit(&mut self, batch: Batch) -> Result<(), Error> {
            if let Some(meet) = self.meet.take() {
                meet.wait();
            }
            self.queue.push_back(batch);
            Ok(())
        }
        fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
            let batch = self.queue.pop_front().expect("a batch under way");
            // A device that cannot vouch for every third slot: the host counts those units again.
            let tallies: Vec<Option<Tally>> = tallies_of(&batch)
                .into_iter()
                .enumerate()
                .map(|(slot, t)| (!self.doubtful || slot % 3 != 0).then_some(t))
                .collect();
            self.batches.lock().unwrap().push((
                self.opened,
                batch.units.clone(),
                batch.tasks.len(),
                self.queue.len() + 1,
                tallies.iter().flatten().map(|t| t.nodes).sum(),
            ));
            Ok((batch, tallies))
        }
    }

    /// A host device whose kernel leaves the nodes uncounted, as `--uncounted-nodes` builds the GPU's.
    struct Uncounted(HostDevice);

    impl Device for Uncounted {
        fn name(&self) -> String {
            self.0.name()
        }
        fn depth(&self) -> usize {
            self.0.depth()
        }
        fn submit(&mut self, batch: Batch) -> Result<(), Error> {
            self.0.submit(batch)
        }
        fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
            // The kernel reports no node; the host's part of a unit still counts its own.
            let (batch, tallies) = self.0.collect()?;
            let tallies = tallies
                .into_iter()
                .map(|t| t.map(|t| Tally { nodes: 0, ..t }))
                .collect();
            Ok((batch, tallies))
        }
        fn counts_nodes(&self) -> bool {
            false
        }
    }

    #[test]
    fn a_device_that_leaves_the_nodes_uncounted_gives_the_same_solutions_and_says_whose_nodes_it_left(
    ) {
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let seen = Seen::default();
        let (sum, _) = dispatch(
            &plan,
            &all,
            &|| Ok(vec![0]),
            &|ordinal| Ok(Uncounted(HostDevice::plain(ordinal, Counted::default()))),
            &AtomicBool::new(false),
            &seen,
        )
        .expect("the host device counts");
        let cpu = exec::run_serial(&plan, &exec::NoProgress);
        assert_eq!(
            (sum.total, sum.unique, sum.units),
            (cpu.total, cpu.unique, cpu.units)
        );
        assert_eq!(sum.nodes(), None);
        // Each unit the device counted is its CPU count without the nodes; the units the host counted whole,
        // and those fixed by a symmetry (which report no nodes anywhere), are as the CPU counts them.
        let mut left = 0;
        for (index, count) in seen.0.into_inner().unwrap() {
            let expected = plan.count_unit(&plan.units()[index]);
            if count.uncounted == 1 {
                assert_eq!(count, expected.without_nodes(), "unit {index}");
                left += 1;
            } else {
                assert_eq!(count, expected, "unit {index}");
            }
        }
        assert_eq!(left, sum.uncounted);
        assert!(
            0 < left && left < sum.units,
            "{left} of {} units",
            sum.units
        );
    }

    /// Records each unit's count as it is reported.
    #[derive(Default)]
    struct Seen(Mutex<Vec<(usize, Count)>>);

    impl Progress for Seen {
        fn unit_done(&self, unit: &WorkUnit, count: &Count) {
            self.0.lock().unwrap().push((unit.index, *count));
        }
    }

    /// Runs `plan` through [`dispatch`] on host devices numbered `ordinals` (`doubtful` ones, if asked): the
    /// units reported, sorted, and the batches each device counted.
    fn run_on_host(
        plan: &Plan,
        ordinals: &[usize],
        doubtful: bool,
    ) -> (Vec<(usize, Count)>, Count, Batches) {
        run_on_host_within(plan, ordinals, doubtful, crate::gpu::UNIT_TASKS)
    }

    /// [`run_on_host`], with units of more than `unit_tasks` tasks counted in parts.
    fn run_on_host_within(
        plan: &Plan,
        ordinals: &[usize],
        doubtful: bool,
        unit_tasks: usize,
    ) -> (Vec<(usize, Count)>, Count, Batches) {
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let meet = Arc::new(Barrier::new(ordinals.len()));
        let enough = batches(&all, cut(plan, &all), ordinals.len()).count() >= ordinals.len();
        let batches = Arc::new(Mutex::new(Vec::new()));
        let opened = AtomicUsize::new(0);
        let open = |ordinal| {
            Ok(HostDevice {
                ordinal,
                opened: opened.fetch_add(1, Ordering::Relaxed),
                doubtful,
                queue: VecDeque::new(),
                meet: enough.then(|| meet.clone()),
                batches: batches.clone(),
            })
        };
        let seen = Seen::default();
        let devices = Devices {
            ordinals: &|| Ok(ordinals.to_vec()),
            open: &open,
            named: &|_| None,
            stall: StallBounds::DEFAULT,
        };
        let (sum, run) = dispatch_within(
            plan,
            &all,
            devices,
            &AtomicBool::new(false),
            &seen,
            When::from_environment(),
            unit_tasks,
        )
        .expect("the host devices count");
        assert_eq!(run.device.split(", ").count(), ordinals.len());
        // The report says how deep the units were cut, and how many tasks the devices counted.
        assert_eq!(run.extra_rows, cut(plan, &all).extra_rows);
        let mut seen = seen.0.into_inner().unwrap();
        seen.sort_by_key(|&(i, _)| i);
        let batches = batches.lock().unwrap().clone();
        assert_eq!(run.tasks, batches.iter().map(|b| b.2 as u64).sum::<u64>());
        // A device is given as many batches as it keeps in flight (2) before it is asked for one back.
        if batches.len() > ordinals.len() {
            assert!(batches.iter().any(|b| b.3 == 2), "{batches:?}");
        }
        assert!(batches.iter().all(|b| b.3 <= 2), "{batches:?}");
        // Each device's share, in the order the GPUs were named: the tasks of its batches and the nodes of
        // the tallies it vouched for.
        assert_eq!(
            run.gpus.iter().map(|g| g.ordinal).collect::<Vec<_>>(),
            ordinals
        );
        let mut shares: Vec<(u64, Option<u64>)> =
            run.gpus.iter().map(|g| (g.tasks, g.nodes)).collect();
        let mut by_device: Vec<(u64, Option<u64>)> = (0..ordinals.len())
            .map(|d| {
                let of = batches.iter().filter(|b| b.0 == d);
                (
                    of.clone().map(|b| b.2 as u64).sum(),
                    Some(of.map(|b| b.4).sum()),
                )
            })
            .collect();
        shares.sort_unstable();
        by_device.sort_unstable();
        assert_eq!(shares, by_device);
        (seen, sum, batches)
    }

    #[test]
    fn every_unit_counts_as_on_the_cpu() {
        for (board, symmetry) in [
            (Board::new(1).unwrap(), Symmetry::Full),
            (Board::new(6).unwrap(), Symmetry::Full),
            (Board::new(10).unwrap(), Symmetry::Full),
            (Board::new(11).unwrap(), Symmetry::Mirror),
            (Board::new(9).unwrap(), Symmetry::None),
            (Board::rect(8, 5).unwrap(), Symmetry::Mirror),
        ] {
            let plan = Plan::new(board, symmetry, Split::Auto { threads: 2 });
            // A device that vouches for every unit, and one that leaves a third of them to the host.
            for doubtful in [false, true] {
                let (counts, sum, _) = run_on_host(&plan, &[0], doubtful);
                assert_eq!(counts.len(), plan.units().len());
                for (index, count) in counts {
                    assert_eq!(
                        count,
                        plan.count_unit(&plan.units()[index]),
                        "{board} {symmetry:?} unit {index}"
                    );
                }
                assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
            }
        }
    }

    #[test]
    fn units_too_large_for_a_batch_are_counted_in_parts_across_batches_and_devices() {
        // n = 12 in whole borders (730 units) cut 4 rows below them, where a unit may go to a batch whole
        // with 256 tasks at most: the larger ones go in parts, which may land in several batches and on
        // several devices. Every unit is counted once, as the CPU counts it, on one device or two, and with
        // a device that leaves every third slot to the host (its unit then counted again).
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(0));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let expected: Vec<(usize, Count)> = all
            .iter()
            .map(|&i| (i, plan.count_unit(&plan.units()[i])))
            .collect();
        let unit_tasks = 256;
        let c = crate::gpu::cut_with(&plan, &all, unit_tasks);
        assert!(c.parts_at(c.extra_rows) && c.extra_rows >= 4, "{c:?}");
        for ordinals in [vec![0], vec![0, 1]] {
            for doubtful in [false, true] {
                let (seen, sum, batches) =
                    run_on_host_within(&plan, &ordinals, doubtful, unit_tasks);
                assert_eq!(seen, expected, "{ordinals:?} doubtful {doubtful}");
                assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
                // A unit's parts in several batches; with two devices, on both.
                let mut found: std::collections::HashMap<usize, Vec<(usize, usize)>> =
                    Default::default();
                for (i, b) in batches.iter().enumerate() {
                    for &unit in &b.1 {
                        found.entry(unit).or_default().push((i, b.0));
                    }
                }
                let spread = |unit: &Vec<(usize, usize)>, of: fn(&(usize, usize)) -> usize| {
                    let mut seen: Vec<usize> = unit.iter().map(of).collect();
                    seen.sort_unstable();
                    seen.dedup();
                    seen.len()
                };
                // (A lone device takes the batches cut before the driver answered merged as one, parts and
                // all: on a loaded machine that can be every parted unit's.)
                let parted: Vec<&Vec<(usize, usize)>> =
                    found.values().filter(|u| u.len() > 1).collect();
                assert!(!parted.is_empty(), "{batches:?}");
                let merged =
                    ordinals.len() == 1 && parted.iter().all(|u| u.iter().all(|b| b.0 == 0));
                assert!(
                    merged || parted.iter().any(|u| spread(u, |b| b.0) > 1),
                    "{batches:?}"
                );
                if ordinals.len() > 1 {
                    assert!(
                        found.values().any(|u| spread(u, |b| b.1) > 1),
                        "{batches:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_lone_gpu_takes_the_early_batches_as_one() {
        // The first batches are cut for several GPUs while the driver finds them (here it takes a second): one
        // GPU alone takes those cut by then as one batch, and counts every unit. (How many are cut in that
        // second depends on the machine's load: at least two, but not always all of them, as a debug build
        // beside another build on two cores showed.)
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let cut = cut(&plan, &all);
        let early_chunks: Vec<&[usize]> = batches(&all, cut, EARLY_DEVICES).collect();
        assert!(early_chunks.len() >= 4, "{}", early_chunks.len());
        let recorded: Counted = Arc::new(Mutex::new(Vec::new()));
        let slow_driver = || {
            std::thread::sleep(std::time::Duration::from_millis(1000));
            Ok(vec![0])
        };
        let (sum, _) = dispatch(
            &plan,
            &all,
            &slow_driver,
            &|ordinal| Ok(HostDevice::plain(ordinal, recorded.clone())),
            &AtomicBool::new(false),
            &exec::NoProgress,
        )
        .expect("the host device counts");
        assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
        let counted = recorded.lock().unwrap();
        let sizes: Vec<usize> = counted.iter().map(|b| b.1.len()).collect();
        assert!(
            counted.len() < early_chunks.len(),
            "{} batches of {sizes:?} units",
            counted.len()
        );
        // Its first batch is the first early ones merged, two at least, and no more than are cut while the
        // driver starts.
        let most = early_most(cut.part(early_chunks[0].len(), all.len()));
        let merged: Vec<usize> = early_chunks
            .iter()
            .scan(0, |covered, c| {
                *covered += c.len();
                Some(*covered)
            })
            .take(most)
            .collect();
        let first = counted[0].1.len();
        assert!(
            merged[1..].contains(&first),
            "{sizes:?}: the early ones cover {merged:?} units"
        );
        assert_eq!(counted[0].1, (0..first).collect::<Vec<_>>());
    }

    #[test]
    fn a_lone_gpu_merges_the_early_batches_while_it_opens_and_counts_them_first() {
        // The driver finds the GPU at once (so few early batches are cut, and the run has more to cut); the
        // GPU takes 200 ms to open, while its cutter cuts the next batches. Its first batch is the early ones
        // merged, from the run's first unit: had the cutter taken an early batch, it would have come later.
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let recorded: Counted = Arc::new(Mutex::new(Vec::new()));
        let slow_open = |ordinal| {
            std::thread::sleep(std::time::Duration::from_millis(200));
            Ok(HostDevice::plain(ordinal, recorded.clone()))
        };
        let (sum, _) = dispatch(
            &plan,
            &all,
            &|| Ok(vec![0]),
            &slow_open,
            &AtomicBool::new(false),
            &exec::NoProgress,
        )
        .expect("the host device counts");
        assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
        let counted = recorded.lock().unwrap();
        assert!(counted.len() > 1, "the run had more than its early batches");
        let first = &counted[0].1;
        assert_eq!(*first, (0..first.len()).collect::<Vec<_>>());
    }

    #[test]
    fn two_devices_share_the_batches_and_count_each_unit_once() {
        // One GPU named twice (`--gpus 0,0`) and two GPUs: every unit counted once, by one of them, and both
        // took batches.
        for ordinals in [[0, 0], [0, 1]] {
            let plan = Plan::new(
                Board::new(11).unwrap(),
                Symmetry::Full,
                Split::Auto { threads: 2 },
            );
            let (counts, sum, batches) = run_on_host(&plan, &ordinals, false);
            let units: Vec<usize> = counts.iter().map(|&(i, _)| i).collect();
            assert_eq!(units, (0..plan.units().len()).collect::<Vec<_>>());
            assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
            let mut counted: Vec<usize> = batches.iter().flat_map(|(_, u, ..)| u.clone()).collect();
            counted.sort();
            assert_eq!(counted, units);
            // Each device (told apart by the order they were opened in) counted a batch at least.
            for device in 0..2 {
                assert!(batches.iter().any(|&(d, ..)| d == device), "{batches:?}");
            }
        }
    }

    #[test]
    fn batches_are_cut_while_the_driver_starts() {
        // A driver that takes its time to start finds batches cut, up to the most asked for: this one answers
        // only once the fourth is cut, and no fifth is.
        let most = 4;
        let (sender, receiver) = std::sync::mpsc::channel();
        let mut cut = 0;
        let (opened, ahead) = while_opening(
            move || receiver.recv().unwrap(),
            || {
                cut += 1;
                if cut == most {
                    sender.send("open").unwrap();
                }
                Some(cut)
            },
            most,
        );
        assert_eq!(opened, "open");
        assert_eq!(ahead, (1..=most).collect::<Vec<_>>());
        // One that answers at once finds one at least; with none left to cut, none.
        let (_, ahead) = while_opening(|| (), || Some(()), most);
        assert!((1..=most).contains(&ahead.len()));
        let (_, ahead) = while_opening(|| (), || None::<()>, most);
        assert!(ahead.is_empty());
        // A run whose driver is slow to find the GPUs, and whose device is slow to open, counts as any
        // other, and says how many batches were cut while the driver started.
        let plan = Plan::new(
            Board::new(11).unwrap(),
            Symmetry::Full,
            Split::Auto { threads: 2 },
        );
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let pause = || std::thread::sleep(std::time::Duration::from_millis(100));
        let open = |ordinal| {
            pause();
            Ok(HostDevice::plain(ordinal, Counted::default()))
        };
        let ordinals = || {
            pause();
            Ok(vec![0, 0])
        };
        let seen = Seen::default();
        let (sum, run) = dispatch(
            &plan,
            &all,
            &ordinals,
            &open,
            &AtomicBool::new(false),
            &seen,
        )
        .unwrap();
        assert!(run.cut_ahead >= 1, "{run:?}");
        assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
        let mut seen: Vec<usize> = seen
            .0
            .into_inner()
            .unwrap()
            .iter()
            .map(|&(i, _)| i)
            .collect();
        seen.sort();
        assert_eq!(seen, all);
    }

    #[test]
    fn the_next_batch_is_cut_while_the_device_takes_the_last_one_ahead_at_most() {
        use std::sync::mpsc;
        use std::time::Duration;
        // The cutter says which batch it cut; the body, holding the first batch, hears of the second: cut while
        // the body works (a cut that waited for the body would leave it waiting here for a minute, and fail).
        // Batches of one task each, one task ahead: one batch ahead.
        let (said, heard) = mpsc::channel();
        let mut made = 0;
        let taken = cut_ahead(
            1,
            |_: &u32| 1,
            move || {
                (made < 4).then(|| {
                    made += 1;
                    said.send(made).unwrap();
                    made
                })
            },
            |batches| {
                let first = batches.next();
                assert_eq!(first, Some(1));
                let minute = Duration::from_secs(60);
                assert_eq!(heard.recv_timeout(minute), Ok(1));
                assert_eq!(heard.recv_timeout(minute), Ok(2));
                // One batch ahead at most: the third is cut only once the second is taken.
                assert!(heard.recv_timeout(Duration::from_millis(200)).is_err());
                let mut all = vec![1];
                all.extend(batches);
                assert_eq!(heard.recv_timeout(minute), Ok(3));
                all
            },
        );
        assert_eq!(taken, vec![1, 2, 3, 4]);
        // A body that stops early (a stop, a device's error) stops the cutter, which would otherwise wait for it
        // without end: it begins no batch after the one it may be cutting then. (On a thread of its own, so
        // that a cutter that never stops fails the test rather than hangs it.)
        let (said, heard) = mpsc::channel();
        std::thread::spawn(move || {
            let made = AtomicUsize::new(0);
            let first = cut_ahead(
                1,
                |_| 1,
                || Some(made.fetch_add(1, Ordering::Relaxed)),
                |batches| batches.next(),
            );
            said.send((first, made.load(Ordering::Relaxed))).unwrap();
        });
        let (first, made) = heard.recv_timeout(Duration::from_secs(60)).unwrap();
        assert_eq!(first, Some(0));
        assert!((1..=2).contains(&made), "{made} batches cut");
        // A cut that fails ends the body's batches, and the failure is the caller's, not a wait without end.
        let (said, heard) = mpsc::channel();
        std::thread::spawn(move || {
            let failed = std::panic::catch_unwind(|| {
                cut_ahead(
                    1,
                    |_| 1,
                    || -> Option<u32> { panic!("a cut failed") },
                    |b| b.count(),
                )
            });
            said.send(failed.is_err()).unwrap();
        });
        assert_eq!(heard.recv_timeout(Duration::from_secs(60)), Ok(true));
    }

    #[test]
    fn batches_are_cut_ahead_up_to_the_tasks_asked_for() {
        use std::sync::mpsc;
        use std::time::Duration;
        // Batches of 1, 2, 3 and 4 tasks, 5 ahead at most: the cutter cuts the third (holding 3, fewer than 5),
        // then waits (holding 6); it cuts the fourth once the body has taken enough to leave fewer than 5.
        let (said, heard) = mpsc::channel();
        let mut sizes = 1..=4u32;
        let taken = cut_ahead(
            5,
            |&tasks| tasks as usize,
            move || {
                let next = sizes.next()?;
                said.send(next).unwrap();
                Some(next)
            },
            |batches| {
                let minute = Duration::from_secs(60);
                let quickly = Duration::from_millis(200);
                for cut in 1..=3 {
                    assert_eq!(heard.recv_timeout(minute), Ok(cut));
                }
                assert!(heard.recv_timeout(quickly).is_err());
                // 6 less 1: 5 held, nothing more cut; less 2 more: 3.
                assert_eq!(batches.next(), Some(1));
                assert!(heard.recv_timeout(quickly).is_err());
                assert_eq!(batches.next(), Some(2));
                assert_eq!(heard.recv_timeout(minute), Ok(4));
                batches.collect::<Vec<_>>()
            },
        );
        assert_eq!(taken, vec![3, 4]);
    }

    #[test]
    fn a_failing_device_fails_the_run_and_a_stop_reports_nothing() {
        let plan = Plan::new(
            Board::new(9).unwrap(),
            Symmetry::Full,
            Split::Auto { threads: 2 },
        );
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let open = |_| -> Result<HostDevice, Error> { Err(Error::Gpu("no such GPU".into())) };
        let err = dispatch(
            &plan,
            &all,
            &|| Ok(vec![0, 1]),
            &open,
            &AtomicBool::new(false),
            &exec::NoProgress,
        )
        .unwrap_err();
        assert!(err.to_string().contains("no such GPU"), "{err}");
        // A driver that finds no GPU, or cannot be asked.
        for (ordinals, says) in [
            (Ok(vec![]), "no GPU to count on"),
            (
                Err(Error::Gpu("no CUDA driver found".into())),
                "no CUDA driver",
            ),
        ] {
            let found = Mutex::new(Some(ordinals));
            let err = dispatch(
                &plan,
                &all,
                &|| found.lock().unwrap().take().unwrap(),
                &open,
                &AtomicBool::new(false),
                &exec::NoProgress,
            )
            .unwrap_err();
            assert!(err.to_string().contains(says), "{err}");
        }
        let batches = Arc::new(Mutex::new(Vec::new()));
        let open = |ordinal| Ok(HostDevice::plain(ordinal, batches.clone()));
        let seen = Seen::default();
        let (sum, _) = dispatch(
            &plan,
            &all,
            &|| Ok(vec![0]),
            &open,
            &AtomicBool::new(true),
            &seen,
        )
        .unwrap();
        assert_eq!(sum, Count::default());
        assert!(seen.0.into_inner().unwrap().is_empty());
    }

    #[test]
    fn a_stopped_gpu_says_what_it_finishes_and_about_how_long_it_takes() {
        assert_eq!(
            winding_down(3, 4, Some((60.0, 10))),
            "gpu 3: stopping; finishing its 4 batches under way, about 24 s at its pace so far"
        );
        assert_eq!(
            winding_down(0, 1, Some((0.05, 3))),
            "gpu 0: stopping; finishing its batch under way, about 1 s at its pace so far"
        );
        // Nothing collected yet, or nothing sent: no pace to tell.
        for pace in [Some((2.0, 0)), None] {
            assert_eq!(
                winding_down(1, 2, pace),
                "gpu 1: stopping; finishing its 2 batches under way"
            );
        }
    }

    /// A host device that sets `stop` as it is given its `at`-th batch (from 1): a signal that lands while
    /// batches are under way.
    struct StopsAt {
        device: HostDevice,
        at: usize,
        submitted: usize,
        stop: Arc<AtomicBool>,
    }

    impl Device for StopsAt {
        fn name(&self) -> String {
            self.device.name()
        }
        fn depth(&self) -> usize {
            self.device.depth()
        }
        fn submit(&mut self, batch: Batch) -> Result<(), Error> {
            self.submitted += 1;
            if self.submitted == self.at {
                self.stop.store(true, Ordering::SeqCst);
            }
            self.device.submit(batch)
        }
        fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
            self.device.collect()
        }
    }

    #[test]
    fn a_stop_finishes_the_batches_under_way_reports_their_units_whole_and_sends_no_more() {
        // What a checkpointed run's grace waits for (`count --stop-grace`): the batches a GPU has in flight
        // when the signal lands are counted to their end and their units reported whole, and no other batch
        // is sent.
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(0));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        for at in [1, 2, 3] {
            let stop = Arc::new(AtomicBool::new(false));
            let batches = Counted::default();
            let open = |ordinal| {
                Ok(StopsAt {
                    device: HostDevice::plain(ordinal, batches.clone()),
                    at,
                    submitted: 0,
                    stop: stop.clone(),
                })
            };
            let heard = Heard::default();
            let (sum, _) = dispatch(&plan, &all, &|| Ok(vec![0]), &open, &stop, &heard)
                .expect("a stopped run gives what it counted");
            // Whoever waits is told what the GPU finishes, and after a batch collected, about how long.
            let notes = heard.notes.into_inner().unwrap();
            assert_eq!(notes.len(), 1, "{notes:?}");
            assert!(
                notes[0].starts_with("gpu 0: stopping; finishing its batch under way"),
                "{notes:?}"
            );
            assert_eq!(notes[0].contains("at its pace so far"), at > 1, "{notes:?}");
            let batches = batches.lock().unwrap().clone();
            // The batch sent as the stop landed, and those still in flight then, were all collected; none
            // after.
            assert_eq!(batches.len(), at, "batches collected, stopped at {at}");
            let in_flight: std::collections::BTreeSet<usize> =
                batches.iter().flat_map(|b| b.1.iter().copied()).collect();
            let reported = heard.units.into_inner().unwrap();
            assert!(!reported.is_empty());
            assert!(reported.len() < all.len(), "the stop left units uncounted");
            let mut total = Count::default();
            for (index, count) in &reported {
                assert!(in_flight.contains(index), "unit {index} of no batch sent");
                assert_eq!(
                    *count,
                    plan.count_unit(&plan.units()[*index]),
                    "unit {index}"
                );
                total += *count;
            }
            // Every unit of the last batch sent is among them: the batch under way was not dropped.
            let last: &Vec<usize> = &batches.last().unwrap().1;
            assert!(
                last.iter().all(|u| reported.iter().any(|(i, _)| i == u)),
                "stopped at {at}: the last batch's units were reported"
            );
            assert_eq!(sum, total);
        }
    }

    /// A host device that fails (the driver's error) at its `fails_at`-th collect, counted from 0, and every
    /// one after: a GPU lost in the middle of a run.
    struct Failing {
        device: HostDevice,
        fails_at: usize,
        collected: usize,
    }

    impl Device for Failing {
        fn name(&self) -> String {
            self.device.name()
        }
        fn depth(&self) -> usize {
            self.device.depth()
        }
        fn submit(&mut self, batch: Batch) -> Result<(), Error> {
            self.device.submit(batch)
        }
        fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
            self.collected += 1;
            if self.collected > self.fails_at {
                return Err(Error::Gpu(format!("{} lost", self.name())));
            }
            self.device.collect()
        }
    }

    /// What a run reported: its units' counts, and its notes.
    #[derive(Default)]
    struct Heard {
        units: Mutex<Vec<(usize, Count)>>,
        notes: Mutex<Vec<String>>,
    }

    impl Progress for Heard {
        fn unit_done(&self, unit: &WorkUnit, count: &Count) {
            self.units.lock().unwrap().push((unit.index, *count));
        }
        fn note(&self, line: &str) {
            self.notes.lock().unwrap().push(line.to_string());
        }
    }

    /// Counts n = 12 in whole borders (730 units, the larger ones in parts of at most 256 tasks) on host devices
    /// `ordinals`, the device of each ordinal in `failing` failing at its collect of that number: what the run
    /// gave, and what it reported.
    fn run_failing(
        ordinals: &[usize],
        failing: &[(usize, usize)],
    ) -> (Plan, Result<(Count, GpuRun), Error>, Heard) {
        run_failing_or_unopened(ordinals, failing, &[])
    }

    /// [`run_failing`], the devices of the ordinals in `unopened` failing as they open.
    fn run_failing_or_unopened(
        ordinals: &[usize],
        failing: &[(usize, usize)],
        unopened: &[usize],
    ) -> (Plan, Result<(Count, GpuRun), Error>, Heard) {
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(0));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        // Each of the first devices opened counts a batch at least before any is asked for one back.
        let first = ordinals.iter().filter(|o| !unopened.contains(o)).count();
        let meet = Arc::new(Barrier::new(first));
        let opened = AtomicUsize::new(0);
        let open = |ordinal| {
            if unopened.contains(&ordinal) {
                return Err(Error::Gpu(format!(
                    "cannot open GPU {ordinal}: host {ordinal} broken"
                )));
            }
            let number = opened.fetch_add(1, Ordering::Relaxed);
            Ok(Failing {
                device: HostDevice {
                    ordinal,
                    opened: number,
                    doubtful: false,
                    queue: VecDeque::new(),
                    meet: (number < first).then(|| meet.clone()),
                    batches: Counted::default(),
                },
                fails_at: failing
                    .iter()
                    .find(|&&(o, _)| o == ordinal)
                    .map_or(usize::MAX, |&(_, at)| at),
                collected: 0,
            })
        };
        let heard = Heard::default();
        let devices = Devices {
            ordinals: &|| Ok(ordinals.to_vec()),
            open: &open,
            named: &|_| None,
            stall: StallBounds::DEFAULT,
        };
        let result = dispatch_within(
            &plan,
            &all,
            devices,
            &AtomicBool::new(false),
            &heard,
            When::Never,
            256,
        );
        (plan, result, heard)
    }

    #[test]
    fn a_gpu_that_fails_leaves_its_units_to_the_others_and_each_unit_is_counted_once() {
        // Device 1 (or 1 and 2) lost at its first, second or fourth result: the units of its batches under
        // way and cut ahead, and the units in parts some of whose parts it held, are counted again on the
        // others once they are done. Every unit is reported once, with the CPU's count.
        for (ordinals, failing) in [
            (vec![0, 1], vec![(1, 0)]),
            (vec![0, 1], vec![(1, 1)]),
            (vec![0, 1], vec![(1, 3)]),
            (vec![0, 1, 2], vec![(1, 1), (2, 0)]),
            (vec![3, 1], vec![(3, 2)]),
        ] {
            let (plan, result, heard) = run_failing(&ordinals, &failing);
            let (sum, run) = result.expect("the others count the run");
            let expected: Vec<(usize, Count)> = (0..plan.units().len())
                .map(|i| (i, plan.count_unit(&plan.units()[i])))
                .collect();
            let mut units = heard.units.into_inner().unwrap();
            units.sort_by_key(|&(i, _)| i);
            assert_eq!(units, expected, "{ordinals:?} failing {failing:?}");
            assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
            // The report names the devices that did not fail, and those that did with their errors, and gives
            // the share of each that did not, what it counted again included.
            assert_eq!(
                run.device.split(", ").count(),
                ordinals.len() - failing.len()
            );
            let survivors: Vec<usize> = ordinals
                .iter()
                .copied()
                .filter(|o| failing.iter().all(|(f, _)| f != o))
                .collect();
            assert_eq!(
                run.gpus.iter().map(|g| g.ordinal).collect::<Vec<_>>(),
                survivors
            );
            assert_eq!(run.gpus.iter().map(|g| g.tasks).sum::<u64>(), run.tasks);
            let said: Vec<String> = failing
                .iter()
                .map(|(o, _)| format!("GPU {o}: GPU backend: host {o} lost"))
                .collect();
            let mut failed: Vec<&str> = run.failed.split("; ").collect();
            failed.sort_unstable();
            assert_eq!(failed, said, "{ordinals:?} failing {failing:?}");
            let notes = heard.notes.into_inner().unwrap();
            for (ordinal, _) in &failing {
                let said = format!(
                    "gpu {ordinal} failed: GPU backend: host {ordinal} lost; the other GPUs go on"
                );
                assert!(notes.iter().any(|n| n.starts_with(&said)), "{notes:?}");
            }
            assert!(
                notes
                    .iter()
                    .any(|n| n.starts_with("gpu: counting again the ")),
                "{notes:?}"
            );
        }
    }

    #[test]
    fn a_gpu_that_cannot_be_opened_leaves_the_run_to_the_others() {
        // Device 1 (or 0 and 2) cannot be opened: the others count every unit once, with the CPU's count, and
        // the run says which could not be opened and why; so does its report. With a device that fails later
        // as well, the one left counts what both left.
        for (ordinals, unopened, failing) in [
            (vec![0, 1], vec![1], vec![]),
            (vec![0, 1, 2], vec![0, 2], vec![]),
            (vec![0, 1, 2], vec![2], vec![(0, 1)]),
        ] {
            let (plan, result, heard) = run_failing_or_unopened(&ordinals, &failing, &unopened);
            let (sum, run) = result.expect("the others count the run");
            let mut units = heard.units.into_inner().unwrap();
            units.sort_by_key(|&(i, _)| i);
            let indices: Vec<usize> = units.iter().map(|&(i, _)| i).collect();
            assert_eq!(indices, (0..plan.units().len()).collect::<Vec<_>>());
            assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
            let notes = heard.notes.into_inner().unwrap();
            for ordinal in &unopened {
                let said = format!(
                    "gpu {ordinal} could not be opened: GPU backend: cannot open GPU {ordinal}: host {ordinal} \
                     broken; the other GPUs count the run without it"
                );
                assert!(notes.contains(&said), "{notes:?}");
                assert!(
                    run.failed.contains(&format!(
                        "GPU {ordinal}: GPU backend: cannot open GPU {ordinal}"
                    )),
                    "{}",
                    run.failed
                );
            }
            // Said once, and not as a failure of a GPU that was counting.
            assert_eq!(
                notes.iter().filter(|n| n.starts_with("gpu ")).count(),
                unopened.len() + failing.len(),
                "{notes:?}"
            );
            assert_eq!(
                run.device.split(", ").count(),
                ordinals.len() - unopened.len() - failing.len()
            );
        }
    }

    /// The watchdog's bounds in the tests of a stall: half a second, before the first batch and after (ten
    /// times the pace below it): some twenty times a healthy batch's time here, where the stall lasts until
    /// the warning is heard, however long that takes on a loaded machine.
    const TEST_STALL: StallBounds = StallBounds {
        paces: 10.0,
        floor: std::time::Duration::from_millis(500),
        first: std::time::Duration::from_millis(500),
        open: std::time::Duration::from_secs(10),
    };

    /// What [`run_stalling`] gives back: the plan, what the run gave, what it reported, and whether the other
    /// devices gave back batches while the stalled one kept its own.
    type StallingRun = (Plan, Result<(Count, GpuRun), Error>, Heard, bool);

    /// Counts n = 12 in whole borders (730 units, the larger ones in parts of at most 256 tasks) on host devices
    /// `ordinals`, opened together once `opening` has passed, each taking `pace` to give a batch back; the
    /// device of the ordinal `stalling.0` keeps its batch numbered `stalling.1` (from 0) back until the run has
    /// said that a GPU may be hung, and, where there are others, they have given back three batches since it
    /// began to. The watchdog's bounds are `stall`.
    fn run_stalling(
        ordinals: &[usize],
        stalling: Option<(usize, usize)>,
        pace: std::time::Duration,
        opening: std::time::Duration,
        stall: StallBounds,
    ) -> StallingRun {
        use crate::gpu::testing::Stalling;
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(0));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let heard = Heard::default();
        let warned = || {
            heard
                .notes
                .lock()
                .unwrap()
                .iter()
                .any(|n| n.contains(" may be hung: "))
        };
        let others_went_on = AtomicBool::new(false);
        let release = |others_back: usize| {
            let went_on = ordinals.len() == 1 || others_back >= 3;
            others_went_on.store(went_on, Ordering::SeqCst);
            went_on && warned()
        };
        let given_back = AtomicUsize::new(0);
        // Opened together, outside any batch's wait, so that each has batches to count.
        let meet = Barrier::new(ordinals.len());
        let open = |ordinal| {
            std::thread::sleep(opening);
            meet.wait();
            Ok(Stalling {
                device: HostDevice::plain(ordinal, Counted::default()),
                pace,
                stalls_at: stalling.filter(|s| s.0 == ordinal).map(|s| s.1),
                release: &release,
                given_back: &given_back,
                collected: 0,
            })
        };
        let devices = Devices {
            ordinals: &|| Ok(ordinals.to_vec()),
            open: &open,
            named: &|_| None,
            stall,
        };
        let result = dispatch_within(
            &plan,
            &all,
            devices,
            &AtomicBool::new(false),
            &heard,
            When::Never,
            256,
        );
        (plan, result, heard, others_went_on.into_inner())
    }

    /// The seconds a note gives right after `after` ("0.512 s", "12 s", "2 min 10 s"), as `watchdog` writes
    /// them.
    fn seconds_after(note: &str, after: &str) -> f64 {
        let words: Vec<&str> = note
            .split_once(after)
            .unwrap_or_else(|| panic!("no '{after}' in {note}"))
            .1
            .split(' ')
            .take(4)
            .collect();
        let number = |w: &str| w.trim_end_matches([';', ':', ',']).parse::<f64>().unwrap();
        match words.as_slice() {
            [m, "min", s, "s" | "s:" | "s;" | "s,", ..] => number(m) * 60.0 + number(s),
            [m, "min" | "min:" | "min;", ..] => number(m) * 60.0,
            [s, ..] => number(s),
            [] => panic!("nothing after '{after}' in {note}"),
        }
    }

    #[test]
    fn a_gpu_that_keeps_its_batch_is_said_once_with_its_wait_and_pace_then_its_return_and_the_count_is_exact(
    ) {
        // A lone GPU stalled at its first batch (no pace yet) and at its fourth (a pace), and the second of two
        // at its first. The run waits for it, says so once, naming it, with a wait past the bound, then says
        // once that it came back; every unit is counted once, as the CPU counts it.
        let pace = std::time::Duration::from_millis(20);
        for (ordinals, stalling, at) in [(vec![0], 0, 0), (vec![0], 0, 3), (vec![0, 1], 1, 0)] {
            let (plan, result, heard, others_went_on) = run_stalling(
                &ordinals,
                Some((stalling, at)),
                pace,
                std::time::Duration::ZERO,
                TEST_STALL,
            );
            let case = format!("{ordinals:?}, GPU {stalling} stalled at batch {at}");
            let (sum, run) = result.expect("the run waits for the GPU");
            assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress), "{case}");
            let expected: Vec<(usize, Count)> = (0..plan.units().len())
                .map(|i| (i, plan.count_unit(&plan.units()[i])))
                .collect();
            let mut units = heard.units.into_inner().unwrap();
            units.sort_by_key(|&(i, _)| i);
            assert_eq!(units, expected, "{case}");
            assert_eq!(run.failed, "", "{case}");
            // The other GPU went on while this one kept its batch: it took the batches not yet handed out.
            assert!(others_went_on, "{case}");
            let notes = heard.notes.into_inner().unwrap();
            let about = |what: &str| -> Vec<(usize, &String)> {
                let said = format!("gpu {stalling} (host {stalling}) {what}");
                notes
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| n.starts_with(&said))
                    .collect()
            };
            let (hung, back) = (about("may be hung: "), about("came back after "));
            assert_eq!((hung.len(), back.len()), (1, 1), "{case}: {notes:?}");
            let ((said_at, hung), (back_at, back)) = (hung[0], back[0]);
            assert!(said_at < back_at, "{case}: {notes:?}");
            // The wait said is past the bound: half a second, and ten times the pace said.
            let waited = seconds_after(hung, "the run has waited ");
            assert!(waited >= 0.5, "{case}: {hung}");
            if at == 0 {
                assert!(
                    hung.contains(" for its first batch, and none has come back yet; "),
                    "{case}: {hung}"
                );
            } else {
                let every = seconds_after(hung, "where it gave one back every ");
                assert!(every >= 0.02 && waited >= 10.0 * every, "{case}: {hung}");
            }
            assert!(
                hung.contains(" under way, which cannot be taken back from a GPU; "),
                "{case}: {hung}"
            );
            assert_eq!(
                hung.contains("; the other GPUs count the batches not yet handed out; "),
                ordinals.len() > 1,
                "{case}: {hung}"
            );
            assert!(hung.ends_with("says how to resume"), "{case}: {hung}");
            // Back after the wait said, and more.
            assert!(
                seconds_after(back, "came back after ") >= waited,
                "{case}: {hung} / {back}"
            );
            assert!(back.ends_with(": the run goes on"), "{case}: {back}");
        }
    }

    #[test]
    fn a_gpu_that_does_not_open_is_said_once_the_others_count_meanwhile_and_its_opening_is_said() {
        // GPU 1's driver hangs in its opening until the run has said so and, beside GPU 0, GPU 0 has given
        // back three batches: the run says it once, by the name the driver gave before it opened, with a wait
        // past the bound; then once that it opened, by its device's name; every unit is counted once, as the
        // CPU counts it.
        use crate::gpu::testing::{open_stalling, Stalling};
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(0));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let stall = StallBounds {
            open: std::time::Duration::from_millis(500),
            ..TEST_STALL
        };
        for ordinals in [vec![1], vec![0, 1]] {
            let heard = Heard::default();
            let given_back = AtomicUsize::new(0);
            let others_went_on = AtomicBool::new(false);
            let never = |_: usize| false;
            let open = |ordinal: usize| {
                if ordinal == 1 {
                    open_stalling(&|| {
                        let went_on = ordinals.len() == 1 || given_back.load(Ordering::SeqCst) >= 3;
                        others_went_on.store(went_on, Ordering::SeqCst);
                        went_on
                            && heard
                                .notes
                                .lock()
                                .unwrap()
                                .iter()
                                .any(|n| n.contains(" has not opened after "))
                    });
                }
                Ok(Stalling {
                    device: HostDevice::plain(ordinal, Counted::default()),
                    pace: std::time::Duration::ZERO,
                    stalls_at: None,
                    release: &never,
                    given_back: &given_back,
                    collected: 0,
                })
            };
            let devices = Devices {
                ordinals: &|| Ok(ordinals.clone()),
                open: &open,
                named: &|ordinal| Some(format!("GPU model {ordinal}")),
                stall,
            };
            let (sum, run) = dispatch_within(
                &plan,
                &all,
                devices,
                &AtomicBool::new(false),
                &heard,
                When::Never,
                256,
            )
            .expect("the run waits for the GPU to open");
            let case = format!("{ordinals:?}");
            assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress), "{case}");
            let mut units = heard.units.into_inner().unwrap();
            units.sort_by_key(|&(i, _)| i);
            let expected: Vec<(usize, Count)> = (0..plan.units().len())
                .map(|i| (i, plan.count_unit(&plan.units()[i])))
                .collect();
            assert_eq!(units, expected, "{case}");
            assert_eq!(run.failed, "", "{case}");
            assert!(others_went_on.into_inner(), "{case}");
            let notes = heard.notes.into_inner().unwrap();
            let about = |what: &str| -> Vec<(usize, &String)> {
                notes
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| n.starts_with(what))
                    .collect()
            };
            let unopened = about("gpu 1 (GPU model 1) has not opened after ");
            let opened = about("gpu 1 (host 1) opened after ");
            assert_eq!((unopened.len(), opened.len()), (1, 1), "{case}: {notes:?}");
            let ((said_at, unopened), (opened_at, opened)) = (unopened[0], opened[0]);
            assert!(said_at < opened_at, "{case}: {notes:?}");
            let waited = seconds_after(unopened, "has not opened after ");
            assert!(waited >= 0.5, "{case}: {unopened}");
            let meanwhile = if ordinals.len() > 1 {
                "; the other GPUs count the run without it, and the run waits for it at its end; "
            } else {
                "; the run waits for it; "
            };
            assert!(unopened.contains(meanwhile), "{case}: {unopened}");
            assert!(
                seconds_after(opened, "opened after ") >= waited,
                "{case}: {unopened} / {opened}"
            );
            // Its opening was no batch's wait.
            assert!(
                notes.iter().all(|n| !n.contains(" may be hung: ")),
                "{case}: {notes:?}"
            );
        }
    }

    #[test]
    fn a_gpu_that_keeps_its_pace_is_not_said_to_hang_though_it_was_slow_to_open() {
        // GPUs that take a second to open (twice the bound for a first batch) and then give a batch back every
        // 50 ms, where a wait of ten times that would be said (no floor): neither is a batch's wait, and the
        // run says nothing of a hang.
        let stall = StallBounds {
            floor: std::time::Duration::ZERO,
            ..TEST_STALL
        };
        for ordinals in [vec![0], vec![0, 1]] {
            let (plan, result, heard, _) = run_stalling(
                &ordinals,
                None,
                std::time::Duration::from_millis(50),
                std::time::Duration::from_secs(1),
                stall,
            );
            let (sum, _) = result.expect("the host devices count");
            assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
            let notes = heard.notes.into_inner().unwrap();
            assert!(
                notes
                    .iter()
                    .all(|n| !n.contains(" may be hung: ") && !n.contains(" came back after ")),
                "{ordinals:?}: {notes:?}"
            );
        }
    }

    #[test]
    fn a_gpus_share_of_a_later_round_adds_to_its_own() {
        let share =
            |ordinal: usize, tasks: u64, nodes: Option<u64>, kernel_seconds: f64| GpuShare {
                ordinal,
                device: format!("GPU {ordinal}"),
                tasks,
                nodes,
                kernel_seconds,
            };
        // GPU 0 named twice, GPU 2 once; a second round on one of GPU 0's devices and on GPU 2, a third on
        // both of GPU 0's.
        let mut run = vec![
            share(0, 10, Some(100), 1.0),
            share(0, 20, Some(200), 1.0),
            share(2, 30, None, 1.0),
        ];
        add_shares(
            &mut run,
            &[share(0, 1, Some(5), 0.5), share(2, 3, None, 0.5)],
        );
        assert_eq!(
            run,
            [
                share(0, 11, Some(105), 1.5),
                share(0, 20, Some(200), 1.0),
                share(2, 33, None, 1.5),
            ]
        );
        add_shares(
            &mut run,
            &[share(0, 1, Some(5), 0.5), share(0, 2, Some(6), 0.5)],
        );
        assert_eq!((run[0].tasks, run[1].tasks), (12, 22));
        assert_eq!((run[0].nodes, run[1].nodes), (Some(110), Some(206)));
    }

    #[test]
    fn a_run_whose_gpus_all_fail_fails_with_the_first_error() {
        for (ordinals, failing) in [
            (vec![0], vec![(0, 1)]),
            (vec![0, 1], vec![(0, 0), (1, 2)]),
            // One lost at once, the other while it counts what the first left.
            (vec![0, 1], vec![(0, 0), (1, 6)]),
        ] {
            let (_, result, heard) = run_failing(&ordinals, &failing);
            let err = result.expect_err("no GPU left");
            assert!(err.to_string().ends_with(" lost"), "{err}");
            let notes = heard.notes.into_inner().unwrap();
            // A lone GPU's failure is the run's error, said once.
            assert_eq!(
                notes.iter().any(|n| n.contains("the other GPUs go on")),
                ordinals.len() > 1,
                "{notes:?}"
            );
        }
        // None could be opened: the first one's error, each said as it was found.
        let (_, result, heard) = run_failing_or_unopened(&[0, 1], &[], &[0, 1]);
        let err = result.expect_err("no GPU opened");
        assert_eq!(
            err.to_string(),
            "GPU backend: cannot open GPU 0: host 0 broken"
        );
        assert_eq!(heard.notes.into_inner().unwrap().len(), 2);
    }

    #[test]
    fn a_part_of_a_run_has_its_share_of_the_tasks() {
        let cut = Cut {
            extra_rows: 3,
            tasks: 1000.0,
            tail_rows: 4,
            ..Cut::default()
        };
        assert_eq!(
            cut.part(250, 1000),
            Cut {
                extra_rows: 3,
                tasks: 250.0,
                tail_rows: 4,
                ..Cut::default()
            }
        );
        assert_eq!(cut.part(0, 0).tasks, 0.0);
        // The batches cut while the driver starts hold 2^23 tasks at most, and there is one at least.
        let chunk = |tasks: f64| Cut {
            extra_rows: 3,
            tasks,
            tail_rows: 4,
            ..Cut::default()
        };
        assert_eq!(early_most(chunk(EARLY_TASKS as f64 / 10.0)), 10);
        assert_eq!(early_most(chunk(EARLY_TASKS as f64 / 2.5)), 2);
        assert_eq!(early_most(chunk(EARLY_TASKS as f64 * 3.0)), 1);
        assert_eq!(early_most(chunk(0.0)), EARLY_TASKS);
    }

    /// A host device with two loops, "slow" and "fast" by name, which its clock says take `seconds` each for
    /// any batch; the second gives the first slot it vouches for one solution too many from its `wrong`th
    /// batch on (counted from 0), if asked. It records the loop each batch was counted with, and the batch's
    /// tasks.
    struct TwoLoops {
        host: HostDevice,
        seconds: [Option<f64>; 2],
        wrong: Option<usize>,
        /// Whether its second loop cannot be loaded.
        unloadable: bool,
        current: usize,
        queued: VecDeque<usize>,
        last: Option<f64>,
        used: Arc<Mutex<Vec<(usize, usize)>>>,
    }

    impl TwoLoops {
        fn new(seconds: [Option<f64>; 2], wrong: Option<usize>) -> TwoLoops {
            TwoLoops {
                host: HostDevice::plain(0, Counted::default()),
                seconds,
                wrong,
                unloadable: false,
                current: 0,
                queued: VecDeque::new(),
                last: None,
                used: Arc::default(),
            }
        }
    }

    impl Device for TwoLoops {
        fn name(&self) -> String {
            self.host.name()
        }
        fn depth(&self) -> usize {
            self.host.depth()
        }
        fn submit(&mut self, batch: Batch) -> Result<(), Error> {
            self.queued.push_back(self.current);
            self.host.submit(batch)
        }
        fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
            let used = self.queued.pop_front().expect("a batch under way");
            let (batch, mut tallies) = self.host.collect()?;
            let mut record = self.used.lock().unwrap();
            let before = record.iter().filter(|u| u.0 == 1).count();
            record.push((used, batch.tasks.len()));
            if used == 1 && self.wrong.is_some_and(|w| before >= w) {
                if let Some(t) = tallies.iter_mut().flatten().next() {
                    t.solutions += 1;
                }
            }
            self.last = self.seconds[used];
            Ok((batch, tallies))
        }
        fn loops(&self) -> Vec<String> {
            vec!["slow".into(), "fast".into()]
        }
        fn use_loop(&mut self, index: usize) -> Result<(), Error> {
            assert!(index < 2, "loop {index}");
            if index == 1 && self.unloadable {
                return Err(Error::Gpu("cannot load the kernel: no sm_75 PTX".into()));
            }
            self.current = index;
            Ok(())
        }
        fn last_seconds(&mut self) -> Result<Option<f64>, Error> {
            Ok(self.last)
        }
    }

    /// What [`run_two_loops`] gives back.
    type TwoLoopsRun = (
        Result<(Count, GpuRun), Error>,
        Vec<(usize, Count)>,
        Vec<(usize, usize)>,
        Plan,
    );

    /// n = 12's plan on one `device`, its loops timed `when` says: the run's count and report, each unit as
    /// reported, and the loops each batch was counted with (and its tasks).
    fn run_two_loops(device: TwoLoops, when: When) -> TwoLoopsRun {
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let used = device.used.clone();
        let device = Mutex::new(Some(device));
        let seen = Seen::default();
        let result = dispatch_with(
            &plan,
            &all,
            &|| Ok(vec![0]),
            &|_| Ok(device.lock().unwrap().take().expect("opened once")),
            &AtomicBool::new(false),
            &seen,
            when,
        );
        let used = used.lock().unwrap().clone();
        (result, seen.0.into_inner().unwrap(), used, plan)
    }

    #[test]
    fn a_run_counts_with_the_loop_its_trial_timed_faster_and_every_unit_as_on_the_cpu() {
        for (seconds, chosen) in [([1.0, 0.5], 1), ([1.0, 2.0], 0), ([1.0, 0.995], 0)] {
            let device = TwoLoops::new(seconds.map(Some), None);
            let (result, seen, used, plan) = run_two_loops(device, When::Always);
            let (sum, run) = result.expect("the host device counts");
            assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
            assert_eq!(seen.len(), plan.units().len());
            for (index, count) in seen {
                assert_eq!(count, plan.count_unit(&plan.units()[index]), "unit {index}");
            }
            // The warm-up, the program's loop last, then the sample with each loop, the same tasks, then the
            // rest of the run with the loop chosen.
            assert!(used.len() > 4, "{used:?}");
            assert_eq!(
                (used[0].0, used[1].0, used[2].0, used[3].0),
                (1, 0, 0, 1),
                "{used:?}"
            );
            assert_eq!(used[0].1, used[1].1);
            assert_eq!(used[2].1, used[3].1);
            assert!(used[0].1 <= used[2].1 && used[2].1 > 0, "{used:?}");
            assert!(used[4..].iter().all(|&(l, _)| l == chosen), "{used:?}");
            // The sample counted with the program's loop, the rest with the one chosen.
            if chosen == 0 {
                assert_eq!(run.kernel_loop, "slow");
            } else {
                assert!(
                    run.kernel_loop.starts_with("fast ") && run.kernel_loop.contains("%, slow "),
                    "{}",
                    run.kernel_loop
                );
            }
            assert_eq!(
                run.loop_trial,
                format!(
                    "slow {:.3} s, fast {:.3} s on {} tasks",
                    seconds[0], seconds[1], used[2].1
                )
            );
            // The tasks counted are the run's, the sample's once more for each loop beyond the first.
            let counted: usize = used[2..].iter().map(|u| u.1).sum();
            assert_eq!(run.tasks as usize, counted - used[3].1);
        }
    }

    #[test]
    fn a_run_that_times_its_loops_on_each_batch_counts_every_unit_as_on_the_cpu() {
        let (result, seen, used, plan) =
            run_two_loops(TwoLoops::new([Some(1.0), Some(0.5)], None), When::Each);
        let (sum, run) = result.expect("the host device counts");
        assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
        assert_eq!(seen.len(), plan.units().len());
        for (index, count) in seen {
            assert_eq!(count, plan.count_unit(&plan.units()[index]), "unit {index}");
        }
        // Each trial counts its warm-up and its sample with both loops: four batches, then the rest.
        let trials = run
            .loop_trial
            .split("timed ")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .and_then(|t| t.parse::<usize>().ok())
            .expect("several trials");
        assert!(trials > 1, "{}", run.loop_trial);
        assert!(
            run.loop_trial
                .ends_with(&format!("chosen: slow 0, fast {trials}")),
            "{}",
            run.loop_trial
        );
        assert!(used.len() >= 5 * trials, "{used:?}");
        // The program's loop counts each trial's warm-up and sample, and nothing else once it has lost.
        let first = used.iter().position(|u| u.0 == 1).expect("a trial");
        let program = used[first..].iter().filter(|u| u.0 == 0).count();
        assert_eq!(program, 2 * trials, "{used:?}");
    }

    #[test]
    fn a_run_without_a_trial_counts_with_the_programs_loop() {
        for (when, seconds) in [
            (When::Never, [Some(1.0), Some(0.5)]),
            // A run too small for a trial.
            (When::Large, [Some(1.0), Some(0.5)]),
        ] {
            let (result, seen, used, plan) = run_two_loops(TwoLoops::new(seconds, None), when);
            let (sum, run) = result.expect("the host device counts");
            assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
            assert_eq!(seen.len(), plan.units().len());
            assert!(used.iter().all(|&(l, _)| l == 0), "{used:?}");
            assert_eq!(
                (run.kernel_loop.as_str(), run.loop_trial.as_str()),
                ("slow", "")
            );
        }
        // A device whose clock gives no time keeps the program's loop, and counts as it should.
        let (result, _, used, plan) =
            run_two_loops(TwoLoops::new([None, None], None), When::Always);
        let (sum, run) = result.expect("the host device counts");
        assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
        assert_eq!(run.kernel_loop, "slow");
        assert!(run.loop_trial.contains("not timed"), "{}", run.loop_trial);
        assert!(used[3..].iter().all(|&(l, _)| l == 0), "{used:?}");
    }

    #[test]
    fn a_loop_the_device_cannot_load_is_left_out_of_the_trial_and_the_run_goes_on() {
        let mut device = TwoLoops::new([Some(1.0), Some(0.5)], None);
        device.unloadable = true;
        let (result, seen, used, plan) = run_two_loops(device, When::Always);
        let (sum, run) = result.expect("the host device counts");
        assert_eq!(sum, exec::run_serial(&plan, &exec::NoProgress));
        assert_eq!(seen.len(), plan.units().len());
        assert!(used.iter().all(|&(l, _)| l == 0), "{used:?}");
        assert_eq!(run.kernel_loop, "slow");
        assert!(
            run.loop_trial
                .starts_with("slow 1.000 s, fast not loaded (GPU backend: cannot load"),
            "{}",
            run.loop_trial
        );
    }

    #[test]
    fn a_loop_that_disagrees_with_the_programs_stops_the_run_before_it_records_the_batch() {
        // Wrong from the warm-up on, and from the timed sample on.
        for (wrong, what) in [(0, "tasks of a warm-up"), (1, "tasks (slow")] {
            let device = TwoLoops::new([Some(1.0), Some(0.5)], Some(wrong));
            let (result, seen, used, _) = run_two_loops(device, When::Always);
            let error = result.expect_err("the loops disagree").to_string();
            assert!(
                error.contains(&format!("disagree on the same {what}"))
                    && error.contains("slow and fast"),
                "{error}"
            );
            assert!(seen.is_empty(), "{seen:?}");
            assert_eq!(used.len(), 2 + 2 * wrong, "{used:?}");
        }
    }
}
