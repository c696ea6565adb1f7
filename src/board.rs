//! The board: its size and the limits the engine accepts.

use crate::error::Error;
use crate::kernel::{Masks, MAX_N};
use std::fmt;

/// A square board of side `n`, validated against the kernel's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    n: u32,
}

impl Board {
    /// The largest side accepted: the width of the kernel's masks.
    pub const MAX_SIDE: u32 = MAX_N;

    /// A board of side `n`, refused when the masks cannot hold it.
    pub fn new(n: u32) -> Result<Board, Error> {
        if n > Self::MAX_SIDE {
            return Err(Error::BoardTooLarge {
                n,
                max: Self::MAX_SIDE,
            });
        }
        Ok(Board { n })
    }

    /// The side of the board.
    pub fn n(self) -> u32 {
        self.n
    }

    /// The masks for the row below a partial placement (`prefix[r]` is the column of the queen in row `r`),
    /// or `None` when the placement has a column off the board or two queens that attack each other.
    pub fn masks_after(self, prefix: &[u8]) -> Option<Masks> {
        if prefix.len() > self.n as usize {
            return None;
        }
        let full = crate::kernel::full_mask(self.n);
        prefix.iter().try_fold(Masks::default(), |masks, &col| {
            let bit = 1u64.checked_shl(u32::from(col))?;
            (masks.free(full) & bit != 0).then(|| masks.place(bit))
        })
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_wider_than_the_masks_are_refused() {
        assert!(Board::new(64).is_ok());
        assert!(matches!(
            Board::new(65),
            Err(Error::BoardTooLarge { n: 65, max: 64 })
        ));
    }

    #[test]
    fn attacking_or_off_board_prefixes_have_no_masks() {
        let board = Board::new(8).unwrap();
        assert!(board.masks_after(&[0, 2, 4]).is_some());
        assert!(board.masks_after(&[0, 1]).is_none(), "diagonal neighbours");
        assert!(board.masks_after(&[3, 3]).is_none(), "same column");
        assert!(board.masks_after(&[8]).is_none(), "off the board");
    }
}
