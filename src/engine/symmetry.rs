//! Symmetry reductions: which partial placements stand for the whole search, and how many copies each is worth.
//!
//! A board's left-right reflection maps every solution to a solution, and (for `n >= 2`) never to itself, since
//! no queen can stand on its own mirror column in every row. So only first-row queens in the left half are
//! searched and each count is doubled. For odd `n` the middle column of the first row is its own mirror; there
//! the second row's queen (which cannot be in the middle column too) decides, and only its left half is
//! searched, again doubled. `None` searches everything and stays as an independent cross-check. `Full` uses
//! all 8 symmetries of the square through border pre-placement: see [`crate::engine::border`].

use std::fmt;
use std::str::FromStr;

/// How much of the board's symmetry the search exploits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Symmetry {
    /// Search every placement.
    None,
    /// Search first-row queens in the left half (and the middle), doubling counts.
    Mirror,
    /// Search one border placement per class of the board's 8 symmetries; counts unique solutions too.
    /// A rectangle has no symmetry that swaps rows and columns: there it is the mirror reduction, which the
    /// plan and the report name as the one used, with no unique count.
    #[default]
    Full,
}

/// Whether a partial placement belongs to the reduced search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Outside the reduced search: its solutions are counted through their mirror images.
    No,
    /// In the search, standing for `weight` solutions for every completion.
    Yes {
        /// Solutions each completion stands for.
        weight: u32,
    },
    /// Another row must be placed before the reduction can tell.
    Undecided,
}

impl Symmetry {
    /// Every mode, in the order the command line lists them.
    pub const ALL: [Symmetry; 3] = [Symmetry::None, Symmetry::Mirror, Symmetry::Full];

    /// The mode a plan of `board` uses when asked for this one: a rectangle has no symmetry that swaps rows
    /// and columns, so the full reduction is the mirror one there ([`crate::Plan::new`]).
    pub fn on(self, board: crate::Board) -> Symmetry {
        match self {
            Symmetry::Full if !board.is_square() => Symmetry::Mirror,
            other => other,
        }
    }

    /// The mode's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Symmetry::None => "none",
            Symmetry::Mirror => "mirror",
            Symmetry::Full => "full",
        }
    }

    /// Decides whether the partial placement `prefix` (the column of each row's queen, from row 0) on a board
    /// of `lines` rows of `n` squares is part of the reduced search.
    ///
    /// The full reduction works on borders, not row prefixes ([`crate::engine::border`]); here it admits everything.
    pub fn admit(self, n: u32, lines: u32, prefix: &[u8]) -> Admission {
        match self {
            Symmetry::None | Symmetry::Full => Admission::Yes { weight: 1 },
            // A board of side 0 or 1 has one solution, which is its own mirror image; so does a single row
            // with a queen in its middle square, so one row is searched whole.
            Symmetry::Mirror if n <= 1 || lines <= 1 => Admission::Yes { weight: 1 },
            Symmetry::Mirror => {
                let half = (n / 2) as u8;
                let middle_first = n % 2 == 1 && prefix.first() == Some(&half);
                match (prefix.first(), prefix.get(1)) {
                    (None, _) => Admission::Undecided,
                    (Some(&c0), _) if c0 < half => Admission::Yes { weight: 2 },
                    (Some(_), None) if middle_first => Admission::Undecided,
                    (Some(_), Some(&c1)) if middle_first && c1 < half => {
                        Admission::Yes { weight: 2 }
                    }
                    _ => Admission::No,
                }
            }
        }
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A symmetry name that is not one of [`Symmetry::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown symmetry '{0}': use one of none, mirror, full")]
pub struct UnknownSymmetry(String);

impl FromStr for Symmetry {
    type Err = UnknownSymmetry;
    fn from_str(s: &str) -> Result<Symmetry, UnknownSymmetry> {
        Symmetry::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownSymmetry(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_keeps_the_left_half_of_an_even_board() {
        let m = Symmetry::Mirror;
        assert_eq!(m.admit(8, 8, &[]), Admission::Undecided);
        assert_eq!(m.admit(8, 8, &[3]), Admission::Yes { weight: 2 });
        assert_eq!(m.admit(8, 8, &[4]), Admission::No);
    }

    #[test]
    fn mirror_on_an_odd_board_lets_the_second_row_decide_after_a_middle_queen() {
        let m = Symmetry::Mirror;
        assert_eq!(m.admit(9, 9, &[3]), Admission::Yes { weight: 2 });
        assert_eq!(m.admit(9, 9, &[4]), Admission::Undecided);
        assert_eq!(m.admit(9, 9, &[4, 1]), Admission::Yes { weight: 2 });
        assert_eq!(m.admit(9, 9, &[4, 6]), Admission::No);
        assert_eq!(m.admit(9, 9, &[5]), Admission::No);
    }

    #[test]
    fn mirror_searches_a_single_row_whole() {
        // The middle square of one row is its own mirror image: no halving there.
        assert_eq!(
            Symmetry::Mirror.admit(9, 1, &[4]),
            Admission::Yes { weight: 1 }
        );
    }

    #[test]
    fn names_round_trip() {
        for m in Symmetry::ALL {
            assert_eq!(m.name().parse::<Symmetry>().unwrap(), m);
        }
        // A refusal is a plain value, kept, copied and compared as a caller's own errors are.
        let refused = "full-ish".parse::<Symmetry>().unwrap_err();
        assert_eq!(refused.clone(), refused);
        assert_ne!(refused, "none-ish".parse::<Symmetry>().unwrap_err());
    }
}
