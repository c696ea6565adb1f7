//! The vector search ([`super::vector`]) with 8 lanes in an AVX2 register.
//!
//! AVX2 has gathers but no scatter, so the stack words go out with eight plain stores; and no mask registers,
//! so a condition is a lane of all ones.

use super::vector::{Memory, Spill, FLUSH_STEPS, LD_LOST, RD_LOST, SQUARES};
use std::arch::x86_64::*;

/// Searches in one register.
const L: usize = 8;

/// Runs the lanes of `spill` set in `live` until one finishes or the counters need emptying; returns the
/// finished lanes. See [`super::vector::StepLoop`].
///
/// # Safety
/// The processor must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn steps(spill: &mut Spill<L>, memory: &mut Memory<L>, live: u32) -> u32 {
    let load = |a: &[u32; L]| unsafe { _mm256_loadu_si256(a.as_ptr().cast()) };
    let mut avail = load(&spill.avail);
    let mut cols = load(&spill.cols);
    let mut ld = load(&spill.ld);
    let mut rd = load(&spill.rd);
    let mut slot = load(&spill.slot);
    let floor = load(&spill.floor);
    let closing = load(&spill.closing);
    let mut nodes = load(&spill.nodes);
    let mut solutions = load(&spill.solutions);

    let lane_ids = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    let zero = _mm256_setzero_si256();
    // All ones in the lanes that have a start.
    let live = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(live as i32), bits), bits);
    let row_stride = _mm256_set1_epi32(L as i32);
    let squares = _mm256_set1_epi32(SQUARES as i32);
    let rd_lost = _mm256_set1_epi32(RD_LOST as i32);
    let ld_lost = _mm256_set1_epi32(LD_LOST as i32);
    let stack: *mut i32 = memory.stack.as_mut_ptr().cast();
    let open: *const i32 = memory.open.as_ptr().cast();
    let mut index_out = [0i32; L];
    let mut word_out = [0i32; L];

    let mut count = 0u32;
    let finished = loop {
        let index = _mm256_add_epi32(_mm256_slli_epi32::<3>(slot), lane_ids);
        let has = _mm256_andnot_si256(_mm256_cmpeq_epi32(avail, zero), live);
        let bit = _mm256_and_si256(avail, _mm256_sub_epi32(zero, avail));
        let rest = _mm256_xor_si256(avail, bit);
        let ncols = _mm256_or_si256(cols, bit);
        let nld = _mm256_slli_epi32::<1>(_mm256_or_si256(ld, bit));
        let nrd = _mm256_srli_epi32::<1>(_mm256_or_si256(rd, bit));
        let child_open =
            unsafe { _mm256_i32gather_epi32::<4>(open, _mm256_add_epi32(index, row_stride)) };
        let attacked = _mm256_or_si256(_mm256_or_si256(ncols, nld), nrd);
        let next = _mm256_andnot_si256(attacked, child_open);
        let placed = _mm256_andnot_si256(_mm256_cmpeq_epi32(next, zero), has);
        let closes = _mm256_cmpeq_epi32(slot, closing);
        let descends = _mm256_andnot_si256(closes, placed);
        // Conditions are -1, so subtracting one counts it.
        nodes = _mm256_sub_epi32(nodes, has);
        solutions = _mm256_sub_epi32(solutions, _mm256_and_si256(placed, closes));
        let word = _mm256_or_si256(
            _mm256_or_si256(avail, _mm256_and_si256(ld, ld_lost)),
            _mm256_and_si256(_mm256_slli_epi32::<30>(rd), rd_lost),
        );
        unsafe {
            _mm256_storeu_si256(index_out.as_mut_ptr().cast(), index);
            _mm256_storeu_si256(word_out.as_mut_ptr().cast(), word);
            for lane in 0..L {
                *stack.add(index_out[lane] as usize) = word_out[lane];
            }
        }
        let pops = _mm256_andnot_si256(
            descends,
            _mm256_and_si256(live, _mm256_cmpeq_epi32(rest, zero)),
        );
        let parent_word = unsafe {
            _mm256_mask_i32gather_epi32::<4>(zero, stack, _mm256_sub_epi32(index, row_stride), pops)
        };
        let parent_avail = _mm256_and_si256(parent_word, squares);
        let pbit = _mm256_and_si256(parent_avail, _mm256_sub_epi32(zero, parent_avail));
        let ld_up = _mm256_andnot_si256(
            pbit,
            _mm256_or_si256(
                _mm256_srli_epi32::<1>(ld),
                _mm256_and_si256(parent_word, ld_lost),
            ),
        );
        let rd_up = _mm256_andnot_si256(
            pbit,
            _mm256_or_si256(
                _mm256_slli_epi32::<1>(rd),
                _mm256_srli_epi32::<30>(_mm256_and_si256(parent_word, rd_lost)),
            ),
        );
        let pick =
            |stay, down, up| _mm256_blendv_epi8(_mm256_blendv_epi8(stay, down, descends), up, pops);
        avail = pick(rest, next, _mm256_xor_si256(parent_avail, pbit));
        cols = pick(cols, ncols, _mm256_andnot_si256(pbit, cols));
        ld = pick(ld, nld, ld_up);
        rd = pick(rd, nrd, rd_up);
        slot = _mm256_add_epi32(_mm256_sub_epi32(slot, descends), pops);
        let finished = _mm256_and_si256(live, _mm256_cmpeq_epi32(slot, floor));
        count += 1;
        if _mm256_testz_si256(finished, finished) == 0 || count == FLUSH_STEPS {
            break _mm256_movemask_ps(_mm256_castsi256_ps(finished)) as u32;
        }
    };

    let store =
        |a: &mut [u32; L], v: __m256i| unsafe { _mm256_storeu_si256(a.as_mut_ptr().cast(), v) };
    store(&mut spill.avail, avail);
    store(&mut spill.cols, cols);
    store(&mut spill.ld, ld);
    store(&mut spill.rd, rd);
    store(&mut spill.slot, slot);
    store(&mut spill.nodes, nodes);
    store(&mut spill.solutions, solutions);
    finished
}
