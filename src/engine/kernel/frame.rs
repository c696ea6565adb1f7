//! What a search starts from: the partial placement's masks ([`Start`]) and the fixed constraints on the rows
//! still to fill ([`Frame`], and its rule form [`Shape`] for the vector loops), which the full symmetry's
//! border pre-placement puts on them.

use super::masks::{full_mask, Masks};
use super::MAX_N;

/// Fixed constraints on the rows of a search: which squares each row may use at all, which are attacked by
/// queens placed further down, and where the search stops. Open boards allow everything; the border
/// pre-placement of the full symmetry mode forces some rows onto one square and blocks the diagonals of the
/// queens it placed below the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The search fills the rows before `end`; the rows from `end` on are placed already.
    pub end: u32,
    /// `allow[r]`: the squares of row `r` a queen may take at all (a single bit for a pre-placed row).
    pub allow: [u64; MAX_N as usize],
    /// `block[r]`: the squares of row `r` attacked by queens placed below it, or otherwise ruled out.
    pub block: [u64; MAX_N as usize],
    /// The same constraints as a rule the vector loops compute row by row, where the frame has that form. The
    /// loops take it only where it gives the rows of `allow` and `block` ([`Frame::shape_of`]), so a frame
    /// whose rows were changed afterwards still counts exactly (on the scalar loop).
    pub shape: Option<Shape>,
}

/// The constraints a [`Frame`] of the plans puts on its rows, as a rule rather than a table: the vector loops
/// compute a row's open squares with a few shifts where reading them from a table per lane (a gather) cost a
/// quarter of every step.
///
/// A row `r` that is not a side row may use the squares of `base` not attacked by the bottom queen (its column
/// `bottom`, a single bit or none, on row `last`) nor, from below, by the side queens (column 0 on row `left`,
/// column `last` on row `right`; row 0 for none). The side rows hold their queen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The squares of every row other than the side rows, before the border queens' diagonals.
    pub base: u32,
    /// The bottom queen's column as a bit, or 0.
    pub bottom: u32,
    /// The bottom row, and the right-hand column.
    pub last: u32,
    /// The row of the queen in column 0 that the search must place, or 0.
    pub left: u32,
    /// The row of the queen in column `last` that the search must place, or 0.
    pub right: u32,
}

impl Shape {
    /// No constraints on rows of `width` squares.
    pub fn open(width: u32) -> Shape {
        Shape {
            base: full_mask(width) as u32,
            bottom: 0,
            last: width.saturating_sub(1),
            left: 0,
            right: 0,
        }
    }

    /// The open squares of row `r`.
    pub fn open_squares(self, r: u32) -> u32 {
        let side = 1u32.checked_shl(self.last).unwrap_or(0);
        if r == self.left && r != 0 {
            return 1;
        }
        if r == self.right && r != 0 {
            return side;
        }
        // A shift by 32 or more leaves nothing (as the vector shifts do).
        let shl = |x: u32, k: u32| x.checked_shl(k).unwrap_or(0);
        let shr = |x: u32, k: u32| x.checked_shr(k).unwrap_or(0);
        let mut attacked = 0;
        if r <= self.last {
            let up = self.last - r;
            attacked |= shl(self.bottom, up) | shr(self.bottom, up);
        }
        if r < self.left {
            attacked |= shl(1, self.left - r);
        }
        if r < self.right {
            attacked |= shr(side, self.right - r);
        }
        self.base & !attacked
    }
}

impl Frame {
    /// No constraints: every row of a board of side `n` is searched and every square may be used.
    pub fn open(n: u32) -> Frame {
        Frame::rect(n, n)
    }

    /// No constraints on a board of `lines` rows of `width` squares (a rectangle searched column by column;
    /// see [`crate::engine::board`]).
    pub fn rect(width: u32, lines: u32) -> Frame {
        Frame {
            end: lines,
            allow: [full_mask(width); MAX_N as usize],
            block: [0; MAX_N as usize],
            shape: (width <= 32).then(|| Shape::open(width)),
        }
    }

    /// The frame of `shape` for a search that stops before row `end`.
    pub fn shaped(shape: Shape, end: u32) -> Frame {
        Frame {
            end,
            allow: std::array::from_fn(|r| u64::from(shape.open_squares(r as u32))),
            block: [0; MAX_N as usize],
            shape: Some(shape),
        }
    }

    /// The frame's shape, if it has one and it gives every row of `rows` the frame's open squares.
    pub fn shape_of(&self, rows: std::ops::Range<u32>) -> Option<Shape> {
        let shape = self.shape?;
        rows.into_iter()
            .all(|r| {
                let (allow, block) = (self.allow.get(r as usize), self.block.get(r as usize));
                allow.zip(block).is_some_and(|(allow, block)| {
                    u64::from(shape.open_squares(r)) == allow & !block
                })
            })
            .then_some(shape)
    }

    /// The free squares of row `row` under `masks`.
    #[inline]
    pub fn free(&self, row: u32, masks: Masks) -> u64 {
        let r = row as usize;
        self.allow[r] & !(masks.cols | masks.ld | masks.rd | self.block[r])
    }
}

/// A partial placement ready for the kernel: the next row to fill, its masks, and the rows' constraints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Start {
    /// Rows `0..row` hold queens.
    pub row: u32,
    /// The masks those queens leave for row `row`.
    pub masks: Masks,
    /// Constraints of the rows still to fill.
    pub frame: Frame,
}
