//! Where a count on many threads loses time, measured with what a small machine can measure:
//! `cargo run --release --example scaling_cost [N] [THREADS...]` (n = 18 and 1, 2, 4, 8, 16, 32 by default).
//!
//! 1. Planning, which runs on one thread before the workers start, for each thread count's automatic split.
//! 2. Starting a pool of each size (and ending it), as `count` does once per board.
//! 3. The last units: each unit's nodes are recorded in one count on this machine's threads, then the plan is
//!    scheduled as the loops take units (the next unit to whichever lane is free first) on the lanes of 1 to
//!    32 simulated threads, each unit costing its nodes; the loss is how much later the last lane ends than a
//!    perfect share would. A lane runs at a fixed share of its thread's speed, as in the vector loops, where
//!    a step costs the same however many lanes are live.
//!
//! Frequency (one busy core turbo-boosts higher than sixteen) can only be seen on the big machine itself.

use nqueens::engine::count::Count;
use nqueens::engine::exec::{self, Progress};
use nqueens::engine::plan::WorkUnit;
use nqueens::{Board, Plan, Split, Symmetry};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Searches a thread runs side by side: the AVX-512 loop's 32 (24 for AVX2, 16 for the scalar loop).
const LANES: usize = 32;

/// Each unit's nodes, by unit number.
struct Nodes(Vec<AtomicU64>);

impl Progress for Nodes {
    fn unit_done(&self, unit: &WorkUnit, count: &Count) {
        self.0[unit.index].store(count.nodes as u64, Ordering::Relaxed);
    }
}

/// The time the last of `workers` ends when they take `costs` in order, each the next unit when it is free.
fn makespan(costs: &[f64], workers: usize) -> f64 {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    // Free times as integers (nodes), smallest first.
    let mut free: BinaryHeap<Reverse<u64>> = (0..workers).map(|_| Reverse(0)).collect();
    for &c in costs {
        let Reverse(t) = free.pop().unwrap();
        free.push(Reverse(t + c as u64));
    }
    free.into_iter().map(|Reverse(t)| t).max().unwrap_or(0) as f64
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap())
        .collect();
    let n = args.first().copied().unwrap_or(18) as u32;
    let threads: Vec<usize> = if args.len() > 1 {
        args[1..].to_vec()
    } else {
        vec![1, 2, 4, 8, 16, 32]
    };
    let board = Board::new(n).unwrap();
    let here = std::thread::available_parallelism().map_or(1, |p| p.get());

    println!("## 1. Planning (one thread, before any worker starts), n = {n}, full symmetry\n");
    println!("| threads | split depth | units | planning (s), best of 3 | freeing the plan (s) |\n|--:|--:|--:|--:|--:|");

    for &t in &threads {
        let mut best = f64::INFINITY;
        let mut plan = None;
        let mut freeing = f64::INFINITY;
        for _ in 0..3 {
            let started = Instant::now();
            let p = Plan::new(board, Symmetry::Full, Split::Auto { threads: t });
            best = best.min(started.elapsed().as_secs_f64());
            if let Some(old) = plan.replace(p) {
                let started = Instant::now();
                drop(old);
                freeing = freeing.min(started.elapsed().as_secs_f64());
            }
        }
        let plan = plan.unwrap();
        println!(
            "| {t} | {} | {} | {best:.4} | {freeing:.4} |",
            plan.depth(),
            plan.units().len()
        );
    }

    println!("\n## 2. A pool's start and end (build, one broadcast, drop), best of 20\n");
    println!("| threads | seconds |\n|--:|--:|");
    for &t in &threads {
        let mut best = f64::INFINITY;
        for _ in 0..20 {
            let started = Instant::now();
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap();
            pool.broadcast(|_| ());
            drop(pool);
            best = best.min(started.elapsed().as_secs_f64());
        }
        println!("| {t} | {best:.5} |");
    }

    println!(
        "\n## 3. The last units: plan order, each unit to the first free lane, cost = nodes\n"
    );
    println!(
        "Nodes of each unit from one count on {here} threads here. A thread runs {LANES} searches side by side, \
         each at 1/{LANES} of its speed, and a lane left without a unit at the end does not speed up the others; \
         loss: how much later the last lane ends than a perfect share of the nodes.\n"
    );
    println!("| plan (depth) | units | threads | lanes | loss | largest unit / a lane's share |\n|--:|--:|--:|--:|--:|--:|");
    let depths: Vec<u32> = (1..=3).collect();
    for plan in depths
        .iter()
        .map(|&d| Plan::new(board, Symmetry::Full, Split::Depth(d)))
    {
        let plan = &plan;
        let nodes = Nodes((0..plan.units().len()).map(|_| AtomicU64::new(0)).collect());
        let started = Instant::now();
        let count = exec::run_parallel(plan, here, &nodes).unwrap();
        eprintln!(
            "depth {}: {} solutions, {} nodes in {:.2} s on {here} threads",
            plan.depth(),
            count.total,
            count.nodes,
            started.elapsed().as_secs_f64()
        );
        let costs: Vec<f64> = nodes
            .0
            .iter()
            .map(|x| x.load(Ordering::Relaxed) as f64)
            .collect();
        let largest = costs.iter().copied().fold(0.0, f64::max);
        let sum: f64 = costs.iter().sum();
        for &t in &threads {
            let lanes = t * LANES;
            let share = sum / lanes as f64;
            let loss = makespan(&costs, lanes) / share - 1.0;
            println!(
                "| {} | {} | {t} | {lanes} | {:.2}% | {:.2}% |",
                plan.depth(),
                plan.units().len(),
                loss * 100.0,
                largest / share * 100.0
            );
        }
    }
}
