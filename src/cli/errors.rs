//! How a run of the command ends badly: the usage error every command may raise, and the exit codes.
//!
//! A module of its own so that every part of the command line can use them without importing each other.

/// Anything went wrong that is not one of the codes below.
pub const EXIT_ERROR: u8 = 1;
/// Bad arguments (clap uses the same code for its own errors).
pub const EXIT_USAGE: u8 = 2;
/// A count differs from the published value.
pub const EXIT_MISMATCH: u8 = 3;

/// A mistake in the arguments: the message says what to do.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);
