//! Whether a placement is a solution, and if not, why: which two queens attack each other, which queen is
//! off the board, how many queens are missing.
//!
//! A placement is a list of queens by (row, column), 0-based, on a board of `R` rows and `C` columns; it is
//! a solution when it has exactly `C` queens, all on the board, no two in one row, one column or one
//! diagonal. The check takes O(number of queens) time with one bit per row, column and diagonal, so a
//! constructed solution of ten million queens is checked in a fraction of a second. Only when it finds a
//! conflict does it look back for the queen that was there first.

use crate::solutions::notation::Shape;
use std::fmt;

/// Why a placement is not a solution. Rows and columns in messages are 1-based.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flaw {
    /// A queen stands outside the board.
    OffBoard {
        /// The queen (row, column), 0-based.
        queen: (u64, u64),
        /// The board.
        shape: Shape,
    },
    /// Too few or too many queens.
    Count {
        /// Queens found.
        found: usize,
        /// Queens a solution has.
        wanted: u32,
        /// The board.
        shape: Shape,
    },
    /// Two queens attack each other.
    Attack {
        /// The earlier queen, 0-based.
        first: (u32, u32),
        /// The later queen, 0-based.
        second: (u32, u32),
        /// The line they share.
        along: Line,
    },
}

/// The line along which two queens attack each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// The same row.
    Row,
    /// The same column.
    Column,
    /// The same diagonal.
    Diagonal,
}

impl fmt::Display for Flaw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Flaw::OffBoard { queen, shape } => write!(
                f,
                "the queen at row {}, column {} is off the {} board",
                queen.0 + 1,
                queen.1 + 1,
                board_name(shape)
            ),
            Flaw::Count {
                found,
                wanted,
                shape,
            } => write!(
                f,
                "{found} queen{} on the {} board, but a solution has {wanted}",
                if found == 1 { "" } else { "s" },
                board_name(shape)
            ),
            Flaw::Attack {
                first,
                second,
                along,
            } => {
                let line = match along {
                    Line::Row => "share a row",
                    Line::Column => "share a column",
                    Line::Diagonal => "share a diagonal",
                };
                write!(
                    f,
                    "the queens at row {}, column {} and row {}, column {} {line}",
                    first.0 + 1,
                    first.1 + 1,
                    second.0 + 1,
                    second.1 + 1
                )
            }
        }
    }
}

fn board_name(shape: Shape) -> String {
    format!("{}x{}", shape.rows, shape.cols)
}

/// Checks the solution written as a list: entry `i` is the position of the queen on line `i` (see
/// [`crate::solutions::notation`]).
pub fn check_list(shape: Shape, positions: &[u32]) -> Result<(), Flaw> {
    check(
        shape,
        positions
            .iter()
            .enumerate()
            .map(|(i, &p)| shape.square_of(i as u32, p)),
        positions.len(),
    )
}

/// Checks the queens of `queens` (row, column), `count` of them, on a board of `shape`.
pub fn check(
    shape: Shape,
    queens: impl Iterator<Item = (u32, u32)> + Clone,
    count: usize,
) -> Result<(), Flaw> {
    if count != shape.queens() as usize {
        return Err(Flaw::Count {
            found: count,
            wanted: shape.queens(),
            shape,
        });
    }
    let (rows, cols) = (shape.rows as usize, shape.cols as usize);
    let mut row_seen = Bits::new(rows);
    let mut col_seen = Bits::new(cols);
    let mut down = Bits::new(rows + cols);
    let mut up = Bits::new(rows + cols);
    for (row, col) in queens.clone() {
        let (r, c) = (row as usize, col as usize);
        if r >= rows || c >= cols {
            return Err(Flaw::OffBoard {
                queen: (u64::from(row), u64::from(col)),
                shape,
            });
        }
        let lines = [
            (row_seen.set(r), Line::Row),
            (col_seen.set(c), Line::Column),
            (down.set(r + cols - c), Line::Diagonal),
            (up.set(r + c), Line::Diagonal),
        ];
        if let Some(&(_, along)) = lines.iter().find(|(taken, _)| *taken) {
            let first = queens
                .clone()
                .find(|&(r2, c2)| match along {
                    Line::Row => r2 == row,
                    Line::Column => c2 == col,
                    Line::Diagonal => r2.abs_diff(row) == c2.abs_diff(col),
                })
                .expect("the line was taken by an earlier queen");
            return Err(Flaw::Attack {
                first,
                second: (row, col),
                along,
            });
        }
    }
    Ok(())
}

/// A fixed set of bits.
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }

    /// Sets bit `i` and says whether it was set already.
    fn set(&mut self, i: usize) -> bool {
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        let was = self.0[word] & bit != 0;
        self.0[word] |= bit;
        was
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_solution_of_eight_is_valid() {
        assert_eq!(
            check_list(Shape::square(8), &[0, 4, 7, 5, 2, 6, 1, 3]),
            Ok(())
        );
    }

    #[test]
    fn flaws_name_the_queens() {
        let four = Shape::square(4);
        let flaw = check_list(four, &[0, 2, 1, 3]).unwrap_err();
        assert_eq!(
            flaw.to_string(),
            "the queens at row 2, column 3 and row 3, column 2 share a diagonal"
        );
        let flaw = check_list(four, &[1, 3, 1, 2]).unwrap_err();
        assert_eq!(
            flaw.to_string(),
            "the queens at row 1, column 2 and row 3, column 2 share a column"
        );
        assert!(check_list(four, &[1, 3, 0])
            .unwrap_err()
            .to_string()
            .contains("3 queens on the 4x4 board, but a solution has 4"));
        assert!(check_list(four, &[1])
            .unwrap_err()
            .to_string()
            .contains("1 queen on the 4x4 board, but a solution has 4"));
        assert!(check_list(four, &[1, 3, 0, 4])
            .unwrap_err()
            .to_string()
            .contains("off the 4x4 board"));
    }

    #[test]
    fn a_rectangle_lists_rows_by_column() {
        let shape = Shape { rows: 3, cols: 2 };
        assert_eq!(check_list(shape, &[0, 2]), Ok(()));
        assert!(matches!(
            check_list(shape, &[0, 0]),
            Err(Flaw::Attack {
                along: Line::Row,
                ..
            })
        ));
    }
}
