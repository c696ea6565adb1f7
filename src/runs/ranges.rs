//! Sets of unit numbers written as ranges (`0-99,150,200-204`): how a user names units to rerun and how a
//! merge names the units it misses.

use std::fmt;
use std::str::FromStr;

/// Unit numbers as sorted, disjoint, inclusive ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ranges(Vec<(usize, usize)>);

/// A unit list that does not parse.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BadRanges {
    /// Not numbers and ranges.
    #[error(
        "'{0}' is not a list of unit numbers: write numbers and ranges such as 0-99,150,200-204"
    )]
    Malformed(String),
    /// A range whose first unit is past its last: said as such, since the list is otherwise well written and
    /// "not a list of unit numbers" would not say what to change.
    #[error(
        "'{list}' has the range {first}-{last}, which runs backwards: write its first unit first, {last}-{first}"
    )]
    Backwards {
        /// The list as given.
        list: String,
        /// The range's first number, as given.
        first: usize,
        /// Its last, as given.
        last: usize,
    },
}

impl Ranges {
    /// The ranges covering `units`, read in one pass when they come in increasing order. Units out of order or
    /// repeated are sorted and each kept once: `[5, 1, 3]` made a set of `5,1,3` that did not contain 1, and
    /// `[2, 2, 2]` one of three units.
    pub fn from_sorted(units: impl IntoIterator<Item = usize>) -> Ranges {
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        let mut units = units.into_iter();
        while let Some(u) = units.next() {
            match ranges.last_mut() {
                Some((_, end)) if end.checked_add(1) == Some(u) => *end = u,
                Some(&mut (_, end)) if u <= end => {
                    // The ranges so far and the units left, as ranges sorted by their start and merged where
                    // they overlap or touch.
                    ranges.extend(std::iter::once(u).chain(units).map(|u| (u, u)));
                    ranges.sort_unstable();
                    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
                    for (start, end) in ranges {
                        match merged.last_mut() {
                            Some((_, last)) if start <= last.saturating_add(1) => {
                                *last = end.max(*last)
                            }
                            _ => merged.push((start, end)),
                        }
                    }
                    return Ranges(merged);
                }
                _ => ranges.push((u, u)),
            }
        }
        Ranges(ranges)
    }

    /// Whether `unit` is in the set.
    pub fn contains(&self, unit: usize) -> bool {
        let i = self.0.partition_point(|&(_, end)| end < unit);
        self.0.get(i).is_some_and(|&(start, _)| start <= unit)
    }

    /// How many units the set holds.
    pub fn len(&self) -> usize {
        // Saturating: `0-18446744073709551615`, which parses, holds one unit more than a usize counts.
        self.0.iter().fold(0usize, |all, (a, b)| {
            all.saturating_add((b - a).saturating_add(1))
        })
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The units, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().flat_map(|&(a, b)| a..=b)
    }

    /// Whether the two sets have a unit in common.
    pub fn overlaps(&self, other: &Ranges) -> bool {
        let (mut a, mut b) = (self.0.iter().peekable(), other.0.iter().peekable());
        while let (Some(&&(a0, a1)), Some(&&(b0, b1))) = (a.peek(), b.peek()) {
            if a0 <= b1 && b0 <= a1 {
                return true;
            }
            if a1 < b1 {
                a.next();
            } else {
                b.next();
            }
        }
        false
    }

    /// The largest unit number, if any.
    pub fn last(&self) -> Option<usize> {
        self.0.last().map(|&(_, end)| end)
    }

    /// How many ranges the set is written with (`0-99,150` has 2).
    pub fn ranges(&self) -> usize {
        self.0.len()
    }

    /// The set cut, in order, into sets each written in at most `chars` characters (a range alone is never
    /// cut, and one longer than `chars` is a set of its own): the lists of several commands where one would be
    /// too long.
    pub fn chunks(&self, chars: usize) -> Vec<Ranges> {
        let mut chunks: Vec<Ranges> = Vec::new();
        let mut written = 0;
        for &range in &self.0 {
            let width = Ranges(vec![range]).to_string().len();
            match chunks.last_mut() {
                Some(chunk) if written + 1 + width <= chars => {
                    chunk.0.push(range);
                    written += 1 + width;
                }
                _ => {
                    chunks.push(Ranges(vec![range]));
                    written = width;
                }
            }
        }
        chunks
    }

    /// A set that holds this one and is written in at most `chars` characters: the gaps between its ranges
    /// filled, the narrowest first, up to the narrowest width that makes the list short enough (every gap at
    /// last: one range from the first unit to the last). The list for one command where the set's own is too
    /// long, at the cost of the units of the gaps filled.
    pub fn covered_within(&self, chars: usize) -> Ranges {
        if self.to_string().len() <= chars {
            return self.clone();
        }
        let bridged = |widest: usize| {
            let mut ranges: Vec<(usize, usize)> = Vec::new();
            for &(a, b) in &self.0 {
                match ranges.last_mut() {
                    Some((_, end)) if a - *end - 1 <= widest => *end = b,
                    _ => ranges.push((a, b)),
                }
            }
            Ranges(ranges)
        };
        let mut gaps: Vec<usize> = self.0.windows(2).map(|w| w[1].0 - w[0].1 - 1).collect();
        gaps.sort_unstable();
        gaps.dedup();
        // Filling more gaps only shortens the list: the narrowest width that fits is found by bisection.
        let fits = |&widest: &usize| bridged(widest).to_string().len() <= chars;
        let first_fit = gaps.partition_point(|g| !fits(g));
        bridged(gaps.get(first_fit).copied().unwrap_or(usize::MAX))
    }
}

impl fmt::Display for Ranges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &(a, b)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if a == b {
                write!(f, "{a}")?;
            } else {
                write!(f, "{a}-{b}")?;
            }
        }
        Ok(())
    }
}

impl FromStr for Ranges {
    type Err = BadRanges;
    fn from_str(s: &str) -> Result<Ranges, BadRanges> {
        let bad = || BadRanges::Malformed(s.to_string());
        let mut units = Vec::new();
        for part in s.split(',') {
            let number = |t: &str| t.trim().parse::<usize>().map_err(|_| bad());
            let (a, b) = match part.split_once('-') {
                Some((a, b)) => (number(a)?, number(b)?),
                None => (number(part)?, number(part)?),
            };
            if a > b {
                return Err(BadRanges::Backwards {
                    list: s.to_string(),
                    first: a,
                    last: b,
                });
            }
            units.push((a, b));
        }
        units.sort_unstable();
        // Overlapping or touching ranges join, so that the set has one spelling.
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (a, b) in units {
            match merged.last_mut() {
                Some((_, end)) if a <= end.saturating_add(1) => *end = (*end).max(b),
                _ => merged.push((a, b)),
            }
        }
        Ok(Ranges(merged))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_widest_list_that_parses_is_counted_without_overflow() {
        let all: Ranges = "0-18446744073709551615".parse().unwrap();
        assert_eq!(all.len(), usize::MAX);
        assert_eq!("3,5-9".parse::<Ranges>().unwrap().len(), 6);
    }

    #[test]
    fn two_sets_overlap_where_they_share_a_unit() {
        let r = |s: &str| s.parse::<Ranges>().unwrap();
        assert!(r("0-9").overlaps(&r("9-20")));
        assert!(r("5,30-40").overlaps(&r("0-3,35")));
        assert!(r("35").overlaps(&r("0-3,30-40")));
        assert!(!r("0-9,20-29").overlaps(&r("10-19,30")));
        assert!(!r("10-19,30").overlaps(&r("0-9,20-29")));
        assert!(!Ranges::default().overlaps(&r("0-9")));
    }

    #[test]
    fn a_list_too_long_is_cut_into_lists_that_fit_or_covered_by_one_that_fits() {
        let r = |s: &str| s.parse::<Ranges>().unwrap();
        let set = r("0,2,4-6,10,20-29,31");
        // Cut at commas, in order, each within the width, a range never split.
        let chunks = set.chunks(6);
        let lists: Vec<String> = chunks.iter().map(Ranges::to_string).collect();
        assert_eq!(lists, ["0,2", "4-6,10", "20-29", "31"]);
        assert_eq!(set.chunks(100), std::slice::from_ref(&set));
        // Covered: the narrowest gaps filled first, and no more of them than it takes.
        assert_eq!(set.covered_within(100), set);
        assert_eq!(set.covered_within(12).to_string(), "0-6,10,20-31");
        assert_eq!(set.covered_within(10).to_string(), "0-10,20-31");
        assert_eq!(set.covered_within(8).to_string(), "0-31");
        assert_eq!(set.covered_within(1).to_string(), "0-31");
        let covered = set.covered_within(10);
        assert!(set.iter().all(|u| covered.contains(u)));
        assert_eq!(set.ranges(), 6);
    }

    #[test]
    fn ranges_round_trip_and_answer_membership() {
        let r: Ranges = "7,0-3,5,4".parse().unwrap();
        assert_eq!(r.to_string(), "0-5,7");
        assert_eq!(r.len(), 7);
        assert_eq!(r.last(), Some(7));
        assert_eq!(Ranges::default().last(), None);
        assert!(r.contains(0) && r.contains(5) && r.contains(7));
        assert!(!r.contains(6) && !r.contains(8));
        assert_eq!(
            Ranges::from_sorted([1, 2, 3, 9, 11, 12]).to_string(),
            "1-3,9,11-12"
        );
        for bad in ["", "a", "3-1", "1,,2", "-4"] {
            assert!(bad.parse::<Ranges>().is_err(), "{bad}");
        }
    }

    #[test]
    fn units_out_of_order_or_repeated_make_the_same_set_as_sorted_ones() {
        let sorted = Ranges::from_sorted([1, 3, 5]);
        let shuffled = Ranges::from_sorted([5, 1, 3]);
        assert_eq!(shuffled, sorted);
        assert!(shuffled.contains(1));
        assert_eq!(Ranges::from_sorted([2, 2, 2]).len(), 1);
        assert_eq!(
            Ranges::from_sorted([4, 5, 6, 5, 0, 6, 1]).to_string(),
            "0-1,4-6"
        );
        assert_eq!(
            Ranges::from_sorted([usize::MAX, 0]).to_string(),
            format!("0,{}", usize::MAX)
        );
        // A long range already read is merged as a range, not unit by unit.
        let long = Ranges::from_sorted((0..1_000_000).chain([7, 1_000_001]));
        assert_eq!(long.to_string(), "0-999999,1000001");
    }

    #[test]
    fn a_range_that_runs_backwards_is_said_to_with_the_range_written_the_right_way() {
        assert_eq!(
            "0-9,15-12".parse::<Ranges>().unwrap_err().to_string(),
            "'0-9,15-12' has the range 15-12, which runs backwards: write its first unit first, 12-15"
        );
        assert_eq!(
            "1,,2".parse::<Ranges>().unwrap_err().to_string(),
            "'1,,2' is not a list of unit numbers: write numbers and ranges such as 0-99,150,200-204"
        );
    }
}
