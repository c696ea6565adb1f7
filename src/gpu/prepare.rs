//! Cutting a batch of units into the GPU's tasks on all the host's cores ([`prepare`]).
//!
//! The cut is two passes over the batch's pieces (a few units each), each on all cores: the first works out
//! each unit's tally and table, cuts its tasks into its piece's own buffer ([`Cuts`], memory kept from batch
//! to batch) and counts them by their size guess ([`Task::size_guess`]); the second writes each piece's tasks
//! into their places in the batch. The places come from those counts, so the batch comes out largest first
//! with no sort.
//!
//! It was one pass that kept each unit's tasks in a vector of their own, copied them into the batch and sorted
//! it. n = 19's cut on the 2-core development machine took 1.31 s on one thread and 1.10 s on two, a third of
//! it in the operating system's page faults and the allocator's work for those vectors; on the 16 cores of an
//! H100 machine it took 0.87 s, no faster than on two (results/gpu.md). Then two passes that each cut every
//! unit, the second writing the tasks into their places: n = 19 in 0.59 to 0.62 s on two cores, where
//! keeping the first pass's tasks in reused buffers takes 0.49 to 0.52 s (results/gpu.md).

use super::batch::Part;
use super::sizing::Cut;
use super::task::{self, Branch, Table, Task, SIZE_GUESSES};
use super::{Batch, BurnsideSlots};
use crate::engine::count::Count;
use crate::engine::kernel::{self, Kernel, Start, Tally};
use crate::engine::plan::{BurnsideParts, Plan, Starts, WorkUnit};
use rayon::prelude::*;
use std::sync::Mutex;

/// Buffers of tasks whose tasks are on a GPU already ([`recycle`]), for the next batches' tasks. A batch's
/// tasks in fresh memory cost the cut a page fault every 4 KiB: n = 19's cut (607 MB of 32-byte tasks) spent
/// a third of its time in the operating system for them on the 2-core development machine. None are kept
/// once a run ends ([`drop_spares`]).
static SPARE: Spares = Spares::new();

/// Keeps `tasks`' memory for a later batch's tasks (its contents are not read again).
pub fn recycle(tasks: Vec<Task>) {
    SPARE.keep(tasks);
}

/// Frees the buffers kept by [`recycle`], and the cut's own.
pub fn drop_spares() {
    SPARE.clear();
    CUTS.kept().clear();
}

/// Buffers of tasks kept for later batches: at most [`Spares::MOST`].
struct Spares(Mutex<Vec<Vec<Task>>>);

impl Spares {
    /// One a GPU's thread cuts into at a time.
    const MOST: usize = 4;

    const fn new() -> Self {
        Spares(Mutex::new(Vec::new()))
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Vec<Vec<Task>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `tasks`' memory, if it has any and fewer than [`Spares::MOST`] are kept.
    fn keep(&self, tasks: Vec<Task>) {
        let mut kept = self.kept();
        if kept.len() < Self::MOST && tasks.capacity() != 0 {
            kept.push(tasks);
        }
    }

    fn clear(&self) {
        self.kept().clear();
    }

    /// `total` tasks to overwrite, in a kept buffer if there is one; written on all cores (in fresh memory,
    /// its page faults are then shared by them).
    fn take(&self, total: usize) -> Vec<Task> {
        let kept = self.kept().pop();
        let mut tasks = kept.unwrap_or_default();
        tasks.clear();
        tasks.reserve(total);
        tasks.par_extend(rayon::iter::repeat_n(Task::default(), total));
        tasks
    }
}

/// The first pass's tasks, kept for the second, of pieces whose tasks are placed already ([`Cuts`]): the
/// next batches' pieces cut into their memory. None are kept once a run ends ([`drop_spares`]).
static CUTS: Pieces = Pieces(Mutex::new(Vec::new()));

/// A piece's tasks as the first pass cuts them, in order, with each one's size guess.
#[derive(Default)]
struct Cuts {
    tasks: Vec<Task>,
    guesses: Vec<u16>,
}

/// Buffers of [`Cuts`] for the next batches' pieces.
struct Pieces(Mutex<Vec<Cuts>>);

impl Pieces {
    /// As many as the pieces of a batch on 32 cores.
    const MOST: usize = 256;

    fn kept(&self) -> std::sync::MutexGuard<'_, Vec<Cuts>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An empty buffer, in a kept one's memory if there is one.
    fn take(&self) -> Cuts {
        let mut cuts = self.kept().pop().unwrap_or_default();
        cuts.tasks.clear();
        cuts.guesses.clear();
        cuts
    }

    fn keep(&self, cuts: Cuts) {
        let mut kept = self.kept();
        if kept.len() < Self::MOST {
            kept.push(cuts);
        }
    }
}

/// Where the first pass puts a unit's tasks: its slot, and its piece's [`Cuts`].
struct CutInto<'c> {
    slot: u32,
    cuts: &'c mut Cuts,
}

/// What the first pass found for a start: the tally the host made, and the table of the start's tasks: `None`
/// where the kernel cannot take it, which the CPU kernel then counted into the tally (no row left to search,
/// or too wide a board).
type Found = (Tally, Option<Table>);

/// What the first pass found for one unit.
enum Sized {
    /// Counted on the host.
    Whole(Count),
    /// The unit's start's, and where its tasks lie in its piece's [`Cuts`].
    Tasks(Tally, Option<Table>, std::ops::Range<usize>),
    /// A unit counted by Burnside's lemma: each part's tally and table, as for a unit's, and what the host
    /// keeps for the unit's count, with the parts' starts.
    Burnside(Vec<Found>, BurnsideParts),
}

/// Cuts `units` of `plan` into tasks `extra_rows` rows below their starts, on all cores: a batch whose tasks
/// come largest first by the host's guess (more rows left, then more squares on the first; see
/// [`super::tail_deeper`]).
pub fn prepare(plan: &Plan, units: &[usize], extra_rows: u32) -> Batch {
    let width = plan.board().width();
    // Pieces of the batch for the cores to share: several a core, so that one with large units does not end
    // last by far.
    let pieces = (rayon::current_num_threads() * 8).clamp(1, units.len().max(1));
    let piece_len = units.len().div_ceil(pieces).max(1);
    // The first pass: each unit's tally and table, its tasks cut into its piece's own buffer in order (a
    // unit's slot is its place in `units`), and each piece's tasks by guess. (The parts of a unit counted by
    // Burnside's lemma, whose slots come after all units', are only counted here and cut in the second pass.)
    let sized: Vec<(Vec<Sized>, Vec<usize>, Cuts)> = units
        .par_chunks(piece_len)
        .enumerate()
        .map(|(p, piece)| {
            let mut counts = vec![0usize; SIZE_GUESSES];
            let mut cuts = CUTS.take();
            let mut starts = Starts::new(plan);
            let sized = piece
                .iter()
                .enumerate()
                .map(|(i, &index)| {
                    let unit = &plan.units()[index];
                    let slot = (p * piece_len + i) as u32;
                    let at = CutInto {
                        slot,
                        cuts: &mut cuts,
                    };
                    size_unit(plan, unit, starts.start(unit), extra_rows, &mut counts, at)
                })
                .collect();
            (sized, counts, cuts)
        })
        .collect();
    // Slots: the units', then the parts' of the Burnside units; and each piece's first part's.
    let mut host = Vec::with_capacity(units.len());
    let mut tables = Vec::with_capacity(units.len());
    let mut whole = Vec::new();
    let mut burnside = Vec::new();
    let mut parts_at = units.len();
    let mut first_parts = Vec::with_capacity(sized.len());
    for (piece, _, _) in &sized {
        first_parts.push(parts_at);
        for s in piece {
            let slot = host.len();
            let (tally, table) = match s {
                Sized::Whole(count) => {
                    whole.push((slot, *count));
                    (Tally::default(), None)
                }
                Sized::Tasks(tally, table, _) => (*tally, *table),
                Sized::Burnside(parts, weight) => {
                    burnside.push(BurnsideSlots {
                        slot,
                        parts: parts_at..parts_at + parts.len(),
                        weight: BurnsideParts {
                            starts: Vec::new(),
                            fixed_by_others: weight.fixed_by_others,
                            order: weight.order,
                        },
                    });
                    parts_at += parts.len();
                    (Tally::default(), None)
                }
            };
            host.push(tally);
            tables.push(table.unwrap_or([0; 32]));
        }
    }
    for (s, _, _) in &sized {
        for s in s {
            if let Sized::Burnside(parts, _) = s {
                host.extend(parts.iter().map(|p| p.0));
                tables.extend(parts.iter().map(|p| p.1.unwrap_or([0; 32])));
            }
        }
    }
    // A task holds its slot in the bits its word leaves (`Task::unit`): far more than a batch's units.
    assert!(
        host.len() <= task::MAX_SLOTS,
        "a batch of {} slots",
        host.len()
    );
    // Each piece's places for its tasks: guesses largest first, and within a guess the pieces in order.
    let total: usize = sized.iter().flat_map(|(_, c, _)| c).sum();
    let levels = (0..SIZE_GUESSES)
        .filter(|&g| sized.iter().any(|(_, c, _)| c[g] != 0))
        .map(|g| (g / 33) as u32)
        .max()
        .unwrap_or(1)
        .max(1);
    let mut tasks = buffer(total);
    let counts: Vec<&[usize]> = sized.iter().map(|(_, c, _)| c.as_slice()).collect();
    let places = places(&mut tasks, &counts);
    drop(counts);
    // The second pass: each piece's tasks written into their places, in the order cut, and the Burnside
    // parts cut again, there. (Cutting every unit again here, rather than keeping its tasks, took n = 19's
    // cut a fifth longer on two cores: results/gpu.md.)
    let done: Vec<Cuts> = sized
        .into_par_iter()
        .zip(places)
        .zip(first_parts)
        .map(|(((sized, _, cuts), mut places), mut part)| {
            let mut place = |t: Task, guess: usize| put(&mut places, t, guess);
            for s in &sized {
                match s {
                    Sized::Tasks(_, _, cut) => {
                        for (&t, &g) in cuts.tasks[cut.clone()]
                            .iter()
                            .zip(&cuts.guesses[cut.clone()])
                        {
                            place(t, g as usize);
                        }
                    }
                    Sized::Burnside(parts, weight) => {
                        for ((_, table), start) in parts.iter().zip(&weight.starts) {
                            if let Some(table) = table {
                                task::split(
                                    start,
                                    table,
                                    width,
                                    extra_rows,
                                    part as u32,
                                    &mut place,
                                );
                            }
                            part += 1;
                        }
                    }
                    Sized::Whole(_) => {}
                }
            }
            cuts
        })
        .collect();
    for cuts in done {
        CUTS.keep(cuts);
    }
    Batch {
        units: units.to_vec(),
        host,
        tables,
        whole,
        burnside,
        tasks,
        levels,
        sampled: Vec::new(),
        parts: Vec::new(),
    }
}

/// Rows below a unit's start at which its branches are taken for its parts ([`Part`]): a few hundred of them on
/// the frontier's boards (n = 28: about 500 below its largest units), so that parts of about a batch's tasks
/// are made of runs of them, however large the unit.
pub const PART_ROWS: u32 = 2;

/// How a batch's units are cut ([`parts_of`]).
#[derive(Debug, Default, PartialEq)]
pub struct Cutting {
    /// Units cut whole, in their order.
    pub whole: Vec<usize>,
    /// Parts of units with more tasks than a batch holds whole, each with its tasks' estimate.
    pub parts: Vec<(Part, f64)>,
    /// Units counted by Burnside's lemma whose parts would have more tasks than a batch holds whole: each to
    /// be cut alone, the rows below its parts' starts that keep their tasks within it.
    pub alone: Vec<(usize, u32)>,
}

/// `units` of `plan` to be cut `extra_rows` rows below their starts, as `cut` says: those to cut whole, and the
/// parts of those with more tasks than a batch holds whole ([`Cut::unit_tasks`], by an estimate: the tasks a
/// row less, times the cut's growth). Looked at only where the cut says a unit may be that large
/// ([`Cut::parts_at`]), on all cores: the estimate costs about a tenth of the cut.
///
/// A unit counted by Burnside's lemma (a whole border that a symmetry fixes: 169 of n = 28's 788,882 units)
/// is counted from hundreds or thousands of starts of its own, cut together: where their tasks would pass
/// half of what a batch holds whole (by the tasks two rows below the starts, times the cut's growth for each
/// row more), it is cut alone, as deep as keeps them within that (n = 28's first: 403 starts, the first with
/// 31,000 tasks four rows below it, about 8e10 in all eight rows below; alone, four rows below its starts,
/// 8.9 million tasks). Looked at only in a run whose cut says some unit may be too large
/// ([`Cut::parted_from`]).
///
/// A part holds runs of the unit's branches [`PART_ROWS`] rows below its start (fewer where the tasks are
/// less deep) of about [`Cut::part_tasks`] tasks (a batch's): a branch more than that is a part alone.
pub fn parts_of(plan: &Plan, units: &[usize], extra_rows: u32, cut: Cut) -> Cutting {
    // The branches are a row above the rows estimated, which are a row above the tasks.
    let branch_rows = PART_ROWS.min(extra_rows.saturating_sub(2));
    let width = plan.board().width();
    let whole_most = cut.unit_tasks as f64 / 2.0;
    let part_most = cut.part_tasks();
    // A run none of whose units is that large is cut as it was, at no cost. (A Burnside unit's parts take
    // n = 28's host seconds to find.)
    if cut.parted_from == u32::MAX {
        return Cutting {
            whole: units.to_vec(),
            ..Cutting::default()
        };
    }
    // A Burnside unit's rows, if it is to be cut alone.
    let alone = |index: usize| -> Option<u32> {
        let parts = plan.burnside_parts(&plan.units()[index])?;
        let probe = PART_ROWS.min(extra_rows);
        let tasks: usize = parts
            .starts
            .par_iter()
            .filter_map(|s| Some(task::tasks_at(s, &task::table_of(s, width)?, width, probe)))
            .sum();
        let guess = |rows: u32| tasks as f64 * cut.growth.max(1.0).powi((rows - probe) as i32);
        if guess(extra_rows) <= whole_most {
            return None;
        }
        Some(
            (probe..extra_rows)
                .rev()
                .find(|&rows| guess(rows) <= whole_most)
                .unwrap_or(probe),
        )
    };
    // Whole, in parts, or alone.
    enum Looked {
        Whole,
        Parts(Vec<(Part, f64)>),
        Alone(u32),
    }
    let looked: Vec<Looked> = units
        .par_iter()
        .map(|&index| {
            if let Some(rows) = alone(index) {
                return Looked::Alone(rows);
            }
            if !cut.parts_at(extra_rows) || branch_rows == 0 {
                return Looked::Whole;
            }
            let Some(start) = plan.start(&plan.units()[index]) else {
                return Looked::Whole;
            };
            let Some(table) = task::table_of(&start, width) else {
                return Looked::Whole;
            };
            let (branches, _) = task::branches(&start, branch_rows);
            let guesses: Vec<f64> = branches
                .par_iter()
                .map(|b| {
                    let mut tasks = 0usize;
                    let below = std::slice::from_ref(b);
                    task::split_below(
                        &start,
                        &table,
                        width,
                        extra_rows - 1,
                        below,
                        branch_rows,
                        0,
                        &mut |_, _| tasks += 1,
                    );
                    tasks as f64 * cut.growth
                })
                .collect();
            if guesses.iter().sum::<f64>() <= whole_most {
                return Looked::Whole;
            }
            // Runs of branches of at most `part_most` tasks, a branch more than that alone.
            let mut parts = Vec::new();
            let (mut first, mut tasks) = (0usize, 0.0);
            for (i, &guess) in guesses.iter().enumerate() {
                if i > first && tasks + guess > part_most {
                    parts.push((first, i, tasks));
                    (first, tasks) = (i, 0.0);
                }
                tasks += guess;
            }
            parts.push((first, guesses.len(), tasks));
            let of = branches.len() as u32;
            Looked::Parts(
                parts
                    .into_iter()
                    .map(|(first, end, tasks)| {
                        let part = Part {
                            unit: index,
                            extra_rows,
                            branch_rows,
                            first: first as u32,
                            end: end as u32,
                            of,
                        };
                        (part, tasks)
                    })
                    .collect(),
            )
        })
        .collect();
    let mut cutting = Cutting::default();
    for (&index, looked) in units.iter().zip(looked) {
        match looked {
            Looked::Whole => cutting.whole.push(index),
            Looked::Parts(parts) => cutting.parts.extend(parts),
            Looked::Alone(rows) => cutting.alone.push((index, rows)),
        }
    }
    cutting
}

/// Cuts `parts` of units of `plan` (of [`parts_of`]) into tasks, a slot each, on all cores: a batch whose tasks
/// come largest first by the host's guess, as [`prepare`]'s do.
pub fn prepare_parts(plan: &Plan, parts: &[Part]) -> Batch {
    let width = plan.board().width();
    // Each unit's start, table and branches, found once however many of its parts the batch holds (a sample of
    // a run's tasks, `forecast.rs`, holds single branches of a unit by the dozen, each of thousands).
    let mut units: Vec<(usize, u32)> = parts.iter().map(|p| (p.unit, p.branch_rows)).collect();
    units.sort_unstable();
    units.dedup();
    let found: Vec<(Start, Table, Vec<Branch>, Tally)> = units
        .par_iter()
        .map(|&(unit, branch_rows)| {
            let start = plan
                .start(&plan.units()[unit])
                .expect("a unit counted in parts has a start");
            let table = task::table_of(&start, width).expect("a unit counted in parts has a table");
            let (branches, above) = task::branches(&start, branch_rows);
            (start, table, branches, above)
        })
        .collect();
    // Each part's tally and table, its tasks cut into a buffer of its own, counted by guess.
    let sized: Vec<(Tally, Table, Vec<usize>, Cuts)> = parts
        .par_iter()
        .enumerate()
        .map(|(slot, part)| {
            let mut counts = vec![0usize; SIZE_GUESSES];
            let mut cuts = CUTS.take();
            let unit = units
                .binary_search(&(part.unit, part.branch_rows))
                .expect("every part's unit is found");
            let (start, table, branches, above) = &found[unit];
            debug_assert_eq!(branches.len() as u32, part.of);
            let run = &branches[part.first as usize..part.end as usize];
            let mut tally = task::split_below(
                start,
                table,
                width,
                part.extra_rows,
                run,
                part.branch_rows,
                slot as u32,
                &mut |t, guess| {
                    counts[guess] += 1;
                    cuts.tasks.push(t);
                    cuts.guesses.push(guess as u16);
                },
            );
            if part.first == 0 {
                tally += *above;
            }
            (tally, *table, counts, cuts)
        })
        .collect();
    let total: usize = sized.iter().map(|(_, _, _, c)| c.tasks.len()).sum();
    let levels = (0..SIZE_GUESSES)
        .filter(|&g| sized.iter().any(|(_, _, c, _)| c[g] != 0))
        .map(|g| (g / 33) as u32)
        .max()
        .unwrap_or(1)
        .max(1);
    let mut tasks = buffer(total);
    let counts: Vec<&[usize]> = sized.iter().map(|(_, _, c, _)| c.as_slice()).collect();
    let places = places(&mut tasks, &counts);
    drop(counts);
    sized
        .par_iter()
        .zip(places)
        .for_each(|((_, _, _, cuts), mut places)| {
            for (&t, &g) in cuts.tasks.iter().zip(&cuts.guesses) {
                put(&mut places, t, g as usize);
            }
        });
    let mut batch = Batch {
        units: parts.iter().map(|p| p.unit).collect(),
        tasks,
        levels,
        parts: parts.iter().copied().enumerate().collect(),
        ..Batch::default()
    };
    for (tally, table, _, cuts) in sized {
        batch.host.push(tally);
        batch.tables.push(table);
        CUTS.keep(cuts);
    }
    batch
}

/// `total` tasks to overwrite, in memory a batch handed back if there is some ([`recycle`]).
pub(super) fn buffer(total: usize) -> Vec<Task> {
    SPARE.take(total)
}

/// The counts of `batch`'s tasks by guess.
pub(super) fn counts_by_guess(batch: &Batch) -> Vec<usize> {
    let mut counts = vec![0; SIZE_GUESSES];
    for t in &batch.tasks {
        counts[t.size_guess(&batch.tables[t.slot() as usize])] += 1;
    }
    counts
}

/// `tasks` laid out for pieces whose tasks number `counts` by guess: guesses largest first, and within a guess
/// the pieces in order. Each piece's places, by guess, for [`put`].
pub(super) fn places<'t>(tasks: &'t mut [Task], counts: &[&[usize]]) -> Vec<Vec<&'t mut [Task]>> {
    let mut places: Vec<Vec<&mut [Task]>> = counts
        .iter()
        .map(|_| {
            std::iter::repeat_with(Default::default)
                .take(SIZE_GUESSES)
                .collect()
        })
        .collect();
    let mut rest = tasks;
    for g in (0..SIZE_GUESSES).rev() {
        for (counts, places) in counts.iter().zip(&mut places) {
            let (place, after) = std::mem::take(&mut rest).split_at_mut(counts[g]);
            places[g] = place;
            rest = after;
        }
    }
    places
}

/// Writes `task` into the next of a piece's `places` ([`places`]) for its guess `g`.
pub(super) fn put(places: &mut [&mut [Task]], task: Task, g: usize) {
    let (to, rest) = std::mem::take(&mut places[g])
        .split_first_mut()
        .expect("a piece puts no more tasks of a guess than it counted");
    *to = task;
    places[g] = rest;
}

/// The first pass for one unit whose start is `start`: its tally and table (or its count), its tasks cut `at`
/// its place and added to `counts` by guess (a Burnside unit's parts only counted).
fn size_unit(
    plan: &Plan,
    unit: &WorkUnit,
    start: Option<&Start>,
    extra_rows: u32,
    counts: &mut [usize],
    at: CutInto,
) -> Sized {
    let Some(start) = start else {
        // A unit counted by Burnside's lemma: its parts' solutions on the GPU, what each symmetry fixes here.
        return match plan.burnside_parts(unit) {
            Some(parts) => {
                // A whole border: hundreds of parts, sized on all cores.
                let sized: Vec<(Found, Vec<usize>)> = parts
                    .starts
                    .par_iter()
                    .map(|start| {
                        let mut counts = vec![0usize; SIZE_GUESSES];
                        (size_start(plan, start, extra_rows, &mut counts), counts)
                    })
                    .collect();
                for (_, c) in &sized {
                    for (to, c) in counts.iter_mut().zip(c) {
                        *to += c;
                    }
                }
                Sized::Burnside(sized.into_iter().map(|(p, _)| p).collect(), parts)
            }
            None => Sized::Whole(plan.count_unit(unit)),
        };
    };
    let width = plan.board().width();
    let from = at.cuts.tasks.len();
    let (tally, table) = match task::table_of(start, width) {
        Some(table) => {
            let cuts = &mut *at.cuts;
            let tally = task::split(
                start,
                &table,
                width,
                extra_rows,
                at.slot,
                &mut |t, guess| {
                    counts[guess] += 1;
                    cuts.tasks.push(t);
                    cuts.guesses.push(guess as u16);
                },
            );
            (tally, Some(table))
        }
        None => (count_on_host(start, width), None),
    };
    Sized::Tasks(tally, table, from..at.cuts.tasks.len())
}

/// A start the kernel cannot take (no row left to search, or a board too wide), counted by the CPU kernel.
fn count_on_host(start: &Start, width: u32) -> Tally {
    kernel::count_start_with(Kernel::preferred(), width, start.clone())
}

/// The tally and table of `start`'s tasks, its tasks added to `counts` by guess; or, where the kernel cannot
/// take it, its tally counted here.
fn size_start(plan: &Plan, start: &Start, extra_rows: u32, counts: &mut [usize]) -> Found {
    let width = plan.board().width();
    match task::table_of(start, width) {
        Some(table) => {
            let tally = task::split(start, &table, width, extra_rows, 0, &mut |_, guess| {
                counts[guess] += 1
            });
            (tally, Some(table))
        }
        None => (count_on_host(start, width), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Board;
    use crate::engine::plan::Split;
    use crate::engine::symmetry::Symmetry;

    /// Each unit's tasks as `task::split` cuts it alone, by slot, in the order cut.
    fn cut_alone(plan: &Plan, units: &[usize], rows: u32) -> Vec<Task> {
        let width = plan.board().width();
        let mut tasks = Vec::new();
        for (slot, &i) in units.iter().enumerate() {
            if let Some(start) = plan.start(&plan.units()[i]) {
                if let Some(table) = task::table_of(&start, width) {
                    task::split(&start, &table, width, rows, slot as u32, &mut |t, _| {
                        tasks.push(t)
                    });
                }
            }
        }
        tasks
    }

    #[test]
    fn a_batch_holds_each_units_tasks_as_cut_alone_even_in_a_used_buffer() {
        // A square board in full symmetry (border units, Burnside units), and a rectangle,
        // whose tasks have more squares on their first row than rows left (16 wide, 8 lines).
        let plans = [
            Plan::new(Board::new(13).unwrap(), Symmetry::Full, Split::Depth(2)),
            Plan::new(
                Board::rect(16, 8).unwrap(),
                Symmetry::Mirror,
                Split::Depth(1),
            ),
        ];
        for plan in &plans {
            // The units with starts (a Burnside unit's parts have slots after the units').
            let units: Vec<usize> = (0..plan.units().len())
                .filter(|&i| plan.start(&plan.units()[i]).is_some())
                .collect();
            let mut expected = cut_alone(plan, &units, 2);
            assert!(expected.len() > 100, "{}", expected.len());
            let levels = expected.iter().map(Task::levels).max().unwrap();
            let sorted = |mut tasks: Vec<Task>| {
                tasks.sort();
                tasks
            };
            expected = sorted(expected);
            // A used buffer, longer than the batch and full of other tasks, then none.
            let junk = Task::new(1, 0, 0, 7, 0);
            for spare in [vec![junk; expected.len() * 2], Vec::new()] {
                drop_spares();
                recycle(spare);
                let batch = prepare(plan, &units, 2);
                assert_eq!(sorted(batch.tasks.clone()), expected);
                assert_eq!(batch.levels, levels);
            }
        }
        // No units: no tasks, no slots, one level.
        let none = prepare(&plans[0], &[], 2);
        assert!(none.tasks.is_empty() && none.slots() == 0 && none.units.is_empty());
        assert_eq!(none.levels, 1);
        // On the rectangle the stack's depth, the most levels, is not the most squares of a first row.
        let plan = &plans[1];
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let batch = prepare(plan, &all, 2);
        let squares = batch
            .tasks
            .iter()
            .map(|t| t.avail(&batch.tables[t.slot() as usize]).count_ones())
            .max()
            .unwrap();
        assert_ne!(batch.levels, squares);
    }

    #[test]
    fn units_too_large_for_a_batch_are_cut_in_parts_that_add_up_to_them() {
        // n = 13 cut 4 rows below its units, where a unit may have 64 tasks whole: the large ones go in
        // parts of runs of their branches two rows below, each part a slot of its own, its first holding what
        // the host decided above the branches. Whole and in parts, every unit counts as the CPU counts it,
        // its parts' tasks are its own cut whole, and a part's tally the device cannot vouch for has its unit
        // counted again.
        use crate::gpu::batch::{finish, Unfinished};
        use crate::gpu::testing::tallies_of;
        let plan = Plan::new(Board::new(13).unwrap(), Symmetry::Full, Split::Depth(1));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let rows = 4;
        let cut = Cut {
            extra_rows: rows,
            tail_rows: rows + 1,
            growth: 4.0,
            parted_from: rows,
            unit_tasks: 64,
            ..Cut::default()
        };
        let Cutting {
            whole,
            parts,
            alone,
        } = parts_of(&plan, &all, rows, cut);
        let parted = all.len() - whole.len() - alone.len();
        assert!(
            whole.len() > 1 && parted > 1 && parts.len() > 2 * parted,
            "{whole:?} {parts:?}"
        );
        // The units counted by Burnside's lemma (whole borders a symmetry fixes), more than 64 tasks each,
        // are cut alone, less deep.
        let burnside: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&i| plan.start(&plan.units()[i]).is_none())
            .collect();
        assert!(!burnside.is_empty());
        assert_eq!(alone.iter().map(|&(u, _)| u).collect::<Vec<_>>(), burnside);
        assert!(alone
            .iter()
            .all(|&(_, r)| r < rows && prepare(&plan, &[burnside[0]], r).tasks.len() <= 64));
        // Not looked at where the cut says no unit is that large.
        let never = Cut {
            parted_from: rows + 1,
            ..cut
        };
        let left = parts_of(&plan, &all, rows, never);
        assert!(left.parts.is_empty());
        assert_eq!(left.whole.len() + left.alone.len(), all.len());
        // Each parted unit's parts cover its branches once, in order, about a quarter of 64 tasks each.
        let parts: Vec<Part> = parts.into_iter().map(|(p, _)| p).collect();
        let mut covered: std::collections::HashMap<usize, u32> = Default::default();
        for p in &parts {
            let at = covered.entry(p.unit).or_default();
            assert_eq!(
                (p.first, p.extra_rows, p.branch_rows),
                (*at, rows, PART_ROWS),
                "{p:?}"
            );
            assert!(p.end > p.first && p.end <= p.of);
            *at = p.end;
        }
        assert!(covered.iter().all(|(&u, &at)| parts
            .iter()
            .any(|p| p.unit == u && p.end == p.of && at == p.of)));
        let whole_batch = prepare(&plan, &whole, rows);
        // The parts in three batches, out of order.
        let thirds: Vec<&[Part]> = parts.chunks(parts.len().div_ceil(3)).collect();
        let batches: Vec<Batch> = [thirds[2], thirds[0], thirds[1]]
            .iter()
            .map(|p| prepare_parts(&plan, p))
            .collect();
        for (batch, p) in batches.iter().zip([thirds[2], thirds[0], thirds[1]]) {
            assert_eq!(batch.slots(), p.len());
            assert_eq!(
                batch.parts,
                p.iter().copied().enumerate().collect::<Vec<_>>()
            );
            let key = |t: &Task| t.size_guess(&batch.tables[t.slot() as usize]);
            assert!(batch.tasks.windows(2).all(|w| key(&w[0]) >= key(&w[1])));
        }
        // A parted unit's tasks are its cut whole.
        let unit = parts[0].unit;
        let mut expected = cut_alone(&plan, &[unit], rows);
        let mut got: Vec<Task> = batches
            .iter()
            .flat_map(|b| {
                b.tasks
                    .iter()
                    .filter(|t| b.units[t.slot() as usize] == unit)
            })
            .map(|t| Task::new(t.fc, t.ld, t.rd, 0, t.low()))
            .collect();
        expected.sort();
        got.sort();
        assert_eq!(got, expected);
        for doubtful in [false, true] {
            let unfinished = Unfinished::default();
            let mut counted = Vec::new();
            let alone: Vec<Batch> = alone
                .iter()
                .map(|&(u, r)| prepare(&plan, &[u], r))
                .collect();
            for batch in std::iter::once(&whole_batch).chain(&batches).chain(&alone) {
                let mut device: Vec<Option<Tally>> =
                    tallies_of(batch).into_iter().map(Some).collect();
                if doubtful && !batch.parts.is_empty() {
                    device[0] = None;
                }
                counted.extend(finish(&plan, batch, &device, true, &unfinished));
            }
            assert_eq!(unfinished.units(), 0);
            counted.sort_by_key(|&(i, _)| i);
            let expected: Vec<(usize, Count)> = all
                .iter()
                .map(|&i| (i, plan.count_unit(&plan.units()[i])))
                .collect();
            assert_eq!(counted, expected);
        }
    }

    #[test]
    fn spare_buffers_are_reused_up_to_the_most_and_filled_anew() {
        let spares = Spares::new();
        // Nothing kept: fresh memory.
        assert_eq!(spares.take(3), vec![Task::default(); 3]);
        let junk = Task::new(5, 0, 0, 0, 0);
        let first = vec![junk; 10];
        let at = first.as_ptr();
        spares.keep(first);
        // A buffer without memory is not kept, nor one past the most.
        spares.keep(Vec::new());
        assert_eq!(spares.kept().len(), 1);
        for _ in 1..Spares::MOST + 2 {
            spares.keep(vec![junk; 1]);
        }
        assert_eq!(spares.kept().len(), Spares::MOST);
        // The last kept is taken first; each is filled anew, in its own memory where it is large enough.
        for _ in 1..Spares::MOST {
            assert_eq!(spares.take(1), vec![Task::default()]);
        }
        let again = spares.take(8);
        assert_eq!(again.as_ptr(), at);
        assert_eq!(again, vec![Task::default(); 8]);
        spares.keep(again);
        spares.clear();
        assert!(spares.kept().is_empty());
    }

    #[test]
    fn the_size_guesses_order_tasks_by_rows_left_then_squares_and_number_them_densely() {
        let mask = |bits: u32| if bits == 32 { !0 } else { (1u32 << bits) - 1 };
        // Every task's levels (at least one) and first squares, as a task of fc's columns gives them.
        let shapes: Vec<(u32, u32)> = (0..=32u32)
            .flat_map(|squares| {
                (0..=32u32).map(move |fc| (Task::new(mask(fc), 0, 0, 0, 0).levels(), squares))
            })
            .collect();
        for &a in &shapes {
            let guess = |(levels, squares): (u32, u32)| task::size_guess(levels, mask(squares));
            assert!(guess(a) < SIZE_GUESSES);
            for &b in &shapes {
                assert_eq!(guess(a).cmp(&guess(b)), a.cmp(&b));
            }
        }
        // A task's own guess reads its first squares from its unit's table.
        let mut table = [0; 32];
        table[3] = 0b0110;
        let t = Task::new(0b1110, 0b0100, 0, 0, 1);
        assert_eq!(t.avail(&table), 0b0010);
        assert_eq!(t.size_guess(&table), task::size_guess(2, 0b0010));
    }

    #[test]
    fn a_batch_puts_the_tasks_that_look_largest_first() {
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let batch = prepare(&plan, &all, 2);
        let key = |t: &Task| t.size_guess(&batch.tables[t.slot() as usize]);
        assert!(batch.tasks.windows(2).all(|w| key(&w[0]) >= key(&w[1])));
        // Rows left and squares on the first row both vary, so the order is not the one cut.
        assert!(batch.tasks.first().map(key) > batch.tasks.last().map(key));
    }
}
