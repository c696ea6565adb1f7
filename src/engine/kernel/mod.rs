//! The hot loop: an iterative bitmask backtracker that counts the completions of a partial placement.
//!
//! Everything else in the crate (work splitting, symmetry, executors) decides *which* partial placements to
//! count and how to weigh them; this module only counts. It has no dependencies, allocates nothing, takes no
//! locks and touches no atomics, so any executor can call it from any thread.
//!
//! # The masks
//! Rows are filled top to bottom. For the row about to be filled, three masks say which of its squares are
//! attacked by the queens already placed; bit `c` stands for column `c`:
//! - `cols`: bit `c` is set when a queen stands in column `c`;
//! - `ld`: bit `c` is set when a queen attacks `(row, c)` along a diagonal going down and to the right
//!   (left-shifted by one for every row moved down);
//! - `rd`: bit `c` is set when a queen attacks `(row, c)` along a diagonal going down and to the left
//!   (right-shifted by one for every row moved down).
//!
//! The free squares of the row are `full & !(cols | ld | rd)`, where `full` has the low `n` bits set. Bits that a
//! shift pushes beyond column `n - 1` are masked by `full`, and bits pushed beyond bit 63 or below bit 0 are
//! squares off the board, so dropping them is right.
//!
//! # Limits
//! The masks are `u64`, so the largest board is [`MAX_N`] = 64 columns. The per-call counters are `u64`: each
//! solution and each node costs at least one turn of the loop, so overflowing one would take 2^64 turns,
//! several centuries at a billion turns a second. Callers sum the per-unit counts in `u128`.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod choice;
mod frame;
mod masks;
mod scalar;
mod vector;

pub use choice::Kernel;
pub use frame::{Frame, Shape, Start};
pub use masks::{full_mask, Masks};
pub use scalar::LANES;
pub use vector::MAX_N as VECTOR_MAX_N;

#[cfg(target_arch = "x86_64")]
use choice::vpopcnt;
use scalar::stream;

/// The largest board side the `u64` masks can hold.
pub const MAX_N: u32 = 64;

/// What one call of the kernel found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Completions of the partial placement into full solutions.
    pub solutions: u64,
    /// Queens placed while searching (nodes of the search tree below the partial placement).
    pub nodes: u64,
}

/// Tallies of parts of a search add up to the whole's: a unit's tasks, cut on the host and counted on the GPU
/// in pieces.
impl std::ops::Add for Tally {
    type Output = Tally;
    fn add(self, other: Tally) -> Tally {
        Tally {
            solutions: self.solutions + other.solutions,
            nodes: self.nodes + other.nodes,
        }
    }
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Tally) {
        *self = *self + other;
    }
}

/// Counts the ways to complete a board of side `n` from a partial placement: rows `0..row` hold queens that
/// leave `masks` for row `row`.
pub fn count_completions(n: u32, row: u32, masks: Masks) -> Tally {
    count_start(
        n,
        Start {
            row,
            masks,
            frame: Frame::open(n),
        },
    )
}

/// Counts the completions of one start on a board of side `n`.
pub fn count_start(n: u32, start: Start) -> Tally {
    count_start_with(Kernel::preferred(), n, start)
}

/// Counts the completions of one start on a board of side `n` with the loop `kernel`.
pub fn count_start_with(kernel: Kernel, n: u32, start: Start) -> Tally {
    // A start whose search ends before the last line may have several free squares there (a rectangle's).
    let lines = start.frame.end;
    let mut start = Some(((), start));
    let mut tally = Tally::default();
    count_stream_with(kernel, n, lines, || start.take(), |_, t| tally = t);
    tally
}

/// Whether `kernel` can list the solutions of a board of `lines` lines of `width` squares itself
/// ([`list_stream`]): the vector loops on the boards they handle.
pub fn lists(kernel: Kernel, width: u32, lines: u32) -> bool {
    // Square boards only: the listing loops read one last queen off each solution, and a rectangle's last line
    // may close several.
    kernel != Kernel::Scalar && kernel.available() && lines == width && kernel.handles(width, lines)
}

/// Hands every solution below every start of `source` to `solution`, with the start's tag and the queens of the
/// rows from the start's row on (0-based columns), on a square board of side `n`; each start's solutions come
/// in lexicographic order, and `done` is told when a start has no more. Solutions of different starts arrive
/// interleaved. Only for a `kernel` that [`lists`] the board (a vector loop).
///
/// # Panics
/// If `kernel` does not list this board.
pub fn list_stream<T>(
    kernel: Kernel,
    n: u32,
    source: impl FnMut() -> Option<(T, Start)>,
    solution: impl FnMut(&T, &[u8]),
    done: impl FnMut(T),
) {
    assert!(
        lists(kernel, n, n),
        "the {kernel} kernel does not list board {n}"
    );
    match kernel {
        // SAFETY: the processor has the instructions (asserted above).
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe {
            let steps = if vpopcnt() {
                avx512::list_steps_vpopcnt
            } else {
                avx512::list_steps
            };
            vector::drive_list::<T, { avx512::L }>(n, source, solution, done, steps)
        },
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe {
            vector::drive_list::<T, { avx2::L }>(n, source, solution, done, avx2::list_steps)
        },
        _ => {
            // Off x86-64 no loop lists; the arguments are unused there.
            drop((source, solution, done));
            unreachable!("only the vector loops list")
        }
    }
}

/// [`count_stream`] on a board of `lines` lines of `width` squares: a rectangle searched column by column
/// when `lines < width` (see [`crate::engine::board`]).
///
/// On a square the last line has one square left when the search gets there, so a queen on the line before
/// it closes at most one solution. On a rectangle it may have several, and the closing step adds their
/// number (a population count). That costs the square search a few operations per step on processors
/// without a `popcnt` instruction, so the two are separate instances of the same loop.
///
/// The loop is [`Kernel::preferred`]; see [`count_stream_with`].
pub fn count_stream_lines<T>(
    width: u32,
    lines: u32,
    source: impl FnMut() -> Option<(T, Start)>,
    sink: impl FnMut(T, Tally),
) {
    count_stream_with(Kernel::preferred(), width, lines, source, sink)
}

/// [`count_stream_lines`] with the loop `kernel`, or the scalar loop where `kernel` does not handle the board
/// ([`Kernel::handles`]). Every loop gives the same counts.
///
/// # Panics
/// If this processor cannot run `kernel` ([`Kernel::available`]).
pub fn count_stream_with<T>(
    kernel: Kernel,
    width: u32,
    lines: u32,
    source: impl FnMut() -> Option<(T, Start)>,
    sink: impl FnMut(T, Tally),
) {
    assert!(
        kernel.available(),
        "this processor cannot run the {kernel} kernel"
    );
    if kernel == Kernel::Scalar || !kernel.handles(width, lines) {
        return if lines < width {
            stream::<T, true>(width, source, sink)
        } else {
            stream::<T, false>(width, source, sink)
        };
    }
    match kernel {
        Kernel::Scalar => unreachable!("the scalar loop returned above"),
        // SAFETY: the processor has the instructions (asserted above).
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe {
            vector::drive::<T, { avx2::L }>(width, source, sink, avx2::steps)
        },
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe {
            let steps = if vpopcnt() {
                avx512::steps_vpopcnt
            } else {
                avx512::steps
            };
            vector::drive::<T, { avx512::L }>(width, source, sink, steps)
        },
        #[cfg(not(target_arch = "x86_64"))]
        _ => unreachable!("no vector kernel is available off x86-64"),
    }
}

/// Counts the completions of every start that `source` hands out, on a square board of side `n`, and gives
/// each one's tally to `sink` with the tag it came with. Starts may finish in any order. The loop is
/// [`Kernel::preferred`]; see [`count_stream_with`].
pub fn count_stream<T>(
    n: u32,
    source: impl FnMut() -> Option<(T, Start)>,
    sink: impl FnMut(T, Tally),
) {
    count_stream_lines(n, n, source, sink)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_frames_have_a_shape_that_gives_every_row() {
        for (width, lines) in [(1, 1), (8, 8), (12, 9), (30, 30), (32, 20)] {
            let frame = Frame::rect(width, lines);
            assert_eq!(frame.shape_of(0..lines), Frame::rect(width, lines).shape);
            assert!(frame.shape.is_some(), "{width}x{lines}");
        }
        // Wider than the lanes: no shape, so the vector loops leave it to the scalar loop.
        assert_eq!(Frame::rect(33, 10).shape, None);
    }

    #[test]
    fn a_shape_frame_whose_rows_were_changed_is_not_taken_for_its_shape() {
        let mut frame = Frame::open(10);
        frame.block[4] |= 1 << 3;
        assert_eq!(frame.shape_of(0..4), frame.shape);
        assert_eq!(frame.shape_of(0..10), None);
        // Rows the frame does not have are not the shape's either.
        assert_eq!(Frame::open(10).shape_of(60..70), None);
    }

    #[test]
    fn empty_board_of_eight_has_92_completions() {
        assert_eq!(count_completions(8, 0, Masks::default()).solutions, 92);
    }

    #[test]
    fn complete_and_last_row_placements_are_counted_without_a_search() {
        assert_eq!(count_completions(3, 3, Masks::default()).solutions, 1);
        assert_eq!(count_completions(1, 0, Masks::default()).solutions, 1);
        let blocked = Masks {
            cols: 1,
            ..Masks::default()
        };
        assert_eq!(count_completions(1, 0, blocked).solutions, 0);
    }

    /// Starts of a board of side `n`: every open placement of two rows, and every canonical border of the full
    /// mode with its rows below the top to fill.
    fn starts(n: u32) -> Vec<Start> {
        let mut starts = Vec::new();
        for a in 0..n {
            for b in 0..n {
                let masks = Masks::default().place(1 << a);
                if masks.free(full_mask(n)) & (1 << b) != 0 {
                    let masks = masks.place(1 << b);
                    let frame = Frame::open(n);
                    starts.push(Start {
                        row: 2,
                        masks,
                        frame,
                    });
                }
            }
        }
        for border in crate::engine::border::Border::canonical(n) {
            let (frame, masks) = border.frame(n);
            starts.push(Start {
                row: 1,
                masks,
                frame,
            });
        }
        starts
    }

    /// Each start's tally by the vector loop `steps`, its counters emptied every `flush` steps at the latest.
    #[cfg(target_arch = "x86_64")]
    fn tallies<const L: usize>(
        n: u32,
        starts: &[Start],
        steps: vector::StepLoop<L>,
        flush: u32,
    ) -> Vec<Tally> {
        let mut tallies = vec![Tally::default(); starts.len()];
        let mut next = starts.iter().cloned().enumerate();
        // SAFETY: the callers run only the loops this processor has.
        unsafe {
            vector::drive_flushing::<usize, L>(
                n,
                || next.next(),
                |i, t| tallies[i] = t,
                steps,
                flush,
            )
        };
        tallies
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_vector_loop_counts_what_the_scalar_loop_counts_however_often_it_flushes() {
        // The AVX-512 loop counts the look-ahead's skipped nodes with a population count instruction where the
        // processor has one and with shifts and adds where it has not; the dispatch picks one, so each is run
        // here. Counters are emptied as rarely as a count does, and every few steps, the path a long start
        // takes. (A processor without the loops runs none of this: `tests/kernels.rs` covers the loops it has.)
        for n in [8, 11, 13] {
            let starts = starts(n);
            let scalar: Vec<Tally> = starts
                .iter()
                .map(|s| count_start_with(Kernel::Scalar, n, s.clone()))
                .collect();
            for flush in [vector::FLUSH_STEPS, 7, 1] {
                if Kernel::Avx2.available() {
                    let counted = tallies::<{ avx2::L }>(n, &starts, avx2::steps, flush);
                    assert!(counted == scalar, "n = {n}, avx2, {flush}");
                }
                if Kernel::Avx512.available() {
                    let counted = tallies::<{ avx512::L }>(n, &starts, avx512::steps, flush);
                    assert!(
                        counted == scalar,
                        "n = {n}, avx512 shifts and adds, {flush}"
                    );
                }
                if Kernel::Avx512.available() && vpopcnt() {
                    let counted =
                        tallies::<{ avx512::L }>(n, &starts, avx512::steps_vpopcnt, flush);
                    assert!(counted == scalar, "n = {n}, avx512 popcount, {flush}");
                }
            }
        }
    }

    #[test]
    fn full_mask_covers_exactly_n_columns() {
        assert_eq!(full_mask(0), 0);
        assert_eq!(full_mask(1), 1);
        assert_eq!(full_mask(8), 0xff);
        assert_eq!(full_mask(64), u64::MAX);
    }
}
