//! One module per command. Each takes the parsed arguments, calls the library and writes its results;
//! [`crate::cli::run`] picks the command and `main` maps what it returns to an exit code.
//!
//! - counting: [`count`] (`count` and `verify`, with checkpoints and shards in [`count::checkpointed`]),
//!   [`bench`], [`units`] (the plan of a run), [`merge`] (the journals of a sharded run) and [`estimate`] (how
//!   long a count would take);
//! - solutions: [`list`], [`solve`] and [`check`];
//! - charts: [`plot`];
//! - the shell: [`docs`] (`completions` and `man`).

pub mod bench;
pub mod check;
pub mod count;
pub mod docs;
pub mod estimate;
pub mod list;
pub mod merge;
pub mod plot;
pub mod solve;
pub mod units;
