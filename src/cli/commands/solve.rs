//! `nqueens solve`: one solution, by backtracking or by the O(n) construction, always checked first.

use crate::cli::args::{Method, ShowOptions};
use crate::cli::errors::UsageError;
use crate::cli::output::Output;
use crate::cli::validate::{self, BACKTRACK_AUTO_MAX};
use nqueens::solutions::notation::{Renderer, Shape};
use nqueens::solutions::{self, checker, construct};
use nqueens::Board;
use std::process::ExitCode;

/// Drawings grow with the square of the board; beyond this side they are refused.
pub const DRAW_MAX: u32 = 100;

/// Finds, checks and prints one solution of `board`.
pub fn run(board: &str, method: Method, show: &ShowOptions) -> anyhow::Result<ExitCode> {
    let shape = validate::parse_shape(board)?;
    validate::show_options(show)?;
    if show.format.draws() && shape.rows.max(shape.cols) > DRAW_MAX {
        return Err(UsageError(format!(
            "the {} board is too large to draw (at most {DRAW_MAX} rows and columns): use --format rows, \
             zero, json or csv",
            shape_name(shape)
        ))
        .into());
    }
    if shape.cols > shape.rows {
        // Two of its queens would share a row: no search needed, as `count` knows.
        note!(
            "the {} board has no solution: it has more columns than rows, so two queens would share a row",
            shape_name(shape)
        );
        return Ok(ExitCode::FAILURE);
    }
    let method = match method {
        Method::Auto if shape.rows <= BACKTRACK_AUTO_MAX => Method::Backtrack,
        Method::Auto => Method::Construct,
        other => other,
    };
    // Opened before the search, which can take long: a path that cannot be written is refused first. Nothing
    // appears under its name unless a solution is written.
    let mut out = Output::open(show.output.as_deref())?;
    // A board too wide to backtrack is refused before any warning of how long backtracking takes.
    if method == Method::Backtrack {
        backtrack_board(shape)?;
    }
    if method == Method::Backtrack && shape.cols > BACKTRACK_AUTO_MAX && !show.quiet {
        // Asked for by name: the search may outlast the user's patience, so they learn it now, not after.
        note!(
            "backtracking the {} board for its lexicographically first solution, which with more than {} \
             columns may take hours (n = 34: 2.3 billion queens placed, 25 s on a 2.3 GHz Xeon core; n = 36: more \
             than 8 billion); `--method construct` writes a solution at once",
            shape_name(shape),
            BACKTRACK_AUTO_MAX
        );
    }
    let found = match method {
        Method::Backtrack => backtrack(shape)?,
        _ => construction(shape)?,
    };
    let Some(queens) = found else {
        note!("the {} board has no solution", shape_name(shape));
        return Ok(ExitCode::FAILURE);
    };
    // Whatever found it, nothing is printed that the checker has not passed.
    if let Err(flaw) = checker::check_list(shape, &queens) {
        anyhow::bail!(
            "internal error: the {method:?} method produced a placement that is not a solution ({flaw}); \
             nothing was printed"
        );
    }
    // Written a piece at a time: the text of a huge board's solution is twice its queens' memory, and its
    // CSV header as much again.
    Renderer::new(show.format, shape, show.ascii).write_one(&queens, |piece| out.write(piece))?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

fn shape_name(shape: Shape) -> String {
    format!("{}x{}", shape.rows, shape.cols)
}

/// The board `shape` as the backtracker takes it, or the refusal of one too large for its masks.
fn backtrack_board(shape: Shape) -> Result<Board, UsageError> {
    Board::rect(shape.rows, shape.cols).map_err(|_| {
        UsageError(format!(
            "backtracking handles boards up to {} rows and columns: use --method construct",
            Board::MAX_SIDE
        ))
    })
}

fn backtrack(shape: Shape) -> Result<Option<Vec<u32>>, UsageError> {
    let board = backtrack_board(shape)?;
    Ok(solutions::first(board).map(|q| q.into_iter().map(u32::from).collect()))
}

fn construction(shape: Shape) -> Result<Option<Vec<u32>>, UsageError> {
    if let Some(queens) = construct::rect(shape.rows, shape.cols) {
        return Ok(Some(queens));
    }
    let none_exists = shape.cols > shape.rows || (shape.is_square() && matches!(shape.rows, 2 | 3));
    if none_exists {
        Ok(None)
    } else {
        Err(UsageError(format!(
            "the construction needs at least 4 rows; the {} board has solutions: use --method backtrack",
            shape_name(shape)
        )))
    }
}
