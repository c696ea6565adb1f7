//! Whether a placement is a solution, and if not, why: which two queens attack each other, which queen is
//! off the board, how many queens are missing, which board a drawing shows instead.
//!
//! A placement is a list of queens by (row, column), 0-based, on a board of `R` rows and `C` columns; it is
//! a solution when it has exactly `C` queens, all on the board, no two in one row, one column or one
//! diagonal. The check takes O(number of queens) time with one bit per row, column and diagonal, so a
//! constructed solution of ten million queens is checked in a fraction of a second. Only when it finds a
//! conflict does it look back for the queen that was there first.
//!
//! Every [`Flaw`] is of a placement that was read: text that cannot be read as one is the reader's to refuse
//! (see [`crate::solutions::notation::Reader`]), and `nqueens check` calls the one `malformed`, the other
//! `invalid`.

use crate::solutions::notation::{Off, Placement, Shape};
use std::fmt;

/// Why a placement is not a solution. Rows and columns in messages are 1-based.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flaw {
    /// The board has more columns than rows, so that no placement is a solution of it: a queen in each column
    /// puts two in one row. It is the first flaw of any placement on such a board, as `solve` refuses one.
    NoSolution {
        /// The board.
        shape: Shape,
    },
    /// A queen stands outside the board: on either side of it, since a list may put one at a negative position
    /// as well as beyond the last, at a number of any size.
    OffBoard {
        /// Where the queen is.
        queen: Off,
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
    /// A drawing of another board than the one the placements are checked on (`check --board`). A list has
    /// no board of its own: too long or too short for the board given, it has the wrong number of queens.
    OtherBoard {
        /// The board drawn.
        drawn: Shape,
        /// The board given.
        given: Shape,
    },
}

impl Flaw {
    /// Whether the flaw is a queen past the board's last row or column, not before its first: where a list
    /// read as a square is a rectangle's, read without its board, its queens below the square are.
    pub fn is_past_the_end(&self) -> bool {
        match *self {
            Flaw::OffBoard {
                queen: Off::At(row, col),
                shape,
            } => {
                row >= 0
                    && col >= 0
                    && (row >= i128::from(shape.rows) || col >= i128::from(shape.cols))
            }
            Flaw::OffBoard {
                queen: Off::Far { negative, .. },
                ..
            } => !negative,
            _ => false,
        }
    }
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
            // The same words as `solve`'s refusal of such a board.
            Flaw::NoSolution { shape } => write!(
                f,
                "the {} board has no solution: it has more columns than rows, so two queens would share a row",
                board_name(shape)
            ),
            // An `i128` holds the 1 added to a coordinate of [`Off::At`].
            Flaw::OffBoard {
                queen: Off::At(row, col),
                shape,
            } => write!(
                f,
                "the queen at row {}, column {} is off the {} board",
                row + 1,
                col + 1,
                board_name(shape)
            ),
            // Its 1-based position would take a sum of digits of any length: the number as written says
            // enough, since it is off every board by far.
            Flaw::OffBoard {
                queen:
                    Off::Far {
                        line,
                        ref number,
                        digits,
                        ..
                    },
                shape,
            } => {
                let (line_name, position) = if shape.is_square() {
                    ("row", "column")
                } else {
                    ("column", "row")
                };
                write!(
                    f,
                    "the queen in {line_name} {} is off the {} board: its {position} is written '{number}', a \
                     number of {digits} digits",
                    u64::from(line) + 1,
                    board_name(shape)
                )
            }
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
            Flaw::OtherBoard { drawn, given } => write!(
                f,
                "the drawing shows a {} board, not the {} board given",
                board_name(drawn),
                board_name(given)
            ),
        }
    }
}

/// A flaw is the error of a check: a caller's `?` may carry it into any error of its own.
impl std::error::Error for Flaw {}

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
    )
}

/// Checks a placement as read from text (see [`crate::solutions::notation::Reader`]) on the board `given`,
/// or, with none given, on the board the placement is on.
pub fn check_placement(placement: &Placement, given: Option<Shape>) -> Result<(), Flaw> {
    let shape = placement.shape;
    if let Some(given) = given.filter(|&given| given != shape) {
        return Err(Flaw::OtherBoard {
            drawn: shape,
            given,
        });
    }
    let queens = placement.queens.iter().copied();
    match &placement.stray {
        // The queens read, then the one off every board that the reading stopped at: nothing after it can
        // change the verdict, which is of the first flaw in the order written.
        Some(stray) => {
            find_flaw(shape, queens, stray.written)?;
            Err(Flaw::OffBoard {
                queen: stray.queen.clone(),
                shape,
            })
        }
        None => find_flaw(shape, queens, placement.queens.len()),
    }
}

/// Checks the queens of `queens` (row, column) on a board of `shape`. Their number is the iterator's own
/// length, so that no count given beside them can make three queens of a 4x4 board pass for its solution.
pub fn check(
    shape: Shape,
    queens: impl ExactSizeIterator<Item = (u32, u32)> + Clone,
) -> Result<(), Flaw> {
    let count = queens.len();
    find_flaw(shape, queens, count)
}

/// The first flaw of `count` queens, in the order of `queens`: a board that has no solution, a wrong count,
/// then the first queen that is off the board or attacks one before it.
fn find_flaw(
    shape: Shape,
    queens: impl Iterator<Item = (u32, u32)> + Clone,
    count: usize,
) -> Result<(), Flaw> {
    if shape.cols > shape.rows {
        return Err(Flaw::NoSolution { shape });
    }
    if count != shape.queens() as usize {
        return Err(Flaw::Count {
            found: count,
            wanted: shape.queens(),
            shape,
        });
    }
    let (rows, cols) = (shape.rows as usize, shape.cols as usize);
    // Sized by the queens, which the count has bounded, not by the board: a list for a board of billions of
    // rows and a few columns is a few queens to check, not gigabytes of lines.
    let queens_placed = count;
    let mut row_seen = Seen::new(rows, queens_placed);
    let mut col_seen = Seen::new(cols, queens_placed);
    let mut down = Seen::new(rows + cols, queens_placed);
    let mut up = Seen::new(rows + cols, queens_placed);
    for (row, col) in queens.clone() {
        if row >= shape.rows || col >= shape.cols {
            return Err(Flaw::OffBoard {
                queen: Off::At(row.into(), col.into()),
                shape,
            });
        }
        let (r, c) = (row as usize, col as usize);
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

/// The lines of one kind (rows, columns, a diagonal direction) that queens are on.
enum Seen {
    /// A bit a line, where the lines are few enough for their bits to take no more memory than the queens.
    Dense(Vec<u64>),
    /// The lines taken, where the board has many more lines than queens.
    Sparse(std::collections::HashSet<usize>),
}

impl Seen {
    /// For `lines` lines and `queens` queens: dense while the bits take at most a word a queen.
    fn new(lines: usize, queens: usize) -> Seen {
        let words = lines.div_ceil(64);
        if words <= queens.max(1) {
            Seen::Dense(vec![0; words])
        } else {
            Seen::Sparse(std::collections::HashSet::with_capacity(queens))
        }
    }

    /// Marks line `i` taken and says whether it was taken already.
    fn set(&mut self, i: usize) -> bool {
        match self {
            Seen::Dense(words) => {
                let (word, bit) = (i / 64, 1u64 << (i % 64));
                let was = words[word] & bit != 0;
                words[word] |= bit;
                was
            }
            Seen::Sparse(taken) => !taken.insert(i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solutions::notation::Stray;

    #[test]
    fn squares_given_are_counted_not_taken_on_trust() {
        // Three queens that do not attack each other are no solution of the 4x4 board: it takes four.
        let three = [(0, 1), (1, 3), (2, 0)];
        assert_eq!(
            check(Shape::square(4), three.into_iter()),
            Err(Flaw::Count {
                found: 3,
                wanted: 4,
                shape: Shape::square(4)
            })
        );
        assert_eq!(
            check(
                Shape::square(4),
                [(0, 1), (1, 3), (2, 0), (3, 2)].into_iter()
            ),
            Ok(())
        );
    }

    #[test]
    fn a_board_with_more_columns_than_rows_has_no_solution_whatever_is_placed() {
        let wide = Shape { rows: 4, cols: 5 };
        for queens in [&[1, 3, 0, 2][..], &[0, 2, 1, 3, 0], &[]] {
            assert_eq!(
                check_list(wide, queens),
                Err(Flaw::NoSolution { shape: wide })
            );
        }
        assert_eq!(
            Flaw::NoSolution { shape: wide }.to_string(),
            "the 4x5 board has no solution: it has more columns than rows, so two queens would share a row"
        );
        // A board of no columns has one: no queens.
        assert_eq!(check_list(Shape { rows: 3, cols: 0 }, &[]), Ok(()));
    }

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
    fn a_placement_is_checked_in_the_order_written_up_to_a_queen_off_every_board() {
        let four = Shape::square(4);
        let stray = |queens: Vec<(u32, u32)>, (row, col), written| Placement {
            shape: four,
            queens,
            stray: Some(Stray {
                queen: Off::At(row, col),
                written,
            }),
        };
        // The count first, then whichever comes first: two queens attacking, or the queen off the board.
        assert_eq!(
            check_placement(&stray(vec![(0, 1)], (1, -1), 3), None)
                .unwrap_err()
                .to_string(),
            "3 queens on the 4x4 board, but a solution has 4"
        );
        assert_eq!(
            check_placement(&stray(vec![(0, 1)], (1, -1), 4), None)
                .unwrap_err()
                .to_string(),
            "the queen at row 2, column 0 is off the 4x4 board"
        );
        assert!(matches!(
            check_placement(&stray(vec![(0, 1), (1, 1)], (2, -1), 4), None),
            Err(Flaw::Attack {
                along: Line::Column,
                ..
            })
        ));
        // The far end of the coordinates, in 1-based messages: the largest number of 38 digits, in a 0-based
        // list.
        let nines: i128 = "9".repeat(38).parse().unwrap();
        assert_eq!(
            check_placement(&stray(vec![], (0, nines), 4), None)
                .unwrap_err()
                .to_string(),
            format!(
                "the queen at row 1, column {} is off the 4x4 board",
                nines + 1
            )
        );
        // A placement is on the board given, or on none: a drawing of another is a flaw of its own.
        let drawn = Placement {
            shape: four,
            queens: vec![(0, 1), (1, 3), (2, 0), (3, 2)],
            stray: None,
        };
        assert_eq!(check_placement(&drawn, None), Ok(()));
        assert_eq!(check_placement(&drawn, Some(four)), Ok(()));
        assert_eq!(
            check_placement(&drawn, Some(Shape { rows: 5, cols: 4 })),
            Err(Flaw::OtherBoard {
                drawn: four,
                given: Shape { rows: 5, cols: 4 }
            })
        );
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
