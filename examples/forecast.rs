//! How close `nqueens estimate` comes to the count it forecasts: `cargo run --release --example forecast
//! [SECONDS] N...` samples each board for SECONDS (2 by default) on every core, then counts it there, and prints
//! the forecast nodes and time beside the counted ones.

use nqueens::engine::exec::NoProgress;
use nqueens::engine::forecast::Forecast;
use nqueens::CountRequest;
use std::time::{Duration, Instant};

fn main() {
    let mut args: Vec<f64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: SECONDS N..."))
        .collect();
    let seconds = if args.len() > 1 { args.remove(0) } else { 2.0 };
    let threads = num_cpus::get();
    println!("| n | units | forecast nodes (± error) | counted nodes | off | forecast time | counted time | off | sampling |");
    println!("|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for n in args {
        let request = CountRequest::new(n as u32).unwrap().threads(threads);
        let plan = request.plan();
        let forecast = Forecast::sample(&plan, threads, Duration::from_secs_f64(seconds));
        let started = Instant::now();
        let result = nqueens::count(&request, &NoProgress).unwrap();
        let counted = started.elapsed().as_secs_f64();
        let time = forecast.seconds().unwrap_or(0.0);
        // The CPU counts every unit's nodes.
        let nodes = result.nodes.expect("the CPU counts nodes") as f64;
        println!(
            "| {n} | {} | {:.4e} (± {:.1}%) | {:.4e} | {:+.1}% | {time:.2} s | {counted:.2} s | {:+.1}% | {:.2} s, {} samples, cut {} |",
            forecast.units,
            forecast.nodes,
            100.0 * forecast.nodes_error / forecast.nodes,
            nodes,
            100.0 * (forecast.nodes / nodes - 1.0),
            100.0 * (time / counted - 1.0),
            forecast.sampled_seconds,
            forecast.samples,
            forecast.cut_depth,
        );
    }
}
