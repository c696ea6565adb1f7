//! The vector search ([`super::vector`]) with 16 lanes in an AVX-512 register.

use super::vector::{Memory, Spill, FLUSH_STEPS, LD_LOST, RD_LOST, SQUARES};
use std::arch::x86_64::*;

/// Searches in one register.
const L: usize = 16;

/// Runs the lanes of `spill` set in `live` until one finishes or the counters need emptying; returns the
/// finished lanes. See [`super::vector::StepLoop`].
///
/// # Safety
/// The processor must support AVX-512F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn steps(spill: &mut Spill<L>, memory: &mut Memory<L>, live: u32) -> u32 {
    let load = |a: &[u32; L]| unsafe { _mm512_loadu_si512(a.as_ptr().cast()) };
    let mut avail = load(&spill.avail);
    let mut cols = load(&spill.cols);
    let mut ld = load(&spill.ld);
    let mut rd = load(&spill.rd);
    let mut slot = load(&spill.slot);
    let floor = load(&spill.floor);
    let closing = load(&spill.closing);
    let mut nodes = load(&spill.nodes);
    let mut solutions = load(&spill.solutions);
    let live = live as __mmask16;

    let lane_ids = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let row_stride = _mm512_set1_epi32(L as i32);
    let one = _mm512_set1_epi32(1);
    let zero = _mm512_setzero_si512();
    let squares = _mm512_set1_epi32(SQUARES as i32);
    let rd_lost = _mm512_set1_epi32(RD_LOST as i32);
    let ld_lost = _mm512_set1_epi32(LD_LOST as i32);
    let stack: *mut i32 = memory.stack.as_mut_ptr().cast();
    let open: *const i32 = memory.open.as_ptr().cast();

    let mut count = 0u32;
    let finished = loop {
        // Where each lane's row sits in the `[slot][lane]` arrays.
        let index = _mm512_add_epi32(_mm512_slli_epi32::<4>(slot), lane_ids);
        let has = _mm512_mask_test_epi32_mask(live, avail, avail);
        let bit = _mm512_and_si512(avail, _mm512_sub_epi32(zero, avail));
        let rest = _mm512_xor_si512(avail, bit);
        let ncols = _mm512_or_si512(cols, bit);
        let nld = _mm512_slli_epi32::<1>(_mm512_or_si512(ld, bit));
        let nrd = _mm512_srli_epi32::<1>(_mm512_or_si512(rd, bit));
        let child_open =
            unsafe { _mm512_i32gather_epi32::<4>(_mm512_add_epi32(index, row_stride), open) };
        // 0xFE: a | b | c.
        let attacked = _mm512_ternarylogic_epi32::<0xFE>(ncols, nld, nrd);
        let next = _mm512_andnot_si512(attacked, child_open);
        let placed = has & _mm512_test_epi32_mask(next, next);
        let closes = _mm512_cmpeq_epi32_mask(slot, closing);
        let descends = placed & !closes;
        nodes = _mm512_mask_add_epi32(nodes, has, nodes, one);
        solutions = _mm512_mask_add_epi32(solutions, placed & closes, solutions, one);
        // The stack word: avail | (rd << 30 & RD_LOST) | (ld & LD_LOST); 0xEA: (a & b) | c.
        let word = _mm512_ternarylogic_epi32::<0xEA>(
            _mm512_slli_epi32::<30>(rd),
            rd_lost,
            _mm512_or_si512(avail, _mm512_and_si512(ld, ld_lost)),
        );
        unsafe { _mm512_i32scatter_epi32::<4>(stack, index, word) };
        // Back up when the row has nothing left to try (the square just taken was its last).
        let pops = live & !descends & _mm512_testn_epi32_mask(rest, rest);
        let parent_word = unsafe {
            _mm512_mask_i32gather_epi32::<4>(
                zero,
                pops,
                _mm512_sub_epi32(index, row_stride),
                stack.cast_const(),
            )
        };
        let parent_avail = _mm512_and_si512(parent_word, squares);
        let pbit = _mm512_and_si512(parent_avail, _mm512_sub_epi32(zero, parent_avail));
        let ld_up = _mm512_or_si512(
            _mm512_srli_epi32::<1>(ld),
            _mm512_and_si512(parent_word, ld_lost),
        );
        let rd_up = _mm512_or_si512(
            _mm512_slli_epi32::<1>(rd),
            _mm512_srli_epi32::<30>(_mm512_and_si512(parent_word, rd_lost)),
        );
        // Stay: the row's remaining squares. Descend: the child. Back up: the parent, undone.
        avail = _mm512_mask_mov_epi32(rest, descends, next);
        avail = _mm512_mask_mov_epi32(avail, pops, _mm512_xor_si512(parent_avail, pbit));
        cols = _mm512_mask_mov_epi32(cols, descends, ncols);
        cols = _mm512_mask_andnot_epi32(cols, pops, pbit, cols);
        ld = _mm512_mask_mov_epi32(ld, descends, nld);
        ld = _mm512_mask_andnot_epi32(ld, pops, pbit, ld_up);
        rd = _mm512_mask_mov_epi32(rd, descends, nrd);
        rd = _mm512_mask_andnot_epi32(rd, pops, pbit, rd_up);
        slot = _mm512_mask_add_epi32(slot, descends, slot, one);
        slot = _mm512_mask_sub_epi32(slot, pops, slot, one);
        let finished = live & _mm512_cmpeq_epi32_mask(slot, floor);
        count += 1;
        if finished != 0 || count == FLUSH_STEPS {
            break finished;
        }
    };

    let store =
        |a: &mut [u32; L], v: __m512i| unsafe { _mm512_storeu_si512(a.as_mut_ptr().cast(), v) };
    store(&mut spill.avail, avail);
    store(&mut spill.cols, cols);
    store(&mut spill.ld, ld);
    store(&mut spill.rd, rd);
    store(&mut spill.slot, slot);
    store(&mut spill.nodes, nodes);
    store(&mut spill.solutions, solutions);
    u32::from(finished)
}
