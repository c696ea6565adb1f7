//! Solutions one by one: every solution in lexicographic order, the first one, one per symmetry class.
//!
//! Counting never looks at a solution; listing must produce each one, in order. A solution is the position
//! of the queen on each line of the board (the column of each row's queen on a square; the row of each
//! column's queen on a rectangle, see [`crate::board`]), 0-based. Solutions come in lexicographic order of
//! that list, which is the order of a depth-first search that tries the lowest free square first.
//!
//! [`each`] is that search, in constant memory. [`list`] runs it on several threads and still hands the
//! solutions over in order: the plan's units ([`crate::plan`], split without symmetry) are prefixes in
//! lexicographic order, so each worker renders whole units into a buffer and the buffers are written in unit
//! order, a window of units at a time. Memory is bounded by the window, whatever the board.
//!
//! [`Filter::Unique`] keeps one representative per symmetry class: the lexicographically smallest of its
//! images under the board's symmetries (8 for a square, 4 for a rectangle). Their number is OEIS A002562.

use crate::board::Board;
use crate::kernel::{self, full_mask, Kernel, Masks};
use crate::plan::{Plan, Split};
use crate::symmetry::Symmetry;
use rayon::prelude::*;
use std::ops::ControlFlow;

/// Which solutions to hand over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Filter {
    /// Every solution.
    #[default]
    All,
    /// One per symmetry class: the lexicographically smallest of its images.
    Unique,
}

/// Calls `visit` with every solution of `board` that starts with `prefix`, in lexicographic order, until
/// `visit` breaks. Memory is constant: the search keeps one stack of at most 64 lines.
pub fn each<B>(
    board: Board,
    prefix: &[u8],
    filter: Filter,
    mut visit: impl FnMut(&[u8]) -> ControlFlow<B>,
) -> ControlFlow<B> {
    let lines = board.lines() as usize;
    let width = board.width();
    let Some(masks) = board.masks_after(prefix) else {
        return ControlFlow::Continue(());
    };
    let mut queens = [0u8; 64];
    queens[..prefix.len()].copy_from_slice(prefix);
    let keep = |queens: &[u8]| filter == Filter::All || is_canonical(board, queens);
    if prefix.len() == lines {
        if lines <= width as usize && keep(&queens[..lines]) {
            return visit(&queens[..lines]);
        }
        return ControlFlow::Continue(());
    }
    let full = full_mask(width);
    // A canonical solution is no greater than its mirror image, so its first queen is in the left half.
    let first_allowed = |line: usize| -> u64 {
        if filter == Filter::Unique && line == 0 {
            full_mask(width.div_ceil(2))
        } else {
            full
        }
    };
    let last = lines - 1;
    let start = prefix.len();
    let first_free = masks.free(first_allowed(start));
    // One line left: each of its free squares completes a solution.
    if start == last {
        return close(&mut queens, last, first_free, &keep, &mut visit);
    }
    let mut avail = [0u64; 64];
    let mut stack = [Masks::default(); 64];
    stack[start] = masks;
    avail[start] = first_free;
    let mut line = start;
    while avail[line] != 0 {
        // Invariant: `line` is above the last line and has a free square not tried yet.
        let free = avail[line];
        let bit = free & free.wrapping_neg();
        avail[line] = free ^ bit;
        queens[line] = bit.trailing_zeros() as u8;
        let below = stack[line].place(bit);
        let next = below.free(full);
        if line + 1 == last {
            // The last line is closed without descending into it.
            close(&mut queens, last, next, &keep, &mut visit)?;
        } else if next != 0 {
            line += 1;
            stack[line] = below;
            avail[line] = next;
            continue;
        }
        // Nothing to descend into: back up past every line with no square left to try.
        while avail[line] == 0 {
            if line == start {
                return ControlFlow::Continue(());
            }
            line -= 1;
        }
    }
    ControlFlow::Continue(())
}

/// Completes the solutions whose last line has the free squares `free`, in order.
#[inline(always)]
fn close<B>(
    queens: &mut [u8; 64],
    last: usize,
    mut free: u64,
    keep: &impl Fn(&[u8]) -> bool,
    visit: &mut impl FnMut(&[u8]) -> ControlFlow<B>,
) -> ControlFlow<B> {
    while free != 0 {
        queens[last] = free.trailing_zeros() as u8;
        free &= free - 1;
        if keep(&queens[..=last]) {
            visit(&queens[..=last])?;
        }
    }
    ControlFlow::Continue(())
}

/// The lexicographically first solution of `board`, if it has one, found by backtracking.
pub fn first(board: Board) -> Option<Vec<u8>> {
    match each(board, &[], Filter::All, |q| ControlFlow::Break(q.to_vec())) {
        ControlFlow::Break(solution) => Some(solution),
        ControlFlow::Continue(()) => None,
    }
}

/// Whether `queens` (a solution of `board`) is the lexicographically smallest of its images under the
/// board's symmetries.
pub fn is_canonical(board: Board, queens: &[u8]) -> bool {
    let lines = queens.len();
    let last_line = lines as i32 - 1;
    let last_pos = board.width() as i32 - 1;
    // The queen's line for each position, to read the images of a square's transposing symmetries.
    let mut inverse = [0u8; 64];
    if board.is_square() {
        for (line, &pos) in queens.iter().enumerate() {
            inverse[pos as usize] = line as u8;
        }
    }
    let q = |i: i32| i32::from(queens[i as usize]);
    let inv = |i: i32| i32::from(inverse[i as usize]);
    // Each symmetry other than the identity, as the image's entry on line i.
    let images: [&dyn Fn(i32) -> i32; 7] = [
        &|i| last_pos - q(i),
        &|i| q(last_line - i),
        &|i| last_pos - q(last_line - i),
        &|i| inv(i),
        &|i| last_pos - inv(last_line - i),
        &|i| last_pos - inv(i),
        &|i| inv(last_line - i),
    ];
    let count = if board.is_square() { 7 } else { 3 };
    images[..count].iter().all(|image| {
        for i in 0..lines as i32 {
            match image(i).cmp(&q(i)) {
                std::cmp::Ordering::Less => return false,
                std::cmp::Ordering::Greater => return true,
                std::cmp::Ordering::Equal => {}
            }
        }
        true
    })
}

/// What [`list`] writes: the rendered solutions of a run of units, and where each solution's bytes end.
#[derive(Debug, Default)]
struct Rendered {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

/// Units rendered per thread before the window is written: enough to keep the workers busy between writes,
/// few enough that a window's output stays small (a unit of n = 16 renders to tens of kilobytes).
const WINDOW_PER_THREAD: usize = 16;

/// Renders every solution of `board` with `render` (which appends one solution's bytes to the buffer) and
/// hands the bytes to `write` in lexicographic order of the solutions, stopping after `limit` solutions.
/// Rendering runs on `threads` threads; the order never depends on them. Returns the number of solutions
/// written, or the first error of `write`.
///
/// Every solution of a square board from 13 to 30 is searched by a vector loop where the processor has one (the
/// [`Kernel::preferred`] one); the rest by the plain search. All give the same bytes.
pub fn list<E>(
    board: Board,
    filter: Filter,
    threads: usize,
    limit: Option<u64>,
    render: impl Fn(&[u8], &mut Vec<u8>) + Sync,
    write: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, E> {
    list_with(
        Kernel::preferred(),
        board,
        filter,
        threads,
        limit,
        render,
        write,
    )
}

/// [`list`] with the search loop `kernel` where it lists the board ([`kernel::lists`]), else the plain search.
pub fn list_with<E>(
    kernel: Kernel,
    board: Board,
    filter: Filter,
    threads: usize,
    limit: Option<u64>,
    render: impl Fn(&[u8], &mut Vec<u8>) + Sync,
    mut write: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, E> {
    let mut written = 0u64;
    let short = limit.is_some_and(|l| l < 100_000);
    if filter == Filter::All
        && !short
        && board.width() >= VECTOR_LIST_MIN
        && kernel::lists(kernel, board.width(), board.lines())
    {
        return list_vector(board, kernel, threads, limit, render, write);
    }
    // One thread, or a short listing: a plain search on this thread, which stops as soon as it has enough.
    if threads <= 1 || short {
        let mut buffer = Vec::with_capacity(1 << 16);
        let mut error = None;
        let _ = each(board, &[], filter, |queens| {
            if written == limit.unwrap_or(u64::MAX) {
                return ControlFlow::Break(());
            }
            render(queens, &mut buffer);
            written += 1;
            if buffer.len() >= 1 << 16 {
                if let Err(e) = write(&buffer) {
                    error = Some(e);
                    return ControlFlow::Break(());
                }
                buffer.clear();
            }
            ControlFlow::Continue(())
        });
        if let Some(e) = error {
            return Err(e);
        }
        write(&buffer)?;
        return Ok(written);
    }
    let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(threads).build() else {
        // No threads to be had: the same listing on this thread.
        return list_with(kernel, board, filter, 1, limit, render, write);
    };
    let plan = Plan::new(board, Symmetry::None, Split::Auto { threads });
    for window in plan.units().chunks(threads * WINDOW_PER_THREAD) {
        let rendered: Vec<Rendered> = pool.install(|| {
            window
                .par_iter()
                .map(|unit| {
                    let mut out = Rendered::default();
                    let _ = each::<()>(board, &unit.prefix, filter, |queens| {
                        render(queens, &mut out.bytes);
                        out.ends.push(out.bytes.len());
                        ControlFlow::Continue(())
                    });
                    out
                })
                .collect()
        });
        if let Some(done) = write_rendered(&rendered, limit, &mut written, &mut write)? {
            return Ok(done);
        }
    }
    Ok(written)
}

/// Writes the rendered units in order, counting the solutions in `written`; once `limit` is reached, writes
/// only the solutions up to it and returns the final count.
fn write_rendered<'a, E>(
    rendered: impl IntoIterator<Item = &'a Rendered>,
    limit: Option<u64>,
    written: &mut u64,
    write: &mut impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<Option<u64>, E> {
    for r in rendered {
        let left = limit.map_or(u64::MAX, |l| l - *written);
        if (r.ends.len() as u64) < left {
            write(&r.bytes)?;
            *written += r.ends.len() as u64;
        } else {
            let take = left as usize;
            if take > 0 {
                write(&r.bytes[..r.ends[take - 1]])?;
            }
            return Ok(Some(*written + left));
        }
    }
    Ok(None)
}

/// The smallest board the vector loop lists: below it the units are too small to pay for handing them to lanes
/// (criterion, one thread, `rows`: n = 12 took 9.3 ms with the AVX-512 loop and 7.6 ms with the plain search;
/// n = 13 18.5 ms against 42.0 ms; the AVX2 loop lists n = 13 in 23 ms).
const VECTOR_LIST_MIN: u32 = 13;

/// Units a thread lists with a vector loop between writes: enough to keep its lanes busy (32 on AVX-512, 24 on
/// AVX2),
/// few enough that a window's output stays a few megabytes.
const VECTOR_WINDOW_PER_THREAD: usize = 256;

/// [`list`] of every solution with a vector loop ([`kernel::list_stream`]): each thread takes a contiguous run of
/// the window's units, its lanes search them side by side, and each solution is rendered into its unit's buffer
/// as it is found; the buffers are written in unit order.
fn list_vector<E>(
    board: Board,
    kernel: Kernel,
    threads: usize,
    limit: Option<u64>,
    render: impl Fn(&[u8], &mut Vec<u8>) + Sync,
    mut write: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, E> {
    let threads = threads.max(1);
    let pool = (threads > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .ok()
        })
        .flatten();
    let threads = if pool.is_some() { threads } else { 1 };
    let plan = Plan::new(board, Symmetry::None, Split::Auto { threads });
    let n = board.width();
    let lines = board.lines() as usize;
    // Each thread's buffers, one per unit of its run, kept from window to window so that their memory is
    // reused instead of allocated again.
    let render_run = |units: &[crate::plan::WorkUnit], out: &mut Vec<Rendered>| {
        out.resize_with(units.len(), Rendered::default);
        for r in out.iter_mut() {
            r.bytes.clear();
            r.ends.clear();
        }
        let mut next = units.iter().enumerate();
        kernel::list_stream(
            kernel,
            n,
            || {
                let (i, unit) = next.next()?;
                Some((i, plan.start(unit).expect("row-prefix units have a start")))
            },
            |&i, tail| {
                let prefix = &units[i].prefix;
                let mut queens = [0u8; 64];
                queens[..prefix.len()].copy_from_slice(prefix);
                queens[prefix.len()..lines].copy_from_slice(tail);
                let r = &mut out[i];
                render(&queens[..lines], &mut r.bytes);
                r.ends.push(r.bytes.len());
            },
            |_| {},
        );
    };
    let mut buffers: Vec<Vec<Rendered>> = (0..threads).map(|_| Vec::new()).collect();
    let mut written = 0u64;
    for window in plan.units().chunks(threads * VECTOR_WINDOW_PER_THREAD) {
        let runs: Vec<&[crate::plan::WorkUnit]> =
            window.chunks(window.len().div_ceil(threads)).collect();
        match &pool {
            Some(pool) => pool.install(|| {
                runs.par_iter()
                    .zip(buffers.par_iter_mut())
                    .for_each(|(run, out)| render_run(run, out))
            }),
            None => render_run(window, &mut buffers[0]),
        }
        let rendered = buffers.iter().take(runs.len()).flatten();
        if let Some(done) = write_rendered(rendered, limit, &mut written, &mut write)? {
            return Ok(done);
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(board: Board, filter: Filter) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let _ = each::<()>(board, &[], filter, |q| {
            out.push(q.to_vec());
            ControlFlow::Continue(())
        });
        out
    }

    #[test]
    fn four_has_two_solutions_in_order() {
        assert_eq!(
            all(Board::new(4).unwrap(), Filter::All),
            vec![vec![1, 3, 0, 2], vec![2, 0, 3, 1]]
        );
    }

    #[test]
    fn eight_starts_with_the_textbook_solution() {
        let board = Board::new(8).unwrap();
        assert_eq!(first(board), Some(vec![0, 4, 7, 5, 2, 6, 1, 3]));
        assert_eq!(all(board, Filter::All).len(), 92);
        assert_eq!(all(board, Filter::Unique).len(), 12);
    }

    #[test]
    fn tiny_boards() {
        assert_eq!(
            all(Board::new(0).unwrap(), Filter::All),
            vec![Vec::<u8>::new()]
        );
        assert_eq!(all(Board::new(1).unwrap(), Filter::All), vec![vec![0]]);
        assert!(first(Board::new(2).unwrap()).is_none());
        assert!(first(Board::new(3).unwrap()).is_none());
        assert!(first(Board::rect(3, 4).unwrap()).is_none());
    }

    #[test]
    fn a_parallel_listing_keeps_the_order_and_the_limit() {
        let board = Board::new(9).unwrap();
        let render = |q: &[u8], out: &mut Vec<u8>| {
            out.extend_from_slice(q);
            out.push(b'\n');
        };
        let collect = |threads, limit| {
            let mut bytes = Vec::new();
            let n = list::<()>(board, Filter::All, threads, limit, render, |b| {
                bytes.extend_from_slice(b);
                Ok(())
            })
            .unwrap();
            (n, bytes)
        };
        let (n1, serial) = collect(1, None);
        let (n2, parallel) = collect(3, None);
        assert_eq!((n1, n2), (352, 352));
        assert_eq!(serial, parallel);
        let (n, limited) = collect(3, Some(200_000));
        assert_eq!((n, limited), (352, serial.clone()));
        let (n, first_five) = collect(3, Some(5));
        assert_eq!(n, 5);
        assert_eq!(first_five, serial[..5 * 10]);
    }
}
