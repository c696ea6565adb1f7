//! Criterion benches of listing and constructing: the lexicographic search with rendering into a buffer (the
//! plain search and the vector loops side by side),
//! and the O(n) construction with its check.
//!
//! Run with `cargo bench --bench solutions`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nqueens::engine::kernel::Kernel;
use nqueens::solutions::notation::{Notation, Renderer, Shape};
use nqueens::solutions::{self, Filter, Tuning};
use nqueens::solutions::{checker, construct};
use nqueens::Board;
use std::hint::black_box;
use std::ops::ControlFlow;

fn listing(c: &mut Criterion) {
    let mut group = c.benchmark_group("solutions/list_rows_one_thread");
    group.sample_size(10);
    // The plain search and the vector loops this processor has, each with the second half mirrored from the
    // first (the default) and searched whole, side by side.
    let kernels: Vec<Kernel> = Kernel::ALL
        .into_iter()
        .filter(|&k| k == Kernel::Scalar || nqueens::engine::kernel::lists(k, 13, 13))
        .collect();
    for n in [12u32, 13, 14] {
        let board = Board::new(n).unwrap();
        let renderer = Renderer::new(Notation::Rows, Shape::square(n), false);
        let count =
            solutions::list::<()>(board, Filter::All, 1, None, |_, _| {}, |_| Ok(())).unwrap();
        group.throughput(Throughput::Elements(count));
        for &kernel in &kernels {
            for (way, mirror_cache) in [("mirrored", solutions::MIRROR_CACHE), ("searched", 0)] {
                let tuning = Tuning {
                    kernel,
                    mirror_cache,
                };
                let id = BenchmarkId::new(format!("{kernel}/{way}"), n);
                group.bench_with_input(id, &board, |b, &board| {
                    b.iter(|| {
                        let mut bytes = 0usize;
                        solutions::list_tuned::<()>(
                            tuning,
                            black_box(board),
                            Filter::All,
                            1,
                            None,
                            |q, out| renderer.render(q, out),
                            |chunk| {
                                bytes += chunk.len();
                                Ok(())
                            },
                        )
                        .unwrap();
                        bytes
                    })
                });
            }
        }
    }
    group.finish();
}

fn search_only(c: &mut Criterion) {
    let board = Board::new(12).unwrap();
    let mut group = c.benchmark_group("solutions/search_only");
    group.sample_size(10);
    group.bench_function("12", |b| {
        b.iter(|| {
            let mut found = 0u64;
            let _ = solutions::each::<()>(black_box(board), &[], Filter::All, |_| {
                found += 1;
                ControlFlow::Continue(())
            });
            found
        })
    });
    group.finish();
}

fn construction(c: &mut Criterion) {
    let mut group = c.benchmark_group("solutions/construct_and_check");
    group.sample_size(10);
    for n in [1_000_000u32, 10_000_000] {
        group.throughput(Throughput::Elements(u64::from(n)));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| {
                let queens = construct::square(black_box(n)).unwrap();
                checker::check_list(Shape::square(n), &queens).unwrap();
                queens.len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, listing, search_only, construction);
criterion_main!(benches);
