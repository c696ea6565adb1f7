//! The result of counting: a record that adds up, so that a parallel reduce, a resume and a merge are the
//! same fold.

use crate::engine::kernel::Tally;
use std::iter::Sum;
use std::ops::{Add, AddAssign};

/// Solutions and search effort, summed over any number of work units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Count {
    /// Solutions on the whole board, each unit's count multiplied by its symmetry weight.
    pub total: u128,
    /// Solutions unique under the board's 8 symmetries; only the full symmetry mode counts them.
    pub unique: u128,
    /// Queens placed by the search (not weighted: the work actually done), over the units that counted them:
    /// see [`Count::uncounted`].
    pub nodes: u128,
    /// Work units counted.
    pub units: u64,
    /// Units whose nodes were left uncounted (the GPU's kernel may leave them out, to count faster): where
    /// any were, `nodes` covers the other units alone and the run's nodes are not known ([`Count::nodes`]).
    pub uncounted: u64,
}

impl Count {
    /// The contribution of one work unit whose kernel call gave `tally`: each solution found stands for
    /// `weight` solutions and `unique` unique ones.
    pub fn of_unit(tally: Tally, weight: u32, unique: u32) -> Count {
        Count {
            total: u128::from(tally.solutions) * u128::from(weight),
            unique: u128::from(tally.solutions) * u128::from(unique),
            nodes: u128::from(tally.nodes),
            units: 1,
            uncounted: 0,
        }
    }

    /// This count with its nodes left uncounted: a unit's count from a kernel that did not count them.
    pub fn without_nodes(self) -> Count {
        Count {
            nodes: 0,
            uncounted: self.units,
            ..self
        }
    }

    /// The queens placed, where every unit counted them; `None` where some did not.
    pub fn nodes(&self) -> Option<u128> {
        (self.uncounted == 0).then_some(self.nodes)
    }
}

impl Add for Count {
    type Output = Count;
    fn add(self, other: Count) -> Count {
        Count {
            total: self.total + other.total,
            unique: self.unique + other.unique,
            nodes: self.nodes + other.nodes,
            units: self.units + other.units,
            uncounted: self.uncounted + other.uncounted,
        }
    }
}

impl AddAssign for Count {
    fn add_assign(&mut self, other: Count) {
        *self = *self + other;
    }
}

impl Sum for Count {
    fn sum<I: Iterator<Item = Count>>(iter: I) -> Count {
        iter.fold(Count::default(), Add::add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count of one unit whose kernel call found `solutions` in `nodes`, weighted `weight` and `unique`.
    fn unit(solutions: u64, nodes: u64, weight: u32, unique: u32) -> Count {
        Count::of_unit(Tally { solutions, nodes }, weight, unique)
    }

    #[test]
    fn unit_counts_are_weighted_and_add_up() {
        let a = unit(3, 10, 2, 1);
        let b = unit(1, 5, 1, 0);
        let sum: Count = [a, b].into_iter().sum();
        assert_eq!(
            sum,
            Count {
                total: 7,
                unique: 3,
                nodes: 15,
                units: 2,
                uncounted: 0
            }
        );
        assert_eq!(sum.nodes(), Some(15));
    }

    #[test]
    fn one_unit_whose_nodes_were_not_counted_leaves_the_sums_nodes_unknown() {
        let counted = unit(3, 10, 2, 1);
        let uncounted = unit(1, 0, 8, 1).without_nodes();
        assert_eq!(uncounted.nodes(), None);
        let sum = counted + uncounted;
        assert_eq!((sum.total, sum.unique, sum.units), (14, 4, 2));
        assert_eq!((sum.uncounted, sum.nodes()), (1, None));
        assert_eq!(counted.nodes(), Some(10));
    }
}
