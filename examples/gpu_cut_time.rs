//! The host's time to cut a whole run into GPU batches, as the program does for one GPU, without a GPU:
//! `cargo run --release --example gpu_cut_time [N] [REPEATS] [UNITS]` (n = 19, 5 repeats, every unit by
//! default; `UNITS`: the plan's first units only, as `--units 0-(UNITS-1)` asks). Prints each repeat's seconds
//! and the median; `RAYON_NUM_THREADS` sets the cores.

mod common;

use nqueens::gpu;
use std::time::Instant;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: N, repeats"))
        .collect();
    let n = args.first().copied().unwrap_or(19) as u32;
    let repeats = args.get(1).copied().unwrap_or(5);
    let plan = common::gpu_plan(n);
    let units: Vec<usize> = (0..plan.units().len())
        .take(args.get(2).copied().unwrap_or(usize::MAX))
        .collect();
    let cut = gpu::cut(&plan, &units);
    let mut times = Vec::new();
    for _ in 0..repeats {
        let started = Instant::now();
        let mut tasks = 0;
        for batch in gpu::run_batches(&plan, &units, cut, 1) {
            tasks += batch.tasks.len();
            // As the GPU's driver hands it back once the tasks are on the GPU.
            gpu::recycle(batch.tasks);
        }
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "n = {n}: {} units, {tasks} tasks ({} rows below the units) cut in {seconds:.3} s",
            units.len(),
            cut.extra_rows
        );
        times.push(seconds);
    }
    times.sort_by(f64::total_cmp);
    println!("median {:.3} s", times[times.len() / 2]);
}
