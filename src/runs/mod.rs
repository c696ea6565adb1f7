//! Runs of hours to months: the same plan counted in pieces, on many machines, across interruptions.
//!
//! A [`checkpoint`] records each finished unit in a [`journal`] and resumes from it; a [`shard`] counts a
//! deterministic share of the units, or the [`ranges`] of units asked for; [`merge`] adds the journals of a
//! run into a total only once every unit is there exactly once, under one plan [`fingerprint`].

pub mod checkpoint;
pub mod fingerprint;
pub mod journal;
pub mod merge;
pub mod ranges;
pub mod shard;
