//! The batches a run's units go to the GPUs in, and each unit's count from what a device gives back.
//!
//! A run's units are cut into batches of a bounded number of tasks ([`batches`]), the last ones a row deeper
//! ([`tail_deeper`]); `prepare.rs` cuts each into a [`Batch`]. A lone GPU takes the small batches cut before it
//! opened as a few merged ones ([`merge`], [`coalesce`]), and once a device has counted a batch, [`finish`]
//! makes its units' counts of its tallies and the host's part. A unit too large for a batch is counted in
//! [`Part`]s, which may go to several batches and devices: its count is made once all are in ([`Unfinished`]).
//! `dispatch.rs` decides which batch goes where.

use super::options::knob;
use super::sizing::Cut;
use super::task::{self, Table, Task};
use super::{prepare, recycle};
use crate::engine::count::Count;
use crate::engine::kernel::Tally;
use crate::engine::plan::{BurnsideParts, Plan};
use rayon::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// Tasks a batch holds at most (by the estimate), but for a batch of one unit, which holds all its tasks (up to
/// [`UNIT_TASKS`](super::UNIT_TASKS); a larger unit is counted in [`Part`]s). Four batches in flight keep an H100 busy; a checkpointed run records a
/// batch's units once it is done, so a batch is also what a crash can lose. The host holds two batches a GPU at
/// most: the one its thread copies to it, and the next, cut ahead ([`dispatch`](super::dispatch())).
pub const BATCH_TASKS: usize = 1 << 23;

/// Tasks a lone GPU's first batch holds at most, of the batches cut before it opened (merged, see
/// [`dispatch`](super::dispatch())), each next one twice as many up to [`BATCH_TASKS`]: the GPU starts counting
/// once the first is copied, and the next ones are copied while it counts. Copied from memory the driver does not
/// pin, 2^23 tasks (then 32 bytes each) took n = 19's first batch 0.08 s on an H200's host, the GPU idle meanwhile.
/// On an H200 (2026-11-27, `NQUEENS_GPU_FIRST_BATCH_TASKS`, interleaved), n = 17 took 0.359 to 0.376 s with 2^19
/// (five runs) where 2^21 took 0.387 to 0.474 s, and 2^20 0.381 to 0.400 s; n = 18 and 19, whose early batches are
/// larger than 2^19 tasks each (a batch alone larger goes alone), were unchanged within the runs' spread
/// (results/gpu.md).
pub const FIRST_BATCH_TASKS: usize = 1 << 19;

/// [`FIRST_BATCH_TASKS`], unless `NQUEENS_GPU_FIRST_BATCH_TASKS` says otherwise (1 to [`BATCH_TASKS`], for
/// measuring).
pub(super) fn first_batch_tasks() -> usize {
    knob("NQUEENS_GPU_FIRST_BATCH_TASKS", |t| {
        (1..=BATCH_TASKS).contains(t)
    })
    .unwrap_or(FIRST_BATCH_TASKS)
}

/// Batches a run is cut into, at least: the host prepares one while the GPU counts another.
pub const BATCHES: usize = 8;

/// [`BATCHES`], unless `NQUEENS_GPU_BATCHES` says otherwise (1 to 64, for measuring: at n = 19 each batch's end
/// waits for its slowest tasks, results/gpu.md).
fn batches_at_least() -> usize {
    knob("NQUEENS_GPU_BATCHES", |b| (1..=64).contains(b)).unwrap_or(BATCHES)
}

/// The batches the run's last batch for each GPU is cut into, a row deeper than the others ([`tail_deeper`]):
/// a row multiplies the tasks by several, and a batch's tasks stay about as many as another's.
pub const TAIL_PIECES: usize = 4;

/// A batch of units prepared for the GPU: their tasks, and what the host counted itself.
///
/// Its slots are first its units, one each, then the parts of its Burnside units (see [`BurnsideSlots`]).
#[derive(Debug, Default)]
pub struct Batch {
    /// The plan's numbers of the units, by slot.
    pub units: Vec<usize>,
    /// The tally the host found for each slot (of a unit counted on the GPU: the rows it placed itself).
    pub host: Vec<Tally>,
    /// Each slot's table of rows (all zero for a slot with no tasks).
    pub tables: Vec<Table>,
    /// Slots counted wholly on the host, with their counts.
    pub whole: Vec<(usize, Count)>,
    /// The units counted by Burnside's lemma: their slots, and the slots of their parts.
    pub burnside: Vec<BurnsideSlots>,
    /// The tasks, each naming its slot.
    pub tasks: Vec<Task>,
    /// The most levels of stack any task needs.
    pub levels: u32,
    /// Each slot's tally of tasks of the batch counted before it, apart (a loops' trial's sample,
    /// `trial.rs`), added to the device's tallies of the batch when it is done; empty for none.
    pub sampled: Vec<Option<Tally>>,
    /// The slots that hold a part of a unit rather than a whole one, with the part.
    pub parts: Vec<(usize, Part)>,
}

/// A part of a unit with more tasks than a batch holds whole ([`Cut::unit_tasks`]): the tasks below a run of
/// its branches ([`task::branches`]), with what the host decides between them and the tasks, and for its
/// first part also what it decides above the branches. A unit's parts cover its branches once each, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// The plan's number of the unit.
    pub unit: usize,
    /// Rows placed below the unit's start: the tasks'.
    pub extra_rows: u32,
    /// Rows below the unit's start of its branches.
    pub branch_rows: u32,
    /// The first of its branches, by their place in the unit's.
    pub first: u32,
    /// The branch after its last.
    pub end: u32,
    /// The unit's branches.
    pub of: u32,
}

/// The units counted in [`Part`]s some of whose parts are still to come: for each, the branches its parts
/// counted so far covered, and their tally (none once a device could not vouch for a part's). Shared by the
/// devices of a run, as a unit's parts may go to several.
#[derive(Debug, Default)]
pub struct Unfinished(Mutex<HashMap<usize, (u32, Option<Tally>)>>);

impl Unfinished {
    /// Adds `part`'s tally (`None` where the device could not vouch for it): the unit's whole tally (or
    /// `None`, to be counted again) once its parts are all in, else nothing yet.
    fn add(&self, part: &Part, tally: Option<Tally>) -> Option<Option<Tally>> {
        let mut waiting = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (covered, sum) = waiting
            .entry(part.unit)
            .or_insert((0, Some(Tally::default())));
        *covered += part.end - part.first;
        *sum = sum.zip(tally).map(|(a, b)| a + b);
        if *covered < part.of {
            return None;
        }
        debug_assert_eq!(
            *covered, part.of,
            "unit {}'s parts cover a branch twice",
            part.unit
        );
        waiting.remove(&part.unit).map(|(_, sum)| sum)
    }

    /// The units some of whose parts are counted and others not.
    pub fn units(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl Batch {
    /// The batch's slots, its units' and their parts': what the device keeps a tally for.
    pub fn slots(&self) -> usize {
        self.tables.len()
    }
}

/// A unit of a batch counted by Burnside's lemma ([`Plan::burnside_parts`]): the GPU counts the solutions of
/// its parts, each in a slot of its own (their frames differ), and the host what each symmetry fixes.
#[derive(Clone, Debug)]
pub struct BurnsideSlots {
    /// The unit's slot.
    pub slot: usize,
    /// The slots of its parts.
    pub parts: std::ops::Range<usize>,
    /// The unit's parts, but for their starts.
    pub weight: BurnsideParts,
}

/// `batches` as one, in their order: its slots are all their units', then all their parts' (the layout
/// [`finish`] reads), and its tasks largest first by the host's guess, as [`prepare`] puts a batch's.
///
/// A small run is cut in many small batches before the driver has said how many GPUs there are (so that
/// several can share them), and each batch's kernel ends with its largest task: by the tasks' sizes counted
/// on the host (`examples/gpu_cut.rs`, n = 17 as the program cuts it, 84,480 threads), the last thread of
/// the program's batches ends 49% after a perfect share if they overlapped perfectly and 392% after it if
/// they ran one by one, where all of them as one ends 14% after it. One GPU takes what it has in hand as
/// one batch, or as a few growing ones where they are many (see [`FIRST_BATCH_TASKS`] and
/// [`dispatch`](super::dispatch())).
pub fn merge(batches: Vec<Batch>) -> Batch {
    if batches.len() < 2 {
        return batches.into_iter().next().unwrap_or_default();
    }
    let units: usize = batches.iter().map(|b| b.units.len()).sum();
    let mut merged = Batch {
        levels: batches.iter().map(|b| b.levels).max().unwrap_or(1),
        ..Batch::default()
    };
    // Where each batch's units and parts go.
    let mut unit_at = 0;
    let mut part_at = units;
    let mut shifts = Vec::with_capacity(batches.len());
    for b in &batches {
        shifts.push((unit_at, part_at));
        unit_at += b.units.len();
        part_at += b.slots() - b.units.len();
    }
    let slot = |(unit_at, part_at): (usize, usize), units: usize, s: usize| {
        if s < units {
            unit_at + s
        } else {
            part_at + s - units
        }
    };
    for (b, &shift) in batches.iter().zip(&shifts) {
        let n = b.units.len();
        merged.units.extend(&b.units);
        merged
            .whole
            .extend(b.whole.iter().map(|&(s, c)| (slot(shift, n, s), c)));
        merged
            .parts
            .extend(b.parts.iter().map(|&(s, part)| (slot(shift, n, s), part)));
        merged
            .burnside
            .extend(b.burnside.iter().map(|u| BurnsideSlots {
                slot: slot(shift, n, u.slot),
                parts: slot(shift, n, u.parts.start)..slot(shift, n, u.parts.end),
                weight: u.weight.clone(),
            }));
    }
    assert!(part_at <= task::MAX_SLOTS, "a batch of {part_at} slots");
    merged.host = vec![Tally::default(); part_at];
    merged.tables = vec![[0; 32]; part_at];
    for (b, &shift) in batches.iter().zip(&shifts) {
        for s in 0..b.slots() {
            let to = slot(shift, b.units.len(), s);
            merged.host[to] = b.host[s];
            merged.tables[to] = b.tables[s];
        }
    }
    // The tasks laid out as `prepare` lays out a batch's, each batch a piece: no sort (which took n = 17's
    // early batches, 3.3 M tasks, 0.13 s on two cores, as long as their cut; now 0.06 s).
    let counts: Vec<Vec<usize>> = batches.par_iter().map(prepare::counts_by_guess).collect();
    let counts: Vec<&[usize]> = counts.iter().map(Vec::as_slice).collect();
    let mut tasks = prepare::buffer(counts.iter().flat_map(|c| c.iter()).sum());
    let places = prepare::places(&mut tasks, &counts);
    batches
        .par_iter()
        .zip(&shifts)
        .zip(places)
        .for_each(|((b, &shift), mut places)| {
            for t in &b.tasks {
                let guess = t.size_guess(&b.tables[t.slot() as usize]);
                let slot = slot(shift, b.units.len(), t.slot() as usize) as u32;
                prepare::put(
                    &mut places,
                    Task::new(t.fc, t.ld, t.rd, slot, t.low()),
                    guess,
                );
            }
        });
    merged.tasks = tasks;
    for b in batches {
        recycle(b.tasks);
    }
    merged
}

/// `batches` in order, each run of them [`merge`]d into one: the first run with at most `first` tasks in all,
/// each next one with at most twice the one before, up to `most` (where a batch alone has more, it goes
/// alone).
pub(super) fn coalesce(batches: VecDeque<Batch>, first: usize, most: usize) -> VecDeque<Batch> {
    let mut out = VecDeque::new();
    let mut run: Vec<Batch> = Vec::new();
    let mut tasks = 0;
    // The tasks the run being gathered may hold.
    let mut room = first.min(most);
    for batch in batches {
        if !run.is_empty() && tasks + batch.tasks.len() > room {
            out.push_back(merge(std::mem::take(&mut run)));
            tasks = 0;
            room = room.saturating_mul(2).min(most);
        }
        tasks += batch.tasks.len();
        run.push(batch);
    }
    if !run.is_empty() {
        out.push_back(merge(run));
    }
    out
}

/// The units of a run cut into batches, in order: at least [`BATCHES`] for each of `devices`, and small enough
/// that each holds about [`BATCH_TASKS`] tasks at most, given `cut`'s estimate.
pub fn batches(units: &[usize], cut: Cut, devices: usize) -> impl Iterator<Item = &[usize]> {
    let even = units.len().div_ceil(batches_at_least() * devices.max(1));
    let by_tasks = (units.len() as f64 * BATCH_TASKS as f64 / cut.tasks.max(1.0)) as usize;
    units.chunks(even.min(by_tasks).max(1))
}

/// Tasks each of a run's batches holds, about, by `cut`'s estimate, on `devices` GPUs ([`batches`]): the
/// run's tasks over the batches it is cut into at least, [`BATCH_TASKS`] at most.
pub fn batch_tasks(cut: Cut, devices: usize) -> usize {
    let even = cut.tasks / (batches_at_least() * devices.max(1)) as f64;
    (even.ceil() as usize).clamp(1, BATCH_TASKS)
}

/// `chunks` of a run with the rows `cut` places below their units, the last one for each of `devices` (the
/// batches that end the run) cut a row deeper, in [`TAIL_PIECES`] batches of a part of it each: the last
/// tasks to start are then the smallest (with [`prepare`]'s order, largest first in each batch), so that the
/// GPUs end together. By the tasks' sizes counted on the host (`examples/gpu_cut.rs`, n = 19 with 101,376
/// threads), the last thread to end does so 27.8% after a perfect share with the tasks in the order cut,
/// 18.0% with each batch's largest first, and 3.2% with the last batch cut a row deeper in four too
/// (results/gpu.md; a model in which every node takes the same time, which overstates the tail).
pub fn tail_deeper(chunks: Vec<&[usize]>, cut: Cut, devices: usize) -> Vec<(&[usize], u32)> {
    let tail = chunks.len().saturating_sub(devices.max(1));
    let deeper = cut.tail_rows;
    chunks
        .iter()
        .enumerate()
        .flat_map(|(i, &chunk)| {
            if i >= tail && deeper > cut.extra_rows {
                chunk
                    .chunks(chunk.len().div_ceil(TAIL_PIECES).max(1))
                    .map(|piece| (piece, deeper))
                    .collect()
            } else {
                vec![(chunk, cut.extra_rows)]
            }
        })
        .collect()
}

/// The count of each unit of `batch`, from the device's per-slot tallies `device`; a unit whose tally the
/// device could not vouch for (`None`, for its slot or one of its parts') is counted again by the CPU kernel.
/// Where the device leaves the nodes uncounted (`counts_nodes` false), so are those of the units it counted
/// (but for the units fixed by a symmetry, which report no nodes on any backend: [`BurnsideParts::count`]).
/// A unit's [`Part`]s wait in `unfinished` for the others: its count comes with the batch of its last part.
pub fn finish(
    plan: &Plan,
    batch: &Batch,
    device: &[Option<Tally>],
    counts_nodes: bool,
    unfinished: &Unfinished,
) -> Vec<(usize, Count)> {
    let mut whole = batch.whole.iter().peekable();
    let mut burnside = batch.burnside.iter().peekable();
    let mut parts = batch.parts.iter().peekable();
    let tally = |slot: usize| device[slot].map(|d| batch.host[slot] + d);
    let weigh = |index: usize, tally: Option<Tally>| {
        let unit = &plan.units()[index];
        match tally {
            Some(tally) if counts_nodes => plan.weigh(unit, tally),
            Some(tally) => plan.weigh(unit, tally).without_nodes(),
            None => plan.count_unit(unit),
        }
    };
    (0..batch.units.len())
        .filter_map(|slot| {
            let unit = &plan.units()[batch.units[slot]];
            if let Some(&&(s, count)) = whole.peek() {
                if s == slot {
                    whole.next();
                    return Some((batch.units[slot], count));
                }
            }
            if let Some(&&(s, part)) = parts.peek() {
                if s == slot {
                    parts.next();
                    let done = unfinished.add(&part, tally(slot))?;
                    return Some((part.unit, weigh(part.unit, done)));
                }
            }
            if let Some(&b) = burnside.peek() {
                if b.slot == slot {
                    burnside.next();
                    let solutions: Option<u128> = b
                        .parts
                        .clone()
                        .map(|part| tally(part).map(|t| u128::from(t.solutions)))
                        .sum();
                    let count = match solutions {
                        Some(solutions) => b.weight.count(solutions),
                        None => plan.count_unit(unit),
                    };
                    return Some((batch.units[slot], count));
                }
            }
            Some((batch.units[slot], weigh(batch.units[slot], tally(slot))))
        })
        .collect()
}

/// The nodes a device's `tallies` count, of the slots it vouched for: the nodes of the tasks it counted.
pub(super) fn nodes_vouched(tallies: &[Option<Tally>]) -> u64 {
    tallies.iter().flatten().map(|t| t.nodes).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Board;
    use crate::engine::plan::Split;
    use crate::engine::symmetry::Symmetry;
    use crate::gpu::testing::tallies_of;

    /// n = 12's plan (two rows deep), its units, and its units in `pieces` batches cut a row below them.
    fn n12_in_batches(pieces: usize) -> (Plan, Vec<usize>, VecDeque<Batch>) {
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let batches = all
            .chunks(all.len().div_ceil(pieces))
            .map(|c| prepare(&plan, c, 1))
            .collect();
        (plan, all, batches)
    }

    #[test]
    fn batches_coalesce_in_order_up_to_the_most_tasks() {
        let (plan, all, batches) = n12_in_batches(6);
        let sizes: Vec<usize> = batches.iter().map(|b| b.tasks.len()).collect();
        assert!(sizes.iter().all(|&t| t > 1), "{sizes:?}");
        // The first two fit exactly, the third does not.
        let most = sizes[0] + sizes[1];
        assert!(most < sizes[0] + sizes[1] + sizes[2]);
        let merged = coalesce(batches, most, most);
        let merged_sizes: Vec<usize> = merged.iter().map(|b| b.tasks.len()).collect();
        assert_eq!(merged_sizes[0], most, "{sizes:?} into {merged_sizes:?}");
        assert!(
            merged.len() > 1 && merged.len() < sizes.len(),
            "{merged_sizes:?}"
        );
        assert!(
            merged_sizes.iter().all(|&t| t > 0 && t <= most),
            "{merged_sizes:?}"
        );
        assert_eq!(
            merged_sizes.iter().sum::<usize>(),
            sizes.iter().sum::<usize>()
        );
        let units: Vec<usize> = merged.iter().flat_map(|b| b.units.clone()).collect();
        assert_eq!(units, all);
        // A batch larger than the most goes alone, not after an empty one.
        let one: VecDeque<Batch> = [prepare(&plan, &all, 1)].into();
        let alone = coalesce(one, 1, 1);
        assert_eq!(alone.len(), 1);
        assert_eq!(alone[0].units, all);
    }

    #[test]
    fn merged_batches_grow_from_the_first_size_to_the_most() {
        // Each merged batch takes as many of the batches, in order, as its size allows: the first's, twice it,
        // four times it, which is the most, and the most from then on.
        let (_, _, batches) = n12_in_batches(40);
        let sizes: Vec<usize> = batches.iter().map(|b| b.tasks.len()).collect();
        let units: Vec<Vec<usize>> = batches.iter().map(|b| b.units.clone()).collect();
        let first = sizes[0] + sizes[1];
        let most = 4 * first;
        let merged = coalesce(batches, first, most);
        assert!(merged.len() >= 5, "{sizes:?} into {} batches", merged.len());
        let mut at = 0;
        for (i, batch) in merged.iter().enumerate() {
            let size = [first, 2 * first, most][i.min(2)];
            let (mut tasks, mut end) = (sizes[at], at + 1);
            while end < sizes.len() && tasks + sizes[end] <= size {
                tasks += sizes[end];
                end += 1;
            }
            assert_eq!(batch.tasks.len(), tasks, "batch {i} of {sizes:?}");
            assert_eq!(batch.units, units[at..end].concat(), "batch {i}");
            at = end;
        }
        assert_eq!(at, sizes.len());
    }

    #[test]
    fn batches_merged_count_every_unit_as_the_plan_does() {
        // Every unit of n = 12 in three batches: units with tasks, units fixed by a symmetry (counted from
        // their parts' slots, after all the units'), and units counted whole on the host.
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let thirds: Vec<&[usize]> = all.chunks(all.len().div_ceil(3)).collect();
        let batches: Vec<Batch> = thirds.iter().map(|c| prepare(&plan, c, 1)).collect();
        assert!(batches.iter().any(|b| !b.burnside.is_empty()));
        assert!(batches.iter().any(|b| b.slots() > b.units.len()));
        let tasks: usize = batches.iter().map(|b| b.tasks.len()).sum();
        let slots: usize = batches.iter().map(Batch::slots).sum();
        let levels = batches.iter().map(|b| b.levels).max();
        let merged = merge(batches);
        assert_eq!(merged.units, all);
        assert_eq!(merged.tasks.len(), tasks);
        // No slot more than theirs, and the stack its deepest task needs (the kernel's shared memory).
        assert_eq!(merged.slots(), slots);
        assert_eq!(Some(merged.levels), levels);
        let key = |t: &Task| t.size_guess(&merged.tables[t.slot() as usize]);
        assert!(merged.tasks.windows(2).all(|w| key(&w[0]) >= key(&w[1])));
        let device: Vec<Option<Tally>> = tallies_of(&merged).into_iter().map(Some).collect();
        let counted = finish(&plan, &merged, &device, true, &Unfinished::default());
        let expected: Vec<(usize, Count)> = all
            .iter()
            .map(|&i| (i, plan.count_unit(&plan.units()[i])))
            .collect();
        assert_eq!(counted, expected);
    }

    #[test]
    fn a_burnside_unit_is_counted_from_its_parts_on_the_device() {
        // The units fixed by a symmetry: the GPU counts their parts' solutions, the host what each symmetry
        // fixes, and nothing of them is counted whole on the host any more.
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(2));
        let burnside: Vec<usize> = (0..plan.units().len())
            .filter(|&i| plan.start(&plan.units()[i]).is_none())
            .collect();
        assert!(!burnside.is_empty());
        let batch = prepare(&plan, &burnside, 1);
        assert!(batch.whole.is_empty());
        assert_eq!(batch.burnside.len(), burnside.len());
        assert!(batch.slots() > batch.units.len() && !batch.tasks.is_empty());
        let tallies = tallies_of(&batch);
        let mut device: Vec<Option<Tally>> = tallies.iter().copied().map(Some).collect();
        let expected: Vec<(usize, Count)> = burnside
            .iter()
            .map(|&i| (i, plan.count_unit(&plan.units()[i])))
            .collect();
        assert_eq!(
            finish(&plan, &batch, &device, true, &Unfinished::default()),
            expected
        );
        // A part the device cannot vouch for (the one with the most solutions): its unit is counted again on
        // the host, the same.
        let doubtful = (batch.units.len()..batch.slots())
            .max_by_key(|&slot| tallies[slot].solutions)
            .unwrap();
        assert!(tallies[doubtful].solutions > 0);
        device[doubtful] = None;
        assert_eq!(
            finish(&plan, &batch, &device, true, &Unfinished::default()),
            expected
        );
    }

    #[test]
    fn the_last_batch_of_each_gpu_is_cut_a_row_deeper_in_pieces() {
        let units: Vec<usize> = (0..100).collect();
        let chunks: Vec<&[usize]> = units.chunks(10).collect();
        let cut = Cut {
            extra_rows: 3,
            tasks: 1e6,
            tail_rows: 4,
            ..Cut::default()
        };
        for devices in [1, 2] {
            let batches = tail_deeper(chunks.clone(), cut, devices);
            // Every unit once, in order.
            let covered: Vec<usize> = batches
                .iter()
                .flat_map(|(c, _)| c.iter().copied())
                .collect();
            assert_eq!(covered, units);
            // The first chunks as they were, then the last `devices` in TAIL_PIECES pieces, a row deeper.
            let kept = 10 - devices;
            assert!(batches[..kept]
                .iter()
                .all(|&(c, rows)| c.len() == 10 && rows == 3));
            assert_eq!(batches.len(), kept + devices * TAIL_PIECES.min(10));
            assert!(batches[kept..].iter().all(|&(_, rows)| rows == 4));
        }
        // No deeper than the cut may go; and a run of one batch is all tail.
        let deepest = Cut {
            tail_rows: 3,
            ..cut
        };
        assert_eq!(
            tail_deeper(chunks.clone(), deepest, 1),
            tail_deeper(chunks.clone(), deepest, 2)
        );
        assert!(tail_deeper(chunks.clone(), deepest, 1)
            .iter()
            .zip(&chunks)
            .all(|(&(c, rows), &chunk)| c == chunk && rows == 3));
        let one = tail_deeper(vec![&units[..]], cut, 1);
        assert!(one.len() == TAIL_PIECES && one.iter().all(|&(_, rows)| rows == 4));
    }

    #[test]
    fn batches_cover_the_units_in_order_and_hold_a_bounded_number_of_tasks() {
        let units: Vec<usize> = (0..1001).collect();
        let few = Cut {
            extra_rows: 1,
            tasks: 1e6,
            tail_rows: 2,
            ..Cut::default()
        };
        let joined: Vec<usize> = batches(&units, few, 1).flatten().copied().collect();
        assert_eq!(joined, units);
        assert_eq!(batches(&units, few, 1).count(), BATCHES);
        assert_eq!(batches(&units, few, 3).count(), 3 * BATCHES);
        assert_eq!(batches(&[], few, 1).count(), 0);
        let many = Cut {
            extra_rows: 5,
            tasks: 100.0 * BATCH_TASKS as f64,
            tail_rows: 6,
            ..Cut::default()
        };
        let count = batches(&units, many, 1).count();
        assert!((100..=112).contains(&count), "{count}");
        let huge = Cut {
            extra_rows: 9,
            tasks: 1e15,
            tail_rows: 10,
            ..Cut::default()
        };
        assert_eq!(batches(&units, huge, 1).count(), units.len());
        // A batch's tasks, about: the run's over its batches, as many as the units are cut into.
        assert_eq!(batch_tasks(few, 1), 125_000);
        assert_eq!(batch_tasks(few, 3), 41_667);
        assert_eq!(batch_tasks(many, 1), BATCH_TASKS);
        assert_eq!(batch_tasks(huge, 4), BATCH_TASKS);
        assert_eq!(batch_tasks(Cut::default(), 1), 1);
    }
}
