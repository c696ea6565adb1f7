//! nqueens: counts the solutions of the N-Queens problem exactly, on every core.
//!
//! A count goes through the same steps whatever runs it, and the modules follow them:
//!
//! | step | module |
//! |---|---|
//! | a [`Board`] and a [`Symmetry`] give a [`Plan`] of numbered work units | [`engine::board`], [`engine::symmetry`], [`engine::border`], [`engine::plan`] |
//! | an executor counts the units with the bitmask search loops and sums their [`Count`]s | [`engine::exec`], [`engine::kernel`], [`engine::count`], or the GPU: [`gpu`] |
//! | the sum becomes a [`BoardResult`] in a [`Report`], which an exporter turns into bytes | [`report`], [`report::export`] |
//!
//! Runs of hours to months go through the same plan ([`runs`]): a [`runs::checkpoint`] records each finished
//! unit in a [`runs::journal`] and resumes from it, a [`runs::shard`] counts a deterministic share of the units,
//! and [`runs::merge`] adds the journals of a run into a total only once every unit is there exactly once, under
//! one plan [`runs::fingerprint`]. Listing, drawing, checking and constructing solutions is [`solutions`].
//!
//! `ARCHITECTURE.md` in the repository is the map: what each folder holds and what it may import.
//!
//! ```
//! use nqueens::{count, CountRequest, NoProgress, Symmetry};
//!
//! let request = CountRequest::new(8)?.symmetry(Symmetry::Full).threads(2);
//! let result = count(&request, &NoProgress)?;
//! assert_eq!(result.total, 92);
//! assert_eq!(result.unique, Some(12));
//! # Ok::<(), nqueens::Error>(())
//! ```

#![warn(missing_docs)]
// A user's `{:?}`, `unwrap_err` and `expect_err` need every public type to be printable.
#![warn(missing_debug_implementations)]

pub mod engine;
pub mod error;
pub mod gpu;
pub mod report;
pub mod runs;
pub mod solutions;

mod request;

pub use engine::board::Board;
pub use engine::count::Count;
pub use engine::exec::{Backend, NoProgress, Progress};
pub use engine::plan::{Plan, Split, WorkUnit};
pub use engine::symmetry::Symmetry;
pub use error::Error;
pub use report::{BoardResult, Report};
pub use request::{count, CountRequest};
