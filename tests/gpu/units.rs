//! The units the GPU kernel's tests give it (`tests/gpu_kernel.rs` on the kernel's source compiled for the host,
//! `tests/gpu_ptx.rs` on its PTX, `tests/gpu.rs` on a GPU): a plan's starts, random deep ones of large boards,
//! and their cut into tasks; and what a GPU run reported of them, checked against the CPU.
// Each test file that includes this uses a part of it.
#![allow(dead_code)]

use nqueens::engine::exec::Progress;
use nqueens::engine::kernel::{self, Kernel, Start, Tally};
use nqueens::gpu::task::{self, Table, Task};
use nqueens::{Count, Plan, WorkUnit};
use std::sync::Mutex;

/// The starts cut into tasks at `depth` for the kernel: the tasks, each start's table, and what the host
/// counted itself (all of a start the kernel does not take).
pub fn cut(width: u32, starts: &[Start], depth: u32) -> (Vec<Task>, Vec<Table>, Vec<Tally>) {
    let mut tasks = Vec::new();
    let mut tables = Vec::new();
    let mut host = Vec::new();
    for (slot, start) in starts.iter().enumerate() {
        match task::table_of(start, width) {
            Some(table) => {
                host.push(task::split(
                    start,
                    &table,
                    width,
                    depth,
                    slot as u32,
                    &mut |t, _| tasks.push(t),
                ));
                tables.push(table);
            }
            None => {
                host.push(kernel::count_start_with(
                    Kernel::Scalar,
                    width,
                    start.clone(),
                ));
                tables.push([0; 32]);
            }
        }
    }
    (tasks, tables, host)
}

/// The starts of `plan`'s units (those with rows left to search).
pub fn plan_starts(plan: &Plan) -> Vec<Start> {
    plan.units().iter().filter_map(|u| plan.start(u)).collect()
}

/// A random start of `plan` taken down to `left` rows from its end by random queens: a unit of a deep split.
pub fn deep_start(plan: &Plan, rng: &mut fastrand::Rng, left: u32) -> Option<Start> {
    let units = plan.units();
    let mut start = plan.start(&units[rng.usize(..units.len())])?;
    while start.row + left < start.frame.end {
        let free = start.frame.free(start.row, start.masks);
        if free == 0 {
            return None;
        }
        let squares: Vec<u32> = (0..64).filter(|c| free >> c & 1 == 1).collect();
        start.masks = start.masks.place(1 << squares[rng.usize(..squares.len())]);
        start.row += 1;
    }
    Some(start)
}

/// Records each unit's count as the executor reports it.
#[derive(Default)]
pub struct Units(pub Mutex<Vec<(usize, Count)>>);

impl Progress for Units {
    fn unit_done(&self, unit: &WorkUnit, count: &Count) {
        self.0.lock().unwrap().push((unit.index, *count));
    }
}

/// Checks what a run of `plan` reported to `seen`: each of the units `expected` once (in any order), each with
/// the CPU's count, and `sum`, the run's total, their sum.
pub fn check_reported(plan: &Plan, seen: Units, expected: &[usize], sum: Count) {
    let mut seen = seen.0.into_inner().unwrap();
    seen.sort_by_key(|&(i, _)| i);
    let mut expected = expected.to_vec();
    expected.sort();
    assert_eq!(seen.iter().map(|&(i, _)| i).collect::<Vec<_>>(), expected);
    for &(i, count) in &seen {
        // A unit whose nodes the kernel left uncounted (`--uncounted-nodes`) is the CPU's count without them.
        let cpu = plan.count_unit(&plan.units()[i]);
        let expected = if count.uncounted == 0 {
            cpu
        } else {
            cpu.without_nodes()
        };
        assert_eq!(count, expected, "{} unit {i}", plan.board());
    }
    assert_eq!(sum, seen.iter().map(|&(_, c)| c).sum());
}
