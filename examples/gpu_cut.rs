//! How deep to cut a run's units into GPU tasks, measured without a GPU:
//! `cargo run --release --example gpu_cut [N] [THREADS_IN_FLIGHT] [DEPTHS...]` (n = 17, 84,480 threads,
//! depths 0 to 3 by default; `-` for none: only the program's own cut).
//!
//! The GPU backend cuts every unit of its plan (at most `gpu::SPLIT_DEPTH` rows, split for 16 host threads) a few rows
//! deeper into tasks. More tasks make the last ones to finish smaller against the run, and cost the host time
//! to cut (and the bus to copy: 32 bytes a task). For each depth this prints:
//! - the tasks, and the host's time to cut them here (all cores of this machine);
//! - each task's nodes, counted on the host as the kernel would (`gpu::task::count_task`): their mean and
//!   largest;
//! - the tail: the tasks dealt in order to `THREADS_IN_FLIGHT` threads (an H100's 132 multiprocessors with
//!   five blocks of 128 threads each: 84,480), each thread taking the next task when it is done, every node
//!   costing the same; how much later the last thread ends than a perfect share. `program`: the order the
//!   program deals them in, for one GPU (its batches in turn, each batch's tasks largest first by the host's
//!   guess, and the last batch cut a row deeper: `gpu::tail_deeper`); `tail as is`: the same without the
//!   deeper last batch; `guessed`: all the run's tasks in the guessed order at once; `sorted`: by their true
//!   sizes (the best order); `one by one`: the program's batches each run alone, one after the other (the
//!   bound if batches did not overlap; up to four do on a GPU);
//! - `lanes busy`: the share of a warp's lanes at work if its 32 threads took 32 tasks in order and waited
//!   for the longest before taking the next 32, as a kernel with a loop for each task does (about half at
//!   n = 17; the kernel now takes a thread's next task inside its search loop).
//!
//! A thread's speed is not modelled: the figures are in nodes, so they hold for any kernel whose time a node
//! does not depend on the task.

mod common;

use nqueens::gpu::{self, task};
use rayon::prelude::*;
use std::time::Instant;

/// The time the last of `workers` ends when they take `costs` in order, each the next task when it is free.
fn makespan(costs: &[u64], workers: usize) -> u64 {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut free: BinaryHeap<Reverse<u64>> = (0..workers).map(|_| Reverse(0)).collect();
    for &c in costs {
        let Reverse(t) = free.pop().expect("at least one worker");
        free.push(Reverse(t + c));
    }
    free.into_iter().map(|Reverse(t)| t).max().unwrap_or(0)
}

/// The share of a warp's lanes at work when its 32 lanes take 32 tasks in order and wait for the longest before
/// taking the next 32 (a loop whose exit is a point where the warp's lanes meet again).
fn lanes_busy(costs: &[u64]) -> f64 {
    let lockstep: u64 = costs
        .chunks(32)
        .map(|w| w.iter().copied().max().unwrap_or(0) * 32)
        .sum();
    costs.iter().sum::<u64>() as f64 / lockstep.max(1) as f64 * 100.0
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter(|a| a != "-")
        .map(|a| a.parse().expect("numbers: N, threads in flight, depths"))
        .collect();
    let no_depths = std::env::args().any(|a| a == "-");
    let n = args.first().copied().unwrap_or(17) as u32;
    let workers = args.get(1).copied().unwrap_or(84_480) as usize;
    let depths: Vec<u32> = if no_depths {
        Vec::new()
    } else if args.len() > 2 {
        args[2..].iter().map(|&d| d as u32).collect()
    } else {
        vec![0, 1, 2, 3]
    };
    let plan = common::gpu_plan(n);
    let units: Vec<usize> = (0..plan.units().len()).collect();
    let started = Instant::now();
    let cut = gpu::cut(&plan, &units);
    let sizing = started.elapsed().as_secs_f64();
    println!(
        "n = {n}: {} units (the GPU's plan: split for 16 threads, at most gpu::SPLIT_DEPTH rows); the program's cut: {} rows, about {:.1} M tasks \
         (chosen in {sizing:.3} s)",
        units.len(),
        cut.extra_rows,
        cut.tasks / 1e6
    );
    println!(
        "{:>5} {:>12} {:>9} {:>10} {:>12} {:>14} {:>14} | {:>8} {:>10} {:>8} {:>8} | {:>9} {:>10}",
        "depth",
        "tasks",
        "cut (s)",
        "M tasks/s",
        "mean nodes",
        "largest",
        "largest/share",
        "program",
        "tail as is",
        "guessed",
        "sorted",
        "one by one",
        "lanes busy"
    );
    for depth in depths {
        let started = Instant::now();
        let whole = gpu::prepare(&plan, &units, depth);
        let seconds = started.elapsed().as_secs_f64();
        let tasks = whole.tasks.len();
        drop(whole);
        // The run's batches for one GPU as the program makes them (each batch's tasks in its order), and the
        // same with the last batch not cut deeper.
        let cut_here = gpu::Cut {
            extra_rows: depth,
            tasks: tasks as f64,
            tail_rows: depth + 1,
            ..gpu::Cut::default()
        };
        let chunks: Vec<&[usize]> = gpu::batches(&units, cut_here, 1).collect();
        let keyed_batch = |chunk: &[usize], rows: u32| -> Vec<(u32, u32, u64)> {
            let batch = gpu::prepare(&plan, chunk, rows);
            batch
                .tasks
                .par_iter()
                .map(|t| {
                    let table = &batch.tables[t.slot() as usize];
                    let nodes = task::count_task(t, table).nodes;
                    (t.levels(), t.avail(table).count_ones(), nodes)
                })
                .collect()
        };
        let batches: Vec<Vec<(u32, u32, u64)>> =
            chunks.iter().map(|c| keyed_batch(c, depth)).collect();
        let program: Vec<Vec<(u32, u32, u64)>> = gpu::tail_deeper(chunks.clone(), cut_here, 1)
            .iter()
            .enumerate()
            .map(|(i, &(c, rows))| {
                if rows == depth {
                    batches[i].clone()
                } else {
                    keyed_batch(c, rows)
                }
            })
            .collect();
        let nodes_of = |part: &[(u32, u32, u64)]| part.iter().map(|t| t.2).collect::<Vec<u64>>();
        let keyed: Vec<(u32, u32, u64)> = batches.concat();
        let nodes = nodes_of(&keyed);
        let total: u64 = nodes.iter().sum();
        let largest = nodes.iter().copied().max().unwrap_or(0);
        let share = total as f64 / workers as f64;
        let tail = |order: &[u64]| (makespan(order, workers) as f64 / share - 1.0) * 100.0;
        let mut guessed = keyed.clone();
        guessed.sort_by_key(|t| std::cmp::Reverse((t.0, t.1)));
        let mut sorted = nodes.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let program_order: Vec<u64> = program.iter().flat_map(|b| nodes_of(b)).collect();
        // Each batch alone, one after the other (no overlap between batches: the pessimistic bound).
        let one_by_one: u64 = program
            .iter()
            .map(|b| makespan(&nodes_of(b), workers))
            .sum();
        println!(
            "{depth:>5} {tasks:>12} {seconds:>9.3} {:>10.1} {:>12.0} {largest:>14} {:>14.2} | {:>7.1}% {:>9.1}% \
             {:>7.1}% {:>7.1}% | {:>8.1}% {:>9.1}%",
            tasks as f64 / seconds / 1e6,
            total as f64 / nodes.len().max(1) as f64,
            largest as f64 / share,
            tail(&program_order),
            tail(&nodes),
            tail(&nodes_of(&guessed)),
            tail(&sorted),
            (one_by_one as f64 / share - 1.0) * 100.0,
            lanes_busy(&nodes),
        );
    }
}
