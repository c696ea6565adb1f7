//! The arguments' validation into library requests: board specifications, sizes and symmetries.
//!
//! Everything a user can get wrong in them is checked here, before any counting starts, and reported as a
//! [`UsageError`] (exit code 2) with a message that says what to do instead.

use crate::cli::args::{CountOptions, ShowOptions};
use crate::cli::errors::UsageError;
use nqueens::engine::exec::Backend;
use nqueens::engine::plan::{unit_words, Plan, MAX_UNITS};
use nqueens::runs::shard::{Shard, ShardError};
use nqueens::solutions::notation::{Notation, Shape};
use nqueens::{Board, CountRequest, Symmetry};
use std::num::{IntErrorKind, ParseIntError};

/// What a command of several boards offers to write instead of a size it cannot read.
const SIZES: &str = "a number such as 8, a range such as 4..16, or rows x columns such as 8x6";

/// What a command of one board offers: no range, which it refuses.
const ONE_BOARD: &str = "a number such as 8, or rows x columns such as 8x6";

/// What `verify` offers: no rectangle, which has no published count to check.
const SQUARES: &str = "a number such as 8, or a range such as 4..16";

/// What `units` offers: one square board, the only kind a checkpointed plan has.
const ONE_SQUARE: &str = "a number such as 8";

/// The sizes of `verify`: `N` or a range. A rectangle is let through, to be told by [`published`] that it has
/// nothing to be checked against; what cannot be read offers no rectangle, which `verify` would then refuse.
pub fn parse_verified(spec: &str) -> Result<(), UsageError> {
    if spec.contains(['x', 'X']) && parse_shape(spec).is_ok() {
        return Ok(());
    }
    sizes(spec, SQUARES).map(drop)
}

/// The board of `units` and `bench --n`: one square board's `N`, read as `count` reads one (`units` says itself
/// why a rectangle is none).
pub fn parse_square(spec: &str) -> Result<u32, UsageError> {
    if spec.contains("..") {
        return Err(UsageError(format!(
            "'{spec}': name one board (a single N), not a range"
        )));
    }
    Ok(sizes(spec, ONE_SQUARE)?[0])
}

/// Parses `N`, `A..B` or `A..=B` (both inclusive) into the sizes it names, in increasing order, offering
/// `examples` for a size it cannot read.
fn sizes(spec: &str, examples: &str) -> Result<Vec<u32>, UsageError> {
    let side = |s| side_of(spec, s, kernel_too_large, examples);
    let (from, to) = match spec.split_once("..") {
        Some((a, b)) => {
            let b = b.strip_prefix('=').unwrap_or(b);
            // `4..` reads as an open range, which a list of boards cannot be: said so, rather than that it is
            // no board size.
            if a.trim().is_empty() || b.trim().is_empty() {
                return Err(UsageError(format!(
                    "'{spec}' is a range without {} end: write both, such as 4..16",
                    if a.trim().is_empty() && b.trim().is_empty() {
                        "either"
                    } else if a.trim().is_empty() {
                        "a first"
                    } else {
                        "a last"
                    }
                )));
            }
            (side(a)?, side(b)?)
        }
        None => {
            let n = side(spec)?;
            (n, n)
        }
    };
    if from > to {
        return Err(UsageError(format!(
            "'{spec}' is a reversed range: write {to}..{from}"
        )));
    }
    within_limits(to)?;
    Ok((from..=to).collect())
}

/// Parses a board specification: `N`, a range `A..B` of square boards, or a rectangle `RxC`.
pub fn parse_boards(spec: &str) -> Result<Vec<Board>, UsageError> {
    boards(spec, SIZES)
}

/// [`parse_boards`], offering `examples` for a size it cannot read.
fn boards(spec: &str, examples: &str) -> Result<Vec<Board>, UsageError> {
    match spec.split_once(['x', 'X']) {
        Some((r, c)) => {
            // A rectangle's limit is said of its sides, not of an `n` that it does not have; and `solve` is
            // offered only for a board it takes.
            let too_large = |solvable: bool| {
                let max = Board::MAX_SIDE;
                let solve = if solvable {
                    format!(
                        " (`nqueens solve {spec}` finds one solution of boards up to {SOLVE_MAX_SIDE})"
                    )
                } else {
                    String::new()
                };
                UsageError(format!(
                    "'{spec}' is too large: the bitmask kernel handles boards of up to {max} rows and {max} \
                     columns{solve}"
                ))
            };
            let (rows, cols) = (
                side_of(spec, r, |_| too_large(false), examples)?,
                side_of(spec, c, |_| too_large(false), examples)?,
            );
            if cols > rows.max(Board::MAX_SIDE) {
                // No solution to offer: two of its queens would share a row.
                return Err(UsageError(format!(
                    "'{spec}' is too large: the bitmask kernel handles boards of up to {max} rows and {max} \
                     columns (and with more columns than rows it has no solution: two queens would share a row)",
                    max = Board::MAX_SIDE,
                )));
            }
            if rows.max(cols) > Board::MAX_SIDE {
                // Its columns are no more than its rows here (or than 64).
                return Err(too_large(rows <= SOLVE_MAX_SIDE));
            }
            Ok(vec![
                Board::rect(rows, cols).map_err(|e| UsageError(e.to_string()))?
            ])
        }
        None => sizes(spec, examples)?
            .into_iter()
            .map(|n| Board::new(n).map_err(|e| UsageError(e.to_string())))
            .collect(),
    }
}

/// Parses one side of a board specification; `examples` says what to write instead of one it cannot read. A
/// number too large for any board (past `u32`) is refused by `too_large` with its digits as typed, so that
/// `count 99999999999` is told the limit, as `count 99` is, rather than that it is not a number.
fn side_of(
    spec: &str,
    s: &str,
    too_large: impl Fn(&str) -> UsageError,
    examples: &str,
) -> Result<u32, UsageError> {
    let s = s.trim();
    if s.starts_with('-') {
        return Err(UsageError(format!(
            "'{spec}': board sizes cannot be negative"
        )));
    }
    s.parse().map_err(|e: ParseIntError| {
        if *e.kind() == IntErrorKind::PosOverflow {
            return too_large(s);
        }
        // `8.0` is a number, only not a count of rows: naming the decimal point says what to take away.
        if s.contains('.') && s.parse::<f64>().is_ok() {
            return UsageError(format!(
                "'{spec}' is not a board size: sizes are whole numbers, without a decimal point; use {examples}"
            ));
        }
        UsageError(format!("'{spec}' is not a board size: use {examples}"))
    })
}

fn within_limits(side: u32) -> Result<(), UsageError> {
    if side > Board::MAX_SIDE {
        return Err(kernel_too_large(&side.to_string()));
    }
    Ok(())
}

/// The refusal of a side wider than the kernel's masks.
fn kernel_too_large(side: &str) -> UsageError {
    UsageError(format!(
        "n = {side} is too large: the bitmask kernel handles boards up to n = {}",
        Board::MAX_SIDE
    ))
}

/// Refuses `--ascii` with a format it does not change: only `board`'s drawings have box-drawing characters to
/// replace, and a flag taken without effect would leave the user believing it had one.
pub fn show_options(show: &ShowOptions) -> Result<(), UsageError> {
    if show.ascii && show.format != Notation::Board {
        return Err(UsageError(format!(
            "--ascii draws `--format board`'s boards with Q and . and changes nothing in --format {}: add \
             --format board, or leave --ascii out",
            show.format
        )));
    }
    Ok(())
}

/// Boards up to this side are solved by backtracking under `solve --method auto`: the first solution takes at
/// most about a second there (n = 32 is the slowest, on the 2-core machine of `results/`), while some larger
/// boards take minutes. `list`, whose listing starts with that solution, warns beyond it too.
pub const BACKTRACK_AUTO_MAX: u32 = 32;

/// The largest board `solve` constructs: its solution takes about 9 bytes a queen in memory and on output.
pub const SOLVE_MAX_SIDE: u32 = 100_000_000;

/// Parses the board of `solve` and `check`: `N` or `RxC`, with sides up to [`SOLVE_MAX_SIDE`] (only the
/// construction and the checker go beyond the kernel's 64).
pub fn parse_shape(spec: &str) -> Result<Shape, UsageError> {
    let too_large = |_: &str| {
        UsageError(format!(
            "'{spec}' is too large: boards go up to {SOLVE_MAX_SIDE} rows and columns"
        ))
    };
    if spec.contains("..") {
        return Err(UsageError(format!(
            "'{spec}': name one board (N or RxC), not a range"
        )));
    }
    let one = |s| side_of(spec, s, too_large, ONE_BOARD);
    let (rows, cols) = match spec.split_once(['x', 'X']) {
        Some((r, c)) => (one(r)?, one(c)?),
        None => {
            let n = one(spec)?;
            (n, n)
        }
    };
    if rows.max(cols) > SOLVE_MAX_SIDE {
        return Err(too_large(spec));
    }
    Ok(Shape { rows, cols })
}

/// The board of `list`: `N` or `RxC` within the kernel's limits.
pub fn parse_board(spec: &str) -> Result<Board, UsageError> {
    if spec.contains("..") {
        return Err(UsageError(format!(
            "'{spec}': name one board (N or RxC), not a range"
        )));
    }
    Ok(boards(spec, ONE_BOARD)?.remove(0))
}

/// The symmetry to use on `board`: the one asked for, or the best the board has.
pub fn symmetry_for(board: Board, asked: Option<Symmetry>) -> Result<Symmetry, UsageError> {
    match asked {
        Some(Symmetry::Full) if !board.is_square() => Err(UsageError(format!(
            "--symmetry full needs a square board; the rectangle {board} has only its mirror symmetry: use \
             --symmetry mirror (its default) or none"
        ))),
        Some(symmetry) => Ok(symmetry),
        None => Ok(CountRequest::board(board).symmetry),
    }
}

/// Refuses a split depth that cannot help: deeper than the board, or giving more than
/// [`MAX_UNITS`] units. The message names the depths that can be used.
pub fn split_depth(board: Board, symmetry: Symmetry, depth: u32) -> Result<(), UsageError> {
    let counts = Plan::units_by_depth(board, symmetry, depth, MAX_UNITS);
    if depth <= board.lines() && counts.len() > depth as usize {
        return Ok(());
    }
    let deepest = counts.len().saturating_sub(1);
    let range = format!(
        "use a depth from 0 to {deepest} ({} at depth {deepest}), or leave --split-depth out to have it \
         chosen",
        unit_words(counts.last().copied().unwrap_or(0))
    );
    Err(UsageError(if depth > board.lines() {
        format!(
            "--split-depth {depth} is deeper than {} has {} ({}): {range}",
            board.words(),
            // The lines the search fills, a queen each: a rectangle's columns.
            if board.is_square() { "rows" } else { "columns" },
            board.lines()
        )
    } else {
        format!(
            "--split-depth {depth} would split {} ({symmetry} symmetry) into more than {MAX_UNITS} \
             work units, which costs memory and planning time and makes nothing faster: {range}",
            board.words()
        )
    }))
}

/// The shard of `--shard` (`K/M`, or `auto`: read from the launcher's environment, with `--shard-count` where
/// the launcher does not say how many), or `None` without one: for `count`; for `estimate`, which says how
/// long the shard `count` is given would take, and `units`, which lists the units it counts, and so read it
/// alike. The shard found in the environment is said on stderr unless `quiet`.
pub fn shard(
    asked: Option<&str>,
    count: Option<u32>,
    quiet: bool,
) -> Result<Option<Shard>, UsageError> {
    match asked {
        None if count.is_some() => Err(UsageError(
            "--shard-count goes with --shard auto: without --shard the run counts the whole board"
                .into(),
        )),
        None => Ok(None),
        Some("auto") => {
            let (shard, launcher) = Shard::from_env(|k| std::env::var(k).ok(), count)
                .map_err(|e| UsageError(e.to_string()))?;
            if !quiet {
                note!("shard {shard} from the {launcher} environment");
            }
            Ok(Some(shard))
        }
        Some(_) if count.is_some() => Err(UsageError(
            "--shard-count goes with --shard auto; write the count in --shard K/M".into(),
        )),
        Some(s) => s
            .parse()
            .map(Some)
            .map_err(|e: ShardError| UsageError(e.to_string())),
    }
}

/// Refuses `--backend gpu` in a build without the GPU backend: the arguments ask for what this program cannot
/// do (a build with it that finds no GPU fails later, with exit code 1).
pub fn backend(backend: Backend) -> Result<(), UsageError> {
    if backend == Backend::Gpu && !cfg!(feature = "cuda") {
        return Err(UsageError(
            "--backend gpu: this nqueens was built without the GPU backend; build it with `cargo build \
             --release --features cuda`, or use --backend cpu"
                .into(),
        ));
    }
    Ok(())
}

/// `--gpus` names the GPUs of `--backend gpu`: with the CPU's threads counting it would be ignored, and a user
/// who named GPUs would wait for the CPU where they meant the GPUs to count.
pub fn gpus(backend: Backend, gpus: Option<&[usize]>) -> Result<(), UsageError> {
    match gpus {
        Some(list) if backend != Backend::Gpu => {
            let list: Vec<String> = list.iter().map(usize::to_string).collect();
            Err(UsageError(format!(
                "--gpus {} names the GPUs that --backend gpu counts on, and the CPU's threads count here: add \
                 --backend gpu, or leave --gpus out",
                list.join(",")
            )))
        }
        _ => Ok(()),
    }
}

/// Refuses a board the GPU backend does not count: wider than its kernel takes, or with a kernel switch asked
/// for in the environment (for measuring) that is no choice for it.
pub fn gpu_board(board: Board) -> Result<(), UsageError> {
    if !nqueens::gpu::handles(board.width(), board.lines()) {
        return Err(UsageError(format!(
            "the GPU backend counts boards up to {0} columns wide; count {board} with --backend cpu",
            nqueens::gpu::task::MAX_SIDE
        )));
    }
    nqueens::gpu::turns(board).map_err(|e| UsageError(e.to_string()))?;
    Ok(())
}

/// Refuses to check a board that has no published count (`verify 28`, `count 28 --check`): the count would
/// take years and prove nothing. Rectangles have none either: `verify 8x6` would count, compare nothing, and
/// still say that all counts match.
pub fn published(requests: &[CountRequest]) -> Result<(), UsageError> {
    use nqueens::report::known;
    if let Some(r) = requests.iter().find(|r| !r.board.is_square()) {
        return Err(UsageError(format!(
            "the rectangle {0} has no published count to compare with (the published values are of square \
             boards, n = 0 to {1}): count it without checking (`nqueens count {0}`)",
            r.board,
            known::largest()
        )));
    }
    match requests
        .iter()
        .find(|r| known::lookup(r.board.n()).is_none())
    {
        Some(r) => Err(UsageError(format!(
            "n = {0} has no published count to compare with (the published values go up to n = {1}): check \
             boards up to {1}, or count n = {0} without checking (`nqueens count {0}`, with --checkpoint for a \
             long run)",
            r.board.n(),
            known::largest()
        ))),
        None => Ok(()),
    }
}

/// The requests for a list of size specifications, in the order given.
pub fn requests(specs: &[String], options: &CountOptions) -> Result<Vec<CountRequest>, UsageError> {
    let threads = options.threads.map_or_else(num_cpus::get, |t| t as usize);
    gpus(
        options.backend,
        options.gpus.as_ref().map(|g| g.0.as_slice()),
    )?;
    nqueens::gpu::use_gpus(options.gpus.clone().map(|g| g.0));
    if options.uncounted_nodes && options.backend != Backend::Gpu {
        return Err(UsageError(
            "--uncounted-nodes changes the GPUs' kernel alone: the CPU's threads count the nodes at no cost; \
             add --backend gpu, or leave it out"
                .into(),
        ));
    }
    nqueens::gpu::leave_nodes_uncounted(options.uncounted_nodes);
    let mut requests = Vec::new();
    for spec in specs {
        for board in parse_boards(spec)? {
            if options.backend == Backend::Gpu {
                gpu_board(board)?;
            }
            let symmetry = symmetry_for(board, options.symmetry)?;
            if let Some(depth) = options.split_depth {
                split_depth(board, symmetry, depth)?;
            }
            let request = CountRequest::board(board)
                .symmetry(symmetry)
                .threads(threads)
                .split_depth(options.split_depth)
                .backend(options.backend);
            requests.push(request);
        }
    }
    // Last, so that a build without the GPU backend still checks what the GPU is asked (its tests run there).
    backend(options.backend)?;
    Ok(requests)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_sizes(spec: &str) -> Result<Vec<u32>, UsageError> {
        sizes(spec, SIZES)
    }

    #[test]
    fn check_reads_back_the_longest_line_solve_writes() {
        // The digits of the numbers 1 to n, a run of equally long numbers at a time.
        let n = u64::from(SOLVE_MAX_SIDE);
        let (mut digits, mut width, mut low) = (0, 1, 1);
        while low <= n {
            let high = (low * 10 - 1).min(n);
            digits += (high - low + 1) * width;
            (width, low) = (width + 1, low * 10);
        }
        let list = 1 + digits + (n - 1) + 1; // [2,4,…]
        let header = n + digits + (n - 1); // r1,r2,…
        assert_eq!((list, header), (888_888_899, 988_888_897));
        let max = nqueens::solutions::notation::MAX_LINE as u64;
        assert!(list.max(header) <= max, "{list} or {header} > {max}");
    }

    #[test]
    fn sizes_and_inclusive_ranges() {
        assert_eq!(parse_sizes("8").unwrap(), vec![8]);
        assert_eq!(parse_sizes("4..7").unwrap(), vec![4, 5, 6, 7]);
        assert_eq!(parse_sizes("4..=5").unwrap(), vec![4, 5]);
    }

    #[test]
    fn bad_sizes_say_what_to_write() {
        let message = |s| parse_sizes(s).unwrap_err().to_string();
        assert!(message("eight").contains("not a board size"));
        assert!(message("-3").contains("negative"));
        assert!(message("9..4").contains("write 4..9"));
        assert!(message("65").contains("up to n = 64"));
    }

    #[test]
    fn a_command_of_one_board_offers_no_range() {
        // `solve` and `check --board` take one board: neither a range nor advice to write one.
        let message = |s| parse_shape(s).unwrap_err().to_string();
        assert_eq!(
            message("4..6"),
            "'4..6': name one board (N or RxC), not a range"
        );
        assert_eq!(
            message("abc"),
            "'abc' is not a board size: use a number such as 8, or rows x columns such as 8x6"
        );
        assert!(parse_boards("abc")
            .unwrap_err()
            .to_string()
            .contains("a range such as 4..16"));
        // `list` takes one board too: it offered a range, which it then refused.
        for spec in ["8q", "abc", "8xq"] {
            assert_eq!(
                parse_board(spec).unwrap_err().to_string(),
                format!(
                    "'{spec}' is not a board size: use a number such as 8, or rows x columns such as 8x6"
                )
            );
        }
    }

    #[test]
    fn a_side_past_every_integer_is_too_large_not_malformed() {
        let message = |s| parse_boards(s).unwrap_err().to_string();
        let kernel = "is too large: the bitmask kernel handles boards up to n = 64";
        assert_eq!(message("99999999999"), format!("n = 99999999999 {kernel}"));
        assert_eq!(message("4..4294967296"), format!("n = 4294967296 {kernel}"));
        let rectangle =
            "is too large: the bitmask kernel handles boards of up to 64 rows and 64 columns";
        for spec in ["8x99999999999", "200x3", "3x65"] {
            assert!(
                message(spec).starts_with(&format!("'{spec}' {rectangle}")),
                "{spec}: {}",
                message(spec)
            );
        }
        assert!(parse_boards("64x3").is_ok() && parse_boards("3x64").is_ok());
        assert!(message("200x3").contains("`nqueens solve 200x3` finds one solution"));
        assert!(message("3x65").contains("more columns than rows it has no solution"));
        assert!(!message("3x65").contains("nqueens solve"));
        // `solve` is offered only for a board it takes: not past its 100000000 rows, nor past every integer.
        for spec in ["200000001x3", "1x18446744073709551617", "99999999999x2"] {
            assert_eq!(message(spec), format!("'{spec}' {rectangle}"), "{spec}");
        }
        assert!(message("100000000x3").contains("`nqueens solve 100000000x3` finds one solution"));
        let shape = parse_shape("123456789012").unwrap_err().to_string();
        assert_eq!(
            shape,
            "'123456789012' is too large: boards go up to 100000000 rows and columns"
        );
        assert!(parse_shape("12x3y")
            .unwrap_err()
            .to_string()
            .contains("not a board size"));
    }

    #[test]
    fn rectangles_are_rows_x_columns() {
        let boards = parse_boards("8x6").unwrap();
        assert_eq!(boards.len(), 1);
        assert_eq!((boards[0].rows(), boards[0].cols()), (8, 6));
        assert!(parse_boards("8x").is_err());
        assert!(parse_boards("70x3").is_err());
        let rect = boards[0];
        assert!(symmetry_for(rect, Some(Symmetry::Full)).is_err());
        assert_eq!(symmetry_for(rect, None).unwrap(), Symmetry::Mirror);
    }
}
