//! What the vector searches share: the lanes' memory, handing lanes their starts, and collecting their counts.
//!
//! A vector search runs one depth-first search in each lane of a SIMD register, so one instruction advances
//! all of them, and no branch depends on any one search. The step loop itself is written once per instruction
//! set ([`super::avx512`], [`super::avx2`]); it runs until a lane finishes its start, then comes back here,
//! where the lane gets its next start.
//!
//! # One word of stack a row
//! The lanes keep the row being filled in registers: its free squares not tried yet, `cols`, `ld` and `rd`.
//! Descending saves one word: the row's free squares *before* the queen was taken from them. Squares are taken
//! lowest first, so that word's lowest bit is the queen placed, and the bits above it are the squares still
//! to try. Going back up, the row's masks are recomputed from the child's by undoing the placement:
//! `cols & !bit`, `(ld >> 1) & !bit`, `(rd << 1) & !bit`. Each shift lost a bit on the way down (bit 31 of
//! `ld`, bit 0 of `rd`); those two bits ride in the same word, in bits 31 and 30, above every square of a board
//! of at most 30 columns. So the stack is one 32-bit word a row, where the scalar loop keeps four 64-bit ones.
//!
//! Every lane writes its word on every step, whether it descends or not: the slot of the row being filled is
//! dead until the lane descends from it, so the store needs no mask.
//!
//! # Rows computed, not read
//! A lane's frame ([`super::Frame`]) says which squares of each row its start allows. The loops do not read
//! it: reading a row per lane is a gather, and it was a quarter of every step. They compute the child row's
//! open squares from the lane's [`Shape`] instead, the rule every frame of the plans follows: the board's
//! squares less the side columns in the full mode, less the diagonals of the bottom queen and of the side
//! queens below, with the side rows holding their queen. That is a dozen register operations: n = 17 on one
//! 2.6 GHz Zen 5 core went from 2.64 to 2.14 s (full) and 3.97 to 3.15 s (mirror) with AVX-512, and from 4.37
//! to 3.80 s (full) with AVX2. A start whose frame has no shape, or one that does not give its rows, goes to
//! the scalar loop, so an arbitrary frame still counts exactly.
//!
//! # One row of look-ahead
//! A child whose queen would leave no square of the board free in the row after the child's cannot lead to a
//! solution, whatever that row's frame: the step does not visit it. The queen of a child on column `c` takes
//! columns `c - 1`, `c` and `c + 1` of the row after (its column and its two diagonals), so the child leads on
//! exactly when the queens above leave that row a square two columns or more from `c`: the row's highest free
//! square at `c + 2` or above, or its lowest at `c - 2` or below. The step keeps those children and descends
//! only if one is left. The nodes it skips (one for each child it does not visit, each of which the search
//! would have placed and found dead) are added with a population count, so every start's node count is
//! exactly that of the search without look-ahead, the scalar loop's, and journals of earlier versions stay
//! valid. The row after the child's is taken one column over (column `j` at bit `j + 1`): then its squares
//! below `c` are its squares above its lowest (`ahead ^ (ahead - 1)`, negated), and those up to `c`'s highest
//! allowed place a constant shifted by the highest's leading zeros (AVX-512CD's count, or on AVX2 the
//! exponent of the row as a float). The test is against the board less the bottom queen's diagonals (two
//! shifts of the lane's shape, in the full mode), not the row's whole frame: reading the frame's row was a
//! third gather a step, which made n = 17 1.4 times slower (full) and 1.5 times (mirror), and computing all of
//! it from the shape, as for the child row, still made n = 17 (full) 7% slower (2.35 against 2.20 s) than the
//! board's test, with the look-ahead of then. That first look-ahead visited no child when the row after the
//! child's had no free square at all (on one core of a 2.6 GHz Zen 5, n = 17, interleaved: full 3.16 -> 2.70 s
//! and mirror 4.93 -> 4.07 s with AVX-512; full 4.55 -> 4.20 s and mirror 7.20 -> 6.44 s with AVX2). Judging
//! the children one by one and the bottom queen's diagonals take a quarter fewer steps in the full mode at
//! n = 16 (65.6% of the nodes rather than 86.9%): n = 17 on one core of a 2-core Xeon in 0.81 to 0.93 of the
//! time (results/kernel-variants.md, 2026-11-28).

// Only the x86-64 loops use this module; elsewhere its board limit alone is read (`VECTOR_MAX_N`).
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

use super::{Shape, Start, Tally};

/// The widest board the vector searches handle: the lanes are 32 bits, and the stack words keep two bits for
/// the shifts.
pub const MAX_N: u32 = 30;

/// The squares in a stack word; the two bits above them are the ones the shifts lost.
pub(super) const SQUARES: u32 = (1 << MAX_N) - 1;

/// Bit 30 of a stack word: bit 0 of the row's `rd`.
pub(super) const RD_LOST: u32 = 1 << 30;

/// Bit 31 of a stack word: bit 31 of the row's `ld`.
pub(super) const LD_LOST: u32 = 1 << 31;

/// Stack slots: row `r` lives at slot `r + 1`, so the slot below a start's row exists; one more for the
/// child of the last row searched.
pub(super) const SLOTS: usize = MAX_N as usize + 2;

/// Steps a step loop may run before it returns to have its 32-bit counters emptied: a lane adds at most 30 to
/// either a step (the squares of the row below; the solutions of a last line of 30 squares), and a start's
/// row gives at most 30 more, so 2^26 steps stay below 2^32. That is a return every tenth of a second or so.
pub(super) const FLUSH_STEPS: u32 = 1 << 26;

/// Memory the lanes index by slot, `[slot][lane]`, so that one gather or scatter reaches every lane's row.
pub(super) struct Memory<const L: usize> {
    /// The stack words (see the module documentation).
    pub stack: [[u32; L]; SLOTS],
    /// The squares of a row of the board: the low `n` bits.
    pub board: u32,
    /// The lanes' shapes' last row (the same for every start of a board).
    pub last: u32,
}

impl<const L: usize> Memory<L> {
    /// Zeroed memory, on the heap (it is tens of kilobytes).
    fn boxed(n: u32) -> Box<Memory<L>> {
        Box::new(Memory {
            stack: [[0; L]; SLOTS],
            board: super::full_mask(n) as u32,
            last: n.saturating_sub(1),
        })
    }
}

/// The lanes' registers, kept in memory while lanes are handed new starts.
#[derive(Clone, Copy)]
pub(super) struct Spill<const L: usize> {
    /// Free squares of the row being filled, not tried yet.
    pub avail: [u32; L],
    /// Masks of the row being filled.
    pub cols: [u32; L],
    pub ld: [u32; L],
    pub rd: [u32; L],
    /// The slot of the row being filled.
    pub slot: [u32; L],
    /// The slot below the start's row: reaching it ends the search.
    pub floor: [u32; L],
    /// The slot of the row before the last: a queen placed there closes the board.
    pub closing: [u32; L],
    /// The lane's [`super::Shape`], from which the step computes its rows' open squares: `base` and `bottom` as
    /// they are; for each side queen, the square it attacks in row 0 counted from its side, as if the board
    /// went on (`1 << left`; `1 << (last - right)`, which row `r` shifts left by `r`), or 0 for none. In its own
    /// row each is its own square.
    pub base: [u32; L],
    pub bottom: [u32; L],
    pub left: [u32; L],
    pub right: [u32; L],
    /// The lanes whose shape closes squares of some row (see [`Spill::shaped`]).
    pub shaped: u64,
    /// Queens placed or skipped (each row's squares, counted by the step that places the queen above them, and
    /// a start's row's when it is loaded) and solutions, since the last emptying.
    pub nodes: [u32; L],
    pub solutions: [u32; L],
    /// Steps before the loop returns to have the counters emptied: [`FLUSH_STEPS`], fewer in tests.
    pub flush: u32,
}

impl<const L: usize> Spill<L> {
    /// Whether any lane of `live` has rows that are not all of the board (a shape with side columns, a bottom
    /// queen or side queens): the loops compute rows only when one has. Kept as a set of lanes when they are
    /// loaded, since the loops ask on every entry, and small units enter them every few hundred steps.
    pub fn shaped(&self, live: u64) -> bool {
        self.shaped & live != 0
    }
}

impl<const L: usize> Default for Spill<L> {
    fn default() -> Spill<L> {
        Spill {
            avail: [0; L],
            cols: [0; L],
            ld: [0; L],
            rd: [0; L],
            slot: [0; L],
            floor: [0; L],
            closing: [0; L],
            base: [0; L],
            bottom: [0; L],
            left: [0; L],
            right: [0; L],
            shaped: 0,
            nodes: [0; L],
            solutions: [0; L],
            flush: FLUSH_STEPS,
        }
    }
}

/// Runs the lanes of `spill` (those whose bit is set in `live`) until at least one finishes its start or the
/// counters need emptying; returns the finished lanes.
pub(super) type StepLoop<const L: usize> = unsafe fn(&mut Spill<L>, &mut Memory<L>, u64) -> u64;

/// [`StepLoop`] that also hands each solution to the callback as it is found: the lane, and the queens of the
/// rows from the lane's start row to the last.
pub(super) type ListLoop<const L: usize> =
    unsafe fn(&mut Spill<L>, &mut Memory<L>, u64, &mut dyn FnMut(usize, &[u8])) -> u64;

/// Hands every solution of every start of `source` to `solution`, with the start's tag and the queens of the
/// rows from the start's row on; a start's solutions come in lexicographic order, and `done` is told when a
/// start has no more. Starts interleave: solutions of different starts arrive mixed.
///
/// # Safety
/// The processor must support the instructions `steps` uses.
pub(super) unsafe fn drive_list<T, const L: usize>(
    n: u32,
    mut source: impl FnMut() -> Option<(T, Start)>,
    mut solution: impl FnMut(&T, &[u8]),
    mut done: impl FnMut(T),
    steps: ListLoop<L>,
) {
    assert!(
        n <= MAX_N,
        "board {n} is outside the vector search's limits"
    );
    let mut memory = Memory::boxed(n);
    let mut spill = Spill::default();
    let mut tags: [Option<T>; L] = std::array::from_fn(|_| None);
    // Gives `lane` its next start that needs a search; settles the others on the way.
    fn next_start<T, const L: usize>(
        n: u32,
        lane: usize,
        spill: &mut Spill<L>,
        source: &mut impl FnMut() -> Option<(T, Start)>,
        solution: &mut impl FnMut(&T, &[u8]),
        done: &mut impl FnMut(T),
    ) -> Option<T> {
        loop {
            let (tag, start) = source()?;
            let shape = vector_shape(n, &start).expect(
                "a listing starts from a placement on the board, under a frame with a shape",
            );
            if load(n, spill, lane, &start, shape) {
                return Some(tag);
            }
            let (row, end) = (start.row, start.frame.end);
            if row == end {
                solution(&tag, &[]);
            } else {
                let mut free = start.frame.free(row, start.masks);
                while free != 0 {
                    solution(&tag, &[free.trailing_zeros() as u8]);
                    free &= free - 1;
                }
            }
            done(tag);
        }
    }
    let mut live = 0u64;
    for (lane, tag) in tags.iter_mut().enumerate() {
        *tag = next_start(n, lane, &mut spill, &mut source, &mut solution, &mut done);
        live |= u64::from(tag.is_some()) << lane;
    }
    while live != 0 {
        let finished = {
            let tags = &tags;
            let mut emit = |lane: usize, queens: &[u8]| {
                solution(tags[lane].as_ref().expect("a live lane has a tag"), queens)
            };
            // SAFETY: the caller vouches for the processor.
            unsafe { steps(&mut spill, &mut memory, live, &mut emit) }
        };
        spill.nodes = [0; L];
        spill.solutions = [0; L];
        for lane in (0..L).filter(|&l| finished & (1 << l) != 0) {
            done(tags[lane].take().expect("a live lane has a tag"));
            tags[lane] = next_start(n, lane, &mut spill, &mut source, &mut solution, &mut done);
            if tags[lane].is_none() {
                live &= !(1 << lane);
            }
        }
    }
}

/// Counts like [`super::count_stream`] on a square board of side `n <= MAX_N`, with `L` lanes advanced by
/// `steps`.
///
/// # Safety
/// The processor must support the instructions `steps` uses.
pub(super) unsafe fn drive<T, const L: usize>(
    n: u32,
    source: impl FnMut() -> Option<(T, Start)>,
    sink: impl FnMut(T, Tally),
    steps: StepLoop<L>,
) {
    // SAFETY: passed on.
    unsafe { drive_flushing(n, source, sink, steps, FLUSH_STEPS) }
}

/// [`drive`], emptying the lanes' counters every `flush` steps at the latest (at most [`FLUSH_STEPS`]).
///
/// # Safety
/// As [`drive`].
pub(super) unsafe fn drive_flushing<T, const L: usize>(
    n: u32,
    mut source: impl FnMut() -> Option<(T, Start)>,
    mut sink: impl FnMut(T, Tally),
    steps: StepLoop<L>,
    flush: u32,
) {
    assert!(
        (1..=FLUSH_STEPS).contains(&flush),
        "counters must be emptied every 1 to {FLUSH_STEPS} steps"
    );
    assert!(
        n <= MAX_N,
        "board {n} is outside the vector search's limits"
    );
    let mut memory = Memory::boxed(n);
    let mut spill = Spill {
        flush,
        ..Spill::default()
    };
    let mut totals = [Tally::default(); L];
    let mut tags: [Option<T>; L] = std::array::from_fn(|_| None);
    let mut live = 0u64;
    for (lane, tag) in tags.iter_mut().enumerate() {
        *tag = assign(n, &mut source, &mut sink, &mut spill, lane);
        live |= u64::from(tag.is_some()) << lane;
    }
    while live != 0 {
        // SAFETY: the caller vouches for the processor.
        let finished = unsafe { steps(&mut spill, &mut memory, live) };
        for (lane, total) in totals.iter_mut().enumerate() {
            let solutions = std::mem::take(&mut spill.solutions[lane]);
            total.nodes += u64::from(std::mem::take(&mut spill.nodes[lane]));
            total.solutions += u64::from(solutions);
        }
        for lane in (0..L).filter(|&l| finished & (1 << l) != 0) {
            let tag = tags[lane].take().expect("a live lane has a tag");
            sink(tag, std::mem::take(&mut totals[lane]));
            tags[lane] = assign(n, &mut source, &mut sink, &mut spill, lane);
            if tags[lane].is_none() {
                live &= !(1 << lane);
            }
        }
    }
}

/// Gives `lane` the next start that needs a search, settling on the way the starts that need none; `None`
/// when the source is dry.
fn assign<T, const L: usize>(
    n: u32,
    source: &mut impl FnMut() -> Option<(T, Start)>,
    sink: &mut impl FnMut(T, Tally),
    spill: &mut Spill<L>,
    lane: usize,
) -> Option<T> {
    loop {
        let (tag, start) = source()?;
        let Some(shape) = vector_shape(n, &start) else {
            // A start the lanes cannot take (see `vector_shape`): the scalar loop counts it.
            sink(
                tag,
                super::count_start_with(super::Kernel::Scalar, n, start),
            );
            continue;
        };
        if load(n, spill, lane, &start, shape) {
            return Some(tag);
        }
        let Start { row, masks, frame } = start;
        let end = frame.end;
        let free = frame.free(row.min(n.saturating_sub(1)), masks);
        // A complete placement is one solution; one line short, each free square of the line is one (a square
        // board's last line has one at most, a rectangle's may have several).
        let solutions = if row == end {
            1
        } else {
            u64::from(free.count_ones())
        };
        let nodes = if row == end { 0 } else { solutions };
        sink(tag, Tally { solutions, nodes });
    }
}

/// Puts `start` in `lane` if it needs a search (two rows or more to fill); says whether it did.
fn load<const L: usize>(
    n: u32,
    spill: &mut Spill<L>,
    lane: usize,
    start: &Start,
    shape: Shape,
) -> bool {
    let Start { row, masks, frame } = start;
    let (row, end) = (*row, frame.end);
    assert!(
        row <= end && end <= n,
        "start row {row} and end {end} do not fit board {n}"
    );
    if row + 2 > end {
        return false;
    }
    // Bits of `ld` beyond column 31 are off the board for good: shifts only move them further away.
    spill.avail[lane] = frame.free(row, *masks) as u32;
    spill.cols[lane] = masks.cols as u32;
    spill.ld[lane] = masks.ld as u32;
    spill.rd[lane] = masks.rd as u32;
    spill.slot[lane] = row + 1;
    spill.floor[lane] = row;
    spill.closing[lane] = end - 1;
    spill.base[lane] = shape.base;
    spill.bottom[lane] = shape.bottom;
    // See `Spill::left`: the step shifts these by the row alone.
    spill.left[lane] = if shape.left > 0 { 1 << shape.left } else { 0 };
    spill.right[lane] = if shape.right > 0 {
        1 << (shape.last - shape.right)
    } else {
        0
    };
    let open = shape.base == super::full_mask(n) as u32
        && shape.bottom == 0
        && shape.left == 0
        && shape.right == 0;
    spill.shaped = spill.shaped & !(1 << lane) | u64::from(!open) << lane;
    // The steps count each row's squares as the children of the queen above it: the start's row has none.
    spill.nodes[lane] = spill.avail[lane].count_ones();
    spill.solutions[lane] = 0;
    true
}

/// The shape the vector loops compute the rows of `start` with, if they can take the start: its frame has a
/// shape that gives every row the search reads (the start row's squares are read from the frame once), with the
/// board's side column.
fn vector_shape(n: u32, start: &Start) -> Option<Shape> {
    if start.masks.rd >> 32 != 0 {
        // Squares attacked from beyond column 31 that would come onto the board: no start of this crate's
        // plans has them, but the 32-bit lanes cannot hold them.
        return None;
    }
    let shape = start.frame.shape_of(start.row + 1..start.frame.end)?;
    let last = n.saturating_sub(1);
    (shape.last == last && shape.left <= last && shape.right <= last).then_some(shape)
}

/// Solutions a listing loop holds before handing them over.
pub(super) const FOUND: usize = 256;

/// Solutions found in a listing loop and not handed over yet, in the order found. They are copied as they are
/// found (a lane's stack words change as it moves on) and handed over a batch at a time: calling out of the
/// loop means saving every vector register.
pub(super) struct Found {
    /// Each solution's queens from its lane's start row on.
    queens: [[u8; MAX_N as usize]; FOUND],
    lanes: [u8; FOUND],
    lens: [u8; FOUND],
    /// Solutions held.
    pub count: usize,
}

impl Found {
    pub fn new() -> Found {
        Found {
            queens: [[0; MAX_N as usize]; FOUND],
            lanes: [0; FOUND],
            lens: [0; FOUND],
            count: 0,
        }
    }

    /// Copies the solution `lane` just completed: the queens of the rows from its start row to the one before
    /// the last are the lowest bits of its stack words, and the last row's queen is `last` (a single bit).
    ///
    /// # Safety
    /// `stack` points to the lanes' `[slot][lane]` words, and the lane's floor and closing slots are within them.
    #[inline(always)]
    pub unsafe fn record<const L: usize>(
        &mut self,
        stack: *const i32,
        spill: &Spill<L>,
        lane: usize,
        last: u32,
    ) {
        let (floor, closing) = (spill.floor[lane] as usize, spill.closing[lane] as usize);
        let queens = &mut self.queens[self.count];
        let mut k = 0;
        // Row `r` lives at slot `r + 1`: the rows from the start's to the one before the last.
        for slot in floor + 1..=closing {
            let word = unsafe { *stack.add(slot * L + lane) } as u32;
            queens[k] = (word & SQUARES).trailing_zeros() as u8;
            k += 1;
        }
        queens[k] = last.trailing_zeros() as u8;
        self.lanes[self.count] = lane as u8;
        self.lens[self.count] = (k + 1) as u8;
        self.count += 1;
    }

    /// Hands every solution to `emit` and empties the list.
    #[inline(never)]
    pub fn flush(&mut self, emit: &mut dyn FnMut(usize, &[u8])) {
        for i in 0..self.count {
            emit(
                usize::from(self.lanes[i]),
                &self.queens[i][..usize::from(self.lens[i])],
            );
        }
        self.count = 0;
    }
}
