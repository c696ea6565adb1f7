//! The GPU kernel as NVRTC compiles it for a Hopper GPU (`sm_90`), its PTX run by an interpreter on the host
//! (`tests/ptx/`) against the CPU kernel unit by unit: solutions and nodes. `tests/gpu_kernel.rs` runs the
//! kernel's source compiled as C++, which leaves out what only the GPU compiles: the turn written in PTX
//! (`NQ_TURN_PTX`), the look-ahead's products and `bfind`, every `__CUDA_ARCH__` branch, and the block's threads
//! fixed as the program builds them. This runs those, in blocks of the program's 128 threads with the shared
//! memory the program gives a block, and fails on any access outside it.
//!
//! It needs the `cuda` feature and NVRTC (no GPU), and skips, saying why, where NVRTC is not found:
//! `LD_LIBRARY_PATH=<CUDA's lib folder> cargo test --release --features cuda --test gpu_ptx`.
#![cfg(feature = "cuda")]

#[path = "gpu/units.rs"]
mod units;
#[path = "ptx/mod.rs"]
mod ptx;

use nqueens::engine::kernel::{self, Kernel, Start, Tally};
use nqueens::gpu::{self, task, task::Turns};
use nqueens::{Board, Plan, Split, Symmetry};
use std::sync::OnceLock;
use units::{cut, deep_start, plan_starts};

/// The program's threads a block (`src/gpu/cuda.rs`), which the kernel takes as a constant.
const THREADS: u32 = 128;
/// Blocks run: two, so that the shared memory of each is its own.
const BLOCKS: u32 = 2;

/// The variants run: the switches, as `NQUEENS_GPU_DEFINES` names them, with each of the loop's builds they are
/// run with (turns between tests, squares of a sentinel, packed or not). The program's three builds for the
/// default and for `NQ_TURN_PTX`; the look-ahead's variants with sixteen turns (the program's for boards 19 to
/// 24 wide) and eight on the widest boards' sentinels; the layouts kept to measure against with eight.
fn variants() -> Vec<(&'static [&'static str], Turns)> {
    let program = [
        Turns::for_width(12),
        Turns::for_width(19),
        Turns::for_width(task::MAX_SIDE),
    ];
    let mut v: Vec<(&'static [&'static str], Turns)> = Vec::new();
    for turns in program {
        v.push((&[], turns));
        v.push((&["NQ_TURN_PTX"], turns));
        v.push((&["NQ_AHEAD", "NQ_AHEAD_BOTTOM"], turns));
    }
    let sixteen = Turns::for_width(19);
    v.push((&["NQ_AHEAD"], sixteen));
    v.push((&["NQ_AHEAD", "NQ_AHEAD_SHF"], sixteen));
    v.push((&["NQ_AHEAD", "NQ_TURN_PTX"], sixteen));
    v.push((&["NQ_AHEAD", "NQ_AHEAD_BOTTOM", "NQ_TURN_PTX"], sixteen));
    v.push((&["NQ_AHEAD"], Turns::asked(1, 12)));
    v.push((&["NQ_PAIRS_C"], sixteen));
    v.push((&["NQ_SOA"], Turns::for_width(12)));
    v.push((&["NQ_AOS"], Turns::for_width(12)));
    v.push((&["NQ_PACKED"], Turns::laid_out(8, 12, true)));
    v
}

/// Each variant's kernel, read from its PTX; `None` (with a message) where NVRTC is not found.
fn kernels() -> Option<&'static [(String, Turns, ptx::Kernel)]> {
    static BUILT: OnceLock<Option<Vec<(String, Turns, ptx::Kernel)>>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let mut built = Vec::new();
            for (switches, turns) in variants() {
                let name = format!("{} {turns:?}", switches.join(" "));
                let text = match gpu::kernel_ptx_as((9, 0), turns, THREADS, switches) {
                    Ok(text) => text,
                    Err(e) if e.to_string().contains("NVRTC (libnvrtc) not found") => {
                        eprintln!("skipped: {e}");
                        return None;
                    }
                    Err(e) => panic!("{name}: {e}"),
                };
                let kernel = ptx::Kernel::parse(&text, "count_tasks")
                    .unwrap_or_else(|e| panic!("{name}: the PTX does not read: {e}"));
                built.push((name, turns, kernel));
            }
            Some(built)
        })
        .as_deref()
}

/// Runs `kernel` (built as `turns` says) on `tasks` with the slots' `tables`, as `src/gpu/cuda.rs` launches
/// it: each slot's tally and its tasks that reported trouble, and the instructions run.
fn launch(
    kernel: &ptx::Kernel,
    turns: Turns,
    tasks: &[task::Task],
    tables: &[task::Table],
) -> (Vec<(Tally, u32)>, u64) {
    let levels = tasks.iter().map(task::Task::levels).max().unwrap_or(1);
    let slots = tables.len();
    let bytes32 = |words: &mut dyn Iterator<Item = u32>| -> Vec<u8> {
        words.flat_map(u32::to_le_bytes).collect()
    };
    let args = vec![
        ptx::Arg::Buffer(bytes32(
            &mut tasks.iter().flat_map(|t| [t.fc, t.ld, t.rd, t.unit]),
        )),
        ptx::Arg::U32(tasks.len() as u32),
        ptx::Arg::Buffer(vec![0; 4]),
        ptx::Arg::Buffer(bytes32(&mut tables.iter().flatten().copied())),
        ptx::Arg::Buffer(vec![0; 8 * slots]),
        ptx::Arg::Buffer(vec![0; 8 * slots]),
        ptx::Arg::Buffer(vec![0; 4 * slots]),
        ptx::Arg::U32(levels),
    ];
    let shared = (THREADS * turns.shared_per_thread(levels)) as usize;
    let ran = kernel
        .run(BLOCKS, THREADS, shared, args, 7)
        .unwrap_or_else(|e| panic!("the kernel's PTX went wrong: {e}"));
    let word = |b: &[u8], i: usize, size: usize| -> u64 {
        let mut w = [0u8; 8];
        w[..size].copy_from_slice(&b[i * size..(i + 1) * size]);
        u64::from_le_bytes(w)
    };
    let buffers = ran.buffers;
    let (solutions, nodes, trouble) = (
        buffers[4].as_ref().unwrap(),
        buffers[5].as_ref().unwrap(),
        buffers[6].as_ref().unwrap(),
    );
    assert_eq!(
        word(buffers[2].as_ref().unwrap(), 0, 4),
        (tasks.len() + (BLOCKS * THREADS) as usize) as u64,
        "every task taken once, and every thread's last try past the end"
    );
    let tallies = (0..slots)
        .map(|s| {
            (
                Tally {
                    solutions: word(solutions, s, 8),
                    nodes: word(nodes, s, 8),
                },
                word(trouble, s, 4) as u32,
            )
        })
        .collect();
    (tallies, ran.instructions)
}

/// Cuts `starts` (of a board `width` wide) into tasks at `depth` and checks every variant that takes the
/// board against the CPU kernel, start by start.
fn check(width: u32, starts: &[Start], depth: u32, what: &str) {
    let Some(kernels) = kernels() else {
        return;
    };
    let expected: Vec<Tally> = starts
        .iter()
        .map(|s| kernel::count_start_with(Kernel::Scalar, width, s.clone()))
        .collect();
    let (tasks, tables, host) = cut(width, starts, depth);
    for (name, turns, kernel) in kernels {
        let fits = if turns.packed {
            width <= task::PACKED_SIDE
        } else {
            width <= 32 - turns.sentinel_squares
        };
        if !fits {
            continue;
        }
        let (device, _) = launch(kernel, *turns, &tasks, &tables);
        for (slot, start) in starts.iter().enumerate() {
            assert_eq!(device[slot].1, 0, "{name} {what}: trouble at start {slot}");
            let got = Tally {
                solutions: host[slot].solutions + device[slot].0.solutions,
                nodes: host[slot].nodes + device[slot].0.nodes,
            };
            assert_eq!(got, expected[slot], "{name} {what}, start {slot}: {start:?}");
        }
    }
}

#[test]
fn the_compiled_kernel_counts_every_unit_as_the_cpu_does() {
    for n in 4..=10 {
        for symmetry in [Symmetry::Full, Symmetry::Mirror, Symmetry::None] {
            let plan = Plan::new(
                Board::new(n).unwrap(),
                symmetry,
                Split::Auto { threads: 1 },
            );
            for depth in [0, 2] {
                check(
                    n,
                    &plan_starts(&plan),
                    depth,
                    &format!("n = {n} {symmetry:?} depth {depth}"),
                );
            }
        }
    }
}

#[test]
fn the_compiled_kernel_counts_rectangles() {
    for (r, c) in [(7, 5), (9, 6), (3, 12)] {
        let board = Board::rect(r, c).unwrap();
        let plan = Plan::new(board, Symmetry::Mirror, Split::Auto { threads: 1 });
        check(board.width(), &plan_starts(&plan), 1, &format!("{board}"));
    }
}

#[test]
fn the_compiled_kernel_counts_random_units_of_boards_to_the_widest() {
    let mut rng = fastrand::Rng::with_seed(29);
    for n in [15u32, 20, 24, task::MAX_SIDE] {
        let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, Split::Units(500));
        let starts: Vec<Start> = (0..400)
            .filter_map(|_| deep_start(&plan, &mut rng, 9))
            .take(12)
            .collect();
        assert!(starts.len() >= 6, "n = {n}: too few random starts");
        check(n, &starts, 2, &format!("n = {n}"));
    }
}
