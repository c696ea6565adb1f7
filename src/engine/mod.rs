//! The counting engine: from a board to a sum of exact counts.
//!
//! A [`board::Board`] and a [`symmetry::Symmetry`] give a [`plan::Plan`] of numbered work units (the
//! [`border`] pre-placement for the full symmetry, row prefixes otherwise); an executor ([`exec`]) counts the
//! units with the search loops of [`kernel`] and sums their [`count::Count`]s. Nothing here knows of files,
//! journals, reports or the command line, and the loops in [`kernel`] know nothing of the rest.

pub mod board;
pub mod border;
pub mod count;
pub mod exec;
pub mod kernel;
pub mod plan;
pub mod symmetry;
