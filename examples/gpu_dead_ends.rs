//! How many of the GPU kernel's turns the look-ahead (`NQ_AHEAD` in `src/gpu/count.cu`) saves, by a count of
//! the tree without a GPU: `cargo run --release --example gpu_dead_ends [FROM] [TO]` (boards 10 to 16 by
//! default).
//!
//! Searches every canonical border of the full symmetry mode as the kernel does (a node is a queen placed on a
//! searched row) and counts the dead ends (a queen after which the next row, not the end's, has no free
//! square), those the look-ahead sees from the row above (the next-but-one row's squares free of the queens
//! placed so far, its own frame left out, all within a column of the queen's: counted without a turn of
//! their own), those it sees with the bottom queen's diagonals left out of that row too (the twentieth
//! session's `NQ_AHEAD_BOTTOM`, which a GPU measured 1 to 2% slower: it is gone from the kernel),
//! and those a look-ahead with that row's whole frame would see. The kernel takes a turn for each node but
//! the dead ends it sees. The figures are in `results/gpu.md` (the nineteenth and twentieth sessions).
//! The CPU's vector loops look ahead as `NQ_AHEAD` does since 2026-11-28; before, they saw only the dead ends
//! whose next-but-one row had no free square whatever the queen (the last column, "seen by the row alone"),
//! and `results/kernel-variants.md` compares the two.

use nqueens::engine::border::Border;
use nqueens::engine::kernel::{full_mask, Frame, Masks};
use rayon::prelude::*;

/// What the count finds under one border or several.
#[derive(Default, Clone, Copy)]
struct Tree {
    nodes: u64,
    dead_ends: u64,
    seen: u64,
    seen_with_bottom: u64,
    seen_with_frame: u64,
    seen_by_row: u64,
}

impl Tree {
    fn add(self, o: Tree) -> Tree {
        Tree {
            nodes: self.nodes + o.nodes,
            dead_ends: self.dead_ends + o.dead_ends,
            seen: self.seen + o.seen,
            seen_with_bottom: self.seen_with_bottom + o.seen_with_bottom,
            seen_with_frame: self.seen_with_frame + o.seen_with_frame,
            seen_by_row: self.seen_by_row + o.seen_by_row,
        }
    }
}

/// The queen's square and its two neighbours: what a queen takes from the row after the next (its column and
/// its diagonals, two rows on), seen from the next.
fn neighbours(queen: u64) -> u64 {
    queen | (queen << 1) | (queen >> 1)
}

/// Counts the placements on `row` and below, the row's masks `masks`.
fn search(frame: &Frame, full: u64, masks: Masks, row: u32, tree: &mut Tree) {
    let last = row + 1 == frame.end;
    // The row after this one: its squares free of the queens placed so far, without and with its frame.
    let next = row + 1;
    let taken = masks.cols | (masks.ld << 1) | (masks.rd >> 1);
    let ahead = full & !taken;
    // The bottom queen's diagonals in the row after this one, as `NQ_AHEAD_BOTTOM` took them: its column
    // shifted by the rows between, from the column one square over.
    let bottom_reach = match &frame.shape {
        Some(shape) if !last && shape.last == frame.end => {
            let up = shape.last - next;
            let bottom = u64::from(shape.bottom);
            ((bottom >> 1) << (up + 1)) | ((bottom << 1) >> (up + 1))
        }
        _ => 0,
    };
    let ahead_bottom = ahead & !bottom_reach;
    let ahead_framed = if last {
        0
    } else {
        frame.allow[next as usize] & !(taken | frame.block[next as usize])
    };
    let mut free = frame.free(row, masks);
    while free != 0 {
        let queen = free & free.wrapping_neg();
        free ^= queen;
        tree.nodes += 1;
        if last {
            continue;
        }
        let child = masks.place(queen);
        let dead = frame.free(next, child) == 0;
        let seen = ahead & !neighbours(queen) == 0;
        let seen_with_bottom = ahead_bottom & !neighbours(queen) == 0;
        let seen_with_frame = ahead_framed & !neighbours(queen) == 0;
        assert!(!seen || dead, "the look-ahead may only see dead ends");
        assert!(!seen_with_bottom || dead, "so may the bottom queen's");
        assert!(
            seen_with_bottom || !seen,
            "which sees what the look-ahead sees"
        );
        assert!(seen_with_frame == dead, "with its frame it sees them all");
        tree.dead_ends += u64::from(dead);
        tree.seen += u64::from(seen);
        tree.seen_with_bottom += u64::from(seen_with_bottom);
        tree.seen_with_frame += u64::from(seen_with_frame);
        tree.seen_by_row += u64::from(ahead == 0);
        if !dead {
            search(frame, full, child, next, tree);
        }
    }
}

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: FROM, TO"))
        .collect();
    let from = args.first().copied().unwrap_or(10);
    let to = args.get(1).copied().unwrap_or(16);
    println!(
        "board  nodes  dead ends  seen by NQ_AHEAD  turns left  seen by NQ_AHEAD_BOTTOM  turns left  \
         seen with the row's frame  seen by the row alone  turns left"
    );
    for n in from..=to {
        let full = full_mask(n);
        let tree = Border::canonical(n)
            .into_par_iter()
            .map(|border| {
                let (frame, masks) = border.frame(n);
                let mut tree = Tree::default();
                search(&frame, full, masks, 1, &mut tree);
                tree
            })
            .reduce(Tree::default, Tree::add);
        let share = |x: u64| 100.0 * x as f64 / tree.nodes as f64;
        println!(
            "{n}  {}  {:.1}%  {:.1}%  {:.1}%  {:.1}%  {:.1}%  {:.1}%  {:.1}%  {:.1}%",
            tree.nodes,
            share(tree.dead_ends),
            share(tree.seen),
            share(tree.nodes - tree.seen),
            share(tree.seen_with_bottom),
            share(tree.nodes - tree.seen_with_bottom),
            share(tree.seen_with_frame),
            share(tree.seen_by_row),
            share(tree.nodes - tree.seen_by_row),
        );
    }
}
