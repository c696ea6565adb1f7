//! The GPU kernel as NVRTC compiles it for a Hopper GPU (`sm_90`) and the other architectures the program may
//! meet, its PTX run by an interpreter on the host (`tests/ptx/`) against the CPU kernel unit by unit: solutions
//! and nodes. `tests/gpu_kernel.rs` runs the
//! kernel's source compiled as C++, which leaves out what only the GPU compiles: the turn written in PTX
//! (the default, but with `NQ_TURN_C`), the look-ahead's `bfind`, every `__CUDA_ARCH__` branch, and the block's threads
//! fixed as the program builds them. This runs those, in blocks of the program's 128 threads with the shared
//! memory the program gives a block, and fails on any access outside it.
//!
//! It needs the `cuda` feature and NVRTC (no GPU), and skips, saying why, where NVRTC is not found (unless
//! `NQUEENS_REQUIRE_NVRTC` is set, as CI sets it where it installed NVRTC):
//! `LD_LIBRARY_PATH=<CUDA's lib folder> cargo test --profile test-release --features cuda --test gpu_ptx`.
#![cfg(feature = "cuda")]

#[path = "ptx/mod.rs"]
mod ptx;
#[path = "gpu/units.rs"]
mod units;

use nqueens::engine::kernel::{self, Kernel, Start, Tally};
use nqueens::gpu::{self, task, task::Turns, Batch, Device};
use nqueens::{Board, Count, Error, Plan, Split, Symmetry};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;
use units::{check_reported, cut, deep_start, plan_starts, Units};

/// The program's threads a block (`src/gpu/cuda.rs`), which the kernel takes as a constant.
const THREADS: u32 = 128;
/// Blocks run: two, so that the shared memory of each is its own.
const BLOCKS: u32 = 2;

/// The GPUs' architectures the program may compile for besides Hopper's (`sm_90`): Turing, Ampere (A100 and the
/// others), Ada, Blackwell's data-centre and consumer GPUs (B200, RTX 5090). NVRTC writes their PTX in two
/// dialects (sm_100 on: `.b32` types, `atom.relaxed.gpu`), and the program compiles for the GPU at hand.
const OTHER_ARCHITECTURES: [(i32, i32); 6] = [(7, 5), (8, 0), (8, 6), (8, 9), (10, 0), (12, 0)];

/// A build of the kernel: the architecture, the switches, the loop's build, the block's threads.
type Variant = ((i32, i32), &'static [&'static str], Turns, u32);

/// The variants run: the architecture, the switches (as `NQUEENS_GPU_DEFINES` names them), the loop's build
/// (turns between tests, squares of a sentinel, the stack with or without a level for the last row) and the
/// block's threads (the program's 128 but where said). On Hopper, the program's three builds for the default
/// (the look-ahead, its turn's shared accesses in PTX) on a rectangle and on a square board (no stack for the
/// last row), and `NQ_PLAIN` (without the look-ahead); the other variants with sixteen turns (the program's
/// for boards 19 to 24 wide): the turn written in C with and without the look-ahead (the twenty-first session's
/// default), and the kernel that counts no node (`NQ_UNCOUNTED`, `count --uncounted-nodes`; its solutions are
/// checked, and its nodes are 0), on a rectangle and on a square board; the default with one turn a pass. On
/// the other architectures, the program's builds of the default (on a square board too) and of `NQ_PLAIN` for
/// boards to 18 and 19 to 24 wide; and on Turing, those for the widest boards in blocks of 64 threads, as the
/// program builds them there; and the look-ahead's row taken with its frame (`NQ_AHEAD_FRAME`) on Hopper, on
/// rectangles and square boards, counted and not, and on the other architectures on a square board (a large
/// run's trial of the loops may choose it on any GPU). (The variants a GPU measured slower went from the kernel in
/// the twenty-seventh and thirty-second sessions, and from here with them.)
fn variants() -> Vec<Variant> {
    let hopper = (9, 0);
    let program = [
        Turns::for_width(12),
        Turns::for_width(19),
        Turns::for_width(task::MAX_SIDE),
    ];
    let mut v: Vec<Variant> = Vec::new();
    for turns in program {
        v.push((hopper, &[], turns, THREADS));
        v.push((hopper, &["NQ_PLAIN"], turns, THREADS));
    }
    let sixteen = Turns::for_width(19);
    v.push((hopper, &["NQ_TURN_C"], sixteen, THREADS));
    v.push((hopper, &["NQ_PLAIN", "NQ_TURN_C"], sixteen, THREADS));
    v.push((hopper, &["NQ_UNCOUNTED"], sixteen, THREADS));
    v.push((
        hopper,
        &["NQ_UNCOUNTED"],
        sixteen.with_unpushed_last(true),
        THREADS,
    ));
    // As the program builds them on a square board: the stack and table without the last row (the
    // twenty-sixth session's), with sixteen turns and with eight on one sentinel and on two.
    for turns in program {
        v.push((hopper, &[], turns.with_unpushed_last(true), THREADS));
    }
    v.push((hopper, &[], Turns::asked(1, 12), THREADS));
    // The look-ahead's row taken with its frame (NQ_AHEAD_FRAME, which a large run's trial may choose): on a
    // rectangle and on a square board (whose table then keeps the end's row), narrow and wide, counted and not.
    const FRAME: &[&str] = &["NQ_AHEAD_FRAME"];
    for turns in [
        sixteen,
        sixteen.with_unpushed_last(true),
        Turns::for_width(12).with_unpushed_last(true),
        Turns::for_width(task::MAX_SIDE),
        Turns::for_width(task::MAX_SIDE).with_unpushed_last(true),
    ] {
        v.push((hopper, FRAME, turns.with_ahead_frame(true), THREADS));
    }
    v.push((
        hopper,
        &["NQ_AHEAD_FRAME", "NQ_UNCOUNTED"],
        sixteen.with_unpushed_last(true).with_ahead_frame(true),
        THREADS,
    ));
    for architecture in OTHER_ARCHITECTURES {
        for turns in [Turns::for_width(12), sixteen] {
            v.push((architecture, &[], turns, THREADS));
            v.push((architecture, &[], turns.with_unpushed_last(true), THREADS));
            v.push((architecture, &["NQ_PLAIN"], turns, THREADS));
        }
        // The loop a large run's trial may choose on any GPU (`src/gpu/trial.rs`), on a square board.
        v.push((
            architecture,
            FRAME,
            sixteen.with_unpushed_last(true).with_ahead_frame(true),
            THREADS,
        ));
    }
    // A Turing GPU gives a block 64 KB of shared memory: with tasks of 28 rows the program halves the block to
    // 64 threads, and compiles the kernel for them (`task::block_threads`).
    let widest = Turns::for_width(task::MAX_SIDE);
    v.push(((7, 5), &[], widest, 64));
    v.push(((7, 5), &[], widest.with_unpushed_last(true), 64));
    v.push(((7, 5), &["NQ_PLAIN"], widest, 64));
    v
}

#[test]
fn every_switch_built_here_is_one_the_program_takes_and_each_is_built() {
    // The switches these builds name are those `NQUEENS_GPU_DEFINES` may ask for (`gpu::KERNEL_SWITCHES`), and
    // every one of those that changes the kernel is built here: a switch added to the kernel and the list
    // without a build here, or a build of a switch the program refuses, fails this.
    let built: std::collections::BTreeSet<&str> = variants()
        .iter()
        .flat_map(|(_, switches, _, _)| switches.iter().copied())
        .collect();
    for switch in &built {
        assert!(gpu::KERNEL_SWITCHES.contains(switch), "{switch}");
    }
    for switch in gpu::KERNEL_SWITCHES {
        assert!(built.contains(switch), "{switch} is not built here");
    }
}

/// A variant's kernel, read from its PTX, with what it was built for.
struct Built {
    name: String,
    turns: Turns,
    /// The block's threads, which the kernel takes as a constant.
    threads: u32,
    kernel: ptx::Kernel,
}

impl Built {
    /// Whether the build counts nodes: all but the probe `NQ_UNCOUNTED`, which reports none.
    fn counts_nodes(&self) -> bool {
        !self.name.contains("NQ_UNCOUNTED")
    }
}

/// Each variant's kernel, read from its PTX; `None` (with a message) where NVRTC is not found.
fn kernels() -> Option<&'static [Built]> {
    static BUILT: OnceLock<Option<Vec<Built>>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let mut built = Vec::new();
            for (architecture, switches, turns, threads) in variants() {
                let name = format!(
                    "{}{} ({} turns, sentinels of {} squares{}{})",
                    if architecture == (9, 0) {
                        String::new()
                    } else {
                        format!("sm_{}{}: ", architecture.0, architecture.1)
                    },
                    if switches.is_empty() {
                        "default".to_string()
                    } else {
                        switches.join(" ")
                    },
                    turns.between_tests,
                    turns.sentinel_squares,
                    if turns.unpushed_last {
                        ", no stack for the last row"
                    } else {
                        ""
                    },
                    if threads == THREADS {
                        String::new()
                    } else {
                        format!(", {threads} threads a block")
                    }
                );
                let text = match gpu::kernel_ptx_as(architecture, turns, threads, switches) {
                    Ok(text) => text,
                    Err(e)
                        if e.to_string().contains("NVRTC (libnvrtc) not found")
                            && std::env::var_os("NQUEENS_REQUIRE_NVRTC").is_none() =>
                    {
                        eprintln!("skipped: {e}");
                        return None;
                    }
                    Err(e) => panic!("{name}: {e}"),
                };
                let kernel = ptx::Kernel::parse(&text, "count_tasks")
                    .unwrap_or_else(|e| panic!("{name}: the PTX does not read: {e}"));
                built.push(Built {
                    name,
                    turns,
                    threads,
                    kernel,
                });
            }
            Some(built)
        })
        .as_deref()
}

/// Runs `built`'s kernel on `tasks` with the slots' `tables`, as `src/gpu/cuda.rs` launches it, the clock
/// moving on by `clock_step` at each reading: each slot's tally and its tasks that reported trouble.
fn launch(
    built: &Built,
    tasks: &[task::Task],
    tables: &[task::Table],
    clock_step: u64,
) -> Vec<(Tally, u32)> {
    launch_counting(built, tasks, tables, clock_step).0
}

/// [`launch`], and how often each of the kernel's instructions was issued.
fn launch_counting(
    built: &Built,
    tasks: &[task::Task],
    tables: &[task::Table],
    clock_step: u64,
) -> (Vec<(Tally, u32)>, Vec<u64>) {
    let (tallies, issued, launches) = launch_with_budget(built, tasks, tables, clock_step, 0);
    assert_eq!(launches, 1, "a launch without a budget takes every task");
    (tallies, issued)
}

/// [`launch_counting`] with each launch's `budget` (units of 2^16 cycles of the clock; 0 for none), launched
/// again with the same buffers while tasks are left, as `src/gpu/cuda.rs` does: also the launches it took.
fn launch_with_budget(
    built: &Built,
    tasks: &[task::Task],
    tables: &[task::Table],
    clock_step: u64,
    budget: u32,
) -> (Vec<(Tally, u32)>, Vec<u64>, u32) {
    let levels = tasks.iter().map(task::Task::levels).max().unwrap_or(1);
    let stack_levels = built.turns.stack_levels(levels);
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
        ptx::Arg::U32(stack_levels),
        ptx::Arg::U32(budget),
    ];
    let launch = ptx::Launch {
        blocks: BLOCKS,
        threads: built.threads,
        shared: (built.threads * built.turns.shared_per_thread(levels)) as usize,
        slice: 7,
        clock_step,
    };
    let word = |b: &[u8], i: usize, size: usize| -> u64 {
        let mut w = [0u8; 8];
        w[..size].copy_from_slice(&b[i * size..(i + 1) * size]);
        u64::from_le_bytes(w)
    };
    // Launched again with the buffers as the last launch left them while tasks are left (`next` below the
    // tasks), as the host does.
    let mut args = args;
    let mut issued: Vec<u64> = Vec::new();
    let mut launches = 0u32;
    let buffers = loop {
        let ran = built
            .kernel
            .run(&launch, args.clone())
            .unwrap_or_else(|e| panic!("the kernel's PTX went wrong: {e}"));
        launches += 1;
        issued.resize(ran.issued.len(), 0);
        for (all, now) in issued.iter_mut().zip(&ran.issued) {
            *all += now;
        }
        let taken = word(ran.buffers[2].as_ref().unwrap(), 0, 4);
        if taken >= tasks.len() as u64 {
            break ran.buffers;
        }
        assert!(launches < 1 << 20, "launches that take no task");
        for (arg, buffer) in args.iter_mut().zip(ran.buffers) {
            if let Some(buffer) = buffer {
                *arg = ptx::Arg::Buffer(buffer);
            }
        }
    };
    let (solutions, nodes, trouble) = (
        buffers[4].as_ref().unwrap(),
        buffers[5].as_ref().unwrap(),
        buffers[6].as_ref().unwrap(),
    );
    // Every task taken once, and each thread's last try past the end, in the last launch: where a budget ended
    // a launch, a thread took no task past it, and in the last launch some threads may have stopped for it.
    let past = word(buffers[2].as_ref().unwrap(), 0, 4) - tasks.len() as u64;
    let threads = u64::from(BLOCKS * built.threads);
    if budget == 0 {
        assert_eq!(past, threads, "every thread's last try past the end");
    } else {
        assert!((1..=threads).contains(&past), "{past} tries past the end");
    }
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
    (tallies, issued, launches)
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
    for built in kernels {
        let (name, turns) = (&built.name, built.turns);
        // A build without stack for the last row takes only tasks whose rows end with no free column (a
        // square board's), as the program builds it.
        if !turns.takes(width) || (turns.unpushed_last && tasks.iter().any(|t| t.low() != 0)) {
            continue;
        }
        let device = launch(built, &tasks, &tables, 0);
        for (slot, start) in starts.iter().enumerate() {
            assert_eq!(device[slot].1, 0, "{name} {what}: trouble at start {slot}");
            let mut got = Tally {
                solutions: host[slot].solutions + device[slot].0.solutions,
                nodes: host[slot].nodes + device[slot].0.nodes,
            };
            if !built.counts_nodes() {
                assert_eq!(device[slot].0.nodes, 0, "{name} {what}, start {slot}");
                got.nodes = expected[slot].nodes;
            }
            assert_eq!(
                got, expected[slot],
                "{name} {what}, start {slot}: {start:?}"
            );
        }
    }
}

#[test]
fn the_compiled_kernel_counts_every_unit_as_the_cpu_does() {
    for n in 4..=10 {
        for symmetry in [Symmetry::Full, Symmetry::Mirror, Symmetry::None] {
            let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::Auto { threads: 1 });
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

#[test]
fn the_compiled_kernel_ends_a_launch_whose_budget_is_spent_and_goes_on_in_the_next() {
    let Some(kernels) = kernels() else {
        return;
    };
    // The clock moving on by 2^16 cycles at each reading and a budget of one such unit: every thread takes one
    // task a launch (its first is always taken), and the batch is launched again until every task is taken,
    // as the host does on a GPU whose driver stops long kernels. The counts are those of one launch without a
    // budget, in the program's builds of the default, without the look-ahead, and with the last row closed
    // without a turn, its stack with a level for that row and without.
    let plan = Plan::new(
        Board::new(11).unwrap(),
        Symmetry::Full,
        Split::Auto { threads: 1 },
    );
    let (tasks, tables, _) = cut(11, &plan_starts(&plan), 1);
    let threads = (BLOCKS * THREADS) as usize;
    assert!(tasks.len() > 2 * threads, "{} tasks", tasks.len());
    let unpushed = kernels
        .iter()
        .position(|b| b.turns.unpushed_last)
        .expect("a build without stack for the last row");
    for i in [0, 1, 2, 3, unpushed] {
        let built = &kernels[i];
        let (whole, _) = launch_counting(built, &tasks, &tables, 1 << 16);
        let (parts, _, launches) = launch_with_budget(built, &tasks, &tables, 1 << 16, 1);
        assert_eq!(parts, whole, "{}", built.name);
        assert!(
            launches as usize >= tasks.len() / threads,
            "{}: {launches} launches for {} tasks",
            built.name,
            tasks.len()
        );
    }
}

#[test]
fn the_compiled_kernel_launched_without_a_task_ends_at_once_and_writes_nothing() {
    let Some(kernels) = kernels() else {
        return;
    };
    // As `src/gpu/cuda.rs` warms a GPU up (`NQUEENS_GPU_WARM_LAUNCH=1`, `launch_empty`): one block, no task,
    // buffers of one entry, the shared memory of a task of two rows. Each thread tries once for a task, finds
    // none and ends, before its first turn and with nothing written but the counter of tasks taken.
    for built in kernels {
        let levels = 2;
        let args = vec![
            ptx::Arg::Buffer(vec![0; 16]),
            ptx::Arg::U32(0),
            ptx::Arg::Buffer(vec![0; 4]),
            ptx::Arg::Buffer(vec![0; 4 * 32]),
            ptx::Arg::Buffer(vec![0; 8]),
            ptx::Arg::Buffer(vec![0; 8]),
            ptx::Arg::Buffer(vec![0; 4]),
            ptx::Arg::U32(built.turns.stack_levels(levels)),
            ptx::Arg::U32(0),
        ];
        let launch = ptx::Launch {
            blocks: 1,
            threads: built.threads,
            shared: (built.threads * built.turns.shared_per_thread(levels)) as usize,
            slice: 7,
            clock_step: 0,
        };
        let ran = built
            .kernel
            .run(&launch, args)
            .unwrap_or_else(|e| panic!("{}: the kernel's PTX went wrong: {e}", built.name));
        let buffer = |i: usize| ran.buffers[i].as_deref().expect("a buffer");
        let tries = u32::from_le_bytes(buffer(2).try_into().unwrap());
        assert_eq!(
            tries, built.threads,
            "{}: a try for a task a thread",
            built.name
        );
        for (i, what) in [
            (0, "tasks"),
            (3, "tables"),
            (4, "solutions"),
            (5, "nodes"),
            (6, "trouble"),
        ] {
            assert!(
                buffer(i).iter().all(|&b| b == 0),
                "{}: the {what} were written",
                built.name
            );
        }
        // No turn: a thread's first pass takes no task and leaves; a turn alone is some twenty instructions.
        let issued: u64 = ran.issued.iter().sum();
        let each = issued / u64::from(built.threads);
        assert!(each < 60, "{}: {each} instructions a thread", built.name);
    }
}

#[test]
fn the_compiled_kernel_marks_the_units_whose_counters_it_cannot_vouch_for() {
    let Some(kernels) = kernels() else {
        return;
    };
    // The program's build for boards 19 to 24 wide: sixteen turns a pass, so a task is trusted below 2^40
    // cycles of the multiprocessor's clock (2^36 passes of at least 16 cycles a turn).
    let built = &kernels[3];
    let (name, turns) = (&built.name, built.turns);
    assert_eq!(turns.between_tests, 16, "{name}");
    let plan = Plan::new(
        Board::new(9).unwrap(),
        Symmetry::Full,
        Split::Auto { threads: 1 },
    );
    let (tasks, tables, _) = cut(9, &plan_starts(&plan), 0);
    let quick = launch(built, &tasks, &tables, 0);
    // With the clock moving on by 2^40 cycles at each reading, every task seems to run too long: each unit is
    // marked once for each of its tasks, and its counts are still given.
    let slow = launch(built, &tasks, &tables, 1 << 40);
    for (slot, (tally, trouble)) in slow.iter().enumerate() {
        let mine = tasks.iter().filter(|t| t.slot() as usize == slot).count() as u32;
        assert_eq!(*trouble, mine, "slot {slot}");
        assert_eq!(*tally, quick[slot].0);
    }
    assert!(slow.iter().any(|&(_, t)| t > 0));
    // Half as far, none.
    let trusted = launch(built, &tasks, &tables, 1 << 39);
    assert!(trusted.iter().all(|&(_, t)| t == 0));

    // Built to trust its counters below 2^7 turns (16 passes of eight), it marks each unit with a task of
    // more, and only those. Without the look-ahead (NQ_PLAIN) a task's turns are its nodes: exactly the units
    // with a task of more than 2^7 nodes. The look-ahead takes fewer turns than nodes: some of those units,
    // and no other (tests/gpu_kernel.rs counts each task's turns, and checks its marks exactly).
    let eight = Turns::for_width(12);
    let short = |switches: &[&str]| {
        let text = gpu::kernel_ptx_as((9, 0), eight, THREADS, switches).unwrap();
        Built {
            name: switches.join(" "),
            turns: eight,
            threads: THREADS,
            kernel: ptx::Kernel::parse(&text, "count_tasks").unwrap(),
        }
    };
    let plain = short(&["NQ_PLAIN", "NQ_TRUSTED_TURNS_LOG=7u"]);
    let ahead = short(&["NQ_TRUSTED_TURNS_LOG=7u"]);
    for n in [10, 11] {
        let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, Split::Depth(1));
        let (tasks, tables, _) = cut(n, &plan_starts(&plan), 0);
        let quick = launch(built, &tasks, &tables, 0);
        let mut long = vec![0u32; tables.len()];
        for t in &tasks {
            let tally = task::count_task(t, &tables[t.slot() as usize]);
            // The turns of its passes: its nodes, and the turns after its end that a last pass took.
            if tally.nodes.div_ceil(u64::from(eight.between_tests)) >= 16 {
                long[t.slot() as usize] += 1;
            }
        }
        assert!(long.iter().any(|&l| l > 0) && long.contains(&0));
        let marked = launch(&plain, &tasks, &tables, 0);
        for (slot, (tally, trouble)) in marked.iter().enumerate() {
            assert_eq!(*trouble, long[slot], "n = {n}, slot {slot}");
            assert_eq!(*tally, quick[slot].0);
        }
        let marked = launch(&ahead, &tasks, &tables, 0);
        for (slot, (tally, trouble)) in marked.iter().enumerate() {
            assert!(*trouble <= long[slot], "n = {n}, slot {slot}");
            assert_eq!(*tally, quick[slot].0);
        }
        // Board 11 has tasks of more than 2^7 turns with the look-ahead too.
        if n == 11 {
            assert!(marked.iter().any(|&(_, t)| t > 0));
        }
    }
}

#[test]
fn the_compiled_kernel_counts_a_rectangles_solutions_past_32_bits() {
    let Some(kernels) = kernels() else {
        return;
    };
    // A turn of the look-ahead counts the last row's free squares as solutions, up to the board's width on a
    // rectangle: there a task's count of solutions is 64-bit. Started at 2^32 - 4 (a switch of the tests), the
    // program's builds for a rectangle (eight turns on two sentinels of four squares, the pass's solutions
    // apart; sixteen on two of eight, with the pass's nodes) lose none past 2^32.
    let from = 0xffff_fffc_u64;
    let board = Board::rect(12, 7).unwrap();
    let plan = Plan::new(board, Symmetry::None, Split::Auto { threads: 1 });
    let (tasks, tables, _) = cut(board.width(), &plan_starts(&plan), 0);
    let right = launch(&kernels[0], &tasks, &tables, 0);
    for turns in [Turns::for_width(task::MAX_SIDE), Turns::for_width(19)] {
        let text =
            gpu::kernel_ptx_as((9, 0), turns, THREADS, &["NQ_SOLUTIONS_FROM=0xfffffffcu"]).unwrap();
        let built = Built {
            name: format!("solutions from 2^32 - 4, {} turns", turns.between_tests),
            turns,
            threads: THREADS,
            kernel: ptx::Kernel::parse(&text, "count_tasks").unwrap(),
        };
        for (slot, (tally, _)) in launch(&built, &tasks, &tables, 0).iter().enumerate() {
            let mine = tasks.iter().filter(|t| t.slot() as usize == slot).count() as u64;
            assert_eq!(
                tally.solutions,
                right[slot].0.solutions + mine * from,
                "{}: slot {slot}",
                built.name
            );
            assert_eq!(tally.nodes, right[slot].0.nodes, "{}", built.name);
        }
    }
}

#[test]
fn the_interpreter_refuses_what_the_gpu_would_not_do() {
    let Some(kernels) = kernels() else {
        return;
    };
    // A block given one thread's shared memory too few: the last thread's stack runs past the block's bytes,
    // which the GPU would let it do (into the next block's, or a fault) and the interpreter does not.
    let Built { turns, kernel, .. } = &kernels[0];
    let plan = Plan::new(
        Board::new(8).unwrap(),
        Symmetry::None,
        Split::Auto { threads: 1 },
    );
    let (tasks, tables, _) = cut(8, &plan_starts(&plan), 1);
    let levels = tasks.iter().map(task::Task::levels).max().unwrap();
    let args = || {
        let mut words = tasks.iter().flat_map(|t| [t.fc, t.ld, t.rd, t.unit]);
        vec![
            ptx::Arg::Buffer(words.by_ref().flat_map(u32::to_le_bytes).collect()),
            ptx::Arg::U32(tasks.len() as u32),
            ptx::Arg::Buffer(vec![0; 4]),
            ptx::Arg::Buffer(
                tables
                    .iter()
                    .flatten()
                    .flat_map(|w| w.to_le_bytes())
                    .collect(),
            ),
            ptx::Arg::Buffer(vec![0; 8 * tables.len()]),
            ptx::Arg::Buffer(vec![0; 8 * tables.len()]),
            ptx::Arg::Buffer(vec![0; 4 * tables.len()]),
            ptx::Arg::U32(levels),
            ptx::Arg::U32(0),
        ]
    };
    let launch = |threads: u32, shared_threads: u32| ptx::Launch {
        blocks: 1,
        threads,
        shared: (shared_threads * turns.shared_per_thread(levels)) as usize,
        slice: 7,
        clock_step: 0,
    };
    assert!(kernel.run(&launch(THREADS, THREADS), args()).is_ok());
    let short = kernel.run(&launch(THREADS, THREADS - 1), args());
    assert!(
        short.as_ref().is_err_and(|e| e.contains("out of bounds")),
        "{:?}",
        short.err()
    );
    // Launched with other blocks than it was compiled for, the kernel traps rather than overlap its threads.
    let other = kernel.run(&launch(THREADS / 2, THREADS), args());
    assert!(
        other.as_ref().is_err_and(|e| e.contains("trapped")),
        "{:?}",
        other.err()
    );
}

/// A GPU that runs the compiled kernel through the interpreter, batch by batch as `src/gpu/cuda.rs` hands them
/// to a real one: so the host's whole part of a GPU run (the cut, the batches, the Burnside units' parts, the
/// units whose counters the kernel cannot vouch for counted again on the CPU) runs with the kernel it feeds.
struct InterpretedGpu<'a> {
    built: &'static Built,
    clock_step: u64,
    done: VecDeque<(Batch, Vec<Option<Tally>>, usize)>,
    /// Slots whose tally the kernel did not vouch for, all GPUs together.
    doubtful: &'a AtomicUsize,
    /// The loops a trial may choose from (none: it offers no choice), each with the seconds its clock
    /// gives any batch; the one it counts with, and the seconds of the last batch collected.
    loops: Vec<(&'static Built, f64)>,
    current: usize,
    last: Option<f64>,
}

impl Device for InterpretedGpu<'_> {
    fn name(&self) -> String {
        "the PTX interpreter".into()
    }

    fn depth(&self) -> usize {
        2
    }

    fn submit(&mut self, batch: Batch) -> Result<(), Error> {
        let tallies = launch(self.built, &batch.tasks, &batch.tables, self.clock_step)
            .into_iter()
            .map(|(tally, trouble)| (trouble == 0).then_some(tally))
            .collect::<Vec<_>>();
        self.doubtful.fetch_add(
            tallies.iter().filter(|t| t.is_none()).count(),
            Ordering::Relaxed,
        );
        self.done.push_back((batch, tallies, self.current));
        Ok(())
    }

    fn collect(&mut self) -> Result<(Batch, Vec<Option<Tally>>), Error> {
        let (batch, tallies, used) = self
            .done
            .pop_front()
            .ok_or_else(|| Error::Gpu("no batch under way".into()))?;
        self.last = self.loops.get(used).map(|l| l.1);
        Ok((batch, tallies))
    }

    fn counts_nodes(&self) -> bool {
        self.built.counts_nodes()
    }

    fn loops(&self) -> Vec<String> {
        self.loops.iter().map(|l| l.0.name.clone()).collect()
    }

    fn use_loop(&mut self, index: usize) -> Result<(), Error> {
        if let Some(&(built, _)) = self.loops.get(index) {
            self.built = built;
            self.current = index;
        }
        Ok(())
    }

    fn last_seconds(&mut self) -> Result<Option<f64>, Error> {
        Ok(self.last)
    }
}

/// Counts all of `plan` with `gpus` interpreted GPUs running `built`'s kernel, the
/// clock moving on by `clock_step` at each reading, and checks every unit against the CPU's count: the sum, and
/// the slots whose tally the kernel did not vouch for.
fn dispatch_checked(
    plan: &Plan,
    built: &'static Built,
    gpus: usize,
    clock_step: u64,
) -> (Count, usize) {
    let all: Vec<usize> = (0..plan.units().len()).collect();
    let seen = Units::default();
    let doubtful = AtomicUsize::new(0);
    let open = |_| {
        Ok(InterpretedGpu {
            built,
            clock_step,
            done: VecDeque::new(),
            doubtful: &doubtful,
            loops: Vec::new(),
            current: 0,
            last: None,
        })
    };
    let (sum, run) = gpu::dispatch(
        plan,
        &all,
        &|| Ok(vec![0; gpus]),
        &open,
        &AtomicBool::new(false),
        &seen,
    )
    .expect("the interpreted GPUs count");
    assert_eq!(run.device.split(", ").count(), gpus);
    check_reported(plan, seen, &all, sum);
    (sum, doubtful.into_inner())
}

#[test]
fn a_gpu_run_with_the_compiled_kernel_gives_every_unit_the_cpus_count() {
    let Some(kernels) = kernels() else {
        return;
    };
    // The program's build for boards to 18 wide, and the loop without the look-ahead with sixteen turns.
    let built = &kernels[0];
    assert_eq!(built.turns, Turns::for_width(12), "{}", built.name);
    let plain = kernels
        .iter()
        .find(|b| b.name.starts_with("NQ_PLAIN (") && b.turns.between_tests == 16)
        .unwrap();
    let uncounted = kernels
        .iter()
        .find(|b| b.name.starts_with("NQ_UNCOUNTED ("))
        .unwrap();
    let unpushed = kernels
        .iter()
        .find(|b| b.turns == Turns::for_width(12).with_unpushed_last(true))
        .unwrap();
    let framed = kernels
        .iter()
        .find(|b| {
            b.turns
                == Turns::for_width(12)
                    .with_unpushed_last(true)
                    .with_ahead_frame(true)
        })
        .unwrap();
    for n in [8, 11] {
        for symmetry in [Symmetry::Full, Symmetry::Mirror] {
            let plan = Plan::new(
                Board::new(n).unwrap(),
                symmetry,
                Split::Auto { threads: 16 },
            );
            let (sum, doubtful) = dispatch_checked(&plan, built, 1, 0);
            let expected = nqueens::report::known::lookup(n).unwrap().total;
            assert_eq!((sum.total, doubtful), (expected, 0), "n = {n} {symmetry:?}");
            // Two GPUs (one named twice) share the batches; the loop without the look-ahead counts the same.
            assert_eq!(dispatch_checked(&plan, built, 2, 0), (sum, 0));
            assert_eq!(dispatch_checked(&plan, plain, 1, 0), (sum, 0));
            // The last row closed without a turn, its stack without a level for it, as the program builds it
            // on a square board: the run's batches sized so.
            assert_eq!(dispatch_checked(&plan, unpushed, 1, 0), (sum, 0));
            // The look-ahead's row with its frame (NQ_AHEAD_FRAME), its table keeping the end's row.
            assert_eq!(dispatch_checked(&plan, framed, 1, 0), (sum, 0));
            // The kernel that leaves the nodes uncounted (`--uncounted-nodes`): the same solutions, and the
            // units it counted say their nodes are not known (dispatch_checked holds each to the CPU's count
            // without its nodes).
            let (alone, doubtful) = dispatch_checked(&plan, uncounted, 1, 0);
            assert_eq!(
                (alone.total, alone.unique, alone.units, doubtful),
                (sum.total, sum.unique, sum.units, 0)
            );
            assert!(alone.uncounted > 0 && alone.nodes().is_none());
        }
    }
    // A kernel whose every task seems to run too long: every unit it took is counted again on the CPU.
    let plan = Plan::new(
        Board::new(10).unwrap(),
        Symmetry::Full,
        Split::Auto { threads: 16 },
    );
    let (sum, doubtful) = dispatch_checked(&plan, built, 1, 1 << 40);
    assert_eq!(sum.total, 724);
    assert!(doubtful > 0);
}

/// A large run's trial of the program's loop and the look-ahead's row with its frame (`src/gpu/trial.rs`),
/// both as NVRTC compiles them, on a square board: both count the same sample, the run goes on with the one
/// its clock timed faster, and every unit gets the CPU's count, whichever loop counted it.
#[test]
fn a_trial_of_the_compiled_loops_goes_on_with_the_faster_and_every_unit_counts_as_on_the_cpu() {
    let Some(kernels) = kernels() else {
        return;
    };
    let program = Turns::for_width(12).with_unpushed_last(true);
    let find = |turns: Turns| {
        kernels
            .iter()
            .find(|b| b.turns == turns && b.counts_nodes() && b.threads == kernels[0].threads)
            .unwrap()
    };
    let (unpushed, framed) = (find(program), find(program.with_ahead_frame(true)));
    for n in [10, 11] {
        let plan = Plan::new(
            Board::new(n).unwrap(),
            Symmetry::Full,
            Split::Auto { threads: 16 },
        );
        let all: Vec<usize> = (0..plan.units().len()).collect();
        for (seconds, chosen) in [([1.0, 0.5], framed), ([1.0, 1.5], unpushed)] {
            let seen = Units::default();
            let doubtful = AtomicUsize::new(0);
            let open = |_| {
                Ok(InterpretedGpu {
                    built: unpushed,
                    clock_step: 0,
                    done: VecDeque::new(),
                    doubtful: &doubtful,
                    loops: vec![(unpushed, seconds[0]), (framed, seconds[1])],
                    current: 0,
                    last: None,
                })
            };
            let (sum, run) = gpu::dispatch_with(
                &plan,
                &all,
                &|| Ok(vec![0]),
                &open,
                &AtomicBool::new(false),
                &seen,
                gpu::When::Always,
            )
            .expect("the interpreted GPU counts");
            check_reported(&plan, seen, &all, sum);
            assert_eq!(sum.total, nqueens::report::known::lookup(n).unwrap().total);
            assert_eq!(doubtful.into_inner(), 0);
            // The sample is counted with the program's loop, the rest with the one chosen.
            if std::ptr::eq(chosen, unpushed) {
                assert_eq!(run.kernel_loop, unpushed.name, "n = {n}");
            } else {
                assert!(
                    run.kernel_loop.starts_with(&format!("{} ", framed.name))
                        && run.kernel_loop.contains(&format!("%, {} ", unpushed.name)),
                    "n = {n}: {}",
                    run.kernel_loop
                );
            }
            assert!(run
                .loop_trial
                .starts_with(&format!("{} 1.000 s, ", unpushed.name)));
        }
    }
}

/// PTX instructions a node on a sample of the tasks of n = `NQUEENS_PTX_BOARD` (19 if not given) as the program
/// cuts them, for the program's build and the look-ahead's: all of them, and those of taking a task (its
/// start, its table's copy, its counts' adds), which the search loop's count leaves out. A measuring aid
/// (results/gpu.md), not a check: `cargo test --profile test-release --features cuda --test gpu_ptx
/// instructions_a_node -- --ignored --nocapture`.
#[test]
#[ignore]
fn instructions_a_node() {
    let Some(kernels) = kernels() else {
        return;
    };
    let n: u32 = std::env::var("NQUEENS_PTX_BOARD")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(19);
    let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, gpu::split_for(16));
    let all: Vec<usize> = (0..plan.units().len()).collect();
    let cut = gpu::cut(&plan, &all);
    // About 500 tasks: every unit's tasks, at the run's cut, of 64 units spread over the plan, every k-th.
    let mut tasks = Vec::new();
    let mut tables = Vec::new();
    let mut every = Vec::new();
    for &u in all.iter().step_by((all.len() / 64).max(1)) {
        let Some(start) = plan.start(&plan.units()[u]) else {
            continue;
        };
        let Some(table) = task::table_of(&start, n) else {
            continue;
        };
        let slot = tables.len() as u32;
        let mut mine = Vec::new();
        task::split(&start, &table, n, cut.extra_rows, slot, &mut |t, _| {
            mine.push(t)
        });
        every.push(mine.len());
        let k = (mine.len() / 8).max(1);
        tasks.extend(mine.into_iter().step_by(k));
        tables.push(table);
    }
    println!(
        "n = {n}: {} units of {} sampled, {} rows below each ({:.0} tasks in the run), {} tasks run",
        tables.len(),
        all.len(),
        cut.extra_rows,
        cut.tasks,
        tasks.len()
    );
    println!(
        "| build | nodes a task | PTX instructions a node | of them taking a task | passes against the default's |"
    );
    println!("|---|--:|--:|--:|--:|");
    let (mut default_passes, mut default_nodes) = (None, None);
    for built in kernels {
        let (name, turns, kernel) = (&built.name, built.turns, &built.kernel);
        if turns.between_tests != task::turns_for(n) || name.starts_with("sm_") {
            continue;
        }
        let (tallies, issued) = launch_counting(built, &tasks, &tables, 0);
        // The probe that counts no node has the default's (the first build here): the same tasks.
        let counted: u64 = tallies.iter().map(|(t, _)| t.nodes).sum();
        let nodes = if built.counts_nodes() {
            default_nodes.get_or_insert(counted);
            counted
        } else {
            default_nodes.unwrap()
        };
        // Taking a task: what runs from the loop's test for a task's end to the search it branches to (the
        // loop's top is where the code before it jumps; its first guarded branch is the test). NVRTC puts the
        // search after the test, or (the turn in PTX, the default) before it, the task's code then ending in a
        // jump back to it.
        let branches = kernel.branches();
        let top = branches.iter().find(|b| !b.2).map(|b| b.1).unwrap();
        let (test, search, _) = *branches.iter().find(|b| b.2 && b.0 >= top).unwrap();
        let end = if search > test {
            search
        } else {
            branches
                .iter()
                .find(|b| !b.2 && b.0 > test && b.1 == search)
                .unwrap()
                .0
                + 1
        };
        let total: u64 = issued.iter().sum();
        let taking: u64 = issued[test + 1..end].iter().sum();
        // The loop's test runs once a pass: a pass is as many turns in every build here (sixteen), so the
        // passes say how many turns the look-ahead saves on these tasks.
        let passes = issued[test] as f64;
        let base = *default_passes.get_or_insert(passes);
        println!(
            "| {name} | {:.0} | {:.2} | {:.2} | {:.3} |",
            nodes as f64 / tasks.len() as f64,
            total as f64 / nodes as f64,
            taking as f64 / nodes as f64,
            passes / base
        );
    }
}
