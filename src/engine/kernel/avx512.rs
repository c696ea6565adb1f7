//! The vector search ([`super::vector`]) with 16 lanes in each of two AVX-512 registers.
//!
//! One step of a lane is a chain of dependent instructions (a gather among them), so two independent groups
//! of 16 lanes take turns in the loop, and the processor overlaps their chains.

use super::vector::{Found, Memory, Spill, FOUND, LD_LOST, RD_LOST, SQUARES};
use std::arch::x86_64::*;

/// Lanes in one register.
const W: usize = 16;

/// Groups of lanes that take turns.
const G: usize = 2;

/// Lanes in all.
pub(super) const L: usize = G * W;

/// The registers of one group of 16 lanes.
#[derive(Clone, Copy)]
struct Group {
    avail: __m512i,
    cols: __m512i,
    ld: __m512i,
    rd: __m512i,
    slot: __m512i,
    floor: __m512i,
    closing: __m512i,
    nodes: __m512i,
    solutions: __m512i,
    /// The lanes' shapes ([`super::Shape`]).
    base: __m512i,
    bottom: __m512i,
    /// The side queens' attacks from row 0 ([`super::vector::Spill::left`]).
    left: __m512i,
    right: __m512i,
    /// The group's lanes that have a start.
    live: __mmask16,
    /// The group's lane numbers among the `L` lanes.
    lane_ids: __m512i,
}

/// Constants of the loop.
#[derive(Clone, Copy)]
struct Consts {
    row_stride: __m512i,
    one: __m512i,
    zero: __m512i,
    squares: __m512i,
    rd_lost: __m512i,
    ld_lost: __m512i,
    board: __m512i,
    /// The board one column over, the look-ahead's bits up to the highest less three, and 2, for the rows
    /// between the look-ahead's row and the bottom queen (see `step`).
    board_up: __m512i,
    high: __m512i,
    two: __m512i,
    /// The board's columns but the side ones, one column over: the bottom queen's diagonals may close them in
    /// the look-ahead's row, not a side row's queen.
    inner_up: __m512i,
    /// The shapes' last row, and their right-hand column as a bit.
    last: __m512i,
    side: __m512i,
    stack: *mut i32,
}

impl Consts {
    /// The constants, and the addresses of `memory`'s arrays.
    #[target_feature(enable = "avx512f,avx512cd")]
    fn new(memory: &mut Memory<L>) -> Consts {
        Consts {
            row_stride: _mm512_set1_epi32(L as i32),
            one: _mm512_set1_epi32(1),
            zero: _mm512_setzero_si512(),
            squares: _mm512_set1_epi32(SQUARES as i32),
            rd_lost: _mm512_set1_epi32(RD_LOST as i32),
            ld_lost: _mm512_set1_epi32(LD_LOST as i32),
            board: _mm512_set1_epi32(memory.board as i32),
            board_up: _mm512_set1_epi32((memory.board << 1) as i32),
            high: _mm512_set1_epi32(0x1fff_ffff),
            two: _mm512_set1_epi32(2),
            inner_up: _mm512_set1_epi32(((memory.board & !(1 | 1 << memory.last)) << 1) as i32),
            last: _mm512_set1_epi32(memory.last as i32),
            side: _mm512_set1_epi32((1u32 << memory.last) as i32),
            stack: memory.stack.as_mut_ptr().cast(),
        }
    }
}

/// Runs the lanes of `spill` set in `live` until one finishes or the counters need emptying; returns the
/// finished lanes. See [`super::vector::StepLoop`].
///
/// # Safety
/// The processor must support AVX-512F and AVX-512CD.
#[target_feature(enable = "avx512f,avx512cd")]
pub(super) unsafe fn steps(spill: &mut Spill<L>, memory: &mut Memory<L>, live: u64) -> u64 {
    // SAFETY: passed on.
    unsafe { count_loop::<false>(spill, memory, live) }
}

/// [`steps`] counting the nodes the look-ahead skips with the processor's population count.
///
/// # Safety
/// The processor must support AVX-512F, AVX-512CD and AVX512-VPOPCNTDQ.
#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
pub(super) unsafe fn steps_vpopcnt(spill: &mut Spill<L>, memory: &mut Memory<L>, live: u64) -> u64 {
    // SAFETY: passed on.
    unsafe { count_loop::<true>(spill, memory, live) }
}

/// The loop of [`steps`] and [`steps_vpopcnt`]: inlined into each, so that the step of the second is compiled
/// with its population count instruction. It computes the rows' open squares only when some lane's shape
/// closes squares.
///
/// # Safety
/// As [`steps_vpopcnt`] when `VPOPCNT`, else as [`steps`].
#[target_feature(enable = "avx512f,avx512cd")]
#[inline]
unsafe fn count_loop<const VPOPCNT: bool>(
    spill: &mut Spill<L>,
    memory: &mut Memory<L>,
    live: u64,
) -> u64 {
    // SAFETY: passed on.
    if spill.shaped(live) {
        unsafe { count_rows::<VPOPCNT, true>(spill, memory, live) }
    } else {
        unsafe { count_rows::<VPOPCNT, false>(spill, memory, live) }
    }
}

/// [`count_loop`], with the rows computed or not.
///
/// # Safety
/// As [`count_loop`].
#[target_feature(enable = "avx512f,avx512cd")]
#[inline]
unsafe fn count_rows<const VPOPCNT: bool, const SHAPED: bool>(
    spill: &mut Spill<L>,
    memory: &mut Memory<L>,
    live: u64,
) -> u64 {
    let c = Consts::new(memory);
    let mut groups: [Group; G] = std::array::from_fn(|g| load(spill, g * W, live));
    let mut count = 0u32;
    loop {
        let mut finished = 0u64;
        for (g, group) in groups.iter_mut().enumerate() {
            // SAFETY: the caller vouches for AVX-512F and AVX-512CD; the indices stay within `memory` (see `step`).
            finished |=
                u64::from(unsafe { step::<VPOPCNT, SHAPED>(group, &c) }.finished) << (g * W);
        }
        count += 1;
        if finished != 0 || count == spill.flush {
            for (g, group) in groups.iter().enumerate() {
                store(spill, g * W, group);
            }
            return finished;
        }
    }
}

/// [`steps`] that also hands every solution to `emit`, in the order found: the lane, and the queens of the
/// rows from the lane's start row to the last. See [`super::vector::ListLoop`].
///
/// Its loop is a copy of [`steps`]' with the solutions added, on purpose: one loop generic over listing, with the
/// solutions' branch compiled out for counting, counted n = 16 (full, one thread) 7% slower (0.51 s against
/// 0.47 s, alternated four times).
///
/// # Safety
/// The processor must support AVX-512F and AVX-512CD.
#[target_feature(enable = "avx512f,avx512cd")]
pub(super) unsafe fn list_steps(
    spill: &mut Spill<L>,
    memory: &mut Memory<L>,
    live: u64,
    emit: &mut dyn FnMut(usize, &[u8]),
) -> u64 {
    // SAFETY: passed on.
    unsafe { list_loop::<false>(spill, memory, live, emit) }
}

/// [`list_steps`] with the processor's population count, as [`steps_vpopcnt`].
///
/// # Safety
/// The processor must support AVX-512F, AVX-512CD and AVX512-VPOPCNTDQ.
#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
pub(super) unsafe fn list_steps_vpopcnt(
    spill: &mut Spill<L>,
    memory: &mut Memory<L>,
    live: u64,
    emit: &mut dyn FnMut(usize, &[u8]),
) -> u64 {
    // SAFETY: passed on.
    unsafe { list_loop::<true>(spill, memory, live, emit) }
}

/// The loop of [`list_steps`] and [`list_steps_vpopcnt`], as [`count_loop`].
///
/// # Safety
/// As [`list_steps_vpopcnt`] when `VPOPCNT`, else as [`list_steps`].
#[target_feature(enable = "avx512f,avx512cd")]
#[inline]
unsafe fn list_loop<const VPOPCNT: bool>(
    spill: &mut Spill<L>,
    memory: &mut Memory<L>,
    live: u64,
    emit: &mut dyn FnMut(usize, &[u8]),
) -> u64 {
    // SAFETY: passed on.
    if spill.shaped(live) {
        unsafe { list_rows::<VPOPCNT, true>(spill, memory, live, emit) }
    } else {
        unsafe { list_rows::<VPOPCNT, false>(spill, memory, live, emit) }
    }
}

/// [`list_loop`], with the rows computed or not.
///
/// # Safety
/// As [`list_loop`].
#[target_feature(enable = "avx512f,avx512cd")]
#[inline]
unsafe fn list_rows<const VPOPCNT: bool, const SHAPED: bool>(
    spill: &mut Spill<L>,
    memory: &mut Memory<L>,
    live: u64,
    emit: &mut dyn FnMut(usize, &[u8]),
) -> u64 {
    let c = Consts::new(memory);
    let mut groups: [Group; G] = std::array::from_fn(|g| load(spill, g * W, live));
    // Solutions are copied here as they are found (a lane's words change as it moves on) and handed to `emit`
    // a batch at a time.
    let mut found = Found::new();
    let mut count = 0u32;
    loop {
        let mut finished = 0u64;
        for (g, group) in groups.iter_mut().enumerate() {
            // SAFETY: as in `steps`.
            let stepped = unsafe { step::<VPOPCNT, SHAPED>(group, &c) };
            finished |= u64::from(stepped.finished) << (g * W);
            if stepped.solved != 0 {
                // SAFETY: the solved lanes' words lie between their floor and closing slots, in `memory`.
                unsafe { record(spill, &c, g * W, &stepped, &mut found) };
                if found.count > FOUND - W {
                    found.flush(emit);
                }
            }
        }
        count += 1;
        if finished != 0 || count == spill.flush {
            found.flush(emit);
            for (g, group) in groups.iter().enumerate() {
                store(spill, g * W, group);
            }
            return finished;
        }
    }
}

/// Copies the solutions of the lanes `first..first + W` that `stepped` completed off their stack words.
///
/// # Safety
/// AVX-512F and AVX-512CD, and the lanes' slots within the stack.
#[target_feature(enable = "avx512f,avx512cd")]
#[inline]
unsafe fn record(spill: &Spill<L>, c: &Consts, first: usize, stepped: &Stepped, found: &mut Found) {
    let mut next = [0u32; W];
    unsafe { _mm512_storeu_si512(next.as_mut_ptr().cast(), stepped.next) };
    let mut solved = stepped.solved;
    while solved != 0 {
        let i = solved.trailing_zeros() as usize;
        solved &= solved - 1;
        // SAFETY: the caller vouches for the lane's slots.
        unsafe { found.record::<L>(c.stack.cast_const(), spill, first + i, next[i]) };
    }
}

/// The registers of the lanes `first..first + W`.
#[target_feature(enable = "avx512f,avx512cd")]
fn load(spill: &Spill<L>, first: usize, live: u64) -> Group {
    let load = |a: &[u32; L]| unsafe { _mm512_loadu_si512(a[first..].as_ptr().cast()) };
    Group {
        avail: load(&spill.avail),
        cols: load(&spill.cols),
        ld: load(&spill.ld),
        rd: load(&spill.rd),
        slot: load(&spill.slot),
        floor: load(&spill.floor),
        closing: load(&spill.closing),
        nodes: load(&spill.nodes),
        solutions: load(&spill.solutions),
        base: load(&spill.base),
        bottom: load(&spill.bottom),
        left: load(&spill.left),
        right: load(&spill.right),
        live: (live >> first) as __mmask16,
        lane_ids: _mm512_add_epi32(
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            _mm512_set1_epi32(first as i32),
        ),
    }
}

/// Writes back the registers of the lanes `first..first + W`.
#[target_feature(enable = "avx512f,avx512cd")]
fn store(spill: &mut Spill<L>, first: usize, g: &Group) {
    let store = |a: &mut [u32; L], v: __m512i| unsafe {
        _mm512_storeu_si512(a[first..].as_mut_ptr().cast(), v)
    };
    store(&mut spill.avail, g.avail);
    store(&mut spill.cols, g.cols);
    store(&mut spill.ld, g.ld);
    store(&mut spill.rd, g.rd);
    store(&mut spill.slot, g.slot);
    store(&mut spill.nodes, g.nodes);
    store(&mut spill.solutions, g.solutions);
}

/// What one step of a group did.
struct Stepped {
    /// The group's lanes that finished their start.
    finished: u32,
    /// The group's lanes that completed a solution: the queen of the row before the last is the lowest bit of
    /// the word this step stored, and the last row's queen is the lane's `next`.
    solved: u16,
    /// Each lane's free squares of the row below the one it placed a queen in.
    next: __m512i,
}

/// The set bits of each lane (at most 32).
#[target_feature(enable = "avx512f,avx512cd")]
#[inline]
fn popcount(x: __m512i) -> __m512i {
    let x = _mm512_sub_epi32(
        x,
        _mm512_and_si512(_mm512_srli_epi32::<1>(x), _mm512_set1_epi32(0x5555_5555)),
    );
    let m2 = _mm512_set1_epi32(0x3333_3333);
    let x = _mm512_add_epi32(
        _mm512_and_si512(x, m2),
        _mm512_and_si512(_mm512_srli_epi32::<2>(x), m2),
    );
    let x = _mm512_and_si512(
        _mm512_add_epi32(x, _mm512_srli_epi32::<4>(x)),
        _mm512_set1_epi32(0x0f0f_0f0f),
    );
    let x = _mm512_add_epi32(x, _mm512_srli_epi32::<8>(x));
    _mm512_and_si512(
        _mm512_add_epi32(x, _mm512_srli_epi32::<16>(x)),
        _mm512_set1_epi32(0x3f),
    )
}

/// The open squares of row `row` of each lane by its shape ([`super::Shape::open_squares`]).
#[target_feature(enable = "avx512f,avx512cd")]
#[inline]
fn open_squares(g: &Group, c: &Consts, row: __m512i) -> __m512i {
    let up = _mm512_sub_epi32(c.last, row);
    // The side queens' squares seen from `row`: on their own rows, their own squares.
    let from_left = _mm512_srlv_epi32(g.left, row);
    let from_right = _mm512_sllv_epi32(g.right, row);
    // 0xFE: a | b | c.
    let attacked_below = _mm512_ternarylogic_epi32::<0xFE>(
        _mm512_sllv_epi32(g.bottom, up),
        _mm512_srlv_epi32(g.bottom, up),
        _mm512_or_si512(from_left, from_right),
    );
    let open = _mm512_andnot_si512(attacked_below, g.base);
    // A row that is both side rows holds the left one, as in the shape's own rule.
    let open = _mm512_mask_mov_epi32(open, _mm512_cmpeq_epi32_mask(from_right, c.side), c.side);
    _mm512_mask_mov_epi32(open, _mm512_cmpeq_epi32_mask(from_left, c.one), c.one)
}

/// One step of every lane of `g`.
///
/// # Safety
/// The processor must support AVX-512F and AVX-512CD. A live lane's slot lies between its floor and its closing slot, both
/// within the stack, so every index below is in bounds.
#[target_feature(enable = "avx512f,avx512cd")]
#[inline]
unsafe fn step<const VPOPCNT: bool, const SHAPED: bool>(g: &mut Group, c: &Consts) -> Stepped {
    // Where each lane's row sits in the `[slot][lane]` arrays.
    let index = _mm512_add_epi32(_mm512_mullo_epi32(g.slot, c.row_stride), g.lane_ids);
    let avail = g.avail;
    let has = _mm512_mask_test_epi32_mask(g.live, avail, avail);
    let bit = _mm512_and_si512(avail, _mm512_sub_epi32(c.zero, avail));
    let rest = _mm512_xor_si512(avail, bit);
    let ncols = _mm512_or_si512(g.cols, bit);
    let nld = _mm512_slli_epi32::<1>(_mm512_or_si512(g.ld, bit));
    let nrd = _mm512_srli_epi32::<1>(_mm512_or_si512(g.rd, bit));
    // The child row's open squares, by the lane's shape (the child's row is the row's slot), or the whole row
    // when no lane has a shape that closes squares.
    let child_open = if SHAPED {
        open_squares(g, c, g.slot)
    } else {
        c.board
    };
    // 0xFE: a | b | c.
    let attacked = _mm512_ternarylogic_epi32::<0xFE>(ncols, nld, nrd);
    let next = _mm512_andnot_si512(attacked, child_open);
    let placed = has & _mm512_test_epi32_mask(next, next);
    let closes = _mm512_cmpeq_epi32_mask(g.slot, g.closing);
    // Look-ahead: a child whose queen would leave the row after the child's no free square (of the board, less
    // the bottom queen's diagonals where a lane's shape has one: the rest of its frame may close more) leads
    // nowhere: it is a node all the same, counted unvisited. The row after the
    // child's is taken one column over (column j at bit j + 1), so that a child on column c keeps a square
    // there exactly when that row has one above bit c + 2 (c at most the highest less three: the bits up to
    // there are 0x1fffffff shifted right by the highest's leading zeros) or one below bit c (c above the
    // lowest: the bits not in `ahead ^ (ahead - 1)`). A closing lane keeps nothing: its child row's squares
    // are its solutions.
    let ahead = _mm512_andnot_si512(
        _mm512_ternarylogic_epi32::<0xFE>(
            _mm512_slli_epi32::<1>(ncols),
            _mm512_slli_epi32::<2>(nld),
            nrd,
        ),
        c.board_up,
    );
    // The bottom queen's diagonals there (`up` rows above it, less one: the child's row is the slot's): they
    // are a shift of its column each way, in the row one column over one place to the left. Never the side
    // columns, which a side row's queen holds whatever the diagonals (a border's queens attack no other).
    let ahead = if SHAPED {
        let up = _mm512_sub_epi32(c.last, g.slot);
        let below = _mm512_or_si512(
            _mm512_sllv_epi32(g.bottom, up),
            _mm512_srlv_epi32(g.bottom, _mm512_sub_epi32(up, c.two)),
        );
        // 0x70: a & !(b & c).
        _mm512_ternarylogic_epi32::<0x70>(ahead, below, c.inner_up)
    } else {
        ahead
    };
    let high = _mm512_srlv_epi32(c.high, _mm512_lzcnt_epi32(ahead));
    let low = _mm512_xor_si512(ahead, _mm512_sub_epi32(ahead, c.one));
    // 0xD0: a & (b | !c).
    let kept = _mm512_maskz_ternarylogic_epi32::<0xD0>(!closes, next, high, low);
    let descends = placed & _mm512_test_epi32_mask(kept, kept);
    // Every square of the child row is a node, visited or not (each start's row's squares are counted when it
    // is loaded): counted here, one population count that no test waits for. On a closing lane they are the
    // solutions (one at most on a square board; a rectangle's last line may have several).
    let free = if VPOPCNT {
        // SAFETY: the caller vouches for AVX512-VPOPCNTDQ when `VPOPCNT`.
        unsafe { _mm512_popcnt_epi32(next) }
    } else {
        popcount(next)
    };
    g.nodes = _mm512_mask_add_epi32(g.nodes, has, g.nodes, free);
    g.solutions = _mm512_mask_add_epi32(g.solutions, placed & closes, g.solutions, free);
    // The stack word: avail | (rd << 30 & RD_LOST) | (ld & LD_LOST); 0xEA: (a & b) | c.
    let word = _mm512_ternarylogic_epi32::<0xEA>(
        _mm512_slli_epi32::<30>(g.rd),
        c.rd_lost,
        _mm512_or_si512(avail, _mm512_and_si512(g.ld, c.ld_lost)),
    );
    unsafe { _mm512_i32scatter_epi32::<4>(c.stack, index, word) };
    // Back up when the row has nothing left to try (the square just taken was its last).
    let pops = g.live & !descends & _mm512_testn_epi32_mask(rest, rest);
    let parent_word = unsafe {
        _mm512_mask_i32gather_epi32::<4>(
            c.zero,
            pops,
            _mm512_sub_epi32(index, c.row_stride),
            c.stack.cast_const(),
        )
    };
    let parent_avail = _mm512_and_si512(parent_word, c.squares);
    let pbit = _mm512_and_si512(parent_avail, _mm512_sub_epi32(c.zero, parent_avail));
    let ld_up = _mm512_or_si512(
        _mm512_srli_epi32::<1>(g.ld),
        _mm512_and_si512(parent_word, c.ld_lost),
    );
    let rd_up = _mm512_or_si512(
        _mm512_slli_epi32::<1>(g.rd),
        _mm512_srli_epi32::<30>(_mm512_and_si512(parent_word, c.rd_lost)),
    );
    // Stay: the row's remaining squares. Descend: the child. Back up: the parent, undone.
    let avail = _mm512_mask_mov_epi32(rest, descends, kept);
    g.avail = _mm512_mask_mov_epi32(avail, pops, _mm512_xor_si512(parent_avail, pbit));
    let cols = _mm512_mask_mov_epi32(g.cols, descends, ncols);
    g.cols = _mm512_mask_andnot_epi32(cols, pops, pbit, cols);
    let ld = _mm512_mask_mov_epi32(g.ld, descends, nld);
    g.ld = _mm512_mask_andnot_epi32(ld, pops, pbit, ld_up);
    let rd = _mm512_mask_mov_epi32(g.rd, descends, nrd);
    g.rd = _mm512_mask_andnot_epi32(rd, pops, pbit, rd_up);
    let slot = _mm512_mask_add_epi32(g.slot, descends, g.slot, c.one);
    g.slot = _mm512_mask_sub_epi32(slot, pops, slot, c.one);
    Stepped {
        finished: u32::from(g.live & _mm512_cmpeq_epi32_mask(g.slot, g.floor)),
        solved: placed & closes,
        next,
    }
}
