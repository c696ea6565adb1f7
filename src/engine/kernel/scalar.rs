//! The scalar loop: [`LANES`] interleaved branch-free searches in plain 64-bit instructions. It runs on any
//! processor and any board, and is the reference the vector loops are tested against.

use super::frame::Start;
use super::{Tally, MAX_N};

/// Searches interleaved by [`count_stream`](super::count_stream); see there for why.
pub const LANES: usize = 16;

/// Stack slots per lane: row `r` lives at slot `r + 1` (slot `row` below a start marks it finished), and a
/// power of two lets `& (SLOTS - 1)` stand in for a bounds check.
const SLOTS: usize = 128;

/// The scalar loop ([`Kernel::Scalar`](super::Kernel::Scalar)); `WIDE` when the last line may have several free squares.
///
/// # How
/// A depth-first search spends most of its time on mispredicted branches: whether a row has a free square
/// left, whether the row below has one. Here the loop body has no such branch: one step either places the
/// next free queen of the current row (descending when the row below has a free square and is not the last)
/// or, when the row is exhausted, backtracks, and the choice is made with arithmetic. Such a step is a chain of
/// dependent operations through the stack, so [`LANES`] independent searches take turns, each on its own
/// stack, and the processor overlaps their chains. A lane whose search ends asks `source` for the next start,
/// so lanes stay busy until the source runs dry.
///
/// The last row is never entered: after a queen is placed in row `n - 2` a single column is left, and the
/// row below either has it free or not.
///
/// Measured on one core of a 2.3 GHz Xeon (Sapphire Rapids), `nqueens count -t 1 16`, best of three runs
/// interleaved: 3.81 s, against 4.51 s for the classic loop that branches on each decision (1.18 times as
/// fast); see `results/kernel-variants.md`.
pub(super) fn stream<T, const WIDE: bool>(
    n: u32,
    mut source: impl FnMut() -> Option<(T, Start)>,
    mut sink: impl FnMut(T, Tally),
) {
    assert!(n <= MAX_N, "board {n} is outside the kernel's limits");
    let mut stacks = Box::new(Stacks::default());
    let mut lanes = [Lane::default(); LANES];
    let mut tally = [Tally::default(); LANES];
    // Counts since the last unpacking, nodes in the low half and solutions in the high half: one add a step
    // instead of two.
    let mut packed = [0u64; LANES];
    let mut tags: [Option<T>; LANES] = std::array::from_fn(|_| None);

    let mut busy = 0;
    for lane in 0..LANES {
        tags[lane] = assign::<T, WIDE>(
            n,
            &mut source,
            &mut sink,
            &mut stacks,
            lane,
            &mut lanes[lane],
        );
        busy += usize::from(tags[lane].is_some());
    }

    let mut rounds = 0u32;
    while busy > 0 {
        rounds = rounds.wrapping_add(1);
        if rounds.is_multiple_of(packed_rounds(WIDE)) {
            for lane in 0..LANES {
                unpack(&mut tally[lane], &mut packed[lane]);
            }
        }
        for lane in 0..LANES {
            let Lane {
                slot: s,
                floor,
                closing,
            } = lanes[lane];
            if s == floor {
                continue;
            }
            let top = s & (SLOTS - 1);
            let avail = stacks.avail[top][lane];
            let has = avail != 0;
            let bit = avail & avail.wrapping_neg();
            stacks.avail[top][lane] = avail ^ bit;
            let cols = stacks.cols[top][lane] | bit;
            let ld = (stacks.ld[top][lane] | bit) << 1;
            let rd = (stacks.rd[top][lane] | bit) >> 1;
            let child = (s + 1) & (SLOTS - 1);
            let next = stacks.open[child][lane] & !(cols | ld | rd);
            // Written whether or not the search descends: a slot above the top is dead until rewritten.
            stacks.avail[child][lane] = next;
            stacks.cols[child][lane] = cols;
            stacks.ld[child][lane] = ld;
            stacks.rd[child][lane] = rd;
            let placed = has & (next != 0);
            let closes = s == closing;
            let descends = placed & !closes;
            let closed = if WIDE {
                u64::from(has & closes) * u64::from(next.count_ones())
            } else {
                u64::from(placed & closes)
            };
            packed[lane] += u64::from(has) + PACKED_SOLUTION * closed;
            // Backtrack at once when this was the row's last free square, saving the step that would find
            // it empty.
            let s = s + usize::from(descends) - usize::from(!descends & (avail ^ bit == 0));
            lanes[lane].slot = s;
            if s == floor {
                let tag = tags[lane].take().expect("a busy lane has a tag");
                unpack(&mut tally[lane], &mut packed[lane]);
                sink(tag, std::mem::take(&mut tally[lane]));
                tags[lane] = assign::<T, WIDE>(
                    n,
                    &mut source,
                    &mut sink,
                    &mut stacks,
                    lane,
                    &mut lanes[lane],
                );
                busy -= usize::from(tags[lane].is_none());
            }
        }
    }
}

/// Where a lane's search stands: row `r` lives at slot `r + 1`.
#[derive(Clone, Copy, Debug, Default)]
struct Lane {
    /// The slot of the row being filled.
    slot: usize,
    /// The slot below the start's row: reaching it ends the search.
    floor: usize,
    /// The slot of row `end - 2`: a queen placed there closes the board.
    closing: usize,
}

/// The lanes' search stacks: `field[slot][lane]` describes the row at that slot. Separate arrays of words,
/// not one array of entries: every load then reads exactly what one earlier store wrote, which the processor
/// forwards at once (a wide load over narrower stores stalls it). Slot-major, so the lanes' tops share cache
/// lines instead of sets.
struct Stacks {
    /// Free squares of the row not tried yet.
    avail: [[u64; LANES]; SLOTS],
    /// The masks of the row: see the module documentation.
    cols: [[u64; LANES]; SLOTS],
    ld: [[u64; LANES]; SLOTS],
    rd: [[u64; LANES]; SLOTS],
    /// The start's [`Frame`](super::Frame), row by row: the squares each row may use and no queen below
    /// attacks (`allow & !block`).
    open: [[u64; LANES]; SLOTS],
}

impl Default for Stacks {
    fn default() -> Stacks {
        Stacks {
            avail: [[0; LANES]; SLOTS],
            cols: [[0; LANES]; SLOTS],
            ld: [[0; LANES]; SLOTS],
            rd: [[0; LANES]; SLOTS],
            open: [[0; LANES]; SLOTS],
        }
    }
}

/// A solution in [`count_stream`](super::count_stream)'s packed counters: one solution and the node of its last queen.
const PACKED_SOLUTION: u64 = (1 << 32) | 1;

/// Rounds between unpackings. A lane adds at most 2 to either half per round on a square board, and at most
/// 65 (a node and up to 64 closed solutions) on a rectangle, so neither half can overflow.
const fn packed_rounds(wide: bool) -> u32 {
    if wide {
        1 << 25
    } else {
        1 << 30
    }
}

/// Moves a lane's packed counts into its tally.
#[inline]
fn unpack(tally: &mut Tally, packed: &mut u64) {
    tally.nodes += *packed & 0xffff_ffff;
    tally.solutions += *packed >> 32;
    *packed = 0;
}

/// Gives a lane the next start that needs a search, settling on the way the starts that need none.
fn assign<T, const WIDE: bool>(
    n: u32,
    source: &mut impl FnMut() -> Option<(T, Start)>,
    sink: &mut impl FnMut(T, Tally),
    stacks: &mut Stacks,
    lane: usize,
    state: &mut Lane,
) -> Option<T> {
    loop {
        let (tag, Start { row, masks, frame }) = source()?;
        let end = frame.end;
        assert!(
            row <= end && end <= n,
            "start row {row} and end {end} do not fit board {n}"
        );
        let free = frame.free(row.min(n.saturating_sub(1)), masks);
        if row + 2 <= end {
            for r in row as usize..end as usize {
                stacks.open[r + 1][lane] = frame.allow[r] & !frame.block[r];
            }
            let row = row as usize;
            stacks.avail[row + 1][lane] = free;
            stacks.cols[row + 1][lane] = masks.cols;
            stacks.ld[row + 1][lane] = masks.ld;
            stacks.rd[row + 1][lane] = masks.rd;
            *state = Lane {
                slot: row + 1,
                floor: row,
                closing: end as usize - 1,
            };
            return Some(tag);
        }
        // A complete placement is one solution; one row short, each free square of that row is one.
        let solutions = match (row == end, WIDE) {
            (true, _) => 1,
            (false, true) => u64::from(free.count_ones()),
            (false, false) => u64::from(free != 0),
        };
        let nodes = if row == end { 0 } else { solutions };
        sink(tag, Tally { solutions, nodes });
    }
}
