//! The levels of stack the GPU's batches need, board by board, and what they leave of a multiprocessor's
//! blocks with eight and with sixteen turns between tests for a task's end, without a GPU:
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
        let eight = Turns::asked(8, n);
        let sixteen = Turns::asked(16, n);
        // Tasks by their batch's levels.
        let mut tasks: BTreeMap<u32, usize> = BTreeMap::new();
        let mut seen = 0;
        for (chunk, rows) in gpu::tail_deeper(gpu::batches(&units, cut, 1).collect(), cut, 1) {
            let batch = gpu::prepare(&plan, chunk, rows);
            *tasks.entry(batch.levels).or_default() += batch.tasks.len();
            seen += batch.tasks.len();
            gpu::recycle(batch.tasks);
            if seen >= most {
                break;
            }
        }
        for (levels, count) in tasks {
            println!(
                "n = {n}: {count:>10} tasks in batches of {levels} levels: {} ({}) blocks with 8 turns, {} ({}) \
                 with 16",
                blocks(eight, levels),
                blocks(eight.with_unpushed_last(true), levels),
                blocks(sixteen, levels),
                blocks(sixteen.with_unpushed_last(true), levels)
            );
        }
    }
}
