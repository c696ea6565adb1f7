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
mod vector;

use std::sync::atomic::{AtomicU8, Ordering};
pub use vector::MAX_N as VECTOR_MAX_N;

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

/// The attack masks for the next row to fill; see the module documentation for their meaning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Masks {
    /// Occupied columns.
    pub cols: u64,
    /// Squares attacked along down-right diagonals.
    pub ld: u64,
    /// Squares attacked along down-left diagonals.
    pub rd: u64,
}

impl Masks {
    /// The masks for the row below, after a queen is placed on `bit` in this row.
    #[inline(always)]
    pub fn place(self, bit: u64) -> Masks {
        Masks {
            cols: self.cols | bit,
            ld: (self.ld | bit) << 1,
            rd: (self.rd | bit) >> 1,
        }
    }

    /// The free squares of this row on a board of side `n`.
    #[inline(always)]
    pub fn free(self, full: u64) -> u64 {
        full & !(self.cols | self.ld | self.rd)
    }
}

/// The mask with the low `n` bits set: the columns of a board of side `n` (`n <= 64`).
#[inline]
pub fn full_mask(n: u32) -> u64 {
    debug_assert!(n <= MAX_N);
    if n == 0 {
        0
    } else {
        u64::MAX >> (64 - n)
    }
}

/// Fixed constraints on the rows of a search: which squares each row may use at all, which are attacked by
/// queens placed further down, and where the search stops. Open boards allow everything; the border
/// pre-placement of the full symmetry mode forces some rows onto one square and blocks the diagonals of the
/// queens it placed below the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The search fills the rows before `end`; the rows from `end` on are placed already.
    pub end: u32,
    /// `allow[r]`: the squares of row `r` a queen may take at all (a single bit for a pre-placed row).
    pub allow: [u64; MAX_N as usize],
    /// `block[r]`: the squares of row `r` attacked by queens placed below it, or otherwise ruled out.
    pub block: [u64; MAX_N as usize],
    /// The same constraints as a rule the vector loops compute row by row, where the frame has that form. The
    /// loops take it only where it gives the rows of `allow` and `block` ([`Frame::shape_of`]), so a frame
    /// whose rows were changed afterwards still counts exactly (on the scalar loop).
    pub shape: Option<Shape>,
}

/// The constraints a [`Frame`] of the plans puts on its rows, as a rule rather than a table: the vector loops
/// compute a row's open squares with a few shifts where reading them from a table per lane (a gather) cost a
/// quarter of every step.
///
/// A row `r` that is not a side row may use the squares of `base` not attacked by the bottom queen (its column
/// `bottom`, a single bit or none, on row `last`) nor, from below, by the side queens (column 0 on row `left`,
/// column `last` on row `right`; row 0 for none). The side rows hold their queen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The squares of every row other than the side rows, before the border queens' diagonals.
    pub base: u32,
    /// The bottom queen's column as a bit, or 0.
    pub bottom: u32,
    /// The bottom row, and the right-hand column.
    pub last: u32,
    /// The row of the queen in column 0 that the search must place, or 0.
    pub left: u32,
    /// The row of the queen in column `last` that the search must place, or 0.
    pub right: u32,
}

impl Shape {
    /// No constraints on rows of `width` squares.
    pub fn open(width: u32) -> Shape {
        Shape {
            base: full_mask(width) as u32,
            bottom: 0,
            last: width.saturating_sub(1),
            left: 0,
            right: 0,
        }
    }

    /// The open squares of row `r`.
    pub fn open_squares(self, r: u32) -> u32 {
        let side = 1u32.checked_shl(self.last).unwrap_or(0);
        if r == self.left && r != 0 {
            return 1;
        }
        if r == self.right && r != 0 {
            return side;
        }
        // A shift by 32 or more leaves nothing (as the vector shifts do).
        let shl = |x: u32, k: u32| x.checked_shl(k).unwrap_or(0);
        let shr = |x: u32, k: u32| x.checked_shr(k).unwrap_or(0);
        let mut attacked = 0;
        if r <= self.last {
            let up = self.last - r;
            attacked |= shl(self.bottom, up) | shr(self.bottom, up);
        }
        if r < self.left {
            attacked |= shl(1, self.left - r);
        }
        if r < self.right {
            attacked |= shr(side, self.right - r);
        }
        self.base & !attacked
    }
}

impl Frame {
    /// No constraints: every row of a board of side `n` is searched and every square may be used.
    pub fn open(n: u32) -> Frame {
        Frame::rect(n, n)
    }

    /// No constraints on a board of `lines` rows of `width` squares (a rectangle searched column by column;
    /// see [`crate::engine::board`]).
    pub fn rect(width: u32, lines: u32) -> Frame {
        Frame {
            end: lines,
            allow: [full_mask(width); MAX_N as usize],
            block: [0; MAX_N as usize],
            shape: (width <= 32).then(|| Shape::open(width)),
        }
    }

    /// The frame of `shape` for a search that stops before row `end`.
    pub fn shaped(shape: Shape, end: u32) -> Frame {
        Frame {
            end,
            allow: std::array::from_fn(|r| u64::from(shape.open_squares(r as u32))),
            block: [0; MAX_N as usize],
            shape: Some(shape),
        }
    }

    /// The frame's shape, if it has one and it gives every row of `rows` the frame's open squares.
    pub fn shape_of(&self, rows: std::ops::Range<u32>) -> Option<Shape> {
        let shape = self.shape?;
        rows.into_iter()
            .all(|r| {
                let (allow, block) = (self.allow.get(r as usize), self.block.get(r as usize));
                allow.zip(block).is_some_and(|(allow, block)| {
                    u64::from(shape.open_squares(r)) == allow & !block
                })
            })
            .then_some(shape)
    }

    /// The free squares of row `row` under `masks`.
    #[inline]
    pub fn free(&self, row: u32, masks: Masks) -> u64 {
        let r = row as usize;
        self.allow[r] & !(masks.cols | masks.ld | masks.rd | self.block[r])
    }
}

/// A partial placement ready for the kernel: the next row to fill, its masks, and the rows' constraints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Start {
    /// Rows `0..row` hold queens.
    pub row: u32,
    /// The masks those queens leave for row `row`.
    pub masks: Masks,
    /// Constraints of the rows still to fill.
    pub frame: Frame,
}

/// Searches interleaved by [`count_stream`]; see there for why.
pub const LANES: usize = 16;

/// Stack slots per lane: row `r` lives at slot `r + 1` (slot `row` below a start marks it finished), and a
/// power of two lets `& (SLOTS - 1)` stand in for a bounds check.
const SLOTS: usize = 128;

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
        _ => unreachable!("only the vector loops list"),
    }
}

/// The loops that can run a search: the same search, the same counts, on different instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kernel {
    /// Plain 64-bit instructions, 16 searches interleaved; runs anywhere, on any board.
    Scalar,
    /// 8 searches in the 32-bit lanes of an AVX2 register; square boards up to [`VECTOR_MAX_N`].
    Avx2,
    /// 16 searches in the 32-bit lanes of an AVX-512 register; square boards up to [`VECTOR_MAX_N`].
    Avx512,
}

impl Kernel {
    /// Every loop, slowest first.
    pub const ALL: [Kernel; 3] = [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512];

    /// The loop's name, as `--kernel` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// Whether this processor can run the loop.
    pub fn available(self) -> bool {
        match self {
            Kernel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The fastest loop this processor can run.
    pub fn best() -> Kernel {
        Kernel::ALL
            .into_iter()
            .rev()
            .find(|k| k.available())
            .unwrap_or(Kernel::Scalar)
    }

    /// The loop counts use unless told otherwise: the one set by [`Kernel::prefer`], or else [`Kernel::best`].
    pub fn preferred() -> Kernel {
        match PREFERRED.load(Ordering::Relaxed) {
            1 => Kernel::Scalar,
            2 => Kernel::Avx2,
            3 => Kernel::Avx512,
            _ => Kernel::best(),
        }
    }

    /// Makes `kernel` the loop of every later count in this process (`None`: the best available). Refused,
    /// with nothing changed, when this processor cannot run it.
    pub fn prefer(kernel: Option<Kernel>) -> Result<(), Kernel> {
        let code = match kernel {
            None => 0,
            Some(k) if !k.available() => return Err(k),
            Some(Kernel::Scalar) => 1,
            Some(Kernel::Avx2) => 2,
            Some(Kernel::Avx512) => 3,
        };
        PREFERRED.store(code, Ordering::Relaxed);
        Ok(())
    }

    /// Whether the loop handles a board of `lines` lines of `width` squares itself (squares and rectangles);
    /// the vector loops hand boards wider than [`VECTOR_MAX_N`] to the scalar one.
    pub fn handles(self, width: u32, lines: u32) -> bool {
        self == Kernel::Scalar || (lines <= width && width <= VECTOR_MAX_N)
    }

    /// The loop that really runs a board of `lines` lines of `width` squares when this one is asked for.
    pub fn on(self, width: u32, lines: u32) -> Kernel {
        if self.handles(width, lines) {
            self
        } else {
            Kernel::Scalar
        }
    }
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Kernel {
    type Err = String;

    fn from_str(s: &str) -> Result<Kernel, String> {
        Kernel::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("unknown kernel `{s}` (scalar, avx2 or avx512)"))
    }
}

/// Whether the AVX-512 loops can count the nodes their look-ahead skips with a population count instruction
/// (AVX512-VPOPCNTDQ: Ice Lake, Sapphire Rapids, Zen 4 and later); without it (Skylake-X, Cascade Lake) they
/// count them with shifts and adds, which costs about 6% (n = 17, full, one thread, on a Zen 5).
#[cfg(target_arch = "x86_64")]
fn vpopcnt() -> bool {
    is_x86_feature_detected!("avx512vpopcntdq")
}

/// [`Kernel::preferred`]'s setting: 0 for the best available, else 1 + the kernel's place in [`Kernel::ALL`].
static PREFERRED: AtomicU8 = AtomicU8::new(0);

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

/// The scalar loop ([`Kernel::Scalar`]); `WIDE` when the last line may have several free squares.
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
fn stream<T, const WIDE: bool>(
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
            let next = stacks.allow[child][lane] & !(cols | ld | rd | stacks.block[child][lane]);
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
    /// The start's [`Frame`], row by row.
    allow: [[u64; LANES]; SLOTS],
    block: [[u64; LANES]; SLOTS],
}

impl Default for Stacks {
    fn default() -> Stacks {
        Stacks {
            avail: [[0; LANES]; SLOTS],
            cols: [[0; LANES]; SLOTS],
            ld: [[0; LANES]; SLOTS],
            rd: [[0; LANES]; SLOTS],
            allow: [[0; LANES]; SLOTS],
            block: [[0; LANES]; SLOTS],
        }
    }
}

/// A solution in [`count_stream`]'s packed counters: one solution and the node of its last queen.
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
                stacks.allow[r + 1][lane] = frame.allow[r];
                stacks.block[r + 1][lane] = frame.block[r];
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
