//! The board: its size and the limits the engine accepts.
//!
//! A board is square (side `n`, one queen in each row and each column) or rectangular: `R x C` with
//! `C <= R`, one queen in each of the `C` columns, each on one of the `R` rows, none attacking another.
//!
//! The engine searches a rectangle the way it searches a square, one line at a time: it places the queen of
//! each of the `C` columns in turn, and the `R` rows are the bits of the masks. So for a square the kernel's
//! lines are the board's rows, and for a rectangle they are its columns. A solution is always the list of
//! positions of the queen in each line ([`Board::lines`] entries, each below [`Board::width`]).

use crate::engine::kernel::{Masks, MAX_N};
use crate::error::Error;
use std::fmt;

/// A board, validated against the kernel's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    rows: u32,
    cols: u32,
    square: bool,
}

impl Board {
    /// The largest side accepted: the width of the kernel's masks.
    pub const MAX_SIDE: u32 = MAX_N;

    /// A square board of side `n`, refused when the masks cannot hold it.
    pub fn new(n: u32) -> Result<Board, Error> {
        if n > Self::MAX_SIDE {
            return Err(Error::BoardTooLarge {
                n,
                max: Self::MAX_SIDE,
            });
        }
        Ok(Board {
            rows: n,
            cols: n,
            square: true,
        })
    }

    /// A rectangular board of `rows` rows and `cols` columns, one queen in each column. `rows == cols` gives
    /// the square board. A board with more columns than rows is accepted and has no solutions. Either side
    /// may be at most [`Board::MAX_SIDE`] ([`Error::RectangleTooLarge`]; a square is [`Board::new`]'s).
    pub fn rect(rows: u32, cols: u32) -> Result<Board, Error> {
        if rows == cols {
            return Board::new(rows);
        }
        if rows.max(cols) > Self::MAX_SIDE {
            // Named as asked for: "n = 65 is too large" named a board `rect(3, 65)` never gave.
            return Err(Error::RectangleTooLarge {
                rows,
                cols,
                max: Self::MAX_SIDE,
            });
        }
        Ok(Board {
            rows,
            cols,
            square: false,
        })
    }

    /// The side of a square board; for a rectangle, its number of rows (the width of the kernel's masks).
    pub fn n(self) -> u32 {
        self.rows
    }

    /// Rows of the board.
    pub fn rows(self) -> u32 {
        self.rows
    }

    /// Columns of the board: the number of queens.
    pub fn cols(self) -> u32 {
        self.cols
    }

    /// Whether the board is square.
    pub fn is_square(self) -> bool {
        self.square
    }

    /// The board in words, as messages name it: "n = 16" for a square, "the board 8x6" for a rectangle.
    pub fn words(self) -> String {
        if self.square {
            format!("n = {self}")
        } else {
            format!("the board {self}")
        }
    }

    /// Lines the search fills, one queen each: the rows of a square, the columns of a rectangle.
    pub fn lines(self) -> u32 {
        self.cols
    }

    /// Squares on each line: the bits of the masks.
    pub fn width(self) -> u32 {
        self.rows
    }

    /// The masks for the line after a partial placement (`prefix[l]` is the position of the queen on line
    /// `l`), or `None` when the placement has a queen off the board or two queens that attack each other.
    pub fn masks_after(self, prefix: &[u8]) -> Option<Masks> {
        if prefix.len() > self.lines() as usize {
            return None;
        }
        let full = crate::engine::kernel::full_mask(self.width());
        prefix.iter().try_fold(Masks::default(), |masks, &col| {
            let bit = 1u64.checked_shl(u32::from(col))?;
            (masks.free(full) & bit != 0).then(|| masks.place(bit))
        })
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.square {
            write!(f, "{}", self.rows)
        } else {
            write!(f, "{}x{}", self.rows, self.cols)
        }
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
        assert!(Board::rect(65, 3).is_err());
        let wide = Board::rect(3, 65).unwrap_err();
        assert_eq!(
            wide,
            Error::RectangleTooLarge {
                rows: 3,
                cols: 65,
                max: 64
            }
        );
        assert_eq!(
            wide.to_string(),
            "the board 3x65 is too large: the bitmask kernel handles boards of up to 64 rows and 64 columns"
        );
        assert!(
            Board::rect(64, 3).is_ok(),
            "a rectangle as wide as the masks"
        );
        assert!(Board::rect(3, 64).is_ok());
    }

    #[test]
    fn a_rectangle_searches_its_columns() {
        let b = Board::rect(8, 6).unwrap();
        assert_eq!((b.lines(), b.width()), (6, 8));
        assert_eq!(b.to_string(), "8x6");
        assert_eq!(Board::rect(7, 7).unwrap(), Board::new(7).unwrap());
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
