//! The vector search ([`super::vector`]) with 8 lanes in each of three AVX2 registers.
//!
//! AVX2 has gathers but no scatter, so the stack words go out with plain stores; and no mask registers, so a
//! condition is a lane of all ones. As with AVX-512, independent groups of lanes take turns so that the
//! processor overlaps their chains of dependent instructions.

use super::vector::{Found, Memory, Spill, FOUND, LD_LOST, RD_LOST, SQUARES};
use std::arch::x86_64::*;

/// Lanes in one register.
const W: usize = 8;

/// Groups of lanes that take turns: n = 16, full, one thread took 1.01 to 1.07 s with two, 0.94 to 0.95 s with
/// three and 0.93 to 0.95 s with four.
const G: usize = 3;

/// Lanes in all.
pub(super) const L: usize = G * W;

/// The registers of one group of lanes.
#[derive(Clone, Copy)]
struct Group {
    avail: __m256i,
    cols: __m256i,
    ld: __m256i,
    rd: __m256i,
    slot: __m256i,
    floor: __m256i,
    closing: __m256i,
    nodes: __m256i,
    solutions: __m256i,
    /// The lanes' shapes ([`super::Shape`]).
    base: __m256i,
    bottom: __m256i,
    /// The side queens' attacks from row 0 ([`super::vector::Spill::left`]).
    left: __m256i,
    right: __m256i,
    /// All ones in the lanes that have a start.
    live: __m256i,
    /// The group's lane numbers among the `L` lanes.
    lane_ids: __m256i,
}

/// Constants of the loop.
#[derive(Clone, Copy)]
struct Consts {
    row_stride: __m256i,
    zero: __m256i,
    squares: __m256i,
    rd_lost: __m256i,
    ld_lost: __m256i,
    board: __m256i,
    /// The board one column over, the look-ahead's bits up to the highest less three, the exponent of 2^31 as
    /// a float, and 2, for the rows between the look-ahead's row and the bottom queen (see `step`).
    board_up: __m256i,
    high: __m256i,
    exponent_top: __m256i,
    two: __m256i,
    /// The board's columns but the side ones, one column over (as in the AVX-512 loop).
    inner_up: __m256i,
    /// The shapes' last row, and their right-hand column as a bit.
    last: __m256i,
    side: __m256i,
    one: __m256i,
    stack: *mut i32,
}

impl Consts {
    /// The constants, and the addresses of `memory`'s arrays.
    #[target_feature(enable = "avx2")]
    fn new(memory: &mut Memory<L>) -> Consts {
        Consts {
            row_stride: _mm256_set1_epi32(L as i32),
            zero: _mm256_setzero_si256(),
            squares: _mm256_set1_epi32(SQUARES as i32),
            rd_lost: _mm256_set1_epi32(RD_LOST as i32),
            ld_lost: _mm256_set1_epi32(LD_LOST as i32),
            board: _mm256_set1_epi32(memory.board as i32),
            board_up: _mm256_set1_epi32((memory.board << 1) as i32),
            high: _mm256_set1_epi32(0x1fff_ffff),
            exponent_top: _mm256_set1_epi32(127 + 31),
            two: _mm256_set1_epi32(2),
            inner_up: _mm256_set1_epi32(((memory.board & !(1 | 1 << memory.last)) << 1) as i32),
            last: _mm256_set1_epi32(memory.last as i32),
            side: _mm256_set1_epi32((1u32 << memory.last) as i32),
            one: _mm256_set1_epi32(1),
            stack: memory.stack.as_mut_ptr().cast(),
        }
    }
}

/// Runs the lanes of `spill` set in `live` until one finishes or the counters need emptying; returns the
/// finished lanes. See [`super::vector::StepLoop`].
///
/// # Safety
/// The processor must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn steps(spill: &mut Spill<L>, memory: &mut Memory<L>, live: u64) -> u64 {
    // SAFETY: passed on.
    if spill.shaped(live) {
        unsafe { count_loop::<true>(spill, memory, live) }
    } else {
        unsafe { count_loop::<false>(spill, memory, live) }
    }
}

/// The loop of [`steps`], computing the rows' open squares when `SHAPED`.
///
/// # Safety
/// As [`steps`].
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn count_loop<const SHAPED: bool>(
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
            // SAFETY: the caller vouches for AVX2; the indices stay within `memory` (see `step`).
            finished |= u64::from(unsafe { step::<SHAPED>(group, &c) }.finished) << (g * W);
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
/// The processor must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn list_steps(
    spill: &mut Spill<L>,
    memory: &mut Memory<L>,
    live: u64,
    emit: &mut dyn FnMut(usize, &[u8]),
) -> u64 {
    // SAFETY: passed on.
    if spill.shaped(live) {
        unsafe { list_loop::<true>(spill, memory, live, emit) }
    } else {
        unsafe { list_loop::<false>(spill, memory, live, emit) }
    }
}

/// The loop of [`list_steps`], as [`count_loop`].
///
/// # Safety
/// As [`list_steps`].
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn list_loop<const SHAPED: bool>(
    spill: &mut Spill<L>,
    memory: &mut Memory<L>,
    live: u64,
    emit: &mut dyn FnMut(usize, &[u8]),
) -> u64 {
    let c = Consts::new(memory);
    let mut groups: [Group; G] = std::array::from_fn(|g| load(spill, g * W, live));
    let mut found = Found::new();
    let mut count = 0u32;
    loop {
        let mut finished = 0u64;
        for (g, group) in groups.iter_mut().enumerate() {
            // SAFETY: as in `steps`.
            let stepped = unsafe { step::<SHAPED>(group, &c) };
            finished |= u64::from(stepped.finished) << (g * W);
            if stepped.solved != 0 {
                let mut next = [0u32; W];
                unsafe { _mm256_storeu_si256(next.as_mut_ptr().cast(), stepped.next) };
                let mut solved = stepped.solved;
                while solved != 0 {
                    let i = solved.trailing_zeros() as usize;
                    solved &= solved - 1;
                    // SAFETY: a solved lane's words lie between its floor and closing slots, in `memory`.
                    unsafe { found.record::<L>(c.stack.cast_const(), spill, g * W + i, next[i]) };
                }
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

/// The registers of the lanes `first..first + W`.
#[target_feature(enable = "avx2")]
fn load(spill: &Spill<L>, first: usize, live: u64) -> Group {
    let load = |a: &[u32; L]| unsafe { _mm256_loadu_si256(a[first..].as_ptr().cast()) };
    let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    let live = _mm256_set1_epi32(((live >> first) & 0xff) as i32);
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
        live: _mm256_cmpeq_epi32(_mm256_and_si256(live, bits), bits),
        lane_ids: _mm256_add_epi32(
            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
            _mm256_set1_epi32(first as i32),
        ),
    }
}

/// Writes back the registers of the lanes `first..first + W`.
#[target_feature(enable = "avx2")]
fn store(spill: &mut Spill<L>, first: usize, g: &Group) {
    let store = |a: &mut [u32; L], v: __m256i| unsafe {
        _mm256_storeu_si256(a[first..].as_mut_ptr().cast(), v)
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
    /// The group's lanes that completed a solution (see [`Found::record`]).
    solved: u32,
    /// Each lane's free squares of the row below the one it placed a queen in.
    next: __m256i,
}

/// The set bits of each lane: each half byte's count looked up, the four bytes of a lane summed by two
/// multiply-adds.
#[target_feature(enable = "avx2")]
#[inline]
fn popcount(x: __m256i) -> __m256i {
    let table = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3,
        3, 4,
    );
    let low = _mm256_set1_epi8(0x0f);
    let bytes = _mm256_add_epi8(
        _mm256_shuffle_epi8(table, _mm256_and_si256(x, low)),
        _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi32::<4>(x), low)),
    );
    let pairs = _mm256_maddubs_epi16(bytes, _mm256_set1_epi8(1));
    _mm256_madd_epi16(pairs, _mm256_set1_epi16(1))
}

/// The open squares of row `row` of each lane by its shape ([`super::Shape::open_squares`]).
#[target_feature(enable = "avx2")]
#[inline]
fn open_squares(g: &Group, c: &Consts, row: __m256i) -> __m256i {
    let up = _mm256_sub_epi32(c.last, row);
    // The side queens' squares seen from `row`: on their own rows, their own squares.
    let from_left = _mm256_srlv_epi32(g.left, row);
    let from_right = _mm256_sllv_epi32(g.right, row);
    let attacked_below = _mm256_or_si256(
        _mm256_or_si256(
            _mm256_sllv_epi32(g.bottom, up),
            _mm256_srlv_epi32(g.bottom, up),
        ),
        _mm256_or_si256(from_left, from_right),
    );
    let open = _mm256_andnot_si256(attacked_below, g.base);
    // A row that is both side rows holds the left one, as in the shape's own rule.
    let open = _mm256_blendv_epi8(open, c.side, _mm256_cmpeq_epi32(from_right, c.side));
    _mm256_blendv_epi8(open, c.one, _mm256_cmpeq_epi32(from_left, c.one))
}

/// One step of every lane of `g`.
///
/// # Safety
/// The processor must support AVX2. A live lane's slot lies between its floor and its closing slot, both
/// within the stack, and an idle lane stays at its floor, so every index below is in bounds.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn step<const SHAPED: bool>(g: &mut Group, c: &Consts) -> Stepped {
    let index = _mm256_add_epi32(_mm256_mullo_epi32(g.slot, c.row_stride), g.lane_ids);
    let avail = g.avail;
    let has = _mm256_andnot_si256(_mm256_cmpeq_epi32(avail, c.zero), g.live);
    let bit = _mm256_and_si256(avail, _mm256_sub_epi32(c.zero, avail));
    let rest = _mm256_xor_si256(avail, bit);
    let ncols = _mm256_or_si256(g.cols, bit);
    let nld = _mm256_slli_epi32::<1>(_mm256_or_si256(g.ld, bit));
    let nrd = _mm256_srli_epi32::<1>(_mm256_or_si256(g.rd, bit));
    // As in the AVX-512 loop: computed only when some lane's shape closes squares.
    let child_open = if SHAPED {
        open_squares(g, c, g.slot)
    } else {
        c.board
    };
    let attacked = _mm256_or_si256(_mm256_or_si256(ncols, nld), nrd);
    let next = _mm256_andnot_si256(attacked, child_open);
    let placed = _mm256_andnot_si256(_mm256_cmpeq_epi32(next, c.zero), has);
    let closes = _mm256_cmpeq_epi32(g.slot, g.closing);
    // Look-ahead, as in the AVX-512 loop: a child whose queen would leave the row after the child's no free
    // square of the board is counted unvisited, with that row taken one column over. AVX2 has no count of
    // leading zeros: the highest bit's place is the exponent of the word as a float. Rounded, a word of more
    // than 24 bits may read one place high (its 25 highest all set), which keeps one square more: visited,
    // not lost.
    let ahead = _mm256_andnot_si256(
        _mm256_or_si256(
            _mm256_or_si256(_mm256_slli_epi32::<1>(ncols), _mm256_slli_epi32::<2>(nld)),
            nrd,
        ),
        c.board_up,
    );
    // The bottom queen's diagonals in that row, where some lane's shape has one, but in the side columns (as in
    // the AVX-512 loop).
    let ahead = if SHAPED {
        let up = _mm256_sub_epi32(c.last, g.slot);
        let below = _mm256_or_si256(
            _mm256_sllv_epi32(g.bottom, up),
            _mm256_srlv_epi32(g.bottom, _mm256_sub_epi32(up, c.two)),
        );
        _mm256_andnot_si256(_mm256_and_si256(below, c.inner_up), ahead)
    } else {
        ahead
    };
    let exponent = _mm256_srli_epi32::<23>(_mm256_castps_si256(_mm256_cvtepi32_ps(ahead)));
    // 31 less the highest bit's place (158, the exponent's bias and 31; an empty row's 0 gives 158: no bit).
    let high = _mm256_srlv_epi32(c.high, _mm256_sub_epi32(c.exponent_top, exponent));
    let low = _mm256_xor_si256(ahead, _mm256_sub_epi32(ahead, c.one));
    let opens = _mm256_andnot_si256(closes, placed);
    // next & (high | !low), on the lanes that open a row below.
    let kept = _mm256_and_si256(
        opens,
        _mm256_andnot_si256(_mm256_andnot_si256(high, low), next),
    );
    let descends = _mm256_andnot_si256(_mm256_cmpeq_epi32(kept, c.zero), opens);
    // Every square of the child row is a node, visited or not, as in the AVX-512 loop; on a closing lane they
    // are the solutions (one at most on a square board; a rectangle's last line may have several).
    let free = popcount(next);
    g.nodes = _mm256_add_epi32(g.nodes, _mm256_and_si256(free, has));
    g.solutions = _mm256_add_epi32(
        g.solutions,
        _mm256_and_si256(free, _mm256_and_si256(placed, closes)),
    );
    let word = _mm256_or_si256(
        _mm256_or_si256(avail, _mm256_and_si256(g.ld, c.ld_lost)),
        _mm256_and_si256(_mm256_slli_epi32::<30>(g.rd), c.rd_lost),
    );
    // No scatter in AVX2: eight stores, through memory.
    let mut index_out = [0i32; W];
    let mut word_out = [0i32; W];
    unsafe {
        _mm256_storeu_si256(index_out.as_mut_ptr().cast(), index);
        _mm256_storeu_si256(word_out.as_mut_ptr().cast(), word);
        for lane in 0..W {
            *c.stack.add(index_out[lane] as usize) = word_out[lane];
        }
    }
    let pops = _mm256_andnot_si256(
        descends,
        _mm256_and_si256(g.live, _mm256_cmpeq_epi32(rest, c.zero)),
    );
    let parent_word = unsafe {
        _mm256_mask_i32gather_epi32::<4>(
            c.zero,
            c.stack,
            _mm256_sub_epi32(index, c.row_stride),
            pops,
        )
    };
    let parent_avail = _mm256_and_si256(parent_word, c.squares);
    let pbit = _mm256_and_si256(parent_avail, _mm256_sub_epi32(c.zero, parent_avail));
    let ld_up = _mm256_andnot_si256(
        pbit,
        _mm256_or_si256(
            _mm256_srli_epi32::<1>(g.ld),
            _mm256_and_si256(parent_word, c.ld_lost),
        ),
    );
    let rd_up = _mm256_andnot_si256(
        pbit,
        _mm256_or_si256(
            _mm256_slli_epi32::<1>(g.rd),
            _mm256_srli_epi32::<30>(_mm256_and_si256(parent_word, c.rd_lost)),
        ),
    );
    // Stay: the row's remaining squares. Descend: the child. Back up: the parent, undone.
    let pick =
        |stay, down, up| _mm256_blendv_epi8(_mm256_blendv_epi8(stay, down, descends), up, pops);
    g.avail = pick(rest, kept, _mm256_xor_si256(parent_avail, pbit));
    g.cols = pick(g.cols, ncols, _mm256_andnot_si256(pbit, g.cols));
    g.ld = pick(g.ld, nld, ld_up);
    g.rd = pick(g.rd, nrd, rd_up);
    g.slot = _mm256_add_epi32(_mm256_sub_epi32(g.slot, descends), pops);
    let finished = _mm256_and_si256(g.live, _mm256_cmpeq_epi32(g.slot, g.floor));
    let mask = |v: __m256i| _mm256_movemask_ps(_mm256_castsi256_ps(v)) as u32;
    Stepped {
        finished: mask(finished),
        solved: mask(_mm256_and_si256(placed, closes)),
        next,
    }
}
