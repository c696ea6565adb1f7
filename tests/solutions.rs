//! Listing, solving and checking solutions, as the README shows them.

mod common;

#[cfg(target_os = "linux")]
use common::with_peak_memory;
use common::{nqueens, published, reference_rect_solutions, reference_solutions};
use nqueens::engine::kernel::Kernel;
use nqueens::solutions::notation::Shape;
use nqueens::solutions::{checker, construct};
use nqueens::solutions::{list_tuned, Filter, Tuning, MIRROR_CACHE};
use predicates::prelude::*;
use std::collections::HashSet;

fn stdout_of(args: &[&str]) -> String {
    let out = nqueens().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The textbook solver's solutions written as `list` writes them, 1-based.
fn written(solutions: &[Vec<usize>]) -> String {
    solutions
        .iter()
        .map(|s| {
            let cols: Vec<String> = s.iter().map(|c| (c + 1).to_string()).collect();
            format!("[{}]\n", cols.join(","))
        })
        .collect()
}

#[test]
fn four_in_zero_based_lists_is_exactly_two_lines() {
    nqueens()
        .args(["list", "4", "--format", "zero"])
        .assert()
        .success()
        .stdout("[1,3,0,2]\n[2,0,3,1]\n");
}

#[test]
fn eight_has_92_solutions_starting_with_the_textbook_one() {
    let text = stdout_of(&["list", "8"]);
    assert_eq!(text.lines().count(), 92);
    assert_eq!(text.lines().next(), Some("[1,5,8,6,3,7,2,4]"));
}

#[test]
fn listings_are_the_plain_solvers_solutions_in_order_on_any_threads() {
    for n in 0..=10usize {
        let expected = written(&reference_solutions(n));
        for threads in ["1", "2", "3"] {
            let listed = stdout_of(&["list", &n.to_string(), "-t", threads, "-q"]);
            assert_eq!(listed, expected, "n = {n}, {threads} threads");
        }
    }
}

#[test]
fn the_number_listed_is_the_count_up_to_12() {
    for row in published().iter().filter(|r| r.n <= 12) {
        let listed = stdout_of(&["list", &row.n.to_string(), "-q"]);
        let counted = nqueens::count(
            &nqueens::CountRequest::new(row.n).unwrap().threads(2),
            &nqueens::engine::exec::NoProgress,
        )
        .unwrap()
        .total;
        assert_eq!(listed.lines().count() as u128, counted, "n = {}", row.n);
        assert_eq!(counted, row.total);
    }
}

#[test]
fn rectangles_list_the_plain_solvers_solutions_up_to_9_rows() {
    for rows in 1..=9usize {
        for cols in 1..=rows {
            let spec = format!("{rows}x{cols}");
            let expected = reference_rect_solutions(rows, cols);
            let listed = stdout_of(&["list", &spec, "-q"]);
            assert_eq!(listed, written(&expected), "{spec}");
            let counted = nqueens::count(
                &nqueens::CountRequest::board(
                    nqueens::Board::rect(rows as u32, cols as u32).unwrap(),
                ),
                &nqueens::engine::exec::NoProgress,
            )
            .unwrap()
            .total;
            assert_eq!(counted, expected.len() as u128, "{spec}");
        }
    }
}

#[test]
fn unique_listings_give_one_smallest_representative_per_class() {
    for row in published().iter().filter(|r| (1..=12).contains(&r.n)) {
        let listed = stdout_of(&["list", &row.n.to_string(), "--unique", "-f", "zero", "-q"]);
        let reps: Vec<Vec<usize>> = listed
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(Some(reps.len() as u128), row.unique, "n = {}", row.n);
        let mut classes = HashSet::new();
        for rep in &reps {
            let images = common::images(rep);
            assert_eq!(
                images.iter().min(),
                Some(rep),
                "n = {}: {rep:?} is not the smallest",
                row.n
            );
            assert!(
                classes.insert(images.iter().min().cloned()),
                "two of one class"
            );
        }
    }
}

#[test]
fn a_rectangles_lists_checked_without_their_board_say_what_it_takes() {
    // Read as the square of their length, a rectangle's lists have queens past its last row: the verdict is
    // right for a square, and stderr says how to check them as the rectangle's.
    let hint = "a rectangle's lists need --board RxC";
    for format in ["rows", "csv"] {
        let listed = stdout_of(&["list", "8x6", "-f", format, "--limit", "2", "-q"]);
        nqueens()
            .arg("check")
            .write_stdin(listed.clone())
            .assert()
            .code(1)
            .stdout(predicate::str::contains("is off the 6x6 board"))
            .stderr(predicate::str::contains(hint));
        nqueens()
            .args(["check", "--board", "8x6"])
            .write_stdin(listed)
            .assert()
            .success()
            .stderr(predicate::str::contains(hint).not());
    }
    // A queen before the first row or column is off every board: no board given would make it fit.
    nqueens()
        .arg("check")
        .write_stdin("[0,2,-1]\n[1,2]\n")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(hint).not());
}

#[test]
fn every_format_lists_solutions_that_the_checker_accepts() {
    // `nqueens list BOARD -f FORMAT | nqueens check`, on squares, rectangles, boards of one row (1x2 has no
    // solution) or one column (whose CSV has no commas), and the empty board.
    for format in ["rows", "zero", "board", "matrix", "json", "csv"] {
        for board in ["0", "1", "6", "8", "7x5", "1x1", "1x2", "3x1", "5x1"] {
            // `--ascii` changes the drawn boards alone, and is refused with any other format.
            let variants: &[bool] = if format == "board" {
                &[false, true]
            } else {
                &[false]
            };
            for &ascii in variants {
                let mut args = vec!["list", board, "-f", format, "-q"];
                if ascii {
                    args.push("--ascii");
                }
                let listed = stdout_of(&args);
                let expected = stdout_of(&["list", board, "-q"]).lines().count();
                let mut check = nqueens();
                check.arg("check");
                if board.contains('x') {
                    check.args(["--board", board]);
                }
                if format == "zero" {
                    check.args(["--format", "zero"]);
                }
                // The empty board's one solution is blank lines in CSV (no names, no positions) and in the
                // drawings without boxes (no rows), which `check` cannot tell from the blank lines it skips.
                let blank = board == "0"
                    && (format == "csv" || format == "matrix" || format == "board" && ascii);
                let checked = check.write_stdin(listed).assert();
                if expected == 0 || blank {
                    checked
                        .code(1)
                        .stdout("")
                        .stderr(predicate::str::contains("no solutions to check"));
                } else {
                    checked.success().stderr(predicate::str::contains(format!(
                        "{expected} valid, 0 invalid, 0 malformed"
                    )));
                }
            }
        }
    }
}

#[test]
fn limit_stops_after_k_solutions_in_order() {
    let all = stdout_of(&["list", "10", "-q"]);
    for threads in ["1", "2"] {
        for k in [0usize, 1, 5, 700, 724, 5000] {
            let listed = stdout_of(&["list", "10", "--limit", &k.to_string(), "-t", threads, "-q"]);
            let expected: String = all.lines().take(k).map(|l| format!("{l}\n")).collect();
            assert_eq!(listed, expected, "--limit {k}");
        }
    }
}

#[test]
fn ascii_with_a_format_it_does_not_change_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let out = out.to_str().unwrap();
    for args in [
        vec!["list", "6", "--ascii"],
        vec!["list", "6", "-f", "matrix", "--ascii", "-o", out],
        vec!["solve", "8", "-f", "csv", "--ascii"],
        vec!["solve", "1000", "--ascii", "-o", out],
    ] {
        nqueens()
            .args(&args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(
                "--ascii draws `--format board`'s boards with Q and . and changes nothing in --format",
            ))
            .stderr(predicate::str::contains("add --format board, or leave --ascii out"));
        assert!(!std::path::Path::new(out).exists(), "{args:?} wrote {out}");
    }
    nqueens()
        .args(["solve", "8", "-f", "board", "--ascii"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Q"));
}

#[test]
fn the_help_says_what_the_numbers_of_a_solution_are_and_which_formats_check_reads() {
    // `[2,4,1,3]` was called 1-based and nothing more: whether 2 is a row or a column was left to guess.
    for command in ["list", "solve"] {
        let help = stdout_of(&[command, "--help"]);
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            help.contains(
                "`rows` (row by row, the column of its queen, 1-based: `[2,4,1,3]` has row 1's queen in \
                 column 2; a rectangle's column by column, the row of its queen), `zero` (the same, 0-based)"
            ),
            "{command}: {help}"
        );
    }
    // `check --format` named no format: they were to be found in another command's help.
    let help = stdout_of(&["check", "--help"]);
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains(
            "The format of the input, one of `list`'s: `rows`, `zero` (0-based), `board`, `matrix`, `json` or \
             `csv` [default: recognised from each solution's text]"
        ),
        "{help}"
    );
}

#[test]
fn drawn_boards_use_box_drawing_or_ascii() {
    nqueens()
        .args(["list", "4", "--format", "board", "--ascii", "--limit", "1"])
        .assert()
        .success()
        .stdout(". Q . .\n. . . Q\nQ . . .\n. . Q .\n\n");
    let boxed = stdout_of(&["list", "4", "--format", "board", "--limit", "1"]);
    assert!(boxed.starts_with("┌───┬───┬───┬───┐\n│   │ ♛ │   │   │\n"));
}

#[test]
fn degenerate_boards_are_drawn_whole_and_read_back() {
    // A board of no columns drew its rows as `│` alone, without the right border its rules have.
    let cases = [
        ("3x0", "┌┐\n││\n├┤\n││\n├┤\n││\n└┘\n\n"),
        ("0", "┌┐\n└┘\n\n"),
        ("1", "┌───┐\n│ ♛ │\n└───┘\n\n"),
        ("1x5", ""),
    ];
    for (board, drawing) in cases {
        assert_eq!(
            stdout_of(&["list", board, "-f", "board"]),
            drawing,
            "{board}"
        );
        if !drawing.is_empty() {
            assert_eq!(
                verdicts(&["--board", board], drawing),
                (Some(0), "line 1: valid\n".into()),
                "{board}"
            );
        }
    }
    assert_eq!(
        stdout_of(&["solve", "3x0", "-f", "board"]),
        "┌┐\n││\n├┤\n││\n├┤\n││\n└┘\n\n"
    );
    assert_eq!(stdout_of(&["list", "1", "-f", "board", "--ascii"]), "Q\n\n");
}

#[test]
fn solve_finds_the_first_solution_by_backtracking() {
    nqueens()
        .args(["solve", "8"])
        .assert()
        .success()
        .stdout("[1,5,8,6,3,7,2,4]\n");
    nqueens()
        .args(["solve", "8x6"])
        .assert()
        .success()
        .stdout("[1,3,5,7,2,4]\n");
}

#[test]
fn backtracking_more_than_32_columns_warns_that_it_may_take_hours() {
    // Asked for by name beyond where `auto` backtracks, the search says first what it may cost; a board of
    // 40 rows and 33 columns is solved at once all the same.
    nqueens()
        .args(["solve", "40x33", "--method", "backtrack"])
        .assert()
        .success()
        .stdout(
            "[1,3,5,2,4,9,11,13,15,6,8,19,7,22,10,25,27,29,34,36,38,40,35,37,39,12,16,21,17,20,14,23,18]\n",
        )
        .stderr(predicate::str::contains(
            "backtracking the 40x33 board for its lexicographically first solution, which with more \
             than 32 columns may take hours",
        ));
    for quiet in [
        &["solve", "40x33", "--method", "backtrack", "-q"][..],
        &["solve", "40x8", "--method", "backtrack"],
        &["solve", "32", "--method", "backtrack"],
        &["solve", "40"],
    ] {
        nqueens()
            .args(quiet)
            .assert()
            .success()
            .stderr(predicate::str::contains("may take hours").not());
    }
    // `list` starts with the same first solution, and says the same of its cost.
    nqueens()
        .args(["list", "40x33", "--limit", "1"])
        .assert()
        .success()
        .stdout(
            "[1,3,5,2,4,9,11,13,15,6,8,19,7,22,10,25,27,29,34,36,38,40,35,37,39,12,16,21,17,20,14,23,18]\n",
        )
        .stderr(predicate::str::contains(
            "listing the 40x33 board's solutions in lexicographic order, the first of which alone may take \
             hours",
        ));
    nqueens()
        .args(["list", "32", "--limit", "1"])
        .assert()
        .success()
        .stderr(predicate::str::contains("may take hours").not());
    // A board too wide to backtrack is refused, with no word of how long backtracking would take.
    nqueens()
        .args(["solve", "65", "--method", "backtrack"])
        .assert()
        .code(2)
        .stderr(
            "error: backtracking handles boards up to 64 rows and columns: use --method construct\n",
        );
}

#[test]
fn two_and_three_have_no_solution() {
    for n in ["2", "3"] {
        for method in ["auto", "backtrack", "construct"] {
            nqueens()
                .args(["solve", n, "--method", method])
                .assert()
                .code(1)
                .stdout("")
                .stderr(predicate::str::contains("has no solution"));
        }
    }
}

#[test]
fn solve_constructs_large_boards_and_refuses_to_draw_them() {
    let text = stdout_of(&["solve", "100000", "--method", "construct"]);
    let queens: Vec<u32> = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(queens.len(), 100_000);
    nqueens()
        .args(["solve", "1000", "--format", "board"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("too large to draw"));
    nqueens()
        .args(["solve", "70", "--method", "backtrack"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--method construct"));
    nqueens()
        .args(["solve", "3x2", "--method", "construct"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--method backtrack"));
}

#[test]
#[cfg(target_os = "linux")]
fn solve_holds_a_huge_boards_queens_not_their_text() {
    // n = 10^7: 40 MB of queens, 79 MB of text as a list and 89 MB more for a CSV header, which used to be
    // all in memory at once (the header's names one allocation each: 7.8 GB for n = 10^8).
    let dir = tempfile::tempdir().unwrap();
    for format in ["rows", "csv"] {
        let file = dir.path().join(format!("big.{format}"));
        let file = file.to_str().unwrap();
        let (status, _, stderr, peak) =
            with_peak_memory(&["solve", "10000000", "-f", format, "-o", file]);
        assert!(status.success(), "{format}: {stderr}");
        // About 48 MiB on the development machine; the text held whole was 130 MiB more (rows), 780 (CSV).
        assert!(
            peak < 96.0,
            "{format}: solve 10000000 held {peak:.0} MiB at once"
        );
        nqueens()
            .args(["check", file])
            .assert()
            .success()
            .stderr(predicate::str::contains("1 valid, 0 invalid, 0 malformed"));
    }
    // A rectangle takes the columns it has from the square's construction, not the square.
    let (status, stdout, stderr, peak) = with_peak_memory(&["solve", "100000000x3"]);
    assert!(status.success(), "{stderr}");
    assert!(
        peak < 96.0,
        "solve 100000000x3 held {peak:.0} MiB at once (the square: 590)"
    );
    assert_eq!(stdout, "[2,4,6]\n");
}

#[test]
fn check_reads_back_a_solution_longer_than_128_mib() {
    // 168,888,898 bytes on one line: `check` called what `solve` wrote malformed ("the line is longer than 128
    // MiB") from n = 14,000,000 or so on.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.txt");
    let file = file.to_str().unwrap();
    nqueens()
        .args(["solve", "20000000", "-o", file])
        .assert()
        .success();
    nqueens()
        .args(["check", file])
        .assert()
        .success()
        .stdout("line 1: valid\n");
}

/// An independent check, without the library: distinct columns and distinct diagonals in both directions.
fn plainly_valid(queens: &[u32]) -> bool {
    let n = queens.len();
    let mut cols = vec![false; n];
    let mut down = vec![false; 2 * n];
    let mut up = vec![false; 2 * n];
    queens.iter().enumerate().all(|(r, &c)| {
        let c = c as usize;
        let fresh = c < n && !cols[c] && !down[r + n - c] && !up[r + c];
        if fresh {
            cols[c] = true;
            down[r + n - c] = true;
            up[r + c] = true;
        }
        fresh
    })
}

#[test]
fn the_construction_is_valid_from_4_to_3000() {
    for n in 4..=3000 {
        let queens = construct::square(n).unwrap();
        assert!(plainly_valid(&queens), "n = {n}");
        assert_eq!(checker::check_list(Shape::square(n), &queens), Ok(()));
    }
}

#[test]
fn the_construction_is_valid_near_a_million_and_ten_million() {
    // Six consecutive n cover every remainder modulo 6, which is what the construction depends on.
    for n in (999_997..1_000_003).chain(9_999_997..10_000_003) {
        let queens = construct::square(n).unwrap();
        assert!(plainly_valid(&queens), "n = {n}");
        assert_eq!(checker::check_list(Shape::square(n), &queens), Ok(()));
    }
}

#[test]
fn check_names_the_attacking_queens_and_malformed_lines() {
    nqueens()
        .arg("check")
        .write_stdin("[1,5,8,6,3,7,2,4]\n[1,2,3,4]\n\n[2,x]\n")
        .assert()
        .code(1)
        .stdout(
            "line 1: valid\n\
             line 2: invalid: the queens at row 1, column 1 and row 2, column 2 share a diagonal\n\
             line 4: malformed: entry 2, 'x', is not a whole number\n",
        )
        .stderr(predicate::str::contains("1 valid, 1 invalid, 1 malformed"));
}

#[test]
fn check_says_how_a_list_it_cannot_read_is_written_in_the_format_given() {
    // The example was [2,4,1,3] whatever the format: read as `--format zero` asks, it has a queen off the board;
    // and a bracket left open was answered with the example rather than with what is missing.
    assert_eq!(
        verdicts(&["--format", "zero"], "1 3 0 2\n"),
        (
            Some(1),
            "line 1: malformed: '1 3 0 2' is not a list as --format zero writes one, in brackets: [1,3,0,2]; \
             without --format, positions separated by spaces or commas are read too\n"
                .into()
        )
    );
    assert_eq!(
        verdicts(&["--format", "rows"], "2 4 1 3\n"),
        (
            Some(1),
            "line 1: malformed: '2 4 1 3' is not a list as --format rows writes one, in brackets: [2,4,1,3]; \
             without --format, positions separated by spaces or commas are read too\n"
                .into()
        )
    );
    assert_eq!(
        verdicts(&[], "[2,4,1,3\n(1 3 0 2]\n"),
        (
            Some(1),
            "line 1: malformed: '[2,4,1,3' is not a list: it opens with '[' but does not end with ']'\n\
             line 2: malformed: '(1 3 0 2]' is not a list: it opens with '(' but does not end with ')'\n"
                .into()
        )
    );
}

#[test]
fn check_reads_joined_files_and_says_what_it_cannot_see() {
    // `cat a.txt b.txt`, each saved with a byte-order mark: the second file's mark, at the start of a line, made
    // its first solution "not a solution in any format", quoted as if it were one.
    assert_eq!(
        verdicts(&[], "\u{feff}2 4 1 3\n\u{feff}3 1 4 2\n\u{feff}[1,3,0,2]\n"),
        (
            Some(0),
            "line 1: valid\nline 2: valid\nline 3: valid\n".into()
        )
    );
    // An invisible character elsewhere (a zero-width space pasted from a web page, a mark past the start) is
    // quoted escaped, so that the message shows what is wrong with the line.
    assert_eq!(
        verdicts(&[], "2 4 1 3\u{200b}\n1 \u{feff}3\n"),
        (
            Some(1),
            "line 1: malformed: '2 4 1 3\\u{200b}' is not a solution in any format: write a list such as \
             [2,4,1,3] or 2 4 1 3, a CSV record, or a drawn board\n\
             line 2: malformed: '1 \\u{feff}3' is not a solution in any format: write a list such as [2,4,1,3] \
             or 2 4 1 3, a CSV record, or a drawn board\n"
                .into()
        )
    );
    // Lines ended by a carriage return alone were one line whose positions ran on into one list, judged
    // invalid ("the queens at row 4, column 3 and row 5, column 3 share a column") though each was a solution.
    // A carriage return left before the line's end (`\r\r\n`) is only white space.
    assert_eq!(
        verdicts(&[], "2 4 1 3\r3 1 4 2\r"),
        (
            Some(1),
            "line 1: malformed: '2 4 1 3\\r3 1 4 2\\r' has a carriage return (\\r) inside it: lines ended by \\r \
             alone (old Mac text) read as one; end each with \\n (`tr '\\r' '\\n' < FILE`)\n"
                .into()
        )
    );
    assert_eq!(
        verdicts(&[], "2 4 1 3\r\r\n3 1 4 2 \r\n"),
        (Some(0), "line 1: valid\nline 2: valid\n".into())
    );
}

#[test]
fn check_reads_what_other_solvers_print() {
    // `my-solver 8 | nqueens check`: positions separated by spaces or commas, bracketed or not, 1-based or
    // 0-based.
    nqueens()
        .arg("check")
        .write_stdin(
            "1 5 8 6 3 7 2 4\n0 4 7 5 2 6 1 3\n(1, 5, 8, 6, 3, 7, 2, 4)\n[1 5 8 6 3 7 2 4]\n\
             (0 4 7 5 2 6 1 3)\n1 2 3 4 5 6 7 8\n",
        )
        .assert()
        .code(1)
        .stdout(
            "line 1: valid\n\
             line 2: valid\n\
             line 3: valid\n\
             line 4: valid\n\
             line 5: valid\n\
             line 6: invalid: the queens at row 1, column 1 and row 2, column 2 share a diagonal\n",
        )
        .stderr(predicate::str::contains("5 valid, 1 invalid, 0 malformed"));
}

/// What `nqueens check ARGS` says of `input`: its exit code and its verdicts.
fn verdicts(args: &[&str], input: &str) -> (Option<i32>, String) {
    let out = nqueens()
        .arg("check")
        .args(args)
        .write_stdin(input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{args:?} {input:?}: {stderr}");
    (out.status.code(), String::from_utf8(out.stdout).unwrap())
}

#[test]
fn check_holds_each_csv_record_to_its_header() {
    // README: a record with more or fewer fields than its header is malformed, whether the CSV is recognised
    // or named by --format; a blank line ends a CSV, and a record without a header is as long as it is.
    let text = "a,b,c,d\n1,3,0,2,5\nr1,r2,r3,r4\n2,4,1\n3,1,4,2\n\n2,4,1,3,5\n";
    for format in [&[][..], &["--format", "csv"]] {
        assert_eq!(
            verdicts(format, text),
            (
                Some(1),
                "line 2: malformed: the record has 5 fields, but the header on line 1 has 4\n\
                 line 4: malformed: the record has 3 fields, but the header on line 3 has 4\n\
                 line 5: valid\n\
                 line 7: valid\n"
                    .into()
            ),
            "{format:?}"
        );
    }
    // A header names every field: a line that starts with a word but has a number or nothing in a field is
    // no header, and is malformed rather than skipped unjudged.
    assert_eq!(
        verdicts(&[], "Solution 1: 2,4,1,3\nr1,r2,,r4\n2,4,1,3\n"),
        (
            Some(1),
            "line 1: malformed: 'Solution 1: 2,4,1,3' starts with a name, as a CSV header does, but its \
             field 2, '4', is a number\n\
             line 2: malformed: 'r1,r2,,r4' starts with a name, as a CSV header does, but its field 3 is \
             empty\n\
             line 3: valid\n"
                .into()
        )
    );
    // Records as long as their header, on a board of another length, are invalid as a list of that length is.
    assert_eq!(
        verdicts(&["--board", "5"], "r1,r2,r3,r4\n2,4,1,3\n"),
        (
            Some(1),
            "line 2: invalid: 4 queens on the 5x5 board, but a solution has 5\n".into()
        )
    );
    // A header alone lists no solution (`list 2 -f csv`), and a second header starts a CSV of its own.
    assert_eq!(verdicts(&[], "r1,r2\n"), (Some(1), String::new()));
    assert_eq!(
        verdicts(
            &[],
            "r1,r2,r3,r4\r\n2,4,1,3\r\nr1,r2,r3,r4,r5\r\n 1 , 3 , 5 , 2 , 4 \r\n"
        ),
        (Some(0), "line 2: valid\nline 4: valid\n".into())
    );
}

#[test]
fn check_calls_a_queen_off_either_end_of_the_board_invalid() {
    // README: a position is a whole number, and one that is not on the board (0 or less in a 1-based list,
    // less than 0 in a 0-based one, beyond the last line) puts its queen off the board: invalid. Messages
    // count rows and columns from 1 whatever the list's base.
    assert_eq!(
        verdicts(&[], "[2,4,5,3]\n[2,4,-1,3]\n2 4 -1 3\n[2,4,4294967297,3]\n"),
        (
            Some(1),
            "line 1: invalid: the queen at row 3, column 5 is off the 4x4 board\n\
             line 2: invalid: the queen at row 3, column -1 is off the 4x4 board\n\
             line 3: invalid: the queen at row 3, column -1 is off the 4x4 board\n\
             line 4: invalid: the queen at row 3, column 4294967297 is off the 4x4 board\n"
                .into()
        )
    );
    let off_left = "line 1: invalid: the queen at row 3, column 0 is off the 4x4 board\n";
    assert_eq!(
        verdicts(&["--format", "rows"], "[2,4,0,3]\n"),
        (Some(1), off_left.into())
    );
    assert_eq!(
        verdicts(&["--format", "zero"], "[1,3,-1,2]\n"),
        (Some(1), off_left.into())
    );
    assert_eq!(
        verdicts(&["--format", "csv"], "2,4,0,3\n"),
        (Some(1), off_left.into())
    );
    // On a rectangle a position is a row.
    assert_eq!(
        verdicts(&["--board", "8x6", "--format", "rows"], "[0,3,5,7,2,4]\n"),
        (
            Some(1),
            "line 1: invalid: the queen at row 0, column 1 is off the 8x6 board\n".into()
        )
    );
    // A queen off the board is found after those before it.
    assert_eq!(
        verdicts(&[], "[2,4,99999999999999999999,3]\n[1,1,-1]\n"),
        (
            Some(1),
            "line 1: invalid: the queen at row 3, column 99999999999999999999 is off the 4x4 board\n\
             line 2: invalid: the queens at row 1, column 1 and row 2, column 1 share a column\n"
                .into()
        )
    );
}

#[test]
fn check_calls_a_queen_at_a_number_of_any_size_off_the_board() {
    // README: a whole number is a position whatever its size, so one past 64 bits, signed or not, puts its
    // queen off the board as 5 does on a board of 4: invalid, named by its row and column.
    assert_eq!(
        verdicts(
            &[],
            "[2,4,9223372036854775808,3]\n2 4 18446744073709551615 3\n[2,4,-9223372036854775808,3]\n\
             [1,3,0,-9223372036854775809]\n[2,4,-170141183460469231731687303715884105728,3]\n"
        ),
        (
            Some(1),
            "line 1: invalid: the queen at row 3, column 9223372036854775808 is off the 4x4 board\n\
             line 2: invalid: the queen at row 3, column 18446744073709551615 is off the 4x4 board\n\
             line 3: invalid: the queen at row 3, column -9223372036854775808 is off the 4x4 board\n\
             line 4: invalid: the queen at row 4, column -9223372036854775808 is off the 4x4 board\n\
             line 5: invalid: the queen in row 3 is off the 4x4 board: its column is written \
             '-170141183460469231731687303715884105728', a number of 39 digits\n"
                .into()
        )
    );
    // The largest number of 38 digits is still named as a column; beyond, the number as written, whose value
    // is not worked out: a million digits are no more than their count, in a message of one line.
    let million = format!("[1,{}]\n", "9".repeat(1_000_000));
    assert_eq!(
        verdicts(
            &[],
            &format!("[1,{}]\n[1,+{}]\n{million}", "9".repeat(38), "9".repeat(39))
        ),
        (
            Some(1),
            format!(
                "line 1: invalid: the queen at row 2, column {} is off the 2x2 board\n\
                 line 2: invalid: the queen in row 2 is off the 2x2 board: its column is written '+{}', a \
                 number of 39 digits\n\
                 line 3: invalid: the queen in row 2 is off the 2x2 board: its column is written '{}… \
                 (1000000 bytes in all)', a number of 1000000 digits\n",
                "9".repeat(38),
                "9".repeat(39),
                "9".repeat(60)
            )
        )
    );
    // Leading zeros are no digits of a number: a position written with a million of them is on the board.
    let zeros = "0".repeat(1_000_000);
    assert_eq!(
        verdicts(&[], &format!("[2,{zeros}4,1,3]\n[1,3,0,{zeros}2]\n")),
        (Some(0), "line 1: valid\nline 2: valid\n".into())
    );
    // On a rectangle a position is a row, and past the last one a queen may be a rectangle's, as stderr says.
    let far = "1".repeat(40);
    assert_eq!(
        verdicts(&["--board", "8x6"], &format!("[1,5,8,6,3,{far}]\n")),
        (
            Some(1),
            format!(
                "line 1: invalid: the queen in column 6 is off the 8x6 board: its row is written '{far}', a \
                 number of 40 digits\n"
            )
        )
    );
    for (far, hint) in [(far.as_str(), true), (&format!("-{far}"), false)] {
        let out = nqueens()
            .args(["check"])
            .write_stdin(format!("[1,{far}]\n"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.contains("need --board RxC"), hint, "{far}: {stderr}");
    }
}

#[test]
fn check_calls_a_drawing_of_another_board_invalid_as_it_does_a_list_of_another_length() {
    // README: a drawing, or a list, that reads as queens on a board is invalid when that is not the board
    // given (--board); one whose rows cannot make a board at all is malformed.
    let drawing = stdout_of(&["list", "4", "-f", "board", "--ascii", "--limit", "1"]);
    assert_eq!(
        verdicts(&["--board", "5"], &format!("{drawing}[2,4,1,3]\n")),
        (
            Some(1),
            "line 1: invalid: the drawing shows a 4x4 board, not the 5x5 board given\n\
             line 6: invalid: 4 queens on the 5x5 board, but a solution has 5\n"
                .into()
        )
    );
    assert_eq!(
        verdicts(&["--board", "4"], &drawing),
        (Some(0), "line 1: valid\n".into())
    );
    assert_eq!(
        verdicts(&[], "\n. Q . .\n. . . Q\nQ . .\n. . Q .\n"),
        (
            Some(1),
            "line 2: malformed: row 3 of the drawing (line 4) has 3 squares, but row 1 has 4\n"
                .into()
        )
    );
    // In a boxed drawing the rows are every other line.
    let boxed =
        stdout_of(&["list", "4", "-f", "board", "--limit", "1"]).replacen("│ ♛ │", "│ ♛♛│", 1);
    assert_eq!(
        verdicts(&["--format", "board"], &boxed),
        (
            Some(1),
            "line 1: malformed: square 2 of row 1 of the drawing (line 2), '♛♛', is neither a queen nor an \
             empty square of --format board (♛ or Q for a queen, . or a blank for an empty square)\n"
                .into()
        )
    );
}

#[test]
fn check_says_a_board_with_more_columns_than_rows_has_no_solution() {
    // README: a rectangle with more columns than rows has no solution, as `solve 4x5` says; whatever is
    // checked on it is invalid for that first, the right number of queens included, and a drawing of one too.
    let no_solution =
        "the 4x5 board has no solution: it has more columns than rows, so two queens would \
                       share a row";
    assert_eq!(
        verdicts(&["--board", "4x5"], "[2,4,1,3]\n[1,3,2,4,1]\n[1,3,2,4,9]\n"),
        (
            Some(1),
            format!(
                "line 1: invalid: {no_solution}\nline 2: invalid: {no_solution}\nline 3: invalid: \
                 {no_solution}\n"
            )
        )
    );
    assert_eq!(
        verdicts(&[], "Q . . . .\n. . Q . .\n. . . . Q\n. Q . . .\n"),
        (Some(1), format!("line 1: invalid: {no_solution}\n"))
    );
    // A drawing of another board than the one given is named as such first.
    assert_eq!(
        verdicts(&["--board", "4x5"], "Q . . .\n. . Q .\n"),
        (
            Some(1),
            "line 1: invalid: the drawing shows a 2x4 board, not the 4x5 board given\n".into()
        )
    );
    let solve = nqueens().args(["solve", "4x5"]).output().unwrap();
    assert!(String::from_utf8_lossy(&solve.stderr).contains(no_solution));
}

#[test]
fn check_calls_a_boxed_drawing_with_a_square_that_is_no_queen_one_malformed_drawing() {
    // README: a drawing with a square that is neither a queen nor empty is malformed. A boxed one ended at the
    // bad row, which was a line of no format, and each rule after it was a board of no rows: `list 4 -f board
    // | sed 's/♛/♕/g' | check` gave nine verdicts, "0 valid, 5 invalid, 4 malformed".
    let drawing = stdout_of(&["list", "4", "-f", "board", "--limit", "1", "-q"]);
    for queen in ["♕", "X"] {
        let out = nqueens()
            .arg("check")
            .write_stdin(drawing.replace('♛', queen))
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!(
                "line 1: malformed: square 2 of row 1 of the drawing (line 2), '{queen}', is neither a queen nor \
                 an empty square\n"
            )
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("0 valid, 0 invalid, 1 malformed"));
        assert_eq!(out.status.code(), Some(1));
    }
    // The rules are the drawing's too, held to its columns and to their places, and it ends at its bottom rule.
    assert_eq!(
        verdicts(&[], &drawing.replacen("├───┼───┼───┼───┤", "├───┼───┼───┤", 1)),
        (
            Some(1),
            "line 1: malformed: line 3 of the drawing, '├───┼───┼───┤', is not a rule between rows of 4 \
             columns: ├, 4 runs of ─ separated by ┼, then ┤\n"
                .into()
        )
    );
    assert_eq!(
        verdicts(&[], &drawing.replace("\n\n", "\n[2,4,1,3]\n")),
        (Some(0), "line 1: valid\nline 10: valid\n".into())
    );
    let cut: String = drawing.lines().take(5).map(|l| format!("{l}\n")).collect();
    assert_eq!(
        verdicts(&[], &cut),
        (
            Some(1),
            "line 1: malformed: the boxed drawing ends on line 5 without its bottom rule (└, 4 runs of ─ \
             separated by ┴, then ┘)\n"
                .into()
        )
    );
    // The frame of the empty board has no columns: it is the one solution of `list 0`.
    assert_eq!(
        verdicts(&[], "┌┐\n└┘\n"),
        (Some(0), "line 1: valid\n".into())
    );
}

#[test]
fn check_reads_a_boxed_drawing_with_fewer_rules_as_other_solvers_draw_it() {
    // README: rules between rows are the drawing's own or none, and so are its top and bottom rules. The
    // drawing held to a rule between each two rows called rows alone, a frame without rules between the rows
    // and a frame of one run malformed, which were valid before.
    let rows = "│   │ ♛ │   │   │\n│   │   │   │ ♛ │\n│ ♛ │   │   │   │\n│   │   │ ♛ │   │\n";
    for text in [
        rows.to_string(),
        format!("┌───┬───┬───┬───┐\n{rows}└───┴───┴───┴───┘\n"),
        format!("┌───────────────┐\n{rows}└───────────────┘\n"),
        "┌─────────┐\n│ . ♛ . . │\n│ . . . ♛ │\n│ ♛ . . . │\n│ . . ♛ . │\n└─────────┘\n".into(),
        "│ ♛ │\n".into(),
    ] {
        for format in [&[][..], &["--format", "board"]] {
            assert_eq!(
                verdicts(format, &text),
                (Some(0), "line 1: valid\n".into()),
                "{format:?} {text}"
            );
        }
    }
    // Rows alone end at a line that is none of them: the next is judged on its own.
    assert_eq!(
        verdicts(&[], &format!("{rows}[2,4,1,3]\n")),
        (Some(0), "line 1: valid\nline 5: valid\n".into())
    );
    // Where a drawing has rules, they are in their places: it is one drawing, malformed, and one verdict.
    let drawing = stdout_of(&["list", "4", "-f", "board", "--limit", "1", "-q"]);
    assert_eq!(
        verdicts(&[], &drawing.replacen("├───┼───┼───┼───┤\n", "", 1)),
        (
            Some(1),
            "line 1: malformed: line 4 of the drawing, '├───┼───┼───┼───┤', is a rule between rows after row 2, \
             but rows 1 and 2 have none between them: a boxed drawing has a rule between each two rows or none\n"
                .into()
        )
    );
}

#[test]
fn check_holds_a_drawing_to_the_format_given() {
    // README: `--format` fixes the format. It did for lists (`-f rows` of `1 3 0 2` is malformed), but a
    // drawing of any kind was read under either drawing's format.
    let looks_like = |format: &str, other: &str, row: &str, squares: &str| {
        format!(
            "line 1: malformed: row 1 of the drawing (line 1), '{row}', is not a row as --format {format} writes \
             one ({squares}): it looks like a row of --format {other}; without --format, either is read\n"
        )
    };
    let matrix = "1 for a queen, 0 for an empty square";
    let board = "♛ or Q for a queen, . or a blank for an empty square";
    assert_eq!(
        verdicts(&["-f", "matrix"], ".Q..\n...Q\nQ...\n..Q.\n"),
        (Some(1), looks_like("matrix", "board", ".Q..", matrix))
    );
    assert_eq!(
        verdicts(&["-f", "board"], "0 1 0 0\n0 0 0 1\n1 0 0 0\n0 0 1 0\n"),
        (Some(1), looks_like("board", "matrix", "0 1 0 0", board))
    );
    let boxed = stdout_of(&["list", "4", "-f", "board", "-q"]);
    let is_boxed = |line| {
        format!(
            "line {line}: malformed: the drawing (line {line}) is boxed, as --format board draws one, not rows \
             of 1 and 0 as --format matrix writes them; without --format, either is read\n"
        )
    };
    assert_eq!(
        verdicts(&["-f", "matrix"], &boxed),
        (Some(1), is_boxed(1) + &is_boxed(11))
    );
    // Each reads its own: the second solution of 4 starts on line 11 boxed, on line 6 otherwise.
    for (format, args, second) in [
        ("board", &[][..], 11),
        ("board", &["--ascii"], 6),
        ("matrix", &[], 6),
    ] {
        let listed = stdout_of(&[&["list", "4", "-q", "-f", format][..], args].concat());
        assert_eq!(
            verdicts(&["-f", format], &listed),
            (Some(0), format!("line 1: valid\nline {second}: valid\n")),
            "{format} {args:?}"
        );
    }
}

#[test]
fn check_judges_every_line_of_a_csv_where_no_header_can_stand() {
    // README: a CSV header is the first line of a CSV, or one as `list -f csv` writes. `-f csv` of a drawing
    // skipped its row `Q . . .` as a header of one name, and judged the three others.
    assert_eq!(
        verdicts(&["-f", "csv"], ". Q . .\n. . . Q\nQ . . .\n. . Q .\n"),
        (
            Some(1),
            "line 1: malformed: field 1, '. Q . .', is not a whole number\n\
             line 2: malformed: field 1, '. . . Q', is not a whole number\n\
             line 3: malformed: 'Q . . .' is neither a CSV record nor a header: a header is the first line of a \
             CSV (this one starts on line 1), that line again, or one as `list -f csv` writes (r1,r2,…)\n\
             line 4: malformed: field 1, '. . Q .', is not a whole number\n"
                .into()
        )
    );
    // Names within a CSV, after its records, are neither; `list`'s own header starts a CSV there (files joined).
    assert_eq!(
        verdicts(&[], "queen 1,queen 2,queen 3,queen 4\n2,4,1,3\nx,y,z,w\nr1,r2,r3,r4\n3,1,4,2\n"),
        (
            Some(1),
            "line 2: valid\n\
             line 3: malformed: 'x,y,z,w' is neither a CSV record nor a header: a header is the first line of a \
             CSV (this one starts on line 1), that line again, or one as `list -f csv` writes (r1,r2,…)\n\
             line 5: valid\n"
                .into()
        )
    );
}

#[test]
fn check_reads_the_csv_headers_of_other_tools_and_of_files_joined() {
    // README: a CSV header repeats its CSV's first line (files of one tool joined), its names are any text but
    // numbers, and `list`'s own is read in either case and with spaces, as any other header's names are. Each
    // was a malformed line, which was a header before.
    for text in [
        "a,b,c,d\n2,4,1,3\na,b,c,d\n3,1,4,2\n",
        "r1, r2, r3, r4\n2,4,1,3\nr1, r2, r3, r4\n3,1,4,2\n",
        "R1,R2,R3,R4\n2,4,1,3\nR1,R2,R3,R4\n3,1,4,2\n",
        "row.1,row.2,row.3,row.4\n2,4,1,3\n\nr[1],r[2],r[3],r[4]\n3,1,4,2\n",
        "Unnamed: 0,a,b,c\n2,4,1,3\nUnnamed: 0,a,b,c\n3,1,4,2\n",
    ] {
        for format in [&[][..], &["--format", "csv"]] {
            let (code, out) = verdicts(format, text);
            assert_eq!(code, Some(0), "{format:?} {text}: {out}");
            assert_eq!(out.lines().count(), 2, "{format:?} {text}: {out}");
        }
    }
    // Placements written out are no header, however the line begins: first in their CSV (the first line, or
    // after a blank one) they were skipped unjudged, and an invalid one left `check` saying all was valid.
    for (text, placement) in [
        ("[2,4,1,3]\n\nSolution 2: (0,0), (1,1), (2,2), (3,3)\n", 3),
        ("row1=1, row2=2, row3=3, row4=4\n[2,4,1,3]\n", 1),
        ("Queens at (1,1), (2,2), (3,3), (4,4)\n", 1),
    ] {
        let (code, out) = verdicts(&[], text);
        assert_eq!(code, Some(1), "{text}: {out}");
        assert!(
            out.contains(&format!("line {placement}: malformed")),
            "{text}: {out}"
        );
    }
    // First in its CSV, one name is a header where a record of one number follows it, which `Q . . .`, a
    // drawing's row under `-f csv`, has not.
    assert_eq!(
        verdicts(&["-f", "csv"], "Q . . .\n. . . Q\n"),
        (
            Some(1),
            "line 1: malformed: 'Q . . .' is neither a CSV record nor a header: a header of one name is one as \
             `list -f csv` writes (r1) or has a record of one number after it\n\
             line 2: malformed: field 1, '. . . Q', is not a whole number\n"
                .into()
        )
    );
    assert_eq!(
        verdicts(&["-f", "csv"], "queen\n1\n"),
        (Some(0), "line 2: valid\n".into())
    );
}

#[test]
fn check_says_which_entry_of_a_list_or_field_of_a_record_it_cannot_read() {
    assert_eq!(
        verdicts(
            &[],
            "[2,4,1,3,]\n[,2,4,1,3]\n[2,,4,1,3]\n[2,x,1,3]\n2 4 1.5 3\nr1,r2,r3,r4\n2,4,one,3\n"
        ),
        (
            Some(1),
            "line 1: malformed: entry 5 is empty (nothing after the last comma)\n\
             line 2: malformed: entry 1 is empty (nothing before the first comma)\n\
             line 3: malformed: entry 2 is empty (nothing between two commas)\n\
             line 4: malformed: entry 2, 'x', is not a whole number\n\
             line 5: malformed: '2 4 1.5 3' is not a solution in any format: write a list such as [2,4,1,3] \
             or 2 4 1 3, a CSV record, or a drawn board\n\
             line 7: malformed: field 3, 'one', is not a whole number\n"
                .into()
        )
    );
}

#[test]
fn check_reads_past_the_spaces_line_ends_and_blank_lines_that_solvers_leave() {
    // Spaces around a solution or its positions, Windows line ends and blank lines change nothing.
    let text = "  [2, 4, 1, 3]  \r\n\r\n\r\n2 4 1 3\t\r\n 2 , 4 , 1 , 3 \r\n. Q . . \r\n. . . Q\r\nQ . . .\r\n. . Q .\r\n";
    assert_eq!(
        verdicts(&[], text),
        (
            Some(0),
            "line 1: valid\nline 4: valid\nline 5: valid\nline 6: valid\n".into()
        )
    );
}

#[test]
fn check_reads_files_and_refuses_missing_ones() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("eight.txt");
    std::fs::write(&path, stdout_of(&["list", "8", "-f", "matrix"])).unwrap();
    nqueens()
        .args(["check", "-q"])
        .arg(&path)
        .assert()
        .success()
        .stdout("");
    nqueens()
        .args(["check", "no-such-file.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read 'no-such-file.txt'"));
    nqueens()
        .arg("check")
        .write_stdin("")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no solutions to check"));
}

#[test]
fn bad_list_arguments_are_refused() {
    for args in [
        vec!["list", "65"],
        vec!["list", "4..6"],
        vec!["list", "eight"],
        vec!["list", "8", "--format", "xml"],
        vec!["solve", "-4"],
        vec!["solve", "8", "--method", "guess"],
        vec!["check", "--board", "8y6"],
    ] {
        nqueens().args(&args).assert().code(2);
    }
    // A command of one board offers no range to write instead: `list` did, and then refused it.
    for command in ["list", "solve"] {
        nqueens()
            .args([command, "8.0"])
            .assert()
            .code(2)
            .stderr(
                "error: '8.0' is not a board size: sizes are whole numbers, without a decimal point; use a \
                 number such as 8, or rows x columns such as 8x6\n",
            );
    }
}

#[test]
fn output_files_appear_complete() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ten.txt");
    nqueens()
        .args(["list", "10", "-q", "-o"])
        .arg(&path)
        .assert()
        .success()
        .stdout("");
    assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 724);
}

#[test]
fn unique_rectangle_listings_give_one_representative_per_class_of_four() {
    for (rows, cols) in [(5usize, 3usize), (6, 4), (7, 5), (8, 6), (9, 4)] {
        let spec = format!("{rows}x{cols}");
        // The rectangle's symmetries, on the list of each column's row: reflect the rows, reverse the
        // columns, or both.
        let images = |s: &Vec<usize>| -> Vec<Vec<usize>> {
            let flipped: Vec<usize> = s.iter().map(|r| rows - 1 - r).collect();
            let reversed: Vec<usize> = s.iter().rev().copied().collect();
            let both: Vec<usize> = flipped.iter().rev().copied().collect();
            vec![s.clone(), flipped, reversed, both]
        };
        let classes: HashSet<Vec<usize>> = reference_rect_solutions(rows, cols)
            .iter()
            .map(|s| images(s).into_iter().min().unwrap())
            .collect();
        let listed = stdout_of(&["list", &spec, "--unique", "-f", "zero", "-q"]);
        let reps: HashSet<Vec<usize>> = listed
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(reps, classes, "{spec}");
    }
}

/// Every solution of the square board `n` as `list` writes them with `tuning`, one line of letters each, and
/// their number.
fn listing(tuning: Tuning, n: u32, threads: usize, limit: Option<u64>) -> (u64, Vec<u8>) {
    let render = |q: &[u8], out: &mut Vec<u8>| {
        out.extend(q.iter().map(|&c| b'a' + c));
        out.push(b'\n');
    };
    let mut bytes = Vec::new();
    let count = list_tuned::<()>(
        tuning,
        nqueens::Board::new(n).unwrap(),
        Filter::All,
        threads,
        limit,
        render,
        |b| {
            bytes.extend_from_slice(b);
            Ok(())
        },
    )
    .unwrap();
    (count, bytes)
}

#[test]
fn every_kernel_lists_the_same_bytes_on_any_threads_and_limits() {
    // The vector loops list square boards themselves where the processor has them; the others use the plain
    // search.
    let listing = |kernel, n, threads, limit| listing(Tuning::new(kernel), n, threads, limit);
    for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
        for n in 0..=13u32 {
            let expected = listing(Kernel::Scalar, n, 1, None);
            for threads in [1, 2, 3] {
                assert_eq!(
                    listing(kernel, n, threads, None),
                    expected,
                    "{kernel}, n = {n}, {threads} threads"
                );
            }
        }
    }
    // Limits of 100,000 and more take the listing path (shorter ones stop a plain search early): beyond the
    // board's solutions, and cutting a unit in the middle.
    let (all, bytes) = listing(Kernel::Scalar, 14, 2, None);
    assert_eq!(all, 365_596);
    for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
        for (limit, threads) in [(400_000u64, 2), (150_001, 1), (150_001, 2), (365_596, 3)] {
            let (count, limited) = listing(kernel, 14, threads, Some(limit));
            assert_eq!(count, limit.min(all), "{kernel}, limit {limit}");
            assert_eq!(
                limited,
                bytes[..15 * count as usize],
                "{kernel}, limit {limit}"
            );
        }
    }
}

#[test]
fn a_listing_holds_its_windows_bytes_not_a_count_of_units() {
    // A drawing is large (6 KB a solution of n = 16, 160 times its list), and the units of a window are held
    // rendered until it is written: 512 of them held 4.7 GB. Here each solution of n = 14 renders to 16 KiB
    // (500 MB a window of 512 units), and the bytes rendered and not yet written stay within twice the 32 MiB a
    // window is sized for.
    use std::sync::atomic::{AtomicUsize, Ordering};
    const SOLUTION: usize = 16 << 10;
    let held = AtomicUsize::new(0);
    let render = |q: &[u8], out: &mut Vec<u8>| {
        out.extend(q.iter().map(|&c| b'a' + c));
        out.resize(out.len() + SOLUTION - q.len(), b'.');
        held.fetch_add(SOLUTION, Ordering::Relaxed);
    };
    let (mut most, mut heads) = (0, Vec::new());
    let listed = list_tuned::<()>(
        Tuning::new(Kernel::best()),
        nqueens::Board::new(14).unwrap(),
        Filter::All,
        2,
        None,
        render,
        |b| {
            most = most.max(held.load(Ordering::Relaxed));
            held.fetch_sub(b.len(), Ordering::Relaxed);
            for solution in b.chunks(SOLUTION) {
                heads.extend_from_slice(&solution[..14]);
                heads.push(b'\n');
            }
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(listed, 365_596);
    assert!(most <= 64 << 20, "{most} bytes held at once");
    // The same solutions, in the same order, as one thread of the plain search lists them.
    assert!(heads == listing(Tuning::new(Kernel::Scalar), 14, 1, None).1);
}

#[test]
fn mirrored_halves_give_the_same_bytes_whatever_the_cache_holds() {
    // The second half of a listing is the first half mirrored, last first: rendered from kept solutions where
    // the cache holds them, searched where it does not. No cache, room for a few units, or room for all give
    // the same bytes, with every loop, on any threads, and with a limit that ends in the second half.
    let listing = |kernel, mirror_cache, n, threads, limit| {
        let tuning = Tuning {
            kernel,
            mirror_cache,
        };
        listing(tuning, n, threads, limit)
    };
    for n in [13u32, 14] {
        let expected = listing(Kernel::Scalar, 0, n, 1, None);
        for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
            for cache in [4 << 10, 256 << 10, MIRROR_CACHE] {
                for threads in [1, 2, 3] {
                    assert!(
                        listing(kernel, cache, n, threads, None) == expected,
                        "{kernel}, n = {n}, cache {cache}, {threads} threads"
                    );
                }
            }
        }
    }
    let (all, bytes) = listing(Kernel::Scalar, 0, 14, 1, None);
    let (count, limited) = listing(Kernel::best(), MIRROR_CACHE, 14, 2, Some(300_001));
    assert_eq!((all, count), (365_596, 300_001));
    assert!(limited == bytes[..15 * 300_001]);
}

#[test]
fn list_says_how_many_it_listed_on_stderr() {
    for (args, said) in [
        (vec!["list", "1"], "1 solution of the 1x1 board"),
        (vec!["list", "8"], "92 solutions of the 8x8 board"),
        (
            vec!["list", "8", "--unique"],
            "12 unique solutions of the 8x8 board",
        ),
        (
            vec!["list", "10", "--limit", "1"],
            "1 solution of the 10x10 board",
        ),
    ] {
        nqueens()
            .args(&args)
            .assert()
            .success()
            .stderr(predicate::str::contains(said));
    }
    // A listing that `--limit` stopped does not read as the board's number of solutions; one that ended
    // before its limit gives that number, as a whole listing does.
    let stopped =
        " (--limit 1 ends the listing at that many: the board may have more, which `nqueens count` \
                   counts)\n";
    let stderr =
        |args: &[&str]| String::from_utf8(nqueens().args(args).output().unwrap().stderr).unwrap();
    let said = stderr(&["list", "10", "--limit", "1"]);
    assert!(said.ends_with(stopped), "{said}");
    let said = stderr(&["list", "10", "--limit", "1000"]);
    assert!(
        said.starts_with("724 solutions of the 10x10 board in "),
        "{said}"
    );
    assert!(!said.contains("--limit"), "{said}");
    // A board with more columns than rows (`1x5` for `5x1`) says why it has none, as `solve` does.
    let said = stderr(&["list", "1x5"]);
    assert!(
        said.starts_with("0 solutions of the 1x5 board in "),
        "{said}"
    );
    assert!(
        said.ends_with(
            " (it has more columns than rows, so two queens would share a row: a board RxC has R rows and C \
             columns)\n"
        ),
        "{said}"
    );
    let said = stderr(&["list", "8", "--unique", "--limit", "12"]);
    assert!(
        said.contains("12 unique solutions of the 8x8 board in "),
        "{said}"
    );
    assert!(
        said.contains("--limit 12 ends the listing at that many"),
        "{said}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn check_reading_a_terminal_says_how_to_end_and_what_else_to_give() {
    // `nqueens check` typed alone waited for the terminal without a word, which looks like a hang.
    use std::io::Write;
    use std::os::fd::FromRawFd;
    use std::process::{Command, Stdio};
    let run = |args: &[&str]| {
        let (mut master, mut slave) = (0, 0);
        // SAFETY: openpty opens two descriptors and writes their numbers where it is told; the null pointers
        // ask for no name, settings or size.
        let made = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        if made != 0 {
            return None;
        }
        // SAFETY: both descriptors were just opened, and nothing else owns them.
        let (mut master, slave) = unsafe {
            (
                std::fs::File::from_raw_fd(master),
                std::fs::File::from_raw_fd(slave),
            )
        };
        let child = Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(args)
            .stdin(Stdio::from(slave))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A line, then Ctrl-D at the start of the next: the end of the terminal's input.
        master.write_all(b"2 4 1 3\n\x04").unwrap();
        let out = child.wait_with_output().unwrap();
        Some((
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        ))
    };
    let Some((stdout, stderr)) = run(&["check"]) else {
        eprintln!("skipped: no pseudo-terminal can be opened here");
        return;
    };
    assert_eq!(stdout, "line 1: valid\n");
    assert_eq!(
        stderr,
        "reading solutions from the terminal, one a line, up to Ctrl-D (or name a file: `nqueens check FILE`, \
         or pipe them: `nqueens list 8 | nqueens check`)\n1 valid, 0 invalid, 0 malformed\n"
    );
    let (stdout, stderr) = run(&["check", "-q", "-"]).unwrap();
    assert_eq!(
        (stdout.as_str(), stderr.as_str()),
        ("", ""),
        "-q says nothing"
    );
}
