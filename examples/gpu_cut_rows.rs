//! The program's cut of whole runs, without a GPU: `cargo run --release --example gpu_cut_rows [FROM] [TO]`
//! (boards 20 to 28 by default). For each board: the rows placed below its units, the rows left to a task, the
//! tasks estimated, the growth of the last row and where units may be counted in parts, and the seconds the
//! cut took to decide.

mod common;

use nqueens::gpu;
use std::time::Instant;

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: FROM, TO"))
        .collect();
    let from = args.first().copied().unwrap_or(20);
    let to = args.get(1).copied().unwrap_or(28);
    for n in from..=to {
        let plan = common::gpu_plan(n);
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let started = Instant::now();
        let cut = gpu::cut(&plan, &all);
        let seconds = started.elapsed().as_secs_f64();
        let start = plan.start(&plan.units()[0]).expect("a unit with a start");
        println!(
            "n = {n}: {} rows below the units, {} left to a task, {:.3e} tasks, growth {:.2}, parts from {} rows \
             ({seconds:.2} s)",
            cut.extra_rows,
            start.frame.end - start.row - cut.extra_rows,
            cut.tasks,
            cut.growth,
            if cut.parted_from == u32::MAX { "-".to_string() } else { cut.parted_from.to_string() }
        );
    }
}
