//! The levels of stack the GPU's batches need, board by board, and what they leave of a multiprocessor's
//! blocks, without a GPU: with the program's loop, with the look-ahead's row taken with its frame
//! (`NQ_AHEAD_FRAME`: a row of table more), and with the sentinels the program took to the thirty-second session
//! (two of eight squares for sixteen turns on boards 19 to 24 wide, one of eight for eight turns on narrower
//! ones, two of four for eight on wider ones: a level of stack more where there were two):
//! `cargo run --release --example gpu_levels [FROM] [TO] [TASKS]` (boards 16 to 24 by default; boards from 22 on
//! count the levels of the first TASKS million tasks' batches only, 20 by default). The blocks are an H100's
//! and H200's: 228 KiB of shared memory a multiprocessor, 1 KiB of it taken for each block, 128 threads a block;
//! and in brackets those of the program's loop on a square board, whose stack has no level for the last row
//! (`Turns::unpushed_last`: the look-ahead closes that row without a turn).

mod common;

use nqueens::gpu::{self, Turns};
use std::collections::BTreeMap;

/// Threads a block, as the program launches them.
const THREADS: u32 = 128;

fn blocks(turns: Turns, levels: u32) -> u32 {
    gpu::task::hopper_blocks(turns, THREADS, levels)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: FROM, TO, TASKS"))
        .collect();
    let from = args.first().copied().unwrap_or(16) as u32;
    let to = args.get(1).copied().unwrap_or(24) as u32;
    let most = args.get(2).copied().unwrap_or(20) * 1_000_000;
    for n in from..=to {
        let plan = common::gpu_plan(n);
        let units: Vec<usize> = (0..plan.units().len()).collect();
        let cut = gpu::cut(&plan, &units);
        let program = Turns::for_width(n);
        let framed = program.with_ahead_frame(true);
        let before = Turns {
            between_tests: if (19..=24).contains(&n) { 16 } else { 8 },
            sentinel_squares: if n <= 24 { 8 } else { 4 },
            ..program
        };
        // Tasks by their batch's levels.
        let mut tasks: BTreeMap<u32, usize> = BTreeMap::new();
        let mut seen = 0;
        for batch in gpu::run_batches(&plan, &units, cut, 1) {
            *tasks.entry(batch.levels).or_default() += batch.tasks.len();
            seen += batch.tasks.len();
            gpu::recycle(batch.tasks);
            if seen >= most {
                break;
            }
        }
        for (levels, count) in tasks {
            println!(
                "n = {n}: {count:>10} tasks in batches of {levels} levels: {} ({}) blocks, {} ({}) with the \
                 frame, {} ({}) with the sentinels before",
                blocks(program, levels),
                blocks(program.with_unpushed_last(true), levels),
                blocks(framed, levels),
                blocks(framed.with_unpushed_last(true), levels),
                blocks(before, levels),
                blocks(before.with_unpushed_last(true), levels)
            );
        }
    }
}
