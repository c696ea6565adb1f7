//! The GPU kernel's source (`src/gpu/count.cu`), compiled as C++ on the host and run as one thread, against the
//! CPU kernel unit by unit: solutions and nodes. This checks the kernel's logic on every machine with a C++
//! compiler, GPU or not; `tests/gpu.rs` runs it on a GPU where there is one.

use nqueens::engine::kernel::{self, Kernel, Start, Tally};
use nqueens::gpu::task::{self, Closing, Rows, Task};
use nqueens::{Board, Plan, Split, Symmetry};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The kernel's variants (its `NQ_*` switch): the default, and without the look-ahead.
const VARIANTS: [&str; 2] = ["-DNQ_DEFAULT", "-DNQ_AHEAD=0"];

/// The kernel's variants built for the host, or `None` (with a message) where no C++ compiler is found.
fn host_kernels() -> Option<&'static [PathBuf]> {
    static BUILT: OnceLock<Option<Vec<PathBuf>>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            VARIANTS
                .iter()
                .enumerate()
                .map(|(i, v)| build(i, v))
                .collect()
        })
        .as_deref()
}

/// Builds variant `define` of the kernel for the host.
fn build(i: usize, define: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gpu-kernel-on-host-{i}"));
    for compiler in ["c++", "g++", "clang++"] {
        let status = Command::new(compiler)
            .args(define.split_whitespace())
            .args([
                "-O2",
                "-std=c++17",
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
    eprintln!("skipped: no C++ compiler (c++, g++ or clang++) to build the GPU kernel's source");
    None
}

/// Runs the kernel's source on `tasks`, returning each of `slots` slots' tally.
fn run_on_host(
    exe: &Path,
    tasks: &[Task],
    slots: usize,
    closing: Closing,
    width: u32,
) -> Vec<Tally> {
    let mut input = Vec::new();
    let board = kernel::full_mask(width.min(32)) as u32;
    for word in [
        tasks.len() as u32,
        slots as u32,
        u32::from(closing == Closing::Wide),
        board,
    ] {
        input.extend(word.to_le_bytes());
    }
    for t in tasks {
        let words = [
            t.cols,
            t.ld,
            t.rd,
            t.avail,
            t.rows,
            t.base,
            t.side,
            t.ld_fixed[0],
            t.ld_fixed[1],
            t.rd_fixed[0],
            t.rd_fixed[1],
            t.slot,
            0,
            0,
            0,
            0,
        ];
        for w in words {
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
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let (s, n) = line.split_once(' ').unwrap();
            Tally {
                solutions: s.parse().unwrap(),
                nodes: n.parse().unwrap(),
            }
        })
        .collect()
}

/// Cuts every start of `starts` into tasks at `depth`, runs them through the kernel's source, and checks each
/// start's tally against the CPU kernel's.
fn check(exes: &[PathBuf], width: u32, lines: u32, starts: &[Start], depth: u32, what: &str) {
    let closing = Closing::of(width, lines);
    let mut tasks = Vec::new();
    let mut host = Vec::new();
    let mut expected = Vec::new();
    for (slot, start) in starts.iter().enumerate() {
        expected.push(kernel::count_start_with(
            Kernel::Scalar,
            width,
            start.clone(),
        ));
        let rows = Rows::of(&start.frame, start.row + 1..start.frame.end);
        match rows.filter(|_| start.row + 2 <= start.frame.end) {
            Some(rows) => host.push(task::split(
                start,
                &rows,
                closing,
                depth,
                slot as u32,
                &mut |t| tasks.push(t),
            )),
            None => host.push(expected[slot]),
        }
    }
    for (exe, variant) in exes.iter().zip(VARIANTS) {
        let device = run_on_host(exe, &tasks, starts.len(), closing, width);
        for slot in 0..starts.len() {
            let got = Tally {
                solutions: host[slot].solutions + device[slot].solutions,
                nodes: host[slot].nodes + device[slot].nodes,
            };
            assert_eq!(
                got, expected[slot],
                "{variant} {what}, start {slot}: {:?}",
                starts[slot]
            );
        }
    }
}

fn plan_starts(plan: &Plan) -> Vec<Start> {
    plan.units().iter().filter_map(|u| plan.start(u)).collect()
}

#[test]
fn the_kernel_source_counts_every_unit_as_the_cpu_does() {
    let Some(exe) = host_kernels() else { return };
    for n in 4..=12 {
        for symmetry in [Symmetry::Full, Symmetry::Mirror, Symmetry::None] {
            let board = Board::new(n).unwrap();
            let plan = Plan::new(board, symmetry, Split::Auto { threads: 1 });
            for depth in [0, 2] {
                check(
                    exe,
                    n,
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
fn the_kernel_source_counts_rectangles() {
    let Some(exe) = host_kernels() else { return };
    for (r, c) in [(5, 3), (7, 5), (9, 6), (10, 10), (12, 7)] {
        let board = Board::rect(r, c).unwrap();
        let plan = Plan::new(board, Symmetry::Mirror, Split::Auto { threads: 1 });
        check(
            exe,
            board.width(),
            board.lines(),
            &plan_starts(&plan),
            1,
            &format!("{board}"),
        );
    }
}

/// A random start of `plan` taken down to `left` rows from its end by random queens: a unit of a deep split.
fn deep_start(plan: &Plan, rng: &mut fastrand::Rng, left: u32) -> Option<Start> {
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

#[test]
fn the_kernel_source_counts_random_units_of_larger_boards() {
    let Some(exe) = host_kernels() else { return };
    let mut rng = fastrand::Rng::with_seed(23);
    for n in [15u32, 18, 23, 27, 32] {
        let board = Board::new(n).unwrap();
        for symmetry in [Symmetry::Full, Symmetry::Mirror] {
            let plan = Plan::new(board, symmetry, Split::Units(500));
            let starts: Vec<Start> = (0..400)
                .filter_map(|_| deep_start(&plan, &mut rng, 11))
                .take(40)
                .collect();
            assert!(starts.len() >= 10, "n = {n}: too few random starts");
            check(exe, n, n, &starts, 2, &format!("n = {n} {symmetry:?}"));
        }
    }
}
