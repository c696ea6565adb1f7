//! Published counts, for verification only: the engine never answers from this table.
//!
//! The table is OEIS A000170 (all solutions) and A002562 (solutions unique under rotation and reflection) for
//! n = 0..=27, the frontier of what has been counted. It is compiled into the binary from
//! `data/known-counts.tsv` so that `--check` works anywhere.

use std::sync::OnceLock;

const TABLE: &str = include_str!("../../data/known-counts.tsv");

/// A published row: the board side and its counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    /// Board side.
    pub n: u32,
    /// All solutions (A000170).
    pub total: u128,
    /// Solutions unique under the board's 8 symmetries (A002562); not defined for n = 0.
    pub unique: Option<u128>,
}

fn table() -> &'static [Known] {
    static ROWS: OnceLock<Vec<Known>> = OnceLock::new();
    ROWS.get_or_init(|| parse(TABLE))
}

/// Parses the tab-separated table: `n`, total, unique (may be empty); `#` starts a comment line.
pub fn parse(text: &str) -> Vec<Known> {
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut fields = line.split('\t').map(str::trim);
            let mut next = || fields.next().unwrap_or("");
            let n = next().parse().expect("known-counts: n");
            let total = next().parse().expect("known-counts: total");
            let unique = next().parse().ok();
            Known { n, total, unique }
        })
        .collect()
}

/// The published row for `n`, if `n` has been counted.
pub fn lookup(n: u32) -> Option<Known> {
    table().iter().copied().find(|k| k.n == n)
}

/// The largest n with a published count.
pub fn largest() -> u32 {
    table().iter().map(|k| k.n).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_runs_from_0_to_27_without_gaps() {
        let ns: Vec<u32> = table().iter().map(|k| k.n).collect();
        assert_eq!(ns, (0..=27).collect::<Vec<_>>());
        assert_eq!(lookup(8).unwrap().total, 92);
        assert_eq!(lookup(8).unwrap().unique, Some(12));
        assert_eq!(lookup(0).unwrap().unique, None);
        assert_eq!(largest(), 27);
    }
}
