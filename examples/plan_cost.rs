//! How long planning takes (it runs on one thread before any counting): `cargo run --release --example plan_cost`.

use nqueens::engine::border::Border;
use nqueens::{Board, Plan, Split, Symmetry};
use std::time::Instant;

fn main() {
    for n in [16u32, 17, 18] {
        let t = Instant::now();
        let borders = Border::canonical(n).len();
        let canonical = t.elapsed().as_secs_f64();
        let board = Board::new(n).unwrap();
        for (name, split) in [
            ("depth 2", Split::Depth(2)),
            ("auto, 1 thread", Split::Auto { threads: 1 }),
            ("auto, 2 threads", Split::Auto { threads: 2 }),
        ] {
            let t = Instant::now();
            let plan = Plan::new(board, Symmetry::Full, split);
            println!(
                "n = {n}: {borders} canonical borders in {canonical:.4} s; {name}: {} units in {:.4} s",
                plan.units().len(),
                t.elapsed().as_secs_f64()
            );
        }
    }
}
