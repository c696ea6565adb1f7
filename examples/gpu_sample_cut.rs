//! The host's part of `nqueens estimate --backend gpu` without a GPU: how each board's sampled batches are
//! drawn, how long the host takes to cut them, and the run's tasks they say against the cut's estimate. `cargo run --release --example gpu_sample_cut [FROM] [TO]
//! [BATCHES]` (boards 18 to 28, 3 batches each, by default); `RAYON_NUM_THREADS` sets the cores.

mod common;

use nqueens::gpu::{self, forecast};
use std::time::Instant;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: FROM, TO, BATCHES"))
        .collect();
    let from = args.first().copied().unwrap_or(18) as u32;
    let to = args.get(1).copied().unwrap_or(28) as u32;
    let batches = args.get(2).copied().unwrap_or(3) as u64;
    for n in from..=to {
        let started = Instant::now();
        let plan = common::gpu_plan(n);
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let cut = gpu::cut(&plan, &all);
        let planned = started.elapsed().as_secs_f64();
        let drawing = gpu::Drawing::new(cut, all.len(), gpu::batch_tasks(cut, 1));
        println!(
            "n = {n}: {} units, {:.3e} tasks {} rows below them, planned and cut in {planned:.2} s; drawn: {} \
             units, branches {} rows down kept with a chance of {:.3e}",
            all.len(),
            cut.tasks,
            cut.extra_rows,
            drawing.units,
            drawing.branch_rows,
            drawing.keep
        );
        // The run's tasks as the samples say: each task was drawn with the same chance.
        let chance = drawing.units as f64 / all.len() as f64 * drawing.keep;
        let mut sampled = 0usize;
        for number in 0..batches {
            let started = Instant::now();
            let (units, batch) = drawing.batch(&plan, forecast::SEED, number);
            sampled += batch.tasks.len();
            println!(
                "  batch {number}: {} tasks of {} units in {} slots, {} levels, cut in {:.3} s",
                batch.tasks.len(),
                units.len(),
                batch.slots(),
                batch.levels,
                started.elapsed().as_secs_f64()
            );
            gpu::recycle(batch.tasks);
        }
        let run = sampled as f64 / batches as f64 / chance;
        println!(
            "  the run's tasks by the samples: {run:.3e}, the cut's estimate {:.2} times that",
            cut.tasks / run
        );
    }
}
