//! Every counting path against the published values (OEIS A000170).

mod common;

use common::published;
use nqueens::{count, CountRequest, NoProgress, Symmetry};
use std::path::PathBuf;

fn total(n: u32, symmetry: Symmetry, threads: usize) -> u128 {
    let request = CountRequest::new(n)
        .unwrap()
        .symmetry(symmetry)
        .threads(threads);
    count(&request, &NoProgress).unwrap().total
}

#[test]
fn mirror_totals_match_the_published_values_up_to_15() {
    for row in published().iter().filter(|r| r.n <= 15) {
        assert_eq!(
            total(row.n, Symmetry::Mirror, 2),
            row.total,
            "n = {}",
            row.n
        );
    }
}

#[test]
fn unreduced_totals_match_the_published_values_up_to_15() {
    for row in published().iter().filter(|r| r.n <= 15) {
        assert_eq!(total(row.n, Symmetry::None, 2), row.total, "n = {}", row.n);
    }
}

#[test]
fn full_totals_and_unique_counts_match_the_published_values_up_to_16() {
    for row in published().iter().filter(|r| r.n <= 16) {
        let request = CountRequest::new(row.n)
            .unwrap()
            .symmetry(Symmetry::Full)
            .threads(2);
        let result = count(&request, &NoProgress).unwrap();
        assert_eq!(result.total, row.total, "total, n = {}", row.n);
        if let Some(unique) = row.unique {
            assert_eq!(result.unique, Some(unique), "unique, n = {}", row.n);
        }
    }
}

#[test]
fn the_built_in_table_is_the_repository_table() {
    for row in published() {
        let known = nqueens::report::known::lookup(row.n).expect("every published n is built in");
        assert_eq!((known.total, known.unique), (row.total, row.unique));
    }
}

#[test]
fn the_repository_table_is_the_shared_reference_when_present() {
    let shared =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/known-counts.tsv");
    let Ok(reference) = std::fs::read_to_string(&shared) else {
        eprintln!("skipped: no shared reference beside the repository");
        return;
    };
    let ours = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/known-counts.tsv"),
    )
    .unwrap();
    assert_eq!(ours, reference);
}

#[test]
fn rectangles_match_a_plain_solver_up_to_9_rows() {
    for rows in 1..=9u32 {
        for cols in 1..=rows + 1 {
            let expected =
                common::reference_rect_solutions(rows as usize, cols as usize).len() as u128;
            for symmetry in [Symmetry::Mirror, Symmetry::None] {
                for threads in [1, 2] {
                    let board = nqueens::Board::rect(rows, cols).unwrap();
                    let request = CountRequest::board(board)
                        .symmetry(symmetry)
                        .threads(threads);
                    let result = count(&request, &NoProgress).unwrap();
                    assert_eq!(
                        result.total, expected,
                        "{rows}x{cols}, {symmetry}, {threads} threads"
                    );
                }
            }
        }
    }
}

#[test]
fn full_symmetry_asked_of_a_rectangle_is_counted_and_reported_as_mirror() {
    // A rectangle has no symmetry that swaps rows and columns: the full reduction is the mirror one there, and
    // the report says which was used rather than the one asked for (it has no unique count to give).
    let board = nqueens::Board::rect(8, 6).unwrap();
    let expected = common::reference_rect_solutions(8, 6).len() as u128;
    let request = CountRequest::board(board).symmetry(Symmetry::Full);
    let result = count(&request, &NoProgress).unwrap();
    assert_eq!(result.total, expected);
    assert_eq!(result.symmetry, "mirror");
    assert_eq!(result.unique, None);
}

#[test]
fn a_split_depth_too_deep_to_plan_is_refused_naming_the_depths_that_can_be_used() {
    // n = 24 split 14 rows deep would be a plan of billions of units: refused at once, before any is built,
    // where it used to take the memory of all of them.
    let request = CountRequest::new(24)
        .unwrap()
        .threads(2)
        .split_depth(Some(14));
    let refused = count(&request, &NoProgress).unwrap_err();
    let nqueens::Error::TooManyUnits {
        depth,
        limit,
        deepest,
        units_at_deepest,
    } = refused.clone()
    else {
        panic!("not refused as too many units: {refused}");
    };
    assert_eq!((depth, limit), (14, nqueens::engine::plan::MAX_UNITS));
    assert!(deepest < 14 && units_at_deepest > 0 && units_at_deepest <= limit);
    let message = refused.to_string();
    assert!(
        message.contains(&format!("from 0 to {deepest}")),
        "{message}"
    );
    // A depth past the board's rows (or the deepest a plan goes) is named as it was asked, not as clamped.
    let board = nqueens::Board::new(64).unwrap();
    let asked = nqueens::engine::plan::Plan::check_depth(board, nqueens::Symmetry::None, 64);
    assert!(
        matches!(asked, Err(nqueens::Error::TooManyUnits { depth: 64, .. })),
        "{asked:?}"
    );
    // The deepest depth it names can be planned (the request's own check agrees), and the next cannot.
    let usable = request.split_depth(Some(deepest));
    assert_eq!(usable.check_split(), Ok(()));
    assert_eq!(usable.plan().units().len(), units_at_deepest);
    assert!(request
        .split_depth(Some(deepest + 1))
        .check_split()
        .is_err());
}

#[test]
fn a_split_depth_within_the_plan_counts_exactly_at_any_depth_even_past_the_board() {
    // A depth deeper than the board is the board's own depth, as the plan takes it.
    let expected = published().iter().find(|r| r.n == 10).unwrap().total;
    for depth in [0, 3, 10, 40] {
        let request = CountRequest::new(10)
            .unwrap()
            .threads(2)
            .split_depth(Some(depth));
        assert_eq!(request.check_split(), Ok(()), "depth {depth}");
        assert_eq!(
            count(&request, &NoProgress).unwrap().total,
            expected,
            "depth {depth}"
        );
    }
}
