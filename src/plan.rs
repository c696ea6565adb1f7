//! The plan: the ordered, numbered list of work units that together cover a board's search.
//!
//! Placing queens in the first `k` rows (the split depth) in every admissible way gives independent work units:
//! each is a partial placement whose completions the kernel counts. The plan lists them in lexicographic order
//! of their columns, so the same request gives the same numbered plan on any machine and any thread count;
//! executors may run the units in any order and on any thread, and the counts add up to the same total.

use crate::board::Board;
use crate::count::Count;
use crate::kernel;
use crate::symmetry::{Admission, Symmetry};

/// How many work units an automatic split aims for, per worker thread: enough that the last units to finish
/// are small against the whole run, so threads do not wait idle at the end. Each worker keeps
/// [`kernel::LANES`] units in flight, and those finish at a lower rate as the lanes empty, so this is large:
/// measured on n = 16 with 2 threads, 1,118 units (128 a thread) gave a speedup of 1.7, 12,000 units gave 2.0.
pub const UNITS_PER_THREAD: usize = 1024;

/// How deep the plan places queens before handing the rest to the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// The shallowest depth that gives at least [`UNITS_PER_THREAD`] units per thread.
    Auto {
        /// Worker threads the plan will be run on.
        threads: usize,
    },
    /// Exactly this many rows (at least as many as the symmetry needs to decide; at most `n`).
    Depth(u32),
}

/// One independent piece of the search: a partial placement and what each of its completions is worth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkUnit {
    /// The unit's number in its plan, from 0.
    pub index: usize,
    /// The column of the queen in each of the first rows.
    pub prefix: Vec<u8>,
    /// Solutions each completion stands for under the plan's symmetry.
    pub weight: u32,
}

/// The numbered work units for a board, a symmetry and a split depth.
#[derive(Clone, Debug)]
pub struct Plan {
    board: Board,
    symmetry: Symmetry,
    depth: u32,
    units: Vec<WorkUnit>,
}

impl Plan {
    /// Builds the plan for `board` under `symmetry`, split as `split` says.
    pub fn new(board: Board, symmetry: Symmetry, split: Split) -> Plan {
        let n = board.n();
        match split {
            Split::Depth(depth) => Plan::at_depth(board, symmetry, depth.min(n)),
            Split::Auto { threads } => {
                let target = threads.max(1).saturating_mul(UNITS_PER_THREAD);
                // Deeper than half the board the units become tiny and numerous; small boards stop there.
                let deepest = (n / 2).max(1).min(n);
                let mut plan = Plan::at_depth(board, symmetry, 0);
                for depth in 1..=deepest {
                    if plan.units.len() >= target {
                        break;
                    }
                    plan = Plan::at_depth(board, symmetry, depth);
                }
                plan
            }
        }
    }

    fn at_depth(board: Board, symmetry: Symmetry, depth: u32) -> Plan {
        let mut plan = Plan {
            board,
            symmetry,
            depth,
            units: Vec::new(),
        };
        let mut prefix = Vec::with_capacity(board.n() as usize);
        plan.extend(&mut prefix);
        plan
    }

    /// Appends the units at or below `prefix`, in lexicographic order.
    fn extend(&mut self, prefix: &mut Vec<u8>) {
        let n = self.board.n();
        let admission = self.symmetry.admit(n, prefix);
        match admission {
            Admission::No => return,
            Admission::Yes { weight } if prefix.len() >= self.depth as usize => {
                self.units.push(WorkUnit {
                    index: self.units.len(),
                    prefix: prefix.clone(),
                    weight,
                });
                return;
            }
            _ if prefix.len() == n as usize => return,
            _ => {}
        }
        let full = kernel::full_mask(n);
        let Some(masks) = self.board.masks_after(prefix) else {
            return;
        };
        let mut free = masks.free(full);
        while free != 0 {
            prefix.push(free.trailing_zeros() as u8);
            self.extend(prefix);
            prefix.pop();
            free &= free - 1;
        }
    }

    /// The board searched.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The symmetry reduction used.
    pub fn symmetry(&self) -> Symmetry {
        self.symmetry
    }

    /// The split depth: rows placed by the plan before the kernel takes over (the symmetry may place one more
    /// in some units to decide their admission).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The work units, numbered from 0 in order.
    pub fn units(&self) -> &[WorkUnit] {
        &self.units
    }

    /// The kernel's view of a unit: its next row and masks.
    pub fn start(&self, unit: &WorkUnit) -> kernel::Start {
        let masks = self
            .board
            .masks_after(&unit.prefix)
            .expect("plan units are valid placements by construction");
        kernel::Start {
            row: unit.prefix.len() as u32,
            masks,
        }
    }

    /// Counts one unit's completions with the kernel: a pure function of the unit.
    pub fn count_unit(&self, unit: &WorkUnit) -> Count {
        let start = self.start(unit);
        let tally = kernel::count_completions(self.board.n(), start.row, start.masks);
        Count::of_unit(tally, unit.weight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(n: u32, symmetry: Symmetry, depth: u32) -> Plan {
        Plan::new(Board::new(n).unwrap(), symmetry, Split::Depth(depth))
    }

    #[test]
    fn units_are_numbered_in_lexicographic_order() {
        let p = plan(6, Symmetry::None, 2);
        let prefixes: Vec<_> = p.units().iter().map(|u| u.prefix.clone()).collect();
        let mut sorted = prefixes.clone();
        sorted.sort();
        assert_eq!(prefixes, sorted);
        assert!(p.units().iter().enumerate().all(|(i, u)| u.index == i));
        // A corner queen in the first row leaves 4 columns free in the second, any other queen 3.
        assert_eq!(p.units().len(), 2 * 4 + 4 * 3);
    }

    #[test]
    fn mirror_places_a_second_row_after_a_middle_queen() {
        let p = plan(5, Symmetry::Mirror, 1);
        let prefixes: Vec<_> = p.units().iter().map(|u| u.prefix.clone()).collect();
        assert_eq!(prefixes, vec![vec![0], vec![1], vec![2, 0]]);
        assert!(p.units().iter().all(|u| u.weight == 2));
    }

    #[test]
    fn automatic_split_gives_every_thread_many_units() {
        let p = Plan::new(
            Board::new(16).unwrap(),
            Symmetry::Mirror,
            Split::Auto { threads: 4 },
        );
        assert!(
            p.units().len() >= 4 * UNITS_PER_THREAD,
            "{} units",
            p.units().len()
        );
    }

    #[test]
    fn split_depth_beyond_the_board_is_the_board() {
        let p = plan(4, Symmetry::None, 9);
        assert_eq!(p.depth(), 4);
        assert_eq!(
            p.units().len(),
            2,
            "the two solutions of n = 4 as complete units"
        );
    }
}
