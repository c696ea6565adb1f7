//! What a checkpoint costs, measured without the noise of a whole run: the time to record the 181,005 unit
//! lines of n = 17 (full symmetry, split depth 2) in a journal, and to fingerprint that plan.
//!
//! `cargo run --release --example journal_cost`; the figures are in `results/checkpoint.md`.

use nqueens::runs::fingerprint::Fingerprint;
use nqueens::runs::journal::{Header, Writer, FORMAT};
use nqueens::{Board, Count, Plan, Split, Symmetry};
use std::time::Instant;

fn main() {
    let plan = Plan::new(Board::new(17).unwrap(), Symmetry::Full, Split::Depth(2));
    let started = Instant::now();
    let fingerprint = Fingerprint::of(&plan);
    let fingerprint_ms = started.elapsed().as_secs_f64() * 1e3;
    let units = plan.units().len();
    let header = Header {
        journal: "nqueens".into(),
        format: FORMAT,
        fingerprint,
        n: 17,
        columns: None,
        symmetry: "full".into(),
        split_depth: 2,
        units,
        shard: "0/1".into(),
        only: None,
        program: "journal_cost".into(),
        created: "now".into(),
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal");
    for _ in 0..5 {
        let _ = std::fs::remove_file(&path);
        let writer = Writer::create(&path, &header).unwrap();
        let started = Instant::now();
        for unit in 0..units {
            // Counts of the size n = 17's units have: a few solutions, a few thousand nodes.
            let solutions = (unit % 7) as u128;
            let count = Count {
                total: 8 * solutions,
                unique: solutions,
                nodes: 2000 + unit as u128,
                units: 1,
                uncounted: 0,
            };
            writer.record(unit, &count);
        }
        let recorded = started.elapsed().as_secs_f64();
        writer.sync().unwrap();
        drop(writer);
        println!(
            "{units} units recorded in {:.1} ms ({:.0} ns each); synced and closed after {:.1} ms",
            recorded * 1e3,
            recorded * 1e9 / units as f64,
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    println!("fingerprint of the plan: {fingerprint_ms:.1} ms");
}
