//! What the GPU backend's measurement examples share.

use nqueens::{gpu, Board, Plan, Symmetry};

/// The plan `count N --backend gpu` makes of board `n` when no split is asked for, on a host of 16 threads
/// (the GPU machine's): full symmetry, the units split as [`gpu::split_for`] says.
pub fn gpu_plan(n: u32) -> Plan {
    Plan::new(
        Board::new(n).expect("a board side"),
        Symmetry::Full,
        gpu::split_for(16),
    )
}
