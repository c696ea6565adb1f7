//! Tasks: the small searches the GPU counts, cut from a plan's units on the host.
//!
//! A plan's unit is sized for CPU threads; a GPU keeps a quarter of a million searches in flight and needs
//! tens of millions of them so that the last to finish are small against the run. So the host places a few
//! more rows of each unit in every admissible way ([`split`]), exactly as the kernel's search would, and each
//! placement becomes a [`Task`]. What the host decides on the way (queens placed, solutions closed in those
//! rows) goes into the unit's tally, so a unit's tally from the host and its tasks is the tally the CPU kernel
//! gives the unit, nodes included: journals record the same lines whichever backend counted.
//!
//! A unit's rows are given to the kernel as a [`Table`] of their open squares (the frame's `allow & !block`),
//! indexed by the number of free columns a row has: every row takes one column, so within a unit that number
//! names the row, and the kernel's stack need not (see `count.cu`). The row after the last is marked by
//! [`END`]. Any frame has a table, so every unit of a board at most [`MAX_SIDE`] wide goes to the GPU.

use crate::engine::kernel::{full_mask, Frame, Masks, Start, Tally};

/// Turns the kernel's search loop takes between two tests for a task's end (`NQ_UNROLL` in `count.cu`), but on
/// the boards of [`SIXTEEN_TURNS`]: with eight, the loop with its look-ahead takes 33.75 SASS instructions a
/// turn (20.9 a node without it); on an H200, four took 2.4% longer at n = 20 without the look-ahead (with the
/// stack's four words apart, the eleventh session's layout, the instructions fell from 26.0 with four turns to
/// 25.0 with eight; results/gpu.md).
pub const TURNS: u32 = 8;

/// The boards whose kernel takes sixteen turns between tests: 33.1 SASS instructions a turn rather than 33.75
/// with the look-ahead (the default since the twenty-second session), and on an H200 1.4% less time of kernels
/// at n = 21 (9.35 s twice against 9.46 and 9.50, with the look-ahead's shifts on the multiply pipe as it was
/// measured); without it 20.0 a node rather than 20.9 (and with the seventeenth session's turn 21.0 and 21.75,
/// as measured: 0.5% less time at n = 21, 9.787 s twice against 9.835 to 9.844 s four times). Until the
/// thirty-third session sixteen turns took two sentinels of eight squares (a level of stack more a thread, 16
/// bytes), and boards from 25 wide would have needed four of four (a block fewer at n = 25), so those took
/// eight turns; the one sentinel of the whole word ([`WORD_SENTINEL_SQUARES`]) takes sixteen turns on any
/// board, and boards 25 to 28 wide take them too (486 SASS instructions for sixteen turns on a square board
/// rather than 252 for eight: 21.5 a node rather than 22.3).
pub const SIXTEEN_TURNS: std::ops::RangeInclusive<u32> = 19..=MAX_SIDE;

/// The turns between tests the program builds the kernel with for boards `width` wide: sixteen on
/// [`SIXTEEN_TURNS`], else [`TURNS`].
pub fn turns_for(width: u32) -> u32 {
    if SIXTEEN_TURNS.contains(&width) {
        16
    } else {
        TURNS
    }
}

/// The fewest squares a sentinel of the kernel in the top bits of its words has (`NQ_SENTINEL_SQUARES`), on the
/// widest boards. The turns past a task's end are taken on sentinels below its first row; where their squares
/// are the words' top bits, a board may be at most `32 - squares` wide.
pub const WIDE_SENTINEL_SQUARES: u32 = 4;

/// The squares of the one sentinel the program builds the kernel with since the thirty-third session: the whole
/// word (`NQ_SENTINEL_SQUARES=32u`), for up to 31 turns after a task's end on any board the kernel takes. Its
/// squares below bit 28 are columns of the board too, which is harmless (`count.cu`: its turns push and count
/// nothing, given tasks of three rows or more, which [`split`] makes); the end's test looks for bit 31, which
/// every sentinel holds until it is popped. One level of stack a thread where sixteen turns took two.
pub const WORD_SENTINEL_SQUARES: u32 = 32;

/// The widest board whose table's words keep their top byte for the marks alone (`NQ_NARROW`): the look-ahead
/// then counts a pass's nodes and solutions in one word (`count.cu`, `NQ_PASS_PACKED`).
pub const NARROW_SIDE: u32 = 24;

/// The largest board side the GPU kernel takes: its masks are 32-bit words, whose top
/// [`WIDE_SENTINEL_SQUARES`] bits are no column, so that every build of the kernel takes it (its sentinels'
/// squares there, where they are the words' top bits; the end's test on bit 31; bits 30 and 31 of a table's
/// word for its marks).
pub const MAX_SIDE: u32 = 32 - WIDE_SENTINEL_SQUARES;

/// Bytes of a level of the kernel's stack, for each thread: two pairs of words (`count.cu`).
pub const LEVEL_BYTES: u32 = 16;

/// How the kernel's search loop is built for a board: the turns between two tests for a task's end, the
/// sentinels that the turns after its end take their squares from (`NQ_UNROLL` and `NQ_SENTINEL_SQUARES` in
/// `count.cu`, which sets the sentinels' number the same way as [`Turns::sentinels`]), whether the board is
/// narrow, and the stack's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turns {
    /// Turns between two tests for a task's end: 1, 2, 4, 8 or 16.
    pub between_tests: u32,
    /// Squares of each sentinel, the top bits of the masks: the program's is [`WORD_SENTINEL_SQUARES`], one
    /// sentinel of the whole word. (The kernel also takes sentinels of 1 to 16 squares, more of them where the
    /// turns need more squares, on boards at most `32 - squares` wide: the program's until the
    /// thirty-third session, and the tests'.)
    pub sentinel_squares: u32,
    /// The board is at most [`NARROW_SIDE`] wide (`NQ_NARROW`): the look-ahead counts a pass's nodes and
    /// solutions in one word.
    pub narrow: bool,
    /// The stack and the table sized without what the loop never reads (`NQ_LAST_UNPUSHED`): a level of
    /// stack for the last row, which the look-ahead's loop (the default) never pushes where the tasks' rows
    /// end with no free column (a square board's), and the rows of table after it. 24 bytes a thread fewer
    /// ([`Turns::shared_per_thread`]): at n = 20 a sixth block of 128 threads on an H100's or H200's
    /// multiprocessor. Only for the look-ahead on a square board (`gpu::turns`); the tasks must all have a
    /// [`Task::low`] of 0.
    pub unpushed_last: bool,
    /// The look-ahead's row taken with its frame (`NQ_AHEAD_FRAME`, a variant to measure): every turn reads
    /// the table's word for the row after the child's, so the table keeps the end's row, with
    /// [`Turns::unpushed_last`] too (4 bytes a thread more).
    pub ahead_frame: bool,
}

impl Turns {
    /// The program's choice for boards `width` wide: [`turns_for`] turns (sixteen for boards 19 to 28 wide,
    /// eight for narrower ones) on one sentinel of the whole word.
    pub fn for_width(width: u32) -> Turns {
        Turns::asked(turns_for(width), width)
    }

    /// `between_tests` turns (1, 2, 4, 8 or 16) on a board `width` wide (at most [`MAX_SIDE`]), on one sentinel
    /// of the whole word.
    pub fn asked(between_tests: u32, width: u32) -> Turns {
        Turns {
            between_tests,
            sentinel_squares: WORD_SENTINEL_SQUARES,
            narrow: width <= NARROW_SIDE,
            unpushed_last: false,
            ahead_frame: false,
        }
    }

    /// These turns with the stack and table sized without the last row or not ([`Turns::unpushed_last`]).
    pub fn with_unpushed_last(self, unpushed_last: bool) -> Turns {
        Turns {
            unpushed_last,
            ..self
        }
    }

    /// These turns with the look-ahead's row taken with its frame or not ([`Turns::ahead_frame`]).
    pub fn with_ahead_frame(self, ahead_frame: bool) -> Turns {
        Turns {
            ahead_frame,
            ..self
        }
    }

    /// Whether a loop built so takes boards `width` wide: the sentinels' squares above its columns, unless a
    /// sentinel is the whole word, and the board narrow if the loop was built for one.
    pub fn takes(self, width: u32) -> bool {
        let widest = if self.sentinel_squares >= WORD_SENTINEL_SQUARES {
            MAX_SIDE
        } else {
            32 - self.sentinel_squares
        };
        width <= widest && (!self.narrow || width <= NARROW_SIDE)
    }

    /// The sentinels below a task's first row: enough squares for the `between_tests - 1` turns a pass of
    /// the loop may take after the task's end.
    pub fn sentinels(self) -> u32 {
        (self.between_tests - 1) / self.sentinel_squares + 1
    }

    /// The levels of stack the kernel keeps for tasks of `levels` levels ([`Task::levels`]), above the
    /// sentinels': one for each row, or with [`Turns::unpushed_last`] one fewer (at least one). The kernel's
    /// `levels`.
    pub fn stack_levels(self, levels: u32) -> u32 {
        if self.unpushed_last {
            levels.saturating_sub(1).max(1)
        } else {
            levels
        }
    }

    /// The rows of table the kernel keeps for tasks of `levels` levels: one for each row after the first,
    /// the end's and the sentinels'; with [`Turns::unpushed_last`], those from the last row to the one after
    /// the first (at least one, read by the sentinels), and the end's too with [`Turns::ahead_frame`].
    pub fn table_rows(self, levels: u32) -> u32 {
        if self.unpushed_last && !self.ahead_frame {
            self.stack_levels(levels)
        } else {
            self.stack_levels(levels) + 1
        }
    }

    /// Bytes of shared memory a thread of the kernel needs for tasks of `levels` levels ([`Task::levels`]):
    /// the sentinels' and [`Turns::stack_levels`] levels of stack ([`LEVEL_BYTES`] each), and
    /// [`Turns::table_rows`] rows of table, 4 bytes each (`count.cu`'s layout).
    pub fn shared_per_thread(self, levels: u32) -> u32 {
        (self.stack_levels(levels) + self.sentinels()) * LEVEL_BYTES + self.table_rows(levels) * 4
    }

    /// The kernel's compile-time switches for these turns and this layout of the stack.
    pub fn defines(self) -> Vec<String> {
        let mut defines = vec![
            format!("-DNQ_UNROLL={}u", self.between_tests),
            format!("-DNQ_SENTINEL_SQUARES={}u", self.sentinel_squares),
        ];
        if self.narrow {
            defines.push("-DNQ_NARROW".into());
        }
        if self.unpushed_last {
            defines.push("-DNQ_LAST_UNPUSHED".into());
        }
        if self.ahead_frame {
            defines.push("-DNQ_AHEAD_FRAME".into());
        }
        defines
    }
}

/// The threads of a block for tasks of `levels` levels ([`Task::levels`]) with the loop built as `turns` says:
/// `wanted`, halved while a block of them would need more than `max_shared` bytes of shared memory (with `pad`
/// bytes more), down to 32 (a warp); `None` where even 32 would. The kernel takes a block's threads as a constant
/// (`NQ_THREADS`), so a launch of fewer needs a kernel compiled for them: a block of 128 threads with tasks of 28
/// rows needs 76 KB, more than a Turing GPU (`sm_75`) gives a block (64 KB).
pub fn block_threads(
    turns: Turns,
    wanted: u32,
    levels: u32,
    pad: u32,
    max_shared: u32,
) -> Option<u32> {
    let per_thread = turns.shared_per_thread(levels);
    let mut threads = wanted;
    while threads > 32 && threads * per_thread + pad > max_shared {
        threads /= 2;
    }
    (threads * per_thread + pad <= max_shared).then_some(threads)
}

/// The blocks of `threads` threads that an H100's or H200's multiprocessor holds for tasks of `levels` levels
/// with the loop built as `turns` says: 228 KiB of shared memory, 1 KiB of it kept for each block, at most 32
/// blocks and 2,048 threads. A model of what the driver answers (the program asks the driver), for the tests
/// and the examples that weigh a layout.
pub fn hopper_blocks(turns: Turns, threads: u32, levels: u32) -> u32 {
    let bytes = threads * turns.shared_per_thread(levels) + 1024;
    (228 * 1024 / bytes).min(32).min(2048 / threads.max(1))
}

/// The bytes to add to a block of `block` bytes of shared memory so that a multiprocessor with `per_multiprocessor`
/// bytes of it, `reserved` of them kept for each block, holds at most `most` blocks (at least 1): 0 where it holds
/// no more already. For measuring what the warps a multiprocessor holds are worth (`NQUEENS_GPU_MOST_BLOCKS`):
/// padding fixes the blocks on every multiprocessor, where a smaller grid would leave the driver free to put
/// them where it likes.
pub fn pad_for_most_blocks(block: u32, reserved: u32, per_multiprocessor: u32, most: u32) -> u32 {
    // The smallest block of which `most + 1` do not fit.
    let smallest = per_multiprocessor / (most.max(1) + 1) + 1;
    smallest.saturating_sub(block + reserved)
}

/// A launch's budget as the kernel takes it (`count.cu`'s `budget`: units of 2^16 cycles of the
/// multiprocessor's clock, at least one) for about `seconds` of a clock of `clock_khz` kilohertz.
pub fn launch_budget(seconds: f64, clock_khz: u32) -> u32 {
    let units = (seconds * f64::from(clock_khz) * 1e3 / 65536.0).ceil();
    units.clamp(1.0, f64::from(u32::MAX)) as u32
}

/// The mark of the row after the last in a [`Table`]; no square of a board.
pub const END: u32 = 1 << 31;

/// The mark of the last row in a [`Table`], beside its open squares; no square of a board. The kernel's
/// look-ahead (its default) counts that row's squares as solutions where it would take a turn for each; the
/// loop without it (`NQ_PLAIN`) uses [`END`].
pub const LAST: u32 = 1 << 30;

/// A unit's rows as the kernel reads them: `table[m]` is the open squares of the row that has `m` free
/// columns, with [`LAST`] for the last row, or [`END`] for the row after the last; the other words are 0.
pub type Table = [u32; 32];

/// One search for the GPU: a partial placement, its first row the next to fill. The layout is the kernel's
/// `Task` (`count.cu`), four 32-bit words: 16 bytes a task to write, keep and copy to the GPU, where they were
/// 32 with the first row's free squares, which the kernel takes from the unit's table instead ([`Task::avail`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Task {
    /// Columns no queen takes yet.
    pub fc: u32,
    /// Squares of the first row attacked along down-right diagonals.
    pub ld: u32,
    /// Squares of the first row attacked along down-left diagonals.
    pub rd: u32,
    /// The unit this task belongs to, numbered within its batch (its slot: the bits from [`LOW_BITS`] up),
    /// and the lowest index of the unit's table its rows use (the low [`LOW_BITS`]).
    pub unit: u32,
}

/// The bits of [`Task::unit`] that hold the lowest table index a task's rows use: a table has 32 rows.
pub const LOW_BITS: u32 = 5;

/// The most slots a batch may have: a task's slot takes the bits of [`Task::unit`] above [`LOW_BITS`].
pub const MAX_SLOTS: usize = 1 << (32 - LOW_BITS);

impl Task {
    /// The task for the first row of masks `fc`, `ld` and `rd`, of the unit in `slot` whose rows use its table
    /// from index `low` (below 32) on. `slot` is below [`MAX_SLOTS`].
    pub fn new(fc: u32, ld: u32, rd: u32, slot: u32, low: u32) -> Task {
        debug_assert!((slot as usize) < MAX_SLOTS && low < 32);
        Task {
            fc,
            ld,
            rd,
            unit: slot << LOW_BITS | low,
        }
    }

    /// The task's unit, numbered within its batch.
    pub fn slot(&self) -> u32 {
        self.unit >> LOW_BITS
    }

    /// The lowest index of its unit's table that its rows use.
    pub fn low(&self) -> u32 {
        self.unit & ((1 << LOW_BITS) - 1)
    }

    /// The free squares of its first row, by its unit's `table` (which has the row at its count of free
    /// columns): the kernel's first squares to take (none where all 32 columns are free, which no board has).
    pub fn avail(&self, table: &Table) -> u32 {
        let open = table
            .get(self.fc.count_ones() as usize)
            .copied()
            .unwrap_or(0);
        self.fc & !(self.ld | self.rd) & open
    }

    /// The levels of stack the kernel may need for this task: one for each row left.
    pub fn levels(&self) -> u32 {
        (self.fc.count_ones() - self.low()).max(1)
    }

    /// How large the task looks without counting it, for the order of a batch ([`size_guess`]), its first
    /// row's squares by its unit's `table`.
    pub fn size_guess(&self, table: &Table) -> usize {
        size_guess(self.levels(), self.avail(table))
    }
}

/// How large a task of `levels` levels ([`Task::levels`]) whose first row has the squares `avail` looks
/// without counting it, for the order of a batch: the larger the more rows it has left, then the more squares
/// its first row has. One of [`SIZE_GUESSES`] numbers, so that a batch is laid out by counting them rather
/// than sorted.
pub fn size_guess(levels: u32, avail: u32) -> usize {
    levels as usize * 33 + avail.count_ones() as usize
}

/// The size guesses a task can have ([`Task::size_guess`]): levels 0 to 32 (at least 1), squares on the first
/// row 0 to 32.
pub const SIZE_GUESSES: usize = 33 * 33;

/// The table of `start`'s rows for a board `width` wide, if the kernel can take it: a board at most
/// [`MAX_SIDE`] wide whose masks fit 32-bit words, with a row left to search.
pub fn table_of(start: &Start, width: u32) -> Option<Table> {
    let frame = &start.frame;
    let full = full_mask(width.min(MAX_SIDE));
    if width > MAX_SIDE || start.row >= frame.end || start.masks.rd > full {
        return None;
    }
    let high = free_columns(start.masks, width).count_ones();
    let mut table = [0; 32];
    for row in start.row..=frame.end {
        // Rows past the columns left cannot be reached with a square to place.
        let Some(m) = high.checked_sub(row - start.row) else {
            break;
        };
        table[m as usize] = if row == frame.end {
            END
        } else {
            let (allow, block) = (frame.allow[row as usize], frame.block[row as usize]);
            if allow & !full != 0 {
                return None;
            }
            let last = if row + 1 == frame.end { LAST } else { 0 };
            (allow & !block) as u32 | last
        };
    }
    Some(table)
}

/// The board's columns no queen of `masks` takes.
fn free_columns(masks: Masks, width: u32) -> u32 {
    (full_mask(width) & !masks.cols) as u32
}

/// Cuts `start` into tasks by placing up to `depth` more rows, giving each task to `emit` with `slot` (below
/// [`MAX_SLOTS`]), and its size guess ([`Task::size_guess`]); returns what the host decided itself: the queens
/// it placed and the solutions those closed.
///
/// `table` must be the start's ([`table_of`]), for a board `width` wide.
pub fn split(
    start: &Start,
    table: &Table,
    width: u32,
    depth: u32,
    slot: u32,
    emit: &mut impl FnMut(Task, usize),
) -> Tally {
    debug_assert!(start.row < start.frame.end);
    debug_assert_eq!(table_of(start, width).as_ref(), Some(table));
    let mut tally = Tally::default();
    let free = start.frame.free(start.row, start.masks);
    Place::new(start, width, depth, slot, &mut tally, emit).descend(
        start.row,
        start.masks,
        free,
        depth,
    );
    tally
}

/// Where [`split`]'s search of a start stands some rows below it: the row to fill next, its masks and its
/// free squares. A unit too large for a batch is counted in parts, each the tasks below a run of its branches
/// ([`branches`], [`split_below`]), which may go to different batches and GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Branch {
    /// The row to fill next.
    pub row: u32,
    /// Its masks.
    pub masks: Masks,
    /// Its free squares (never none).
    pub free: u64,
}

/// The branches of `start`'s search `rows` rows below it (at least 1), in the order [`split`] reaches them,
/// and what the host decides above them: the queens placed on those rows and the solutions they close. With
/// [`split_below`] over all of them, in runs, that is [`split`]'s tally and its tasks, in its order, for any
/// `depth` above `rows`.
pub fn branches(start: &Start, rows: u32) -> (Vec<Branch>, Tally) {
    /// [`Place::descend`]'s search, down to the branches.
    fn go(
        frame: &Frame,
        row: u32,
        masks: Masks,
        mut free: u64,
        rows: u32,
        found: &mut (Vec<Branch>, Tally),
    ) {
        if row + 1 == frame.end {
            let queens = u64::from(free.count_ones());
            found.1.nodes += queens;
            found.1.solutions += queens;
            return;
        }
        if rows == 0 {
            found.0.push(Branch { row, masks, free });
            return;
        }
        let next_row = row as usize + 1;
        let (allow, block) = (frame.allow[next_row], frame.block[next_row]);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            found.1.nodes += 1;
            let child = masks.place(bit);
            let next = allow & !(child.cols | child.ld | child.rd | block);
            if next != 0 {
                go(frame, row + 1, child, next, rows - 1, found);
            }
        }
    }
    let mut found = (Vec::new(), Tally::default());
    let frame = &start.frame;
    if start.row < frame.end {
        let free = frame.free(start.row, start.masks);
        go(frame, start.row, start.masks, free, rows.max(1), &mut found);
    }
    found
}

/// [`split`] of `start` below `branches` alone (its own, `rows` rows below it, as [`branches`] gives them):
/// their tasks `depth` rows below the start (`depth` more than `rows`), in [`split`]'s order, to `emit`; returns
/// what the host decides below the branches.
#[allow(clippy::too_many_arguments)]
pub fn split_below(
    start: &Start,
    table: &Table,
    width: u32,
    depth: u32,
    branches: &[Branch],
    rows: u32,
    slot: u32,
    emit: &mut impl FnMut(Task, usize),
) -> Tally {
    debug_assert!(depth > rows && start.row < start.frame.end);
    debug_assert_eq!(table_of(start, width).as_ref(), Some(table));
    let mut tally = Tally::default();
    let mut place = Place::new(start, width, depth, slot, &mut tally, emit);
    for b in branches {
        debug_assert_eq!(b.row, start.row + rows);
        place.descend(b.row, b.masks, b.free, depth - rows);
    }
    tally
}

/// The search of [`split`]. (Generic over `emit`, rather than taking it as a `dyn`: the host's cut of n = 19
/// on one thread took 1.08 s rather than 1.29 s once the call was inlined.)
struct Place<'a, E> {
    frame: &'a Frame,
    /// The board's columns.
    full: u64,
    slot: u32,
    low: u32,
    /// The levels of each task ([`Task::levels`]): every task has the same rows left, `depth` below the start.
    levels: u32,
    tally: &'a mut Tally,
    emit: &'a mut E,
}

impl<'a, E: FnMut(Task, usize)> Place<'a, E> {
    /// The search that cuts `start` of a board `width` wide into tasks `depth` rows below it, in `slot`, its
    /// tally into `tally` and its tasks to `emit`.
    fn new(
        start: &'a Start,
        width: u32,
        depth: u32,
        slot: u32,
        tally: &'a mut Tally,
        emit: &'a mut E,
    ) -> Self {
        let high = free_columns(start.masks, width).count_ones();
        let low = high.saturating_sub(start.frame.end - start.row);
        Place {
            frame: &start.frame,
            full: full_mask(width),
            slot,
            low,
            levels: high.saturating_sub(depth + low).max(1),
            tally,
            emit,
        }
    }

    /// Places rows from `row`, whose free squares are `free`, down to `depth` rows below it.
    fn descend(&mut self, row: u32, masks: Masks, mut free: u64, depth: u32) {
        // As the kernel and the CPU kernel: every queen placed is a node, and a queen on the last row
        // completes a solution. A task of the last row alone would be its squares' count, and one of the last
        // two rows little more: the host's, so that every task has three rows or more. The kernel built without
        // a level of stack for the last row (`NQ_LAST_UNPUSHED`) has no row of table for its turns there; with
        // the look-ahead's row taken with its frame too (`NQ_AHEAD_FRAME`), a turn on the row before the last
        // counts one solution without a population count, which holds only for a square it pushed itself (a
        // task's first row is not looked ahead of).
        if row + 1 == self.frame.end {
            let queens = u64::from(free.count_ones());
            self.tally.nodes += queens;
            self.tally.solutions += queens;
            return;
        }
        if depth == 0 && row + 2 < self.frame.end {
            // A task with no square to place would have the kernel take a square that is not there.
            if free == 0 {
                return;
            }
            let task = Task::new(
                (self.full & !masks.cols) as u32,
                masks.ld as u32,
                masks.rd as u32,
                self.slot,
                self.low,
            );
            debug_assert_eq!(task.levels(), self.levels);
            (self.emit)(task, size_guess(self.levels, free as u32));
            return;
        }
        // The next row's constraints, the same for every square of this one.
        let next_row = row as usize + 1;
        let (allow, block) = (self.frame.allow[next_row], self.frame.block[next_row]);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            self.tally.nodes += 1;
            let child = masks.place(bit);
            let next = allow & !(child.cols | child.ld | child.rd | block);
            if next != 0 {
                // (At depth 0 on the row before the last: the host's, as above.)
                self.descend(row + 1, child, next, depth.saturating_sub(1));
            }
        }
    }
}

/// The number of tasks [`split`] makes of `start` at `depth`, found without keeping them.
pub fn tasks_at(start: &Start, table: &Table, width: u32, depth: u32) -> usize {
    let mut tasks = 0;
    split(start, table, width, depth, 0, &mut |_, _| tasks += 1);
    tasks
}

/// The nodes of the search below `start` (every queen placed, as the kernels count them), or `None` once they
/// pass `budget`: a cheap look at how large a unit is, which stops early on a large one.
pub fn nodes_below(start: &Start, budget: u64) -> Option<u64> {
    fn go(frame: &Frame, row: u32, masks: Masks, left: &mut u64) -> bool {
        let mut free = frame.free(row, masks);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let Some(rest) = left.checked_sub(1) else {
                return false;
            };
            *left = rest;
            if row + 1 < frame.end && !go(frame, row + 1, masks.place(bit), left) {
                return false;
            }
        }
        true
    }
    let mut left = budget;
    if start.row >= start.frame.end {
        return Some(0);
    }
    go(&start.frame, start.row, start.masks, &mut left).then_some(budget - left)
}

/// Counts a task on the host, as the kernel does, in plain code: what the GPU must give for it. Used by the
/// tests and the examples that model the GPU's batches, which count every task of a run (iterative, with a
/// stack of the rows that have squares left: `examples/gpu_blocks 17` took 17.9 s on the 2-core development
/// machine, 22.5 s with a recursion); the kernel's own source is tested against the CPU kernel separately.
pub fn count_task(task: &Task, table: &Table) -> Tally {
    let mut tally = Tally::default();
    // A row's squares left and its masks (free columns, diagonals), for the rows above the current one that
    // have squares left: at most one a row, and a board has at most 32.
    let mut stack = [(0u32, 0u32, 0u32, 0u32); 32];
    let mut depth = 0;
    let (mut avail, mut fc, mut ld, mut rd) = (task.avail(table), task.fc, task.ld, task.rd);
    loop {
        if avail == 0 {
            if depth == 0 {
                return tally;
            }
            depth -= 1;
            (avail, fc, ld, rd) = stack[depth];
            continue;
        }
        let bit = avail & avail.wrapping_neg();
        avail ^= bit;
        tally.nodes += 1;
        let child = (fc ^ bit, (ld | bit) << 1, (rd | bit) >> 1);
        let open = table[child.0.count_ones() as usize];
        tally.solutions += u64::from(open >> 31);
        let free = child.0 & !(child.1 | child.2) & open;
        if free != 0 {
            if avail != 0 {
                stack[depth] = (avail, fc, ld, rd);
                depth += 1;
            }
            (avail, fc, ld, rd) = (free, child.0, child.1, child.2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_budget_is_the_clock_cycles_of_its_seconds_in_units_of_65536() {
        // Half a second of a 1.98 GHz clock (an H100's): 0.99e9 cycles.
        assert_eq!(launch_budget(0.5, 1_980_000), 15_107);
        assert!(u64::from(launch_budget(0.5, 1_980_000)) << 16 >= 990_000_000);
        // Never 0 (no bound), however short; never past the word.
        assert_eq!(launch_budget(1e-9, 1_000_000), 1);
        assert_eq!(launch_budget(1e12, 2_000_000), u32::MAX);
    }

    #[test]
    fn padding_leaves_a_multiprocessor_the_most_blocks_asked_for() {
        // An H100's or H200's multiprocessor: 228 KiB of shared memory, 1 KiB kept for each block.
        let (per_multiprocessor, reserved) = (228 * 1024, 1024);
        let fit = |block: u32| per_multiprocessor / (block + reserved);
        // n = 20 and 21 with sixteen turns: 14 and 15 levels, blocks of 128 threads.
        for levels in [14, 15] {
            let block = 128 * Turns::for_width(21).shared_per_thread(levels);
            assert_eq!(fit(block), 5);
            for most in 1..=5 {
                let pad = pad_for_most_blocks(block, reserved, per_multiprocessor, most);
                assert_eq!(fit(block + pad), most, "{levels} levels, at most {most}");
                // The least padding that does it: a byte less, one more block fits.
                if pad > 0 {
                    assert_eq!(fit(block + pad - 1), most + 1);
                }
            }
            // More than fit already: nothing to add.
            assert_eq!(
                pad_for_most_blocks(block, reserved, per_multiprocessor, 6),
                0
            );
        }
        // At least one block.
        assert_eq!(
            fit(1024 + pad_for_most_blocks(1024, reserved, per_multiprocessor, 0)),
            1
        );
    }

    #[test]
    fn a_block_has_the_threads_asked_for_where_they_fit_and_fewer_where_they_do_not() {
        let wide = Turns::for_width(MAX_SIDE);
        // 580 bytes a thread with tasks of 28 rows: 128 threads fit an H100's 227 KB and an RTX's 99 KB, not a
        // Turing GPU's 64 KB, where 64 do.
        assert_eq!(wide.shared_per_thread(28), 580);
        assert_eq!(block_threads(wide, 128, 28, 0, 227 * 1024), Some(128));
        assert_eq!(block_threads(wide, 128, 28, 0, 99 * 1024), Some(128));
        assert_eq!(block_threads(wide, 128, 28, 0, 64 * 1024), Some(64));
        // Tasks of 16 rows fit 128 threads in the 48 KB every GPU gives a block.
        assert_eq!(
            block_threads(Turns::for_width(19), 128, 16, 0, 48 * 1024),
            Some(128)
        );
        // 1,024 threads asked for (NQUEENS_GPU_THREADS) are halved to what fits; the pad counts once a block.
        assert_eq!(block_threads(wide, 1024, 28, 0, 227 * 1024), Some(256));
        assert_eq!(
            block_threads(wide, 256, 28, 40 * 1024, 227 * 1024),
            Some(256)
        );
        assert_eq!(
            block_threads(wide, 256, 28, 90 * 1024, 227 * 1024),
            Some(128)
        );
        // Never fewer than a warp: a block of 32 that does not fit is refused.
        assert_eq!(block_threads(wide, 128, 28, 0, 18 * 1024), None);
        assert_eq!(block_threads(wide, 32, 28, 0, 32 * 580), Some(32));
    }
    use crate::engine::board::Board;
    use crate::engine::kernel::{self, Kernel};
    use crate::engine::plan::{Plan, Split};
    use crate::engine::symmetry::Symmetry;

    /// The plans' units, cut at `depth`: the host's tally plus every task's equals the CPU kernel's tally.
    fn check_plan(board: Board, symmetry: Symmetry, depth: u32) {
        let plan = Plan::new(board, symmetry, Split::Auto { threads: 1 });
        let width = board.width();
        for unit in plan.units() {
            let Some(start) = plan.start(unit) else {
                continue;
            };
            let expected = kernel::count_start_with(Kernel::Scalar, width, start.clone());
            if start.row >= start.frame.end {
                continue;
            }
            let table = table_of(&start, width).unwrap_or_else(|| {
                panic!("{board} {symmetry:?}: unit {} has no table", unit.index)
            });
            let mut tasks = Vec::new();
            let mut got = split(&start, &table, width, depth, 7, &mut |t, guess| {
                assert_eq!(guess, t.size_guess(&table));
                tasks.push(t)
            });
            for task in &tasks {
                assert_eq!(task.slot(), 7);
                let avail = task.avail(&table);
                assert!(avail != 0 && avail & !task.fc == 0);
                got += count_task(task, &table);
            }
            assert_eq!(got, expected, "{board} {symmetry:?} unit {}", unit.index);
        }
    }

    #[test]
    fn tasks_add_up_to_the_cpu_kernel_in_every_mode() {
        for n in 1..=11 {
            for symmetry in [Symmetry::Full, Symmetry::Mirror, Symmetry::None] {
                for depth in [0, 1, 3] {
                    check_plan(Board::new(n).unwrap(), symmetry, depth);
                }
            }
        }
    }

    #[test]
    fn a_square_boards_tasks_end_with_no_free_column_and_a_rectangles_with_some() {
        // What the kernel's stack without a level for the last row rests on (`Turns::unpushed_last`): a
        // square board's every task, in every mode, ends at the row with no free column, and has three rows or
        // more (`NQ_AHEAD_FRAME`'s count of solutions rests on that too); a rectangle's end with free columns
        // left.
        for n in 1..=13 {
            for symmetry in [Symmetry::Full, Symmetry::Mirror, Symmetry::None] {
                let board = Board::new(n).unwrap();
                let plan = Plan::new(board, symmetry, Split::Auto { threads: 1 });
                for unit in plan.units() {
                    let Some(start) = plan.start(unit).filter(|s| s.row < s.frame.end) else {
                        continue;
                    };
                    let table = table_of(&start, n).unwrap();
                    for depth in [0, 2] {
                        split(&start, &table, n, depth, 0, &mut |t, _| {
                            assert_eq!(t.low(), 0, "n = {n} {symmetry:?} unit {}", unit.index);
                            // The last two rows alone are the host's to count.
                            assert!(t.levels() >= 3, "n = {n} {symmetry:?} unit {}", unit.index);
                        });
                    }
                }
            }
        }
        let board = Board::rect(9, 6).unwrap();
        let plan = Plan::new(board, Symmetry::Mirror, Split::Auto { threads: 1 });
        let mut lows = Vec::new();
        for unit in plan.units() {
            let Some(start) = plan.start(unit).filter(|s| s.row < s.frame.end) else {
                continue;
            };
            let table = table_of(&start, board.width()).unwrap();
            split(&start, &table, board.width(), 0, 0, &mut |t, _| {
                lows.push(t.low())
            });
        }
        assert!(
            !lows.is_empty() && lows.iter().all(|&low| low == 3),
            "{lows:?}"
        );
    }

    #[test]
    fn a_unit_in_parts_below_its_branches_is_the_unit_cut_whole() {
        // Every unit of square boards in every mode and of a rectangle, branched 1 to 3 rows below its start
        // and cut deeper: the runs of its branches, in order, give split's tasks in its order, and the tally
        // above the branches and each run's below add up to split's.
        let boards = [
            (Board::new(10).unwrap(), Symmetry::Full),
            (Board::new(11).unwrap(), Symmetry::Mirror),
            (Board::new(9).unwrap(), Symmetry::None),
            (Board::new(13).unwrap(), Symmetry::Full),
            (Board::rect(9, 7).unwrap(), Symmetry::Mirror),
        ];
        let mut parted = 0;
        for (board, symmetry) in boards {
            let plan = Plan::new(board, symmetry, Split::Depth(2));
            let width = board.width();
            for unit in plan.units() {
                let Some(start) = plan.start(unit).filter(|s| s.row < s.frame.end) else {
                    continue;
                };
                let table = table_of(&start, width).unwrap();
                for (rows, depth) in [(1, 2), (1, 4), (2, 3), (3, 5)] {
                    let mut whole = Vec::new();
                    let expected = split(&start, &table, width, depth, 3, &mut |t, g| {
                        whole.push((t, g))
                    });
                    let (branches, above) = branches(&start, rows);
                    assert!(branches
                        .iter()
                        .all(|b| b.free != 0 && b.row == start.row + rows));
                    // In runs of three branches, and of one.
                    for run in [3, 1] {
                        let mut tasks = Vec::new();
                        let mut tally = above;
                        for part in branches.chunks(run) {
                            tally += split_below(
                                &start,
                                &table,
                                width,
                                depth,
                                part,
                                rows,
                                3,
                                &mut |t, g| tasks.push((t, g)),
                            );
                        }
                        assert_eq!(tasks, whole, "{board} {symmetry:?} unit {}", unit.index);
                        assert_eq!(tally, expected, "{board} {symmetry:?} unit {}", unit.index);
                    }
                    parted += usize::from(branches.len() > 3 && !whole.is_empty());
                }
            }
        }
        assert!(parted > 100, "{parted}");
    }

    #[test]
    fn tasks_add_up_on_rectangles() {
        for (r, c) in [(5, 3), (7, 4), (8, 6), (9, 9)] {
            let board = Board::rect(r, c).unwrap();
            for depth in [0, 2] {
                check_plan(board, Symmetry::Mirror, depth);
            }
        }
    }

    #[test]
    fn every_unit_up_to_the_widest_side_has_a_table_and_wider_has_none() {
        for n in [12u32, 17, 21, 27, MAX_SIDE, MAX_SIDE + 1, 32] {
            let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, Split::Depth(1));
            for unit in plan.units().iter().take(2000) {
                if let Some(start) = plan.start(unit) {
                    assert_eq!(
                        table_of(&start, n).is_some(),
                        n <= MAX_SIDE,
                        "n = {n} unit {}",
                        unit.index
                    );
                }
            }
        }
    }

    #[test]
    fn nodes_below_a_start_are_the_kernels_nodes_or_none_past_the_budget() {
        for (n, symmetry) in [
            (9, Symmetry::Full),
            (10, Symmetry::Mirror),
            (11, Symmetry::Full),
        ] {
            let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::Depth(1));
            for unit in plan.units() {
                let Some(start) = plan.start(unit) else {
                    continue;
                };
                let nodes = kernel::count_start_with(Kernel::Scalar, n, start.clone()).nodes;
                assert_eq!(
                    nodes_below(&start, nodes),
                    Some(nodes),
                    "n = {n} unit {}",
                    unit.index
                );
                if nodes > 0 {
                    assert_eq!(nodes_below(&start, nodes - 1), None);
                }
            }
        }
    }

    #[test]
    fn a_task_is_the_kernels_four_words_its_slot_and_low_index_in_one() {
        assert_eq!(std::mem::size_of::<Task>(), 16);
        assert_eq!(std::mem::align_of::<Task>(), 4);
        for (slot, low) in [(0, 0), (1, 31), (MAX_SLOTS as u32 - 1, 17), (12345, 3)] {
            let task = Task::new(0b1011, 2, 4, slot, low);
            assert_eq!((task.slot(), task.low(), task.fc), (slot, low, 0b1011));
        }
    }

    #[test]
    fn the_table_names_each_row_by_its_free_columns() {
        let plan = Plan::new(Board::new(9).unwrap(), Symmetry::Full, Split::Depth(0));
        let start = plan.start(&plan.units()[0]).unwrap();
        let table = table_of(&start, 9).unwrap();
        let high = free_columns(start.masks, 9).count_ones();
        let rows = start.frame.end - start.row;
        // One entry a row from the start's on, the last one the end's mark; nothing else.
        // The last row's carries the last row's mark beside its squares, and no other does.
        assert_eq!(table[(high - rows) as usize], END);
        assert_eq!(table.iter().filter(|&&w| w == END).count(), 1);
        for m in high - rows + 1..=high {
            assert_eq!(table[m as usize] & END, 0);
        }
        let last = table[(high - rows + 1) as usize];
        assert_eq!(last & LAST, LAST);
        assert_ne!(last & !LAST, 0, "the last row has open squares");
        assert_eq!(table.iter().filter(|&&w| w & LAST != 0).count(), 1);
        assert!(table[high as usize + 1..].iter().all(|&w| w == 0));
        // The start's own row is there, for the first squares of a task cut no row below it.
        let (fc, masks) = (free_columns(start.masks, 9), start.masks);
        let task = Task::new(fc, masks.ld as u32, masks.rd as u32, 0, high - rows);
        assert_ne!(task.avail(&table), 0);
        assert_eq!(
            u64::from(task.avail(&table)),
            start.frame.free(start.row, masks)
        );
    }

    #[test]
    fn the_turns_between_tests_leave_room_for_the_sentinels_on_every_board() {
        for width in 1..=MAX_SIDE {
            let chosen = Turns::for_width(width);
            assert_eq!(
                chosen.between_tests,
                if (19..=MAX_SIDE).contains(&width) {
                    16
                } else {
                    8
                }
            );
            for between in [1, 2, 4, 8, 16] {
                let turns = Turns::asked(between, width);
                // One sentinel of the whole word, enough squares for the turns after a task's end; its bit 31,
                // which the end's test looks for, is no column of the board.
                assert_eq!(turns.sentinel_squares, WORD_SENTINEL_SQUARES);
                assert_eq!(turns.sentinels(), 1);
                assert!(turns.sentinel_squares > between - 1);
                assert_eq!(full_mask(width) & (1 << 31), 0);
                assert!(turns.takes(width), "{turns:?}");
                assert_eq!(turns.narrow, width <= NARROW_SIDE);
            }
        }
        // A build for narrow boards packs its counts in the table's top byte: it takes no wider board.
        assert!(!Turns::for_width(NARROW_SIDE).takes(NARROW_SIDE + 1));
        assert!(Turns::for_width(NARROW_SIDE + 1).takes(NARROW_SIDE));
        // Sentinels in the words' top bits take boards below them (the kernel's other builds, the tests').
        let top = |squares| Turns {
            sentinel_squares: squares,
            narrow: false,
            ..Turns::asked(16, 12)
        };
        assert!(top(4).takes(MAX_SIDE) && !top(8).takes(25) && top(8).takes(24));
        assert_eq!((top(8).sentinels(), top(4).sentinels()), (2, 4));
        // Sixteen turns cost no shared memory more than eight (one sentinel either way), and the one sentinel
        // of the whole word saves a level a thread where sixteen turns took two of eight squares (boards 19 to
        // 24) and eight took two of four (25 to 28): at n = 21's 15 levels (`examples/gpu_levels`), with the
        // stack without the last row, a sixth block of 128 threads on an H100's or H200's multiprocessor (228
        // KB of shared memory, 1 KB of it kept for each block).
        let blocks = |turns: Turns, levels: u32| hopper_blocks(turns, 128, levels);
        for width in [12, 18, 21, 25, MAX_SIDE] {
            for levels in 4..=crate::gpu::MAX_TASK_ROWS {
                assert_eq!(
                    blocks(Turns::asked(16, width), levels),
                    blocks(Turns::asked(8, width), levels),
                    "n = {width}, {levels} levels"
                );
            }
        }
        let square = |turns: Turns| turns.with_unpushed_last(true);
        assert_eq!(blocks(square(Turns::for_width(21)), 15), 6);
        assert_eq!(blocks(square(top(8)), 15), 5);
        assert!(blocks(Turns::for_width(25), 16) >= blocks(top(4), 16));
        assert_eq!(
            Turns::for_width(26).defines(),
            ["-DNQ_UNROLL=16u", "-DNQ_SENTINEL_SQUARES=32u"]
        );
        assert_eq!(
            Turns::for_width(21).defines(),
            [
                "-DNQ_UNROLL=16u",
                "-DNQ_SENTINEL_SQUARES=32u",
                "-DNQ_NARROW"
            ]
        );
    }
}
