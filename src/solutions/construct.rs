//! A solution for any n in O(n), without search: the classical explicit construction.
//!
//! Backtracking finds the first solution quickly up to n of a few dozen and then slows without bound. For
//! every n other than 2 and 3 a solution can be written down directly (Hoffman, Loessi and Moore, 1969, as
//! usually stated): the even numbers up to n, then the odd ones, give the row of each column's queen, with
//! two small repairs when n leaves a remainder of 2 or 3 modulo 6. These functions return the construction
//! as it is; `nqueens solve` checks each one with [`crate::solutions::checker`] before it prints it, so a
//! mistake here could never be printed as a solution, and a library caller who wants the same assurance
//! checks it likewise (`checker::check_list`, a pass over the queens).

/// A solution of the square board of side `n` as the 0-based column of each row's queen, or `None` for
/// n = 2 and 3, which have none.
pub fn square(n: u32) -> Option<Vec<u32>> {
    rect(n, n)
}

/// A solution of the rectangle of `rows` rows and `cols <= rows` columns, as the 0-based row of each
/// column's queen: the first `cols` columns of a square solution of side `rows`. `None` where the square
/// has no solution to take them from (2 and 3 rows) or `cols > rows`. Only the columns asked for are
/// written, so that `100000000x3` costs three queens.
pub fn rect(rows: u32, cols: u32) -> Option<Vec<u32>> {
    if cols > rows {
        return None;
    }
    let mut queens = Vec::with_capacity(cols as usize);
    queens.extend(columns(rows)?.take(cols as usize));
    Some(queens)
}

/// The square solution of side `n`, column by column, as the construction gives it: read off as runs of
/// every other number, so that nothing but the solution itself is held (n = 10^8 is 400 MB of queens).
fn columns(n: u32) -> Option<impl Iterator<Item = u32>> {
    // Each run (from, to) is from, from + 2, …, to: the 1-based row of each column's queen. The transpose of
    // a solution is a solution, so the list serves as well as the column of each row.
    let runs = match n {
        0 => vec![],
        2 | 3 => return None,
        // 2, 4, …, n, then 3, 1, 7, 9, …, n - 1, 5: the odds with 1 and 3 swapped and 5 moved to the end.
        _ if n % 6 == 2 => vec![(2, n), (3, 3), (1, 1), (7, n - 1), (5, 5)],
        // 4, 6, …, n - 1, 2, then 5, 7, …, n, 1, 3.
        _ if n % 6 == 3 => vec![(4, n - 1), (2, 2), (5, n), (1, 3)],
        // 2, 4, … then 1, 3, …
        _ => vec![(2, n), (1, n)],
    };
    Some(
        runs.into_iter()
            .flat_map(|(from, to)| (from..=to).step_by(2))
            .map(|row| row - 1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_is_the_textbook_construction() {
        // 2, 4, 6, 8, 3, 1, 7, 5 (1-based).
        assert_eq!(square(8), Some(vec![1, 3, 5, 7, 2, 0, 6, 4]));
        assert_eq!(square(9), Some(vec![3, 5, 7, 1, 4, 6, 8, 0, 2]));
    }

    #[test]
    fn two_and_three_have_no_construction() {
        assert_eq!(square(2), None);
        assert_eq!(square(3), None);
        assert_eq!(square(1), Some(vec![0]));
        assert_eq!(rect(3, 2), None);
        assert_eq!(rect(5, 6), None);
    }
}
