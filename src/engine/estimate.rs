//! How much work a plan's units hold, told before they are counted: for a time left that follows the work
//! rather than the units.
//!
//! Units differ in size, and not at random: in plan order, the full symmetry's first units are several times
//! the average (at n = 17, the first 1% of the checkpointed plan's units hold 4.9% of its nodes, the first 10%
//! hold 21%), while the other modes' first units are smaller than the average. A time left from the share of
//! units done was therefore 2 to 7 times too long in the first tenth of a full-symmetry run, and in the other
//! modes about half the truth early on and, in the plain mode, 1.4 times it late (`results/progress.md`).
//!
//! The estimate is Knuth's (1975): a random descent from a unit's start, taking one free square a row at
//! random, is an unbiased estimate of the unit's nodes, the sum over the rows of the product of the free
//! squares met so far. A few descents from a few units of each stretch of the plan give each stretch's mean
//! unit, in milliseconds for any plan; the stretches follow the plan's order, which is where the sizes drift.
//! The descents are seeded by the stretch, so an estimate is the same on every run and thread count.

use crate::engine::kernel::{Frame, Masks, Start};
use crate::engine::plan::{Plan, WorkUnit};
use rayon::prelude::*;

/// Stretches of a plan, at most: each gets its own mean unit.
const STRETCHES: usize = 512;

/// Units of a stretch that are probed, at most.
const PROBED_UNITS: usize = 16;

/// Random descents in all: 4 from each probed unit of a large plan, more from each unit of a small one. Some
/// 10 ms of one core at n = 17 to 18: their spread from the counted work stays within about 7% from the first
/// 1% of a run on (`results/progress.md`).
const DESCENTS: usize = STRETCHES * PROBED_UNITS * 4;

/// Descents of the first, rough estimate: one a stretch.
const ROUGH_DESCENTS: usize = STRETCHES;

/// The work under which the rough estimate is kept: about a second of one core. A run that short is over
/// before anyone reads its time left, and the full estimate would be some 3% of it.
const SHORT_RUN: f64 = (1u64 << 30) as f64;

/// What a unit costs beyond its nodes, in nodes: building its start and filling a lane, some 3,500
/// instructions, where a node of the vector loops costs about 24 (`results/scaling.md`). It keeps a unit with
/// no nodes from counting as no work.
const UNIT_COST: f64 = 150.0;

/// The estimated work of each unit of a plan, in nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkEstimate {
    /// Units in the plan.
    units: usize,
    /// Units in each stretch (the last may have fewer).
    stretch: usize,
    /// The estimated work of a unit of each stretch.
    per_unit: Vec<f64>,
}

impl WorkEstimate {
    /// Estimates the work of every unit of `plan`: roughly where the whole is small, closely otherwise.
    pub fn of(plan: &Plan) -> WorkEstimate {
        let rough = WorkEstimate::with_descents(plan, ROUGH_DESCENTS);
        if rough.units(None) < SHORT_RUN {
            return rough;
        }
        WorkEstimate::with_descents(plan, DESCENTS)
    }

    /// The estimate from about `descents` random descents, spread over the plan's stretches.
    fn with_descents(plan: &Plan, descents: usize) -> WorkEstimate {
        let units = plan.units();
        let stretch = units.len().div_ceil(STRETCHES).max(1);
        let each = descents.div_ceil(units.len().div_ceil(stretch).max(1));
        let samples = PROBED_UNITS.min(stretch).min(each).max(1);
        let descents = (each / samples).clamp(1, 256) as u32;
        let probed: Vec<Option<f64>> = units
            .par_chunks(stretch)
            .enumerate()
            .map(|(i, chunk)| {
                let mut random = fastrand::Rng::with_seed(i as u64);
                let samples = samples.min(chunk.len());
                let descents: Vec<f64> = (0..samples)
                    .filter_map(|j| {
                        let unit = &chunk[j * chunk.len() / samples];
                        descend(plan, unit, descents, &mut random)
                    })
                    .collect();
                (!descents.is_empty()).then(|| descents.iter().sum::<f64>() / descents.len() as f64)
            })
            .collect();
        // A stretch of units that no descent can estimate (each enumerated whole for Burnside's lemma: a few
        // units of a plan) takes the mean of the others.
        let known: Vec<f64> = probed.iter().flatten().copied().collect();
        let mean = if known.is_empty() {
            0.0
        } else {
            known.iter().sum::<f64>() / known.len() as f64
        };
        WorkEstimate {
            units: units.len(),
            stretch,
            per_unit: probed
                .into_iter()
                .map(|nodes| nodes.unwrap_or(mean) + UNIT_COST)
                .collect(),
        }
    }

    /// The estimated work of the unit numbered `index`, in nodes; 0 for a number past the plan.
    pub fn unit(&self, index: usize) -> f64 {
        if index >= self.units {
            return 0.0;
        }
        self.per_unit[index / self.stretch]
    }

    /// The estimated work of the units numbered in `units`, or of every unit of the plan for `None`.
    pub fn units(&self, units: Option<&[usize]>) -> f64 {
        match units {
            Some(units) => units.iter().map(|&i| self.unit(i)).sum(),
            None => (self.per_unit.iter().enumerate())
                .map(|(i, work)| {
                    work * (self.units.min((i + 1) * self.stretch) - i * self.stretch) as f64
                })
                .sum(),
        }
    }
}

/// The mean of `descents` random descents from `unit`'s start: Knuth's estimate of its nodes; `None` for a
/// unit the kernel does not search (one enumerated whole).
fn descend(plan: &Plan, unit: &WorkUnit, descents: u32, random: &mut fastrand::Rng) -> Option<f64> {
    Some(nodes_below(&plan.start(unit)?, descents, random))
}

/// Knuth's estimate of the nodes below `start`: the mean of `descents` random descents (at least one). The
/// crate's own (the GPU's sizing): its generator is `fastrand`'s, which a caller would have to share.
pub(crate) fn nodes_below(start: &Start, descents: u32, random: &mut fastrand::Rng) -> f64 {
    let descents = descents.max(1);
    let mut sum = 0.0;
    for _ in 0..descents {
        let (mut masks, mut row, mut paths, mut nodes) = (start.masks, start.row, 1.0, 0.0);
        while row < start.frame.end {
            let Some((choices, next)) = random_step(&start.frame, row, masks, random) else {
                break;
            };
            paths *= f64::from(choices);
            nodes += paths;
            masks = next;
            row += 1;
        }
        sum += nodes;
    }
    sum / f64::from(descents)
}

/// One row of a random descent: the free squares of `row` under `masks` and `frame`, and the masks for the
/// next row after a queen on one of them taken at random; `None` where the row has none.
pub(crate) fn random_step(
    frame: &Frame,
    row: u32,
    masks: Masks,
    random: &mut fastrand::Rng,
) -> Option<(u32, Masks)> {
    let mut free = frame.free(row, masks);
    let choices = free.count_ones();
    if choices == 0 {
        return None;
    }
    for _ in 0..random.u32(..choices) {
        free &= free - 1;
    }
    Some((choices, masks.place(free & free.wrapping_neg())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Board;
    use crate::engine::count::Count;
    use crate::engine::exec::{run_serial, Progress};
    use crate::engine::plan::Split;
    use crate::engine::symmetry::Symmetry;
    use std::sync::Mutex;

    /// Each unit's nodes, by unit number, as counted.
    struct Nodes(Mutex<Vec<u128>>);

    impl Progress for Nodes {
        fn unit_done(&self, unit: &WorkUnit, count: &Count) {
            self.0.lock().unwrap()[unit.index] = count.nodes;
        }
    }

    fn counted(plan: &Plan) -> Vec<f64> {
        let nodes = Nodes(Mutex::new(vec![0; plan.units().len()]));
        run_serial(plan, &nodes);
        let nodes = nodes.0.into_inner().unwrap();
        nodes.into_iter().map(|n| n as f64 + UNIT_COST).collect()
    }

    /// The share of the work in the first `units` of the plan, by each unit's work.
    fn share(work: &[f64], units: usize) -> f64 {
        work[..units].iter().sum::<f64>() / work.iter().sum::<f64>()
    }

    #[test]
    fn the_estimate_of_a_whole_plan_is_near_its_nodes_in_every_mode() {
        for symmetry in [Symmetry::None, Symmetry::Mirror, Symmetry::Full] {
            for n in [10, 12, 13] {
                let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::durable(symmetry));
                let real: f64 = counted(&plan).iter().sum();
                let estimate = WorkEstimate::with_descents(&plan, DESCENTS).units(None);
                let ratio = estimate / real;
                assert!(
                    (0.9..1.1).contains(&ratio),
                    "n = {n}, {symmetry:?}: estimated {estimate}, counted {real}"
                );
            }
        }
    }

    #[test]
    fn the_estimated_share_of_the_work_follows_the_plans_order_where_the_units_share_does_not() {
        // The full symmetry's first units are the largest: by their number, the first tenth of the plan
        // would be a tenth of the work.
        let plan = Plan::new(
            Board::new(15).unwrap(),
            Symmetry::Full,
            Split::durable(Symmetry::Full),
        );
        let units = plan.units().len();
        let real = counted(&plan);
        let estimate = WorkEstimate::with_descents(&plan, DESCENTS);
        let estimated: Vec<f64> = (0..units).map(|i| estimate.unit(i)).collect();
        for part in [0.01, 0.1, 0.25, 0.5, 0.9] {
            let first = (units as f64 * part) as usize;
            let (real, estimated) = (share(&real, first), share(&estimated, first));
            if part <= 0.1 {
                assert!(
                    real > 1.5 * part,
                    "{part} of the units hold {real} of the work: the units' share would do"
                );
            }
            assert!(
                (estimated / real - 1.0).abs() < 0.1,
                "{part} of the units: {real} of the work, estimated {estimated}"
            );
        }
    }

    #[test]
    fn a_short_run_is_estimated_roughly_and_a_long_one_closely() {
        let durable = |n| {
            Plan::new(
                Board::new(n).unwrap(),
                Symmetry::Full,
                Split::durable(Symmetry::Full),
            )
        };
        // n = 13: 4.6 million nodes, well under a second.
        let short = durable(13);
        assert_eq!(
            WorkEstimate::of(&short),
            WorkEstimate::with_descents(&short, ROUGH_DESCENTS)
        );
        // n = 17: 2.4 billion nodes.
        let long = durable(17);
        let close = WorkEstimate::with_descents(&long, DESCENTS);
        assert_eq!(WorkEstimate::of(&long), close);
        assert_ne!(close, WorkEstimate::with_descents(&long, ROUGH_DESCENTS));
    }

    #[test]
    fn a_unit_enumerated_whole_is_taken_as_the_mean_of_the_others() {
        // n = 8 in the full mode: fewer units than stretches, so each unit is probed on its own; the borders a
        // symmetry fixes are units without a start, which no descent can size.
        let plan = Plan::new(Board::new(8).unwrap(), Symmetry::Full, Split::Depth(2));
        let estimate = WorkEstimate::with_descents(&plan, DESCENTS);
        let (whole, searched): (Vec<&WorkUnit>, Vec<&WorkUnit>) =
            plan.units().iter().partition(|u| plan.start(u).is_none());
        assert!(!whole.is_empty() && !searched.is_empty());
        let mean = searched
            .iter()
            .map(|u| estimate.unit(u.index) - UNIT_COST)
            .sum::<f64>()
            / searched.len() as f64;
        assert!(mean > 1.0);
        for unit in whole {
            let nodes = estimate.unit(unit.index) - UNIT_COST;
            assert!((nodes - mean).abs() < 1e-9 * mean, "{nodes} against {mean}");
        }
    }

    #[test]
    fn an_estimate_is_the_same_on_any_number_of_threads() {
        let plan = Plan::new(Board::new(12).unwrap(), Symmetry::Full, Split::Depth(3));
        let on = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| WorkEstimate::with_descents(&plan, DESCENTS))
        };
        assert_eq!(on(1), on(4));
    }

    #[test]
    fn the_work_of_some_units_adds_up_to_the_work_of_all() {
        for n in [1, 5, 8, 11] {
            let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, Split::Units(1000));
            let estimate = WorkEstimate::of(&plan);
            let all: Vec<usize> = (0..plan.units().len()).collect();
            let by_unit: f64 = all.iter().map(|&i| estimate.unit(i)).sum();
            let whole = estimate.units(None);
            assert!((whole - by_unit).abs() <= 1e-9 * whole, "n = {n}");
            assert_eq!(estimate.units(Some(&all)), by_unit, "n = {n}");
            // Every unit costs something, even one whose solutions are enumerated whole (the middle of n = 5
            // and the like); a number past the plan costs nothing.
            assert!(
                all.iter().all(|&i| estimate.unit(i) >= UNIT_COST),
                "n = {n}"
            );
            assert_eq!(estimate.unit(all.len()), 0.0);
            let (evens, odds): (Vec<usize>, Vec<usize>) = all.iter().partition(|&&i| i % 2 == 0);
            let halves = estimate.units(Some(&evens)) + estimate.units(Some(&odds));
            assert!((halves - whole).abs() <= 1e-9 * whole, "n = {n}");
        }
    }
}
