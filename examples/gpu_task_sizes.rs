//! The sizes of a run's GPU tasks, counted on the host, without a GPU:
//! `cargo run --release --example gpu_task_sizes [N] [UNITS] [SAMPLE]` (n = 21, every unit, 4,000 tasks by
//! default; `UNITS`: the plan's first units only, as `--units 0-(UNITS-1)` asks).
//!
//! Cuts the run as the program does for one GPU and takes its first batch: prints the cut, then the nodes of
//! `SAMPLE` random tasks of that batch (mean, median, 99th percentile, largest), the same by the squares of a
//! task's first row (what the host's guess orders a batch by within a unit), and its first 64 (or `SAMPLE`, if
//! fewer), the largest by the host's guess. A task's nodes are counted as the kernel counts
//! them (`gpu::task::count_task`), one core a task: n = 27's take seconds each. How long the GPU's threads
//! take over them follows: an H200 counts about 1e7 nodes a second a thread (results/gpu.md).

mod common;

use nqueens::gpu::{self, task};
use rayon::prelude::*;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: N, units, sample"))
        .collect();
    let n = args.first().copied().unwrap_or(21) as u32;
    let plan = common::gpu_plan(n);
    let units: Vec<usize> = (0..plan.units().len())
        .take(args.get(1).copied().unwrap_or(usize::MAX))
        .collect();
    let sample = args.get(2).copied().unwrap_or(4000);
    let cut = gpu::cut(&plan, &units);
    println!(
        "n = {n}: {} units, {} rows below them (the last batches {}), about {:.0} tasks",
        units.len(),
        cut.extra_rows,
        cut.tail_rows,
        cut.tasks
    );
    let Some(batch) = gpu::run_batches(&plan, &units, cut, 1).next() else {
        println!("no batch");
        return;
    };
    let tasks = &batch.tasks;
    println!(
        "first batch: {} slots ({} of them parts of units), {} tasks, {} levels",
        batch.slots(),
        batch.parts.len(),
        tasks.len(),
        batch.levels
    );
    if tasks.is_empty() {
        return;
    }
    let size =
        |i: usize| task::count_task(&tasks[i], &batch.tables[tasks[i].slot() as usize]).nodes;
    let mut random = fastrand::Rng::with_seed(1);
    let picked: Vec<usize> = (0..sample).map(|_| random.usize(..tasks.len())).collect();
    let mut sizes: Vec<u64> = picked.par_iter().map(|&i| size(i)).collect();
    // By the squares of the task's first row (what the host's guess orders a batch by, within a unit's
    // levels): how well they point at the largest tasks, which hold their threads' blocks at a batch's end.
    let squares = |i: usize| {
        tasks[i]
            .avail(&batch.tables[tasks[i].slot() as usize])
            .count_ones()
    };
    let mut sorted = sizes.clone();
    sorted.sort_unstable();
    let large = sorted[sorted.len() * 99 / 100];
    let mut by_squares: std::collections::BTreeMap<u32, (usize, u64, u64, usize)> =
        Default::default();
    for (&i, &nodes) in picked.iter().zip(&sizes) {
        let entry = by_squares.entry(squares(i)).or_default();
        entry.0 += 1;
        entry.1 += nodes;
        entry.2 = entry.2.max(nodes);
        entry.3 += usize::from(nodes > large);
    }
    for (squares, (count, nodes, largest, over)) in by_squares {
        println!(
            "  first row of {squares:>2} squares: {count:>6} tasks, mean {:.3e} nodes, largest {largest}, \
             {over} of the largest 1%",
            nodes as f64 / count as f64
        );
    }
    sizes.sort_unstable();
    if let Some(&largest) = sizes.last() {
        println!(
            "{} random tasks: mean {:.3e} nodes, median {}, 99th percentile {}, largest {largest}",
            sizes.len(),
            sizes.iter().sum::<u64>() as f64 / sizes.len() as f64,
            sizes[sizes.len() / 2],
            sizes[sizes.len() * 99 / 100],
        );
    }
    let first: Vec<u64> = (0..tasks.len().min(64).min(sample.max(1)))
        .into_par_iter()
        .map(size)
        .collect();
    println!(
        "the first {} (the largest by the host's guess): mean {:.3e} nodes, largest {}",
        first.len(),
        first.iter().sum::<u64>() as f64 / first.len() as f64,
        first.iter().max().unwrap_or(&0)
    );
}
