//! Solutions one by one: every solution in lexicographic order, the first one, one per symmetry class.
//!
//! Counting never looks at a solution; listing must produce each one, in order. A solution is the position
//! of the queen on each line of the board (the column of each row's queen on a square; the row of each
//! column's queen on a rectangle, see [`crate::engine::board`]), 0-based. Solutions come in lexicographic order of
//! that list, which is the order of a depth-first search that tries the lowest free square first.
//!
//! [`each`] is that search, in constant memory. [`list`] runs it on several threads and still hands the
//! solutions over in order: the plan's units ([`crate::engine::plan`], split without symmetry) are prefixes in
//! lexicographic order, so each worker renders whole units into a buffer and the buffers are written in unit
//! order, a window of units at a time. The second half of a listing is the first half mirrored, last first, so
//! the first half's solutions are kept (within [`MIRROR_CACHE`] bytes) and mirrored instead of searched again.
//! Memory is bounded by the window and that budget, whatever the board.
//!
//! [`Filter::Unique`] keeps one representative per symmetry class: the lexicographically smallest of its
//! images under the board's symmetries (8 for a square, 4 for a rectangle). Their number is OEIS A002562.
//!
//! Listing, checking and constructing, from a program of one's own:
//!
//! ```
//! use nqueens::solutions::notation::{Notation, Renderer, Shape};
//! use nqueens::solutions::{checker, construct, list, Filter};
//! use nqueens::Board;
//!
//! // Every solution of 6 x 6 in order, written as `nqueens list 6` writes them, on two threads.
//! let board = Board::new(6)?;
//! let renderer = Renderer::new(Notation::Rows, Shape::from(board), false);
//! let mut text = Vec::new();
//! let written = list(board, Filter::All, 2, None, |queens, out| renderer.render(queens, out), |bytes| {
//!     text.extend_from_slice(bytes);
//!     Ok::<(), std::io::Error>(())
//! })?;
//! assert_eq!(written, 4);
//! assert!(text.starts_with(b"[2,4,6,1,3,5]\n"));
//!
//! // A solution of a million queens without search, checked; a check's flaw is an error as any other.
//! let million = construct::square(1_000_000).expect("every n but 2 and 3 has one");
//! checker::check_list(Shape::square(1_000_000), &million)?;
//! let flaw = checker::check_list(Shape::square(4), &[0, 1, 2, 3]).unwrap_err();
//! assert_eq!(flaw.to_string(), "the queens at row 1, column 1 and row 2, column 2 share a diagonal");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod checker;
pub mod construct;
pub mod notation;

use crate::engine::board::Board;
use crate::engine::kernel::{self, full_mask, Kernel, Masks};
use crate::engine::plan::{Plan, Split, WorkUnit};
use crate::engine::symmetry::Symmetry;
use rayon::prelude::*;
use std::collections::VecDeque;
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
/// board's symmetries. A list that is no placement on the board, of another length than [`Board::lines`] or
/// with a position off it, is the image of none of its solutions: `false`.
pub fn is_canonical(board: Board, queens: &[u8]) -> bool {
    // Checked first: a position off the board would index past the inverse below.
    if queens.len() != board.lines() as usize
        || queens.iter().any(|&p| u32::from(p) >= board.width())
    {
        return false;
    }
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

/// One unit's part of a listing window: its rendered solutions and where each one's bytes end, and, for a unit
/// of the first half whose mirror image is listed later, the solutions themselves.
#[derive(Debug, Default)]
struct Rendered {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    /// Whether to keep the solutions in `queens`.
    keep: bool,
    /// The unit's solutions, one line's position after another, in order.
    queens: Vec<u8>,
}

impl Rendered {
    /// Empties the buffers (keeping their memory) for a new unit.
    fn reset(&mut self, keep: bool) {
        self.bytes.clear();
        self.ends.clear();
        self.queens.clear();
        self.keep = keep;
    }

    /// Renders one solution, and keeps it when asked to.
    #[inline]
    fn add(&mut self, queens: &[u8], render: &impl Fn(&[u8], &mut Vec<u8>)) {
        render(queens, &mut self.bytes);
        self.ends.push(self.bytes.len());
        if self.keep {
            self.queens.extend_from_slice(queens);
        }
    }
}

/// Units rendered per thread before the window is written by the plain search: enough to keep the workers busy
/// between writes, few enough that a window's output stays small (a unit of n = 16 renders to tens of
/// kilobytes).
const WINDOW_PER_THREAD: usize = 16;

/// Units a thread lists with a vector loop between writes: enough to keep its lanes busy (32 on AVX-512, 24 on
/// AVX2), few enough that a window's output stays a few megabytes.
const VECTOR_WINDOW_PER_THREAD: usize = 256;

/// The bytes a window's units are sized to render, on average: what is held until they are written.
const WINDOW_BYTES: usize = 32 << 20;

/// The smallest board the vector loop lists: below it the units are too small to pay for handing them to lanes
/// (criterion, one thread, `rows`: n = 12 took 9.3 ms with the AVX-512 loop and 7.6 ms with the plain search;
/// n = 13 18.5 ms against 42.0 ms; the AVX2 loop lists n = 13 in 23 ms).
const VECTOR_LIST_MIN: u32 = 13;

/// The memory [`list`] may spend on solutions kept for their mirror images (see [`Tuning::mirror_cache`]):
/// all of the first half of n = 14 (2.6 MB) and n = 15 (17 MB), the last quarter of n = 16's.
pub const MIRROR_CACHE: usize = 32 << 20;

/// How [`list_tuned`] runs. Neither field changes a byte of the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// The search loop, where it lists the board ([`kernel::lists`]); the plain search otherwise.
    pub kernel: Kernel,
    /// Bytes of solutions kept to be mirrored instead of searched again.
    ///
    /// The left-right reflection maps the solutions whose first queen is in the right half onto those in the
    /// left half, and reverses their lexicographic order. So the second half of the listing is the first half's
    /// solutions mirrored, last first: each unit `i` of the second half is unit `units - 1 - i` of the first
    /// half. The first half's solutions are kept, up to this many bytes (the latest units, since the second
    /// half starts with the mirror of the last one), and the second half's units whose mirror image was kept
    /// are rendered from it rather than searched; the others are searched. 0 searches everything.
    pub mirror_cache: usize,
}

impl Tuning {
    /// The loop `kernel` and the default [`MIRROR_CACHE`].
    pub fn new(kernel: Kernel) -> Tuning {
        Tuning {
            kernel,
            mirror_cache: MIRROR_CACHE,
        }
    }
}

/// Renders every solution of `board` with `render` (which appends one solution's bytes to the buffer) and
/// hands the bytes to `write` in lexicographic order of the solutions, stopping after `limit` solutions.
/// Rendering runs on `threads` threads; the order never depends on them. Returns the number of solutions
/// written, or the first error of `write`.
///
/// Every solution of a square board from 13 to 30 is searched by a vector loop where the processor has one (the
/// [`Kernel::preferred`] one); the rest by the plain search. All give the same bytes. The mirror images of
/// solutions already found are not searched again, within [`MIRROR_CACHE`] bytes (see [`Tuning`]).
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
    write: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, E> {
    list_tuned(
        Tuning::new(kernel),
        board,
        filter,
        threads,
        limit,
        render,
        write,
    )
}

/// [`list`] run as `tuning` says: the same bytes whatever it says.
pub fn list_tuned<E>(
    tuning: Tuning,
    board: Board,
    filter: Filter,
    threads: usize,
    limit: Option<u64>,
    render: impl Fn(&[u8], &mut Vec<u8>) + Sync,
    mut write: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, E> {
    let mut written = 0u64;
    let short = limit.is_some_and(|l| l < 100_000);
    let vector = filter == Filter::All
        && !short
        && board.width() >= VECTOR_LIST_MIN
        && kernel::lists(tuning.kernel, board.width(), board.lines());
    // Mirror images are only known to be solutions too when every solution is listed.
    let mirror_cache = if filter == Filter::All {
        tuning.mirror_cache
    } else {
        0
    };
    // From 13 on, mirroring the first half pays for listing by units even on one thread.
    let mirror = mirror_cache > 0 && board.width() >= VECTOR_LIST_MIN;
    // One thread on a small board, or a short listing: a plain search on this thread, which stops as soon as it
    // has enough.
    if !vector && (short || (threads <= 1 && !mirror)) {
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
    // No more threads than processors: the listing is the same whatever the threads, and a rayon pool's idle
    // workers, looking for work to steal through a list of every worker, take the processors when there are
    // many more of them (`list 10 --threads 4096` took 10 s on 2 cores, under 0.01 s on 2 threads).
    let threads = threads.min(num_cpus::get());
    let pool = (threads > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .ok()
        })
        .flatten();
    // No threads to be had: the same listing on this thread.
    let threads = if pool.is_some() { threads } else { 1 };
    let plan = Plan::new(board, Symmetry::None, Split::Auto { threads });
    let lines = board.lines() as usize;
    let windows = Windows {
        plan: &plan,
        pool: pool.as_ref(),
        threads,
        per_thread: if vector {
            VECTOR_WINDOW_PER_THREAD
        } else {
            WINDOW_PER_THREAD
        },
        mirror_cache,
        limit,
    };
    if vector {
        let kernel = tuning.kernel;
        let n = board.width();
        // A thread's lanes search its units side by side; each solution goes to its unit's buffer as it is found.
        windows.run(
            |units: &[WorkUnit], out: &mut [Rendered]| {
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
                        out[i].add(&queens[..lines], &render);
                    },
                    |_| {},
                );
            },
            &render,
            &mut written,
            &mut write,
        )?;
    } else {
        windows.run(
            |units: &[WorkUnit], out: &mut [Rendered]| {
                for (unit, r) in units.iter().zip(out.iter_mut()) {
                    let _ = each::<()>(board, &unit.prefix, filter, |queens| {
                        r.add(queens, &render);
                        ControlFlow::Continue(())
                    });
                }
            },
            &render,
            &mut written,
            &mut write,
        )?;
    }
    Ok(written)
}

/// The parallel listing: the plan's units a window at a time, each thread rendering a contiguous run of the
/// window's units into buffers kept from window to window, the buffers written in unit order; and the mirror
/// images of kept units rendered instead of searched (see [`Tuning::mirror_cache`]).
struct Windows<'a> {
    plan: &'a Plan,
    pool: Option<&'a rayon::ThreadPool>,
    threads: usize,
    per_thread: usize,
    mirror_cache: usize,
    limit: Option<u64>,
}

/// A thread's share of a window: consecutive units, the kept solutions to mirror for each (for the units that
/// have them), and the plan index of the first unit.
struct Run<'a> {
    units: &'a [WorkUnit],
    mirrors: &'a [Option<Vec<u8>>],
    first: usize,
}

/// The first half's kept solutions: the latest units', in one queue of bytes of at most `budget`, so that the
/// memory is exactly the budget (a buffer of each unit's own, freed oldest first, fragmented the heap to 1.6
/// times the budget).
struct Kept {
    bytes: VecDeque<u8>,
    /// `(unit index, length)` of each kept unit's bytes, in the order of `bytes`: oldest first.
    units: VecDeque<(usize, usize)>,
    budget: usize,
}

impl Kept {
    fn new(budget: usize) -> Kept {
        Kept {
            bytes: VecDeque::new(),
            units: VecDeque::new(),
            budget,
        }
    }

    /// Keeps the solutions of unit `index`, dropping the oldest units to make room.
    fn push(&mut self, index: usize, queens: &[u8]) {
        if queens.len() > self.budget {
            self.bytes.clear();
            self.units.clear();
            return;
        }
        while self.bytes.len() + queens.len() > self.budget {
            let (_, len) = self.units.pop_front().expect("kept bytes belong to units");
            self.bytes.drain(..len);
        }
        // The whole budget at once (grown by doubling it could reach twice that); pages never written take no
        // memory.
        if self.bytes.capacity() < self.budget {
            self.bytes.reserve_exact(self.budget - self.bytes.len());
        }
        self.bytes.extend(queens);
        self.units.push_back((index, queens.len()));
    }

    /// The kept solutions of unit `index`, taken out; the units kept after it go too, since their mirror images
    /// were searched (they shared a window).
    fn take(&mut self, index: usize) -> Option<Vec<u8>> {
        while let Some(&(i, len)) = self.units.back() {
            if i < index {
                return None;
            }
            self.units.pop_back();
            let start = self.bytes.len() - len;
            if i == index {
                let queens = self.bytes.range(start..).copied().collect();
                self.bytes.truncate(start);
                return Some(queens);
            }
            self.bytes.truncate(start);
        }
        None
    }
}

impl Windows<'_> {
    /// Lists the plan's units: `search` renders the solutions of a run of units, one buffer each.
    fn run<E>(
        &self,
        search: impl Fn(&[WorkUnit], &mut [Rendered]) + Sync,
        render: &(impl Fn(&[u8], &mut Vec<u8>) + Sync),
        written: &mut u64,
        write: &mut impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let units = self.plan.units();
        let count = units.len();
        let width = self.plan.board().width() as u8;
        let lines = self.plan.board().lines() as usize;
        // The units pair up as `i` and `count - 1 - i` when the plan's prefixes are each other's mirror images,
        // as every plan of rows of one length is; checked rather than assumed, since the pairing decides bytes.
        let mirrored = self.mirror_cache > 0
            && lines > 0
            && (0..count).all(|i| {
                let (a, b) = (&units[i].prefix, &units[count - 1 - i].prefix);
                a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| x + y + 1 == width)
            });
        let half = if mirrored { count / 2 } else { 0 };
        let mut kept = Kept::new(self.mirror_cache);
        // The first half's units and solutions so far, to tell which units the queue will still hold when the
        // second half starts: copying the others in would be wasted (n = 16 keeps its last quarter).
        let (mut seen_units, mut seen_bytes) = (0usize, 0usize);
        let mut buffers: Vec<Vec<Rendered>> = (0..self.threads).map(|_| Vec::new()).collect();
        // A window holds its units' rendered bytes until they are written, which a unit count alone does not
        // bound: a drawing of n = 16 is 6 KB a solution, 160 times its list, and 512 units of them took 4.7 GB.
        // So the window starts small, and each is sized for units as large as the last one's largest (units
        // differ severalfold, and grow towards the middle of the board), growing to at most twice the last.
        let most = self.threads * self.per_thread;
        let mut window_len = (self.threads * 4).min(most);
        let mut first = 0;
        while first < count {
            let window = &units[first..(first + window_len).min(count)];
            // The kept solutions this window mirrors, by its unit's place in the window.
            let mirrors: Vec<Option<Vec<u8>>> = (first..first + window.len())
                .map(|i| {
                    (i >= count - half)
                        .then(|| kept.take(count - 1 - i))
                        .flatten()
                })
                .collect();
            // Keep unit i if the rest of the first half, at the average size so far, could fit twice over.
            let keep_from = match seen_bytes.checked_div(seen_units) {
                Some(average) => half.saturating_sub(2 * self.mirror_cache / average.max(1)),
                None => 0,
            };
            let run_len = window.len().div_ceil(self.threads);
            let runs: Vec<Run> = window
                .chunks(run_len)
                .zip(mirrors.chunks(run_len))
                .enumerate()
                .map(|(k, (units, mirrors))| Run {
                    units,
                    mirrors,
                    first: first + k * run_len,
                })
                .collect();
            let job = |run: &Run, out: &mut Vec<Rendered>| {
                out.resize_with(run.units.len(), Rendered::default);
                for (k, r) in out.iter_mut().enumerate() {
                    r.reset((keep_from..half).contains(&(run.first + k)));
                }
                // The run is blocks of units searched and of units mirrored; each block goes its own way.
                let mut k = 0;
                while k < run.units.len() {
                    let from_mirror = run.mirrors[k].is_some();
                    let end = (k..run.units.len())
                        .find(|&e| run.mirrors[e].is_some() != from_mirror)
                        .unwrap_or(run.units.len());
                    if from_mirror {
                        for (m, r) in run.mirrors[k..end].iter().zip(&mut out[k..end]) {
                            let queens = m.as_deref().expect("a mirrored block");
                            let mut image = [0u8; 64];
                            for solution in queens.chunks_exact(lines).rev() {
                                for (x, &q) in image.iter_mut().zip(solution) {
                                    *x = width - 1 - q;
                                }
                                r.add(&image[..lines], render);
                            }
                        }
                    } else {
                        search(&run.units[k..end], &mut out[k..end]);
                    }
                    k = end;
                }
            };
            match self.pool {
                Some(pool) => pool.install(|| {
                    runs.par_iter()
                        .zip(buffers.par_iter_mut())
                        .for_each(|(run, out)| job(run, out))
                }),
                None => {
                    for (run, out) in runs.iter().zip(buffers.iter_mut()) {
                        job(run, out)
                    }
                }
            }
            let rendered = buffers.iter().take(runs.len()).flatten();
            if write_rendered(rendered, self.limit, written, write)? {
                return Ok(());
            }
            // Keep the first half's solutions for their mirror images, the latest within the budget.
            let mut largest = 1;
            for (k, r) in buffers.iter().flatten().take(window.len()).enumerate() {
                if first + k < half {
                    seen_units += 1;
                    seen_bytes += r.ends.len() * lines;
                }
                if r.keep {
                    kept.push(first + k, &r.queens);
                }
                largest = largest.max(r.bytes.len());
            }
            first += window.len();
            // At most twice the last: neighbouring units may differ severalfold, a run of them less.
            window_len = (WINDOW_BYTES / largest)
                .min(2 * window.len())
                .clamp(self.threads, most);
        }
        Ok(())
    }
}

/// Writes the rendered units in order, counting the solutions in `written`; once `limit` is reached, writes
/// only the solutions up to it and says so.
fn write_rendered<'a, E>(
    rendered: impl IntoIterator<Item = &'a Rendered>,
    limit: Option<u64>,
    written: &mut u64,
    write: &mut impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<bool, E> {
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
            *written += left;
            return Ok(true);
        }
    }
    Ok(false)
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
    fn a_list_that_is_no_placement_on_the_board_is_not_canonical_and_does_not_panic() {
        let board = Board::new(8).unwrap();
        // The first of the 8-queens' twelve representatives, then lists no solution of the board can be.
        assert!(is_canonical(board, &[0, 4, 7, 5, 2, 6, 1, 3]));
        assert!(!is_canonical(board, &[200, 1, 2, 3, 4, 5, 6, 7]));
        assert!(!is_canonical(board, &[0, 4, 7, 5, 2, 6, 1, 8]));
        assert!(!is_canonical(board, &[0, 4]));
        assert!(!is_canonical(board, &[0, 4, 7, 5, 2, 6, 1, 3, 0]));
        assert!(!is_canonical(board, &[]));
        let rect = Board::rect(9, 7).unwrap();
        assert!(!is_canonical(rect, &[9, 0, 2, 4, 6, 8, 1]));
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

    /// The units `Windows` hands to its search, in order, for a board of 14 on `threads` threads with a cache
    /// of `cache` bytes.
    fn searched(cache: usize, threads: usize) -> (usize, Vec<usize>) {
        let board = Board::new(14).unwrap();
        let plan = Plan::new(board, Symmetry::None, Split::Auto { threads });
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let windows = Windows {
            plan: &plan,
            pool: Some(&pool),
            threads,
            per_thread: 16,
            mirror_cache: cache,
            limit: None,
        };
        let seen = std::sync::Mutex::new(Vec::new());
        let render = |q: &[u8], out: &mut Vec<u8>| out.extend_from_slice(q);
        let mut written = 0;
        windows
            .run::<()>(
                |units: &[WorkUnit], out: &mut [Rendered]| {
                    for (unit, r) in units.iter().zip(out.iter_mut()) {
                        seen.lock().unwrap().push(unit.index);
                        let _ = each::<()>(board, &unit.prefix, Filter::All, |q| {
                            r.add(q, &render);
                            ControlFlow::Continue(())
                        });
                    }
                },
                &render,
                &mut written,
                &mut |_| Ok(()),
            )
            .unwrap();
        assert_eq!(written, 365_596);
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        (plan.units().len(), seen)
    }

    #[test]
    fn the_second_half_is_searched_only_where_the_cache_ran_out() {
        // Room for everything: the first half is searched, and of the second only the units whose mirror image
        // shared their window (the window that straddles the middle).
        let (units, seen) = searched(MIRROR_CACHE, 2);
        let window = 2 * 16;
        assert!(seen.len() >= units / 2 && seen.len() <= units / 2 + window);
        assert!(seen.iter().all(|&i| i < units / 2 + window));
        // No room: everything is searched once.
        assert_eq!(searched(0, 2).1, (0..units).collect::<Vec<_>>());
        // Room for a few units: the first units of the second half come from the cache, the rest are searched.
        let (_, seen) = searched(64 << 10, 1);
        assert!(seen.len() > units / 2 + window && seen.len() < units);
        assert!(
            seen.windows(2).all(|w| w[0] < w[1]),
            "each unit at most once"
        );
    }

    #[test]
    fn the_ring_gives_back_exactly_what_it_kept() {
        // Units of random sizes pushed in order, then taken last first, some skipped: whatever `take` returns
        // holds that unit's bytes.
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % m
        };
        for budget in [64usize, 100, 1000, 4096] {
            for _ in 0..200 {
                let mut kept = Kept::new(budget);
                let units = 1 + next(40) as usize;
                let bytes: Vec<Vec<u8>> = (0..units)
                    .map(|i| vec![i as u8; next(budget as u64 / 3 + 2) as usize])
                    .collect();
                for (i, b) in bytes.iter().enumerate() {
                    kept.push(i, b);
                }
                let mut i = units;
                while i > 0 {
                    i -= 1 + next(2) as usize * usize::from(i > 1);
                    if let Some(queens) = kept.take(i) {
                        assert_eq!(queens, bytes[i], "budget {budget}, unit {i}");
                    }
                }
            }
        }
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
