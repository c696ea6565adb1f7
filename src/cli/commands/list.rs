//! `nqueens list`: every solution, in lexicographic order, streamed.

use crate::cli::args::ShowOptions;
use crate::cli::output::Output;
use crate::cli::validate::{self, BACKTRACK_AUTO_MAX};
use nqueens::solutions::notation::Renderer;
use nqueens::solutions::{self, Filter};
use std::process::ExitCode;
use std::time::Instant;

/// Bytes gathered before a write: large writes keep the system calls few when millions of lines go out.
const CHUNK: usize = 1 << 16;

/// Lists the solutions of `board`.
pub fn run(
    board: &str,
    limit: Option<u64>,
    unique: bool,
    threads: Option<u32>,
    show: &ShowOptions,
) -> anyhow::Result<ExitCode> {
    let board = validate::parse_board(board)?;
    validate::show_options(show)?;
    let renderer = Renderer::new(show.format, board.into(), show.ascii);
    let threads = threads.map_or_else(num_cpus::get, |t| t as usize);
    let filter = if unique { Filter::Unique } else { Filter::All };
    let mut out = Output::open(show.output.as_deref())?;
    if board.cols() > BACKTRACK_AUTO_MAX && !show.quiet {
        // The listing starts with the lexicographically first solution, which a search finds as `solve`'s
        // backtracking does: the user learns now what that may cost, not after an hour of nothing.
        note!(
            "listing the {}x{} board's solutions in lexicographic order, the first of which alone may take \
             hours to find with more than {BACKTRACK_AUTO_MAX} columns (as `solve --method backtrack`); \
             `nqueens solve {} --method construct` writes one solution at once",
            board.rows(),
            board.cols(),
            board
        );
    }
    let started = Instant::now();
    let mut pending = renderer.header();
    let listed = solutions::list(
        board,
        filter,
        threads,
        limit,
        |queens, buffer| renderer.render(queens, buffer),
        |bytes| {
            pending.extend_from_slice(bytes);
            if pending.len() >= CHUNK {
                out.write(&pending)?;
                pending.clear();
            }
            Ok::<(), std::io::Error>(())
        },
    )?;
    out.write(&pending)?;
    out.finish()?;
    if !show.quiet {
        let what = match (unique, listed) {
            (true, 1) => "unique solution",
            (true, _) => "unique solutions",
            (false, 1) => "solution",
            (false, _) => "solutions",
        };
        // What the number alone does not say. A listing as long as its `--limit` says so: "1 solution of the 8x8
        // board" alone reads as the board's number of solutions. Whether it had more is not known without a
        // search past the limit ("stopped the listing there" was said of `list 8 --limit 92`, all of them).
        let aside = match limit {
            Some(limit) if listed == limit => format!(
                " (--limit {limit} ends the listing at that many: the board may have more, which `nqueens \
                 count` counts)"
            ),
            // `list 1x5` for `5x1`: the rows and columns swapped, say why there is nothing, as `solve` does.
            _ if board.cols() > board.rows() => " (it has more columns than rows, so two queens would share a \
                                                 row: a board RxC has R rows and C columns)"
                .to_string(),
            _ => String::new(),
        };
        note!(
            "{listed} {what} of the {}x{} board in {:.3} s{aside}",
            board.rows(),
            board.cols(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}
