//! How solutions are written and read back: lists of positions, drawn boards, 0/1 matrices, JSON and CSV.
//!
//! A solution is the 0-based position of the queen on each line of the board (see [`crate::engine::board`]): on a
//! square, the column of each row's queen; on a rectangle of `R` rows and `C` columns, the row of each
//! column's queen. The list notations write those positions 1-based (`rows`, `json`, `csv`) or 0-based
//! (`zero`); the drawings (`board`, `matrix`) show the board itself, `R` lines of `C` squares.
//!
//! Rendering appends to a byte buffer and allocates nothing, so listing millions of solutions costs little
//! beyond the search. Positions may be `u8` (listings, at most 64 lines) or `u32` (constructed solutions of
//! millions of lines).

use std::fmt;
use std::num::IntErrorKind;
use std::str::FromStr;

/// The size of the pieces [`Renderer::write_one`] hands on: large enough to keep the writes few.
const PIECE: usize = 1 << 16;

/// A way of writing a solution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Notation {
    /// 1-based positions in brackets: `[2,4,1,3]`.
    #[default]
    Rows,
    /// 0-based positions in brackets: `[1,3,0,2]`.
    Zero,
    /// A drawn board: Unicode box drawing, or `Q` and `.` in ASCII.
    Board,
    /// The board as rows of 0 and 1.
    Matrix,
    /// A JSON array of 1-based positions per line (the same text as `rows`, under a name that promises JSON).
    Json,
    /// Comma-separated 1-based positions, after a header line.
    Csv,
}

impl Notation {
    /// Every notation, in the order the command line lists them.
    pub const ALL: [Notation; 6] = [
        Notation::Rows,
        Notation::Zero,
        Notation::Board,
        Notation::Matrix,
        Notation::Json,
        Notation::Csv,
    ];

    /// The notation's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Notation::Rows => "rows",
            Notation::Zero => "zero",
            Notation::Board => "board",
            Notation::Matrix => "matrix",
            Notation::Json => "json",
            Notation::Csv => "csv",
        }
    }

    /// Whether the notation draws every square, so that its size grows with the square of the board.
    pub fn draws(self) -> bool {
        matches!(self, Notation::Board | Notation::Matrix)
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A notation name that is not one of [`Notation::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown solution format '{0}': use one of rows, zero, board, matrix, json, csv")]
pub struct UnknownNotation(String);

impl FromStr for Notation {
    type Err = UnknownNotation;
    fn from_str(s: &str) -> Result<Notation, UnknownNotation> {
        Notation::ALL
            .into_iter()
            .find(|n| n.name() == s)
            .ok_or_else(|| UnknownNotation(s.to_string()))
    }
}

/// The dimensions of a board as drawn: `rows` lines of `cols` squares, a queen in each column. Unlike
/// [`crate::Board`] it has no size limit, for constructed solutions of millions of queens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Rows of the board.
    pub rows: u32,
    /// Columns of the board; equal to `rows` for a square.
    pub cols: u32,
}

impl Shape {
    /// A square board of side `n`.
    pub fn square(n: u32) -> Shape {
        Shape { rows: n, cols: n }
    }

    /// Whether the board is square, so that a solution lists rows rather than columns.
    pub fn is_square(self) -> bool {
        self.rows == self.cols
    }

    /// The number of queens of a solution: one per column.
    pub fn queens(self) -> u32 {
        self.cols
    }

    /// The (row, column) of the queen at `index` in a solution whose entry there is `position`.
    pub fn square_of(self, index: u32, position: u32) -> (u32, u32) {
        if self.is_square() {
            (index, position)
        } else {
            (position, index)
        }
    }
}

impl From<crate::Board> for Shape {
    fn from(b: crate::Board) -> Shape {
        Shape {
            rows: b.rows(),
            cols: b.cols(),
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_square() {
            write!(f, "{}", self.rows)
        } else {
            write!(f, "{}x{}", self.rows, self.cols)
        }
    }
}

/// Writes solutions of one board in one notation.
#[derive(Clone, Copy, Debug)]
pub struct Renderer {
    notation: Notation,
    shape: Shape,
    ascii: bool,
}

impl Renderer {
    /// Solutions of a board of `shape` in `notation`; `ascii` draws boards with `Q` and `.`.
    pub fn new(notation: Notation, shape: Shape, ascii: bool) -> Renderer {
        Renderer {
            notation,
            shape,
            ascii,
        }
    }

    /// What comes before the first solution: the CSV header naming each line (`r1,r2,…` for the rows of a
    /// square, `c1,c2,…` for the columns of a rectangle).
    pub fn header(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.header_in_pieces(usize::MAX, |piece| {
            out.extend_from_slice(piece);
            Ok::<(), std::convert::Infallible>(())
        })
        .unwrap_or_else(|never| match never {});
        out
    }

    /// The header and one solution, `queens` (0-based), handed to `sink` a piece of about 64 KiB at a
    /// time: a solution of 10^8 queens is 900 MB of text as a list, and its CSV header 1 GB, which are
    /// never held whole. A drawing is one piece (it grows with the square of the board, and `solve` draws
    /// none beyond 100 rows).
    pub fn write_one<P: Copy + Into<u32>, E>(
        &self,
        queens: &[P],
        mut sink: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        self.header_in_pieces(PIECE, &mut sink)?;
        let (base, open, close): (u32, u8, u8) = match self.notation {
            Notation::Rows | Notation::Json => (1, b'[', b']'),
            Notation::Zero => (0, b'[', b']'),
            Notation::Csv => (1, 0, 0),
            Notation::Board | Notation::Matrix => {
                let mut out = Vec::new();
                self.render(queens, &mut out);
                return sink(&out);
            }
        };
        let mut out = Vec::with_capacity(PIECE + 32);
        if open != 0 {
            out.push(open);
        }
        let mut digits = itoa::Buffer::new();
        for (i, &q) in queens.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            // In 64 bits: position u32::MAX, 1-based, is 4294967296, not 0.
            out.extend_from_slice(
                digits
                    .format(u64::from(q.into()) + u64::from(base))
                    .as_bytes(),
            );
            if out.len() >= PIECE {
                sink(&out)?;
                out.clear();
            }
        }
        if close != 0 {
            out.push(close);
        }
        out.push(b'\n');
        sink(&out)
    }

    /// The CSV header, handed to `sink` in pieces of about `piece` bytes; nothing for another notation.
    fn header_in_pieces<E>(
        &self,
        piece: usize,
        mut sink: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.notation != Notation::Csv {
            return Ok(());
        }
        let letter = if self.shape.is_square() { b'r' } else { b'c' };
        let mut digits = itoa::Buffer::new();
        let mut out = Vec::new();
        for i in 1..=self.shape.queens() {
            if i > 1 {
                out.push(b',');
            }
            out.push(letter);
            out.extend_from_slice(digits.format(i).as_bytes());
            if out.len() >= piece {
                sink(&out)?;
                out.clear();
            }
        }
        out.push(b'\n');
        sink(&out)
    }

    /// Appends one solution (0-based positions) to `out`. Drawn boards are followed by a blank line.
    ///
    /// A list that is not a solution of the shape (a caller's own, not yet checked) is written as it is: the
    /// list notations write every entry, a drawing shows the board with the queens of the list that fall on
    /// it, so that nothing here can fail on a list of the wrong length or a position off the board.
    pub fn render<P: Copy + Into<u32>>(&self, queens: &[P], out: &mut Vec<u8>) {
        match self.notation {
            Notation::Rows | Notation::Json => list(queens, 1, b'[', b']', out),
            Notation::Zero => list(queens, 0, b'[', b']', out),
            Notation::Csv => list(queens, 1, 0, 0, out),
            Notation::Board if self.ascii => self.grid(queens, b"Q", b".", b" ", out),
            Notation::Board => self.boxed(queens, out),
            Notation::Matrix => self.grid(queens, b"1", b"0", b" ", out),
        }
    }

    /// The rows of the board, each square `queen` or `empty`, separated by `gap`, and a blank line.
    fn grid<P: Copy + Into<u32>>(
        &self,
        queens: &[P],
        queen: &[u8],
        empty: &[u8],
        gap: &[u8],
        out: &mut Vec<u8>,
    ) {
        for row in 0..self.shape.rows {
            for col in 0..self.shape.cols {
                if col > 0 {
                    out.extend_from_slice(gap);
                }
                let here = self.occupied(queens, row, col);
                out.extend_from_slice(if here { queen } else { empty });
            }
            out.push(b'\n');
        }
        out.push(b'\n');
    }

    /// A board drawn with box-drawing characters, a crown for each queen, and a blank line.
    fn boxed<P: Copy + Into<u32>>(&self, queens: &[P], out: &mut Vec<u8>) {
        let cols = self.shape.cols;
        let rule = |out: &mut Vec<u8>, left: &str, middle: &str, right: &str| {
            out.extend_from_slice(left.as_bytes());
            for col in 0..cols {
                if col > 0 {
                    out.extend_from_slice(middle.as_bytes());
                }
                out.extend_from_slice("───".as_bytes());
            }
            out.extend_from_slice(right.as_bytes());
            out.push(b'\n');
        };
        rule(out, "┌", "┬", "┐");
        for row in 0..self.shape.rows {
            if row > 0 {
                rule(out, "├", "┼", "┤");
            }
            // Built as the rules are, its borders apart from the squares: a board of no columns still has both
            // (`││`, between `┌┐` and `└┘`), where writing a square and its right edge in turn left it one.
            out.extend_from_slice("│".as_bytes());
            for col in 0..cols {
                if col > 0 {
                    out.extend_from_slice("│".as_bytes());
                }
                let cell = if self.occupied(queens, row, col) {
                    " ♛ "
                } else {
                    "   "
                };
                out.extend_from_slice(cell.as_bytes());
            }
            out.extend_from_slice("│".as_bytes());
            out.push(b'\n');
        }
        rule(out, "└", "┴", "┘");
        out.push(b'\n');
    }

    /// Whether a queen of `queens` stands on the square: a line the list does not reach has none.
    fn occupied<P: Copy + Into<u32>>(&self, queens: &[P], row: u32, col: u32) -> bool {
        let (line, position) = if self.shape.is_square() {
            (row, col)
        } else {
            (col, row)
        };
        queens
            .get(line as usize)
            .is_some_and(|&p| p.into() == position)
    }
}

/// `open` (if not 0), the positions plus `base` separated by commas, `close` (if not 0), a newline.
fn list<P: Copy + Into<u32>>(queens: &[P], base: u32, open: u8, close: u8, out: &mut Vec<u8>) {
    let mut digits = itoa::Buffer::new();
    // Listing millions of solutions spends much of its time here: one reservation, and the one- and two-digit
    // positions of the boards that can be listed whole written directly.
    out.reserve(4 * queens.len().min(1 << 16) + 3);
    if open != 0 {
        out.push(open);
    }
    for (i, &q) in queens.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // In 64 bits: position u32::MAX, 1-based, is 4294967296, not 0 (a caller's list, not yet checked).
        match u64::from(q.into()) + u64::from(base) {
            v @ 0..=9 => out.push(b'0' + v as u8),
            v @ 10..=99 => out.extend_from_slice(&[b'0' + (v / 10) as u8, b'0' + (v % 10) as u8]),
            v => out.extend_from_slice(digits.format(v).as_bytes()),
        }
    }
    if close != 0 {
        out.push(close);
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(notation: Notation, shape: Shape, ascii: bool, queens: &[u8]) -> String {
        let r = Renderer::new(notation, shape, ascii);
        let mut out = r.header();
        r.render(queens, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_drawing_of_a_list_that_is_no_solution_shows_the_queens_on_the_board() {
        // Too short, and a position off the board: the squares it names are drawn, the rest left empty.
        assert_eq!(
            text(Notation::Board, Shape::square(3), true, &[9, 1]),
            ". . .\n. Q .\n. . .\n\n"
        );
        assert_eq!(
            text(Notation::Matrix, Shape { rows: 3, cols: 2 }, false, &[2]),
            "0 0\n0 0\n1 0\n\n"
        );
        // The list notations write the list as it is.
        assert_eq!(
            text(Notation::Rows, Shape::square(3), false, &[9, 1]),
            "[10,2]\n"
        );
    }

    #[test]
    fn one_solution_in_pieces_is_its_header_and_rendering() {
        let notations = [
            Notation::Rows,
            Notation::Zero,
            Notation::Json,
            Notation::Csv,
            Notation::Board,
            Notation::Matrix,
        ];
        let long: Vec<u32> = (0..100_000).collect();
        for (shape, queens) in [
            (Shape::square(0), &[][..]),
            (Shape::square(4), &[1, 3, 0, 2][..]),
            (Shape { rows: 3, cols: 2 }, &[0, 2][..]),
            (Shape::square(100_000), &long[..]),
        ] {
            for notation in notations {
                if notation.draws() && shape.rows > 4 {
                    continue;
                }
                let r = Renderer::new(notation, shape, false);
                let mut whole = r.header();
                r.render(queens, &mut whole);
                let mut pieces = Vec::new();
                r.write_one(queens, |piece| {
                    assert!(
                        piece.len() <= PIECE + 16,
                        "a piece of {} bytes",
                        piece.len()
                    );
                    pieces.push(piece.to_vec());
                    Ok::<(), ()>(())
                })
                .unwrap();
                assert_eq!(pieces.concat(), whole, "{notation} on {shape}");
                if shape.rows == 100_000 {
                    assert!(pieces.len() > 4, "{notation}: {} pieces", pieces.len());
                }
            }
        }
    }

    #[test]
    fn lists_are_one_based_or_zero_based() {
        let four = Shape::square(4);
        assert_eq!(
            text(Notation::Rows, four, false, &[1, 3, 0, 2]),
            "[2,4,1,3]\n"
        );
        assert_eq!(
            text(Notation::Zero, four, false, &[1, 3, 0, 2]),
            "[1,3,0,2]\n"
        );
        assert_eq!(
            text(Notation::Json, four, false, &[1, 3, 0, 2]),
            "[2,4,1,3]\n"
        );
        assert_eq!(
            text(Notation::Csv, four, false, &[1, 3, 0, 2]),
            "r1,r2,r3,r4\n2,4,1,3\n"
        );
    }

    #[test]
    fn positions_of_one_two_and_three_digits_are_written_whole() {
        // The first solution of the 12 board, then positions 9 to 11 and 99 to 101 of wider boards.
        let twelve = Shape::square(12);
        let queens = [0, 2, 4, 7, 9, 11, 5, 10, 1, 6, 8, 3];
        assert_eq!(
            text(Notation::Rows, twelve, false, &queens),
            "[1,3,5,8,10,12,6,11,2,7,9,4]\n"
        );
        assert_eq!(
            text(Notation::Zero, twelve, false, &queens),
            "[0,2,4,7,9,11,5,10,1,6,8,3]\n"
        );
        let wide: [u32; 4] = [98, 99, 100, 9];
        let mut out = Vec::new();
        Renderer::new(Notation::Rows, Shape::square(200), false).render(&wide, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "[99,100,101,10]\n");
    }

    #[test]
    fn notations_are_named_as_the_command_line_names_them() {
        let names: Vec<String> = Notation::ALL.iter().map(|n| n.to_string()).collect();
        assert_eq!(names, ["rows", "zero", "board", "matrix", "json", "csv"]);
        for notation in Notation::ALL {
            assert_eq!(notation.name().parse::<Notation>().unwrap(), notation);
            // Only drawings grow with the square of the board.
            assert_eq!(
                notation.draws(),
                matches!(notation, Notation::Board | Notation::Matrix)
            );
        }
        let refused = "fen".parse::<Notation>().unwrap_err();
        assert_eq!(refused.clone(), refused);
        assert_ne!(refused, "pgn".parse::<Notation>().unwrap_err());
        let unknown = refused.to_string();
        assert_eq!(
            unknown,
            "unknown solution format 'fen': use one of rows, zero, board, matrix, json, csv"
        );
        assert_eq!(Shape::square(8).to_string(), "8");
        assert_eq!(Shape { rows: 8, cols: 6 }.to_string(), "8x6");
    }

    #[test]
    fn drawings_show_rows_of_squares() {
        let four = Shape::square(4);
        assert_eq!(
            text(Notation::Board, four, true, &[1, 3, 0, 2]),
            ". Q . .\n. . . Q\nQ . . .\n. . Q .\n\n"
        );
        assert_eq!(
            text(Notation::Matrix, four, false, &[1, 3, 0, 2]),
            "0 1 0 0\n0 0 0 1\n1 0 0 0\n0 0 1 0\n\n"
        );
        let boxed = text(Notation::Board, Shape::square(2), false, &[0, 1]);
        assert_eq!(
            boxed,
            "┌───┬───┐\n│ ♛ │   │\n├───┼───┤\n│   │ ♛ │\n└───┴───┘\n\n"
        );
    }

    #[test]
    fn degenerate_boards_are_drawn_whole() {
        // Every row of a boxed drawing has the left and the right border of its rules, however few its squares:
        // a board of no columns drew `│` alone between `┌┐` and `└┘`.
        let boxed =
            |rows, cols, queens: &[u8]| text(Notation::Board, Shape { rows, cols }, false, queens);
        assert_eq!(boxed(3, 0, &[]), "┌┐\n││\n├┤\n││\n├┤\n││\n└┘\n\n");
        assert_eq!(boxed(1, 0, &[]), "┌┐\n││\n└┘\n\n");
        assert_eq!(boxed(0, 0, &[]), "┌┐\n└┘\n\n");
        assert_eq!(boxed(1, 1, &[0]), "┌───┐\n│ ♛ │\n└───┘\n\n");
        assert_eq!(boxed(2, 1, &[1]), "┌───┐\n│   │\n├───┤\n│ ♛ │\n└───┘\n\n");
        // Without boxes a row of no squares is empty, as a row is its squares and the gaps between them.
        let ascii =
            |rows, cols, queens: &[u8]| text(Notation::Board, Shape { rows, cols }, true, queens);
        assert_eq!(ascii(1, 1, &[0]), "Q\n\n");
        assert_eq!(ascii(2, 1, &[1]), ".\nQ\n\n");
        assert_eq!(ascii(2, 0, &[]), "\n\n\n");
        // Every row of every drawing has as many borders and gaps as its rules say.
        for (rows, cols) in [(0, 0), (1, 0), (3, 0), (1, 1), (3, 1), (3, 2)] {
            let drawing = boxed(rows, cols, &vec![0; cols as usize]);
            let widths: Vec<usize> = drawing
                .lines()
                .filter(|l| !l.is_empty())
                .map(|l| l.chars().count())
                .collect();
            assert!(
                widths.iter().all(|&w| w == widths[0]),
                "{rows}x{cols}: {drawing}"
            );
        }
    }

    #[test]
    fn a_rectangle_lists_the_row_of_each_column() {
        // 3 rows, 2 columns: the queen of column 1 in row 1, the queen of column 2 in row 3.
        let shape = Shape { rows: 3, cols: 2 };
        assert_eq!(text(Notation::Rows, shape, false, &[0, 2]), "[1,3]\n");
        assert_eq!(
            text(Notation::Board, shape, true, &[0, 2]),
            "Q .\n. .\n. Q\n\n"
        );
        assert_eq!(text(Notation::Csv, shape, false, &[0, 2]), "c1,c2\n1,3\n");
    }
}

/// One placement read back from text, or what was wrong with the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The 1-based line number where the placement starts.
    pub line: usize,
    /// The placement, or why the text is not one.
    pub placement: Result<Placement, String>,
}

/// Queens read from text, on the board they claim to be on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The board: the one given for a list, the one drawn for a drawing.
    pub shape: Shape,
    /// Each queen's (row, column), 0-based, in the order written; where the text puts one where no `u32`
    /// reaches (see `stray`), the queens before it.
    pub queens: Vec<(u32, u32)>,
    /// The first queen that a list puts at a negative position or at one of 2^32 or more, off every board.
    pub stray: Option<Stray>,
}

/// A queen off every board, which the reading of a list stops at: [`crate::solutions::checker`] reports the
/// first flaw in the order written, and at the latest it is this queen's, so that the queens after it need
/// not be kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stray {
    /// Where the queen is.
    pub queen: Off,
    /// How many queens the list has in all, for a count of the wrong length.
    pub written: usize,
}

/// Where a queen off the board is. A list may put one at a whole number of any size: each is a position, off
/// the board where it is not on it, so that a long number is no less a queen than a short one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Off {
    /// Its (row, column), 0-based: a position of at most 38 digits, which an `i128` holds (to 1.7 × 10^38)
    /// with room for a base and for the 1 that 1-based messages add.
    At(i128, i128),
    /// At a number of more digits, off every board by far, whose value is not worked out: a line of a
    /// million digits is not read into a number of a million digits.
    Far {
        /// The queen's line in the list, 0-based: a row of a square, a column of a rectangle.
        line: u32,
        /// Whether the number is negative: before the board's first line rather than past its last.
        negative: bool,
        /// The number as written, as [`excerpt`] quotes it.
        number: String,
        /// The number's digits, leading zeros aside.
        digits: usize,
    },
}

/// A whole number as a list writes a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Number {
    /// A number of at most 38 digits.
    Exact(i128),
    /// A number of more digits (leading zeros aside), and whether it is negative.
    Far { negative: bool, digits: usize },
}

/// The whole number `text`, with or without a sign, of any size; `None` where it is none.
fn whole_number(text: &str) -> Option<Number> {
    // The positions of every real list, read at the pace of the standard library's; only the numbers it
    // cannot hold go the long way.
    match text.parse::<i64>() {
        Ok(v) => return Some(Number::Exact(v.into())),
        Err(e)
            if !matches!(
                e.kind(),
                IntErrorKind::PosOverflow | IntErrorKind::NegOverflow
            ) =>
        {
            return None
        }
        Err(_) => {}
    }
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if !is_number(digits) {
        return None;
    }
    let significant = digits.trim_start_matches('0');
    let digit = |b: u8| b - b'0';
    let magnitude = match significant.len() {
        0..=38 => significant
            .bytes()
            .fold(0i128, |v, b| v * 10 + i128::from(digit(b))),
        digits => return Some(Number::Far { negative, digits }),
    };
    Some(Number::Exact(if negative { -magnitude } else { magnitude }))
}

/// Reads placements in any notation, one after another: lists one per line, drawings separated by blank
/// lines. With no notation given, each placement's own text says which it is: a list starts with `[` or `(`
/// (its positions separated by commas, or by spaces where it has no comma), a CSV header or record has
/// commas, a list as other solvers print it is numbers separated by spaces with a digit from 2 to 9 among
/// them, a drawing starts with a box-drawing character, `Q` or `.`, or is made of `0` and `1`. A board of one
/// line has a CSV without commas: a header of one name (`r1`, `c1`), then records of one number, which are
/// read as records up to the first line that is neither (a blank line included), since alone a line of `1`
/// would be a drawing's. A list that contains a 0 is read as 0-based, any other as 1-based, unless the
/// notation given says which. A drawing given (`board`, `matrix`) has its format's squares alone: `Q`, `♛`
/// and `.`, boxed or not, or `1` and `0`.
///
/// A boxed drawing is read as one up to its bottom rule or a line that is no part of it, every line of it that
/// starts with a box-drawing character being its own, so that a row with a bad square is the drawing's flaw
/// rather than its end. Its rules are held to its columns and to their places, which other solvers draw fewer
/// of than `list`: a rule between each two rows or none, a top and a bottom rule or neither. A rule of one run
/// is a frame, which fits rows of any width, with bars between their squares or not (`│ . ♛ . . │`).
///
/// A CSV header is a line that starts with a letter and has a name (not a number, not empty) in every field. It
/// stands first in its CSV (the input's first line, or after a blank line or a line in another format), where
/// it has two names or more or a record of one number after it; as that line again anywhere in its CSV (files
/// of one tool joined); and as a header as `list` writes one (`r1,r2,…`, in either case, spaced or not)
/// anywhere. It says how many fields each record after it has, up to a blank line or a line that is no record:
/// a record of more or fewer is malformed. A line that starts with a letter but is no header is malformed too,
/// rather than skipped unjudged.
///
/// Lists say nothing of the board, so they are taken as square unless `shape` is given (required for a
/// rectangle's lists); drawings carry their own size, which [`crate::solutions::checker::check_placement`]
/// holds to the board given.
///
/// What is malformed, an `Err` of the entry, is text that cannot be read as queens on a board: a position
/// that is not a whole number (of any size: one too long for any board puts its queen off it), a list with an
/// empty entry, a record whose fields are not as many as its header's, a drawing whose rows are not all as
/// long or that has a square neither a queen nor empty (or of another format than the one given), a boxed
/// drawing whose rules are not of its columns, out of their places or missing (a top rule without a bottom
/// one). Whatever reads as queens is a
/// placement, even with queens off the board, a list of the wrong length or a drawing of another board: those
/// are for the checker to call invalid. A boxed drawing of a top and a bottom rule alone is a board of no rows
/// and as many columns as they show, which has no solution unless it has no columns either (the frame `list 0
/// -f board` draws).
#[derive(Debug)]
pub struct Reader<R> {
    input: R,
    number: usize,
    notation: Option<Notation>,
    shape: Option<Shape>,
    pending: Option<(usize, Line)>,
    /// The CSV header that the lines since it have all been records of, if any: each record has as many
    /// fields, and a line of one number is the next record of a one-column CSV rather than the first row of a
    /// drawing.
    header: Option<Header>,
    /// The line where the CSV that the lines since it have all been lines of starts, if any: a header of other
    /// names than `list`'s stands only there, or repeats the one there.
    csv_from: Option<usize>,
    /// The names of the header on line `csv_from`, if it is one (their digest, so that a header of millions
    /// of names is not kept twice): a line of the same names after it is that header again, as in files of
    /// one tool joined.
    csv_names: Option<[u8; 32]>,
    /// The longest line kept, and the largest drawing: [`MAX_LINE`] (smaller in tests).
    max_line: usize,
}

/// The longest line read: 1 GiB, so that every line `solve` writes reads back, up to its largest board's
/// (100,000,000 queens: 889 MB as a list, and 989 MB for the CSV header). A longer line is skipped unread and
/// reported malformed, so memory stays bounded whatever the input.
pub const MAX_LINE: usize = 1 << 30;

/// A size for a message: `128 MiB`, or bytes under a MiB.
fn size_words(bytes: usize) -> String {
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", bytes >> 30)
    } else if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// A line as read: its text, or why it has none.
type Line = Result<String, String>;

/// A CSV header: its line and how many fields it names.
#[derive(Clone, Copy, Debug)]
struct Header {
    line: usize,
    fields: usize,
}

/// At most `MAX` characters of `text`, for quoting bad input in a message without echoing all of it. Its control
/// characters and line separators are escaped (`\r`, `\u{1b}`), so that a message stays one line of plain text
/// however odd the input: a carriage return or a terminal's escape sequence quoted as it is would overwrite the
/// verdicts on a terminal, or split one line of them in two for a reader of lines.
pub fn excerpt(text: &str) -> String {
    const MAX: usize = 60;
    let (shown, cut) = match text.char_indices().nth(MAX) {
        None => (text, false),
        Some((cut, _)) => (&text[..cut], true),
    };
    let mut quoted = String::with_capacity(shown.len());
    for c in shown.chars() {
        // Invisible characters too (a byte-order mark, zero-width spaces and joiners, the marks that reorder
        // text from right to left), or a line that reads as a solution would be quoted as not one.
        let invisible = matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}');
        // A backslash too, so that a quoted `\t` is the tab it stands for, and `\\t` a backslash and a `t`.
        if c.is_control() || invisible || matches!(c, '\u{2028}' | '\u{2029}' | '\\') {
            quoted.extend(c.escape_default());
        } else {
            quoted.push(c);
        }
    }
    if cut {
        quoted.push_str(&format!("… ({} bytes in all)", text.len()));
    }
    quoted
}

impl<R: std::io::BufRead> Reader<R> {
    /// Reads from `input`; `notation` and `shape` fix what the text would otherwise decide.
    pub fn new(input: R, notation: Option<Notation>, shape: Option<Shape>) -> Reader<R> {
        Reader {
            input,
            number: 0,
            notation,
            shape,
            pending: None,
            header: None,
            csv_from: None,
            csv_names: None,
            max_line: MAX_LINE,
        }
    }

    /// The next line with its number: its text (without the line end, and without a byte-order mark at its
    /// start), or why it cannot be read as text (not UTF-8, longer than [`MAX_LINE`], or lines ended by `\r`
    /// alone).
    fn next_line(&mut self) -> Option<std::io::Result<(usize, Line)>> {
        use std::io::{BufRead, Read};
        if let Some(line) = self.pending.take() {
            return Some(Ok(line));
        }
        let mut bytes = Vec::new();
        let limit = self.max_line as u64 + 1;
        match (&mut self.input).take(limit).read_until(b'\n', &mut bytes) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(e) => return Some(Err(e)),
        }
        self.number += 1;
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        } else if bytes.len() > self.max_line {
            // Skip the rest of the line without keeping it.
            let mut skipped = bytes.len();
            drop(bytes);
            loop {
                let chunk = match self.input.fill_buf() {
                    Ok(chunk) => chunk,
                    Err(e) => return Some(Err(e)),
                };
                if chunk.is_empty() {
                    break;
                }
                // The line's bytes, then its end, which is not the line's.
                let (used, end) = match chunk.iter().position(|&b| b == b'\n') {
                    Some(i) => (i, true),
                    None => (chunk.len(), false),
                };
                self.input.consume(used + usize::from(end));
                skipped += used;
                if end {
                    break;
                }
            }
            let why = format!(
                "the line is longer than {} ({skipped} bytes): not a solution this reads",
                size_words(self.max_line)
            );
            return Some(Ok((self.number, Err(why))));
        }
        // At the start of any line, not only the first: files joined (`cat a.txt b.txt | nqueens check`) keep
        // each one's mark, which is invisible and no part of a solution.
        if bytes.starts_with(b"\xEF\xBB\xBF") {
            bytes.drain(..3);
        }
        let line = String::from_utf8(bytes)
            .map_err(|e| {
                format!(
                    "not UTF-8 text (byte {} of the line is not): not a solution in any format",
                    e.utf8_error().valid_up_to() + 1
                )
            })
            .and_then(|text| {
                // Lines ended by `\r` alone (old Mac text) read as one line, whose positions, `\r` being
                // white space, would run on into one list and be judged invalid: say why instead. One left at
                // the end (`\r\r\n`) is only white space.
                if text.trim_end().contains('\r') {
                    return Err(format!(
                        "'{}' has a carriage return (\\r) inside it: lines ended by \\r alone (old Mac text) \
                         read as one; end each with \\n (`tr '\\r' '\\n' < FILE`)",
                        excerpt(&text)
                    ));
                }
                Ok(text)
            });
        Some(Ok((self.number, line)))
    }

    /// The number of fields of `line`, a line of a CSV that starts with a letter, as a header, or why it is
    /// none. A line skipped as a header is a line unjudged, so that it is one only where a header stands: one
    /// as `list` writes (`r1,r2,…`) anywhere (files joined), and a header of other names first in its CSV or
    /// as a repeat of that one (files of another tool joined). First, a header names at least two fields, or
    /// has a record of one number after it: alone, one name is as likely a drawing's row read as a CSV
    /// (`Q . . .` under `--format csv`).
    fn csv_header(&mut self, line: &str) -> std::io::Result<Result<usize, String>> {
        let fields = match header_fields(line) {
            Ok(fields) => fields,
            Err(why) => return Ok(Err(why)),
        };
        if is_lists_header(line) {
            return Ok(Ok(fields));
        }
        let names = names_digest(line);
        let from = self.csv_from;
        Ok(match from {
            Some(_) if self.csv_names == Some(names) => Ok(fields),
            Some(from) => Err(format!(
                "'{}' is neither a CSV record nor a header: a header is the first line of a CSV (this one starts \
                 on line {from}), that line again, or one as `list -f csv` writes (r1,r2,…)",
                excerpt(line)
            )),
            None if fields > 1 || self.one_number_next()? => {
                self.csv_names = Some(names);
                Ok(fields)
            }
            None => Err(format!(
                "'{}' is neither a CSV record nor a header: a header of one name is one as `list -f csv` writes \
                 (r1) or has a record of one number after it",
                excerpt(line)
            )),
        })
    }

    /// Whether the next line is a CSV record of one number. It is put back, to be read next all the same.
    fn one_number_next(&mut self) -> std::io::Result<bool> {
        let Some(next) = self.next_line() else {
            return Ok(false);
        };
        let next = next?;
        let one = matches!(&next.1, Ok(text) if is_integer(text.trim()));
        self.pending = Some(next);
        Ok(one)
    }

    /// The drawing whose first line, `first`, is line `number`, read up to a blank line or the end. It is read
    /// one row at a time and only its queens are kept, never its lines or squares, so that memory goes with the
    /// queens drawn (a drawing of millions of rows of one square each takes next to none). A drawing of more
    /// than [`MAX_LINE`] bytes in all is read to its end without being kept, and is malformed. Alone, a row of
    /// numbers is a list (see [`Reader::next`]).
    ///
    /// A boxed drawing, whose first line starts with a box-drawing character, ends at its bottom rule, and its
    /// lines are its own up to there wherever they start with one: a row of it with a square that is no queen
    /// (`│ ♕ │`) is a flaw of the drawing, not the end of it and a line of no format after. One drawn without
    /// a bottom rule (rows alone) ends where its lines do, or at the top rule of the next.
    fn drawing(
        &mut self,
        first: String,
        number: usize,
    ) -> std::io::Result<Result<Placement, String>> {
        let mut size = first.len();
        let boxed = first.trim_start().starts_with(BOXED);
        let ends = |text: &str| boxed && text.trim_start().starts_with('└');
        let mut done = ends(&first);
        // Kept until a second row comes, since alone it may be a list.
        let mut first = Some(first);
        let mut grid = Grid::new(self.notation);
        while let Some(line) = (!done).then(|| self.next_line()).flatten() {
            match line? {
                (_, Ok(text)) if text.trim().is_empty() => break,
                // Read by its looks, a drawing also ends at a line that cannot be one of its rows (the next
                // solution of a list with no blank line between), and any drawing at the top rule of the next
                // boxed one: that line is read on its own.
                (line, Ok(text))
                    if text.trim_start().starts_with('┌')
                        || self.notation.is_none()
                            && !(if boxed {
                                text.trim_start().starts_with(BOXED)
                            } else {
                                is_drawing_row(&text)
                            }) =>
                {
                    self.pending = Some((line, Ok(text)));
                    break;
                }
                (line, Ok(text)) => {
                    size += text.len();
                    if let Some(first) = first.take() {
                        grid.add(number, &first);
                    }
                    done = ends(&text);
                    if size > self.max_line {
                        // Nothing more is kept, and what was is let go.
                        grid = Grid::new(self.notation);
                    } else {
                        grid.add(line, &text);
                    }
                }
                // A line that is not text ends the drawing and is reported on its own.
                bad @ (_, Err(_)) => {
                    self.pending = Some(bad);
                    break;
                }
            }
        }
        if size > self.max_line {
            return Ok(Err(format!(
                "the drawing is larger than {} ({size} bytes): not a board this reads",
                size_words(self.max_line)
            )));
        }
        Ok(match first {
            // One row of 0s and 1s alone is no board's drawing but a 1x1's: it is read as a list of
            // positions, as a solver that put every queen in one row or column prints it (`1 1 1 1`,
            // `0 0 0 0`), and as a 0-based list of n = 1 is written (`0`).
            Some(row) if self.notation.is_none() && is_numbers(&row) => {
                self.list(row.trim(), None, Separator::Space, "entry")
            }
            Some(row) => {
                grid.add(number, &row);
                grid.finish()
            }
            None => grid.finish(),
        })
    }
}

/// What separates the positions of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Separator {
    Comma,
    Space,
}

impl Separator {
    /// The separator of the positions between a list's brackets: commas where there is one, spaces otherwise
    /// (`[2 4 1 3]`, as some solvers print a list).
    fn within_brackets(inner: &str) -> Separator {
        if inner.contains(',') {
            Separator::Comma
        } else {
            Separator::Space
        }
    }
}

/// How a placement's text is written, as far as reading goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A bracketed list, `[2,4,1,3]`, `(2, 4, 1, 3)` or `[2 4 1 3]`.
    List {
        base: Option<u32>,
    },
    /// Positions separated by commas, without brackets.
    Csv {
        base: Option<u32>,
    },
    /// Positions separated by spaces or tabs, as many solvers print them: `2 4 1 3`.
    Words,
    Drawing,
    Unknown,
}

impl<R: std::io::BufRead> Iterator for Reader<R> {
    type Item = std::io::Result<Entry>;

    fn next(&mut self) -> Option<std::io::Result<Entry>> {
        loop {
            let (number, text) = match self.next_line()? {
                Ok((number, Ok(text))) => (number, text),
                Ok((number, Err(why))) => {
                    return Some(Ok(Entry {
                        line: number,
                        placement: Err(why),
                    }))
                }
                Err(e) => return Some(Err(e)),
            };
            let trimmed = text.trim();
            if trimmed.is_empty() {
                // A CSV has no blank lines: one ends it.
                self.header = None;
                self.csv_from = None;
                self.csv_names = None;
                continue;
            }
            let kind = match self.notation {
                Some(Notation::Rows | Notation::Json) => Kind::List { base: Some(1) },
                Some(Notation::Zero) => Kind::List { base: Some(0) },
                Some(Notation::Csv) => Kind::Csv { base: Some(1) },
                Some(Notation::Board | Notation::Matrix) => Kind::Drawing,
                None if self.header.is_some() && is_integer(trimmed) => Kind::Csv { base: None },
                None => guess(trimmed),
            };
            if !matches!(kind, Kind::Csv { .. }) {
                self.header = None;
                self.csv_from = None;
                self.csv_names = None;
            } else if trimmed.starts_with(|c: char| c.is_ascii_alphabetic()) {
                // A CSV header names the lines: it is no placement, but says how long the records are.
                self.header = None;
                let header = match self.csv_header(trimmed) {
                    Ok(header) => header,
                    Err(e) => return Some(Err(e)),
                };
                self.csv_from.get_or_insert(number);
                match header {
                    Ok(fields) => {
                        self.header = Some(Header {
                            line: number,
                            fields,
                        });
                        continue;
                    }
                    Err(why) => {
                        return Some(Ok(Entry {
                            line: number,
                            placement: Err(why),
                        }))
                    }
                }
            }
            if matches!(kind, Kind::Csv { .. }) {
                self.csv_from.get_or_insert(number);
            }
            let placement = match kind {
                Kind::List { base } => {
                    let inner = [('[', ']'), ('(', ')')].into_iter().find_map(|(open, close)| {
                        trimmed.strip_prefix(open)?.strip_suffix(close)
                    });
                    inner
                        .ok_or_else(|| self.not_a_list(trimmed))
                        .and_then(|inner| {
                            self.list(inner, base, Separator::within_brackets(inner), "entry")
                        })
                }
                Kind::Csv { base } => match self.header {
                    // Checked before the fields are read, since a field too many or too few makes the
                    // record no placement, whatever is in the fields.
                    Some(header) if fields(trimmed) != header.fields => Err(format!(
                        "the record has {}, but the header on line {} has {}",
                        plural(fields(trimmed), "field"),
                        header.line,
                        header.fields
                    )),
                    _ => self.list(trimmed, base, Separator::Comma, "field"),
                },
                Kind::Words => self.list(trimmed, None, Separator::Space, "entry"),
                Kind::Unknown => Err(format!(
                    "'{}' is not a solution in any format: write a list such as [2,4,1,3] or 2 4 1 3, a CSV \
                     record, or a drawn board",
                    excerpt(trimmed)
                )),
                Kind::Drawing => match self.drawing(text, number) {
                    Ok(placement) => placement,
                    Err(e) => return Some(Err(e)),
                },
            };
            return Some(Ok(Entry {
                line: number,
                placement,
            }));
        }
    }
}

/// What a placement's first line says it is. Lists are 0-based where a 0 occurs (a solution of 0-based
/// positions always has one, a 1-based one never), except where `--format` says otherwise.
fn guess(line: &str) -> Kind {
    if line.starts_with(BOXED) {
        // Whatever follows: a boxed row with a square that is no queen is the drawing's flaw to report.
        Kind::Drawing
    } else if line.starts_with(['[', '(']) {
        Kind::List { base: None }
    } else if line.contains(',') {
        Kind::Csv { base: None }
    } else if is_numbers(line) && line.contains(|c: char| "23456789+-".contains(c)) {
        // A row of a drawing is all 0 and 1, and has no sign; every list of four queens or more has a 2 and a
        // 3 in it.
        Kind::Words
    } else if is_drawing_row(line) {
        Kind::Drawing
    } else if is_column_name(line) {
        // After the drawings, so that a line that reads as both, `Q1`, stays a drawing's row rather than a
        // header skipped unread.
        Kind::Csv { base: None }
    } else {
        Kind::Unknown
    }
}

/// Whether `line` is whole numbers separated by spaces and nothing else, as a list of other solvers is
/// written.
fn is_numbers(line: &str) -> bool {
    line.split_whitespace().all(is_integer)
}

/// Whether `line` can be a row of a drawing without boxes: queens and empty squares, nothing else.
fn is_drawing_row(line: &str) -> bool {
    line.chars()
        .all(|c| c.is_whitespace() || "Qq.01♛".contains(c))
}

/// The characters that start the lines of a boxed drawing: its rules (`┌`, `├`, `└`) and its rows (`│`).
const BOXED: [char; 4] = ['┌', '├', '└', '│'];

/// Whether `line` is one name of a CSV header as `list` writes them (`r1`, `c1`): letters, then a number. It is
/// the whole header of a board of one line, which has no comma to tell it by.
fn is_column_name(line: &str) -> bool {
    let number = line.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    number.len() < line.len() && is_number(number)
}

/// Whether `text` is digits and nothing else.
fn is_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `text` is a whole number, with or without a sign, and nothing else: a position, in or off the
/// board, and a record of a one-column CSV.
fn is_integer(text: &str) -> bool {
    is_number(text.strip_prefix(['+', '-']).unwrap_or(text))
}

/// The fields of a CSV line.
fn fields(line: &str) -> usize {
    line.bytes().filter(|&b| b == b',').count() + 1
}

/// `count` and `noun`, plural where it is not 1.
fn plural(count: usize, noun: &str) -> String {
    format!("{count} {noun}{}", if count == 1 { "" } else { "s" })
}

/// Whether `line` is a header as `list -f csv` writes one: `r1,r2,…` for a square, `c1,c2,…` for a
/// rectangle, numbered from 1.
fn is_lists_header(line: &str) -> bool {
    let mut digits = itoa::Buffer::new();
    // Its names as any header's are read: trimmed (`r1, r2`), and in either case (`R1,R2`), since a
    // spreadsheet's or another tool's may be written so.
    ['r', 'c'].into_iter().any(|letter| {
        (1u64..).zip(line.split(',')).all(|(i, name)| {
            name.trim()
                .strip_prefix([letter, letter.to_ascii_uppercase()])
                == Some(digits.format(i))
        })
    })
}

/// The digest of the names of `line`, a CSV header, each trimmed: two headers of the same names, spaced alike or
/// not, have the same.
fn names_digest(line: &str) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for name in line.split(',') {
        hash.update(name.trim());
        hash.update(",");
    }
    hash.finalize().into()
}

/// The number of fields of `line`, which starts with a letter as a CSV header does, as one, or why it is none:
/// a header names every field, and a line that has a number or nothing in one is more likely a solution with
/// words before it (`Solution 1: 2,4,1,3`) than names. So is one with `(`, `)` or `=` in a field, the marks of
/// placements written out (`Solution 2: (0,0), (1,1)`, `row1=1, row2=2`), which a header taken for names would
/// have skipped unjudged. A name is any other text (`row.1`, `r[1]`, pandas' `Unnamed: 0`); where a header can
/// stand is for [`Reader::csv_header`] to say.
fn header_fields(line: &str) -> Result<usize, String> {
    for (i, name) in line.split(',').map(str::trim).enumerate() {
        let field = i + 1;
        let not = if name.is_empty() {
            format!("its field {field} is empty")
        } else if is_integer(name) {
            format!("its field {field}, '{}', is a number", excerpt(name))
        } else if let Some(mark) = name.chars().find(|c| "()=".contains(*c)) {
            format!(
                "its field {field}, '{}', has '{mark}', as placements written out do, and names do not",
                excerpt(name)
            )
        } else {
            continue;
        };
        return Err(format!(
            "'{}' starts with a name, as a CSV header does, but {not}",
            excerpt(line)
        ));
    }
    Ok(fields(line))
}

impl<R> Reader<R> {
    /// Why `line`, read as a bracketed list, is not one. The example is one of the user's format: a 1-based
    /// example for `--format zero` would be read with a queen off the board.
    fn not_a_list(&self, line: &str) -> String {
        let shown = excerpt(line);
        if let Some(open) = line.chars().next().filter(|c| ['[', '('].contains(c)) {
            let close = if open == '[' { ']' } else { ')' };
            return format!(
                "'{shown}' is not a list: it opens with '{open}' but does not end with '{close}'"
            );
        }
        let (name, example) = match self.notation {
            Some(Notation::Zero) => ("zero", "[1,3,0,2]"),
            Some(Notation::Json) => ("json", "[2,4,1,3]"),
            _ => ("rows", "[2,4,1,3]"),
        };
        format!(
            "'{shown}' is not a list as --format {name} writes one, in brackets: {example}; without --format, \
             positions separated by spaces or commas are read too"
        )
    }

    /// A list of positions separated by `separator`, each one an `item` (`entry`, `field`) in messages; `base` 0
    /// or 1, or `None` to decide by whether a 0 occurs.
    fn list(
        &self,
        text: &str,
        base: Option<u32>,
        separator: Separator,
        item: &str,
    ) -> Result<Placement, String> {
        // Two passes over the text rather than a list of its numbers: a long line costs its queens only.
        let blank = text.trim().is_empty();
        let values = || {
            let words = separator == Separator::Space;
            let last = text.bytes().filter(|&b| b == b',').count();
            text.split(move |c: char| if words { c.is_whitespace() } else { c == ',' })
                // Spaces may be many between two numbers; commas are one, around each position.
                .filter(move |v| !(blank || words && v.is_empty()))
                .enumerate()
                .map(move |(i, v)| {
                    let v = v.trim();
                    let number = i + 1;
                    if v.is_empty() {
                        // Only commas leave an empty entry; where it is says which comma is one too many.
                        let between = match i {
                            0 => "nothing before the first comma",
                            _ if i == last => "nothing after the last comma",
                            _ => "nothing between two commas",
                        };
                        return Err(format!("{item} {number} is empty ({between})"));
                    }
                    // A whole number, with or without a sign, is a position, on the board or off it,
                    // whatever its size.
                    match whole_number(v) {
                        Some(n) => Ok((n, v)),
                        None => Err(format!(
                            "{item} {number}, '{}', is not a whole number",
                            excerpt(v)
                        )),
                    }
                })
        };
        let mut count = 0usize;
        let mut zero = false;
        for v in values() {
            zero |= v?.0 == Number::Exact(0);
            count += 1;
        }
        let base = base.unwrap_or(if zero { 0 } else { 1 });
        let shape = self
            .shape
            .unwrap_or(Shape::square(u32::try_from(count).unwrap_or(u32::MAX)));
        let mut queens = Vec::with_capacity(count);
        for (i, v) in values().enumerate() {
            let (v, text) = v?;
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let queen = match v {
                // The 0-based position: a 1-based list's 0 is -1, off the board as any negative position is.
                Number::Exact(v) => {
                    let position = v - i128::from(base);
                    match u32::try_from(position) {
                        Ok(position) => {
                            queens.push(shape.square_of(index, position));
                            continue;
                        }
                        Err(_) if shape.is_square() => Off::At(index.into(), position),
                        Err(_) => Off::At(position, index.into()),
                    }
                }
                Number::Far { negative, digits } => Off::Far {
                    line: index,
                    negative,
                    number: excerpt(text),
                    digits,
                },
            };
            return Ok(Placement {
                shape,
                queens,
                stray: Some(Stray {
                    queen,
                    written: count,
                }),
            });
        }
        Ok(Placement {
            shape,
            queens,
            stray: None,
        })
    }
}

/// A drawing read a row at a time: box-drawing characters with a crown or `Q` for a queen, `Q` and `.`, or `1`
/// and `0`. Its rows are of the board, which in a boxed drawing are the lines between its rules, if it has any. It
/// keeps the queens in the order written (row by row) and the first flaw of the text, nothing of the rows
/// themselves.
#[derive(Default)]
struct Grid {
    /// The drawing's format as `--format` gives it, whose squares alone it has; any drawing's without one.
    format: Option<Notation>,
    /// Whether the drawing is boxed: its first line starts with a box-drawing character.
    boxed: bool,
    /// What the last line read was, for the order of a boxed drawing's lines (`None` before the first).
    last: Option<Part>,
    /// The last line read, where a boxed drawing cut short ends.
    last_line: usize,
    /// The rows of the board read so far (a boxed drawing's rules between them are none).
    rows: usize,
    /// The squares of row 1.
    width: Option<usize>,
    /// The line, the columns (runs of `─`) and the part of a boxed drawing's first rule, which every rule after
    /// it has as many columns as: the width of its rows, and of a drawing of no rows, the board of 0 rows and
    /// that many columns (the frame of `list 0`, `┌┐` and `└┘`, has none). A rule of one run is a frame, which
    /// fits rows of any width (`┌─────────┐` over `│ . ♛ . . │`).
    ruled: Option<(usize, usize, Part)>,
    /// Whether a boxed drawing starts with its top rule, and so ends with its bottom rule.
    framed: bool,
    /// Whether a boxed drawing has a rule between its rows 1 and 2, and so between each two (`None` before its
    /// row 2).
    between: Option<bool>,
    /// Each queen's (row, column), 0-based; none kept once the text has a flaw.
    queens: Vec<(u32, u32)>,
    /// The first square that is neither a queen nor empty, or of another format than the one given: whatever
    /// the rest, the drawing is not read on.
    bad_square: Option<String>,
    /// The first flaw of the drawing's layout: a row not as long as the first, a rule out of place or not of
    /// the drawing's columns.
    bad_layout: Option<String>,
}

/// A line of a boxed drawing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// Its first line, `┌───┬───┐`.
    Top,
    /// A row of the board, `│ ♛ │   │`.
    Row,
    /// A rule between two rows, `├───┼───┤`.
    Between,
    /// Its last line, `└───┴───┘`.
    Bottom,
}

impl Part {
    /// The part whose line `line` (trimmed) starts as it does, with its corners and junction if it is a rule.
    fn of(line: &str) -> Option<(Part, Option<[char; 3]>)> {
        Some(match line.chars().next()? {
            '┌' => (Part::Top, Some(['┌', '┬', '┐'])),
            '├' => (Part::Between, Some(['├', '┼', '┤'])),
            '└' => (Part::Bottom, Some(['└', '┴', '┘'])),
            '│' => (Part::Row, None),
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Part::Top => "a top rule",
            Part::Row => "a row",
            Part::Between => "a rule between rows",
            Part::Bottom => "a bottom rule",
        }
    }

    /// The part of a given drawing: `the top rule`.
    fn the(self) -> String {
        format!("the {}", &self.name()[2..])
    }
}

/// The columns of `rule` (trimmed), runs of `─` between `left` and `right` separated by `junction`, or `None`
/// where it is not written so.
fn rule_columns(rule: &str, [left, junction, right]: [char; 3]) -> Option<usize> {
    let inner = rule.strip_prefix(left)?.strip_suffix(right)?;
    if inner.is_empty() {
        return Some(0);
    }
    let mut columns = 0;
    for run in inner.split(junction) {
        if run.is_empty() || !run.chars().all(|c| c == '─') {
            return None;
        }
        columns += 1;
    }
    Some(columns)
}

/// How a rule of `columns` columns is written, for a message; any number of them where `None`.
fn rule_pattern([left, junction, right]: [char; 3], columns: Option<usize>) -> String {
    match columns {
        Some(0) => format!("{left}{right}"),
        Some(1) => format!("{left}, a run of ─, then {right}"),
        Some(n) => format!("{left}, {n} runs of ─ separated by {junction}, then {right}"),
        None => format!("{left}, runs of ─ separated by {junction}, then {right}"),
    }
}

/// The squares of a row of a drawing, as its text, one after another, without a list of them.
#[derive(Clone)]
enum Squares<'a> {
    /// Separated by white space: `. Q . .`.
    Words(std::str::SplitWhitespace<'a>),
    /// One a character, the rest of the row: `.Q..`.
    Chars(&'a str),
    /// Between the bars of a boxed row, its borders aside: `│ ♛ │   │`.
    Bars(std::str::Split<'a, char>),
}

impl<'a> Squares<'a> {
    /// The squares of a row without bars: separated by white space where it has some, one a character
    /// otherwise.
    fn plain(row: &'a str) -> Squares<'a> {
        if row.contains(char::is_whitespace) {
            Squares::Words(row.split_whitespace())
        } else {
            Squares::Chars(row)
        }
    }
}

impl<'a> Iterator for Squares<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        match self {
            Squares::Words(words) => words.next(),
            Squares::Chars(rest) => {
                let c = rest.chars().next()?;
                let (square, after) = rest.split_at(c.len_utf8());
                *rest = after;
                Some(square)
            }
            Squares::Bars(bars) => bars.next(),
        }
    }
}

/// What a square of a drawing is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Square {
    Queen,
    Empty,
}

/// The square `text` (trimmed) as drawings in `format` draw it, or as any drawing does for `None`.
fn square(text: &str, format: Option<Notation>) -> Option<Square> {
    let board = || match text {
        "♛" | "Q" | "q" => Some(Square::Queen),
        "" | "." => Some(Square::Empty),
        _ => None,
    };
    let matrix = || match text {
        "1" => Some(Square::Queen),
        "0" => Some(Square::Empty),
        _ => None,
    };
    match format {
        Some(Notation::Matrix) => matrix(),
        Some(Notation::Board) => board(),
        _ => board().or_else(matrix),
    }
}

/// The squares of a drawing's format, for a message: `--format board (♛ or Q for a queen, . for an empty
/// square)`.
fn format_squares(format: Notation) -> &'static str {
    match format {
        Notation::Matrix => "1 for a queen, 0 for an empty square",
        _ => "♛ or Q for a queen, . or a blank for an empty square",
    }
}

impl Grid {
    /// A drawing in `format`, or in any drawing's format for `None` (or a format that draws none).
    fn new(format: Option<Notation>) -> Grid {
        Grid {
            format: format.filter(|f| f.draws()),
            ..Grid::default()
        }
    }

    /// Reads `row`, line `line` of the input.
    fn add(&mut self, line: usize, row: &str) {
        let row = row.trim();
        if self.bad_square.is_some() {
            return;
        }
        if self.last_line == 0 {
            self.boxed = row.starts_with(BOXED);
            if self.boxed && self.format == Some(Notation::Matrix) {
                self.bad_square = Some(format!(
                    "the drawing (line {line}) is boxed, as --format board draws one, not rows of 1 and 0 as \
                     --format matrix writes them; without --format, either is read"
                ));
                return;
            }
        }
        self.last_line = line;
        if !self.boxed {
            return self.add_row(line, row, Squares::plain(row));
        }
        let Some((part, corners)) = Part::of(row) else {
            // Only where --format says the text is a drawing: read by its looks, the drawing ended before.
            return self.layout(format!(
                "line {line} of the drawing, '{}', is neither a row nor a rule of a boxed drawing, which starts \
                 each with a box-drawing character",
                excerpt(row)
            ));
        };
        if let Some(why) = self.out_of_place(part) {
            self.layout(format!(
                "line {line} of the drawing, '{}', is {}{why}",
                excerpt(row),
                part.name()
            ));
        }
        self.last = Some(part);
        let Some(corners) = corners else {
            let after = row.strip_prefix('│').unwrap_or(row);
            let inner = after.strip_suffix('│').unwrap_or_else(|| {
                self.layout(format!(
                    "row {} of the drawing (line {line}), '{}', does not end with │, as a row of a boxed drawing \
                     does",
                    self.rows + 1,
                    excerpt(row)
                ));
                after
            });
            let squares = if inner.is_empty() {
                // `││`, the row of a board of no columns.
                Squares::Chars("")
            } else if inner.contains('│') || inner.trim().is_empty() {
                Squares::Bars(inner.split('│'))
            } else {
                // A frame around a row without bars between its squares: `│ . ♛ . . │`, and `│ ♛ │`.
                Squares::plain(inner.trim())
            };
            return self.add_row(line, row, squares);
        };
        let read = rule_columns(row, corners);
        let first_rule = self.ruled.is_none();
        let expected = match (read, self.ruled) {
            (Some(read), None) => {
                self.ruled = Some((line, read, part));
                // A rule after row 1 (the drawing has no top rule) has its columns, or is a frame.
                match self.width {
                    Some(width) if read != width && read != 1 => Some(Some(width)),
                    _ => None,
                }
            }
            (Some(read), Some((_, columns, _))) if read == columns => None,
            (_, ruled) => Some(ruled.map(|(_, columns, _)| columns).or(self.width)),
        };
        if let Some(columns) = expected {
            let of = columns.map_or(String::new(), |c| format!(" of {}", plural(c, "column")));
            // Before any other rule, one run is a frame of any width, the rule's other form.
            let frame = match columns {
                Some(c) if first_rule && c != 1 => " (or a single run of ─, a frame)",
                _ => "",
            };
            self.layout(format!(
                "line {line} of the drawing, '{}', is not {}{of}: {}{frame}",
                excerpt(row),
                part.name(),
                rule_pattern(corners, columns)
            ));
        }
    }

    /// Why a boxed drawing's next line, `part`, is out of its place, as the end of a message that names it, or
    /// `None` where it is in its place: a boxed drawing is its rows, with a rule between each two or none, and a
    /// top and a bottom rule around them or neither (`list -f board` draws them all; other solvers, some of
    /// them or none). Notes what the drawing has shown so far of its layout.
    fn out_of_place(&mut self, part: Part) -> Option<String> {
        const LAYOUT: &str =
            "a boxed drawing is its rows, with a rule between each two or none, and a top and a \
                              bottom rule around them or neither";
        let rows = self.rows;
        Some(match (self.last, part) {
            (None, Part::Top) => {
                self.framed = true;
                return None;
            }
            (None, Part::Row) | (Some(Part::Top | Part::Between), Part::Row) => return None,
            // The board of no rows: `┌┐` and `└┘`, the frame of `list 0`.
            (Some(Part::Top), Part::Bottom) => return None,
            (None, _) => format!(", where its top rule or its first row belongs: {LAYOUT}"),
            (Some(last @ (Part::Top | Part::Between)), _) => {
                format!(" right after {}: {LAYOUT}", last.the())
            }
            // Neither comes after a row: a top rule starts the next drawing, and a bottom rule ends this one.
            (Some(Part::Bottom), _) | (Some(Part::Row), Part::Top) => {
                format!(" after the drawing's row {rows}: {LAYOUT}")
            }
            (Some(Part::Row), Part::Bottom) if self.framed => return None,
            (Some(Part::Row), Part::Bottom) => {
                format!(", but the drawing has no top rule: {LAYOUT}")
            }
            (Some(Part::Row), Part::Row) => match self.between {
                Some(true) => format!(
                    " with no rule between it and row {rows}, but rows 1 and 2 have one: a boxed drawing has a \
                     rule between each two rows or none"
                ),
                _ => {
                    self.between = Some(false);
                    return None;
                }
            },
            (Some(Part::Row), Part::Between) => match self.between {
                Some(false) => format!(
                    " after row {rows}, but rows 1 and 2 have none between them: a boxed drawing has a rule \
                     between each two rows or none"
                ),
                _ => {
                    self.between = Some(true);
                    return None;
                }
            },
        })
    }

    /// Notes `why` as the drawing's flaw of layout, unless it has one already.
    fn layout(&mut self, why: String) {
        if self.bad_layout.is_none() {
            self.bad_layout = Some(why);
            self.queens = Vec::new();
        }
    }

    /// Reads the squares of `row`, line `line` of the input, the next row of the board.
    fn add_row(&mut self, line: usize, row: &str, squares: Squares<'_>) {
        let index = self.rows;
        self.rows += 1;
        let keep = self.bad_layout.is_none();
        let mut count = 0;
        for (i, text) in squares.clone().enumerate() {
            let text = text.trim();
            match square(text, self.format) {
                Some(Square::Queen) if keep => self.queens.push((index as u32, i as u32)),
                Some(_) => {}
                None => {
                    self.bad_square = Some(self.not_a_square(line, index, i, text, row, squares));
                    self.queens = Vec::new();
                    return;
                }
            }
            count = i + 1;
        }
        // Held to the drawing's rules, unless they are a frame, which has no columns of its own.
        let (width, of) = match (
            self.ruled.filter(|&(_, columns, _)| columns != 1),
            self.width,
        ) {
            (Some((ruled, columns, part)), _) => (
                columns,
                format!(
                    "{} (line {ruled}) has {}",
                    part.the(),
                    plural(columns, "column")
                ),
            ),
            (None, Some(width)) => (width, format!("row 1 has {width}")),
            (None, None) => {
                self.width = Some(count);
                return;
            }
        };
        self.width.get_or_insert(count);
        if count != width {
            self.layout(format!(
                "row {} of the drawing (line {line}) has {}, but {of}",
                index + 1,
                plural(count, "square")
            ));
        }
    }

    /// Why square `i` of row `index` (0-based), `text`, is none: neither a queen nor an empty square, or, in
    /// a row all of another format's squares than the one given, of that format.
    fn not_a_square(
        &self,
        line: usize,
        index: usize,
        i: usize,
        text: &str,
        row: &str,
        mut squares: Squares<'_>,
    ) -> String {
        if let Some(format) = self.format {
            let other = if format == Notation::Matrix {
                Notation::Board
            } else {
                Notation::Matrix
            };
            if squares.all(|s| square(s.trim(), Some(other)).is_some()) {
                return format!(
                    "row {} of the drawing (line {line}), '{}', is not a row as --format {format} writes one ({}): \
                     it looks like a row of --format {other}; without --format, either is read",
                    index + 1,
                    excerpt(row),
                    format_squares(format)
                );
            }
        }
        let of_format = self.format.map_or(String::new(), |f| {
            format!(" of --format {f} ({})", format_squares(f))
        });
        format!(
            "square {} of row {} of the drawing (line {line}), '{}', is neither a queen nor an empty square{of_format}",
            i + 1,
            index + 1,
            excerpt(text)
        )
    }

    /// The placement drawn, or the first flaw of its text: a square that is neither a queen nor empty, then the
    /// first flaw of its layout, then the bottom rule that a boxed drawing lacks.
    fn finish(self) -> Result<Placement, String> {
        if let Some(why) = self.bad_square.or(self.bad_layout) {
            return Err(why);
        }
        let columns = self.ruled.map(|(_, columns, _)| columns).or(self.width);
        if self.framed && self.last != Some(Part::Bottom) {
            return Err(format!(
                "the boxed drawing ends on line {} without its bottom rule ({})",
                self.last_line,
                rule_pattern(['└', '┴', '┘'], columns)
            ));
        }
        if self.last == Some(Part::Between) {
            return Err(format!(
                "the boxed drawing ends on line {} with a rule between rows, and no row after it",
                self.last_line
            ));
        }
        Ok(Placement {
            shape: Shape {
                rows: self.rows as u32,
                cols: self.width.or(self.ruled.map(|(_, c, _)| c)).unwrap_or(0) as u32,
            },
            queens: self.queens,
            stray: None,
        })
    }
}

#[cfg(test)]
mod reading {
    use super::*;

    fn read(text: &str, notation: Option<Notation>, shape: Option<Shape>) -> Vec<Entry> {
        Reader::new(text.as_bytes(), notation, shape)
            .collect::<std::io::Result<_>>()
            .unwrap()
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_bad_bytes_spoil_their_line_only() {
        let input: &[u8] = b"\xEF\xBB\xBF[2,4,1,3]\r\n[2,\xC3\x28]\n[3,1,4,2]\n";
        let entries: Vec<Entry> = Reader::new(input, None, None)
            .collect::<std::io::Result<_>>()
            .unwrap();
        assert_eq!(entries.len(), 3);
        assert!(entries[0].placement.is_ok(), "{:?}", entries[0]);
        let why = entries[1].placement.clone().unwrap_err();
        assert!(why.contains("not UTF-8") && why.contains("byte 4"), "{why}");
        assert!(entries[2].placement.is_ok());
    }

    #[test]
    fn the_last_position_a_list_can_hold_is_written_one_based_without_wrapping() {
        // `render` writes what it is given, a solution or not: u32::MAX written 1-based wrapped to 0.
        for notation in [Notation::Rows, Notation::Json, Notation::Csv] {
            let mut out = Vec::new();
            Renderer::new(notation, Shape::square(3), false).render(&[0u32, u32::MAX, 1], &mut out);
            let text = String::from_utf8(out).unwrap();
            assert!(text.contains("4294967296"), "{notation:?}: {text}");
        }
    }

    #[test]
    fn messages_quote_an_excerpt() {
        let long = "y".repeat(10_000);
        let quoted = excerpt(&long);
        assert!(quoted.len() < 100, "{quoted}");
        assert!(quoted.contains("10000 bytes"));
        assert_eq!(excerpt("short"), "short");
        // Control characters and line separators escaped, the count of characters kept as it was.
        assert_eq!(
            excerpt("a\rb\u{1b}[2J\u{2028}\tc"),
            "a\\rb\\u{1b}[2J\\u{2028}\\tc"
        );
        // A backslash as it is would make the quote of a tab and of `\t` alike.
        assert_eq!(excerpt("x\ty"), "x\\ty");
        assert_eq!(excerpt("x\\ty"), "x\\\\ty");
        let cut = excerpt(&"\r".repeat(100));
        assert_eq!(cut, format!("{}… (100 bytes in all)", "\\r".repeat(60)));
        let entries = read(&format!("[{long}]"), None, None);
        assert!(entries[0].placement.clone().unwrap_err().len() < 200);
    }

    #[test]
    fn every_notation_reads_back_what_it_wrote() {
        // Every solution of each board: a square, the board of one square, a column of three squares (whose
        // CSV is a header of one name, then records of one number) and a rectangle.
        let boards: [(Shape, &[&[u8]]); 4] = [
            (Shape::square(4), &[&[1, 3, 0, 2], &[2, 0, 3, 1]]),
            (Shape::square(1), &[&[0]]),
            (Shape { rows: 3, cols: 1 }, &[&[0], &[1], &[2]]),
            (Shape { rows: 3, cols: 2 }, &[&[0, 2], &[2, 0]]),
        ];
        for (shape, solutions) in boards {
            let expected: Vec<Vec<(u32, u32)>> = solutions
                .iter()
                .map(|queens| {
                    let mut squares: Vec<(u32, u32)> = (0..)
                        .zip(queens.iter())
                        .map(|(i, &q)| shape.square_of(i, q.into()))
                        .collect();
                    squares.sort();
                    squares
                })
                .collect();
            // Lists say nothing of the board: a rectangle's are read with it given, as `check --board` does.
            let given_shape = (!shape.is_square()).then_some(shape);
            for notation in Notation::ALL {
                for ascii in [false, true] {
                    let r = Renderer::new(notation, shape, ascii);
                    let mut text = r.header();
                    for queens in solutions {
                        r.render(queens, &mut text);
                    }
                    let text = String::from_utf8(text).unwrap();
                    for given in [None, Some(notation)] {
                        // A 0-based list of a rectangle need not have a 0 in it, so that only the notation
                        // given says it is 0-based.
                        if given.is_none() && notation == Notation::Zero && !shape.is_square() {
                            continue;
                        }
                        let read: Vec<Vec<(u32, u32)>> = read(&text, given, given_shape)
                            .into_iter()
                            .map(|entry| {
                                let mut squares = entry.placement.unwrap().queens;
                                squares.sort();
                                squares
                            })
                            .collect();
                        assert_eq!(
                            read, expected,
                            "{shape} {notation} {ascii} {given:?}: {text}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_empty_board_reads_back_where_its_text_is_not_blank() {
        // The board of 0 lines has one solution, of no queens. Lists write it `[]`, and the boxed drawing
        // draws its frame; CSV writes a header of no names and a record of no positions, and the drawings
        // without boxes no rows: blank lines only, which separate placements and are skipped, so that
        // reading one as the empty board would make every blank line a solution.
        let empty = Shape::square(0);
        for notation in Notation::ALL {
            for ascii in [false, true] {
                let r = Renderer::new(notation, empty, ascii);
                let mut text = r.header();
                r.render::<u8>(&[], &mut text);
                let text = String::from_utf8(text).unwrap();
                let blank = notation == Notation::Csv
                    || notation == Notation::Matrix
                    || notation == Notation::Board && ascii;
                assert_eq!(
                    text.trim().is_empty(),
                    blank,
                    "{notation} {ascii}: {text:?}"
                );
                let expected = if blank {
                    vec![]
                } else {
                    vec![Ok(Placement {
                        shape: empty,
                        queens: vec![],
                        stray: None,
                    })]
                };
                for given in [None, Some(notation)] {
                    let read: Vec<_> = read(&text, given, None)
                        .into_iter()
                        .map(|entry| entry.placement)
                        .collect();
                    assert_eq!(read, expected, "{notation} {ascii} {given:?}");
                }
            }
        }
    }

    #[test]
    fn a_csv_of_one_column_lasts_up_to_a_line_that_is_not_its_own() {
        // `list 3x1 -f csv`, then, after a blank line, a drawing of the same board: its `1` is a row again.
        let text = "c1\n1\n3\n\n1\n0\n0\n";
        let entries = read(text, None, Some(Shape { rows: 3, cols: 1 }));
        let read: Vec<(usize, Vec<(u32, u32)>)> = entries
            .into_iter()
            .map(|entry| (entry.line, entry.placement.unwrap().queens))
            .collect();
        assert_eq!(
            read,
            [(2, vec![(0, 0)]), (3, vec![(2, 0)]), (5, vec![(0, 0)])]
        );
        // Without a header, a line of `1` is the row of a drawing, as it always was; so is a line that reads
        // as a row and as a name, `Q1` (two queens side by side), rather than a header skipped unread.
        assert_eq!(read_of_one("1\n0\n"), Ok(Shape { rows: 2, cols: 1 }));
        assert_eq!(read_of_one("Q1\n"), Ok(Shape { rows: 1, cols: 2 }));
    }

    #[test]
    fn a_boxed_drawing_is_read_to_its_bottom_rule_whatever_its_squares() {
        // A crown of another kind (`sed 's/♛/♕/'`): its rows were lines of no format, and each rule between them
        // a board of no rows of its own, nine verdicts for one drawing. It is one drawing, malformed at its
        // first bad square, and the line after its bottom rule is read on its own.
        let drawing = "┌───┬───┐\n│ ♕ │   │\n├───┼───┤\n│   │ ♕ │\n└───┴───┘\n[2,4,1,3]\n";
        let entries = read(drawing, None, None);
        let lines: Vec<usize> = entries.iter().map(|e| e.line).collect();
        assert_eq!(lines, [1, 6]);
        assert_eq!(
            entries[0].placement,
            Err(
                "square 1 of row 1 of the drawing (line 2), '♕', is neither a queen nor an empty square"
                    .to_string()
            )
        );
        // Its rules are held to its columns and to their places: a top rule, rows with a rule between each two
        // or none, a bottom rule.
        let malformed = |text: &str| read(text, None, None)[0].placement.clone().unwrap_err();
        assert_eq!(
            malformed("┌───┬───┐\n│ ♛ │   │\n├───┼──x┤\n│   │ ♛ │\n└───┴───┘\n"),
            "line 3 of the drawing, '├───┼──x┤', is not a rule between rows of 2 columns: ├, 2 runs of ─ \
             separated by ┼, then ┤"
        );
        assert_eq!(
            malformed("┌───┬───┐\n│ ♛ │   │\n├───┼───┼───┤\n│   │ ♛ │\n└───┴───┘\n"),
            "line 3 of the drawing, '├───┼───┼───┤', is not a rule between rows of 2 columns: ├, 2 runs of ─ \
             separated by ┼, then ┤"
        );
        assert_eq!(
            malformed("┌───┬───┐\n│ ♛ │   │\n├───┼───┤\n│   │ ♛ │\n│ ♛ │   │\n└───┴───┘\n"),
            "line 5 of the drawing, '│ ♛ │   │', is a row with no rule between it and row 2, but rows 1 and 2 \
             have one: a boxed drawing has a rule between each two rows or none"
        );
        assert_eq!(
            malformed("┌───┬───┐\n│ ♛ │   │ │\n├───┼───┤\n│   │ ♛ │\n└───┴───┘\n"),
            "row 1 of the drawing (line 2) has 3 squares, but the top rule (line 1) has 2 columns"
        );
        // Cut short, by `head` or by a line that is no part of it, it lacks its bottom rule; the rules alone are
        // no drawing.
        assert_eq!(
            malformed("┌───┬───┐\n│ ♛ │   │\n├───┼───┤\n"),
            "the boxed drawing ends on line 3 without its bottom rule (└, 2 runs of ─ separated by ┴, then ┘)"
        );
        let entries = read("┌───┐\n│ ♛ │\n[1]\n", None, None);
        assert_eq!((entries.len(), entries[1].line), (2, 3));
        assert!(entries[1].placement.is_ok());
        assert_eq!(
            malformed("├───┼───┼───┤\n"),
            "line 1 of the drawing, '├───┼───┼───┤', is a rule between rows, where its top rule or its first row \
             belongs: a boxed drawing is its rows, with a rule between each two or none, and a top and a bottom \
             rule around them or neither"
        );
        // A top rule and a bottom rule are the board of no rows and their columns, which has no solution unless
        // it has no columns either: the frame of `list 0`.
        assert_eq!(
            read_of_one("┌───┬───┐\n└───┴───┘\n"),
            Ok(Shape { rows: 0, cols: 2 })
        );
        assert_eq!(read_of_one("┌┐\n└┘\n"), Ok(Shape::square(0)));
    }

    #[test]
    fn a_boxed_drawing_may_leave_out_its_rules_all_or_none() {
        // Other solvers draw fewer rules than `list -f board`, and were read so before the rules were held to
        // their places: rows alone, a frame without rules between the rows, a frame of one run around rows with
        // or without bars. Each is one drawing of its queens.
        let solution = Ok(vec![(0, 1), (1, 3), (2, 0), (3, 2)]);
        let rows = "│   │ ♛ │   │   │\n│   │   │   │ ♛ │\n│ ♛ │   │   │   │\n│   │   │ ♛ │   │\n";
        for text in [
            rows.to_string(),
            format!("┌───┬───┬───┬───┐\n{rows}└───┴───┴───┴───┘\n"),
            format!("┌───────────────┐\n{rows}└───────────────┘\n"),
            "┌─────────┐\n│ . ♛ . . │\n│ . . . ♛ │\n│ ♛ . . . │\n│ . . ♛ . │\n└─────────┘\n"
                .to_string(),
            "│   │ ♛ │   │   │\n├───┼───┼───┼───┤\n│   │   │   │ ♛ │\n├───┼───┼───┼───┤\n\
             │ ♛ │   │   │   │\n├───┼───┼───┼───┤\n│   │   │ ♛ │   │\n"
                .to_string(),
        ] {
            let entries = read(&text, None, None);
            assert_eq!(entries.len(), 1, "{text}: {entries:?}");
            assert_eq!(
                entries[0].placement.clone().map(|p| p.queens),
                solution,
                "{text}"
            );
            let given = read(&text, Some(Notation::Board), None);
            assert_eq!(given.len(), 1, "{text}: {given:?}");
            assert!(given[0].placement.is_ok(), "--format board: {text}");
        }
        assert_eq!(read_of_one("│ ♛ │\n"), Ok(Shape::square(1)));
        // Rows alone end at the first line that is not one, which is read on its own, and at the top rule of
        // the next drawing.
        let entries = read("│ ♛ │\n[1]\n│ ♛ │\n┌───┐\n│ ♛ │\n└───┘\n", None, None);
        let lines: Vec<usize> = entries.iter().map(|e| e.line).collect();
        assert_eq!(lines, [1, 2, 3, 4]);
        assert!(entries.iter().all(|e| e.placement.is_ok()), "{entries:?}");
        // A bad square is still the drawing's flaw, not its end.
        let entries = read("│   │ ♕ │\n│ ♕ │   │\n[2,4,1,3]\n", None, None);
        let lines: Vec<usize> = entries.iter().map(|e| e.line).collect();
        assert_eq!(lines, [1, 3]);
        // Where a drawing has rules, they are all in their places: between each two rows or none, a top and a
        // bottom rule or neither.
        let malformed = |text: &str| read(text, None, None)[0].placement.clone().unwrap_err();
        assert_eq!(
            malformed("│ ♛ │   │\n│   │ ♛ │\n├───┼───┤\n│ ♛ │   │\n"),
            "line 3 of the drawing, '├───┼───┤', is a rule between rows after row 2, but rows 1 and 2 have none \
             between them: a boxed drawing has a rule between each two rows or none"
        );
        assert_eq!(
            malformed("│ ♛ │   │\n│   │ ♛ │\n└───┴───┘\n"),
            "line 3 of the drawing, '└───┴───┘', is a bottom rule, but the drawing has no top rule: a boxed \
             drawing is its rows, with a rule between each two or none, and a top and a bottom rule around them or \
             neither"
        );
        assert_eq!(
            malformed("│ ♛ │\n├───┤\n"),
            "the boxed drawing ends on line 2 with a rule between rows, and no row after it"
        );
        assert_eq!(
            malformed("│ ♛ │   │\n├───┼───┼───┤\n│   │ ♛ │\n"),
            "line 2 of the drawing, '├───┼───┼───┤', is not a rule between rows of 2 columns: ├, 2 runs of ─ \
             separated by ┼, then ┤ (or a single run of ─, a frame)"
        );
        assert_eq!(
            malformed("┌───────┐\n│ ♛ │   │\n│ ♛ │\n└───────┘\n"),
            "row 2 of the drawing (line 3) has 1 square, but row 1 has 2"
        );
        assert_eq!(
            malformed("┌───────┐\n│ ♛ │   │\n│   │ ♛ │\n└───┴───┘\n"),
            "line 4 of the drawing, '└───┴───┘', is not a bottom rule of 1 column: └, a run of ─, then ┘"
        );
    }

    /// The board of the one placement read from `text`.
    fn read_of_one(text: &str) -> Result<Shape, String> {
        let entries = read(text, None, None);
        assert_eq!(entries.len(), 1, "{text}: {entries:?}");
        entries[0].placement.clone().map(|p| p.shape)
    }

    /// What a reader keeping lines of at most `max_line` bytes reads from `input`.
    fn read_within(input: &[u8], max_line: usize) -> Vec<Entry> {
        let mut reader = Reader::new(input, None, None);
        reader.max_line = max_line;
        reader.collect::<std::io::Result<_>>().unwrap()
    }

    #[test]
    fn a_line_too_long_is_skipped_unkept_and_the_next_is_read() {
        // A line of exactly the limit is read; one byte more is not kept, and says how long it was.
        let at_limit = format!("{:<16}", "[2,4,1,3]");
        let over = "x".repeat(40);
        let input = format!("{at_limit}\n{over}\n[3,1,4,2]\n{over}9");
        let entries = read_within(input.as_bytes(), 16);
        assert_eq!(entries.len(), 4, "{entries:?}");
        assert!(entries[0].placement.is_ok(), "{:?}", entries[0]);
        assert_eq!(
            entries[1].placement,
            Err("the line is longer than 16 bytes (40 bytes): not a solution this reads".into())
        );
        assert_eq!((entries[2].line, entries[2].placement.is_ok()), (3, true));
        // The last line, without its end, likewise.
        assert_eq!(entries[3].line, 4);
        assert!(entries[3]
            .placement
            .clone()
            .unwrap_err()
            .contains("(41 bytes)"));
        // A last line of exactly the limit, without its end, is read too.
        assert!(read_within(at_limit.as_bytes(), 16)[0].placement.is_ok());
        assert_eq!(size_words(MAX_LINE), "1 GiB");
        assert_eq!(size_words(128 << 20), "128 MiB");
    }

    #[test]
    fn a_drawing_too_large_is_malformed_and_the_next_is_read() {
        // Four rows of 7 bytes: 28 in all, over a limit of 20; each row alone is within it.
        let input = b"Q . . .\n. . . Q\n. Q . .\n. . Q .\n\n[2,4,1,3]\n";
        let entries = read_within(input, 20);
        assert_eq!(entries.len(), 2, "{entries:?}");
        assert_eq!(
            entries[0].placement,
            Err("the drawing is larger than 20 bytes (28 bytes): not a board this reads".into())
        );
        assert_eq!((entries[1].line, entries[1].placement.is_ok()), (6, true));
        // Within the limit, the same drawing is read (and is no solution: two queens share a diagonal).
        let entries = read_within(input, 28);
        assert_eq!(entries[0].placement.clone().unwrap().queens.len(), 4);
    }

    #[test]
    fn plain_lists_of_other_solvers_are_read_too() {
        // The same solution of the 4 board, as other programs print it: 0-based where a 0 occurs.
        let expected = vec![(0, 1), (1, 3), (2, 0), (3, 2)];
        for text in [
            "2 4 1 3",
            "1 3 0 2",
            "  1\t3  0 2 ",
            "(2, 4, 1, 3)",
            "(1, 3, 0, 2)",
            "1,3,0,2",
            "2,4,1,3",
            "[1, 3, 0, 2]",
            "[2 4 1 3]",
            "(2 4 1 3)",
            "[ 1\t3  0 2 ]",
        ] {
            let entries = read(text, None, None);
            assert_eq!(entries.len(), 1, "{text}");
            assert_eq!(
                entries[0].placement.as_ref().map(|p| p.shape),
                Ok(Shape::square(4))
            );
            let mut queens = entries[0].placement.clone().unwrap().queens;
            queens.sort();
            assert_eq!(queens, expected, "{text:?}");
        }
        // Ten queens or more: two-digit positions.
        let ten = read("1 3 6 8 10 5 9 2 4 7", None, None);
        assert_eq!(ten[0].placement.clone().unwrap().queens.len(), 10);
        // A row of 0 and 1 is still a drawing's.
        let drawn = read("0 1 0 0\n0 0 0 1\n1 0 0 0\n0 0 1 0\n", None, None);
        assert_eq!(drawn.len(), 1);
        let mut queens = drawn[0].placement.clone().unwrap().queens;
        queens.sort();
        assert_eq!(queens, expected);
        // A CSV record said to be one is 1-based: a 0 in it is the column before the first, off the board,
        // and the reading stops at that queen.
        let csv = read("1,3,0,2", Some(Notation::Csv), None);
        assert_eq!(
            csv[0].placement,
            Ok(Placement {
                shape: Shape::square(4),
                queens: vec![(0, 0), (1, 2)],
                stray: Some(Stray {
                    queen: Off::At(2, -1),
                    written: 4
                }),
            })
        );
        // Words that are not all numbers are nothing known.
        let odd = read("2 4 one 3", None, None);
        assert!(odd[0].placement.clone().unwrap_err().contains("2 4 1 3"));
    }

    #[test]
    fn a_list_of_0s_and_1s_alone_on_its_line_is_a_list_and_the_next_line_is_read_on_its_own() {
        // A broken solver's output: every queen in one column (1-based, then 0-based) among good solutions.
        // Read as the first row of a drawing, such a line swallowed the lines after it, unjudged.
        let entries = read("1 1 1 1\n2 4 1 3\n0 0 0 0\n3 1 4 2\n", None, None);
        let lines: Vec<usize> = entries.iter().map(|e| e.line).collect();
        assert_eq!(lines, [1, 2, 3, 4]);
        for entry in [&entries[0], &entries[2]] {
            let placement = entry.placement.clone().unwrap();
            assert_eq!(placement.shape, Shape::square(4), "line {}", entry.line);
            assert!(placement.queens.iter().all(|&(_, column)| column == 0));
        }
        for entry in [&entries[1], &entries[3]] {
            assert_eq!(entry.placement.clone().unwrap().queens.len(), 4);
        }
        // n = 1, 0-based, as a list: its one queen (a drawing of it, `1`, has it too).
        for text in ["0", "1"] {
            let one = read(text, None, None);
            assert_eq!(one[0].placement.clone().unwrap().queens, [(0, 0)], "{text}");
        }
        // A drawing still takes every row up to a blank line, and a drawing named by --format is read as one.
        let drawn = read(
            "0 1 0 0\n0 0 0 1\n1 0 0 0\n0 0 1 0\n\n2 4 1 3\n",
            None,
            None,
        );
        assert_eq!(drawn.len(), 2);
        let named = read("0 1\n", Some(Notation::Matrix), None);
        assert!(
            named[0].placement.is_err() || named[0].placement.clone().unwrap().queens.len() == 1
        );
    }

    #[test]
    fn compact_drawings_are_read_and_checked_against_the_board_given() {
        let drawing = ".Q..\n...Q\nQ...\n..Q.\n";
        let mut queens = read(drawing, None, None)[0]
            .placement
            .clone()
            .unwrap()
            .queens;
        queens.sort();
        assert_eq!(queens, [(0, 1), (1, 3), (2, 0), (3, 2)]);
        // With the board given, a drawing of that board is a solution, and of another a placement that the
        // checker says is on another board: it reads as queens, so that it is not malformed.
        let on = |shape| {
            let placement = read(drawing, None, Some(shape))[0]
                .placement
                .clone()
                .unwrap();
            crate::solutions::checker::check_placement(&placement, Some(shape))
        };
        assert_eq!(on(Shape::square(4)), Ok(()));
        assert_eq!(
            on(Shape { rows: 8, cols: 6 }).unwrap_err().to_string(),
            "the drawing shows a 4x4 board, not the 8x6 board given"
        );
    }

    #[test]
    fn bad_text_is_reported_with_its_line() {
        let entries = read("[2,4,1,3]\n\n[2,x]\n", None, None);
        assert_eq!(entries[1].line, 3);
        assert_eq!(
            entries[1].placement,
            Err("entry 2, 'x', is not a whole number".to_string())
        );
        let entries = read(". Q\nQ . .\n", None, None);
        assert_eq!(
            entries[0].placement,
            Err("row 2 of the drawing (line 2) has 3 squares, but row 1 has 2".to_string())
        );
        // A square that is neither a queen nor empty comes before a row of another length, wherever it is;
        // the rules of a boxed drawing are no rows.
        let entries = read(". Q\nQ . .\n. x\n", Some(Notation::Board), None);
        assert_eq!(
            entries[0].placement,
            Err(
                "square 2 of row 3 of the drawing (line 3), 'x', is neither a queen nor an empty square of \
                 --format board (♛ or Q for a queen, . or a blank for an empty square)"
                    .to_string()
            )
        );
        let entries = read(
            "┌───┐\n│ ♛ │\n├───┤\n│ x │\n└───┘\n",
            Some(Notation::Board),
            None,
        );
        assert_eq!(
            entries[0].placement,
            Err(
                "square 1 of row 2 of the drawing (line 4), 'x', is neither a queen nor an empty square of \
                 --format board (♛ or Q for a queen, . or a blank for an empty square)"
                    .to_string()
            )
        );
    }

    #[test]
    fn a_drawing_format_given_reads_its_own_squares_alone() {
        // `--format matrix` took a drawing of `Q` and `.`, and `--format board` one of 0 and 1, as any
        // drawing is read without a format; a list in another format than the one given was always malformed.
        let first = |text: &str, format| read(text, Some(format), None)[0].placement.clone();
        let plain = ".Q..\n...Q\nQ...\n..Q.\n";
        let matrix = "0 1 0 0\n0 0 0 1\n1 0 0 0\n0 0 1 0\n";
        let boxed = "┌───┐\n│ ♛ │\n└───┘\n";
        assert_eq!(
            first(plain, Notation::Matrix),
            Err("row 1 of the drawing (line 1), '.Q..', is not a row as --format matrix writes one (1 for a \
                 queen, 0 for an empty square): it looks like a row of --format board; without --format, either \
                 is read"
                .into())
        );
        assert_eq!(
            first(matrix, Notation::Board),
            Err("row 1 of the drawing (line 1), '0 1 0 0', is not a row as --format board writes one (♛ or Q \
                 for a queen, . or a blank for an empty square): it looks like a row of --format matrix; without \
                 --format, either is read"
                .into())
        );
        assert_eq!(
            first(boxed, Notation::Matrix),
            Err("the drawing (line 1) is boxed, as --format board draws one, not rows of 1 and 0 as --format \
                 matrix writes them; without --format, either is read"
                .into())
        );
        // A row of both formats' squares looks like neither: its first square of the other is named.
        assert_eq!(
            first("Q . 0 1\n", Notation::Board),
            Err("square 3 of row 1 of the drawing (line 1), '0', is neither a queen nor an empty square of \
                 --format board (♛ or Q for a queen, . or a blank for an empty square)"
                .into())
        );
        // Each format reads its own, and without a format every drawing is read.
        for (text, format) in [
            (plain, Notation::Board),
            (boxed, Notation::Board),
            (matrix, Notation::Matrix),
        ] {
            assert!(first(text, format).is_ok(), "{format}: {text}");
            assert!(read(text, None, None)[0].placement.is_ok(), "{text}");
        }
    }

    #[test]
    fn a_csv_header_stands_first_in_its_csv_or_is_lists_own() {
        // `--format csv` took the row `Q . . .` of a drawing for a header of one name, and skipped it unjudged
        // between the rows that it called malformed. Within a CSV it is no header; first, one name is a header
        // where a record of one number follows it.
        let verdicts = |text: &str, notation| -> Vec<(usize, Result<usize, String>)> {
            read(text, notation, None)
                .into_iter()
                .map(|e| (e.line, e.placement.map(|p| p.queens.len())))
                .collect()
        };
        let drawing = verdicts(". Q . .\n. . . Q\nQ . . .\n. . Q .\n", Some(Notation::Csv));
        let lines: Vec<usize> = drawing.iter().map(|v| v.0).collect();
        assert_eq!(lines, [1, 2, 3, 4]);
        assert_eq!(
            drawing[2].1,
            Err("'Q . . .' is neither a CSV record nor a header: a header is the first line of a CSV (this one \
                 starts on line 1), that line again, or one as `list -f csv` writes (r1,r2,…)"
                .into())
        );
        let first = verdicts("Q . . .\n. . . Q\n", Some(Notation::Csv));
        assert_eq!(
            first[0],
            (
                1,
                Err("'Q . . .' is neither a CSV record nor a header: a header of one name is one as `list -f csv` \
                     writes (r1) or has a record of one number after it"
                    .into())
            )
        );
        assert_eq!(first.len(), 2);
        assert_eq!(verdicts("row\n1\n", Some(Notation::Csv)), [(2, Ok(1))]);
        // Names within a CSV are no header, unless they are `list`'s own or the CSV's first line again (files
        // joined); after a blank line, or a line of another format, any header starts one.
        for notation in [None, Some(Notation::Csv)] {
            assert_eq!(
                verdicts("a,b\n1,2\nc,d\nr1,r2\n2,1\n\nc,d\n1,2\n", notation),
                [
                    (2, Ok(2)),
                    (
                        3,
                        Err("'c,d' is neither a CSV record nor a header: a header is the first line of a CSV \
                             (this one starts on line 1), that line again, or one as `list -f csv` writes \
                             (r1,r2,…)"
                            .into())
                    ),
                    (5, Ok(2)),
                    (8, Ok(2)),
                ],
                "{notation:?}"
            );
        }
        assert_eq!(verdicts("[1]\nc1\n1\n", None), [(1, Ok(1)), (3, Ok(1))]);
        assert!(is_lists_header("r1,r2,r3") && is_lists_header("c1"));
        assert!(!is_lists_header("r1,r3") && !is_lists_header("r1,c2"));
    }

    #[test]
    fn a_csv_header_of_other_tools_is_read_as_list_reads_its_own() {
        let verdicts = |text: &str| -> Vec<(usize, Result<usize, String>)> {
            read(text, None, None)
                .into_iter()
                .map(|e| (e.line, e.placement.map(|p| p.queens.len())))
                .collect()
        };
        // Files of one tool joined repeat its header, which is a header again wherever the CSV has it: two
        // solutions, no line of no format.
        assert_eq!(
            verdicts("a,b,c,d\n2,4,1,3\na,b,c,d\n3,1,4,2\n"),
            [(2, Ok(4)), (4, Ok(4))]
        );
        assert_eq!(
            verdicts("a, b, c, d\n2,4,1,3\nr1,r2,r3,r4\n1,3,5,2\na,b,c,d\n3,1,4,2\n"),
            [(2, Ok(4)), (4, Ok(4)), (6, Ok(4))]
        );
        // `list`'s own header is read as any header's names are, trimmed and in either case.
        assert!(
            is_lists_header("r1, r2, r3") && is_lists_header("R1,R2") && is_lists_header(" C1 ")
        );
        assert_eq!(
            verdicts("a,b,c,d\n2,4,1,3\nr1, r2, r3, r4\n3,1,4,2\nR1,R2,R3,R4\n2,4,1,3\n"),
            [(2, Ok(4)), (4, Ok(4)), (6, Ok(4))]
        );
        // A name is any text that is not a number: a library's, a language's or pandas' own.
        for header in [
            "row.1,row.2,row.3,row.4",
            "r[1],r[2],r[3],r[4]",
            "Unnamed: 0,a,b,c",
            "x:1,x:2,x:3,x:4",
        ] {
            assert_eq!(
                verdicts(&format!("{header}\n2,4,1,3\n")),
                [(2, Ok(4))],
                "{header}"
            );
        }
    }

    #[test]
    fn a_csv_record_has_as_many_fields_as_its_header() {
        let malformed = |text: &str, notation| -> Vec<(usize, String)> {
            read(text, notation, None)
                .into_iter()
                .filter_map(|entry| Some((entry.line, entry.placement.err()?)))
                .collect()
        };
        for notation in [None, Some(Notation::Csv)] {
            assert_eq!(
                malformed("r1,r2,r3,r4\n2,4,1,3\n2,4,1\n2,4,1,3,5\n", notation),
                [
                    (
                        3,
                        "the record has 3 fields, but the header on line 1 has 4".to_string()
                    ),
                    (
                        4,
                        "the record has 5 fields, but the header on line 1 has 4".to_string()
                    )
                ],
                "{notation:?}"
            );
            // A blank line ends the CSV, and a new header starts another.
            assert_eq!(
                malformed("r1,r2\n1,2\n\n2,4,1,3\nr1\n1\n1,2\n", notation),
                [(
                    7,
                    "the record has 2 fields, but the header on line 5 has 1".to_string()
                )],
                "{notation:?}"
            );
        }
        // A one-column CSV's records are whole numbers, a negative one included: the next line is still one.
        let column = read("c1\n-1\n1\n", None, Some(Shape { rows: 3, cols: 1 }));
        assert_eq!(column.len(), 2);
        assert_eq!(column[1].placement.clone().unwrap().queens, [(0, 0)]);
        // A header names every field: one with a number or nothing in a field is no header.
        assert_eq!(
            malformed("r1,2,r3\n", None),
            [(
                1,
                "'r1,2,r3' starts with a name, as a CSV header does, but its field 2, '2', is a number"
                    .to_string()
            )]
        );
        assert!(malformed("a, b , queen 3\n1,3,2\n", None).is_empty());
    }

    #[test]
    fn positions_off_either_end_read_as_queens_off_the_board() {
        let placement =
            |text: &str, notation, shape| read(text, notation, shape)[0].placement.clone().unwrap();
        // The queens before the first off every board are kept, and the count is of them all.
        let four = placement("[2,-7,9,5]", None, None);
        assert_eq!(four.queens, [(0, 1)]);
        assert_eq!(
            four.stray,
            Some(Stray {
                queen: Off::At(1, -8),
                written: 4
            })
        );
        // The entries after it are read all the same: one that is no number makes the list malformed.
        assert_eq!(
            read("[2,-7,x]", None, None)[0].placement,
            Err("entry 3, 'x', is not a whole number".into())
        );
        // Off the high end but within a u32, a queen is kept as any other, for the checker to find.
        assert_eq!(placement("[2,9]", None, None).queens, [(0, 1), (1, 8)]);
        assert_eq!(
            placement("1 5000000000", None, None).stray.map(|s| s.queen),
            Some(Off::At(1, 4_999_999_999))
        );
        // On a rectangle, a position is a row; a 0-based list's -1 is the row before the first.
        let rectangle = placement(
            "[0,-1]",
            Some(Notation::Zero),
            Some(Shape { rows: 3, cols: 2 }),
        );
        assert_eq!(rectangle.stray.map(|s| s.queen), Some(Off::At(-1, 1)));
        // A number of any size is a position: exact up to 38 digits, the 0 of a 0-based list included.
        let stray = |text: &str| placement(text, None, None).stray.unwrap().queen;
        assert_eq!(
            stray("[1,99999999999999999999]"),
            Off::At(1, 99_999_999_999_999_999_998)
        );
        let nines = "9".repeat(38);
        assert_eq!(
            stray(&format!("[0,-{nines}]")),
            Off::At(1, -nines.parse::<i128>().unwrap())
        );
        // Beyond, its digits are counted, not read; leading zeros are none of them.
        assert_eq!(
            stray(&format!("[1,-000{nines}9]")),
            Off::Far {
                line: 1,
                negative: true,
                number: format!("-000{nines}9"),
                digits: 39
            }
        );
        assert_eq!(
            placement(&format!("[1,{}2]", "0".repeat(100)), None, None),
            placement("[1,2]", None, None)
        );
        // A sign alone, or two, is no number.
        assert_eq!(
            read("[1,-+2]", None, None)[0].placement,
            Err("entry 2, '-+2', is not a whole number".into())
        );
    }
}
