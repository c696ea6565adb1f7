//! Criterion benches of the counting kernels, side by side in one run: every search loop this processor runs
//! ([`Kernel`]) on the same plans, and the scalar loop on one fixed work unit.
//!
//! Run with `cargo bench --bench kernel`; add `-- --save-baseline before` and `-- --baseline before` to compare
//! a change to a hot loop with the version before it. Throughput is in nodes (queens placed), the figure that
//! shows how close a loop is to the machine's limit.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nqueens::engine::kernel::{count_start_with, count_stream_with, Frame, Kernel, Start};
use nqueens::{Board, Count, Plan, Split, Symmetry};
use std::hint::black_box;

/// Counts every unit of `plan` with `kernel` on this thread, as one executor worker does.
fn count_plan(kernel: Kernel, plan: &Plan) -> Count {
    let board = plan.board();
    let mut drawn = Count::default();
    let mut sum = Count::default();
    let mut units = plan.units().iter();
    count_stream_with(
        kernel,
        board.width(),
        board.lines(),
        || loop {
            let unit = units.next()?;
            match plan.start(unit) {
                Some(start) => return Some((unit, start)),
                None => drawn += plan.count_unit(unit),
            }
        },
        |unit, tally| sum += plan.weigh(unit, tally),
    );
    sum + drawn
}

fn whole_boards(c: &mut Criterion) {
    let kernels: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.available()).collect();
    for symmetry in [Symmetry::Full, Symmetry::Mirror] {
        let mut group = c.benchmark_group(format!("kernel/{}", symmetry.name()));
        group.sample_size(10);
        for n in 12..=15u32 {
            // The split of a one-thread count. Below n = 15 a full-mode unit is a few hundred nodes, and handing
            // out units costs as much as the search; n = 15 shows the loops themselves.
            let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::Auto { threads: 1 });
            let nodes = count_plan(Kernel::Scalar, &plan).nodes;
            group.throughput(Throughput::Elements(nodes as u64));
            for &kernel in &kernels {
                group.bench_with_input(BenchmarkId::new(kernel.name(), n), &plan, |b, plan| {
                    b.iter(|| count_plan(kernel, black_box(plan)))
                });
            }
        }
        group.finish();
    }
}

fn fixed_unit(c: &mut Criterion) {
    // The middle unit of n = 15's depth-3 mirror plan: a typical piece of a real run, in the scalar loop (a
    // vector loop would run it in one lane).
    let board = Board::new(15).expect("15 fits");
    let plan = Plan::new(board, Symmetry::Mirror, Split::Depth(3));
    let unit = &plan.units()[plan.units().len() / 2];
    let masks = board.masks_after(&unit.prefix).expect("valid unit");
    let start = Start {
        row: unit.prefix.len() as u32,
        masks,
        frame: Frame::open(15),
    };
    let nodes = count_start_with(Kernel::Scalar, 15, start.clone()).nodes;
    let mut group = c.benchmark_group("kernel/unit");
    group.throughput(Throughput::Elements(nodes));
    group.bench_function(format!("n15_{:?}", unit.prefix), |b| {
        b.iter(|| count_start_with(Kernel::Scalar, black_box(15), black_box(start.clone())))
    });
    group.finish();
}

fn gpu_tasks(c: &mut Criterion) {
    // The host's side of the GPU backend: cutting a plan's units into tasks, which must keep ahead of the GPU
    // (a 16-core host has to cut about 50 million tasks in the 38 s an H100 takes for n = 21). On all cores, as
    // the backend does it.
    let plan = Plan::new(
        Board::new(17).unwrap(),
        Symmetry::Full,
        Split::Auto { threads: 16 },
    );
    let units: Vec<usize> = (0..plan.units().len()).collect();
    let cut = nqueens::gpu::cut(&plan, &units);
    let tasks = nqueens::gpu::prepare(&plan, &units, cut.extra_rows)
        .tasks
        .len();
    let mut group = c.benchmark_group("gpu/cut");
    group.sample_size(10);
    group.throughput(Throughput::Elements(tasks as u64));
    group.bench_function(format!("n17_{}rows", cut.extra_rows), |b| {
        b.iter(|| nqueens::gpu::prepare(black_box(&plan), &units, cut.extra_rows))
    });
    group.finish();
}

criterion_group!(benches, whole_boards, fixed_unit, gpu_tasks);
criterion_main!(benches);
