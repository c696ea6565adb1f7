//! How much search each way of using the board's symmetries leaves: the nodes (queens placed, counted as the
//! kernels count them: every placement above the last line searched) of a plain recursive search under each
//! scheme, against the mirror mode's. `cargo run --release --example symmetry_nodes [MAX_N]` (default 15).
//!
//! - `mirror`: first queen in the left half (the mirror mode).
//! - `border`: every canonical border placed first (the full mode, [`nqueens::engine::border`]).
//! - `lazy bottom`: the top and side queens placed first, the bottom queen left to the search, its row allowed
//!   only the columns that keep the border canonical.
//! - `takaken`: nothing placed but the top queen, which is the border queen nearest a corner (distance `e`, in the
//!   left half); the side columns are closed to the rows nearer a corner than `e` and the bottom row's corners
//!   likewise; a corner queen is bounded by its diagonal reflection. Its leaves still need a symmetry check (not
//!   done here), so it gives only nodes and the leaves reached.
//!
//! The figures are in `results/kernel-variants.md`.

use nqueens::engine::border::Border;
use nqueens::engine::kernel::{full_mask, Frame, Masks};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Solutions (free squares of the last line reached) and nodes below `masks` at `row`.
fn search(frame: &Frame, masks: Masks, row: u32) -> (u64, u64) {
    let mut free = frame.free(row, masks);
    if row + 1 == frame.end {
        return (u64::from(free.count_ones()), 0);
    }
    let mut found = (0, 0);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        let (s, nodes) = search(frame, masks.place(bit), row + 1);
        found = (found.0 + s, found.1 + nodes + 1);
    }
    found
}

fn sum(parts: impl ParallelIterator<Item = (u64, u64)>) -> (u64, u64) {
    parts.reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// Total and nodes of the mirror mode.
fn mirror(n: u32) -> (u64, u64) {
    let frame = Frame::open(n);
    sum((0..n.div_ceil(2)).into_par_iter().map(|c| {
        let (s, nodes) = search(&frame, Masks::default().place(1 << c), 1);
        let weight = if n % 2 == 1 && c == n / 2 { 1 } else { 2 };
        (s * weight, nodes + 1)
    }))
}

/// Total and nodes of the border pre-placement.
fn border(n: u32) -> (u64, u64) {
    sum(Border::canonical(n).into_par_iter().map(|b| {
        let (frame, masks) = b.frame(n);
        let (s, nodes) = search(&frame, masks, 1);
        (s * 8 / b.stabiliser(n).len() as u64, nodes)
    }))
}

/// Nodes with the bottom queen left to the search (borders fixed by a symmetry left out: a few).
fn lazy_bottom(n: u32) -> (u64, u64) {
    let mut groups: BTreeMap<(u8, u8, u8), u64> = BTreeMap::new();
    for b in Border::canonical(n) {
        if b.stabiliser(n).len() == 1 {
            *groups.entry((b.top, b.left, b.right)).or_default() |= 1 << b.bottom;
        }
    }
    let m = n - 1;
    sum(groups.into_par_iter().map(|((top, left, right), bottoms)| {
        let mut frame = Frame::open(n);
        let (left, right) = (u32::from(left), u32::from(right));
        for r in 1..m {
            let mut block = 1 | (1 << m);
            if r < left && left < m {
                block |= 1 << (left - r);
            }
            if r < right && right < m {
                block |= (1 << m) >> (right - r);
            }
            // A side queen's row has that one square.
            if r == left {
                block &= !1;
                frame.allow[r as usize] = 1;
            }
            if r == right {
                block &= !(1 << m);
                frame.allow[r as usize] = 1 << m;
            }
            frame.block[r as usize] = block & full_mask(n);
        }
        frame.allow[m as usize] = bottoms;
        let (s, nodes) = search(&frame, Masks::default().place(1 << top), 1);
        (s * 8, nodes)
    }))
}

/// Leaves reached and nodes of the Takaken bounds.
fn takaken(n: u32) -> (u64, u64) {
    let m = n - 1;
    let mut starts = Vec::new();
    for e in 0..n.div_ceil(2) {
        if e == 0 {
            starts.extend((2..m).map(|c1| (0, Some(c1))));
        } else {
            starts.push((e, None));
        }
    }
    sum(starts.into_par_iter().map(|(e, c1)| {
        let mut frame = Frame::open(n);
        let mut masks = Masks::default().place(1 << e);
        let mut row = 1;
        if let Some(c1) = c1 {
            // A corner queen: the queen of column 1 below the row of row 1's queen's column.
            masks = masks.place(1 << c1);
            row = 2;
            for r in 2..c1 {
                frame.block[r as usize] |= 2;
            }
        } else {
            let sides = 1 | (1 << m);
            for r in (1..e).chain(n - e..m) {
                frame.block[r as usize] |= sides;
            }
            frame.allow[m as usize] = full_mask(n - e) & !full_mask(e);
        }
        search(&frame, masks, row)
    }))
}

fn main() {
    let max: u32 = std::env::args()
        .nth(1)
        .map_or(15, |a| a.parse().expect("MAX_N is a number"));
    println!(
        "   n        mirror nodes   border   lazy bottom   takaken   (nodes against mirror's)"
    );
    for n in 8..=max {
        let (total, base) = mirror(n);
        let (border_total, border_nodes) = border(n);
        assert_eq!(border_total, total, "border total, n = {n}");
        let (_, lazy) = lazy_bottom(n);
        let (_, taka) = takaken(n);
        let ratio = |x: u64| x as f64 / base as f64;
        println!(
            "{n:>4} {base:>19} {:>8.3} {:>13.3} {:>9.3}",
            ratio(border_nodes),
            ratio(lazy),
            ratio(taka)
        );
    }
}
