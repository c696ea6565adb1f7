//! The library's errors: what went wrong, in words a user can act on.

use thiserror::Error;

/// Everything the library can refuse or fail at.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum Error {
    /// The board does not fit the kernel's masks.
    #[error("n = {n} is too large: the bitmask kernel handles boards up to n = {max}")]
    BoardTooLarge {
        /// The side asked for.
        n: u32,
        /// The largest side accepted.
        max: u32,
    },
    /// A rectangle with a side that does not fit the kernel's masks, named as it was asked for.
    #[error(
        "the board {rows}x{cols} is too large: the bitmask kernel handles boards of up to {max} rows and {max} \
         columns"
    )]
    RectangleTooLarge {
        /// Its rows.
        rows: u32,
        /// Its columns.
        cols: u32,
        /// The largest side accepted.
        max: u32,
    },
    /// A thread count of zero.
    #[error("the number of threads must be at least 1")]
    NoThreads,
    /// The worker threads could not be started.
    #[error("could not start {threads} worker threads: {reason}")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// What the operating system said.
        reason: String,
    },
    /// A fixed split depth that would cut the board into more work units than a plan holds
    /// ([`crate::engine::plan::MAX_UNITS`]): they would cost memory and planning time and make nothing faster.
    #[error(
        "a split depth of {depth} would cut the board into more than {limit} work units, which costs memory and \
         planning time and makes nothing faster: use a depth from 0 to {deepest} ({units_at_deepest} units at \
         depth {deepest}), or none to have it chosen"
    )]
    TooManyUnits {
        /// The depth asked for.
        depth: u32,
        /// The most units a plan holds.
        limit: usize,
        /// The deepest split within the limit.
        deepest: u32,
        /// The units of the split at `deepest`.
        units_at_deepest: usize,
    },
    /// A unit asked for by number that the plan does not have.
    #[error("unit {unit} is not in the plan, whose {units} units are numbered from 0")]
    UnitOutsidePlan {
        /// The number asked for.
        unit: usize,
        /// The plan's units.
        units: usize,
    },
    /// A unit asked for by number more than once: counted twice, it would be in the total twice.
    #[error("unit {unit} is named twice: each unit is counted once, so name each once")]
    UnitRepeated {
        /// The number named again.
        unit: usize,
    },
    /// The GPU backend is not built in, finds no GPU, or the GPU failed.
    #[error("GPU backend: {0}")]
    Gpu(String),
}
