//! How far a different search could take the full mode: the nodes of plain recursive searches that fill the rows
//! in other orders, or pre-place more queens, against the mirror mode's top-down search.
//! `cargo run --release --example search_orders [MAX_N]` (default 14; 16 takes a minute on two cores).
//!
//! The rows' free squares are computed from masks indexed by diagonal (`r + c` and `c - r + n - 1`), so a
//! search may fill rows in any order. Nodes are counted as in `symmetry_nodes`: every queen placed by the search
//! above the last row it fills (a pre-placed queen is no node). Every scheme's total is checked against the
//! mirror mode's.
//!
//! - `mirror, ahead k` / `border, ahead k`: top-down, a node dropped when one of the next `k` rows has no free
//!   square (the vector loops look one row ahead; a dropped node still counts, as there).
//! - `mirror, fc` / `border, fc`: top-down, but a node is dropped when any row still to fill has no free square
//!   (forward checking on every row, not only the next).
//! - `mirror, mrv` / `border, mrv`: the next row is, at every node, the one with the fewest free squares.
//! - `border, mrv d`: that choice for the first `d` queens only, then the rows left top-down; `units` are the
//!   top-down searches that remain, `plan` the nodes placed by the choice (which a plan would make before the
//!   kernels run, one free-square count per row left per node).
//! - `border, in-out`: the middle rows first, then outwards.
//! - `two rings`: the queens of the outer two rows and columns pre-placed (each holds exactly one), canonical under
//!   the 8 symmetries, the inner rows searched top-down.
//!
//! The seconds are those of these plain recursive searches on all cores, not of the kernels: they compare the
//! cost of a node between orders, nothing more. The figures are in `results/kernel-variants.md`.

use nqueens::engine::border::{Border, Transform};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The queens placed so far, as masks of columns and of diagonals.
#[derive(Clone, Copy, Default)]
struct Placed {
    cols: u64,
    /// Bit `r + c` for a queen on `(r, c)`.
    sums: u64,
    /// Bit `c - r + n - 1`.
    diffs: u64,
}

impl Placed {
    fn free(self, n: u32, r: u32) -> u64 {
        ((1u64 << n) - 1) & !self.cols & !(self.sums >> r) & !(self.diffs >> (n - 1 - r))
    }

    fn place(self, n: u32, r: u32, c: u32) -> Placed {
        Placed {
            cols: self.cols | 1 << c,
            sums: self.sums | 1 << (r + c),
            diffs: self.diffs | 1 << (c + n - 1 - r),
        }
    }
}

/// How the search picks the next row.
#[derive(Clone, Copy)]
enum Order {
    /// The rows in the order given.
    Fixed,
    /// The given order, dropping a node as soon as any row left has no free square.
    Checked,
    /// The row with the fewest free squares for the first `d` queens, then the given order.
    Fewest(u32),
    /// The given order, dropping a node when one of the next `k` rows has no free square (the vector loops look
    /// one row ahead).
    Ahead(usize),
}

static UNITS: AtomicU64 = AtomicU64::new(0);
static PLAN: AtomicU64 = AtomicU64::new(0);

/// Solutions and nodes below `placed`, the rows of `rows` left to fill.
fn search(n: u32, rows: &[u32], placed: Placed, order: Order) -> (u64, u64) {
    let (row, order) = match order {
        Order::Fewest(0) => {
            UNITS.fetch_add(1, Ordering::Relaxed);
            (0, Order::Fixed)
        }
        Order::Fewest(d) => {
            let mut best = (u32::MAX, 0);
            for (i, &r) in rows.iter().enumerate() {
                let free = placed.free(n, r).count_ones();
                if free == 0 {
                    return (0, 0);
                }
                best = best.min((free, i));
            }
            PLAN.fetch_add(1, Ordering::Relaxed);
            (best.1, Order::Fewest(d - 1))
        }
        Order::Checked => {
            if rows.iter().any(|&r| placed.free(n, r) == 0) {
                return (0, 0);
            }
            (0, order)
        }
        Order::Ahead(k) => {
            if rows.iter().skip(1).take(k).any(|&r| placed.free(n, r) == 0) {
                return (0, 0);
            }
            (0, order)
        }
        Order::Fixed => (0, order),
    };
    let r = rows[row];
    let mut free = placed.free(n, r);
    if rows.len() == 1 {
        return (u64::from(free.count_ones()), 0);
    }
    let mut rest = rows.to_vec();
    rest.remove(row);
    let mut found = (0, 0);
    while free != 0 {
        let c = free.trailing_zeros();
        free &= free - 1;
        let (s, nodes) = search(n, &rest, placed.place(n, r, c), order);
        found = (found.0 + s, found.1 + nodes + 1);
    }
    found
}

fn sum(parts: impl ParallelIterator<Item = (u64, u64)>) -> (u64, u64) {
    parts.reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// The mirror mode: the first queen in the left half, rows 1.. after it.
fn mirror(n: u32, order: Order) -> (u64, u64) {
    let rows: Vec<u32> = (1..n).collect();
    sum((0..n.div_ceil(2)).into_par_iter().map(|c| {
        let (s, nodes) = search(n, &rows, Placed::default().place(n, 0, c), order);
        let weight = if n % 2 == 1 && c == n / 2 { 1 } else { 2 };
        (s * weight, nodes + 1)
    }))
}

/// The middle rows of `rows` first, then outwards.
fn inside_out(rows: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    let (mut lo, mut hi) = (rows.len() / 2, rows.len() / 2);
    out.push(rows[lo]);
    loop {
        let before = out.len();
        if hi + 1 < rows.len() {
            hi += 1;
            out.push(rows[hi]);
        }
        if lo > 0 {
            lo -= 1;
            out.push(rows[lo]);
        }
        if out.len() == before {
            return out;
        }
    }
}

/// The full mode's borders, the rows between them filled as `order` says.
fn border(n: u32, order: Order, middle_first: bool) -> (u64, u64) {
    let m = n - 1;
    sum(Border::canonical(n).into_par_iter().map(|b| {
        let queens = b.queens(n);
        let mut placed = queens
            .iter()
            .fold(Placed::default(), |p, &(r, c)| p.place(n, r, c));
        placed.cols |= 1 | 1 << m;
        let mut rows: Vec<u32> = (1..m)
            .filter(|r| queens.iter().all(|q| q.0 != *r))
            .collect();
        if middle_first {
            rows = inside_out(&rows);
        }
        let (s, nodes) = if rows.is_empty() {
            (1, 0)
        } else {
            search(n, &rows, placed, order)
        };
        (s * 8 / b.stabiliser(n).len() as u64, nodes)
    }))
}

fn attacks(a: (u32, u32), b: (u32, u32)) -> bool {
    a.0 == b.0 || a.1 == b.1 || a.0.abs_diff(b.0) == a.1.abs_diff(b.1)
}

/// Every placement of the outer two rings: one queen on each of rows 0, 1, n - 2, n - 1 and of columns 0, 1,
/// n - 2, n - 1, none attacking another, sorted.
fn two_rings(n: u32) -> Vec<Vec<(u32, u32)>> {
    let lines = [0, 1, n - 2, n - 1];
    fn extend(n: u32, lines: &[u32; 4], q: &mut Vec<(u32, u32)>, out: &mut Vec<Vec<(u32, u32)>>) {
        let squares: Vec<(u32, u32)> =
            if let Some(&r) = lines.iter().find(|&&r| q.iter().all(|x| x.0 != r)) {
                (0..n).map(|c| (r, c)).collect()
            } else if let Some(&c) = lines.iter().find(|&&c| q.iter().all(|x| x.1 != c)) {
                (2..n - 2).map(|r| (r, c)).collect()
            } else {
                let mut done = q.clone();
                done.sort_unstable();
                out.push(done);
                return;
            };
        for s in squares {
            if q.iter().all(|&x| !attacks(x, s)) {
                q.push(s);
                extend(n, lines, q, out);
                q.pop();
            }
        }
    }
    let mut out = Vec::new();
    extend(n, &lines, &mut Vec::new(), &mut out);
    out
}

/// The outer two rings pre-placed, one placement per class, the inner rows top-down.
fn rings(n: u32) -> (u64, u64, usize) {
    let images = |q: &Vec<(u32, u32)>| -> Vec<Vec<(u32, u32)>> {
        Transform::ALL
            .iter()
            .map(|g| {
                let mut i: Vec<_> = q.iter().map(|&s| g.apply(n, s)).collect();
                i.sort_unstable();
                i
            })
            .collect()
    };
    let canonical: Vec<(Vec<(u32, u32)>, u64)> = two_rings(n)
        .into_par_iter()
        .filter_map(|q| {
            let all = images(&q);
            let fixed = all.iter().filter(|i| **i == q).count() as u64;
            all.iter().all(|i| *i >= q).then_some((q, 8 / fixed))
        })
        .collect();
    let (total, nodes) = sum(canonical.par_iter().map(|(q, weight)| {
        let mut placed = q
            .iter()
            .fold(Placed::default(), |p, &(r, c)| p.place(n, r, c));
        placed.cols |= 0b11 | 0b11 << (n - 2);
        let rows: Vec<u32> = (2..n - 2).filter(|r| q.iter().all(|x| x.0 != *r)).collect();
        let (s, nodes) = if rows.is_empty() {
            (1, 0)
        } else {
            search(n, &rows, placed, Order::Fixed)
        };
        (s * weight, nodes)
    }));
    (total, nodes, canonical.len())
}

fn main() {
    let max: u32 = std::env::args()
        .nth(1)
        .map_or(14, |a| a.parse().expect("MAX_N is a number"));
    for n in 10..=max {
        let start = Instant::now();
        let (total, base) = mirror(n, Order::Fixed);
        let took = start.elapsed().as_secs_f64();
        println!(
            "n = {n}: mirror top-down {base} nodes, {took:.2} s; against it (nodes, seconds):"
        );
        let ratio = |x: u64| x as f64 / base as f64;
        let show = |name: &str, scheme: &dyn Fn() -> (u64, u64)| {
            let clock = Instant::now();
            let (t, nodes) = scheme();
            let seconds = clock.elapsed().as_secs_f64();
            assert_eq!(t, total, "{name}, n = {n}");
            let (units, plan) = (
                UNITS.swap(0, Ordering::Relaxed),
                PLAN.swap(0, Ordering::Relaxed),
            );
            let split = if let Some(each) = (nodes - plan).checked_div(units) {
                format!(" ({units} units of {each} nodes, {plan} plan nodes)")
            } else {
                String::new()
            };
            println!("  {name:<16} {:.3}{split}, {seconds:.2} s", ratio(nodes));
        };
        for k in [1, 2] {
            show(&format!("mirror, ahead {k}"), &|| {
                mirror(n, Order::Ahead(k))
            });
        }
        show("mirror, fc", &|| mirror(n, Order::Checked));
        show("mirror, mrv", &|| mirror(n, Order::Fewest(n)));
        show("border", &|| border(n, Order::Fixed, false));
        show("border, in-out", &|| border(n, Order::Fixed, true));
        for k in [1, 2] {
            show(&format!("border, ahead {k}"), &|| {
                border(n, Order::Ahead(k), false)
            });
        }
        show("border, fc", &|| border(n, Order::Checked, false));
        show("border, mrv", &|| border(n, Order::Fewest(n), false));
        for d in [4, 6, 8] {
            show(&format!("border, mrv {d}"), &|| {
                border(n, Order::Fewest(d), false)
            });
        }
        let start = Instant::now();
        let (t, nodes, placements) = rings(n);
        let took = start.elapsed().as_secs_f64();
        assert_eq!(t, total, "two rings, n = {n}");
        println!(
            "  {:<16} {:.3} ({placements} placements), {took:.2} s",
            "two rings",
            ratio(nodes)
        );
    }
}
