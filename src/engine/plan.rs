//! The plan: the ordered, numbered list of work units that together cover a board's search.
//!
//! Without symmetry or with the mirror reduction, placing queens in the first `k` rows (the split depth) in
//! every admissible way gives the units. With the full reduction, a unit is a canonical border placement
//! ([`crate::engine::border`]), split further by placing the queens of rows `1..=k`. The plan lists units in a fixed
//! order, so the same request gives the same numbered plan on any machine and any thread count; executors may
//! run the units in any order and on any thread, and the counts add up to the same total.
//!
//! A unit holds its queens and weight inline ([`Prefix`], [`Group`]): the plan of n = 18 for 16 threads has 1.6
//! million units, and one heap allocation each once made up most of its planning time.

use crate::engine::board::Board;
use crate::engine::border::{self, Border, Group, Transform};
use crate::engine::count::Count;
use crate::engine::kernel::{self, Frame, Masks, Start, Tally};
use crate::engine::symmetry::{Admission, Symmetry};
use rayon::prelude::*;
use std::fmt;
use std::ops::Deref;

/// How many work units an automatic split aims for, per worker thread: enough that the last units to finish
/// are small against the whole run, so threads do not wait idle at the end. Each worker keeps 16 to 32 units in
/// flight (the kernel's lanes), and those finish at a lower rate as the lanes empty, so this is large: measured
/// on n = 16 with 2 threads and the AVX-512 loop, 1,118 units took 0.35 to 0.36 s, 9,844 units 0.33 s.
pub const UNITS_PER_THREAD: usize = 4096;

/// The same for the full symmetry mode, whose units (border placements) differ far more in size. Once (an early
/// loop, n = 17 on 1 thread) 4,319 units took 31.1 s, 31,532 took 22.6 s and 181,005 took 19.1 s, and this was
/// 32,768. Today each unit costs some 3,500 instructions outside the loop, and fewer units cost fewer in all
/// (n = 16 on 1 thread, AVX2: 8.59, 8.65, 8.95 and 10.04 billion at depths 0 to 3), while the 16 threads of a
/// 16-core Xeon counted n = 18 in 1.38 s with 302,517 units against 1.55 to 1.60 s with 1,586,945
/// (results/scaling.md). At 16,384, 16 threads take the first of those at n = 18.
pub const FULL_UNITS_PER_THREAD: usize = 16 * 1024;

/// The most units a plan may have: a split depth asked for that gives more is refused, and the automatic split
/// stops short of it. Deeper splits make nothing faster (4 million units give each of 128 threads its 32,768)
/// and cost 64 bytes of memory a unit and the time to build them: n = 16 at depth 10 would be 80 million units
/// and 5 GB, and the automatic split for 4,096 threads of n = 18 asked 206 million (13 GB).
pub const MAX_UNITS: usize = 1 << 22;

/// The deepest split a plan makes: a unit's queens are held inline, at most [`Prefix::CAPACITY`] of them (the
/// full mode's top queen and one a row below it). Deeper splits are of boards wider than 32 squares, and give
/// more units than any memory holds: the plan of such a board at depth 31 would list every placement of 31
/// non-attacking queens.
pub const MAX_DEPTH: u32 = Prefix::CAPACITY as u32 - 1;

// The full mode's deepest unit, its top queen and a queen on each of the `MAX_DEPTH` rows below it, fits a prefix.
const _: () = assert!((MAX_DEPTH as usize) < Prefix::CAPACITY);

/// How deep the plan places queens before handing the rest to the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// The shallowest depth that gives at least [`UNITS_PER_THREAD`] units per thread.
    Auto {
        /// Worker threads the plan will be run on.
        threads: usize,
    },
    /// The shallowest depth that gives at least this many units, whatever runs them: the split of resumable and
    /// sharded runs, whose plan must not depend on the threads of the machine that happens to run it.
    Units(usize),
    /// The automatic split for `threads`, but no deeper than `depth` rows: the split of a GPU run, whose host
    /// does work for each unit (its start, its table, its tasks) and whose batches need no more of them.
    AutoWithin {
        /// Worker threads the plan will be run on.
        threads: usize,
        /// The deepest split it may take.
        depth: u32,
    },
    /// Exactly this many rows: from the top for `none` and `mirror` (at least as many as the symmetry needs to
    /// decide), below the top row for `full`; at most the board's lines and [`MAX_DEPTH`].
    Depth(u32),
}

impl Split {
    /// The split of a run that is checkpointed or sharded, chosen from the symmetry alone: a fixed number of
    /// units, whatever the thread count. A journal line per unit stays small against the unit (n = 17 in the
    /// full mode: 181,005 units of about 0.1 ms each on one core), and a plan does not change with the machine,
    /// so every shard of a run and every resume of a journal agree on it.
    pub fn durable(symmetry: Symmetry) -> Split {
        // Fixed numbers, not the automatic split's: a journal written by an earlier version must keep its plan.
        Split::Units(match symmetry {
            Symmetry::Full => 65_536,
            _ => 2_048,
        })
    }
}

/// The units an automatic split aims for, per worker thread, in this symmetry mode.
fn units_per_thread(symmetry: Symmetry) -> usize {
    match symmetry {
        Symmetry::Full => FULL_UNITS_PER_THREAD,
        _ => UNITS_PER_THREAD,
    }
}

/// What each solution found in a unit is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weight {
    /// Every solution counts `total` times in the total and `unique` times in the unique count.
    Plain {
        /// Solutions each completion stands for.
        total: u32,
        /// Unique solutions each completion stands for (0 where unique solutions are not counted).
        unique: u32,
    },
    /// The unit is fixed by these symmetries (a subgroup, the identity included): its solutions are enumerated
    /// and its unique solutions counted with Burnside's lemma.
    Burnside(Group),
}

/// The queens a unit places: the column of the queen in each of the first rows, held inline so that a plan of
/// millions of units makes no allocation per unit. It reads as a slice (`&prefix[..]`, `prefix.len()`).
#[derive(Clone, Copy)]
pub struct Prefix {
    len: u8,
    queens: [u8; Prefix::CAPACITY],
}

impl Prefix {
    /// The most queens a prefix holds: the rows of a split at [`MAX_DEPTH`].
    pub const CAPACITY: usize = 32;

    /// The empty prefix.
    pub const fn new() -> Prefix {
        Prefix {
            len: 0,
            queens: [0; Prefix::CAPACITY],
        }
    }

    /// Appends a queen.
    ///
    /// # Panics
    /// If the prefix is full: plans never split deeper than [`MAX_DEPTH`], so none of theirs is.
    pub fn push(&mut self, column: u8) {
        self.queens[usize::from(self.len)] = column;
        self.len += 1;
    }

    /// The prefix of a border unit before any row below the top: the top queen.
    fn top(border: Border) -> Prefix {
        let mut prefix = Prefix::new();
        prefix.push(border.top);
        prefix
    }

    /// Removes the last queen.
    pub fn pop(&mut self) -> Option<u8> {
        self.len = self.len.checked_sub(1)?;
        Some(self.queens[usize::from(self.len)])
    }
}

impl Default for Prefix {
    fn default() -> Prefix {
        Prefix::new()
    }
}

impl Deref for Prefix {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.queens[..usize::from(self.len)]
    }
}

impl<'a> IntoIterator for &'a Prefix {
    type Item = &'a u8;
    type IntoIter = std::slice::Iter<'a, u8>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl AsRef<[u8]> for Prefix {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// The prefix of these queens, if there are at most [`Prefix::CAPACITY`] of them.
impl TryFrom<&[u8]> for Prefix {
    type Error = TooDeep;
    fn try_from(queens: &[u8]) -> Result<Prefix, TooDeep> {
        let mut prefix = Prefix::new();
        prefix
            .queens
            .get_mut(..queens.len())
            .ok_or(TooDeep(queens.len()))?
            .copy_from_slice(queens);
        prefix.len = queens.len() as u8;
        Ok(prefix)
    }
}

/// More queens than a [`Prefix`] holds (the number of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} queens: a work unit places at most {max}", max = Prefix::CAPACITY)]
pub struct TooDeep(pub usize);

impl fmt::Debug for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq for Prefix {
    fn eq(&self, other: &Prefix) -> bool {
        **self == **other
    }
}

impl Eq for Prefix {}

impl PartialEq<[u8]> for Prefix {
    fn eq(&self, other: &[u8]) -> bool {
        **self == *other
    }
}

impl<const N: usize> PartialEq<[u8; N]> for Prefix {
    fn eq(&self, other: &[u8; N]) -> bool {
        **self == *other
    }
}

impl PartialOrd for Prefix {
    fn partial_cmp(&self, other: &Prefix) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Lexicographic, as the slices: the order of a plan's row-prefix units.
impl Ord for Prefix {
    fn cmp(&self, other: &Prefix) -> std::cmp::Ordering {
        (**self).cmp(&**other)
    }
}

impl std::hash::Hash for Prefix {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

/// One independent piece of the search: a partial placement and what each of its completions is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkUnit {
    /// The unit's number in its plan, from 0.
    pub index: usize,
    /// The border placement of a full-symmetry unit.
    pub border: Option<Border>,
    /// The column of the queen in each of the first rows (for a border unit, from row 0, the top queen).
    pub prefix: Prefix,
    /// What each solution is worth.
    pub weight: Weight,
}

impl WorkUnit {
    /// The place of a unit in a list before the unit is written there.
    const UNWRITTEN: WorkUnit = WorkUnit {
        index: 0,
        border: None,
        prefix: Prefix::new(),
        weight: Weight::Plain {
            total: 0,
            unique: 0,
        },
    };
}

/// Calls `unit` with the prefix of every unit of a border's search at split depth `depth` that starts with
/// `prefix` (the top queen, then rows `1..`), in lexicographic order.
fn border_prefixes(
    depth: u32,
    frame: &Frame,
    masks: Masks,
    prefix: &mut Prefix,
    unit: &mut impl FnMut(&Prefix),
) {
    let row = prefix.len() as u32;
    if row > depth || row >= frame.end {
        unit(prefix);
        return;
    }
    let mut free = frame.free(row, masks);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        prefix.push(bit.trailing_zeros() as u8);
        border_prefixes(depth, frame, masks.place(bit), prefix, unit);
        prefix.pop();
    }
}

/// The number of units of border `b` in the full-symmetry plan at split depth `depth`, found without building
/// them, and the border's stabiliser (a border fixed by more than the identity is one unit).
fn border_units(n: u32, b: Border, depth: u32) -> (usize, Group) {
    fn below(depth: u32, frame: &Frame, masks: Masks, row: u32) -> usize {
        if row > depth || row >= frame.end {
            return 1;
        }
        let mut free = frame.free(row, masks);
        let mut units = 0;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            units += below(depth, frame, masks.place(bit), row + 1);
        }
        units
    }
    let stabiliser = b.stabiliser(n);
    if stabiliser.len() > 1 {
        (1, stabiliser)
    } else {
        let (frame, masks) = b.frame(n);
        (below(depth, &frame, masks, 1), stabiliser)
    }
}

/// Writes the units of border `b`, whose stabiliser is `stabiliser`, in the full-symmetry plan at split depth
/// `depth` into `slots`, numbered from `first`.
///
/// # Panics
/// If `slots` does not hold exactly the border's units ([`border_units`] counts them).
fn write_border(
    n: u32,
    depth: u32,
    (b, stabiliser): (Border, Group),
    first: usize,
    slots: &mut [WorkUnit],
) {
    let mut units = slots.iter_mut().zip(first..);
    let mut write = |prefix: &Prefix, weight: Weight| {
        let (slot, index) = units.next().expect("no more units than counted");
        *slot = WorkUnit {
            index,
            border: Some(b),
            prefix: *prefix,
            weight,
        };
    };
    if stabiliser.len() > 1 {
        write(&Prefix::top(b), Weight::Burnside(stabiliser));
    } else {
        let (frame, masks) = b.frame(n);
        let weight = Weight::Plain {
            total: 8,
            unique: 1,
        };
        border_prefixes(depth, &frame, masks, &mut Prefix::top(b), &mut |prefix| {
            write(prefix, weight)
        });
    }
    assert!(units.next().is_none(), "no fewer units than counted");
}

/// The number of units of the full-symmetry plan over `borders` at split depth `depth`, found without building
/// them.
fn border_units_at(n: u32, borders: &[Border], depth: u32) -> usize {
    borders
        .par_iter()
        .map(|&b| border_units(n, b, depth).0)
        .sum()
}

/// Adds to `units` the units below row `row` of a border's search at split depth `depth`, stopping once they
/// pass `cap`.
fn below_capped(depth: u32, frame: &Frame, masks: Masks, row: u32, units: &mut usize, cap: usize) {
    if row > depth || row >= frame.end {
        *units += 1;
        return;
    }
    let mut free = frame.free(row, masks);
    while free != 0 && *units <= cap {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        below_capped(depth, frame, masks.place(bit), row + 1, units, cap);
    }
}

/// Calls `unit` with the prefix and weight of every row-prefix unit at or below `prefix`, in lexicographic
/// order, while it returns true; returns false once it has said stop.
fn walk_rows(
    board: Board,
    symmetry: Symmetry,
    depth: u32,
    prefix: &mut Prefix,
    unit: &mut dyn FnMut(&Prefix, u32) -> bool,
) -> bool {
    let (n, lines) = (board.width(), board.lines());
    match symmetry.admit(n, lines, prefix) {
        Admission::No => return true,
        Admission::Yes { weight } if prefix.len() >= depth as usize => return unit(prefix, weight),
        _ if prefix.len() == lines as usize => return true,
        _ => {}
    }
    let Some(masks) = board.masks_after(prefix) else {
        return true;
    };
    let mut free = masks.free(kernel::full_mask(n));
    while free != 0 {
        prefix.push(free.trailing_zeros() as u8);
        let go_on = walk_rows(board, symmetry, depth, prefix, unit);
        prefix.pop();
        if !go_on {
            return false;
        }
        free &= free - 1;
    }
    true
}

/// `count` units in words, `1 unit` or `5 units`, for the messages that say a plan's or a journal's units:
/// the plans of boards 1 to 4 have one unit, and so may a shard or a `--units` selection.
pub fn unit_words(count: usize) -> String {
    match count {
        1 => "1 unit".into(),
        k => format!("{k} units"),
    }
}

/// Every one of `count` units in words, `all 5 units`, and `the 1 unit` where there is one.
pub fn all_units(count: usize) -> String {
    match count {
        1 => "the 1 unit".into(),
        k => format!("all {k} units"),
    }
}

/// The numbered work units for a board, a symmetry and a split depth.
#[derive(Clone, Debug)]
pub struct Plan {
    board: Board,
    symmetry: Symmetry,
    depth: u32,
    units: Vec<WorkUnit>,
}

impl Plan {
    /// Builds the plan for `board` under `symmetry`, split as `split` says.
    ///
    /// A rectangle has no symmetry that swaps rows and columns, so the full reduction becomes the mirror one
    /// there ([`Plan::symmetry`] says which was used). A board with more columns than rows has no solutions
    /// (two of its queens would share a row) and gets no units.
    pub fn new(board: Board, symmetry: Symmetry, split: Split) -> Plan {
        let symmetry = symmetry.on(board);
        if board.lines() > board.width() {
            return Plan {
                board,
                symmetry,
                depth: 0,
                units: Vec::new(),
            };
        }
        let n = board.lines();
        match split {
            Split::Depth(depth) => Plan::at_depth(board, symmetry, depth.min(n).min(MAX_DEPTH)),
            Split::Auto { threads } => Plan::new(
                board,
                symmetry,
                Split::AutoWithin {
                    threads,
                    depth: MAX_DEPTH,
                },
            ),
            Split::AutoWithin { threads, depth } => {
                let target = threads.max(1).saturating_mul(units_per_thread(symmetry));
                Plan::with_units(board, symmetry, target, depth)
            }
            Split::Units(target) => Plan::with_units(board, symmetry, target, MAX_DEPTH),
        }
    }

    /// The plan of the shallowest depth, at most `deepest`, with at least `target` units: see
    /// [`Plan::depth_for`].
    fn with_units(board: Board, symmetry: Symmetry, target: usize, deepest: u32) -> Plan {
        // Counting the units of each depth is cheaper than building them; build only the one.
        let (symmetry, borders) = Plan::counting(board, symmetry);
        let depth = Plan::depth_for(board, symmetry, &borders, target, MAX_UNITS, deepest);
        match symmetry {
            Symmetry::Full if board.lines() >= 4 => Plan::of_borders(board, depth, &borders),
            _ => Plan::at_depth(board, symmetry, depth),
        }
    }

    /// The shallowest split depth whose plan has at least `target` units, but none whose plan has more than
    /// `cap`: then the deepest within it. No deeper than `deepest`, nor than half the board, where the units
    /// become tiny and numerous. `symmetry` and `borders` are as [`Plan::counting`] gives them.
    fn depth_for(
        board: Board,
        symmetry: Symmetry,
        borders: &[Border],
        target: usize,
        cap: usize,
        deepest: u32,
    ) -> u32 {
        let n = board.lines();
        let deepest = (n / 2).max(1).min(n).min(MAX_DEPTH).min(deepest);
        let units_at = |depth| match symmetry {
            // The borders' units counted in parallel, all of them: a depth past the cap has a few times more.
            Symmetry::Full if n >= 4 => {
                Some(border_units_at(board.n(), borders, depth)).filter(|&units| units <= cap)
            }
            _ => Plan::count_at(board, symmetry, borders, depth, cap),
        };
        let mut depth = 0;
        for d in 0..=deepest {
            let Some(units) = units_at(d) else { break };
            depth = d;
            if units >= target {
                break;
            }
        }
        depth
    }

    fn at_depth(board: Board, symmetry: Symmetry, depth: u32) -> Plan {
        let mut plan = Plan {
            board,
            symmetry,
            depth,
            units: Vec::new(),
        };
        let n = board.n();
        match symmetry {
            // Boards too small for four border lines: one unit, the whole board under all 8 symmetries.
            Symmetry::Full if n < 4 => plan.push(None, Prefix::new(), Weight::Burnside(Group::ALL)),
            Symmetry::Full => return Plan::of_borders(board, depth, &Border::canonical(n)),
            _ => plan.extend_rows(&mut Prefix::new()),
        }
        plan
    }

    /// The full-symmetry plan over `borders` at split depth `depth`. The borders are expanded in parallel (on
    /// rayon's global pool): planning runs before any counting, so its time is not shared by the workers. Each
    /// border's units are counted first, then written in place into their own stretch of the one list: no list
    /// per border to copy and free.
    fn of_borders(board: Board, depth: u32, borders: &[Border]) -> Plan {
        let n = board.n();
        let sizes: Vec<(usize, Group)> = borders
            .par_iter()
            .map(|&b| border_units(n, b, depth))
            .collect();
        let total = sizes.iter().map(|&(size, _)| size).sum();
        let mut units: Vec<WorkUnit> = (0..total)
            .into_par_iter()
            .map(|_| WorkUnit::UNWRITTEN)
            .collect();
        let mut stretches = Vec::with_capacity(borders.len());
        let (mut rest, mut first) = (&mut units[..], 0);
        for &(size, _) in &sizes {
            let (stretch, after) = rest.split_at_mut(size);
            stretches.push((first, stretch));
            (rest, first) = (after, first + size);
        }
        stretches
            .into_par_iter()
            .zip(borders.par_iter().zip(&sizes))
            .for_each(|((first, stretch), (&b, &(_, stabiliser)))| {
                write_border(n, depth, (b, stabiliser), first, stretch)
            });
        Plan {
            board,
            symmetry: Symmetry::Full,
            depth,
            units,
        }
    }

    fn push(&mut self, border: Option<Border>, prefix: Prefix, weight: Weight) {
        self.units.push(WorkUnit {
            index: self.units.len(),
            border,
            prefix,
            weight,
        });
    }

    /// Appends the row-prefix units at or below `prefix`, in lexicographic order.
    fn extend_rows(&mut self, prefix: &mut Prefix) {
        let (board, symmetry, depth) = (self.board, self.symmetry, self.depth);
        walk_rows(board, symmetry, depth, prefix, &mut |prefix, weight| {
            let weight = Weight::Plain {
                total: weight,
                unique: 0,
            };
            self.push(None, *prefix, weight);
            true
        });
    }

    /// Refuses a split `depth` whose plan of `board` under `symmetry` would hold more than [`MAX_UNITS`]
    /// units ([`crate::Error::TooManyUnits`], naming the depths that can be used): such a plan would take the
    /// memory of billions of units to build and count no faster. A depth deeper than the board is the board's
    /// own depth, as in [`Split::Depth`]. Quick whatever the depth: no plan is built.
    pub fn check_depth(board: Board, symmetry: Symmetry, asked: u32) -> Result<(), crate::Error> {
        let depth = asked.min(board.lines()).min(MAX_DEPTH);
        // The counts of every depth up to the one asked, stopping at the first over the limit.
        let counts = Plan::units_by_depth(board, symmetry, depth, MAX_UNITS);
        if counts.len() > depth as usize {
            return Ok(());
        }
        let deepest = counts.len().saturating_sub(1);
        Err(crate::Error::TooManyUnits {
            // The depth as asked: the plan would be split as deep as the board and the limit allow.
            depth: asked,
            limit: MAX_UNITS,
            deepest: deepest as u32,
            units_at_deepest: counts.last().copied().unwrap_or(0),
        })
    }

    /// How many units the plans of `board` under `symmetry` have at split depths 0, 1, … up to `deepest`,
    /// found without building them, as far as they stay within `cap` units: the list ends early at the first
    /// depth that would have more (the count stops there, so this is quick whatever the depth asked).
    pub fn units_by_depth(
        board: Board,
        symmetry: Symmetry,
        deepest: u32,
        cap: usize,
    ) -> Vec<usize> {
        let (symmetry, borders) = Plan::counting(board, symmetry);
        let mut counts = Vec::new();
        for depth in 0..=deepest.min(board.lines()).min(MAX_DEPTH) {
            match Plan::count_at(board, symmetry, &borders, depth, cap) {
                Some(units) => counts.push(units),
                None => break,
            }
        }
        counts
    }

    /// How many units the plan of `board` under `symmetry` at split depth `depth` has, found without building
    /// them; `None` if more than `cap` (the count stops there).
    pub fn units_at(board: Board, symmetry: Symmetry, depth: u32, cap: usize) -> Option<usize> {
        let (symmetry, borders) = Plan::counting(board, symmetry);
        let depth = depth.min(board.lines()).min(MAX_DEPTH);
        Plan::count_at(board, symmetry, &borders, depth, cap)
    }

    /// The symmetry a plan of `board` uses, and its canonical borders where it has them: listed once for all
    /// depths, since for large boards that is the slow part.
    fn counting(board: Board, symmetry: Symmetry) -> (Symmetry, Vec<Border>) {
        let symmetry = symmetry.on(board);
        let borders = match symmetry {
            Symmetry::Full if board.n() >= 4 && board.lines() <= board.width() => {
                Border::canonical(board.n())
            }
            _ => Vec::new(),
        };
        (symmetry, borders)
    }

    fn count_at(
        board: Board,
        symmetry: Symmetry,
        borders: &[Border],
        depth: u32,
        cap: usize,
    ) -> Option<usize> {
        if board.lines() > board.width() {
            return Some(0);
        }
        let n = board.n();
        let mut units = 0usize;
        match symmetry {
            Symmetry::Full if n < 4 => units = 1,
            Symmetry::Full => {
                for b in borders {
                    if b.stabiliser(n).len() > 1 {
                        units += 1;
                    } else {
                        let (frame, masks) = b.frame(n);
                        below_capped(depth, &frame, masks, 1, &mut units, cap);
                    }
                    if units > cap {
                        break;
                    }
                }
            }
            _ => {
                walk_rows(board, symmetry, depth, &mut Prefix::new(), &mut |_, _| {
                    units += 1;
                    units <= cap
                });
            }
        }
        (units <= cap).then_some(units)
    }

    /// The board searched.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The symmetry reduction used.
    pub fn symmetry(&self) -> Symmetry {
        self.symmetry
    }

    /// The split depth: rows placed by the plan before the kernel takes over (the mirror reduction may place
    /// one more in some units to decide their admission; the full reduction places them below the top row).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The work units, numbered from 0 in order.
    pub fn units(&self) -> &[WorkUnit] {
        &self.units
    }

    /// The kernel's view of a unit: its next row, masks and constraints; `None` for a unit whose solutions
    /// must be enumerated one by one ([`Weight::Burnside`]).
    pub fn start(&self, unit: &WorkUnit) -> Option<Start> {
        if let Weight::Burnside(_) = unit.weight {
            return None;
        }
        let (frame, base) = self.frame_of(unit.border);
        Some(Start {
            row: unit.prefix.len() as u32,
            masks: self.masks_of(unit, base),
            frame,
        })
    }

    /// The frame of the units of `border` (or of a plan without borders), and the masks its pre-placed queens
    /// leave before a unit's prefix.
    fn frame_of(&self, border: Option<Border>) -> (Frame, Masks) {
        match border {
            Some(b) => b.frame(self.board.n()),
            None => (
                Frame::rect(self.board.n(), self.board.lines()),
                Masks::default(),
            ),
        }
    }

    /// The masks `unit`'s queens leave for its next row, from `base`, its frame's ([`Plan::frame_of`]).
    fn masks_of(&self, unit: &WorkUnit, base: Masks) -> Masks {
        match unit.border {
            Some(_) => unit.prefix[1..]
                .iter()
                .fold(base, |m, &c| m.place(1u64 << c)),
            None => self
                .board
                .masks_after(&unit.prefix)
                .expect("plan units are valid placements by construction"),
        }
    }

    /// The count of a unit whose kernel tally is `tally`.
    pub fn weigh(&self, unit: &WorkUnit, tally: Tally) -> Count {
        match unit.weight {
            Weight::Plain { total, unique } => Count::of_unit(tally, total, unique),
            Weight::Burnside(_) => unreachable!("Burnside units are counted by enumeration"),
        }
    }

    /// The starts of a whole border (one fixed by a symmetry: the plan keeps it as one unit), split like the plan
    /// splits the others, its rows 1 to 3 placed in every way, so that every lane (or GPU thread) has a start.
    fn border_starts(&self, border: Border) -> Vec<Start> {
        let (frame, masks) = border.frame(self.board.n());
        let mut starts = Vec::new();
        border_prefixes(3, &frame, masks, &mut Prefix::top(border), &mut |prefix| {
            let unit = WorkUnit {
                border: Some(border),
                prefix: *prefix,
                ..WorkUnit::UNWRITTEN
            };
            starts.push(self.start(&unit).expect("border units have starts"));
        });
        starts
    }

    /// What a unit counted by Burnside's lemma ([`Weight::Burnside`]) needs besides its solutions: the starts
    /// whose solutions (by any kernel: the CPU's or the GPU's) are its solutions, and the solutions fixed by each
    /// symmetry of its group other than the identity, summed (by a search of symmetric ones). `None` for other
    /// units, and for the whole board below 4 lines, which is enumerated.
    pub fn burnside_parts(&self, unit: &WorkUnit) -> Option<BurnsideParts> {
        let (Weight::Burnside(group), Some(border)) = (unit.weight, unit.border) else {
            return None;
        };
        let n = self.board.n();
        Some(BurnsideParts {
            starts: self.border_starts(border),
            fixed_by_others: group
                .iter()
                .filter(|&g| g != Transform(0))
                .map(|g| u128::from(border.count_fixed(n, g)))
                .sum(),
            order: group.len() as u128,
        })
    }

    /// Counts one unit: a pure function of the unit.
    pub fn count_unit(&self, unit: &WorkUnit) -> Count {
        let n = self.board.n();
        match (unit.weight, self.start(unit)) {
            (_, Some(start)) => self.weigh(unit, kernel::count_start(n, start)),
            (Weight::Burnside(group), None) => match self.burnside_parts(unit) {
                // The solutions by the kernel, those each symmetry fixes by a search of symmetric ones.
                Some(mut parts) => {
                    let mut next = std::mem::take(&mut parts.starts).into_iter();
                    let mut solutions = 0u128;
                    kernel::count_stream(
                        n,
                        || Some(((), next.next()?)),
                        |(), tally| solutions += u128::from(tally.solutions),
                    );
                    parts.count(solutions)
                }
                // A board below 4, whole: enumerated.
                None => {
                    let (mut solutions, mut fixed) = (0u128, 0u128);
                    border::open_solutions(n, |queens| {
                        solutions += 1;
                        fixed += group
                            .iter()
                            .filter(|&g| border::is_fixed(n, queens, g))
                            .count() as u128;
                    });
                    BurnsideParts {
                        starts: Vec::new(),
                        fixed_by_others: fixed - solutions,
                        order: group.len() as u128,
                    }
                    .count(solutions)
                }
            },
            (Weight::Plain { .. }, None) => unreachable!("plain units always have a start"),
        }
    }
}

/// A unit counted by Burnside's lemma, but for its solutions: see [`Plan::burnside_parts`].
#[derive(Clone, Debug)]
pub struct BurnsideParts {
    /// The starts whose solutions, summed, are the unit's solutions.
    pub starts: Vec<Start>,
    /// The solutions fixed by each symmetry of the unit's group but the identity, summed.
    pub fixed_by_others: u128,
    /// The order of the unit's group.
    pub order: u128,
}

impl BurnsideParts {
    /// The unit's count, given its `solutions`: each class of solutions is counted by the average number of
    /// them each symmetry of the group fixes (the identity fixes all), and each solution stands for the `8 /
    /// order` that the symmetries outside the group make of it.
    pub fn count(&self, solutions: u128) -> Count {
        Count {
            total: solutions * (8 / self.order),
            unique: (solutions + self.fixed_by_others) / self.order,
            // No nodes, as when these units were all enumerated: journals of earlier versions record them so,
            // and a merge takes two different copies of a unit for a fault.
            nodes: 0,
            units: 1,
            uncounted: 0,
        }
    }
}

/// The starts of units taken in turn, as [`Plan::start`] gives them, with each frame worked out once for the
/// units that share it and come one after another: a border's units do, and a plan without borders has one
/// frame. (The GPU's cut takes every unit's start twice; working out a border's frame and moving it, about
/// 1 KiB, took a fifth of the cut of n = 19.)
#[derive(Debug)]
pub struct Starts<'p> {
    plan: &'p Plan,
    /// The last unit's border, that border's masks before the unit's prefix, and the last start.
    kept: Option<(Option<Border>, Masks, Start)>,
}

impl<'p> Starts<'p> {
    /// Starts of `plan`'s units, none worked out yet.
    pub fn new(plan: &'p Plan) -> Self {
        Starts { plan, kept: None }
    }

    /// `unit`'s start: [`Plan::start`]'s.
    pub fn start(&mut self, unit: &WorkUnit) -> Option<&Start> {
        if let Weight::Burnside(_) = unit.weight {
            return None;
        }
        let plan = self.plan;
        let same = matches!(&self.kept, Some((border, _, _)) if *border == unit.border);
        let (_, base, start) = if same {
            self.kept.as_mut().expect("a start is kept")
        } else {
            let (frame, base) = plan.frame_of(unit.border);
            let start = Start {
                row: 0,
                masks: base,
                frame,
            };
            self.kept.insert((unit.border, base, start))
        };
        start.row = unit.prefix.len() as u32;
        start.masks = plan.masks_of(unit, *base);
        Some(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_said_in_the_singular_for_one() {
        assert_eq!(unit_words(0), "0 units");
        assert_eq!(unit_words(1), "1 unit");
        assert_eq!(unit_words(4), "4 units");
        assert_eq!(all_units(1), "the 1 unit");
        assert_eq!(all_units(25), "all 25 units");
    }

    fn plan(n: u32, symmetry: Symmetry, depth: u32) -> Plan {
        Plan::new(Board::new(n).unwrap(), symmetry, Split::Depth(depth))
    }

    #[test]
    fn starts_taken_in_turn_are_the_plans_in_any_order() {
        for (n, symmetry, depth) in [
            (9, Symmetry::Full, 2),
            (10, Symmetry::Full, 3),
            (9, Symmetry::Mirror, 2),
            (8, Symmetry::None, 3),
        ] {
            let p = plan(n, symmetry, depth);
            let mut starts = Starts::new(&p);
            // In order (a border's units together), then every third unit, then backwards.
            let units = p.units();
            let order = (0..units.len())
                .chain((0..units.len()).step_by(3))
                .chain((0..units.len()).rev());
            for i in order {
                assert_eq!(
                    starts.start(&units[i]).cloned(),
                    p.start(&units[i]),
                    "unit {i}"
                );
            }
        }
    }

    #[test]
    fn units_are_numbered_in_lexicographic_order() {
        let p = plan(6, Symmetry::None, 2);
        let prefixes: Vec<_> = p.units().iter().map(|u| u.prefix).collect();
        let mut sorted = prefixes.clone();
        sorted.sort();
        assert_eq!(prefixes, sorted);
        assert!(p.units().iter().enumerate().all(|(i, u)| u.index == i));
        // A corner queen in the first row leaves 4 columns free in the second, any other queen 3.
        assert_eq!(p.units().len(), 2 * 4 + 4 * 3);
    }

    #[test]
    fn mirror_places_a_second_row_after_a_middle_queen() {
        let p = plan(5, Symmetry::Mirror, 1);
        let prefixes: Vec<_> = p.units().iter().map(|u| u.prefix.to_vec()).collect();
        assert_eq!(prefixes, vec![vec![0], vec![1], vec![2, 0]]);
        assert!(p.units().iter().all(|u| u.weight
            == Weight::Plain {
                total: 2,
                unique: 0
            }));
    }

    #[test]
    fn automatic_split_gives_every_thread_many_units() {
        for symmetry in Symmetry::ALL {
            let p = Plan::new(
                Board::new(16).unwrap(),
                symmetry,
                Split::Auto { threads: 4 },
            );
            assert!(
                p.units().len() >= 4 * UNITS_PER_THREAD,
                "{symmetry}: {} units",
                p.units().len()
            );
        }
    }

    #[test]
    fn a_split_takes_the_first_depth_with_enough_units_within_the_cap() {
        for symmetry in Symmetry::ALL {
            let board = Board::new(11).unwrap();
            let counts = Plan::units_by_depth(board, symmetry, 5, usize::MAX);
            let (symmetry, borders) = Plan::counting(board, symmetry);
            let depth =
                |target, cap| Plan::depth_for(board, symmetry, &borders, target, cap, MAX_DEPTH);
            assert_eq!(depth(counts[2], usize::MAX), 2, "{symmetry}: {counts:?}");
            assert_eq!(
                depth(counts[2] + 1, usize::MAX),
                3,
                "{symmetry}: {counts:?}"
            );
            // More than any depth gives: the deepest, half the board.
            assert_eq!(depth(usize::MAX, usize::MAX), 5, "{symmetry}: {counts:?}");
            // The cap binds: the deepest depth within it, however many units were asked.
            assert_eq!(depth(usize::MAX, counts[3]), 3, "{symmetry}: {counts:?}");
            assert_eq!(
                depth(usize::MAX, counts[3] - 1),
                2,
                "{symmetry}: {counts:?}"
            );
            assert_eq!(depth(counts[4], counts[3]), 3, "{symmetry}: {counts:?}");
        }
    }

    #[test]
    fn the_automatic_split_for_thousands_of_threads_stays_within_the_cap() {
        // 4,096 threads of n = 15 ask 134 million units; depth 7 would give more than the cap, depth 6 3 million.
        let board = Board::new(15).unwrap();
        let (symmetry, borders) = Plan::counting(board, Symmetry::Full);
        let target = 4096 * FULL_UNITS_PER_THREAD;
        assert_eq!(
            Plan::depth_for(board, symmetry, &borders, target, MAX_UNITS, MAX_DEPTH),
            6
        );
        assert!(Plan::units_at(board, symmetry, 6, MAX_UNITS).is_some());
        assert_eq!(Plan::units_at(board, symmetry, 7, MAX_UNITS), None);
    }

    #[test]
    fn a_split_by_units_takes_the_shallowest_depth_that_gives_them() {
        for symmetry in Symmetry::ALL {
            for n in [1, 2, 3, 4, 7, 10] {
                let board = Board::new(n).unwrap();
                let counts = Plan::units_by_depth(board, symmetry, n / 2, usize::MAX);
                let targets = [0, 1]
                    .into_iter()
                    .chain(counts.iter().flat_map(|&c| [c, c + 1]));
                for target in targets.filter(|&t| t <= *counts.last().unwrap()) {
                    let shallowest = counts.iter().position(|&c| c >= target).unwrap();
                    let p = Plan::new(board, symmetry, Split::Units(target));
                    assert_eq!(
                        (p.depth() as usize, p.units().len()),
                        (shallowest, counts[shallowest]),
                        "n = {n}, {symmetry}, {target} units: {counts:?}"
                    );
                    assert_eq!(p.symmetry(), symmetry);
                }
            }
        }
    }

    #[test]
    fn the_automatic_split_aims_at_the_units_per_thread_of_its_mode() {
        // On n = 12 one thread's aim is met at depth 5 in the none and mirror modes and in the full mode, which
        // aims higher: the full mode's plans reach 4,096 units at depth 2 already.
        let board = Board::new(12).unwrap();
        for symmetry in Symmetry::ALL {
            let aim = match symmetry {
                Symmetry::Full => FULL_UNITS_PER_THREAD,
                _ => UNITS_PER_THREAD,
            };
            let counts = Plan::units_by_depth(board, symmetry, 6, usize::MAX);
            let shallowest = counts
                .iter()
                .position(|&c| c >= aim)
                .expect("within half the board");
            let p = Plan::new(board, symmetry, Split::Auto { threads: 1 });
            assert_eq!(p.depth() as usize, shallowest, "{symmetry}: {counts:?}");
            assert_eq!(
                p.units().len(),
                counts[shallowest],
                "{symmetry}: {counts:?}"
            );
        }
    }

    #[test]
    fn units_by_depth_counts_the_plans_without_building_them() {
        for symmetry in Symmetry::ALL {
            for (n, depth) in [(1, 0), (3, 1), (4, 2), (8, 2), (10, 3), (11, 4), (9, 9)] {
                let board = Board::new(n).unwrap();
                let built = Plan::new(board, symmetry, Split::Depth(depth))
                    .units()
                    .len();
                let counts = Plan::units_by_depth(board, symmetry, depth, usize::MAX);
                assert_eq!(counts.len(), depth.min(n) as usize + 1);
                assert_eq!(
                    counts.last(),
                    Some(&built),
                    "n = {n}, {symmetry}, depth {depth}"
                );
                assert_eq!(Plan::units_at(board, symmetry, depth, built), Some(built));
                if built > 1 {
                    assert_eq!(Plan::units_at(board, symmetry, depth, built - 1), None);
                    let capped = Plan::units_by_depth(board, symmetry, depth, built - 1);
                    assert!(capped.len() <= depth as usize, "{capped:?}");
                }
            }
        }
        let rect = Board::rect(9, 7).unwrap();
        assert_eq!(
            Plan::units_by_depth(rect, Symmetry::Full, 3, usize::MAX).last(),
            Some(
                &Plan::new(rect, Symmetry::Full, Split::Depth(3))
                    .units()
                    .len()
            )
        );
    }

    #[test]
    fn the_automatic_split_within_a_depth_stops_there_and_is_the_automatic_one_above_it() {
        let board = Board::new(14).unwrap();
        for symmetry in [Symmetry::Full, Symmetry::Mirror, Symmetry::None] {
            let auto = Plan::new(board, symmetry, Split::Auto { threads: 2 });
            assert!(auto.depth() >= 2, "{symmetry}: {}", auto.depth());
            let within =
                |depth| Plan::new(board, symmetry, Split::AutoWithin { threads: 2, depth });
            assert_eq!(within(1).depth(), 1, "{symmetry}");
            let above = within(auto.depth() + 1);
            assert_eq!(above.depth(), auto.depth(), "{symmetry}");
            assert_eq!(above.units().len(), auto.units().len(), "{symmetry}");
        }
    }

    #[test]
    fn split_depth_beyond_the_board_is_the_board() {
        let p = plan(4, Symmetry::None, 9);
        assert_eq!(p.depth(), 4);
        assert_eq!(
            p.units().len(),
            2,
            "the two solutions of n = 4 as complete units"
        );
    }

    #[test]
    fn full_units_are_canonical_borders() {
        let p = plan(8, Symmetry::Full, 0);
        assert!(!p.units().is_empty());
        for u in p.units() {
            let b = u.border.expect("full units have borders");
            assert!(b.is_canonical(8));
            assert_eq!(u.prefix, [b.top]);
        }
    }

    #[test]
    fn a_prefix_reads_as_the_slice_of_its_queens() {
        let mut prefix = Prefix::new();
        for c in [3, 0, 4] {
            prefix.push(c);
        }
        assert_eq!(prefix, [3, 0, 4]);
        assert_eq!(format!("{prefix:?}"), "[3, 0, 4]");
        assert_eq!(prefix.pop(), Some(4));
        assert_eq!(Prefix::try_from(&[3, 0][..]), Ok(prefix));
        // Equal as its queens, and only as its queens: as a prefix, a slice and an array.
        let other = Prefix::try_from(&[3, 1][..]).unwrap();
        assert!(prefix != other && prefix != [3, 1] && prefix != [3]);
        assert!(prefix == [3u8, 0][..] && prefix != [3u8, 1][..] && prefix != [3u8, 0, 4][..]);
        assert!(Prefix::try_from(&[3, 1][..]).unwrap() > prefix);
        let too_many = [0; Prefix::CAPACITY + 1];
        assert_eq!(
            Prefix::try_from(&too_many[..]),
            Err(TooDeep(Prefix::CAPACITY + 1))
        );
        assert_eq!(prefix.as_ref(), [3, 0]);
        assert_eq!((&prefix).into_iter().copied().collect::<Vec<_>>(), [3, 0]);
        let hasher =
            std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default();
        use std::hash::BuildHasher;
        assert_eq!(
            hasher.hash_one(prefix),
            hasher.hash_one(&[3u8, 0][..]),
            "hashes as its queens"
        );
        assert_ne!(
            hasher.hash_one(prefix),
            hasher.hash_one(other),
            "and not as nothing"
        );
    }

    #[test]
    fn the_units_of_a_plan_counted_one_by_one_give_the_published_counts() {
        // Every mode, boards from the empty one up, and splits from none to deeper than the board: the full mode's
        // whole small boards, its border units of every stabiliser and its split border units all weighed.
        for symmetry in Symmetry::ALL {
            for n in 0..=12 {
                let (known_total, known_unique) = crate::engine::published(n);
                for depth in [0, 1, 2, n] {
                    let p = plan(n, symmetry, depth);
                    let count: Count = p.units().iter().map(|u| p.count_unit(u)).sum();
                    let at = format!("n = {n}, {symmetry}, depth {depth}");
                    assert_eq!(count.total, known_total, "{at}");
                    assert_eq!(count.units, p.units().len() as u64, "{at}");
                    // Only the full mode counts unique solutions (none are published for the empty board).
                    match (symmetry, known_unique) {
                        (Symmetry::Full, Some(unique)) => assert_eq!(count.unique, unique, "{at}"),
                        (Symmetry::Full, None) => {}
                        _ => assert_eq!(count.unique, 0, "{at}"),
                    }
                }
            }
        }
    }

    /// Whether two queens, as `(row, column)`, attack each other.
    fn attack((r1, c1): (u32, u32), (r2, c2): (u32, u32)) -> bool {
        r1 == r2 || c1 == c2 || r1.abs_diff(r2) == c1.abs_diff(c2)
    }

    #[test]
    fn full_units_are_numbered_in_order_of_border_then_prefix_and_place_legal_queens() {
        for n in 4..=9 {
            for depth in 0..=3 {
                let p = plan(n, Symmetry::Full, depth);
                let at = format!("n = {n}, depth {depth}");
                assert!(
                    p.units().iter().enumerate().all(|(i, u)| u.index == i),
                    "{at}"
                );
                let keys: Vec<_> = p.units().iter().map(|u| (u.border, u.prefix)).collect();
                assert!(
                    keys.windows(2).all(|w| w[0] < w[1]),
                    "{at}: in order, none twice"
                );
                for u in p.units() {
                    let b = u
                        .border
                        .expect("full units of a board from 4 on have borders");
                    assert!(b.is_canonical(n) && b.is_possible(n), "{at}: {u:?}");
                    assert_eq!(u.prefix.first(), Some(&b.top), "{at}: {u:?}");
                    // The border's queens and the prefix's, one per row, none attacking another.
                    let mut queens = b.queens(n);
                    for (row, &c) in u.prefix.iter().enumerate() {
                        let q = (row as u32, u32::from(c));
                        if !queens.contains(&q) {
                            assert!(queens.iter().all(|&o| !attack(o, q)), "{at}: {u:?}");
                            queens.push(q);
                        }
                    }
                    let stabiliser = b.stabiliser(n);
                    if stabiliser.len() > 1 {
                        assert_eq!(u.weight, Weight::Burnside(stabiliser), "{at}: {u:?}");
                        assert_eq!(u.prefix, [b.top], "{at}: a fixed border is one unit");
                    } else {
                        let plain = Weight::Plain {
                            total: 8,
                            unique: 1,
                        };
                        assert_eq!(u.weight, plain, "{at}: {u:?}");
                        // The top row and the rows 1 to depth, but not the bottom row.
                        assert_eq!(u.prefix.len() as u32, (depth + 1).min(n - 1), "{at}: {u:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_unit_fits_a_cache_line() {
        // The plan of n = 18 for 16 threads holds 1.6 million units; each once took 64 bytes and a heap
        // allocation for its queens.
        assert!(std::mem::size_of::<WorkUnit>() <= 64);
    }
}
