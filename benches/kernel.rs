//! Criterion benches of the counting kernel: whole boards from the empty placement, and one fixed work unit.
//!
//! Run with `cargo bench --bench kernel`; add `-- --save-baseline before` and `-- --baseline before` to compare
//! a change to the hot loop with the version before it.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nqueens::kernel::{count_completions, Masks};
use nqueens::{Board, Plan, Split, Symmetry};
use std::hint::black_box;

fn whole_boards(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel/whole_board");
    for n in 10..=13u32 {
        let nodes = count_completions(n, 0, Masks::default()).nodes;
        group.throughput(Throughput::Elements(nodes));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| count_completions(black_box(n), 0, black_box(Masks::default())))
        });
    }
    group.finish();
}

fn fixed_unit(c: &mut Criterion) {
    // The middle unit of n = 15's depth-3 mirror plan: a typical piece of a real run.
    let board = Board::new(15).expect("15 fits");
    let plan = Plan::new(board, Symmetry::Mirror, Split::Depth(3));
    let unit = &plan.units()[plan.units().len() / 2];
    let masks = board.masks_after(&unit.prefix).expect("valid unit");
    let row = unit.prefix.len() as u32;
    let nodes = count_completions(15, row, masks).nodes;
    let mut group = c.benchmark_group("kernel/unit");
    group.throughput(Throughput::Elements(nodes));
    group.bench_function(format!("n15_{:?}", unit.prefix), |b| {
        b.iter(|| count_completions(black_box(15), row, black_box(masks)))
    });
    group.finish();
}

criterion_group!(benches, whole_boards, fixed_unit);
criterion_main!(benches);
