//! How far the time left that progress reports is from the truth, by the share of units done and by the units'
//! estimated work: `cargo run --release --example time_left [N] [none|mirror|full]` (n = 16, full by default).
//!
//! The plan is the checkpointed runs' (`Split::durable`). Each unit's nodes are recorded in one count; the run is
//! then read in plan order, and at each share of its units the time left that each way would give is compared
//! with the real one, as time proportional to nodes: 1.00 is right, 2.00 twice too long.

use nqueens::engine::count::Count;
use nqueens::engine::estimate::WorkEstimate;
use nqueens::engine::exec::{self, Progress};
use nqueens::engine::plan::WorkUnit;
use nqueens::{Board, Plan, Split, Symmetry};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Each unit's nodes, by unit number.
struct Nodes(Vec<AtomicU64>);

impl Progress for Nodes {
    fn unit_done(&self, unit: &WorkUnit, count: &Count) {
        self.0[unit.index].store(count.nodes as u64, Ordering::Relaxed);
    }
}

/// The time left that a share `guess` of the work done gives, over the real one, where `real` is done.
fn ratio(guess: f64, real: f64) -> f64 {
    (real * (1.0 - guess)) / (guess * (1.0 - real))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u32 = args
        .first()
        .map_or(16, |a| a.parse().expect("a board size"));
    let symmetry: Symmetry = args
        .get(1)
        .map_or(Ok(Symmetry::Full), |s| s.parse())
        .expect("none, mirror or full");
    let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::durable(symmetry));
    let units = plan.units().len();
    let began = Instant::now();
    let estimate = WorkEstimate::of(&plan);
    let estimating = began.elapsed();
    let nodes = Nodes((0..units).map(|_| AtomicU64::new(0)).collect());
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get());
    let began = Instant::now();
    exec::run_parallel(&plan, threads, &nodes).unwrap();
    let counting = began.elapsed();
    let real: Vec<f64> = nodes
        .0
        .iter()
        .map(|x| x.load(Ordering::Relaxed) as f64)
        .collect();
    let (all_real, all_estimated) = (real.iter().sum::<f64>(), estimate.units(None));
    println!(
        "n = {n}, {symmetry:?}: {units} units, {all_real:.4e} nodes, estimated {all_estimated:.4e}"
    );
    println!("estimate {estimating:.2?}, count {counting:.2?} on {threads} threads\n");
    println!("| units done | work done | estimated | time left by units / real | by the estimate / real |");
    println!("|--:|--:|--:|--:|--:|");
    let (mut done_real, mut done_estimated) = (0.0, 0.0);
    let mut marks = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9]
        .into_iter()
        .peekable();
    for (i, nodes) in real.iter().enumerate() {
        done_real += nodes;
        done_estimated += estimate.unit(i);
        let share = (i + 1) as f64 / units as f64;
        if marks.peek().is_some_and(|&mark| share >= mark) {
            marks.next();
            let (work, guess) = (done_real / all_real, done_estimated / all_estimated);
            println!(
                "| {:.1}% | {:.1}% | {:.1}% | {:.2} | {:.2} |",
                100.0 * share,
                100.0 * work,
                100.0 * guess,
                ratio(share, work),
                ratio(guess, work)
            );
        }
    }
}
