//! The kernel's loops timed against each other on the GPU at hand, where a run asks for it
//! (`NQUEENS_GPU_TRIAL`), at the start of a run and again after a while ([`trial`]).
//!
//! Which of the kernel's loops is faster depends on the GPU: its multiprocessors' shared memory decides how
//! many blocks each loop's stack leaves room for, and the loops trade instructions for wavefronts of shared
//! memory differently (`count.cu`). A run that asks for it ([`When::wanted`]) times them on a sample of its
//! first large batch, each counting the same tasks, and counts the rest of the run with the fastest, until it
//! times them again ([`When::again`]). It checks the GPU on the way: the loops must give every slot of the
//! sample the same tally, or the run stops before it records any unit of that batch.
//!
//! **No run times them unless asked** (the thirty-eighth session, on an H200): a sample's time is its largest
//! task's, not the loops' rate. n = 22's first batch holds tasks of 35 million nodes (`examples/gpu_task_sizes`:
//! 23 times the mean), 2.7 s on one thread, and the eighth of a batch the trial times takes 0.4 s at the rate
//! of a full GPU. So the trial timed each loop at about 2.7 s, chose the loop with the next row's frame, and
//! cost n = 22 10 s: 77.0 s, where the program's loop alone took 66.9 s and the frame's alone 68.6 s (n = 21:
//! 7.64 s and 8.06 s). A sample large enough for its largest task not to matter would cost more than the
//! few percent between the loops can gain.

use super::batch::Batch;
use super::dispatch::Device;
use super::options::knob;
use super::sizing::Cut;
use super::task::Task;
use crate::engine::kernel::Tally;
use crate::error::Error;

/// A run's tasks on each of its GPUs from which the GPUs time their loops with [`When::Large`]: about a minute
/// of an H100's or H200's count (n = 22: 112 million tasks in about 67 s).
pub const TRIAL_FROM_TASKS: f64 = (1u64 << 26) as f64;

/// Tasks a batch holds at least for its sample to be timed with [`When::Large`]: its eighth, half a million
/// tasks, is then several for each of the 100,000 or so threads an H100 or H200 runs at once (which is not
/// enough for the sample's time to be the loops' rate rather than its largest task's: the module's note).
pub const TRIAL_BATCH_TASKS: usize = 1 << 22;

/// The sample is every `SAMPLE_SHARE`th task of the batch: in the batch's order (largest first), and of the
/// same sizes as the rest of it.
pub const SAMPLE_SHARE: usize = 8;

/// The warm-up, a launch of each loop before any is timed (its first launch loads it on the GPU), is the
/// sample's last `WARM_SHARE`th: its smallest by the host's guess, so that no warm-up waits for one of the
/// batch's largest tasks (as every `WARM_SHARE`th task from the first did: about 2 s a loop at n = 22 on an
/// H200). It is checked as the sample is.
pub const WARM_SHARE: usize = 64;

/// A loop other than the first (the program's) is chosen only if it took less than this share of the first's
/// time: a difference within the noise of one launch keeps the program's loop.
pub const MARGIN: f64 = 0.01;

/// A run times its loops again once this many tasks have gone to the GPU since its last trial (with
/// [`When::Large`]): 128 batches, about twelve minutes of an H200's count (n = 22: 105 million tasks in about
/// 70 s), for an eighth of a batch each time (0.1% of the count), in case units later in the plan favour the
/// other loop.
pub const TRIAL_AGAIN_TASKS: u64 = 1 << 30;

/// When a run's GPUs time their loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// Never: the program's choice (see the module's note), and `NQUEENS_GPU_TRIAL=0`.
    Never,
    /// In a run of at least [`TRIAL_FROM_TASKS`] tasks a GPU, on its first batch of at least
    /// [`TRIAL_BATCH_TASKS`], and again on the first such batch after each [`TRIAL_AGAIN_TASKS`]
    /// (`NQUEENS_GPU_TRIAL=3`: the program's choice until the thirty-eighth session).
    Large,
    /// On the first batch of two tasks or more, whatever the run, and again as [`When::Large`] does
    /// (`NQUEENS_GPU_TRIAL=1`, for measuring and for the tests).
    Always,
    /// On every batch of two tasks or more (`NQUEENS_GPU_TRIAL=2`: for measuring, each batch's sample timed,
    /// and for the tests).
    Each,
}

impl When {
    /// The program's choice (never), unless `NQUEENS_GPU_TRIAL` says otherwise ([`When::from_knob`]).
    pub fn from_environment() -> When {
        When::from_knob(knob("NQUEENS_GPU_TRIAL", |t: &u32| *t <= 3))
    }

    /// What `NQUEENS_GPU_TRIAL` set to `knob` asks for: never by default (see the module's note), `1`
    /// always, `2` on each batch, `3` on large runs only ([`When::Large`]).
    pub fn from_knob(knob: Option<u32>) -> When {
        match knob {
            None | Some(0) => When::Never,
            Some(1) => When::Always,
            Some(2) => When::Each,
            Some(_) => When::Large,
        }
    }

    /// Whether a run cut as `cut` on `devices` GPUs times its loops at all.
    pub fn wanted(self, cut: &Cut, devices: usize) -> bool {
        match self {
            When::Never => false,
            When::Large => cut.tasks / devices.max(1) as f64 >= TRIAL_FROM_TASKS,
            When::Always | When::Each => true,
        }
    }

    /// Whether `batch` is large enough for the trial's sample.
    pub fn takes(self, batch: &Batch) -> bool {
        match self {
            When::Never => false,
            When::Large => batch.tasks.len() >= TRIAL_BATCH_TASKS,
            When::Always | When::Each => batch.tasks.len() >= 2,
        }
    }

    /// Whether a run that has timed its loops before, `since` tasks ago, times them again.
    pub fn again(self, since: u64) -> bool {
        match self {
            When::Never => false,
            When::Large | When::Always => since >= TRIAL_AGAIN_TASKS,
            When::Each => true,
        }
    }
}

/// What a trial measured: each loop's seconds for the same sample, and the loop chosen.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// The loops' names, the program's first ([`Device::loops`]).
    pub loops: Vec<String>,
    /// Each loop's seconds for the sample, on the device's clock: `None` for a loop that could not be loaded
    /// (`left_out`), and for all of them where the device gives no clock.
    pub seconds: Vec<Option<f64>>,
    /// The loops the device could not load (their compilation for its architecture failed, say), and why:
    /// left out of the trial rather than failing the run.
    pub left_out: Vec<(usize, String)>,
    /// The sample's tasks.
    pub tasks: usize,
    /// The loop that counts the rest of the run: an index of `loops`.
    pub chosen: usize,
}

impl Trial {
    /// The trial in a line: "look-ahead 0.812 s, look-ahead with the next row's frame 0.776 s on 1048576
    /// tasks".
    pub fn describe(&self) -> String {
        let times: Vec<String> = self
            .loops
            .iter()
            .enumerate()
            .map(|(index, name)| {
                match (
                    self.seconds.get(index).copied().flatten(),
                    self.left_out.iter().find(|(i, _)| *i == index),
                ) {
                    (Some(s), _) => format!("{name} {s:.3} s"),
                    (None, Some((_, why))) => format!("{name} not loaded ({why})"),
                    (None, None) => format!("{name} not timed (the device gives no clock)"),
                }
            })
            .collect();
        format!("{} on {} tasks", times.join(", "), self.tasks)
    }
}

/// What a run's `trials` on one GPU measured, in a line: the first trial's ([`Trial::describe`]), and how
/// often each loop won the others; empty for none.
pub fn summary(trials: &[Trial]) -> String {
    let Some(first) = trials.first() else {
        return String::new();
    };
    if trials.len() == 1 {
        return first.describe();
    }
    let wins: Vec<String> = first
        .loops
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let won = trials.iter().filter(|t| t.chosen == index).count();
            format!("{name} {won}")
        })
        .collect();
    format!(
        "{}; timed {} times in all, chosen: {}",
        first.describe(),
        trials.len(),
        wins.join(", ")
    )
}

/// The loops that counted a run's tasks on one GPU, by name, each with its share where there were several:
/// "look-ahead" or "look-ahead with the next row's frame 92%, look-ahead 8%". `tasks` is each loop's, in the
/// order of `loops`.
pub fn counted_with(loops: &[String], tasks: &[u64]) -> String {
    let total: u64 = tasks.iter().sum();
    let mut used: Vec<(&String, u64)> = loops
        .iter()
        .zip(tasks)
        .filter(|(_, &t)| t > 0)
        .map(|(name, &t)| (name, t))
        .collect();
    used.sort_by_key(|u| std::cmp::Reverse(u.1));
    match used.as_slice() {
        [] => loops.first().cloned().unwrap_or_default(),
        [(name, _)] => (*name).clone(),
        _ => used
            .iter()
            .map(|(name, t)| format!("{name} {:.0}%", 100.0 * *t as f64 / total as f64))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The loop to count with, given each loop's `seconds` for the same sample (`None`: not timed), the program's
/// first: the fastest, if it took less than `1 - MARGIN` of the program's time; else the program's.
pub fn choose(seconds: &[Option<f64>]) -> usize {
    let Some(Some(first)) = seconds.first().copied() else {
        return 0;
    };
    let fastest = seconds
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.map(|s| (i, s)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    match fastest {
        Some((index, best)) if best < first * (1.0 - MARGIN) => index,
        _ => 0,
    }
}

/// `batch` in two: every `share`th task in a batch of its own (its sample, with the batch's tables and
/// levels, and nothing the host counted), and the batch with the others.
pub fn split(mut batch: Batch, share: usize) -> (Batch, Batch) {
    let share = share.max(1);
    let (mut sample, mut rest) = (Vec::new(), Vec::new());
    for (i, task) in batch.tasks.iter().enumerate() {
        if i % share == 0 {
            sample.push(*task);
        } else {
            rest.push(*task);
        }
    }
    super::recycle(std::mem::replace(&mut batch.tasks, rest));
    (with_tasks(&batch, sample), batch)
}

/// A batch of `tasks` with `of`'s tables and levels, and nothing the host counted: what a device needs to
/// count them.
fn with_tasks(of: &Batch, tasks: Vec<Task>) -> Batch {
    Batch {
        tables: of.tables.clone(),
        tasks,
        levels: of.levels,
        ..Batch::default()
    }
}

/// The last `share`th of `batch`'s tasks (one at least, where it has any), in a batch of their own: its
/// smallest by the host's guess.
fn smallest(batch: &Batch, share: usize) -> Batch {
    let len = batch.tasks.len();
    let from = len - len.div_ceil(share.max(1));
    with_tasks(batch, batch.tasks[from..].to_vec())
}

/// A copy of `sample` for a device to count.
fn copy(sample: &Batch) -> Batch {
    with_tasks(sample, sample.tasks.clone())
}

/// Adds the tallies of the batch's sample, counted before it ([`Batch::sampled`]), to `tallies`, the device's
/// for the rest of it: a slot's is vouched for if both are.
pub fn add_sampled(batch: &Batch, tallies: &mut [Option<Tally>]) {
    for (tally, sampled) in tallies.iter_mut().zip(&batch.sampled) {
        *tally = match (*tally, *sampled) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
}

/// Whether two loops' tallies of the same tasks agree: every slot that both vouch for is the same.
fn agree(a: &[Option<Tally>], b: &[Option<Tally>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|pair| match pair {
            (Some(x), Some(y)) => x == y,
            _ => true,
        })
}

/// Counts `sample` with the loop `device` counts with now: its tallies, and its seconds on the device's clock
/// if it gives them.
fn count(
    device: &mut impl Device,
    sample: &Batch,
) -> Result<(Vec<Option<Tally>>, Option<f64>), Error> {
    device.submit(copy(sample))?;
    let (_, tallies) = device.collect()?;
    Ok((tallies, device.last_seconds()?))
}

/// Times each of `device`'s loops on a sample of `batch` (every [`SAMPLE_SHARE`]th task), after a warm-up of
/// each, and leaves the device counting with the fastest ([`choose`]). The device must have nothing under
/// way, so that the loops' times are theirs alone. Returns the rest of the batch, with the program's loop's
/// tallies of the sample in it ([`Batch::sampled`], which [`add_sampled`] adds to the rest's), and what the trial
/// measured.
///
/// A loop other than the program's that the device cannot load ([`Device::use_loop`] fails: its compilation
/// for the GPU's architecture, say) is left out, and the run goes on. A loop whose tallies differ from the
/// program's on any slot that both vouch for stops the run with an error: a fault of the GPU or of its
/// compiler, which no count should be recorded over.
pub fn trial<D: Device>(device: &mut D, batch: Batch) -> Result<(Batch, Trial), Error> {
    let loops = device.loops();
    let (sample, mut rest) = split(batch, SAMPLE_SHARE);
    let tasks = sample.tasks.len();
    let disagree = |one: usize, other: usize, what: &str| {
        Error::Gpu(format!(
            "the kernel's loops disagree on the same {what} ({} and {}): the GPU or its compiler is at \
             fault; nothing of the batch was recorded",
            loops[one], loops[other]
        ))
    };
    // The loops the device loads, the program's last: each counts the warm-up, so that no timed launch is
    // the first of its loop.
    let warm = smallest(&sample, WARM_SHARE);
    let mut left_out = Vec::new();
    let mut warmed: Option<(usize, Vec<Option<Tally>>)> = None;
    for index in (0..loops.len()).rev() {
        match device.use_loop(index) {
            Ok(()) => {}
            Err(e) if index > 0 => {
                left_out.push((index, e.to_string()));
                continue;
            }
            Err(e) => return Err(e),
        }
        let (tallies, _) = count(device, &warm)?;
        match &warmed {
            Some((first, before)) if !agree(before, &tallies) => {
                return Err(disagree(index, *first, "tasks of a warm-up"))
            }
            Some(_) => {}
            None => warmed = Some((index, tallies)),
        }
    }
    let mut seconds = vec![None; loops.len()];
    let mut program: Vec<Option<Tally>> = Vec::new();
    for (index, seconds) in seconds.iter_mut().enumerate() {
        if left_out.iter().any(|(i, _)| *i == index) {
            continue;
        }
        device.use_loop(index)?;
        let (tallies, timed) = count(device, &sample)?;
        if index == 0 {
            program = tallies;
        } else if !agree(&program, &tallies) {
            return Err(disagree(0, index, "tasks"));
        }
        *seconds = timed;
        // A device that cannot time its kernels has nothing to choose by: the program's loop.
        if timed.is_none() {
            break;
        }
    }
    let chosen = choose(&seconds);
    device.use_loop(chosen)?;
    rest.sampled = program;
    Ok((
        rest,
        Trial {
            loops,
            seconds,
            left_out,
            tasks,
            chosen,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Board;
    use crate::engine::plan::{Plan, Split};
    use crate::engine::symmetry::Symmetry;
    use crate::gpu::prepare;
    use crate::gpu::testing::tallies_of;

    #[test]
    fn the_fastest_loop_is_chosen_only_past_the_margin() {
        let choose =
            |seconds: &[f64]| choose(&seconds.iter().map(|&s| Some(s)).collect::<Vec<_>>());
        assert_eq!(choose(&[1.0, 0.9]), 1);
        assert_eq!(choose(&[1.0, 1.1]), 0);
        // Within 1% the program's loop stays.
        assert_eq!(choose(&[1.0, 0.995]), 0);
        assert_eq!(choose(&[1.0, 0.985]), 1);
        assert_eq!(choose(&[1.0, 0.95, 0.9]), 2);
        assert_eq!(choose(&[1.0]), 0);
        assert_eq!(choose(&[]), 0);
    }

    #[test]
    fn several_trials_are_summed_up_and_a_runs_loops_named_by_their_share() {
        let trial = |chosen| Trial {
            loops: vec!["look-ahead".into(), "framed".into()],
            seconds: vec![Some(1.0), Some(if chosen == 1 { 0.5 } else { 1.5 })],
            left_out: Vec::new(),
            tasks: 8,
            chosen,
        };
        assert_eq!(summary(&[]), "");
        assert_eq!(
            summary(&[trial(1)]),
            "look-ahead 1.000 s, framed 0.500 s on 8 tasks"
        );
        assert_eq!(
            summary(&[trial(1), trial(0), trial(1)]),
            "look-ahead 1.000 s, framed 0.500 s on 8 tasks; timed 3 times in all, chosen: look-ahead 1, framed 2"
        );
        let loops = ["look-ahead".to_string(), "framed".to_string()];
        assert_eq!(counted_with(&loops, &[0, 0]), "look-ahead");
        assert_eq!(counted_with(&loops, &[0, 7]), "framed");
        assert_eq!(counted_with(&loops, &[8, 92]), "framed 92%, look-ahead 8%");
        assert_eq!(counted_with(&[], &[]), "");
    }

    #[test]
    fn a_loop_not_timed_is_never_chosen() {
        assert_eq!(super::choose(&[Some(1.0), None, Some(0.5)]), 2);
        assert_eq!(super::choose(&[Some(1.0), None]), 0);
        // Without the program's time there is nothing to weigh against.
        assert_eq!(super::choose(&[None, Some(0.5)]), 0);
    }

    #[test]
    fn a_trial_says_each_loops_time_or_why_it_has_none() {
        let trial = Trial {
            loops: vec!["look-ahead".into(), "framed".into(), "other".into()],
            seconds: vec![Some(0.8125), None, Some(0.5)],
            left_out: vec![(1, "no PTX for sm_75".into())],
            tasks: 1024,
            chosen: 2,
        };
        assert_eq!(
            trial.describe(),
            "look-ahead 0.812 s, framed not loaded (no PTX for sm_75), other 0.500 s on 1024 tasks"
        );
        let untimed = Trial {
            seconds: vec![None; 3],
            left_out: Vec::new(),
            ..trial
        };
        assert!(untimed
            .describe()
            .starts_with("look-ahead not timed (the device gives no clock), framed not timed"));
    }

    /// n = 12's plan and a batch of all its units, cut two rows below them.
    fn n12_batch() -> Batch {
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        prepare(&plan, &all, 2)
    }

    #[test]
    fn a_sample_and_the_rest_hold_the_batchs_tasks_once_and_their_tallies_add_up() {
        let batch = n12_batch();
        let whole = tallies_of(&batch);
        let (tasks, levels, slots) = (batch.tasks.clone(), batch.levels, batch.slots());
        let (sample, mut rest) = split(batch, SAMPLE_SHARE);
        assert_eq!(sample.tasks.len(), tasks.len().div_ceil(SAMPLE_SHARE));
        assert_eq!(sample.tasks.len() + rest.tasks.len(), tasks.len());
        // The sample keeps the batch's order (largest first): every eighth task, from the first.
        assert!(sample
            .tasks
            .iter()
            .zip(tasks.iter().step_by(SAMPLE_SHARE))
            .all(|(a, b)| a == b));
        assert_eq!((sample.levels, sample.slots()), (levels, slots));
        // The sample holds nothing the host counted; the rest holds the batch's units.
        assert!(sample.units.is_empty() && sample.whole.is_empty() && sample.host.is_empty());
        assert!(!rest.units.is_empty());
        // The rest's tallies and the sample's add up to the batch's.
        rest.sampled = tallies_of(&sample).into_iter().map(Some).collect();
        let mut tallies: Vec<Option<Tally>> = tallies_of(&rest).into_iter().map(Some).collect();
        add_sampled(&rest, &mut tallies);
        let whole: Vec<Option<Tally>> = whole.into_iter().map(Some).collect();
        assert_eq!(tallies, whole);
        assert!(whole.iter().flatten().any(|t| t.solutions > 0));
    }

    #[test]
    fn a_slot_is_vouched_for_only_if_its_sample_and_rest_are() {
        let mut batch = Batch {
            sampled: vec![
                Some(Tally {
                    solutions: 1,
                    nodes: 2,
                }),
                None,
                Some(Tally::default()),
            ],
            ..Batch::default()
        };
        let mut tallies = vec![
            Some(Tally {
                solutions: 3,
                nodes: 4,
            }),
            Some(Tally::default()),
            None,
        ];
        add_sampled(&batch, &mut tallies);
        assert_eq!(
            tallies,
            [
                Some(Tally {
                    solutions: 4,
                    nodes: 6
                }),
                None,
                None
            ]
        );
        // A batch with no sample is left as the device gave it.
        batch.sampled.clear();
        let before = tallies.clone();
        add_sampled(&batch, &mut tallies);
        assert_eq!(tallies, before);
    }

    #[test]
    fn no_run_times_its_loops_unless_the_environment_asks() {
        assert_eq!(When::from_knob(None), When::Never);
        assert_eq!(When::from_knob(Some(0)), When::Never);
        assert_eq!(When::from_knob(Some(1)), When::Always);
        assert_eq!(When::from_knob(Some(2)), When::Each);
        assert_eq!(When::from_knob(Some(3)), When::Large);
    }

    #[test]
    fn the_warm_up_is_the_samples_smallest_tasks_by_the_guess() {
        let (sample, _) = split(n12_batch(), SAMPLE_SHARE);
        let warm = smallest(&sample, WARM_SHARE);
        let len = sample.tasks.len();
        assert!(len > WARM_SHARE);
        assert_eq!(warm.tasks.len(), len.div_ceil(WARM_SHARE));
        assert_eq!(warm.tasks[..], sample.tasks[len - warm.tasks.len()..]);
        assert_eq!((warm.levels, warm.slots()), (sample.levels, sample.slots()));
        // The batch's first task (its largest by the guess) is in the sample, not in the warm-up.
        assert!(!warm.tasks.contains(&sample.tasks[0]));
        // A sample of one task warms up with it.
        let one = with_tasks(&sample, sample.tasks[..1].to_vec());
        assert_eq!(smallest(&one, WARM_SHARE).tasks, one.tasks);
    }

    #[test]
    fn a_run_times_its_loops_only_where_it_is_large_and_asks_for_a_large_batch() {
        let cut = |tasks: f64| Cut {
            extra_rows: 3,
            tasks,
            tail_rows: 4,
            ..Cut::default()
        };
        assert!(When::Large.wanted(&cut(TRIAL_FROM_TASKS), 1));
        assert!(!When::Large.wanted(&cut(TRIAL_FROM_TASKS), 2));
        assert!(!When::Large.wanted(&cut(TRIAL_FROM_TASKS / 2.0), 1));
        assert!(When::Always.wanted(&cut(1.0), 8) && When::Each.wanted(&cut(1.0), 8));
        assert!(!When::Never.wanted(&cut(1e12), 1));
        // Again after 2^30 tasks, or on each batch.
        assert!(When::Large.again(TRIAL_AGAIN_TASKS) && !When::Large.again(TRIAL_AGAIN_TASKS - 1));
        assert!(
            !When::Always.again(1 << 20) && When::Each.again(0) && !When::Never.again(u64::MAX)
        );
        let batch = n12_batch();
        assert!(batch.tasks.len() < TRIAL_BATCH_TASKS);
        assert!(!When::Large.takes(&batch) && When::Always.takes(&batch));
        assert!(!When::Never.takes(&batch));
    }
}
