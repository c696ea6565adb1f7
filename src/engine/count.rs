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
    /// Queens placed by the search (not weighted: the work actually done).
    pub nodes: u128,
    /// Work units counted.
    pub units: u64,
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
        }
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

    #[test]
    fn unit_counts_are_weighted_and_add_up() {
        let a = Count::of_unit(
            Tally {
                solutions: 3,
                nodes: 10,
            },
            2,
            1,
        );
        let b = Count::of_unit(
            Tally {
                solutions: 1,
                nodes: 5,
            },
            1,
            0,
        );
        let sum: Count = [a, b].into_iter().sum();
        assert_eq!(
            sum,
            Count {
                total: 7,
                unique: 3,
                nodes: 15,
                units: 2
            }
        );
    }
}
