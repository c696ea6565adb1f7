//! Tasks: the small searches the GPU counts, cut from a plan's units on the host.
//!
//! A plan's unit is sized for CPU threads; a GPU keeps a quarter of a million searches in flight and needs
//! tens of millions of them so that the last to finish are small against the run. So the host places a few
//! more rows of each unit in every admissible way ([`split`]), exactly as the kernel's search would, and each
//! placement that leaves more than the last two rows open becomes a [`Task`]. What the host decides on the way
//! (queens placed, solutions closed in those rows) goes into the unit's tally, so a unit's tally from the host
//! and its tasks is the tally the CPU kernel gives the unit, nodes included: journals record the same lines
//! whichever backend counted.
//!
//! A task carries its frame as a rule ([`Rows`]), the same rule as [`Shape`] written for the device: the
//! fixed queens' diagonals as 64-bit masks indexed by diagonal, from which one funnel shift gives a row's
//! attacked squares. [`Rows::of`] accepts a frame only where that rule gives exactly the frame's rows; any
//! other unit is counted on the host by the CPU kernel.

use crate::engine::kernel::{Frame, Masks, Shape, Start, Tally};
use std::ops::Range;

/// The largest board side (and line count) the GPU kernel takes: its masks are 32-bit words.
pub const MAX_SIDE: u32 = 32;

/// One search for the GPU: a partial placement, its first row's free squares, and the rule of its rows. The
/// layout is the kernel's `Task` (`count.cu`), sixteen 32-bit words.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Task {
    /// Columns taken, by the queens above and by fixed ones.
    pub cols: u32,
    /// Squares of the first row attacked along down-right diagonals.
    pub ld: u32,
    /// Squares of the first row attacked along down-left diagonals.
    pub rd: u32,
    /// Free squares of the first row.
    pub avail: u32,
    /// The first row, the end row, the left and right side rows (0 for none), a byte each from the lowest.
    pub rows: u32,
    /// [`Rows::base`].
    pub base: u32,
    /// [`Rows::side`].
    pub side: u32,
    /// [`Rows::ld_fixed`], low and high words.
    pub ld_fixed: [u32; 2],
    /// [`Rows::rd_fixed`], low and high words.
    pub rd_fixed: [u32; 2],
    /// The unit this task belongs to, numbered within its batch.
    pub slot: u32,
    /// Unused, for a 64-byte task.
    pub pad: [u32; 4],
}

impl Task {
    /// The first row.
    pub fn row(&self) -> u32 {
        self.rows & 0xff
    }

    /// The row the search stops before.
    pub fn end(&self) -> u32 {
        (self.rows >> 8) & 0xff
    }
}

/// A frame's rows as the GPU computes them: row `k` may use the squares of `base` that the fixed queens do not
/// attack, and a side row holds its queen. Diagonal masks are indexed by diagonal: a queen on `(r, c)` sets bit
/// `c - r + 32` of `ld_fixed` and bit `c + r` of `rd_fixed`, so row `k`'s attacked squares are
/// `ld_fixed >> (32 - k)` and `rd_fixed >> k`, one funnel shift each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    /// The squares of every row but the side rows, before the fixed queens' attacks.
    pub base: u32,
    /// The right-hand column, as a bit: the right side row's square.
    pub side: u32,
    /// The row whose queen stands in column 0, or 0.
    pub left: u32,
    /// The row whose queen stands in the right-hand column, or 0.
    pub right: u32,
    /// The bottom queen's down-left diagonal and the right side queen's up-left one, by diagonal.
    pub ld_fixed: u64,
    /// The bottom queen's down-right diagonal and the left side queen's up-right one, by diagonal.
    pub rd_fixed: u64,
}

impl Rows {
    /// The rule of `shape`, if its rows fit 32-bit words.
    fn from_shape(shape: Shape) -> Option<Rows> {
        if shape.last >= MAX_SIDE || shape.left >= MAX_SIDE || shape.right >= MAX_SIDE {
            return None;
        }
        let mut rows = Rows {
            base: shape.base,
            side: 1 << shape.last,
            left: shape.left,
            right: shape.right,
            ld_fixed: 0,
            rd_fixed: 0,
        };
        // The bottom queen(s), on row `last`.
        let mut bottom = shape.bottom;
        while bottom != 0 {
            let c = bottom.trailing_zeros();
            bottom &= bottom - 1;
            rows.ld_fixed |= 1u64 << (c + 32 - shape.last);
            rows.rd_fixed |= 1u64 << (c + shape.last);
        }
        // The side queens attack the rows above them along one diagonal each (the other leaves the board).
        if shape.left != 0 {
            rows.rd_fixed |= 1u64 << shape.left;
        }
        if shape.right != 0 {
            rows.ld_fixed |= 1u64 << (shape.last + 32 - shape.right);
        }
        Some(rows)
    }

    /// The rule of `frame` for `rows`, if the frame has a shape and the rule gives exactly the frame's open
    /// squares on every one of them.
    pub fn of(frame: &Frame, rows: Range<u32>) -> Option<Rows> {
        if rows.end > MAX_SIDE {
            return None;
        }
        let shape = frame.shape_of(rows.clone())?;
        let rule = Rows::from_shape(shape)?;
        rows.into_iter()
            .all(|k| rule.open(k) == shape.open_squares(k))
            .then_some(rule)
    }

    /// The open squares of row `k` (1 to 31), computed as the kernel computes them.
    pub fn open(&self, k: u32) -> u32 {
        debug_assert!((1..MAX_SIDE).contains(&k));
        let attacked = (self.ld_fixed >> (32 - k)) as u32 | (self.rd_fixed >> k) as u32;
        if k == self.left {
            1
        } else if k == self.right {
            self.side
        } else {
            self.base & !attacked
        }
    }
}

/// How the last line of a board closes: with one free square at most (a square board), or with several (a
/// rectangle searched along its shorter side), where each is a solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closing {
    /// A square board: a queen on the line before the last closes one solution if the last has a free square.
    Single,
    /// A rectangle: it closes as many as the last line has free squares.
    Wide,
}

impl Closing {
    /// The closing rule of a board of `lines` lines of `width` squares, as the CPU kernel has it.
    pub fn of(width: u32, lines: u32) -> Closing {
        if lines < width {
            Closing::Wide
        } else {
            Closing::Single
        }
    }

    /// The solutions closed when the last line has the free squares `free`.
    fn solutions(self, free: u64) -> u64 {
        match self {
            Closing::Single => u64::from(free != 0),
            Closing::Wide => u64::from(free.count_ones()),
        }
    }
}

/// Cuts `start` into tasks by placing up to `depth` more rows, giving each task to `emit` with `slot`; returns
/// what the host decided itself: the queens it placed and the solutions those closed.
///
/// The start must leave at least two rows to search (`row + 2 <= end`) and `rows` must be its frame's rule
/// for rows `row + 1..end` ([`Rows::of`]). Every task leaves at least two rows too, so the kernel's first step
/// is a search step.
pub fn split(
    start: &Start,
    rows: &Rows,
    closing: Closing,
    depth: u32,
    slot: u32,
    emit: &mut dyn FnMut(Task),
) -> Tally {
    let frame = &start.frame;
    debug_assert!(start.row + 2 <= frame.end);
    let mut tally = Tally::default();
    let free = frame.free(start.row, start.masks);
    descend(
        frame,
        rows,
        closing,
        start.row,
        start.masks,
        free,
        depth,
        slot,
        &mut tally,
        emit,
    );
    tally
}

/// The search of [`split`] from row `row`, whose free squares are `free`.
#[allow(clippy::too_many_arguments)]
fn descend(
    frame: &Frame,
    rows: &Rows,
    closing: Closing,
    row: u32,
    masks: Masks,
    mut free: u64,
    depth: u32,
    slot: u32,
    tally: &mut Tally,
    emit: &mut dyn FnMut(Task),
) {
    if depth == 0 {
        emit(Task {
            cols: masks.cols as u32,
            ld: masks.ld as u32,
            rd: masks.rd as u32,
            avail: free as u32,
            rows: row | frame.end << 8 | rows.left << 16 | rows.right << 24,
            base: rows.base,
            side: rows.side,
            ld_fixed: [rows.ld_fixed as u32, (rows.ld_fixed >> 32) as u32],
            rd_fixed: [rows.rd_fixed as u32, (rows.rd_fixed >> 32) as u32],
            slot,
            pad: [0; 4],
        });
        return;
    }
    // As the kernel: every queen placed is a node, on the last row too for each solution; a queen on the row
    // before the last closes the board; elsewhere the search goes on below if the next row has a free square.
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        tally.nodes += 1;
        let child = masks.place(bit);
        let next = frame.free(row + 1, child);
        if row + 2 == frame.end {
            // Each solution's last queen is a node too.
            let closed = closing.solutions(next);
            tally.solutions += closed;
            tally.nodes += closed;
        } else if next != 0 {
            descend(
                frame,
                rows,
                closing,
                row + 1,
                child,
                next,
                depth - 1,
                slot,
                tally,
                emit,
            );
        }
    }
}

/// The number of tasks [`split`] makes of `start` at `depth`, found without keeping them.
pub fn tasks_at(start: &Start, rows: &Rows, closing: Closing, depth: u32) -> usize {
    let mut tasks = 0;
    split(start, rows, closing, depth, 0, &mut |_| tasks += 1);
    tasks
}

/// Counts a task on the host, as the kernel does, in plain code: what the GPU must give for it. Used by the
/// tests; the kernel's own source is tested against the CPU kernel separately.
pub fn count_task(task: &Task, closing: Closing) -> Tally {
    let rows = Rows {
        base: task.base,
        side: task.side,
        left: (task.rows >> 16) & 0xff,
        right: task.rows >> 24,
        ld_fixed: u64::from(task.ld_fixed[0]) | u64::from(task.ld_fixed[1]) << 32,
        rd_fixed: u64::from(task.rd_fixed[0]) | u64::from(task.rd_fixed[1]) << 32,
    };
    let end = task.end();
    let mut tally = Tally::default();
    fn go(
        rows: &Rows,
        closing: Closing,
        end: u32,
        row: u32,
        (cols, ld, rd): (u32, u32, u32),
        mut free: u32,
        tally: &mut Tally,
    ) {
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            tally.nodes += 1;
            let child = (cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
            let next = rows.open(row + 1) & !(child.0 | child.1 | child.2);
            if row + 2 == end {
                let closed = closing.solutions(u64::from(next));
                tally.solutions += closed;
                tally.nodes += closed;
            } else if next != 0 {
                go(rows, closing, end, row + 1, child, next, tally);
            }
        }
    }
    go(
        &rows,
        closing,
        end,
        task.row(),
        (task.cols, task.ld, task.rd),
        task.avail,
        &mut tally,
    );
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Board;
    use crate::engine::kernel::{self, Kernel};
    use crate::engine::plan::{Plan, Split};
    use crate::engine::symmetry::Symmetry;
    use proptest::prelude::*;

    /// The plans' units, cut at `depth`: the host's tally plus every task's equals the CPU kernel's tally.
    fn check_plan(board: Board, symmetry: Symmetry, depth: u32) {
        let plan = Plan::new(board, symmetry, Split::Auto { threads: 1 });
        let closing = Closing::of(board.width(), board.lines());
        for unit in plan.units() {
            let Some(start) = plan.start(unit) else {
                continue;
            };
            let expected = kernel::count_start_with(Kernel::Scalar, board.width(), start.clone());
            if start.row + 2 > start.frame.end {
                continue;
            }
            let rows = Rows::of(&start.frame, start.row + 1..start.frame.end)
                .unwrap_or_else(|| panic!("{board} {symmetry:?}: unit {} has no rule", unit.index));
            let mut tasks = Vec::new();
            let mut got = split(&start, &rows, closing, depth, 7, &mut |t| tasks.push(t));
            for task in &tasks {
                assert_eq!(task.slot, 7);
                assert!(task.row() + 2 <= task.end());
                let t = count_task(task, closing);
                got.solutions += t.solutions;
                got.nodes += t.nodes;
            }
            assert_eq!(got, expected, "{board} {symmetry:?} unit {}", unit.index);
        }
    }

    #[test]
    fn tasks_add_up_to_the_cpu_kernel_in_every_mode() {
        for n in 4..=11 {
            for symmetry in [Symmetry::Full, Symmetry::Mirror, Symmetry::None] {
                for depth in [0, 1, 3] {
                    check_plan(Board::new(n).unwrap(), symmetry, depth);
                }
            }
        }
    }

    #[test]
    fn tasks_add_up_on_rectangles() {
        for (r, c) in [(5, 3), (7, 4), (8, 6), (9, 9)] {
            let board = Board::rect(r, c).unwrap();
            for depth in [0, 2] {
                check_plan(board, Symmetry::Mirror, depth);
            }
        }
    }

    #[test]
    fn every_border_of_the_full_mode_has_a_rule() {
        for n in [12u32, 17, 21, 27, 32] {
            let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, Split::Depth(1));
            for unit in plan.units().iter().take(2000) {
                if let Some(start) = plan.start(unit) {
                    let rows = start.row + 1..start.frame.end;
                    assert!(
                        Rows::of(&start.frame, rows).is_some(),
                        "n = {n} unit {}",
                        unit.index
                    );
                }
            }
        }
    }

    proptest! {
        /// The rule agrees with the shape wherever it accepts one, on arbitrary shapes.
        #[test]
        fn the_rule_gives_the_shapes_rows(
            base in any::<u32>(), bottom in 0u32..33, last in 1u32..32, left in 0u32..32, right in 0u32..32,
        ) {
            let shape = Shape {
                base: base & (u32::MAX >> (31 - last)),
                bottom: if bottom == 32 { 0 } else { 1 << bottom.min(last) },
                last,
                left: left.min(last),
                right: right.min(last),
            };
            let frame = Frame::shaped(shape, last + 1);
            if let Some(rule) = Rows::of(&frame, 1..last + 1) {
                for k in 1..=last {
                    prop_assert_eq!(rule.open(k), shape.open_squares(k));
                }
            }
            // Shapes of this form (base within the board) always have a rule.
            prop_assert!(Rows::of(&frame, 1..last + 1).is_some());
        }
    }
}
