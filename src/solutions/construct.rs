//! A solution for any n in O(n), without search: the classical explicit construction.
//!
//! Backtracking finds the first solution quickly up to n of a few dozen and then slows without bound. For
//! every n other than 2 and 3 a solution can be written down directly (Hoffman, Loessi and Moore, 1969, as
//! usually stated): the even numbers up to n, then the odd ones, give the row of each column's queen, with
//! two small repairs when n leaves a remainder of 2 or 3 modulo 6. Each construction is checked by
//! [`crate::solutions::checker`] before anyone sees it, so a mistake here could never be printed as a solution.

/// A solution of the square board of side `n` as the 0-based column of each row's queen, or `None` for
/// n = 2 and 3, which have none.
pub fn square(n: u32) -> Option<Vec<u32>> {
    match n {
        0 => return Some(Vec::new()),
        2 | 3 => return None,
        _ => {}
    }
    let mut evens: Vec<u32> = (1..=n / 2).map(|k| 2 * k).collect();
    let mut odds: Vec<u32> = (0..n.div_ceil(2)).map(|k| 2 * k + 1).collect();
    match n % 6 {
        // 3, 1, 7, 9, …, 5: swap 1 and 3, and move 5 to the end.
        2 => {
            odds.swap(0, 1);
            let five = odds.remove(2);
            odds.push(five);
        }
        // Evens 4, 6, …, 2 and odds 5, 7, …, 1, 3.
        3 => {
            evens.rotate_left(1);
            odds.rotate_left(2);
        }
        _ => {}
    }
    // The list gives, column by column, the row of each queen; the transpose of a solution is a solution,
    // so it serves as well as the row of each column.
    Some(evens.into_iter().chain(odds).map(|v| v - 1).collect())
}

/// A solution of the rectangle of `rows` rows and `cols <= rows` columns, as the 0-based row of each
/// column's queen: the first `cols` columns of a square solution of side `rows`. `None` where the square
/// has no solution to take them from (2 and 3 rows) or `cols > rows`.
pub fn rect(rows: u32, cols: u32) -> Option<Vec<u32>> {
    if cols > rows {
        return None;
    }
    let mut queens = square(rows)?;
    queens.truncate(cols as usize);
    Some(queens)
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
