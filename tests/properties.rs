//! Two ways of computing must agree: the kernel and a textbook solver, serial and parallel, mirror and none.

mod common;

use common::reference_count;
use nqueens::exec::{run_parallel, run_serial, NoProgress};
use nqueens::kernel::count_completions;
use nqueens::{Board, Plan, Split, Symmetry};
use proptest::prelude::*;

fn kernel_count(n: u32, prefix: &[u8]) -> Option<u64> {
    let masks = Board::new(n).unwrap().masks_after(prefix)?;
    Some(count_completions(n, prefix.len() as u32, masks).solutions)
}

#[test]
fn kernel_equals_the_reference_on_every_empty_board_up_to_10() {
    for n in 0..=10u32 {
        assert_eq!(
            kernel_count(n, &[]),
            Some(reference_count(n as usize, &[])),
            "n = {n}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn kernel_equals_the_reference_for_random_prefixes(
        n in 1u32..=10,
        prefix in proptest::collection::vec(0u8..10, 0..6),
    ) {
        let prefix: Vec<u8> = prefix.into_iter().filter(|&c| u32::from(c) < n).take(n as usize).collect();
        let wide: Vec<usize> = prefix.iter().map(|&c| c as usize).collect();
        let expected = reference_count(n as usize, &wide);
        // An invalid prefix has no masks and, for the reference, no solutions.
        prop_assert_eq!(kernel_count(n, &prefix).unwrap_or(0), expected);
    }

    #[test]
    fn each_unit_counts_what_the_reference_counts_below_it(
        n in 4u32..=10,
        depth in 0u32..5,
        symmetry in prop_oneof![Just(Symmetry::None), Just(Symmetry::Mirror)],
    ) {
        let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::Depth(depth));
        for unit in plan.units() {
            let wide: Vec<usize> = unit.prefix.iter().map(|&c| c as usize).collect();
            let expected = u128::from(reference_count(n as usize, &wide)) * u128::from(unit.weight);
            prop_assert_eq!(plan.count_unit(unit).total, expected, "unit {:?}", unit.prefix);
        }
    }

    #[test]
    fn serial_equals_parallel_for_any_threads_and_split(
        n in 0u32..=12,
        threads in 1usize..=8,
        depth in prop::option::of(0u32..7),
        symmetry in prop_oneof![Just(Symmetry::None), Just(Symmetry::Mirror)],
    ) {
        let split = depth.map_or(Split::Auto { threads }, Split::Depth);
        let plan = Plan::new(Board::new(n).unwrap(), symmetry, split);
        let serial = run_serial(&plan, &NoProgress);
        let parallel = run_parallel(&plan, threads, &NoProgress).unwrap();
        prop_assert_eq!(serial, parallel);
        prop_assert_eq!(serial.units as usize, plan.units().len());
    }

    #[test]
    fn mirror_equals_none_for_any_split(n in 0u32..=13, depth in 0u32..6) {
        let total = |symmetry| {
            let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::Depth(depth));
            run_serial(&plan, &NoProgress).total
        };
        prop_assert_eq!(total(Symmetry::Mirror), total(Symmetry::None));
    }
}
