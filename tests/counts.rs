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
