//! The host's time to merge a small run's early batches into one, as a lone GPU does (`gpu::merge`), without a
//! GPU: `cargo run --release --example gpu_merge_time [N]` (n = 17 by default). Cuts the run's batches as they
//! are cut before the driver says how many GPUs there are (small enough for four), then merges them; three
//! times. `RAYON_NUM_THREADS` sets the cores.

mod common;

use nqueens::gpu;
use std::time::Instant;

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .map_or(17, |a| a.parse().expect("a board side"));
    let plan = common::gpu_plan(n);
    let units: Vec<usize> = (0..plan.units().len()).collect();
    let cut = gpu::cut(&plan, &units);
    for _ in 0..3 {
        let started = Instant::now();
        let batches: Vec<gpu::Batch> = gpu::batches(&units, cut, 4)
            .map(|c| gpu::prepare(&plan, c, cut.extra_rows))
            .collect();
        let cutting = started.elapsed().as_secs_f64();
        let count = batches.len();
        let started = Instant::now();
        let merged = gpu::merge(batches);
        println!(
            "n = {n}: {count} batches cut in {cutting:.3} s, merged ({} tasks) in {:.3} s",
            merged.tasks.len(),
            started.elapsed().as_secs_f64()
        );
    }
}
