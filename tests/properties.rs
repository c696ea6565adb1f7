//! Two ways of computing must agree: the kernel and a textbook solver, serial and parallel, mirror and none.

mod common;

use common::{images, reference_count, reference_solutions};
use nqueens::engine::exec::{run_parallel, run_serial, NoProgress};
use nqueens::engine::kernel::count_completions;
use nqueens::engine::plan::Weight;
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
            let Weight::Plain { total: weight, .. } = unit.weight else {
                panic!("row-prefix units have plain weights");
            };
            let expected = u128::from(reference_count(n as usize, &wide)) * u128::from(weight);
            prop_assert_eq!(plan.count_unit(unit).total, expected, "unit {:?}", unit.prefix);
        }
    }

    #[test]
    fn serial_equals_parallel_for_any_threads_and_split(
        n in 0u32..=12,
        // Up to many more threads than units: those without a unit are not started.
        threads in prop_oneof![1usize..=8, 64usize..=512],
        depth in prop::option::of(0u32..7),
        symmetry in prop_oneof![Just(Symmetry::None), Just(Symmetry::Mirror), Just(Symmetry::Full)],
    ) {
        let split = depth.map_or(Split::Auto { threads }, Split::Depth);
        let plan = Plan::new(Board::new(n).unwrap(), symmetry, split);
        let serial = run_serial(&plan, &NoProgress);
        let parallel = run_parallel(&plan, threads, &NoProgress).unwrap();
        prop_assert_eq!(serial, parallel);
        prop_assert_eq!(serial.units as usize, plan.units().len());
    }

    #[test]
    fn full_mirror_and_none_agree_for_any_threads_and_split(
        n in 0u32..=13,
        depth in 0u32..6,
        threads in 1usize..=4,
    ) {
        let total = |symmetry| {
            let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::Depth(depth));
            run_parallel(&plan, threads, &NoProgress).unwrap().total
        };
        let none = total(Symmetry::None);
        prop_assert_eq!(total(Symmetry::Mirror), none);
        prop_assert_eq!(total(Symmetry::Full), none);
    }

    #[test]
    fn each_full_unit_counts_what_brute_force_finds_with_its_border(
        n in 4usize..=9,
        depth in 0u32..3,
        pick in any::<prop::sample::Index>(),
    ) {
        let plan = Plan::new(Board::new(n as u32).unwrap(), Symmetry::Full, Split::Depth(depth));
        let unit = &plan.units()[pick.index(plan.units().len())];
        let border = unit.border.unwrap();
        // The border of a solution, read off its list of queens.
        let matching: Vec<Vec<usize>> = reference_solutions(n)
            .into_iter()
            .filter(|s| {
                let row_of = |col: usize| s.iter().position(|&c| c == col).unwrap() as u8;
                (s[0] as u8, s[n - 1] as u8, row_of(0), row_of(n - 1))
                    == (border.top, border.bottom, border.left, border.right)
                    && s.iter().zip(&unit.prefix).all(|(&a, &b)| a == b as usize)
            })
            .collect();
        let count = plan.count_unit(unit);
        match &unit.weight {
            Weight::Plain { total, unique } => {
                prop_assert_eq!(count.total, matching.len() as u128 * u128::from(*total));
                prop_assert_eq!(count.unique, matching.len() as u128 * u128::from(*unique));
            }
            Weight::Burnside(group) => {
                prop_assert_eq!(count.total, matching.len() as u128 * 8 / group.len() as u128);
                // Classes of the board's symmetries among these solutions: those whose smallest image is new.
                let classes: std::collections::BTreeSet<Vec<usize>> = matching
                    .iter()
                    .map(|s| images(s).into_iter().min().unwrap())
                    .collect();
                prop_assert_eq!(count.unique, classes.len() as u128);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// The shards of any plan partition it: their counts, each from only its own units, add up to the whole
    /// board's, which the textbook solver confirms; a stopped run counts nothing.
    #[test]
    fn shards_of_any_plan_add_up_to_the_reference(
        n in 4u32..=10,
        symmetry in prop::sample::select(Symmetry::ALL.to_vec()),
        depth in 0u32..4,
        shards in 1u32..6,
        threads in 1usize..4,
    ) {
        use nqueens::engine::exec::run_selected;
        use nqueens::runs::shard::Shard;
        use std::sync::atomic::AtomicBool;
        let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::Depth(depth));
        let go = AtomicBool::new(false);
        let mut total = 0u128;
        let mut units = 0u64;
        for k in 0..shards {
            let shard = Shard::new(k, shards).unwrap();
            let mine: Vec<usize> = (0..plan.units().len()).filter(|&u| shard.contains(u)).collect();
            let count = run_selected(&plan, &mine, threads, &go, &NoProgress).unwrap();
            prop_assert_eq!(count.units as usize, mine.len());
            total += count.total;
            units += count.units;
        }
        prop_assert_eq!(units as usize, plan.units().len());
        prop_assert_eq!(total, u128::from(reference_count(n as usize, &[])));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        let stopped = run_selected(&plan, &all, threads, &AtomicBool::new(true), &NoProgress).unwrap();
        prop_assert_eq!(stopped.units, 0);
    }
}
