//! How long a count would take on this machine, told in seconds of sampling: for deciding whether a board
//! is worth the months, and how many machines it needs, before any of them starts.
//!
//! The estimate is Knuth's random descent, carried only part of the way down (Purdom's partial backtracking):
//! from a unit of the plan drawn at random, a descent takes one free square a row at random down to a cut
//! depth, and the subtree there is counted whole by the search loop itself. With `U` units and `b1, b2, …` free
//! squares met on the way, `U (b1 + b1 b2 + … + b1 … bc) + U b1 … bc × (the subtree's nodes)` is an unbiased
//! estimate of the plan's nodes, with a far smaller spread than a descent to the bottom; and the subtrees are
//! counted by the loop that would count the board, on the threads that would count it, so their nodes over
//! their time are this machine's rate on this board. The cut is chosen so that a subtree holds some 65,000
//! nodes (tens of microseconds of a lane): deep enough to measure the loop, shallow enough that the last
//! subtrees in the lanes when the time is up end soon after it (their sizes vary a hundredfold, and with
//! subtrees of a million nodes that tail made a forecast 30% long at n = 19).

use crate::engine::estimate::random_step;
use crate::engine::exec::Run;
use crate::engine::kernel::{self, Start};
use crate::engine::plan::{Plan, WorkUnit};
use crate::error::Error;
use std::time::{Duration, Instant};

/// Nodes a sampled subtree holds, about: the cut depth is the shallowest whose subtrees are this small.
const SUBTREE_NODES: f64 = (1u64 << 16) as f64;

/// Descents that choose the cut depth.
const PILOT_DESCENTS: usize = 1024;

/// Samples a thread takes at least, however short the time given.
const MIN_SAMPLES: usize = 256;

/// Samples each unit needs for the largest unit's nodes to be told ([`Forecast::largest_unit_nodes`]): fewer
/// leave the largest of the units' means mostly their noise.
const UNIT_SAMPLES: u64 = 64;

/// Runs of more units than this are not tallied unit by unit (one tally of 24 bytes a unit, shared by the
/// threads): their time is their nodes' at the sampled rate.
const TALLIED_UNITS: usize = 1 << 16;

/// How long a count of a plan, or of some of its units, would take, from samples of its search.
#[derive(Clone, Debug, PartialEq)]
pub struct Forecast {
    /// Units sampled from: the plan's, or those selected.
    pub units: usize,
    /// The estimated nodes of those units.
    pub nodes: f64,
    /// The standard error of that estimate (one standard deviation of the mean of the samples).
    pub nodes_error: f64,
    /// Rows descended at random before a subtree is counted.
    pub cut_depth: u32,
    /// Samples taken (descents, with the subtree each reached).
    pub samples: u64,
    /// Nodes the search loop counted in the sampled subtrees.
    pub sampled_nodes: u64,
    /// Threads that counted them, side by side.
    pub threads: usize,
    /// How long the sampling took.
    pub sampled_seconds: f64,
    /// The search loop that counted the samples, as a count of the board would (`--kernel`, and the scalar
    /// loop on boards the vector loops do not take).
    pub kernel: kernel::Kernel,
    /// Searches the loop runs side by side on each thread ([`kernel::Kernel::searches`]): a unit is one of
    /// them, counted whole by one, so a run of few units keeps only some busy.
    pub searches: usize,
    /// The estimated nodes of the largest unit, where every unit was sampled often enough to say
    /// (64 samples each); `None` otherwise (a run of many units, whose time is their sum's).
    pub largest_unit_nodes: Option<f64>,
    /// The processor seconds a second the sampling had, where its caller measured them (the process's
    /// processor time over `sampled_seconds`); `None` where not. Fewer than its threads, the machine was
    /// shared: each thread ran at that share of a core, where a lone unit's one search gets a core of its own
    /// ([`Forecast::largest_unit_seconds`]).
    pub sampled_cores: Option<f64>,
}

impl Forecast {
    /// Samples `plan` on `threads` threads for about `budget` (at least `MIN_SAMPLES` a thread, and no
    /// longer once a thread's samples hold as many nodes as the plan is estimated to).
    pub fn sample(plan: &Plan, threads: usize, budget: Duration) -> Forecast {
        let all = Run { plan, units: None };
        Forecast::run(&all, threads.max(1), Until::Elapsed(budget), SUBTREE_NODES)
    }

    /// Samples the units of `plan` numbered in `units` (all of them for `None`) as [`Forecast::sample`] samples
    /// a plan: the forecast of a shard's run. Its descents start from those units alone, drawn at random among
    /// them, so the estimate is of their nodes, unbiased, whatever the other units hold; `None` draws exactly
    /// as the whole plan's forecast does.
    ///
    /// # Errors
    /// [`Error::UnitOutsidePlan`] for a number that is none of the plan's units, [`Error::UnitRepeated`] for
    /// one named twice (sampled twice as often, its nodes would count twice).
    pub fn sample_units(
        plan: &Plan,
        units: Option<&[usize]>,
        threads: usize,
        budget: Duration,
    ) -> Result<Forecast, Error> {
        let units = Run { plan, units };
        units.check()?;
        Ok(Forecast::run(
            &units,
            threads.max(1),
            Until::Elapsed(budget),
            SUBTREE_NODES,
        ))
    }

    /// Samples `plan` with exactly `samples` samples a thread: the same figures, but the times, on every run.
    pub fn with_samples(plan: &Plan, threads: usize, samples: usize) -> Forecast {
        let all = Run { plan, units: None };
        Forecast::run(&all, threads.max(1), Until::Samples(samples), SUBTREE_NODES)
    }

    /// Samples the units of `plan` numbered in `units` (all for `None`) with exactly `samples` samples a thread.
    ///
    /// # Errors
    /// [`Error::UnitOutsidePlan`] for a number that is none of the plan's units, [`Error::UnitRepeated`] for
    /// one named twice (sampled twice as often, its nodes would count twice).
    pub fn with_samples_of(
        plan: &Plan,
        units: Option<&[usize]>,
        threads: usize,
        samples: usize,
    ) -> Result<Forecast, Error> {
        let units = Run { plan, units };
        units.check()?;
        Ok(Forecast::run(
            &units,
            threads.max(1),
            Until::Samples(samples),
            SUBTREE_NODES,
        ))
    }

    /// The nodes counted a second, by all the threads side by side; 0 where nothing was sampled.
    pub fn rate(&self) -> f64 {
        if self.sampled_seconds > 0.0 {
            self.sampled_nodes as f64 / self.sampled_seconds
        } else {
            0.0
        }
    }

    /// The estimated seconds of counting the plan at the sampled rate (planning and starting aside); `None`
    /// where no rate was measured (a plan with no nodes to sample). The sampling keeps every search of every
    /// thread busy, and so does a count of many units; but a unit is counted by one search, so a count can take
    /// no less than its largest unit on one search ([`Forecast::largest_unit_seconds`]), which is the longer
    /// where the units are fewer than the searches (a shard of a few units: 30 times the rate's time).
    pub fn seconds(&self) -> Option<f64> {
        let rate = self.rate();
        (rate > 0.0).then(|| {
            let all_busy = self.nodes / rate;
            self.largest_unit_seconds()
                .map_or(all_busy, |one| one.max(all_busy))
        })
    }

    /// How long the largest unit takes on one search, at the sampled rate shared by the searches; `None` where
    /// it is not known ([`Forecast::largest_unit_nodes`]) or no rate was measured.
    pub fn largest_unit_seconds(&self) -> Option<f64> {
        // The rate of a thread with a core: on a shared machine (2 threads given 1.0 core, the load of
        // other work), the rate over the threads made a lone unit of n = 16 take 72 s where it took 41 s.
        let threads = self.threads.max(1) as f64;
        let busy = self
            .sampled_cores
            .filter(|c| c.is_finite() && *c > 0.0)
            .map_or(threads, |cores| cores.clamp(1.0, threads));
        let per_search = self.rate() / (busy * self.searches.max(1) as f64);
        self.largest_unit_nodes
            .filter(|_| per_search > 0.0)
            .map(|nodes| nodes / per_search)
    }

    /// Whether the largest unit is what the time to count is ([`Forecast::seconds`]): the run has too few units
    /// to keep the searches busy.
    pub fn bound_by_largest_unit(&self) -> bool {
        let rate = self.rate();
        rate > 0.0
            && self
                .largest_unit_seconds()
                .is_some_and(|one| one > self.nodes / rate)
    }

    /// The forecast from subtrees of about `subtree` nodes ([`SUBTREE_NODES`], or fewer in tests, to cut small
    /// boards too).
    fn run(units: &Run, threads: usize, until: Until, subtree: f64) -> Forecast {
        let cut = cut_depth(units, subtree);
        let started = Instant::now();
        // Each unit's samples (their number and sum), shared by the threads: one tally for the run, whatever
        // its threads, locked a sample at a time (a sample is microseconds of a search).
        let each: Vec<std::sync::Mutex<(u64, f64)>> = (0..tallied(units))
            .map(|_| std::sync::Mutex::new((0, 0.0)))
            .collect();
        let per_thread: Vec<(Spread, u64)> = std::thread::scope(|scope| {
            let each = &each;
            let workers: Vec<_> = (0..threads)
                .map(|thread| {
                    scope.spawn(move || sample_stream(units, cut, thread, until, started, each))
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        let sampled_seconds = started.elapsed().as_secs_f64();
        let spread = per_thread
            .iter()
            .fold(Spread::default(), |all, (thread, _)| all.merge(thread));
        // A sample's estimate is of all the run's units, so a unit's nodes are its samples' mean over their
        // number.
        let each: Vec<(u64, f64)> = each
            .into_iter()
            .map(|u| u.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect();
        let largest_unit_nodes = (!each.is_empty() && each.iter().all(|u| u.0 >= UNIT_SAMPLES))
            .then(|| {
                each.iter()
                    .map(|&(n, sum)| sum / n as f64)
                    .fold(0.0, f64::max)
                    / units.len() as f64
            });
        let board = units.plan.board();
        let sampled_by = kernel::Kernel::preferred().on(board.width(), board.lines());
        Forecast {
            units: units.len(),
            nodes: spread.mean,
            nodes_error: spread.standard_error(),
            cut_depth: cut,
            samples: spread.count,
            sampled_nodes: per_thread.iter().map(|(_, n)| n).sum(),
            threads,
            sampled_seconds,
            kernel: sampled_by,
            searches: sampled_by.searches(),
            largest_unit_nodes,
            sampled_cores: None,
        }
    }
}

/// The mean and spread of the samples, kept as they come (Welford's method, merged by Chan's), so that a long
/// sampling holds no list of them.
#[derive(Clone, Copy, Debug, Default)]
struct Spread {
    count: u64,
    mean: f64,
    /// The sum of the squared differences from the mean.
    squares: f64,
}

impl Spread {
    fn add(&mut self, x: f64) {
        self.count += 1;
        let step = x - self.mean;
        self.mean += step / self.count as f64;
        self.squares += step * (x - self.mean);
    }

    fn merge(self, other: &Spread) -> Spread {
        if self.count == 0 {
            return *other;
        }
        if other.count == 0 {
            return self;
        }
        let count = self.count + other.count;
        let step = other.mean - self.mean;
        Spread {
            count,
            mean: self.mean + step * other.count as f64 / count as f64,
            squares: self.squares
                + other.squares
                + step * step * (self.count as f64 * other.count as f64 / count as f64),
        }
    }

    /// The standard error of the mean; 0 under two samples.
    fn standard_error(&self) -> f64 {
        if self.count < 2 {
            return 0.0;
        }
        (self.squares / (self.count - 1) as f64 / self.count as f64).sqrt()
    }
}

/// One of `run`'s units at random, each as likely: the same draw as the whole plan's where the run counts every
/// unit, so that a forecast of the whole plan is what it was before runs of some units were sampled.
fn draw<'a>(run: &Run<'a>, random: &mut fastrand::Rng) -> (usize, &'a WorkUnit) {
    let units = run.plan.units();
    let i = random.usize(..run.len());
    (i, &units[run.units.map_or(i, |selected| selected[i])])
}

/// How many of `run`'s units the samples are tallied for one by one: all of them, or none for a run of more
/// than [`TALLIED_UNITS`].
fn tallied(run: &Run) -> usize {
    if run.len() <= TALLIED_UNITS {
        run.len()
    } else {
        0
    }
}

/// When the sampling stops.
#[derive(Clone, Copy)]
enum Until {
    Elapsed(Duration),
    Samples(usize),
}

/// A descent of `cut` rows at most, from a random one of `units`: which of them (its place among them), its
/// estimate of their nodes above the cut, and where it reached the cut, the start there and the weight of its
/// subtree's nodes.
fn descend(
    units: &Run,
    cut: u32,
    random: &mut fastrand::Rng,
) -> (usize, f64, Option<(f64, Start)>) {
    let (i, unit) = draw(units, random);
    // A unit enumerated whole (Burnside's lemma: a few of a plan) is not searched by the loop: no nodes.
    let Some(start) = units.plan.start(unit) else {
        return (i, 0.0, None);
    };
    let (mut masks, mut row, mut paths, mut above) =
        (start.masks, start.row, units.len() as f64, 0.0);
    while row < start.row + cut {
        // The cut never reaches the rows the loop closes in its own way: the subtree's search starts above.
        if row + 2 >= start.frame.end {
            break;
        }
        let Some((choices, next)) = random_step(&start.frame, row, masks, random) else {
            return (i, above, None);
        };
        paths *= f64::from(choices);
        above += paths;
        masks = next;
        row += 1;
    }
    let start = Start {
        row,
        masks,
        frame: start.frame,
    };
    (i, above, Some((paths, start)))
}

/// One thread's samples, seeded by `thread`: each sample's estimate of the plan's nodes, and the nodes the
/// loop counted; each sample is also added to its unit's tally in `each` (where the units are [`tallied`]). The samples are fed to the loop one at a time, as a lane finishes its subtree, so every lane
/// is busy until the end (where batches of samples left lanes idle at each batch's end: a subtree's nodes
/// vary a hundredfold, and a rate so measured was up to twice too slow).
fn sample_stream(
    units: &Run,
    cut: u32,
    thread: usize,
    until: Until,
    started: Instant,
    each: &[std::sync::Mutex<(u64, f64)>],
) -> (Spread, u64) {
    let mut random = fastrand::Rng::with_seed(thread as u64);
    // Samples are complete where they reach no subtree, or when the loop hands their subtree's count back.
    let spread = std::cell::Cell::new(Spread::default());
    let add = |unit: usize, x: f64| {
        let mut all = spread.get();
        all.add(x);
        spread.set(all);
        if let Some(one) = each.get(unit) {
            let mut one = one.lock().unwrap_or_else(|e| e.into_inner());
            *one = (one.0 + 1, one.1 + x);
        }
    };
    let (mut taken, counted) = (0usize, std::cell::Cell::new(0u64));
    let board = units.plan.board();
    let empty = units.is_empty();
    kernel::count_stream_lines(
        board.width(),
        board.lines(),
        || loop {
            let enough = match until {
                Until::Samples(samples) => taken >= samples,
                Until::Elapsed(budget) => {
                    // A plan whose samples hold its estimated nodes already is sampled enough.
                    taken >= MIN_SAMPLES
                        && (started.elapsed() >= budget
                            || counted.get() as f64 >= spread.get().mean)
                }
            };
            if enough || empty {
                return None;
            }
            taken += 1;
            match descend(units, cut, &mut random) {
                (unit, above, Some((weight, start))) => {
                    return Some(((unit, above, weight), start))
                }
                (unit, above, None) => add(unit, above),
            }
        },
        |(unit, above, weight), tally| {
            add(unit, above + weight * tally.nodes as f64);
            counted.set(counted.get() + tally.nodes);
        },
    );
    (spread.get(), counted.get())
}

/// The shallowest depth below a unit's start at which a subtree holds about `target` nodes, from the mean
/// number of paths at each depth in a few pilot descents to the bottom from `units`.
fn cut_depth(units: &Run, target: f64) -> u32 {
    if units.is_empty() {
        return 0;
    }
    let mut random = fastrand::Rng::with_seed(0x5eed);
    // paths[k]: the sum over the descents of the paths at depth k (1 at depth 0).
    let mut paths: Vec<f64> = Vec::new();
    for _ in 0..PILOT_DESCENTS {
        let (_, unit) = draw(units, &mut random);
        let Some(start) = units.plan.start(unit) else {
            continue;
        };
        let (mut masks, mut row, mut product) = (start.masks, start.row, 1.0);
        let mut depth = 0;
        loop {
            if paths.len() <= depth {
                paths.push(0.0);
            }
            paths[depth] += product;
            if row >= start.frame.end {
                break;
            }
            let Some((choices, next)) = random_step(&start.frame, row, masks, &mut random) else {
                break;
            };
            product *= f64::from(choices);
            masks = next;
            row += 1;
            depth += 1;
        }
    }
    // Nodes below depth k, per path at depth k.
    let subtree = |k: usize| paths[k + 1..].iter().sum::<f64>() / paths[k];
    let first = (0..paths.len())
        .find(|&k| paths[k] > 0.0 && subtree(k) <= target)
        .unwrap_or(paths.len());
    // The depth above where its subtrees are nearer the target, by their ratio: a wide board's rows multiply
    // the paths twentyfold (30x8), and the first depth under the target left subtrees of 4,400 nodes, whose
    // descents and starts halved the rate.
    match first.checked_sub(1) {
        Some(above) if first < paths.len() && subtree(above) / target < target / subtree(first) => {
            above as u32
        }
        _ => first as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::board::Board;
    use crate::engine::exec::{run_parallel, run_selected, NoProgress};
    use crate::engine::plan::Split;
    use crate::engine::symmetry::Symmetry;

    #[test]
    fn the_forecast_nodes_are_within_a_few_standard_errors_of_the_counted_ones() {
        for (n, symmetry) in [
            (12, Symmetry::Full),
            (13, Symmetry::Mirror),
            (11, Symmetry::None),
            (14, Symmetry::Full),
        ] {
            let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::durable(symmetry));
            let counted = run_parallel(&plan, 2, &NoProgress).unwrap().nodes as f64;
            let forecast = Forecast::with_samples(&plan, 2, 1000);
            assert_eq!(forecast.samples, 2000);
            assert!(forecast.nodes_error > 0.0, "{forecast:?}");
            let off = (forecast.nodes - counted).abs();
            assert!(
                off <= 4.0 * forecast.nodes_error && off <= 0.2 * counted,
                "n = {n} {symmetry}: counted {counted}, forecast {forecast:?}"
            );
            assert!(forecast.rate() > 0.0);
            // The same batches give the same estimate.
            assert_eq!(Forecast::with_samples(&plan, 2, 1000).nodes, forecast.nodes);
        }
    }

    #[test]
    fn a_shard_is_forecast_from_its_own_units_and_the_shards_add_up_to_the_whole() {
        // Round-robin shards as `count --shard K/4` takes them. Each shard's forecast is near its own units'
        // nodes as counted, a quarter of the board's: a forecast that drew from the whole plan, or weighed the
        // shard's descents by the plan's units, would be about four times them. And the four add up to the
        // whole plan's forecast within their standard errors together.
        for (n, symmetry) in [(13, Symmetry::Full), (12, Symmetry::Mirror)] {
            let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::durable(symmetry));
            let whole = Forecast::with_samples(&plan, 2, 1000);
            let (mut sum, mut variance) = (0.0, whole.nodes_error.powi(2));
            for k in 0..4 {
                let units: Vec<usize> = (0..plan.units().len()).filter(|u| u % 4 == k).collect();
                let stop = std::sync::atomic::AtomicBool::new(false);
                let counted = run_selected(&plan, &units, 2, &stop, &NoProgress).unwrap();
                let counted = counted.nodes as f64;
                let forecast = Forecast::with_samples_of(&plan, Some(&units), 2, 1000).unwrap();
                assert_eq!(forecast.units, units.len());
                let off = (forecast.nodes - counted).abs();
                assert!(
                    off <= 5.0 * forecast.nodes_error && off <= 0.2 * counted,
                    "n = {n} {symmetry}, shard {k}/4: counted {counted}, forecast {forecast:?}"
                );
                sum += forecast.nodes;
                variance += forecast.nodes_error.powi(2);
            }
            assert!(
                (sum - whole.nodes).abs() <= 5.0 * variance.sqrt(),
                "n = {n} {symmetry}: the shards' forecasts add up to {sum}, the whole's is {whole:?}"
            );
        }
        // Units unlike the plan's others (the full symmetry's first tenth, several times the average unit) are
        // estimated from themselves, not as their share of the plan's units.
        let plan = Plan::new(
            Board::new(13).unwrap(),
            Symmetry::Full,
            Split::durable(Symmetry::Full),
        );
        let first: Vec<usize> = (0..plan.units().len() / 10).collect();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let counted = run_selected(&plan, &first, 2, &stop, &NoProgress)
            .unwrap()
            .nodes as f64;
        let whole = run_parallel(&plan, 2, &NoProgress).unwrap().nodes as f64;
        assert!(counted > 1.3 * whole / 10.0, "{counted} of {whole}");
        let forecast = Forecast::with_samples_of(&plan, Some(&first), 2, 1000).unwrap();
        let off = (forecast.nodes - counted).abs();
        assert!(
            off <= 5.0 * forecast.nodes_error && off <= 0.2 * counted,
            "the first tenth: counted {counted}, forecast {forecast:?}"
        );
        // Every unit selected is the whole plan, drawn as the whole plan is.
        let plan = Plan::new(Board::new(11).unwrap(), Symmetry::Full, Split::Depth(2));
        let all: Vec<usize> = (0..plan.units().len()).collect();
        assert_eq!(
            Forecast::with_samples_of(&plan, Some(&all), 1, 300)
                .unwrap()
                .nodes,
            Forecast::with_samples(&plan, 1, 300).nodes
        );
    }

    #[test]
    fn a_deep_board_is_cut_where_its_subtrees_hold_some_ten_thousand_nodes() {
        // n = 20's units hold some 10^8 nodes each: the cut is some rows below their starts.
        let plan = Plan::new(
            Board::new(20).unwrap(),
            Symmetry::Full,
            Split::durable(Symmetry::Full),
        );
        let cut = cut_depth(
            &Run {
                plan: &plan,
                units: None,
            },
            SUBTREE_NODES,
        );
        assert!((2..=8).contains(&cut), "{cut}");
        // A small board's units are counted whole.
        let small = Plan::new(Board::new(8).unwrap(), Symmetry::Full, Split::Depth(1));
        assert_eq!(
            cut_depth(
                &Run {
                    plan: &small,
                    units: None
                },
                SUBTREE_NODES
            ),
            0
        );
    }

    #[test]
    fn descents_cut_above_the_subtrees_estimate_the_nodes_too() {
        // Subtrees of some 16 nodes: small boards are cut some rows below their units' starts, so the random
        // descent's part of each sample counts as much as the loop's.
        for (n, symmetry) in [
            (12, Symmetry::Full),
            (12, Symmetry::Mirror),
            (10, Symmetry::None),
        ] {
            let plan = Plan::new(Board::new(n).unwrap(), symmetry, Split::Depth(1));
            let units = Run {
                plan: &plan,
                units: None,
            };
            let cut = cut_depth(&units, 16.0);
            assert!(cut >= 2, "n = {n} {symmetry}: cut {cut}");
            let counted = run_parallel(&plan, 2, &NoProgress).unwrap().nodes as f64;
            let forecast = Forecast::run(&units, 2, Until::Samples(2000), 16.0);
            assert_eq!(forecast.cut_depth, cut);
            let off = (forecast.nodes - counted).abs();
            assert!(
                off <= 4.0 * forecast.nodes_error && off <= 0.1 * counted,
                "n = {n} {symmetry}: counted {counted}, forecast {forecast:?}"
            );
        }
    }

    #[test]
    fn sampling_stops_at_the_time_given_or_once_it_holds_the_whole() {
        // n = 16's plan holds 3.4 x 10^8 nodes, more than a tenth of a second samples.
        let large = Plan::new(
            Board::new(16).unwrap(),
            Symmetry::Full,
            Split::durable(Symmetry::Full),
        );
        let forecast = Forecast::sample(&large, 2, Duration::from_millis(100));
        assert!(forecast.sampled_seconds >= 0.1, "{forecast:?}");
        assert!(forecast.samples >= 2 * MIN_SAMPLES as u64, "{forecast:?}");
        assert!(
            (forecast.sampled_nodes as f64) < forecast.nodes,
            "{forecast:?}"
        );
        // n = 9's, some thousands: the samples hold that much long before a minute has passed.
        let small = Plan::new(
            Board::new(9).unwrap(),
            Symmetry::Full,
            Split::durable(Symmetry::Full),
        );
        let forecast = Forecast::sample(&small, 2, Duration::from_secs(60));
        assert!(forecast.sampled_seconds < 30.0, "{forecast:?}");
        assert!(
            forecast.sampled_nodes as f64 >= forecast.nodes * 0.9,
            "{forecast:?}"
        );
    }

    #[test]
    fn the_spread_kept_as_samples_come_is_the_spread_of_them_all() {
        let values = [3.0, 1e12, 5.5, 7e11, 42.0, 0.0, 9e11];
        let (mut one, mut left, mut right) =
            (Spread::default(), Spread::default(), Spread::default());
        for (i, &x) in values.iter().enumerate() {
            one.add(x);
            if i < 3 {
                left.add(x)
            } else {
                right.add(x)
            }
        }
        let mean = values.iter().sum::<f64>() / 7.0;
        let squares: f64 = values.iter().map(|x| (x - mean).powi(2)).sum();
        let error = (squares / 6.0 / 7.0).sqrt();
        for spread in [
            one,
            left.merge(&right),
            right.merge(&left),
            Spread::default().merge(&one),
        ] {
            assert_eq!(spread.count, 7);
            assert!((spread.mean - mean).abs() < 1e-9 * mean, "{spread:?}");
            assert!(
                (spread.standard_error() - error).abs() < 1e-9 * error,
                "{spread:?}"
            );
        }
        assert_eq!(one.merge(&Spread::default()).mean, one.mean);
        let mut single = Spread::default();
        single.add(5.0);
        assert_eq!((single.mean, single.standard_error()), (5.0, 0.0));
        // Two samples have a spread: 3 and 5, a standard deviation of √2, over √2.
        single.add(3.0);
        assert!((single.standard_error() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_time_is_the_nodes_at_the_sampled_rate() {
        let forecast = Forecast {
            units: 10,
            nodes: 3e12,
            nodes_error: 1e10,
            cut_depth: 2,
            samples: 1000,
            sampled_nodes: 3_000_000_000,
            threads: 2,
            sampled_seconds: 2.0,
            kernel: kernel::Kernel::Avx512,
            searches: 32,
            largest_unit_nodes: None,
            sampled_cores: None,
        };
        assert_eq!(forecast.rate(), 1.5e9);
        assert_eq!(forecast.seconds(), Some(2000.0));
        assert!(!forecast.bound_by_largest_unit());
        // Units too few to keep the 64 searches busy: the largest, 1e12 nodes, on one search at 1.5e9 / 64
        // nodes a second.
        let few = Forecast {
            largest_unit_nodes: Some(1e12),
            ..forecast.clone()
        };
        assert_eq!(few.largest_unit_seconds(), Some(1e12 / (1.5e9 / 64.0)));
        assert_eq!(few.seconds(), few.largest_unit_seconds());
        assert!(few.bound_by_largest_unit());
        // Sampled with one core between the two threads (a shared machine): the lone search has a core,
        // and the rate of one is the whole rate's, over 32 searches.
        let shared = Forecast {
            sampled_cores: Some(1.0),
            ..few.clone()
        };
        assert_eq!(shared.largest_unit_seconds(), Some(1e12 / (1.5e9 / 32.0)));
        // Cores measured at their full share, or beyond it (timer noise), leave it as it was.
        for cores in [2.0, 2.3, f64::NAN, 0.0] {
            let whole = Forecast {
                sampled_cores: Some(cores),
                ..few.clone()
            };
            assert_eq!(
                whole.largest_unit_seconds(),
                few.largest_unit_seconds(),
                "{cores}"
            );
        }
        // Many small units: the rate's time, as before.
        let many = Forecast {
            largest_unit_nodes: Some(1e9),
            ..forecast.clone()
        };
        assert_eq!(many.seconds(), Some(2000.0));
        assert!(!many.bound_by_largest_unit());
        // No time measured, or no nodes counted: no rate, and no time.
        let instant = Forecast {
            sampled_seconds: 0.0,
            ..forecast.clone()
        };
        assert_eq!((instant.rate(), instant.seconds()), (0.0, None));
        let empty = Forecast {
            sampled_nodes: 0,
            ..forecast
        };
        assert_eq!((empty.rate(), empty.seconds()), (0.0, None));
    }

    #[test]
    fn a_run_of_few_units_takes_as_long_as_its_largest_on_one_search() {
        // One unit: counted by one search of one thread, at 1/(threads × searches) of the rate the sampling
        // measured with all of them busy. Its nodes are the run's.
        let plan = Plan::new(Board::new(10).unwrap(), Symmetry::None, Split::Depth(1));
        let one = [3];
        let forecast = Forecast::with_samples_of(&plan, Some(&one), 2, 400).unwrap();
        let largest = forecast
            .largest_unit_nodes
            .expect("a lone unit is sampled enough");
        assert!((largest - forecast.nodes).abs() <= 1e-9 * forecast.nodes);
        let per_search = forecast.rate() / (2 * forecast.searches) as f64;
        assert_eq!(forecast.seconds(), Some(largest / per_search));
        assert!(forecast.bound_by_largest_unit());
        // The plan's ten units: the largest is some tenth of the nodes, each unit sampled some 200 times.
        let whole = Forecast::with_samples(&plan, 2, 1000);
        let largest = whole
            .largest_unit_nodes
            .expect("ten units are sampled enough");
        assert!(
            largest > whole.nodes / 10.0 && largest < whole.nodes / 3.0,
            "{largest} of {}",
            whole.nodes
        );
        // A number past the plan's units is refused, not read past its end.
        assert_eq!(
            Forecast::with_samples_of(&plan, Some(&[0, 10]), 1, 10),
            Err(Error::UnitOutsidePlan {
                unit: 10,
                units: 10
            })
        );
        assert!(Forecast::sample_units(&plan, Some(&[17]), 1, Duration::ZERO).is_err());
        // A unit named twice is refused: its nodes were counted twice (678 of unit 0's 226 for [0, 0, 0]).
        assert_eq!(
            Forecast::with_samples_of(&plan, Some(&[0, 0, 0]), 1, 10),
            Err(Error::UnitRepeated { unit: 0 })
        );
        // A run of more units than a tally is kept for: none told.
        let many = Plan::new(Board::new(13).unwrap(), Symmetry::None, Split::Depth(6));
        assert!(many.units().len() > TALLIED_UNITS);
        assert_eq!(
            Forecast::with_samples(&many, 1, 300).largest_unit_nodes,
            None
        );
    }

    #[test]
    fn the_subtrees_sampled_are_near_the_target_on_wide_rows_too() {
        // 30x8 multiplies its paths some twentyfold a row: the first depth under the target left subtrees of
        // some 4,400 nodes, whose descents and starts halved the sampled rate (a forecast twice too long).
        // The depth nearer the target by ratio is taken; squares keep theirs within a few times of it.
        for board in [Board::rect(30, 8).unwrap(), Board::new(15).unwrap()] {
            let plan = Plan::new(board, Symmetry::Mirror, Split::Depth(3));
            let forecast = Forecast::with_samples(&plan, 1, 2000);
            let per_subtree = forecast.sampled_nodes as f64 / forecast.samples as f64;
            let ratio = (per_subtree / SUBTREE_NODES).max(SUBTREE_NODES / per_subtree);
            assert!(ratio < 5.0, "{board}: {per_subtree} nodes a subtree");
        }
    }

    #[test]
    fn boards_with_nothing_to_sample_have_no_time() {
        for n in [0, 1, 2, 3] {
            let plan = Plan::new(Board::new(n).unwrap(), Symmetry::Full, Split::Depth(0));
            let forecast = Forecast::sample(&plan, 2, Duration::from_millis(50));
            assert_eq!(forecast.sampled_nodes, 0, "n = {n}");
            assert_eq!(forecast.seconds(), None, "n = {n}");
        }
    }
}
