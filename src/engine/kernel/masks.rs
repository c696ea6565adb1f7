//! The attack masks of a row and the columns of a board: the words every loop works on (see the invariants in
//! [`super`]).

use super::MAX_N;

/// The attack masks for the next row to fill; see the module documentation for their meaning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Masks {
    /// Occupied columns.
    pub cols: u64,
    /// Squares attacked along down-right diagonals.
    pub ld: u64,
    /// Squares attacked along down-left diagonals.
    pub rd: u64,
}

impl Masks {
    /// The masks for the row below, after a queen is placed on `bit` in this row.
    #[inline(always)]
    pub fn place(self, bit: u64) -> Masks {
        Masks {
            cols: self.cols | bit,
            ld: (self.ld | bit) << 1,
            rd: (self.rd | bit) >> 1,
        }
    }

    /// The free squares of this row on a board of side `n`.
    #[inline(always)]
    pub fn free(self, full: u64) -> u64 {
        full & !(self.cols | self.ld | self.rd)
    }
}

/// The mask with the low `n` bits set: the columns of a board of side `n` (`n <= 64`).
#[inline]
pub fn full_mask(n: u32) -> u64 {
    debug_assert!(n <= MAX_N);
    if n == 0 {
        0
    } else {
        u64::MAX >> (64 - n)
    }
}
