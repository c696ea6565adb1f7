//! The GPU kernel's source (`src/gpu/count.cu`), compiled as C++ on the host and run as one thread, against the
//! CPU kernel unit by unit: solutions and nodes. This checks the kernel's logic on every machine with a C++
//! compiler, GPU or not; `tests/gpu.rs` runs it on a GPU where there is one.

use nqueens::engine::kernel::{self, Kernel, Start, Tally};
use nqueens::gpu;
use nqueens::gpu::task::{self, Table, Task, END, LAST};
use nqueens::report::known;
use nqueens::{Board, Plan, Split, Symmetry};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

#[path = "gpu/units.rs"]
mod units;
use units::{cut, deep_start, plan_starts};

/// The kernel's variants (its `NQ_*` switches): the default (the stack in two pairs of words a level, the
/// look-ahead in the form an H200 timed fastest, sixteen turns between tests for a task's end, one sentinel of
/// the whole word: the program's choice for boards 25 to 28 wide), the program's other builds; sentinels in the
/// words' top bits (the program's to the thirty-second session: one of eight squares, two of four, four of
/// two), four, two and one turns, the block's threads fixed as the program builds it; a kernel that trusts its
/// counters for fewer turns than its words hold, with and without the look-ahead; sixteen turns; the loop
/// without the look-ahead (`NQ_PLAIN`: a turn a node, the default to the twenty-first session); the nodes
/// uncounted (`NQ_UNCOUNTED`); and those the program builds on a square board with the stack and table sized
/// without the last row (`NQ_LAST_UNPUSHED`), which take only tasks whose rows end with no free column. (The
/// variants a GPU measured slower went from the kernel in the twenty-seventh and thirty-second sessions, and
/// from here with them.)
const VARIANTS: [&str; 39] = [
    "-DNQ_DEFAULT",
    // The program's builds since the thirty-third session: one sentinel of the whole word (the kernel's
    // default), sixteen turns on boards 19 to 28 wide and eight on narrower ones, narrow to 24 wide; on a
    // square board without a level of stack for the last row; the frame's; without the look-ahead.
    "-DNQ_NARROW",
    "-DNQ_NARROW -DNQ_LAST_UNPUSHED -DNQ_THREADS=4u",
    "-DNQ_LAST_UNPUSHED -DNQ_THREADS=4u",
    "-DNQ_NARROW -DNQ_LAST_UNPUSHED -DNQ_UNROLL=8u",
    "-DNQ_NARROW -DNQ_AHEAD_FRAME -DNQ_LAST_UNPUSHED -DNQ_THREADS=4u",
    "-DNQ_NARROW -DNQ_AHEAD_FRAME -DNQ_LAST_UNPUSHED -DNQ_UNCOUNTED",
    "-DNQ_NARROW -DNQ_PLAIN -DNQ_THREADS=4u",
    "-DNQ_NARROW -DNQ_UNCOUNTED -DNQ_LAST_UNPUSHED",
    "-DNQ_UNROLL=8u -DNQ_SENTINEL_SQUARES=8u",
    "-DNQ_UNROLL=4u -DNQ_SENTINEL_SQUARES=4u",
    "-DNQ_UNROLL=2u -DNQ_SENTINEL_SQUARES=2u",
    "-DNQ_UNROLL=1u -DNQ_SENTINEL_SQUARES=1u",
    "-DNQ_UNROLL=8u -DNQ_SENTINEL_SQUARES=2u",
    // As the program builds it: the block's threads fixed (host.h's four).
    "-DNQ_THREADS=4u -DNQ_UNROLL=8u -DNQ_SENTINEL_SQUARES=8u",
    "-DNQ_THREADS=4u -DNQ_UNROLL=1u -DNQ_SENTINEL_SQUARES=1u",
    // Counters trusted below 2^7 turns: tasks of more mark their units.
    "-DNQ_TRUSTED_TURNS_LOG=7u",
    "-DNQ_PLAIN -DNQ_TRUSTED_TURNS_LOG=7u",
    // A task's solutions counted from 2^32 - 4, as the build for a rectangle (eight turns on two sentinels of
    // four squares, the pass's solutions apart; sixteen on two of eight, with the pass's nodes).
    "-DNQ_SOLUTIONS_FROM=0xfffffffcu",
    "-DNQ_SOLUTIONS_FROM=0xfffffffcu -DNQ_UNROLL=16u -DNQ_SENTINEL_SQUARES=8u",
    // Sixteen turns, as `NQUEENS_GPU_DEFINES=NQ_UNROLL=16` asks: two sentinels of eight squares (boards to 24
    // wide), four of four (to 28 wide), the block's threads fixed.
    "-DNQ_UNROLL=16u -DNQ_SENTINEL_SQUARES=8u",
    "-DNQ_THREADS=4u -DNQ_UNROLL=16u -DNQ_SENTINEL_SQUARES=4u",
    "-DNQ_PLAIN",
    "-DNQ_PLAIN -DNQ_UNROLL=16u -DNQ_SENTINEL_SQUARES=8u",
    "-DNQ_PLAIN -DNQ_THREADS=4u -DNQ_UNROLL=1u -DNQ_SENTINEL_SQUARES=1u",
    "-DNQ_UNCOUNTED -DNQ_THREADS=4u -DNQ_UNROLL=8u -DNQ_SENTINEL_SQUARES=8u",
    "-DNQ_UNCOUNTED -DNQ_UNROLL=16u -DNQ_SENTINEL_SQUARES=4u",
    "-DNQ_LAST_UNPUSHED",
    "-DNQ_LAST_UNPUSHED -DNQ_THREADS=4u -DNQ_UNROLL=16u -DNQ_SENTINEL_SQUARES=8u",
    "-DNQ_LAST_UNPUSHED -DNQ_THREADS=4u -DNQ_UNROLL=8u -DNQ_SENTINEL_SQUARES=8u",
    "-DNQ_LAST_UNPUSHED -DNQ_UNROLL=1u -DNQ_SENTINEL_SQUARES=1u",
    "-DNQ_UNCOUNTED -DNQ_LAST_UNPUSHED -DNQ_UNROLL=16u -DNQ_SENTINEL_SQUARES=4u",
    // The look-ahead's row taken with its frame (NQ_AHEAD_FRAME), on rectangles and square boards, counted
    // and not, with one, eight and sixteen turns.
    "-DNQ_AHEAD_FRAME",
    "-DNQ_AHEAD_FRAME -DNQ_THREADS=4u -DNQ_UNROLL=16u -DNQ_SENTINEL_SQUARES=8u",
    "-DNQ_AHEAD_FRAME -DNQ_LAST_UNPUSHED",
    "-DNQ_AHEAD_FRAME -DNQ_LAST_UNPUSHED -DNQ_THREADS=4u -DNQ_UNROLL=16u -DNQ_SENTINEL_SQUARES=8u",
    "-DNQ_AHEAD_FRAME -DNQ_LAST_UNPUSHED -DNQ_UNCOUNTED -DNQ_UNROLL=1u -DNQ_SENTINEL_SQUARES=1u",
    "-DNQ_AHEAD_FRAME -DNQ_LAST_UNPUSHED -DNQ_UNCOUNTED -DNQ_THREADS=4u -DNQ_UNROLL=16u -DNQ_SENTINEL_SQUARES=8u",
    "-DNQ_AHEAD_FRAME -DNQ_SOLUTIONS_FROM=0xfffffffcu",
];

/// The value of switch `name` in variant `define`, or `default`.
fn switch(define: &str, name: &str, default: u32) -> u32 {
    define
        .split_whitespace()
        .find_map(|d| d.strip_prefix(&format!("-D{name}=")))
        .map_or(default, |t| t.trim_end_matches('u').parse().unwrap())
}

/// How variant `define` builds its loop; the kernel's defaults are the program's choice for the widest
/// boards, which the harness's check of the shared memory's layout holds it to.
fn turns(define: &str) -> task::Turns {
    let widest = task::Turns::for_width(task::MAX_SIDE);
    let sentinel_squares = switch(define, "NQ_SENTINEL_SQUARES", widest.sentinel_squares);
    task::Turns {
        between_tests: switch(define, "NQ_UNROLL", widest.between_tests),
        sentinel_squares,
        // Narrow as the kernel reads it: asked for, or sentinels of eight or sixteen squares in the top bits.
        narrow: define.split_whitespace().any(|d| d == "-DNQ_NARROW")
            || (8..32).contains(&sentinel_squares),
        unpushed_last: define.split_whitespace().any(|d| d == "-DNQ_LAST_UNPUSHED"),
        ahead_frame: define.split_whitespace().any(|d| d == "-DNQ_AHEAD_FRAME"),
    }
}

/// Whether variant `define` takes boards `width` wide: its sentinels' squares lie above the board.
fn takes(define: &str, width: u32) -> bool {
    turns(define).takes(width)
}

/// Whether variant `define` takes `tasks` of a board `width` wide: [`takes`], and where its stack has no
/// level for the last row (`NQ_LAST_UNPUSHED`), rows that end with no free column (a square board's), as
/// the program builds it.
fn takes_tasks(define: &str, width: u32, tasks: &[Task]) -> bool {
    takes(define, width) && (!turns(define).unpushed_last || tasks.iter().all(|t| t.low() == 0))
}

/// The kernel's variants built for the host, or `None` (with a message) where no C++ compiler is found.
/// They are built on every core (rayon's threads), as each unit's runs are (see [`check`]): one after the
/// other, this binary took 74 s on the 2-core development machine (results/ci.md).
fn host_kernels() -> Option<&'static [PathBuf]> {
    static BUILT: OnceLock<Option<Vec<PathBuf>>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let built: Option<Vec<PathBuf>> = (0..VARIANTS.len())
                .into_par_iter()
                .map(|i| build(i, VARIANTS[i]))
                .collect();
            if built.is_none() {
                eprintln!("skipped: no C++ compiler (c++, g++ or clang++) to build the GPU kernel's source");
            }
            built
        })
        .as_deref()
}

/// Builds variant `define` of the kernel for the host, or `None` where no C++ compiler is found.
fn build(i: usize, define: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gpu-kernel-on-host-{i}"));
    for compiler in ["c++", "g++", "clang++"] {
        let status = Command::new(compiler)
            .args(define.split_whitespace())
            .args([
                "-O2",
                "-std=c++17",
                "-fno-strict-aliasing",
                "-Wall",
                "-Werror",
                "-Wno-unused-variable",
                "-include",
            ])
            .arg(root.join("tests/gpu/host.h"))
            .args(["-x", "c++"])
            .arg(root.join("src/gpu/count.cu"))
            .args(["-x", "c++"])
            .arg(root.join("tests/gpu/harness.cpp"))
            .arg("-o")
            .arg(&out)
            .status();
        match status {
            Ok(s) if s.success() => return Some(out),
            Ok(s) => panic!("{compiler} could not compile the GPU kernel's source ({s})"),
            Err(_) => continue,
        }
    }
    None
}

/// Runs variant `i` of the kernel's source on `tasks` with the slots' `tables`, returning each slot's tally;
/// no task may report trouble.
fn run_on_host(i: usize, tasks: &[Task], tables: &[Table]) -> Vec<Tally> {
    run_with_clock(i, tasks, tables, 0)
        .into_iter()
        .map(|(tally, trouble)| {
            assert_eq!(trouble, 0, "no task may report trouble");
            tally
        })
        .collect()
}

/// Runs variant `i` of the kernel's source with its clock moving on by 2^`clock` at each reading (not at all
/// for 0): each slot's tally and the number of its tasks that reported trouble.
fn run_with_clock(i: usize, tasks: &[Task], tables: &[Table], clock: u32) -> Vec<(Tally, u32)> {
    run_counting_turns(i, tasks, tables, clock).0
}

/// [`run_with_clock`], and the turns the kernel's search loop took on the tasks' rows, all tasks together.
fn run_counting_turns(
    i: usize,
    tasks: &[Task],
    tables: &[Table],
    clock: u32,
) -> (Vec<(Tally, u32)>, u64) {
    let (tallies, turns, launches) = run_launched(i, tasks, tables, clock, 0);
    assert_eq!(launches, 1, "a launch without a budget takes every task");
    (tallies, turns)
}

/// [`run_counting_turns`] with each launch's `budget` (units of 2^16 cycles; 0 for none), launched again
/// while tasks are left as `src/gpu/cuda.rs` does: also the launches it took.
fn run_launched(
    i: usize,
    tasks: &[Task],
    tables: &[Table],
    clock: u32,
    budget: u32,
) -> (Vec<(Tally, u32)>, u64, u32) {
    let exe = &host_kernels().expect("built")[i];
    let mut input = Vec::new();
    let built = turns(VARIANTS[i]);
    let levels = built.stack_levels(tasks.iter().map(Task::levels).max().unwrap_or(1));
    let sentinels = built.sentinels();
    for word in [
        tasks.len() as u32,
        tables.len() as u32,
        levels,
        clock,
        sentinels,
        budget,
    ] {
        input.extend(word.to_le_bytes());
    }
    for word in tables.iter().flatten() {
        input.extend(word.to_le_bytes());
    }
    for t in tasks {
        for w in [t.fc, t.ld, t.rd, t.unit] {
            input.extend(w.to_le_bytes());
        }
    }
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the host kernel runs");
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    let out = String::from_utf8(out.stdout).unwrap();
    let (rest, turns) = out
        .trim_end()
        .rsplit_once('\n')
        .expect("the launches, then the turns");
    let turns = turns
        .strip_prefix("turns ")
        .expect("the turns last")
        .parse()
        .unwrap();
    let (slots, launches) = rest.rsplit_once('\n').unwrap_or(("", rest));
    let launches = launches
        .strip_prefix("launches ")
        .expect("the launches before the turns")
        .parse()
        .unwrap();
    let slots = slots
        .lines()
        .map(|line| {
            let words: Vec<u64> = line.split(' ').map(|w| w.parse().unwrap()).collect();
            let tally = Tally {
                solutions: words[0],
                nodes: words[1],
            };
            (tally, words[2] as u32)
        })
        .collect();
    (slots, turns, launches)
}

/// Cuts every start of `starts` into tasks at `depth`, runs them through the kernel's source, and checks each
/// start's tally against the CPU kernel's; returns each start's tally from the default variant.
fn check(width: u32, starts: &[Start], depth: u32, what: &str) -> Vec<Tally> {
    let expected: Vec<Tally> = starts
        .iter()
        .map(|s| kernel::count_start_with(Kernel::Scalar, width, s.clone()))
        .collect();
    let (tasks, tables, host) = cut(width, starts, depth);
    // The variants built first, on this thread: the builds use rayon's threads as the runs do, and a run that
    // found them unbuilt would wait for them on a thread the builds may need.
    host_kernels().expect("built");
    // Each variant's run is a process of its own: they go on every core, and are checked in order below.
    let runs: Vec<Option<Vec<Tally>>> = (0..VARIANTS.len())
        .into_par_iter()
        .map(|i| {
            let variant = VARIANTS[i];
            // The variants that count solutions from near 2^32 have a test of their own.
            if !takes_tasks(variant, width, &tasks) || variant.contains("NQ_SOLUTIONS_FROM") {
                return None;
            }
            // The variant that trusts its counters for fewer turns marks units (see below); its counts hold.
            Some(if variant.contains("NQ_TRUSTED_TURNS_LOG") {
                run_with_clock(i, &tasks, &tables, 0)
                    .into_iter()
                    .map(|(tally, _)| tally)
                    .collect()
            } else {
                run_on_host(i, &tasks, &tables)
            })
        })
        .collect();
    let mut tallies = Vec::new();
    for (i, (variant, device)) in VARIANTS.iter().zip(runs).enumerate() {
        let Some(device) = device else {
            continue;
        };
        // A kernel that leaves its nodes uncounted (NQ_UNCOUNTED) reports none: its solutions must hold.
        let uncounted = variant.contains("NQ_UNCOUNTED");
        for slot in 0..starts.len() {
            let got = Tally {
                solutions: host[slot].solutions + device[slot].solutions,
                nodes: host[slot].nodes + device[slot].nodes,
            };
            if uncounted {
                assert_eq!(device[slot].nodes, 0, "{variant} {what}, start {slot}");
                assert_eq!(
                    got.solutions, expected[slot].solutions,
                    "{} {what}, start {slot}: {:?}",
                    variant, starts[slot]
                );
                continue;
            }
            assert_eq!(
                got, expected[slot],
                "{} {what}, start {slot}: {:?}",
                variant, starts[slot]
            );
        }
        if i == 0 {
            tallies = (0..starts.len())
                .map(|slot| Tally {
                    solutions: host[slot].solutions + device[slot].solutions,
                    nodes: host[slot].nodes + device[slot].nodes,
                })
                .collect();
        }
    }
    tallies
}

#[test]
fn the_kernel_source_counts_every_unit_as_the_cpu_does_and_the_totals_are_the_published_ones() {
    if host_kernels().is_none() {
        return;
    }
    for n in 1..=12 {
        for symmetry in [Symmetry::Full, Symmetry::Mirror, Symmetry::None] {
            let board = Board::new(n).unwrap();
            let plan = Plan::new(board, symmetry, Split::Auto { threads: 1 });
            let starts: Vec<(usize, Start)> = plan
                .units()
                .iter()
                .filter_map(|u| Some((u.index, plan.start(u)?)))
                .collect();
            let only: Vec<Start> = starts.iter().map(|(_, s)| s.clone()).collect();
            for depth in [0, 2] {
                let tallies = check(
                    n,
                    &only,
                    depth,
                    &format!("n = {n} {symmetry:?} depth {depth}"),
                );
                // The units' counts, weighed as the plan weighs them (Burnside units on the host), add up to
                // the published totals.
                let mut total = 0u128;
                let mut unique = 0u128;
                let mut k = 0;
                for unit in plan.units() {
                    let count = match starts.get(k) {
                        Some((index, _)) if *index == unit.index => {
                            k += 1;
                            plan.weigh(unit, tallies[k - 1])
                        }
                        _ => plan.count_unit(unit),
                    };
                    total += count.total;
                    unique += count.unique;
                }
                let published = known::lookup(n).expect("published");
                assert_eq!(total, published.total, "n = {n} {symmetry:?}");
                if symmetry == Symmetry::Full {
                    assert_eq!(Some(unique), published.unique, "n = {n}");
                }
            }
        }
    }
}

#[test]
fn the_kernel_source_counts_rectangles() {
    if host_kernels().is_none() {
        return;
    }
    for (r, c) in [(5, 3), (7, 5), (9, 6), (10, 10), (12, 7), (3, 12)] {
        let board = Board::rect(r, c).unwrap();
        let plan = Plan::new(board, Symmetry::Mirror, Split::Auto { threads: 1 });
        check(board.width(), &plan_starts(&plan), 1, &format!("{board}"));
    }
}

#[test]
fn a_rectangles_task_counts_more_solutions_than_32_bits_hold() {
    // A turn of the look-ahead counts the last row's free squares as solutions: one on a square board, up to
    // the board's width on a rectangle, so there a task's 2^32 turns could count more than 32 bits hold. Its
    // count is 64-bit: started at 2^32 - 4, each task's solutions go past 2^32 and none is lost.
    if host_kernels().is_none() {
        return;
    }
    let from = 0xffff_fffc_u64;
    let board = Board::rect(12, 7).unwrap();
    let plan = Plan::new(board, Symmetry::None, Split::Auto { threads: 1 });
    let (tasks, tables, _) = cut(board.width(), &plan_starts(&plan), 0);
    let right = run_on_host(0, &tasks, &tables);
    let most = tasks
        .iter()
        .map(|t| task::count_task(t, &tables[t.slot() as usize]).solutions)
        .max()
        .unwrap();
    assert!(most >= 4, "a task of {most} solutions would not wrap");
    for (i, variant) in VARIANTS.iter().enumerate() {
        if !variant.contains("NQ_SOLUTIONS_FROM") || !takes_tasks(variant, board.width(), &tasks) {
            continue;
        }
        let counted = run_on_host(i, &tasks, &tables);
        for (slot, tally) in counted.iter().enumerate() {
            let mine = tasks.iter().filter(|t| t.slot() as usize == slot).count() as u64;
            assert_eq!(
                tally.solutions,
                right[slot].solutions + mine * from,
                "{variant}: slot {slot}"
            );
            assert_eq!(tally.nodes, right[slot].nodes, "{variant}: slot {slot}");
        }
    }
}

/// The tasks of a board of side `n` with full symmetry, its units cut `depth` rows deeper, and their tables.
fn full_symmetry_tasks(n: u32, depth: u32) -> (Vec<Task>, Vec<Table>) {
    let plan = Plan::new(
        Board::new(n).unwrap(),
        Symmetry::Full,
        Split::Auto { threads: 1 },
    );
    let (tasks, tables, _) = cut(n, &plan_starts(&plan), depth);
    (tasks, tables)
}

#[test]
fn a_wrong_table_is_caught() {
    // The check above can fail: the same tasks with the last row's mark moved a row up give other counts, for
    // the default, which counts that row's squares as solutions by it, and so do they with the end's mark
    // moved, for the loop without the look-ahead (NQ_PLAIN), which counts a solution by that mark.
    if host_kernels().is_none() {
        return;
    }
    let (tasks, tables) = full_symmetry_tasks(10, 0);
    let plain = VARIANTS.iter().position(|v| *v == "-DNQ_PLAIN").unwrap();
    let right = run_on_host(0, &tasks, &tables);
    assert!(
        right.iter().any(|t| t.solutions > 0),
        "the tasks find solutions"
    );
    assert_eq!(run_on_host(plain, &tasks, &tables), right);
    for (variant, mark) in [(plain, END), (0, LAST)] {
        let mut moved = tables.clone();
        for table in &mut moved {
            if let Some(m) = table.iter().position(|&w| w & mark != 0) {
                table[m] &= !mark;
                table[m + 1] |= mark;
            }
        }
        assert_ne!(run_on_host(variant, &tasks, &moved), right, "{mark:#x}");
    }
}

#[test]
fn a_launch_that_spends_its_budget_ends_and_the_batch_is_launched_again() {
    // With the clock moving on by 2^16 cycles at each reading (three a task) and a budget of four such units,
    // a launch takes two tasks and ends: launched again until every task is taken, every variant counts what
    // one launch without a budget counts, in the same turns.
    if host_kernels().is_none() {
        return;
    }
    let (tasks, tables) = full_symmetry_tasks(10, 0);
    assert!(tasks.len() > 20, "{} tasks", tasks.len());
    for (i, variant) in VARIANTS.iter().enumerate() {
        if !takes_tasks(variant, 10, &tasks) || variant.contains("NQ_TRUSTED_TURNS_LOG") {
            continue;
        }
        let (whole, turns) = run_counting_turns(i, &tasks, &tables, 16);
        let (parts, parts_turns, launches) = run_launched(i, &tasks, &tables, 16, 4);
        assert_eq!(parts, whole, "{variant}");
        assert_eq!(parts_turns, turns, "{variant}");
        assert!(
            launches as usize >= tasks.len() / 3 && (launches as usize) < tasks.len(),
            "{variant}: {launches} launches for {} tasks",
            tasks.len()
        );
    }
}

#[test]
fn a_task_that_runs_too_long_to_trust_its_counters_marks_its_unit() {
    // With the clock moving on by 2^40 cycles at each reading, every task seems to run long (sixteen turns a
    // pass: 2^36 * 16 cycles are the bound): each unit with tasks is marked once a task, and its counts are
    // still given.
    if host_kernels().is_none() {
        return;
    }
    let (tasks, tables) = full_symmetry_tasks(9, 0);
    let quick = run_on_host(0, &tasks, &tables);
    let slow = run_with_clock(0, &tasks, &tables, 40);
    for (slot, (tally, trouble)) in slow.iter().enumerate() {
        let mine = tasks.iter().filter(|t| t.slot() as usize == slot).count() as u32;
        assert_eq!(*trouble, mine, "slot {slot}");
        assert_eq!(*tally, quick[slot]);
    }
    assert!(slow.iter().any(|&(_, t)| t > 0));
    // A clock that moves less leaves them all trusted (2^39 cycles).
    assert!(run_with_clock(0, &tasks, &tables, 39)
        .iter()
        .all(|&(_, t)| t == 0));
}

#[test]
fn a_task_of_more_turns_than_its_counters_hold_marks_its_unit() {
    // Built to trust its counters below 2^7 turns (8 passes of sixteen), the kernel marks each unit with a task
    // of more, and only those; its counts are still given. Without the look-ahead a task's turns are its nodes;
    // with it (the default) fewer, as the task alone through the default build shows.
    let Some(kernels) = host_kernels() else {
        return;
    };
    // Board 11: the look-ahead takes more than 2^7 turns on some of its tasks, not on board 10's.
    let plan = Plan::new(Board::new(11).unwrap(), Symmetry::Full, Split::Depth(1));
    let starts = plan_starts(&plan);
    let (tasks, tables, _) = cut(11, &starts, 0);
    let quick = run_on_host(0, &tasks, &tables);
    for variant in [
        "-DNQ_TRUSTED_TURNS_LOG=7u",
        "-DNQ_PLAIN -DNQ_TRUSTED_TURNS_LOG=7u",
    ] {
        let i = VARIANTS.iter().position(|v| *v == variant).unwrap();
        assert!(kernels.len() > i);
        let marked = run_with_clock(i, &tasks, &tables, 0);
        let between = turns(variant).between_tests as u64;
        let mut long = vec![0u32; tables.len()];
        for t in &tasks {
            let turns = if variant.contains("NQ_PLAIN") {
                task::count_task(t, &tables[t.slot() as usize]).nodes
            } else {
                run_counting_turns(0, std::slice::from_ref(t), &tables, 0).1
            };
            // The turns of its passes: its turns, and the turns after its end that a last pass took.
            if turns.div_ceil(between) >= (1 << 7) / between {
                long[t.slot() as usize] += 1;
            }
        }
        assert!(
            long.iter().any(|&l| l > 0) && long.contains(&0),
            "{variant}"
        );
        for (slot, (tally, trouble)) in marked.iter().enumerate() {
            assert_eq!(*trouble, long[slot], "{variant}: slot {slot}");
            assert_eq!(*tally, quick[slot], "{variant}");
        }
    }
}

#[test]
fn the_program_refuses_exactly_the_sets_of_switches_the_kernel_refuses() {
    // Every set of the names `NQUEENS_GPU_DEFINES` may give (the switches, and `gpu::DEFAULT_NAMES`, which
    // change nothing but may contradict a switch) through the C preprocessor as NVRTC sees the source for a GPU
    // (`__CUDA_ARCH__`, the block's threads fixed): the kernel's `#error`s must fire exactly where the program
    // refuses the set before a run.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let switches: Vec<&str> = gpu::KERNEL_SWITCHES
        .into_iter()
        .chain(gpu::DEFAULT_NAMES)
        .collect();
    let (mut refused, mut sets) = (0, 0);
    for set in 0..1u32 << switches.len() {
        let named: Vec<&str> = (0..switches.len())
            .filter(|i| set >> i & 1 == 1)
            .map(|i| switches[i])
            .collect();
        let preprocessed = ["c++", "g++", "clang++"].iter().find_map(|compiler| {
            Command::new(compiler)
                .args(["-E", "-D__CUDA_ARCH__=900", "-DNQ_THREADS=128u"])
                .args(named.iter().map(|s| format!("-D{s}")))
                .args(["-x", "c++"])
                .arg(root.join("src/gpu/count.cu"))
                .args(["-o", "/dev/null"])
                .stderr(Stdio::null())
                .status()
                .ok()
        });
        let Some(preprocessed) = preprocessed else {
            eprintln!("skipped: no C++ compiler (c++, g++ or clang++) to preprocess the GPU kernel's source");
            return;
        };
        let asked = named.join(" ");
        assert_eq!(
            gpu::switches_agree(&asked).is_ok(),
            preprocessed.success(),
            "{asked}: {:?}",
            gpu::switches_agree(&asked)
        );
        refused += usize::from(!preprocessed.success());
        sets += 1;
    }
    // Neither all refused nor none: the rules are there, and the default builds.
    assert!(refused > 0 && refused < sets, "{refused} of {sets}");
}

#[test]
fn the_look_ahead_counts_the_dead_ends_without_a_turn_of_their_own() {
    // The loop without the look-ahead (NQ_PLAIN) takes one turn a node; the look-ahead (the default) takes
    // a turn for a node that is neither a dead end it can see (by the count of the tree, about a node in four
    // of the border units) nor a queen on the last row (a solution, counted by the turn above it), and counts
    // the same nodes and solutions. A look-ahead that missed them all would take a turn a node.
    if host_kernels().is_none() {
        return;
    }
    let position = |name: &str| VARIANTS.iter().position(|v| *v == name).unwrap();
    let (ahead, plain, unpushed) = (
        position("-DNQ_DEFAULT"),
        position("-DNQ_PLAIN"),
        position("-DNQ_LAST_UNPUSHED"),
    );
    for n in [10u32, 12] {
        let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, Split::Depth(1));
        let starts = plan_starts(&plan);
        let (tasks, tables, _) = cut(n, &starts, 0);
        let (plain, plain_turns) = run_counting_turns(plain, &tasks, &tables, 0);
        let (looked, ahead_turns) = run_counting_turns(ahead, &tasks, &tables, 0);
        assert_eq!(plain, looked, "n = {n}");
        let nodes: u64 = plain.iter().map(|(t, _)| t.nodes).sum();
        let solutions: u64 = plain.iter().map(|(t, _)| t.solutions).sum();
        assert!(solutions > 0);
        assert_eq!(plain_turns, nodes, "n = {n}: a turn a node");
        // The last row's queens take no turn; nor do the dead ends.
        assert!(ahead_turns < nodes - solutions, "n = {n}");
        let share = ahead_turns as f64 / nodes as f64;
        assert!(
            (0.6..0.85).contains(&share),
            "n = {n}: {share} of the nodes took turns"
        );
        // The stack without a level for the last row (a square board's build): the same turns and counts.
        let (square, square_turns) = run_counting_turns(unpushed, &tasks, &tables, 0);
        assert_eq!(plain, square, "n = {n}");
        assert_eq!(square_turns, ahead_turns, "n = {n}");
        // The next row taken with its frame (NQ_AHEAD_FRAME) sees more dead ends: the same counts in fewer
        // turns (by the count of the tree, about 66% of the nodes at n = 12 rather than 76%), on a rectangle's
        // layout and on a square board's.
        for framed in ["-DNQ_AHEAD_FRAME", "-DNQ_AHEAD_FRAME -DNQ_LAST_UNPUSHED"] {
            let (counts, framed_turns) = run_counting_turns(position(framed), &tasks, &tables, 0);
            assert_eq!(plain, counts, "n = {n} {framed}");
            let fewer = framed_turns as f64 / ahead_turns as f64;
            assert!((0.8..0.95).contains(&fewer), "n = {n} {framed}: {fewer}");
        }
    }
}

#[test]
fn the_kernel_source_counts_random_units_of_larger_boards() {
    if host_kernels().is_none() {
        return;
    }
    let mut rng = fastrand::Rng::with_seed(23);
    for n in [15u32, 18, 23, 27, task::MAX_SIDE] {
        let board = Board::new(n).unwrap();
        for symmetry in [Symmetry::Full, Symmetry::Mirror] {
            let plan = Plan::new(board, symmetry, Split::Units(500));
            let starts: Vec<Start> = (0..400)
                .filter_map(|_| deep_start(&plan, &mut rng, 11))
                .take(40)
                .collect();
            assert!(starts.len() >= 10, "n = {n}: too few random starts");
            check(n, &starts, 2, &format!("n = {n} {symmetry:?}"));
        }
    }
}
