//! The counting engine: from a board to a sum of exact counts.
//!
//! A [`board::Board`] and a [`symmetry::Symmetry`] give a [`plan::Plan`] of numbered work units (the
//! [`border`] pre-placement for the full symmetry, row prefixes otherwise); an executor ([`exec`]) counts the
//! units with the search loops of [`kernel`] and sums their [`count::Count`]s. Nothing here knows of files,
//! journals, reports or the command line, and the loops in [`kernel`] know nothing of the rest.

pub mod board;
pub mod border;
pub mod count;
pub mod estimate;
pub mod exec;
pub mod forecast;
pub mod kernel;
pub mod plan;
pub mod symmetry;

/// The published counts, for the engine's own tests: read here from `data/known-counts.tsv`, because the engine
/// sits below [`crate::report`], whose table the program checks against.
#[cfg(test)]
pub(crate) fn published(n: u32) -> (u128, Option<u128>) {
    include_str!("../../data/known-counts.tsv")
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| line.split('\t').map(str::trim).collect::<Vec<_>>())
        .find(|fields| fields[0] == n.to_string())
        .map(|fields| (fields[1].parse().unwrap(), fields[2].parse().ok()))
        .unwrap_or_else(|| panic!("n = {n} is not published"))
}
