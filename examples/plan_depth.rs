//! Plans one board at one split depth, several times, for profiling the planning alone:
//! `cargo run --release --example plan_depth [N] [DEPTH] [TIMES]` (18, 3, 5 by default).

use nqueens::{Board, Plan, Split, Symmetry};
use std::time::Instant;

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap())
        .collect();
    let (n, depth, times) = (
        args.first().copied().unwrap_or(18),
        args.get(1).copied().unwrap_or(3),
        args.get(2).copied().unwrap_or(5),
    );
    for _ in 0..times {
        let started = Instant::now();
        let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, Split::Depth(depth));
        let planned = started.elapsed().as_secs_f64();
        let units = plan.units().len();
        let started = Instant::now();
        drop(plan);
        println!(
            "n = {n}, depth {depth}: {units} units planned in {planned:.4} s, freed in {:.4} s",
            started.elapsed().as_secs_f64()
        );
    }
}
